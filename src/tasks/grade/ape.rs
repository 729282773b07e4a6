//! Aligned pair exclusion (6.2): two cells both seeing the same bivalue
//! cells cannot take a pair of digits that would empty one of those
//! cells (nor one digit twice if they see each other); a digit of either
//! cell that no allowed pair keeps is removed.

use super::board::{bit, cell_bit, cells_of, digits, sees, Board, PEER_MASKS};
use super::{Step, Technique};

/// The first aligned pair exclusion in SE's order: base cells with two or
/// more candidates, a bivalue peer, and no peer with a single candidate,
/// paired in increasing order (by the later cell, then the earlier).
/// Only the pairs that may have changed since the board was `around` are
/// tried (see [`Around`]). Told the puzzle's `solution` (its 81 digits),
/// a pair is tried only for the digits it does not hold: no exclusion
/// takes those away.
pub fn aligned_pair_exclusion(
    board: &Board,
    around: Around,
    solution: Option<&[u8; 81]>,
) -> Option<Step> {
    // Base cells, each with its bivalue peers (a mask of cells).
    let bases = Bases::of(board, 2);
    // A pair removes a digit from one cell only if that digit is among
    // what the other lets go: the pairs whose cells both let go of none
    // of the other's digits are not tried.
    let lets_go: Vec<u16> = bases
        .list
        .iter()
        .map(|&(c, ex)| lets_go(board, c, ex))
        .collect();
    let letting_go = bases
        .list
        .iter()
        .zip(&lets_go)
        .filter(|(_, &l)| l != 0)
        .fold(0u128, |m, (&(c, _), _)| m | cell_bit(c));
    let with = |i1: usize, c1: u8| {
        let with = if lets_go[i1] == 0 {
            letting_go
        } else {
            u128::MAX
        };
        around.completing(cell_bit(c1)) & with
    };
    bases.first_of_pairs_sharing_two(with, |i0, i1| {
        let ((c0, ex0), (c1, ex1)) = (bases.list[i0], bases.list[i1]);
        let (m0, m1) = (board.cands(c0), board.cands(c1));
        let [kept0, kept1] = solution_digits(solution, [c0, c1]);
        if lets_go[i1] & m0 & !kept0 == 0 && lets_go[i0] & m1 & !kept1 == 0 {
            return None;
        }
        let shared = ex0 & ex1;
        debug_assert!(shared.count_ones() >= 2);
        // The excluders are bivalue: one empties only under the pair of
        // its own two digits. So the digits `d0` may not be paired with
        // are its partners in the excluders holding it (and itself, when
        // the base cells see each other).
        let partners = partners_in(board, shared);
        let see = sees(c0, c1);
        // Digits of each base cell kept by some allowed pair.
        let (mut keep0, mut keep1) = (0u16, 0u16);
        for d0 in digits(m0) {
            let same = if see { bit(d0) } else { 0 };
            let allowed = m1 & !partners[d0 as usize - 1] & !same;
            if allowed != 0 {
                keep0 |= bit(d0);
                keep1 |= allowed;
            }
        }
        pair_exclusion_step(board, [c0, c1], [keep0, keep1], shared)
    })
}

/// Each of `cells`' digit in the `solution` (its 81 digits) as a bit, or
/// none where the solution is not known: digits no exclusion takes away.
fn solution_digits<const N: usize>(solution: Option<&[u8; 81]>, cells: [u8; N]) -> [u16; N] {
    cells.map(|c| solution.map_or(0, |s| bit(s[c as usize])))
}

/// The digits a base cell `cell` (with its `excluders`) lets go of in a
/// pair: a digit `d` leaves the other cell of a pair only if every digit
/// of this cell but `d` is `d`'s partner in an excluder the two share,
/// so in one of this cell's own.
fn lets_go(board: &Board, cell: u8, excluders: u128) -> u16 {
    let partners = partners_in(board, excluders);
    let m = board.cands(cell);
    (0..9)
        .filter(|&x| m & !(1 << x) & !partners[x] == 0)
        .fold(0, |l, x| l | 1 << x)
}

/// The step of base cells `cells` with their excluders `shared`, when
/// some candidate of theirs is not among the digits `keep` (per cell).
fn pair_exclusion_step(
    board: &Board,
    cells: [u8; 2],
    keep: [u16; 2],
    shared: u128,
) -> Option<Step> {
    let gone = [0, 1].map(|k| board.cands(cells[k]) & !keep[k]);
    if gone == [0, 0] {
        return None;
    }
    let eliminated: Vec<(u8, u8)> = (0..2)
        .flat_map(|k| digits(gone[k]).map(move |d| (cells[k], d)))
        .collect();
    let mut pattern = cells.to_vec();
    pattern.extend(cells_of(shared));
    let technique = Technique::AlignedPairExclusion;
    Some(Step::eliminating(technique, 62, eliminated, pattern))
}

/// The first aligned triplet exclusion (7.5) in SE's order: as
/// [`aligned_pair_exclusion`], with excluders of two or three candidates;
/// each pair of base cells (in pair order) takes as third cell each base
/// cell among the excluders of the first, then of the second. Three
/// digits are allowed unless two cells that see each other take the same
/// one, or they would empty an excluder all three see. Only the triplets
/// that may have changed since the board was `around` are tried. Told
/// the puzzle's `solution` (its 81 digits), a triplet is tried only for
/// the digits it does not hold: no exclusion takes those away.
pub fn aligned_triplet_exclusion(
    board: &Board,
    around: Around,
    solution: Option<&[u8; 81]>,
) -> Option<Step> {
    let bases = Bases::of(board, 3);
    if bases.list.len() < 3 {
        return None;
    }
    // Per base cell, the pairs of digits it rules out beside each other
    // in a triplet (see `pairs_ruled_out`).
    let ruled_out: Vec<[u16; 9]> = bases
        .list
        .iter()
        .map(|&(c, ex)| pairs_ruled_out(board, c, ex))
        .collect();
    // The third cell's excluders only narrow the pair's: the pairs sharing
    // two or more.
    bases.first_of_pairs_sharing_two(
        |_, _| u128::MAX,
        |i0, i1| {
            let ((c0, ex0), (c1, ex1)) = (bases.list[i0], bases.list[i1]);
            let pair = cell_bit(c0) | cell_bit(c1);
            // Third cells: base cells among the first's excluders, then among
            // the second's (each in cell order), those making a triplet that
            // may have changed.
            let thirds = around.completing(pair) & bases.mask & (ex0 | ex1) & !pair;
            if thirds == 0 {
                return None;
            }
            let shared01 = ex0 & ex1;
            debug_assert!(shared01.count_ones() >= 2);
            // A third cell shares two excluders with the pair only if it sees
            // two or more of theirs.
            let thirds = thirds & seen_twice(shared01);
            // (Two loops, not a chain of two iterators.)
            for part in [ex0 & thirds, ex1 & !ex0 & thirds] {
                for c2 in cells_of(part) {
                    let i2 = bases.index[c2 as usize];
                    let ex2 = bases.list[i2].1;
                    let shared = shared01 & ex2;
                    debug_assert!(shared.count_ones() >= 2);
                    if met_before(c0, c1, c2, ex0, ex1, ex2) {
                        continue;
                    }
                    let cells = [c0, c1, c2];
                    let kept = solution_digits(solution, cells);
                    if !may_take_away(
                        board,
                        cells,
                        kept,
                        [&ruled_out[i0], &ruled_out[i1], &ruled_out[i2]],
                    ) {
                        continue;
                    }
                    if let Some(eliminated) = triplet_exclusions(board, cells, shared) {
                        let mut pattern = cells.to_vec();
                        pattern.extend(cells_of(shared));
                        return Some(Step::eliminating(
                            Technique::AlignedTripletExclusion,
                            75,
                            eliminated,
                            pattern,
                        ));
                    }
                }
            }
            None
        },
    )
}

/// Per digit `a` (at `[a - 1]`), the digits `b` (bits `b - 1`) that
/// the base cell `cell` (with its `excluders`) rules out beside `a` in a
/// triplet it is one of: those with an excluder {a, b}, and those for
/// which each of its own digits but `a` and `b` is in an excluder with
/// `a` or `b` ({x, a}, {x, b} or {x, a, b}), so that no digit of this cell
/// goes with `a` and `b` in the other two cells. (The excluders of a
/// triplet are among each of its cells' own.)
fn pairs_ruled_out(board: &Board, cell: u8, excluders: u128) -> [u16; 9] {
    let mut partners = [0u16; 9];
    let mut thirds = [[0u16; 9]; 9];
    add_excluders(board, excluders, &mut partners, &mut thirds);
    let m = board.cands(cell);
    let mut out = partners;
    for a in 0..9 {
        for b in a + 1..9 {
            let ab = 1 << a | 1 << b;
            // This cell's digits with no excluder ruling them out beside
            // a and b.
            let free = m & !ab & !(partners[a] | partners[b]) & !thirds[a][b];
            if free == 0 {
                out[a] |= 1 << b;
                out[b] |= 1 << a;
            }
        }
    }
    out
}

/// False when no digit can leave the triplet `cells` (each cell's
/// `ruled_out`, see [`pairs_ruled_out`]): a digit `a` leaves a cell only
/// if every other digit `b` of a second cell is ruled out beside `a` by
/// the third (by an excluder {a, b} the three share, or every digit of the
/// third ruled out beside `a` and `b`), and the same with the second and
/// third cells' roles swapped. The digits `kept` (per cell) are known to
/// stay: they are not tried.
fn may_take_away(board: &Board, cells: [u8; 3], kept: [u16; 3], ruled_out: [&[u16; 9]; 3]) -> bool {
    let masks = cells.map(|c| board.cands(c));
    (0..3).any(|i| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        digits(masks[i] & !kept[i]).any(|a| {
            let x = a as usize - 1;
            masks[j] & !bit(a) & !ruled_out[k][x] == 0 && masks[k] & !bit(a) & !ruled_out[j][x] == 0
        })
    })
}

/// True when the triplet of base cells `c0 < c1` (the pair) and `c2`
/// (the third, with the excluders `ex0`, `ex1`, `ex2`) was met earlier in
/// [`aligned_triplet_exclusion`]'s order, and so found nothing then: the
/// triplet's cells `p < q < r` come first with the pair (p, q), if `r` is
/// among their excluders, then (p, r), then (q, r). (Having changed
/// and sharing two excluders hold for every way of meeting it alike.)
fn met_before(c0: u8, c1: u8, c2: u8, ex0: u128, ex1: u128, ex2: u128) -> bool {
    if c2 > c1 {
        false // the pair (p, q): the first way
    } else if c2 > c0 {
        // The pair (p, r), the third q: met with (p, q) if r was a third.
        (ex0 | ex2) & cell_bit(c1) != 0
    } else {
        // The pair (q, r), the third p: met with (p, q) or with (p, r).
        (ex2 | ex0) & cell_bit(c1) != 0 || (ex2 | ex1) & cell_bit(c0) != 0
    }
}

/// Where the board changed since an exclusion last found nothing there.
/// A pair's or triplet's finding rests on its base cells' candidates,
/// on their being base cells, and on the candidates of the excluders they
/// share; so it may differ now only if one of its cells is `touched` (its
/// candidates changed, or a peer with one candidate was placed, which may
/// make it a base cell), or every one is `near` (sees a changed cell,
/// which an excluder they share would be).
#[derive(Clone, Copy, Debug)]
pub struct Around {
    /// The changed cells and the peers of those placed (bit `c`).
    pub touched: u128,
    /// The changed cells and their peers (bit `c`): `touched` is among them.
    pub near: u128,
}

impl Around {
    /// Everywhere: every group may have changed.
    pub const EVERYWHERE: Around = Around {
        touched: u128::MAX,
        near: u128::MAX,
    };

    /// The cells that make a group with `cells` (bit `c`) that may have
    /// changed: any cell if one of them is touched; else, if all are near,
    /// a near cell; else a touched one.
    #[inline]
    fn completing(self, cells: u128) -> u128 {
        if cells & self.touched != 0 {
            u128::MAX
        } else if cells & !self.near == 0 {
            self.near
        } else {
            self.touched
        }
    }
}

/// Records the excluders `excluders` (a mask of cells with two or three
/// candidates): those of two digits in `partners` (see [`add_partners`]),
/// those of three in `thirds` (see [`add_thirds`]).
#[inline]
fn add_excluders(
    board: &Board,
    excluders: u128,
    partners: &mut [u16; 9],
    thirds: &mut [[u16; 9]; 9],
) {
    for e in cells_of(excluders) {
        let m = board.cands(e);
        if m.count_ones() == 2 {
            add_partners(partners, m);
        } else {
            add_thirds(thirds, m);
        }
    }
}

/// The two-digit excluders `excluders` (a mask of cells) as partners
/// (see [`add_partners`]).
#[inline]
fn partners_in(board: &Board, excluders: u128) -> [u16; 9] {
    let mut partners = [0u16; 9];
    for e in cells_of(excluders) {
        add_partners(&mut partners, board.cands(e));
    }
    partners
}

/// Records a three-digit excluder `m` in `thirds` (`thirds[x - 1][y - 1]`:
/// the digits `z` with an excluder {x, y, z}).
#[inline]
fn add_thirds(thirds: &mut [[u16; 9]; 9], m: u16) {
    debug_assert_eq!(m.count_ones(), 3, "excluders hold two or three digits");
    // The three digits (from 0) and their bits.
    let x = m.trailing_zeros() as usize;
    let rest = m & (m - 1);
    let y = rest.trailing_zeros() as usize;
    let z = (rest & (rest - 1)).trailing_zeros() as usize;
    let (bx, by, bz) = (1 << x, 1 << y, 1 << z);
    thirds[x][y] |= bz;
    thirds[y][x] |= bz;
    thirds[x][z] |= by;
    thirds[z][x] |= by;
    thirds[y][z] |= bx;
    thirds[z][y] |= bx;
}

/// Records a two-digit excluder `m` in `partners` (`partners[x - 1]`: the
/// digits `x` may not be taken with): each of its digits with the other.
#[inline]
fn add_partners(partners: &mut [u16; 9], m: u16) {
    debug_assert_eq!(m.count_ones(), 2, "a two-digit excluder");
    let x = m.trailing_zeros() as usize;
    let y = (m & (m - 1)).trailing_zeros() as usize;
    partners[x] |= 1 << y;
    partners[y] |= 1 << x;
}

/// The candidates of `cells` that no allowed choice of three digits keeps,
/// if any; `common`: the excluders the three see (a mask of cells, each
/// with two or three candidates).
///
/// A choice (d0, d1, d2) is allowed unless two cells that see each other
/// take the same digit, or it holds all of an excluder's digits. So for
/// each (d0, d1) the third cell's allowed digits are one mask: its
/// candidates less the partners of d0 and of d1 in two-digit excluders,
/// the third digit of a three-digit excluder holding both, and d0 or d1
/// where the third cell sees theirs.
fn triplet_exclusions(board: &Board, cells: [u8; 3], common: u128) -> Option<Vec<(u8, u8)>> {
    let masks = cells.map(|c| board.cands(c));
    // `partners[x - 1]`: the digits y with an excluder {x, y};
    // `thirds[x - 1][y - 1]`: the digits z with an excluder {x, y, z}.
    let mut partners = [0u16; 9];
    let mut thirds = [[0u16; 9]; 9];
    add_excluders(board, common, &mut partners, &mut thirds);
    let seen = [
        sees(cells[0], cells[1]),
        sees(cells[0], cells[2]),
        sees(cells[1], cells[2]),
    ];
    // Three words, not an array: as an array, `keep` was stored to memory
    // word by word and read back whole for the comparison below (a
    // store-forwarding stall; perf put a tenth of the local producers'
    // samples on hard puzzles on that read).
    let (mut keep0, mut keep1, mut keep2) = (0u16, 0u16, 0u16);
    for d0 in digits(masks[0]) {
        let (x, same0) = (d0 as usize - 1, if seen[1] { bit(d0) } else { 0 });
        for d1 in digits(masks[1]) {
            if (d0 == d1 && seen[0]) || partners[x] & bit(d1) != 0 {
                continue;
            }
            let y = d1 as usize - 1;
            let same1 = if seen[2] { bit(d1) } else { 0 };
            let third = masks[2] & !(partners[x] | partners[y] | thirds[x][y] | same0 | same1);
            if third != 0 {
                keep0 |= bit(d0);
                keep1 |= bit(d1);
                keep2 |= third;
            }
        }
        if [keep0, keep1, keep2] == masks {
            return None; // every candidate kept
        }
    }
    let keep = [keep0, keep1, keep2];
    let eliminated: Vec<(u8, u8)> = (0..3)
        .flat_map(|k| digits(masks[k] & !keep[k]).map(move |d| (cells[k], d)))
        .collect();
    (!eliminated.is_empty()).then_some(eliminated)
}

/// The cells that see two or more of the cells `cells`: counted as bits
/// while their peers are OR-ed in (seen once, seen twice or more).
fn seen_twice(cells: u128) -> u128 {
    let (mut once, mut twice) = (0u128, 0u128);
    for e in cells_of(cells) {
        let peers = PEER_MASKS[e as usize];
        twice |= once & peers;
        once |= peers;
    }
    twice
}

/// The base cells of a search (see [`base_cells`]), found in cell order.
struct Bases {
    /// Each with its excluders (a mask of cells).
    list: Vec<(u8, u128)>,
    /// Each base cell's place in `list` (by cell; `usize::MAX` for the
    /// others).
    index: [usize; 81],
    /// The base cells as a mask of cells.
    mask: u128,
}

impl Bases {
    fn of(board: &Board, most: u32) -> Bases {
        let list = base_cells(board, most);
        let mut index = [usize::MAX; 81];
        let mut mask = 0u128;
        for (k, &(cell, _)) in list.iter().enumerate() {
            index[cell as usize] = k;
            mask |= cell_bit(cell);
        }
        Bases { list, index, mask }
    }

    /// The first of `each(i0, i1)`'s answers over the pairs of base
    /// cells sharing two excluders or more, as places in `list`, in SE's
    /// pair order (by the later cell, then the earlier): each base cell
    /// with the earlier ones that see two or more of its excluders, among
    /// the cells `with(place, cell)` of the later one. (Nested loops, not
    /// an iterator of iterators: the pairs are the exclusions' outer
    /// loop.)
    fn first_of_pairs_sharing_two<R>(
        &self,
        with: impl Fn(usize, u8) -> u128,
        mut each: impl FnMut(usize, usize) -> Option<R>,
    ) -> Option<R> {
        for (i1, &(c1, ex1)) in self.list.iter().enumerate() {
            let earlier = self.mask & (cell_bit(c1) - 1) & with(i1, c1);
            if earlier == 0 {
                continue;
            }
            for c0 in cells_of(seen_twice(ex1) & earlier) {
                if let Some(found) = each(self.index[c0 as usize], i1) {
                    return Some(found);
                }
            }
        }
        None
    }
}

/// The cells with two or more candidates and no peer with one, each with
/// its excluders: the peers with two to `most` candidates (a mask of
/// cells, bit `c`), when there is one.
fn base_cells(board: &Board, most: u32) -> Vec<(u8, u128)> {
    // The cells with one candidate, and with two to `most`.
    let (mut single, mut multi) = (0u128, 0u128);
    for cell in 0..81u8 {
        match board.cands(cell).count_ones() {
            1 => single |= cell_bit(cell),
            n if n >= 2 && n <= most => multi |= cell_bit(cell),
            _ => {}
        }
    }
    let mut bases = Vec::new();
    for cell in 0..81u8 {
        if board.cands(cell).count_ones() < 2 {
            continue;
        }
        let peers = PEER_MASKS[cell as usize];
        let excluders = peers & multi;
        if peers & single == 0 && excluders != 0 {
            bases.push((cell, excluders));
        }
    }
    bases
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::combos::{combos, members};
    use crate::tasks::grade::test_boards::each_thinned;

    /// The index pairs (i, j), i < j < n, in SE's order: (0,1), (0,2), (1,2),
    /// (0,3), ...
    fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
        (1..n).flat_map(|j| (0..j).map(move |i| (i, j)))
    }

    /// Aligned triplet exclusion as first written: every pair of base
    /// cells, every third among their excluders, each triplet tested each
    /// time it is met.
    fn triplet_exclusion_walking_all(board: &Board, around: Around) -> Option<Vec<(u8, u8)>> {
        let bases = base_cells(board, 3);
        for (i, j) in pairs(bases.len()) {
            let ((c0, ex0), (c1, ex1)) = (bases[i], bases[j]);
            let pair = 1 << c0 | 1 << c1;
            for c2 in cells_of(ex0).chain(cells_of(ex1 & !ex0)) {
                let Some(&(_, ex2)) = bases.iter().find(|b| b.0 == c2) else {
                    continue;
                };
                let shared = ex0 & ex1 & ex2;
                if c2 == c0 || c2 == c1 || shared.count_ones() < 2 {
                    continue;
                }
                if !around.may_have_changed(pair | 1 << c2) {
                    continue;
                }
                if let Some(found) = triplet_exclusions(board, [c0, c1, c2], shared) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Aligned triplet exclusion's digits as first written: every choice of
    /// three digits tested against every excluder, while it could keep a
    /// digit not kept yet. The candidates of `cells` that none keeps, if
    /// any; `common`: the excluders the three see (a mask of cells).
    fn triplet_exclusions_trying_every_choice(
        board: &Board,
        cells: [u8; 3],
        common: u128,
    ) -> Option<Vec<(u8, u8)>> {
        let masks = cells.map(|c| board.cands(c));
        // The excluders' candidates: three digits holding all of one of them
        // are not allowed. (At most 20: the peers of a cell.)
        let mut excluders = [0u16; 20];
        let mut n = 0;
        for e in cells_of(common) {
            excluders[n] = board.cands(e);
            n += 1;
        }
        let excluders = &excluders[..n];
        let seen = [
            sees(cells[0], cells[1]),
            sees(cells[0], cells[2]),
            sees(cells[1], cells[2]),
        ];
        // Digits (d0, d1, d2) for the three cells: no digit twice in cells
        // that see each other, no excluder emptied.
        let allowed = |[d0, d1, d2]: [u8; 3]| {
            let chosen = (1u16 << (d0 - 1)) | (1 << (d1 - 1)) | (1 << (d2 - 1));
            let repeated = d0 == d1 && seen[0] || d0 == d2 && seen[1] || d1 == d2 && seen[2];
            !repeated && excluders.iter().all(|&m| m & !chosen != 0)
        };
        // A digit of a cell is kept when some allowed choice gives it that
        // digit: every choice is looked at, but only while it could keep a
        // digit not kept yet, and only until all are.
        let mut keep = [0u16; 3];
        'all: for d0 in digits(masks[0]) {
            for d1 in digits(masks[1]) {
                for d2 in digits(masks[2]) {
                    let bits = [1u16 << (d0 - 1), 1 << (d1 - 1), 1 << (d2 - 1)];
                    let adds = (0..3).any(|k| keep[k] & bits[k] == 0);
                    if adds && allowed([d0, d1, d2]) {
                        for k in 0..3 {
                            keep[k] |= bits[k];
                        }
                        if keep == masks {
                            break 'all;
                        }
                    }
                }
            }
        }
        let eliminated: Vec<(u8, u8)> = (0..3)
            .flat_map(|k| digits(masks[k] & !keep[k]).map(move |d| (cells[k], d)))
            .collect();
        (!eliminated.is_empty()).then_some(eliminated)
    }

    /// The third cell's digits as one mask per (d0, d1) keep what trying
    /// every choice of three digits keeps, on every triplet of base
    /// cells sharing two excluders.
    #[test]
    fn triplet_digits_by_masks_match_trying_every_choice() {
        let (mut triplets, mut found) = (0, 0);
        each_thinned(200, 6, 8, 75, |line, round, board, _rng| {
            let bases = base_cells(board, 3);
            for (i, j) in pairs(bases.len()) {
                for &(c2, ex2) in &bases[j + 1..] {
                    let ((c0, ex0), (c1, ex1)) = (bases[i], bases[j]);
                    let shared = ex0 & ex1 & ex2;
                    if shared.count_ones() < 2 {
                        continue;
                    }
                    let cells = [c0, c1, c2];
                    let fast = triplet_exclusions(board, cells, shared);
                    let slow = triplet_exclusions_trying_every_choice(board, cells, shared);
                    assert_eq!(fast, slow, "{line}, round {round}, cells {cells:?}");
                    triplets += 1;
                    found += usize::from(fast.is_some());
                }
            }
        });
        assert!(
            triplets > 100_000 && found > 5_000,
            "{triplets} triplets, {found} found"
        );
    }

    impl Around {
        /// Whether a group of base cells `cells` (bit `c`) may have
        /// changed, as [`Around`] says.
        fn may_have_changed(self, cells: u128) -> bool {
            cells & self.touched != 0 || cells & !self.near == 0
        }
    }

    /// The solutions of the sample lines, solved once each.
    #[derive(Default)]
    struct Solutions {
        solved: std::collections::HashMap<String, [u8; 81]>,
        solver: crate::solver::FastSolver,
    }

    impl Solutions {
        fn of(&mut self, line: &str) -> &[u8; 81] {
            let solver = &mut self.solver;
            self.solved.entry(line.to_string()).or_insert_with(|| {
                use crate::puzzle::grid::Grid;
                use crate::solver::Solver;
                let givens = Grid::parse_line(line.as_bytes()).unwrap();
                *solver.solve(&givens, 1).solution.unwrap().cells()
            })
        }
    }

    /// Where the oracle tests search: everywhere in even rounds; in odd
    /// ones, a random eighth of the cells touched, and those and a random
    /// quarter near.
    fn around_of(round: usize, rng: &mut impl rand::Rng) -> Around {
        if round.is_multiple_of(2) {
            Around::EVERYWHERE
        } else {
            let touched = rng.gen::<u128>() & rng.gen::<u128>() & rng.gen::<u128>();
            let near = touched | rng.gen::<u128>() & rng.gen::<u128>();
            Around { touched, near }
        }
    }

    #[test]
    fn each_triplet_tried_once_finds_what_trying_every_meeting_finds() {
        let mut found = 0;
        let mut solutions = Solutions::default();
        // False candidates taken away at random, more and more: boards
        // with many base cells and few excluders, then the reverse.
        each_thinned(300, 6, 8, 75, |line, round, board, rng| {
            let around = around_of(round, rng);
            let all = triplet_exclusion_walking_all(board, around);
            let fast = aligned_triplet_exclusion(board, around, None).map(|s| s.eliminated);
            assert_eq!(fast, all, "{line}, round {round}");
            // Told the solution, it tries fewer digits and finds the same.
            let solution = solutions.of(line);
            let told = aligned_triplet_exclusion(board, around, Some(solution));
            assert_eq!(told.map(|s| s.eliminated), all, "{line}, round {round}");
            found += usize::from(fast.is_some());
        });
        assert!(found > 20, "{found}");
    }

    /// Aligned pair exclusion as first written: each pair of digits of
    /// the two base cells tested against every common excluder (the step
    /// then made as before, by `pair_exclusion_step`).
    fn pair_exclusion_testing_every_pair(board: &Board, around: Around) -> Option<Step> {
        let bases = base_cells(board, 2);
        for (i, j) in pairs(bases.len()) {
            let ((c0, ex0), (c1, ex1)) = (bases[i], bases[j]);
            let shared = ex0 & ex1;
            if shared.count_ones() < 2 || !around.may_have_changed(cell_bit(c0) | cell_bit(c1)) {
                continue;
            }
            let common: Vec<u16> = cells_of(shared).map(|e| board.cands(e)).collect();
            let (m0, m1) = (board.cands(c0), board.cands(c1));
            let (mut keep0, mut keep1) = (0u16, 0u16);
            for d0 in digits(m0) {
                for d1 in digits(m1) {
                    if d0 == d1 && sees(c0, c1) {
                        continue;
                    }
                    let pair = bit(d0) | bit(d1);
                    if common.iter().any(|&m| m & !pair == 0) {
                        continue;
                    }
                    keep0 |= bit(d0);
                    keep1 |= bit(d1);
                }
            }
            if let Some(step) = pair_exclusion_step(board, [c0, c1], [keep0, keep1], shared) {
                return Some(step);
            }
        }
        None
    }

    /// The pair exclusion that reads each excluder's two digits once
    /// finds what testing every pair of digits finds.
    #[test]
    fn pair_exclusion_finds_what_testing_every_pair_finds() {
        let mut found = 0;
        let mut solutions = Solutions::default();
        each_thinned(300, 6, 8, 62, |line, round, board, rng| {
            let around = around_of(round, rng);
            let fast = aligned_pair_exclusion(board, around, None);
            let all = pair_exclusion_testing_every_pair(board, around);
            assert_eq!(fast, all, "{line}, round {round}");
            let told = aligned_pair_exclusion(board, around, Some(solutions.of(line)));
            assert_eq!(told, all, "{line}, round {round}");
            found += usize::from(fast.is_some());
        });
        assert!(found > 50, "{found}");
    }

    #[test]
    fn pairs_follow_combos_order() {
        let from_combos: Vec<(usize, usize)> = combos(2)
            .map(|m| {
                let mut it = members(m);
                (it.next().unwrap(), it.next().unwrap())
            })
            .collect();
        assert_eq!(pairs(9).collect::<Vec<_>>(), from_combos);
    }
}
