//! Pointing and claiming (locked candidates): a digit whose places in one
//! unit all lie where it crosses a second unit is taken from the rest of
//! the second. The direct forms count only when removing it leaves a
//! hidden single in a third unit, which they place.

use super::board::{bit, Board};
use super::{Step, Technique};
use crate::puzzle::grid::{BOX_OF, COL_OF, ROW_OF, UNIT_CELLS};

/// Our unit numbers: rows 0-8, columns 9-17, boxes 18-26.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Row,
    Column,
    Box,
}

/// The `i`-th unit of a kind.
pub fn unit(kind: Kind, i: usize) -> usize {
    match kind {
        Kind::Row => i,
        Kind::Column => 9 + i,
        Kind::Box => 18 + i,
    }
}

/// True when units `a` and `b` share cells (and differ).
#[inline]
fn crosses(a: usize, b: usize) -> bool {
    INSIDE[a][b] != 0
}

/// The cells of `u` at the positions of `mask`.
fn cells_at(u: usize, mask: u16) -> impl Iterator<Item = u8> {
    (0..9)
        .filter(move |&k| mask & (1 << k) != 0)
        .map(move |k| UNIT_CELLS[u][k])
}

/// `INSIDE[a][b]`: the positions (bit `k` for the unit's `k`-th cell) of
/// unit `a`'s cells that lie in unit `b`.
const INSIDE: [[u16; 27]; 27] = {
    let mut t = [[0u16; 27]; 27];
    let mut a = 0;
    while a < 27 {
        let mut b = 0;
        while b < 27 {
            let mut k = 0;
            while k < 9 {
                let c = UNIT_CELLS[a][k] as usize;
                let inside = match b {
                    0..=8 => ROW_OF[c] as usize == b,
                    9..=17 => COL_OF[c] as usize + 9 == b,
                    _ => BOX_OF[c] as usize + 18 == b,
                };
                if inside && a != b {
                    t[a][b] |= 1 << k;
                }
                k += 1;
            }
            b += 1;
        }
        a += 1;
    }
    t
};

/// The units of kind `other` crossing the `i`-th unit of `kind` (a box's
/// rows or columns, a row's or column's boxes), by their index within
/// their kind, in increasing order: the only ones a pointing or claiming
/// from that unit can stand on (the search asks [`crossing_at`] which).
#[cfg(test)]
fn crossing(kind: Kind, i: usize, other: Kind) -> [usize; 3] {
    let from = |first: usize, step: usize| [first, first + step, first + 2 * step];
    match (kind, other) {
        (Kind::Box, Kind::Row) => from(3 * (i / 3), 1),
        (Kind::Box, Kind::Column) => from(3 * (i % 3), 1),
        // Boxes of a row's band, of a column's stack.
        (Kind::Row, Kind::Box) => from(3 * (i / 3), 1),
        (Kind::Column, Kind::Box) => from(i / 3, 3),
        _ => unreachable!("a line crosses only boxes"),
    }
}

/// Of [`crossing`]`(kind, i, other)`, the unit holding the `k`-th cell of
/// the `i`-th unit of `kind` (a box's cells row by row, a row's by column,
/// a column's by row).
fn crossing_at(kind: Kind, i: usize, other: Kind, k: usize) -> usize {
    match (kind, other) {
        (Kind::Box, Kind::Row) => 3 * (i / 3) + k / 3,
        (Kind::Box, Kind::Column) => 3 * (i % 3) + k % 3,
        (Kind::Row, Kind::Box) => 3 * (i / 3) + k / 3,
        (Kind::Column, Kind::Box) => i / 3 + 3 * (k / 3),
        _ => unreachable!("a line crosses only boxes"),
    }
}

/// The first pointing or claiming in SE's order: the unit pairs (box,
/// column), (box, row), (column, box), (row, box); in each, digits 1-9,
/// then the first unit, then the second. `direct`: only those that leave
/// a hidden single in another unit of the first kind (1.7 pointing, 1.9
/// claiming), else any that removes a candidate (2.6, 2.8). Of `digits`
/// only (bit `d - 1`): both forms stand on their digit's places alone.
pub fn locked_candidates(board: &Board, direct: bool, digits: u16) -> Option<Step> {
    // Most calls find nothing: the digits that cannot are left out first
    // by a test on their lines' boxes, cheaper than the ordered search.
    let digits = digits_with_locked_places(board, digits);
    if digits == 0 {
        return None;
    }
    locked_candidates_in(board, direct, digits)
}

/// Of `digits`, those that may have a pointing or claiming (every digit
/// that has one, and some that do not): [`locked_in_lines`] over the rows,
/// then over the columns.
fn digits_with_locked_places(board: &Board, digits: u16) -> u16 {
    (1..=9)
        .filter(|&d| digits & bit(d) != 0)
        .filter(|&d| {
            locked_in_lines(board, Kind::Row, d) || locked_in_lines(board, Kind::Column, d)
        })
        .fold(0, |m, d| m | bit(d))
}

/// Whether digit `d` may be locked where lines of `kind` cross boxes: a
/// box whose places all lie in one line that has places in another box
/// (pointing), or a line whose places all lie in one box that has places
/// in another line (claiming). Per band of lines (stack of columns), each
/// line's boxes with a place as three bits ([`BOXES_OF_PLACES`]); a box
/// is pointed from when exactly one line has places in it. Boxes with a
/// single place, which the search passes by, are not told apart.
fn locked_in_lines(board: &Board, kind: Kind, d: u8) -> bool {
    (0..3).any(|band| {
        let [a, b, c] = [0, 1, 2]
            .map(|i| BOXES_OF_PLACES[board.positions(unit(kind, 3 * band + i), d) as usize]);
        // The boxes that exactly one of the three lines has places in.
        let one_line = (a ^ b ^ c) & !((a & b) | (a & c) | (b & c));
        [(a, b | c), (b, a | c), (c, a | b)]
            .into_iter()
            .any(|(line, others)| {
                let pointed_at = one_line & line != 0 && line.count_ones() >= 2;
                let claiming = line.count_ones() == 1 && line & others != 0;
                pointed_at || claiming
            })
    })
}

/// `BOXES_OF_PLACES[p]`: for a line's places `p` (bit `k` for its `k`-th
/// cell), bit `t` set when it has a place in its `t`-th box (cells
/// `3t..3t + 2`).
const BOXES_OF_PLACES: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut p = 0;
    while p < 512 {
        let mut b = 0;
        while b < 3 {
            if p & (7 << (3 * b)) != 0 {
                t[p] |= 1 << b;
            }
            b += 1;
        }
        p += 1;
    }
    t
};

/// [`locked_candidates`] over `digits`, every digit searched in SE's order.
fn locked_candidates_in(board: &Board, direct: bool, digits: u16) -> Option<Step> {
    const ORDER: [(Kind, Kind); 4] = [
        (Kind::Box, Kind::Column),
        (Kind::Box, Kind::Row),
        (Kind::Column, Kind::Box),
        (Kind::Row, Kind::Box),
    ];
    for (k1, k2) in ORDER {
        let pointing = k1 == Kind::Box;
        for d in (1..=9).filter(|&d| digits & bit(d) != 0) {
            for i1 in 0..9 {
                let u1 = unit(k1, i1);
                let places = board.positions(u1, d);
                if places.count_ones() < 2 {
                    continue;
                }
                // Every place of d in u1 lies where u1 crosses u2: only
                // the crossing unit of its first place can hold them all.
                {
                    let i2 = crossing_at(k1, i1, k2, places.trailing_zeros() as usize);
                    let u2 = unit(k2, i2);
                    if places & !INSIDE[u1][u2] != 0 {
                        continue;
                    }
                    let removable = board.positions(u2, d) & !INSIDE[u2][u1];
                    if removable == 0 {
                        continue;
                    }
                    let pattern: Vec<u8> = cells_at(u1, places).collect();
                    if !direct {
                        let (technique, rating) = if pointing {
                            (Technique::Pointing, 26)
                        } else {
                            (Technique::Claiming, 28)
                        };
                        let eliminated = cells_at(u2, removable).map(|c| (c, d)).collect();
                        return Some(Step::eliminating(technique, rating, eliminated, pattern));
                    }
                    if let Some(cell) = single_left(board, k1, i1, u2, d) {
                        let (technique, rating) = if pointing {
                            (Technique::DirectPointing, 17)
                        } else {
                            (Technique::DirectClaiming, 19)
                        };
                        // SE's direct steps only place: the removals are
                        // their reason, not applied.
                        return Some(Step::placing(
                            technique,
                            rating,
                            (cell, d),
                            Vec::new(),
                            pattern,
                        ));
                    }
                }
            }
        }
    }
    None
}

/// A direct intersection's single: the first other unit of kind `k1`
/// crossing `u2` where `d` has more than one place and exactly one outside
/// `u2`.
fn single_left(board: &Board, k1: Kind, i1: usize, u2: usize, d: u8) -> Option<u8> {
    (0..9).filter(|&i3| i3 != i1).find_map(|i3| {
        let u3 = unit(k1, i3);
        if !crosses(u3, u2) {
            return None;
        }
        let places = board.positions(u3, d);
        let outside = places & !INSIDE[u3][u2];
        (places.count_ones() >= 2 && outside.count_ones() == 1)
            .then(|| UNIT_CELLS[u3][outside.trailing_zeros() as usize])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::test_boards::each_thinned;

    /// The digits left out before the search are digits the search finds
    /// nothing for, direct or not: boards of sample puzzles with false
    /// candidates taken away at random, more and more. The test must
    /// both keep the digits that have one and leave out others that still
    /// have open places.
    #[test]
    fn digits_left_out_have_no_pointing_or_claiming() {
        let (mut kept, mut left_out, mut found) = (0, 0, 0);
        each_thinned(300, 6, 5, 41, |line, _, board, _| {
            let kept_digits = digits_with_locked_places(board, 0x1ff);
            for d in 1..=9 {
                for direct in [false, true] {
                    let step = locked_candidates_in(board, direct, bit(d));
                    if kept_digits & bit(d) == 0 {
                        assert_eq!(step, None, "{line} digit {d}");
                    }
                    found += usize::from(step.is_some());
                }
                // Left out while the digit still has open places.
                let open = board.cells_with(d) != 0;
                kept += usize::from(kept_digits & bit(d) != 0);
                left_out += usize::from(open && kept_digits & bit(d) == 0);
            }
            let all = locked_candidates_in(board, false, 0x1ff);
            assert_eq!(locked_candidates(board, false, 0x1ff), all, "{line}");
        });
        assert!(
            found > 1000 && left_out > 1000 && kept > 1000,
            "{found} {left_out} {kept}"
        );
    }

    /// The crossing units listed are exactly those of the other kind that
    /// share cells with the unit, in increasing order.
    #[test]
    fn crossing_lists_every_crossing_unit_in_order() {
        let pairs = [
            (Kind::Box, Kind::Column),
            (Kind::Box, Kind::Row),
            (Kind::Column, Kind::Box),
            (Kind::Row, Kind::Box),
        ];
        for (kind, other) in pairs {
            for i in 0..9 {
                let all: Vec<usize> = (0..9)
                    .filter(|&j| crosses(unit(kind, i), unit(other, j)))
                    .collect();
                assert_eq!(crossing(kind, i, other).to_vec(), all, "{i}");
                // Each cell's crossing unit is one of those, and holds it.
                for k in 0..9 {
                    let j = crossing_at(kind, i, other, k);
                    assert!(all.contains(&j), "{i} {k}");
                    assert_ne!(INSIDE[unit(kind, i)][unit(other, j)] & 1 << k, 0, "{i} {k}");
                }
            }
        }
    }
}
