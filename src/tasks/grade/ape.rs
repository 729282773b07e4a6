//! Aligned pair exclusion (6.2): two cells both seeing the same bivalue
//! cells cannot take a pair of digits that would empty one of those
//! cells (nor one digit twice if they see each other); a digit of either
//! cell that no allowed pair keeps is removed.

use super::board::{digits, sees, Board, PEERS};
use super::{Step, Technique};

/// The first aligned pair exclusion in SE's order: base cells with two or
/// more candidates, a bivalue peer, and no peer with a single candidate,
/// paired in increasing order (by the later cell, then the earlier).
pub fn aligned_pair_exclusion(board: &Board) -> Option<Step> {
    // Base cells, each with its bivalue peers in cell order.
    let mut bases: Vec<(u8, Vec<u8>)> = Vec::new();
    for cell in 0..81u8 {
        if board.cands(cell).count_ones() < 2 {
            continue;
        }
        let peers = &PEERS[cell as usize];
        if peers.iter().any(|&p| board.cands(p).count_ones() == 1) {
            continue;
        }
        let excluders: Vec<u8> = peers
            .iter()
            .copied()
            .filter(|&p| board.cands(p).count_ones() == 2)
            .collect();
        if !excluders.is_empty() {
            bases.push((cell, excluders));
        }
    }
    for (i, j) in pairs(bases.len()) {
        let (c0, ex0) = &bases[i];
        let (c1, ex1) = &bases[j];
        let common: Vec<u16> = ex0
            .iter()
            .filter(|e| ex1.contains(e))
            .map(|&e| board.cands(e))
            .collect();
        if common.len() < 2 {
            continue;
        }
        let (m0, m1) = (board.cands(*c0), board.cands(*c1));
        // Digits of each base cell kept by some allowed pair.
        let (mut keep0, mut keep1) = (0u16, 0u16);
        for d0 in digits(m0) {
            for d1 in digits(m1) {
                if d0 == d1 && sees(*c0, *c1) {
                    continue;
                }
                let pair = (1u16 << (d0 - 1)) | (1 << (d1 - 1));
                if common.iter().any(|&m| m & !pair == 0) {
                    continue;
                }
                keep0 |= 1 << (d0 - 1);
                keep1 |= 1 << (d1 - 1);
            }
        }
        let mut eliminated: Vec<(u8, u8)> = digits(m0 & !keep0).map(|d| (*c0, d)).collect();
        eliminated.extend(digits(m1 & !keep1).map(|d| (*c1, d)));
        if eliminated.is_empty() {
            continue;
        }
        let mut pattern = vec![*c0, *c1];
        pattern.extend(ex0.iter().copied().filter(|e| ex1.contains(e)));
        return Some(Step {
            technique: Technique::AlignedPairExclusion,
            rating: 62,
            placed: None,
            eliminated,
            pattern,
        });
    }
    None
}

/// The index pairs (i, j), i < j < n, in SE's order: (0,1), (0,2), (1,2),
/// (0,3), ...
fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (1..n).flat_map(|j| (0..j).map(move |i| (i, j)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::combos::{combos, members};

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
