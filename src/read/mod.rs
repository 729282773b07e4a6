//! Reading puzzle records from bytes, one module per form: [`text`] (line
//! and grid forms), [`csv`], [`rows`] (packed table rows and npy rows),
//! with [`detect`](mod@detect) telling them apart, [`chunks`] cutting a mapped input
//! on record boundaries and [`stream`] reading one in bounded memory.
//! Here: the [`InputFormat`] of an input and [`records`], the parsed
//! records of a chunk in any form.
//!
//! - *Line form*: one puzzle per line (see [`Grid::parse_line`]).
//! - *Grid form*: a puzzle as 9 rows of 9 cells; spaces and `|` inside rows,
//!   `-`/`+`/`=` separator lines, blank lines and title lines (`Grid 01`)
//!   between puzzles are allowed, as is a leading count line (the contest
//!   form).
//!
//! In both forms blank lines and `#` comments are not records, and line
//! numbers count every line of the input, 1-based.

pub mod answers;
pub mod chunks;
pub mod compressed;
pub mod csv;
pub mod detect;
pub mod folders;
pub mod mapfile;
pub mod npy;
pub mod parquet;
pub mod rows;
pub mod stream;
pub mod text;

pub use chunks::*;
pub use csv::*;
pub use detect::*;
pub use rows::*;
pub use stream::*;
pub use text::*;

use self::npy::Dtype;
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

#[cfg(test)]
mod tests;
