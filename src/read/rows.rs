//! Rows as the engine reads them from tables and arrays: packed rows (a
//! length and the bytes, or a null), which Parquet cells become, and the
//! fixed-size rows of an npy array.

use super::*;

/// The length that marks a null row in [`InputFormat::Rows`] bytes.
pub(crate) const NULL_ROW: u32 = u32::MAX;

/// Packs rows of text into [`InputFormat::Rows`] bytes.
#[derive(Debug, Default)]
pub struct RowPacker {
    pub(crate) bytes: Vec<u8>,
    pub(crate) rows: usize,
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

    /// Appends `rows` rows already in packed form (each a little-endian
    /// `u32` length, then the bytes: Parquet's PLAIN byte arrays), none of
    /// them longer than [`MAX_LINE`] (which [`RowPacker::push`] cuts to).
    pub(crate) fn push_packed(&mut self, packed: &[u8], rows: usize) {
        self.bytes.extend_from_slice(packed);
        self.rows += rows;
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
pub(crate) fn packed_row_end(data: &[u8]) -> Option<(usize, bool)> {
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

/// Records of an npy array's bytes: one per row, numbered by row index.
#[derive(Debug, Clone)]
pub struct NpyRecords<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) next_row: u64,
    pub(crate) dtype: Dtype,
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
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) next_row: u64,
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
