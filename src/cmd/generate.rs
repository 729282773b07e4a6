//! `batchdoku generate`: write uniquely solvable puzzles.

use super::output::Output;
use batchdoku::generate::{generate, GenerateOptions};
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;

/// Write N uniquely solvable puzzles, one per line (81 cells, `.` for
/// blanks). Each puzzle is a random complete grid with clues removed in
/// random order while it keeps one solution; by default removal goes on until
/// no clue can go (a minimal puzzle). The same seed gives the same file
/// whatever the thread count.
#[derive(clap::Args)]
pub struct Args {
    /// How many puzzles.
    #[arg(short, long, default_value_t = 1)]
    pub count: u64,
    /// Seed of the run (random when not given; printed on stderr).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop removing clues once K remain (easier puzzles).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub min_clues: usize,
    /// Write `puzzle,solution` lines.
    #[arg(long)]
    pub with_solution: bool,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(short = 'j', long = "threads", default_value_t = 0, value_name = "N")]
    pub threads: usize,
}

/// Puzzles generated per parallel batch before writing.
const BATCH: u64 = 4096;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let seed = args.seed.unwrap_or_else(clock_seed);
    if args.seed.is_none() {
        eprintln!("batchdoku: seed {seed}");
    }
    let options = GenerateOptions {
        min_clues: args.min_clues,
    };
    let pool = super::thread_pool(args.threads)?;
    let mut output = Output::create(args.output.as_deref())?;
    let mut start = 0;
    while start < args.count {
        let end = (start + BATCH).min(args.count);
        let lines: Vec<String> = pool.install(|| {
            (start..end)
                .into_par_iter()
                .map(|i| {
                    let g = generate(seed, i, options);
                    if args.with_solution {
                        format!("{},{}\n", g.puzzle, g.solution)
                    } else {
                        format!("{}\n", g.puzzle)
                    }
                })
                .collect()
        });
        for line in &lines {
            output.write_all(line.as_bytes())?;
        }
        start = end;
    }
    output.finish()?;
    Ok(ExitCode::SUCCESS)
}

/// A seed for runs that name none: the clock's nanoseconds mixed with the
/// process id, enough to differ from run to run (it is printed for replay).
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
