//! The grader's grid: each cell's value or its candidates, as a person
//! solving with pencilmarks holds them. Candidates are a 9-bit mask per
//! cell (bit `d - 1` for digit `d`); a placed digit leaves its cell with
//! none and is taken from the cell's 20 peers.

pub use crate::puzzle::grid::PEERS;
use crate::puzzle::grid::{peers, Grid, BOX_OF, CELLS, COL_OF, ROW_OF, UNIT_CELLS};

/// All nine candidates.
pub const ALL: u16 = 0x1ff;

/// The mask of digit `d` (1-9).
#[inline]
pub const fn bit(d: u8) -> u16 {
    1 << (d - 1)
}

/// The digits of a candidate mask, in increasing order.
#[inline]
pub fn digits(mask: u16) -> impl Iterator<Item = u8> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let d = rest.trailing_zeros() as u8 + 1;
            rest &= rest - 1;
            d
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_bit_is_the_cells_bit() {
        for cell in 0..81u8 {
            assert_eq!(cell_bit(cell), 1u128 << cell);
        }
    }

    /// `unit_places` gives `units_of`'s units, and the cell's place in each;
    /// `unit_bits` the same units as bits.
    #[test]
    fn unit_places_are_the_cells_units_and_places() {
        for cell in 0..81u8 {
            let places = unit_places(cell);
            assert_eq!(places.map(|(u, _)| u), units_of(cell));
            let bits = units_of(cell).iter().fold(0, |m, &u| m | 1 << u);
            assert_eq!(unit_bits(cell), bits, "cell {cell}");
            for (u, place) in places {
                assert_eq!(place.count_ones(), 1);
                assert_eq!(UNIT_CELLS[u][place.trailing_zeros() as usize], cell);
            }
        }
    }

    /// `cells_of` gives a mask's cells in order, from either half and
    /// across the two (cells 63 and 64, the last cell 80).
    #[test]
    fn cells_of_gives_the_cells_in_order() {
        let masks = [0u128, 1, 1 << 63, 1 << 64, 3 << 63, 1 << 80, (1 << 81) - 1];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let random = (0..200).map(|_| {
            // xorshift: cell masks with bits in both halves.
            let mut half = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            (u128::from(half()) << 64 | u128::from(half())) & ((1 << 81) - 1)
        });
        for mask in masks.into_iter().chain(random) {
            let each: Vec<u8> = (0..81u8).filter(|&c| mask >> c & 1 != 0).collect();
            assert_eq!(cells_of(mask).collect::<Vec<_>>(), each, "{mask:#x}");
        }
    }

    /// `lone_digits` says which digits have one place in a unit, on the
    /// boards of sample puzzles thinned at random.
    #[test]
    fn lone_digits_have_one_place() {
        let mut lone = 0;
        crate::tasks::grade::test_boards::each_thinned(30, 6, 3, 5, |line, _, board, _| {
            for u in 0..27 {
                let counted = (1..=9u8)
                    .filter(|&d| board.positions(u, d).count_ones() == 1)
                    .fold(0, |m, d| m | bit(d));
                assert_eq!(board.lone_digits(u), counted, "{line}, unit {u}");
                lone += counted.count_ones();
            }
        });
        assert!(lone > 1_000, "{lone}");
    }

    /// The kept positions equal those counted afresh after any placements
    /// and removals.
    #[test]
    fn positions_follow_placements_and_removals() {
        let g = Grid::parse_line(
            b"4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        )
        .unwrap();
        let mut b = Board::new(&g);
        b.place(1, 1);
        b.eliminate(2, 2);
        b.eliminate(80, 9);
        let fresh = Board::with(b.values, b.cands);
        assert!(fresh == b);
        for n in 1..=8 {
            let counted = (0..81u8).filter(|&c| b.cands(c).count_ones() as usize == n);
            assert_eq!(
                b.cells_with_count(n),
                counted.fold(0, |m, c| m | 1 << c),
                "{n}"
            );
        }
        for (u, cells) in UNIT_CELLS.iter().enumerate() {
            let empty = cells.iter().filter(|&&c| b.value(c) == 0).count();
            assert_eq!(b.empty_count(u), empty);
        }
    }
}

/// Each cell's 20 peers ([`PEERS`]) as a cell mask (bit `c` for cell `c`).
pub const PEER_MASKS: [u128; CELLS] = {
    let lists = peers();
    let mut t = [0u128; CELLS];
    let mut cell = 0;
    while cell < CELLS {
        let mut k = 0;
        while k < 20 {
            t[cell] |= 1 << lists[cell][k];
            k += 1;
        }
        cell += 1;
    }
    t
};

/// Each unit's nine cells as a cell mask (units numbered as in
/// [`UNIT_CELLS`]).
pub const UNIT_MASKS: [u128; 27] = {
    let mut t = [0u128; 27];
    let mut u = 0;
    while u < 27 {
        let mut k = 0;
        while k < 9 {
            t[u] |= 1 << UNIT_CELLS[u][k];
            k += 1;
        }
        u += 1;
    }
    t
};

/// The cells of a cell mask, in order.
///
/// Read as two 64-bit halves: a 128-bit test, count and clear is two or
/// three instructions each (both halves and a carry), a half's one.
pub fn cells_of(mask: u128) -> impl Iterator<Item = u8> {
    let (mut low, mut high) = (mask as u64, (mask >> 64) as u64);
    std::iter::from_fn(move || {
        if low != 0 {
            let c = low.trailing_zeros() as u8;
            low &= low - 1;
            Some(c)
        } else if high != 0 {
            let c = high.trailing_zeros() as u8 + 64;
            high &= high - 1;
            Some(c)
        } else {
            None
        }
    })
}

/// `1 << cell` as a cell mask (bit `c` for cell `c`), read from a table:
/// a 128-bit shift by a variable count is six instructions (two shifts,
/// a test, two moves), the table's entry a load. (128 entries, so that
/// the masked index needs no bounds check.)
#[inline]
pub fn cell_bit(cell: u8) -> u128 {
    CELL_BITS[cell as usize & 127]
}

static CELL_BITS: [u128; 128] = {
    let mut t = [0u128; 128];
    let mut c = 0;
    while c < CELLS {
        t[c] = 1 << c;
        c += 1;
    }
    t
};

/// The cells that see some cell of the mask `cells` (their peers, OR-ed).
#[inline]
pub fn seen_by(cells: u128) -> u128 {
    cells_of(cells).fold(0, |m, c| m | PEER_MASKS[c as usize])
}

/// The unit of each kind (box, row, column: the order SE walks them in
/// loops and BUG) holding `cell`, as unit numbers.
pub fn units_of(cell: u8) -> [usize; 3] {
    let c = cell as usize;
    [
        18 + BOX_OF[c] as usize,
        ROW_OF[c] as usize,
        9 + COL_OF[c] as usize,
    ]
}

/// The units holding `cell` in [`units_of`]'s order (box, row, column),
/// each with the cell's place in it (the bit of [`Board::positions`]).
#[inline]
pub fn unit_places(cell: u8) -> [(usize, u16); 3] {
    let [row, column, in_box] = CELL_UNITS[cell as usize].map(|(u, k)| (u as usize, 1 << k));
    [in_box, row, column]
}

/// The units holding `cell`, as a unit mask (bit `u` for unit `u`).
#[inline]
pub fn unit_bits(cell: u8) -> u32 {
    UNIT_BITS[cell as usize]
}

/// [`unit_bits`] of each cell, read from a table (the walks of loops and
/// the bookkeeping of every step ask for it).
const UNIT_BITS: [u32; CELLS] = {
    let mut t = [0u32; CELLS];
    let mut c = 0;
    while c < CELLS {
        t[c] = 1 << ROW_OF[c] | 1 << (9 + COL_OF[c]) | 1 << (18 + BOX_OF[c]);
        c += 1;
    }
    t
};

/// True when cells `a` and `b` (different) see each other.
#[inline]
pub fn sees(a: u8, b: u8) -> bool {
    let (a, b) = (a as usize, b as usize);
    a != b && (ROW_OF[a] == ROW_OF[b] || COL_OF[a] == COL_OF[b] || BOX_OF[a] == BOX_OF[b])
}

/// For each cell, its three units (row, column, box) and its position in
/// each (bit `k` of a unit's position masks).
const CELL_UNITS: [[(u8, u8); 3]; CELLS] = cell_units();

const fn cell_units() -> [[(u8, u8); 3]; CELLS] {
    let mut t = [[(0u8, 0u8); 3]; CELLS];
    let mut u = 0;
    while u < 27 {
        let mut k = 0;
        while k < 9 {
            let c = UNIT_CELLS[u][k] as usize;
            let slot = u / 9;
            t[c][slot] = (u as u8, k as u8);
            k += 1;
        }
        u += 1;
    }
    t
}

/// Values and candidates of the 81 cells, and per unit and digit the
/// positions where the digit is a candidate (kept up to date by [`place`]
/// and [`eliminate`], since every technique asks for them).
///
/// [`place`]: Board::place
/// [`eliminate`]: Board::eliminate
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    values: [u8; CELLS],
    cands: [u16; CELLS],
    /// `pos[u][d - 1]`: bit `k` set while digit `d` is a candidate of the
    /// unit's `k`-th cell.
    pos: [[u16; 9]; 27],
    /// `cells_with[d - 1]`: bit `c` set while digit `d` is a candidate of
    /// cell `c`.
    cells_with: [u128; 9],
    /// Per unit, how many of its cells hold no value yet (the producers
    /// ask at every unit they search).
    empty: [u8; 27],
}

impl Board {
    /// The board of a puzzle's givens: every empty cell holds each digit
    /// none of its peers is given.
    pub fn new(givens: &Grid) -> Board {
        let values = *givens.cells();
        // The digits given in each unit (numbered as in `UNIT_CELLS`),
        // then each empty cell's candidates: those none of its three
        // units is given.
        let mut given = [0u16; 27];
        for (cell, &v) in values.iter().enumerate() {
            if v != 0 {
                for (u, _) in CELL_UNITS[cell] {
                    given[u as usize] |= bit(v);
                }
            }
        }
        let mut cands = [0u16; CELLS];
        for (cell, c) in cands.iter_mut().enumerate() {
            if values[cell] == 0 {
                let taken = CELL_UNITS[cell]
                    .iter()
                    .fold(0, |m, &(u, _)| m | given[u as usize]);
                *c = ALL & !taken;
            }
        }
        Board::with(values, cands)
    }

    fn with(values: [u8; CELLS], cands: [u16; CELLS]) -> Board {
        let mut pos = [[0u16; 9]; 27];
        let mut cells_with = [0u128; 9];
        for (cell, &m) in cands.iter().enumerate() {
            let this = cell_bit(cell as u8);
            for d in digits(m) {
                for (u, k) in CELL_UNITS[cell] {
                    pos[u as usize][d as usize - 1] |= 1 << k;
                }
                cells_with[d as usize - 1] |= this;
            }
        }
        let mut empty = [0u8; 27];
        for (cell, &v) in values.iter().enumerate() {
            if v == 0 {
                for (u, _) in CELL_UNITS[cell] {
                    empty[u as usize] += 1;
                }
            }
        }
        Board {
            values,
            cands,
            pos,
            cells_with,
            empty,
        }
    }

    /// The board of a pencilmark puzzle: each cell's candidates as given
    /// (a cell with one candidate stays unplaced until a step places it).
    pub fn from_candidates(cands: [u16; CELLS]) -> Board {
        Board::with([0; CELLS], cands)
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
        for e in digits(self.cands[cell as usize]) {
            self.eliminate(cell, e);
        }
        if self.values[cell as usize] == 0 {
            for (u, _) in CELL_UNITS[cell as usize] {
                self.empty[u as usize] -= 1;
            }
        }
        self.values[cell as usize] = d;
        // Only the peers that hold `d` lose it.
        for p in cells_of(self.cells_with(d) & PEER_MASKS[cell as usize]) {
            self.eliminate(p, d);
        }
    }

    /// Removes candidate `d` from `cell`; true when it was there.
    #[inline]
    pub fn eliminate(&mut self, cell: u8, d: u8) -> bool {
        let had = self.has(cell, d);
        if had {
            self.cands[cell as usize] &= !bit(d);
            for (u, k) in CELL_UNITS[cell as usize] {
                self.pos[u as usize][d as usize - 1] &= !(1 << k);
            }
            self.cells_with[d as usize - 1] &= !cell_bit(cell);
        }
        had
    }

    /// The positions (bit `k` for the unit's `k`-th cell) of digit `d` among
    /// the candidates of unit `u` (rows 0-8, columns 9-17, boxes 18-26).
    #[inline]
    pub fn positions(&self, u: usize, d: u8) -> u16 {
        self.pos[u][d as usize - 1]
    }

    /// The digits (bit `d - 1`) with one place exactly in unit `u`: its
    /// nine position masks four at a time in the 16-bit lanes of a word
    /// (a digit's mask has 9 bits, so a lane's top bit is free for the
    /// tests below), the ninth alone.
    #[inline]
    pub fn lone_digits(&self, u: usize) -> u16 {
        /// Each lane's top bit, and each lane's lowest.
        const TOP: u64 = 0x8000_8000_8000_8000;
        const LOW: u64 = 0x0001_0001_0001_0001;
        /// Moves the lanes' bits 0, 16, 32 and 48 to bits 48-51: the
        /// products land on distinct bits, so nothing carries.
        const GATHER: u64 = 1 << 48 | 1 << 33 | 1 << 18 | 1 << 3;
        let p = &self.pos[u];
        let lone = |first: usize| -> u16 {
            let x = (0..4).fold(0u64, |w, i| w | u64::from(p[first + i]) << (16 * i));
            // A lane's top bit set where it is not zero: adding the rest
            // of the top bit carries into it, never out of the lane.
            let nonzero = |x: u64| (x + (TOP - LOW)) & TOP;
            // Each lane with its lowest bit taken away: the lane minus
            // one, with the top bit set first so it never borrows from
            // the next lane.
            let rest = x & ((x | TOP) - LOW);
            let one = nonzero(x) & !nonzero(rest);
            ((one >> 15).wrapping_mul(GATHER) >> 48) as u16 & 0xf
        };
        let ninth = u16::from(p[8].count_ones() == 1);
        lone(0) | lone(4) << 4 | ninth << 8
    }

    /// The cells (bit `c` for cell `c`) where digit `d` is a candidate.
    #[inline]
    pub fn cells_with(&self, d: u8) -> u128 {
        self.cells_with[d as usize - 1]
    }

    /// Every digit's [`cells_with`](Board::cells_with), digit 1 first:
    /// the candidates in a form quick to compare.
    #[inline]
    pub fn candidate_cells(&self) -> [u128; 9] {
        self.cells_with
    }

    /// The units (bit `u`) with a cell whose candidates differ from
    /// those of `before` (a [`Board::candidate_cells`]).
    pub fn units_changed_since(&self, before: &[u128; 9]) -> u32 {
        let changed = (self.cells_with.iter().zip(before)).fold(0, |m, (a, b)| m | (a ^ b));
        // Often many cells (a scan's placements and their peers): 27
        // unit tests, not the `unit_bits` of each changed cell (as many
        // instructions on the first 2,000 minimal from a table, +0.3%
        // when `unit_bits` folded three units).
        (UNIT_MASKS.iter().enumerate())
            .fold(0, |m, (u, &cells)| m | u32::from(cells & changed != 0) << u)
    }

    /// The cells (bit `c`) holding exactly `n` candidates (1 to 8), from
    /// the digits' cells at once: per cell, a count kept to `n + 1` in
    /// bit planes (`at_least[k]`: the cells with more than `k` seen).
    pub fn cells_with_count(&self, n: usize) -> u128 {
        let mut at_least = [0u128; 9];
        for cells in self.cells_with {
            for k in (1..=n).rev() {
                at_least[k] |= at_least[k - 1] & cells;
            }
            at_least[0] |= cells;
        }
        at_least[n - 1] & !at_least[n]
    }

    /// True when digit `d` is placed somewhere in unit `u`.
    pub fn placed_in(&self, u: usize, d: u8) -> bool {
        UNIT_CELLS[u].iter().any(|&c| self.values[c as usize] == d)
    }

    /// How many cells of unit `u` hold no value yet.
    #[inline]
    pub fn empty_count(&self, u: usize) -> usize {
        self.empty[u] as usize
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
