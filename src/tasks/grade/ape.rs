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
            chains: Vec::new(),
        });
    }
    None
}

/// The first aligned triplet exclusion (7.5) in SE's order: as
/// [`aligned_pair_exclusion`], with excluders of two or three candidates;
/// each pair of base cells (in pair order) takes as third cell each base
/// cell among the excluders of the first, then of the second. Three
/// digits are allowed unless two cells that see each other take the same
/// one, or they would empty an excluder all three see.
pub fn aligned_triplet_exclusion(board: &Board) -> Option<Step> {
    let mut bases: Vec<(u8, Vec<u8>)> = Vec::new();
    let mut index = [usize::MAX; 81];
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
            .filter(|&p| (2..=3).contains(&board.cands(p).count_ones()))
            .collect();
        if !excluders.is_empty() {
            index[cell as usize] = bases.len();
            bases.push((cell, excluders));
        }
    }
    if bases.len() < 3 {
        return None;
    }
    for (i, j) in pairs(bases.len()) {
        let (c0, ex0) = &bases[i];
        let (c1, ex1) = &bases[j];
        let mut third: Vec<u8> = Vec::new();
        for &e in ex0.iter().chain(ex1) {
            if e != *c0 && e != *c1 && index[e as usize] != usize::MAX && !third.contains(&e) {
                third.push(e);
            }
        }
        for c2 in third {
            let ex2 = &bases[index[c2 as usize]].1;
            let common: Vec<u8> = ex0
                .iter()
                .copied()
                .filter(|e| ex1.contains(e) && ex2.contains(e))
                .collect();
            if common.len() < 2 {
                continue;
            }
            let cells = [*c0, *c1, c2];
            if let Some(eliminated) = triplet_exclusions(board, cells, &common) {
                let mut pattern = cells.to_vec();
                pattern.extend(common);
                return Some(Step {
                    technique: Technique::AlignedTripletExclusion,
                    rating: 75,
                    placed: None,
                    eliminated,
                    pattern,
                    chains: Vec::new(),
                });
            }
        }
    }
    None
}

/// The candidates of `cells` that no allowed choice of three digits keeps,
/// if any.
fn triplet_exclusions(board: &Board, cells: [u8; 3], common: &[u8]) -> Option<Vec<(u8, u8)>> {
    let masks = cells.map(|c| board.cands(c));
    let excluders: Vec<u16> = common.iter().map(|&e| board.cands(e)).collect();
    let mut keep = [0u16; 3];
    for d0 in digits(masks[0]) {
        for d1 in digits(masks[1]) {
            if d0 == d1 && sees(cells[0], cells[1]) {
                continue;
            }
            for d2 in digits(masks[2]) {
                if (d2 == d0 && sees(cells[0], cells[2])) || (d2 == d1 && sees(cells[1], cells[2]))
                {
                    continue;
                }
                let chosen = (1u16 << (d0 - 1)) | (1 << (d1 - 1)) | (1 << (d2 - 1));
                if excluders.iter().any(|&m| m & !chosen == 0) {
                    continue;
                }
                keep[0] |= 1 << (d0 - 1);
                keep[1] |= 1 << (d1 - 1);
                keep[2] |= 1 << (d2 - 1);
            }
        }
    }
    let eliminated: Vec<(u8, u8)> = (0..3)
        .flat_map(|k| digits(masks[k] & !keep[k]).map(move |d| (cells[k], d)))
        .collect();
    (!eliminated.is_empty()).then_some(eliminated)
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
