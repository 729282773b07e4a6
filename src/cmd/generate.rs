//! `batchdoku generate`: write uniquely solvable puzzles.

use super::run_args::{per_sec, RunArgs};
use crate::tasks::generate::{
    candidates_kept, generate, GenerateOptions, Generated, Keep, Symmetry, TRIES_PER_PUZZLE,
};
use crate::tasks::rate::Difficulty;
use crate::write::output::Output;
use anyhow::Context;
use rayon::prelude::*;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Write N uniquely solvable puzzles, one per line (81 cells, `.` for
/// blanks).
///
/// Each puzzle is a random complete grid with clues removed in random order
/// while it keeps exactly one solution: by default until the first clue that
/// is needed, with --minimal until no clue can go. Puzzle i of a run draws
/// from its own random stream (seed, i), so the same seed and options give
/// the same file whatever the thread count.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku generate -n 1000 --seed 7 -o puzzles.txt
  batchdoku generate -n 100 --minimal --symmetry rotational --with-solution
  batchdoku generate -n 20 --er 6.6-7.5 --minimal -j 8

Difficulty classes (see `batchdoku rate`): easy = singles suffice, medium =
locked candidates needed, hard = search needed with fewer than 20 guesses,
extreme = 20 guesses or more.")]
pub struct Args {
    /// How many puzzles.
    #[arg(short = 'n', long = "count", default_value_t = 1)]
    pub count: u64,
    /// Seed of the run (random when not given, and printed on stderr).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Remove clues until none can go (every clue necessary).
    #[arg(long)]
    pub minimal: bool,
    /// Stop removing clues once K remain (easier puzzles).
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub min_clues: usize,
    /// Remove clues in symmetric pairs: none, rotational, mirror or diagonal.
    #[arg(long, default_value = "none", value_parser = parse_symmetry)]
    pub symmetry: Symmetry,
    /// Keep only puzzles of this class: easy, medium, hard or extreme.
    #[arg(long, value_parser = parse_difficulty, conflicts_with = "er")]
    pub difficulty: Option<Difficulty>,
    /// Keep only puzzles whose Sudoku Explainer rating (ER, see `grade`)
    /// is in MIN-MAX (or is MIN), up to 8.9 in this version.
    #[arg(long, value_name = "MIN-MAX", value_parser = parse_er)]
    pub er: Option<(u16, u16)>,
    /// Write `puzzle,solution` lines.
    #[arg(long)]
    pub with_solution: bool,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

fn parse_symmetry(s: &str) -> Result<Symmetry, String> {
    s.parse()
}

fn parse_difficulty(s: &str) -> Result<Difficulty, String> {
    s.parse()
}

/// `MIN-MAX` or `MIN` as tenths (see [`crate::tasks::generate::er_range`]).
fn parse_er(s: &str) -> Result<(u16, u16), String> {
    crate::tasks::generate::er_range(s)
}

/// Candidates generated per parallel batch before writing.
const BATCH: u64 = 1024;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let seed = args.seed.unwrap_or_else(clock_seed);
    if args.seed.is_none() && !args.run.quiet {
        eprintln!("batchdoku: seed {seed}");
    }
    let options = GenerateOptions {
        minimal: args.minimal,
        min_clues: args.min_clues,
        symmetry: args.symmetry,
    };
    let pool = args.run.pool()?;
    let mut output = Output::create(args.output.as_deref(), None)?;
    let progress = args.run.progress_counter(args.count);
    let started = Instant::now();
    let mut written = 0u64;
    let mut next_index = 0u64;
    let mut clue_histogram = [0u64; 82];
    let keep = match (args.difficulty, args.er) {
        (Some(class), _) => Some(Keep::Class(class)),
        (None, Some((min, max))) => Some(Keep::Er { min, max }),
        (None, None) => None,
    };
    let max_index = match keep {
        Some(_) => args.count.saturating_mul(TRIES_PER_PUZZLE),
        None => args.count,
    };
    while written < args.count && next_index < max_index {
        let want = args.count - written;
        // Without a class filter every candidate is kept: generate exactly
        // what is missing. With one, a whole batch.
        let size = match keep {
            None => want.min(BATCH),
            Some(_) => BATCH,
        };
        let end = (next_index + size).min(max_index);
        let batch = pool.install(|| candidates(seed, next_index..end, options, keep));
        next_index = end;
        let mut text = String::with_capacity(batch.len() * 164);
        for g in batch {
            if written == args.count {
                break;
            }
            clue_histogram[g.puzzle.clue_count()] += 1;
            text.push_str(&g.puzzle.to_line());
            if args.with_solution {
                text.push(',');
                text.push_str(&g.solution.to_line());
            }
            text.push('\n');
            written += 1;
        }
        if let Err(e) = output.write_all(text.as_bytes()) {
            progress.finish();
            if e.kind() == std::io::ErrorKind::BrokenPipe && output.partial_path().is_none() {
                // The reader went away (`| head -1`): it has what it wanted.
                return Ok(ExitCode::SUCCESS);
            }
            return Err(e).with_context(|| format!("cannot write {}", output.target()));
        }
        progress.set_done(written, started);
    }
    progress.finish();
    if written < args.count {
        // Keep what was found under the partial name, never as if complete.
        let _ = output.flush();
        return Err(shortfall(&args, written, next_index, &output));
    }
    output.finish()?;
    let seconds = started.elapsed().as_secs_f64();
    let threads = pool.current_num_threads();
    report(&args, seed, next_index, &clue_histogram, seconds, threads)?;
    Ok(ExitCode::SUCCESS)
}

/// The summary on stderr and the `--stats` file: puzzles written (the
/// clue histogram's sum), candidates generated, the seed.
fn report(
    args: &Args,
    seed: u64,
    next_index: u64,
    clue_histogram: &[u64; 82],
    seconds: f64,
    threads: usize,
) -> anyhow::Result<()> {
    let written: u64 = clue_histogram.iter().sum();
    if !args.run.quiet {
        eprintln!(
            "{written} puzzles in {seconds:.3} s ({:.0} puzzles/s, {next_index} generated), seed {seed}",
            written as f64 / seconds.max(1e-9)
        );
        let histogram: Vec<String> = clue_histogram
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(clues, n)| format!("{clues}: {n}"))
            .collect();
        eprintln!("clues: {}", histogram.join(", "));
    }
    // Clue counts as an object, "17": n, for the counts that occur.
    let clues: serde_json::Map<String, serde_json::Value> = clue_histogram
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(clues, &n)| (clues.to_string(), n.into()))
        .collect();
    args.run.write_stats(&serde_json::json!({
        "puzzles": written,
        "generated": next_index,
        "seed": seed,
        "clues": clues,
        "seconds": seconds,
        "puzzles_per_sec": per_sec(written, seconds),
        "threads": threads,
    }))?;
    Ok(())
}

/// The candidates numbered `indices` for `seed`, in order: all of them, or
/// with `keep`, those it keeps.
fn candidates(
    seed: u64,
    indices: std::ops::Range<u64>,
    options: GenerateOptions,
    keep: Option<Keep>,
) -> Vec<Generated> {
    match keep {
        None => indices
            .into_par_iter()
            .map(|i| generate(seed, i, options))
            .collect(),
        Some(keep) => candidates_kept(seed, indices, options, keep)
            .into_iter()
            .map(|(_, g)| g)
            .collect(),
    }
}

/// The error of a run that found fewer puzzles than asked in its tries:
/// what it found, where they are kept, and the options that narrowed it.
fn shortfall(args: &Args, written: u64, tries: u64, output: &Output) -> anyhow::Error {
    let kept = match output.partial_path() {
        Some(p) => format!("; {} holds the {written} found", p.display()),
        None => String::new(),
    };
    let class = match (args.difficulty, args.er) {
        (Some(d), _) => d.word().to_string(),
        (None, Some((min, max))) => format!(
            "ER {}-{}",
            crate::tasks::grade::rating_text(min),
            crate::tasks::grade::rating_text(max)
        ),
        (None, None) => String::new(),
    };
    let mut narrowing = Vec::new();
    if args.min_clues > 0 {
        narrowing.push(format!("--min-clues {}", args.min_clues));
    }
    if args.symmetry != Symmetry::None {
        narrowing.push(format!("--symmetry {}", args.symmetry));
    }
    let hint = if narrowing.is_empty() {
        String::new()
    } else {
        format!(
            " ({} narrow what can be generated)",
            narrowing.join(" and ")
        )
    };
    anyhow::anyhow!(
        "only {written} of {} {class} puzzles in {tries} tries{hint}{kept}",
        args.count
    )
}

/// A seed for runs that name none: the clock's nanoseconds mixed with the
/// process id, enough to differ from run to run (it is printed for replay).
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
