//! Pencilmark puzzles in the solvers: the candidates of a puzzle of givens
//! solve like the puzzle, eliminations that keep a known solution still
//! find it, the portable and AVX2 searches agree, and the fast solver agrees
//! with `mrv` started from the same candidates.

mod common;

use batchdoku::generate::puzzle_rng;
use batchdoku::pencil::Candidates;
use batchdoku::solver::{FastSolver, Isa, MrvSolver, Solver};
use batchdoku::Grid;
use common::{load_puzzles, sample_path, shared_datasets};
use rand::Rng;
use rayon::prelude::*;

/// `marks` with each candidate other than `keep`'s digit dropped with
/// probability `p` (a cell keeps at least `keep`'s digit when given).
fn eliminate(marks: &Candidates, keep: Option<&Grid>, p: f64, seed: u64) -> Candidates {
    let mut rng = puzzle_rng(seed, 17);
    let mut masks = *marks.masks();
    for (i, m) in masks.iter_mut().enumerate() {
        for d in 0..9u16 {
            let kept = keep.is_some_and(|s| s.cells()[i] as u16 == d + 1);
            if !kept && rng.gen_bool(p) {
                *m &= !(1 << d);
            }
        }
    }
    Candidates::from_masks(masks)
}

#[test]
fn the_candidates_of_a_puzzle_solve_like_the_puzzle() {
    let puzzles = load_puzzles(&sample_path());
    puzzles.par_iter().for_each_init(
        || (FastSolver::new(), MrvSolver::new()),
        |(fast, mrv), p| {
            let marks = Candidates::from_grid(p);
            let want = fast.solve(p, 2);
            let got = fast.solve_candidates(&marks, 2);
            assert_eq!(
                (got.solutions, got.solution),
                (want.solutions, want.solution),
                "{}",
                p.to_line()
            );
            let by_mrv = mrv.solve_candidates(&marks, 2);
            assert_eq!(
                (by_mrv.solutions, by_mrv.solution),
                (want.solutions, want.solution)
            );
        },
    );
}

#[test]
fn eliminations_that_keep_the_solution_still_find_it() {
    let puzzles = load_puzzles(&sample_path());
    puzzles
        .par_iter()
        .enumerate()
        .for_each_init(FastSolver::new, |fast, (i, p)| {
            let solution = fast.solve(p, 1).solution.unwrap();
            let marks = eliminate(&Candidates::from_grid(p), Some(&solution), 0.3, i as u64);
            assert!(marks.allows(&solution));
            let got = fast.solve_candidates(&marks, 2);
            // Fewer candidates than a unique puzzle's: still exactly one.
            assert_eq!(got.solutions, 1, "{}", marks.to_line());
            assert_eq!(got.solution, Some(solution));
        });
}

#[test]
fn portable_avx2_and_mrv_agree_on_random_candidates() {
    let avx2 = FastSolver::with_isa(Isa::Avx2);
    if avx2.is_none() {
        eprintln!("note: no AVX2 here; portable against mrv only");
    }
    let puzzles = load_puzzles(&sample_path());
    (0..3000u64).into_par_iter().for_each_init(
        || {
            (
                FastSolver::with_isa(Isa::Portable).unwrap(),
                FastSolver::with_isa(Isa::Avx2),
                MrvSolver::new(),
            )
        },
        |(portable, avx2, mrv), seed| {
            // Sparse, dense, solvable or not, one solution or many.
            let p = &puzzles[seed as usize % puzzles.len()];
            let base = if seed % 3 == 0 {
                Candidates::OPEN
            } else {
                Candidates::from_grid(p)
            };
            let marks = eliminate(&base, None, [0.02, 0.1, 0.3, 0.6][seed as usize % 4], seed);
            let a = portable.solve_candidates(&marks, 2);
            if let Some(avx2) = avx2 {
                assert_eq!(avx2.solve_candidates(&marks, 2), a, "{}", marks.to_line());
            }
            let m = mrv.solve_candidates(&marks, 2);
            assert_eq!(m.solutions, a.solutions, "{}", marks.to_line());
            if let Some(s) = a.solution {
                assert!(s.is_valid_solution() && marks.allows(&s));
            }
            if a.solutions == 1 {
                assert_eq!(m.solution, a.solution);
            }
        },
    );
}

#[test]
fn invalid_and_unsolvable_pencilmarks() {
    let mut fast = FastSolver::new();
    // A cell with no candidate: no solution, and no rule broken.
    let mut masks = *Candidates::OPEN.masks();
    masks[40] = 0;
    let empty_cell = Candidates::from_masks(masks);
    assert!(empty_cell.validate().is_ok());
    assert_eq!(fast.solve_candidates(&empty_cell, 2).solutions, 0);
    assert_eq!(
        MrvSolver::new().solve_candidates(&empty_cell, 2).solutions,
        0
    );
    // Two cells of row 1 pinned to 7: invalid, and no solution.
    let mut masks = *Candidates::OPEN.masks();
    masks[0] = 1 << 6;
    masks[8] = 1 << 6;
    let clash = Candidates::from_masks(masks);
    assert!(clash.validate().is_err());
    assert_eq!(fast.solve_candidates(&clash, 2).solutions, 0);
}

/// The shared pencilmark set: every puzzle has exactly one solution, which
/// keeps to its candidates; mrv agrees on a slice.
#[test]
fn the_shared_pencilmark_set_solves() {
    let Some(dir) = shared_datasets() else { return };
    let text = std::fs::read_to_string(dir.join("pencil_10k.txt")).unwrap();
    let marks: Vec<Candidates> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| Candidates::parse_line(l.as_bytes()).unwrap())
        .collect();
    assert_eq!(marks.len(), 10_000);
    marks.par_iter().enumerate().for_each_init(
        || (FastSolver::new(), MrvSolver::new()),
        |(fast, mrv), (i, m)| {
            let r = fast.solve_candidates(m, 2);
            assert_eq!(r.solutions, 1, "line {}", i + 1);
            let s = r.solution.unwrap();
            assert!(s.is_valid_solution() && m.allows(&s));
            if i % 20 == 0 {
                assert_eq!(mrv.solve_candidates(m, 2).solution, Some(s));
            }
        },
    );
}

/// The reference backtracker, started from the same candidates, counts and
/// finds what the fast solver does (on sets it gets through quickly: the
/// eliminations keep a known solution and drop 30% of the rest).
#[test]
fn the_backtracker_agrees_from_candidates() {
    use batchdoku::solver::BacktrackSolver;
    let puzzles = load_puzzles(&sample_path());
    (0..200usize).into_par_iter().for_each_init(
        || (FastSolver::new(), BacktrackSolver::new()),
        |(fast, backtrack), i| {
            let p = &puzzles[i];
            let solution = fast.solve(p, 1).solution.unwrap();
            let keep = (i % 2 == 0).then_some(&solution);
            let marks = eliminate(&Candidates::from_grid(p), keep, 0.3, 1000 + i as u64);
            let want = fast.solve_candidates(&marks, 2);
            let got = backtrack.solve_candidates(&marks, 2);
            assert_eq!(
                (got.solutions, got.solution),
                (want.solutions, want.solution),
                "{}",
                marks.to_line()
            );
        },
    );
}
