//! XY-wing and XYZ-wing: a pivot cell with candidates xy (or xyz) sees
//! two cells xz and yz; whichever the pivot holds, one of them is z, so z
//! leaves every cell that sees both (and, for XYZ, the pivot too).

use super::board::{cells_of, Board, PEERS, PEER_MASKS};
use super::{Step, Technique};

/// The first XY-wing (`xyz` false, 4.2) or XYZ-wing (4.4) in SE's order:
/// pivots in cell order, then the first wing among the pivot's peers in
/// cell order, then the second. Only pivots among `pivots` (bit `c` for
/// cell `c`) are tried.
pub fn xy_wing(board: &Board, xyz: bool, pivots: u128) -> Option<Step> {
    let size = if xyz { 3 } else { 2 };
    for pivot in cells_of(pivots) {
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
                let yz = board.cands(yz_cell);
                if yz.count_ones() != 2 || (xy | xz | yz).count_ones() != 3 {
                    continue;
                }
                let common = (xy & xz & yz).count_ones();
                if common != u32::from(xyz) {
                    continue;
                }
                let z = xz & yz;
                let d = z.trailing_zeros() as u8 + 1;
                // The cells seeing both wings (and the pivot, for XYZ)
                // that hold z, in cell order.
                let pivot_side = if xyz {
                    PEER_MASKS[pivot as usize]
                } else {
                    !(1 << pivot)
                };
                let seeing = PEER_MASKS[xz_cell as usize]
                    & PEER_MASKS[yz_cell as usize]
                    & pivot_side
                    & board.cells_with(d);
                let eliminated: Vec<(u8, u8)> = cells_of(seeing).map(|c| (c, d)).collect();
                if eliminated.is_empty() {
                    continue;
                }
                let (technique, rating) = if xyz {
                    (Technique::XyzWing, 44)
                } else {
                    (Technique::XyWing, 42)
                };
                let pattern = vec![pivot, xz_cell, yz_cell];
                return Some(Step::eliminating(technique, rating, eliminated, pattern));
            }
        }
    }
    None
}
