//! Rating a puzzle's difficulty.
//!
//! Two measures, both deterministic:
//! - the strongest inference a person would need, found by a small logical
//!   solver on candidate masks: naked and hidden singles alone, then with
//!   locked candidates (pointing and claiming), else search;
//! - the fast solver's guess count when proving uniqueness (limit 2).
//!
//! The class follows from both (thresholds in [`Difficulty::of`]).

use crate::puzzle::grid::{BOX_OF, CELLS, COL_OF, ROW_OF};
use crate::puzzle::Puzzle;
use crate::solver::FastSolver;
use std::fmt;

/// The strongest inference needed to solve without guessing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Inference {
    /// Naked and hidden singles suffice.
    Singles,
    /// Singles with locked candidates (pointing and claiming) suffice.
    LockedCandidates,
    /// Neither: the puzzle needs trial and error (or has no unique solution).
    Search,
}

impl Inference {
    pub fn word(self) -> &'static str {
        match self {
            Inference::Singles => "singles",
            Inference::LockedCandidates => "locked_candidates",
            Inference::Search => "search",
        }
    }
}

/// The difficulty classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
    Extreme,
}

/// Guesses (fast solver, limit 2) from which a puzzle that needs search is
/// `extreme` rather than `hard`.
pub const EXTREME_GUESSES: u64 = 20;

impl Difficulty {
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Easy,
        Difficulty::Medium,
        Difficulty::Hard,
        Difficulty::Extreme,
    ];

    /// The class: `easy` when singles suffice, `medium` when locked
    /// candidates are needed too, `hard` when search is needed and the fast
    /// solver makes fewer than [`EXTREME_GUESSES`] guesses, `extreme` from
    /// there on.
    pub fn of(inference: Inference, guesses: u64) -> Difficulty {
        match inference {
            Inference::Singles => Difficulty::Easy,
            Inference::LockedCandidates => Difficulty::Medium,
            Inference::Search if guesses < EXTREME_GUESSES => Difficulty::Hard,
            Inference::Search => Difficulty::Extreme,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
            Difficulty::Extreme => "extreme",
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

impl std::str::FromStr for Difficulty {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Difficulty::ALL
            .into_iter()
            .find(|d| d.word() == s)
            .ok_or_else(|| {
                format!("unknown difficulty {s:?} (expected easy, medium, hard or extreme)")
            })
    }
}

/// A puzzle's rating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rating {
    /// Solutions counted up to 2.
    pub solutions: u32,
    /// Fast solver guesses with limit 2.
    pub guesses: u64,
    pub inference: Inference,
    pub difficulty: Difficulty,
}

/// The 27 units (rows, columns, boxes) as cell lists.
static UNITS: [[u8; 9]; 27] = {
    let mut t = [[0u8; 9]; 27];
    let mut i = 0;
    while i < CELLS {
        let (r, c, b) = (ROW_OF[i] as usize, COL_OF[i] as usize, BOX_OF[i] as usize);
        t[r][c] = i as u8;
        t[9 + c][r] = i as u8;
        t[18 + b][(r % 3) * 3 + c % 3] = i as u8;
        i += 1;
    }
    t
};

/// Candidate masks and the logic a person applies to them.
struct Logic {
    /// Bit `d - 1` set when `d` may go in the cell.
    cand: [u16; CELLS],
    placed: u128,
}

/// A contradiction: the givens admit no solution.
struct Dead;

impl Logic {
    fn new(puzzle: &Puzzle) -> Result<Logic, Dead> {
        match puzzle {
            Puzzle::Givens(grid) => {
                let mut l = Logic {
                    cand: [0x1FF; CELLS],
                    placed: 0,
                };
                for (i, &v) in grid.cells().iter().enumerate() {
                    if v != 0 {
                        l.place(i, 1 << (v - 1))?;
                    }
                }
                Ok(l)
            }
            // Pencilmarks: nothing is placed yet; the first round of
            // singles places the cells pinned to one candidate.
            Puzzle::Marks(marks) => {
                let cand = *marks.masks();
                if cand.contains(&0) {
                    return Err(Dead);
                }
                Ok(Logic { cand, placed: 0 })
            }
        }
    }

    fn place(&mut self, cell: usize, bit: u16) -> Result<(), Dead> {
        if self.cand[cell] & bit == 0 {
            return Err(Dead);
        }
        self.cand[cell] = bit;
        self.placed |= 1 << cell;
        for unit in [
            ROW_OF[cell] as usize,
            9 + COL_OF[cell] as usize,
            18 + BOX_OF[cell] as usize,
        ] {
            for &p in &UNITS[unit] {
                let p = p as usize;
                if p != cell {
                    self.cand[p] &= !bit;
                    if self.cand[p] == 0 {
                        return Err(Dead);
                    }
                }
            }
        }
        Ok(())
    }

    fn solved(&self) -> bool {
        self.placed.count_ones() as usize == CELLS
    }

    /// One round of naked and hidden singles; true if anything was placed.
    fn singles(&mut self) -> Result<bool, Dead> {
        let mut progress = false;
        for i in 0..CELLS {
            let m = self.cand[i];
            if self.placed & (1 << i) == 0 && m.count_ones() == 1 {
                self.place(i, m)?;
                progress = true;
            }
        }
        for unit in &UNITS {
            for d in 0..9 {
                let bit = 1u16 << d;
                let mut spot = None;
                let mut count = 0;
                for &c in unit {
                    if self.cand[c as usize] & bit != 0 {
                        count += 1;
                        spot = Some(c as usize);
                    }
                }
                match (count, spot) {
                    (0, _) => return Err(Dead),
                    (1, Some(c)) if self.placed & (1 << c) == 0 => {
                        self.place(c, bit)?;
                        progress = true;
                    }
                    _ => {}
                }
            }
        }
        Ok(progress)
    }

    /// Locked candidates: a digit confined to one line inside a box leaves
    /// the rest of that line (pointing), and a digit confined to one box
    /// inside a line leaves the rest of that box (claiming). True if any
    /// candidate went.
    fn locked_candidates(&mut self) -> bool {
        let mut progress = false;
        for b in 0..9 {
            for (line, line_cells) in UNITS.iter().enumerate().take(18) {
                // Cells shared by box b and row/column `line`.
                let shared = |c: usize| {
                    BOX_OF[c] as usize == b
                        && if line < 9 {
                            ROW_OF[c] as usize == line
                        } else {
                            COL_OF[c] as usize == line - 9
                        }
                };
                if !line_cells.iter().any(|&c| shared(c as usize)) {
                    continue;
                }
                for d in 0..9 {
                    let bit = 1u16 << d;
                    let in_box_outside_line = UNITS[18 + b]
                        .iter()
                        .any(|&c| !shared(c as usize) && self.cand[c as usize] & bit != 0);
                    let in_line_outside_box = line_cells
                        .iter()
                        .any(|&c| !shared(c as usize) && self.cand[c as usize] & bit != 0);
                    let in_shared = line_cells
                        .iter()
                        .any(|&c| shared(c as usize) && self.cand[c as usize] & bit != 0);
                    if !in_shared {
                        continue;
                    }
                    // Pointing: the box's d lies only on the line.
                    let (from, clear) = if !in_box_outside_line && in_line_outside_box {
                        (line, true)
                    } else if !in_line_outside_box && in_box_outside_line {
                        // Claiming: the line's d lies only in the box.
                        (18 + b, true)
                    } else {
                        (0, false)
                    };
                    if clear {
                        for &c in &UNITS[from] {
                            let c = c as usize;
                            if !shared(c) && self.cand[c] & bit != 0 {
                                self.cand[c] &= !bit;
                                progress = true;
                            }
                        }
                    }
                }
            }
        }
        progress
    }
}

/// The strongest inference `puzzle` needs (see [`Inference`]).
pub fn strongest_inference(puzzle: &Puzzle) -> Inference {
    let Ok(mut logic) = Logic::new(puzzle) else {
        return Inference::Search;
    };
    let mut level = Inference::Singles;
    loop {
        match logic.singles() {
            Err(Dead) => return Inference::Search,
            Ok(true) => continue,
            Ok(false) => {}
        }
        if logic.solved() {
            return level;
        }
        if logic.locked_candidates() {
            level = Inference::LockedCandidates;
            continue;
        }
        return Inference::Search;
    }
}

/// Rates `puzzle` with `solver` (reused across puzzles).
pub fn rate(solver: &mut FastSolver, puzzle: &Puzzle) -> Rating {
    let out = puzzle.solve(solver, 2);
    let inference = if out.solutions == 1 {
        strongest_inference(puzzle)
    } else {
        Inference::Search
    };
    Rating {
        solutions: out.solutions,
        guesses: out.guesses,
        inference,
        difficulty: Difficulty::of(inference, out.guesses),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::puzzle::grid::Grid;

    fn grid(s: &str) -> Puzzle {
        Puzzle::Givens(s.parse().unwrap())
    }

    #[test]
    fn a_singles_puzzle_is_easy() {
        let p = grid(
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
        );
        let r = rate(&mut FastSolver::new(), &p);
        assert_eq!(
            (r.inference, r.difficulty),
            (Inference::Singles, Difficulty::Easy)
        );
        assert_eq!(r.solutions, 1);
    }

    #[test]
    fn a_hard_puzzle_needs_search() {
        let p = grid(
            "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
        );
        let r = rate(&mut FastSolver::new(), &p);
        assert_eq!(r.inference, Inference::Search);
        assert!(matches!(
            r.difficulty,
            Difficulty::Hard | Difficulty::Extreme
        ));
    }

    #[test]
    fn locked_candidates_rank_between_singles_and_search() {
        // Every puzzle singles solve is also solved with locked candidates
        // allowed, and the class follows the inference and guesses.
        let mut solver = FastSolver::new();
        let mut seen = std::collections::HashSet::new();
        for i in 0..200 {
            let g = crate::tasks::generate::generate(
                4,
                i,
                crate::tasks::generate::GenerateOptions {
                    minimal: true,
                    ..Default::default()
                },
            );
            let r = rate(&mut solver, &Puzzle::from(g.puzzle));
            let marks = Puzzle::Marks(Box::new(crate::puzzle::pencil::Candidates::from_grid(
                &g.puzzle,
            )));
            assert_eq!(
                rate(&mut solver, &marks),
                r,
                "the pencilmark form rates alike"
            );
            assert_eq!(r.difficulty, Difficulty::of(r.inference, r.guesses));
            if r.inference != Inference::Search {
                assert_eq!(r.guesses, 0, "logic solved it, so must the fast solver");
            }
            seen.insert(r.inference);
        }
        assert!(seen.contains(&Inference::Singles));
        assert!(seen.contains(&Inference::LockedCandidates), "{seen:?}");
        assert!(seen.contains(&Inference::Search));
    }

    #[test]
    fn thresholds_are_as_documented() {
        assert_eq!(Difficulty::of(Inference::Search, 0), Difficulty::Hard);
        assert_eq!(Difficulty::of(Inference::Search, 19), Difficulty::Hard);
        assert_eq!(Difficulty::of(Inference::Search, 20), Difficulty::Extreme);
        assert_eq!("extreme".parse::<Difficulty>(), Ok(Difficulty::Extreme));
    }

    #[test]
    fn no_unique_solution_is_search() {
        let r = rate(&mut FastSolver::new(), &Puzzle::from(Grid::EMPTY));
        assert_eq!((r.solutions, r.inference), (2, Inference::Search));
    }
}
