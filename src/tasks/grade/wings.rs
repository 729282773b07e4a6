//! XY-wing and XYZ-wing: a pivot cell with candidates xy (or xyz) sees
//! two cells xz and yz; whichever the pivot holds, one of them is z, so z
//! leaves every cell that sees both (and, for XYZ, the pivot too).

use super::board::{cell_bit, cells_of, digits, Board, PEER_MASKS};
use super::{Step, Technique};

/// The first XY-wing (`xyz` false, 4.2) or XYZ-wing (4.4) in SE's order:
/// pivots in cell order, then the first wing among the pivot's peers in
/// cell order, then the second. Only the trios with a cell among
/// `changed` (bit `c` for cell `c`) are tried: a trio removes only from
/// cells that see its wings, and those only lose candidates, so a trio
/// that removed nothing removes something only once its own cells
/// change. (Its pivot then sees a changed cell or is one: `near`.)
pub fn xy_wing(board: &Board, xyz: bool, changed: u128, near: u128) -> Option<Step> {
    // The wings are bivalue cells: only those peers of a pivot are read
    // (in cell order, as the peers are).
    let bivalue = board.cells_with_count(2);
    let pivots = if xyz {
        board.cells_with_count(3)
    } else {
        bivalue
    };
    for pivot in cells_of(near & pivots) {
        let xy = board.cands(pivot);
        let wings = PEER_MASKS[pivot as usize] & bivalue;
        let pivot_changed = changed & cell_bit(pivot) != 0;
        for xz_cell in cells_of(wings) {
            let xz = board.cands(xz_cell);
            if (xy & !xz).count_ones() != 1 {
                continue;
            }
            let trio_changed = pivot_changed || changed & cell_bit(xz_cell) != 0;
            // The second wing holds the pivot's digit the first lacks and
            // one of the first's: for an XY-wing its other one (z), for
            // an XYZ-wing either (both the pivot's). Only such wings are
            // tried (in cell order still).
            let lacking = (xy & !xz).trailing_zeros() as u8 + 1;
            let shared = if xyz { xz } else { xz & !xy };
            let holding =
                digits(shared).fold(0, |m, d| m | board.cells_with(d)) & board.cells_with(lacking);
            let yz_cells = holding & if trio_changed { wings } else { wings & changed };
            for yz_cell in cells_of(yz_cells) {
                if let Some(step) = wing(board, xyz, pivot, xz_cell, yz_cell) {
                    return Some(step);
                }
            }
        }
    }
    None
}

/// The step of the pivot and the bivalue wings `xz_cell`, `yz_cell`
/// (the pivot sharing one digit with the first), if they make a wing of
/// this kind that removes something.
fn wing(board: &Board, xyz: bool, pivot: u8, xz_cell: u8, yz_cell: u8) -> Option<Step> {
    let (xy, xz, yz) = (
        board.cands(pivot),
        board.cands(xz_cell),
        board.cands(yz_cell),
    );
    if (xy | xz | yz).count_ones() != 3 {
        return None;
    }
    let common = (xy & xz & yz).count_ones();
    if common != u32::from(xyz) {
        return None;
    }
    let z = xz & yz;
    let d = z.trailing_zeros() as u8 + 1;
    // The cells seeing both wings (and the pivot, for XYZ) that hold z,
    // in cell order.
    let pivot_side = if xyz {
        PEER_MASKS[pivot as usize]
    } else {
        !cell_bit(pivot)
    };
    let seeing = PEER_MASKS[xz_cell as usize]
        & PEER_MASKS[yz_cell as usize]
        & pivot_side
        & board.cells_with(d);
    let eliminated: Vec<(u8, u8)> = cells_of(seeing).map(|c| (c, d)).collect();
    if eliminated.is_empty() {
        return None;
    }
    let (technique, rating) = if xyz {
        (Technique::XyzWing, 44)
    } else {
        (Technique::XyWing, 42)
    };
    let pattern = vec![pivot, xz_cell, yz_cell];
    Some(Step::eliminating(technique, rating, eliminated, pattern))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::grade::board::{seen_by, PEERS};
    use crate::tasks::grade::test_boards::each_thinned;
    use rand::Rng;

    /// The wing search as first written: every peer of a pivot read as a
    /// first wing, and every peer as a second (each trio then tested as
    /// before, by `wing`), when one of its cells is among `changed`.
    fn wing_reading_every_peer(board: &Board, xyz: bool, changed: u128) -> Option<Step> {
        let size = if xyz { 3 } else { 2 };
        for pivot in 0..81u8 {
            let xy = board.cands(pivot);
            if xy.count_ones() != size {
                continue;
            }
            for &xz_cell in &PEERS[pivot as usize] {
                let xz = board.cands(xz_cell);
                if xz.count_ones() != 2 || (xy & !xz).count_ones() != 1 {
                    continue;
                }
                for &yz_cell in &PEERS[pivot as usize] {
                    if board.cands(yz_cell).count_ones() != 2 {
                        continue;
                    }
                    let trio = cell_bit(pivot) | cell_bit(xz_cell) | cell_bit(yz_cell);
                    if trio & changed == 0 {
                        continue;
                    }
                    if let Some(step) = wing(board, xyz, pivot, xz_cell, yz_cell) {
                        return Some(step);
                    }
                }
            }
        }
        None
    }

    /// Reading only the bivalue peers finds the wing that reading every
    /// peer finds, XY and XYZ, on sample boards with false candidates
    /// taken away at random, every trio tried and those with a cell among
    /// random ones.
    #[test]
    fn wings_from_bivalue_peers_are_those_from_every_peer() {
        let mut found = [0; 2];
        each_thinned(300, 6, 8, 42, |line, round, board, rng| {
            let every = (1u128 << 81) - 1;
            let changed = if round.is_multiple_of(2) {
                every
            } else {
                rng.gen::<u128>() & rng.gen::<u128>() & every
            };
            let near = changed | seen_by(changed);
            for xyz in [false, true] {
                let fast = xy_wing(board, xyz, changed, near);
                let all = wing_reading_every_peer(board, xyz, changed);
                assert_eq!(fast, all, "{line}, round {round}, xyz {xyz}");
                found[usize::from(xyz)] += usize::from(fast.is_some());
            }
        });
        assert!(found[0] > 50 && found[1] > 50, "{found:?}");
    }
}
