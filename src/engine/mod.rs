//! The record engine's inputs, shared by the command line (`solve`, `rate`,
//! `verify`) and the Python package: files and standard input, cut into
//! jobs of whole records that a pool can work on in any order.
//!
//! - [`Source`]: one input, looked at up front (`-` is standard input) and
//!   opened only when read: a regular file is memory-mapped, anything else
//!   is read as a stream in bounded memory (a gzip, zstd or bzip2 file through
//!   its decoder), a Parquet table is read by row ranges. A folder stands
//!   for its data files ([`open_sources`]).
//! - [`Jobs`]: an iterator over the [`Job`]s of several sources in order,
//!   each a chunk of whole records (its bytes, form, first line number and
//!   input), with records skipped first for a resumed run and a stop flag
//!   checked between jobs. Feed it to [`crate::engine::pipeline::run_ordered`]; a
//!   worker calls [`Job::load`], then reads the job's records with
//!   [`crate::read::records`].
//!
//! ```no_run
//! use batchdoku::engine::{open_sources, Jobs};
//! use batchdoku::read::records;
//! let sources = open_sources(&["puzzles.txt".into()])?;
//! let mut puzzles = 0;
//! for job in Jobs::new(&sources, None, 1, true, 0) {
//!     let job = job.map_err(|h| anyhow::anyhow!("{h:?}"))?.load(&sources)?;
//!     puzzles += records(&job.data, job.first_line, job.format).count();
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```

pub mod pairs;
pub mod pipeline;
pub mod solve;

use crate::read::compressed::{decompressed, Codec};
use crate::read::folders::{file_id, input_files};
use crate::read::mapfile::MappedFile;
use crate::read::parquet::{looks_like_parquet, RowRange, TableSource};
use crate::read::{
    detect_layout, skip_records, ChunkCursor, ColumnSpec, CsvLayout, InputFormat, StreamChunks,
};
use anyhow::{bail, Context};
use std::fs::File;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A stop flag that is never set: the default of [`Jobs`].
static NEVER: AtomicBool = AtomicBool::new(false);

/// The smallest chunk: 4 KiB, about 50 puzzles.
const SMALLEST_CHUNK: usize = 4 << 10;

/// Input bytes per chunk at most: about 8 chunks per thread so hard and
/// easy stretches even out, between 4 KiB and 256 KiB (about 3,000 puzzles:
/// enough to amortise scheduling). Toward the end of an input chunks shrink
/// to a quarter of a thread's share of what is left, down to 4 KiB, so the
/// threads finish together (see `ChunkCursor::shrinking`). Each chunk
/// costs a hand-off to the writer thread (tens of microseconds on two
/// cores while it writes), so no more of them than that.
pub fn chunk_bytes(input: usize, threads: usize) -> usize {
    (input / (threads * 8)).clamp(SMALLEST_CHUNK, 256 << 10)
}

/// Bytes at the top of an input looked at for NUL bytes.
const BINARY_PROBE: usize = 64 << 10;

/// The names `--input` takes: `auto`, then each [`forced_format`] knows.
pub const INPUT_FORMS: [&str; 7] = [
    "auto",
    "line",
    "pencilmark",
    "grid",
    "csv",
    "npy",
    "parquet",
];

/// The form `--input NAME` asks for (`None` for `auto`: detect per input).
pub fn forced_format(input: &str) -> Option<InputFormat> {
    match input {
        "line" => Some(InputFormat::Line),
        "pencilmark" => Some(InputFormat::Pencilmark),
        "grid" => Some(InputFormat::Grid),
        // The column and the element type come from the input itself.
        "csv" => Some(InputFormat::Csv(CsvLayout { column: 0 })),
        "npy" => Some(InputFormat::Npy(crate::read::npy::Dtype {
            size: 1,
            signed: false,
            big_endian: false,
        })),
        // A table's column, packed as rows: how Parquet is read.
        "parquet" => Some(InputFormat::Rows),
        _ => None,
    }
}

/// Looks at the named inputs in order (none means standard input); each
/// is opened only when it is read, so any number of files can be named. A
/// folder stands for its data files ([`folder_files`](crate::read::folders::folder_files)): the output of
/// Spark, Hive or Hadoop is a folder of part files.
pub fn open_sources(files: &[PathBuf]) -> anyhow::Result<Vec<Source>> {
    let stdin = [PathBuf::from("-")];
    let paths = if files.is_empty() { &stdin[..] } else { files };
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be named only once");
    }
    let mut sources = Vec::with_capacity(paths.len());
    for path in paths {
        for file in input_files(path)? {
            sources.push(Source::open(&file)?);
        }
    }
    Ok(sources)
}

/// One input as the engine sees it: a regular file, memory-mapped when its
/// turn comes, or a stream read in pieces (standard input, a pipe, a FIFO,
/// a device, a `/proc` file: anything that is not a regular file with a
/// size, whose size says nothing of its contents).
pub struct Source {
    name: String,
    kind: SourceKind,
    /// What the input was when the run started (`None`: standard input).
    meta: Option<std::fs::Metadata>,
    /// A regular file's first four bytes (zeros past its end, and for
    /// anything else), read once: they tell compression and Parquet.
    magic: [u8; 4],
}

enum SourceKind {
    File(PathBuf),
    Stream(PathBuf),
    /// A compressed regular file, read as the stream of its contents.
    Compressed(PathBuf, Codec),
    Stdin,
}

impl Source {
    /// Looks at `path` (`-`: standard input) without opening it.
    pub fn open(path: &Path) -> anyhow::Result<Source> {
        if path.as_os_str() == "-" {
            return Ok(Source {
                name: "-".into(),
                kind: SourceKind::Stdin,
                meta: None,
                magic: [0; 4],
            });
        }
        let name = path.display().to_string();
        let meta = std::fs::metadata(path).with_context(|| format!("cannot open {name}"))?;
        if meta.is_dir() {
            bail!("{name} is a directory");
        }
        // Not a regular file, or one whose size says nothing (`/proc` files
        // read as 0 bytes): read it as a stream, never as an empty map.
        let mut magic = [0u8; 4];
        let kind = if meta.is_file() && meta.len() > 0 {
            // An unreadable file fails later, where it is read, with its error.
            let mut head = Vec::with_capacity(4);
            let _ = File::open(path).and_then(|f| f.take(4).read_to_end(&mut head));
            magic[..head.len()].copy_from_slice(&head);
            match Codec::of(&magic) {
                Some(codec) => SourceKind::Compressed(path.to_path_buf(), codec),
                None => SourceKind::File(path.to_path_buf()),
            }
        } else {
            SourceKind::Stream(path.to_path_buf())
        };
        Ok(Source {
            name,
            kind,
            meta: Some(meta),
            magic,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name in messages ("standard input" for `-`).
    pub fn described(&self) -> &str {
        match self.kind {
            SourceKind::Stdin => "standard input",
            _ => &self.name,
        }
    }

    /// Bytes known up front (0 for a stream), for the progress bar.
    pub fn mapped_len(&self) -> u64 {
        match (&self.kind, &self.meta) {
            (SourceKind::File(_), Some(m)) => m.len(),
            _ => 0,
        }
    }

    /// Maps the input if it is a regular file (`None` for a stream).
    pub fn map(&self) -> anyhow::Result<Option<Arc<MappedFile>>> {
        let SourceKind::File(path) = &self.kind else {
            return Ok(None);
        };
        let map = MappedFile::open(path).with_context(|| format!("cannot open {}", self.name))?;
        map.advise_sequential();
        Ok(Some(Arc::new(map)))
    }

    /// True when the input is to be read as a Parquet table: `forced`
    /// says so, or the name ends in `.parquet`, or the file opens with
    /// Parquet's magic bytes.
    pub fn is_parquet(&self, forced: Option<InputFormat>) -> bool {
        if forced == Some(InputFormat::Rows) {
            return true;
        }
        if forced.is_some() {
            return false;
        }
        let SourceKind::File(path) = &self.kind else {
            return false;
        };
        let named = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet"));
        named || looks_like_parquet(&self.magic)
    }

    /// Opens a Parquet input and finds its puzzle column (see
    /// [`TableSource::open`]), to be read from row `from`. A stream cannot
    /// be read: Parquet's index is at the end of the file.
    pub fn table(
        &self,
        column: Option<&ColumnSpec>,
        preferred: &[&str],
        what: &str,
        keep_others: bool,
        from: u64,
    ) -> anyhow::Result<TableSource> {
        TableSource::open(
            self.table_path()?,
            column,
            preferred,
            what,
            keep_others,
            from,
        )
        .with_context(|| format!("{}: cannot read it as Parquet", self.described()))
    }

    /// The column names of a Parquet input.
    pub fn table_names(&self) -> anyhow::Result<Vec<String>> {
        crate::read::parquet::column_names(self.table_path()?)
            .with_context(|| format!("{}: cannot read it as Parquet", self.described()))
    }

    /// The path of a Parquet input; an error for a stream.
    fn table_path(&self) -> anyhow::Result<&Path> {
        match &self.kind {
            SourceKind::File(path) => Ok(path),
            _ => bail!(
                "{}: Parquet cannot be read from a stream (its index is at the end of the file); \
                 give the path of a Parquet file",
                self.described()
            ),
        }
    }

    /// Opens a stream input for reading. A stream that opens with a
    /// codec's magic number (`gzip -c data | batchdoku solve -`) is read
    /// decompressed, as a compressed file is.
    pub fn reader(&self) -> anyhow::Result<Box<dyn Read + Send>> {
        let sniffed = |r: Box<dyn Read + Send>| {
            decompressed(r).with_context(|| format!("cannot read {}", self.described()))
        };
        match &self.kind {
            SourceKind::Stdin => sniffed(Box::new(io::stdin())),
            SourceKind::Stream(path) => sniffed(Box::new(
                File::open(path).with_context(|| format!("cannot open {}", self.name))?,
            )),
            SourceKind::File(path) => Ok(Box::new(
                File::open(path).with_context(|| format!("cannot open {}", self.name))?,
            )),
            SourceKind::Compressed(path, codec) => {
                let file =
                    File::open(path).with_context(|| format!("cannot open {}", self.name))?;
                codec
                    .reader(file)
                    .with_context(|| format!("cannot decompress {}", self.name))
            }
        }
    }

    /// The file's device and inode, when it has them.
    pub fn file_id(&self) -> Option<(u64, u64)> {
        match &self.meta {
            Some(meta) => file_id(meta),
            None => std::fs::metadata("/dev/stdin")
                .ok()
                .as_ref()
                .and_then(file_id),
        }
    }

    /// What identifies this input for `--resume`: its path, size and
    /// modification time (a stream has only its name).
    pub fn identity(&self) -> serde_json::Value {
        match (&self.kind, &self.meta) {
            (SourceKind::File(path) | SourceKind::Compressed(path, _), Some(meta)) => {
                serde_json::json!({
                    "path": std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()),
                    "size": meta.len(),
                    "modified_ns": modified_ns(meta),
                })
            }
            _ => serde_json::json!({ "stream": self.name }),
        }
    }
}

/// The column names of a CSV input's header (`None` for other forms, or a
/// CSV without a header).
fn header_names(top: &[u8], format: InputFormat) -> Option<Arc<Vec<String>>> {
    let InputFormat::Csv(_) = format else {
        return None;
    };
    let header = crate::read::csv_header(top)?;
    let names = crate::read::csv_fields(header)
        .iter()
        .map(|f| String::from_utf8_lossy(f).trim().to_string())
        .collect();
    Some(Arc::new(names))
}

fn modified_ns(meta: &std::fs::Metadata) -> Option<u128> {
    meta.modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_nanos())
}

/// The bytes of a chunk of work: a range of a mapped file (shared with the
/// reading thread and the other chunks of that file), or owned bytes read
/// from a stream.
pub enum JobData {
    Mapped(Arc<MappedFile>, Range<usize>),
    Owned(Vec<u8>),
    /// Rows of a table, decoded by the worker that runs the job (see
    /// [`Job::load`]); no bytes until then.
    Table(Arc<TableSource>, RowRange),
    /// A table job's rows once decoded and packed, with the mapped table
    /// file they came from.
    Decoded(Arc<MappedFile>, Vec<u8>),
}

/// The columns of a table input other than the puzzles', for a job's rows
/// (kept by `--keep-columns`).
pub type Others = Option<arrow_array::RecordBatch>;

impl std::ops::Deref for JobData {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            JobData::Mapped(map, range) => &map.bytes()[range.clone()],
            JobData::Owned(v) | JobData::Decoded(_, v) => v,
            JobData::Table(..) => &[],
        }
    }
}

impl JobData {
    /// Drops the first `n` bytes.
    fn skip(self, n: usize) -> JobData {
        match self {
            JobData::Mapped(map, range) => JobData::Mapped(map, range.start + n..range.end),
            JobData::Owned(mut v) => {
                v.drain(..n);
                JobData::Owned(v)
            }
            JobData::Decoded(map, mut v) => {
                v.drain(..n);
                JobData::Decoded(map, v)
            }
            // Table jobs start past the rows --resume skips (see `start`).
            table @ JobData::Table(..) => table,
        }
    }

    /// What to check before trusting the bytes of this chunk.
    pub fn guard(&self) -> InputGuard {
        match self {
            JobData::Mapped(map, _) | JobData::Decoded(map, _) => InputGuard(Some(Arc::clone(map))),
            JobData::Owned(_) | JobData::Table(..) => InputGuard(None),
        }
    }
}

/// Kept with a chunk's results until they are written: for a chunk of a
/// mapped file (a table's included), the map, to check that the file did
/// not shrink meanwhile.
pub struct InputGuard(Option<Arc<MappedFile>>);

impl InputGuard {
    /// Ok while the bytes read can be trusted: a mapped file that shrank
    /// while being read gave zeros for what was cut off.
    pub fn check(&self, source: &Source) -> anyhow::Result<()> {
        match &self.0 {
            Some(map) => map.check().with_context(|| source.described().to_string()),
            None => Ok(()),
        }
    }
}

/// A chunk of work.
pub struct Job {
    pub data: JobData,
    /// Line number of the chunk's first line when `line_known`; else the
    /// chunk continues where the previous chunk of its file ended, and its
    /// records are numbered from 1 and rebased when written.
    pub first_line: u64,
    pub line_known: bool,
    pub format: InputFormat,
    pub file: usize,
    /// The column names of a CSV input's header.
    pub header: Option<Arc<Vec<String>>>,
    /// A table input's other columns for these rows, when kept.
    pub others: Others,
    /// How far through its input the job ends, in the input's bytes, for
    /// the progress bar.
    pub progress_bytes: usize,
}

impl Job {
    /// Makes the job's bytes ready: decodes a table job's rows (on the
    /// worker that runs it, so tables are decoded in parallel); other jobs
    /// are ready as they are.
    pub fn load(mut self, sources: &[Source]) -> anyhow::Result<Job> {
        if let JobData::Table(table, range) = &self.data {
            let rows = table
                .read(*range)
                .with_context(|| format!("cannot read {}", sources[self.file].described()))?;
            self.data = JobData::Decoded(Arc::clone(table.map()), rows.packed);
            self.others = rows.others;
        }
        Ok(self)
    }
}

/// Why the job stream stopped.
#[derive(Debug)]
pub enum Halt {
    Interrupted,
    Read(anyhow::Error),
    Write(io::Error),
}

/// The input being read now.
enum Reading {
    Mapped {
        map: Arc<MappedFile>,
        cursor: ChunkCursor,
    },
    Stream {
        chunks: StreamChunks<Box<dyn Read + Send>>,
        format: InputFormat,
        /// An npy array's rows by its header, and the bytes of rows read:
        /// compared at the end, as a mapped array's are at the start.
        npy_rows: Option<u64>,
        bytes: u64,
    },
    /// A Parquet table, cut into row ranges that workers decode.
    Table {
        table: Arc<TableSource>,
        /// The first row of the next job.
        next: u64,
        /// Rows per job at most.
        most: usize,
        /// The file's size, shared out over its rows for progress.
        bytes: u64,
    },
}

/// Rows per job from a table: like [`chunk_bytes`], counted in rows of
/// about 85 packed bytes, shrinking toward the end.
fn table_rows(left: u64, threads: usize, most: usize) -> usize {
    let share = (left / (threads as u64 * 4)).max(1) as usize;
    share.clamp(SMALLEST_CHUNK / 85, most)
}

/// Produces the jobs of all inputs in order, skipping `to_skip` records
/// first (for --resume). Inputs are opened one at a time; a mapped file
/// stays mapped while chunks of it are in flight.
pub struct Jobs<'a> {
    sources: &'a [Source],
    forced: Option<InputFormat>,
    threads: usize,
    /// Whether chunks are numbered as they are cut: needed when output
    /// records carry line numbers (csv, jsonl), since workers write them,
    /// and when resuming. Otherwise workers number from 1 and the writer
    /// rebases, which spares this thread a pass over every input byte.
    count_lines: bool,
    /// `--column`: where the puzzles are in CSV inputs.
    column: Option<ColumnSpec>,
    /// Says what is odd about an input (`None`: nothing is said).
    warn: Option<Box<dyn FnMut(String) + 'a>>,
    /// Set to stop: no job is handed out after it.
    stop: &'static AtomicBool,
    /// Read a table input's other columns too (`--keep-columns`).
    keep_others: bool,
    /// Records still to skip (--resume).
    pub to_skip: u64,
    current: usize,
    reading: Option<Reading>,
    /// The current input's CSV header, when it has one.
    header: Option<Arc<Vec<String>>>,
}

impl<'a> Jobs<'a> {
    /// The jobs of `sources` in order. `count_lines`: number every chunk as
    /// it is cut (see the field); `to_skip`: records to leave out first.
    pub fn new(
        sources: &'a [Source],
        forced: Option<InputFormat>,
        threads: usize,
        count_lines: bool,
        to_skip: u64,
    ) -> Self {
        Jobs {
            sources,
            forced,
            threads,
            count_lines,
            column: None,
            warn: None,
            stop: &NEVER,
            keep_others: false,
            to_skip,
            current: 0,
            reading: None,
            header: None,
        }
    }

    /// Reads the puzzles of CSV and Parquet inputs from this column
    /// (`--column`).
    pub fn with_column(mut self, column: Option<ColumnSpec>) -> Self {
        self.column = column;
        self
    }

    /// Passes warnings about inputs (an npy file whose size disagrees with
    /// its header) to `warn`.
    pub fn with_warnings(mut self, warn: impl FnMut(String) + 'a) -> Self {
        self.warn = Some(Box::new(warn));
        self
    }

    /// Stops handing out jobs once `stop` is set: the next call gives
    /// [`Halt::Interrupted`].
    pub fn with_stop(mut self, stop: &'static AtomicBool) -> Self {
        self.stop = stop;
        self
    }

    /// Reads the other columns of table inputs too, for `--keep-columns`.
    pub fn keeping_others(mut self, keep: bool) -> Self {
        self.keep_others = keep;
        self
    }

    /// The next chunk of the current input, before any skipping.
    fn next_raw(&mut self) -> Option<Result<Job, Halt>> {
        loop {
            if self.current >= self.sources.len() {
                return None;
            }
            let file = self.current;
            match &mut self.reading {
                Some(Reading::Mapped { map, cursor }) => {
                    let first_of_file = cursor.at_start();
                    let format = cursor.format();
                    if let Some((range, first_line)) = cursor.next_range(map.bytes()) {
                        let progress_bytes = range.len();
                        return Some(Ok(Job {
                            data: JobData::Mapped(Arc::clone(map), range),
                            first_line,
                            line_known: first_of_file || self.count_lines,
                            format,
                            file,
                            header: self.header.clone(),
                            others: None,
                            progress_bytes,
                        }));
                    }
                }
                Some(Reading::Stream {
                    chunks,
                    format,
                    npy_rows,
                    bytes,
                }) => match chunks.next_chunk() {
                    Ok(Some(c)) => {
                        let progress_bytes = c.data.len();
                        *bytes += progress_bytes as u64;
                        return Some(Ok(Job {
                            data: JobData::Owned(c.data),
                            first_line: c.first_line,
                            line_known: true,
                            format: *format,
                            file,
                            header: self.header.clone(),
                            others: None,
                            progress_bytes,
                        }));
                    }
                    Ok(None) => {
                        if let (Some(rows), InputFormat::Npy(dtype)) = (*npy_rows, *format) {
                            let held = *bytes as f64 / dtype.row_bytes() as f64;
                            if held != rows as f64 {
                                if let Some(warn) = &mut self.warn {
                                    warn(format!(
                                        "{}: the header says {rows} rows, the stream holds {held:.2}",
                                        self.sources[file].described(),
                                    ));
                                }
                            }
                        }
                    }
                    Err(e) => {
                        let e = anyhow::Error::new(e)
                            .context(format!("cannot read {}", self.sources[file].described()));
                        return Some(Err(self.stop(e)));
                    }
                },
                Some(Reading::Table {
                    table,
                    next,
                    most,
                    bytes,
                }) => {
                    let total = table.rows();
                    let want = table_rows(total - *next, self.threads, *most);
                    if let Some(range) = table.range(*next, want) {
                        *next += range.rows as u64;
                        let share = *bytes as f64 * range.rows as f64 / total.max(1) as f64;
                        return Some(Ok(Job {
                            data: JobData::Table(Arc::clone(table), range),
                            first_line: range.first_row,
                            line_known: true,
                            format: InputFormat::Rows,
                            file,
                            header: None,
                            others: None,
                            progress_bytes: share as usize,
                        }));
                    }
                }
                None => {
                    if let Err(e) = self.start(file) {
                        return Some(Err(self.stop(e)));
                    }
                    continue;
                }
            }
            // The current input is done.
            self.reading = None;
            self.current += 1;
        }
    }

    /// Opens input `file` and looks at its top.
    fn start(&mut self, file: usize) -> anyhow::Result<()> {
        let source = &self.sources[file];
        if source.is_parquet(self.forced) {
            let table = source
                .table(
                    self.column.as_ref(),
                    &crate::read::PUZZLE_COLUMNS,
                    "puzzles",
                    self.keep_others,
                    self.to_skip,
                )?
                // A page a job, one decoder per thread: no worker waits
                // while another decompresses a page.
                .in_lanes(self.threads);
            // --resume: the rows to skip are never decoded.
            let from = self.to_skip.min(table.rows());
            self.to_skip -= from;
            let most = chunk_bytes(table.rows() as usize * 85, self.threads) / 85;
            self.header = None;
            self.reading = Some(Reading::Table {
                table: Arc::new(table),
                next: from,
                most: most.max(1),
                bytes: source.mapped_len(),
            });
            return Ok(());
        }
        if let Some(map) = source.map()? {
            let data = map.bytes();
            self.refuse_binary(source, data)?;
            let d = detect_layout(data, self.forced, self.column.as_ref())
                .with_context(|| source.described().to_string())?;
            self.header = header_names(data, d.format);
            if let Ok(h) = crate::read::npy::parse_header(data) {
                // Every row is a record; say so when the bytes and the
                // header's row count disagree (a cut or padded file).
                let held = (data.len() - h.data_offset) as f64 / h.dtype.row_bytes() as f64;
                if held != h.rows as f64 {
                    if let Some(warn) = &mut self.warn {
                        warn(format!(
                            "{}: the header says {} rows, the file holds {held:.2}",
                            source.described(),
                            h.rows
                        ));
                    }
                }
            }
            let cursor = ChunkCursor::new(
                d.first_line,
                d.format,
                chunk_bytes(data.len(), self.threads),
            )
            .starting_at(d.start)
            .shrinking(self.threads * 4, SMALLEST_CHUNK);
            let cursor = if self.count_lines {
                cursor
            } else {
                cursor.without_line_numbers()
            };
            self.reading = Some(Reading::Mapped { map, cursor });
            return Ok(());
        }
        let mut chunks = StreamChunks::new(source.reader()?);
        let (top, _) = chunks
            .top()
            .with_context(|| format!("cannot read {}", source.described()))?;
        if looks_like_parquet(top) {
            // Says why a stream cannot be read as Parquet.
            source.table(None, &[], "puzzles", false, 0)?;
        }
        self.refuse_binary(source, top)?;
        let d = detect_layout(top, self.forced, self.column.as_ref())
            .with_context(|| source.described().to_string())?;
        self.header = header_names(top, d.format);
        let npy_rows = match d.format {
            InputFormat::Npy(_) => crate::read::npy::parse_header(top).ok().map(|h| h.rows),
            _ => None,
        };
        chunks.consume(d.start);
        chunks.set_framing(d.format.into());
        if let InputFormat::Csv(_) | InputFormat::Npy(_) = d.format {
            chunks.number_rows_from(d.first_line);
        }
        self.reading = Some(Reading::Stream {
            chunks,
            format: d.format,
            npy_rows,
            bytes: 0,
        });
        Ok(())
    }

    /// Ends the run after an error.
    fn stop(&mut self, e: anyhow::Error) -> Halt {
        self.current = self.sources.len();
        self.reading = None;
        Halt::Read(e)
    }

    /// Like ripgrep, takes NUL bytes near the top for a binary file and
    /// refuses it (unless `--input line` insists): a binary read as
    /// puzzles gives hundreds of malformed records and no answer.
    fn refuse_binary(&self, source: &Source, top: &[u8]) -> anyhow::Result<()> {
        let head = &top[..top.len().min(BINARY_PROBE)];
        let array = top.starts_with(crate::read::npy::MAGIC);
        if array || self.forced == Some(InputFormat::Line) || memchr::memchr(0, head).is_none() {
            return Ok(());
        }
        bail!(
            "{} looks like a binary file (it holds NUL bytes); --input line reads it anyway",
            source.described()
        )
    }
}

impl Iterator for Jobs<'_> {
    type Item = Result<Job, Halt>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Some(Err(Halt::Interrupted));
            }
            let mut job = match self.next_raw() {
                Some(Ok(job)) => job,
                Some(Err(e)) => return Some(Err(e)),
                // A stop that came while a read was blocked (standard input
                // at a terminal or a pipe) is an interruption even when that
                // read then met the end of the input.
                None if self.stop.load(Ordering::Relaxed) => return Some(Err(Halt::Interrupted)),
                None => return None,
            };
            if self.to_skip == 0 {
                return Some(Ok(job));
            }
            // Resuming numbers every chunk (see `count_lines`), so
            // `first_line` is real here.
            let (skipped, pos, line) =
                skip_records(&job.data, job.first_line, job.format, self.to_skip);
            self.to_skip -= skipped;
            if pos < job.data.len() {
                job.data = job.data.skip(pos);
                job.first_line = line;
                return Some(Ok(job));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stop that comes while the reader is blocked on a pipe that then
    /// ends with nothing more: the jobs end as interrupted, not as a
    /// finished input (the run is reported interrupted and its partial
    /// kept, whichever thread the signal happened to reach).
    #[cfg(unix)]
    #[test]
    fn a_stop_while_a_read_blocks_ends_as_an_interruption() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("first.txt");
        std::fs::write(&file, [&[b'.'; 81][..], b"\n"].concat()).unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let pipe = File::create(&fifo).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                STOP.store(true, Ordering::SeqCst);
                // The pipe closes with nothing written: the blocked read
                // meets the end of the last input.
                drop(pipe);
            })
        };
        let sources = open_sources(&[file, fifo]).unwrap();
        // Up to the first halt (after a stop, every call gives one).
        let mut jobs = Jobs::new(&sources, None, 1, true, 0).with_stop(&STOP);
        let mut read = 0;
        let end = loop {
            match jobs.next() {
                Some(Ok(_)) => read += 1,
                other => break other,
            }
        };
        writer.join().unwrap();
        assert_eq!(read, 1);
        assert!(
            matches!(end, Some(Err(Halt::Interrupted))),
            "{:?}",
            end.map(|e| e.err())
        );
    }
}
