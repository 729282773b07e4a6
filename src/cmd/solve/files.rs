//! The files a `solve` output is made of beyond its text: the Parquet
//! writer over the output (behind the lock a second Ctrl-C takes too), the
//! npy array and its statuses file, and how each is settled when a run
//! stops early or ends.

use crate::puzzle::Status;
use crate::read::parquet::TableError;
use crate::read::{count_csv_records, count_newlines};
use crate::write::output::{Output, RecordCounter};
use crate::write::parquet::results_schema;
use crate::write::{kept_names, unique_kept_names, KeepColumns, OutputFormat, NPY_RECORD};
use anyhow::{bail, Context};
use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The output file seen by the Parquet writer: writes go through the lock
/// the second Ctrl-C takes too.
pub(super) struct SharedOutput(pub(super) Arc<Mutex<Output>>);

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
pub(super) const ROW_GROUP_ROWS: usize = 128 << 10;

/// A Parquet writer over the output with the schema of the first batch.
pub(super) fn table_writer(
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
pub(super) fn close_table(
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
pub(super) fn chunk_schema(
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

/// The statuses file beside an npy output: `OUT.status`.
pub(super) fn status_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".status");
    PathBuf::from(name)
}

/// Splits npy chunk output (records of `NPY_RECORD` bytes: 81 cells, a
/// status index) between the array and the statuses file.
pub(super) fn write_npy_records(
    chunk: &[u8],
    array: &mut Output,
    side: &mut Output,
) -> io::Result<()> {
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
pub(super) fn settle_npy(array: &Output, side: &Output) -> Option<u64> {
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
pub(super) fn table_rows(path: &Path) -> Option<u64> {
    crate::read::parquet::table_rows(path).ok()
}

/// Writes the npy header with the final row count over the placeholder at
/// the top of the partial file (same length), before it is renamed.
pub(super) fn patch_npy_header(output: &mut Output, rows: u64) -> anyhow::Result<()> {
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

/// Locks the output, whether or not a thread panicked holding it (the
/// buffer is still whole records: the writer only adds whole chunks).
pub(super) fn lock(output: &Mutex<Output>) -> std::sync::MutexGuard<'_, Output> {
    output.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whole records in an output of `format` and the length they fill.
pub(super) fn record_counter(format: OutputFormat) -> RecordCounter {
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
pub(super) fn without_header(format: OutputFormat, records: u64) -> u64 {
    records - u64::from(format == OutputFormat::Csv && records > 0)
}
