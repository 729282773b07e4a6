//! Measuring solver variants on a set of puzzles, the way published Sudoku
//! solver benchmarks do: a checking pass that verifies every answer and
//! counts guesses, then timed passes over the whole set until a minimum time
//! has gone by.

use crate::puzzle::grid::Grid;
use crate::puzzle::Puzzle;
use crate::solver::SolverKind;
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// What the checking pass found for one solver on one set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckPass {
    /// Solution count (up to the limit) of each puzzle checked, in order.
    pub counts: Vec<u32>,
    /// Guesses summed over the puzzles checked.
    pub guesses: u64,
    /// Puzzles with a solution found without guessing.
    pub no_guess: u64,
    /// True when the time cap stopped the pass before the end of the set.
    pub capped: bool,
}

/// A wrong answer found by the checking pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{solver} gave a wrong answer to puzzle {index}: {answer}")]
pub struct WrongAnswer {
    pub solver: SolverKind,
    /// 0-based position of the puzzle in the set.
    pub index: usize,
    pub answer: Grid,
}

/// Solves every puzzle once with `kind`, checking each answer, until the set
/// ends or `cap` has gone by.
pub fn check_pass(
    kind: SolverKind,
    puzzles: &[Puzzle],
    limit: u32,
    cap: Option<Duration>,
) -> Result<CheckPass, WrongAnswer> {
    let mut solver = kind.build();
    // The backtracker can spend minutes on one puzzle: it watches the clock
    // inside a puzzle as well.
    let mut backtrack = crate::solver::BacktrackSolver::new();
    let start = Instant::now();
    if kind == SolverKind::Backtrack {
        backtrack.set_deadline(cap.map(|c| start + c));
    }
    let mut pass = CheckPass {
        counts: Vec::with_capacity(puzzles.len()),
        guesses: 0,
        no_guess: 0,
        capped: false,
    };
    for (index, p) in puzzles.iter().enumerate() {
        if cap.is_some_and(|c| start.elapsed() > c) {
            pass.capped = true;
            break;
        }
        let out = if kind == SolverKind::Backtrack {
            let out = p.solve(&mut backtrack, limit);
            if backtrack.timed_out() {
                pass.capped = true;
                break;
            }
            out
        } else {
            p.solve(solver.as_mut(), limit)
        };
        if let Some(answer) = out.solution {
            if !p.solved_by(&answer) {
                return Err(WrongAnswer {
                    solver: kind,
                    index,
                    answer,
                });
            }
        }
        pass.counts.push(out.solutions);
        pass.guesses += out.guesses;
        if out.solutions > 0 && out.guesses == 0 {
            pass.no_guess += 1;
        }
    }
    Ok(pass)
}

/// Timed passes over `puzzles` with `threads` workers until `min_time` has
/// gone by (whole passes only). Returns puzzles solved and seconds taken.
pub fn timed_passes(
    kind: SolverKind,
    puzzles: &[Puzzle],
    limit: u32,
    pool: &rayon::ThreadPool,
    min_time: Duration,
) -> (u64, f64) {
    if puzzles.is_empty() {
        return (0, 0.0);
    }
    let threads = pool.current_num_threads();
    let mut solver = kind.build();
    let start = Instant::now();
    let mut solved = 0u64;
    loop {
        let found: u64 = if threads == 1 {
            puzzles
                .iter()
                .map(|p| u64::from(std::hint::black_box(p.solve(solver.as_mut(), limit)).solutions))
                .sum()
        } else {
            pool.install(|| {
                puzzles
                    .par_iter()
                    .with_min_len(64)
                    .map_init(
                        || kind.build(),
                        |s, p| u64::from(p.solve(s.as_mut(), limit).solutions),
                    )
                    .sum()
            })
        };
        std::hint::black_box(found);
        solved += puzzles.len() as u64;
        if start.elapsed() >= min_time {
            break;
        }
    }
    (solved, start.elapsed().as_secs_f64())
}

/// Where two solvers disagree on a puzzle's solution count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("solvers disagree on puzzle {index}: {a} counts {count_a}, {b} counts {count_b}")]
pub struct Disagreement {
    /// 0-based position of the puzzle in the set.
    pub index: usize,
    pub a: SolverKind,
    pub count_a: u32,
    pub b: SolverKind,
    pub count_b: u32,
}

/// Compares two checking passes over their common prefix.
pub fn compare(
    a: SolverKind,
    pa: &CheckPass,
    b: SolverKind,
    pb: &CheckPass,
) -> Result<(), Disagreement> {
    for (index, (&ca, &cb)) in pa.counts.iter().zip(&pb.counts).enumerate() {
        if ca != cb {
            return Err(Disagreement {
                index,
                a,
                count_a: ca,
                b,
                count_b: cb,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn puzzles() -> Vec<Puzzle> {
        (0..20)
            .map(|i| crate::tasks::generate::generate(3, i, Default::default()).puzzle)
            .map(Puzzle::from)
            .collect()
    }

    #[test]
    fn checking_passes_agree_and_count_guesses() {
        let ps = puzzles();
        let fast = check_pass(SolverKind::Fast, &ps, 2, None).unwrap();
        let mrv = check_pass(SolverKind::Mrv, &ps, 2, None).unwrap();
        assert_eq!(fast.counts, vec![1; 20]);
        assert!(!fast.capped);
        assert_eq!(
            compare(SolverKind::Fast, &fast, SolverKind::Mrv, &mrv),
            Ok(())
        );
        assert!(fast.no_guess <= 20);
    }

    #[test]
    fn a_disagreement_names_the_puzzle() {
        let ps = puzzles();
        let fast = check_pass(SolverKind::Fast, &ps, 2, None).unwrap();
        let mut other = fast.clone();
        other.counts[7] = 2;
        let e = compare(SolverKind::Fast, &fast, SolverKind::Mrv, &other).unwrap_err();
        assert_eq!(e.index, 7);
        assert_eq!(
            e.to_string(),
            "solvers disagree on puzzle 7: fast counts 1, mrv counts 2"
        );
    }

    #[test]
    fn a_cap_stops_the_checking_pass() {
        let ps = puzzles();
        let pass = check_pass(SolverKind::Backtrack, &ps, 2, Some(Duration::ZERO)).unwrap();
        assert!(pass.capped);
        assert!(pass.counts.len() < ps.len());
    }

    #[test]
    fn timed_passes_run_whole_passes_for_at_least_the_minimum() {
        let ps = puzzles();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let (solved, secs) =
            timed_passes(SolverKind::Fast, &ps, 2, &pool, Duration::from_millis(20));
        assert_eq!(solved % 20, 0);
        assert!(solved >= 20);
        assert!(secs >= 0.02);
    }
}
