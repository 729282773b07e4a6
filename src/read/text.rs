//! The two text forms: one puzzle per line, and a puzzle as 9 rows of 9
//! cells (the grid form); blank lines and `#` comments, line ends, and
//! where a record ends.

use super::*;

/// Splits `data` into lines: `(offset, line)` pairs with line ends (`\n` or
/// `\r\n`) removed.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
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

/// Number of `\n` bytes in `data`. The splitter counts every chunk's
/// lines on the thread that also writes the output, so this adds to that
/// thread's work on every run: it takes eight bytes at a time in plain
/// integer registers (no `unsafe`, any CPU), adding a 1 per newline into
/// byte-sized counters flushed before they can overflow. Byte-array lanes
/// written for the compiler to vectorise were compiled (rustc 1.95) into
/// byte-at-a-time code: 1.9 GB/s, 4% of `canon -j 1` on 17-clue puzzles;
/// this counts about 18 GB/s on the same machine (AMD EPYC).
pub fn count_newlines(data: &[u8]) -> u64 {
    /// Words per block: each byte counter gains at most one per word.
    const WORDS: usize = 255;
    /// Words summed side by side, for independent additions.
    const WIDE: usize = 4;
    let mut total = 0u64;
    let mut blocks = data.chunks_exact(8 * WIDE * WORDS);
    for block in &mut blocks {
        let mut counters = [0u64; WIDE];
        for words in block.chunks_exact(8 * WIDE) {
            for (counter, word) in counters.iter_mut().zip(words.chunks_exact(8)) {
                *counter += newline_bytes(word);
            }
        }
        total += counters.iter().map(|&c| sum_of_bytes(c)).sum::<u64>();
    }
    let rest = blocks.remainder();
    let mut words = rest.chunks_exact(8);
    for word in &mut words {
        total += u64::from(newline_bytes(word).count_ones());
    }
    total + words.remainder().iter().filter(|&&b| b == b'\n').count() as u64
}

/// Of an eight-byte word, 1 in each byte that is a `\n`, 0 in the others.
#[inline(always)]
fn newline_bytes(word: &[u8]) -> u64 {
    const LOW_BITS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let word: [u8; 8] = word.try_into().expect("eight bytes");
    // Newline bytes become zero. Adding 0x7f to each byte's low seven bits
    // sets its top bit exactly when those bits are not all zero, and never
    // carries into the next byte; OR-ing the byte itself adds its own top
    // bit. So a byte's top bit ends clear exactly when the byte was zero.
    let x = u64::from_le_bytes(word) ^ NEWLINES;
    let nonzero = ((x & LOW_BITS) + LOW_BITS) | x;
    (!nonzero >> 7) & 0x0101_0101_0101_0101
}

/// The sum of the eight bytes of `x`.
#[inline(always)]
fn sum_of_bytes(x: u64) -> u64 {
    const EVEN_BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    // Pairs of bytes as four 16-bit sums (each at most 510), then the
    // multiply adds the four into the top 16 bits.
    let pairs = (x & EVEN_BYTES) + ((x >> 8) & EVEN_BYTES);
    pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// True for a blank line or a `#` comment: not a record.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(&b) => b == b'#',
    }
}

/// A line holding only a number shorter than a grid row: the puzzle count
/// at the top of the contest form.
pub(crate) fn is_count_line(line: &[u8]) -> bool {
    let t = line.trim_ascii();
    !t.is_empty() && t.len() < 9 && t.iter().all(u8::is_ascii_digit)
}

/// A line of `-`, `+`, `=`, `|` and spaces with at least one rule character.
pub(crate) fn is_separator_line(line: &[u8]) -> bool {
    line.iter().any(|&b| matches!(b, b'-' | b'=' | b'+'))
        && line
            .iter()
            .all(|&b| matches!(b, b'-' | b'=' | b'+' | b'|' | b' ' | b'\t'))
}

/// A title line such as `Grid 01`: starts with a letter.
pub(crate) fn is_title(line: &[u8]) -> bool {
    line.trim_ascii_start()
        .first()
        .is_some_and(u8::is_ascii_alphabetic)
}

/// Bytes that may stand between the cells of a grid row.
pub(crate) fn is_row_filler(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'|')
}

pub(crate) fn is_grid_row(line: &[u8]) -> bool {
    parse_row(line).is_ok()
}

/// The nine cells of a grid row, or what is wrong with it.
pub(crate) fn parse_row(line: &[u8]) -> Result<[u8; 9], ParseError> {
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
    pub(crate) lines: Lines<'a>,
    pub(crate) next_line: u64,
    /// Every line read as pencilmarks ([`InputFormat::Pencilmark`]).
    pub(crate) marks: bool,
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
    pub(crate) lines: Lines<'a>,
    pub(crate) next_line: u64,
}

impl<'a> GridRecords<'a> {
    /// The next record, the byte offset just past its last row, and whether
    /// it was closed (by its ninth row, or a blank, comment or title line)
    /// rather than cut short by the end of the data; `None` at the end. A
    /// record with fewer than nine rows is returned as malformed.
    pub(crate) fn next_with_end(&mut self) -> Option<(ParsedRecord<'a>, usize, bool)> {
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

/// Length of the first line-form chunk of `rest`: through the first `\n`
/// at or after `target` bytes, or all of it.
pub(crate) fn line_cut(rest: &[u8], target: usize) -> usize {
    let from = target.min(rest.len());
    match rest[from..].iter().position(|&b| b == b'\n') {
        Some(p) => from + p + 1,
        None => rest.len(),
    }
}

/// Length of the first grid-form chunk of `rest`: whole records until at
/// least `target` bytes, ending after the line a record ends on.
pub(crate) fn grid_cut(rest: &[u8], target: usize) -> usize {
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

/// [`complete_prefix`] for grid form.
pub(crate) fn grid_complete_prefix(buf: &[u8]) -> usize {
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

/// The end of the first line of `data` (past its `\n`), or, with `csv`,
/// of its first CSV record (a line end outside quotes); `data.len()` when
/// it does not end.
pub fn record_text_end(data: &[u8], csv: bool) -> usize {
    if !csv {
        return memchr::memchr(b'\n', data).map_or(data.len(), |p| p + 1);
    }
    csv_record_end_from(data, 0).unwrap_or(data.len())
}

/// A record's text without its line end (`\n` or `\r\n`).
pub fn trim_line_end(text: &[u8]) -> &[u8] {
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    text.strip_suffix(b"\r").unwrap_or(text)
}
