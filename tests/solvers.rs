//! Property and differential tests across the solver variants.

use batchdoku::puzzle::grid::CELLS;
use batchdoku::solver::{FastSolver, Isa, Solver};
use batchdoku::tasks::generate::{generate, puzzle_rng, random_solution, GenerateOptions};
use batchdoku::{Grid, SolverKind};
use proptest::prelude::*;

/// A random complete grid drawn from `seed`.
fn full_grid(seed: u64) -> Grid {
    random_solution(&mut puzzle_rng(seed, 0), &mut FastSolver::new())
}

/// `solution` with the cells whose bit is set in `blanks` emptied.
fn blank(solution: &Grid, blanks: u128) -> Grid {
    let mut cells = *solution.cells();
    for (i, c) in cells.iter_mut().enumerate() {
        if blanks >> i & 1 == 1 {
            *c = 0;
        }
    }
    Grid::from_cells(cells).unwrap()
}

/// A fixed seed: CI runs the same cases every time (a random seed could
/// hand the backtracker a rare puzzle that takes it seconds).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261122),
        ..ProptestConfig::default()
    }
}

/// `blanks` thickened `density` times (0-3), so clue counts range from
/// about 40 (density 0) to a handful (density 3).
fn thicken(blanks: u128, density: u32) -> u128 {
    let mut mask = blanks;
    for k in 0..density {
        mask |= blanks.rotate_left(17 * (k + 1));
    }
    mask & ((1u128 << CELLS) - 1)
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn fast_and_mrv_answers_keep_givens_and_obey_rules(
        seed in any::<u64>(),
        blanks in any::<u128>(),
        density in 0u32..4,
    ) {
        let puzzle = blank(&full_grid(seed), thicken(blanks, density));
        for kind in [SolverKind::Fast, SolverKind::Mrv] {
            let out = kind.build().solve(&puzzle, 1);
            prop_assert_eq!(out.solutions, 1, "{} found none for {}", kind, puzzle);
            let answer = out.solution.unwrap();
            prop_assert!(answer.is_valid_solution(), "{} broke a rule: {}", kind, answer);
            prop_assert!(answer.keeps_givens_of(&puzzle), "{} changed a given", kind);
        }
    }

    #[test]
    fn backtrack_answers_keep_givens_and_obey_rules(
        seed in any::<u64>(),
        blanks in any::<u128>(),
    ) {
        // About 40 clues: enough for the reference to stay quick.
        let puzzle = blank(&full_grid(seed), thicken(blanks, 0));
        let out = SolverKind::Backtrack.build().solve(&puzzle, 1);
        prop_assert_eq!(out.solutions, 1, "backtrack found none for {}", puzzle);
        prop_assert!(out.solution.unwrap().solves(&puzzle));
    }

    #[test]
    fn fast_and_mrv_agree_on_counts_of_random_blankings(
        seed in any::<u64>(),
        blanks in any::<u128>(),
    ) {
        let puzzle = blank(&full_grid(seed), blanks);
        let fast = SolverKind::Fast.build().solve(&puzzle, 3);
        let mrv = SolverKind::Mrv.build().solve(&puzzle, 3);
        prop_assert_eq!(fast.solutions, mrv.solutions, "on {}", puzzle);
    }

    #[test]
    fn fast_versions_agree_on_random_blankings(
        seed in any::<u64>(),
        blanks in any::<u128>(),
        density in 0u32..4,
        limit in 1u32..4,
    ) {
        // The detected version (AVX2 where the CPU has it) against the
        // portable one: same count, same first answer, same guesses.
        let puzzle = blank(&full_grid(seed), thicken(blanks, density));
        let detected = FastSolver::new().solve(&puzzle, limit);
        let portable = FastSolver::with_isa(Isa::Portable).unwrap().solve(&puzzle, limit);
        prop_assert_eq!(detected, portable, "on {}", puzzle);
    }

    #[test]
    fn line_form_round_trips(seed in any::<u64>(), blanks in any::<u128>()) {
        let puzzle = blank(&full_grid(seed), blanks);
        prop_assert_eq!(Grid::parse_line(puzzle.to_line().as_bytes()), Ok(puzzle));
    }
}

/// The puzzles each kind of differential case is built from.
fn cases() -> Vec<(&'static str, Grid, u32)> {
    let mut cases = Vec::new();
    for index in 0..12u64 {
        let g = generate(
            99,
            index,
            GenerateOptions {
                minimal: true,
                ..GenerateOptions::default()
            },
        );
        let (puzzle, solution) = (g.puzzle, g.solution);
        cases.push(("unique", puzzle, 1));

        // A minimal puzzle less any clue has several solutions.
        let clue = (0..CELLS).find(|&i| puzzle.cells()[i] != 0).unwrap();
        let mut fewer = *puzzle.cells();
        fewer[clue] = 0;
        cases.push(("multiple", Grid::from_cells(fewer).unwrap(), 2));

        // An extra given that breaks no rule but differs from the one
        // solution makes the puzzle unsolvable.
        let mut wrong = None;
        'find: for i in 0..CELLS {
            if puzzle.cells()[i] != 0 {
                continue;
            }
            for v in 1..=9 {
                if v == solution.cells()[i] {
                    continue;
                }
                let mut cells = *puzzle.cells();
                cells[i] = v;
                let g = Grid::from_cells(cells).unwrap();
                if g.validate().is_ok() {
                    wrong = Some(g);
                    break 'find;
                }
            }
        }
        cases.push((
            "unsolvable",
            wrong.expect("some wrong digit breaks no rule"),
            0,
        ));

        // An extra given equal to a peer's breaks a rule.
        let open = (0..CELLS).find(|&i| puzzle.cells()[i] == 0).unwrap();
        let peer = (0..CELLS)
            .find(|&j| puzzle.cells()[j] != 0 && (j / 9 == open / 9 || j % 9 == open % 9))
            .unwrap();
        let mut invalid = *puzzle.cells();
        invalid[open] = puzzle.cells()[peer];
        cases.push(("invalid", Grid::from_cells(invalid).unwrap(), 0));
    }
    cases.push(("empty", Grid::EMPTY, 2));
    cases
}

#[test]
fn the_three_variants_agree_on_solution_counts() {
    let mut solvers: Vec<_> = SolverKind::ALL.iter().map(|k| (k, k.build())).collect();
    for (what, puzzle, expected) in cases() {
        for (kind, solver) in solvers.iter_mut() {
            let out = solver.solve(&puzzle, 2);
            assert_eq!(
                out.solutions, expected,
                "{kind} on the {what} puzzle {puzzle}"
            );
            if expected > 0 {
                assert!(out.solution.unwrap().solves(&puzzle), "{kind} on {puzzle}");
            } else {
                assert_eq!(out.solution, None);
            }
        }
    }
}
