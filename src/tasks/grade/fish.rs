//! Basic fish: a digit whose places in k rows (or columns) all lie in k
//! columns (rows) is taken from the rest of those columns (rows): X-wing
//! (k = 2, 3.2), swordfish (3, 3.8), jellyfish (4, 5.2).

use super::board::{bit, Board};
use super::combos::{first_within_union, members, within_set};
use super::intersections::{unit, Kind};
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// The first fish of size `k` in SE's order: columns as the base first,
/// then rows; the base sets in [`combos`] order; digits 1-9 (only those
/// placed at most 9 - 2k times), of `digits` only (bit `d - 1`): a fish
/// stands on its digit's places alone.
///
/// [`combos`] order is the sets' order as numbers, so each digit's first
/// fish is sought on its own, among the sets of its base units with two
/// to `k` places, and the smallest set wins (the lower digit on a tie).
pub fn fish(board: &Board, k: u32, digits: u16) -> Option<Step> {
    let mut placed = [0usize; 10];
    for cell in 0..81u8 {
        placed[board.value(cell) as usize] += 1;
    }
    for (base, cover) in [(Kind::Column, Kind::Row), (Kind::Row, Kind::Column)] {
        // The first (set, digit, its removals) so far.
        let mut first: Option<(u16, u8, u16)> = None;
        for d in 1..=9u8 {
            if digits & bit(d) == 0 || placed[d as usize] + 2 * k as usize > 9 {
                continue;
            }
            let places: [u16; 9] = std::array::from_fn(|i| board.positions(unit(base, i), d));
            let eligible = within_set(&places, k);
            if eligible.count_ones() < k {
                continue;
            }
            let before = first.map_or(u16::MAX, |(set, _, _)| set);
            // (Sets come in increasing order: none after `before` is
            // wanted, `Some(None)` ends the walk.)
            let hit = first_within_union(eligible, k, &places, |set, union| {
                if set >= before {
                    return Some(None);
                }
                if union.count_ones() != k {
                    return None;
                }
                // The cover units' places of `d` outside the base.
                let removed =
                    members(union).fold(0u16, |m, j| m | board.positions(unit(cover, j), d) & !set);
                (removed != 0).then_some(Some((set, union)))
            });
            if let Some(Some((set, union))) = hit {
                first = Some((set, d, union));
            }
        }
        if let Some(found) = first {
            return Some(fish_step(board, k, cover, found));
        }
    }
    None
}

/// The step of the fish of size `k` on digit `d`: the base `set`, whose
/// places lie in the cover units `union` of kind `cover`; the digit leaves
/// the cover units' cells outside the base.
fn fish_step(board: &Board, k: u32, cover: Kind, (set, d, union): (u16, u8, u16)) -> Step {
    let mut eliminated = Vec::new();
    let mut pattern = Vec::new();
    for j in members(union) {
        for (i, &c) in UNIT_CELLS[unit(cover, j)].iter().enumerate() {
            if !board.has(c, d) {
                continue;
            }
            if set & (1 << i) == 0 {
                eliminated.push((c, d));
            } else {
                pattern.push(c);
            }
        }
    }
    eliminated.sort_unstable();
    pattern.sort_unstable();
    let (technique, rating) = match k {
        2 => (Technique::XWing, 32),
        3 => (Technique::Swordfish, 38),
        _ => (Technique::Jellyfish, 52),
    };
    Step::eliminating(technique, rating, eliminated, pattern)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::combos::combos;
    use crate::tasks::grade::test_boards::each_thinned;
    use rand::Rng;

    /// The search as first written: every set, every digit, in SE's
    /// order, each tested in full.
    fn fish_trying_every_set(board: &Board, k: u32, digits: u16) -> Option<Step> {
        let mut placed = [0usize; 10];
        for cell in 0..81u8 {
            placed[board.value(cell) as usize] += 1;
        }
        for (base, cover) in [(Kind::Column, Kind::Row), (Kind::Row, Kind::Column)] {
            for set in combos(k) {
                for d in 1..=9u8 {
                    if digits & bit(d) == 0 || placed[d as usize] + 2 * k as usize > 9 {
                        continue;
                    }
                    let mut union = 0u16;
                    let mut each_open = true;
                    for i in members(set) {
                        let p = board.positions(unit(base, i), d);
                        each_open &= p.count_ones() > 1;
                        union |= p;
                    }
                    if !each_open || union.count_ones() != k {
                        continue;
                    }
                    let step = fish_step(board, k, cover, (set, d, union));
                    if !step.eliminated.is_empty() {
                        return Some(step);
                    }
                }
            }
        }
        None
    }

    /// Seeking each digit's first fish finds the step that trying every
    /// set for every digit in SE's order finds: boards of sample puzzles
    /// with false candidates taken away at random, more and more, all
    /// digits or a random few.
    #[test]
    fn each_digit_sought_alone_finds_what_trying_every_set_finds() {
        let mut found = [0; 5];
        each_thinned(300, 6, 6, 38, |line, round, board, rng| {
            let digits = if round.is_multiple_of(2) {
                0x1ff
            } else {
                rng.gen::<u16>() & 0x1ff
            };
            for k in 2..=4 {
                let fast = fish(board, k, digits);
                assert_eq!(fast, fish_trying_every_set(board, k, digits), "{line} {k}");
                found[k as usize] += usize::from(fast.is_some());
            }
        });
        assert!(found[2..].iter().all(|&n| n > 50), "{found:?}");
    }
}
