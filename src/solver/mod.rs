//! Solver variants behind one trait.
//!
//! Every variant counts solutions up to a limit (1 finds an answer, 2 proves
//! uniqueness), reports the first solution it found and how many guesses it
//! made. A *guess* is one tentative placement at a branch point: a cell tried
//! with a digit that propagation did not force.
//!
//! - [`BacktrackSolver`]: the classic reference, no propagation.
//! - [`MrvSolver`]: candidate masks, naked singles, fewest-candidates branching.
//! - [`FastSolver`]: digit bitboards with band-level inference; the flagship.
//!
//! Solvers keep their working state in fixed-size arrays and are reused from
//! puzzle to puzzle: solving allocates nothing.

mod backtrack;
mod fast;
mod mrv;

pub use backtrack::BacktrackSolver;
pub use fast::{FastSolver, Isa};
pub use mrv::MrvSolver;

use crate::puzzle::grid::Grid;
use crate::puzzle::pencil::Candidates;
use crate::puzzle::Puzzle;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a solver found for one puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// Solutions found, at most the limit asked for.
    pub solutions: u32,
    /// The first solution found, if any.
    pub solution: Option<Grid>,
    /// Tentative placements made at branch points.
    pub guesses: u64,
}

/// A Sudoku solver that counts solutions up to a limit.
pub trait Solver: Send {
    /// Solves `puzzle`, stopping as soon as `limit` solutions are found
    /// (`limit` 0 is taken as 1). A puzzle whose givens break the rules has no
    /// solution.
    fn solve(&mut self, puzzle: &Grid, limit: u32) -> Outcome;

    /// Like [`solve`](Solver::solve) for a pencilmark puzzle: the search
    /// starts from each cell's candidates instead of from givens.
    fn solve_candidates(&mut self, marks: &Candidates, limit: u32) -> Outcome;

    /// The variant's name as the command line spells it.
    fn name(&self) -> &'static str;

    /// Makes later solves give up soon after `stop` is set (it is looked at
    /// every [`STOP_CHECK_EVERY`] guesses): one puzzle can search for hours
    /// (an empty grid counted to a billion solutions), and Ctrl-C must not
    /// wait for it. `None` removes the flag.
    fn set_stop(&mut self, stop: Option<&'static AtomicBool>);

    /// True when the last solve gave up because the stop flag was set: its
    /// outcome is incomplete and must not be reported.
    fn stopped(&self) -> bool;
}

/// Guesses between two looks at a solver's stop flag: a relaxed atomic
/// load every thousand guesses costs nothing measurable, and a thousand
/// guesses take well under a millisecond.
pub const STOP_CHECK_EVERY: u64 = 1 << 10;

/// Whether the stop flag is set, for a solver that has one.
#[inline]
pub(crate) fn stop_requested(stop: Option<&AtomicBool>) -> bool {
    stop.is_some_and(|s| s.load(Ordering::Relaxed))
}

/// The solver variants, for choosing one at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SolverKind {
    Fast,
    Mrv,
    Backtrack,
}

/// Solving a puzzle of either form. Here rather than beside `Puzzle`: the
/// puzzle layer sits below the solvers and does not know them.
impl Puzzle {
    /// Searches with `solver`, up to `limit` solutions.
    pub fn solve(&self, solver: &mut dyn Solver, limit: u32) -> Outcome {
        match self {
            Puzzle::Givens(g) => solver.solve(g, limit),
            Puzzle::Marks(c) => solver.solve_candidates(c, limit),
        }
    }
}

impl SolverKind {
    /// Every variant, fastest first.
    pub const ALL: [SolverKind; 3] = [SolverKind::Fast, SolverKind::Mrv, SolverKind::Backtrack];

    /// The name the command line uses.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Fast => "fast",
            SolverKind::Mrv => "mrv",
            SolverKind::Backtrack => "backtrack",
        }
    }

    /// A fresh solver of this kind.
    pub fn build(self) -> Box<dyn Solver> {
        match self {
            SolverKind::Fast => Box::new(FastSolver::new()),
            SolverKind::Mrv => Box::new(MrvSolver::new()),
            SolverKind::Backtrack => Box::new(BacktrackSolver::new()),
        }
    }
}

impl fmt::Display for SolverKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SolverKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SolverKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown solver {s:?} (expected fast, mrv or backtrack)"))
    }
}

#[cfg(test)]
mod tests;
