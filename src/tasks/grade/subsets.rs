//! Naked and hidden sets. A naked set: k cells of a unit whose candidates
//! together are k digits, which then leave the unit's other cells. A
//! hidden set: k digits of a unit whose places together are k cells,
//! which then hold no other digit. The direct hidden forms count only when
//! that leaves a hidden single in the unit, which they place.

use super::board::Board;
use super::combos::{first_within_union, members, within_set};
use super::singles::SCAN_ORDER;
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// The first naked set of `k` cells (2, 3 or 4) in SE's order: units
/// boxes, columns, rows; in each, the cell sets in [`combos`] order. Only
/// units with at least 2k empty cells are searched (a smaller one is the
/// hidden set of its other cells), and only those of `units` (bit `u`):
/// a naked set stands on its unit's cells alone.
pub fn naked_set(board: &Board, k: u32, units: u32) -> Option<Step> {
    for &u in &SCAN_ORDER {
        if units & (1 << u) == 0 || board.empty_count(u) < 2 * k as usize {
            continue;
        }
        let cands: [u16; 9] = std::array::from_fn(|i| board.cands(UNIT_CELLS[u][i]));
        let open = within_set(&cands, k);
        if open.count_ones() < k {
            continue;
        }
        let step = first_within_union(open, k, &cands, |set, union| {
            if union.count_ones() != k {
                return None;
            }
            let mut eliminated = Vec::new();
            for (i, &c) in UNIT_CELLS[u].iter().enumerate() {
                if set & (1 << i) == 0 {
                    for d in super::board::digits(board.cands(c) & union) {
                        eliminated.push((c, d));
                    }
                }
            }
            if eliminated.is_empty() {
                return None;
            }
            let (technique, rating) = match k {
                2 => (Technique::NakedPair, 30),
                3 => (Technique::NakedTriple, 36),
                _ => (Technique::NakedQuad, 50),
            };
            Some(Step::eliminating(
                technique,
                rating,
                eliminated,
                members(set).map(|i| UNIT_CELLS[u][i]).collect(),
            ))
        });
        if step.is_some() {
            return step;
        }
    }
    None
}

/// The first hidden set of `k` digits in SE's order: units boxes,
/// columns, rows; in each, the digit sets in [`combos`] order, each digit
/// with at least two places. Indirect: only units with more than 2k empty
/// cells (3.4 pair, 4.0 triple, 5.4 quad). `direct` (k = 2 or 3): units
/// with more than k empty cells, and only sets whose removals leave
/// another digit one place in the unit (2.0 pair, 2.5 triple). Only the
/// units of `units` (bit `u`) are searched: a hidden set, and the single
/// of a direct one, stand on their unit's cells alone.
pub fn hidden_set(board: &Board, k: u32, direct: bool, units: u32) -> Option<Step> {
    for &u in &SCAN_ORDER {
        if units & (1 << u) == 0 {
            continue;
        }
        let empty = board.empty_count(u);
        if !(empty > 2 * k as usize || (direct && empty > k as usize)) {
            continue;
        }
        let places: [u16; 9] = std::array::from_fn(|i| board.positions(u, i as u8 + 1));
        let open = within_set(&places, k);
        if open.count_ones() < k {
            continue;
        }
        let step = first_within_union(open, k, &places, |set, union| {
            if union.count_ones() != k {
                return None;
            }
            // `set` holds digits - 1: as a candidate mask it is the digits.
            let mut eliminated = Vec::new();
            for i in members(union) {
                let c = UNIT_CELLS[u][i];
                for d in super::board::digits(board.cands(c) & !set) {
                    eliminated.push((c, d));
                }
            }
            let pattern: Vec<u8> = members(union).map(|i| UNIT_CELLS[u][i]).collect();
            if !direct {
                if eliminated.is_empty() {
                    return None;
                }
                let (technique, rating) = match k {
                    2 => (Technique::HiddenPair, 34),
                    3 => (Technique::HiddenTriple, 40),
                    _ => (Technique::HiddenQuad, 54),
                };
                return Some(Step::eliminating(technique, rating, eliminated, pattern));
            }
            // A digit outside the set with one place left outside its cells.
            let single = (0..9).filter(|&i| set & (1 << i) == 0).find_map(|i| {
                let rest = places[i] & !union;
                (places[i].count_ones() > 1 && rest.count_ones() == 1)
                    .then(|| (UNIT_CELLS[u][rest.trailing_zeros() as usize], i as u8 + 1))
            });
            let placed = single?;
            let (technique, rating) = match k {
                2 => (Technique::DirectHiddenPair, 20),
                _ => (Technique::DirectHiddenTriple, 25),
            };
            // SE's direct steps only place: the removals are their
            // reason, not applied.
            Some(Step::placing(
                technique,
                rating,
                placed,
                Vec::new(),
                pattern,
            ))
        });
        if step.is_some() {
            return step;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::combos::combos;
    use crate::tasks::grade::test_boards::each_thinned;

    /// A set is what both searches seek: each member open (two bits or
    /// more), `k` bits in all.
    fn is_set(masks: &[u16; 9], set: u16, k: u32) -> bool {
        let each_open = members(set).all(|i| masks[i].count_ones() > 1);
        let union = members(set).fold(0u16, |m, i| m | masks[i]);
        each_open && union.count_ones() == k
    }

    /// The sets the searches skip (a member outside [`within_set`]) are
    /// never sets, and every set they keep trying is: on the cells' and
    /// the digits' masks of every unit of boards of sample puzzles with
    /// false candidates taken away at random, more and more.
    #[test]
    fn sets_skipped_are_never_sets() {
        let mut sets = [0; 5];
        each_thinned(200, 5, 6, 34, |line, _, board, _| {
            for (u, cells) in UNIT_CELLS.iter().enumerate() {
                let cands: [u16; 9] = std::array::from_fn(|i| board.cands(cells[i]));
                let places: [u16; 9] = std::array::from_fn(|i| board.positions(u, i as u8 + 1));
                for masks in [cands, places] {
                    for k in 2..=4 {
                        let open = within_set(&masks, k);
                        for set in combos(k) {
                            let found = is_set(&masks, set, k);
                            if set & !open != 0 {
                                assert!(!found, "{line} unit {u} set {set:b}");
                            }
                            sets[k as usize] += usize::from(found);
                        }
                    }
                }
            }
        });
        assert!(sets[2..].iter().all(|&n| n > 1000), "{sets:?}");
    }
}
