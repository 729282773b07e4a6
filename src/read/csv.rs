//! CSV: the quoting rules ([`CsvQuotes`]), fields and headers, the
//! puzzle column, records that may span lines, and counting them.

use super::*;

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
    pub(crate) quoted: bool,
    /// The last byte scanned closed a quoted stretch: a `"` next is the
    /// second of a `""`, which reopens it.
    pub(crate) just_closed: bool,
    /// Outside quotes, nothing but spaces and tabs since the field began.
    pub(crate) field_start: bool,
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
pub(crate) fn unquote(field: &[u8]) -> std::borrow::Cow<'_, [u8]> {
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

/// Records of CSV bytes: one per CSV record (which may span lines), the
/// puzzle read from its column, numbered by data row.
#[derive(Debug, Clone)]
pub struct CsvRecords<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) next_row: u64,
    pub(crate) column: usize,
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

/// Length of the first CSV chunk of `rest`: through the first record end
/// at or after `target` bytes, or all of it.
pub(crate) fn csv_cut(rest: &[u8], target: usize) -> usize {
    csv_record_end_from(rest, target).unwrap_or(rest.len())
}

/// CSV data rows in `data`: whole records that are not blank or comments,
/// and an unfinished last one.
pub(crate) fn csv_rows(data: &[u8]) -> u64 {
    let (n, whole) = count_csv_records(data);
    n + u64::from(whole < data.len() && !is_skipped(&data[whole..]))
}

/// Walks CSV text (quotes read as [`CsvQuotes`] says) and calls
/// `record_end` with the offset just past each line end that closes a
/// record (one outside quotes).
pub(crate) fn csv_record_ends(data: &[u8], mut record_end: impl FnMut(usize)) {
    CsvQuotes::new().scan(data, b'\n', |pos| {
        record_end(pos + 1);
        true
    });
}

/// The end (past its line end) of the first CSV record of `data` that ends
/// at or after byte `from`. Quotes are read from the start of `data`,
/// which must be a record boundary, so the scan cannot begin at `from`.
pub(crate) fn csv_record_end_from(data: &[u8], from: usize) -> Option<usize> {
    CsvQuotes::new()
        .scan(data, b'\n', |pos| pos + 1 < from)
        .map(|pos| pos + 1)
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
