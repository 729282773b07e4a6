//! Grading a puzzle as a person solves it, on Sudoku Explainer's scale
//! (SE 1.2.1): a path of steps, each the first that the easiest technique
//! able to make progress finds, each technique with SE's rating. ER is the
//! hardest step of the path, EP the hardest up to the first placement, ED
//! the first step's rating.
//!
//! The techniques live one family per module ([`singles`], ...); [`Board`]
//! holds the candidates. Ratings are in tenths (`72` is 7.2), as SE gives
//! them to one decimal.

pub mod ape;
pub mod board;
pub mod bug;
pub mod chains;
mod combos;
pub mod fish;
pub mod intersections;
pub mod loops;
pub mod singles;
pub mod subsets;
pub mod wings;

pub use board::Board;

use crate::puzzle::grid::Grid;
use crate::puzzle::Puzzle;
use crate::solver::{FastSolver, Outcome};

/// A rating in tenths: 72 is SE's 7.2.
pub type Rating = u16;

/// The highest rating up to which every puzzle is rated: above it, a
/// step may need dynamic chains with nested techniques (SE's "Dynamic
/// (+)", 9.0, and the nested levels), which are not implemented: such
/// puzzles are `beyond`.
pub const GRADED_UP_TO: Rating = 89;

/// The techniques of SE 1.2.1, by the names SE gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Technique {
    /// Last empty cell of a unit (1.0).
    FullHouse,
    /// Hidden single in a box (1.2) or a row or column (1.5).
    HiddenSingle,
    /// Pointing that leaves a hidden single (1.7).
    DirectPointing,
    /// Claiming that leaves a hidden single (1.9).
    DirectClaiming,
    /// Hidden pair that leaves a hidden single (2.0).
    DirectHiddenPair,
    /// Naked single (2.3).
    NakedSingle,
    /// Hidden triple that leaves a hidden single (2.5).
    DirectHiddenTriple,
    /// Pointing (2.6).
    Pointing,
    /// Claiming (2.8).
    Claiming,
    /// Naked pair (3.0).
    NakedPair,
    /// X-wing (3.2).
    XWing,
    /// Hidden pair (3.4).
    HiddenPair,
    /// Naked triple (3.6).
    NakedTriple,
    /// Swordfish (3.8).
    Swordfish,
    /// Hidden triple (4.0).
    HiddenTriple,
    /// XY-wing (4.2).
    XyWing,
    /// XYZ-wing (4.4).
    XyzWing,
    /// Unique rectangle (4.5, more for types 3).
    UniqueRectangle,
    /// Unique loop (4.6 for six cells, 4.7 for eight, 5.0 for ten or more).
    UniqueLoop,
    /// Naked quad (5.0).
    NakedQuad,
    /// Jellyfish (5.2).
    Jellyfish,
    /// Hidden quad (5.4).
    HiddenQuad,
    /// Bivalue universal grave, types 1-4 (5.6-6.2).
    Bug,
    /// Aligned pair exclusion (6.2).
    AlignedPairExclusion,
    /// Bidirectional cycle of X links (6.5 and more with its length).
    XCycle,
    /// Bidirectional cycle of Y links (6.5+).
    YCycle,
    /// Forcing chain of X links (6.6+).
    ForcingXChain,
    /// Bidirectional cycle of X and Y links (7.0+).
    Cycle,
    /// Forcing chain of X and Y links (7.0+).
    ForcingChain,
    /// Aligned triplet exclusion (7.5).
    AlignedTripletExclusion,
    /// Nishio: a candidate whose assumption leads to a contradiction (7.5+).
    NishioForcingChains,
    /// Chains from every candidate of a cell to one conclusion (8.0+).
    CellForcingChains,
    /// Chains from every place of a digit in a unit to one conclusion (8.0+).
    RegionForcingChains,
    /// Dynamic chains: a candidate's assumption contradicts itself (8.5+).
    ContradictionForcingChains,
    /// Dynamic chains: a candidate on and off reach the same conclusion (8.5+).
    DoubleForcingChains,
    /// Dynamic cell forcing chains (8.5+).
    DynamicCellForcingChains,
    /// Dynamic region forcing chains (8.5+).
    DynamicRegionForcingChains,
}

impl Technique {
    /// A full house, hidden or naked single.
    pub fn is_single(self) -> bool {
        matches!(
            self,
            Technique::FullHouse | Technique::HiddenSingle | Technique::NakedSingle
        )
    }

    /// True for the techniques of the first chaining producer: cycles
    /// and forcing chains of X and Y links (6.5-7.x).
    pub fn is_first_chaining(self) -> bool {
        matches!(
            self,
            Technique::XCycle
                | Technique::YCycle
                | Technique::ForcingXChain
                | Technique::Cycle
                | Technique::ForcingChain
        )
    }

    /// Every technique, in SE's order of difficulty.
    pub const ALL: [Technique; 37] = [
        Technique::FullHouse,
        Technique::HiddenSingle,
        Technique::DirectPointing,
        Technique::DirectClaiming,
        Technique::DirectHiddenPair,
        Technique::NakedSingle,
        Technique::DirectHiddenTriple,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::XWing,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::Swordfish,
        Technique::HiddenTriple,
        Technique::XyWing,
        Technique::XyzWing,
        Technique::UniqueRectangle,
        Technique::UniqueLoop,
        Technique::NakedQuad,
        Technique::Jellyfish,
        Technique::HiddenQuad,
        Technique::Bug,
        Technique::AlignedPairExclusion,
        Technique::XCycle,
        Technique::YCycle,
        Technique::ForcingXChain,
        Technique::Cycle,
        Technique::ForcingChain,
        Technique::AlignedTripletExclusion,
        Technique::NishioForcingChains,
        Technique::CellForcingChains,
        Technique::RegionForcingChains,
        Technique::ContradictionForcingChains,
        Technique::DoubleForcingChains,
        Technique::DynamicCellForcingChains,
        Technique::DynamicRegionForcingChains,
    ];

    /// SE's name of the technique.
    pub fn name(self) -> &'static str {
        match self {
            Technique::FullHouse => "Hidden Single",
            Technique::HiddenSingle => "Hidden Single",
            Technique::DirectPointing => "Direct Pointing",
            Technique::DirectClaiming => "Direct Claiming",
            Technique::DirectHiddenPair => "Direct Hidden Pair",
            Technique::NakedSingle => "Naked Single",
            Technique::DirectHiddenTriple => "Direct Hidden Triplet",
            Technique::Pointing => "Pointing",
            Technique::Claiming => "Claiming",
            Technique::NakedPair => "Naked Pair",
            Technique::XWing => "X-Wing",
            Technique::HiddenPair => "Hidden Pair",
            Technique::NakedTriple => "Naked Triplet",
            Technique::Swordfish => "Swordfish",
            Technique::HiddenTriple => "Hidden Triplet",
            Technique::XyWing => "XY-Wing",
            Technique::XyzWing => "XYZ-Wing",
            Technique::UniqueRectangle => "Unique Rectangle",
            Technique::UniqueLoop => "Unique Loop",
            Technique::NakedQuad => "Naked Quad",
            Technique::Jellyfish => "Jellyfish",
            Technique::HiddenQuad => "Hidden Quad",
            Technique::Bug => "Bivalue Universal Grave",
            Technique::AlignedPairExclusion => "Aligned Pair Exclusion",
            Technique::XCycle => "Bidirectional X-Cycle",
            Technique::YCycle => "Bidirectional Y-Cycle",
            Technique::ForcingXChain => "Forcing X-Chain",
            Technique::Cycle => "Bidirectional Cycle",
            Technique::ForcingChain => "Forcing Chain",
            Technique::AlignedTripletExclusion => "Aligned Triplet Exclusion",
            Technique::NishioForcingChains => "Nishio Forcing Chains",
            Technique::CellForcingChains => "Cell Forcing Chains",
            Technique::RegionForcingChains => "Region Forcing Chains",
            Technique::ContradictionForcingChains => "Dynamic Contradiction Forcing Chains",
            Technique::DoubleForcingChains => "Dynamic Double Forcing Chains",
            Technique::DynamicCellForcingChains => "Dynamic Cell Forcing Chains",
            Technique::DynamicRegionForcingChains => "Dynamic Region Forcing Chains",
        }
    }

    /// A short name for a technique (no spaces).
    pub fn code(self) -> &'static str {
        match self {
            Technique::FullHouse => "full_house",
            Technique::HiddenSingle => "hidden_single",
            Technique::DirectPointing => "direct_pointing",
            Technique::DirectClaiming => "direct_claiming",
            Technique::DirectHiddenPair => "direct_hidden_pair",
            Technique::NakedSingle => "naked_single",
            Technique::DirectHiddenTriple => "direct_hidden_triple",
            Technique::Pointing => "pointing",
            Technique::Claiming => "claiming",
            Technique::NakedPair => "naked_pair",
            Technique::XWing => "x_wing",
            Technique::HiddenPair => "hidden_pair",
            Technique::NakedTriple => "naked_triple",
            Technique::Swordfish => "swordfish",
            Technique::HiddenTriple => "hidden_triple",
            Technique::XyWing => "xy_wing",
            Technique::XyzWing => "xyz_wing",
            Technique::UniqueRectangle => "unique_rectangle",
            Technique::UniqueLoop => "unique_loop",
            Technique::NakedQuad => "naked_quad",
            Technique::Jellyfish => "jellyfish",
            Technique::HiddenQuad => "hidden_quad",
            Technique::Bug => "bug",
            Technique::AlignedPairExclusion => "aligned_pair_exclusion",
            Technique::XCycle => "x_cycle",
            Technique::YCycle => "y_cycle",
            Technique::ForcingXChain => "forcing_x_chain",
            Technique::Cycle => "cycle",
            Technique::ForcingChain => "forcing_chain",
            Technique::AlignedTripletExclusion => "aligned_triplet_exclusion",
            Technique::NishioForcingChains => "nishio",
            Technique::CellForcingChains => "cell_forcing_chains",
            Technique::RegionForcingChains => "region_forcing_chains",
            Technique::ContradictionForcingChains => "dynamic_contradiction",
            Technique::DoubleForcingChains => "dynamic_double_forcing",
            Technique::DynamicCellForcingChains => "dynamic_cell_forcing_chains",
            Technique::DynamicRegionForcingChains => "dynamic_region_forcing_chains",
        }
    }
}

/// One step of a solving path: what the technique found, and what it does
/// to the grid (a placement, or candidates removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub technique: Technique,
    pub rating: Rating,
    /// The cell (0-80) and digit placed, if the step places one.
    pub placed: Option<(u8, u8)>,
    /// Candidates removed: (cell, digit), in cell order.
    pub eliminated: Vec<(u8, u8)>,
    /// The cells the pattern stands on (the unit's cells for a single,
    /// the pair's for a naked pair, ...), for a reader to find it.
    pub pattern: Vec<u8>,
    /// For a chain, the links it stands on: a branch each (one for a
    /// cycle or a forcing chain; one per candidate of a cell, per place
    /// of a digit, or per state of a candidate else), each from its
    /// assumption to the conclusion, a node as (cell, digit, true when the
    /// digit is in the cell, false when it is not).
    pub chains: Vec<Vec<(u8, u8, bool)>>,
}

impl Step {
    /// A step of `technique` that removes `eliminated` (in cell order),
    /// standing on the cells `pattern`, without a chain.
    pub fn eliminating(
        technique: Technique,
        rating: Rating,
        eliminated: Vec<(u8, u8)>,
        pattern: Vec<u8>,
    ) -> Step {
        Step {
            technique,
            rating,
            placed: None,
            eliminated,
            pattern,
            chains: Vec::new(),
        }
    }

    /// A step of `technique` that places `placed` (cell, digit), and
    /// removes `eliminated`, standing on the cells `pattern`, without a
    /// chain.
    pub fn placing(
        technique: Technique,
        rating: Rating,
        placed: (u8, u8),
        eliminated: Vec<(u8, u8)>,
        pattern: Vec<u8>,
    ) -> Step {
        Step {
            placed: Some(placed),
            ..Step::eliminating(technique, rating, eliminated, pattern)
        }
    }

    /// Applies the step to `board`.
    pub fn apply(&self, board: &mut Board) {
        if let Some((cell, d)) = self.placed {
            board.place(cell, d);
        }
        for &(cell, d) in &self.eliminated {
            board.eliminate(cell, d);
        }
    }
}

/// What grading a puzzle found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grade {
    /// Uniquely solvable, and every step of its path found: ER, EP, ED.
    Rated {
        er: Rating,
        ep: Rating,
        ed: Rating,
        /// The technique of the (first) ER step; none for a path without
        /// steps (a complete grid).
        hardest: Option<Technique>,
        steps: Vec<Step>,
    },
    /// Uniquely solvable, but a step needs a technique beyond those
    /// implemented: `er` is the hardest step reached, a lower bound.
    Beyond {
        er: Rating,
        ep: Option<Rating>,
        ed: Option<Rating>,
        steps: Vec<Step>,
    },
    /// More than one solution (SE rates only unique puzzles).
    Multiple,
    /// No solution.
    Unsolvable,
}

/// Grades `puzzle` (valid: no digit given twice in a unit). Givens start
/// from the candidates they leave; pencilmarks from their candidates (a
/// cell with one is not yet placed). `steps`: keep the path (else only the
/// ratings are kept).
pub fn grade(puzzle: &Puzzle, solver: &mut FastSolver, steps: bool) -> Grade {
    match start(puzzle, solver) {
        Ok((board, solution)) => walk_path(board, steps, solution.as_ref(), Rating::MAX),
        Err(not_unique) => not_unique,
    }
}

/// True when `puzzle` (valid) is rated, with an ER from `min` to `max`:
/// what [`grade`] says, found sooner where the answer is no. The path
/// stops at its first step rated above `max`, and the techniques whose
/// every hint rates above `max` (chains, for a `max` below 6.5) are never
/// searched: the path up to there is the one [`grade`] walks, since each
/// technique is tried only after every easier one found nothing
/// (`generate --er`, the Python and Spark `er:` ranges).
pub fn er_within(puzzle: &Puzzle, solver: &mut FastSolver, min: Rating, max: Rating) -> bool {
    let Ok((board, solution)) = start(puzzle, solver) else {
        return false;
    };
    matches!(
        walk_path(board, false, solution.as_ref(), max),
        Grade::Rated { er, .. } if (min..=max).contains(&er)
    )
}

/// The board a path starts from, and the puzzle's one solution; or what
/// the grade is when there is not one.
fn start(puzzle: &Puzzle, solver: &mut FastSolver) -> Result<(Board, Option<Grid>), Grade> {
    let solution = match puzzle.solve(solver, 2) {
        Outcome { solutions: 0, .. } => return Err(Grade::Unsolvable),
        Outcome {
            solutions: 1,
            solution,
            ..
        } => solution,
        _ => return Err(Grade::Multiple),
    };
    let board = match puzzle {
        Puzzle::Givens(g) => Board::new(g),
        Puzzle::Marks(c) => Board::from_candidates(*c.masks()),
    };
    Ok((board, solution))
}

/// Walks the solving path from `board`: the first step the easiest
/// technique finds, applied, until the grid is full or nothing is found.
pub fn grade_path(board: Board, keep: bool) -> Grade {
    walk_path(board, keep, None, Rating::MAX)
}

/// As [`grade_path`], knowing the solution or not (the path is the same;
/// knowing it spares searches that cannot succeed). With a `cap` below
/// `Rating::MAX`, a path that needs a step rated above it ends there as
/// `Beyond` (see [`er_within`]).
fn walk_path(mut board: Board, keep: bool, solution: Option<&Grid>, cap: Rating) -> Grade {
    let mut path = Vec::new();
    let mut er: Rating = 0;
    let mut hardest = None;
    let (mut ep, mut ed) = (None, None);
    let mut memory = PathMemory::new(solution);
    while !board.is_solved() {
        let step = next_step(&board, &mut memory, cap).filter(|step| step.rating <= cap);
        let Some(step) = step else {
            return Grade::Beyond {
                er,
                ep,
                ed,
                steps: path,
            };
        };
        if step.rating > er {
            er = step.rating;
            hardest = Some(step.technique);
        }
        // At a step of cycles or forcing chains: where no step from here
        // on (this one included) can rate above ER, the rest of the path
        // can change neither ER, nor EP (what is left of it rates ER at
        // most, so it is ER if still open), nor ED (this step's ER if not
        // yet set). Not where the steps are kept.
        if !keep && step.technique.is_first_chaining() && memory.rest_rates_at_most(&board, er) {
            ed.get_or_insert(er);
            break;
        }
        let before = board.clone();
        step.apply(&mut board);
        match singles_within(er) {
            Some(singles) if !keep && solution.is_some() && step.technique.is_single() => {
                place_singles(&mut board, singles);
            }
            _ => {}
        }
        memory.producers.step_taken(&before, &board);
        if ep.is_none() {
            ed.get_or_insert(er);
            if step.placed.is_some() {
                ep = Some(er);
            }
        }
        if keep {
            path.push(step);
        }
    }
    Grade::Rated {
        er,
        ep: ep.unwrap_or(er),
        ed: ed.unwrap_or(er),
        hardest,
        steps: path,
    }
}

/// The singles the path may place at once after a single, ER being
/// `er`: all of SE's singles rated `er` or less (see [`place_singles`]).
fn singles_within(er: Rating) -> Option<Singles> {
    match er {
        ..12 => None,
        12..15 => Some(Singles::InBoxes),
        15..23 => Some(Singles::Hidden),
        23.. => Some(Singles::All),
    }
}

/// Places on `board` the `singles` it has, and those they lead to, until
/// none is left. For a path whose steps are not kept, after a single,
/// the puzzle's solution known (and in the proof's copy of
/// [`PathMemory::rest_rates_at_most`], where every single rates below
/// the bound).
///
/// Why the path may jump there: SE always takes the easiest step, and
/// singles rate lowest (full house 1.0, hidden single in a box 1.2, in a
/// line 1.5; naked single 2.3, below it only the direct techniques,
/// 1.7-2.0). A single stays one until placed (fewer candidates leave its
/// digit nowhere else, its cell nothing else, and the unique solution
/// keeps it there), and so does what a direct technique places (its
/// pattern stays, or singles take its place). So, with the singles and
/// the techniques rated below the highest of them, SE ends on the one
/// board where none of them finds anything left, whatever their order,
/// and so does the path after the jump; each step between rates ER at
/// most, and EP and ED are set (the single placed).
fn place_singles(board: &mut Board, singles: Singles) {
    singles::place_singles(board, singles != Singles::InBoxes, singles == Singles::All);
}

/// Which singles [`place_singles`] places.
#[derive(Clone, Copy, PartialEq)]
enum Singles {
    /// The full houses and the hidden singles of boxes (1.0, 1.2).
    InBoxes,
    /// Every hidden single (to 1.5).
    Hidden,
    /// And the naked singles (2.3).
    All,
}

/// The board of what `a` and `b` (boards of one puzzle, holding its
/// solution) both tell: the values placed in either, the candidates of
/// both.
fn both(a: &Board, b: &Board) -> Board {
    let mut joined = a.clone();
    for cell in 0..81u8 {
        if b.value(cell) != 0 && joined.value(cell) == 0 {
            joined.place(cell, b.value(cell));
        }
    }
    for d in 1..=9 {
        for cell in board::cells_of(joined.cells_with(d) & !b.cells_with(d)) {
            joined.eliminate(cell, d);
        }
    }
    joined
}

/// What the search for the next step keeps from one step of a path to
/// the next.
struct PathMemory {
    /// The puzzle's solution, if known, for the chain searches.
    solution: Option<Grid>,
    /// The chain searches' buffers and memory, made when first needed.
    chains: Option<chains::Chains>,
    /// Where the producers of [`LOCAL`] must search.
    producers: LocalMemory,
    /// The pairs of digits the loop search found no loop on.
    loops: loops::LoopMemory,
    /// Where [`PathMemory::rest_rates_at_most`] last got stuck.
    stuck: Option<Box<Stuck>>,
}

/// A board the techniques that stay true as candidates go left unsolved,
/// the most they were allowed to rate, and what their producers knew of
/// it: every board of the path after it holds no more than what it
/// holds together with that board.
struct Stuck {
    board: Board,
    most: Rating,
    basics: LocalMemory,
}

/// Per producer of [`LOCAL`]: where the board changed since it last
/// searched and found nothing, the only places it can find something
/// now.
struct LocalMemory {
    changed: [Changed; LOCAL.len()],
}

/// Where the board changed: cells (bit `c`), units (bit `u`), digits
/// (bit `d - 1`).
#[derive(Clone, Copy)]
struct Changed {
    cells: u128,
    units: u32,
    digits: u16,
}

impl Changed {
    const EVERYWHERE: Changed = Changed {
        cells: (1 << 81) - 1,
        units: (1 << 27) - 1,
        digits: 0x1ff,
    };
    const NOWHERE: Changed = Changed {
        cells: 0,
        units: 0,
        digits: 0,
    };

    /// The changed cells and their peers.
    fn near(self) -> u128 {
        if self.cells == Changed::EVERYWHERE.cells {
            return self.cells;
        }
        self.cells | board::seen_by(self.cells)
    }

    /// Where the board changed, as the exclusions need it: the changed
    /// cells with the peers of those placed (which may have become base
    /// cells), and the changed cells with all their peers (see
    /// [`ape::Around`]).
    fn around(self, board: &Board) -> ape::Around {
        if self.cells == Changed::EVERYWHERE.cells {
            return ape::Around::EVERYWHERE;
        }
        let placed = board::cells_of(self.cells).filter(|&c| board.value(c) != 0);
        let placed = placed.fold(0, |m, c| m | board::cell_bit(c));
        ape::Around {
            touched: self.cells | board::seen_by(placed),
            near: self.near(),
        }
    }
}

/// The producers that need only search where the board has changed since
/// they last found nothing: each stands on one cell, one unit's cells, one
/// digit's places, or a few cells that see each other (so a new hint has
/// a cell changed or next to a change).
#[derive(Clone, Copy)]
enum Local {
    HiddenSingle,
    NakedSingle,
    LockedCandidates { direct: bool },
    HiddenSet { k: u32, direct: bool },
    NakedSet { k: u32 },
    Fish { k: u32 },
    Wing { xyz: bool },
    AlignedPair,
    AlignedTriplet,
}

/// The producers of [`LOCAL`] that [`PathMemory::rest_rates_at_most`]
/// solves its copy with: the singles, locked candidates, naked and hidden
/// sets, fish and wings, but not the direct forms (a direct pointing,
/// claiming, hidden pair or triple is the plain one with the single it
/// leaves, and the copy places every single at once: the same board is
/// reached, since each of these techniques stays true as candidates go),
/// nor the exclusions.
const PROOF_LOCAL: [usize; 14] = [0, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];

/// Those producers, in SE's order (see [`next_step`] for the others).
const LOCAL: [Local; 19] = [
    Local::HiddenSingle,
    Local::LockedCandidates { direct: true },
    Local::HiddenSet { k: 2, direct: true },
    Local::NakedSingle,
    Local::HiddenSet { k: 3, direct: true },
    Local::LockedCandidates { direct: false },
    Local::NakedSet { k: 2 },
    Local::Fish { k: 2 },
    Local::HiddenSet {
        k: 2,
        direct: false,
    },
    Local::NakedSet { k: 3 },
    Local::Fish { k: 3 },
    Local::HiddenSet {
        k: 3,
        direct: false,
    },
    Local::Wing { xyz: false },
    Local::Wing { xyz: true },
    Local::NakedSet { k: 4 },
    Local::Fish { k: 4 },
    Local::HiddenSet {
        k: 4,
        direct: false,
    },
    Local::AlignedPair,
    Local::AlignedTriplet,
];

impl Local {
    /// The first hint, searched where the board `changed`; told the
    /// puzzle's `solution` (its 81 digits), the exclusions try fewer
    /// digits.
    fn search(self, board: &Board, changed: Changed, solution: Option<&[u8; 81]>) -> Option<Step> {
        match self {
            Local::HiddenSingle => singles::hidden_single(board, changed.units),
            Local::NakedSingle => singles::naked_single(board, changed.cells),
            Local::LockedCandidates { direct } => {
                intersections::locked_candidates(board, direct, changed.digits)
            }
            Local::HiddenSet { k, direct } => subsets::hidden_set(board, k, direct, changed.units),
            Local::NakedSet { k } => subsets::naked_set(board, k, changed.units),
            Local::Fish { k } => fish::fish(board, k, changed.digits),
            Local::Wing { xyz } => wings::xy_wing(board, xyz, changed.cells, changed.near()),
            Local::AlignedPair => {
                ape::aligned_pair_exclusion(board, changed.around(board), solution)
            }
            Local::AlignedTriplet => {
                ape::aligned_triplet_exclusion(board, changed.around(board), solution)
            }
        }
    }
}

thread_local! {
    /// The chain searches of a path finished on this thread, for the next
    /// path: their buffers (some 300 KB) made once per thread, not once
    /// per puzzle.
    static SPARE_CHAINS: std::cell::RefCell<Option<chains::Chains>> =
        const { std::cell::RefCell::new(None) };
}

impl Drop for PathMemory {
    fn drop(&mut self) {
        if let Some(chains) = self.chains.take() {
            // Gone only while the thread ends: nothing to keep it for.
            let _ = SPARE_CHAINS.try_with(|spare| *spare.borrow_mut() = Some(chains));
        }
    }
}

impl PathMemory {
    fn new(solution: Option<&Grid>) -> PathMemory {
        PathMemory {
            solution: solution.copied(),
            chains: None,
            producers: LocalMemory::new(Changed::EVERYWHERE),
            loops: match solution {
                Some(solution) => loops::LoopMemory::knowing(solution.cells()),
                None => loops::LoopMemory::new(),
            },
            stuck: None,
        }
    }

    /// True when no step of the path from `board` on can rate above
    /// `most` (6.6 or more): told by solving a copy of the board with
    /// techniques that rate `most` or less and that stay true as
    /// candidates go, the singles, locked candidates, naked and hidden
    /// sets, fish, XY- and XYZ-wings, and the forcing chains of the
    /// first chaining producer within `most` (see
    /// [`chains::Chains::forcing_conclusions`]).
    ///
    /// Why that says it: each such technique, where it removes or places
    /// something on a board, still does on any board with fewer false
    /// candidates, or what it concluded follows there by singles (a chain
    /// whose candidate went: the link before or after it became a single,
    /// and singles run along the chain to its end). So on every board of
    /// the path, as long as the copy was solved from the board, one of
    /// them finds something, and the step SE takes rates no more than it.
    /// False when the copy gets stuck (the path is then walked on), or
    /// without the solution.
    fn rest_rates_at_most(&mut self, board: &Board, most: Rating) -> bool {
        let Some(chains) = self.chains.as_mut() else {
            return false;
        };
        if most < 66 || self.solution.is_none() {
            return false;
        }
        let (mut copy, mut basics) = match self.stuck.take() {
            // What was concluded from an earlier board of the path
            // follows from this one too (every technique used stays true
            // as candidates go): start from both boards' conclusions.
            Some(stuck) => {
                let Stuck {
                    board: before,
                    most: then,
                    mut basics,
                } = *stuck;
                let copy = both(&before, board);
                if copy == before && then == most {
                    // Stuck there again.
                    self.stuck = Some(Box::new(Stuck {
                        board: before,
                        most,
                        basics,
                    }));
                    return false;
                }
                basics.step_taken(&before, &copy);
                (copy, basics)
            }
            // Asked where every producer below the chains found nothing
            // on `board`: they search only where the board changes.
            None => (board.clone(), LocalMemory::new(Changed::NOWHERE)),
        };
        loop {
            // The producers of PROOF_LOCAL (no direct forms, no
            // exclusions), each step's singles placed at once.
            while let Some(step) = basics.local(&copy, PROOF_LOCAL, self.solution.as_ref()) {
                let before = copy.clone();
                step.apply(&mut copy);
                place_singles(&mut copy, Singles::All);
                basics.step_taken(&before, &copy);
            }
            if copy.is_solved() {
                return true;
            }
            let found = chains.forcing_conclusions(&copy, most).unwrap_or_default();
            if found.is_empty() {
                self.stuck = Some(Box::new(Stuck {
                    board: copy,
                    most,
                    basics,
                }));
                return false;
            }
            let before = copy.clone();
            for (cell, d, proven_true) in found {
                if proven_true {
                    if copy.value(cell) == 0 {
                        copy.place(cell, d);
                    }
                } else {
                    copy.eliminate(cell, d);
                }
            }
            basics.step_taken(&before, &copy);
        }
    }
}

impl LocalMemory {
    /// Each producer to search where `start` says.
    fn new(start: Changed) -> LocalMemory {
        LocalMemory {
            changed: [start; LOCAL.len()],
        }
    }

    /// The first hint of the producers of [`LOCAL`] at the places
    /// `producers` (in that order), each run where the board changed
    /// since it last found nothing, told the puzzle's `solution` if known.
    fn local(
        &mut self,
        board: &Board,
        producers: impl IntoIterator<Item = usize>,
        solution: Option<&Grid>,
    ) -> Option<Step> {
        let solution = solution.map(Grid::cells);
        producers.into_iter().find_map(|i| {
            let found = LOCAL[i].search(board, self.changed[i], solution);
            if found.is_none() {
                self.changed[i] = Changed::NOWHERE;
            }
            found
        })
    }

    /// Notes what a step changed from `before` to `after`.
    fn step_taken(&mut self, before: &Board, after: &Board) {
        let mut step = Changed::NOWHERE;
        for d in 1..=9 {
            let diff = before.cells_with(d) ^ after.cells_with(d);
            if diff != 0 {
                step.digits |= 1 << (d - 1);
                step.cells |= diff;
            }
        }
        step.units = board::cells_of(step.cells).fold(0, |m, c| m | board::unit_bits(c));
        for changed in &mut self.changed {
            changed.cells |= step.cells;
            changed.units |= step.units;
            changed.digits |= step.digits;
        }
    }
}

/// The next step: the producers in SE's order, the first hint found.
/// Producers whose hints all rate above `cap` are not run (each rates at
/// least as high as the one before it, so none after them is either).
fn next_step(board: &Board, memory: &mut PathMemory, cap: Rating) -> Option<Step> {
    // The lowest rating of each producer's hints, from unique loops on.
    let upto = |lowest: Rating| (lowest <= cap).then_some(());
    // Those of LOCAL by their place there.
    // Hidden single ... hidden triple, XY- and XYZ-wing.
    let solution = memory.solution.as_ref();
    memory
        .producers
        .local(board, 0..14, solution)
        .or_else(|| upto(45).and_then(|()| loops::unique_loop(board, &mut memory.loops)))
        // Naked quad, jellyfish, hidden quad.
        .or_else(|| upto(50).and_then(|()| memory.producers.local(board, 14..17, solution)))
        .or_else(|| upto(56).and_then(|()| bug::bug(board)))
        // Aligned pair exclusion.
        .or_else(|| upto(62).and_then(|()| memory.producers.local(board, 17..18, solution)))
        .or_else(|| {
            upto(65)?;
            let chains = memory.chains.get_or_insert_with(|| {
                match SPARE_CHAINS.with(|spare| spare.borrow_mut().take()) {
                    Some(mut chains) => {
                        chains.restart(solution);
                        chains
                    }
                    None => chains::Chains::knowing(solution),
                }
            });
            chains.cycles_and_forcing_chains(board)
        })
        // Aligned triplet exclusion.
        .or_else(|| upto(75).and_then(|()| memory.producers.local(board, 18..19, solution)))
        .or_else(|| {
            upto(75)?;
            let chains = memory.chains.as_mut().expect("made above");
            chains
                .nishio(board)
                .or_else(|| upto(80).and_then(|()| chains.multiple(board)))
                .or_else(|| upto(85).and_then(|()| chains.dynamic(board)))
        })
}

/// A rating as SE writes it: `7.2`.
pub fn rating_text(r: Rating) -> String {
    format!("{}.{}", r / 10, r % 10)
}

/// Boards for the tests that set a quick search beside a plain one: the
/// sample dataset's puzzles, and false candidates taken away at random.
#[cfg(test)]
pub(crate) mod test_boards {
    use super::Board;
    use crate::puzzle::grid::Grid;
    use crate::solver::{FastSolver, Solver};
    use rand::Rng;

    /// The first `n` puzzles of `datasets/sample.txt`: each line, the
    /// board of its givens, its solution.
    pub fn sample(n: usize) -> impl Iterator<Item = (&'static str, Board, Grid)> {
        let mut solver = FastSolver::new();
        let lines = include_str!("../../../datasets/sample.txt").lines();
        lines.take(n).map(move |line| {
            let givens = Grid::parse_line(line.as_bytes()).unwrap();
            let solution = solver.solve(&givens, 1).solution.unwrap();
            (line, Board::new(&givens), solution)
        })
    }

    /// Calls `check(line, round, board, rng)` on the boards of the first
    /// `n` sample puzzles, each thinned `rounds` times in turn by
    /// [`take_false_away`] (one in `one_in`): boards with many candidates
    /// first, few later. One generator, seeded `seed`, thins them and is
    /// handed on for the check's own random choices.
    pub fn each_thinned(
        n: usize,
        rounds: usize,
        one_in: u32,
        seed: u64,
        mut check: impl FnMut(&str, usize, &Board, &mut rand_chacha::ChaCha8Rng),
    ) {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        for (line, mut board, solution) in sample(n) {
            for round in 0..rounds {
                take_false_away(&mut board, &solution, &mut rng, one_in);
                check(line, round, &board, &mut rng);
            }
        }
    }

    /// Takes each candidate other than `solution`'s digit away, with a
    /// chance of one in `one_in` (cells, then digits, in order).
    pub fn take_false_away(board: &mut Board, solution: &Grid, rng: &mut impl Rng, one_in: u32) {
        for cell in 0..81u8 {
            for d in super::board::digits(board.cands(cell)) {
                if d != solution.cells()[cell as usize] && rng.gen_ratio(1, one_in) {
                    board.eliminate(cell, d);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `er_within`, whose path stops at its first step above the range and
    /// never runs the techniques rated above it, says what the whole grade
    /// says, for ranges that end inside every level of technique (and for
    /// puzzles beyond the techniques implemented).
    #[test]
    fn er_within_says_what_grade_says() {
        let mut solver = FastSolver::new();
        let ranges = [
            (10, 23),
            (20, 30),
            (30, 44),
            (45, 62),
            (62, 62),
            (50, 66),
            (65, 75),
            (70, 75),
            (72, 79),
            (75, 85),
            (80, 89),
            (10, 89),
        ];
        let (mut within, mut above) = (0, 0);
        let lines = include_str!("../../../datasets/sample.txt").lines();
        for line in lines.take(400) {
            let puzzle: Puzzle = Grid::parse_line(line.as_bytes()).unwrap().into();
            let er = match grade(&puzzle, &mut solver, false) {
                Grade::Rated { er, .. } => Some(er),
                _ => None,
            };
            for (min, max) in ranges {
                let expected = er.is_some_and(|er| (min..=max).contains(&er));
                let found = er_within(&puzzle, &mut solver, min, max);
                assert_eq!(found, expected, "{line}: ER {er:?}, range {min}-{max}");
                within += usize::from(expected);
                above += usize::from(er.is_some_and(|er| er > max));
            }
        }
        assert!(
            within > 500 && above > 500,
            "{within} within, {above} above"
        );
    }

    /// The search remembers, along a path, where its producers found
    /// nothing (the chains' passes, the producers of `LOCAL`), and knows
    /// the solution: at every step of every path it finds what a search
    /// without that memory, not knowing the solution, finds.
    #[test]
    fn remembered_searches_find_what_fresh_ones_find() {
        let mut chain_steps = 0;
        for (line, mut board, solution) in test_boards::sample(400) {
            let mut kept = PathMemory::new(Some(&solution));
            while !board.is_solved() {
                let step = next_step(&board, &mut kept, Rating::MAX);
                let fresh = next_step(&board, &mut PathMemory::new(None), Rating::MAX);
                assert_eq!(step, fresh, "{line}");
                let Some(step) = step else { break };
                chain_steps += usize::from(step.rating >= 65);
                let before = board.clone();
                step.apply(&mut board);
                kept.producers.step_taken(&before, &board);
            }
        }
        assert!(chain_steps > 100, "{chain_steps}");
    }

    /// Where the path is told that no step from a step of cycles or
    /// forcing chains on rates above its ER so far, none does (the path
    /// walked on to its end to see), and the grades that stop there are
    /// those of the whole path.
    #[test]
    fn rests_told_to_rate_at_most_er_do() {
        let mut solver = FastSolver::new();
        let (mut told, mut not) = (0, 0);
        for (line, mut board, solution) in test_boards::sample(1500) {
            let mut memory = PathMemory::new(Some(&solution));
            let mut er = 0;
            // The ERs the rest was told to rate at most.
            let mut bounds: Vec<Rating> = Vec::new();
            while let Some(step) = next_step(&board, &mut memory, Rating::MAX) {
                er = er.max(step.rating);
                for &most in &bounds {
                    assert!(
                        step.rating <= most,
                        "{line}: {step:?} after a rest told {most}"
                    );
                }
                if step.technique.is_first_chaining() {
                    if memory.rest_rates_at_most(&board, er) {
                        told += 1;
                        bounds.push(er);
                    } else {
                        not += 1;
                    }
                }
                let before = board.clone();
                step.apply(&mut board);
                memory.producers.step_taken(&before, &board);
            }
            let puzzle: Puzzle = Grid::parse_line(line.as_bytes()).unwrap().into();
            let ratings = |g: Grade| match g {
                Grade::Rated {
                    er,
                    ep,
                    ed,
                    hardest,
                    ..
                } => Some((er, ep, ed, hardest)),
                _ => None,
            };
            assert_eq!(
                ratings(grade(&puzzle, &mut solver, false)),
                ratings(grade(&puzzle, &mut solver, true)),
                "{line}"
            );
        }
        assert!(told > 100 && not > 100, "{told} told, {not} not");
    }
}
