//! Reading puzzle records from bytes: the two text forms, format detection,
//! CSV headers, and cutting large inputs into chunks on record boundaries.
//!
//! - *Line form*: one puzzle per line (see [`Grid::parse_line`]).
//! - *Grid form*: a puzzle as 9 rows of 9 cells; spaces and `|` inside rows,
//!   `-`/`+`/`=` separator lines, blank lines and title lines (`Grid 01`)
//!   between puzzles are allowed, as is a leading count line (the contest
//!   form).
//!
//! In both forms blank lines and `#` comments are not records, and line
//! numbers count every line of the input, 1-based.

use crate::npy::{self, Dtype};
use crate::puzzle::grid::{char_at, char_column, Grid, ParseError, CELLS};
use crate::puzzle::Puzzle;

/// The text form of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// One puzzle per line: 81 cells, or 729 characters of pencilmarks.
    Line,
    /// One pencilmark puzzle per line, whatever its length (`--input
    /// pencilmark`; [`InputFormat::Line`] tells the forms apart by length).
    Pencilmark,
    /// Nine rows of nine cells per puzzle.
    Grid,
    /// CSV records (RFC 4180: a quoted field may hold commas, quotes and
    /// line breaks) with the puzzle in one column. Records are numbered by
    /// data row, from 1 after the header.
    Csv(CsvLayout),
    /// A NumPy array of puzzles: rows of 81 integers of this type, numbered
    /// by row index from 0.
    Npy(Dtype),
    /// The rows of a table's text column (Parquet, Arrow, a list of
    /// strings), packed by [`RowPacker`]: each row a little-endian `u32`
    /// length and its bytes, `u32::MAX` for a null. Every row is a record
    /// (blank, null and `#` rows included), numbered by row index from 0.
    Rows,
}

/// The length that marks a null row in [`InputFormat::Rows`] bytes.
const NULL_ROW: u32 = u32::MAX;

/// Packs rows of text into [`InputFormat::Rows`] bytes.
#[derive(Debug, Default)]
pub struct RowPacker {
    bytes: Vec<u8>,
    rows: usize,
}

impl RowPacker {
    pub fn new() -> Self {
        Self::default()
    }

    /// A packer with room for `bytes` bytes of rows (a length takes 4).
    pub fn with_capacity(bytes: usize) -> Self {
        RowPacker {
            bytes: Vec::with_capacity(bytes),
            rows: 0,
        }
    }

    /// Appends one row: its text (its first [`MAX_LINE`] bytes, as a
    /// stream keeps of a line: a longer cell is no puzzle, and a table's
    /// cell may be hundreds of megabytes), or `None` for a null.
    #[inline]
    pub fn push(&mut self, row: Option<&[u8]>) {
        push_row(row.map(|r| &r[..r.len().min(MAX_LINE)]), &mut self.bytes);
        self.rows += 1;
    }

    /// Rows packed so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Takes the packed rows, leaving the packer empty.
    pub fn take(&mut self) -> Vec<u8> {
        self.rows = 0;
        std::mem::take(&mut self.bytes)
    }
}

/// Bytes a packed puzzle row takes: its length, then 81 cells.
pub const PACKED_PUZZLE: usize = 4 + CELLS;

/// Appends one row in [`InputFormat::Rows`] form to `out`: its text, or
/// `None` for a null.
#[inline]
pub fn push_row(row: Option<&[u8]>, out: &mut Vec<u8>) {
    match row {
        // A row of 4 GiB is cut: it is malformed either way.
        Some(text) => {
            let text = &text[..text.len().min(NULL_ROW as usize - 1)];
            out.extend_from_slice(&(text.len() as u32).to_le_bytes());
            out.extend_from_slice(text);
        }
        None => out.extend_from_slice(&NULL_ROW.to_le_bytes()),
    }
}

/// Where the first packed row of `data` ends by its length (which may lie
/// past the end of `data`), and whether it is a null; `None` when not even
/// the length is there.
#[inline]
fn packed_row_end(data: &[u8]) -> Option<(usize, bool)> {
    let len = u32::from_le_bytes(*data.first_chunk::<4>()?);
    Some(match len {
        NULL_ROW => (4, true),
        len => (4 + len as usize, false),
    })
}

/// The first packed row of `data` ([`InputFormat::Rows`]): its text
/// (`None`: null) and the bytes it takes. A row cut short by the end of
/// `data` gives what is there.
#[inline]
pub fn packed_row(data: &[u8]) -> (Option<&[u8]>, usize) {
    match packed_row_end(data) {
        None => (Some(data), data.len()),
        Some((_, true)) => (None, 4),
        Some((end, false)) => {
            let end = end.min(data.len());
            (Some(&data[4..end]), end)
        }
    }
}

/// The rows of packed bytes in order: each one's text, `None` for a null.
pub fn packed_rows(mut data: &[u8]) -> impl Iterator<Item = Option<&[u8]>> {
    std::iter::from_fn(move || {
        if data.is_empty() {
            return None;
        }
        let (row, len) = packed_row(data);
        data = &data[len..];
        Some(row)
    })
}

/// Where the puzzle is in a CSV input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CsvLayout {
    /// The puzzle's column, from 0.
    pub column: usize,
}

/// A column named on the command line: by header name, or by position
/// from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnSpec {
    Name(String),
    Number(usize),
}

impl std::str::FromStr for ColumnSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.parse::<usize>() {
            Ok(0) => Err("columns are numbered from 1".into()),
            Ok(n) => Ok(ColumnSpec::Number(n)),
            Err(_) if s.trim().is_empty() => Err("empty column name".into()),
            Err(_) => Ok(ColumnSpec::Name(s.trim().to_string())),
        }
    }
}

/// Header names taken for the puzzle column, in order of preference.
pub const PUZZLE_COLUMNS: [&str; 5] = ["puzzle", "quizzes", "question", "quiz", "sudoku"];
/// Header names taken for the answer column.
pub const ANSWER_COLUMNS: [&str; 3] = ["solution", "solutions", "answer"];

/// Where CSV quoting stands at a point of the text, so that text can be
/// scanned in pieces. CSV is read as RFC 4180 readers commonly take it
/// (Python's `csv`, pandas): a `"` opens a quoted stretch only where a
/// field begins (spaces or tabs before it aside), inside one `""` is a
/// quote and a lone `"` closes it, and any other `"` is a character of its
/// field (`a 5" board`, `12" x 12"`), so a stray quote never swallows the
/// records after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvQuotes {
    /// Inside a quoted stretch.
    quoted: bool,
    /// The last byte scanned closed a quoted stretch: a `"` next is the
    /// second of a `""`, which reopens it.
    just_closed: bool,
    /// Outside quotes, nothing but spaces and tabs since the field began.
    field_start: bool,
}

impl CsvQuotes {
    /// At the start of a record.
    const START: CsvQuotes = CsvQuotes {
        quoted: false,
        just_closed: false,
        field_start: true,
    };

    /// At the start of a record.
    pub const fn new() -> CsvQuotes {
        CsvQuotes::START
    }

    /// Inside a quoted stretch.
    pub fn quoted(&self) -> bool {
        self.quoted
    }

    /// Scans `data`, the text that follows what was scanned before, and
    /// calls `at` with the offset of each `delim` byte (`\n` for record
    /// ends, `,` for field ends) outside quotes, until `at` returns false:
    /// then returns that offset, the state left as just after it (a field
    /// starts there). `None` when `data` is scanned to its end.
    pub fn scan(
        &mut self,
        data: &[u8],
        delim: u8,
        mut at: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        // The offset of the quote that last closed a stretch (usize::MAX
        // for the byte before `data`).
        let mut closed_at = self.just_closed.then_some(usize::MAX);
        for pos in memchr::memchr2_iter(b'"', delim, data) {
            if data[pos] == delim {
                if !self.quoted && !at(pos) {
                    *self = CsvQuotes::START;
                    return Some(pos);
                }
            } else if self.quoted {
                self.quoted = false;
                closed_at = Some(pos);
            } else if closed_at == Some(pos.wrapping_sub(1)) || self.opens_field(data, pos) {
                self.quoted = true;
            }
        }
        self.just_closed = !self.quoted && closed_at == Some(data.len().wrapping_sub(1));
        if !self.quoted {
            self.field_start = self.opens_field(data, data.len());
        }
        None
    }

    /// Outside quotes, true when only spaces and tabs stand between the
    /// start of a field and `data[pos]`: the last other byte before it is a
    /// `,` or a line end (which, with only blanks after them, cannot be
    /// inside quotes), or there is none in `data` and a field was starting
    /// where `data` begins.
    fn opens_field(&self, data: &[u8], pos: usize) -> bool {
        match data[..pos].iter().rposition(|&b| b != b' ' && b != b'\t') {
            Some(j) => matches!(data[j], b',' | b'\n'),
            None => self.field_start,
        }
    }
}

impl Default for CsvQuotes {
    fn default() -> Self {
        CsvQuotes::new()
    }
}

/// The fields of one CSV record (its text without the line end), unquoted
/// (see [`CsvQuotes`] for how quotes are read).
pub fn csv_fields(record: &[u8]) -> Vec<std::borrow::Cow<'_, [u8]>> {
    let mut fields = Vec::new();
    let mut start = 0;
    CsvQuotes::new().scan(record, b',', |pos| {
        fields.push(unquote(&record[start..pos]));
        start = pos + 1;
        true
    });
    fields.push(unquote(&record[start..]));
    fields
}

/// Field `k` (from 0) of a CSV record, unquoted; `None` when it has fewer
/// fields. Stops scanning at the field, so a puzzle in the first column
/// costs no more than its own bytes.
pub fn csv_field(record: &[u8], k: usize) -> Option<std::borrow::Cow<'_, [u8]>> {
    let mut start = 0;
    let mut index = 0;
    let end = CsvQuotes::new().scan(record, b',', |pos| {
        if index == k {
            return false;
        }
        index += 1;
        start = pos + 1;
        true
    });
    match end {
        Some(end) => Some(unquote(&record[start..end])),
        None => (index == k).then(|| unquote(&record[start..])),
    }
}

/// A field's text: a field that opens with a quote (spaces around it
/// aside) without its quotes, `""` inside them read as `"`, and anything
/// after the closing quote kept as it is (`"ab"c` is `abc`, as Python's
/// `csv` reads it); any other field as it is.
fn unquote(field: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let Some(inner) = field.trim_ascii().strip_prefix(b"\"") else {
        return std::borrow::Cow::Borrowed(field);
    };
    // The usual case: one quoted stretch with no quote inside.
    if let Some(body) = inner.strip_suffix(b"\"") {
        if memchr::memchr(b'"', body).is_none() {
            return std::borrow::Cow::Borrowed(body);
        }
    }
    let mut out = Vec::with_capacity(inner.len());
    let mut quoted = true;
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            b'"' if quoted && inner.get(i + 1) == Some(&b'"') => {
                out.push(b'"');
                i += 1;
            }
            b'"' if quoted => quoted = false,
            b => out.push(b),
        }
        i += 1;
    }
    std::borrow::Cow::Owned(out)
}

/// The index of the first header field named one of `names` (ignoring
/// case and surrounding spaces).
pub fn find_column(header: &[u8], names: &[&str]) -> Option<usize> {
    let fields = csv_fields(header);
    names.iter().find_map(|name| {
        fields
            .iter()
            .position(|f| String::from_utf8_lossy(f).trim().eq_ignore_ascii_case(name))
    })
}

/// The CSV header at the top of `data` (after a byte-order mark and
/// comments), when there is one.
pub fn csv_header(data: &[u8]) -> Option<&[u8]> {
    first_record(&data[bom_len(data)..]).filter(|l| is_csv_header(l))
}

/// Why the puzzles of an input cannot be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LayoutError(pub String);

/// Like [`detect`], and also finds the puzzle column of a CSV input with a
/// header: the column `column` names, else the first one called `puzzle`,
/// `quizzes`, `question`, `quiz` or `sudoku`, else the first column when
/// the first record opens with a puzzle (the puzzle-first layouts). A
/// header naming none of these, or a `--column` name the header lacks, is
/// an error that says which options to use. `--column N` on a file without
/// a header reads every line as a CSV record.
pub fn detect_layout(
    data: &[u8],
    forced: Option<InputFormat>,
    column: Option<&ColumnSpec>,
) -> Result<Detected, LayoutError> {
    if matches!(forced, Some(InputFormat::Npy(_))) || data.starts_with(npy::MAGIC) {
        return npy::parse_header(data)
            .map(npy_detected)
            .map_err(|e| LayoutError(e.to_string()));
    }
    let forced_csv = matches!(forced, Some(InputFormat::Csv(_)));
    let d = detect(data, forced.filter(|_| !forced_csv));
    let header = csv_header(data);
    let column = match (column, header) {
        (Some(ColumnSpec::Number(n)), _) => n - 1,
        (Some(ColumnSpec::Name(name)), Some(h)) => find_column(h, &[name.as_str()])
            .ok_or_else(|| {
                LayoutError(format!(
                    "no column named {name:?} in the header {:?}",
                    String::from_utf8_lossy(h)
                ))
            })?,
        (Some(ColumnSpec::Name(name)), None) => {
            return Err(LayoutError(format!(
                "--column {name} needs a header line naming the columns; use --column N for a file without one"
            )))
        }
        (None, Some(h)) if forced_csv || forced.is_none() => {
            match find_column(h, &PUZZLE_COLUMNS) {
                Some(k) => k,
                None if forced_csv => 0,
                // A header with other names over puzzle-first rows (as
                // before columns were read by name).
                None if first_opens_with_puzzle(&data[d.start..]) => 0,
                None => {
                    return Err(LayoutError(format!(
                        "cannot tell which column of {:?} holds the puzzles; name it with \
                         --column NAME or --column N (or --input line if each line opens \
                         with a puzzle)",
                        String::from_utf8_lossy(h)
                    )))
                }
            }
        }
        (None, None) if forced_csv => 0,
        // No header, and the first record does not open with a puzzle: a
        // headerless CSV (`id,puzzle,solution`) when one of its fields is
        // a puzzle of 81 cells, read from the first such field.
        (None, None) if forced.is_none() && d.format == InputFormat::Line => {
            match puzzle_field_of_first_record(&data[d.start..]) {
                Some(k) => k,
                None => return Ok(d),
            }
        }
        (None, _) => return Ok(d),
    };
    Ok(Detected {
        format: InputFormat::Csv(CsvLayout { column }),
        // After the header; without one, every line is a record.
        start: if header.is_some() {
            d.start
        } else {
            bom_len(data)
        },
        first_line: 1,
    })
}

/// The first record of `data`: its first line that is not blank or a
/// comment.
fn first_record(data: &[u8]) -> Option<&[u8]> {
    Lines { data, pos: 0 }
        .map(|(_, l)| l)
        .find(|l| !is_skipped(l))
}

/// True when the first record of `data` opens with a puzzle in its first
/// CSV field, or there is none.
fn first_opens_with_puzzle(data: &[u8]) -> bool {
    first_record(data)
        .is_none_or(|row| csv_field(row, 0).is_some_and(|f| Grid::parse_line(&f).is_ok()))
}

/// For a first record that does not open with a puzzle but has a CSV field
/// that is exactly an 81-cell puzzle, the index of the first such field.
fn puzzle_field_of_first_record(data: &[u8]) -> Option<usize> {
    if first_opens_with_puzzle(data) {
        return None;
    }
    let is_puzzle = |f: &[u8]| f.trim_ascii().len() == CELLS && Grid::parse_line(f).is_ok();
    csv_fields(first_record(data)?)
        .iter()
        .position(|f| is_puzzle(f))
}

/// An npy array's records: rows of its element type after its header,
/// numbered from 0.
fn npy_detected(h: npy::Header) -> Detected {
    Detected {
        format: InputFormat::Npy(h.dtype),
        start: h.data_offset,
        first_line: 0,
    }
}

/// One record as read: where it starts, its bytes, and its grid or the
/// reason it is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRecord<'a> {
    /// Line number of the record's first line.
    pub line: u64,
    /// The record's text: its line (without the line end) in line form, its
    /// lines from first to last row in grid form.
    pub raw: &'a [u8],
    pub puzzle: Result<Puzzle, ParseError>,
}

impl ParsedRecord<'_> {
    /// The givens, for commands that read puzzles of 81 cells only: a
    /// pencilmark puzzle is an error there.
    pub fn givens(&self) -> Result<Grid, ParseError> {
        self.puzzle
            .as_ref()
            .map_err(Clone::clone)
            .and_then(Puzzle::givens)
    }
}

/// Splits `data` into lines: `(offset, line)` pairs with line ends (`\n` or
/// `\r\n`) removed.
#[derive(Debug, Clone)]
struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<(usize, &'a [u8])> {
        if self.pos >= self.data.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.data[start..];
        let line = match memchr::memchr(b'\n', rest) {
            Some(p) => {
                self.pos = start + p + 1;
                &rest[..p]
            }
            None => {
                self.pos = self.data.len();
                rest
            }
        };
        Some((start, line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

/// Number of `\n` bytes in `data`. Counts in 32-byte lanes of byte-sized
/// counters (flushed before they can overflow) so the compiler emits compare
/// and subtract vector instructions: the splitter runs on the thread that
/// also writes the output, and a plain `filter().count()` was a visible share
/// of a 1,000,000-puzzle run.
pub fn count_newlines(data: &[u8]) -> u64 {
    const LANES: usize = 32;
    let mut total = 0u64;
    for block in data.chunks(255 * LANES) {
        let mut lanes = [0u8; LANES];
        let mut whole = block.chunks_exact(LANES);
        for c in &mut whole {
            let c: &[u8; LANES] = c.try_into().expect("exact chunk");
            for i in 0..LANES {
                lanes[i] = lanes[i].wrapping_add(u8::from(c[i] == b'\n'));
            }
        }
        total += lanes.iter().map(|&n| u64::from(n)).sum::<u64>();
        total += whole.remainder().iter().filter(|&&b| b == b'\n').count() as u64;
    }
    total
}

/// True for a blank line or a `#` comment: not a record.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(&b) => b == b'#',
    }
}

/// True for a CSV header such as `quizzes,solutions` or `puzzle,solution`:
/// comma-separated names (letters, digits, `_`, `-`, spaces) starting with a
/// letter, or one of the usual single-column names.
pub fn is_csv_header(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    // Names may be quoted (R and some exporters quote every field).
    let fields = csv_fields(line);
    let first_is_a_name = fields[0]
        .trim_ascii()
        .first()
        .is_some_and(u8::is_ascii_alphabetic);
    let names_only = fields.iter().all(|f| {
        f.iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' '))
    });
    if !first_is_a_name || !names_only {
        return false;
    }
    if fields.len() > 1 {
        return true;
    }
    let lower = fields[0].trim_ascii().to_ascii_lowercase();
    matches!(
        lower.as_slice(),
        b"puzzle" | b"puzzles" | b"quizzes" | b"quiz" | b"sudoku" | b"grid"
    )
}

/// What [`detect`] found at the top of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    pub format: InputFormat,
    /// Byte offset where records start (after a CSV header or count line).
    pub start: usize,
    /// Line number of the line at `start`.
    pub first_line: u64,
}

/// The UTF-8 byte-order mark some editors put at the top of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The length of a byte-order mark at the top of `data` (3 or 0).
pub fn bom_len(data: &[u8]) -> usize {
    if data.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// Decides the form of an input (grid form when, after an optional count or
/// title line, its first nine non-separator lines are grid rows) and skips a
/// byte-order mark, a CSV header or the contest form's leading count line.
/// `forced` overrides the detected form.
pub fn detect(data: &[u8], forced: Option<InputFormat>) -> Detected {
    if let Ok(h) = npy::parse_header(data) {
        return npy_detected(h);
    }
    let bom = bom_len(data);
    let d = detect_after_bom(&data[bom..], forced);
    Detected {
        start: d.start + bom,
        ..d
    }
}

fn detect_after_bom(data: &[u8], forced: Option<InputFormat>) -> Detected {
    let mut lines = Lines { data, pos: 0 };
    let mut number = 0u64;
    let (offset, line) = loop {
        match lines.next() {
            None => {
                return Detected {
                    format: forced.unwrap_or(InputFormat::Line),
                    start: 0,
                    first_line: 1,
                }
            }
            Some((offset, line)) => {
                number += 1;
                if !is_skipped(line) {
                    break (offset, line);
                }
            }
        }
    };
    let after_first = Detected {
        format: InputFormat::Line,
        start: lines.pos,
        first_line: number + 1,
    };
    let at_first = Detected {
        format: InputFormat::Line,
        start: offset,
        first_line: number,
    };
    let format = forced.unwrap_or_else(|| {
        if looks_like_grid(&data[offset..]) {
            InputFormat::Grid
        } else {
            InputFormat::Line
        }
    });
    match format {
        InputFormat::Line | InputFormat::Pencilmark if is_csv_header(line) => Detected {
            format,
            ..after_first
        },
        InputFormat::Grid if is_count_line(line) => Detected {
            format,
            ..after_first
        },
        _ => Detected { format, ..at_first },
    }
}

/// True when `data` opens with a grid-form puzzle: an optional count or
/// title line, then nine grid rows (separator lines between them allowed).
fn looks_like_grid(data: &[u8]) -> bool {
    let mut rows = 0;
    for (i, (_, line)) in (Lines { data, pos: 0 })
        .filter(|(_, l)| !is_skipped(l))
        .enumerate()
    {
        if i == 0 && (is_count_line(line) || is_title(line)) {
            continue;
        }
        if is_separator_line(line) {
            continue;
        }
        if !is_grid_row(line) {
            return false;
        }
        rows += 1;
        if rows == 9 {
            return true;
        }
    }
    false
}

/// A line holding only a number shorter than a grid row: the puzzle count
/// at the top of the contest form.
fn is_count_line(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    !t.is_empty() && t.len() < 9 && t.iter().all(u8::is_ascii_digit)
}

/// A line of `-`, `+`, `=`, `|` and spaces with at least one rule character.
fn is_separator_line(line: &[u8]) -> bool {
    line.iter().any(|&b| matches!(b, b'-' | b'=' | b'+'))
        && line
            .iter()
            .all(|&b| matches!(b, b'-' | b'=' | b'+' | b'|' | b' ' | b'\t'))
}

/// A title line such as `Grid 01`: starts with a letter.
fn is_title(line: &[u8]) -> bool {
    line.trim_ascii_start()
        .first()
        .is_some_and(u8::is_ascii_alphabetic)
}

/// Bytes that may stand between the cells of a grid row.
fn is_row_filler(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'|')
}

fn is_grid_row(line: &[u8]) -> bool {
    parse_row(line).is_ok()
}

/// The nine cells of a grid row, or what is wrong with it.
fn parse_row(line: &[u8]) -> Result<[u8; 9], ParseError> {
    let mut cells = [0u8; 9];
    let mut n = 0;
    for (i, &b) in line.iter().enumerate() {
        if is_row_filler(b) {
            continue;
        }
        let v = match b {
            b'1'..=b'9' => b - b'0',
            b'.' | b'0' => 0,
            _ => {
                return Err(ParseError::BadChar {
                    column: char_column(line, i),
                    found: char_at(line, i),
                })
            }
        };
        if n < 9 {
            cells[n] = v;
        }
        n += 1;
    }
    if n != 9 {
        return Err(ParseError::RowCells { cells: n });
    }
    Ok(cells)
}

/// Records of line-form bytes.
#[derive(Debug, Clone)]
pub struct LineRecords<'a> {
    lines: Lines<'a>,
    next_line: u64,
    /// Every line read as pencilmarks ([`InputFormat::Pencilmark`]).
    marks: bool,
}

impl<'a> Iterator for LineRecords<'a> {
    type Item = ParsedRecord<'a>;

    #[inline]
    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        // Most lines are 81 cells and a line end: read those in one pass,
        // without searching for the line end first. The cell check rules
        // out an earlier `\n`, so the line is exactly these 81 bytes.
        let rest = &self.lines.data[self.lines.pos..];
        if let (false, Some(cells)) = (self.marks, rest.first_chunk::<CELLS>()) {
            let end = match (rest.get(CELLS), rest.get(CELLS + 1)) {
                (Some(b'\n'), _) => Some(CELLS + 1),
                (Some(b'\r'), Some(b'\n')) => Some(CELLS + 2),
                _ => None,
            };
            if let Some(end) = end {
                if let Some(grid) = Grid::from_cell_text(cells) {
                    self.lines.pos += end;
                    let number = self.next_line;
                    self.next_line += 1;
                    return Some(ParsedRecord {
                        line: number,
                        raw: cells,
                        puzzle: Ok(Puzzle::Givens(grid)),
                    });
                }
            }
        }
        for (_, line) in self.lines.by_ref() {
            let number = self.next_line;
            self.next_line += 1;
            if !is_skipped(line) {
                return Some(ParsedRecord {
                    line: number,
                    raw: line,
                    puzzle: if self.marks {
                        Puzzle::parse_marks(line)
                    } else {
                        Puzzle::parse_line(line)
                    },
                });
            }
        }
        None
    }
}

/// Records of grid-form bytes.
#[derive(Debug, Clone)]
pub struct GridRecords<'a> {
    lines: Lines<'a>,
    next_line: u64,
}

impl<'a> GridRecords<'a> {
    /// The next record, the byte offset just past its last row, and whether
    /// it was closed (by its ninth row, or a blank, comment or title line)
    /// rather than cut short by the end of the data; `None` at the end. A
    /// record with fewer than nine rows is returned as malformed.
    fn next_with_end(&mut self) -> Option<(ParsedRecord<'a>, usize, bool)> {
        let data = self.lines.data;
        let mut cells = [0u8; CELLS];
        let mut rows = 0usize;
        let mut first: Option<(u64, usize)> = None;
        let mut error: Option<ParseError> = None;
        let mut last_end = 0usize;
        let mut closed = false;
        for (offset, line) in self.lines.by_ref() {
            let number = self.next_line;
            self.next_line += 1;
            if is_skipped(line) || is_title(line) {
                if rows > 0 {
                    closed = true;
                    break;
                }
                continue;
            }
            if is_separator_line(line) {
                continue;
            }
            if first.is_none() {
                first = Some((number, offset));
            }
            match parse_row(line) {
                Ok(row) => cells[9 * rows..9 * rows + 9].copy_from_slice(&row),
                Err(e) => {
                    error.get_or_insert(ParseError::GridRow {
                        row: rows + 1,
                        detail: Box::new(e),
                    });
                }
            }
            rows += 1;
            last_end = offset + line.len();
            if rows == 9 {
                closed = true;
                break;
            }
        }
        let (line, start) = first?;
        let puzzle = match error {
            Some(e) => Err(e),
            None if rows < 9 => Err(ParseError::IncompleteGrid { rows }),
            None => Ok(Puzzle::Givens(
                Grid::from_cells(cells).expect("cells are digits"),
            )),
        };
        Some((
            ParsedRecord {
                line,
                raw: &data[start..last_end],
                puzzle,
            },
            last_end,
            closed,
        ))
    }
}

impl<'a> Iterator for GridRecords<'a> {
    type Item = ParsedRecord<'a>;

    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        self.next_with_end().map(|(r, _, _)| r)
    }
}

/// Records of CSV bytes: one per CSV record (which may span lines), the
/// puzzle read from its column, numbered by data row.
#[derive(Debug, Clone)]
pub struct CsvRecords<'a> {
    data: &'a [u8],
    pos: usize,
    next_row: u64,
    column: usize,
}

impl<'a> Iterator for CsvRecords<'a> {
    type Item = ParsedRecord<'a>;

    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        while self.pos < self.data.len() {
            let rest = &self.data[self.pos..];
            let end = record_text_end(rest, true);
            self.pos += end;
            let text = trim_line_end(&rest[..end]);
            if is_skipped(text) {
                continue;
            }
            let row = self.next_row;
            self.next_row += 1;
            let puzzle = match csv_field(text, self.column) {
                _ if end > MAX_RECORD => Err(ParseError::RecordTooLong),
                Some(field) => Puzzle::parse_line(&field),
                None => Err(ParseError::MissingColumn {
                    column: self.column + 1,
                    fields: csv_fields(text).len(),
                }),
            };
            // A record over MAX_RECORD is shown by its first MAX_RECORD
            // bytes, all a stream keeps of it (and more than enough).
            let raw = if end > MAX_RECORD {
                &text[..text.len().min(MAX_RECORD)]
            } else {
                text
            };
            return Some(ParsedRecord {
                line: row,
                raw,
                puzzle,
            });
        }
        None
    }
}

/// Records of an npy array's bytes: one per row, numbered by row index.
#[derive(Debug, Clone)]
pub struct NpyRecords<'a> {
    data: &'a [u8],
    pos: usize,
    next_row: u64,
    dtype: Dtype,
}

impl<'a> Iterator for NpyRecords<'a> {
    type Item = ParsedRecord<'a>;

    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        let end = (self.pos + self.dtype.row_bytes()).min(self.data.len());
        let raw = &self.data[self.pos..end];
        self.pos = end;
        let row = self.next_row;
        self.next_row += 1;
        Some(ParsedRecord {
            line: row,
            raw,
            puzzle: self.dtype.grid(raw).map(Puzzle::Givens),
        })
    }
}

/// Records of packed table rows ([`InputFormat::Rows`]): one per row,
/// numbered by row index.
#[derive(Debug, Clone)]
pub struct RowRecords<'a> {
    data: &'a [u8],
    pos: usize,
    next_row: u64,
}

impl<'a> Iterator for RowRecords<'a> {
    type Item = ParsedRecord<'a>;

    #[inline]
    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        if self.pos >= self.data.len() {
            return None;
        }
        // Most rows are 81 cells: read those in one pass, as lines are.
        let rest = &self.data[self.pos..];
        if let Some((length, cells)) = rest.split_first_chunk::<4>() {
            if let (81, Some(cells)) = (u32::from_le_bytes(*length), cells.first_chunk::<CELLS>()) {
                if let Some(grid) = Grid::from_cell_text(cells) {
                    self.pos += 4 + CELLS;
                    let row = self.next_row;
                    self.next_row += 1;
                    return Some(ParsedRecord {
                        line: row,
                        raw: cells,
                        puzzle: Ok(Puzzle::Givens(grid)),
                    });
                }
            }
        }
        let (text, len) = packed_row(&self.data[self.pos..]);
        self.pos += len;
        let row = self.next_row;
        self.next_row += 1;
        Some(match text {
            Some(raw) => ParsedRecord {
                line: row,
                raw,
                puzzle: Puzzle::parse_line(raw),
            },
            None => ParsedRecord {
                line: row,
                raw: &[],
                puzzle: Err(ParseError::Null),
            },
        })
    }
}

/// Records of any form.
#[derive(Debug, Clone)]
pub enum ParsedRecords<'a> {
    Line(LineRecords<'a>),
    Grid(GridRecords<'a>),
    Csv(CsvRecords<'a>),
    Npy(NpyRecords<'a>),
    Rows(RowRecords<'a>),
}

impl ParsedRecords<'_> {
    /// The number of the line after the last one read: once the iterator is
    /// done, the first line number plus the lines of the data.
    pub fn next_line(&self) -> u64 {
        match self {
            ParsedRecords::Line(r) => r.next_line,
            ParsedRecords::Grid(r) => r.next_line,
            ParsedRecords::Csv(r) => r.next_row,
            ParsedRecords::Npy(r) => r.next_row,
            ParsedRecords::Rows(r) => r.next_row,
        }
    }

    /// The byte offset reading has reached: records read so far end before
    /// it, and the next starts at or after it.
    pub fn offset(&self) -> usize {
        match self {
            ParsedRecords::Line(r) => r.lines.pos,
            ParsedRecords::Grid(r) => r.lines.pos,
            ParsedRecords::Csv(r) => r.pos,
            ParsedRecords::Npy(r) => r.pos,
            ParsedRecords::Rows(r) => r.pos,
        }
    }
}

impl<'a> Iterator for ParsedRecords<'a> {
    type Item = ParsedRecord<'a>;

    #[inline]
    fn next(&mut self) -> Option<ParsedRecord<'a>> {
        match self {
            ParsedRecords::Line(r) => r.next(),
            ParsedRecords::Grid(r) => r.next(),
            ParsedRecords::Csv(r) => r.next(),
            ParsedRecords::Npy(r) => r.next(),
            ParsedRecords::Rows(r) => r.next(),
        }
    }
}

/// The records of `data`, whose first line is number `first_line`.
pub fn records(data: &[u8], first_line: u64, format: InputFormat) -> ParsedRecords<'_> {
    let lines = Lines { data, pos: 0 };
    match format {
        InputFormat::Line | InputFormat::Pencilmark => ParsedRecords::Line(LineRecords {
            lines,
            next_line: first_line,
            marks: format == InputFormat::Pencilmark,
        }),
        InputFormat::Grid => ParsedRecords::Grid(GridRecords {
            lines,
            next_line: first_line,
        }),
        InputFormat::Csv(layout) => ParsedRecords::Csv(CsvRecords {
            data,
            pos: 0,
            next_row: first_line,
            column: layout.column,
        }),
        InputFormat::Npy(dtype) => ParsedRecords::Npy(NpyRecords {
            data,
            pos: 0,
            next_row: first_line,
            dtype,
        }),
        InputFormat::Rows => ParsedRecords::Rows(RowRecords {
            data,
            pos: 0,
            next_row: first_line,
        }),
    }
}

/// Skips up to `n` records of `data`; returns how many were skipped, the
/// byte offset after the last one and the line number there.
pub fn skip_records(
    data: &[u8],
    first_line: u64,
    format: InputFormat,
    n: u64,
) -> (u64, usize, u64) {
    let mut skipped = 0;
    let mut lines = Lines { data, pos: 0 };
    let mut line_no = first_line;
    match format {
        InputFormat::Line | InputFormat::Pencilmark => {
            while skipped < n {
                let Some((_, line)) = lines.next() else { break };
                line_no += 1;
                if !is_skipped(line) {
                    skipped += 1;
                }
            }
            (skipped, lines.pos, line_no)
        }
        InputFormat::Grid => {
            let mut g = GridRecords {
                lines,
                next_line: first_line,
            };
            let mut end = 0;
            while skipped < n {
                let Some((_, e, _)) = g.next_with_end() else {
                    break;
                };
                skipped += 1;
                end = e;
            }
            // Resume after the line the last skipped record ended on.
            let (pos, line) = if skipped == 0 {
                (0, first_line)
            } else {
                let nl = data[end..].iter().position(|&b| b == b'\n');
                let pos = nl.map_or(data.len(), |p| end + p + 1);
                let line = first_line + count_newlines(&data[..pos]);
                (pos, line)
            };
            (skipped, pos, line)
        }
        InputFormat::Csv(layout) => {
            let mut r = CsvRecords {
                data,
                pos: 0,
                next_row: first_line,
                column: layout.column,
            };
            while skipped < n && r.next().is_some() {
                skipped += 1;
            }
            (skipped, r.pos, r.next_row)
        }
        InputFormat::Npy(dtype) => {
            let rows = (data.len() as u64).div_ceil(dtype.row_bytes() as u64);
            let skipped = n.min(rows);
            let pos = (skipped as usize * dtype.row_bytes()).min(data.len());
            (skipped, pos, first_line + skipped)
        }
        InputFormat::Rows => {
            let mut pos = 0;
            while skipped < n && pos < data.len() {
                pos += packed_row(&data[pos..]).1;
                skipped += 1;
            }
            (skipped, pos, first_line + skipped)
        }
    }
}

/// A piece of an input that starts on a record boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub data: &'a [u8],
    /// Line number of the chunk's first line.
    pub first_line: u64,
    pub format: InputFormat,
}

/// Cuts an input into chunks of about `target` bytes on record boundaries,
/// lazily, counting line numbers as it goes (unless told not to). Chunks
/// can also shrink as the input runs out ([`ChunkSplitter::shrinking`]).
#[derive(Debug, Clone)]
pub struct ChunkSplitter<'a> {
    data: &'a [u8],
    cursor: ChunkCursor,
}

/// Where a [`ChunkSplitter`] is, without the data: for a caller that holds
/// the data in a way a borrow cannot follow (a shared map handed out chunk
/// by chunk), and passes it to [`ChunkCursor::next_chunk`] each time.
#[derive(Debug, Clone)]
pub struct ChunkCursor {
    pos: usize,
    line: u64,
    format: InputFormat,
    target: usize,
    /// Set by `shrinking`: (parts of the rest per chunk, smallest target).
    shrink: Option<(usize, usize)>,
    count_lines: bool,
    /// No chunk handed out yet.
    fresh: bool,
}

impl ChunkCursor {
    /// A cursor at the start of data whose first line is `first_line`.
    pub fn new(first_line: u64, format: InputFormat, target: usize) -> Self {
        ChunkCursor {
            pos: 0,
            line: first_line,
            format,
            target: target.max(1),
            shrink: None,
            count_lines: true,
            fresh: true,
        }
    }

    /// See [`ChunkSplitter::shrinking`].
    pub fn shrinking(mut self, parts: usize, smallest: usize) -> Self {
        self.shrink = Some((parts.max(1), smallest.clamp(1, self.target)));
        self
    }

    /// See [`ChunkSplitter::without_line_numbers`].
    pub fn without_line_numbers(mut self) -> Self {
        self.count_lines = false;
        self
    }

    /// Starts cutting at byte `start` of the data (after a header); the
    /// line number given to `new` is that of the line there.
    pub fn starting_at(mut self, start: usize) -> Self {
        self.pos = start;
        self.fresh = true;
        self
    }

    /// True before the first chunk is handed out.
    pub fn at_start(&self) -> bool {
        self.fresh
    }

    /// The form of the records cut.
    pub fn format(&self) -> InputFormat {
        self.format
    }

    /// The next chunk of `data` (the same data at every call), as a byte
    /// range and its first line number; `None` at the end.
    pub fn next_range(&mut self, data: &[u8]) -> Option<(std::ops::Range<usize>, u64)> {
        let rest = &data[self.pos..];
        if rest.is_empty() {
            return None;
        }
        let target = match self.shrink {
            Some((parts, smallest)) => (rest.len() / parts).clamp(smallest, self.target),
            None => self.target,
        };
        let len = match self.format {
            InputFormat::Line | InputFormat::Pencilmark => line_cut(rest, target),
            InputFormat::Grid => grid_cut(rest, target),
            InputFormat::Csv(_) => csv_cut(rest, target),
            InputFormat::Npy(dtype) => {
                let row = dtype.row_bytes();
                (target.div_ceil(row) * row).min(rest.len())
            }
            InputFormat::Rows => rows_cut(rest, target),
        };
        let first_line = self.line;
        self.line = if self.count_lines {
            self.line + units_in(&rest[..len], self.format)
        } else {
            1
        };
        let range = self.pos..self.pos + len;
        self.pos += len;
        self.fresh = false;
        Some((range, first_line))
    }

    /// The next chunk of `data` (the same data at every call).
    pub fn next_chunk<'a>(&mut self, data: &'a [u8]) -> Option<Chunk<'a>> {
        let format = self.format;
        self.next_range(data).map(|(range, first_line)| Chunk {
            data: &data[range],
            first_line,
            format,
        })
    }
}

impl<'a> ChunkSplitter<'a> {
    pub fn new(data: &'a [u8], first_line: u64, format: InputFormat, target: usize) -> Self {
        ChunkSplitter {
            data,
            cursor: ChunkCursor::new(first_line, format, target),
        }
    }

    /// Makes each chunk about `1 / parts` of the bytes still to cut, between
    /// `smallest` and the splitter's target: large chunks while much is left,
    /// small ones at the end (guided self-scheduling). A pool that takes
    /// chunks in order then finishes together: the last chunks are short,
    /// so no thread is left solving a long one while the others idle.
    pub fn shrinking(mut self, parts: usize, smallest: usize) -> Self {
        self.cursor = self.cursor.shrinking(parts, smallest);
        self
    }

    /// Stops counting lines: chunks after the first then carry line number
    /// 1, and whoever consumes them in order rebases the numbers (by the
    /// chunks' own newline counts). Saves the splitting thread a pass over
    /// every byte, which on a mapped file is also the first touch of each
    /// page.
    pub fn without_line_numbers(mut self) -> Self {
        self.cursor = self.cursor.without_line_numbers();
        self
    }

    /// True before the first chunk is handed out.
    pub fn at_start(&self) -> bool {
        self.cursor.at_start()
    }
}

impl<'a> Iterator for ChunkSplitter<'a> {
    type Item = Chunk<'a>;

    fn next(&mut self) -> Option<Chunk<'a>> {
        self.cursor.next_chunk(self.data)
    }
}

/// Length of the first line-form chunk of `rest`: through the first `\n`
/// at or after `target` bytes, or all of it.
fn line_cut(rest: &[u8], target: usize) -> usize {
    let from = target.min(rest.len());
    match rest[from..].iter().position(|&b| b == b'\n') {
        Some(p) => from + p + 1,
        None => rest.len(),
    }
}

/// Length of the first packed-rows chunk of `rest`: whole rows until at
/// least `target` bytes, or all of it.
fn rows_cut(rest: &[u8], target: usize) -> usize {
    let mut pos = 0;
    while pos < target && pos < rest.len() {
        pos += packed_row(&rest[pos..]).1;
    }
    pos
}

/// Length of the first CSV chunk of `rest`: through the first record end
/// at or after `target` bytes, or all of it.
fn csv_cut(rest: &[u8], target: usize) -> usize {
    csv_record_end_from(rest, target).unwrap_or(rest.len())
}

/// What numbers records in `format`, counted in `data`: lines, or CSV
/// data rows (records that are not blank or comments).
pub fn units_in(data: &[u8], format: InputFormat) -> u64 {
    match format {
        InputFormat::Npy(dtype) => (data.len() as u64).div_ceil(dtype.row_bytes() as u64),
        InputFormat::Csv(_) => csv_rows(data),
        InputFormat::Rows => skip_records(data, 0, InputFormat::Rows, u64::MAX).0,
        _ => count_newlines(data),
    }
}

/// CSV data rows in `data`: whole records that are not blank or comments,
/// and an unfinished last one.
fn csv_rows(data: &[u8]) -> u64 {
    let (n, whole) = count_csv_records(data);
    n + u64::from(whole < data.len() && !is_skipped(&data[whole..]))
}

/// Length of the first grid-form chunk of `rest`: whole records until at
/// least `target` bytes, ending after the line a record ends on.
fn grid_cut(rest: &[u8], target: usize) -> usize {
    let mut g = GridRecords {
        lines: Lines { data: rest, pos: 0 },
        next_line: 1,
    };
    while let Some((_, end, _)) = g.next_with_end() {
        if end >= target {
            return rest[end..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |p| end + p + 1);
        }
    }
    rest.len()
}

/// The length of the longest prefix of `buf` that ends on a record boundary
/// when more data may follow: after the last `\n` (line form), or after the
/// last grid record known to be complete (grid form). 0 when there is none.
pub fn complete_prefix(buf: &[u8], format: InputFormat) -> usize {
    Framing::from(format).complete_prefix(buf)
}

/// [`complete_prefix`] for grid form.
fn grid_complete_prefix(buf: &[u8]) -> usize {
    let Some(last_nl) = buf.iter().rposition(|&b| b == b'\n') else {
        return 0;
    };
    // Records the scan completes before the last line end are complete;
    // the last one may still be growing.
    let whole = &buf[..last_nl + 1];
    let mut g = GridRecords {
        lines: Lines {
            data: whole,
            pos: 0,
        },
        next_line: 1,
    };
    let mut boundary = 0;
    while let Some((_, end, closed)) = g.next_with_end() {
        if !closed {
            break;
        }
        boundary = whole[end..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(whole.len(), |p| end + p + 1);
    }
    boundary
}

/// How a stream is cut into chunks: after whole lines, whole grid-form
/// records, or whole CSV records (a quoted field may hold line ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Line,
    Grid,
    Csv,
    /// Fixed-size rows of this many bytes (an npy array).
    Rows(usize),
    /// Packed table rows ([`InputFormat::Rows`]).
    Packed,
}

impl Framing {
    /// The length of the longest prefix of `buf` that ends on a record
    /// boundary when more data may follow (see [`complete_prefix`]).
    pub fn complete_prefix(self, buf: &[u8]) -> usize {
        match self {
            Framing::Line => buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1),
            Framing::Grid => grid_complete_prefix(buf),
            Framing::Csv => csv_complete_prefix(buf),
            Framing::Rows(n) => buf.len() / n * n,
            Framing::Packed => {
                let mut pos = 0;
                while let Some((len, _)) = packed_row_end(&buf[pos..]) {
                    if pos + len > buf.len() {
                        break;
                    }
                    pos += len;
                }
                pos
            }
        }
    }
}

impl From<InputFormat> for Framing {
    fn from(f: InputFormat) -> Framing {
        match f {
            InputFormat::Line | InputFormat::Pencilmark => Framing::Line,
            InputFormat::Grid => Framing::Grid,
            InputFormat::Csv(_) => Framing::Csv,
            InputFormat::Npy(dtype) => Framing::Rows(dtype.row_bytes()),
            InputFormat::Rows => Framing::Packed,
        }
    }
}

/// The longest line a stream keeps: the rest of a longer line is dropped as
/// it is read (the line is malformed either way: a puzzle line is under 200
/// bytes), so memory stays bounded on `/dev/zero` or a file without line
/// ends. CSV records are bounded by [`MAX_RECORD`] instead.
pub const MAX_LINE: usize = 64 << 10;

/// The most a stream holds while waiting for a grid-form record to end:
/// beyond it the bytes held are handed out as they are (a grid-form record
/// that long is malformed anyway). Also the longest CSV record read, line
/// end included, mapped or streamed alike: a longer one is malformed
/// ([`ParseError::RecordTooLong`]), and a stream keeps only its first
/// bytes, so a quoted field may be long and may hold line ends without
/// costing more memory than this or losing the records after it.
pub const MAX_RECORD: usize = 1 << 20;

/// Bytes a stream reads per chunk.
pub const STREAM_CHUNK: usize = 256 << 10;

/// A piece of a stream that starts and ends on record boundaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamChunk {
    pub data: Vec<u8>,
    /// Line number of the chunk's first line.
    pub first_line: u64,
}

/// A stream (standard input, a pipe, a FIFO, a device) read in chunks that
/// end on record boundaries, in bounded memory: at most [`STREAM_CHUNK`]
/// bytes plus one record, lines capped at [`MAX_LINE`] bytes (CSV records
/// at [`MAX_RECORD`]), and stretches of blank and comment lines dropped as
/// they go by.
#[derive(Debug)]
pub struct StreamChunks<R> {
    reader: R,
    /// Bytes read but not yet handed out.
    carry: Vec<u8>,
    /// Line number of `carry[0]`.
    line: u64,
    eof: bool,
    /// How records end; `None` until the caller has looked at the top and
    /// said (nothing is capped before: the top is read whole).
    framing: Option<Framing>,
    /// Bytes of the last, unfinished line in `carry`.
    open_line: usize,
    /// Number CSV data rows instead of lines (see `number_rows_from`).
    count_rows: bool,
    /// A binary array (npy): bytes kept as they come, no lines.
    raw: bool,
    /// Dropping the rest of a line longer than [`MAX_LINE`].
    dropping: bool,
    /// CSV: the quoting at the end of `carry`, in its unfinished record.
    quotes: CsvQuotes,
    /// CSV: bytes of the unfinished record in `carry`.
    open_record: usize,
    /// CSV: dropping the rest of a record longer than [`MAX_RECORD`].
    dropping_record: bool,
    /// CSV: records cut at [`MAX_RECORD`], in order: where each ends in
    /// `carry`, and the line ends dropped from it (counted back when it is
    /// handed out, so line numbers after it stay right).
    cut_records: std::collections::VecDeque<(usize, u64)>,
}

impl<R: std::io::Read> StreamChunks<R> {
    /// A stream read uncut until its framing is set
    /// ([`StreamChunks::set_framing`]).
    pub fn new(reader: R) -> Self {
        StreamChunks {
            reader,
            carry: Vec::new(),
            line: 1,
            eof: false,
            framing: None,
            open_line: 0,
            dropping: false,
            count_rows: false,
            raw: false,
            quotes: CsvQuotes::new(),
            open_record: 0,
            dropping_record: false,
            cut_records: std::collections::VecDeque::new(),
        }
    }

    /// Numbers what follows by CSV data row, the next being `first`
    /// (records of [`InputFormat::Csv`] are numbered so), instead of by line.
    pub fn number_rows_from(&mut self, first: u64) {
        self.line = first;
        self.count_rows = true;
    }

    /// Says how records end, from what is held on: the bytes held (from a
    /// record boundary) are capped as if they had just been read.
    pub fn set_framing(&mut self, framing: Framing) {
        self.framing = Some(framing);
        let held = std::mem::take(&mut self.carry);
        self.open_line = 0;
        self.dropping = false;
        self.quotes = CsvQuotes::new();
        self.open_record = 0;
        self.dropping_record = false;
        self.cut_records.clear();
        self.append(&held);
    }

    fn framing(&self) -> Framing {
        self.framing.unwrap_or(Framing::Line)
    }

    /// The top of the stream, for telling its form: leading blank and
    /// comment lines are dropped (however many), then at least
    /// [`STREAM_CHUNK`] bytes are held, or all there is. Returns the bytes
    /// and the line number of the first.
    pub fn top(&mut self) -> std::io::Result<(&[u8], u64)> {
        // One read of up to 64 KiB, so an npy array's magic is seen before
        // any line rule could touch its bytes.
        self.fill(npy::MAGIC.len())?;
        if self.carry.starts_with(npy::MAGIC) {
            self.raw = true;
            self.fill(STREAM_CHUNK)?;
            return Ok((&self.carry, self.line));
        }
        if self.line == 1 && self.carry.starts_with(BOM) {
            self.carry.drain(..BOM.len());
        }
        loop {
            self.fill(STREAM_CHUNK)?;
            let held = self.carry.len();
            self.drop_skipped_lines();
            if self.carry.len() == held || self.eof {
                break;
            }
        }
        Ok((&self.carry, self.line))
    }

    /// Drops the first `n` bytes held (a header the caller recognised),
    /// before the framing is set.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.carry.len());
        self.line += count_newlines(&self.carry[..n]);
        self.carry.drain(..n);
    }

    /// Drops whole blank and comment records at the front of `carry`: lines,
    /// or CSV records (which may span lines).
    fn drop_skipped_lines(&mut self) {
        if self.raw {
            return;
        }
        let csv = self.framing == Some(Framing::Csv);
        let mut keep_from = 0;
        let mut dropped_lines = 0u64;
        while keep_from < self.carry.len() {
            let rest = &self.carry[keep_from..];
            let end = if csv {
                csv_record_end_from(rest, 0)
            } else {
                memchr::memchr(b'\n', rest).map(|p| p + 1)
            };
            // An unfinished last record, or one to keep.
            let Some(end) = end.filter(|&end| is_skipped(trim_line_end(&rest[..end]))) else {
                break;
            };
            dropped_lines += if csv { count_newlines(&rest[..end]) } else { 1 };
            keep_from += end;
        }
        if keep_from == 0 {
            return;
        }
        self.carry.drain(..keep_from);
        // Skipped records are not data rows.
        if !self.count_rows {
            self.line += dropped_lines;
        }
        while let Some(&(end, dropped)) = self.cut_records.front() {
            if end > keep_from {
                break;
            }
            self.cut_records.pop_front();
            if !self.count_rows {
                self.line += dropped;
            }
        }
        for (end, _) in self.cut_records.iter_mut() {
            *end -= keep_from;
        }
    }

    /// Appends read bytes, capped as the framing says.
    fn append(&mut self, bytes: &[u8]) {
        match self.framing {
            _ if self.raw => self.carry.extend_from_slice(bytes),
            None => self.carry.extend_from_slice(bytes),
            Some(Framing::Csv) => self.append_csv(bytes),
            Some(_) => self.append_lines(bytes),
        }
    }

    /// Appends read bytes, cutting every line at [`MAX_LINE`] bytes.
    fn append_lines(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let nl = memchr::memchr(b'\n', bytes);
            if self.dropping {
                match nl {
                    Some(p) => {
                        self.dropping = false;
                        bytes = &bytes[p..];
                        continue;
                    }
                    None => return,
                }
            }
            let line_end = nl.unwrap_or(bytes.len());
            let room = MAX_LINE.saturating_sub(self.open_line);
            let take = line_end.min(room);
            self.carry.extend_from_slice(&bytes[..take]);
            match nl {
                // The line ends here: kept whole, or its first MAX_LINE
                // bytes when it is longer.
                Some(p) => {
                    self.carry.push(b'\n');
                    self.open_line = 0;
                    bytes = &bytes[p + 1..];
                }
                None => {
                    self.open_line += take;
                    self.dropping = bytes.len() > room;
                    return;
                }
            }
        }
    }

    /// Appends read CSV bytes, keeping at most `MAX_RECORD + 1` bytes of a
    /// record: a longer one (malformed, however it is read) is closed there
    /// (with a `"` first when it is inside quotes) and the rest of it
    /// dropped as it is read, its quotes still followed to find where it
    /// ends.
    fn append_csv(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.dropping_record {
                let end = self.quotes.scan(bytes, b'\n', |_| false);
                let (dropped, ended) = match end {
                    Some(nl) => (&bytes[..nl], true),
                    None => (bytes, false),
                };
                if let Some(cut) = self.cut_records.back_mut() {
                    cut.1 += count_newlines(dropped);
                }
                if !ended {
                    return;
                }
                self.dropping_record = false;
                self.open_record = 0;
                bytes = &bytes[dropped.len() + 1..];
                continue;
            }
            let room = (MAX_RECORD + 1 - self.open_record).min(bytes.len());
            let mut last_end = None;
            self.quotes.scan(&bytes[..room], b'\n', |nl| {
                last_end = Some(nl + 1);
                true
            });
            match last_end {
                // Whole records, then the start of the next.
                Some(end) => {
                    self.carry.extend_from_slice(&bytes[..room]);
                    self.open_record = room - end;
                }
                None => {
                    self.carry.extend_from_slice(&bytes[..room]);
                    self.open_record += room;
                }
            }
            bytes = &bytes[room..];
            if self.open_record > MAX_RECORD {
                // Closed here, where nothing of it is quoted any more.
                if self.quotes.quoted() {
                    self.carry.push(b'"');
                }
                self.carry.push(b'\n');
                self.cut_records.push_back((self.carry.len(), 0));
                self.dropping_record = true;
            }
        }
    }

    /// Reads until `carry` holds at least `want` bytes, the input ends, or
    /// the last line is over-long (`carry` cannot grow until it ends).
    fn fill(&mut self, want: usize) -> std::io::Result<()> {
        while !self.eof && self.carry.len() < want && !self.dropping {
            self.read_once()?;
        }
        Ok(())
    }

    /// Reads and drops the rest of an over-long line or CSV record (in
    /// bounded memory, however long it is), so that the line ends dropped
    /// from it are all counted before it is handed out.
    fn finish_dropped_line(&mut self) -> std::io::Result<()> {
        while (self.dropping || self.dropping_record) && !self.eof {
            self.read_once()?;
        }
        Ok(())
    }

    /// One read from the stream, appended (with lines capped).
    fn read_once(&mut self) -> std::io::Result<()> {
        let mut buf = [0u8; 64 << 10];
        match self.reader.read(&mut buf) {
            Ok(0) => self.eof = true,
            Ok(n) => self.append(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The next chunk of whole records; `None` at the end of the stream.
    /// Cut after lines unless told otherwise.
    pub fn next_chunk(&mut self) -> std::io::Result<Option<StreamChunk>> {
        if self.framing.is_none() {
            self.set_framing(Framing::Line);
        }
        let mut want = STREAM_CHUNK;
        let framing = self.framing();
        loop {
            self.fill(want)?;
            if (self.dropping || self.dropping_record) && !self.eof {
                self.finish_dropped_line()?;
                continue;
            }
            if self.carry.is_empty() && self.eof {
                return Ok(None);
            }
            let mut cut = if self.eof {
                self.carry.len()
            } else {
                framing.complete_prefix(&self.carry)
            };
            if cut == 0 {
                // Nothing whole yet: drop a stretch of comments (grid form
                // holds them until a record closes), else read on up to
                // MAX_RECORD, then hand out what there is. A CSV record is
                // closed by `append_csv` within MAX_RECORD + 2 bytes, so
                // reading on always ends one.
                let held = self.carry.len();
                self.drop_skipped_lines();
                if self.carry.len() < held {
                    continue;
                }
                if framing == Framing::Csv {
                    // (Twice as much each time, so a stream of small reads
                    // is not scanned again for every one.)
                    want = (held * 2).clamp(STREAM_CHUNK, MAX_RECORD + 2);
                    continue;
                }
                if held < MAX_RECORD {
                    want = (held * 2).clamp(STREAM_CHUNK, MAX_RECORD);
                    continue;
                }
                cut = self
                    .carry
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(held, |p| p + 1);
            }
            // A record cut at MAX_RECORD ends its chunk, so that the line
            // ends dropped from it are counted before the next record.
            let mut dropped = 0;
            if let Some(&(end, lines)) = self.cut_records.front() {
                if end <= cut {
                    cut = end;
                    dropped = lines;
                    self.cut_records.pop_front();
                }
            }
            for (end, _) in self.cut_records.iter_mut() {
                *end -= cut;
            }
            let rest = self.carry.split_off(cut);
            let data = std::mem::replace(&mut self.carry, rest);
            let first_line = self.line;
            self.line += if let Framing::Rows(n) = framing {
                (data.len() as u64).div_ceil(n as u64)
            } else if self.count_rows {
                csv_rows(&data)
            } else {
                count_newlines(&data) + dropped
            };
            return Ok(Some(StreamChunk { data, first_line }));
        }
    }
}

/// Walks CSV text (quotes read as [`CsvQuotes`] says) and calls
/// `record_end` with the offset just past each line end that closes a
/// record (one outside quotes).
fn csv_record_ends(data: &[u8], mut record_end: impl FnMut(usize)) {
    CsvQuotes::new().scan(data, b'\n', |pos| {
        record_end(pos + 1);
        true
    });
}

/// The end of the first line of `data` (past its `\n`), or, with `csv`,
/// of its first CSV record (a line end outside quotes); `data.len()` when
/// it does not end.
pub fn record_text_end(data: &[u8], csv: bool) -> usize {
    if !csv {
        return memchr::memchr(b'\n', data).map_or(data.len(), |p| p + 1);
    }
    csv_record_end_from(data, 0).unwrap_or(data.len())
}

/// The end (past its line end) of the first CSV record of `data` that ends
/// at or after byte `from`. Quotes are read from the start of `data`,
/// which must be a record boundary, so the scan cannot begin at `from`.
fn csv_record_end_from(data: &[u8], from: usize) -> Option<usize> {
    CsvQuotes::new()
        .scan(data, b'\n', |pos| pos + 1 < from)
        .map(|pos| pos + 1)
}

/// A record's text without its line end (`\n` or `\r\n`).
pub fn trim_line_end(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// The length of the longest prefix of CSV text that ends after a whole
/// record (a line end outside quotes); 0 when there is none.
pub fn csv_complete_prefix(data: &[u8]) -> usize {
    let mut last = 0;
    csv_record_ends(data, |end| last = end);
    last
}

/// The records of CSV text, each as `(line number of its first line, its
/// text without the closing line end)`; blank and `#` comment lines are not
/// records. A quoted field may hold line ends, so a record may span lines.
pub fn csv_records(data: &[u8], first_line: u64) -> Vec<(u64, &[u8])> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut line = first_line;
    let mut push = |start: usize, end: usize, line: u64| {
        let text = trim_line_end(&data[start..end]);
        if !is_skipped(text) {
            out.push((line, text));
        }
    };
    csv_record_ends(data, |end| {
        push(start, end, line);
        line += count_newlines(&data[start..end]);
        start = end;
    });
    if start < data.len() {
        push(start, data.len(), line);
    }
    out
}

/// The number of whole CSV records in `data` (blank lines aside) and the
/// length of the prefix they fill; an unfinished last record is left out.
pub fn count_csv_records(data: &[u8]) -> (u64, usize) {
    let mut n = 0;
    let mut start = 0;
    csv_record_ends(data, |end| {
        if !is_skipped(&data[start..end]) {
            n += 1;
        }
        start = end;
    });
    (n, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_are_every_row_a_record_cut_and_skipped_whole() {
        let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let mut packer = RowPacker::new();
        for row in [
            Some(p.as_bytes()),
            None,
            Some(b"" as &[u8]),
            Some(b"# text"),
            Some(p.as_bytes()),
        ] {
            packer.push(row);
        }
        // 81 bytes that are not 81 cells: the one-pass read of 81-cell
        // rows hands them to the careful parser, which names the column.
        let typo = p.replacen('.', "x", 1);
        packer.push(Some(typo.as_bytes()));
        let data = packer.take();
        let recs: Vec<ParsedRecord<'_>> = records(&data, 10, InputFormat::Rows).collect();
        assert_eq!(recs.len(), 6);
        assert_eq!(
            recs.iter().map(|r| r.line).collect::<Vec<_>>(),
            [10, 11, 12, 13, 14, 15]
        );
        assert_eq!(recs[0].givens(), Grid::parse_line(p.as_bytes()));
        assert_eq!(recs[0].raw, p.as_bytes());
        assert!(recs[4].puzzle.is_ok());
        assert_eq!(recs[1].givens(), Err(ParseError::Null));
        assert!(recs[2].puzzle.is_err() && recs[3].puzzle.is_err());
        assert_eq!(recs[5].givens(), Grid::parse_line(typo.as_bytes()));
        assert!(matches!(
            recs[5].givens(),
            Err(ParseError::BadChar { column: 3, .. })
        ));
        let data = &data[..data.len() - 4 - CELLS];
        assert_eq!(units_in(data, InputFormat::Rows), 5);
        let (skipped, pos, line) = skip_records(data, 10, InputFormat::Rows, 2);
        assert_eq!((skipped, line), (2, 12));
        assert_eq!(records(&data[pos..], line, InputFormat::Rows).count(), 3);
        // A stream cut inside a row keeps the rows before it.
        let whole = Framing::Packed.complete_prefix(&data[..data.len() - 3]);
        assert_eq!(records(&data[..whole], 0, InputFormat::Rows).count(), 4);
        assert_eq!(Framing::Packed.complete_prefix(data), data.len());
        // Chunks end on row boundaries.
        let mut cursor = ChunkCursor::new(0, InputFormat::Rows, 50);
        let mut rows = 0;
        while let Some(c) = cursor.next_chunk(data) {
            rows += records(c.data, c.first_line, c.format).count();
        }
        assert_eq!(rows, 5);
    }

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    fn lines_of(data: &str, format: InputFormat) -> Vec<(u64, bool)> {
        records(data.as_bytes(), 1, format)
            .map(|r| (r.line, r.puzzle.is_ok()))
            .collect()
    }

    #[test]
    fn newlines_are_counted_across_lane_and_block_edges() {
        for len in [
            0,
            1,
            31,
            32,
            33,
            255 * 32 - 1,
            255 * 32,
            255 * 32 + 1,
            30_000,
        ] {
            let data: Vec<u8> = (0..len)
                .map(|i| if i % 3 == 0 { b'\n' } else { b'x' })
                .collect();
            let plain = data.iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_newlines(&data), plain, "length {len}");
        }
        // Every byte a newline: the byte counters must not overflow.
        assert_eq!(count_newlines(&vec![b'\n'; 100_000]), 100_000);
    }

    #[test]
    fn csv_headers_are_recognised() {
        assert!(is_csv_header(b"quizzes,solutions"));
        assert!(is_csv_header(b"puzzle,solution,clues,difficulty"));
        assert!(is_csv_header(b"Puzzle"));
        assert!(is_csv_header(b"\"id\",\"puzzle\",\"solution\""));
        assert!(is_csv_header(b"\"Puzzle\""));
        assert!(!is_csv_header(b"\"a,b"));
        assert!(!is_csv_header(P.as_bytes()));
        assert!(!is_csv_header(b"hello"));
        assert!(!is_csv_header(b"bad line!"));
    }

    #[test]
    fn detection_skips_headers_and_count_lines() {
        let csv = format!("quizzes,solutions\r\n{P},{P}\n");
        let d = detect(csv.as_bytes(), None);
        assert_eq!(d.format, InputFormat::Line);
        assert_eq!(d.first_line, 2);
        assert_eq!(&csv.as_bytes()[d.start..d.start + 5], b"53..7");

        let plain = format!("# comment\n{P}\n");
        let d = detect(plain.as_bytes(), None);
        assert_eq!(
            (d.format, d.start, d.first_line),
            (InputFormat::Line, 10, 2)
        );

        let rows: String = (0..9)
            .map(|r| format!("{}\n", &P[9 * r..9 * r + 9]))
            .collect();
        let grid = format!("2\n{rows}");
        let d = detect(grid.as_bytes(), None);
        assert_eq!((d.format, d.start, d.first_line), (InputFormat::Grid, 2, 2));

        // Short digit lines, a title-like word or a rule line alone do not
        // make a grid: bad line-form input stays line form.
        for bad in ["hello\n", "123\n", "-----\n", "530070000\nshort\n"] {
            assert_eq!(
                detect(bad.as_bytes(), None).format,
                InputFormat::Line,
                "{bad}"
            );
        }
        assert_eq!(detect(b"", None).format, InputFormat::Line);
        assert_eq!(
            detect(P.as_bytes(), Some(InputFormat::Grid)).format,
            InputFormat::Grid
        );
    }

    #[test]
    fn grid_form_with_separators_titles_and_blanks() {
        let g: Grid = P.parse().unwrap();
        let block = g.to_block();
        let compact: String = (0..9)
            .map(|r| format!("{}\n", &P[9 * r..9 * r + 9]))
            .collect();
        let text = format!(
            "Grid 01\n{block}\n{compact}# note\n{}",
            compact.replace('.', "0")
        );
        let recs: Vec<_> = records(text.as_bytes(), 1, InputFormat::Grid).collect();
        assert_eq!(recs.len(), 3);
        for r in &recs {
            assert_eq!(r.givens(), Ok(g));
        }
        assert_eq!(recs[0].line, 2);
        assert_eq!(recs[1].line, 14);
        assert_eq!(recs[2].line, 24);
        assert!(recs[0].raw.starts_with(b"5 3 ."));
        assert!(recs[0].raw.ends_with(b". 7 9"));
    }

    #[test]
    fn broken_grids_are_reported_and_the_next_one_still_read() {
        let rows: Vec<String> = (0..9).map(|r| P[9 * r..9 * r + 9].to_string()).collect();
        let mut text = String::new();
        text += &rows[..5].join("\n");
        text += "\n\n";
        let mut bad = rows.clone();
        bad[2] = "53x..7...".into();
        text += &bad.join("\n");
        text += "\n";
        text += &rows.join("\n");
        let recs: Vec<_> = records(text.as_bytes(), 1, InputFormat::Grid).collect();
        assert_eq!(recs.len(), 3);
        assert_eq!(
            recs[0].givens(),
            Err(ParseError::IncompleteGrid { rows: 5 })
        );
        assert_eq!(recs[0].line, 1);
        assert_eq!(
            recs[1].puzzle.as_ref().unwrap_err().to_string(),
            "grid row 3: bad character 'x' at column 3"
        );
        assert_eq!(recs[1].line, 7);
        assert!(recs[2].puzzle.is_ok());
        assert_eq!(recs[2].line, 16);
    }

    #[test]
    fn line_records_number_lines_and_parse() {
        let text = format!("# c\n\n{P}\r\nxx\n{P}");
        assert_eq!(
            lines_of(&text, InputFormat::Line),
            vec![(3, true), (4, false), (5, true)]
        );
    }

    #[test]
    fn chunks_cover_the_input_and_keep_line_numbers() {
        let mut text = String::new();
        for i in 0..50 {
            if i % 7 == 0 {
                text += "# comment\n";
            }
            text += P;
            text += "\n";
        }
        for target in [1, 100, 1000, 100_000] {
            let chunks: Vec<_> =
                ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, target).collect();
            let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.iter().copied()).collect();
            assert_eq!(joined, text.as_bytes());
            let all: Vec<u64> = chunks
                .iter()
                .flat_map(|c| records(c.data, c.first_line, c.format).map(|r| r.line))
                .collect();
            let whole: Vec<u64> = records(text.as_bytes(), 1, InputFormat::Line)
                .map(|r| r.line)
                .collect();
            assert_eq!(all, whole);
        }
    }

    #[test]
    fn shrinking_chunks_cover_the_input_and_get_smaller_toward_the_end() {
        let text: String = (0..2000).map(|_| format!("{P}\n")).collect();
        let line = P.len() + 1;
        let chunks: Vec<_> = ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, 40 * line)
            .shrinking(8, 2 * line)
            .collect();
        let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.iter().copied()).collect();
        assert_eq!(joined, text.as_bytes());
        let lines: Vec<usize> = chunks.iter().map(|c| c.data.len() / line).collect();
        // Cut after the first line end at or past the target: target + 1.
        assert_eq!(lines[0], 41, "full size while much is left");
        assert!(lines.windows(2).all(|w| w[1] <= w[0]), "{lines:?}");
        let last_full = lines.iter().rposition(|&n| n == 41).unwrap();
        assert!(last_full + 10 < lines.len(), "then shrinking: {lines:?}");
        let before_last = &lines[..lines.len() - 1];
        assert!(before_last.iter().all(|&n| n >= 3), "never under the floor");
        assert_eq!(lines.iter().sum::<usize>(), 2000);
    }

    #[test]
    fn uncounted_chunks_rebase_by_their_newlines() {
        let text: String = (0..40)
            .map(|i| {
                if i % 5 == 0 {
                    "#\n".to_string()
                } else {
                    format!("{P}\n")
                }
            })
            .collect();
        let mut base = 0;
        let mut all = Vec::new();
        for c in
            ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Line, 200).without_line_numbers()
        {
            all.extend(records(c.data, c.first_line, c.format).map(|r| r.line + base));
            base += count_newlines(c.data);
        }
        let whole: Vec<u64> = records(text.as_bytes(), 1, InputFormat::Line)
            .map(|r| r.line)
            .collect();
        assert_eq!(all, whole);
    }

    #[test]
    fn grid_chunks_cut_between_records() {
        let g: Grid = P.parse().unwrap();
        let text: String = (0..20).map(|_| format!("{}\n", g.to_block())).collect();
        for target in [1, 300, 5000] {
            let chunks: Vec<_> =
                ChunkSplitter::new(text.as_bytes(), 1, InputFormat::Grid, target).collect();
            let recs: Vec<_> = chunks
                .iter()
                .flat_map(|c| records(c.data, c.first_line, c.format).collect::<Vec<_>>())
                .collect();
            assert_eq!(recs.len(), 20, "target {target}");
            assert!(recs.iter().all(|r| r.givens() == Ok(g)));
            assert_eq!(recs[1].line, 13);
        }
    }

    #[test]
    fn skipping_records_finds_where_to_resume() {
        let text = format!("# c\n{P}\n\n{P}\n{P}\n");
        let (n, pos, line) = skip_records(text.as_bytes(), 1, InputFormat::Line, 2);
        assert_eq!((n, line), (2, 5));
        assert_eq!(
            records(&text.as_bytes()[pos..], line, InputFormat::Line).count(),
            1
        );
        let (n, _, _) = skip_records(text.as_bytes(), 1, InputFormat::Line, 10);
        assert_eq!(n, 3);

        let g: Grid = P.parse().unwrap();
        let grid_text: String = (0..3).map(|_| format!("{}\n", g.to_block())).collect();
        let (n, pos, line) = skip_records(grid_text.as_bytes(), 1, InputFormat::Grid, 1);
        assert_eq!(n, 1);
        let rest: Vec<_> = records(&grid_text.as_bytes()[pos..], line, InputFormat::Grid).collect();
        assert_eq!(rest.len(), 2);
        assert_eq!(rest[0].line, 13);
    }

    #[test]
    fn complete_prefix_stops_before_unfinished_records() {
        let text = format!("{P}\n{}", &P[..40]);
        assert_eq!(complete_prefix(text.as_bytes(), InputFormat::Line), 82);
        let g: Grid = P.parse().unwrap();
        let block = g.to_block();
        let two = format!("{block}{}", &block[..50]);
        assert_eq!(
            complete_prefix(two.as_bytes(), InputFormat::Grid),
            block.len()
        );
        assert_eq!(complete_prefix(b"no newline", InputFormat::Line), 0);
    }

    /// Reads a stream whole through `StreamChunks`: the chunks, and the
    /// records (line number, raw text) read from them.
    fn stream(data: &[u8], framing: Framing) -> (Vec<StreamChunk>, Vec<(u64, Vec<u8>)>) {
        let mut s = StreamChunks::new(data);
        s.set_framing(framing);
        let mut chunks = Vec::new();
        while let Some(c) = s.next_chunk().unwrap() {
            chunks.push(c);
        }
        let format = match framing {
            Framing::Grid => InputFormat::Grid,
            _ => InputFormat::Line,
        };
        let recs = chunks
            .iter()
            .flat_map(|c| records(&c.data, c.first_line, format))
            .map(|r| (r.line, r.raw.to_vec()))
            .collect();
        (chunks, recs)
    }

    #[test]
    fn streams_give_the_records_a_whole_read_gives() {
        let mut data = String::new();
        for i in 0..20_000 {
            data += &format!("# {i}\n{P}\n\n");
        }
        let whole: Vec<(u64, Vec<u8>)> = records(data.as_bytes(), 1, InputFormat::Line)
            .map(|r| (r.line, r.raw.to_vec()))
            .collect();
        let (chunks, got) = stream(data.as_bytes(), Framing::Line);
        assert!(chunks.len() > 2);
        assert_eq!(got, whole);
        let grids: String = (0..10_000).map(|_| format!("{}\n", grid_text(P))).collect();
        let whole: Vec<(u64, Vec<u8>)> = records(grids.as_bytes(), 1, InputFormat::Grid)
            .map(|r| (r.line, r.raw.to_vec()))
            .collect();
        let (chunks, got) = stream(grids.as_bytes(), Framing::Grid);
        assert!(chunks.len() > 2);
        assert_eq!(got, whole);
    }

    fn grid_text(line: &str) -> String {
        line.as_bytes()
            .chunks(9)
            .map(|r| format!("{}\n", std::str::from_utf8(r).unwrap()))
            .collect()
    }

    #[test]
    fn streams_cut_long_lines_and_drop_comment_stretches() {
        // A 5 MB line without a line end, then a puzzle: the long line is
        // kept as its first MAX_LINE bytes, and line numbers stay right.
        let mut data = vec![b'x'; 5 << 20];
        data.extend_from_slice(format!("\n{P}\n").as_bytes());
        let (chunks, got) = stream(&data, Framing::Line);
        assert!(chunks
            .iter()
            .all(|c| c.data.len() <= STREAM_CHUNK + MAX_LINE + 1));
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0, got[0].1.len()), (1, MAX_LINE));
        assert_eq!((got[1].0, got[1].1.as_slice()), (2, P.as_bytes()));
        // Grid form: 20 MB of comments between two grids.
        let mut data = grid_text(P).into_bytes();
        let comments = "# comment\n".repeat(2_000_000);
        data.extend_from_slice(comments.as_bytes());
        data.extend_from_slice(grid_text(P).as_bytes());
        let (chunks, got) = stream(&data, Framing::Grid);
        assert!(chunks.iter().all(|c| c.data.len() <= MAX_RECORD + MAX_LINE));
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, 10 + 2_000_000);
    }

    #[test]
    fn the_top_of_a_stream_skips_any_number_of_comments() {
        let data = format!("{}quizzes,solutions\n{P},{P}\n", "# c\n".repeat(100_000));
        let mut s = StreamChunks::new(data.as_bytes());
        let (top, line) = s.top().unwrap();
        assert_eq!(line, 100_001);
        let d = detect(top, None);
        assert_eq!((d.format, d.start), (InputFormat::Line, 18));
        s.consume(d.start);
        let c = s.next_chunk().unwrap().unwrap();
        assert_eq!(c.first_line, 100_002);
        assert!(c.data.starts_with(P.as_bytes()));
    }

    #[test]
    fn a_quote_inside_an_unquoted_field_is_a_character() {
        let fields = |t: &str| -> Vec<String> {
            csv_fields(t.as_bytes())
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect()
        };
        assert_eq!(fields("1,a 5\" board,x"), ["1", "a 5\" board", "x"]);
        assert_eq!(fields("12\" x 12\",y"), ["12\" x 12\"", "y"]);
        assert_eq!(fields("a\"b,\"c,d\",e"), ["a\"b", "c,d", "e"]);
        // Quoted fields: after a comma or spaces, `""` a quote, and text
        // after the closing quote kept (as Python's csv reads it).
        assert_eq!(fields("\"a,b\", \"c\"\"d\" ,\"\""), ["a,b", "c\"d", ""]);
        assert_eq!(fields("\"ab\"c\"d,e"), ["abc\"d", "e"]);
        assert_eq!(
            csv_field(b"x,y\"z,\"p,q\"", 2).as_deref(),
            Some(&b"p,q"[..])
        );
        assert_eq!(csv_field(b"x,y\"z,\"p,q\"", 3), None);
        // The records after a stray quote are all there, mapped, in chunks
        // and streamed, and the field after it is read.
        let data =
            format!("id,desc,puzzle\n1,a 5\" board,{P}\n2,12\" x 12\",{P}\n3,\"q\"\"\",{P}\n");
        let layout = InputFormat::Csv(CsvLayout { column: 2 });
        let d = detect_layout(data.as_bytes(), None, None).unwrap();
        assert_eq!(d.format, layout);
        let recs: Vec<(u64, bool)> = records(&data.as_bytes()[d.start..], 1, layout)
            .map(|r| (r.line, r.puzzle.is_ok()))
            .collect();
        assert_eq!(recs, [(1, true), (2, true), (3, true)]);
        let lines: Vec<u64> = csv_records(data.as_bytes(), 1)
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(lines, [1, 2, 3, 4]);
    }

    /// Reads `data` `step` bytes at a time.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    /// Asserts `got == want`, showing the first difference only.
    fn same_records<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
        if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
            panic!("{what}: record {i}: {:?} against {:?}", got[i], want[i]);
        }
        assert_eq!(got.len(), want.len(), "{what}: records");
    }

    /// The CSV records of `data` read whole and streamed (numbered by data
    /// row, as puzzles are, and by line, as verify's answers are): line,
    /// whether the puzzle in `column` reads, and the text's first bytes.
    fn csv_both_ways(data: &[u8], column: usize) -> [Vec<(u64, bool, Vec<u8>)>; 2] {
        let layout = InputFormat::Csv(CsvLayout { column });
        let brief =
            |(line, ok, raw): (u64, bool, &[u8])| (line, ok, raw[..raw.len().min(100)].to_vec());
        let whole: Vec<_> = records(data, 1, layout)
            .map(|r| brief((r.line, r.puzzle.is_ok(), r.raw)))
            .collect();
        // Reads of 4,093 bytes, so records and reads meet everywhere.
        let mut s = StreamChunks::new(Trickle { data, step: 4093 });
        s.top().unwrap();
        s.set_framing(Framing::Csv);
        s.number_rows_from(1);
        let mut streamed = Vec::new();
        while let Some(c) = s.next_chunk().unwrap() {
            assert!(c.data.len() <= STREAM_CHUNK + MAX_RECORD + 2);
            streamed.extend(
                records(&c.data, c.first_line, layout)
                    .map(|r| brief((r.line, r.puzzle.is_ok(), r.raw))),
            );
        }
        same_records(&streamed, &whole, "numbered by row");
        let whole_lines: Vec<_> = csv_records(data, 1)
            .into_iter()
            .map(|(l, t)| brief((l, t.len() < MAX_RECORD, t)))
            .collect();
        let mut s = StreamChunks::new(data);
        s.top().unwrap();
        s.set_framing(Framing::Csv);
        let mut streamed_lines = Vec::new();
        while let Some(c) = s.next_chunk().unwrap() {
            streamed_lines.extend(
                csv_records(&c.data, c.first_line)
                    .into_iter()
                    .map(|(l, t)| brief((l, t.len() < MAX_RECORD, t))),
            );
        }
        same_records(&streamed_lines, &whole_lines, "numbered by line");
        [whole, whole_lines]
    }

    #[test]
    fn long_csv_records_stream_as_they_read_mapped() {
        // Quoted fields of 100 KB with line ends in them, one of 2 MB
        // (malformed: a record over MAX_RECORD), one just under the limit,
        // a long comment record, and a long last record without a line end:
        // the same records streamed as mapped, none lost after them.
        let mut data = String::from("# top\n");
        let long_notes = "lorem, \"\"ipsum\"\"\n".repeat(7_000);
        let huge = "y\n".repeat(1 << 20);
        for i in 0..300 {
            let notes = match i {
                5 | 200 => format!("\"{long_notes}\""),
                50 => format!("\"{huge}\""),
                51 => "y".repeat(2 << 20),
                120 => "z".repeat(MAX_RECORD - 100),
                _ => "n".into(),
            };
            if i == 150 {
                data += &format!("#,\"{huge}\"\n");
            }
            if i == 160 {
                // Comment records of line ends alone, long and short.
                data += &format!("#,\"{}\"\n#,\"\n\n\"\n", "\n".repeat(MAX_RECORD + 5));
            }
            data += &format!("{i},{notes},{P}\n");
        }
        data += &format!("300,\"{huge}");
        let [rows, lines] = csv_both_ways(data.as_bytes(), 2);
        assert_eq!(rows.len(), 301);
        let bad: Vec<u64> = rows.iter().filter(|r| !r.1).map(|r| r.0).collect();
        assert_eq!(bad, [51, 52, 301], "over MAX_RECORD: malformed");
        assert_eq!(lines.len(), 301);
        let line_of = |id: usize| {
            let head = format!("{id},");
            lines
                .iter()
                .find(|l| l.2.starts_with(head.as_bytes()))
                .unwrap()
                .0
        };
        let long: Vec<u64> = lines.iter().filter(|l| !l.1).map(|l| l.0).collect();
        assert_eq!(long, [line_of(50), line_of(51), line_of(300)]);
        // The comment record spans 2^20 + 1 lines, row 50 as many.
        assert_eq!(line_of(150), line_of(149) + (1 << 20) + 2);
        assert_eq!(line_of(51), line_of(50) + (1 << 20) + 1);
        // A stray quote must not swallow records either, streamed.
        let data = format!("1,a 5\" board,{P}\n2,x,{P}\n");
        let [rows, _] = csv_both_ways(data.as_bytes(), 2);
        assert_eq!(rows.len(), 2);
    }

    #[test]
    fn csv_records_may_span_lines_inside_quotes() {
        let data = b"a,b\n1,\"x\ny\",2\n\n3,\"\"\"q\"\"\",4\r\n5,\"open";
        let recs = csv_records(data, 1);
        let texts: Vec<(u64, &[u8])> = recs.iter().map(|(l, t)| (*l, *t)).collect();
        assert_eq!(
            texts,
            vec![
                (1, &b"a,b"[..]),
                (2, &b"1,\"x\ny\",2"[..]),
                (5, &b"3,\"\"\"q\"\"\",4"[..]),
                (6, &b"5,\"open"[..]),
            ]
        );
        // The unfinished last record is not counted, nor kept.
        let (n, end) = count_csv_records(data);
        assert_eq!(n, 3);
        assert_eq!(&data[end..], b"5,\"open");
        assert_eq!(csv_complete_prefix(data), end);
        assert_eq!(record_text_end(b"1,\"a\nb\"\nnext", true), 8);
        assert_eq!(record_text_end(b"1,\"a\nb\"\nnext", false), 5);
    }
}
