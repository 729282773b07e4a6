//! Generating uniquely solvable puzzles.
//!
//! A puzzle is made in two steps: a random complete grid, then clues taken
//! away in random order as long as the puzzle keeps exactly one solution
//! (checked by the fast solver with limit 2). Each puzzle draws from its own
//! random stream, derived from the seed and the puzzle's index, so a run is
//! reproducible whatever the number of threads.

use crate::grid::{Grid, CELLS};
use crate::solver::{FastSolver, Solver};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A generated puzzle and its one solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    pub puzzle: Grid,
    pub solution: Grid,
}

/// Options for [`generate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GenerateOptions {
    /// Stop removing clues once this many remain (0: remove while unique,
    /// which gives a minimal puzzle).
    pub min_clues: usize,
}

/// The random stream of puzzle `index` of a run seeded with `seed`.
pub fn puzzle_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// A random complete grid: the three boxes of the main diagonal share no
/// unit, so each takes an independent random permutation of 1-9; the fast
/// solver then completes the grid (such a start always has a completion).
pub fn random_solution(rng: &mut ChaCha8Rng, solver: &mut FastSolver) -> Grid {
    loop {
        let mut start = Grid::EMPTY;
        for bx in 0..3 {
            let mut digits: [u8; 9] = [1, 2, 3, 4, 5, 6, 7, 8, 9];
            digits.shuffle(rng);
            for (k, &v) in digits.iter().enumerate() {
                start.set(3 * bx + k / 3, 3 * bx + k % 3, v);
            }
        }
        if let Some(solution) = solver.solve(&start, 1).solution {
            return solution;
        }
    }
}

/// Puzzle number `index` of the run seeded with `seed`.
pub fn generate(seed: u64, index: u64, options: GenerateOptions) -> Generated {
    let mut rng = puzzle_rng(seed, index);
    let mut solver = FastSolver::new();
    let solution = random_solution(&mut rng, &mut solver);
    let mut order: [u8; CELLS] = std::array::from_fn(|i| i as u8);
    order.shuffle(&mut rng);
    let mut cells = *solution.cells();
    let mut clues = CELLS;
    for &i in &order {
        if clues <= options.min_clues {
            break;
        }
        let i = i as usize;
        let kept = cells[i];
        cells[i] = 0;
        let trial = Grid::from_cells(cells).expect("cells are digits");
        if solver.solve(&trial, 2).solutions == 1 {
            clues -= 1;
        } else {
            cells[i] = kept;
        }
    }
    Generated {
        puzzle: Grid::from_cells(cells).expect("cells are digits"),
        solution,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_index_give_the_same_puzzle() {
        let a = generate(7, 3, GenerateOptions::default());
        let b = generate(7, 3, GenerateOptions::default());
        let c = generate(7, 4, GenerateOptions::default());
        assert_eq!(a, b);
        assert_ne!(a.puzzle, c.puzzle);
    }

    #[test]
    fn puzzles_are_unique_and_minimal() {
        let mut solver = FastSolver::new();
        for index in 0..5 {
            let g = generate(11, index, GenerateOptions::default());
            assert!(g.solution.solves(&g.puzzle));
            let out = solver.solve(&g.puzzle, 2);
            assert_eq!(out.solutions, 1);
            assert_eq!(out.solution, Some(g.solution));
            for i in 0..CELLS {
                let mut cells = *g.puzzle.cells();
                if cells[i] == 0 {
                    continue;
                }
                cells[i] = 0;
                let fewer = Grid::from_cells(cells).unwrap();
                assert_eq!(solver.solve(&fewer, 2).solutions, 2, "clue {i} removable");
            }
        }
    }

    #[test]
    fn min_clues_stops_removal() {
        let g = generate(5, 0, GenerateOptions { min_clues: 40 });
        assert_eq!(g.puzzle.clue_count(), 40);
        assert_eq!(FastSolver::new().solve(&g.puzzle, 2).solutions, 1);
    }
}
