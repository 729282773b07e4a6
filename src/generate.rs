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

/// Which cells are removed together, so the clues keep a symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Symmetry {
    /// Cells one at a time.
    #[default]
    None,
    /// 180-degree rotation: (r, c) with (8 - r, 8 - c).
    Rotational,
    /// Left-right mirror: (r, c) with (r, 8 - c).
    Mirror,
    /// The main diagonal: (r, c) with (c, r).
    Diagonal,
}

impl Symmetry {
    /// The other cell of `cell`'s pair (itself when it lies on the axis).
    pub fn partner(self, cell: usize) -> usize {
        let (r, c) = (cell / 9, cell % 9);
        match self {
            Symmetry::None => cell,
            Symmetry::Rotational => CELLS - 1 - cell,
            Symmetry::Mirror => r * 9 + (8 - c),
            Symmetry::Diagonal => c * 9 + r,
        }
    }
}

impl Symmetry {
    /// The name `--symmetry` takes.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Rotational => "rotational",
            Symmetry::Mirror => "mirror",
            Symmetry::Diagonal => "diagonal",
        }
    }
}

impl std::fmt::Display for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Symmetry {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(Symmetry::None),
            "rotational" => Ok(Symmetry::Rotational),
            "mirror" => Ok(Symmetry::Mirror),
            "diagonal" => Ok(Symmetry::Diagonal),
            _ => Err(format!(
                "unknown symmetry {s:?} (expected none, rotational, mirror or diagonal)"
            )),
        }
    }
}

/// Options for [`generate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GenerateOptions {
    /// Try every clue (or symmetric pair, then every single clue left): the
    /// result has no removable clue. Without it, removal stops at the first
    /// clue that is needed, which leaves easier puzzles with more clues.
    pub minimal: bool,
    /// Never go below this many clues.
    pub min_clues: usize,
    pub symmetry: Symmetry,
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
    // One entry per pair of symmetric cells (its lower cell).
    let mut order: Vec<u8> = (0..CELLS)
        .filter(|&i| options.symmetry.partner(i) >= i)
        .map(|i| i as u8)
        .collect();
    order.shuffle(&mut rng);
    let mut cells = *solution.cells();
    let mut clues = CELLS;
    for &i in &order {
        let i = i as usize;
        let j = options.symmetry.partner(i);
        let size = if i == j { 1 } else { 2 };
        if clues < options.min_clues + size {
            if clues <= options.min_clues {
                break;
            }
            continue;
        }
        let (vi, vj) = (cells[i], cells[j]);
        cells[i] = 0;
        cells[j] = 0;
        let trial = Grid::from_cells(cells).expect("cells are digits");
        // A second solution must differ from `solution` in a removed cell.
        let needed = solver.solvable_without(&trial, i, vi)
            || (i != j && solver.solvable_without(&trial, j, vj));
        if needed {
            cells[i] = vi;
            cells[j] = vj;
            if !options.minimal {
                break;
            }
        } else {
            clues -= size;
        }
    }
    if options.minimal && options.symmetry != Symmetry::None {
        // No pair can go now, but a single clue of a pair still may: try
        // each once, so that no clue at all can go (the symmetry is kept
        // wherever that allows).
        let mut singles: Vec<u8> = (0..CELLS as u8)
            .filter(|&i| cells[i as usize] != 0)
            .collect();
        singles.shuffle(&mut rng);
        for &i in &singles {
            if clues <= options.min_clues {
                break;
            }
            let i = i as usize;
            let v = cells[i];
            cells[i] = 0;
            let trial = Grid::from_cells(cells).expect("cells are digits");
            if solver.solvable_without(&trial, i, v) {
                cells[i] = v;
            } else {
                clues -= 1;
            }
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

    fn minimal() -> GenerateOptions {
        GenerateOptions {
            minimal: true,
            ..GenerateOptions::default()
        }
    }

    #[test]
    fn puzzles_are_unique_and_minimal() {
        let mut solver = FastSolver::new();
        for index in 0..5 {
            let g = generate(11, index, minimal());
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
        let g = generate(
            5,
            0,
            GenerateOptions {
                min_clues: 40,
                ..minimal()
            },
        );
        assert_eq!(g.puzzle.clue_count(), 40);
        assert_eq!(FastSolver::new().solve(&g.puzzle, 2).solutions, 1);
    }

    #[test]
    fn without_minimal_removal_stops_at_the_first_needed_clue() {
        let mut solver = FastSolver::new();
        let mut fewer = 0;
        for index in 0..10 {
            let plain = generate(8, index, GenerateOptions::default());
            let min = generate(8, index, minimal());
            assert_eq!(plain.solution, min.solution);
            assert_eq!(solver.solve(&plain.puzzle, 2).solutions, 1);
            assert!(plain.puzzle.clue_count() >= min.puzzle.clue_count());
            fewer += usize::from(plain.puzzle.clue_count() > min.puzzle.clue_count());
        }
        assert!(
            fewer > 0,
            "stopping early should leave more clues somewhere"
        );
    }

    #[test]
    fn symmetric_puzzles_keep_their_symmetry() {
        let mut solver = FastSolver::new();
        for symmetry in [Symmetry::Rotational, Symmetry::Mirror, Symmetry::Diagonal] {
            for index in 0..3 {
                let g = generate(
                    21,
                    index,
                    GenerateOptions {
                        symmetry,
                        ..GenerateOptions::default()
                    },
                );
                assert_eq!(solver.solve(&g.puzzle, 2).solutions, 1);
                for i in 0..CELLS {
                    let j = symmetry.partner(i);
                    assert_eq!(
                        g.puzzle.cells()[i] == 0,
                        g.puzzle.cells()[j] == 0,
                        "{symmetry:?}: cells {i} and {j} in {}",
                        g.puzzle
                    );
                }
            }
        }
    }
}
