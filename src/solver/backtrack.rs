//! The classic backtracking solver: the reference every other variant is
//! checked against. Empty cells are filled in row-major order, trying digits
//! 1 to 9; a digit is allowed when the cell's row, column and box have not
//! used it. No propagation, so hard puzzles can take seconds.

use super::{stop_requested, Outcome, Solver, STOP_CHECK_EVERY};
use crate::puzzle::grid::{Grid, BOX_OF, CELLS, COL_OF, ROW_OF, UNIT_CELLS};
use crate::puzzle::pencil::Candidates;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Row-major backtracking over used-digit masks.
#[derive(Debug, Clone)]
pub struct BacktrackSolver {
    /// Bit `d` set when digit `d` is used in the row / column / box.
    rows: [u16; 9],
    cols: [u16; 9],
    boxes: [u16; 9],
    /// The grid being filled.
    cells: [u8; CELLS],
    /// Indexes of the cells that were empty, in row-major order.
    empty: [u8; CELLS],
    /// Per cell, the digits it may take (bit `d`, as in the used masks):
    /// all for a puzzle of givens, its candidates for a pencilmark one.
    allowed: [u16; CELLS],
    empty_len: usize,
    limit: u32,
    found: u32,
    first: Option<Grid>,
    guesses: u64,
    /// When set, the search gives up once this instant has passed.
    deadline: Option<Instant>,
    timed_out: bool,
    stop: Option<&'static AtomicBool>,
    stopped: bool,
}

/// Digits 1-9 as bits 1-9.
const ALL_DIGITS: u16 = 0x3FE;

/// Guesses between two looks at the clock.
const CLOCK_EVERY: u64 = 1 << 12;

impl Default for BacktrackSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl BacktrackSolver {
    pub fn new() -> Self {
        BacktrackSolver {
            rows: [0; 9],
            cols: [0; 9],
            boxes: [0; 9],
            cells: [0; CELLS],
            empty: [0; CELLS],
            allowed: [ALL_DIGITS; CELLS],
            empty_len: 0,
            limit: 1,
            found: 0,
            first: None,
            guesses: 0,
            deadline: None,
            timed_out: false,
            stop: None,
            stopped: false,
        }
    }

    /// Makes later solves give up once `deadline` has passed (one puzzle
    /// can take this solver minutes); `None` removes the limit.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// True when the last solve gave up at the deadline: its outcome is
    /// then incomplete.
    pub fn timed_out(&self) -> bool {
        self.timed_out
    }

    /// Loads the givens; false when one repeats a digit in a unit.
    fn load(&mut self, puzzle: &Grid) -> bool {
        self.rows = [0; 9];
        self.cols = [0; 9];
        self.boxes = [0; 9];
        self.cells = *puzzle.cells();
        self.allowed = [ALL_DIGITS; CELLS];
        self.empty_len = 0;
        for i in 0..CELLS {
            let v = self.cells[i];
            if v == 0 {
                self.empty[self.empty_len] = i as u8;
                self.empty_len += 1;
                continue;
            }
            let bit = 1u16 << v;
            let (r, c, b) = (ROW_OF[i] as usize, COL_OF[i] as usize, BOX_OF[i] as usize);
            if (self.rows[r] | self.cols[c] | self.boxes[b]) & bit != 0 {
                return false;
            }
            self.rows[r] |= bit;
            self.cols[c] |= bit;
            self.boxes[b] |= bit;
        }
        true
    }

    /// True when every unit can still hold every digit it lacks: some empty
    /// cell of the unit sees no such digit in its row, column or box. Looked
    /// at once, before the search: row-major filling finds a digit squeezed
    /// out of a late unit only after trying every filling of the cells
    /// before it, which on a near-empty grid takes hours.
    fn every_unit_has_room(&self) -> bool {
        const ALL: u16 = ALL_DIGITS;
        UNIT_CELLS.iter().all(|unit| {
            let room = unit.iter().fold(0u16, |room, &c| {
                let i = c as usize;
                match self.cells[i] {
                    0 => {
                        let (r, c, b) =
                            (ROW_OF[i] as usize, COL_OF[i] as usize, BOX_OF[i] as usize);
                        let used = self.rows[r] | self.cols[c] | self.boxes[b];
                        room | (self.allowed[i] & !used)
                    }
                    v => room | (1 << v),
                }
            });
            room == ALL
        })
    }

    /// Fills empty cell number `k` onwards; returns true when the limit is reached.
    fn fill(&mut self, k: usize) -> bool {
        if k == self.empty_len {
            self.found += 1;
            if self.first.is_none() {
                self.first = Grid::from_cells(self.cells);
            }
            return self.found >= self.limit;
        }
        let i = self.empty[k] as usize;
        let (r, c, b) = (ROW_OF[i] as usize, COL_OF[i] as usize, BOX_OF[i] as usize);
        let used = self.rows[r] | self.cols[c] | self.boxes[b] | !self.allowed[i];
        for v in 1..=9u8 {
            let bit = 1u16 << v;
            if used & bit != 0 {
                continue;
            }
            self.guesses += 1;
            if self.guesses.is_multiple_of(CLOCK_EVERY)
                && self.deadline.is_some_and(|d| Instant::now() > d)
            {
                self.timed_out = true;
            }
            if self.guesses.is_multiple_of(STOP_CHECK_EVERY) && stop_requested(self.stop) {
                self.stopped = true;
                self.timed_out = true;
            }
            if self.timed_out {
                self.cells[i] = 0;
                return true;
            }
            self.cells[i] = v;
            self.rows[r] |= bit;
            self.cols[c] |= bit;
            self.boxes[b] |= bit;
            let done = self.fill(k + 1);
            self.rows[r] &= !bit;
            self.cols[c] &= !bit;
            self.boxes[b] &= !bit;
            if done {
                return true;
            }
        }
        self.cells[i] = 0;
        false
    }
}

impl BacktrackSolver {
    /// Resets the counts, fills the empty cells when `consistent` and every
    /// unit has room, and reports.
    fn run(&mut self, consistent: bool, limit: u32) -> Outcome {
        self.limit = limit.max(1);
        self.found = 0;
        self.first = None;
        self.guesses = 0;
        self.timed_out = false;
        self.stopped = false;
        if consistent && self.every_unit_has_room() {
            self.fill(0);
        }
        Outcome {
            solutions: self.found,
            solution: self.first,
            guesses: self.guesses,
        }
    }
}

impl Solver for BacktrackSolver {
    fn solve(&mut self, puzzle: &Grid, limit: u32) -> Outcome {
        let consistent = self.load(puzzle);
        self.run(consistent, limit)
    }

    /// Every cell empty, each allowed only its candidates (a cell with one
    /// is filled without a choice, but still counted as a guess).
    fn solve_candidates(&mut self, marks: &Candidates, limit: u32) -> Outcome {
        self.rows = [0; 9];
        self.cols = [0; 9];
        self.boxes = [0; 9];
        self.cells = [0; CELLS];
        self.allowed = marks.masks().map(|m| m << 1);
        for (k, e) in self.empty.iter_mut().enumerate() {
            *e = k as u8;
        }
        self.empty_len = CELLS;
        self.run(true, limit)
    }

    fn name(&self) -> &'static str {
        "backtrack"
    }

    fn set_stop(&mut self, stop: Option<&'static AtomicBool>) {
        self.stop = stop;
    }

    fn stopped(&self) -> bool {
        self.stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_stops_the_search_and_says_so() {
        // Built to defeat row-major backtracking: millions of guesses.
        let hard: Grid =
            "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"
                .parse()
                .unwrap();
        let mut s = BacktrackSolver::new();
        s.set_deadline(Some(Instant::now()));
        let out = s.solve(&hard, 2);
        assert!(s.timed_out());
        assert!(out.guesses >= CLOCK_EVERY);
        s.set_deadline(None);
        let easy: Grid =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
                .parse()
                .unwrap();
        assert_eq!(s.solve(&easy, 2).solutions, 1);
        assert!(!s.timed_out());
    }
}
