//! `batchdoku grade`: each puzzle's Sudoku Explainer rating (ER/EP/ED),
//! and with `--steps` the solving path behind it.

use super::records::{
    per_second, BadRecords, Checked, Done, ReadArgs, RecordRun, Resumable, Warnings,
};
use super::run_args::per_sec;
use crate::engine::{Job, Source};
use crate::puzzle::grid::{COL_OF, ROW_OF};
use crate::solver::FastSolver;
use crate::tasks::grade::{grade, rating_text, Grade, Step, Technique};
use crate::write::{csv_field, one_line, RAW_SHOWN};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Rate each puzzle as Sudoku Explainer does: ER/EP/ED, and the steps.
///
/// The rating is Sudoku Explainer's (SE 1.2.1): a person's solving path,
/// each step the easiest technique that makes progress, each technique
/// with a fixed difficulty (1.0 to about 11). ER is the hardest step of
/// the path, EP the hardest up to the first placement, ED the first
/// step's.
///
/// Output: line (`ER/EP/ED`, or the status word), csv
/// (line,puzzle,status,er,ep,ed,hardest, with a leading file column for
/// several inputs) or jsonl (the same fields; with --steps, the whole
/// path: each step's technique, rating, the digit placed as `r4c5=7` or
/// the candidates removed as `r1c2<>5`, the cells of its pattern, and
/// for a chain its branches, each from its assumption to its conclusion,
/// as `r1c2=5` (5 is in r1c2) and `r1c3<>5` (it is not)).
///
/// Status: `rated`; `multiple` or `unsolvable` (SE rates only uniquely
/// solvable puzzles); `invalid` (a digit given twice in a unit),
/// `malformed` (not a puzzle); `beyond` when a step needs a technique this
/// version does not have: `er` is then the hardest step reached, a lower
/// bound, never a rating SE would not give.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku grade puzzles.txt -o ratings.txt
  batchdoku grade --format csv puzzles.txt | sort -t, -k4 -g | tail
  batchdoku grade --format jsonl --steps one.txt

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
    /// With jsonl: each record's solving path.
    #[arg(long)]
    pub steps: bool,
    /// Write here instead of standard output (as OUT.partial until done).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Continue an interrupted run: keep the whole records of
    /// OUT.partial and grade from the next one (the same command, options
    /// and inputs as the run that made it, else refused).
    #[arg(long, requires = "output")]
    pub resume: bool,
    #[command(flatten)]
    pub read: ReadArgs,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Line,
    Csv,
    Jsonl,
}

/// Records by status.
#[derive(Default)]
struct Tally {
    rated: u64,
    beyond: u64,
    multiple: u64,
    unsolvable: u64,
    invalid: u64,
    malformed: u64,
    /// Rated records by ER, in tenths.
    er: std::collections::BTreeMap<u16, u64>,
    /// The input the job is from, and its first bad records.
    file: usize,
    bad: BadRecords,
}

impl Tally {
    fn merge(&mut self, o: Tally) {
        self.rated += o.rated;
        self.beyond += o.beyond;
        self.multiple += o.multiple;
        self.unsolvable += o.unsolvable;
        self.invalid += o.invalid;
        self.malformed += o.malformed;
        for (er, n) in o.er {
            *self.er.entry(er).or_default() += n;
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = match args.format.as_str() {
        "csv" => Format::Csv,
        "jsonl" => Format::Jsonl,
        _ => Format::Line,
    };
    if args.steps && format != Format::Jsonl {
        anyhow::bail!("--steps needs --format jsonl (a path does not fit a line or a csv row)");
    }
    let header = |several: bool| match (format, several) {
        (Format::Csv, true) => "file,line,puzzle,status,er,ep,ed,hardest\n",
        (Format::Csv, false) => "line,puzzle,status,er,ep,ed,hardest\n",
        _ => "",
    };
    let record = |sources: &[Source]| {
        serde_json::json!({
            "batchdoku": env!("CARGO_PKG_VERSION"),
            "command": "grade",
            "format": args.format,
            "steps": args.steps,
            "input": args.read.input,
            "column": args.read.column.as_ref().map(|c| format!("{c:?}")),
            "inputs": sources.iter().map(Source::identity).collect::<Vec<_>>(),
        })
    };
    let resumable = Resumable {
        run: &record,
        resume: args.resume,
        csv: format == Format::Csv,
    };
    let mut run = RecordRun::open_resumable(
        &args.files,
        args.output.as_deref(),
        &args.read,
        header,
        Some(resumable),
    )?;
    let several = run.several();
    let names = run.names.clone();
    let mut tally = Tally::default();
    let mut warnings = Warnings::new(args.read.run.quiet);
    let records_done = match run.each(
        &args.read,
        |job, out| {
            let file = several.then(|| names[job.file].as_str());
            Ok(grade_job(job, format, args.steps, file, out))
        },
        |t, progress| {
            warnings.show(&names[t.file], t.bad.notes(), "", progress);
            tally.merge(t);
        },
    ) {
        Ok(n) => n,
        Err(code) => return Ok(code),
    };
    run.output.finish()?;
    let seconds = run.seconds();
    warnings.finish(tally.malformed + tally.invalid);
    if !args.read.run.quiet {
        eprintln!(
            "{records_done} records in {seconds:.3} s ({}/s): {} rated, {} beyond, {} multiple, {} unsolvable, {} invalid, {} malformed",
            per_second(records_done, seconds),
            tally.rated,
            tally.beyond,
            tally.multiple,
            tally.unsolvable,
            tally.invalid,
            tally.malformed
        );
    }
    let er: serde_json::Map<String, serde_json::Value> = tally
        .er
        .iter()
        .map(|(&er, &n)| (rating_text(er), n.into()))
        .collect();
    args.read.run.write_stats(&serde_json::json!({
        "records": records_done,
        "rated": tally.rated,
        "beyond": tally.beyond,
        "multiple": tally.multiple,
        "unsolvable": tally.unsolvable,
        "invalid": tally.invalid,
        "malformed": tally.malformed,
        "er": er,
        "seconds": seconds,
        "records_per_sec": per_sec(records_done, seconds),
        "threads": run.pool.current_num_threads(),
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// What one record's output says.
struct Graded<'a> {
    status: &'static str,
    er: Option<u16>,
    ep: Option<u16>,
    ed: Option<u16>,
    hardest: Option<&'static str>,
    steps: &'a [Step],
}

/// Grades a job's records into `out`.
fn grade_job(
    job: &Job,
    format: Format,
    keep_steps: bool,
    file: Option<&str>,
    out: &mut Vec<u8>,
) -> Done<Tally> {
    let mut solver = FastSolver::new();
    let t = Tally {
        file: job.file,
        ..Tally::default()
    };
    Done::over_records(job, t, |t, rec| {
        let none = Graded {
            status: "",
            er: None,
            ep: None,
            ed: None,
            hardest: None,
            steps: &[],
        };
        let (puzzle, graded);
        let grade_kept;
        match t.bad.check(rec.line, rec.puzzle) {
            Checked::Malformed => {
                t.malformed += 1;
                puzzle = one_line(rec.raw, Some(RAW_SHOWN));
                graded = Graded {
                    status: "malformed",
                    ..none
                };
            }
            Checked::Invalid(p) => {
                t.invalid += 1;
                puzzle = p.to_line();
                graded = Graded {
                    status: "invalid",
                    ..none
                };
            }
            Checked::Valid(p) => {
                puzzle = p.to_line();
                grade_kept = grade(&p, &mut solver, keep_steps);
                graded = match &grade_kept {
                    Grade::Rated {
                        er,
                        ep,
                        ed,
                        hardest,
                        steps,
                    } => {
                        t.rated += 1;
                        *t.er.entry(*er).or_default() += 1;
                        Graded {
                            status: "rated",
                            er: Some(*er),
                            ep: Some(*ep),
                            ed: Some(*ed),
                            hardest: hardest.map(Technique::name),
                            steps,
                        }
                    }
                    Grade::Beyond { er, ep, ed, steps } => {
                        t.beyond += 1;
                        Graded {
                            status: "beyond",
                            er: Some(*er),
                            ep: *ep,
                            ed: *ed,
                            hardest: None,
                            steps,
                        }
                    }
                    Grade::Multiple => {
                        t.multiple += 1;
                        Graded {
                            status: "multiple",
                            ..none
                        }
                    }
                    Grade::Unsolvable => {
                        t.unsolvable += 1;
                        Graded {
                            status: "unsolvable",
                            ..none
                        }
                    }
                };
            }
        }
        write_record(format, keep_steps, file, rec.line, &puzzle, &graded, out);
        true
    })
}

/// A cell as people name it: `r4c5`.
fn cell_name(cell: u8) -> String {
    format!(
        "r{}c{}",
        ROW_OF[cell as usize] + 1,
        COL_OF[cell as usize] + 1
    )
}

/// A step as JSON: technique, rating, what it places or removes, its
/// cells, and a chain's branches.
pub fn step_json(step: &Step) -> serde_json::Value {
    let mut obj = serde_json::json!({
        "technique": step.technique.name(),
        "rating": rating_text(step.rating).parse::<f64>().unwrap_or(0.0),
    });
    if let Some((cell, d)) = step.placed {
        obj["place"] = format!("{}={d}", cell_name(cell)).into();
    }
    if !step.eliminated.is_empty() {
        obj["eliminate"] = step
            .eliminated
            .iter()
            .map(|&(cell, d)| format!("{}<>{d}", cell_name(cell)))
            .collect::<Vec<_>>()
            .into();
    }
    obj["cells"] = step
        .pattern
        .iter()
        .map(|&c| cell_name(c))
        .collect::<Vec<_>>()
        .into();
    if !step.chains.is_empty() {
        obj["chains"] = step
            .chains
            .iter()
            .map(|branch| {
                branch
                    .iter()
                    .map(|&(cell, d, on)| {
                        format!("{}{}{d}", cell_name(cell), if on { "=" } else { "<>" })
                    })
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
            .into();
    }
    obj
}

/// One output record.
fn write_record(
    format: Format,
    keep_steps: bool,
    file: Option<&str>,
    line: u64,
    puzzle: &str,
    g: &Graded,
    out: &mut Vec<u8>,
) {
    let text = |r: Option<u16>| r.map(rating_text).unwrap_or_default();
    match format {
        Format::Line => {
            match (g.status, g.er, g.ep, g.ed) {
                ("rated", Some(er), Some(ep), Some(ed)) => {
                    let _ = writeln!(
                        out,
                        "{}/{}/{}",
                        rating_text(er),
                        rating_text(ep),
                        rating_text(ed)
                    );
                }
                (status, ..) => {
                    let _ = writeln!(out, "{status}");
                }
            };
        }
        Format::Csv => {
            if let Some(f) = file {
                csv_field(one_line(f.as_bytes(), None).as_bytes(), out);
                out.push(b',');
            }
            let _ = write!(out, "{line},");
            csv_field(puzzle.as_bytes(), out);
            let _ = writeln!(
                out,
                ",{},{},{},{},{}",
                g.status,
                text(g.er),
                text(g.ep),
                text(g.ed),
                g.hardest.unwrap_or("")
            );
        }
        Format::Jsonl => {
            let number = |r: Option<u16>| -> serde_json::Value {
                r.map_or(serde_json::Value::Null, |r| {
                    rating_text(r)
                        .parse::<f64>()
                        .map_or(serde_json::Value::Null, Into::into)
                })
            };
            let mut obj = serde_json::json!({
                "line": line,
                "puzzle": puzzle,
                "status": g.status,
                "er": number(g.er),
                "ep": number(g.ep),
                "ed": number(g.ed),
                "hardest": g.hardest,
            });
            if let Some(f) = file {
                obj["file"] = f.into();
            }
            if keep_steps {
                obj["steps"] = g.steps.iter().map(step_json).collect::<Vec<_>>().into();
            }
            let _ = writeln!(out, "{obj}");
        }
    }
}
