//! Unique rectangles and loops (4.5-5.0 and up). A loop of cells that
//! all hold the same two digits, each row, column and box of it entered
//! and left once, could swap the two digits: a puzzle with one solution
//! cannot end in such a deadly pattern, so what prevents it must hold.
//! Type 1: one cell with more digits loses the two. Type 2: the extra
//! cells share one extra digit, which leaves every cell seeing them all.
//! Type 3: the two extra cells act as one cell of their extra digits in a
//! naked set (or the loop's digits in a hidden set) of a unit they share.
//! Type 4: one loop digit is locked to the two extra cells in a unit they
//! share, so the other leaves them.
//!
//! The search, the hints' order and their ratings follow Sudoku Explainer
//! (with lkSudoku's corrections, on by default in SukakuExplainer): loops
//! from each bivalue cell in cell order, the hints sorted by rating and
//! then type, the first taken.

use super::board::{cell_bit, cells_of, digits, unit_bits, units_of, Board, PEERS, UNIT_MASKS};
use super::combos::{combos_within, members};
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// A hint found, before sorting.
struct Found {
    /// As SE computes it, in floating point: its sums of tenths decide
    /// the order of hints whose ratings print alike (4.5 + 0.1 + 0.1 sorts
    /// before 4.5 + 0.2).
    rating: f64,
    /// 1, 2, 3 or 4 (both forms of type 3 are 3).
    kind: u8,
    /// For telling repeats apart: the form (1, 2, 3 naked 30, 3 hidden
    /// 31, 4), the loop's cells sorted, the unit and digits of a type 3.
    key: (u8, Vec<u8>, usize, u16),
    eliminated: Vec<(u8, u8)>,
    loop_cells: Vec<u8>,
}

/// The rating of a loop of `len` cells: 4.5 for a rectangle, 4.6 for 6
/// cells, 4.7 for 8, 5.0 for 10 or more, summed as SE sums it.
fn loop_rating(len: usize) -> f64 {
    let mut r = 4.5;
    if len >= 10 {
        r += 0.3;
    }
    if len >= 8 {
        r += 0.2;
    } else if len >= 6 {
        r += 0.1;
    }
    r
}

/// What the loop search keeps from one board of a path to the next: the
/// pairs of digits with no loop giving a hint, and the board they were
/// found on.
///
/// The loops on a pair of digits (their walks from each bivalue cell of
/// that pair) stand on the cells holding both digits and read nothing but
/// those cells' candidates. While none of those cells changes, a pair
/// that had no loop has none still, and its walks are not made again.
/// A pair whose loops gave no hint gives none still while, besides, no
/// cell changes in the units two extra cells of a loop share (types 3
/// and 4 read those; types 1 and 2 read only the loop's cells, and the
/// cells that would lose a candidate, which only lose more).
pub struct LoopMemory {
    /// Bit `9 * a + b` (digits `a < b`, from 0): that pair had no loop
    /// giving a hint.
    quiet: u128,
    /// Per pair (by its bit's place): the cells of the units two extra
    /// cells of one of its loops share, if it had loops (bit `c`).
    watched: [u128; 81],
    /// The board's candidates when `quiet` was found.
    cands: [u16; 81],
    /// Per digit, the cells the puzzle's solution puts it in, if known.
    solved: Option<[u128; 9]>,
}

impl LoopMemory {
    pub fn new() -> LoopMemory {
        LoopMemory {
            quiet: 0,
            watched: [0; 81],
            cands: [0; 81],
            solved: None,
        }
    }

    /// A memory for the path of the puzzle with this `solution` (its 81
    /// cells in row order), which the walks use to stop early: a valid
    /// loop on digits {a, b} holds a cell whose solution is neither (were
    /// every cell of it a or b, each unit of the loop holding two of its
    /// cells, one a and one b, swapping them would be a second solution),
    /// so a walk that can meet no such cell any more stops.
    pub fn knowing(solution: &[u8; 81]) -> LoopMemory {
        let mut solved = [0u128; 9];
        for (cell, &d) in solution.iter().enumerate() {
            if (1..=9).contains(&d) {
                solved[d as usize - 1] |= 1 << cell;
            }
        }
        LoopMemory {
            solved: Some(solved),
            ..LoopMemory::new()
        }
    }

    /// The pairs still without a loop giving a hint on `board`: quiet on
    /// the board before, held by no cell (then or now) that changed
    /// since, and watching none of those.
    fn still_quiet(&self, board: &Board) -> u128 {
        let mut quiet = self.quiet;
        let mut changed = 0u128;
        for c in 0..81u8 {
            let (then, now) = (self.cands[c as usize], board.cands(c));
            if then != now {
                quiet &= !(pairs_in(then) | pairs_in(now));
                changed |= cell_bit(c);
            }
        }
        if changed != 0 {
            let mut rest = quiet;
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if self.watched[p] & changed != 0 {
                    quiet &= !cell_bit(p as u8);
                }
            }
        }
        quiet
    }
}

impl Default for LoopMemory {
    fn default() -> Self {
        LoopMemory::new()
    }
}

/// Every cell (bit `c` for cell `c`).
const ALL_CELLS: u128 = (1 << 81) - 1;

/// Every pair's bit in [`LoopMemory::quiet`].
const PAIRS: u128 = {
    let mut all = 0u128;
    let mut a = 0;
    while a < 9 {
        let mut b = a + 1;
        while b < 9 {
            all |= 1 << (9 * a + b);
            b += 1;
        }
        a += 1;
    }
    all
};

/// The bits of every pair of the digits `m` in [`LoopMemory::quiet`]:
/// with its lowest digit `a` (from 0), those of the pairs `{a, b}`, `b`
/// among the digits above it, are bits `9a + b`, the higher digits'
/// mask shifted by `9a`: one shift per digit, not a walk over pairs.
fn pairs_in(m: u16) -> u128 {
    let mut pairs = 0;
    let mut rest = m;
    while rest != 0 {
        let a = rest.trailing_zeros();
        rest &= rest - 1;
        pairs |= u128::from(rest) << (9 * a);
    }
    pairs
}

/// The bit of the digits `pair` (two) in [`LoopMemory::quiet`].
fn pair_bit(pair: u16) -> u128 {
    let a = pair.trailing_zeros();
    let b = 15 - pair.leading_zeros();
    // (A pair's place is below 81: read as a cell's.)
    cell_bit((9 * a + b) as u8)
}

/// The first unique rectangle or loop step, as SE picks it; `memory`
/// holds what the search on the path's boards before found (see
/// [`LoopMemory`]).
pub fn unique_loop(board: &Board, memory: &mut LoopMemory) -> Option<Step> {
    let mut found: Vec<Found> = Vec::new();
    let quiet = memory.still_quiet(board);
    // The pairs walked on this board, and those of them giving a hint.
    let (mut walked, mut hinted) = (0u128, 0u128);
    for start in 0..81u8 {
        let m = board.cands(start);
        let bit = pair_bit(m);
        if m.count_ones() != 2 || quiet & bit != 0 {
            continue;
        }
        let at = bit.trailing_zeros() as usize;
        if walked & bit == 0 {
            walked |= bit;
            memory.watched[at] = 0;
        }
        let needed = match memory.solved {
            Some(solved) => {
                let mut in_pair = 0;
                for d in digits(m) {
                    in_pair |= solved[d as usize - 1];
                }
                !in_pair
            }
            None => ALL_CELLS,
        };
        for lp in valid_loops(board, start, m, needed) {
            let before = found.len();
            memory.watched[at] |= hints_of_loop(board, &lp, m, &mut found);
            if found.len() > before {
                hinted |= bit;
            }
        }
    }
    // Every pair without a loop giving a hint now: those walked, and
    // those with no bivalue cell to walk from (a cell becoming one
    // changes).
    memory.quiet = PAIRS & !hinted;
    memory.cands = std::array::from_fn(|c| board.cands(c as u8));
    // A stable sort: rating, then type, else the order found.
    found.sort_by(|a, b| a.rating.total_cmp(&b.rating).then(a.kind.cmp(&b.kind)));
    let f = found.into_iter().next()?;
    let technique = match (f.kind, f.loop_cells.len()) {
        (_, 4) => Technique::UniqueRectangle,
        _ => Technique::UniqueLoop,
    };
    let mut eliminated = f.eliminated;
    eliminated.sort_unstable();
    Some(Step::eliminating(
        technique,
        (f.rating * 10.0).round() as u16,
        eliminated,
        f.loop_cells,
    ))
}

/// The valid loops (see [`is_valid_loop`]) through the bivalue cell
/// `start` on its digits `pair` that may give a hint, in the order SE's
/// walk meets them; `needed`: cells of which each valid loop holds one
/// (see [`LoopMemory::knowing`]), or every cell.
fn valid_loops(board: &Board, start: u8, pair: u16, needed: u128) -> Vec<Vec<u8>> {
    let mut loops = Vec::new();
    let walk = Walk {
        board,
        start,
        pair,
        reachable: reachable(board, start, pair),
        needed,
    };
    let path = (&mut Vec::new(), cell_bit(start), [0; 2]);
    let wide = Wide {
        allowed: 2,
        digits: 0,
        shared_units: u32::MAX,
    };
    walk.extend(start, path, wide, usize::MAX, &mut loops);
    loops.retain(|lp| is_valid_loop(lp));
    loops
}

/// The cells holding both digits of `pair` that a walk from `start` may
/// enter (bit `c` for cell `c`): a bivalue cell of just those digits
/// before `start` is left out, since a loop through it was met from that
/// cell first and adds nothing met again.
fn reachable(board: &Board, start: u8, pair: u16) -> u128 {
    let low = pair.trailing_zeros() as u8 + 1;
    let high = 16 - pair.leading_zeros() as u8;
    let holders = board.cells_with(low) & board.cells_with(high);
    // (Few holders come before the start: each told by its candidates.)
    let bivalue_before = cells_of(holders & ((1u128 << start) - 1))
        .filter(|&c| board.cands(c) == pair)
        .fold(0u128, |m, c| m | 1 << c);
    holders & !bivalue_before
}

/// One search for loops on `board`: from `start`, on the digits `pair`,
/// through the cells `reachable`.
struct Walk<'a> {
    board: &'a Board,
    start: u8,
    pair: u16,
    reachable: u128,
    /// The cells a valid loop must pass through one of (see
    /// [`LoopMemory::knowing`]).
    needed: u128,
}

/// The walk's cells with more digits than the loop's two: how many more
/// may join (two at first; any number while they all add one same
/// digit), their extra digits, and the units they all share (every unit
/// before the first).
#[derive(Clone, Copy)]
struct Wide {
    allowed: i32,
    digits: u16,
    shared_units: u32,
}

/// The walk so far: its cells in order; as a mask (bit `c` for cell `c`);
/// and the units its cells at even and at odd places stand in.
type Path<'a> = (&'a mut Vec<u8>, u128, [u32; 2]);

impl Walk<'_> {
    /// Depth-first search for loops through `cell` (SE's walk: from each
    /// cell along a unit of another kind than the one it was reached by,
    /// to cells holding both digits; at most two cells with more digits,
    /// unless they all add the same one digit), each found pushed to
    /// `loops` in the order SE finds it.
    ///
    /// A valid loop has each of its units once at an even place and once
    /// at an odd one (see [`is_valid_loop`]), so a walk putting a unit
    /// twice at places of one parity can only close into loops that are
    /// thrown away: it stops there; so does a walk with a unit met once
    /// and no cell left there to meet it again. Cells are met in each
    /// unit's order (a unit's cells are in cell order), as SE meets them.
    fn extend(
        &self,
        cell: u8,
        (path, on_path, mut met): Path<'_>,
        wide: Wide,
        last_kind: usize,
        loops: &mut Vec<Vec<u8>>,
    ) {
        met[path.len() % 2] |= unit_bits(cell);
        let free = self.reachable & !on_path;
        // A valid loop passes through a cell the solution gives neither
        // digit (see `needed`).
        if (on_path | free) & self.needed == 0 {
            return;
        }
        // No more cells with extra digits may join (two are on the walk,
        // with two extra digits or more): a loop through none the solution
        // needs can only close invalid, and one whose two extra cells
        // share no unit gives no hint (type 2 wants one extra digit, types
        // 3 and 4 a unit the two share).
        if wide.allowed <= 0
            && wide.digits.count_ones() >= 2
            && (on_path & self.needed == 0 || wide.shared_units == 0)
        {
            return;
        }
        // Each unit met once must be met again, at a place of the other
        // parity, by a cell not yet on the walk.
        let mut open = met[0] ^ met[1];
        while open != 0 {
            let u = open.trailing_zeros() as usize;
            open &= open - 1;
            if UNIT_MASKS[u] & free == 0 {
                return;
            }
        }
        path.push(cell);
        // The place `next` takes, and the units already there.
        let taken = met[path.len() % 2];
        let closes = if path.len() >= 4 {
            cell_bit(self.start)
        } else {
            0
        };
        for (kind, &u) in units_of(cell).iter().enumerate() {
            if kind == last_kind {
                continue;
            }
            let open = UNIT_MASKS[u] & (self.reachable & !on_path | closes);
            for next in cells_of(open) {
                if next == self.start {
                    loops.push(path.clone());
                    continue;
                }
                if unit_bits(next) & taken != 0 {
                    continue;
                }
                let m = self.board.cands(next);
                let digits = (wide.digits | m) & !self.pair;
                if m.count_ones() == 2 {
                    let walk = (&mut *path, on_path | cell_bit(next), met);
                    self.extend(next, walk, wide, kind, loops);
                } else if digits.count_ones() == 1 || wide.allowed > 0 {
                    let walk = (&mut *path, on_path | cell_bit(next), met);
                    let wide = Wide {
                        allowed: wide.allowed - 1,
                        digits,
                        shared_units: wide.shared_units & unit_bits(next),
                    };
                    self.extend(next, walk, wide, kind, loops);
                }
            }
        }
        path.pop();
    }
}

/// A loop is valid when, walking it, each unit is met once at odd steps
/// and once at even steps (or never).
fn is_valid_loop(lp: &[u8]) -> bool {
    let mut seen = [[false; 27]; 2];
    for (k, &cell) in lp.iter().enumerate() {
        for u in units_of(cell) {
            if seen[k % 2][u] {
                return false;
            }
            seen[k % 2][u] = true;
        }
    }
    seen[0] == seen[1]
}

/// The hints of one valid loop on digits `pair`, added to `found` unless
/// already there; returns the cells of the units its two extra cells
/// share, if it has two (what types 3 and 4 read beside the loop).
fn hints_of_loop(board: &Board, lp: &[u8], pair: u16, found: &mut Vec<Found>) -> u128 {
    let extra_cells: Vec<u8> = lp
        .iter()
        .copied()
        .filter(|&c| board.cands(c).count_ones() > 2)
        .collect();
    let base = loop_rating(lp.len());
    let mut sorted = lp.to_vec();
    sorted.sort_unstable();
    let mut add = |rating: f64, kind: u8, form: u8, unit: usize, vals: u16, elim: Vec<(u8, u8)>| {
        if elim.is_empty() {
            return;
        }
        let key = (form, sorted.clone(), unit, vals);
        if found.iter().any(|f| f.key == key) {
            return;
        }
        found.push(Found {
            rating,
            kind,
            key,
            eliminated: elim,
            loop_cells: lp.to_vec(),
        });
    };
    match extra_cells.len() {
        1 => {
            let c = extra_cells[0];
            let elim = digits(pair).map(|d| (c, d)).collect();
            add(base, 1, 1, 0, 0, elim);
            0
        }
        2 => {
            let (c1, c2) = (extra_cells[0], extra_cells[1]);
            let rest = (board.cands(c1) | board.cands(c2)) & !pair;
            if rest.count_ones() == 1 {
                add(base, 2, 2, 0, 0, type2(board, &extra_cells, pair));
            } else if rest.count_ones() >= 2 {
                for (tenths, form, unit, vals, elim) in type3(board, c1, c2, pair, rest) {
                    add(base + tenths as f64 * 0.1, 3, form, unit, vals, elim);
                }
            }
            if let Some(elim) = type4(board, c1, c2, pair) {
                add(base, 4, 4, 0, 0, elim);
            }
            let shared = units_of(c1).into_iter().zip(units_of(c2));
            shared
                .filter(|(u1, u2)| u1 == u2)
                .fold(0, |m, (u, _)| m | UNIT_MASKS[u])
        }
        n => {
            if n > 2 {
                add(base, 2, 2, 0, 0, type2(board, &extra_cells, pair));
            }
            0
        }
    }
}

/// Type 2: the extra digit (the first cell's) leaves every cell that sees
/// all the extra cells.
fn type2(board: &Board, extra_cells: &[u8], pair: u16) -> Vec<(u8, u8)> {
    let extra = board.cands(extra_cells[0]) & !pair;
    let d = extra.trailing_zeros() as u8 + 1;
    PEERS[extra_cells[0] as usize]
        .iter()
        .copied()
        .filter(|&c| {
            !extra_cells.contains(&c)
                && extra_cells[1..]
                    .iter()
                    .all(|&e| PEERS[e as usize].contains(&c))
                && board.has(c, d)
        })
        .map(|c| (c, d))
        .collect()
}

/// Type 4: a loop digit with no other place in a unit the two extra cells
/// share (v1 first) leaves the other loop digit out of both.
fn type4(board: &Board, c1: u8, c2: u8, pair: u16) -> Option<Vec<(u8, u8)>> {
    let mut dv = digits(pair);
    let (v1, v2) = (dv.next()?, dv.next()?);
    let (mut locked1, mut locked2) = (false, false);
    for (u1, u2) in units_of(c1).into_iter().zip(units_of(c2)) {
        if u1 != u2 {
            continue;
        }
        let elsewhere = |d| {
            UNIT_CELLS[u1]
                .iter()
                .any(|&c| c != c1 && c != c2 && board.has(c, d))
        };
        locked1 |= !elsewhere(v1);
        locked2 |= !elsewhere(v2);
    }
    let removed = match (locked1, locked2) {
        (true, _) => v2,
        (false, true) => v1,
        _ => return None,
    };
    Some(
        [c1, c2]
            .into_iter()
            .filter(|&c| board.has(c, removed))
            .map(|c| (c, removed))
            .collect(),
    )
}

/// A type 3 hint: tenths added to the loop's rating, form (30 naked, 31
/// hidden), unit, the set's digits, the removals.
type Type3 = (u16, u8, usize, u16, Vec<(u8, u8)>);

/// Type 3 hints, in SE's order
/// (set size 2 to 7; units box, row, column shared by c1 and c2; naked
/// sets, then hidden).
fn type3(board: &Board, c1: u8, c2: u8, pair: u16, extra: u16) -> Vec<Type3> {
    let mut out = Vec::new();
    // The units c1 and c2 share, in SE's order: each with its empty cells
    // counted, and the places of c1 and c2 in it.
    let mut shared = Vec::with_capacity(2);
    for (u1, u2) in units_of(c1).into_iter().zip(units_of(c2)) {
        if u1 == u2 {
            let cells = &UNIT_CELLS[u1];
            let at = |c: u8| cells.iter().position(|&x| x == c).expect("in the unit");
            shared.push((u1, board.empty_count(u1) as u32, at(c1), at(c2)));
        }
    }
    // The digits neither of the loop nor extra, for the hidden sets.
    let rem: Vec<u8> = digits(!pair & !extra & 0x1ff).collect();
    for degree in 2..=7u32 {
        for &(u, empty, i1, i2) in &shared {
            let cells = &UNIT_CELLS[u];
            if degree * 2 <= empty && degree >= extra.count_ones() {
                // The set is c1 (standing for both extra cells, with the
                // extra digits) and `degree - 1` others, each an open cell
                // whose candidates and the extra digits are `degree` or
                // fewer (any other fails the test below): only the sets
                // of those cells and c1 are made.
                let mut open = 0u16;
                for (i, &c) in cells.iter().enumerate() {
                    let m = board.cands(c);
                    if i != i1
                        && i != i2
                        && m.count_ones() > 1
                        && (m | extra).count_ones() <= degree
                    {
                        open |= 1 << i;
                    }
                }
                for set in combos_within(open | 1 << i1, degree) {
                    let others = set & !(1 << i1);
                    if others == set {
                        continue;
                    }
                    let mut naked = extra & board.cands(c1) & board.cands(c2);
                    let mut union = extra;
                    for i in members(others) {
                        let m = board.cands(cells[i]);
                        naked |= m;
                        union |= m;
                    }
                    if naked.count_ones() != degree || union.count_ones() != degree {
                        continue;
                    }
                    let others: Vec<u8> = members(others).map(|i| cells[i]).collect();
                    let elim = naked_removals(board, union, &others, c1, c2);
                    out.push((degree as u16 - 1, 30, u, union, elim));
                }
            }
            if degree * 2 < empty {
                hidden_sets(board, u, (i1, i2), pair, &rem, degree, &mut out);
            }
        }
    }
    out
}

/// Type 3's hidden sets of `degree` in unit `u` (c1 and c2 at places `i1`
/// and `i2`): the loop's digits and `degree - 2` of `rem` (the digits
/// neither of the loop nor extra), in SE's order, pushed to `out`.
fn hidden_sets(
    board: &Board,
    u: usize,
    (i1, i2): (usize, usize),
    pair: u16,
    rem: &[u8],
    degree: u32,
    out: &mut Vec<Type3>,
) {
    if (degree as usize) - 2 > rem.len() {
        return;
    }
    // Each digit of the set has a place besides c2, and the set's places
    // are `degree`: the loop's digits' places are in every set, and only
    // the digits of `rem` with a place are picked (in the same order).
    let mut base = 0u16;
    for d in digits(pair) {
        let p = board.positions(u, d) & !(1 << i2);
        if p == 0 {
            return;
        }
        base |= p;
    }
    if base.count_ones() > degree {
        return;
    }
    let mut places_of = [0u16; 9];
    let mut placed = 0u16;
    for (i, &d) in rem.iter().enumerate() {
        places_of[i] = board.positions(u, d) & !(1 << i2);
        if places_of[i] != 0 {
            placed |= 1 << i;
        }
    }
    for pick in combos_within(placed, degree - 2) {
        let mut values = pair;
        let mut union = base;
        for i in members(pick) {
            values |= 1 << (rem[i] - 1);
            union |= places_of[i];
        }
        if union.count_ones() == degree {
            push_hidden_set(board, u, (i1, i2), values, union, out);
        }
    }
}

/// Pushes to `out` the hidden set of `values` at the places `union` of
/// unit `u` (c1 and c2 at `i1` and `i2`): the set's cells besides the
/// loop's lose every other digit, and the set's rating grows with them.
fn push_hidden_set(
    board: &Board,
    u: usize,
    (i1, i2): (usize, usize),
    values: u16,
    union: u16,
    out: &mut Vec<Type3>,
) {
    let cells = &UNIT_CELLS[u];
    let places = union & !(1 << i1) & !(1 << i2);
    let mut elim = Vec::new();
    for i in members(places) {
        let c = cells[i];
        for d in digits(board.cands(c) & !values) {
            elim.push((c, d));
        }
    }
    let tenths = (places.count_ones() as u16).saturating_sub(1);
    out.push((tenths, 31, u, values, elim));
}

/// A type 3 naked set's removals: each of its digits leaves the cells
/// that see every set cell holding it (c1 and c2 counted when they hold it).
fn naked_removals(board: &Board, digits_mask: u16, others: &[u8], c1: u8, c2: u8) -> Vec<(u8, u8)> {
    let mut elim = Vec::new();
    for d in digits(digits_mask) {
        let holders: Vec<u8> = others
            .iter()
            .copied()
            .chain([c1, c2])
            .filter(|&c| board.has(c, d))
            .collect();
        let Some(&first) = holders.first() else {
            continue;
        };
        for &v in &PEERS[first as usize] {
            if holders
                .iter()
                .all(|&h| h != v && PEERS[h as usize].contains(&v))
                && board.has(v, d)
            {
                elim.push((v, d));
            }
        }
    }
    elim
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::combos::combos;
    use crate::tasks::grade::test_boards::each_thinned;

    /// Type 3's hidden sets as first written: every pick of `rem`'s
    /// digits read through.
    fn hidden_sets_as_written(
        board: &Board,
        u: usize,
        (i1, i2): (usize, usize),
        pair: u16,
        rem: &[u8],
        degree: u32,
        out: &mut Vec<Type3>,
    ) {
        if (degree as usize) - 2 > rem.len() {
            return;
        }
        let picks = combos(degree - 2).filter(|&m| (m as u32) < (1 << rem.len()));
        for pick in picks {
            let mut values = pair;
            for i in members(pick) {
                values |= 1 << (rem[i] - 1);
            }
            let mut union = 0u16;
            let mut none_empty = true;
            for d in digits(values) {
                let p = board.positions(u, d) & !(1 << i2);
                none_empty &= p != 0;
                union |= p;
            }
            if none_empty && union.count_ones() == degree {
                push_hidden_set(board, u, (i1, i2), values, union, out);
            }
        }
    }

    /// The search keeping its quiet pairs from board to board finds
    /// what a search from nothing finds, along sample puzzles' paths and
    /// on boards thinned at random (which change many cells at once).
    /// Every pair of a mask's digits, each told by `pair_bit`.
    #[test]
    fn pairs_in_a_mask_are_its_pairs_bits() {
        for m in 0u16..512 {
            let mut expected = 0u128;
            for a in 0..9 {
                for b in a + 1..9 {
                    if m & (1 << a) != 0 && m & (1 << b) != 0 {
                        expected |= pair_bit(1 << a | 1 << b);
                    }
                }
            }
            assert_eq!(pairs_in(m), expected, "{m:b}");
        }
    }

    #[test]
    fn loops_kept_quiet_are_those_found_afresh() {
        use crate::tasks::grade::{next_step, PathMemory, Rating};
        let mut found = 0;
        for (line, mut board, solution) in crate::tasks::grade::test_boards::sample(300) {
            // Kept knowing the solution (its walks cut shorter), found
            // afresh without.
            let mut kept = LoopMemory::knowing(solution.cells());
            let mut memory = PathMemory::new(Some(&solution));
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                let fresh = unique_loop(&board, &mut LoopMemory::new());
                assert_eq!(unique_loop(&board, &mut kept), fresh, "{line}");
                found += fresh.is_some() as u32;
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
        }
        let mut kept = LoopMemory::new();
        each_thinned(20, 6, 4, 9, |line, _, board, _| {
            let fresh = unique_loop(board, &mut LoopMemory::new());
            assert_eq!(unique_loop(board, &mut kept), fresh, "{line}");
            found += fresh.is_some() as u32;
        });
        assert!(found > 30, "{found}");
    }

    /// SE's walk as first written: every cell of each unit tried, no
    /// walk cut short; the loops it closes, valid or not, in order.
    #[allow(clippy::too_many_arguments)]
    fn walk_everywhere(
        board: &Board,
        cell: u8,
        pair: u16,
        (path, on_path): (&mut Vec<u8>, u128),
        allowed_extra: i32,
        extra: u16,
        last_kind: usize,
        loops: &mut Vec<Vec<u8>>,
    ) {
        path.push(cell);
        for (kind, &u) in units_of(cell).iter().enumerate() {
            if kind == last_kind {
                continue;
            }
            for &next in &UNIT_CELLS[u] {
                if next == path[0] && path.len() >= 4 {
                    loops.push(path.clone());
                    continue;
                }
                let m = board.cands(next);
                if m & pair != pair || on_path & (1 << next) != 0 {
                    continue;
                }
                if m == pair && next < path[0] {
                    continue;
                }
                let new_extra = (extra | m) & !pair;
                let wide = m.count_ones() > 2;
                if !wide || new_extra.count_ones() == 1 || allowed_extra > 0 {
                    let allowed = allowed_extra - i32::from(wide);
                    let walk = (&mut *path, on_path | 1 << next);
                    walk_everywhere(board, next, pair, walk, allowed, new_extra, kind, loops);
                }
            }
        }
        path.pop();
    }

    /// Type 3 as first written: every subset of each size read through
    /// for the naked sets, every pick of digits for the hidden ones.
    fn type3_as_written(board: &Board, c1: u8, c2: u8, pair: u16, extra: u16) -> Vec<Type3> {
        let mut out = Vec::new();
        for degree in 2..=7u32 {
            for (u1, u2) in units_of(c1).into_iter().zip(units_of(c2)) {
                if u1 != u2 {
                    continue;
                }
                let u = u1;
                let cells = &UNIT_CELLS[u];
                let empty = board.empty_count(u) as u32;
                let i1 = cells.iter().position(|&c| c == c1).expect("in the unit");
                let i2 = cells.iter().position(|&c| c == c2).expect("in the unit");
                if degree * 2 <= empty && degree >= extra.count_ones() {
                    for set in combos(degree) {
                        if set & (1 << i1) == 0 || set & (1 << i2) != 0 {
                            continue;
                        }
                        let mut naked = extra & board.cands(c1) & board.cands(c2);
                        let mut union = 0u16;
                        let mut each_open = true;
                        let mut others = Vec::new();
                        for i in members(set) {
                            let m = if i == i1 {
                                extra
                            } else {
                                let m = board.cands(cells[i]);
                                naked |= m;
                                others.push(cells[i]);
                                m
                            };
                            each_open &= m.count_ones() > 1;
                            union |= m;
                        }
                        if naked.count_ones() != degree
                            || !each_open
                            || union.count_ones() != degree
                        {
                            continue;
                        }
                        let elim = naked_removals(board, union, &others, c1, c2);
                        out.push((degree as u16 - 1, 30, u, union, elim));
                    }
                }
                if degree * 2 < empty {
                    let rem: Vec<u8> = (1..=9u8)
                        .filter(|&d| pair & (1 << (d - 1)) == 0 && extra & (1 << (d - 1)) == 0)
                        .collect();
                    hidden_sets_as_written(board, u, (i1, i2), pair, &rem, degree, &mut out);
                }
            }
        }
        out
    }

    /// Type 3, which passes over the sets that cannot be naked before
    /// reading them, finds what the first version finds, in its order:
    /// every loop with two extra cells of sample boards with false
    /// candidates taken away at random, more and more.
    #[test]
    fn type3_finds_what_every_set_read_finds() {
        let (mut compared, mut naked, mut hidden) = (0, 0, 0);
        each_thinned(1000, 8, 10, 47, |line, _, board, _| {
            for start in 0..81u8 {
                let pair = board.cands(start);
                if pair.count_ones() != 2 {
                    continue;
                }
                for lp in valid_loops(board, start, pair, ALL_CELLS) {
                    let wide: Vec<u8> = lp
                        .iter()
                        .copied()
                        .filter(|&c| board.cands(c).count_ones() > 2)
                        .collect();
                    let [c1, c2] = wide[..] else { continue };
                    let extra = (board.cands(c1) | board.cands(c2)) & !pair;
                    if extra.count_ones() < 2 {
                        continue;
                    }
                    let found = type3(board, c1, c2, pair, extra);
                    assert_eq!(
                        found,
                        type3_as_written(board, c1, c2, pair, extra),
                        "{line}"
                    );
                    compared += 1;
                    naked += found.iter().filter(|h| h.1 == 30).count();
                    hidden += found.iter().filter(|h| h.1 == 31).count();
                }
            }
        });
        // Both forms found often.
        assert!(
            compared > 5000 && naked > 100 && hidden > 100,
            "{compared} loops, {naked} naked and {hidden} hidden sets"
        );
    }

    /// The walk that stops where no valid loop can close, or none can
    /// give a hint, meets the same valid loops that can, in the same
    /// order, as the walk that goes everywhere: boards of sample puzzles
    /// with false candidates taken away at random, more and more (many
    /// wide cells first, many bivalue later), the solution known and not.
    /// And every valid loop passes through a cell the solution gives
    /// neither of its digits (else the puzzle would have two solutions).
    #[test]
    fn cut_walk_meets_every_valid_loop_in_order() {
        use crate::tasks::grade::test_boards::{sample, take_false_away};
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(46);
        let (mut valid, mut closed, mut hinting) = (0, 0, 0);
        for (line, mut board, solution) in sample(150) {
            let solved = LoopMemory::knowing(solution.cells()).solved.unwrap();
            for _ in 0..5 {
                take_false_away(&mut board, &solution, &mut rng, 10);
                for start in 0..81u8 {
                    let pair = board.cands(start);
                    if pair.count_ones() != 2 {
                        continue;
                    }
                    let mut all = Vec::new();
                    let path = (&mut Vec::new(), 1 << start);
                    walk_everywhere(&board, start, pair, path, 2, 0, usize::MAX, &mut all);
                    closed += all.len();
                    all.retain(|lp| is_valid_loop(lp));
                    valid += all.len();
                    let needed = !digits(pair).fold(0, |m, d| m | solved[d as usize - 1]);
                    for lp in &all {
                        assert!(lp.iter().any(|&c| needed & 1 << c != 0), "{line}");
                    }
                    all.retain(|lp| may_give_a_hint(&board, lp, pair));
                    hinting += all.len();
                    assert_eq!(valid_loops(&board, start, pair, ALL_CELLS), all, "{line}");
                    assert_eq!(valid_loops(&board, start, pair, needed), all, "{line}");
                }
            }
        }
        // Every kind met often: loops kept, loops thrown away as invalid
        // and as giving no hint.
        assert!(
            hinting > 1000 && valid > hinting + 500 && closed > 2 * valid,
            "{hinting} {valid} {closed}"
        );
    }

    /// Whether a valid loop may give a hint, as its cells with extra
    /// digits tell: not two of them, with two extra digits or more,
    /// sharing no unit.
    fn may_give_a_hint(board: &Board, lp: &[u8], pair: u16) -> bool {
        let wide: Vec<u8> = lp
            .iter()
            .copied()
            .filter(|&c| board.cands(c).count_ones() > 2)
            .collect();
        let extra = wide.iter().fold(0, |m, &c| m | board.cands(c)) & !pair;
        !(wide.len() == 2
            && extra.count_ones() >= 2
            && unit_bits(wide[0]) & unit_bits(wide[1]) == 0)
    }
}
