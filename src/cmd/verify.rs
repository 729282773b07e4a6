//! `batchdoku verify`: prove a file of answers right, or say exactly which
//! record is wrong and why.

use super::print_stdout;
use super::run_args::{per_sec, RunArgs};
use crate::engine::pairs::{PairBatches, PairOptions};
use crate::engine::{Source, INPUT_FORMS};
use crate::read::folders::input_files;
use crate::read::ColumnSpec;
use crate::tasks::verify::{check_all, CheckOptions, Located};
use anyhow::bail;
use std::fmt::Write as _;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Check a file of answers against its puzzles.
///
/// ANSWERS may be in any form `solve` writes (line, csv or jsonl), or a CSV
/// whose header names a solution column (or status and solution columns,
/// in any order), paired record by record with PUZZLES. A folder (Spark's output) is read as its
/// part files in order, one input; a failure names the part file. Without ANSWERS, each PUZZLES record must
/// carry its own answer (`puzzle,solution` lines, the Kaggle CSV with a
/// `quizzes,solutions` header, `puzzle:count:solution` lines, a CSV or
/// Parquet `solve` output whose status, solutions and solution columns
/// make the claim).
///
/// Every solution must be a complete grid that obeys the rules and keeps
/// every given (for a pencilmark puzzle: puts in each cell one of its
/// candidates). Status claims are checked by solving: `unsolvable` must
/// have no solution, `invalid` must repeat a given in a unit (or pin two of
/// its cells to one digit), `malformed` must not parse, `unique`/`multiple`
/// and solution counts must match the puzzle's count.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku verify puzzles.txt answers.txt
  batchdoku verify --unique --format json puzzles.txt answers.csv
  batchdoku verify kaggle_sudoku.csv          (quizzes,solutions on each line)

Exit codes: 0 every answer is right, 1 some answer is wrong, the files hold
different numbers of records, or an I/O error, 2 usage error.")]
pub struct Args {
    /// The puzzles, one per line (81 cells or 729 pencilmark characters),
    /// or in grid form; or a folder of part files.
    pub puzzles: PathBuf,
    /// The answers; omit when each puzzle line carries its answer.
    pub answers: Option<PathBuf>,
    /// Also demand exactly one solution for every puzzle.
    #[arg(long)]
    pub unique: bool,
    /// Report as text (default) or json; or lines: one line per record, in
    /// order, `ok` or `wrong: REASON` (a filter for pipes such as Spark's
    /// RDD.pipe), with the verdict on stderr.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "lines"])]
    pub format: String,
    /// Count at most N solutions to prove a claimed count: a claim that
    /// needs more is reported as unverifiable (a failure).
    #[arg(long, value_name = "N", default_value_t = crate::tasks::verify::MAX_COUNT)]
    pub max_count: u32,
    /// The puzzle column of a CSV of puzzles: a header name, or a number
    /// from 1 (see `solve --column`).
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<ColumnSpec>,
    /// The answer column of a CSV that carries its answers: a header name,
    /// or a number from 1. Without it, a header's `solution`, `solutions`
    /// or `answer` column, or (no header) the column after the puzzles.
    #[arg(long, value_name = "NAME|N")]
    pub answer_column: Option<ColumnSpec>,
    /// Puzzle input form: auto, line, pencilmark, grid, csv, npy or parquet
    /// (see `solve --help`).
    #[arg(long, default_value = "auto", value_parser = INPUT_FORMS)]
    pub input: String,
    /// (-q leaves the report on standard output as it is: it is the
    /// answer; it quiets warnings, the progress bar, and the summary line
    /// of `--format lines` on stderr.)
    #[command(flatten)]
    pub run: RunArgs,
}

/// Failures shown in full in the text report.
const SHOWN: usize = 20;
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (puzzle_sources, answer_sources) = open_inputs(&args)?;
    let answer_names: &[Source] = answer_sources.as_deref().unwrap_or(&puzzle_sources);
    let mut pairs = pair_batches(&args, &puzzle_sources, answer_sources.as_deref())?;
    let pool = args.run.pool()?;
    // Records checked and their rate (the puzzles' size is not the work's).
    let progress = args.run.progress_bar(0);
    let options = CheckOptions {
        unique: args.unique,
        max_count: args.max_count,
    };
    let started = Instant::now();
    let mut tally = Tally::new(args.format == "lines");
    let result = check_all(&pool, &mut pairs, options, |n, found| {
        let taken = tally.take(n, found);
        progress.advance(0, tally.checked, started);
        taken
    });
    progress.finish();
    result?;
    let seconds = started.elapsed().as_secs_f64();
    let mismatch = pairs.mismatch().map(str::to_string);
    let (checked, failures) = (tally.checked, &tally.failures);
    args.run.write_stats(&serde_json::json!({
        "records": checked,
        "passed": checked - failures.len() as u64,
        "failed": failures.len(),
        "count_mismatch": mismatch,
        "seconds": seconds,
        "records_per_sec": per_sec(checked, seconds),
        "threads": pool.current_num_threads(),
    }))?;
    let report = Report {
        args: &args,
        puzzles: &puzzle_sources,
        answers: answer_names,
        checked,
        failures,
        mismatch: mismatch.as_deref(),
        seconds,
    };
    match args.format.as_str() {
        "lines" => report.lines_summary(tally.per_record)?,
        "json" => report.json()?,
        _ => report.text()?,
    }
    Ok(if failures.is_empty() && mismatch.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The puzzles' sources and the answers' when they are an input of their
/// own. A folder (Spark's output) stands for its data files, read in order
/// as one input.
fn open_inputs(args: &Args) -> anyhow::Result<(Vec<Source>, Option<Vec<Source>>)> {
    let open = |path: &Path| -> anyhow::Result<Vec<Source>> {
        input_files(path)?.iter().map(|f| Source::open(f)).collect()
    };
    let puzzle_sources = open(&args.puzzles)?;
    let answer_sources = match &args.answers {
        Some(p) => Some(open(p)?),
        None => None,
    };
    if answer_sources.is_some()
        && args.puzzles.as_os_str() == "-"
        && args.answers.as_deref() == Some(Path::new("-"))
    {
        bail!("standard input (-) can be named only once");
    }
    Ok((puzzle_sources, answer_sources))
}

/// The puzzles paired with their answers, as the options say.
fn pair_batches<'a>(
    args: &'a Args,
    puzzle_sources: &'a [Source],
    answer_sources: Option<&'a [Source]>,
) -> anyhow::Result<PairBatches<'a>> {
    let options = PairOptions {
        forced: crate::engine::forced_format(&args.input),
        column: args.column.as_ref(),
        answer_column: args.answer_column.as_ref(),
        quiet: args.run.quiet,
    };
    let answers_name = args.answers.as_ref().unwrap_or(&args.puzzles);
    PairBatches::open(
        puzzle_sources,
        answer_sources,
        options,
        args.puzzles.display().to_string(),
        answers_name.display().to_string(),
    )
}

/// What the checks found, taken in input order; with `--format lines`, a
/// line per record written to standard output as it comes.
struct Tally {
    checked: u64,
    failures: Vec<Located>,
    /// `--format lines`: standard output, until its reader goes away.
    per_record: Option<std::io::BufWriter<std::io::StdoutLock<'static>>>,
    pipe_closed: bool,
}

impl Tally {
    fn new(lines: bool) -> Tally {
        Tally {
            checked: 0,
            failures: Vec::new(),
            per_record: lines
                .then(|| std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock())),
            pipe_closed: false,
        }
    }

    /// The next `n` records, `found` the wrong ones among them.
    fn take(&mut self, n: u64, found: Vec<Located>) -> ControlFlow<anyhow::Error> {
        if let (Some(out), false) = (&mut self.per_record, self.pipe_closed) {
            let mut next = found.iter().peekable();
            let mut text = String::new();
            for record in self.checked + 1..=self.checked + n {
                match next.next_if(|f| f.record == record) {
                    Some(f) => {
                        let _ = writeln!(text, "wrong: {}", f.failure);
                    }
                    None => text.push_str("ok\n"),
                }
            }
            use std::io::Write as _;
            match out.write_all(text.as_bytes()) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => self.pipe_closed = true,
                Err(e) => {
                    return ControlFlow::Break(
                        anyhow::Error::new(e).context("cannot write to standard output"),
                    )
                }
            }
        }
        self.checked += n;
        self.failures.extend(found);
        ControlFlow::Continue(())
    }
}

/// The report of a finished run, in the three forms `--format` names.
struct Report<'a> {
    args: &'a Args,
    puzzles: &'a [Source],
    answers: &'a [Source],
    checked: u64,
    failures: &'a [Located],
    mismatch: Option<&'a str>,
    seconds: f64,
}

impl Report<'_> {
    fn passed(&self) -> u64 {
        self.checked - self.failures.len() as u64
    }

    fn verdict(&self) -> &'static str {
        if self.failures.is_empty() && self.mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        }
    }

    /// `--format lines`: the lines went out as the records were checked;
    /// the verdict goes to stderr.
    fn lines_summary(
        &self,
        per_record: Option<std::io::BufWriter<std::io::StdoutLock<'static>>>,
    ) -> anyhow::Result<()> {
        use std::io::Write as _;
        if let Some(mut out) = per_record {
            match out.flush() {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(anyhow::Error::new(e).context("cannot write to standard output"))
                }
                _ => {}
            }
        }
        if let Some(m) = self.mismatch {
            eprintln!("batchdoku: record counts differ: {m}");
        }
        if !self.args.run.quiet {
            eprintln!(
                "batchdoku: {} records checked: {} passed, {} failed ({:.3} s): {}",
                self.checked,
                self.passed(),
                self.failures.len(),
                self.seconds,
                self.verdict()
            );
        }
        Ok(())
    }

    /// `--format json`: one object, every failure located.
    fn json(&self) -> anyhow::Result<()> {
        let list: Vec<serde_json::Value> = self
            .failures
            .iter()
            .map(|f| {
                let (answer_file, answer_line) =
                    f.answer_at.unwrap_or((f.puzzle_file, f.puzzle_line));
                serde_json::json!({
                    "record": f.record,
                    "puzzle_file": self.puzzles[f.puzzle_file].name(),
                    "puzzle_line": f.puzzle_line,
                    "answer_file": self.answers[answer_file].name(),
                    "answer_line": answer_line,
                    "reason": f.failure.to_string(),
                })
            })
            .collect();
        let answers = self.args.answers.as_ref().unwrap_or(&self.args.puzzles);
        let report = serde_json::json!({
            "puzzles": self.args.puzzles.display().to_string(),
            "answers": answers.display().to_string(),
            "records": self.checked,
            "passed": self.passed(),
            "failed": self.failures.len(),
            "count_mismatch": self.mismatch,
            "seconds": self.seconds,
            "failures": list,
        });
        print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))
    }

    /// `--format text`: the first failures in full, then the verdict.
    fn text(&self) -> anyhow::Result<()> {
        let mut text = String::new();
        for f in self.failures.iter().take(SHOWN) {
            let answer_at = match f.answer_at {
                Some((file, line)) => format!(", {}:{line}", self.answers[file].name()),
                None => String::new(),
            };
            let _ = writeln!(
                text,
                "record {} ({}:{}{answer_at}): {}",
                f.record,
                self.puzzles[f.puzzle_file].name(),
                f.puzzle_line,
                f.failure
            );
        }
        if self.failures.len() > SHOWN {
            let _ = writeln!(
                text,
                "... and {} more failures",
                self.failures.len() - SHOWN
            );
        }
        if let Some(m) = self.mismatch {
            let _ = writeln!(text, "record counts differ: {m}");
        }
        let _ = writeln!(
            text,
            "{} records checked: {} passed, {} failed ({:.3} s): {}",
            self.checked,
            self.passed(),
            self.failures.len(),
            self.seconds,
            self.verdict()
        );
        print_stdout(&text)
    }
}
