//! Nishio's chains on one digit's cells: whether a candidate's state
//! leads to a contradiction, on one word.
//!
//! Nishio (7.5+) follows X links alone, dynamically: from an "on" the
//! digit's other places in its box, row and column go off; from an "off"
//! a region left with one place for the digit puts it on. Such a chain
//! never leaves its digit, and its only conclusion is a contradiction
//! (a candidate both on and off). Without one, what the chain reaches
//! does not depend on the order it follows links in (each link of the
//! search is there in the end, and fires once its premises are in), so
//! whether one is met comes out of whole layers at a time on the digit's
//! cell mask. Most Nishio passes find nothing (238 of 259 on the first
//! 50 magictour puzzles): a cell whose chains meet no contradiction is
//! not searched.

use super::Pot;
use crate::tasks::grade::board::{cells_of, seen_by, unit_bits, UNIT_MASKS};

/// True when `cells` holds one cell or none.
fn one_or_none(cells: u128) -> bool {
    cells & cells.wrapping_sub(1) == 0
}

/// True when the Nishio chain from `start` meets a contradiction, with
/// `places` the cells of the board holding its digit: a candidate both
/// on and off, or a region of two places or more left without one (a
/// search meets that as its last place both on and off).
pub(super) fn contradicts(places: u128, start: Pot) -> bool {
    let cell = start.cell();
    // The digit's places as the chain has thinned them.
    let mut grid = places;
    let (mut on, mut off) = (0u128, 0u128);
    let (mut new_on, mut new_off) = (0u128, 0u128);
    if start.on() {
        (on, new_on) = (1 << cell, 1 << cell);
    } else {
        (off, new_off) = (1 << cell, 1 << cell);
    }
    loop {
        if new_on != 0 {
            let peers = seen_by(new_on);
            new_off = peers & grid & !off;
            if new_off & on != 0 {
                return true;
            }
            off |= new_off;
        }
        if new_off == 0 {
            return false;
        }
        grid &= !new_off;
        // A region left with one place puts it on.
        new_on = 0;
        let mut units = cells_of(new_off).fold(0, |m, c| m | unit_bits(c));
        while units != 0 {
            let u = units.trailing_zeros() as usize;
            units &= units - 1;
            let left = grid & UNIT_MASKS[u];
            if left == 0 {
                // Met as a contradiction where the region had two places
                // or more: the last but one taken out put the last on.
                if !one_or_none(places & UNIT_MASKS[u]) {
                    return true;
                }
                continue;
            }
            if one_or_none(left) {
                new_on |= left;
            }
        }
        new_on &= !on;
        if new_on & off != 0 {
            return true;
        }
        on |= new_on;
        new_off = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Chains, FROM_OFF_OFF, FROM_OFF_ON, NISHIO, VALUE_OFF, VALUE_ON};
    use super::*;
    use crate::tasks::grade::board::{digits, Board};
    use crate::tasks::grade::test_boards::{each_thinned, sample};

    /// `contradicts` says what Nishio's own search finds, from every
    /// candidate on and off of sample boards, whole and thinned.
    #[test]
    fn contradicts_as_the_nishio_search_does() {
        let mut chains = Chains::new();
        let [mut met, mut not_met] = [0u32; 2];
        let mut check = |line: &str, board: &Board| {
            for cell in 0..81u8 {
                for d in digits(board.cands(cell)) {
                    let places = board.cells_with(d);
                    let on = Pot::new(cell, d, true);
                    chains.arena.clear();
                    let search = chains
                        .chain_from_on(board, on, VALUE_ON, VALUE_OFF, NISHIO)
                        .is_some();
                    assert_eq!(contradicts(places, on), search, "{line} r{cell}d{d} on");
                    let off = on.flipped();
                    chains.arena.clear();
                    let root = chains.arena.root(off);
                    chains.sets[FROM_OFF_ON].clear();
                    chains.sets[FROM_OFF_OFF].clear();
                    chains.sets[FROM_OFF_OFF].insert(off, root);
                    let search = (chains.chain(board, FROM_OFF_ON, FROM_OFF_OFF, NISHIO)).is_some();
                    assert_eq!(contradicts(places, off), search, "{line} r{cell}d{d} off");
                    for found in [contradicts(places, on), search] {
                        met += found as u32;
                        not_met += !found as u32;
                    }
                }
            }
        };
        for (line, board, _) in sample(3) {
            check(line, &board);
        }
        each_thinned(8, 3, 3, 11, |line, _, board, _| check(line, board));
        assert!(met > 500 && not_met > 5_000, "{met} {not_met}");
    }
}
