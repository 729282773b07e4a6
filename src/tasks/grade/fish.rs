//! Basic fish: a digit whose places in k rows (or columns) all lie in k
//! columns (rows) is taken from the rest of those columns (rows): X-wing
//! (k = 2, 3.2), swordfish (3, 3.8), jellyfish (4, 5.2).

use super::board::{bit, Board};
use super::combos::{combos, members};
use super::intersections::{unit, Kind};
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// The first fish of size `k` in SE's order: columns as the base first,
/// then rows; the base sets in [`combos`] order; digits 1-9 (only those
/// placed at most 9 - 2k times), of `digits` only (bit `d - 1`): a fish
/// stands on its digit's places alone.
pub fn fish(board: &Board, k: u32, digits: u16) -> Option<Step> {
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
                if eliminated.is_empty() {
                    continue;
                }
                eliminated.sort_unstable();
                pattern.sort_unstable();
                let (technique, rating) = match k {
                    2 => (Technique::XWing, 32),
                    3 => (Technique::Swordfish, 38),
                    _ => (Technique::Jellyfish, 52),
                };
                return Some(Step::eliminating(technique, rating, eliminated, pattern));
            }
        }
    }
    None
}
