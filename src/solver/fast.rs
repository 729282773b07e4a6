//! The flagship solver, on digit bitboards.
//!
//! # Layout
//! For each digit, the cells where it may still go, as three *bands* of 27
//! bits: band `b` holds rows `3b..3b+3`, and bit `9 * (row % 3) + col` is the
//! cell. A band is three rows of nine bits, so a row is a 9-bit slice, a box
//! is three 3-bit *triads* (one per row), and a column is the bits `col`,
//! `col + 9`, `col + 18`. A placed cell stays set in its own digit's board and
//! is cleared from the other eight, so when the grid is solved each board
//! holds exactly the nine cells of its digit.
//!
//! # Inference
//! - Band filter: inside a band, a digit goes once in each of the three rows
//!   and once in each of the three boxes, so the rows and boxes are matched by
//!   a permutation. The 9-bit "which triads are non-empty" pattern indexes a
//!   table of the triads that belong to some such permutation; the others are
//!   cleared. This covers pointing and claiming (locked candidates), finds a
//!   row or box with no place left, and pins a row confined to one box.
//! - Stack filter: the same argument across bands, matching the three boxes of
//!   a stack with its three columns, on the "which columns are non-empty in
//!   this band" bits.
//! - Hidden singles: after both filters reach a fixed point, a digit alone in
//!   a box is placed (its row and column peers are already cleared by the
//!   filters, see `update_digit`).
//! - Naked singles: bit-sliced counters over the nine boards give, per band,
//!   the cells with one candidate, with none (a contradiction) and with two
//!   (where to branch).
//!
//! # Search
//! Propagate to a fixed point, then branch on a cell with two candidates
//! where one exists (else on the first cell with the fewest candidates, or
//! on a digit's last two places in a box when that cell has four or more);
//! among bivalue cells, the
//! one that sees the most unsolved cells (see `State::branch`), which cuts the
//! guesses on hard puzzles by about 40% against taking the first. Each
//! child gets a copy of the 120-byte state on the stack. No
//! heap, no undo log.
//!
//! # What needs another look
//! Propagation keeps, in a register, the set of digits whose boards changed
//! since the filters last ran on them: a guess marks the digits of its cell,
//! a naked single its own digit, and clearing hidden singles the digits
//! that had those cells (one test per board of the band, next to the
//! clearing itself). The boards are stored band by band, so those nine
//! boards sit side by side. Until 2026-11-25 every board was compared with
//! a copy kept from its last update instead: in perf's clock samples on
//! multi_20k, 13% sat on that compare of boards just written, and the
//! state was twice the size to copy.

#[cfg(target_arch = "x86_64")]
mod avx512;
mod givens;

use super::{stop_requested, Outcome, Solver, STOP_CHECK_EVERY};
use crate::puzzle::grid::{Grid, CELLS};
use crate::puzzle::pencil::Candidates;
use givens::Givens;
use std::sync::atomic::AtomicBool;

/// Every digit, as the bit set `propagate` takes: all need a look.
const ALL_DIGITS: u32 = 0x1FF;
/// The 27 bits of a band.
const BAND: u32 = (1 << 27) - 1;
/// Bits `0`, `9`, `18`: one column of a band. Multiplying a 9-bit column set
/// by it copies the set to all three rows (no carries: the copies never overlap).
const COLUMN_SPREAD: u32 = 1 | 1 << 9 | 1 << 18;
/// The three boxes of a band.
const BOX_IN_BAND: [u32; 3] = [
    0x7 * COLUMN_SPREAD,
    0x38 * COLUMN_SPREAD,
    0x1C0 * COLUMN_SPREAD,
];

/// `MATCHABLE[t]`: for a 3x3 pattern `t` (bit `3 * r + k`: row `r` may use
/// box `k`), the bits that lie on some perfect matching of rows to boxes
/// inside `t`; 0 when there is none. The band filter reads it through
/// `BAND_KEEP`; the stack filter computes the same thing without a table.
static MATCHABLE: [u16; 512] = {
    const PERMUTATIONS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut t = [0u16; 512];
    let mut x = 0;
    while x < 512 {
        let mut p = 0;
        while p < 6 {
            let [a, b, c] = PERMUTATIONS[p];
            let m = (1 << a) | (1 << (3 + b)) | (1 << (6 + c));
            if x & m == m {
                t[x] |= m as u16;
            }
            p += 1;
        }
        x += 1;
    }
    t
};

/// `MATCHABLE` for every pattern, each kept triad widened to its three
/// cells; pattern bit `i` is the triad of row `i / 3`, box `i % 3` when
/// `by_row`, else of row `i % 3`, box `i / 3`.
const fn band_keep(by_row: bool) -> [u32; 512] {
    let mut t = [0u32; 512];
    let mut x = 0;
    while x < 512 {
        let m = MATCHABLE[x] as u32;
        let mut i = 0;
        while i < 9 {
            let (row, bx) = if by_row {
                (i / 3, i % 3)
            } else {
                (i % 3, i / 3)
            };
            if m & (1 << i) != 0 {
                t[x] |= 0x7 << (9 * row + 3 * bx);
            }
            i += 1;
        }
        x += 1;
    }
    t
}

/// `MATCHABLE` on a band's triad pattern (see [`triads`]: bit `3k + r`
/// for row `r`, box `k`), each kept triad widened to its three cells. A
/// matching of rows to boxes is one of boxes to rows, so the table reads
/// the pattern with rows and boxes swapped.
static BAND_KEEP: [u32; 512] = band_keep(false);

/// `MATCHABLE` read by rows: index bit `3r + k` set when row `r` of the
/// band has a candidate in box `k` (the order `pext` gathers the triads
/// in, see [`band_filter`]), each kept triad widened to its three cells.
static BAND_KEEP_BY_ROW: [u32; 512] = band_keep(true);

/// For each cell of a band, its row and box in that band, without the cell.
/// Padded to 32 entries so that any `trailing_zeros & 31` indexes it without
/// a bounds check.
static BAND_PEERS: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut i = 0;
    while i < 27 {
        let row = 0x1FF << (9 * (i / 9));
        let bx = BOX_IN_BAND[(i % 9) / 3];
        t[i] = (row | bx) & !(1 << i);
        i += 1;
    }
    t
};

/// For a triad pattern (see [`triads`]) of the givens of one digit in a
/// band: bits 0-26, every cell of a row or box that holds one of them; bits
/// 27-29, how many rows plus how many boxes they touch. Givens of one digit
/// that share no row or box touch `2 * count` of them.
static GIVEN_UNITS: [u32; 512] = {
    let mut t = [0u32; 512];
    let mut x = 0;
    while x < 512 {
        let mut cells = 0u32;
        let mut units = 0u32;
        let mut r = 0;
        while r < 3 {
            if x & (0x49 << r) != 0 {
                cells |= 0x1FF << (9 * r);
                units += 1;
            }
            if x & (0x7 << (3 * r)) != 0 {
                cells |= BOX_IN_BAND[r];
                units += 1;
            }
            r += 1;
        }
        t[x] = cells | units << 27;
        x += 1;
    }
    t
};

/// `SPREAD[x]`: bit `j` of the byte `x` moved to bit 0 of byte `j`, for
/// writing eight cells of a bit plane at once.
static SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut j = 0;
        while j < 8 {
            if x & (1 << j) != 0 {
                t[x] |= 1 << (8 * j);
            }
            j += 1;
        }
        x += 1;
    }
    t
};

/// How many cells of `set` (one mask per band) share a row, column or box
/// with the cell `bit` of band `b`: its row and box peers in the band, plus
/// its column in the other two bands (the second shifted one place so that
/// the two never overlap and one population count covers both).
#[inline(always)]
fn peers_in(set: &[u32; 3], b: usize, bit: u32) -> u32 {
    let pos = bit.trailing_zeros() as usize & 31;
    let column = COLUMN_SPREAD << (pos % 9);
    let [above, below] = OTHER_BANDS[b];
    let in_band = set[b] & BAND_PEERS[pos];
    let in_column = (set[above] & column) | (set[below] & column) << 1;
    in_band.count_ones() + in_column.count_ones()
}

/// Bit-sliced counting of nine boards: the cells set in at least one, and
/// those set in at least two. Summed as a tree (pairs, then pairs of pairs)
/// rather than one board after another, so the chain of dependent steps is
/// four deep instead of nine.
#[inline(always)]
fn once_and_twice(boards: [u32; 9]) -> (u32, u32) {
    // (once, twice) of two disjoint groups, merged.
    let merge = |(o1, t1): (u32, u32), (o2, t2): (u32, u32)| (o1 | o2, t1 | t2 | (o1 & o2));
    let pair = |x: u32, y: u32| (x | y, x & y);
    let low = merge(pair(boards[0], boards[1]), pair(boards[2], boards[3]));
    let high = merge(pair(boards[4], boards[5]), pair(boards[6], boards[7]));
    merge(merge(low, high), (boards[8], 0))
}

/// For each band, the other two.
const OTHER_BANDS: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];

/// The triad pattern of a band: bit `3 * k + r` set when row `r` of the band
/// has a candidate in box `k`. Computed, not looked up, to keep the band
/// filter's chain of dependent steps short.
#[inline(always)]
fn triads(band: u32) -> usize {
    // Bit 9r + 3k: is triad k of row r non-empty?
    let occupied = (band | band >> 1 | band >> 2) & 0o111_111_111;
    // Row r moves down 8r places, onto 3k + r; the rows never collide, and
    // the final mask drops what moved above bit 8 (it keeps the index
    // provably in range: no bounds check).
    ((occupied | occupied >> 8 | occupied >> 16) & 0x1FF) as usize
}

/// The columns (9 bits) with a candidate anywhere in the band.
#[inline(always)]
fn columns(band: u32) -> u32 {
    (band | band >> 9 | band >> 18) & 0x1FF
}

/// The band filter: clears the triads of `band` that lie on no matching of
/// its three rows to its three boxes (see the module notes).
///
/// With `PEXT`, the triad pattern is gathered by one `pext` (BMI2) from
/// the triads' first cells instead of by shifts, a shorter chain before the
/// table read: forum_hardest 4.8%, multi_20k 1.6%, minimal 1.3% faster on
/// the AMD EPYC (Zen 4), the 17-clue set the same. Only the search of
/// [`Isa::Avx512`] sets it: every CPU that version runs on has a fast
/// `pext`, where AMD before Zen 3 (which runs the AVX2 version) takes
/// hundreds of cycles for one.
#[inline(always)]
fn band_filter<const PEXT: bool>(band: u32) -> Result<u32, Contradiction> {
    #[cfg(target_arch = "x86_64")]
    let kept = if PEXT {
        let occupied = band | band >> 1 | band >> 2;
        // SAFETY: `PEXT` is set only in `search_avx512`, which is compiled
        // with BMI2 and reached only from `avx512::root`, which runs only
        // where `Isa::Avx512.is_supported()` (AVX2 set, BMI2 included),
        // and in the test below once the CPU has reported BMI2.
        let pattern = unsafe { std::arch::x86_64::_pext_u32(occupied, 0o111_111_111) };
        band & BAND_KEEP_BY_ROW[pattern as usize & 511]
    } else {
        band & BAND_KEEP[triads(band)]
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kept = band & BAND_KEEP[triads(band)];
    if kept == 0 {
        return Err(Contradiction);
    }
    Ok(kept)
}

/// Inside each 3-bit group of a 9-bit column set (one group per stack), the
/// bit of the column `BY` (1 or 2) places further on, wrapping around within
/// the stack.
#[inline(always)]
fn next_column_in_stack<const BY: u32>(cols: u32) -> u32 {
    match BY {
        1 => ((cols >> 1) & 0o333) | ((cols << 2) & 0o444),
        _ => ((cols >> 2) & 0o111) | ((cols << 1) & 0o666),
    }
}

/// The stack filter for one digit: in each stack, its three boxes (one per
/// band) and three columns are matched by a permutation. A column of band
/// `b` is kept when the other two bands can take the other two columns of
/// the stack, one each: with `c1`, `c2` the other bands' column sets and
/// `n1`, `n2` the next and next-but-one column in the stack, when
/// `(c1[n1] & c2[n2]) | (c1[n2] & c2[n1])`. All nine columns at once, no
/// table. A stack with no matching leaves some band with no column there.
#[inline(always)]
fn stack_filter(a: [u32; 3]) -> Result<[u32; 3], Contradiction> {
    let cols = [columns(a[0]), columns(a[1]), columns(a[2])];
    let n1 = cols.map(next_column_in_stack::<1>);
    let n2 = cols.map(next_column_in_stack::<2>);
    let keep = [
        cols[0] & ((n1[1] & n2[2]) | (n2[1] & n1[2])),
        cols[1] & ((n1[0] & n2[2]) | (n2[0] & n1[2])),
        cols[2] & ((n1[0] & n2[1]) | (n2[0] & n1[1])),
    ];
    // Every stack keeps a column in band 0 exactly when it has a matching.
    let k = keep[0];
    if (k | k >> 1 | k >> 2) & 0o111 != 0o111 {
        return Err(Contradiction);
    }
    Ok([
        a[0] & (keep[0] * COLUMN_SPREAD),
        a[1] & (keep[1] * COLUMN_SPREAD),
        a[2] & (keep[2] * COLUMN_SPREAD),
    ])
}

/// The digits (bit `d`) whose board, among the nine of a band
/// (`State::cand[b]`), holds one of `cells`.
///
/// On x86-64, four boards at a time in SSE2 registers (part of every
/// x86-64 CPU): a compare with zero and `movmskps` give four digits' bits
/// at once. Left to the compiler, the same loop became an OR-reduction
/// across a vector; this form ran 3% faster on multi_20k, 1.5-2% on the
/// minimal and 17-clue sets (AMD EPYC Zen 4).
#[inline(always)]
fn digits_holding(boards: &[u32; 9], cells: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let p = boards.as_ptr();
        // SAFETY: `p` points to nine u32: the two loads read boards 0-3
        // and 4-7, inside the array (`loadu` needs no alignment); SSE2,
        // which the rest needs, is part of the x86-64 baseline. The search
        // tests (tests/datasets.rs, tests/pencil.rs) run this in every
        // version and compare the results with the reference solvers.
        let (low, high) = unsafe {
            let wanted = _mm_set1_epi32(cells as i32);
            let missing = |v| {
                let none = _mm_cmpeq_epi32(_mm_and_si128(v, wanted), _mm_setzero_si128());
                _mm_movemask_ps(_mm_castsi128_ps(none)) as u32
            };
            (
                missing(_mm_loadu_si128(p.cast())),
                missing(_mm_loadu_si128(p.add(4).cast())),
            )
        };
        (!(low | high << 4) & 0xFF) | u32::from(boards[8] & cells != 0) << 8
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut held = 0;
        for (d, &board) in boards.iter().enumerate() {
            held |= u32::from(board & cells != 0) << d;
        }
        held
    }
}

/// The solver's whole search state: copied on every branch.
#[derive(Clone, Copy)]
struct State {
    /// `cand[b][d]`: where digit `d + 1` may go in band `b`. Band by band,
    /// so that the nine boards of a band (cleared together when a cell is
    /// placed, counted together for singles) are side by side.
    cand: [[u32; 9]; 3],
    /// Cells not yet placed, per band.
    unsolved: [u32; 3],
}

/// Raised when a state has no solution.
struct Contradiction;

/// Where the search splits a state (see `State::branch`): a child for
/// each of `digits` (bit `d` for digit `d`, 0-based) on each of the cells
/// `places` of band `band`. Either one cell and its candidates, or one
/// digit and its last two places in a box.
struct Branch {
    band: usize,
    places: u32,
    digits: u32,
}

type Step = Result<(), Contradiction>;

impl State {
    const FRESH: State = State {
        cand: [[BAND; 9]; 3],
        unsolved: [BAND; 3],
    };

    /// Loads the givens: each leaves every board, and the rows, boxes and
    /// columns it touches leave its own digit's board (all at once, from
    /// the digit's triad pattern per band). Two equal givens that share a
    /// unit are a contradiction: they touch fewer units than there are of
    /// them.
    #[inline(always)]
    fn from_givens(g: &Givens) -> Result<State, Contradiction> {
        let mut s = State::FRESH;
        let mut clash = false;
        for d in 0..9 {
            let own = [g.own[3 * d], g.own[3 * d + 1], g.own[3 * d + 2]];
            let counts = own.map(u32::count_ones);
            let cols = columns(own[0] | own[1] | own[2]);
            clash |= cols.count_ones() != counts[0] + counts[1] + counts[2];
            let column_peers = cols * COLUMN_SPREAD;
            for (b, &mine) in own.iter().enumerate() {
                let units = GIVEN_UNITS[triads(mine)];
                clash |= units >> 27 != 2 * counts[b];
                let blocked = g.taken[b] | (units & BAND) | column_peers;
                s.cand[b][d] = (BAND & !blocked) | mine;
            }
        }
        if clash {
            return Err(Contradiction);
        }
        s.unsolved = g.taken.map(|taken| BAND & !taken);
        Ok(s)
    }

    /// Takes the digit `ruled_out.1` (1-9) from the cell `ruled_out.0`
    /// (see `FastSolver::solvable_without`).
    #[inline(always)]
    fn rule_out(&mut self, ruled_out: Option<(usize, u8)>) {
        if let Some((cell, digit)) = ruled_out {
            self.cand[cell / 27][digit as usize - 1] &= !(1 << (cell % 27));
        }
    }

    /// A pencilmark puzzle: each digit's boards are the cells where it is
    /// a candidate, and every cell is open; the first propagation places
    /// the cells left with one candidate (naked singles) and finds a cell
    /// left with none.
    #[inline(always)]
    fn from_candidates(marks: &Candidates) -> State {
        let mut s = State::FRESH;
        for d in 0..9 {
            for b in 0..3 {
                let mut board = 0u32;
                for (pos, &m) in marks.masks()[27 * b..27 * b + 27].iter().enumerate() {
                    board |= u32::from(m >> d & 1) << pos;
                }
                s.cand[b][d] = board;
            }
        }
        s
    }

    /// Places digit `d` (0-based) on the cell `bit` of band `b`: the cell
    /// leaves the other digits' boards, and its row, box and column peers
    /// leave this digit's board.
    #[inline(always)]
    fn place(&mut self, d: usize, b: usize, bit: u32) -> Step {
        let own = self.cand[b][d];
        if own & bit == 0 {
            return Err(Contradiction);
        }
        for board in &mut self.cand[b] {
            *board &= !bit;
        }
        let pos = bit.trailing_zeros() as usize & 31;
        self.cand[b][d] = (own & !BAND_PEERS[pos]) | bit;
        let column = COLUMN_SPREAD << (pos % 9);
        for other in 0..3 {
            if other != b {
                self.cand[other][d] &= !column;
            }
        }
        self.unsolved[b] &= !bit;
        Ok(())
    }

    /// Runs the band and stack filters on digit `d` to a fixed point, then
    /// places every hidden single it shows. Returns the other digits whose
    /// boards this changed: those that held a cell of the singles.
    #[inline(always)]
    fn update_digit<const PEXT: bool>(&mut self, d: usize) -> Result<u32, Contradiction> {
        let a = [self.cand[0][d], self.cand[1][d], self.cand[2][d]];
        // Each filter is idempotent (what it keeps still lies on a matching
        // of what it kept), so the loop stops as soon as the other filter
        // had nothing to add, without a confirming pass of both.
        let mut a = [
            band_filter::<PEXT>(a[0])?,
            band_filter::<PEXT>(a[1])?,
            band_filter::<PEXT>(a[2])?,
        ];
        loop {
            let stacked = stack_filter(a)?;
            if stacked == a {
                break;
            }
            let banded = [
                band_filter::<PEXT>(stacked[0])?,
                band_filter::<PEXT>(stacked[1])?,
                band_filter::<PEXT>(stacked[2])?,
            ];
            a = banded;
            if banded == stacked {
                break;
            }
        }
        // At the fixed point a digit alone in its box has had its row cleared
        // (the band filter matched the box to that row) and its column cleared
        // (the stack filter matched the column to that band), so placing it
        // only takes the cell from the other digits.
        let mut touched = 0;
        for (b, &band) in a.iter().enumerate() {
            let mut singles = 0;
            for bx in BOX_IN_BAND {
                let m = band & bx;
                if m & m.wrapping_sub(1) == 0 {
                    singles |= m;
                }
            }
            singles &= self.unsolved[b];
            if singles != 0 {
                self.unsolved[b] &= !singles;
                touched |= digits_holding(&self.cand[b], singles);
                for board in &mut self.cand[b] {
                    *board &= !singles;
                }
            }
        }
        for (b, &band) in a.iter().enumerate() {
            self.cand[b][d] = band;
        }
        Ok(touched & !(1 << d))
    }

    /// Propagates to a fixed point: digit filters and hidden singles for every
    /// digit in `dirty` (bit `d` for digit `d + 1`: those whose boards
    /// changed since the filters last ran on them) and every digit that
    /// these change in turn, then naked singles, until neither finds
    /// anything.
    #[inline(always)]
    fn propagate<const PEXT: bool>(&mut self, mut dirty: u32) -> Step {
        loop {
            while dirty != 0 {
                let d = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                dirty |= self.update_digit::<PEXT>(d)?;
            }
            let mut singles = [0u32; 3];
            let mut any_single = false;
            for (b, single) in singles.iter_mut().enumerate() {
                let (once, twice) = once_and_twice(self.cand[b]);
                let open = self.unsolved[b];
                if open & !once != 0 {
                    return Err(Contradiction);
                }
                *single = once & !twice & open;
                any_single |= *single != 0;
            }
            if !any_single {
                return Ok(());
            }
            for (b, &single) in singles.iter().enumerate() {
                let mut rest = single;
                while rest != 0 {
                    let bit = rest & rest.wrapping_neg();
                    rest ^= bit;
                    // Its one candidate, read now: when an earlier single
                    // of the same digit in a shared unit took it, the cell
                    // is left empty.
                    let digits = self.digits_at(b, bit);
                    if digits == 0 {
                        return Err(Contradiction);
                    }
                    let d = digits.trailing_zeros() as usize;
                    self.place(d, b, bit)?;
                    // The cell had no other candidate: only `d`'s boards changed.
                    dirty |= 1 << d;
                }
            }
        }
    }

    #[inline(always)]
    fn is_solved(&self) -> bool {
        self.unsolved == [0; 3]
    }

    /// Where to branch: among the cells with two candidates, the one that
    /// sees the most unsolved cells (placing either digit there then
    /// removes the most candidates, so the wrong child fails sooner and the
    /// right one propagates further; the last best wins ties). Without a
    /// bivalue cell, the first cell with the fewest candidates, unless it
    /// has four or more and some digit has two places left in a box: then
    /// those two places (two children as well; preferred to a cell of
    /// three, it cost 8.5% more guesses on forum_hardest). Only called on
    /// a propagated, unsolved state, where every open cell has two or
    /// more candidates.
    ///
    /// Adding the bivalue peers to the score (as until 2026-11-24) cut the
    /// guesses by 3-7% on the hard sets but cost more than that in scoring:
    /// the unsolved peers alone run 4-5% faster on multi_20k and 1-3% on
    /// the others.
    #[inline(always)]
    fn branch(&self) -> Branch {
        let mut pairs = [0u32; 3];
        for (b, pair) in pairs.iter_mut().enumerate() {
            let (mut once, mut twice, mut thrice) = (0u32, 0u32, 0u32);
            for d in 0..9 {
                let x = self.cand[b][d];
                thrice |= twice & x;
                twice |= once & x;
                once |= x;
            }
            *pair = twice & !thrice & self.unsolved[b];
        }
        if pairs != [0; 3] {
            let mut best = (0, 0, 0);
            for (b, &pair) in pairs.iter().enumerate() {
                let mut rest = pair;
                while rest != 0 {
                    let bit = rest & rest.wrapping_neg();
                    rest ^= bit;
                    let score = peers_in(&self.unsolved, b, bit);
                    if score >= best.2 {
                        best = (b, bit, score);
                    }
                }
            }
            return self.on_cell(best.0, best.1);
        }
        let mut best = (0, 0, u32::MAX);
        for b in 0..3 {
            let mut open = self.unsolved[b];
            while open != 0 {
                let bit = open & open.wrapping_neg();
                open ^= bit;
                let n = self.digits_at(b, bit).count_ones();
                if n < best.2 {
                    best = (b, bit, n);
                }
            }
        }
        if best.2 > 3 {
            if let Some(bilocal) = self.bilocal() {
                return bilocal;
            }
        }
        self.on_cell(best.0, best.1)
    }

    /// A branch on every candidate of the cell `bit` of band `b`.
    #[inline(always)]
    fn on_cell(&self, b: usize, bit: u32) -> Branch {
        Branch {
            band: b,
            places: bit,
            digits: self.digits_at(b, bit),
        }
    }

    /// The first digit with exactly two open places in a box, as a branch
    /// on those two places. Without it, a puzzle whose contradiction is a
    /// box with three digits confined to two cells (which singles and the
    /// filters do not see) was searched cell by cell through the empty
    /// rest of the grid: 12.9 million guesses on one 12-clue line a fuzzer
    /// found, against two once the branch is on such a digit (its two
    /// children fail at once).
    #[inline(always)]
    fn bilocal(&self) -> Option<Branch> {
        for b in 0..3 {
            let open = self.unsolved[b];
            if open == 0 {
                continue;
            }
            for d in 0..9 {
                let board = self.cand[b][d] & open;
                for unit in BOX_IN_BAND {
                    let places = board & unit;
                    if places.count_ones() == 2 {
                        return Some(Branch {
                            band: b,
                            places,
                            digits: 1 << d,
                        });
                    }
                }
            }
        }
        None
    }

    /// Bit `d` set for each digit `d` (0-based) that may go on the cell.
    #[inline(always)]
    fn digits_at(&self, b: usize, bit: u32) -> u32 {
        digits_holding(&self.cand[b], bit)
    }

    /// The solved grid. Each cell's value `v` (1-9) is written as four bit
    /// planes, plane `k` being the cells whose value has bit `k` set: four
    /// ORs of boards per band instead of a loop over every placed cell.
    #[inline(always)]
    fn solution_grid(&self) -> Grid {
        let mut cells = [0u8; CELLS];
        for (b, band_cells) in cells.chunks_exact_mut(27).enumerate() {
            let mut planes = [0u32; 4];
            for d in 0..9 {
                let value = d + 1;
                for (k, plane) in planes.iter_mut().enumerate() {
                    if value >> k & 1 != 0 {
                        *plane |= self.cand[b][d];
                    }
                }
            }
            // Eight cells at a time: byte j of `word` is the value of cell
            // `8 * chunk + j`.
            for (chunk, out) in band_cells.chunks_mut(8).enumerate() {
                let mut word = 0u64;
                for (k, &plane) in planes.iter().enumerate() {
                    word |= SPREAD[(plane >> (8 * chunk) & 0xFF) as usize] << k;
                }
                out.copy_from_slice(&word.to_le_bytes()[..out.len()]);
            }
        }
        Grid::from_cells(cells).expect("digits are 1-9")
    }
}

/// Instruction sets the fast solver has code for, chosen once per solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Plain Rust for any target; the reference the others are tested against.
    Portable,
    /// x86-64 with AVX2, BMI1, BMI2, POPCNT and LZCNT (Intel Haswell, AMD
    /// Zen and later): the givens are read with byte compares, and the whole
    /// search is compiled for these instructions (`popcnt` for counting
    /// candidates, `tzcnt`/`blsr` for walking bits).
    Avx2,
    /// The AVX2 set plus AVX-512F: the root's propagation on all nine
    /// digits at once, a band of all of them in each of three 512-bit
    /// registers; the search below it is the AVX2 version's, its band
    /// filter gathering triads with `pext` (fast on every CPU this version
    /// is picked on). Runs on Intel
    /// Skylake-SP and AMD Zen 4 and later; [`Isa::detect`] picks it on the
    /// CPUs where 512-bit work costs the clock little or nothing (see there).
    Avx512,
}

impl Isa {
    /// Every version, the portable one first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// The best this CPU can run. `Avx512` only where AVX-512 VBMI is
    /// reported too, which leaves out the first AVX-512 Xeons (Skylake-SP,
    /// Cascade Lake, Cooper Lake): those lower the core's clock for a while
    /// after any 512-bit instruction, which would slow the scalar search
    /// between the roots as well. Ice Lake and later (which lower it much
    /// less for integer work) and AMD Zen 4 and later (which do not) report
    /// VBMI. Not measured on an older Xeon: none was at hand.
    pub fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx512.is_supported() && std::arch::is_x86_feature_detected!("avx512vbmi") {
            return Isa::Avx512;
        }
        if Isa::Avx2.is_supported() {
            Isa::Avx2
        } else {
            Isa::Portable
        }
    }

    /// Whether this CPU can run this version.
    pub fn is_supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                use std::arch::is_x86_feature_detected as has;
                has!("avx2") && has!("bmi1") && has!("bmi2") && has!("popcnt") && has!("lzcnt")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::Avx2.is_supported() && std::arch::is_x86_feature_detected!("avx512f")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Isa::Avx2 | Isa::Avx512 => false,
        }
    }
}

/// Digit bitboards, band and stack filters, hidden and naked singles,
/// bivalue branching.
#[derive(Debug, Clone)]
pub struct FastSolver {
    isa: Isa,
    limit: u32,
    found: u32,
    first: Option<Grid>,
    /// Whether the first solution is kept in `first` (not when only its
    /// existence is asked: building the grid cost 1.3% of generation).
    keep_first: bool,
    guesses: u64,
    stop: Option<&'static AtomicBool>,
    stopped: bool,
}

impl Default for FastSolver {
    fn default() -> Self {
        Self::new()
    }
}

/// Defines one version of the search: `$search` propagates a state from the
/// digits that need a look (see `State::propagate`) and searches below it
/// (true when the limit is reached); `$pext` picks the band filter's form
/// (see [`band_filter`]). Stamped out once per [`Isa`] so that each version,
/// with everything the `inline(always)` state methods bring into it, is
/// compiled for its own instruction set.
macro_rules! search_version {
    ($(#[$features:meta])* $search:ident, $pext:expr) => {
        $(#[$features])*
        fn $search(solver: &mut FastSolver, state: &mut State, dirty: u32) -> bool {
            if state.propagate::<$pext>(dirty).is_err() {
                return false;
            }
            if state.is_solved() {
                solver.found += 1;
                if solver.keep_first && solver.first.is_none() {
                    solver.first = Some(state.solution_grid());
                }
                return solver.found >= solver.limit;
            }
            // Each child places one digit on one cell; the digits of that
            // cell need a look. The last child takes the parent's place
            // (not needed any more) instead of a copy.
            let Branch {
                band: b,
                places,
                digits,
            } = state.branch();
            let mut children = places.count_ones() * digits.count_ones();
            let mut cells = places;
            while cells != 0 {
                let bit = cells & cells.wrapping_neg();
                cells ^= bit;
                let dirty = state.digits_at(b, bit);
                let mut rest = digits;
                while rest != 0 {
                    let d = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    children -= 1;
                    if solver.guess_stops() {
                        return true;
                    }
                    if children == 0 {
                        return state.place(d, b, bit).is_ok() && $search(solver, state, dirty);
                    }
                    let mut child = *state;
                    if child.place(d, b, bit).is_ok() && $search(solver, &mut child, dirty) {
                        return true;
                    }
                }
            }
            false
        }
    };
}

/// Defines the entry points of one version: `$run` loads a puzzle with
/// `$givens` and searches it with `$search`, `$run_marks` a pencilmark one.
macro_rules! entry_points {
    ($(#[$features:meta])* $run:ident, $run_marks:ident, $givens:path, $search:ident) => {
        $(#[$features])*
        fn $run(solver: &mut FastSolver, puzzle: &Grid, ruled_out: Option<(usize, u8)>) {
            let Ok(mut state) = State::from_givens(&$givens(puzzle.cells())) else {
                return;
            };
            state.rule_out(ruled_out);
            $search(solver, &mut state, ALL_DIGITS);
        }

        $(#[$features])*
        fn $run_marks(solver: &mut FastSolver, marks: &Candidates) {
            $search(solver, &mut State::from_candidates(marks), ALL_DIGITS);
        }
    };
}

search_version!(search_portable, false);
entry_points!(
    run_portable,
    run_marks_portable,
    givens::portable,
    search_portable
);

#[cfg(target_arch = "x86_64")]
search_version!(
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    search_avx2,
    false
);
#[cfg(target_arch = "x86_64")]
entry_points!(
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    run_avx2,
    run_marks_avx2,
    givens::avx2,
    search_avx2
);

#[cfg(target_arch = "x86_64")]
search_version!(
    /// Below the AVX-512 root (`avx512::root`): the AVX2 search with the
    /// band filter's `pext` form. Compiled for the AVX2 set only, like
    /// `search_avx2`: compiled for AVX-512 too it measured no faster.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    search_avx512,
    true
);

impl FastSolver {
    /// A solver using the best instruction set this CPU has.
    pub fn new() -> Self {
        Self::with_isa(Isa::detect()).expect("the detected instruction set is supported")
    }

    /// A solver using `isa`, or `None` when this CPU cannot run it. Every
    /// version finds the same solutions with the same guesses.
    pub fn with_isa(isa: Isa) -> Option<Self> {
        isa.is_supported().then_some(FastSolver {
            isa,
            limit: 1,
            found: 0,
            first: None,
            keep_first: true,
            guesses: 0,
            stop: None,
            stopped: false,
        })
    }

    /// The instruction set this solver runs.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// Counts a guess, and every `STOP_CHECK_EVERY` guesses looks whether
    /// a stop was asked for: then the search unwinds as if the limit were
    /// reached, and `stopped` says why.
    #[inline(always)]
    fn guess_stops(&mut self) -> bool {
        self.guesses += 1;
        if self.guesses.is_multiple_of(STOP_CHECK_EVERY) && stop_requested(self.stop) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Resets the counts for a new puzzle searched up to `limit`.
    fn start(&mut self, limit: u32) {
        self.limit = limit.max(1);
        self.found = 0;
        self.first = None;
        self.guesses = 0;
        self.stopped = false;
    }

    /// Solves `puzzle` up to `limit` solutions, with the digit `ruled_out.1`
    /// taken from the cell `ruled_out.0` first.
    fn run(&mut self, puzzle: &Grid, limit: u32, ruled_out: Option<(usize, u8)>) {
        self.start(limit);
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a solver holds `Isa::Avx2` only when `with_isa` saw
            // the CPU report every feature `run_avx2` is compiled for.
            Isa::Avx2 => unsafe { run_avx2(self, puzzle, ruled_out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for `Isa::Avx2`, with AVX-512F checked too.
            Isa::Avx512 => unsafe { avx512::run(self, puzzle, ruled_out) },
            _ => run_portable(self, puzzle, ruled_out),
        }
    }

    /// True when `puzzle` has a solution whose cell `cell` (0-80) is not
    /// `digit`. For a puzzle made by taking the clue `digit` from `cell` out
    /// of a uniquely solvable one, this is exactly "the clue was needed":
    /// any second solution must differ there, since one that agrees would
    /// also solve the puzzle with the clue. One search with the digit ruled
    /// out and limit 1 is cheaper than counting to 2.
    pub fn solvable_without(&mut self, puzzle: &Grid, cell: usize, digit: u8) -> bool {
        assert!(
            cell < CELLS && (1..=9).contains(&digit),
            "cell {cell}, digit {digit}"
        );
        self.keep_first = false;
        self.run(puzzle, 1, Some((cell, digit)));
        self.keep_first = true;
        self.found > 0
    }
}

impl Solver for FastSolver {
    fn solve(&mut self, puzzle: &Grid, limit: u32) -> Outcome {
        self.run(puzzle, limit, None);
        Outcome {
            solutions: self.found,
            solution: self.first,
            guesses: self.guesses,
        }
    }

    fn solve_candidates(&mut self, marks: &Candidates, limit: u32) -> Outcome {
        self.start(limit);
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `run`: `Isa::Avx2` is held only when the CPU
            // reported every feature `run_marks_avx2` is compiled for.
            Isa::Avx2 => unsafe { run_marks_avx2(self, marks) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `run`.
            Isa::Avx512 => unsafe { avx512::run_marks(self, marks) },
            _ => run_marks_portable(self, marks),
        }
        Outcome {
            solutions: self.found,
            solution: self.first,
            guesses: self.guesses,
        }
    }

    fn name(&self) -> &'static str {
        "fast"
    }

    fn set_stop(&mut self, stop: Option<&'static AtomicBool>) {
        self.stop = stop;
    }

    fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `solvable_without` against counting the puzzle's solutions, on the
    /// clues of a 17-clue puzzle each taken away in turn (a clue is needed
    /// exactly when the puzzle without it has two solutions); and a solve
    /// after it still hands back its solution (the existence-only search
    /// builds none).
    #[test]
    fn solvable_without_says_which_clues_are_needed() {
        let puzzle: Grid =
            "000000010400000000020000000000050407008000300001090000300400200050100000000806000"
                .parse()
                .unwrap();
        for isa in Isa::ALL.into_iter().filter(|isa| isa.is_supported()) {
            let mut solver = FastSolver::with_isa(isa).unwrap();
            let solution = solver.solve(&puzzle, 2).solution.unwrap();
            let mut needed = 0;
            for cell in (0..CELLS).filter(|&c| puzzle.cells()[c] != 0) {
                let mut cells = *puzzle.cells();
                let digit = cells[cell];
                cells[cell] = 0;
                let fewer = Grid::from_cells(cells).unwrap();
                let counted = solver.solve(&fewer, 2).solutions;
                let without = solver.solvable_without(&fewer, cell, digit);
                assert_eq!(without, counted == 2, "{isa:?}: clue {cell}");
                needed += usize::from(without);
                let again = solver.solve(&puzzle, 2);
                assert_eq!(again.solution, Some(solution), "{isa:?}");
            }
            assert_eq!(needed, 17, "{isa:?}: a 17-clue puzzle is minimal");
        }
    }

    /// `band_filter::<true>` (the `pext` form) against the shift form: on
    /// a band of every triad pattern (each non-empty triad full, then one
    /// cell of each), and on random bands.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_band_filter_forms_agree() {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return;
        }
        let mut bands = Vec::new();
        for pattern in 0u32..512 {
            let (mut full, mut one) = (0, 0);
            for bit in 0..9 {
                if pattern >> bit & 1 != 0 {
                    full |= 0x7 << (9 * (bit % 3) + 3 * (bit / 3));
                    one |= 0x1 << (9 * (bit % 3) + 3 * (bit / 3) + bit % 2);
                }
            }
            bands.extend([full, one]);
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            bands.push(x as u32 & BAND);
        }
        for band in bands {
            let table = band_filter::<false>(band).ok();
            let pext = band_filter::<true>(band).ok();
            assert_eq!(pext, table, "band {band:#029b}");
        }
    }
}
