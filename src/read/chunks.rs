//! Cutting a mapped input into chunks of whole records, each numbered
//! from its first line, for the workers to parse in parallel.

use super::*;

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
    pub(crate) data: &'a [u8],
    pub(crate) cursor: ChunkCursor,
}

/// Where a [`ChunkSplitter`] is, without the data: for a caller that holds
/// the data in a way a borrow cannot follow (a shared map handed out chunk
/// by chunk), and passes it to [`ChunkCursor::next_chunk`] each time.
#[derive(Debug, Clone)]
pub struct ChunkCursor {
    pub(crate) pos: usize,
    pub(crate) line: u64,
    pub(crate) format: InputFormat,
    pub(crate) target: usize,
    /// Set by `shrinking`: (parts of the rest per chunk, smallest target).
    pub(crate) shrink: Option<(usize, usize)>,
    pub(crate) count_lines: bool,
    /// No chunk handed out yet.
    pub(crate) fresh: bool,
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

/// Length of the first packed-rows chunk of `rest`: whole rows until at
/// least `target` bytes, or all of it.
pub(crate) fn rows_cut(rest: &[u8], target: usize) -> usize {
    let mut pos = 0;
    while pos < target && pos < rest.len() {
        pos += packed_row(&rest[pos..]).1;
    }
    pos
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

/// The length of the longest prefix of `buf` that ends on a record boundary
/// when more data may follow: after the last `\n` (line form), or after the
/// last grid record known to be complete (grid form). 0 when there is none.
pub fn complete_prefix(buf: &[u8], format: InputFormat) -> usize {
    Framing::from(format).complete_prefix(buf)
}
