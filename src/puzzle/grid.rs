//! The 9x9 grid, its text forms and the rules it must obey.
//!
//! A [`Grid`] is 81 cells in row order, `0` for an empty cell and `1..=9` for
//! a digit. It is parsed from the one-line form used by every public puzzle
//! list ([`Grid::parse_line`]), written back as that line
//! ([`Grid::to_line`]) or as a 9x9 block for people ([`Grid::to_block`]), and
//! checked against the rules ([`Grid::validate`]).

use std::fmt;

/// Number of cells in a grid.
pub const CELLS: usize = 81;

/// A count of one for digit `d` in nibble `d - 1` of a tally (nothing for
/// a blank): [`Grid::repeats`] adds these up per unit. One entry per byte
/// value (those past 9 unused), so that a cell indexes it with no bounds
/// check and no mask.
const DIGIT_NIBBLE: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut d = 1;
    while d < 10 {
        table[d] = 1 << (4 * (d - 1));
        d += 1;
    }
    table
};

/// A 9x9 Sudoku grid: `cells[row * 9 + col]` is 0 (empty) or a digit 1-9.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Grid {
    cells: [u8; CELLS],
}

/// Why a line is not a puzzle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The line holds fewer than 81 cells.
    #[error("too short: {cells} cells, need 81")]
    TooShort { cells: usize },
    /// An 82nd cell follows the 81st without a separator.
    #[error("too long: more than 81 cells (column {column})")]
    TooLong { column: usize },
    /// A character that is neither a cell nor, after the 81st cell, a separator.
    #[error("bad character {found:?} at column {column}")]
    BadChar { column: usize, found: char },
    /// Grid form: a row (counted from 1 within the puzzle) is not 9 cells.
    #[error("grid row {row}: {detail}")]
    GridRow { row: usize, detail: Box<ParseError> },
    /// Grid form: a row with a number of cells other than 9.
    #[error("{cells} cells, need 9")]
    RowCells { cells: usize },
    /// Grid form: the puzzle ended before its ninth row.
    #[error("incomplete grid: {rows} of 9 rows")]
    IncompleteGrid { rows: usize },
    /// npy: a cell (from 1) holds a value other than 0-9.
    #[error("cell {cell} holds {value} (0-9 expected)")]
    BadValue { cell: usize, value: i128 },
    /// npy: the array ends inside this row.
    #[error("truncated row: {bytes} of {need} bytes")]
    TruncatedRow { bytes: usize, need: usize },
    /// A table (Parquet, Arrow): the row holds null, not a puzzle.
    #[error("null: the row holds no puzzle")]
    Null,
    /// Pencilmarks: the cell text is not 729 characters (nine per cell).
    #[error("pencilmarks of {chars} characters, need 729 (nine per cell)")]
    PencilLength { chars: usize },
    /// A pencilmark puzzle given to a command that reads givens only.
    #[error("a pencilmark puzzle: this command reads puzzles of 81 cells")]
    PencilmarksNotRead,
    /// CSV: the record, line end included, is longer than
    /// `read::MAX_RECORD` (a stream keeps only its start).
    #[error("a CSV record longer than 1 MiB")]
    RecordTooLong,
    /// CSV: the record has no field in the puzzle's column (1-based).
    #[error("no column {column}: the record has {fields} fields")]
    MissingColumn { column: usize, fields: usize },
}

/// A row, column or box of the grid, numbered from 1 as people count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Row(u8),
    Column(u8),
    Box(u8),
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unit::Row(n) => write!(f, "row {n}"),
            Unit::Column(n) => write!(f, "column {n}"),
            Unit::Box(n) => write!(f, "box {n}"),
        }
    }
}

/// A digit that appears more than once in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{unit} repeats digit {digit}")]
pub struct Conflict {
    pub unit: Unit,
    pub digit: u8,
}

/// Row, column and box of each cell, precomputed so the hot paths never divide.
pub const ROW_OF: [u8; CELLS] = unit_table(0);
pub const COL_OF: [u8; CELLS] = unit_table(1);
pub const BOX_OF: [u8; CELLS] = unit_table(2);

/// The cells of each of the 27 units: rows 0-8, columns 9-17, boxes 18-26.
pub const UNIT_CELLS: [[u8; 9]; 27] = unit_cells();

/// The 20 peers (same row, column or box) of each cell, in cell order.
pub static PEERS: [[u8; 20]; CELLS] = peers();

pub(crate) const fn peers() -> [[u8; 20]; CELLS] {
    let mut t = [[0u8; 20]; CELLS];
    let mut i = 0;
    while i < CELLS {
        let mut n = 0;
        let mut j = 0;
        while j < CELLS {
            if j != i
                && (ROW_OF[i] == ROW_OF[j] || COL_OF[i] == COL_OF[j] || BOX_OF[i] == BOX_OF[j])
            {
                t[i][n] = j as u8;
                n += 1;
            }
            j += 1;
        }
        i += 1;
    }
    t
}

const fn unit_cells() -> [[u8; 9]; 27] {
    let mut t = [[0u8; 9]; 27];
    let mut fill = [0usize; 27];
    let mut i = 0;
    while i < CELLS {
        let units = [
            ROW_OF[i] as usize,
            9 + COL_OF[i] as usize,
            18 + BOX_OF[i] as usize,
        ];
        let mut k = 0;
        while k < 3 {
            let u = units[k];
            t[u][fill[u]] = i as u8;
            fill[u] += 1;
            k += 1;
        }
        i += 1;
    }
    t
}

const fn unit_table(kind: u8) -> [u8; CELLS] {
    let mut t = [0u8; CELLS];
    let mut i = 0;
    while i < CELLS {
        let (r, c) = (i / 9, i % 9);
        t[i] = match kind {
            0 => r as u8,
            1 => c as u8,
            _ => (r / 3 * 3 + c / 3) as u8,
        };
        i += 1;
    }
    t
}

/// Bytes allowed between the 81st cell and the ignored rest of a line.
pub(crate) fn is_separator(b: u8) -> bool {
    matches!(b, b',' | b':' | b';' | b'\t' | b' ')
}

/// 1-based character column of byte offset `at` in `line` (lines may hold
/// non-ASCII text, and people count characters, not bytes).
pub(crate) fn char_column(line: &[u8], at: usize) -> usize {
    String::from_utf8_lossy(&line[..at]).chars().count() + 1
}

/// The character starting at byte offset `at`, or U+FFFD for a broken sequence.
pub(crate) fn char_at(line: &[u8], at: usize) -> char {
    let end = (at + 4).min(line.len());
    String::from_utf8_lossy(&line[at..end])
        .chars()
        .next()
        .unwrap_or('\u{FFFD}')
}

impl Grid {
    /// The empty grid.
    pub const EMPTY: Grid = Grid { cells: [0; CELLS] };

    /// A grid from 81 cell values; `None` if any value is above 9.
    pub fn from_cells(cells: [u8; CELLS]) -> Option<Grid> {
        cells.iter().all(|&v| v <= 9).then_some(Grid { cells })
    }

    /// Parses the one-line form: 81 cells in row order (`1`-`9` givens, `.` or
    /// `0` blanks), surrounding spaces trimmed; anything after the 81st cell
    /// must start with `,` `:` `;` a tab or a space and is ignored, so
    /// `puzzle,solution` and `puzzle:count:solution` lines parse as their
    /// puzzle. Columns in errors are 1-based characters of `line`.
    pub fn parse_line(line: &[u8]) -> Result<Grid, ParseError> {
        // The common case, 81 cells and a line end or separator, in one
        // pass that the compiler can vectorise; anything else takes the
        // careful path that explains what is wrong.
        if let Some(cells) = line.first_chunk::<CELLS>() {
            let after_ok = line.get(CELLS).is_none_or(|&b| is_separator(b));
            if after_ok {
                if let Some(grid) = Grid::from_cell_text(cells) {
                    return Ok(grid);
                }
            }
        }
        Self::parse_line_slow(line)
    }

    /// The grid whose 81 cells `text` spells (`1`-`9`, `.` or `0` for a
    /// blank), or `None` when a byte is anything else.
    #[inline]
    pub fn from_cell_text(text: &[u8; CELLS]) -> Option<Grid> {
        // No short-circuit: a plain OR over all 81 bytes vectorises.
        let mut bad = false;
        for &b in text {
            bad |= b.wrapping_sub(b'0') > 9 && b != b'.';
        }
        if bad {
            return None;
        }
        let mut grid = Grid::EMPTY;
        for (g, &b) in grid.cells.iter_mut().zip(text) {
            // '.' - '0' wraps to a value above 9: it maps to 0.
            let v = b.wrapping_sub(b'0');
            *g = if v <= 9 { v } else { 0 };
        }
        Some(grid)
    }

    fn parse_line_slow(line: &[u8]) -> Result<Grid, ParseError> {
        let start = line
            .iter()
            .position(|&b| !b.is_ascii_whitespace())
            .unwrap_or(line.len());
        let end = line
            .iter()
            .rposition(|&b| !b.is_ascii_whitespace())
            .map_or(start, |p| p + 1);
        let body = &line[start..end];
        let mut cells = [0u8; CELLS];
        for (i, cell) in cells.iter_mut().enumerate() {
            let Some(&b) = body.get(i) else {
                return Err(ParseError::TooShort { cells: i });
            };
            *cell = match b {
                b'1'..=b'9' => b - b'0',
                b'.' | b'0' => 0,
                _ if is_separator(b) => return Err(ParseError::TooShort { cells: i }),
                _ => {
                    return Err(ParseError::BadChar {
                        column: char_column(line, start + i),
                        found: char_at(line, start + i),
                    })
                }
            };
        }
        match body.get(CELLS) {
            None => {}
            Some(&b) if is_separator(b) => {}
            Some(b'1'..=b'9' | b'.' | b'0') => {
                return Err(ParseError::TooLong {
                    column: char_column(line, start + CELLS),
                })
            }
            Some(_) => {
                return Err(ParseError::BadChar {
                    column: char_column(line, start + CELLS),
                    found: char_at(line, start + CELLS),
                })
            }
        }
        Ok(Grid { cells })
    }

    /// The 81 cells in row order.
    pub fn cells(&self) -> &[u8; CELLS] {
        &self.cells
    }

    /// The value at `row`, `col` (0-based): 0 for empty.
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * 9 + col]
    }

    /// Sets the value at `row`, `col` (0-based); `value` must be 0-9.
    pub fn set(&mut self, row: usize, col: usize, value: u8) {
        assert!(value <= 9, "cell value {value} out of range");
        self.cells[row * 9 + col] = value;
    }

    /// Number of filled cells.
    pub fn clue_count(&self) -> usize {
        self.cells.iter().filter(|&&v| v != 0).count()
    }

    /// True when every cell holds a digit.
    pub fn is_complete(&self) -> bool {
        self.cells.iter().all(|&v| v != 0)
    }

    /// Appends the cells as digits (`0` for blanks) to `out`: 81 bytes,
    /// written straight into the buffer with no stop on the stack.
    pub fn push_digits(&self, out: &mut Vec<u8>) {
        out.extend(self.cells.iter().map(|&v| b'0' + v));
    }

    /// Writes the line form (`.` for blanks) into `out`: exactly 81 bytes.
    pub fn write_line(&self, out: &mut [u8; CELLS]) {
        for (o, &v) in out.iter_mut().zip(&self.cells) {
            *o = if v == 0 { b'.' } else { b'0' + v };
        }
    }

    /// The line form, `.` for blanks.
    pub fn to_line(&self) -> String {
        let mut buf = [0u8; CELLS];
        self.write_line(&mut buf);
        buf.iter().map(|&b| b as char).collect()
    }

    /// A 9x9 block with box separators, for people to read.
    pub fn to_block(&self) -> String {
        let mut s = String::with_capacity(256);
        for r in 0..9 {
            if r == 3 || r == 6 {
                s.push_str("------+-------+------\n");
            }
            for c in 0..9 {
                if c == 3 || c == 6 {
                    s.push_str("| ");
                }
                let v = self.get(r, c);
                s.push(if v == 0 { '.' } else { (b'0' + v) as char });
                if c != 8 {
                    s.push(' ');
                }
            }
            s.push('\n');
        }
        s
    }

    /// Checks that no digit repeats in a row, column or box. The first
    /// conflict found (rows, then columns, then boxes) is returned.
    pub fn validate(&self) -> Result<(), Conflict> {
        if !self.repeats_in_a_unit() {
            return Ok(());
        }
        let mut seen = [[0u16; 9]; 3];
        for (i, &v) in self.cells.iter().enumerate() {
            if v == 0 {
                continue;
            }
            let bit = 1u16 << v;
            let units = [ROW_OF[i], COL_OF[i], BOX_OF[i]];
            for (kind, &u) in units.iter().enumerate() {
                if seen[kind][u as usize] & bit != 0 {
                    let n = u + 1;
                    let unit = match kind {
                        0 => Unit::Row(n),
                        1 => Unit::Column(n),
                        _ => Unit::Box(n),
                    };
                    return Err(Conflict { unit, digit: v });
                }
                seen[kind][u as usize] |= bit;
            }
        }
        Ok(())
    }

    /// Whether some digit repeats in a row, column or box: the common
    /// answer of [`validate`](Self::validate), without its search for the
    /// first conflict.
    fn repeats_in_a_unit(&self) -> bool {
        self.repeats::<true>()
    }

    /// Whether some digit repeats in a row or a column (boxes are not
    /// looked at).
    pub fn repeats_in_a_line(&self) -> bool {
        self.repeats::<false>()
    }

    /// Whether some digit repeats in a row, a column or (with `BOXES`) a
    /// box, found without a branch per cell (clues and blanks alternate
    /// unpredictably). Each cell adds a count of one to its digit's
    /// nibble ([`DIGIT_NIBBLE`]) in its units' tallies; a digit seen twice
    /// in a unit leaves a nibble of 2 or more there. A unit holds nine
    /// cells, so no nibble overflows.
    ///
    /// Rows and boxes are tallied in one pass, columns in a second: the
    /// nine column tallies kept through the first would not fit in
    /// registers.
    #[inline]
    fn repeats<const BOXES: bool>(&self) -> bool {
        /// Every nibble of a tally at 2 or more: bits 1 to 3 of the nine.
        const TWICE: u64 = 0xe_eeee_eeee;
        let one = |v: u8| DIGIT_NIBBLE[usize::from(v)];
        let mut twice = 0u64;
        for band in self.cells.chunks_exact(27) {
            let mut boxes = [0u64; 3];
            for row in band.chunks_exact(9) {
                let mut tally = 0u64;
                for (c, &v) in row.iter().enumerate() {
                    tally += one(v);
                    if BOXES {
                        boxes[c / 3] += one(v);
                    }
                }
                twice |= tally;
            }
            twice |= boxes[0] | boxes[1] | boxes[2];
        }
        for c in 0..9 {
            let tally: u64 = (0..9).map(|r| one(self.cells[9 * r + c])).sum();
            twice |= tally;
        }
        twice & TWICE != 0
    }

    /// True when `self` is a complete grid obeying the rules.
    pub fn is_valid_solution(&self) -> bool {
        self.is_complete() && self.validate().is_ok()
    }

    /// True when every given of `puzzle` stands unchanged in `self`.
    pub fn keeps_givens_of(&self, puzzle: &Grid) -> bool {
        self.cells
            .iter()
            .zip(&puzzle.cells)
            .all(|(&s, &p)| p == 0 || s == p)
    }

    /// True when `self` is a valid complete grid that keeps `puzzle`'s givens.
    pub fn solves(&self, puzzle: &Grid) -> bool {
        self.is_valid_solution() && self.keeps_givens_of(puzzle)
    }
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_line())
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({})", self.to_line())
    }
}

impl std::str::FromStr for Grid {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Grid, ParseError> {
        Grid::parse_line(s.as_bytes())
    }
}

/// Tests' shorthand.
#[cfg(test)]
impl Grid {
    /// A grid holding only `placed`, each (cell, digit).
    pub(crate) fn with_digits(placed: &[(usize, u8)]) -> Grid {
        let mut cells = [0u8; CELLS];
        for &(i, d) in placed {
            cells[i] = d;
        }
        Grid::from_cells(cells).expect("digits 0 to 9")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn parses_dots_and_zeros_alike() {
        let dots = Grid::parse_line(PUZZLE.as_bytes()).unwrap();
        let zeros = Grid::parse_line(PUZZLE.replace('.', "0").as_bytes()).unwrap();
        assert_eq!(dots, zeros);
        assert_eq!(dots.get(0, 0), 5);
        assert_eq!(dots.get(0, 2), 0);
        assert_eq!(dots.get(8, 8), 9);
        assert_eq!(dots.clue_count(), 30);
        assert_eq!(dots.to_line(), PUZZLE);
    }

    #[test]
    fn trims_spaces_and_ignores_text_after_a_separator() {
        let g = Grid::parse_line(PUZZLE.as_bytes()).unwrap();
        for line in [
            format!("  {PUZZLE}  "),
            format!("{PUZZLE}\r"),
            format!("{PUZZLE},534678912"),
            format!("{PUZZLE}:1:whatever"),
            format!("{PUZZLE};x"),
            format!("{PUZZLE}\tcomment"),
            format!("{PUZZLE} rated 3.4"),
        ] {
            assert_eq!(Grid::parse_line(line.as_bytes()), Ok(g), "{line:?}");
        }
    }

    #[test]
    fn reports_what_is_wrong_and_where() {
        assert_eq!(
            Grid::parse_line(&PUZZLE.as_bytes()[..80]),
            Err(ParseError::TooShort { cells: 80 })
        );
        assert_eq!(
            Grid::parse_line(b""),
            Err(ParseError::TooShort { cells: 0 })
        );
        assert_eq!(
            Grid::parse_line(format!("{PUZZLE}1").as_bytes()),
            Err(ParseError::TooLong { column: 82 })
        );
        let mut bad = PUZZLE.to_string();
        bad.replace_range(9..10, "x");
        assert_eq!(
            Grid::parse_line(bad.as_bytes()),
            Err(ParseError::BadChar {
                column: 10,
                found: 'x'
            })
        );
        assert_eq!(
            Grid::parse_line(format!("{PUZZLE}x").as_bytes()),
            Err(ParseError::BadChar {
                column: 82,
                found: 'x'
            })
        );
        assert_eq!(
            Grid::parse_line(format!("{},rest", &PUZZLE[..40]).as_bytes()),
            Err(ParseError::TooShort { cells: 40 })
        );
        // Columns count characters: the 'é' is column 3 though byte 2..4.
        let err = Grid::parse_line("12é4".as_bytes()).unwrap_err();
        assert_eq!(
            err,
            ParseError::BadChar {
                column: 3,
                found: 'é'
            }
        );
        assert_eq!(err.to_string(), "bad character 'é' at column 3");
        let err = Grid::parse_line(b"12\x004").unwrap_err();
        assert_eq!(
            err,
            ParseError::BadChar {
                column: 3,
                found: '\0'
            }
        );
        // Leading spaces shift the column as the user sees it.
        let err = Grid::parse_line(b"  1?").unwrap_err();
        assert_eq!(
            err,
            ParseError::BadChar {
                column: 4,
                found: '?'
            }
        );
    }

    #[test]
    fn writes_a_readable_block() {
        let g: Grid = PUZZLE.parse().unwrap();
        let block = g.to_block();
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[0], "5 3 . | . 7 . | . . .");
        assert_eq!(lines[3], "------+-------+------");
        assert_eq!(lines[10], ". . . | . 8 . | . 7 9");
    }

    #[test]
    fn validation_names_unit_and_digit() {
        let g: Grid = PUZZLE.parse().unwrap();
        assert_eq!(g.validate(), Ok(()));
        let mut row = g;
        row.set(0, 8, 5);
        assert_eq!(
            row.validate(),
            Err(Conflict {
                unit: Unit::Row(1),
                digit: 5
            })
        );
        let mut col = g;
        col.set(8, 0, 5);
        assert_eq!(
            col.validate(),
            Err(Conflict {
                unit: Unit::Column(1),
                digit: 5
            })
        );
        let mut bx = g;
        bx.set(2, 0, 3);
        assert_eq!(
            bx.validate(),
            Err(Conflict {
                unit: Unit::Box(1),
                digit: 3
            })
        );
        assert_eq!(
            bx.validate().unwrap_err().to_string(),
            "box 1 repeats digit 3"
        );
    }

    #[test]
    fn the_quick_repeat_check_agrees_with_a_unit_by_unit_search() {
        use rand::{Rng, SeedableRng};
        let repeats_slowly = |g: &Grid| {
            (0..CELLS).any(|i| {
                (0..i).any(|j| {
                    let same_unit =
                        ROW_OF[i] == ROW_OF[j] || COL_OF[i] == COL_OF[j] || BOX_OF[i] == BOX_OF[j];
                    g.cells[i] != 0 && g.cells[i] == g.cells[j] && same_unit
                })
            })
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut seen = [0usize; 2];
        for _ in 0..3000 {
            let mut cells = [0u8; CELLS];
            let clues = rng.gen_range(0..=40);
            for _ in 0..clues {
                cells[rng.gen_range(0..CELLS)] = rng.gen_range(1..=9);
            }
            let g = Grid::from_cells(cells).unwrap();
            let slow = repeats_slowly(&g);
            assert_eq!(g.repeats_in_a_unit(), slow, "{}", g.to_line());
            assert_eq!(g.validate().is_err(), slow);
            seen[usize::from(slow)] += 1;
        }
        // Both answers came up often.
        assert!(seen[0] > 300 && seen[1] > 300, "{seen:?}");
    }

    #[test]
    fn repeats_are_found_in_rows_and_columns_only() {
        let with = |placed: &[(usize, u8)]| Grid::with_digits(placed).repeats_in_a_line();
        assert!(!with(&[]));
        // Row 4, columns 0 and 8; then three times in that row.
        assert!(with(&[(36, 9), (44, 9)]));
        assert!(with(&[(36, 9), (40, 9), (44, 9)]));
        // Column 7, rows 0 and 8.
        assert!(with(&[(7, 1), (79, 1)]));
        // Same digit in one box but no shared line: not this check's concern.
        assert!(!with(&[(0, 3), (10, 3)]));
        // Every digit once per row and column: a solved grid.
        let solved: Vec<(usize, u8)> = (0..CELLS)
            .map(|i| (i, ((i / 9 * 3 + i / 27 + i % 9) % 9 + 1) as u8))
            .collect();
        assert!(!with(&solved));
        let mut broken = solved.clone();
        broken[80].1 = broken[79].1;
        assert!(with(&broken));
    }

    #[test]
    fn checks_solutions_and_givens() {
        let puzzle: Grid = PUZZLE.parse().unwrap();
        let solution: Grid =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
                .parse()
                .unwrap();
        assert!(solution.solves(&puzzle));
        assert!(!puzzle.is_valid_solution());
        let mut changed = solution;
        changed.set(0, 0, 4);
        changed.set(0, 5, 5);
        assert!(changed.is_complete());
        assert!(!changed.keeps_givens_of(&puzzle));
        assert!(!changed.solves(&puzzle));
        assert!(Grid::from_cells([10; CELLS]).is_none());
    }
}
