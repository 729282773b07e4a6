//! The candidate-mask solver: each cell keeps a 9-bit mask of the digits it
//! may still hold. Placing a digit removes it from the cell's 20 peers; a peer
//! left with one candidate is placed in turn (naked singles) until nothing
//! changes. Then the search branches on the unsolved cell with the fewest
//! candidates (minimum remaining values), copying the 180-byte state per
//! branch instead of keeping an undo log. Before branching it checks that
//! every unit still has room for every digit, so a digit squeezed out of a
//! unit ends the branch at once.

use super::{stop_requested, Outcome, Solver, STOP_CHECK_EVERY};
use crate::puzzle::grid::{Grid, CELLS, PEERS, UNIT_CELLS};
use crate::puzzle::pencil::Candidates;
use std::sync::atomic::AtomicBool;

const ALL_DIGITS: u16 = 0x1FF;

/// The search state: copied whole on every branch.
#[derive(Clone, Copy)]
struct State {
    /// Bit `d - 1` set when digit `d` may still go in the cell.
    cand: [u16; CELLS],
    /// Bit `i` set once cell `i` is placed and its digit removed from its peers.
    placed: u128,
}

impl State {
    const FRESH: State = State {
        cand: [ALL_DIGITS; CELLS],
        placed: 0,
    };

    /// Places digit mask `bit` in `cell` and propagates naked singles to a
    /// fixed point. False on a contradiction (a cell left with no candidate).
    fn place(&mut self, cell: usize, bit: u16) -> bool {
        if self.cand[cell] & bit == 0 {
            return false;
        }
        if self.placed & (1u128 << cell) != 0 {
            return true;
        }
        self.cand[cell] = bit;
        // Each cell enters the queue once: when it drops to one candidate.
        let mut queue = [0u8; CELLS];
        queue[0] = cell as u8;
        let (mut head, mut tail) = (0usize, 1usize);
        while head < tail {
            let c = queue[head] as usize;
            head += 1;
            self.placed |= 1u128 << c;
            let digit = self.cand[c];
            for &p in &PEERS[c] {
                let p = p as usize;
                let m = self.cand[p];
                if m & digit == 0 {
                    continue;
                }
                let m = m & !digit;
                self.cand[p] = m;
                if m == 0 {
                    return false;
                }
                if m & (m - 1) == 0 {
                    queue[tail] = p as u8;
                    tail += 1;
                }
            }
        }
        true
    }

    /// True while every unit can still hold every digit: some cell of the
    /// unit has it as a candidate (a placed cell's candidate is its digit).
    /// Naked singles alone never see a digit squeezed out of a unit, and a
    /// near-empty grid with such a hole would be searched for hours (every
    /// filling of the other cells tried); this one look per node ends it at
    /// once.
    fn every_unit_has_room(&self) -> bool {
        UNIT_CELLS.iter().all(|unit| {
            unit.iter()
                .fold(0u16, |room, &c| room | self.cand[c as usize])
                == ALL_DIGITS
        })
    }

    /// The unplaced cell with the fewest candidates, or `None` when solved.
    fn most_constrained(&self) -> Option<usize> {
        let mut best = None;
        let mut best_count = u32::MAX;
        for i in 0..CELLS {
            if self.placed & (1u128 << i) != 0 {
                continue;
            }
            let n = self.cand[i].count_ones();
            if n < best_count {
                best = Some(i);
                best_count = n;
                if n == 2 {
                    break;
                }
            }
        }
        best
    }

    fn solution_grid(&self) -> Grid {
        let mut cells = [0u8; CELLS];
        for (v, &m) in cells.iter_mut().zip(&self.cand) {
            *v = m.trailing_zeros() as u8 + 1;
        }
        Grid::from_cells(cells).expect("placed masks hold one digit each")
    }
}

/// Naked singles to a fixed point, then branching on the fewest candidates.
#[derive(Debug, Clone, Default)]
pub struct MrvSolver {
    limit: u32,
    found: u32,
    first: Option<Grid>,
    guesses: u64,
    stop: Option<&'static AtomicBool>,
    stopped: bool,
}

impl MrvSolver {
    pub fn new() -> Self {
        Self::default()
    }

    /// Searches below `state`; returns true when the limit is reached.
    fn search(&mut self, state: &State) -> bool {
        if !state.every_unit_has_room() {
            return false;
        }
        let Some(cell) = state.most_constrained() else {
            self.found += 1;
            if self.first.is_none() {
                self.first = Some(state.solution_grid());
            }
            return self.found >= self.limit;
        };
        let mut digits = state.cand[cell];
        while digits != 0 {
            let bit = digits & digits.wrapping_neg();
            digits &= !bit;
            self.guesses += 1;
            if self.guesses.is_multiple_of(STOP_CHECK_EVERY) && stop_requested(self.stop) {
                self.stopped = true;
                return true;
            }
            let mut child = *state;
            if child.place(cell, bit) && self.search(&child) {
                return true;
            }
        }
        false
    }
}

impl MrvSolver {
    /// Resets the counts, searches below `state` when it is consistent, and
    /// reports.
    fn run(&mut self, state: Option<State>, limit: u32) -> Outcome {
        self.limit = limit.max(1);
        self.found = 0;
        self.first = None;
        self.guesses = 0;
        self.stopped = false;
        if let Some(state) = state {
            self.search(&state);
        }
        Outcome {
            solutions: self.found,
            solution: self.first,
            guesses: self.guesses,
        }
    }
}

impl Solver for MrvSolver {
    fn solve(&mut self, puzzle: &Grid, limit: u32) -> Outcome {
        let mut state = State::FRESH;
        let consistent = puzzle
            .cells()
            .iter()
            .enumerate()
            .filter(|&(_, &v)| v != 0)
            .all(|(i, &v)| state.place(i, 1 << (v - 1)));
        self.run(consistent.then_some(state), limit)
    }

    /// Solves a pencilmark puzzle up to `limit` solutions: its candidates
    /// are the starting masks, and the cells left with one are placed
    /// first (with their peers losing the digit).
    fn solve_candidates(&mut self, marks: &Candidates, limit: u32) -> Outcome {
        let mut state = State {
            cand: *marks.masks(),
            placed: 0,
        };
        let consistent = marks.masks().iter().all(|&m| m != 0)
            && (0..CELLS).all(|i| {
                let m = state.cand[i];
                m.count_ones() != 1 || state.place(i, m)
            });
        self.run(consistent.then_some(state), limit)
    }

    fn name(&self) -> &'static str {
        "mrv"
    }

    fn set_stop(&mut self, stop: Option<&'static AtomicBool>) {
        self.stop = stop;
    }

    fn stopped(&self) -> bool {
        self.stopped
    }
}
