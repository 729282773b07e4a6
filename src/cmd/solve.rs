//! `batchdoku solve`: the batch engine. Inputs are memory-mapped (standard
//! input is streamed), cut into chunks on record boundaries, solved by a
//! rayon pool and written back in input order.

use super::output::{partial_name, refuse_output_as_input, Output, RecordCounter};
use super::run_args::RunArgs;
use super::INTERRUPTED;
use crate::engine::pipeline::{run_ordered, BufferPool, Stop};
use crate::engine::solve::{solve_chunk, ChunkJob, ChunkReport, Stats};
use crate::engine::{forced_format, open_sources, Halt, InputGuard, Job, Source, INPUT_FORMS};
use crate::puzzle::Status;
use crate::read::parquet::TableError;
use crate::read::{count_csv_records, count_newlines, Chunk, ColumnSpec, InputFormat};
use crate::write::parquet::{results_batch, results_schema};
use crate::write::{
    kept_names, unique_kept_names, write_header, write_header_kept, KeepColumns, OutputFormat,
    NPY_RECORD,
};
use crate::SolverKind;
use anyhow::{bail, Context};
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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

/// A solved chunk.
struct Done {
    out: Vec<u8>,
    report: ChunkReport,
    file: usize,
    first_line: u64,
    line_known: bool,
    input_bytes: usize,
    guard: InputGuard,
    /// With --keep-columns: what was kept and the input's header.
    kept: Option<(KeepColumns, Arc<Vec<String>>)>,
    /// With --format parquet: the chunk's results as a record batch.
    table: Option<Result<RecordBatch, TableError>>,
}

/// The output file seen by the Parquet writer: writes go through the lock
/// the second Ctrl-C takes too.
struct SharedOutput(Arc<Mutex<Output>>);

impl io::Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        lock(&self.0).write_all(buf)?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        lock(&self.0).flush()
    }
}

/// Rows per row group of a Parquet output: groups are written as chunks
/// finish, so this bounds what the writer holds (about 20 MiB).
const ROW_GROUP_ROWS: usize = 128 << 10;

/// A Parquet writer over the output with the schema of the first batch.
fn table_writer(
    output: &Arc<Mutex<Output>>,
    schema: arrow_schema::SchemaRef,
) -> Result<ArrowWriter<SharedOutput>, TableError> {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .build();
    Ok(ArrowWriter::try_new(
        SharedOutput(Arc::clone(output)),
        schema,
        Some(props),
    )?)
}

/// Writes the footer of a Parquet output: the writer's, or an empty table's
/// when no record came.
fn close_table(
    output: &Arc<Mutex<Output>>,
    writer: Option<(ArrowWriter<SharedOutput>, arrow_schema::SchemaRef)>,
    several: bool,
) -> Result<(), TableError> {
    let writer = match writer {
        Some((w, _)) => w,
        None => table_writer(output, chunk_schema(several, None, None))?,
    };
    writer.close()?;
    Ok(())
}

/// The schema of a chunk's Parquet results: the output's own columns, then
/// the kept ones (CSV fields as strings, a table's with their types).
fn chunk_schema(
    several: bool,
    kept: Option<(KeepColumns, &[String])>,
    others: Option<&RecordBatch>,
) -> arrow_schema::SchemaRef {
    let mut fields: Vec<arrow_schema::Field> = Vec::new();
    if let Some((keep, header)) = kept {
        fields.extend(
            kept_names(header, keep)
                .into_iter()
                .map(|n| arrow_schema::Field::new(n, arrow_schema::DataType::Utf8, true)),
        );
    }
    if let Some(others) = others {
        let schema = others.schema();
        let names = unique_kept_names(schema.fields().iter().map(|f| f.name().as_str()));
        fields.extend(
            schema
                .fields()
                .iter()
                .zip(names)
                .map(|(f, name)| f.as_ref().clone().with_name(name)),
        );
    }
    results_schema(several, &fields)
}

/// What shapes this run's output, recorded beside `OUT.partial` so that
/// `--resume` continues only the same run.
fn run_record(args: &Args, sources: &[Source]) -> serde_json::Value {
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

/// Whole records in an output of `format` and the length they fill.
fn record_counter(format: OutputFormat) -> RecordCounter {
    match format {
        // Quoted fields may hold line ends (not in what we write, but the
        // count must not depend on that).
        OutputFormat::Csv => count_csv_records,
        // (npy outputs are not resumed: refused before this is asked.)
        OutputFormat::Line | OutputFormat::Jsonl | OutputFormat::Npy | OutputFormat::Parquet => {
            |text: &[u8]| {
                let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                (count_newlines(&text[..keep]), keep)
            }
        }
    }
}

/// Output records counted in a partial file, less the csv header among them.
fn without_header(format: OutputFormat, records: u64) -> u64 {
    records - u64::from(format == OutputFormat::Csv && records > 0)
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
static RESUMABLE: AtomicBool = AtomicBool::new(true);

/// Records finished and written, for the message of a second Ctrl-C.
static WRITTEN: AtomicU64 = AtomicU64::new(0);

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Options that cannot go together are refused before any file is made.
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
    let forced = forced_format(&args.input);
    let sources = open_sources(&args.files)?;
    let several = sources.len() > 1;

    let pool = args.run.pool()?;
    let threads = pool.current_num_threads();
    if let Some(path) = &args.output {
        refuse_output_as_input(&sources, path)?;
    }
    let run = run_record(&args, &sources);

    // The output, fresh or continued.
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
    // npy: the statuses beside the array, one word a line.
    let mut statuses = match (&args.output, args.format) {
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
    let mut kept_header: Option<Vec<String>> = None;
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
    let for_handler = Arc::clone(&output);
    let _ = ctrlc::set_handler(move || {
        if !super::records::first_interrupt() {
            // A second Ctrl-C: the user does not want to wait. Keep what
            // is finished (the writer holds the lock only while it writes a
            // chunk and counts it, so what we flush is whole records).
            second_interrupt(&for_handler);
        }
    });

    let total_bytes: u64 = sources.iter().map(Source::mapped_len).sum();
    let progress = args.run.progress_bar(total_bytes);
    let mut jobs = super::jobs(
        &sources,
        forced,
        threads,
        args.format != OutputFormat::Line || already > 0,
        already,
        args.column.clone(),
        args.run.quiet,
    )
    .keeping_others(args.keep_columns && args.format == OutputFormat::Parquet);
    let names: Vec<String> = sources.iter().map(|s| s.name().to_string()).collect();
    let started = Instant::now();
    let mut stats = Stats::default();
    let mut written = 0u64;
    // Malformed records warned about in full (the first ten of the run; the
    // rest are counted in `stats.malformed`).
    let mut shown = 0u64;
    let mut next_line = vec![1u64; sources.len()];
    let solver = args.solver;
    let limit = args.limit;
    let format = args.format;
    let keep_columns = args.keep_columns;
    let buffers = BufferPool::new();
    let mut parquet: Option<(ArrowWriter<SharedOutput>, arrow_schema::SchemaRef)> = None;

    let result = run_ordered(
        &pool,
        &mut jobs,
        threads * 4,
        |job: Job| {
            let job = job.load(&sources)?;
            let chunk = Chunk {
                data: &job.data,
                first_line: job.first_line,
                format: job.format,
            };
            let mut out = buffers.take(job.data.len() + job.data.len() / 2 + 256);
            let keep = match (keep_columns, job.format, &job.header) {
                (true, InputFormat::Csv(layout), Some(header)) => Some(KeepColumns {
                    puzzle: layout.column,
                    count: header.len(),
                }),
                _ => None,
            };
            let spec = ChunkJob {
                limit,
                format,
                file: several.then(|| names[job.file].as_str()),
                keep,
            };
            let mut solver = solver.build();
            solver.set_stop(Some(&INTERRUPTED));
            let report = solve_chunk(solver.as_mut(), &chunk, spec, &INTERRUPTED, &mut out);
            let table = (format == OutputFormat::Parquet).then(|| {
                let kept = keep.zip(job.header.as_deref().map(|h| &h[..]));
                let schema = chunk_schema(several, kept, job.others.as_ref());
                results_batch(
                    &out,
                    several.then(|| names[job.file].as_str()),
                    kept.map_or(0, |(k, h)| kept_names(h, k).len()),
                    job.others.as_ref(),
                    &schema,
                )
            });
            Ok(Done {
                out,
                report,
                file: job.file,
                first_line: job.first_line,
                line_known: job.line_known,
                input_bytes: job.progress_bytes,
                guard: job.data.guard(),
                kept: keep.zip(job.header.clone()),
                table,
            })
        },
        |done: anyhow::Result<Done>| {
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
            if keep_columns && format != OutputFormat::Parquet {
                let Some((keep, header)) = &done.kept else {
                    return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                        "--keep-columns needs CSV inputs with a header; {} has none",
                        sources[done.file].described()
                    )));
                };
                let names = kept_names(header, *keep);
                match &kept_header {
                    Some(first) if *first != names => {
                        return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                            "--keep-columns needs the same columns in every input; {} has {}, the first had {}",
                            sources[done.file].described(),
                            names.join(","),
                            first.join(",")
                        )))
                    }
                    Some(_) => {}
                    None => kept_header = Some(names),
                }
                if !header_written {
                    let mut header = Vec::new();
                    write_header_kept(
                        format,
                        several,
                        kept_header.as_deref().unwrap_or(&[]),
                        &mut header,
                    );
                    if let Err(e) = lock(&output).write_all(&header) {
                        return ControlFlow::Break(Halt::Write(e));
                    }
                    header_written = true;
                }
            }
            if let Some(table) = &done.table {
                let batch = match table {
                    Ok(batch) => batch,
                    Err(e) => {
                        return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string())))
                    }
                };
                if parquet.is_none() {
                    match table_writer(&output, batch.schema()) {
                        Ok(w) => parquet = Some((w, batch.schema())),
                        Err(e) => {
                            return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string())))
                        }
                    }
                }
                let (writer, schema) = parquet.as_mut().expect("made above");
                if *schema != batch.schema() {
                    return ControlFlow::Break(Halt::Read(anyhow::anyhow!(
                        "--keep-columns needs the same columns in every input; {} differs from the first",
                        sources[done.file].described()
                    )));
                }
                if let Err(e) = writer.write(batch) {
                    return ControlFlow::Break(Halt::Write(io::Error::other(e.to_string())));
                }
                written += done.report.stats.records;
                WRITTEN.store(already + written, Ordering::SeqCst);
            } else {
                let mut out = lock(&output);
                let wrote = match &mut statuses {
                    Some(side) => write_npy_records(&done.out, &mut out, side),
                    None => out.write_all(&done.out),
                };
                if let Err(e) = wrote {
                    return ControlFlow::Break(Halt::Write(e));
                }
                written += done.report.stats.records;
                WRITTEN.store(already + written, Ordering::SeqCst);
            }
            buffers.give(done.out);
            stats.merge(&done.report.stats);
            // `next_line[file]`: the line the next chunk of that file starts on.
            let start = if done.line_known {
                done.first_line
            } else {
                next_line[done.file]
            };
            let rebase = start - done.first_line;
            next_line[done.file] = start + done.report.lines;
            if !args.run.quiet {
                for m in &done.report.malformed {
                    if shown < MALFORMED_SHOWN {
                        progress.println(&format!(
                            "batchdoku: warning: {}:{}: malformed: {}",
                            names[done.file],
                            m.line + rebase,
                            m.error
                        ));
                        shown += 1;
                    }
                }
            }
            progress.advance(done.input_bytes as u64, stats.records, started);
            if done.report.complete {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(Halt::Interrupted)
            }
        },
    );
    progress.finish();
    let seconds = started.elapsed().as_secs_f64();

    // A Parquet output gets its footer now, complete or not, so a kept
    // partial file is a valid table of the records written. (Closing
    // writes through the output's lock, so before we take it.)
    let closed = match format {
        OutputFormat::Parquet => close_table(&output, parquet.take(), several),
        _ => Ok(()),
    };
    let result = match (result, closed) {
        (Ok(()), Err(e)) => Err(Stop::Sink(Halt::Write(io::Error::other(e.to_string())))),
        (r, _) => r,
    };
    // The Ctrl-C handler keeps its reference; it only locks, as we do.
    let mut output = lock(&output);
    // An input that ran out before the records already in the partial
    // output were all skipped is not the input that made them.
    let result = match (result, jobs.to_skip) {
        (Ok(()), 0) => Ok(()),
        (Ok(()), missing) => Err(Stop::Source(Halt::Read(anyhow::anyhow!(
            "the inputs hold only {} records but the partial output holds {already}: \
             they are not the inputs that made it",
            already - missing
        )))),
        (Err(e), _) => Err(e),
    };
    if let Err(stop) = result {
        let halt = match stop {
            Stop::Source(h) | Stop::Sink(h) => h,
        };
        // An npy output keeps the rows that both the array and its
        // statuses hold, as a valid array whose header says how many (a
        // failed write can leave either file longer than the other).
        let mut npy_rows = None;
        let flushed = match statuses.as_mut() {
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
                return Ok(ExitCode::SUCCESS);
            }
        }
        // Stopped by an input before any record was written, with none
        // from an earlier run: no partial file to keep or resume.
        if let (Halt::Read(e), 0, 0) = (&halt, already, written) {
            let discarded = output.discard();
            if let Some(side) = statuses.as_mut() {
                side.discard();
            }
            let nothing = if discarded { "; no output written" } else { "" };
            eprintln!("batchdoku: error: {e:#}{nothing}");
            return Ok(ExitCode::from(1));
        }
        let write_failed = matches!(halt, Halt::Write(_)) || flushed.is_err();
        // After a failed write, what reached the file is counted there.
        let held = match (write_failed, output.partial_path()) {
            _ if npy_rows.is_some() => npy_rows.flatten(),
            // Readable only if its footer made it to the disk.
            (true, Some(p)) if format == OutputFormat::Parquet => table_rows(p),
            (true, Some(p)) => std::fs::read(p)
                .ok()
                .map(|text| without_header(args.format, record_counter(args.format)(&text).0)),
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
        if !args.run.quiet {
            more_not_shown(stats.malformed, shown);
            print_summary(&stats, seconds, threads, solver);
        }
        return Ok(ExitCode::from(1));
    }

    if !header_written {
        // --keep-columns over inputs without a record.
        let mut header = Vec::new();
        write_header(args.format, several, &mut header);
        output
            .write_all(&header)
            .context("cannot write the output")?;
    }
    if let Some(side) = &mut statuses {
        patch_npy_header(&mut output, already + written)?;
        output.finish()?;
        side.finish()?;
    } else {
        output.finish()?;
    }
    if !args.run.quiet {
        more_not_shown(stats.malformed, shown);
        print_summary(&stats, seconds, threads, solver);
    }
    args.run
        .write_stats(&stats_json(&stats, seconds, threads, solver))?;
    if args.strict && stats.malformed + stats.invalid > 0 {
        eprintln!(
            "batchdoku: --strict: {} malformed and {} invalid records",
            stats.malformed, stats.invalid
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The statuses file beside an npy output: `OUT.status`.
fn status_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".status");
    PathBuf::from(name)
}

/// Splits npy chunk output (records of `NPY_RECORD` bytes: 81 cells, a
/// status index) between the array and the statuses file.
fn write_npy_records(chunk: &[u8], array: &mut Output, side: &mut Output) -> io::Result<()> {
    let mut rows = Vec::with_capacity(chunk.len());
    let mut words = Vec::with_capacity(chunk.len() / 8);
    for record in chunk.chunks_exact(NPY_RECORD) {
        rows.extend_from_slice(&record[..81]);
        words.extend_from_slice(Status::ALL[record[81] as usize].word().as_bytes());
        words.push(b'\n');
    }
    array.write_all(&rows)?;
    side.write_all(&words)
}

/// After a run stops early: cuts an npy output and its statuses file (both
/// closed) to the rows both hold, and writes the header for that many.
/// The rows kept, or `None` when the files cannot be read or the header
/// cannot be written.
fn settle_npy(array: &Output, side: &Output) -> Option<u64> {
    let (array, side) = (array.partial_path()?, side.partial_path()?);
    let header = crate::write::npy::OUTPUT_HEADER as u64;
    let in_array = std::fs::metadata(array).ok()?.len().saturating_sub(header) / 81;
    let words = std::fs::read(side).ok()?;
    let mut rows = 0u64;
    let mut words_end = 0;
    for (i, _) in words.iter().enumerate().filter(|&(_, &b)| b == b'\n') {
        if rows == in_array {
            break;
        }
        rows += 1;
        words_end = i + 1;
    }
    let open = |p: &Path| std::fs::OpenOptions::new().write(true).open(p);
    open(side).and_then(|f| f.set_len(words_end as u64)).ok()?;
    let mut f = open(array).ok()?;
    f.set_len(header + rows * 81).ok()?;
    use std::io::{Seek, SeekFrom, Write};
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.write_all(&crate::write::npy::output_header(rows)))
        .and_then(|_| f.sync_data())
        .ok()?;
    Some(rows)
}

/// The rows of the Parquet table at `path` by its footer; `None` when it
/// has none (cut off before the footer was written) or cannot be read.
fn table_rows(path: &Path) -> Option<u64> {
    let file = std::fs::File::open(path).ok()?;
    let reader = parquet::file::reader::SerializedFileReader::new(file).ok()?;
    use parquet::file::reader::FileReader;
    u64::try_from(reader.metadata().file_metadata().num_rows()).ok()
}

/// Writes the npy header with the final row count over the placeholder at
/// the top of the partial file (same length), before it is renamed.
fn patch_npy_header(output: &mut Output, rows: u64) -> anyhow::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    output.flush().context("cannot write the output")?;
    let Some(path) = output.partial_path() else {
        bail!("an npy output needs a file");
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.write_all(&crate::write::npy::output_header(rows)))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Malformed records warned about in full; the rest are counted.
const MALFORMED_SHOWN: u64 = 10;

/// The count of malformed records beyond those warned about in full.
fn more_not_shown(malformed: u64, shown: u64) {
    if malformed > shown {
        eprintln!(
            "batchdoku: warning: {} more malformed records not shown",
            malformed - shown
        );
    }
}

/// Locks the output, whether or not a thread panicked holding it (the
/// buffer is still whole records: the writer only adds whole chunks).
fn lock(output: &Mutex<Output>) -> std::sync::MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(|e| e.into_inner())
}

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
