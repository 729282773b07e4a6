//! The in-order side of `solve`: the output, fresh or resumed (and an npy
//! output's statuses file), its header, each solved chunk written as it
//! comes (kept columns checked, the Parquet writer fed), and, when the run
//! stops early, what the partial output holds and how to finish it.

use super::files::{
    close_table, lock, patch_npy_header, record_counter, settle_npy, status_path, table_rows,
    table_writer, without_header, write_npy_records, SharedOutput,
};
use super::work::Done;
use super::{Args, MALFORMED_SHOWN};
use crate::cmd::output::refused_before_any_record;
use crate::cmd::progress::Progress;
use crate::engine::pipeline::{BufferPool, Stop};
use crate::engine::solve::Stats;
use crate::engine::{Halt, Source};
use crate::write::output::{partial_name, Output};
use crate::write::{kept_names, write_header, write_header_kept, OutputFormat};
use anyhow::Context;
use parquet::arrow::ArrowWriter;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The output of a run and what the writer has done with it.
pub(super) struct Writer<'a> {
    sources: &'a [Source],
    several: bool,
    format: OutputFormat,
    keep_columns: bool,
    quiet: bool,
    output: Arc<Mutex<Output>>,
    /// npy: the statuses beside the array, one word a line.
    statuses: Option<Output>,
    /// Records an earlier run left in the partial output (`--resume`).
    pub(super) already: u64,
    /// Records written by this run.
    written: u64,
    header_written: bool,
    /// With --keep-columns: the first input's kept column names.
    kept_header: Option<Vec<String>>,
    parquet: Option<(ArrowWriter<SharedOutput>, arrow_schema::SchemaRef)>,
    pub(super) stats: Stats,
    /// Malformed records warned about in full (the first ten of the run;
    /// the rest are counted in `stats.malformed`).
    pub(super) shown: u64,
    /// Per input, the line the next chunk of that file starts on.
    next_line: Vec<u64>,
}

impl<'a> Writer<'a> {
    /// The output, fresh or continued (`--resume`), with its header
    /// written unless it waits for the first chunk (kept columns) or the
    /// first row group (Parquet).
    pub(super) fn open(args: &Args, sources: &'a [Source]) -> anyhow::Result<Writer<'a>> {
        let several = sources.len() > 1;
        let run = super::run_record(args, sources);
        let (output, already) = match (&args.output, args.resume) {
            (Some(path), true) => match Output::resume(path, &run, record_counter(args.format))? {
                Some(r) => (r.output, without_header(args.format, r.records)),
                None => {
                    eprintln!(
                        "batchdoku: nothing to resume ({} not found); starting from the top",
                        partial_name(path).display()
                    );
                    (Output::create(Some(path), Some(&run))?, 0)
                }
            },
            (path, _) => (Output::create(path.as_deref(), Some(&run))?, 0),
        };
        let output = Arc::new(Mutex::new(output));
        let statuses = match (&args.output, args.format) {
            (Some(path), OutputFormat::Npy) => {
                lock(&output)
                    .write_all(&crate::write::npy::output_header(0))
                    .context("cannot write the output")?;
                Some(Output::create(Some(&status_path(path)), None)?)
            }
            _ => None,
        };
        // With --keep-columns the header names the input's columns: it is
        // written with the first chunk, once an input's header has been read.
        let mut header_written = already > 0;
        if args.format == OutputFormat::Parquet {
            header_written = true; // the schema goes with the first row group
        } else if already == 0 && !args.keep_columns {
            let mut header = Vec::new();
            write_header(args.format, several, &mut header);
            lock(&output)
                .write_all(&header)
                .context("cannot write the output")?;
            header_written = true;
        } else if already > 0 && !args.run.quiet {
            eprintln!("batchdoku: resuming after {already} records");
        }
        WRITTEN.store(already, Ordering::SeqCst);
        Ok(Writer {
            sources,
            several,
            format: args.format,
            keep_columns: args.keep_columns,
            quiet: args.run.quiet,
            output,
            statuses,
            already,
            written: 0,
            header_written,
            kept_header: None,
            parquet: None,
            stats: Stats::default(),
            shown: 0,
            next_line: vec![1u64; sources.len()],
        })
    }

    /// A first Ctrl-C lets the records already read finish; a second one
    /// keeps what is written and leaves at once.
    pub(super) fn stop_on_ctrl_c(&self) {
        let for_handler = Arc::clone(&self.output);
        let _ = ctrlc::set_handler(move || {
            if !crate::cmd::records::first_interrupt() {
                // A second Ctrl-C: the user does not want to wait. Keep what
                // is finished (the writer holds the lock only while it writes a
                // chunk and counts it, so what we flush is whole records).
                second_interrupt(&for_handler);
            }
        });
    }

    /// Writes a solved chunk (in input order), or says why the run stops.
    pub(super) fn take(
        &mut self,
        done: anyhow::Result<Done>,
        buffers: &BufferPool,
        progress: &Progress,
        started: Instant,
    ) -> ControlFlow<Halt> {
        let (sources, format, several) = (self.sources, self.format, self.several);
        let done = match done {
            Ok(done) => done,
            Err(e) => return ControlFlow::Break(Halt::Read(e)),
        };
        // A mapped input that shrank gave zeros for what was cut off:
        // nothing read from it since can be trusted.
        if let Err(e) = done.guard.check(&sources[done.file]) {
            return ControlFlow::Break(Halt::Read(e));
        }
        // (With --format parquet, kept columns travel in the batch's
        // schema, checked below.)
        if self.keep_columns && format != OutputFormat::Parquet {
            let Some((keep, header)) = &done.kept else {
                return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                    "--keep-columns needs CSV inputs with a header; {} has none",
                    sources[done.file].described()
                )));
            };
            let names = kept_names(header, *keep);
            match &self.kept_header {
                Some(first) if *first != names => {
                    return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                        "--keep-columns needs the same columns in every input; {} has {}, the first had {}",
                        sources[done.file].described(),
                        names.join(","),
                        first.join(",")
                    )))
                }
                Some(_) => {}
                None => self.kept_header = Some(names),
            }
            if !self.header_written {
                let mut header = Vec::new();
                write_header_kept(
                    format,
                    several,
                    self.kept_header.as_deref().unwrap_or(&[]),
                    &mut header,
                );
                if let Err(e) = lock(&self.output).write_all(&header) {
                    return ControlFlow::Break(Halt::Write(e));
                }
                self.header_written = true;
            }
        }
        if let Some(table) = &done.table {
            let batch = match table {
                Ok(batch) => batch,
                Err(e) => return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string()))),
            };
            if self.parquet.is_none() {
                match table_writer(&self.output, batch.schema()) {
                    Ok(w) => self.parquet = Some((w, batch.schema())),
                    Err(e) => {
                        return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string())))
                    }
                }
            }
            let (writer, schema) = self.parquet.as_mut().expect("made above");
            if *schema != batch.schema() {
                return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                    "--keep-columns needs the same columns in every input; {} differs from the first",
                    sources[done.file].described()
                )));
            }
            if let Err(e) = writer.write(batch) {
                return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string())));
            }
        } else {
            let mut out = lock(&self.output);
            let wrote = match &mut self.statuses {
                Some(side) => write_npy_records(&done.out, &mut out, side),
                None => out.write_all(&done.out),
            };
            if let Err(e) = wrote {
                return ControlFlow::Break(Halt::Write(e));
            }
        }
        self.written += done.report.stats.records;
        WRITTEN.store(self.already + self.written, Ordering::SeqCst);
        buffers.give(done.out);
        self.stats.merge(&done.report.stats);
        let start = if done.line_known {
            done.first_line
        } else {
            self.next_line[done.file]
        };
        let rebase = start - done.first_line;
        self.next_line[done.file] = start + done.report.lines;
        if !self.quiet {
            for m in &done.report.malformed {
                if self.shown < MALFORMED_SHOWN {
                    progress.println(&format!(
                        "batchdoku: warning: {}:{}: malformed: {}",
                        sources[done.file].name(),
                        m.line + rebase,
                        m.error
                    ));
                    self.shown += 1;
                }
            }
        }
        progress.advance(done.input_bytes as u64, self.stats.records, started);
        if done.report.complete {
            ControlFlow::Continue(())
        } else {
            ControlFlow::Break(Halt::Interrupted)
        }
    }

    /// After the last chunk: a Parquet output gets its footer, complete or
    /// not, so a kept partial file is a valid table of the records
    /// written; and inputs that ran out before the records already in the
    /// partial output were all skipped (`to_skip` left) are not the inputs
    /// that made them.
    pub(super) fn close(
        &mut self,
        result: Result<(), Stop<Halt>>,
        to_skip: u64,
    ) -> Result<(), Stop<Halt>> {
        let closed = match self.format {
            OutputFormat::Parquet => close_table(&self.output, self.parquet.take(), self.several),
            _ => Ok(()),
        };
        let result = match (result, closed) {
            (Ok(()), Err(e)) => Err(Stop::Sink(Halt::Write(io::Error::other(e.to_string())))),
            (r, _) => r,
        };
        let already = self.already;
        match (result, to_skip) {
            (Ok(()), 0) => Ok(()),
            (Ok(()), missing) => Err(Stop::Source(Halt::Read(anyhow::anyhow!(
                "the inputs hold only {} records but the partial output holds {already}: \
                 they are not the inputs that made it",
                already - missing
            )))),
            (Err(e), _) => Err(e),
        }
    }

    /// Says why the run stopped and what the output holds (a kept partial
    /// file, cut to whole records; none at all when an input stopped the
    /// run before any record). The exit code, and whether the run's
    /// summary follows.
    pub(super) fn stopped(&mut self, stop: Stop<Halt>) -> (ExitCode, bool) {
        let (format, already, written) = (self.format, self.already, self.written);
        let halt = match stop {
            Stop::Source(h) | Stop::Sink(h) => h,
        };
        // The Ctrl-C handler keeps its reference; it only locks, as we do.
        let mut output = lock(&self.output);
        // An npy output keeps the rows that both the array and its
        // statuses hold, as a valid array whose header says how many (a
        // failed write can leave either file longer than the other).
        let mut npy_rows = None;
        let flushed = match self.statuses.as_mut() {
            Some(side) => {
                let flushed = side.flush().and(output.flush());
                side.close_dropping_unwritten();
                output.close_dropping_unwritten();
                npy_rows = Some(settle_npy(&output, side));
                flushed
            }
            None => output.flush(),
        };
        if let (Halt::Write(e), None) = (&halt, output.partial_path()) {
            if e.kind() == io::ErrorKind::BrokenPipe {
                // The reader went away (e.g. `| head`): not an error.
                return (ExitCode::SUCCESS, false);
            }
        }
        // Stopped by an input before any record was written, with none
        // from an earlier run: no partial file to keep or resume.
        if let (Halt::Read(e), 0, 0) = (&halt, already, written) {
            refused_before_any_record(e, &mut output, self.statuses.as_mut());
            return (ExitCode::from(1), false);
        }
        let write_failed = matches!(halt, Halt::Write(_)) || flushed.is_err();
        // After a failed write, what reached the file is counted there.
        let held = match (write_failed, output.partial_path()) {
            _ if npy_rows.is_some() => npy_rows.flatten(),
            // Readable only if its footer made it to the disk.
            (true, Some(p)) if format == OutputFormat::Parquet => table_rows(p),
            (true, Some(p)) => std::fs::read(p)
                .ok()
                .map(|text| without_header(format, record_counter(format)(&text).0)),
            (true, None) => None,
            (false, _) => Some(already + written),
        };
        let kept = match (output.partial_path(), held) {
            (Some(p), Some(n)) => holds_first(p, n),
            (Some(p), None) if !RESUMABLE.load(Ordering::SeqCst) => {
                let (name, last) = match format {
                    OutputFormat::Npy => ("an npy array", "its header"),
                    _ => ("a Parquet table", "its footer"),
                };
                format!(
                    "{} is incomplete and cannot be read as {name} ({last} could not be \
                     written); run the command again",
                    p.display()
                )
            }
            (Some(p), None) => format!(
                "{} is kept, incomplete; run the same command with --resume to finish it",
                p.display()
            ),
            (None, _) => format!("{} stops early", output.target()),
        };
        match &halt {
            Halt::Interrupted => eprintln!("batchdoku: interrupted: {kept}"),
            Halt::Read(e) => eprintln!("batchdoku: error: {e:#}; {kept}"),
            Halt::Write(e) => eprintln!(
                "batchdoku: error: cannot write {}: {e}; {kept}",
                output.target()
            ),
        }
        if let (Err(e), false) = (&flushed, matches!(halt, Halt::Write(_))) {
            eprintln!(
                "batchdoku: error: cannot write {}: {e}; the last records may be missing",
                output.target()
            );
        }
        (ExitCode::from(1), true)
    }

    /// A run that went to the end: the header if none was written yet
    /// (--keep-columns over inputs without a record), an npy array's final
    /// count, and the files renamed to their names.
    pub(super) fn finish(&mut self) -> anyhow::Result<()> {
        let mut output = lock(&self.output);
        if !self.header_written {
            let mut header = Vec::new();
            write_header(self.format, self.several, &mut header);
            output
                .write_all(&header)
                .context("cannot write the output")?;
        }
        if let Some(side) = &mut self.statuses {
            patch_npy_header(&mut output, self.already + self.written)?;
            output.finish()?;
            side.finish()?;
        } else {
            output.finish()?;
        }
        Ok(())
    }
}

/// What a kept partial output holds, and how to finish it.
fn holds_first(partial: &Path, records: u64) -> String {
    if !RESUMABLE.load(Ordering::SeqCst) {
        return format!(
            "{} holds the first {records} records as a complete file; \
             this format cannot be resumed: run the command again to make all of it",
            partial.display()
        );
    }
    format!(
        "{} holds the first {records} records; run the same command with --resume to finish it",
        partial.display()
    )
}

/// False for output formats that `--resume` cannot continue (npy,
/// parquet: their headers or footers are written last).
pub(super) static RESUMABLE: AtomicBool = AtomicBool::new(true);

/// Records finished and written, for the message of a second Ctrl-C.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

/// The second Ctrl-C: flush the finished records and leave at once. If the
/// writer is stuck inside a write (a full pipe), wait a moment, then leave
/// without flushing and say so.
fn second_interrupt(output: &Mutex<Output>) -> ! {
    let deadline = Instant::now() + std::time::Duration::from_secs(2);
    loop {
        if let Ok(mut out) = output.try_lock() {
            let held = WRITTEN.load(Ordering::SeqCst);
            let flushed = out.flush();
            match (out.partial_path(), flushed) {
                (Some(p), Ok(())) if !RESUMABLE.load(Ordering::SeqCst) => eprintln!(
                    "\nbatchdoku: interrupted twice: {} is incomplete (cut off before its \
                     header or footer was written); run the command again",
                    p.display()
                ),
                (Some(p), Ok(())) => {
                    eprintln!("\nbatchdoku: interrupted twice: {}", holds_first(p, held))
                }
                (None, Ok(())) => eprintln!(
                    "\nbatchdoku: interrupted twice: {} stops after {held} records",
                    out.target()
                ),
                (_, Err(e)) => eprintln!(
                    "\nbatchdoku: interrupted twice: cannot write {}: {e}",
                    out.target()
                ),
            }
            std::process::exit(130);
        }
        if Instant::now() > deadline {
            eprintln!("\nbatchdoku: interrupted twice while the output was being written; the last records may be missing");
            std::process::exit(130);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
