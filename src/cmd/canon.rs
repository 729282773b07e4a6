//! `batchdoku canon`: each puzzle's canonical (minlex) form.

use super::records::{per_second, BadRecords, Done, ReadArgs, RecordRun, Warnings};
use super::run_args::per_sec;
use crate::engine::Job;
use crate::puzzle::grid::{Grid, CELLS};
use crate::tasks::canon::Canonicalizer;
use crate::write::{csv_field, one_line, RAW_SHOWN};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Write each puzzle's canonical form, the same for every disguise of it.
///
/// The canonical form is the smallest 81-cell string (blanks
/// below every digit, written `.`) among all the puzzles it becomes by
/// relabelling the digits, permuting rows within a band, the bands,
/// columns within a stack, the stacks, and transposing. Equivalent puzzles
/// (the same puzzle in disguise) have the same form; any puzzle has one,
/// whatever its number of solutions, and so has a solved grid.
///
/// Output: line (the form, or `malformed` / `invalid`), csv
/// (line,puzzle,status,canonical,automorphisms,clues, with a leading file
/// column for several inputs) or jsonl. `automorphisms` counts the
/// 3,359,232 cell arrangements that, with a relabelling, map the puzzle
/// onto itself (1 for most). Records that are not puzzles are `malformed`,
/// puzzles that break a rule `invalid`, each with a warning naming its line.
/// Inputs are read as by `solve` (files or standard input, line, grid, CSV,
/// npy or Parquet).
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku canon puzzles.txt -o forms.txt
  batchdoku canon --format csv test.csv | sort -t, -k4 | less
  batchdoku dedup puzzles.txt -o unique.txt       # keep one of each class

Exit codes: 0 done, 1 I/O error or interrupted, 2 usage error.")]
pub struct Args {
    /// Puzzle files, or folders of them (Spark's or Hadoop's output: the
    /// part files in name order, `_SUCCESS` and other `_` or `.` names left
    /// out), gzip, zstd or bzip2 compressed or not; `-` or none
    /// reads standard input.
    pub files: Vec<PathBuf>,
    /// Output: line, csv or jsonl.
    #[arg(long, default_value = "line", value_parser = ["line", "csv", "jsonl"])]
    pub format: String,
    /// Write here instead of standard output (as OUT.partial until done).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// Records by outcome, and the first bad ones of a chunk for warnings.
#[derive(Default)]
struct Tally {
    canonical: u64,
    invalid: u64,
    malformed: u64,
    /// The input the chunk is from.
    file: usize,
    /// Its first bad records, for warnings.
    bad: BadRecords,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Line,
    Csv,
    Jsonl,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = match args.format.as_str() {
        "csv" => Format::Csv,
        "jsonl" => Format::Jsonl,
        _ => Format::Line,
    };
    let header = |several: bool| match (format, several) {
        (Format::Csv, true) => "file,line,puzzle,status,canonical,automorphisms,clues\n",
        (Format::Csv, false) => "line,puzzle,status,canonical,automorphisms,clues\n",
        _ => "",
    };
    let mut run = RecordRun::open(&args.files, args.output.as_deref(), &args.read, header)?;
    let several = run.several();
    let names = run.names.clone();
    let mut total = Tally::default();
    let mut warnings = Warnings::new(args.read.run.quiet);
    let records_done = match run.each(
        &args.read,
        |job, out| {
            let file = several.then(|| names[job.file].as_str());
            Ok(canon_job(job, format, file, out))
        },
        |tally, progress| {
            warnings.show(&names[tally.file], tally.bad.notes(), "", progress);
            total.canonical += tally.canonical;
            total.invalid += tally.invalid;
            total.malformed += tally.malformed;
        },
    ) {
        Ok(n) => n,
        Err(code) => return Ok(code),
    };
    run.output.finish()?;
    let seconds = run.seconds();
    warnings.finish(total.malformed + total.invalid);
    if !args.read.run.quiet {
        eprintln!(
            "{records_done} records in {seconds:.3} s ({}/s): {} canonical forms, {} invalid, {} malformed",
            per_second(records_done, seconds),
            total.canonical,
            total.invalid,
            total.malformed
        );
    }
    args.read.run.write_stats(&serde_json::json!({
        "records": records_done,
        "canonical": total.canonical,
        "invalid": total.invalid,
        "malformed": total.malformed,
        "seconds": seconds,
        "records_per_sec": per_sec(records_done, seconds),
        "threads": run.pool.current_num_threads(),
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// A job's records as canonical forms (or status words) into `out`.
fn canon_job(job: &Job, format: Format, file: Option<&str>, out: &mut Vec<u8>) -> Done<Tally> {
    let mut canon = Canonicalizer::new();
    let tally = Tally {
        file: job.file,
        ..Tally::default()
    };
    Done::over_records(job, tally, |tally, rec| {
        // The puzzle column (csv and jsonl only) is made when written: the
        // line format writes the form alone, with no string per record.
        let (puzzle, result) = match rec.givens() {
            Err(e) => {
                tally.malformed += 1;
                tally.bad.note(rec.line, || format!("malformed: {e}"));
                (Shown::Raw(rec.raw), Err("malformed"))
            }
            Ok(g) => match canon.canonical_of_valid(&g) {
                Err(conflict) => {
                    tally.invalid += 1;
                    tally.bad.note(rec.line, || format!("invalid: {conflict}"));
                    (Shown::Grid(g), Err("invalid"))
                }
                Ok(c) => {
                    tally.canonical += 1;
                    (
                        Shown::Grid(g),
                        Ok((c.grid, c.automorphisms, g.clue_count())),
                    )
                }
            },
        };
        write_record(format, file, rec.line, puzzle, &result, out);
        true
    })
}

/// A record's puzzle as the csv and jsonl formats show it.
enum Shown<'a> {
    Grid(Grid),
    /// A malformed record's text, cut to [`RAW_SHOWN`] characters.
    Raw(&'a [u8]),
}

impl Shown<'_> {
    fn text(&self) -> String {
        match self {
            Shown::Grid(g) => g.to_line(),
            Shown::Raw(raw) => one_line(raw, Some(RAW_SHOWN)),
        }
    }
}

/// One output record: the form (with its automorphisms and clue count) or
/// the status word of a record that has none.
fn write_record(
    format: Format,
    file: Option<&str>,
    line: u64,
    puzzle: Shown<'_>,
    result: &Result<(Grid, u64, usize), &str>,
    out: &mut Vec<u8>,
) {
    match format {
        Format::Line => {
            match result {
                Ok((form, _, _)) => {
                    let mut text = [0u8; CELLS];
                    form.write_line(&mut text);
                    out.extend_from_slice(&text);
                }
                Err(status) => out.extend_from_slice(status.as_bytes()),
            }
            out.push(b'\n');
        }
        Format::Csv => {
            if let Some(f) = file {
                csv_field(one_line(f.as_bytes(), None).as_bytes(), out);
                out.push(b',');
            }
            let _ = write!(out, "{line},");
            csv_field(puzzle.text().as_bytes(), out);
            let _ = match result {
                Ok((form, automorphisms, clues)) => {
                    writeln!(out, ",ok,{},{automorphisms},{clues}", form.to_line())
                }
                Err(status) => writeln!(out, ",{status},,,"),
            };
        }
        Format::Jsonl => {
            let puzzle = puzzle.text();
            let mut obj = match result {
                Ok((form, automorphisms, clues)) => serde_json::json!({
                    "line": line, "puzzle": puzzle, "status": "ok", "canonical": form.to_line(),
                    "automorphisms": automorphisms, "clues": clues,
                }),
                Err(status) => serde_json::json!({
                    "line": line, "puzzle": puzzle, "status": status, "canonical": null,
                    "automorphisms": null, "clues": null,
                }),
            };
            if let Some(f) = file {
                obj["file"] = f.into();
            }
            let _ = writeln!(out, "{obj}");
        }
    }
}
