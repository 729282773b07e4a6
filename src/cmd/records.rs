//! The driver of the commands that turn each record into a line of output
//! (`rate`, `canon`, `grade`) or decide record by record (`dedup`): the
//! engine's jobs on the pool, their results handed on in input order, the
//! progress bar, the warnings about bad records, and how a run that stops
//! early is told.

use super::output::{refuse_output_as_input, refused_before_any_record};
use super::progress::Progress;
use super::run_args::{per_sec, RunArgs};
use super::INTERRUPTED;
use crate::engine::pipeline::{run_ordered, BufferPool, Stop};
use crate::engine::{
    forced_format, open_sources, Halt, InputGuard, Job, Jobs, Source, INPUT_FORMS,
};
use crate::read::{records, ColumnSpec, ParsedRecord};
use crate::write::output::Output;
use crate::{ParseError, Puzzle};
use anyhow::Context;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// How the per-record commands read their inputs and report, the same
/// for each.
#[derive(clap::Args)]
pub struct ReadArgs {
    /// The puzzle column of CSV and Parquet inputs: a header name, or a
    /// number from 1 (for files without a header). Without it, a `puzzle`,
    /// `quizzes`, `question`, `quiz` or `sudoku` column; without a header,
    /// the first field of the first line that is an 81-cell puzzle.
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<ColumnSpec>,
    /// Input form: auto, line, pencilmark, grid, csv, npy or parquet (see
    /// `solve --help`).
    #[arg(long, default_value = "auto", value_parser = INPUT_FORMS)]
    pub input: String,
    #[command(flatten)]
    pub run: RunArgs,
}

impl ReadArgs {
    /// The engine's jobs over `sources` as these options ask, numbered as
    /// they are cut (every output record carries its line).
    pub fn jobs<'a>(&self, sources: &'a [Source], threads: usize) -> Jobs<'a> {
        self.jobs_after(sources, threads, 0)
    }

    /// As [`jobs`](Self::jobs), the first `skip` records left out (those a
    /// resumed output already holds).
    pub fn jobs_after<'a>(&self, sources: &'a [Source], threads: usize, skip: u64) -> Jobs<'a> {
        let forced = forced_format(&self.input);
        super::jobs(
            sources,
            forced,
            threads,
            true,
            skip,
            self.column.clone(),
            self.run.quiet,
        )
    }

    /// The progress bar over `sources`' bytes.
    pub fn progress(&self, sources: &[Source]) -> Progress {
        let total_bytes = sources.iter().map(Source::mapped_len).sum();
        self.run.progress_bar(total_bytes)
    }
}

/// What `work` made of one job.
pub struct Done<T> {
    /// Whatever the command keeps besides its output bytes.
    pub value: T,
    /// Records handled (and written to the output buffer).
    pub records: u64,
    /// False when Ctrl-C cut the job short: the run stops after it.
    pub complete: bool,
}

impl<T> Done<T> {
    /// Hands a job's records to `each` in order, with `value` to fill,
    /// until the records end or Ctrl-C stops the job. `each` returns false
    /// when it was itself stopped inside a record: that record is not
    /// counted, and the job ends incomplete.
    pub fn over_records(
        job: &Job,
        mut value: T,
        mut each: impl FnMut(&mut T, ParsedRecord<'_>) -> bool,
    ) -> Done<T> {
        let mut records_done = 0;
        let mut complete = true;
        for rec in records(&job.data, job.first_line, job.format) {
            if INTERRUPTED.load(Ordering::Relaxed) || !each(&mut value, rec) {
                complete = false;
                break;
            }
            records_done += 1;
        }
        Done {
            value,
            records: records_done,
            complete,
        }
    }
}

/// A job's results on their way to the sink.
struct Finished<T> {
    out: Vec<u8>,
    done: Done<T>,
    file: usize,
    bytes: usize,
    guard: InputGuard,
}

/// Records a Ctrl-C in [`INTERRUPTED`]; true for the first one, which is
/// acknowledged at once: a run blocked on standard input finishes only when
/// the input ends, and the user should know the key was heard.
pub fn first_interrupt() -> bool {
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        return false;
    }
    eprintln!(
        "\nbatchdoku: interrupted; finishing the records already read (Ctrl-C again to stop now)"
    );
    true
}

/// Ctrl-C sets [`INTERRUPTED`] (workers stop at the next record, and what
/// is finished is kept); a second one leaves at once.
pub fn stop_on_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if !first_interrupt() {
            // A second Ctrl-C (the first waits for the chunks in flight, or
            // for a blocked read of standard input): leave now.
            eprintln!("\nbatchdoku: interrupted twice; the output stops early");
            std::process::exit(130);
        }
    });
}

/// Runs `work` on every job (each loaded on its worker, with an output
/// buffer to fill) and `sink` on the results in input order, advancing
/// `progress`. Returns the records done, or why the run stopped with the
/// records done until then.
pub fn each_job<T: Send>(
    pool: &rayon::ThreadPool,
    sources: &[Source],
    jobs: Jobs<'_>,
    progress: &Progress,
    work: impl Fn(&Job, &mut Vec<u8>) -> anyhow::Result<Done<T>> + Sync,
    mut sink: impl FnMut(&[u8], T) -> Result<(), Halt>,
) -> Result<u64, (Stop<Halt>, u64)> {
    let started = Instant::now();
    let buffers = BufferPool::new();
    let threads = pool.current_num_threads();
    let mut records_done = 0u64;
    let result = run_ordered(
        pool,
        jobs,
        threads * 4,
        |job: Job| -> anyhow::Result<Finished<T>> {
            let job = job.load(sources)?;
            let mut out = buffers.take(job.data.len() * 2);
            let done = work(&job, &mut out)?;
            Ok(Finished {
                out,
                done,
                file: job.file,
                bytes: job.progress_bytes,
                guard: job.data.guard(),
            })
        },
        |finished: anyhow::Result<Finished<T>>| {
            let f = match finished {
                Ok(f) => f,
                Err(e) => return ControlFlow::Break(Halt::Read(e)),
            };
            // A mapped input that shrank gave zeros for what was cut off.
            if let Err(e) = f.guard.check(&sources[f.file]) {
                return ControlFlow::Break(Halt::Read(e));
            }
            if let Err(halt) = sink(&f.out, f.done.value) {
                return ControlFlow::Break(halt);
            }
            buffers.give(f.out);
            records_done += f.done.records;
            progress.advance(f.bytes as u64, records_done, started);
            if f.done.complete {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(Halt::Interrupted)
            }
        },
    );
    progress.finish();
    result
        .map(|()| records_done)
        .map_err(|stop| (stop, records_done))
}

/// Says on stderr why a run stopped early, keeps what `output` and the
/// file written `beside` it (dedup's report) hold (a file stays
/// `.partial`), or removes both when an input stopped the run before any
/// record, and gives the exit code: 0 when only the reader of standard
/// output went away (`| head`), else 1.
pub fn stopped(
    stop: Stop<Halt>,
    records_done: u64,
    output: &mut Output,
    mut beside: Option<&mut Output>,
) -> ExitCode {
    if let Some(beside) = beside.as_mut() {
        let _ = beside.flush();
    }
    let _ = output.flush();
    match stop {
        Stop::Source(Halt::Interrupted) | Stop::Sink(Halt::Interrupted) => {
            eprintln!("batchdoku: interrupted after {records_done} records")
        }
        Stop::Source(Halt::Read(e)) | Stop::Sink(Halt::Read(e)) if records_done == 0 => {
            refused_before_any_record(&e, output, beside);
            return ExitCode::from(1);
        }
        Stop::Source(Halt::Read(e)) | Stop::Sink(Halt::Read(e)) => {
            eprintln!("batchdoku: error: {e:#}")
        }
        Stop::Source(Halt::Write(e)) | Stop::Sink(Halt::Write(e)) => {
            if e.kind() == std::io::ErrorKind::BrokenPipe && output.partial_path().is_none() {
                return ExitCode::SUCCESS;
            }
            eprintln!("batchdoku: error: cannot write the output: {e}")
        }
    }
    if let Some(partial) = output.partial_path() {
        eprintln!(
            "batchdoku: the output so far is in {} (incomplete)",
            partial.display()
        );
    }
    ExitCode::from(1)
}

/// Whole lines in `text` (a record a line) and the length they fill.
fn whole_lines(text: &[u8]) -> (u64, usize) {
    let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (
        text[..keep].iter().filter(|&&b| b == b'\n').count() as u64,
        keep,
    )
}

/// Records per second for a summary line (`-` without records).
pub fn per_second(records: u64, seconds: f64) -> String {
    per_sec(records, seconds).map_or_else(|| "-".to_string(), |rate| format!("{rate:.0}"))
}

/// Bad records (malformed or invalid) warned about in full in a run; the
/// rest are counted.
pub const WARNINGS_SHOWN: u64 = 10;

/// A job's first bad records: (line, what is wrong), no more than a run
/// shows.
#[derive(Default)]
pub struct BadRecords(Vec<(u64, String)>);

impl BadRecords {
    /// Notes the record at `line`; `what` is only made for those shown.
    pub fn note(&mut self, line: u64, what: impl FnOnce() -> String) {
        if (self.0.len() as u64) < WARNINGS_SHOWN {
            self.0.push((line, what()));
        }
    }

    pub fn notes(&self) -> &[(u64, String)] {
        &self.0
    }

    /// The record at `line` (its `puzzle` as read) sorted: a valid puzzle,
    /// or a bad record noted with why.
    pub fn check(&mut self, line: u64, puzzle: Result<Puzzle, ParseError>) -> Checked {
        match puzzle {
            Err(e) => {
                self.note(line, || format!("malformed: {e}"));
                Checked::Malformed
            }
            Ok(p) => match p.validate() {
                Err(conflict) => {
                    self.note(line, || format!("invalid: {conflict}"));
                    Checked::Invalid(p)
                }
                Ok(()) => Checked::Valid(p),
            },
        }
    }
}

/// What [`BadRecords::check`] made of a record.
pub enum Checked {
    /// Not a puzzle.
    Malformed,
    /// A puzzle whose givens (or pencilmarks) break a rule.
    Invalid(Puzzle),
    Valid(Puzzle),
}

/// A run's warnings about bad records on stderr, as the jobs' results
/// come in input order: the first [`WARNINGS_SHOWN`] with their file and
/// line, then how many more there were.
pub struct Warnings {
    shown: u64,
    quiet: bool,
}

impl Warnings {
    /// None are shown when `quiet`.
    pub fn new(quiet: bool) -> Warnings {
        Warnings { shown: 0, quiet }
    }

    /// Shows the `bad` records of a job of input `file` while the run
    /// has shown fewer than [`WARNINGS_SHOWN`], each followed by `after`
    /// (what became of it, if the output does not say).
    pub fn show(&mut self, file: &str, bad: &[(u64, String)], after: &str, progress: &Progress) {
        if self.quiet {
            return;
        }
        for (line, what) in bad {
            if self.shown == WARNINGS_SHOWN {
                return;
            }
            progress.println(&format!("batchdoku: warning: {file}:{line}: {what}{after}"));
            self.shown += 1;
        }
    }

    /// At the end of a run of `bad` bad records: how many were not shown.
    pub fn finish(&self, bad: u64) {
        if !self.quiet && bad > self.shown {
            eprintln!(
                "batchdoku: warning: {} more bad records not shown",
                bad - self.shown
            );
        }
    }
}

/// A per-record command's run (`rate`, `canon`, `grade`): its inputs opened, the
/// pool, and the output with its header written; [`RecordRun::each`] then
/// runs every record through the worker and writes the results in order.
pub struct RecordRun {
    pub sources: Vec<Source>,
    /// The inputs' names, by position.
    pub names: Vec<String>,
    pub pool: rayon::ThreadPool,
    pub output: Output,
    pub started: Instant,
    /// Records a resumed output already held: the run starts after them.
    pub already: u64,
}

/// How a command's output can be continued with `--resume`: the record of
/// the run (what must be the same: the command, its options, its inputs)
/// and whether to continue.
pub struct Resumable<'a> {
    pub run: &'a dyn Fn(&[Source]) -> serde_json::Value,
    pub resume: bool,
    /// A csv output: records counted as csv, the header among them.
    pub csv: bool,
}

impl RecordRun {
    /// Opens `files` (standard input for none), the pool and `output`
    /// (refused when it is one of the inputs), and writes the `header` for
    /// one input or several (true) to it.
    pub fn open(
        files: &[PathBuf],
        output: Option<&Path>,
        read: &ReadArgs,
        header: impl FnOnce(bool) -> &'static str,
    ) -> anyhow::Result<RecordRun> {
        RecordRun::open_resumable(files, output, read, header, None)
    }

    /// As [`open`](Self::open); with `resumable`, a file output records
    /// its run beside its partial, and `--resume` continues an earlier
    /// partial of the same run after its whole records.
    pub fn open_resumable(
        files: &[PathBuf],
        output: Option<&Path>,
        read: &ReadArgs,
        header: impl FnOnce(bool) -> &'static str,
        resumable: Option<Resumable<'_>>,
    ) -> anyhow::Result<RecordRun> {
        let sources = open_sources(files)?;
        let names = sources.iter().map(|s| s.name().to_string()).collect();
        let pool = read.run.pool()?;
        if let Some(path) = output {
            refuse_output_as_input(&sources, path)?;
        }
        let run = resumable.as_ref().map(|r| (r.run)(&sources));
        let mut resumed = None;
        if let (Some(path), Some(r), Some(record)) = (output, &resumable, &run) {
            if r.resume {
                let count: crate::write::output::RecordCounter = if r.csv {
                    crate::read::csv::count_csv_records
                } else {
                    whole_lines
                };
                resumed = Output::resume(path, record, count)?;
                if resumed.is_none() {
                    eprintln!(
                        "batchdoku: nothing to resume ({} not found); starting from the top",
                        crate::write::output::partial_name(path).display()
                    );
                }
            }
        }
        let (mut output, already) = match resumed {
            Some(r) => {
                let header_lines =
                    u64::from(r.records > 0 && resumable.as_ref().is_some_and(|r| r.csv));
                (r.output, r.records - header_lines)
            }
            None => (Output::create(output, run.as_ref())?, 0),
        };
        let header = header(sources.len() > 1);
        if already == 0 {
            output
                .write_all(header.as_bytes())
                .context("cannot write the output")?;
        } else if !read.run.quiet {
            eprintln!("batchdoku: resuming after {already} records");
        }
        Ok(RecordRun {
            sources,
            names,
            pool,
            output,
            started: Instant::now(),
            already,
        })
    }

    pub fn several(&self) -> bool {
        self.sources.len() > 1
    }

    /// Runs `work` on every job and writes its output in input order,
    /// handing each job's value to `take` (with the progress bar, to print
    /// warnings above it). Returns the records done, or the exit code of a
    /// run that stopped early (said on stderr, the output kept as
    /// [`stopped`] says).
    pub fn each<T: Send>(
        &mut self,
        read: &ReadArgs,
        work: impl Fn(&Job, &mut Vec<u8>) -> anyhow::Result<Done<T>> + Sync,
        mut take: impl FnMut(T, &Progress),
    ) -> Result<u64, ExitCode> {
        stop_on_ctrl_c();
        let progress = read.progress(&self.sources);
        self.started = Instant::now();
        let jobs = read.jobs_after(&self.sources, self.pool.current_num_threads(), self.already);
        let output = &mut self.output;
        let result = each_job(
            &self.pool,
            &self.sources,
            jobs,
            &progress,
            work,
            |bytes, value| {
                take(value, &progress);
                output.write_all(bytes).map_err(Halt::Write)
            },
        );
        match result {
            Ok(n) => Ok(n),
            Err((stop, n)) => Err(stopped(stop, n, &mut self.output, None)),
        }
    }

    /// Seconds since the records began.
    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}
