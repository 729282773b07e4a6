//! `batchdoku solve`: the batch engine. Inputs are memory-mapped (standard
//! input is streamed), cut into chunks on record boundaries, solved by a
//! rayon pool ([`work`]) and written back in input order ([`writer`], with
//! the npy and Parquet files in [`files`]).

mod files;
mod work;
mod writer;

use super::output::refuse_output_as_input;
use super::run_args::RunArgs;
use crate::engine::pipeline::{run_ordered, BufferPool};
use crate::engine::solve::Stats;
use crate::engine::{forced_format, open_sources, Source, INPUT_FORMS};
use crate::read::ColumnSpec;
use crate::write::OutputFormat;
use crate::SolverKind;
use anyhow::bail;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;
use work::Work;
use writer::{Writer, RESUMABLE};

/// Solve every puzzle: one output record per input record, in input order.
///
/// A record is a line that is neither blank nor a `#` comment: 81 cells in
/// row order (`1`-`9` givens, `.` or `0` blanks), optionally followed by a
/// separator (`,` `:` `;` tab or space) and ignored text. A line of 729
/// characters is a pencilmark (Sukaku) puzzle: nine characters a cell, digit
/// d where d is still a candidate, `.` or `0` where it is not. A CSV header
/// at the top of a file is skipped. Files whose first puzzle is written as 9
/// rows of 9 cells are read in grid form (see --input).
///
/// Each record gets one output record: its solution, or a status:
/// `unsolvable` (no solution, or a cell without candidates), `invalid`
/// (givens repeat a digit in a unit, or two of its cells are pinned to one
/// digit) or `malformed` (not a puzzle; a warning names its file and line).
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku solve puzzles.txt -o answers.txt
  batchdoku solve --limit 2 --format csv -j 8 puzzles.txt > answers.csv
  cat puzzles.txt | batchdoku solve -q -      (a filter: one line per record)

Exit codes:
  0  done, even when some puzzles are unsolvable, invalid or malformed
  1  I/O error or interrupted (a file output is kept as OUT.partial; rerun
     with --resume to finish it), or with --strict a malformed or invalid record
  2  usage error")]
pub struct Args {
    /// Puzzle files, or folders of them (Spark's or Hadoop's output: the
    /// part files in name order, `_SUCCESS` and other `_` or `.` names left
    /// out), gzip, zstd or bzip2 compressed or not; `-` or none
    /// reads standard input.
    pub files: Vec<PathBuf>,
    /// Write results here instead of standard output (written as
    /// OUT.partial, renamed when complete).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Solver variant: fast, mrv or backtrack.
    #[arg(long, default_value = "fast", value_parser = parse_solver)]
    pub solver: SolverKind,
    #[command(flatten)]
    pub run: RunArgs,
    /// Count solutions up to N: 1 finds one, 2 proves uniqueness.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub limit: u32,
    /// Output format: line (solution or status word), csv
    /// (line,puzzle,status,solutions,solution,guesses, plus a leading file
    /// column for several inputs), jsonl (the same fields as JSON) or npy
    /// (with -o: the solutions as an (N, 81) uint8 array, 0 rows where there
    /// is none, and a status word per line in OUT.status) or parquet (with
    /// -o: the csv fields as typed columns: line int64, puzzle, status and
    /// solution strings, solutions int32, guesses int64).
    #[arg(long, default_value = "line", value_parser = parse_format)]
    pub format: OutputFormat,
    /// The puzzle column of CSV inputs: a header name, or a number from 1
    /// (for files without a header). Without it, a header's `puzzle`,
    /// `quizzes`, `question`, `quiz` or `sudoku` column; without a header,
    /// the first field of the first line that is an 81-cell puzzle.
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<ColumnSpec>,
    /// Input form: auto (grid when a file opens with 9 rows of 9 cells, csv
    /// when a header names the columns, npy by its magic bytes; a line of
    /// 729 characters is a pencilmark puzzle), line, pencilmark (every line
    /// read as 729 characters, nine per cell: digit d where d is still a
    /// candidate, `.` or `0` where it is not), grid, csv (the puzzle column
    /// named by the header or --column, else the first), npy or parquet (a file named .parquet or opening with
    /// Parquet's magic bytes is read as one; the puzzle column is found
    /// as for CSV, or is the table's only text or digit-list column; rows are numbered
    /// from 0).
    #[arg(long, default_value = "auto", value_parser = INPUT_FORMS)]
    pub input: String,
    /// Exit 1 when any record is malformed or invalid.
    #[arg(long)]
    pub strict: bool,
    /// With --format csv or parquet and CSV inputs, or --format parquet and
    /// Parquet inputs: carry every input column but the puzzle's after the
    /// output's own (ids, sources, ratings travel with the answers; from
    /// Parquet with their types); a name that clashes gets `input_` before
    /// it, one met before (ignoring case) `_2`, `_3` after it.
    #[arg(long)]
    pub keep_columns: bool,
    /// Continue an interrupted run: keep the records in OUT.partial and
    /// solve only the rest (use the same inputs and options).
    #[arg(long, requires = "output")]
    pub resume: bool,
}

fn parse_solver(s: &str) -> Result<SolverKind, String> {
    s.parse()
}

fn parse_format(s: &str) -> Result<OutputFormat, String> {
    s.parse()
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    refuse_options_that_clash(&args)?;
    let sources = open_sources(&args.files)?;
    let pool = args.run.pool()?;
    let threads = pool.current_num_threads();
    if let Some(path) = &args.output {
        refuse_output_as_input(&sources, path)?;
    }
    let mut writer = Writer::open(&args, &sources)?;
    writer.stop_on_ctrl_c();

    let total_bytes: u64 = sources.iter().map(Source::mapped_len).sum();
    let progress = args.run.progress_bar(total_bytes);
    let mut jobs = super::jobs(
        &sources,
        forced_format(&args.input),
        threads,
        args.format != OutputFormat::Line || writer.already > 0,
        writer.already,
        args.column.clone(),
        args.run.quiet,
    )
    .keeping_others(args.keep_columns && args.format == OutputFormat::Parquet);
    let work = Work::new(&args, &sources);
    let buffers = BufferPool::new();
    let started = Instant::now();
    let result = run_ordered(
        &pool,
        &mut jobs,
        threads * 4,
        |job| work.solve(job, &buffers),
        |done| writer.take(done, &buffers, &progress, started),
    );
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();

    if let Err(stop) = writer.close(result, jobs.to_skip) {
        let (code, summary) = writer.stopped(stop);
        if summary && !args.run.quiet {
            more_not_shown(writer.stats.malformed, writer.shown);
            print_summary(&writer.stats, seconds, threads, args.solver);
        }
        return Ok(code);
    }
    writer.finish()?;
    let stats = &writer.stats;
    if !args.run.quiet {
        more_not_shown(stats.malformed, writer.shown);
        print_summary(stats, seconds, threads, args.solver);
    }
    args.run
        .write_stats(&stats_json(stats, seconds, threads, args.solver))?;
    if args.strict && stats.malformed + stats.invalid > 0 {
        eprintln!(
            "batchdoku: --strict: {} malformed and {} invalid records",
            stats.malformed, stats.invalid
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Options that cannot go together are refused before any file is made;
/// npy and Parquet outputs (their header or footer written last) need a
/// file and cannot be resumed.
fn refuse_options_that_clash(args: &Args) -> anyhow::Result<()> {
    if args.keep_columns && !matches!(args.format, OutputFormat::Csv | OutputFormat::Parquet) {
        bail!("--keep-columns goes with --format csv or parquet");
    }
    if let OutputFormat::Npy | OutputFormat::Parquet = args.format {
        let to_file = args.output.as_ref().is_some_and(|p| {
            p.as_os_str() != "-" && std::fs::metadata(p).map_or(true, |m| m.is_file())
        });
        let (name, last) = match args.format {
            OutputFormat::Npy => ("npy", "its header"),
            _ => ("parquet", "its footer"),
        };
        if !to_file {
            bail!("--format {name} writes a file: give -o OUT.{name} ({last} is written last)");
        }
        if args.resume {
            bail!(
                "--resume cannot continue a {name} output ({last} is written last); run without it"
            );
        }
        RESUMABLE.store(false, Ordering::SeqCst);
    }
    Ok(())
}

/// What shapes this run's output, recorded beside `OUT.partial` so that
/// `--resume` continues only the same run.
pub(super) fn run_record(args: &Args, sources: &[Source]) -> serde_json::Value {
    serde_json::json!({
        "batchdoku": env!("CARGO_PKG_VERSION"),
        "command": "solve",
        "format": args.format.to_string(),
        "limit": args.limit,
        "solver": args.solver.name(),
        "input": args.input,
        "keep_columns": args.keep_columns,
        "column": args.column.as_ref().map(|c| format!("{c:?}")),
        "inputs": sources.iter().map(Source::identity).collect::<Vec<_>>(),
    })
}

/// Malformed records warned about in full; the rest are counted.
pub(super) const MALFORMED_SHOWN: u64 = 10;

/// The count of malformed records beyond those warned about in full.
fn more_not_shown(malformed: u64, shown: u64) {
    if malformed > shown {
        eprintln!(
            "batchdoku: warning: {} more malformed records not shown",
            malformed - shown
        );
    }
}

/// A figure per record, or `-` when there were none (0 puzzles/s or 0 us
/// per puzzle would be made up).
fn per_record(records: u64, value: f64, decimals: usize) -> String {
    if records == 0 {
        "-".into()
    } else {
        format!("{value:.decimals$}")
    }
}

fn print_summary(s: &Stats, seconds: f64, threads: usize, solver: SolverKind) {
    let n = s.records as f64;
    eprintln!(
        "{} records: {} solved, {} unique, {} multiple, {} unsolvable, {} invalid, {} malformed",
        s.records, s.solved, s.unique, s.multiple, s.unsolvable, s.invalid, s.malformed
    );
    let r = s.records;
    eprintln!(
        "{:.3} s, {} puzzles/s, {} us/puzzle, {} guesses/puzzle, {} solved without guessing, {} threads, solver {}",
        seconds,
        per_record(r, n / seconds.max(1e-9), 0),
        per_record(r, seconds * 1e6 / n, 2),
        per_record(r, s.guesses as f64 / n, 2),
        per_record(r, 100.0 * s.no_guess as f64 / n, 1) + if r == 0 { "" } else { "%" },
        threads,
        solver
    );
}

/// The statistics of a run, as `--stats` writes them.
fn stats_json(s: &Stats, seconds: f64, threads: usize, solver: SolverKind) -> serde_json::Value {
    let n = s.records as f64;
    // Figures per record are null when there were no records.
    let per = |v: f64| (s.records > 0).then_some(v);
    serde_json::json!({
        "puzzles": s.records,
        "solved": s.solved,
        "unique": s.unique,
        "multiple": s.multiple,
        "unsolvable": s.unsolvable,
        "invalid": s.invalid,
        "malformed": s.malformed,
        "seconds": seconds,
        "puzzles_per_sec": per(n / seconds.max(1e-9)),
        "usec_per_puzzle": per(seconds * 1e6 / n),
        "guesses_per_puzzle": per(s.guesses as f64 / n),
        "no_guess_pct": per(100.0 * s.no_guess as f64 / n),
        "threads": threads,
        "solver": solver.name(),
    })
}
