//! Singles: a digit with one place left in a unit (hidden single; the
//! last empty cell of a unit is rated lower), and a cell with one
//! candidate left (naked single).

use super::board::{cells_of, Board};
use super::{Step, Technique};
use crate::puzzle::grid::UNIT_CELLS;

/// The units in SE's scan order: boxes, then columns, then rows (our unit
/// numbers: rows 0-8, columns 9-17, boxes 18-26).
pub const SCAN_ORDER: [usize; 27] = {
    let mut t = [0; 27];
    let mut k = 0;
    while k < 9 {
        t[k] = 18 + k;
        t[9 + k] = 9 + k;
        t[18 + k] = k;
        k += 1;
    }
    t
};

/// The first hidden single in SE's order: units with one empty cell left
/// first (1.0, in scan order), then the other units (1.2 in a box, 1.5 in
/// a row or column), each unit's digits from 1 to 9. Only the units of
/// `units` (bit `u`) are searched: a single stands on its unit alone.
pub fn hidden_single(board: &Board, units: u32) -> Option<Step> {
    for alone in [true, false] {
        for &u in SCAN_ORDER.iter().filter(|&&u| units & (1 << u) != 0) {
            // The unit's empty cells, counted once a digit has one place.
            let mut empty = None;
            for d in 1..=9 {
                let places = board.positions(u, d);
                if places.count_ones() != 1 {
                    continue;
                }
                let n = *empty.get_or_insert_with(|| {
                    UNIT_CELLS[u]
                        .iter()
                        .filter(|&&c| board.value(c) == 0)
                        .count()
                });
                if (n == 1) != alone {
                    // Every digit of this unit answers alike.
                    break;
                }
                let cell = UNIT_CELLS[u][places.trailing_zeros() as usize];
                let (technique, rating) = match (alone, u >= 18) {
                    (true, _) => (Technique::FullHouse, 10),
                    (false, true) => (Technique::HiddenSingle, 12),
                    (false, false) => (Technique::HiddenSingle, 15),
                };
                return Some(Step::placing(
                    technique,
                    rating,
                    (cell, d),
                    Vec::new(),
                    UNIT_CELLS[u].to_vec(),
                ));
            }
        }
    }
    None
}

/// The first cell (in cell order) with one candidate left (2.3), among
/// `cells` (bit `c` for cell `c`). A placed cell has no candidates.
pub fn naked_single(board: &Board, cells: u128) -> Option<Step> {
    cells_of(cells).find_map(|cell| {
        let m = board.cands(cell);
        (m.count_ones() == 1).then(|| {
            Step::placing(
                Technique::NakedSingle,
                23,
                (cell, m.trailing_zeros() as u8 + 1),
                Vec::new(),
                vec![cell],
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::puzzle::grid::Grid;
    use crate::tasks::grade::board::bit;

    #[test]
    fn the_last_empty_cell_of_a_unit_is_a_full_house() {
        let mut line =
            *b"12345678.........................................................................";
        line[9] = b'.';
        let board = Board::new(&Grid::parse_line(&line).unwrap());
        let step = hidden_single(&board, u32::MAX).unwrap();
        assert_eq!(step.technique, Technique::FullHouse);
        assert_eq!(step.rating, 10);
        assert_eq!(step.placed, Some((8, 9)));
        assert!(board.has(8, 9) && board.cands(8) == bit(9));
    }
}
