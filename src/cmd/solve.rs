//! `batchdoku solve`: solve every puzzle of a file, one output line per record.

use super::output::Output;
use anyhow::Context;
use batchdoku::batch::{solve_chunk, split_chunks, ChunkReport, Stats};
use batchdoku::SolverKind;
use rayon::prelude::*;
use std::fs::File;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Solve every puzzle of FILE, writing one line per record in input order.
///
/// A record is a line that is neither blank nor a `#` comment: 81 cells in
/// row order (`1`-`9` givens, `.` or `0` blanks), optionally followed by a
/// separator (`,` `:` `;` tab or space) and ignored text. Each record gets
/// one output line: its 81-digit solution, or `unsolvable` (no solution),
/// `invalid` (givens repeat a digit in a unit) or `malformed` (not a puzzle;
/// a warning names its line).
#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 done (even with unsolvable, invalid or malformed records), \
                        1 I/O error, 2 usage error."
)]
pub struct Args {
    /// Puzzle file, one puzzle per line.
    pub file: PathBuf,
    /// Write results here instead of standard output (written as
    /// OUT.partial, renamed when complete).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Solver variant.
    #[arg(long, default_value = "fast", value_parser = parse_solver)]
    pub solver: SolverKind,
    /// Worker threads (0: one per core).
    #[arg(short = 'j', long = "threads", default_value_t = 0, value_name = "N")]
    pub threads: usize,
    /// Count solutions up to N: 1 finds one, 2 proves uniqueness.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Print no statistics or warnings.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_solver(s: &str) -> Result<SolverKind, String> {
    s.parse()
}

/// Input bytes handed to one worker at a time: about 16 chunks per thread so
/// hard and easy stretches of a file even out, between 1 KiB (a dozen
/// puzzles) and 256 KiB (about 3,000: enough to amortise scheduling).
fn chunk_bytes(input: usize, threads: usize) -> usize {
    (input / (threads * 16)).clamp(1 << 10, 256 << 10)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let file =
        File::open(&args.file).with_context(|| format!("cannot open {}", args.file.display()))?;
    // SAFETY: the map is only read. Another process truncating the file while
    // we run could fault the read; that is the documented risk of every
    // memory-mapped reader (ripgrep takes the same) and is not undefined in
    // Rust terms for the bytes we copy out.
    let map = unsafe { memmap2::Mmap::map(&file) }
        .with_context(|| format!("cannot map {}", args.file.display()))?;
    let data: &[u8] = &map;

    let pool = super::thread_pool(args.threads)?;
    let threads = pool.current_num_threads();
    let mut output = Output::create(args.output.as_deref())?;
    let started = Instant::now();
    let chunks = split_chunks(data, chunk_bytes(data.len(), threads));
    let mut stats = Stats::default();
    let mut warned = 0u64;
    let name = args.file.display().to_string();
    // Chunks are solved a window at a time and written in input order, so
    // memory holds at most one window of outputs.
    for window in chunks.chunks(threads * 4) {
        let done: Vec<(Vec<u8>, ChunkReport)> = pool.install(|| {
            window
                .par_iter()
                .map_init(
                    || args.solver.build(),
                    |solver, chunk| {
                        let mut out = Vec::with_capacity(chunk.data.len() + 1024);
                        let report = solve_chunk(
                            solver.as_mut(),
                            chunk.data,
                            chunk.first_line,
                            args.limit,
                            &mut out,
                        );
                        (out, report)
                    },
                )
                .collect()
        });
        for (out, report) in done {
            output.write_all(&out)?;
            stats.merge(&report.stats);
            if !args.quiet {
                for m in &report.malformed {
                    if warned < 10 {
                        eprintln!(
                            "batchdoku: warning: {name}:{}: malformed: {}",
                            m.line, m.error
                        );
                    }
                    warned += 1;
                }
            }
        }
    }
    output.finish()?;
    if !args.quiet {
        if stats.malformed > 10 {
            eprintln!(
                "batchdoku: warning: {} more malformed records not shown",
                stats.malformed - 10
            );
        }
        print_summary(
            &stats,
            started.elapsed().as_secs_f64(),
            threads,
            args.solver,
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(s: &Stats, seconds: f64, threads: usize, solver: SolverKind) {
    let n = s.records.max(1) as f64;
    eprintln!(
        "{} records: {} solved, {} unique, {} multiple, {} unsolvable, {} invalid, {} malformed",
        s.records, s.solved, s.unique, s.multiple, s.unsolvable, s.invalid, s.malformed
    );
    eprintln!(
        "{:.3} s, {:.0} puzzles/s, {:.2} us/puzzle, {:.2} guesses/puzzle, {:.1}% without guessing, {} threads, solver {}",
        seconds,
        s.records as f64 / seconds.max(1e-9),
        seconds * 1e6 / n,
        s.guesses as f64 / n,
        100.0 * s.no_guess as f64 / n,
        threads,
        solver
    );
}
