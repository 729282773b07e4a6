//! `batchdoku rate`: give each puzzle a difficulty.

use super::records::{per_second, BadRecords, Checked, Done, ReadArgs, RecordRun, Warnings};
use super::run_args::per_sec;
use super::INTERRUPTED;
use crate::engine::Job;
use crate::solver::{FastSolver, Solver};
use crate::tasks::rate::{rate, Difficulty, Inference, EXTREME_GUESSES};
use crate::write::{csv_field, one_line, RAW_SHOWN};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Rate each puzzle: guesses to prove it unique, inference needed, a class.
///
/// Each puzzle gets the fast solver's guess count proving uniqueness
/// (deterministic), the strongest inference it needs, and a class.
///
/// Inference: `singles` (naked and hidden singles solve it), `locked_candidates`
/// (singles with pointing and claiming), `search` (neither; also for puzzles
/// without exactly one solution). Classes: easy = singles, medium = locked
/// candidates, hard = search with fewer than 20 guesses, extreme = 20 or more.
/// Inputs are read as by `solve` (files or standard input, line, pencilmark
/// or grid form).
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku rate puzzles.txt -o ratings.csv
  batchdoku rate --format jsonl puzzles.txt | grep extreme

Exit codes: 0 done, 1 I/O error or interrupted, 2 usage error.")]
pub struct Args {
    /// Puzzle files, or folders of them (Spark's or Hadoop's output: the
    /// part files in name order, `_SUCCESS` and other `_` or `.` names left
    /// out), gzip, zstd or bzip2 compressed or not; `-` or none
    /// reads standard input.
    pub files: Vec<PathBuf>,
    /// Output: csv (line,puzzle,solutions,guesses,inference,difficulty, with a
    /// leading file column for several inputs) or jsonl.
    #[arg(long, default_value = "csv", value_parser = ["csv", "jsonl"])]
    pub format: String,
    /// Write here instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Counts per class, plus records that are not puzzles or break a rule.
#[derive(Default)]
struct Tally {
    classes: [u64; 4],
    malformed: u64,
    invalid: u64,
    not_unique: u64,
    /// The input the job is from, and its first bad records.
    file: usize,
    bad: BadRecords,
}

impl Tally {
    fn merge(&mut self, o: &Tally) {
        for (a, b) in self.classes.iter_mut().zip(o.classes) {
            *a += b;
        }
        self.malformed += o.malformed;
        self.invalid += o.invalid;
        self.not_unique += o.not_unique;
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let jsonl = args.format == "jsonl";
    let header = |several: bool| match (jsonl, several) {
        (true, _) => "",
        (false, true) => "file,line,puzzle,solutions,guesses,inference,difficulty\n",
        (false, false) => "line,puzzle,solutions,guesses,inference,difficulty\n",
    };
    let mut run = RecordRun::open(&args.files, args.output.as_deref(), &args.read, header)?;
    let several = run.several();
    let names = run.names.clone();
    let mut tally = Tally::default();
    let mut warnings = Warnings::new(args.read.run.quiet);
    let records_done = match run.each(
        &args.read,
        |job, out| {
            let file = several.then(|| names[job.file].as_str());
            Ok(rate_job(job, file, jsonl, out))
        },
        |t, progress| {
            warnings.show(&names[t.file], t.bad.notes(), "", progress);
            tally.merge(&t);
        },
    ) {
        Ok(n) => n,
        Err(code) => return Ok(code),
    };
    run.output.finish()?;
    warnings.finish(tally.malformed + tally.invalid);
    if !args.read.run.quiet {
        summary(records_done, run.seconds(), &tally);
    }
    let seconds = run.seconds();
    let mut stats = serde_json::json!({
        "records": records_done,
        "not_unique": tally.not_unique,
        "invalid": tally.invalid,
        "malformed": tally.malformed,
        "seconds": seconds,
        "records_per_sec": per_sec(records_done, seconds),
        "threads": run.pool.current_num_threads(),
    });
    for d in Difficulty::ALL {
        stats[d.word()] = tally.classes[d as usize].into();
    }
    args.read.run.write_stats(&stats)?;
    Ok(ExitCode::SUCCESS)
}

/// Rates a job's records into `out`, one csv row or JSON line each (`file`
/// names the input when there are several).
fn rate_job(job: &Job, file: Option<&str>, jsonl: bool, out: &mut Vec<u8>) -> Done<Tally> {
    let mut solver = FastSolver::new();
    solver.set_stop(Some(&INTERRUPTED));
    let t = Tally {
        file: job.file,
        ..Tally::default()
    };
    Done::over_records(job, t, |t, rec| {
        let checked = t.bad.check(rec.line, rec.puzzle);
        let (puzzle, solutions, guesses, inference, class) = match checked {
            Checked::Malformed => {
                t.malformed += 1;
                let raw = one_line(rec.raw, Some(RAW_SHOWN));
                (raw, 0, 0, "malformed", "malformed")
            }
            Checked::Invalid(p) => {
                t.invalid += 1;
                (p.to_line(), 0, 0, "invalid", "invalid")
            }
            Checked::Valid(p) => {
                let r = rate(&mut solver, &p);
                if solver.stopped() {
                    // Ctrl-C cut the search short: not rated.
                    return false;
                }
                t.classes[r.difficulty as usize] += 1;
                if r.solutions != 1 {
                    t.not_unique += 1;
                }
                (
                    p.to_line(),
                    r.solutions,
                    r.guesses,
                    r.inference.word(),
                    r.difficulty.word(),
                )
            }
        };
        if jsonl {
            let mut obj = serde_json::json!({
                "line": rec.line,
                "puzzle": puzzle,
                "solutions": solutions,
                "guesses": guesses,
                "inference": inference,
                "difficulty": class,
            });
            if let Some(f) = file {
                obj["file"] = f.into();
            }
            let _ = writeln!(out, "{obj}");
        } else {
            if let Some(f) = file {
                csv_field(one_line(f.as_bytes(), None).as_bytes(), out);
                out.push(b',');
            }
            let _ = write!(out, "{},", rec.line);
            csv_field(puzzle.as_bytes(), out);
            let _ = writeln!(out, ",{solutions},{guesses},{inference},{class}");
        }
        true
    })
}

/// The summary on stderr: the rate, and a bar per class.
fn summary(records_done: u64, seconds: f64, tally: &Tally) {
    let n = records_done.max(1) as f64;
    eprintln!(
        "{records_done} records in {seconds:.3} s ({}/s)",
        per_second(records_done, seconds)
    );
    for d in Difficulty::ALL {
        let c = tally.classes[d as usize];
        let bar = "#".repeat((40.0 * c as f64 / n).round() as usize);
        eprintln!(
            "{:>8} {c:>9} {:>5.1}% {bar}",
            d.word(),
            100.0 * c as f64 / n
        );
    }
    eprintln!(
        "(hard/extreme split at {EXTREME_GUESSES} guesses; {} without exactly one solution, rated {}; {} invalid, {} malformed)",
        tally.not_unique,
        Inference::Search.word(),
        tally.invalid,
        tally.malformed
    );
}
