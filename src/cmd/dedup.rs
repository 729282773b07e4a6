//! `batchdoku dedup`: one record per class of equivalent puzzles, or the
//! records of a test set that no training puzzle repeats in disguise.

use super::output::refuse_output_as_input;
use super::progress::Progress;
use super::records::{each_job, per_second, stop_on_ctrl_c, stopped, Done, ReadArgs, Warnings};
use super::run_args::per_sec;
use crate::engine::{open_sources, Halt, Job, Source};
use crate::read::InputFormat;
use crate::tasks::canon::Canonicalizer;
use crate::tasks::classes::{ClassSet, PackedForm, Seen};
use crate::write::output::Output;
use crate::write::{csv_field, one_line};
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Keep the first of each class of equivalent puzzles, or those unlike a training set.
///
/// Keeps the first record of each class of equivalent puzzles (the same
/// puzzle in disguise: relabelled digits, rows or columns permuted within
/// bands or stacks, bands or stacks permuted, transposed; see `canon`), in
/// input order across the files. With --against, keep instead the records
/// equivalent to no puzzle of the TRAIN files (a leakage check between a
/// training and a test set).
///
/// Records are written as they were read (a CSV input's rows with its
/// header; npy and Parquet rows as 81-cell lines). --report lists every
/// record left out and the one it repeats, as
/// csv: file,line,duplicate_of_file,duplicate_of_line. Records that are
/// not puzzles, or break a rule, have no class: they are left out with a
/// warning naming their line.
///
/// Memory: a 16-byte hash-table entry per class (a 64-bit hash of its
/// canonical form and a class number; with the table's spare room, about
/// 2.3 GB for 100 million classes); the forms themselves go to an unnamed
/// file in TMPDIR (49 bytes a class), read back only to confirm two equal
/// hashes, so a hash collision never drops a record.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku dedup big.txt -o unique.txt --report dropped.csv
  batchdoku dedup a.txt b.txt c.txt -o all-unique.txt
  batchdoku dedup test.csv --against train.csv -o clean-test.csv --report leaks.csv

Exit codes: 0 done, 1 I/O error or interrupted, 2 usage error.")]
pub struct Args {
    /// Puzzle files, or folders of them (Spark's or Hadoop's output: the
    /// part files in name order, `_SUCCESS` and other `_` or `.` names left
    /// out), gzip, zstd or bzip2 compressed or not; `-` or none
    /// reads standard input.
    pub files: Vec<PathBuf>,
    /// Write the records kept here instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Write the records left out here (csv).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Keep only the records of FILES equivalent to none of these
    /// (FILES are not deduplicated among themselves then).
    #[arg(long, value_name = "TRAIN", num_args = 1..)]
    pub against: Vec<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// A record's class, made by a worker, for the writer to decide on.
struct Classed {
    line: u64,
    form: PackedForm,
    /// The record's text in the job's output buffer.
    text: std::ops::Range<usize>,
}

/// A job's records with a class, and the bad ones (line, what is wrong).
struct Chunk {
    file: usize,
    classed: Vec<Classed>,
    bad: Vec<(u64, String)>,
    /// The column names of a CSV input, for the output's header.
    header: Option<std::sync::Arc<Vec<String>>>,
}

/// A tag for [`ClassSet`]: where a class was first seen. The file index
/// (which list, `against` first, and position) above bit 44, the line below.
fn tag(file: usize, line: u64) -> u64 {
    (file as u64) << 44 | line
}

fn untag(tag: u64) -> (usize, u64) {
    ((tag >> 44) as usize, tag & ((1 << 44) - 1))
}

/// Counts for the summary.
#[derive(Default)]
struct Tally {
    records: u64,
    kept: u64,
    dropped: u64,
    bad: u64,
}

/// A CSV header, or none.
type Header = Option<std::sync::Arc<Vec<String>>>;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (train, sources) = open_inputs(&args)?;
    let pool = args.read.run.pool()?;
    for path in args.output.iter().chain(&args.report) {
        refuse_output_as_input(&sources, path)?;
        refuse_output_as_input(&train, path)?;
    }
    let mut decider = Decider::create(&args, &train, &sources)?;
    stop_on_ctrl_c();
    let started = Instant::now();
    // Classes of the training set (with --against), for the statistics.
    let mut training_classes = None;
    let mut training_bad = 0;
    if !train.is_empty() {
        if let Err(code) = decider.pass(&args.read, &pool, &train, 0, false) {
            return Ok(code);
        }
        training_classes = Some(decider.classes.len());
        if !args.read.run.quiet {
            eprintln!(
                "{} training classes from {} records",
                decider.classes.len(),
                decider.tally.records
            );
        }
        training_bad = decider.tally.bad;
        decider.tally = Tally::default();
    }
    if let Err(code) = decider.pass(&args.read, &pool, &sources, train.len(), true) {
        return Ok(code);
    }
    decider.output.finish()?;
    if let Some(r) = decider.report.as_mut() {
        r.finish()?;
    }
    let tally = &decider.tally;
    let seconds = started.elapsed().as_secs_f64();
    decider.warnings.finish(training_bad + tally.bad);
    if !args.read.run.quiet {
        summary(tally, !train.is_empty(), seconds);
    }
    args.read.run.write_stats(&serde_json::json!({
        "records": tally.records,
        "kept": tally.kept,
        // Repeats of an earlier record, or with --against, equivalent to a
        // training puzzle.
        "left_out": tally.dropped,
        "malformed_or_invalid": tally.bad,
        "training_classes": training_classes,
        "seconds": seconds,
        "records_per_sec": per_sec(tally.records, seconds),
        "threads": pool.current_num_threads(),
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// The training inputs (with --against) and the inputs to deduplicate or
/// check.
fn open_inputs(args: &Args) -> anyhow::Result<(Vec<Source>, Vec<Source>)> {
    // (open_sources reads standard input for an empty list.)
    let train = if args.against.is_empty() {
        Vec::new()
    } else {
        open_sources(&args.against)?
    };
    if !args.against.is_empty() && args.files.is_empty() {
        anyhow::bail!("--against needs the files to check: dedup FILES --against TRAIN");
    }
    let sources = open_sources(&args.files)?;
    if train.len() + sources.len() >= 1 << 20 {
        anyhow::bail!("too many input files ({})", train.len() + sources.len());
    }
    Ok((train, sources))
}

/// Each record's class, found on a worker: the records that are not
/// puzzles or break a rule set apart, and when `checking` (the records may
/// be written), the record's output text in `out`.
fn class_job(job: &Job, out: &mut Vec<u8>, file: usize, checking: bool) -> Done<Chunk> {
    let mut canon = Canonicalizer::new();
    let chunk = Chunk {
        file,
        classed: Vec::new(),
        bad: Vec::new(),
        header: job.header.clone(),
    };
    let binary = matches!(job.format, InputFormat::Npy(_) | InputFormat::Rows);
    Done::over_records(job, chunk, |chunk, rec| {
        let g = match rec.givens() {
            Ok(g) => g,
            Err(e) => {
                chunk.bad.push((rec.line, format!("malformed: {e}")));
                return true;
            }
        };
        let form = match canon.canonical_of_valid(&g) {
            Ok(form) => form,
            Err(conflict) => {
                chunk.bad.push((rec.line, format!("invalid: {conflict}")));
                return true;
            }
        };
        let start = out.len();
        if checking {
            if binary {
                out.extend_from_slice(g.to_line().as_bytes());
            } else {
                out.extend_from_slice(rec.raw);
            }
            out.push(b'\n');
        }
        chunk.classed.push(Classed {
            line: rec.line,
            form: PackedForm::new(&form.grid),
            text: start..out.len(),
        });
        true
    })
}

/// The in-order side: the classes seen, and what becomes of each record
/// (kept in the output, or a report row naming the record it repeats).
struct Decider {
    classes: ClassSet,
    output: Output,
    report: Option<Output>,
    tally: Tally,
    /// Inputs by position, TRAIN files first: their names for warnings,
    /// and as report fields (escaped once).
    names: Vec<String>,
    csv_names: Vec<Vec<u8>>,
    /// True with --against: records are looked up, not added.
    against: bool,
    warnings: Warnings,
    /// The header of the first input written (`Some(None)`: it had none).
    header_written: Option<Header>,
    /// A report row, its buffer kept.
    row: Vec<u8>,
}

impl Decider {
    fn create(args: &Args, train: &[Source], sources: &[Source]) -> anyhow::Result<Decider> {
        let names: Vec<String> = train
            .iter()
            .chain(sources)
            .map(|s| s.name().to_string())
            .collect();
        let csv_names = names
            .iter()
            .map(|n| {
                let mut field = Vec::new();
                csv_field(one_line(n.as_bytes(), None).as_bytes(), &mut field);
                field
            })
            .collect();
        let output = Output::create(args.output.as_deref(), None)?;
        let report = match &args.report {
            Some(path) => {
                let mut r = Output::create(Some(path), None)?;
                r.write_all(b"file,line,duplicate_of_file,duplicate_of_line\n")
                    .context("cannot write the report")?;
                Some(r)
            }
            None => None,
        };
        let classes = ClassSet::new().with_context(|| {
            format!(
                "cannot create the temporary file of forms in {} (TMPDIR)",
                std::env::temp_dir().display()
            )
        })?;
        Ok(Decider {
            classes,
            output,
            report,
            tally: Tally::default(),
            names,
            csv_names,
            against: !train.is_empty(),
            warnings: Warnings::new(args.read.run.quiet),
            header_written: None,
            row: Vec::new(),
        })
    }

    /// One pass over `list` (whose first input is input number `offset`):
    /// the training classes, or when `checking`, the records to keep or
    /// leave out. Err: the exit code of a run that stopped.
    fn pass(
        &mut self,
        read: &ReadArgs,
        pool: &rayon::ThreadPool,
        list: &[Source],
        offset: usize,
        checking: bool,
    ) -> Result<(), ExitCode> {
        let progress = read.progress(list);
        let jobs = read.jobs(list, pool.current_num_threads());
        let result = each_job(
            pool,
            list,
            jobs,
            &progress,
            |job, out| Ok(class_job(job, out, offset + job.file, checking)),
            |bytes, chunk| self.take(bytes, chunk, checking, &progress),
        );
        match result {
            Ok(_) => Ok(()),
            Err((stop, n)) => Err(stopped(stop, n, &mut self.output, self.report.as_mut())),
        }
    }

    /// A job's records, in input order.
    fn take(
        &mut self,
        bytes: &[u8],
        chunk: Chunk,
        checking: bool,
        progress: &Progress,
    ) -> Result<(), Halt> {
        self.tally.records += (chunk.classed.len() + chunk.bad.len()) as u64;
        self.tally.bad += chunk.bad.len() as u64;
        let file = &self.names[chunk.file];
        self.warnings
            .show(file, &chunk.bad, " (left out)", progress);
        if checking {
            self.write_header_once(&chunk)?;
        }
        for c in &chunk.classed {
            let here = tag(chunk.file, c.line);
            let seen = if checking && self.against {
                Ok(self.classes.find(&c.form).map_or(Seen::New, Seen::Before))
            } else {
                self.classes.insert(&c.form, here)
            };
            let seen = seen.map_err(|e| {
                Halt::Read(anyhow::Error::new(e).context(format!(
                    "the temporary file of forms in {} (TMPDIR)",
                    std::env::temp_dir().display()
                )))
            })?;
            if checking {
                self.decide(seen, bytes, &chunk, c)?;
            }
        }
        Ok(())
    }

    /// Writes the first checked input's CSV header; refuses an input of
    /// another layout (rows under another file's header would be misread).
    fn write_header_once(&mut self, chunk: &Chunk) -> Result<(), Halt> {
        let Some(first) = &self.header_written else {
            if let Some(header) = &chunk.header {
                let mut line = Vec::new();
                for (i, name) in header.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    csv_field(name.as_bytes(), &mut line);
                }
                line.push(b'\n');
                self.output.write_all(&line).map_err(Halt::Write)?;
            }
            self.header_written = Some(chunk.header.clone());
            return Ok(());
        };
        // Headers alike but for case and spaces are one layout.
        let key = |h: &Header| {
            h.as_ref().map(|names| {
                names
                    .iter()
                    .map(|n| n.trim().to_lowercase())
                    .collect::<Vec<_>>()
            })
        };
        if key(first) == key(&chunk.header) {
            return Ok(());
        }
        let shown = |h: &Header| match h {
            Some(names) => format!("the header {}", names.join(",")),
            None => "no CSV header".to_string(),
        };
        Err(Halt::Read(anyhow::anyhow!(
            "{} has {} but the first input has {}: dedup writes the rows of \
             one layout; dedup them apart, or give them the same columns",
            self.names[chunk.file],
            shown(&chunk.header),
            shown(first)
        )))
    }

    /// Keeps a record of a new class; reports one seen `Before`.
    fn decide(&mut self, seen: Seen, bytes: &[u8], chunk: &Chunk, c: &Classed) -> Result<(), Halt> {
        match seen {
            Seen::New => {
                self.tally.kept += 1;
                self.output
                    .write_all(&bytes[c.text.clone()])
                    .map_err(Halt::Write)
            }
            Seen::Before(first) => {
                self.tally.dropped += 1;
                let Some(report) = self.report.as_mut() else {
                    return Ok(());
                };
                let (file, line) = untag(first);
                let row = &mut self.row;
                row.clear();
                row.extend_from_slice(&self.csv_names[chunk.file]);
                let _ = write!(row, ",{},", c.line);
                row.extend_from_slice(&self.csv_names[file]);
                let _ = writeln!(row, ",{line}");
                report.write_all(row).map_err(Halt::Write)
            }
        }
    }
}

/// The summary on stderr.
fn summary(tally: &Tally, against: bool, seconds: f64) {
    let what = if against {
        "equivalent to a training puzzle"
    } else {
        "duplicates"
    };
    eprintln!(
        "{} records in {seconds:.3} s ({}/s): {} kept, {} {what}, {} malformed or invalid left out",
        tally.records,
        per_second(tally.records, seconds),
        tally.kept,
        tally.dropped,
        tally.bad
    );
}
