//! The grader's grid: each cell's value or its candidates, as a person
//! solving with pencilmarks holds them. Candidates are a 9-bit mask per
//! cell (bit `d - 1` for digit `d`); a placed digit leaves its cell with
//! none and is taken from the cell's 20 peers.

use crate::puzzle::grid::{Grid, BOX_OF, CELLS, COL_OF, ROW_OF, UNIT_CELLS};

/// All nine candidates.
pub const ALL: u16 = 0x1ff;

/// The mask of digit `d` (1-9).
#[inline]
pub const fn bit(d: u8) -> u16 {
    1 << (d - 1)
}

/// The digits of a candidate mask, in increasing order.
pub fn digits(mask: u16) -> impl Iterator<Item = u8> {
    (1..=9u8).filter(move |&d| mask & bit(d) != 0)
}

/// The 20 cells that share a row, column or box with each cell.
pub const PEERS: [[u8; 20]; CELLS] = peers();

const fn peers() -> [[u8; 20]; CELLS] {
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

/// True when cells `a` and `b` (different) see each other.
#[inline]
pub fn sees(a: u8, b: u8) -> bool {
    let (a, b) = (a as usize, b as usize);
    a != b && (ROW_OF[a] == ROW_OF[b] || COL_OF[a] == COL_OF[b] || BOX_OF[a] == BOX_OF[b])
}

/// Values and candidates of the 81 cells.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    values: [u8; CELLS],
    cands: [u16; CELLS],
}

impl Board {
    /// The board of a puzzle's givens: every empty cell holds each digit
    /// none of its peers is given.
    pub fn new(givens: &Grid) -> Board {
        let values = *givens.cells();
        let mut cands = [0u16; CELLS];
        for (i, c) in cands.iter_mut().enumerate() {
            if values[i] == 0 {
                let taken = PEERS[i]
                    .iter()
                    .filter(|&&p| values[p as usize] != 0)
                    .fold(0, |m, &p| m | bit(values[p as usize]));
                *c = ALL & !taken;
            }
        }
        Board { values, cands }
    }

    /// The board of a pencilmark puzzle: each cell's candidates as given
    /// (a cell with one candidate stays unplaced until a step places it).
    pub fn from_candidates(cands: [u16; CELLS]) -> Board {
        Board {
            values: [0; CELLS],
            cands,
        }
    }

    #[inline]
    pub fn value(&self, cell: u8) -> u8 {
        self.values[cell as usize]
    }

    #[inline]
    pub fn cands(&self, cell: u8) -> u16 {
        self.cands[cell as usize]
    }

    #[inline]
    pub fn has(&self, cell: u8, d: u8) -> bool {
        self.cands[cell as usize] & bit(d) != 0
    }

    /// Places `d` in `cell`: the cell's candidates go, and `d` leaves its peers.
    pub fn place(&mut self, cell: u8, d: u8) {
        self.values[cell as usize] = d;
        self.cands[cell as usize] = 0;
        for &p in &PEERS[cell as usize] {
            self.cands[p as usize] &= !bit(d);
        }
    }

    /// Removes candidate `d` from `cell`; true when it was there.
    pub fn eliminate(&mut self, cell: u8, d: u8) -> bool {
        let had = self.has(cell, d);
        self.cands[cell as usize] &= !bit(d);
        had
    }

    /// The positions (bit `k` for the unit's `k`-th cell) of digit `d` among
    /// the candidates of unit `u` (rows 0-8, columns 9-17, boxes 18-26).
    #[inline]
    pub fn positions(&self, u: usize, d: u8) -> u16 {
        let mut m = 0;
        for (k, &c) in UNIT_CELLS[u].iter().enumerate() {
            if self.cands[c as usize] & bit(d) != 0 {
                m |= 1 << k;
            }
        }
        m
    }

    /// True when digit `d` is placed somewhere in unit `u`.
    pub fn placed_in(&self, u: usize, d: u8) -> bool {
        UNIT_CELLS[u].iter().any(|&c| self.values[c as usize] == d)
    }

    /// True when every cell holds a value.
    pub fn is_solved(&self) -> bool {
        self.values.iter().all(|&v| v != 0)
    }

    /// The placed values as a grid.
    pub fn grid(&self) -> Grid {
        Grid::from_cells(self.values).expect("values are digits")
    }

    /// The empty cells, in order.
    pub fn empty_cells(&self) -> impl Iterator<Item = u8> + '_ {
        (0..CELLS as u8).filter(|&c| self.values[c as usize] == 0)
    }
}
