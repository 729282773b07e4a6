//! Canonical forms: one representative per class of equivalent puzzles.
//!
//! Two puzzles are equivalent when one becomes the other by the moves that
//! keep every puzzle valid: transposing, permuting the rows inside a band,
//! the bands, the columns inside a stack, the stacks (2 x 6^8 = 3,359,232
//! cell arrangements), and relabelling the digits. The canonical form is
//! the *minlex* form: over all of them, the smallest 81-cell string read in
//! row order, a blank counting below every digit. It is defined on the
//! puzzle itself, so puzzles with any number of solutions, and solved grids,
//! have one.
//!
//! For a fixed arrangement the best relabelling is forced: digits are named
//! 1, 2, 3, ... in the order they first appear. So the search is over
//! arrangements only, and it builds the string row by row ([`canonical`]):
//! at each output row, every partial arrangement still tied for the smallest
//! prefix tries each source row it may take next, and only the ties for the
//! smallest row go on. Columns are not enumerated up front: columns that
//! have been blank in every row so far can still be swapped without
//! changing the prefix, so a partial arrangement keeps them as a free group
//! ([`Partial::free`]) and sorts them only when a row tells them apart.
//! Puzzles start with nearly empty rows, so this keeps a handful of partial
//! arrangements where an explicit list would hold hundreds.
//!
//! [`canonical_by_brute_force`] tries all 3,359,232 arrangements; the tests
//! hold the fast search to it.

use crate::puzzle::grid::{Conflict, Grid, CELLS};
use crate::solver::Isa;

/// A transformation of the group: transpose (or not), then take rows and
/// columns in a new order, then rename the digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transform {
    /// Transpose the puzzle first.
    pub transpose: bool,
    /// `rows[i]`: the row (of the puzzle, after any transposition) that
    /// becomes row `i`. Keeps bands together.
    pub rows: [u8; 9],
    /// `cols[j]`: the column that becomes column `j`. Keeps stacks together.
    pub cols: [u8; 9],
    /// `digits[d]`: what digit `d` becomes; `digits[0]` is 0 (blank).
    pub digits: [u8; 10],
}

impl Transform {
    /// The identity.
    pub const IDENTITY: Transform = Transform {
        transpose: false,
        rows: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        cols: [0, 1, 2, 3, 4, 5, 6, 7, 8],
        digits: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    };

    /// The puzzle `grid` becomes.
    pub fn apply(&self, grid: &Grid) -> Grid {
        let mut cells = [0u8; CELLS];
        for (i, &r) in self.rows.iter().enumerate() {
            for (j, &c) in self.cols.iter().enumerate() {
                let (r, c) = (r as usize, c as usize);
                let d = if self.transpose {
                    grid.get(c, r)
                } else {
                    grid.get(r, c)
                };
                cells[i * 9 + j] = self.digits[d as usize];
            }
        }
        Grid::from_cells(cells).expect("digits maps 0..=9 into 0..=9")
    }

    /// Whether this is a member of the group: rows and columns permuted
    /// band by band and stack by stack, digits permuted with blank fixed.
    pub fn is_valid(&self) -> bool {
        fn keeps_blocks(order: &[u8; 9]) -> bool {
            let mut seen = 0u16;
            for block in order.chunks(3) {
                let first_block = block[0] / 3;
                for &x in block {
                    if x > 8 || x / 3 != first_block || seen & (1 << x) != 0 {
                        return false;
                    }
                    seen |= 1 << x;
                }
            }
            true
        }
        let mut seen = 0u16;
        for &d in &self.digits {
            if d > 9 {
                return false;
            }
            seen |= 1 << d;
        }
        keeps_blocks(&self.rows) && keeps_blocks(&self.cols) && seen == 0x3ff && self.digits[0] == 0
    }
}

/// A puzzle's canonical form and what the search learnt on the way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The minlex form.
    pub grid: Grid,
    /// How many of the 3,359,232 cell arrangements, each with its own
    /// relabelling of the digits, map the puzzle onto itself (1 for most
    /// puzzles; 3,359,232 for the empty grid).
    pub automorphisms: u64,
    /// One transformation taking the puzzle to `grid`.
    pub transform: Transform,
}

/// Key of a digit seen for the first time in this row: above every label
/// (labels are 1 to 9), so it sorts last; the digits that get it are named
/// in the order they are placed, so any order among them spells the same
/// row.
const NEW: u8 = 15;

/// A row's nine digits, padded to 16 bytes so that the vector version
/// loads it whole.
type Row = [u8; 16];

/// The lanes past the ninth of [`Partial::cols`]: `pshufb` reads a lane
/// whose index has its top bit set as 0 (a blank).
const NO_COLUMN: u8 = 0x80;

/// One arrangement (or a group of them, see `free`) still tied for the
/// smallest prefix.
#[derive(Clone, Copy)]
struct Partial {
    /// Output row -> source row, for the rows placed so far.
    rows: [u8; 9],
    /// Output column -> source column. Within each stack's free prefix this
    /// is one representative of all the orders. Lanes 9 to 15 hold
    /// `NO_COLUMN`, for the vector version.
    cols: [u8; 16],
    /// Source digit -> its label, or `NEW` while not yet seen; `[0]` is 0.
    /// Padded to 16 lanes (left 0) for the vector version.
    key_of: [u8; 16],
    /// Per output stack: how many of its leading columns have been blank in
    /// every row placed so far. They can be permuted freely.
    free: [u8; 3],
    /// How many leading output stacks are wholly blank so far: those stacks
    /// can also be permuted among themselves (their `free` is 3).
    blank_stacks: u8,
    /// Which orientation (0 as given, 1 transposed) the rows come from.
    orientation: u8,
    /// Source bands used so far, one bit each.
    bands_used: u8,
    /// The label the next new digit gets (one more than the labels given).
    labels: u8,
}

impl Partial {
    fn start(orientation: u8) -> Partial {
        let mut key_of = [0; 16];
        key_of[1..10].fill(NEW);
        Partial {
            rows: [0; 9],
            cols: padded_columns([0, 1, 2, 3, 4, 5, 6, 7, 8]),
            key_of,
            free: [3; 3],
            blank_stacks: 3,
            orientation,
            bands_used: 0,
            labels: 1,
        }
    }

    /// The source rows that may become output row `level`: at a band's
    /// first row any row of an unused band, else the unused rows of the
    /// band in progress. Returned as a bit set.
    fn next_rows(&self, level: usize) -> u16 {
        if level.is_multiple_of(3) {
            let mut rows = 0u16;
            for band in 0..3 {
                if self.bands_used & (1 << band) == 0 {
                    rows |= 0b111 << (3 * band);
                }
            }
            rows
        } else {
            let band = self.rows[level - 1] / 3;
            let mut rows = 0b111u16 << (3 * band);
            for &r in &self.rows[level - level % 3..level] {
                rows &= !(1 << r);
            }
            rows
        }
    }

    /// Output column -> source column, for the nine columns.
    fn columns(&self) -> [u8; 9] {
        let mut cols = [0; 9];
        cols.copy_from_slice(&self.cols[..9]);
        cols
    }

    /// This row's keys in the current column order (lanes past the ninth
    /// 0).
    #[inline]
    fn keys(&self, row: &Row) -> [u8; 16] {
        let mut keys = [0u8; 16];
        for (k, &c) in keys.iter_mut().zip(&self.cols[..9]) {
            *k = self.key_of[row[c as usize] as usize];
        }
        keys
    }

    /// This row's keys under the best order the free groups allow: each
    /// free prefix sorted, then the blank stacks sorted as triples. Packed
    /// into nibbles, first cell highest, so comparing keys compares rows.
    #[inline]
    fn row_key(&self, row: &Row) -> u64 {
        let mut k = self.keys(row);
        for s in 0..3 {
            sort_prefix(&mut k[3 * s..3 * s + 3], self.free[s]);
        }
        let key = k[..9].iter().fold(0, |key, &k| key << 4 | u64::from(k));
        with_blank_stacks_sorted(key, self.blank_stacks)
    }

    /// How `row` is placed when no two stacks are blank: each free prefix
    /// sorted by key by the network of [`sort_prefix`], the columns
    /// following their keys. Equal keys keep their order: blanks, which
    /// stay free, or new digits, which [`expand`] tries in every order.
    fn placing(&self, row: &Row) -> Placing {
        let mut keys = self.keys(row);
        let mut cols = self.cols;
        for (s, &n) in self.free.iter().enumerate() {
            let mut exchange = |i: usize, j: usize| {
                if keys[3 * s + i] > keys[3 * s + j] {
                    keys.swap(3 * s + i, 3 * s + j);
                    cols.swap(3 * s + i, 3 * s + j);
                }
            };
            if n >= 2 {
                exchange(0, 1);
            }
            if n == 3 {
                exchange(1, 2);
                exchange(0, 1);
            }
        }
        Placing {
            cols,
            keys,
            new: lanes_with::<false>(&keys, NEW),
            blank: lanes_with::<false>(&keys, 0),
        }
    }
}

/// Where a row's cells go when it is placed: the column order that spells
/// it smallest, each free prefix sorted by key, and the output columns
/// (bits) where it shows a new digit and a blank.
struct Placing {
    /// Output column -> source column, as [`Partial::cols`].
    cols: [u8; 16],
    /// The row's keys in that order.
    keys: [u8; 16],
    new: u16,
    blank: u16,
}

/// The compare-exchange steps that sort each free prefix of a row's keys,
/// as lane masks for [`row_key_avx2`]: a network of three steps sorts
/// three lanes (first and second, second and third, first and second
/// again), and its first step alone sorts two.
#[derive(Clone, Copy)]
struct PrefixSort {
    /// Lanes of the pairs (first, second) of the stacks whose free prefix
    /// holds two or three columns.
    first: [u8; 16],
    /// Lanes of the pairs (second, third) of the stacks whose free prefix
    /// holds three.
    second: [u8; 16],
    /// Whether any prefix needs sorting.
    any: bool,
    /// How many leading stacks are sorted as triples (the blank stacks,
    /// when there are two or three).
    triples: u8,
    /// Bit `j` for each output column `j` inside its stack's free prefix.
    prefix_lanes: u16,
}

impl PrefixSort {
    /// The network for these free prefixes and blank stacks: read from
    /// [`PREFIX_SORTS`] (it is asked for at every level of every search).
    #[inline]
    fn of(free: [u8; 3], blank_stacks: u8) -> PrefixSort {
        let index = usize::from(free[0] | free[1] << 2 | free[2] << 4);
        PrefixSort {
            triples: if blank_stacks >= 2 { blank_stacks } else { 0 },
            ..PREFIX_SORTS[index]
        }
    }

    /// The network for the free prefixes `free` (each 0 to 3), no blank
    /// stacks.
    const fn build(free: [u8; 3]) -> PrefixSort {
        // Lanes as bytes of a number, lane 0 lowest.
        let (mut first, mut second) = (0u128, 0u128);
        let mut prefix_lanes = 0u16;
        let mut s = 0;
        while s < 3 {
            let n = free[s];
            if n >= 2 {
                first |= 0xffff << (24 * s);
            }
            if n == 3 {
                second |= 0xffff << (24 * s + 8);
            }
            prefix_lanes |= ((1 << n) - 1) << (3 * s);
            s += 1;
        }
        PrefixSort {
            first: first.to_le_bytes(),
            second: second.to_le_bytes(),
            any: first != 0,
            triples: 0,
            prefix_lanes,
        }
    }
}

/// [`PrefixSort::build`] of every `free`, at `free[0] | free[1] << 2 |
/// free[2] << 4`.
const PREFIX_SORTS: [PrefixSort; 64] = {
    let mut table = [const { PrefixSort::build([0; 3]) }; 64];
    let mut i = 0;
    while i < 64 {
        table[i] = PrefixSort::build([i as u8 & 3, (i >> 2) as u8 & 3, (i >> 4) as u8]);
        i += 1;
    }
    table
};

/// [`Partial::row_key`], the same number: the row's keys in lanes
/// ([`keys_in_lanes`]), the free prefixes sorted by the network of
/// `sort`, on all three stacks at once; then the nine keys packed as
/// nibbles, first highest, and the blank stacks' triples sorted.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn row_key_avx2(p: &Partial, row: &Row, sort: &PrefixSort) -> u64 {
    use std::arch::x86_64::*;
    /// Lanes 2k and 2k + 1 compared, the smaller to `lower`'s lanes, where
    /// `active`; `swap` names each lane's partner.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn exchange(v: __m128i, swap: __m128i, lower: __m128i, active: __m128i) -> __m128i {
        let partner = _mm_shuffle_epi8(v, swap);
        let sorted = _mm_blendv_epi8(_mm_max_epu8(v, partner), _mm_min_epu8(v, partner), lower);
        _mm_blendv_epi8(v, sorted, active)
    }
    let keys = through_network(keys_in_lanes(p, row), sort, |keys, swap, lower, active| {
        exchange(keys, swap, lower, active)
    });
    // Lane pairs as 16 * first + second (u16), then as bytes: lanes 0-4
    // hold the nine keys as nibbles, lanes 5-7 the zero padding.
    let pairs = _mm_maddubs_epi16(keys, _mm_set1_epi16(0x0110));
    let nibbles = _mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64;
    // The first lane highest; 28 bits of padding dropped.
    let key = nibbles.swap_bytes() >> 28;
    if sort.triples == 0 {
        return key;
    }
    with_blank_stacks_sorted(key, sort.triples)
}

/// `value` (a row's lanes) through the network of `sort`: `step(value,
/// swap, lower, active)` makes one compare-exchange step, on the pairs
/// where `active`, `swap` naming each lane's partner (itself outside the
/// pairs) and `lower` the first lane of each pair. The first step pairs
/// lanes (0, 1), (3, 4), (6, 7), the second (1, 2), (4, 5), (7, 8), then
/// the first again: three steps sort three lanes, the first alone two.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn through_network<T>(
    value: T,
    sort: &PrefixSort,
    step: impl Fn(
        T,
        std::arch::x86_64::__m128i,
        std::arch::x86_64::__m128i,
        std::arch::x86_64::__m128i,
    ) -> T,
) -> T {
    use std::arch::x86_64::*;
    if !sort.any {
        return value;
    }
    // SAFETY: 16-byte arrays, loaded whole; no alignment needed.
    let (first, second) = unsafe {
        (
            _mm_loadu_si128(sort.first.as_ptr().cast()),
            _mm_loadu_si128(sort.second.as_ptr().cast()),
        )
    };
    let swap_first = _mm_setr_epi8(1, 0, 2, 4, 3, 5, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15);
    let lower_first = _mm_setr_epi8(-1, 0, 0, -1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    let swap_second = _mm_setr_epi8(0, 2, 1, 3, 5, 4, 6, 8, 7, 9, 10, 11, 12, 13, 14, 15);
    let lower_second = _mm_setr_epi8(0, -1, 0, 0, -1, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0);
    let value = step(value, swap_first, lower_first, first);
    let value = step(value, swap_second, lower_second, second);
    step(value, swap_first, lower_first, first)
}

/// [`Partial::placing`] by the network of `sort` run on the keys in lanes,
/// the columns trading places with them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn placing_avx2(p: &Partial, row: &Row, sort: &PrefixSort) -> Placing {
    use std::arch::x86_64::*;
    /// One step: each pair (`swap` names the partners) out of order where
    /// `active` trades places, in the keys and in the columns alike. Out
    /// of order: the pair's first lane (`lower`) holds the larger key.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn exchange(
        (keys, cols): (__m128i, __m128i),
        swap: __m128i,
        lower: __m128i,
        active: __m128i,
    ) -> (__m128i, __m128i) {
        let partner = _mm_shuffle_epi8(keys, swap);
        // Keys are at most 15, so the signed compares order them.
        let larger = _mm_cmpgt_epi8(keys, partner);
        let smaller = _mm_cmpgt_epi8(partner, keys);
        let trade = _mm_and_si128(_mm_blendv_epi8(smaller, larger, lower), active);
        (
            _mm_blendv_epi8(keys, partner, trade),
            _mm_blendv_epi8(cols, _mm_shuffle_epi8(cols, swap), trade),
        )
    }
    // SAFETY: a 16-byte array, loaded whole; no alignment needed.
    let cols = unsafe { _mm_loadu_si128(p.cols.as_ptr().cast()) };
    let (keys, cols) = through_network(
        (keys_in_lanes(p, row), cols),
        sort,
        |lanes, swap, lower, active| exchange(lanes, swap, lower, active),
    );
    let mut placing = Placing {
        cols: [0; 16],
        keys: [0; 16],
        new: _mm_movemask_epi8(_mm_cmpeq_epi8(keys, _mm_set1_epi8(NEW as i8))) as u16 & 0x1ff,
        blank: _mm_movemask_epi8(_mm_cmpeq_epi8(keys, _mm_setzero_si128())) as u16 & 0x1ff,
    };
    // SAFETY: 16-byte arrays, stored whole; no alignment needed.
    unsafe {
        _mm_storeu_si128(placing.cols.as_mut_ptr().cast(), cols);
        _mm_storeu_si128(placing.keys.as_mut_ptr().cast(), keys);
    }
    placing
}

/// A row's keys in the current column order, lane `j` for output column
/// `j`: the digits put in order by one byte shuffle (lane `j` takes the
/// digit of column `cols[j]`; lanes past the ninth read `NO_COLUMN`, a
/// blank) and named by a second (lane `j` takes `key_of` of its digit).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn keys_in_lanes(p: &Partial, row: &Row) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::*;
    // SAFETY: each is a 16-byte array, loaded whole; no alignment needed.
    let (row, cols, key_of) = unsafe {
        (
            _mm_loadu_si128(row.as_ptr().cast()),
            _mm_loadu_si128(p.cols.as_ptr().cast()),
            _mm_loadu_si128(p.key_of.as_ptr().cast()),
        )
    };
    _mm_shuffle_epi8(key_of, _mm_shuffle_epi8(row, cols))
}

/// A row key (nine nibbles, first highest) with its first `n` stacks,
/// each read as a triple of nibbles, in ascending order: the blank stacks,
/// which may be permuted among themselves.
#[inline]
fn with_blank_stacks_sorted(key: u64, n: u8) -> u64 {
    let mut triples = [key >> 24, key >> 12 & 0xfff, key & 0xfff];
    sort_prefix(&mut triples, n);
    triples[0] << 24 | triples[1] << 12 | triples[2]
}

/// `cols` in the 16 lanes of [`Partial::cols`].
fn padded_columns(cols: [u8; 9]) -> [u8; 16] {
    let mut lanes = [NO_COLUMN; 16];
    lanes[..9].copy_from_slice(&cols);
    lanes
}

/// Sorts the first `n` (at most 3) items ascending.
#[inline]
fn sort_prefix<T: Ord + Copy>(v: &mut [T], n: u8) {
    if n >= 2 && v[0] > v[1] {
        v.swap(0, 1);
    }
    if n == 3 {
        if v[1] > v[2] {
            v.swap(1, 2);
        }
        if v[0] > v[1] {
            v.swap(0, 1);
        }
    }
}

/// The orders of 1, 2 and 3 things.
const PERMS: [&[[u8; 3]]; 4] = [
    &[[0, 1, 2]],
    &[[0, 1, 2]],
    &[[0, 1, 2], [1, 0, 2]],
    &[
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ],
];

/// Reusable working space for [`Canonicalizer::canonical`]: keeping it
/// between puzzles saves the allocations.
pub struct Canonicalizer {
    tied: Vec<Partial>,
    next: Vec<Partial>,
    winners: Vec<(u32, u8)>,
    /// Which compiled version of the search runs.
    isa: Isa,
}

impl Default for Canonicalizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Canonicalizer {
    /// A canonicalizer using the best instruction set this CPU has.
    pub fn new() -> Self {
        Self::with_isa(Isa::detect()).expect("the detected instruction set is supported")
    }

    /// A canonicalizer using `isa` (the AVX-512 version is the AVX2 one
    /// here), or `None` when this CPU cannot run it. Every version finds
    /// the same forms and transformations.
    pub fn with_isa(isa: Isa) -> Option<Self> {
        isa.is_supported().then(|| Canonicalizer {
            tied: Vec::new(),
            next: Vec::new(),
            winners: Vec::new(),
            isa,
        })
    }

    /// The canonical form of `grid`, or `None` when a digit repeats in a
    /// row or a column (the search relies on rows of distinct digits; such
    /// a grid breaks the rules anyway).
    pub fn canonical(&mut self, grid: &Grid) -> Option<Canonical> {
        if grid.repeats_in_a_line() {
            return None;
        }
        let solved = grid.is_complete() && grid.validate().is_ok();
        Some(self.search(grid, solved))
    }

    /// The canonical form of `grid` if it obeys the rules, else the
    /// conflict [`Grid::validate`] reports: one check of the rules where
    /// validating and then calling [`canonical`](Self::canonical) would
    /// look for repeats in the rows and columns twice.
    pub fn canonical_of_valid(&mut self, grid: &Grid) -> Result<Canonical, Conflict> {
        grid.validate()?;
        Ok(self.search(grid, grid.is_complete()))
    }

    /// The search of [`canonical`](Self::canonical), for a grid with no
    /// digit twice in a row or a column; `solved` when it is a complete
    /// grid obeying the rules.
    fn search(&mut self, grid: &Grid, solved: bool) -> Canonical {
        match self.isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `with_isa` keeps these only where the CPU reported
            // every feature `search_avx2` is compiled for.
            Isa::Avx2 | Isa::Avx512 => unsafe { self.search_avx2(grid, solved) },
            _ => self.search_in::<false>(grid, solved),
        }
    }

    /// The search compiled for AVX2 and the bit instructions, its row keys
    /// made by byte shuffles ([`row_key_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    unsafe fn search_avx2(&mut self, grid: &Grid, solved: bool) -> Canonical {
        self.search_in::<true>(grid, solved)
    }

    /// The search; `AVX2` only where the caller is compiled for AVX2 and
    /// the CPU has it.
    #[inline(always)]
    fn search_in<const AVX2: bool>(&mut self, grid: &Grid, solved: bool) -> Canonical {
        // The rows of both orientations: as given, and transposed; and
        // each row's clue pattern, bit c for a clue in column c.
        let (lines, patterns) = lines_of::<AVX2>(grid);
        self.tied.clear();
        let first_level = if solved {
            // A solved grid: its first row reads 123456789 whatever the
            // column order, so free groups never form and the orders are
            // found by the second row instead (see `solved_grid_start`).
            solved_grid_start(&lines, &mut self.tied);
            2
        } else {
            self.tied.push(Partial::start(0));
            self.tied.push(Partial::start(1));
            0
        };
        for level in first_level..9 {
            // Every tied arrangement spells the same rows so far, so they
            // share their free groups and blank stacks.
            let sort = PrefixSort::of(self.tied[0].free, self.tied[0].blank_stacks);
            // Pass 1: the smallest row any tied arrangement can make here.
            self.winners.clear();
            if level == 0 {
                first_row_winners(&patterns, &mut self.winners);
            } else if self.tied.len() == 1 && self.tied[0].next_rows(level).count_ones() == 1 {
                // One arrangement, one row it may take: nothing to compare.
                let r = self.tied[0].next_rows(level).trailing_zeros();
                self.winners.push((0, r as u8));
            } else {
                let mut best = u64::MAX;
                for (i, p) in self.tied.iter().enumerate() {
                    let mut rows = p.next_rows(level);
                    while rows != 0 {
                        let r = rows.trailing_zeros() as usize;
                        rows &= rows - 1;
                        let key = row_key::<AVX2>(p, &lines[p.orientation as usize][r], &sort);
                        if key < best {
                            best = key;
                            self.winners.clear();
                        }
                        if key == best {
                            self.winners.push((i as u32, r as u8));
                        }
                    }
                }
            }
            // Pass 2: every arrangement that makes it goes on.
            self.next.clear();
            for &(i, r) in &self.winners {
                let p = &self.tied[i as usize];
                let row = &lines[p.orientation as usize][r as usize];
                expand::<AVX2>(p, row, r, level, &sort, &mut self.next);
            }
            std::mem::swap(&mut self.tied, &mut self.next);
        }
        let automorphisms = self.tied.iter().map(multiplicity).sum();
        let p = &self.tied[0];
        let mut digits = [0u8; 10];
        let mut unused = p.labels;
        // Digits the puzzle lacks take the labels left, in order.
        for (digit, &key) in digits.iter_mut().zip(&p.key_of).skip(1) {
            *digit = if key == NEW {
                unused += 1;
                unused - 1
            } else {
                key
            };
        }
        let transform = Transform {
            transpose: p.orientation == 1,
            rows: p.rows,
            cols: p.columns(),
            digits,
        };
        Canonical {
            grid: form::<AVX2>(grid, &transform, &lines[p.orientation as usize], p),
            automorphisms,
            transform,
        }
    }
}

// The versions' common steps: each wrapper runs the AVX2 form of a step
// when `AVX2` is true, which it is only inside `search_avx2`, itself run
// only where the CPU has AVX2; that is the safety of each call below.

/// A row's key ([`row_key_avx2`] or [`Partial::row_key`]).
#[inline(always)]
fn row_key<const AVX2: bool>(p: &Partial, row: &Row, sort: &PrefixSort) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see above.
        return unsafe { row_key_avx2(p, row, sort) };
    }
    let _ = sort;
    p.row_key(row)
}

/// How a row is placed ([`placing_avx2`] or [`Partial::placing`]).
#[inline(always)]
fn placing<const AVX2: bool>(p: &Partial, row: &Row, sort: &PrefixSort) -> Placing {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see above.
        return unsafe { placing_avx2(p, row, sort) };
    }
    let _ = sort;
    p.placing(row)
}

/// A row's keys in the current column order (`keys_avx2` or
/// [`Partial::keys`]).
#[inline(always)]
fn keys<const AVX2: bool>(p: &Partial, row: &Row) -> [u8; 16] {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see above.
        return unsafe { keys_avx2(p, row) };
    }
    p.keys(row)
}

/// The lines of both orientations and their clue patterns ([`lines_avx2`]
/// or [`lines_portable`]).
#[inline(always)]
fn lines_of<const AVX2: bool>(grid: &Grid) -> ([[Row; 9]; 2], [[u16; 9]; 2]) {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see above.
        return unsafe { lines_avx2(grid) };
    }
    lines_portable(grid)
}

/// The form `transform` (from the arrangement `p` of `lines`, the rows of
/// its orientation) makes of `grid` ([`form_avx2`] or
/// [`Transform::apply`]).
#[inline(always)]
fn form<const AVX2: bool>(
    grid: &Grid,
    transform: &Transform,
    lines: &[Row; 9],
    p: &Partial,
) -> Grid {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see above.
        return unsafe { form_avx2(lines, p, &transform.digits) };
    }
    let _ = (lines, p);
    transform.apply(grid)
}

/// The rows of `grid` in both orientations (as given, then transposed),
/// and each one's clue pattern (bit `c` for a clue in column `c`).
///
/// The patterns are built as the cells are copied: reading each line's
/// pattern afterwards, as `lines_avx2` does with a byte compare, measured
/// 8% slower here without one (1,282 against 1,190 ns a 17-clue puzzle).
fn lines_portable(grid: &Grid) -> ([[Row; 9]; 2], [[u16; 9]; 2]) {
    let mut lines = [[[0u8; 16]; 9]; 2];
    let mut patterns = [[0u16; 9]; 2];
    for (r, row) in grid.cells().chunks_exact(9).enumerate() {
        for (c, &d) in row.iter().enumerate() {
            lines[0][r][c] = d;
            lines[1][c][r] = d;
            let clue = u16::from(d != 0);
            patterns[0][r] |= clue << c;
            patterns[1][c] |= clue << r;
        }
    }
    (lines, patterns)
}

/// [`lines_portable`] in byte shuffles: the nine rows loaded whole, the
/// columns made by a transpose of unpacks (rows 0-7 in three rounds, row 8
/// and column 8 added last), every line stored whole and its pattern read
/// by one byte compare. Built cell by cell, each line's sixteen-byte load
/// right after its byte stores waited for them (no store forwarding).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
fn lines_avx2(grid: &Grid) -> ([[Row; 9]; 2], [[u16; 9]; 2]) {
    use std::arch::x86_64::*;
    let cells = grid.cells();
    let zero = _mm_setzero_si128();
    let nine = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0);
    // SAFETY: row r < 8 reads cells 9r to 9r + 15, at most 78 < 81; row 8
    // reads cells 65 to 80 and shifts the last nine down.
    let rows: [__m128i; 9] = unsafe {
        let at = |r: usize| _mm_and_si128(_mm_loadu_si128(cells.as_ptr().add(9 * r).cast()), nine);
        [
            at(0),
            at(1),
            at(2),
            at(3),
            at(4),
            at(5),
            at(6),
            at(7),
            _mm_srli_si128::<7>(_mm_loadu_si128(cells.as_ptr().add(65).cast())),
        ]
    };
    // Rows 0-7: bytes of row pairs, then words of pair pairs, then dwords:
    // each quadword of `quads[k]` holds column 2k or 2k + 1, rows 0-7.
    let pairs = [0, 2, 4, 6].map(|r| _mm_unpacklo_epi8(rows[r], rows[r + 1]));
    let fours = [
        _mm_unpacklo_epi16(pairs[0], pairs[1]),
        _mm_unpackhi_epi16(pairs[0], pairs[1]),
        _mm_unpacklo_epi16(pairs[2], pairs[3]),
        _mm_unpackhi_epi16(pairs[2], pairs[3]),
    ];
    let quads = [
        _mm_unpacklo_epi32(fours[0], fours[2]),
        _mm_unpackhi_epi32(fours[0], fours[2]),
        _mm_unpacklo_epi32(fours[1], fours[3]),
        _mm_unpackhi_epi32(fours[1], fours[3]),
    ];
    // Row 8's cells widened to a quadword each (`last[k]`: columns 2k and
    // 2k + 1), to become lane 8 of their columns.
    let widened = _mm_unpacklo_epi8(rows[8], zero);
    let (low, high) = (
        _mm_unpacklo_epi16(widened, zero),
        _mm_unpackhi_epi16(widened, zero),
    );
    let last = [
        _mm_unpacklo_epi32(low, zero),
        _mm_unpackhi_epi32(low, zero),
        _mm_unpacklo_epi32(high, zero),
        _mm_unpackhi_epi32(high, zero),
    ];
    // Column 8: lane 8 of each row, gathered the same way.
    let eighth = [0, 2, 4, 6].map(|r| _mm_unpackhi_epi8(rows[r], rows[r + 1]));
    let eighth = _mm_unpacklo_epi32(
        _mm_unpacklo_epi16(eighth[0], eighth[1]),
        _mm_unpacklo_epi16(eighth[2], eighth[3]),
    );
    let columns = [
        _mm_unpacklo_epi64(quads[0], last[0]),
        _mm_unpackhi_epi64(quads[0], last[0]),
        _mm_unpacklo_epi64(quads[1], last[1]),
        _mm_unpackhi_epi64(quads[1], last[1]),
        _mm_unpacklo_epi64(quads[2], last[2]),
        _mm_unpackhi_epi64(quads[2], last[2]),
        _mm_unpacklo_epi64(quads[3], last[3]),
        _mm_unpackhi_epi64(quads[3], last[3]),
        _mm_unpacklo_epi64(eighth, _mm_unpackhi_epi8(rows[8], zero)),
    ];
    let mut lines = [[[0u8; 16]; 9]; 2];
    let mut patterns = [[0u16; 9]; 2];
    for (orientation, vectors) in [rows, columns].iter().enumerate() {
        for (i, &v) in vectors.iter().enumerate() {
            // SAFETY: a 16-byte array, stored whole; no alignment needed.
            unsafe { _mm_storeu_si128(lines[orientation][i].as_mut_ptr().cast(), v) };
            let blanks = _mm_movemask_epi8(_mm_cmpeq_epi8(v, zero));
            patterns[orientation][i] = !blanks as u16 & 0x1ff;
        }
    }
    (lines, patterns)
}

/// [`Transform::apply`] for the arrangement `p` of the rows `lines` (of
/// its orientation) and the naming `digits`: each output row its source
/// row with the columns put in order by one byte shuffle and the digits
/// renamed by a second.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
fn form_avx2(lines: &[Row; 9], p: &Partial, digits: &[u8; 10]) -> Grid {
    use std::arch::x86_64::*;
    let mut names = [0u8; 16];
    names[..10].copy_from_slice(digits);
    // Each row stored as 16 bytes, the seven past its ninth overwritten by
    // the next row (or left in the spare room after the last).
    let mut cells = [0u8; CELLS + 7];
    // SAFETY: loads of whole 16-byte arrays; each store writes cells
    // 9i to 9i + 15, at most 87 < CELLS + 7; no alignment needed.
    unsafe {
        let cols = _mm_loadu_si128(p.cols.as_ptr().cast());
        let names = _mm_loadu_si128(names.as_ptr().cast());
        for (i, &r) in p.rows.iter().enumerate() {
            let row = _mm_loadu_si128(lines[r as usize].as_ptr().cast());
            let named = _mm_shuffle_epi8(names, _mm_shuffle_epi8(row, cols));
            _mm_storeu_si128(cells.as_mut_ptr().add(9 * i).cast(), named);
        }
    }
    let mut form = [0u8; CELLS];
    form.copy_from_slice(&cells[..CELLS]);
    Grid::from_cells(form).expect("digits maps 0..=9 into 0..=9")
}

/// The first two rows of a solved grid's canonical form, and every
/// arrangement of columns that spells them.
///
/// Row 0 is any row, its digits named 1-9 in column order, so the column
/// order σ is also the naming. Row 1 (another row of row 0's band) then
/// reads, at position j, one plus the position σ⁻¹(f(σ(j))) of the column
/// holding its digit in row 0, where f(c) is the row-0 column of the digit
/// of row 1 in column c. The box rule puts f(c) in another stack than c.
/// Building σ position by position, the smallest value at j places the
/// column f(σ(j)) at the first free position it can take (the next one of
/// its stack's slot, or the first of the next free slot), and only choices
/// of σ(j) that tie branch: a few dozen orders per pair of rows instead of
/// all 1,296.
fn solved_grid_start(lines: &[[Row; 9]; 2], out: &mut Vec<Partial>) {
    /// A column order being built: `col_at[p]` the column at position p,
    /// `pos_of[c]` the position of column c, `stack_at[k]` the stack in
    /// slot k (`NONE` while free).
    #[derive(Clone, Copy)]
    struct Order {
        col_at: [u8; 9],
        pos_of: [u8; 9],
        stack_at: [u8; 3],
        values: [u8; 9],
    }
    const NONE: u8 = u8::MAX;

    /// Extends `o` from position `j`, keeping the orders whose values are
    /// the smallest (`best`, compared as the values so far).
    fn search(o: Order, j: usize, f: &[u8; 9], best: &mut [u8; 9], found: &mut Vec<[u8; 9]>) {
        if j == 9 {
            if o.values < *best {
                *best = o.values;
                found.clear();
            }
            if o.values == *best {
                found.push(o.col_at);
            }
            return;
        }
        let slot = j / 3;
        let mut choices = [NONE; 9];
        let mut n = 0;
        if o.col_at[j] != NONE {
            choices[0] = o.col_at[j];
            n = 1;
        } else {
            for c in 0..9u8 {
                let stack = c / 3;
                let fits = match o.stack_at[slot] {
                    NONE => !o.stack_at.contains(&stack),
                    s => s == stack,
                };
                if fits && o.pos_of[c as usize] == NONE {
                    choices[n] = c;
                    n += 1;
                }
            }
        }
        for &c in &choices[..n] {
            let mut next = o;
            next.col_at[j] = c;
            next.pos_of[c as usize] = j as u8;
            next.stack_at[slot] = c / 3;
            let target = f[c as usize];
            let value = if next.pos_of[target as usize] != NONE {
                next.pos_of[target as usize]
            } else {
                let stack = target / 3;
                let slot_of_target = match next.stack_at.iter().position(|&s| s == stack) {
                    Some(k) => k,
                    None => {
                        let k = next
                            .stack_at
                            .iter()
                            .position(|&s| s == NONE)
                            .expect("a free slot");
                        next.stack_at[k] = stack;
                        k
                    }
                };
                let p = (3 * slot_of_target..3 * slot_of_target + 3)
                    .find(|&p| next.col_at[p] == NONE)
                    .expect("room in the target's slot") as u8;
                next.col_at[p as usize] = target;
                next.pos_of[target as usize] = p;
                p
            };
            next.values[j] = value;
            // Prune: a prefix already above the best cannot win.
            if next.values[..=j] > best[..=j] {
                continue;
            }
            search(next, j + 1, f, best, found);
        }
    }

    let mut best = [u8::MAX; 9];
    let mut winners: Vec<(u8, u8, u8, [u8; 9])> = Vec::new();
    let mut found = Vec::new();
    for orientation in 0..2u8 {
        let rows = &lines[orientation as usize];
        for r0 in 0..9u8 {
            let mut col_of_digit = [0u8; 10];
            for (c, &d) in rows[r0 as usize][..9].iter().enumerate() {
                col_of_digit[d as usize] = c as u8;
            }
            let band = r0 / 3;
            for r1 in (3 * band..3 * band + 3).filter(|&r| r != r0) {
                let mut f = [0u8; 9];
                for (c, &d) in rows[r1 as usize][..9].iter().enumerate() {
                    f[c] = col_of_digit[d as usize];
                }
                let before = best;
                found.clear();
                let start = Order {
                    col_at: [NONE; 9],
                    pos_of: [NONE; 9],
                    stack_at: [NONE; 3],
                    values: [0; 9],
                };
                let mut local = best;
                search(start, 0, &f, &mut local, &mut found);
                if found.is_empty() || local > before {
                    continue;
                }
                if local < before {
                    winners.clear();
                    best = local;
                }
                winners.extend(found.iter().map(|&cols| (orientation, r0, r1, cols)));
            }
        }
    }
    for (orientation, r0, r1, cols) in winners {
        let row0 = &lines[orientation as usize][r0 as usize];
        let mut key_of = [0u8; 16];
        for (j, &c) in cols.iter().enumerate() {
            key_of[row0[c as usize] as usize] = j as u8 + 1;
        }
        let mut rows = [0u8; 9];
        rows[0] = r0;
        rows[1] = r1;
        out.push(Partial {
            rows,
            cols: padded_columns(cols),
            key_of,
            free: [0; 3],
            blank_stacks: 0,
            orientation,
            bands_used: 1 << (r0 / 3),
            labels: 10,
        });
    }
}

/// The rows (orientation, row) that can open the canonical form: those
/// whose clues, pushed to the right of their stacks and the stacks sorted,
/// make the smallest first row. Every digit of the first row is new, so
/// only the clue pattern counts: the row reads, per stack, as many blanks
/// as the stack lacks clues and then that many new labels, the stacks with
/// fewer clues first. The key is the sorted per-stack clue counts (each
/// count at most 3, two bits).
fn first_row_winners(patterns: &[[u16; 9]; 2], winners: &mut Vec<(u32, u8)>) {
    let mut keys = [0u8; 18];
    for (key, &pattern) in keys.iter_mut().zip(patterns.as_flattened()) {
        *key = FIRST_ROW_KEY[usize::from(pattern & 0x1ff)];
    }
    let best = keys.iter().copied().min().expect("18 rows");
    for (i, &key) in keys.iter().enumerate() {
        if key == best {
            winners.push(((i / 9) as u32, (i % 9) as u8));
        }
    }
}

/// [`first_row_winners`]' key of each clue pattern of a row: its stacks'
/// clue counts, smallest first, two bits each.
const FIRST_ROW_KEY: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut pattern = 0;
    while pattern < 512 {
        let mut counts = [
            (pattern & 0o7u32).count_ones() as u8,
            (pattern & 0o70u32).count_ones() as u8,
            (pattern & 0o700u32).count_ones() as u8,
        ];
        // Three compare-and-swaps sort three numbers.
        let mut pass = 0;
        while pass < 3 {
            let (i, j) = [(0, 1), (1, 2), (0, 1)][pass];
            if counts[i] > counts[j] {
                let t = counts[i];
                counts[i] = counts[j];
                counts[j] = t;
            }
            pass += 1;
        }
        table[pattern as usize] = counts[0] << 4 | counts[1] << 2 | counts[2];
        pattern += 1;
    }
    table
};

/// The canonical form of one grid (see [`Canonicalizer`] for many).
pub fn canonical(grid: &Grid) -> Option<Canonical> {
    Canonicalizer::new().canonical(grid)
}

/// How many arrangements a partial one stands for once every row is placed:
/// the free columns of each stack in any order, the blank stacks in any
/// order.
fn multiplicity(p: &Partial) -> u64 {
    const FACTORIAL: [u64; 4] = [1, 1, 2, 6];
    let columns: u64 = p.free.iter().map(|&f| FACTORIAL[f as usize]).product();
    columns * FACTORIAL[p.blank_stacks as usize]
}

/// Places `row` (source row `r`) as output row `level` of `p` in every way
/// that spells the smallest row: the free groups sorted as in
/// `Partial::row_key`, then each set of interchangeable-looking choices
/// (new digits inside one free group, equal non-blank triples among the
/// blank stacks) tried in all its orders, since they name the digits
/// differently and later rows may tell them apart. Blanks stay free.
///
/// `sort` is the network of `p`'s free prefixes. `AVX2` only where the
/// caller is compiled for AVX2 and the CPU has it.
#[inline(always)]
fn expand<const AVX2: bool>(
    p: &Partial,
    row: &Row,
    r: u8,
    level: usize,
    sort: &PrefixSort,
    out: &mut Vec<Partial>,
) {
    if p.free == [0; 3] {
        // Every column is in place already: one way to put the row.
        let keys = keys::<AVX2>(p, row);
        let (new, blank) = (lanes_with::<AVX2>(&keys, NEW), lanes_with::<AVX2>(&keys, 0));
        place(p, row, r, level, p.cols, new, blank, out);
        return;
    }
    let placing = placing::<AVX2>(p, row, sort);
    let (mut cols, mut new, mut blank) = (placing.cols, placing.new, placing.blank);
    let b = usize::from(p.blank_stacks);
    debug_assert!(p.free[..b].iter().all(|&n| n == 3), "a blank stack is free");
    // The common case: no stacks to order, and no free prefix showing two
    // new digits (bits 3s and 3s + 1, 3s + 1 and 3s + 2, or 3s and 3s + 2
    // of one stack s): one way to put the row.
    let in_prefixes = new & sort.prefix_lanes;
    if b < 2
        && in_prefixes & (in_prefixes >> 1) & 0o333 == 0
        && in_prefixes & (in_prefixes >> 2) & 0o111 == 0
    {
        place(p, row, r, level, cols, new, blank, out);
        return;
    }
    // Two or more blank stacks are put in the order of their key triples
    // (each stack already sorted by the network); a run of equal triples
    // that are not blank is then tried in every order. With at most three
    // stacks there is at most one run: (first stack, length).
    let mut stack_run = (0, 1);
    if b >= 2 {
        // Each stack as its three keys (four bits each, first highest)
        // above its number.
        let mut stacks = [0u16; 3];
        for (s, (stack, keys)) in stacks.iter_mut().zip(placing.keys.chunks(3)).enumerate() {
            let triple = u16::from(keys[0]) << 8 | u16::from(keys[1]) << 4 | u16::from(keys[2]);
            *stack = triple << 2 | s as u16;
        }
        // Sorted by a network of minima and maxima, no branch: with two
        // blank stacks the third stays last as the largest number (whose
        // stack number, 3, is read as 2).
        let [first, second, third] = stacks;
        let third = if b == 3 { third } else { u16::MAX };
        let (first, second) = (first.min(second), first.max(second));
        let (second, third) = (second.min(third), second.max(third));
        let (first, second) = (first.min(second), first.max(second));
        let stacks = [first, second, third];
        let from = stacks.map(|stack| usize::from(stack & 3).min(2));
        cols = shuffled::<AVX2>(&cols, &STACK_ORDERS[from[0] * 9 + from[1] * 3 + from[2]]);
        let (placed_new, placed_blank) = (new, blank);
        (new, blank) = (0, 0);
        for (to, &from) in from.iter().enumerate() {
            new |= (placed_new >> (3 * from) & 7) << (3 * to);
            blank |= (placed_blank >> (3 * from) & 7) << (3 * to);
        }
        let triple = |i: usize| stacks[i] >> 2;
        if let Some(first) = (0..b - 1).find(|&i| triple(i) != 0 && triple(i) == triple(i + 1)) {
            let end = (first + 1..b)
                .find(|&i| triple(i) != triple(first))
                .unwrap_or(b);
            stack_run = (first, end - first);
        }
    }
    // Per stack slot: the run of new digits at the end of its free prefix
    // (the prefix is sorted, and NEW is the largest key), as (first lane,
    // length). A blank stack's prefix is the whole stack.
    let mut new_runs = [(0u8, 0u8); 3];
    let mut total = PERMS[stack_run.1].len();
    for (slot, run) in new_runs.iter_mut().enumerate() {
        let n = p.free[slot];
        let news = ONES_IN_THREE_BITS[usize::from(new >> (3 * slot) & ((1 << n) - 1))];
        *run = (3 * slot as u8 + n - news, news);
        total *= PERMS[usize::from(news)].len();
    }
    if total == 1 {
        place(p, row, r, level, cols, new, blank, out);
        return;
    }
    // Every order of every run: the new digits' runs (the first varying
    // fastest), then the stacks' run, counted like an odometer.
    let mut digit = [0usize; 4];
    let (first, len) = stack_run;
    for _ in 0..total {
        let mut ordered = cols;
        for (&(first, len), &d) in new_runs.iter().zip(&digit) {
            if len >= 2 {
                ordered = shuffled::<AVX2>(
                    &ordered,
                    &LANE_RUNS[usize::from(first)][usize::from(len)][d],
                );
            }
        }
        if len >= 2 {
            ordered = shuffled::<AVX2>(&ordered, &STACK_RUNS[first][len][digit[3]]);
        }
        place(p, row, r, level, ordered, new, blank, out);
        // The next order: the first digit that has not run through its
        // run's orders goes on, the ones before it start again.
        for (k, d) in digit.iter_mut().enumerate() {
            let orders = if k < 3 {
                PERMS[usize::from(new_runs[k].1)].len()
            } else {
                PERMS[len].len()
            };
            *d += 1;
            if *d < orders {
                break;
            }
            *d = 0;
        }
    }
}

/// `cols` with lane `j` taken from lane `lanes[j]` (`_mm_shuffle_epi8`
/// where `AVX2`, else lane by lane; every `lanes[j]` below 16).
#[inline(always)]
fn shuffled<const AVX2: bool>(cols: &[u8; 16], lanes: &[u8; 16]) -> [u8; 16] {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see `row_key`'s wrapper.
        return unsafe { shuffled_avx2(cols, lanes) };
    }
    lanes.map(|from| cols[usize::from(from)])
}

/// [`shuffled`] by one byte shuffle.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn shuffled_avx2(cols: &[u8; 16], lanes: &[u8; 16]) -> [u8; 16] {
    use std::arch::x86_64::*;
    let mut out = [0u8; 16];
    // SAFETY: 16-byte arrays, loaded and stored whole; no alignment needed.
    unsafe {
        let v = _mm_loadu_si128(cols.as_ptr().cast());
        let lanes = _mm_loadu_si128(lanes.as_ptr().cast());
        _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_shuffle_epi8(v, lanes));
    }
    out
}

/// The lanes in order, as [`shuffled`] reads them.
const IDENTITY_LANES: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// `LANE_RUNS[first][len][k]`: the lanes `first..first + len` in their
/// `k`-th order (`PERMS[len][k]`), the others in place.
const LANE_RUNS: [[[[u8; 16]; 6]; 4]; 9] = {
    let mut table = [[[IDENTITY_LANES; 6]; 4]; 9];
    let mut first = 0;
    while first < 9 {
        let mut len = 2;
        while len <= 3 && first + len <= 9 {
            let mut k = 0;
            while k < PERMS[len].len() {
                let mut i = 0;
                while i < len {
                    table[first][len][k][first + i] = (first + PERMS[len][k][i] as usize) as u8;
                    i += 1;
                }
                k += 1;
            }
            len += 1;
        }
        first += 1;
    }
    table
};

/// `STACK_RUNS[first][len][k]`: the stacks `first..first + len` in their
/// `k`-th order, three lanes each, the others in place.
const STACK_RUNS: [[[[u8; 16]; 6]; 4]; 3] = {
    let mut table = [[[IDENTITY_LANES; 6]; 4]; 3];
    let mut first = 0;
    while first < 3 {
        let mut len = 2;
        while len <= 3 && first + len <= 3 {
            let mut k = 0;
            while k < PERMS[len].len() {
                let mut i = 0;
                while i < 3 * len {
                    let from = first + PERMS[len][k][i / 3] as usize;
                    table[first][len][k][3 * first + i] = (3 * from + i % 3) as u8;
                    i += 1;
                }
                k += 1;
            }
            len += 1;
        }
        first += 1;
    }
    table
};

/// `STACK_ORDERS[9 * a + 3 * b + c]`: output stacks 0, 1, 2 taken from
/// stacks a, b, c (a permutation; the other entries unused).
const STACK_ORDERS: [[u8; 16]; 27] = {
    let mut table = [IDENTITY_LANES; 27];
    let mut index = 0;
    while index < 27 {
        let from = [index / 9, index / 3 % 3, index % 3];
        let mut lane = 0;
        while lane < 9 {
            table[index][lane] = (3 * from[lane / 3] + lane % 3) as u8;
            lane += 1;
        }
        index += 1;
    }
    table
};

/// How many bits each 3-bit number has set (`count_ones` needs a
/// sequence of shifts where the CPU has no `popcnt`).
const ONES_IN_THREE_BITS: [u8; 8] = [0, 1, 1, 2, 1, 2, 2, 3];

/// Bit `j` set where `keys[j]` is `key`, for the nine columns.
///
/// `AVX2` only where the caller is compiled for AVX2 and the CPU has it.
#[inline(always)]
fn lanes_with<const AVX2: bool>(keys: &[u8; 16], key: u8) -> u16 {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: see `row_key`'s wrapper.
        return unsafe { lanes_with_avx2(keys, key) };
    }
    keys[..9]
        .iter()
        .enumerate()
        .fold(0, |m, (j, &k)| m | u16::from(k == key) << j)
}

/// [`lanes_with`] by one byte compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn lanes_with_avx2(keys: &[u8; 16], key: u8) -> u16 {
    use std::arch::x86_64::*;
    // SAFETY: a 16-byte array, loaded whole; no alignment needed.
    let keys = unsafe { _mm_loadu_si128(keys.as_ptr().cast()) };
    let equal = _mm_cmpeq_epi8(keys, _mm_set1_epi8(key as i8));
    _mm_movemask_epi8(equal) as u16 & 0x1ff
}

/// [`Partial::keys`] by two byte shuffles ([`keys_in_lanes`]), stored.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline]
fn keys_avx2(p: &Partial, row: &Row) -> [u8; 16] {
    use std::arch::x86_64::*;
    let mut keys = [0u8; 16];
    // SAFETY: a 16-byte array, stored whole; no alignment needed.
    unsafe { _mm_storeu_si128(keys.as_mut_ptr().cast(), keys_in_lanes(p, row)) };
    keys
}

/// Pushes `p` with `row` placed as output row `level`, its columns in the
/// order `cols`: new digits (bit `j` of `new` for output column `j`)
/// named left to right, free groups shrunk to the columns still blank
/// (`blank`).
///
/// The copy is edited where it lies in `out`: built on the stack and then
/// copied in, its fields' byte-sized stores would be read back at once by
/// wider loads, which the processor cannot forward from pending stores.
#[allow(clippy::too_many_arguments)]
fn place(
    p: &Partial,
    row: &Row,
    r: u8,
    level: usize,
    cols: [u8; 16],
    new: u16,
    blank: u16,
    out: &mut Vec<Partial>,
) {
    out.push(*p);
    let q = out.last_mut().expect("just pushed");
    q.rows[level] = r;
    q.bands_used |= 1 << (r / 3);
    q.cols = cols;
    let mut label = p.labels;
    let mut new = new;
    while new != 0 {
        let j = new.trailing_zeros() as usize;
        new &= new - 1;
        q.key_of[row[cols[j] as usize] as usize] = label;
        label += 1;
    }
    q.labels = label;
    // Blanks sort first, so the columns still blank lead each free prefix.
    // (A blank stack's free prefix is the whole stack.)
    for (slot, free) in q.free.iter_mut().enumerate() {
        let prefix = (1u16 << p.free[slot]) - 1;
        *free = ((blank >> (3 * slot)) & prefix).count_ones() as u8;
    }
    // The leading stacks that stay wholly blank: bit s of `blank_triples`
    // for stack s blank in all three columns.
    let whole = blank & (blank >> 1) & (blank >> 2);
    let blank_triples = (whole & 1) | (whole >> 2 & 2) | (whole >> 4 & 4);
    q.blank_stacks = (!blank_triples)
        .trailing_zeros()
        .min(u32::from(p.blank_stacks)) as u8;
}

/// All 1,296 orders of nine lines that keep blocks of three together.
fn line_orders() -> Vec<[u8; 9]> {
    let perms = PERMS[3];
    let mut orders = Vec::with_capacity(1296);
    for outer in perms {
        for a in perms {
            for b in perms {
                for c in perms {
                    let inner = [a, b, c];
                    let mut order = [0u8; 9];
                    for (block, &o) in outer.iter().enumerate() {
                        for i in 0..3 {
                            order[3 * block + i] = 3 * o + inner[block][i];
                        }
                    }
                    orders.push(order);
                }
            }
        }
    }
    orders
}

/// The canonical form and automorphism count found the slow, obvious way:
/// every one of the 3,359,232 arrangements, each with its first-appearance
/// relabelling. The reference the tests hold [`canonical`] to (tens of
/// milliseconds a puzzle).
pub fn canonical_by_brute_force(grid: &Grid) -> (Grid, u64) {
    let orders = line_orders();
    let mut best = [u8::MAX; CELLS];
    let mut count = 0u64;
    let mut cur = [0u8; CELLS];
    for transpose in [false, true] {
        for rows in &orders {
            'arrangement: for cols in &orders {
                let mut label = [0u8; 10];
                let mut next = 1;
                let mut smaller = false;
                for (i, &r) in rows.iter().enumerate() {
                    for (j, &c) in cols.iter().enumerate() {
                        let (r, c) = (r as usize, c as usize);
                        let d = if transpose {
                            grid.get(c, r)
                        } else {
                            grid.get(r, c)
                        } as usize;
                        if d != 0 && label[d] == 0 {
                            label[d] = next;
                            next += 1;
                        }
                        let v = label[d];
                        let at = i * 9 + j;
                        if !smaller {
                            if v > best[at] {
                                continue 'arrangement;
                            }
                            smaller = v < best[at];
                        }
                        cur[at] = v;
                    }
                }
                if smaller {
                    best = cur;
                    count = 1;
                } else {
                    count += 1;
                }
            }
        }
    }
    (Grid::from_cells(best).expect("labels are 0..=9"), count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(s: &str) -> Grid {
        Grid::parse_line(s.as_bytes()).unwrap()
    }

    #[test]
    fn empty_grid_is_fixed_by_every_arrangement() {
        let c = canonical(&Grid::EMPTY).unwrap();
        assert_eq!(c.grid, Grid::EMPTY);
        assert_eq!(c.automorphisms, 2 * 1296 * 1296);
    }

    #[test]
    fn the_transform_found_spells_the_form() {
        let p = grid(
            "...342..7.......9.1.7....26..3.6.........7..9..2..865...8.......7...4.63....7.4..",
        );
        let c = canonical(&p).unwrap();
        assert!(c.transform.is_valid());
        assert_eq!(c.transform.apply(&p), c.grid);
        assert_eq!(canonical(&c.grid).unwrap().grid, c.grid);
    }

    #[test]
    fn a_repeated_digit_in_a_row_is_refused() {
        assert!(canonical(&Grid::with_digits(&[(0, 5), (4, 5)])).is_none());
    }

    #[test]
    fn the_validating_entry_point_reports_the_conflict_validate_finds() {
        let with = Grid::with_digits;
        let mut c = Canonicalizer::new();
        // A repeat in a column, and one in a box only: `canonical` refuses
        // the first and has a form for the second, which breaks the rules.
        for g in [with(&[(3, 7), (75, 7)]), with(&[(0, 3), (10, 3)])] {
            assert_eq!(c.canonical_of_valid(&g), Err(g.validate().unwrap_err()));
        }
        assert!(c.canonical(&with(&[(3, 7), (75, 7)])).is_none());
        assert!(c.canonical(&with(&[(0, 3), (10, 3)])).is_some());
        let g = with(&[(0, 3), (12, 3), (40, 9)]);
        assert_eq!(c.canonical_of_valid(&g), Ok(c.canonical(&g).unwrap()));
    }

    /// The shuffle version of `row_key` against the scalar one, on random
    /// arrangements, namings, free groups, blank stacks and rows.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_row_keys_and_placings_are_the_scalar_ones() {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        if !Isa::Avx2.is_supported() {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(37);
        let orders = line_orders();
        for _ in 0..20_000 {
            let mut p = Partial::start(0);
            p.cols = padded_columns(*orders.choose(&mut rng).unwrap());
            let mut digits: Vec<u8> = (1..=9).collect();
            digits.shuffle(&mut rng);
            let named = rng.gen_range(0..=9);
            for (label, &d) in digits[..named].iter().enumerate() {
                p.key_of[d as usize] = label as u8 + 1;
            }
            p.labels = named as u8 + 1;
            p.free = [0; 3].map(|_| rng.gen_range(0..=3));
            if rng.gen_ratio(1, 3) {
                // Leading blank stacks are common early on: make sure of
                // two or three now and then.
                p.free[..2].fill(3);
            }
            p.blank_stacks = 0;
            while usize::from(p.blank_stacks) < 3
                && p.free[usize::from(p.blank_stacks)] == 3
                && rng.gen()
            {
                p.blank_stacks += 1;
            }
            let mut row: Row = [0; 16];
            digits.shuffle(&mut rng);
            let clues = rng.gen_range(0..=9);
            let mut columns: Vec<usize> = (0..9).collect();
            columns.shuffle(&mut rng);
            for (&c, &d) in columns[..clues].iter().zip(&digits) {
                row[c] = d;
            }
            let sort = PrefixSort::of(p.free, p.blank_stacks);
            // SAFETY: the CPU has AVX2 (checked above).
            let vector = unsafe { row_key_avx2(&p, &row, &sort) };
            assert_eq!(
                vector,
                p.row_key(&row),
                "{:?} {:?} {:?}",
                p.cols,
                p.free,
                row
            );
            // SAFETY: as above.
            let vector = unsafe { placing_avx2(&p, &row, &sort) };
            let scalar = p.placing(&row);
            assert_eq!(
                (vector.cols, vector.new, vector.blank),
                (scalar.cols, scalar.new, scalar.blank)
            );
            // Each free prefix reads in ascending order once placed, and
            // the masks name the new digits and the blanks.
            let keys = Partial {
                cols: vector.cols,
                ..p
            }
            .keys(&row);
            for (s, &n) in p.free.iter().enumerate() {
                assert!(keys[3 * s..3 * s + n as usize].is_sorted(), "{keys:?}");
            }
            for (j, &k) in keys[..9].iter().enumerate() {
                assert_eq!(vector.new >> j & 1 == 1, k == NEW);
                assert_eq!(vector.blank >> j & 1 == 1, k == 0);
            }
        }
    }

    #[test]
    fn vector_lines_are_the_portable_ones() {
        use rand::{Rng, SeedableRng};
        if !Isa::Avx2.is_supported() {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for round in 0..2_000 {
            // Every density from empty to full, digits anywhere (the
            // lines do not care about the rules).
            let density = round % 11;
            let cells = [0u8; CELLS].map(|_| {
                if rng.gen_range(0..10) < density {
                    rng.gen_range(1..=9)
                } else {
                    0
                }
            });
            let grid = Grid::from_cells(cells).unwrap();
            // SAFETY: the CPU has AVX2 (checked above).
            let vector = unsafe { lines_avx2(&grid) };
            assert_eq!(vector, lines_portable(&grid), "{}", grid.to_line());
        }
    }

    #[test]
    fn lane_tables_reorder_only_their_runs() {
        use rand::{Rng, SeedableRng};
        let is_permutation = |lanes: &[u8; 16]| {
            let mut sorted = *lanes;
            sorted.sort();
            sorted == IDENTITY_LANES
        };
        // A run's lanes (or stacks) take the order PERMS names; every
        // other lane stays where it is.
        for (first, runs) in LANE_RUNS.iter().enumerate() {
            for len in 2..=3.min(9 - first) {
                for (k, perm) in PERMS[len].iter().enumerate() {
                    let lanes = &runs[len][k];
                    assert!(is_permutation(lanes));
                    for (j, &from) in lanes.iter().enumerate() {
                        let expected = match j.checked_sub(first) {
                            Some(i) if i < len => first + perm[i] as usize,
                            _ => j,
                        };
                        assert_eq!(from as usize, expected, "{first} {len} {k}");
                    }
                }
            }
        }
        for (first, runs) in STACK_RUNS.iter().enumerate() {
            for len in 2..=3 - first {
                for (k, perm) in PERMS[len].iter().enumerate() {
                    let lanes = &runs[len][k];
                    assert!(is_permutation(lanes));
                    for (j, &from) in lanes.iter().enumerate() {
                        let stack = match (j / 3).checked_sub(first) {
                            Some(i) if j < 9 && i < len => first + perm[i] as usize,
                            _ => j / 3,
                        };
                        let expected = if j < 9 { 3 * stack + j % 3 } else { j };
                        assert_eq!(from as usize, expected, "{first} {len} {k}");
                    }
                }
            }
        }
        for order in PERMS[3] {
            let lanes =
                &STACK_ORDERS[9 * order[0] as usize + 3 * order[1] as usize + order[2] as usize];
            assert!(is_permutation(lanes));
            for j in 0..9 {
                assert_eq!(lanes[j] as usize, 3 * order[j / 3] as usize + j % 3);
            }
        }
        // The vector shuffle reads the lanes as the portable one does.
        if Isa::Avx2.is_supported() {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
            for _ in 0..1000 {
                let cols: [u8; 16] = rng.gen();
                let lanes = [0u8; 16].map(|_| rng.gen_range(0..16));
                // SAFETY: the CPU has AVX2 (checked above).
                let vector = unsafe { shuffled_avx2(&cols, &lanes) };
                assert_eq!(vector, shuffled::<false>(&cols, &lanes));
            }
        }
    }

    #[test]
    fn first_row_keys_order_rows_as_their_full_keys_do() {
        // Each clue pattern as a row of distinct digits, keyed as the first
        // row of a fresh arrangement (every digit new).
        let start = Partial::start(0);
        let full_key = |pattern: usize| {
            let mut row: Row = [0; 16];
            for (c, d) in row[..9].iter_mut().enumerate() {
                if pattern & (1 << c) != 0 {
                    *d = c as u8 + 1;
                }
            }
            start.row_key(&row)
        };
        let full: Vec<u64> = (0..512).map(full_key).collect();
        for p in 0..512 {
            for q in 0..512 {
                assert_eq!(
                    FIRST_ROW_KEY[p].cmp(&FIRST_ROW_KEY[q]),
                    full[p].cmp(&full[q]),
                    "patterns {p:09b} and {q:09b}"
                );
            }
        }
    }

    #[test]
    fn line_orders_are_the_group() {
        let orders = line_orders();
        assert_eq!(orders.len(), 1296);
        let mut sorted = orders.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 1296);
        for o in &orders {
            let t = Transform {
                rows: *o,
                ..Transform::IDENTITY
            };
            assert!(t.is_valid());
        }
    }
}
