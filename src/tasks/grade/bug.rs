//! BUG, the bivalue universal grave (5.6-6.2): if every unsolved cell
//! held two candidates and every digit two places in each unit, the
//! puzzle would have two solutions. So of the few cells with more
//! candidates ("BUG cells"), one must hold an extra digit (the one that
//! breaks the two-places rule there). Type 1: one BUG cell keeps only its
//! extra digits. Type 2: the cells seeing every BUG cell lose their one
//! extra digit. Type 3: the BUG cells' extra digits act as one cell in a
//! naked set of a unit they share. Type 4: two BUG cells in one unit
//! sharing a non-extra digit lose their other non-extra digit.
//!
//! As Sudoku Explainer finds them, with lkSudoku's corrections (on by
//! default in SukakuExplainer, whose ratings are the reference).

use super::board::{bit, cell_bit, cells_of, digits, units_of, Board, PEERS, PEER_MASKS};
use super::combos::{combos, members};
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// SE's unit order here: boxes, rows, columns (our unit numbers).
const UNIT_ORDER: [usize; 27] = {
    let mut t = [0; 27];
    let mut k = 0;
    while k < 9 {
        t[k] = 18 + k;
        t[9 + k] = k;
        t[18 + k] = 9 + k;
        k += 1;
    }
    t
};

/// The cells that see every cell of `cells` (and are none of them).
fn common_peers(cells: &[u8]) -> Vec<u8> {
    let Some(&first) = cells.first() else {
        return Vec::new();
    };
    let mut out: Vec<u8> = PEERS[first as usize]
        .iter()
        .copied()
        .filter(|&c| {
            !cells.contains(&c) && cells[1..].iter().all(|&o| PEERS[o as usize].contains(&c))
        })
        .collect();
    out.sort_unstable();
    out
}

/// What the scan for the pattern found.
struct Pattern {
    /// BUG cells, in the order found, with their extra digits.
    cells: Vec<u8>,
    extra: Vec<u16>,
    /// Every extra digit found by a unit with one BUG cell in its places.
    all_extra: u16,
}

/// The BUG cells, or None when the grid is no BUG pattern.
fn find_pattern(board: &Board) -> Option<Pattern> {
    let mut p = Pattern {
        cells: Vec::new(),
        extra: Vec::new(),
        all_extra: 0,
    };
    let mut left = board.clone();
    // lkSudoku's type 2 case: every unit breaking the rule on one digit.
    let mut all_wide: Option<Vec<u8>> = None;
    let mut only_value = 0u8;
    let mut one_value = true;
    let note = |p: &mut Pattern, cell: u8, d: u8, left: &mut Board| -> bool {
        match p.cells.iter().position(|&c| c == cell) {
            Some(k) => p.extra[k] |= bit(d),
            None => {
                p.cells.push(cell);
                p.extra.push(bit(d));
            }
        }
        left.eliminate(cell, d);
        // No type can hold with several cells and digits and no common peer.
        !(p.cells.len() > 1 && p.all_extra.count_ones() > 1 && common_peers(&p.cells).is_empty())
    };
    for &u in &UNIT_ORDER {
        for d in 1..=9u8 {
            let places = board.positions(u, d);
            let n = places.count_ones();
            if n == 0 || n == 2 {
                continue;
            }
            let wide: Vec<u8> = members(places)
                .map(|i| UNIT_CELLS[u][i])
                .filter(|&c| board.cands(c).count_ones() >= 3)
                .collect();
            match &mut all_wide {
                None => {
                    all_wide = Some(wide.clone());
                    only_value = d;
                }
                Some(all) if one_value => {
                    if only_value == d {
                        all.extend(wide.iter().copied());
                    } else {
                        one_value = false;
                    }
                }
                _ => {}
            }
            if wide.len() == 1 {
                p.all_extra |= bit(d);
                if !note(&mut p, wide[0], d, &mut left) {
                    return None;
                }
            }
            if wide.is_empty() {
                return None;
            }
        }
    }
    if let (true, Some(mut all)) = (one_value, all_wide) {
        all.sort_unstable();
        all.dedup();
        if all.len() > p.cells.len() {
            for c in all {
                if p.cells.contains(&c) {
                    continue;
                }
                p.cells.push(c);
                p.extra.push(bit(only_value));
                left.eliminate(c, only_value);
                if p.cells.len() > 1
                    && p.all_extra.count_ones() > 1
                    && common_peers(&p.cells).is_empty()
                {
                    return None;
                }
            }
        }
    }
    // Without the extra digits, the grid must be a grave.
    if left.empty_cells().any(|c| left.cands(c).count_ones() != 2) {
        return None;
    }
    for u in 0..27 {
        for d in 1..=9u8 {
            let n = left.positions(u, d).count_ones();
            if n != 0 && n != 2 {
                return None;
            }
        }
    }
    Some(p)
}

/// Whether the board may be a BUG pattern some type removes from. The
/// BUG cells are the cells with three candidates or more (a pattern
/// takes extra digits from those only, and leaves every unsolved cell
/// two); so there must be one, no unsolved cell may hold one candidate,
/// and several BUG cells need a common peer (types 2 and 3 remove from
/// such peers, type 4 needs two BUG cells in one unit).
fn may_be_bug(board: &Board) -> bool {
    let (mut wide, mut single) = (0u128, false);
    for cell in 0..81u8 {
        match board.cands(cell).count_ones() {
            1 => single = true,
            n if n >= 3 => wide |= cell_bit(cell),
            _ => {}
        }
    }
    if single || wide == 0 {
        return false;
    }
    let common = cells_of(wide).fold(!wide, |m, c| m & PEER_MASKS[c as usize]);
    wide.count_ones() == 1 || common != 0
}

/// The first BUG step, as SE adds them: type 1; or type 2 then type 4;
/// or type 4 then type 3.
pub fn bug(board: &Board) -> Option<Step> {
    if !may_be_bug(board) {
        return None;
    }
    bug_searched(board)
}

/// [`bug`] without the quick test.
fn bug_searched(board: &Board) -> Option<Step> {
    let p = find_pattern(board)?;
    let common = common_peers(&p.cells);
    let step = |rating: u16, eliminated: Vec<(u8, u8)>| {
        Step::eliminating(Technique::Bug, rating, eliminated, p.cells.clone())
    };
    if p.cells.len() == 1 {
        let c = p.cells[0];
        let keep = p.all_extra;
        let elim = digits(board.cands(c) & !keep).map(|d| (c, d)).collect();
        return Some(step(56, elim));
    }
    if p.all_extra.count_ones() == 1 {
        let d = p.all_extra.trailing_zeros() as u8 + 1;
        let elim: Vec<(u8, u8)> = common
            .iter()
            .filter(|&&c| board.has(c, d))
            .map(|&c| (c, d))
            .collect();
        if !elim.is_empty() {
            return Some(step(57, elim));
        }
        if p.cells.len() == 2 {
            return type4(board, &p).map(|e| step(57, e));
        }
        return None;
    }
    if common.is_empty() {
        return None;
    }
    if p.cells.len() == 2 {
        if let Some(e) = type4(board, &p) {
            return Some(step(57, e));
        }
    }
    type3(board, &p, &common).map(|(rating, e)| step(rating, e))
}

/// Type 4: two BUG cells sharing a unit and one digit that is extra to
/// neither: each loses its digits but that one and its extras.
fn type4(board: &Board, p: &Pattern) -> Option<Vec<(u8, u8)>> {
    let (c1, c2) = (p.cells[0], p.cells[1]);
    let shared = board.cands(c1) & board.cands(c2) & !p.all_extra;
    if shared.count_ones() != 1 {
        return None;
    }
    let same_unit = units_of(c1)
        .into_iter()
        .zip(units_of(c2))
        .any(|(a, b)| a == b);
    if !same_unit {
        return None;
    }
    let mut elim = Vec::new();
    for (k, c) in [c1, c2].into_iter().enumerate() {
        for d in digits(board.cands(c) & !p.extra[k] & !shared) {
            elim.push((c, d));
        }
    }
    Some(elim)
}

/// Type 3: the extra digits with k - 1 cells seeing every BUG cell in a
/// unit all BUG cells share make a naked set of k digits (k from 2 to 6,
/// then units box, row, column); its digits leave the cells that see
/// every set cell holding them. 5.7 plus a tenth per digit past the first.
fn type3(board: &Board, p: &Pattern, common: &[u8]) -> Option<(u16, Vec<(u8, u8)>)> {
    for degree in 2..=6u32 {
        for kind in 0..3 {
            let u = units_of(p.cells[0])[kind];
            if p.cells.iter().any(|&c| units_of(c)[kind] != u) {
                continue;
            }
            let unit_cells: Vec<u8> = common
                .iter()
                .copied()
                .filter(|&c| units_of(c)[kind] == u)
                .collect();
            if unit_cells.len() < degree as usize {
                continue;
            }
            for pick in combos(degree - 1).filter(|&m| (m as u32) < (1 << unit_cells.len())) {
                let set_cells: Vec<u8> = members(pick).map(|i| unit_cells[i]).collect();
                let others = set_cells.iter().fold(0u16, |m, &c| m | board.cands(c));
                if others.count_ones() != degree {
                    continue;
                }
                let each_open = set_cells.iter().all(|&c| board.cands(c).count_ones() > 1)
                    && p.all_extra.count_ones() > 1;
                let naked = others | p.all_extra;
                if !each_open || naked.count_ones() != degree {
                    continue;
                }
                let mut elim = Vec::new();
                for d in digits(naked) {
                    let holders: Vec<u8> = set_cells
                        .iter()
                        .chain(&p.cells)
                        .copied()
                        .filter(|&c| board.has(c, d))
                        .collect();
                    for v in common_peers(&holders) {
                        if board.has(v, d) {
                            elim.push((v, d));
                        }
                    }
                }
                if !elim.is_empty() {
                    elim.sort_unstable();
                    return Some((57 + (degree as u16 - 1), elim));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::test_boards::sample;
    use crate::tasks::grade::{next_step, PathMemory, Rating};

    /// The quick test rules out only boards the search finds no BUG on,
    /// and rules out most boards: every board of the sample puzzles'
    /// solving paths (where the patterns come, near the end of a path).
    #[test]
    fn boards_ruled_out_have_no_bug() {
        let (mut ruled_out, mut found, mut boards) = (0, 0, 0);
        for (line, mut board, solution) in sample(1500) {
            let mut memory = PathMemory::new(Some(&solution));
            while !board.is_solved() {
                let searched = bug_searched(&board);
                if !may_be_bug(&board) {
                    assert_eq!(searched, None, "{line}");
                    ruled_out += 1;
                }
                found += usize::from(searched.is_some());
                boards += 1;
                let Some(step) = next_step(&board, &mut memory, Rating::MAX) else {
                    break;
                };
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
        }
        assert!(
            found > 20 && ruled_out * 10 > boards * 9,
            "{found} found, {ruled_out} of {boards} ruled out"
        );
    }
}
