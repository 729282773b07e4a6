//! The solvers differentially on arbitrary grids, limit 2: the fast solver
//! (the version this CPU runs and the portable one) and the mrv reference
//! count the same solutions, give the same guesses across fast versions,
//! and every solution they give solves the puzzle.
#![no_main]

use batchdoku::solver::{FastSolver, Isa, MrvSolver, Solver};
use batchdoku::Grid;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 81 {
        return;
    }
    // A byte with its high bit set is the clue `b % 9 + 1`, any other a
    // blank (the seeds encode real puzzles this way).
    let mut cells = [0u8; 81];
    for (c, &b) in cells.iter_mut().zip(data) {
        if b >= 0x80 {
            *c = b % 9 + 1;
        }
    }
    let grid = Grid::from_cells(cells).expect("digits 0-9");
    // Few givens can make the reference search long: leave those to the
    // fast versions only.
    let clues = cells.iter().filter(|&&c| c != 0).count();
    let mut fast = FastSolver::new();
    let mut portable = FastSolver::with_isa(Isa::Portable).expect("portable runs everywhere");
    let a = fast.solve(&grid, 2);
    let b = portable.solve(&grid, 2);
    assert_eq!(a, b, "fast versions disagree");
    if let Some(s) = a.solution {
        assert!(s.solves(&grid));
    }
    if clues >= 20 {
        let c = MrvSolver::new().solve(&grid, 2);
        assert_eq!(a.solutions, c.solutions, "fast and mrv disagree on {grid}");
        if let Some(s) = c.solution {
            assert!(s.solves(&grid));
        }
    }
});
