//! Generating uniquely solvable puzzles.
//!
//! A puzzle is made in two steps: a random complete grid, then clues taken
//! away in random order as long as the puzzle keeps exactly one solution
//! (checked by the fast solver with limit 2). Each puzzle draws from its own
//! random stream, derived from the seed and the puzzle's index, so a run is
//! reproducible whatever the number of threads.

use crate::puzzle::grid::{Grid, BOX_OF, CELLS, COL_OF, ROW_OF, UNIT_CELLS};
use crate::solver::{FastSolver, Solver};
use crate::tasks::rate::{rate, Difficulty};
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

/// The digits each unit still holds as clues (rows 0-8, columns 9-17,
/// boxes 18-26; bit `v - 1` for digit `v`), kept beside the cells as clues
/// go and come back.
struct UnitDigits {
    /// Per unit, its clue digits.
    digits: [u16; 27],
    /// Per digit (0-based), the units holding it as a clue: bits 0-8 rows,
    /// 9-17 columns, 18-26 boxes.
    units: [u32; 9],
    /// Per unit, its clue cells: bit `c` for column `c` of a row, bit `r`
    /// for row `r` of a column, bit `3 * (r % 3) + c % 3` in a box.
    places: [u16; 27],
}

/// `SPREAD3[x]`: each bit `k` of a 3-bit `x` widened to bits `3k..3k+3`.
const SPREAD3: [u32; 8] = [0o0, 0o7, 0o70, 0o77, 0o700, 0o707, 0o770, 0o777];

impl UnitDigits {
    /// The three units of `cell`.
    fn of(cell: usize) -> [usize; 3] {
        [
            ROW_OF[cell] as usize,
            9 + COL_OF[cell] as usize,
            18 + BOX_OF[cell] as usize,
        ]
    }

    /// Where `cell` lies in each of its three units, as a bit of
    /// [`UnitDigits::places`].
    fn place_bits(cell: usize) -> [u16; 3] {
        let (r, c) = (cell / 9, cell % 9);
        [1 << c, 1 << r, 1 << (3 * (r % 3) + c % 3)]
    }

    fn full() -> UnitDigits {
        UnitDigits {
            digits: [0x1FF; 27],
            units: [(1 << 27) - 1; 9],
            places: [0x1FF; 27],
        }
    }

    fn remove(&mut self, cell: usize, v: u8) {
        for (u, place) in Self::of(cell).into_iter().zip(Self::place_bits(cell)) {
            self.digits[u] &= !(1 << (v - 1));
            self.units[v as usize - 1] &= !(1 << u);
            self.places[u] &= !place;
        }
    }

    fn restore(&mut self, cell: usize, v: u8) {
        for (u, place) in Self::of(cell).into_iter().zip(Self::place_bits(cell)) {
            self.digits[u] |= 1 << (v - 1);
            self.units[v as usize - 1] |= 1 << u;
            self.places[u] |= place;
        }
    }

    /// The clue digits among the peers of `cell`.
    fn seen_from(&self, cell: usize) -> u16 {
        let [r, c, b] = Self::of(cell);
        self.digits[r] | self.digits[c] | self.digits[b]
    }

    /// True when the remaining clues alone force `v` into the empty `cell`
    /// because its peers hold every other digit (a naked single). Then the
    /// clue was not needed, and no search is run to say so; the decisions,
    /// and so the puzzles, are those the search would make.
    fn forces_naked(&self, cell: usize, v: u8) -> bool {
        self.seen_from(cell) == 0x1FF & !(1 << (v - 1))
    }

    /// True when two digits or more have no clue left: exchanging them
    /// everywhere gives a second solution, so the clue last taken was
    /// needed (the two-digit unavoidable set of all their cells).
    fn two_digits_gone(&self) -> bool {
        self.units.iter().filter(|&&u| u == 0).count() >= 2
    }

    /// Like [`UnitDigits::forces_naked`], for a hidden single: every other
    /// empty cell of one of the units of `cell` sees a `v`. Each unit is
    /// tested as 9-bit masks at once: its empty cells against the cells
    /// whose row, column or box holds a `v`.
    fn forces_hidden(&self, cell: usize, v: u8) -> bool {
        let has = self.units[v as usize - 1];
        let (rows, cols, boxes) = (has & 0x1FF, has >> 9 & 0x1FF, has >> 18 & 0x1FF);
        let (r, c) = (cell / 9, cell % 9);
        let (band, stack) = (r / 3, c / 3);
        let [row_unit, col_unit, box_unit] = Self::of(cell);
        // The row: its empty cells (by column) other than `cell`.
        let row_clues = self.places[row_unit] as u32;
        let empty = !row_clues & 0x1FF & !(1 << c);
        let box_cols = SPREAD3[(boxes >> (3 * band) & 7) as usize];
        if empty & !(cols | box_cols) == 0 {
            return true;
        }
        // The column: its empty cells (by row).
        let col_clues = self.places[col_unit] as u32;
        let empty = !col_clues & 0x1FF & !(1 << r);
        let stack_boxes = (boxes >> stack & 1)
            | (boxes >> (stack + 3) & 1) << 1
            | (boxes >> (stack + 6) & 1) << 2;
        if empty & !(rows | SPREAD3[stack_boxes as usize]) == 0 {
            return true;
        }
        // The box: bit 3i + j for its cell (row i, column j).
        let box_clues = self.places[box_unit] as u32;
        let empty = !box_clues & 0x1FF & !(1 << (3 * (r % 3) + c % 3));
        let row_cover = SPREAD3[(rows >> (3 * band) & 7) as usize];
        let col_cover = (cols >> (3 * stack) & 7) * 0o111;
        empty & !(row_cover | col_cover) == 0
    }
}

/// Small unavoidable sets of a solution grid, as 81-bit cell sets: cells
/// whose digits can be exchanged among themselves, giving another valid
/// grid. A puzzle with no clue in one of them has two solutions, so
/// removing the last clue of one is refused without a search. Two kinds,
/// cheap to find (about 36 and 24 a grid):
/// - row swaps: two rows of a band whose digits, exchanged in some of the
///   columns, leave both rows whole (and, transposed, two columns of a
///   stack). Exchanging within a column keeps every column and box whole;
///   the rows stay whole exactly when the columns hold the same digits in
///   both rows, and the smallest such column sets are the cycles of "the
///   column where the first row holds the digit the second row holds
///   here". A cycle of two columns is a unique rectangle (`a b` above
///   `b a`); every unique rectangle is one;
/// - two-digit sets: two digits exchanged in part of their cells, where
///   each row, column and box keeps one of each (the six-cell cycle of two
///   digits in a band, and longer ones through several bands).
///
/// Counted on 1,000 grids of `generate --minimal`'s removal (2026-11-28):
/// of the clues a search finds needed, 29% leave a unique rectangle or a
/// six-cell cycle bare, 40% with the longer row swaps too, 47% with the
/// two-digit sets. (Walking each two-digit set cell by cell, as first
/// written, cost more than it saved: measured 5% slower. Here a pair of
/// digits costs nine lookups and a walk over 9-bit row sets.)
struct UnavoidableSets {
    sets: Vec<u128>,
}

impl UnavoidableSets {
    fn of(solution: &Grid) -> UnavoidableSets {
        let mut sets = Vec::with_capacity(96);
        row_swaps(solution.cells(), &mut sets);
        two_digit_sets(solution.cells(), &mut sets);
        UnavoidableSets { sets }
    }

    /// True when a set has no clue in `clue_set`. All are looked at,
    /// without a branch per set (about 60; looking only at the sets
    /// holding the cells just taken, through a mask of sets per cell, was
    /// no faster).
    fn bare(&self, clue_set: u128) -> bool {
        self.sets
            .iter()
            .fold(false, |bare, &set| bare | (set & clue_set == 0))
    }
}

/// The row swaps of `v` (see [`UnavoidableSets`]): per pair of rows of a
/// band, then of columns of a stack, a set per cycle.
fn row_swaps(v: &[u8; CELLS], sets: &mut Vec<u128>) {
    for first in [0, 9] {
        // Rows 0-8 (bands), then columns 9-17 (stacks).
        for group in 0..3 {
            for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                let a = &UNIT_CELLS[first + 3 * group + i];
                let b = &UNIT_CELLS[first + 3 * group + j];
                // Where each digit lies along `a`.
                let mut along_a = [0usize; 10];
                for (k, &cell) in a.iter().enumerate() {
                    along_a[v[cell as usize] as usize] = k;
                }
                // Each cycle once, from its first column: at `x`, `b`
                // holds the digit `a` holds at the cycle's next column.
                let mut met = 0u16;
                for x in 0..9 {
                    if met >> x & 1 != 0 {
                        continue;
                    }
                    let mut set = 0u128;
                    let mut y = x;
                    loop {
                        met |= 1 << y;
                        set |= 1 << a[y] | 1 << b[y];
                        y = along_a[v[b[y] as usize] as usize];
                        if y == x {
                            break;
                        }
                    }
                    sets.push(set);
                }
            }
        }
    }
}

/// The two-digit sets of `v` (see [`UnavoidableSets`]).
fn two_digit_sets(v: &[u8; CELLS], sets: &mut Vec<u128>) {
    // Two digits `a`, `b`: exchanged in a set of their cells, every
    // unit keeps one of each exactly when the set takes a unit's `a`
    // and `b` together or neither. Each row holds one of each, so such
    // a set is a set of rows closed under "the row of the `b` in the
    // column (in the box) of this row's `a`": the smallest are the
    // orbits of those two maps. Orbits of two rows are the unique
    // rectangles, found by `row_swaps`; one of all nine rows (every `a`
    // and `b`) is left to `UnitDigits::two_digits_gone`.
    let mut col_of = [[0u8; 9]; 9];
    let mut row_of = [[0u8; 9]; 9];
    let mut row_in_box = [[0u8; 9]; 9];
    for (cell, &d) in v.iter().enumerate() {
        let (row, col, d) = (cell / 9, cell % 9, d as usize - 1);
        col_of[d][row] = col as u8;
        row_of[d][col] = row as u8;
        row_in_box[d][row / 3 * 3 + col / 3] = row as u8;
    }
    for a in 0..9 {
        for b in a + 1..9 {
            let next: [u16; 9] = std::array::from_fn(|r| {
                let col = col_of[a][r] as usize;
                1 << row_of[b][col] | 1 << row_in_box[b][r / 3 * 3 + col / 3]
            });
            let mut seen = 0u16;
            while seen != 0x1FF {
                let first = (!seen).trailing_zeros() as usize;
                let (mut orbit, mut todo) = (1u16 << first, 1u16 << first);
                while todo != 0 {
                    let new = next[todo.trailing_zeros() as usize] & !orbit;
                    todo &= todo - 1;
                    orbit |= new;
                    todo |= new;
                }
                seen |= orbit;
                if orbit == 0x1FF {
                    break;
                }
                if orbit.count_ones() > 2 {
                    let mut set = 0u128;
                    let mut rows = orbit;
                    while rows != 0 {
                        let r = rows.trailing_zeros() as usize;
                        rows &= rows - 1;
                        set |= 1 << (9 * r + col_of[a][r] as usize)
                            | 1 << (9 * r + col_of[b][r] as usize);
                    }
                    sets.push(set);
                }
            }
        }
    }
}

/// With a difficulty, candidates tried per puzzle asked before giving up
/// (`generate --difficulty` and the Python package stop there).
pub const TRIES_PER_PUZZLE: u64 = 2000;

/// Which candidates a run keeps: those of a `rate` class, or those whose
/// Sudoku Explainer rating (ER, in tenths) is in a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    Class(Difficulty),
    Er { min: u16, max: u16 },
}

impl Keep {
    /// True when `g`'s puzzle is one to keep. A puzzle whose path needs a
    /// technique beyond the grader's is never kept for an ER range: its
    /// rating is not known.
    pub fn keeps(&self, solver: &mut FastSolver, g: &Generated) -> bool {
        match *self {
            Keep::Class(class) => rate(solver, &g.puzzle.into()).difficulty == class,
            Keep::Er { min, max } => {
                crate::tasks::grade::er_within(&g.puzzle.into(), solver, min, max)
            }
        }
    }
}

/// An ER range, `MIN-MAX` or `MIN` (`4.5-6.2`), as tenths: refused when
/// reversed, or above what `grade` rates exactly
/// ([`GRADED_UP_TO`](crate::tasks::grade::GRADED_UP_TO)).
pub fn er_range(s: &str) -> Result<(u16, u16), String> {
    let tenths = |t: &str| -> Result<u16, String> {
        let x: f64 = t
            .trim()
            .parse()
            .map_err(|_| format!("{t:?} is not a rating such as 4.5"))?;
        if !(1.0..=20.0).contains(&x) {
            return Err(format!("{t} is not a rating from 1.0 to 20.0"));
        }
        Ok((x * 10.0).round() as u16)
    };
    let (min, max) = match s.split_once('-') {
        Some((a, b)) => (tenths(a)?, tenths(b)?),
        None => (tenths(s)?, tenths(s)?),
    };
    if min > max {
        return Err(format!("{s}: the minimum is above the maximum"));
    }
    if max > crate::tasks::grade::GRADED_UP_TO {
        return Err(format!(
            "{s}: ratings above {} may need dynamic chains with nested techniques \
             (SE's Dynamic (+) and nested levels), which `grade` does not have \
             (it reports such puzzles as beyond)",
            crate::tasks::grade::rating_text(crate::tasks::grade::GRADED_UP_TO)
        ));
    }
    Ok((min, max))
}

impl Keep {
    /// A `rate` class word (`easy`, ...), or `er:MIN-MAX` for an ER range:
    /// how the Python package names what to keep.
    pub fn named(word: &str) -> Result<Keep, String> {
        match word.strip_prefix("er:") {
            Some(range) => er_range(range).map(|(min, max)| Keep::Er { min, max }),
            None => word.parse().map(Keep::Class),
        }
    }

    /// The option in words, for messages: `difficulty hard`, `er 4.5-6.2`.
    pub fn describe(&self) -> String {
        match *self {
            Keep::Class(d) => format!("difficulty {}", d.word()),
            Keep::Er { min, max } => format!(
                "er {}-{}",
                crate::tasks::grade::rating_text(min),
                crate::tasks::grade::rating_text(max)
            ),
        }
    }
}

/// The candidates numbered `range` for `seed` that `keep` keeps, with
/// their numbers, in order (rated on the current rayon pool).
pub fn candidates_kept(
    seed: u64,
    range: std::ops::Range<u64>,
    options: GenerateOptions,
    keep: Keep,
) -> Vec<(u64, Generated)> {
    use rayon::prelude::*;
    let rated: Vec<Option<(u64, Generated)>> = range
        .into_par_iter()
        .map_init(FastSolver::new, |solver, i| {
            let g = generate(seed, i, options);
            keep.keeps(solver, &g).then_some((i, g))
        })
        .collect();
    rated.into_iter().flatten().collect()
}

/// The candidates among `range` of the run seeded with `seed` whose
/// puzzles rate as `class`, in order, each with its index: the scan behind
/// `generate --difficulty`, whose `i`-th puzzle is the `i`-th candidate of
/// its class. Runs on the current rayon pool.
pub fn candidates_of_class(
    seed: u64,
    range: std::ops::Range<u64>,
    options: GenerateOptions,
    class: Difficulty,
) -> Vec<(u64, Generated)> {
    candidates_kept(seed, range, options, Keep::Class(class))
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
    // The puzzle as it stands, changed in place (no grid rebuilt, and
    // checked, for each trial).
    let mut puzzle = solution;
    let mut units = UnitDigits::full();
    let unavoidable = UnavoidableSets::of(&solution);
    // The clues as a cell set, to test the unavoidable sets against.
    let mut clue_set: u128 = (1 << CELLS) - 1;
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
        let (vi, vj) = (solution.cells()[i], solution.cells()[j]);
        puzzle.set(i / 9, i % 9, 0);
        puzzle.set(j / 9, j % 9, 0);
        units.remove(i, vi);
        if i != j {
            units.remove(j, vj);
        }
        clue_set &= !(1 << i | 1 << j);
        // Cheapest first; each answers only when it is sure, so the order
        // does not change the decision.
        let forced = |cell: usize, v: u8, units: &UnitDigits| {
            units.forces_naked(cell, v) || units.forces_hidden(cell, v)
        };
        let needed = if units.forces_naked(i, vi) && (i == j || units.forces_naked(j, vj)) {
            false
        } else if unavoidable.bare(clue_set) || units.two_digits_gone() {
            true
        } else if forced(i, vi, &units) && (i == j || forced(j, vj, &units)) {
            false
        } else {
            // A second solution must differ from `solution` in a removed
            // cell.
            solver.solvable_without(&puzzle, i, vi)
                || (i != j && solver.solvable_without(&puzzle, j, vj))
        };
        if needed {
            puzzle.set(i / 9, i % 9, vi);
            puzzle.set(j / 9, j % 9, vj);
            units.restore(i, vi);
            units.restore(j, vj);
            clue_set |= 1 << i | 1 << j;
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
            .filter(|&i| puzzle.cells()[i as usize] != 0)
            .collect();
        singles.shuffle(&mut rng);
        for &i in &singles {
            if clues <= options.min_clues {
                break;
            }
            let i = i as usize;
            let v = solution.cells()[i];
            puzzle.set(i / 9, i % 9, 0);
            units.remove(i, v);
            clue_set &= !(1 << i);
            let needed = !units.forces_naked(i, v)
                && (unavoidable.bare(clue_set)
                    || units.two_digits_gone()
                    || !units.forces_hidden(i, v) && solver.solvable_without(&puzzle, i, v));
            if needed {
                puzzle.set(i / 9, i % 9, v);
                units.restore(i, v);
                clue_set |= 1 << i;
            } else {
                clues -= 1;
            }
        }
    }
    Generated { puzzle, solution }
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

    /// The shortcuts that spare a search say what the search would: a clue
    /// the remaining clues force (naked or hidden single) is not needed; a
    /// clue whose removal leaves an unavoidable set bare is.
    #[test]
    fn shortcuts_agree_with_the_search() {
        let mut solver = FastSolver::new();
        let (mut forced, mut bare, mut searched) = (0, 0, 0);
        for index in 0..40 {
            let g = generate(3, index, minimal());
            let sets = UnavoidableSets::of(&g.solution);
            for &set in &sets.sets {
                // Each set is unavoidable: the solution without its cells
                // has another solution.
                let mut cells = *g.solution.cells();
                for c in cells_of(set) {
                    cells[c] = 0;
                }
                let fewer = Grid::from_cells(cells).unwrap();
                assert_eq!(solver.solve(&fewer, 2).solutions, 2, "{set:#x}");
            }
            // Remove clues from the solution in a fixed order, checking each
            // shortcut's verdict against the search, as generation does.
            let mut cells = *g.solution.cells();
            let mut units = UnitDigits::full();
            let mut clue_set: u128 = (1 << CELLS) - 1;
            for i in (0..CELLS).map(|k| (k * 37 + index as usize) % CELLS) {
                let v = cells[i];
                cells[i] = 0;
                units.remove(i, v);
                clue_set &= !(1 << i);
                let trial = Grid::from_cells(cells).unwrap();
                let needed = solver.solvable_without(&trial, i, v);
                if units.forces_naked(i, v) || units.forces_hidden(i, v) {
                    assert!(!needed, "forced clue {i} needed");
                    forced += 1;
                } else if sets.bare(clue_set) || units.two_digits_gone() {
                    assert!(needed, "clue {i} leaves a bare set, yet not needed");
                    bare += 1;
                } else {
                    searched += 1;
                }
                if needed {
                    cells[i] = v;
                    units.restore(i, v);
                    clue_set |= 1 << i;
                }
            }
        }
        assert!(
            forced > 0 && bare > 0 && searched > 0,
            "{forced} {bare} {searched}"
        );
    }

    /// The cells of a set, in order.
    fn cells_of(set: u128) -> impl Iterator<Item = usize> {
        (0..CELLS).filter(move |&c| set >> c & 1 != 0)
    }

    /// Over the solutions of `grids` puzzles of `seed`, the sets of one
    /// kind (`of_kind`) against a brute force's, each grid's as a sorted
    /// list; the number found in all.
    fn sets_against_brute_force(
        seed: u64,
        grids: u64,
        of_kind: impl Fn(u128, &[u8; CELLS]) -> bool,
        brute_force: impl Fn(&[u8; CELLS]) -> Vec<u128>,
    ) -> usize {
        let mut total = 0;
        for index in 0..grids {
            let g = generate(seed, index, GenerateOptions::default());
            let v = g.solution.cells();
            let mut found: Vec<u128> = UnavoidableSets::of(&g.solution)
                .sets
                .into_iter()
                .filter(|&set| of_kind(set, v))
                .collect();
            let mut expected = brute_force(v);
            found.sort_unstable();
            expected.sort_unstable();
            assert_eq!(found, expected, "grid {}", g.solution);
            total += found.len();
        }
        total
    }

    /// The unique rectangles of the sets, against a test of every pair of
    /// rows of a band (columns of a stack) at every pair of columns (rows).
    #[test]
    fn every_unique_rectangle_is_found_once() {
        let rectangles = |v: &[u8; CELLS]| {
            let mut every_pair = Vec::new();
            for band in 0..3 {
                for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                    let (a, b) = (3 * band + i, 3 * band + j);
                    for x in 0..9 {
                        for y in x + 1..9 {
                            for cells in [
                                [9 * a + x, 9 * a + y, 9 * b + x, 9 * b + y],
                                [9 * x + a, 9 * y + a, 9 * x + b, 9 * y + b],
                            ] {
                                if v[cells[0]] == v[cells[3]] && v[cells[1]] == v[cells[2]] {
                                    every_pair.push(cells.iter().fold(0u128, |m, &c| m | 1 << c));
                                }
                            }
                        }
                    }
                }
            }
            every_pair
        };
        let total = sets_against_brute_force(9, 200, |set, _| set.count_ones() == 4, rectangles);
        assert!(total > 100, "{total} rectangles in 200 grids");
    }

    /// The row swaps of the sets, against every set of columns (rows)
    /// of every pair of rows of a band (columns of a stack) whose digits
    /// are the same in both: the smallest such sets, and only those.
    #[test]
    fn every_smallest_row_swap_is_found_once() {
        let swaps = |v: &[u8; CELLS]| {
            let mut swaps = Vec::new();
            for group in 0..3 {
                for (i, j) in [(0, 1), (0, 2), (1, 2)] {
                    let (a, b) = (3 * group + i, 3 * group + j);
                    for transposed in [false, true] {
                        let cell = |line: usize, k: usize| {
                            if transposed {
                                9 * k + line
                            } else {
                                9 * line + k
                            }
                        };
                        let digits = |line: usize, across: u32| {
                            (0..9)
                                .filter(|&k| across >> k & 1 != 0)
                                .fold(0u16, |m, k| m | 1 << v[cell(line, k)])
                        };
                        let alike: Vec<u32> = (1..1u32 << 9)
                            .filter(|&across| digits(a, across) == digits(b, across))
                            .collect();
                        for &across in &alike {
                            if alike.iter().any(|&o| o != across && o & across == o) {
                                continue;
                            }
                            swaps.push(
                                (0..9)
                                    .filter(|&k| across >> k & 1 != 0)
                                    .fold(0u128, |m, k| m | 1 << cell(a, k) | 1 << cell(b, k)),
                            );
                        }
                    }
                }
            }
            swaps
        };
        // The other kind, two-digit sets, spans three rows and three
        // columns or more.
        let two_lines = |set: u128, _: &[u8; CELLS]| {
            let lines = |of: fn(usize) -> usize| cells_of(set).fold(0u16, |m, c| m | 1 << of(c));
            lines(|c| c / 9).count_ones() == 2 || lines(|c| c % 9).count_ones() == 2
        };
        let total = sets_against_brute_force(12, 100, two_lines, swaps);
        assert!(total > 3000, "{total} row swaps in 100 grids");
    }

    /// The two-digit sets, against the parts of each pair of digits'
    /// eighteen cells joined unit by unit (each unit's two cells go
    /// together): every part of three rows or more but not all nine.
    #[test]
    fn every_smallest_two_digit_set_is_found_once() {
        let parts = |v: &[u8; CELLS]| {
            let mut parts = Vec::new();
            for a in 1..=9u8 {
                for b in a + 1..=9 {
                    let mut part: Vec<u128> = (0..CELLS)
                        .filter(|&c| v[c] == a || v[c] == b)
                        .map(|c| 1u128 << c)
                        .collect();
                    // Join the parts holding a unit's two cells until
                    // nothing changes.
                    for unit in UNIT_CELLS.iter() {
                        let pair: u128 = unit
                            .iter()
                            .filter(|&&c| v[c as usize] == a || v[c as usize] == b)
                            .fold(0, |m, &c| m | 1 << c);
                        let (with, without): (Vec<u128>, Vec<u128>) =
                            part.into_iter().partition(|&p| p & pair != 0);
                        part = without;
                        part.push(with.into_iter().fold(0, |m, p| m | p));
                    }
                    parts.extend(
                        part.into_iter()
                            .filter(|p| (6..18).contains(&p.count_ones())),
                    );
                }
            }
            parts
        };
        let two_digits = |set: u128, v: &[u8; CELLS]| {
            let digits = cells_of(set).fold(0u16, |m, c| m | 1 << v[c]);
            digits.count_ones() == 2 && set.count_ones() > 4
        };
        let total = sets_against_brute_force(13, 100, two_digits, parts);
        assert!(total > 500, "{total} two-digit sets in 100 grids");
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
