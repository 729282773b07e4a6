//! Parquet tables: reading a column of puzzles (or answers) a batch of
//! rows at a time (results are written by [`crate::write::parquet`]). The column holds
//! text, or lists of digits (81 integers, or nine lists of nine), read as
//! the text of their cells.
//!
//! Reading decodes the chosen column (and, for `--keep-columns`, the others)
//! with the Apache Arrow project's `parquet` crate, row group by row group,
//! a batch at a time, so the memory decoding takes stays bounded by the
//! batch and not the file; a plain text column (the common case, see
//! [`text_pages`]) is decoded page by page by our own decoder instead. The file is mapped, as line files are, and the
//! decoders read its pages out of the map (watched for truncation like any
//! [`MappedFile`]: check before trusting decoded rows).
//! The text rows are packed into [`InputFormat::Rows`] bytes, which the
//! engine cuts and parses like any other input: every row is a record, a
//! null or blank row included, numbered by row index from 0.
//!
//! [`InputFormat::Rows`]: crate::read::InputFormat::Rows

use crate::read::mapfile::{Changed, MappedFile};
use crate::read::{ColumnSpec, RowPacker, PACKED_PUZZLE};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};
use parquet::arrow::ProjectionMask;
use parquet::column::page::PageReader;
use parquet::file::serialized_reader::SerializedPageReader;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

mod footer;
mod page_header;
mod text_pages;
mod thrift;

#[cfg(test)]
use page_header::page_header_len;
use page_header::PageBytes;
use std::sync::atomic::{AtomicU64, Ordering};
use text_pages::{Codec, Dictionary, TextPages};

/// The first (and last) four bytes of a Parquet file.
pub const MAGIC: &[u8; 4] = b"PAR1";

/// True when `data` starts like a Parquet file.
pub fn looks_like_parquet(data: &[u8]) -> bool {
    data.starts_with(MAGIC)
}

/// Why a table cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file holds no usable column (named in the message).
    #[error("{0}")]
    Layout(String),
    #[error(transparent)]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error(transparent)]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Runs `decode`, a call into the parquet crate over the file's bytes,
/// turning a panic in it into an error that names the panic.
///
/// Why: parquet 59 asserts some facts of a page's contents instead of
/// checking them (a dictionary page's index width over 32 bits, found by
/// the fuzz target, fails `assert!(num_bits <= T::BIT_CAPACITY)` in its
/// bit reader), so a damaged file would end the whole run. Every build of
/// batchdoku unwinds on panic (`panic = "unwind"`, see Cargo.toml) for
/// this. The panic's message goes into the error instead of standard
/// error: [`quiet_panics`] keeps the hook from printing it.
fn guarded<T>(decode: impl FnOnce() -> Result<T, TableError>) -> Result<T, TableError> {
    quiet_panics();
    QUIET.with(|q| q.set(q.get() + 1));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode));
    QUIET.with(|q| q.set(q.get() - 1));
    result.unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_string());
        Err(TableError::Layout(format!(
            "the parquet reader failed on a damaged page ({why})"
        )))
    })
}

thread_local! {
    /// How many [`guarded`] calls this thread is inside.
    static QUIET: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Installs, once, a panic hook that stays silent for panics inside
/// [`guarded`] (which reports them as errors) and hands every other panic
/// to the hook that was there before (the default one, or a host's, such
/// as the fuzzer's or Python's).
fn quiet_panics() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(|q| q.get()) == 0 {
                before(info);
            }
        }));
    });
}

/// True for the column types read as text: strings, binaries and
/// dictionaries of them (pandas categoricals).
pub fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => true,
        DataType::Dictionary(_, values) => is_text(values),
        _ => false,
    }
}

/// The type of a list's items, for the list types.
fn list_item(t: &DataType) -> Option<&DataType> {
    match t {
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            Some(item.data_type())
        }
        _ => None,
    }
}

/// True for lists of integers and lists of lists of integers: a puzzle as
/// its 81 digits or as nine rows of nine (how ML datasets and Spark's
/// `array<int>` columns hold them), 0 for blanks.
fn is_digit_list(t: &DataType) -> bool {
    match list_item(t) {
        Some(item) => item.is_integer() || list_item(item).is_some_and(DataType::is_integer),
        None => false,
    }
}

/// True for the column types a puzzle (or an answer) is read from.
fn is_puzzle_column(t: &DataType) -> bool {
    is_text(t) || is_digit_list(t)
}

/// The column of `schema` that `spec` names (a name, ignoring case, or a
/// number from 1), else the first named one of `preferred`, else the only
/// column of text or digit lists. `what` says what the column holds, for
/// messages.
pub fn choose_column(
    schema: &Schema,
    spec: Option<&ColumnSpec>,
    preferred: &[&str],
    what: &str,
) -> Result<usize, TableError> {
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let listed = || {
        schema
            .fields()
            .iter()
            .map(|f| format!("{} ({})", f.name(), f.data_type()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let by_name = |name: &str| {
        names
            .iter()
            .position(|n| n.trim().eq_ignore_ascii_case(name.trim()))
    };
    let k = match spec {
        Some(ColumnSpec::Number(n)) => (*n <= names.len()).then(|| n - 1).ok_or_else(|| {
            TableError::Layout(format!(
                "no column {n}: the table has {} columns: {}",
                names.len(),
                listed()
            ))
        })?,
        Some(ColumnSpec::Name(name)) => by_name(name).ok_or_else(|| {
            TableError::Layout(format!(
                "no column named {name:?}; the table has {}",
                listed()
            ))
        })?,
        None => {
            let text: Vec<usize> = (0..names.len())
                .filter(|&i| is_puzzle_column(schema.field(i).data_type()))
                .collect();
            match preferred.iter().find_map(|p| by_name(p)) {
                Some(k) => k,
                None if text.len() == 1 => text[0],
                None => {
                    return Err(TableError::Layout(format!(
                        "cannot tell which column holds the {what}; name it with --column NAME \
                         or --column N (the table has {})",
                        listed()
                    )))
                }
            }
        }
    };
    let field = schema.field(k);
    if !is_puzzle_column(field.data_type()) {
        return Err(TableError::Layout(format!(
            "column {:?} holds {}, not text: the {what} must be strings of 81 cells \
             (or lists of 81 digits, or of nine lists of nine)",
            field.name(),
            field.data_type()
        )));
    }
    Ok(k)
}

/// Calls `each` with every row of a text array: its bytes, or `None` for a
/// null; a list of digits as the text of its cells (see
/// [`for_each_digit_list`]). Any other type gives `None` for every row.
pub fn for_each_text(array: &dyn Array, each: &mut dyn FnMut(Option<&[u8]>)) {
    fn rows<'a>(it: impl Iterator<Item = Option<&'a [u8]>>, each: &mut dyn FnMut(Option<&[u8]>)) {
        it.for_each(each);
    }
    match array.data_type() {
        DataType::Utf8 => rows(
            array
                .as_string::<i32>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            each,
        ),
        DataType::LargeUtf8 => rows(
            array
                .as_string::<i64>()
                .iter()
                .map(|v| v.map(str::as_bytes)),
            each,
        ),
        DataType::Utf8View => rows(
            array.as_string_view().iter().map(|v| v.map(str::as_bytes)),
            each,
        ),
        DataType::Binary => rows(array.as_binary::<i32>().iter(), each),
        DataType::LargeBinary => rows(array.as_binary::<i64>().iter(), each),
        DataType::BinaryView => rows(array.as_binary_view().iter(), each),
        DataType::FixedSizeBinary(_) => rows(array.as_fixed_size_binary().iter(), each),
        DataType::Dictionary(_, _) => {
            let dict = array.as_any_dictionary();
            // Each distinct value once, then the rows by key.
            let mut values: Vec<Option<Vec<u8>>> = Vec::with_capacity(dict.values().len());
            for_each_text(dict.values().as_ref(), &mut |v| {
                values.push(v.map(<[u8]>::to_vec))
            });
            let keys = dict.normalized_keys();
            for (row, key) in keys.into_iter().enumerate() {
                if array.is_null(row) {
                    each(None);
                } else {
                    each(values.get(key).and_then(|v| v.as_deref()));
                }
            }
        }
        t if is_digit_list(t) => for_each_digit_list(array, each),
        _ => (0..array.len()).for_each(|_| each(None)),
    }
}

/// Each row of a list array as the range of its items in the list's
/// values (`None` for a null row), and those values.
fn list_rows(array: &dyn Array) -> Option<(Vec<Option<std::ops::Range<usize>>>, ArrayRef)> {
    fn ranges<O: Copy + TryInto<usize>>(
        offsets: &[O],
        valid: impl Fn(usize) -> bool,
    ) -> Vec<Option<std::ops::Range<usize>>> {
        offsets
            .windows(2)
            .enumerate()
            .map(|(i, w)| match (w[0].try_into(), w[1].try_into()) {
                (Ok(a), Ok(b)) if valid(i) && a <= b => Some(a..b),
                _ => None,
            })
            .collect()
    }
    match array.data_type() {
        DataType::List(_) => {
            let list = array.as_list::<i32>();
            Some((
                ranges(list.value_offsets(), |i| list.is_valid(i)),
                Arc::clone(list.values()),
            ))
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>();
            Some((
                ranges(list.value_offsets(), |i| list.is_valid(i)),
                Arc::clone(list.values()),
            ))
        }
        DataType::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list();
            let n = usize::try_from(list.value_length()).unwrap_or(0);
            let rows = (0..list.len())
                .map(|i| {
                    let start = usize::try_from(list.value_offset(i)).unwrap_or(0);
                    list.is_valid(i).then_some(start..start + n)
                })
                .collect();
            Some((rows, Arc::clone(list.values())))
        }
        _ => None,
    }
}

/// Calls `each` with every row of a list column of digits ([`is_digit_list`])
/// as the text of its cells, which the parser then reads like a line: a
/// digit 0-9 as its character, any other value or a null cell as `?` (so the
/// record is malformed, naming the column), a row of nine of another length
/// as nine `?`; a list of the wrong length as that many characters (at most
/// 82, so never a 729-character pencilmark line), a null list as `None`.
fn for_each_digit_list(array: &dyn Array, each: &mut dyn FnMut(Option<&[u8]>)) {
    let Some((rows, values)) = list_rows(array) else {
        return (0..array.len()).for_each(|_| each(None));
    };
    // Nine rows of nine: the puzzle's items are themselves lists.
    let lines = list_rows(values.as_ref());
    let cells = match &lines {
        Some((_, cells)) => integers(cells.as_ref()),
        None => integers(values.as_ref()),
    }
    .unwrap_or_default();
    let digit = |k: usize| match cells.get(k) {
        Some(Some(v @ 0..=9)) => b'0' + *v as u8,
        _ => b'?',
    };
    let mut text = Vec::with_capacity(90);
    for row in rows {
        let Some(row) = row else {
            each(None);
            continue;
        };
        text.clear();
        match &lines {
            None => text.extend(row.take(82).map(digit)),
            Some((lines, _)) => {
                for line in lines.get(row).unwrap_or_default().iter().take(10) {
                    match line {
                        Some(line) if line.len() == 9 => text.extend(line.clone().map(digit)),
                        _ => text.extend_from_slice(b"?????????"),
                    }
                }
            }
        }
        each(Some(&text));
    }
}

/// The values of an integer column (any width, signed or not), `None`
/// for nulls; `None` when the column is not of integers.
pub fn integers(array: &dyn Array) -> Option<Vec<Option<i64>>> {
    use arrow_array::types::*;
    fn all<T: arrow_array::ArrowPrimitiveType>(a: &dyn Array) -> Vec<Option<i64>>
    where
        T::Native: TryInto<i64>,
    {
        a.as_primitive::<T>()
            .iter()
            .map(|v| v.and_then(|v| v.try_into().ok()))
            .collect()
    }
    Some(match array.data_type() {
        DataType::Int8 => all::<Int8Type>(array),
        DataType::Int16 => all::<Int16Type>(array),
        DataType::Int32 => all::<Int32Type>(array),
        DataType::Int64 => all::<Int64Type>(array),
        DataType::UInt8 => all::<UInt8Type>(array),
        DataType::UInt16 => all::<UInt16Type>(array),
        DataType::UInt32 => all::<UInt32Type>(array),
        DataType::UInt64 => all::<UInt64Type>(array),
        _ => return None,
    })
}

/// How every table is read: column types from the Parquet schema alone.
///
/// Writers such as pyarrow also store an Arrow schema in the footer
/// (`ARROW:schema`, an IPC flatbuffer), but the `arrow-ipc` crate panics
/// (`unimplemented!`, `panic!`) on many malformed ones instead of returning
/// an error, and with `panic = "abort"` that would end the program on a
/// damaged file. The Parquet types give the same values: strings of any
/// Arrow flavour (large, view, dictionary) read as strings, integers,
/// floats, decimals, dates and timestamps as such; only Arrow-only details
/// (a dictionary encoding, a time zone's name) are not carried into kept
/// columns.
fn reader_options() -> ArrowReaderOptions {
    ArrowReaderOptions::new().with_skip_arrow_metadata(true)
}

/// The footer of the Parquet file at `path`: its row groups and schema.
fn footer(path: &Path) -> Result<ArrowReaderMetadata, TableError> {
    load_footer(&mapped(path)?.1)
}

/// The file at `path` mapped, and its bytes as the parquet crate reads
/// them.
fn mapped(path: &Path) -> Result<(Arc<MappedFile>, bytes::Bytes), TableError> {
    let map = Arc::new(
        MappedFile::open(path).map_err(|e| parquet::errors::ParquetError::External(Box::new(e)))?,
    );
    let bytes = bytes::Bytes::from_owner(SharedMap(Arc::clone(&map)));
    Ok((map, bytes))
}

/// The footer of the Parquet file `bytes`, read by the parquet crate once
/// [`footer::check_footer`] has walked it.
fn load_footer(bytes: &bytes::Bytes) -> Result<ArrowReaderMetadata, TableError> {
    footer::check_footer(bytes).map_err(TableError::Layout)?;
    guarded(|| Ok(ArrowReaderMetadata::load(bytes, reader_options())?))
}

/// The rows of the Parquet file at `path`, by its footer.
pub fn table_rows(path: &Path) -> Result<u64, TableError> {
    let rows = footer(path)?.metadata().file_metadata().num_rows();
    u64::try_from(rows).map_err(|_| TableError::Layout(format!("the footer claims {rows} rows")))
}

/// The column names of the Parquet file at `path`.
pub fn column_names(path: &Path) -> Result<Vec<String>, TableError> {
    Ok(footer(path)?
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect())
}

/// A shared mapping as the owner of a [`bytes::Bytes`] (the parquet
/// crate's in-memory reader).
struct SharedMap(Arc<MappedFile>);

impl AsRef<[u8]> for SharedMap {
    fn as_ref(&self) -> &[u8] {
        self.0.bytes()
    }
}

/// Rows read from a table, packed for the engine.
#[derive(Debug)]
pub struct TableRows {
    /// Row index of the first row.
    pub first_row: u64,
    /// The text column's rows in [`crate::read::InputFormat::Rows`] form.
    pub packed: Vec<u8>,
    pub rows: usize,
    /// The table's other columns for these rows, when they were asked for.
    pub others: Option<RecordBatch>,
}

/// A stretch of rows inside one row group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRange {
    pub group: usize,
    /// Row index (in the whole table) of the first row.
    pub first_row: u64,
    pub rows: usize,
}

/// A Parquet table opened for reading its text column (and, when kept,
/// the others) by row ranges, from any thread.
///
/// Each row group has its own decoders, so ranges of different groups are
/// decoded in parallel. Inside a group, a decoder (a *lane*) decodes its
/// rows in order: whoever asks first decodes up to the end of its range,
/// and rows decoded ahead of their own request wait, as Arrow batches, for
/// the thread that asks for them. Packing the text into engine records
/// happens outside any lock.
///
/// With [`TableSource::in_lanes`], a group whose text column has enough
/// data pages is read a whole page (or run of small pages) a range, page
/// `p` by lane `p % lanes`: two threads on neighbouring ranges then never
/// wait for each other's decompression, and each lane skips the other
/// lanes' pages by their headers alone (never decompressed).
///
/// A group whose text column [`text_pages`] decodes has no lanes: it is
/// read a page (or run of pages) a range, each range decoded from its own
/// pages by the thread that asks for it.
pub struct TableSource {
    /// The whole file, mapped, and the same bytes as the decoders' reader:
    /// each group's decoder slices its pages out of the map (no read calls,
    /// no copies of compressed pages), from any thread, and reads each page
    /// header only once [`page_header_len`] has walked it.
    map: Arc<MappedFile>,
    bytes: PageBytes,
    meta: ArrowReaderMetadata,
    column: usize,
    /// The columns decoded, in table order.
    roots: Vec<usize>,
    keep_others: bool,
    /// The first row read (rows before it are never decoded).
    from: u64,
    /// First row of each group, and the total at the end.
    starts: Vec<u64>,
    groups: Vec<Group>,
}

/// How one row group is cut into ranges and decoded.
struct Group {
    /// Without lanes, empty: ranges are cut anywhere and one decoder reads
    /// them all. With lanes, the first row of each data page (or run of
    /// them, see [`runs_of_pages`]) of the text column, then the group's
    /// end: a range is the rest of one page.
    pages: Vec<u64>,
    lanes: Vec<Mutex<Lane>>,
    /// The text column's pages, when they are decoded by [`text_pages`]
    /// (no lanes then: a range is decoded from its pages by whoever asks).
    own: Option<OwnPages>,
}

/// A row group's text column decoded by [`text_pages`], and its
/// dictionary, decoded once for the group and dropped with its last rows.
struct OwnPages {
    pages: TextPages,
    dictionary: Mutex<Option<Arc<Dictionary>>>,
    /// Rows of the group not yet read.
    rows_left: AtomicU64,
}

impl Group {
    /// The page holding `row` (a row of this group), when read in lanes.
    fn page_of(&self, row: u64) -> Option<usize> {
        (!self.pages.is_empty()).then(|| self.pages.partition_point(|&s| s <= row) - 1)
    }
}

/// One decoder of a row group and what it decoded ahead.
struct Lane {
    reader: Option<ParquetRecordBatchReader>,
    /// The next row the decoder gives (the group's end once it is done).
    next_row: u64,
    /// Rows decoded but not yet asked for, by first row.
    ahead: BTreeMap<u64, RecordBatch>,
}

/// Fewest ranges a table read in lanes must have, per lane: a page (or
/// run of pages) a range leaves the threads fewer ranges to share out at
/// the end.
const RANGES_PER_LANE: usize = 4;

/// Fewest rows in a range of a group read in lanes: smaller pages are read
/// in runs of whole pages, since each range is a job, and each job costs a
/// hand-off to the writer.
const LEAST_RANGE_ROWS: u64 = 2048;

/// `pages` (the first row of each page, then the end) merged into runs of
/// whole pages of at least `least` rows each, the last run included.
/// A group without pages (zero rows: `pages` is its start alone) has no
/// runs: `pages` comes back as it is.
fn runs_of_pages(pages: &[u64], least: u64) -> Vec<u64> {
    let [first, inner @ .., end] = pages else {
        return pages.to_vec();
    };
    let (first, end) = (*first, *end);
    let mut runs = vec![first];
    for &p in inner {
        if p - runs[runs.len() - 1] >= least && end - p >= least {
            runs.push(p);
        }
    }
    runs.push(end);
    runs
}

/// Rows decoded per call of the decoder.
const DECODE_ROWS: usize = 4096;

impl TableSource {
    /// Opens `file` and finds its text column (see [`choose_column`]);
    /// reading starts at row `from` (rows before it are never decoded).
    /// With `keep_others`, every other column is read too.
    pub fn open(
        path: &Path,
        spec: Option<&ColumnSpec>,
        preferred: &[&str],
        what: &str,
        keep_others: bool,
        from: u64,
    ) -> Result<TableSource, TableError> {
        let (map, bytes) = mapped(path)?;
        let meta = load_footer(&bytes)?;
        let schema = Arc::clone(meta.schema());
        let column = choose_column(&schema, spec, preferred, what)?;
        // Strings are decoded as views: no copy of each value out of its
        // page (views point into it).
        let view = match schema.field(column).data_type() {
            DataType::Utf8 | DataType::LargeUtf8 => Some(DataType::Utf8View),
            DataType::Binary | DataType::LargeBinary => Some(DataType::BinaryView),
            _ => None,
        };
        let meta = match view {
            Some(view) => {
                let fields: Vec<Field> = schema
                    .fields()
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let f = f.as_ref().clone();
                        if i == column {
                            f.with_data_type(view.clone())
                        } else {
                            f
                        }
                    })
                    .collect();
                let options = reader_options().with_schema(Arc::new(Schema::new_with_metadata(
                    fields,
                    schema.metadata().clone(),
                )));
                ArrowReaderMetadata::try_new(Arc::clone(meta.metadata()), options)?
            }
            None => meta,
        };
        let roots: Vec<usize> = if keep_others {
            (0..schema.fields().len()).collect()
        } else {
            vec![column]
        };
        let mut starts = vec![0u64];
        for g in meta.metadata().row_groups() {
            let last = *starts.last().expect("one start");
            starts.push(last + u64::try_from(g.num_rows()).unwrap_or(0));
        }
        let mut table = TableSource {
            map,
            bytes: PageBytes(bytes),
            meta,
            column,
            roots,
            keep_others,
            from,
            starts,
            groups: Vec::new(),
        };
        let leaf = if keep_others {
            None
        } else {
            table.plain_text_leaf()
        };
        table.groups = (0..table.starts.len() - 1)
            .map(|g| match leaf.and_then(|leaf| table.text_pages(g, leaf)) {
                Some(pages) => table.own_group(g, pages, LEAST_RANGE_ROWS),
                None => table.unpaged(g),
            })
            .collect();
        Ok(table)
    }

    /// Reads each row group with a page (or a run of pages of at least
    /// [`LEAST_RANGE_ROWS`]) a range in `lanes` decoders (see
    /// [`TableSource`]) where its text column has a range for every lane,
    /// the table has at least [`RANGES_PER_LANE`] ranges per lane in such
    /// groups, and the other columns are not kept (their pages do not line
    /// up with the text column's, so lanes would decompress them twice).
    /// Other groups are read as before.
    ///
    /// Counted over the table, not per group: a table in many small groups
    /// (64Ki or 122,880 rows, a few pages each, as many tools write them)
    /// has ranges enough to share out at its end, and read by one decoder
    /// a group its workers waited on each other's decompression (0.70-0.82x
    /// the line file's rate on two threads, against 0.90x in one group).
    pub fn in_lanes(self, lanes: usize) -> TableSource {
        self.in_lanes_of(lanes, LEAST_RANGE_ROWS)
    }

    /// [`TableSource::in_lanes`] with ranges of at least `least` rows
    /// (smaller than [`LEAST_RANGE_ROWS`] in tests and the fuzz target).
    pub fn in_lanes_of(mut self, lanes: usize, least: u64) -> TableSource {
        for group in &mut self.groups {
            if let Some(own) = &group.own {
                group.pages = runs_of_pages(&own.pages.page_starts(), least);
            }
        }
        if lanes < 2 || self.keep_others {
            return self;
        }
        let paged: Vec<(usize, Vec<u64>)> = (0..self.groups.len())
            .filter(|&g| self.groups[g].own.is_none())
            .filter_map(|g| {
                let pages = runs_of_pages(&self.page_starts(g)?, least);
                (pages.len() > lanes).then_some((g, pages))
            })
            .collect();
        let ranges: usize = paged.iter().map(|(_, pages)| pages.len() - 1).sum();
        if ranges <= RANGES_PER_LANE * lanes {
            return self;
        }
        for (g, pages) in paged {
            let lanes = (0..lanes)
                .map(|lane| Mutex::new(self.idle_lane(g, &pages, lane, lanes)))
                .collect();
            self.groups[g] = Group {
                pages,
                lanes,
                own: None,
            };
        }
        self
    }

    /// The same table with every row group read by the parquet crate's
    /// Arrow reader, none by [`text_pages`]: for comparing the two (tests
    /// and the fuzz target).
    #[doc(hidden)]
    pub fn by_arrow(mut self) -> TableSource {
        for g in 0..self.groups.len() {
            if self.groups[g].own.is_some() {
                self.groups[g] = self.unpaged(g);
            }
        }
        self
    }

    /// Group `g` read by one decoder, ranges cut anywhere.
    fn unpaged(&self, g: usize) -> Group {
        Group {
            pages: Vec::new(),
            lanes: vec![Mutex::new(self.idle_lane(g, &[], 0, 1))],
            own: None,
        }
    }

    /// The leaf (Parquet column) of the text column when [`text_pages`]
    /// can decode it: a flat, required or optional byte array (strings or
    /// binaries), not a list or a struct.
    fn plain_text_leaf(&self) -> Option<usize> {
        let mut leaves = self.text_leaves();
        let leaf = leaves.next()?;
        let c = self
            .meta
            .metadata()
            .file_metadata()
            .schema_descr()
            .column(leaf);
        let flat = leaves.next().is_none() && c.max_rep_level() == 0 && c.max_def_level() <= 1;
        let text = is_text(self.meta.schema().field(self.column).data_type());
        (flat && text && c.physical_type() == parquet::basic::Type::BYTE_ARRAY).then_some(leaf)
    }

    /// The leaves (Parquet columns) of the text column, in order: one for
    /// text, the list's values for digit lists.
    fn text_leaves(&self) -> impl Iterator<Item = usize> + '_ {
        let schema = self.meta.metadata().file_metadata().schema_descr();
        (0..schema.num_columns()).filter(move |&c| schema.get_column_root_idx(c) == self.column)
    }

    /// Group `g`'s pages of column `leaf`, when [`text_pages`] decodes
    /// them all.
    fn text_pages(&self, g: usize, leaf: usize) -> Option<TextPages> {
        let group = self.meta.metadata().row_group(g);
        let chunk = group.column(leaf);
        // As `byte_range` finds it, which asserts that neither is negative.
        let start = chunk
            .dictionary_page_offset()
            .unwrap_or(chunk.data_page_offset());
        let start = usize::try_from(start).ok()?;
        let end = start.checked_add(usize::try_from(chunk.compressed_size()).ok()?)?;
        let optional = chunk.column_descr().max_def_level() == 1;
        TextPages::walk(
            self.bytes.0.as_ref(),
            start..end,
            Codec::of(chunk.compression())?,
            optional,
            self.starts[g],
            self.starts[g + 1] - self.starts[g],
        )
    }

    /// Group `g`, decoded by [`text_pages`] a run of pages of at least
    /// `least` rows a range.
    fn own_group(&self, g: usize, pages: TextPages, least: u64) -> Group {
        let first = self.from.max(self.starts[g]);
        Group {
            pages: runs_of_pages(&pages.page_starts(), least),
            lanes: Vec::new(),
            own: Some(OwnPages {
                pages,
                dictionary: Mutex::new(None),
                rows_left: AtomicU64::new(self.starts[g + 1].saturating_sub(first)),
            }),
        }
    }

    /// The rows lane `lane` of `lanes` of group `g` reads from row `from`
    /// on, as `(first, end)` stretches in row order: without pages (`pages`
    /// empty) the rest of the group, else the rest of each of the lane's
    /// pages (page `p` is lane `p % lanes`'s).
    fn lane_stretches(
        &self,
        g: usize,
        pages: &[u64],
        lane: usize,
        lanes: usize,
        from: u64,
    ) -> Vec<(u64, u64)> {
        let from = from.max(self.starts[g]);
        let end = self.starts[g + 1];
        if pages.is_empty() {
            return (from < end).then_some((from, end)).into_iter().collect();
        }
        (lane..pages.len() - 1)
            .step_by(lanes)
            .map(|p| (pages[p].max(from), pages[p + 1]))
            .filter(|(a, b)| a < b)
            .collect()
    }

    /// The first row of each data page of the text column in group `g`,
    /// then the group's end, from the page headers alone; `None` when a
    /// page does not say its rows or the headers cannot be read (the
    /// decoder will say what is wrong).
    fn page_starts(&self, g: usize) -> Option<Vec<u64>> {
        guarded(|| Ok(self.page_starts_unguarded(g))).ok().flatten()
    }

    /// [`TableSource::page_starts`], outside [`guarded`].
    fn page_starts_unguarded(&self, g: usize) -> Option<Vec<u64>> {
        let metadata = self.meta.metadata();
        let schema = metadata.file_metadata().schema_descr();
        let leaf = self.text_leaves().next()?;
        // With repetition, levels are not rows.
        if schema.column(leaf).max_rep_level() != 0 {
            return None;
        }
        let group = metadata.row_group(g);
        let mut pages = SerializedPageReader::new(
            Arc::new(self.bytes.clone()),
            group.column(leaf),
            usize::try_from(group.num_rows()).ok()?,
            None,
        )
        .ok()?;
        let mut starts = vec![self.starts[g]];
        while let Some(page) = pages.peek_next_page().ok()? {
            if !page.is_dict {
                let rows = page.num_rows.or(page.num_levels)?;
                let last = *starts.last().expect("one start");
                starts.push(last + rows as u64);
            }
            pages.skip_next_page().ok()?;
        }
        (*starts.last().expect("one start") == self.starts[g + 1]).then_some(starts)
    }

    /// Lane `lane` of `lanes` of group `g`, whose pages start at `pages`
    /// (empty without lanes), before it decodes anything: at its first row
    /// at or after `from`.
    fn idle_lane(&self, g: usize, pages: &[u64], lane: usize, lanes: usize) -> Lane {
        let next_row = self
            .lane_stretches(g, pages, lane, lanes, self.from)
            .first()
            .map_or(self.starts[g + 1], |&(first, _)| first);
        Lane {
            reader: None,
            next_row,
            ahead: BTreeMap::new(),
        }
    }

    /// Ok while every byte decoded so far was the file's (see
    /// [`MappedFile::check`]): check after reading, before trusting rows.
    pub fn check(&self) -> Result<(), Changed> {
        self.map.check()
    }

    /// The mapped file, for checking chunks decoded from it later.
    pub fn map(&self) -> &Arc<MappedFile> {
        &self.map
    }

    /// Rows in the table (from its footer).
    pub fn rows(&self) -> u64 {
        *self.starts.last().expect("one start")
    }

    /// The range of up to `most` rows from row `from`, inside one group
    /// (for a group read in lanes, the rest of one page or run of pages,
    /// whatever `most`);
    /// `None` at the end of the table.
    pub fn range(&self, from: u64, most: usize) -> Option<RowRange> {
        let group = self.starts.partition_point(|&s| s <= from).checked_sub(1)?;
        let end = *self.starts.get(group + 1)?;
        let lanes = &self.groups[group];
        let rows = match lanes.page_of(from) {
            None => (end - from).min(most.max(1) as u64),
            Some(p) => lanes.pages[p + 1] - from,
        };
        Some(RowRange {
            group,
            first_row: from,
            rows: rows as usize,
        })
    }

    /// Decodes (or takes, if another thread decoded them) the rows of
    /// `range` and packs them.
    pub fn read(&self, range: RowRange) -> Result<TableRows, TableError> {
        let end = range.first_row + range.rows as u64;
        let group = &self.groups[range.group];
        if let Some(own) = &group.own {
            return self.read_own(range, own);
        }
        let lane = group
            .page_of(range.first_row)
            .map_or(0, |p| p % group.lanes.len());
        let pieces = {
            let mut state = group.lanes[lane].lock().unwrap_or_else(|e| e.into_inner());
            while state.next_row < end {
                if state.reader.is_none() {
                    let from = state.next_row;
                    state.reader = Some(guarded(|| self.lane_reader(range.group, lane, from))?);
                }
                let next = guarded(|| {
                    let next = state.reader.as_mut().and_then(Iterator::next);
                    Ok(next.transpose()?)
                });
                let batch = match next {
                    Ok(Some(b)) => b,
                    Err(e) => {
                        // A decoder that panicked is not used again.
                        state.reader = None;
                        return Err(e);
                    }
                    Ok(None) => {
                        return Err(TableError::Layout(format!(
                            "row group {} ends before its {} rows",
                            range.group,
                            self.starts[range.group + 1] - self.starts[range.group]
                        )))
                    }
                };
                self.keep_ahead(range.group, lane, &mut state, batch)?;
                if state.next_row >= self.starts[range.group + 1] {
                    // Done with its rows: the decoder's pages and
                    // dictionary go back to the allocator now, not when
                    // the table is dropped.
                    state.reader = None;
                }
            }
            take_rows(&mut state.ahead, range.first_row, end)
        };
        self.pack(range.first_row, &pieces)
    }

    /// Decodes the rows of `range` by [`text_pages`].
    fn read_own(&self, range: RowRange, own: &OwnPages) -> Result<TableRows, TableError> {
        let file = self.bytes.0.as_ref();
        let damaged = |why: String| TableError::Layout(format!("row group {}: {why}", range.group));
        let (from, to) = (range.first_row, range.first_row + range.rows as u64);
        let dictionary = if own.pages.needs_dictionary(from, to) {
            let mut kept = own.dictionary.lock().unwrap_or_else(|e| e.into_inner());
            Some(match &*kept {
                Some(d) => Arc::clone(d),
                None => {
                    let d = Arc::new(own.pages.dictionary(file).map_err(damaged)?);
                    *kept = Some(Arc::clone(&d));
                    d
                }
            })
        } else {
            None
        };
        let mut packer = RowPacker::with_capacity(range.rows * PACKED_PUZZLE);
        own.pages
            .decode(file, from, to, dictionary.as_deref(), &mut packer)
            .map_err(damaged)?;
        debug_assert_eq!(packer.rows(), range.rows);
        // The group's last rows read: its dictionary is not needed again.
        let before = own
            .rows_left
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                Some(left.saturating_sub(range.rows as u64))
            })
            .unwrap_or(0);
        if before <= range.rows as u64 {
            *own.dictionary.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        let rows = packer.rows();
        Ok(TableRows {
            first_row: from,
            packed: packer.take(),
            rows,
            others: None,
        })
    }

    /// Files a batch that lane `lane` of group `g` decoded under the rows
    /// it holds: its rows run on from `state.next_row` through the lane's
    /// pages, in order, skipping the other lanes' pages.
    fn keep_ahead(
        &self,
        g: usize,
        lane: usize,
        state: &mut Lane,
        batch: RecordBatch,
    ) -> Result<(), TableError> {
        let group = &self.groups[g];
        let end = self.starts[g + 1];
        let mut at = 0;
        while at < batch.num_rows() {
            if state.next_row >= end {
                return Err(TableError::Layout(format!(
                    "row group {g} (lane {lane}) holds more rows than its footer and pages say"
                )));
            }
            // Where the lane's current page ends, and where its next starts.
            let (page_end, next_start) = match group.page_of(state.next_row) {
                None => (end, end),
                Some(p) => {
                    let next = p + group.lanes.len();
                    let next_start = if next + 1 < group.pages.len() {
                        group.pages[next]
                    } else {
                        end
                    };
                    (group.pages[p + 1], next_start)
                }
            };
            let rows = (batch.num_rows() - at).min((page_end - state.next_row) as usize);
            state.ahead.insert(state.next_row, batch.slice(at, rows));
            at += rows;
            state.next_row += rows as u64;
            if state.next_row == page_end {
                state.next_row = next_start;
            }
        }
        Ok(())
    }

    /// The decoder of lane `lane` of group `g`, from row `from` on: the
    /// whole group from there without lanes, else the lane's pages.
    fn lane_reader(
        &self,
        g: usize,
        lane: usize,
        from: u64,
    ) -> Result<ParquetRecordBatchReader, TableError> {
        let group = &self.groups[g];
        let (first, end) = (self.starts[g], self.starts[g + 1]);
        let stretches = self.lane_stretches(g, &group.pages, lane, group.lanes.len(), from);
        let mut selectors = Vec::with_capacity(2 * stretches.len());
        let mut at = first;
        for (a, b) in stretches {
            if a > at {
                selectors.push(RowSelector::skip((a - at) as usize));
            }
            selectors.push(RowSelector::select((b - a) as usize));
            at = b;
        }
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.bytes.clone(),
            self.meta.clone(),
        );
        let mask = ProjectionMask::roots(builder.parquet_schema(), self.roots.iter().copied());
        let mut builder = builder
            .with_projection(mask)
            .with_row_groups(vec![g])
            .with_batch_size(DECODE_ROWS);
        if selectors.len() != 1 || at != end || from != first {
            builder = builder.with_row_selection(RowSelection::from(selectors));
        }
        Ok(builder.build()?)
    }

    /// Packs decoded batches (in row order, starting at `first_row`).
    fn pack(&self, first_row: u64, pieces: &[RecordBatch]) -> Result<TableRows, TableError> {
        let position = self
            .roots
            .iter()
            .position(|&r| r == self.column)
            .expect("the text column is decoded");
        let rows: usize = pieces.iter().map(RecordBatch::num_rows).sum();
        let mut packer = RowPacker::with_capacity(rows * PACKED_PUZZLE);
        let mut others = Vec::new();
        for piece in pieces {
            for_each_text(piece.column(position).as_ref(), &mut |row| packer.push(row));
            if self.keep_others {
                let mut rest = piece.clone();
                rest.remove_column(position);
                others.push(rest);
            }
        }
        let others = match others.first() {
            Some(first) => Some(arrow_select::concat::concat_batches(
                &first.schema(),
                &others,
            )?),
            None => None,
        };
        let rows = packer.rows();
        Ok(TableRows {
            first_row,
            packed: packer.take(),
            rows,
            others,
        })
    }
}

/// Takes rows `from..to` out of `ahead` (batches keyed by first row, which
/// must cover them), leaving what lies outside the range.
fn take_rows(ahead: &mut BTreeMap<u64, RecordBatch>, from: u64, to: u64) -> Vec<RecordBatch> {
    let keys: Vec<u64> = ahead
        .range(..to)
        .filter(|(&at, b)| at + b.num_rows() as u64 > from)
        .map(|(&at, _)| at)
        .collect();
    let mut taken = Vec::with_capacity(keys.len());
    for at in keys {
        let batch = ahead.remove(&at).expect("listed");
        let end = at + batch.num_rows() as u64;
        let lo = from.max(at);
        let hi = to.min(end);
        if lo > at {
            ahead.insert(at, batch.slice(0, (lo - at) as usize));
        }
        if hi < end {
            ahead.insert(hi, batch.slice((hi - at) as usize, (end - hi) as usize));
        }
        taken.push(batch.slice((lo - at) as usize, (hi - lo) as usize));
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use std::fs::File;

    /// A fresh folder for a test's table (`name` tells the tests apart),
    /// and the table's path in it.
    fn table_dir(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("batchdoku-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.parquet");
        (dir, path)
    }

    /// Where the first data page of column 0 in row group `group` of the
    /// table `bytes` starts: its header, and its bytes after the header.
    fn first_data_page(bytes: &[u8], group: usize) -> (usize, usize) {
        let meta = ArrowReaderMetadata::load(&bytes::Bytes::from(bytes.to_vec()), reader_options())
            .unwrap();
        let page = meta
            .metadata()
            .row_group(group)
            .column(0)
            .data_page_offset() as usize;
        (page, page + page_header_len(&bytes[page..]).unwrap())
    }

    fn batch(from: i64, n: i64) -> RecordBatch {
        let values: Vec<i64> = (from..from + n).collect();
        RecordBatch::try_from_iter([("v", Arc::new(Int64Array::from(values)) as ArrayRef)]).unwrap()
    }

    fn values(pieces: &[RecordBatch]) -> Vec<i64> {
        pieces
            .iter()
            .flat_map(|b| {
                b.column(0)
                    .as_primitive::<arrow_array::types::Int64Type>()
                    .values()
                    .to_vec()
            })
            .collect()
    }

    #[test]
    fn rows_decoded_ahead_wait_for_their_own_request() {
        let mut ahead = BTreeMap::new();
        ahead.insert(0, batch(0, 10));
        ahead.insert(10, batch(10, 10));
        // A later range first, across both batches; then the earlier ones.
        assert_eq!(
            values(&take_rows(&mut ahead, 6, 14)),
            (6..14).collect::<Vec<_>>()
        );
        assert_eq!(
            values(&take_rows(&mut ahead, 14, 20)),
            (14..20).collect::<Vec<_>>()
        );
        assert_eq!(
            values(&take_rows(&mut ahead, 0, 6)),
            (0..6).collect::<Vec<_>>()
        );
        assert!(ahead.is_empty());
    }

    /// Writes `rows` as a `puzzle` column, `group_rows` rows a row group,
    /// uncompressed.
    fn write_table(path: &Path, rows: &[Option<String>], group_rows: usize) {
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(group_rows))
            .set_dictionary_enabled(false)
            .build();
        write_table_with(path, rows, props);
    }

    fn write_table_with(
        path: &Path,
        rows: &[Option<String>],
        props: parquet::file::properties::WriterProperties,
    ) {
        let b = RecordBatch::try_from_iter([(
            "puzzle",
            Arc::new(StringArray::from(rows.to_vec())) as ArrayRef,
        )])
        .unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(
            File::create(path).unwrap(),
            b.schema(),
            Some(props),
        )
        .unwrap();
        w.write(&b).unwrap();
        w.close().unwrap();
    }

    /// The rows of `range`, read from `t`, as text.
    fn texts(t: &TableSource, r: RowRange) -> Vec<Option<String>> {
        let got = t.read(r).unwrap();
        crate::read::packed_rows(&got.packed)
            .map(|v| v.map(|b| String::from_utf8(b.to_vec()).unwrap()))
            .collect()
    }

    #[test]
    fn small_pages_are_read_in_runs_and_the_last_run_is_never_short() {
        assert_eq!(runs_of_pages(&[0, 10, 20, 30], 1), [0, 10, 20, 30]);
        assert_eq!(runs_of_pages(&[0, 10, 20, 30, 40, 45], 20), [0, 20, 45]);
        assert_eq!(runs_of_pages(&[5, 10, 20, 30, 40, 50], 20), [5, 30, 50]);
        assert_eq!(runs_of_pages(&[0, 10, 20], 100), [0, 20]);
        assert_eq!(runs_of_pages(&[0, 20], 100), [0, 20]);
        // A group of zero rows: its start alone, no runs.
        assert_eq!(runs_of_pages(&[7], 1), [7]);
        // Default-sized pages are left alone.
        let pages: Vec<u64> = (0..=10).map(|p| p * 13_312).collect();
        assert_eq!(runs_of_pages(&pages, LEAST_RANGE_ROWS), pages);
    }

    /// Reads `ranges` of `t` on two threads, each every other range (the
    /// second backwards when `one_backwards`), checks each against `rows`
    /// (the table's rows by index), then that nothing decoded, and no
    /// decoder, is left behind.
    fn read_by_two_threads(
        t: &TableSource,
        ranges: &[RowRange],
        rows: &[Option<String>],
        one_backwards: bool,
    ) {
        std::thread::scope(|scope| {
            for k in 0..2 {
                scope.spawn(move || {
                    let mut mine: Vec<RowRange> =
                        ranges.iter().skip(k).step_by(2).copied().collect();
                    if k == 1 && one_backwards {
                        mine.reverse();
                    }
                    for r in mine {
                        let first = r.first_row as usize;
                        assert_eq!(texts(t, r), rows[first..first + r.rows]);
                    }
                });
            }
        });
        for g in &t.groups {
            for lane in &g.lanes {
                let lane = lane.lock().unwrap();
                assert!(lane.ahead.is_empty());
                // A lane done with its rows has let go of its decoder
                // (and the pages and dictionary it holds).
                assert!(lane.reader.is_none());
            }
            // So has a group decoded by `text_pages` of its dictionary.
            if let Some(own) = &g.own {
                assert!(own.dictionary.lock().unwrap().is_none());
                assert_eq!(own.rows_left.load(Ordering::Relaxed), 0);
            }
        }
    }

    #[test]
    fn a_table_read_in_lanes_or_by_pages_gives_every_row_once_from_any_start() {
        let (dir, path) = table_dir("lanes");
        let rows: Vec<Option<String>> = (0..4500)
            .map(|i| (i % 11 != 5).then(|| format!("{i:0>81}")))
            .collect();
        // Three groups of 1,500 rows, pages of 100 rows, snappy, and a
        // dictionary page that fills up after a few rows (as pyarrow's
        // does), so the lanes skip pages and read the dictionary.
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(1500))
            .set_data_page_row_count_limit(100)
            .set_write_batch_size(10)
            .set_dictionary_page_size_limit(2000)
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        write_table_with(&path, &rows, props);
        // Read in lanes by the crate, or by `text_pages` (no lanes: each
        // range decoded from its own pages).
        for (arrow, from) in [true, false]
            .into_iter()
            .flat_map(|arrow| [0u64, 150, 1500, 2999, 4450].map(|from| (arrow, from)))
        {
            let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, from).unwrap();
            let t = if arrow { t.by_arrow() } else { t }.in_lanes_of(3, 1);
            for g in &t.groups {
                assert_eq!(g.lanes.len(), if arrow { 3 } else { 0 });
                assert_eq!(g.own.is_some(), !arrow);
                // 1,500 rows in pages of about 100 (the writer starts a
                // new page where the dictionary fills up, too).
                assert!(g.pages.len() > 15, "pages {:?}", g.pages);
                assert!(g
                    .pages
                    .windows(2)
                    .all(|w| w[0] < w[1] && w[1] - w[0] <= 110));
            }
            let mut ranges = Vec::new();
            let mut next = from;
            while let Some(r) = t.range(next, 37) {
                // Each range is the rest of one page, whatever `most`.
                let end = r.first_row + r.rows as u64;
                let pages = &t.groups[r.group].pages;
                assert!(pages.contains(&end));
                assert!(!pages.iter().any(|&p| r.first_row < p && p < end));
                next += r.rows as u64;
                ranges.push(r);
            }
            assert_eq!(next, 4500);
            read_by_two_threads(&t, &ranges, &rows, true);
        }
        // One lane, or kept columns: ranges are cut anywhere, as before.
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0)
            .unwrap()
            .by_arrow()
            .in_lanes_of(1, 1);
        assert!(t.groups.iter().all(|g| g.pages.is_empty()));
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", true, 0)
            .unwrap()
            .in_lanes_of(2, 1);
        assert!(t.groups.iter().all(|g| g.pages.is_empty()));
        assert_eq!(t.range(0, 37).unwrap().rows, 37);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn small_groups_are_read_in_lanes_when_the_table_has_ranges_enough() {
        let (dir, path) = table_dir("small");
        let props = |group: usize| {
            parquet::file::properties::WriterProperties::builder()
                .set_max_row_group_row_count(Some(group))
                .set_data_page_row_count_limit(100)
                .set_write_batch_size(10)
                .set_compression(parquet::basic::Compression::SNAPPY)
                .build()
        };
        // Twelve groups of 300 rows, three pages each: each group alone has
        // too few ranges for two lanes, the table has 36.
        let rows: Vec<Option<String>> = (0..3600).map(|i| Some(format!("{i:0>81}"))).collect();
        write_table_with(&path, &rows, props(300));
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0)
            .unwrap()
            .by_arrow()
            .in_lanes_of(2, 1);
        assert_eq!(t.groups.len(), 12);
        for g in &t.groups {
            assert_eq!(g.lanes.len(), 2);
            assert_eq!(g.pages.len(), 4, "pages {:?}", g.pages);
        }
        let mut ranges = Vec::new();
        let mut next = 0;
        while let Some(r) = t.range(next, 1000) {
            assert_eq!(r.rows, 100);
            next += r.rows as u64;
            ranges.push(r);
        }
        assert_eq!(ranges.len(), 36);
        read_by_two_threads(&t, &ranges, &rows, false);
        // One such group alone: three ranges for two lanes is too few to
        // share out at the end; it is read by one decoder.
        write_table_with(&path, &rows[..300], props(300));
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0)
            .unwrap()
            .by_arrow()
            .in_lanes_of(2, 1);
        assert!(t
            .groups
            .iter()
            .all(|g| g.pages.is_empty() && g.lanes.len() == 1));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_table_cut_short_while_mapped_is_reported() {
        crate::read::mapfile::install_fault_guard();
        let (dir, path) = table_dir("cut");
        let rows: Vec<Option<String>> = (0..2000).map(|i| Some(format!("{i:0>81}"))).collect();
        write_table(&path, &rows, 500);
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
        t.check().unwrap();
        // Another program cuts the file after its footer was read: the
        // pages past the cut read as zeros (no SIGBUS), decoding may fail
        // or give other rows, and the check says the file changed.
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(8192)
            .unwrap();
        let mut next = 0;
        while let Some(r) = t.range(next, 256) {
            next += r.rows as u64;
            let _ = t.read(r);
        }
        let changed = t.check().unwrap_err();
        assert_eq!(changed.now, 8192);
        assert!(changed.was > 8192 * 10);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_huge_cell_is_read_as_its_first_bytes_like_a_long_line() {
        // Cells of 20 MB (zstd makes the file small): packed as their first
        // MAX_LINE bytes, so what a range holds is bounded whatever the
        // file's cells claim, and each reads as the same text in a line
        // file would: garbage malformed, a puzzle with long notes after
        // its separator a puzzle.
        use crate::read::{records, InputFormat, MAX_LINE};
        let (dir, path) = table_dir("huge");
        let puzzle =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";
        let huge = "x".repeat(20 << 20);
        let notes = format!("{puzzle},{huge}");
        let rows = vec![
            Some(puzzle.to_string()),
            Some(huge.clone()),
            None,
            Some(notes),
            Some(puzzle.to_string()),
        ];
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .build();
        write_table_with(&path, &rows, props);
        assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
        let read = t.read(t.range(0, 100).unwrap()).unwrap();
        assert_eq!(read.rows, 5);
        assert!(
            read.packed.len() < 2 * MAX_LINE + 4 * 100,
            "{}",
            read.packed.len()
        );
        let got: Vec<(u64, bool)> = records(&read.packed, 0, InputFormat::Rows)
            .map(|r| (r.line, r.puzzle.is_ok()))
            .collect();
        assert_eq!(
            got,
            [(0, true), (1, false), (2, false), (3, true), (4, true)]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_table_is_read_by_ranges_in_any_order() {
        let (dir, path) = table_dir("table");
        let rows: Vec<Option<String>> = (0..1000)
            .map(|i| (i % 7 != 3).then(|| format!("row {i}")))
            .collect();
        write_table(&path, &rows, 300);
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
        assert_eq!(t.rows(), 1000);
        let mut ranges = Vec::new();
        let mut next = 0;
        while let Some(r) = t.range(next, 128) {
            next += r.rows as u64;
            ranges.push(r);
        }
        // No range crosses a row group (300 rows each).
        assert!(ranges
            .iter()
            .all(|r| r.first_row / 300 == (r.first_row + r.rows as u64 - 1) / 300));
        ranges.reverse();
        let check = |r: RowRange| {
            let first = r.first_row as usize;
            assert_eq!(texts(&t, r), rows[first..first + r.rows]);
        };
        // Several threads at once, each on ranges of every group (the
        // decoders must not share a file offset).
        std::thread::scope(|scope| {
            for k in 0..4 {
                let (ranges, check) = (&ranges, &check);
                scope.spawn(move || {
                    for r in ranges.iter().skip(k).step_by(4) {
                        check(*r);
                    }
                });
            }
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A V1 data page header: type 0, sizes 10, then num_values 1,
    /// encodings 0, 3 and 3, and the two struct ends.
    const HEADER: [u8; 17] = [
        0x15, 0x00, 0x15, 0x14, 0x15, 0x14, 0x2c, 0x15, 0x02, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06,
        0x00, 0x00,
    ];

    /// `HEADER` with `field` (a field header and its value) before its end,
    /// then `after`.
    fn header_with(field: &[u8], after: &[u8]) -> Vec<u8> {
        let mut h = HEADER[..16].to_vec();
        h.extend_from_slice(field);
        h.push(0);
        h.extend_from_slice(after);
        h
    }

    /// A count of `i32::MAX` list items (a varint).
    const MANY: [u8; 5] = [0xff, 0xff, 0xff, 0xff, 0x07];

    #[test]
    fn a_page_header_is_walked_as_parquet_reads_it() {
        let junk = [0x99u8; 40];
        let mut bytes = HEADER.to_vec();
        bytes.extend_from_slice(&junk);
        assert_eq!(page_header_len(&bytes), Ok(HEADER.len()));
        // Fields it does not know (ids 9 and 10 here) skipped by their
        // types: an i32, a binary, a struct with a boolean and a list of
        // three i32s, a map of one i32 to a binary, a double, a full field id.
        for field in [
            &[0x45, 0x07][..],
            &[0x58, 0x03, 1, 2, 3],
            &[0x5c, 0x11, 0x19, 0x35, 2, 4, 6, 0x00],
            &[0x5b, 0x01, 0x58, 0x02, 0x01, b'a'],
            &[0x57, 1, 2, 3, 4, 5, 6, 7, 8],
            &[0x05, 0x14, 0x07],
            // An empty list of booleans, and one of no type (as some
            // writers put it).
            &[0x59, 0x01],
            &[0x59, 0x00],
        ] {
            let h = header_with(field, &junk);
            assert_eq!(
                page_header_len(&h),
                Ok(HEADER.len() + field.len()),
                "{field:x?}"
            );
        }
        // A dictionary page (field 7, a boolean 3) and a V2 one (field 8,
        // a boolean 7).
        let dict = [
            0x15, 0x04, 0x15, 0x14, 0x15, 0x14, 0x4c, 0x15, 0x02, 0x15, 0x00, 0x11, 0x00, 0x00,
        ];
        assert_eq!(page_header_len(&dict), Ok(dict.len()));
        let v2 = [
            0x15, 0x06, 0x15, 0x14, 0x15, 0x14, 0x5c, 0x15, 0x02, 0x15, 0x00, 0x15, 0x02, 0x15,
            0x00, 0x15, 0x00, 0x15, 0x00, 0x12, 0x00, 0x00,
        ];
        assert_eq!(page_header_len(&v2), Ok(v2.len()));

        let refused = |field: &[u8], why: &str| {
            let h = header_with(field, &junk);
            let got = page_header_len(&h).unwrap_err();
            assert!(got.contains(why), "{field:x?}: {got}");
        };
        // What parquet 59 would loop over: 2^31 - 1 booleans (as a list,
        // a set, a map's values), or doubles and UUIDs past the end.
        refused(
            &[[0x59, 0xf1].as_slice(), &MANY].concat(),
            "2147483647 booleans",
        );
        refused(&[[0x5a, 0xf2].as_slice(), &MANY].concat(), "booleans");
        refused(&[[0x5b].as_slice(), &MANY, &[0x51]].concat(), "booleans");
        refused(&[[0x59, 0xf7].as_slice(), &MANY].concat(), "past the end");
        refused(&[[0x59, 0xfd].as_slice(), &MANY].concat(), "past the end");
        // Three booleans too: the crate would read their bytes as fields.
        refused(&[0x59, 0x31, 1, 1, 1], "3 booleans");
        // A binary longer than the file, lists nested 65 deep, a count
        // past i32::MAX, a boolean field of another type, an unknown type.
        refused(&[0x58, 0x80, 0x80, 0x80, 0x80, 0x20], "past the end");
        refused(
            &[[0x59].as_slice(), &[0x19; 64], &[0x00]].concat(),
            "nested",
        );
        refused(&[0x59, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x0f], "count");
        refused(&[0x5e], "unknown type 14");
        let mut v2 = v2;
        v2[19] = 0x15;
        assert!(page_header_len(&v2).unwrap_err().contains("not boolean"));
        // A data page (V1 or V2) without its fields, which the crate
        // unwraps when it skips the page; an index page needs none.
        for (page_type, why) in [(0x00, "data page fields"), (0x06, "(V2)")] {
            let bare = [0x15, page_type, 0x15, 0x14, 0x15, 0x14, 0x00];
            assert!(page_header_len(&bare).unwrap_err().contains(why));
        }
        assert_eq!(
            page_header_len(&[0x15, 0x02, 0x15, 0x14, 0x15, 0x14, 0x00]),
            Ok(7)
        );
        // Cut anywhere, a header runs past the end.
        for cut in 0..HEADER.len() {
            assert!(page_header_len(&HEADER[..cut]).is_err());
        }
    }

    /// The pages of every column of the table at `path`, read by the
    /// crate from the plain bytes and through [`PageBytes`].
    fn pages_both_ways(path: &Path) -> (usize, usize) {
        let bytes = bytes::Bytes::from(std::fs::read(path).unwrap());
        let meta = ArrowReaderMetadata::load(&bytes, reader_options()).unwrap();
        let (mut pages, mut dicts) = (0, 0);
        for group in meta.metadata().row_groups() {
            for chunk in group.columns() {
                let rows = group.num_rows() as usize;
                let plain = SerializedPageReader::new(Arc::new(bytes.clone()), chunk, rows, None)
                    .unwrap()
                    .map(|p| p.unwrap());
                let walked = SerializedPageReader::new(
                    Arc::new(PageBytes(bytes.clone())),
                    chunk,
                    rows,
                    None,
                )
                .unwrap()
                .map(|p| p.unwrap());
                let (plain, walked): (Vec<_>, Vec<_>) = (plain.collect(), walked.collect());
                assert_eq!(plain.len(), walked.len());
                for (a, b) in plain.iter().zip(&walked) {
                    assert_eq!(a.page_type(), b.page_type());
                    assert_eq!(a.num_values(), b.num_values());
                    assert_eq!(a.buffer(), b.buffer());
                    dicts +=
                        usize::from(a.page_type() == parquet::basic::PageType::DICTIONARY_PAGE);
                }
                pages += plain.len();
            }
        }
        (pages, dicts)
    }

    #[test]
    fn pages_written_every_way_read_the_same_through_the_header_walk() {
        use parquet::basic::Compression;
        use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
        let (dir, path) = table_dir("walk");
        let n = 3000i64;
        let ids: Vec<i64> = (0..n).collect();
        let rows: Vec<Option<String>> = (0..n)
            .map(|i| (i % 7 != 3).then(|| format!("{:0>81}", i % 50)))
            .collect();
        let digits =
            arrow_array::ListArray::from_iter_primitive::<arrow_array::types::Int8Type, _, _>(
                (0..n).map(|i| {
                    (i % 5 != 1).then(|| (0..81).map(move |k| Some(((i + k) % 10) as i8)))
                }),
            );
        let texts_of = rows.clone();
        let b = RecordBatch::try_from_iter([
            ("puzzle", Arc::new(StringArray::from(rows)) as ArrayRef),
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("digits", Arc::new(digits) as ArrayRef),
        ])
        .unwrap();
        // Data pages V1, V2 (whose values the crate writes as
        // DELTA_BYTE_ARRAY where not in the dictionary), or V2 PLAIN.
        for (v2, plain) in [(false, false), (true, false), (true, true)] {
            for dictionary in [false, true] {
                for (stats, compression) in [
                    (EnabledStatistics::None, Compression::UNCOMPRESSED),
                    (EnabledStatistics::Chunk, Compression::SNAPPY),
                    (
                        EnabledStatistics::Page,
                        Compression::ZSTD(Default::default()),
                    ),
                ] {
                    let mut props = WriterProperties::builder()
                        .set_writer_version(if v2 {
                            WriterVersion::PARQUET_2_0
                        } else {
                            WriterVersion::PARQUET_1_0
                        })
                        .set_dictionary_enabled(dictionary)
                        .set_dictionary_page_size_limit(1000)
                        .set_statistics_enabled(stats)
                        .set_write_page_header_statistics(stats == EnabledStatistics::Page)
                        .set_compression(compression)
                        .set_data_page_row_count_limit(100)
                        .set_write_batch_size(50)
                        .set_max_row_group_row_count(Some(1000));
                    if plain {
                        props = props.set_encoding(parquet::basic::Encoding::PLAIN);
                    }
                    let props = props.build();
                    let mut w = parquet::arrow::ArrowWriter::try_new(
                        File::create(&path).unwrap(),
                        b.schema(),
                        Some(props),
                    )
                    .unwrap();
                    w.write(&b).unwrap();
                    w.close().unwrap();
                    let (pages, dicts) = pages_both_ways(&path);
                    assert!(pages >= 90, "{pages} pages");
                    assert_eq!(dicts > 0, dictionary);
                    // Read whole in lanes, every column kept, or the text
                    // alone (by `text_pages`, whatever the page version,
                    // encoding and codec).
                    for (keep, arrow) in [(false, true), (true, true), (false, false)] {
                        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", keep, 0)
                            .unwrap();
                        let t = if arrow { t.by_arrow() } else { t }.in_lanes_of(2, 1);
                        assert_eq!(t.groups.iter().all(|g| !g.pages.is_empty()), !keep);
                        // Except DELTA_BYTE_ARRAY, left to the crate.
                        let delta = v2 && !plain;
                        assert_eq!(t.groups.iter().all(|g| g.own.is_some()), !arrow && !delta);
                        let mut next = 0;
                        while let Some(r) = t.range(next, 300) {
                            let first = r.first_row as usize;
                            assert_eq!(texts(&t, r), texts_of[first..first + r.rows]);
                            next += r.rows as u64;
                        }
                        assert_eq!(next, n as u64);
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Reads `t` from its first row, 50 rows a range, up to the first
    /// error: the rows read before it, and the error's text (the table
    /// must have one).
    fn rows_before_the_error(t: &TableSource) -> (u64, String) {
        let mut next = 0;
        loop {
            let r = t.range(next, 50).unwrap();
            match t.read(r) {
                Ok(read) => next += read.rows as u64,
                Err(e) => return (next, e.to_string()),
            }
        }
    }

    #[test]
    fn a_damaged_page_is_an_error_of_its_group_in_either_reader() {
        let (dir, path) = table_dir("badpage");
        let rows: Vec<Option<String>> = (0..600).map(|i| Some(format!("{i:0>81}"))).collect();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(200))
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(10)
            .build();
        write_table_with(&path, &rows, props);
        let mut bytes = std::fs::read(&path).unwrap();
        // The second group's first data page: its snappy bytes after the
        // length they give, overwritten.
        let (_, body) = first_data_page(&bytes, 1);
        bytes[body + 4..body + 60].fill(0xff);
        std::fs::write(&path, &bytes).unwrap();
        for arrow in [true, false] {
            let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
            let t = if arrow { t.by_arrow() } else { t }.in_lanes_of(2, 1);
            assert!(t.groups.iter().all(|g| g.own.is_some() != arrow));
            let (next, err) = rows_before_the_error(&t);
            assert_eq!(next, 200, "the first group reads whole");
            if !arrow {
                let at = format!("row group 1: the data page at byte {body}: snappy");
                assert!(err.starts_with(&at), "{err}");
            }
            // The other groups still read.
            let r = t.range(400, 50).unwrap();
            assert_eq!(texts(&t, r), rows[400..400 + r.rows]);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_string_cell_that_is_not_utf8_is_read_as_its_bytes() {
        // As a line is: the engine makes it a malformed record. The
        // crate's Arrow reader refuses the whole page.
        let (dir, path) = table_dir("utf8");
        let rows: Vec<Option<String>> = (0..100).map(|i| Some(format!("{i:x<81}"))).collect();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::UNCOMPRESSED)
            .set_dictionary_enabled(false)
            .build();
        write_table_with(&path, &rows, props);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes
            .windows(81)
            .position(|w| w == rows[42].as_ref().unwrap().as_bytes());
        bytes[at.unwrap() + 3] = 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
        assert!(t.groups[0].own.is_some());
        let read = t.read(t.range(0, 100).unwrap()).unwrap();
        let got: Vec<Option<&[u8]>> = crate::read::packed_rows(&read.packed).collect();
        assert_eq!(got.len(), 100);
        let mut cell = rows[42].clone().unwrap().into_bytes();
        cell[3] = 0xff;
        assert_eq!(got[42], Some(&cell[..]));
        assert_eq!(got[43], Some(rows[43].as_ref().unwrap().as_bytes()));
        let t = t.by_arrow();
        let err = t.read(t.range(0, 100).unwrap()).unwrap_err().to_string();
        assert!(err.to_lowercase().contains("utf"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_damaged_page_header_is_refused_before_parquet_reads_it() {
        // parquet 59 alone loops over the items such a header claims (up
        // to 2^31: about a minute for doubles), then fails for another
        // reason; here the walk refuses the header before the crate reads
        // a byte of it, in the page walk at open and in the decoder.
        let (dir, path) = table_dir("damaged");
        let rows: Vec<Option<String>> = (0..400).map(|i| Some(format!("{i:0>81}"))).collect();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(200))
            .set_data_page_row_count_limit(20)
            .set_write_batch_size(10)
            .set_dictionary_enabled(false)
            .build();
        write_table_with(&path, &rows, props);
        let good = std::fs::read(&path).unwrap();
        let (second, _) = first_data_page(&good, 1);
        // An unknown field 10 of 2^20 items (doubles, booleans, UUIDs)
        // over the start of the second group's first page header.
        for item in [0xf7u8, 0xf1, 0xfd] {
            let mut bad = good.clone();
            bad[second..second + 5].copy_from_slice(&[0xa9, item, 0x80, 0x80, 0x40]);
            std::fs::write(&path, &bad).unwrap();
            let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0)
                .unwrap()
                .in_lanes_of(2, 1);
            // The first group read in lanes, the second's page walk failed.
            assert!(!t.groups[0].pages.is_empty());
            assert!(t.groups[1].pages.is_empty());
            let (next, err) = rows_before_the_error(&t);
            assert_eq!(next, 200);
            assert!(
                err.contains(&format!("the page header at byte {second}: ")),
                "{item:x}: {err}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_page_the_parquet_crate_panics_on_is_an_error_of_the_file() {
        // A dictionary-encoded page whose index width byte says 40 bits:
        // parquet 59 asserts it is at most 32 (a panic), found by the fuzz
        // target; here it is an error naming the damage, in every way of
        // reading.
        let (dir, path) = table_dir("panic");
        let rows: Vec<Option<String>> = (0..400).map(|i| Some(format!("{:0>81}", i % 9))).collect();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::UNCOMPRESSED)
            .set_dictionary_enabled(true)
            .set_max_row_group_row_count(Some(200))
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(10)
            .build();
        write_table_with(&path, &rows, props);
        let mut bytes = std::fs::read(&path).unwrap();
        let meta = ArrowReaderMetadata::load(&bytes::Bytes::from(bytes.clone()), reader_options())
            .unwrap();
        let chunk = meta.metadata().row_group(1).column(0);
        assert!(chunk.dictionary_page_offset().is_some());
        // The first data page: its header, then the values (no levels: a
        // column without nulls is written as required), opening with the
        // index width (4 bits for 9 values).
        assert_eq!(
            meta.metadata()
                .file_metadata()
                .schema_descr()
                .column(0)
                .max_def_level(),
            0
        );
        let (_, width) = first_data_page(&bytes, 1);
        assert_eq!(bytes[width], 4);
        bytes[width] = 40;
        std::fs::write(&path, &bytes).unwrap();
        for (lanes, keep) in [(1, false), (2, false), (1, true)] {
            let t = TableSource::open(&path, None, &["puzzle"], "puzzles", keep, 0)
                .unwrap()
                .by_arrow()
                .in_lanes_of(lanes, 1);
            let (next, err) = rows_before_the_error(&t);
            assert_eq!(next, 200, "the first group reads whole");
            assert!(err.contains("damaged page"), "{err}");
            assert!(err.contains("num_bits"), "{err}");
        }
        // Decoded by `text_pages`: the same place, its own words.
        let t = TableSource::open(&path, None, &["puzzle"], "puzzles", false, 0).unwrap();
        assert!(t.groups.iter().all(|g| g.own.is_some()));
        let (next, err) = rows_before_the_error(&t);
        assert_eq!(next, 200, "the first group reads whole");
        assert!(
            err.contains(&format!(
                "row group 1: the data page at byte {}: dictionary indexes 40 bits wide",
                width
            )),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
