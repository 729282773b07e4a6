//! `batchdoku verify`: prove a file of answers right, or say exactly which
//! record is wrong and why.

use super::inputs::map_file;
use anyhow::bail;
use batchdoku::grid::{Grid, ParseError};
use batchdoku::input::{detect, is_skipped, records};
use batchdoku::pipeline::{run_ordered, Stop};
use batchdoku::verify::{
    check, detect_answers, embedded_answer, parse_answer, AnswerFormat, CheckOptions, Failure,
};
use batchdoku::SolverKind;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Check a file of answers against its puzzles.
///
/// ANSWERS may be in any form `solve` writes (line, csv or jsonl), paired
/// record by record with PUZZLES. Without ANSWERS, each PUZZLES record must
/// carry its own answer (`puzzle,solution` lines, the Kaggle CSV with a
/// `quizzes,solutions` header, `puzzle:count:solution` lines).
///
/// Every solution must be a complete grid that obeys the rules and keeps
/// every given. Status claims are checked by solving: `unsolvable` must have
/// no solution, `invalid` must repeat a given, `malformed` must not parse,
/// `unique`/`multiple` and solution counts must match the puzzle's count.
#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 every answer is right, 1 some answer is wrong, the \
                        files hold different numbers of records, or an I/O error, 2 usage error."
)]
pub struct Args {
    /// The puzzles, one per line (or in grid form).
    pub puzzles: PathBuf,
    /// The answers; omit when each puzzle line carries its answer.
    pub answers: Option<PathBuf>,
    /// Also demand exactly one solution for every puzzle.
    #[arg(long)]
    pub unique: bool,
    /// Report as text (default) or json.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    pub format: String,
    /// Worker threads (0: one per core).
    #[arg(short = 'j', long = "threads", default_value_t = 0, value_name = "N")]
    pub threads: usize,
    /// Puzzle input form: auto, line or grid.
    #[arg(long, default_value = "auto", value_parser = ["auto", "line", "grid"])]
    pub input: String,
}

/// Failures shown in full in the text report.
const SHOWN: usize = 20;
/// Records checked per parallel job.
const BATCH: usize = 4096;

/// One puzzle and its answer, as paired on the reading thread.
struct Pair<'a> {
    record: u64,
    puzzle_line: u64,
    puzzle: Result<Grid, ParseError>,
    puzzle_raw: &'a [u8],
    answer: Option<(u64, &'a [u8])>,
}

/// A wrong answer, located.
struct Located {
    record: u64,
    puzzle_line: u64,
    answer_line: Option<u64>,
    failure: Failure,
}

/// Answer records of an answers file: each non-blank, non-comment line after
/// a header, with its line number.
fn answer_lines(data: &[u8]) -> (AnswerFormat, impl Iterator<Item = (u64, &[u8])>) {
    let mut lines = data
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i as u64 + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !is_skipped(l))
        .peekable();
    let (format, header) = match lines.peek() {
        Some((_, first)) => detect_answers(first),
        None => (AnswerFormat::Line, false),
    };
    if header {
        lines.next();
    }
    (format, lines)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let forced = super::inputs::forced_format(&args.input);
    let puzzles_map = map_file(&args.puzzles)?;
    let puzzles_data: &[u8] = puzzles_map.as_deref().unwrap_or(&[]);
    let answers_map = match &args.answers {
        Some(p) => map_file(p)?,
        None => None,
    };
    let answers_data: &[u8] = answers_map.as_deref().unwrap_or(&[]);

    let d = detect(puzzles_data, forced);
    let mut puzzles = records(&puzzles_data[d.start..], d.first_line, d.format);
    let (answer_format, mut answers) = answer_lines(answers_data);
    let separate = args.answers.is_some();

    let pool = super::thread_pool(args.threads)?;
    let started = Instant::now();
    let mut record = 0u64;
    let mut mismatch: Option<String> = None;
    // Pairs are made on this thread (cheap line splitting) in batches that
    // the pool checks in parallel.
    let batches = std::iter::from_fn(|| {
        if mismatch.is_some() {
            return None;
        }
        let mut batch = Vec::with_capacity(BATCH);
        while batch.len() < BATCH {
            let p = puzzles.next();
            let a = if separate { answers.next() } else { None };
            match (p, a) {
                (None, None) => break,
                (Some(p), a) => {
                    if separate && a.is_none() {
                        mismatch = Some(format!(
                            "{} ran out after {record} records; {} has more",
                            args.answers.as_ref().expect("separate").display(),
                            args.puzzles.display()
                        ));
                        break;
                    }
                    record += 1;
                    batch.push(Pair {
                        record,
                        puzzle_line: p.line,
                        puzzle: p.grid,
                        puzzle_raw: p.raw,
                        answer: a,
                    });
                }
                (None, Some(_)) => {
                    mismatch = Some(format!(
                        "{} ran out after {record} records; {} has more",
                        args.puzzles.display(),
                        args.answers.as_ref().expect("separate").display()
                    ));
                    break;
                }
            }
        }
        (!batch.is_empty()).then_some(Ok::<_, ()>(batch))
    });

    let options = CheckOptions {
        unique: args.unique,
    };
    let mut failures: Vec<Located> = Vec::new();
    let mut checked = 0u64;
    let result = run_ordered(
        &pool,
        batches,
        pool.current_num_threads() * 4,
        |batch: Vec<Pair<'_>>| {
            let mut solver = SolverKind::Fast.build();
            let mut found = Vec::new();
            let n = batch.len() as u64;
            for pair in batch {
                let claim = match pair.answer {
                    Some((_, text)) => parse_answer(answer_format, text),
                    None => embedded_answer(pair.puzzle_raw).ok_or_else(|| {
                        batchdoku::verify::BadAnswer("no answer follows the puzzle".into())
                    }),
                };
                let outcome = match claim {
                    Ok(claim) => check(solver.as_mut(), &pair.puzzle, &claim, options),
                    Err(e) => Err(Failure::Unreadable(e.0)),
                };
                if let Err(failure) = outcome {
                    found.push(Located {
                        record: pair.record,
                        puzzle_line: pair.puzzle_line,
                        answer_line: pair.answer.map(|(l, _)| l),
                        failure,
                    });
                }
            }
            (n, found)
        },
        |(n, found)| {
            checked += n;
            failures.extend(found);
            ControlFlow::<()>::Continue(())
        },
    );
    if let Err(Stop::Source(()) | Stop::Sink(())) = result {
        bail!("verification stopped early");
    }
    let seconds = started.elapsed().as_secs_f64();
    let answers_name = args
        .answers
        .as_ref()
        .unwrap_or(&args.puzzles)
        .display()
        .to_string();
    let puzzles_name = args.puzzles.display().to_string();
    let passed = checked - failures.len() as u64;
    if args.format == "json" {
        let list: Vec<serde_json::Value> = failures
            .iter()
            .map(|f| {
                serde_json::json!({
                    "record": f.record,
                    "puzzle_line": f.puzzle_line,
                    "answer_line": f.answer_line.unwrap_or(f.puzzle_line),
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
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for f in failures.iter().take(SHOWN) {
            let answer_at = match f.answer_line {
                Some(l) => format!(", {answers_name}:{l}"),
                None => String::new(),
            };
            println!(
                "record {} ({puzzles_name}:{}{answer_at}): {}",
                f.record, f.puzzle_line, f.failure
            );
        }
        if failures.len() > SHOWN {
            println!("... and {} more failures", failures.len() - SHOWN);
        }
        if let Some(m) = &mismatch {
            println!("record counts differ: {m}");
        }
        let verdict = if failures.is_empty() && mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        };
        println!(
            "{checked} records checked: {passed} passed, {} failed ({:.3} s): {verdict}",
            failures.len(),
            seconds
        );
    }
    Ok(if failures.is_empty() && mismatch.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
