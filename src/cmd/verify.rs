//! `batchdoku verify`: prove a file of answers right, or say exactly which
//! record is wrong and why.

use super::print_stdout;
use super::run_args::{per_sec, RunArgs};
use crate::engine::pairs::{Answer, AnswerFiles, PuzzleFiles};
use crate::engine::pipeline::{run_ordered, Stop};
use crate::engine::{Source, INPUT_FORMS};
use crate::puzzle::grid::ParseError;
use crate::read::answers::{
    column_answer, embedded_answer, parse_answer, AnswerColumns, BadAnswer,
};
use crate::read::folders::input_files;
use crate::read::ColumnSpec;
use crate::tasks::verify::{check, CheckOptions, Failure};
use crate::Puzzle;
use crate::SolverKind;
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
/// Records checked per parallel job.
const BATCH: usize = 4096;

/// One puzzle and its answer, as paired (and copied out of the inputs) on
/// the reading thread.
struct Pair {
    record: u64,
    /// The puzzle's file (an index into the puzzles' files) and line.
    puzzle_file: usize,
    puzzle_line: u64,
    puzzle: Result<Puzzle, ParseError>,
    /// The puzzle's record text, kept when it carries its own answer, and
    /// the answer's column in a CSV record.
    puzzle_raw: Vec<u8>,
    answer_column: Option<AnswerColumns>,
    answer: Option<Answer>,
}

/// A wrong answer, located.
struct Located {
    record: u64,
    puzzle_file: usize,
    puzzle_line: u64,
    /// The answer's file (in the answers' files) and line, when it has
    /// its own.
    answer_at: Option<(usize, u64)>,
    failure: Failure,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let forced = crate::engine::forced_format(&args.input);
    // A folder (Spark's output) stands for its data files, read in order
    // as one input.
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
    let carried = answer_sources
        .is_none()
        .then_some(args.answer_column.as_ref());
    let mut puzzles = PuzzleFiles::new(&puzzle_sources, forced, args.column.as_ref(), carried)?;
    let mut answers = match &answer_sources {
        Some(sources) => Some(AnswerFiles::new(sources, None, args.run.quiet)?),
        // Tables of puzzles carry their answers in a column of their own,
        // read row by row beside the puzzles.
        None if puzzles.table => Some(AnswerFiles::new(
            &puzzle_sources,
            Some(args.answer_column.as_ref()),
            args.run.quiet,
        )?),
        None => None,
    };
    let separate = answers.is_some();
    let answer_names: &[Source] = answer_sources.as_deref().unwrap_or(&puzzle_sources);

    let pool = args.run.pool()?;
    // Records checked and their rate (the puzzles' size is not the work's).
    let progress = args.run.progress_bar(0);
    let started = Instant::now();
    let mut record = 0u64;
    let mut mismatch: Option<String> = None;
    let answers_name = args
        .answers
        .as_ref()
        .unwrap_or(&args.puzzles)
        .display()
        .to_string();
    let puzzles_name = args.puzzles.display().to_string();
    // Pairs are made on this thread (cheap splitting and copying) in
    // batches that the pool checks in parallel.
    let batches = std::iter::from_fn(|| {
        if mismatch.is_some() {
            return None;
        }
        let mut batch: Vec<Pair> = Vec::with_capacity(BATCH);
        let read = puzzles.read(BATCH, |file, answer_column, p| {
            record += 1;
            batch.push(Pair {
                record,
                puzzle_file: file,
                puzzle_line: p.line,
                puzzle: p.puzzle,
                puzzle_raw: if separate { Vec::new() } else { p.raw.to_vec() },
                answer_column,
                answer: None,
            });
        });
        if let Err(e) = read {
            return Some(Err(e));
        }
        if let Some(answers) = &mut answers {
            for i in 0..batch.len() {
                match answers.next_answer() {
                    Ok(Some(a)) => batch[i].answer = Some(a),
                    Ok(None) => {
                        let done = batch[i].record - 1;
                        mismatch = Some(format!(
                            "{answers_name} ran out after {done} records; {puzzles_name} has more"
                        ));
                        batch.truncate(i);
                        break;
                    }
                    Err(e) => return Some(Err(e)),
                }
            }
            if batch.len() < BATCH && mismatch.is_none() {
                // The puzzles ran out: the answers must have too.
                match answers.next_answer() {
                    Ok(Some(_)) => {
                        mismatch = Some(format!(
                            "{puzzles_name} ran out after {record} records; {answers_name} has more"
                        ))
                    }
                    Ok(None) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
        }
        (!batch.is_empty()).then_some(Ok::<_, anyhow::Error>(batch))
    });

    let options = CheckOptions {
        unique: args.unique,
        max_count: args.max_count,
    };
    let mut failures: Vec<Located> = Vec::new();
    let mut checked = 0u64;
    let lines = args.format == "lines";
    let mut per_record = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let mut pipe_closed = false;
    let result = run_ordered(
        &pool,
        batches,
        pool.current_num_threads() * 4,
        |batch: Vec<Pair>| {
            let mut solver = SolverKind::Fast.build();
            let mut found = Vec::new();
            let n = batch.len() as u64;
            for pair in batch {
                let claim = match &pair.answer {
                    Some(a) if a.too_long => Err(BadAnswer(ParseError::RecordTooLong.to_string())),
                    Some(a) => parse_answer(a.format, &a.text),
                    // A stream keeps only the start of such a record.
                    None if matches!(pair.puzzle, Err(ParseError::RecordTooLong)) => {
                        Err(BadAnswer(ParseError::RecordTooLong.to_string()))
                    }
                    None => match pair.answer_column {
                        Some(k) => column_answer(&pair.puzzle_raw, k),
                        None => embedded_answer(&pair.puzzle_raw),
                    },
                };
                let outcome = match claim {
                    Ok(claim) => check(solver.as_mut(), &pair.puzzle, &claim, options),
                    Err(e) => Err(Failure::Unreadable(e.0)),
                };
                if let Err(failure) = outcome {
                    found.push(Located {
                        record: pair.record,
                        puzzle_file: pair.puzzle_file,
                        puzzle_line: pair.puzzle_line,
                        answer_at: pair.answer.as_ref().map(|a| (a.file, a.line)),
                        failure,
                    });
                }
            }
            (n, found)
        },
        |(n, found): (u64, Vec<Located>)| {
            if lines && !pipe_closed {
                let mut next = found.iter().peekable();
                let mut text = String::new();
                for record in checked + 1..=checked + n {
                    match next.next_if(|f| f.record == record) {
                        Some(f) => {
                            let _ = writeln!(text, "wrong: {}", f.failure);
                        }
                        None => text.push_str("ok\n"),
                    }
                }
                use std::io::Write as _;
                match per_record.write_all(text.as_bytes()) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => pipe_closed = true,
                    Err(e) => {
                        return ControlFlow::Break(
                            anyhow::Error::new(e).context("cannot write to standard output"),
                        )
                    }
                }
            }
            checked += n;
            failures.extend(found);
            progress.advance(0, checked, started);
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    match result {
        Ok(()) => {}
        Err(Stop::Source(e)) => return Err(e),
        Err(Stop::Sink(e)) => return Err(e),
    }
    let seconds = started.elapsed().as_secs_f64();
    let passed = checked - failures.len() as u64;
    args.run.write_stats(&serde_json::json!({
        "records": checked,
        "passed": passed,
        "failed": failures.len(),
        "count_mismatch": mismatch,
        "seconds": seconds,
        "records_per_sec": per_sec(checked, seconds),
        "threads": pool.current_num_threads(),
    }))?;
    if lines {
        use std::io::Write as _;
        match per_record.flush() {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                return Err(anyhow::Error::new(e).context("cannot write to standard output"))
            }
            _ => {}
        }
        let verdict = if failures.is_empty() && mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        };
        if let Some(m) = &mismatch {
            eprintln!("batchdoku: record counts differ: {m}");
        }
        if !args.run.quiet {
            eprintln!(
                "batchdoku: {checked} records checked: {passed} passed, {} failed ({seconds:.3} s): {verdict}",
                failures.len()
            );
        }
    } else if args.format == "json" {
        let list: Vec<serde_json::Value> = failures
            .iter()
            .map(|f| {
                let (answer_file, answer_line) =
                    f.answer_at.unwrap_or((f.puzzle_file, f.puzzle_line));
                serde_json::json!({
                    "record": f.record,
                    "puzzle_file": puzzle_sources[f.puzzle_file].name(),
                    "puzzle_line": f.puzzle_line,
                    "answer_file": answer_names[answer_file].name(),
                    "answer_line": answer_line,
                    "reason": f.failure.to_string(),
                })
            })
            .collect();
        let report = serde_json::json!({
            "puzzles": puzzles_name,
            "answers": answers_name,
            "records": checked,
            "passed": passed,
            "failed": failures.len(),
            "count_mismatch": mismatch,
            "seconds": seconds,
            "failures": list,
        });
        print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        let mut text = String::new();
        for f in failures.iter().take(SHOWN) {
            let answer_at = match f.answer_at {
                Some((file, line)) => format!(", {}:{line}", answer_names[file].name()),
                None => String::new(),
            };
            let _ = writeln!(
                text,
                "record {} ({}:{}{answer_at}): {}",
                f.record,
                puzzle_sources[f.puzzle_file].name(),
                f.puzzle_line,
                f.failure
            );
        }
        if failures.len() > SHOWN {
            let _ = writeln!(text, "... and {} more failures", failures.len() - SHOWN);
        }
        if let Some(m) = &mismatch {
            let _ = writeln!(text, "record counts differ: {m}");
        }
        let verdict = if failures.is_empty() && mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        };
        let _ = writeln!(
            text,
            "{checked} records checked: {passed} passed, {} failed ({:.3} s): {verdict}",
            failures.len(),
            seconds
        );
        print_stdout(&text)?;
    }
    Ok(if failures.is_empty() && mismatch.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
