//! Singles: a digit with one place left in a unit (hidden single; the
//! last empty cell of a unit is rated lower), and a cell with one
//! candidate left (naked single).

use super::board::{cells_of, digits, Board};
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
///
/// SE scans twice (the full houses, then the rest); one scan serves both:
/// the first full house met is the answer at once, else the first other
/// unit with a single, kept while scanning on.
pub fn hidden_single(board: &Board, units: u32) -> Option<Step> {
    let mut first_hidden = None;
    for &u in SCAN_ORDER.iter().filter(|&&u| units & (1 << u) != 0) {
        let lone = board.lone_digits(u);
        if lone == 0 {
            continue;
        }
        let d = lone.trailing_zeros() as u8 + 1;
        let empty = board.empty_count(u);
        if empty == 1 {
            return Some(single_step(board, u, d, true));
        }
        first_hidden.get_or_insert((u, d));
    }
    first_hidden.map(|(u, d)| single_step(board, u, d, false))
}

/// Places the singles of `board`, and those they lead to, until none is
/// left: the hidden singles (with `lines`, those of rows and columns too,
/// else only their full houses), and with `naked` the naked singles. Each
/// placement is a single of the board as it is then.
///
/// The first scan goes over every unit, the next ones only over the units
/// that changed in the scan before: a unit scanned without a single and
/// unchanged since still has none.
pub fn place_singles(board: &mut Board, lines: bool, naked: bool) {
    let mut units = (1 << 27) - 1;
    loop {
        let before = board.candidate_cells();
        let hidden = place_hidden_singles(board, lines, units);
        let naked = naked && place_naked_singles(board);
        if !hidden && !naked {
            return;
        }
        units = board.units_changed_since(&before);
    }
}

/// Places the hidden singles of `board` in the `units` (bit `u`), one
/// scan: each digit with one place left in a box, or (with `lines`) in a
/// row or column, and each unit's last empty cell. Each placement is a
/// single of the board as it is then (the places are read after the
/// placements before it). True if it placed some.
fn place_hidden_singles(board: &mut Board, lines: bool, units: u32) -> bool {
    let mut placed = false;
    // (Only the units asked for: their bits, in order.)
    let mut rest = units & ((1 << 27) - 1);
    while rest != 0 {
        let u = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        // Rows and columns: only a full house without `lines`.
        if u < 18 && !lines && board.empty_count(u) != 1 {
            continue;
        }
        // Placing one may take another's place away (two singles in one
        // cell), or leave a new one (found by the next scan).
        for d in digits(board.lone_digits(u)) {
            let places = board.positions(u, d);
            if places.count_ones() == 1 {
                let cell = UNIT_CELLS[u][places.trailing_zeros() as usize];
                board.place(cell, d);
                placed = true;
            }
        }
    }
    placed
}

/// Places the naked singles of `board`: each cell with one candidate
/// left, the cells found at once (placing one leaves another's one
/// candidate in place, on a board holding its solution). True if it
/// placed some.
fn place_naked_singles(board: &mut Board) -> bool {
    let lone = board.cells_with_count(1);
    for cell in cells_of(lone) {
        let m = board.cands(cell);
        if m != 0 {
            board.place(cell, m.trailing_zeros() as u8 + 1);
        }
    }
    lone != 0
}

/// The single of digit `d` in unit `u`, `alone` when the unit's last empty
/// cell.
fn single_step(board: &Board, u: usize, d: u8, alone: bool) -> Step {
    let cell = UNIT_CELLS[u][board.positions(u, d).trailing_zeros() as usize];
    let (technique, rating) = match (alone, u >= 18) {
        (true, _) => (Technique::FullHouse, 10),
        (false, true) => (Technique::HiddenSingle, 12),
        (false, false) => (Technique::HiddenSingle, 15),
    };
    Step::placing(
        technique,
        rating,
        (cell, d),
        Vec::new(),
        UNIT_CELLS[u].to_vec(),
    )
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

    /// SE's two scans as first written: every unit for a full house,
    /// then every unit for another single.
    fn hidden_single_two_scans(board: &Board, units: u32) -> Option<Step> {
        for alone in [true, false] {
            for &u in SCAN_ORDER.iter().filter(|&&u| units & (1 << u) != 0) {
                for d in 1..=9 {
                    if board.positions(u, d).count_ones() != 1 {
                        continue;
                    }
                    let empty = board.empty_count(u);
                    if (empty == 1) != alone {
                        break;
                    }
                    return Some(single_step(board, u, d, alone));
                }
            }
        }
        None
    }

    /// One scan finds what two find, along the solving paths of sample
    /// puzzles (placing the single each time, so units fill up and full
    /// houses come late in the scan), all units or a random few.
    #[test]
    fn one_scan_finds_what_two_scans_find() {
        use rand::{Rng, SeedableRng};
        let sample = include_str!("../../../datasets/sample.txt");
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12);
        let mut full_houses_after_singles = 0;
        for line in sample.lines().take(300) {
            let mut board = Board::new(&Grid::parse_line(line.as_bytes()).unwrap());
            for _ in 0..81 {
                let units = if rng.gen_ratio(1, 2) {
                    u32::MAX
                } else {
                    rng.gen()
                };
                let one = hidden_single(&board, units);
                assert_eq!(one, hidden_single_two_scans(&board, units), "{line}");
                let Some(step) = hidden_single(&board, u32::MAX) else {
                    break;
                };
                let earlier_single = SCAN_ORDER
                    .iter()
                    .take_while(|&&u| !step.pattern.iter().eq(UNIT_CELLS[u].iter()));
                if step.technique == Technique::FullHouse
                    && earlier_single
                        .into_iter()
                        .any(|&u| (1..=9).any(|d| board.positions(u, d).count_ones() == 1))
                {
                    full_houses_after_singles += 1;
                }
                step.apply(&mut board);
            }
        }
        assert!(
            full_houses_after_singles > 100,
            "{full_houses_after_singles}"
        );
    }

    /// Placing the singles scan by scan ends where taking them one step
    /// at a time, the easiest first (as the path does), ends: for the
    /// boxes' singles and full houses (the steps rated 1.2 at most), every
    /// hidden single, and the naked singles too.
    #[test]
    fn singles_placed_at_once_end_where_single_steps_end() {
        use crate::tasks::grade::test_boards;
        let mut grew = [0; 3];
        for (line, givens, _) in test_boards::sample(300) {
            for (level, most) in [(0, 12), (1, 15), (2, 23)] {
                let mut stepped = givens.clone();
                loop {
                    let step = hidden_single(&stepped, u32::MAX)
                        .or_else(|| naked_single(&stepped, (1 << 81) - 1))
                        .filter(|step| step.rating <= most);
                    let Some(step) = step else { break };
                    step.apply(&mut stepped);
                }
                let mut placed = givens.clone();
                place_singles(&mut placed, level > 0, level == 2);
                assert!(placed == stepped, "{line}, level {level}");
                if placed != givens {
                    grew[level] += 1;
                }
            }
        }
        // Most sample puzzles start with singles of each kind.
        assert!(grew.iter().all(|&n| n > 200), "{grew:?}");
    }

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
