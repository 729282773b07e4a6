//! Pencilmark (Sukaku) puzzles: the candidates still open in each cell.
//!
//! The line form tdoku and the puzzle forums use: 729 characters, cell by
//! cell in row order, nine a cell; the `k`-th character of a cell is the
//! digit `k` (1-9) while it is a candidate there, `.` or `0` once it is
//! eliminated. A puzzle of givens is the special case where each given's
//! cell holds only its digit and its peers have lost it
//! ([`Candidates::from_grid`]).

use crate::puzzle::grid::{
    char_at, char_column, is_separator, Conflict, Grid, ParseError, BOX_OF, CELLS, COL_OF, ROW_OF,
};

/// Characters in the line form: nine per cell.
pub const PENCIL_LINE: usize = 9 * CELLS;

/// Cell characters from which a line is taken for a pencilmark line with a
/// mistake rather than something else: nearer 729 than 81.
pub const PENCIL_NEAR: usize = (CELLS + PENCIL_LINE) / 2;

/// Where the cell text of a line starts (after leading spaces) and how
/// many characters it has: up to a separator (see [`Grid::parse_line`]), a
/// carriage return or the end.
pub(crate) fn cell_text(line: &[u8]) -> (usize, usize) {
    let start = line
        .iter()
        .position(|&b| !b.is_ascii_whitespace())
        .unwrap_or(line.len());
    let chars = line[start..]
        .iter()
        .position(|&b| is_separator(b) || b == b'\r')
        .unwrap_or(line.len() - start);
    (start, chars)
}

/// All nine digits open.
const ALL: u16 = 0x1ff;

/// Per cell, bit `d - 1` set while digit `d` is a candidate there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidates {
    masks: [u16; CELLS],
}

impl Candidates {
    /// Every digit open in every cell (the empty puzzle).
    pub const OPEN: Candidates = Candidates {
        masks: [ALL; CELLS],
    };

    /// Candidates from masks (bit `d - 1` for digit `d`); bits above the
    /// ninth are dropped.
    pub fn from_masks(masks: [u16; CELLS]) -> Candidates {
        Candidates {
            masks: masks.map(|m| m & ALL),
        }
    }

    /// The masks, one a cell.
    pub fn masks(&self) -> &[u16; CELLS] {
        &self.masks
    }

    /// The pencilmarks of a puzzle of givens: a given's cell holds its digit
    /// only, and the digit leaves the given's row, column and box.
    pub fn from_grid(grid: &Grid) -> Candidates {
        let mut masks = [ALL; CELLS];
        for (i, &v) in grid.cells().iter().enumerate() {
            if v == 0 {
                continue;
            }
            let bit = 1u16 << (v - 1);
            for (j, m) in masks.iter_mut().enumerate() {
                let peer =
                    ROW_OF[j] == ROW_OF[i] || COL_OF[j] == COL_OF[i] || BOX_OF[j] == BOX_OF[i];
                if peer && j != i {
                    *m &= !bit;
                }
            }
        }
        for (i, &v) in grid.cells().iter().enumerate() {
            if v != 0 {
                masks[i] = 1 << (v - 1);
            }
        }
        Candidates { masks }
    }

    /// Parses the 729-character form (surrounding spaces trimmed; anything
    /// after it must start with `,` `:` `;` a tab or a space, as for the
    /// 81-cell form). Columns in errors are 1-based characters of `line`.
    pub fn parse_line(line: &[u8]) -> Result<Candidates, ParseError> {
        let (start, chars) = cell_text(line);
        let text = &line[start..];
        // Far from 729 characters, the length is the mistake to name (an
        // 81-cell line read as pencilmarks); near it, the first character
        // out of place (a cell's character missing shifts the rest).
        if chars < PENCIL_NEAR {
            return Err(ParseError::PencilLength { chars });
        }
        let mut masks = [0u16; CELLS];
        for (at, &b) in text[..chars.min(PENCIL_LINE)].iter().enumerate() {
            let (cell, k) = (at / 9, at % 9);
            match b {
                b'.' | b'0' => {}
                _ if b == b'1' + k as u8 => masks[cell] |= 1 << k,
                _ => {
                    // A digit in another cell's slot is as wrong as a letter.
                    return Err(ParseError::BadChar {
                        column: char_column(line, start + at),
                        found: char_at(line, start + at),
                    });
                }
            }
        }
        if chars != PENCIL_LINE {
            return Err(ParseError::PencilLength { chars });
        }
        Ok(Candidates { masks })
    }

    /// The 729-character form, `.` for eliminated candidates.
    pub fn to_line(&self) -> String {
        let mut s = String::with_capacity(PENCIL_LINE);
        for &m in &self.masks {
            for k in 0..9 {
                s.push(if m >> k & 1 != 0 {
                    (b'1' + k) as char
                } else {
                    '.'
                });
            }
        }
        s
    }

    /// The cells left with one candidate, as a grid of givens.
    pub fn pinned(&self) -> Grid {
        let cells = self.masks.map(|m| {
            if m.count_ones() == 1 {
                m.trailing_zeros() as u8 + 1
            } else {
                0
            }
        });
        Grid::from_cells(cells).expect("digits 1-9")
    }

    /// Breaks a rule when two cells of one unit are pinned to the same
    /// digit (what `invalid` means for a pencilmark puzzle). A cell with no
    /// candidate breaks none: the puzzle is simply unsolvable.
    pub fn validate(&self) -> Result<(), Conflict> {
        self.pinned().validate()
    }

    /// Whether a solution keeps to these candidates: each cell's digit is
    /// one of its own.
    pub fn allows(&self, solution: &Grid) -> bool {
        solution
            .cells()
            .iter()
            .zip(&self.masks)
            .all(|(&v, &m)| v != 0 && m >> (v - 1) & 1 != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn line_form_round_trips_and_names_bad_columns() {
        let c = Candidates::from_grid(&Grid::parse_line(P.as_bytes()).unwrap());
        let line = c.to_line();
        assert_eq!(line.len(), PENCIL_LINE);
        assert_eq!(&line[..9], "....5....");
        assert_eq!(Candidates::parse_line(line.as_bytes()).unwrap(), c);
        let zeros = line.replace('.', "0");
        assert_eq!(Candidates::parse_line(zeros.as_bytes()).unwrap(), c);
        assert_eq!(
            Candidates::parse_line(format!("  {line},x").as_bytes()).unwrap(),
            c
        );
        // The 5 of cell 1 moved into the 4's slot.
        let mut bad = line.clone().into_bytes();
        bad.swap(3, 4);
        assert_eq!(
            Candidates::parse_line(&bad),
            Err(ParseError::BadChar {
                column: 4,
                found: '5'
            })
        );
        assert_eq!(
            Candidates::parse_line(&line.as_bytes()[..700]),
            Err(ParseError::PencilLength { chars: 700 })
        );
        assert_eq!(
            Candidates::parse_line(format!("{line}1").as_bytes()),
            Err(ParseError::PencilLength { chars: 730 })
        );
    }

    #[test]
    fn pinned_cells_and_rules() {
        let g = Grid::parse_line(P.as_bytes()).unwrap();
        let c = Candidates::from_grid(&g);
        assert_eq!(
            c.pinned().clue_count(),
            g.clue_count().max(c.pinned().clue_count())
        );
        assert!(c.validate().is_ok());
        let mut masks = *c.masks();
        // Cell 3 (row 1) pinned to 5, like cell 1.
        masks[2] = 1 << 4;
        assert!(Candidates::from_masks(masks).validate().is_err());
        assert!(!Candidates::from_masks(masks).allows(&Grid::EMPTY));
    }
}
