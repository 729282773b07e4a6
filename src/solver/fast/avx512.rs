//! The root's propagation with the whole state in three AVX-512 registers:
//! one per band, lane `d` holding digit `d + 1`'s 27-bit board for that
//! band (lanes 9-15 stay zero). Every rule then runs on the nine digits at
//! once:
//!
//! - the band filter lane by lane, with the matching computed instead of
//!   looked up (a gather from `BAND_KEEP` measured 15% slower): a triad is
//!   kept when the other two rows can take the other two boxes,
//!   `(o[r+1][k+1] & o[r+2][k+2]) | (o[r+1][k+2] & o[r+2][k+1])`, with the
//!   rows rotated by 9 bits and the boxes by 3;
//! - the stack filter lane by lane across the three registers, as the
//!   scalar `stack_filter`;
//! - hidden singles lane by lane, each placed cell taken from the other
//!   digits through a reduction across the lanes;
//! - naked singles from the same reduction (which cells have one candidate,
//!   which two), all three bands placed at once.
//!
//! It pays where every digit changes, as at the root (after the givens),
//! and not after a guess, where few digits change and the scalar
//! `propagate` looks at those alone: the root is propagated here and the
//! search below it is the AVX2 version's, with the band filter's `pext`
//! form (see `root`).
//!
//! Where there is no contradiction it reaches the same fixed point as the
//! scalar `propagate`: every rule only removes candidates, and removes at
//! least as many from a smaller state, so the order they run in does not
//! change where they stop. The search below then starts from the same
//! state: same solutions, same guesses. (Where there is one, the two may
//! notice it at different steps; the tests compare outcomes and guesses
//! with the portable version on the datasets, random blankings and random
//! candidates, unsolvable ones included.)

use super::{givens, Contradiction, FastSolver, State, BOX_IN_BAND};
use crate::puzzle::grid::Grid;
use crate::puzzle::pencil::Candidates;
use std::arch::x86_64::*;

/// The features the functions here are compiled for (checked by
/// `Isa::Avx512.is_supported`).
macro_rules! avx512 {
    ($(#[$m:meta])* $vis:vis fn $($rest:tt)*) => {
        $(#[$m])*
        #[target_feature(enable = "avx512f,avx2,bmi1,bmi2,popcnt,lzcnt")]
        $vis fn $($rest)*
    };
}

/// The nine digit lanes.
const DIGITS: __mmask16 = 0x1FF;
/// Bit `9r + 3k`: the first cell of each triad (row `r`, box `k`).
const TRIAD_FIRST: i32 = 0o111_111_111;
/// The triads of boxes 0 and 1 (bits `9r` and `9r + 3`).
const BOXES_01: i32 = 0o011_011_011;
/// The triads of box 0 (bits `9r`).
const BOX_0: i32 = 0o001_001_001;
/// Bit `9r`: the first cell of each row.
const ROW_FIRST: i32 = 0o001_001_001;
/// Bit `3k` of a 9-bit row: the first column of each stack.
const STACK_FIRST: i32 = 0o111;

/// The boards of all nine digits, a band per register, and the unsolved
/// cells.
#[derive(Clone, Copy)]
pub(super) struct Boards {
    band: [__m512i; 3],
    unsolved: [u32; 3],
}

avx512! {
    #[inline]
    fn splat(x: i32) -> __m512i {
        _mm512_set1_epi32(x)
    }
}

avx512! {
    /// `(a | b | c)`.
    #[inline]
    fn or3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xFE>(a, b, c)
    }
}

avx512! {
    /// Lane 0 as a board.
    #[inline]
    fn lane0(v: __m512i) -> u32 {
        _mm512_cvtsi512_si32(v) as u32
    }
}

avx512! {
    /// Bit `9r + 3k` set in each lane where triad (row `r`, box `k`) is not empty.
    #[inline]
    fn occupied(x: __m512i) -> __m512i {
        let t = or3(x, _mm512_srli_epi32::<1>(x), _mm512_srli_epi32::<2>(x));
        _mm512_and_si512(t, splat(TRIAD_FIRST))
    }
}

avx512! {
    /// Triad bits with the rows moved one place on (row `r` reads row `r + 1 mod 3`).
    #[inline]
    fn next_row(o: __m512i) -> __m512i {
        // (a | b) & c
        _mm512_ternarylogic_epi32::<0xA8>(
            _mm512_srli_epi32::<9>(o),
            _mm512_slli_epi32::<18>(o),
            splat(TRIAD_FIRST),
        )
    }
}

avx512! {
    /// Triad bits with the rows moved two places on.
    #[inline]
    fn row_after_next(o: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xA8>(
            _mm512_srli_epi32::<18>(o),
            _mm512_slli_epi32::<9>(o),
            splat(TRIAD_FIRST),
        )
    }
}

avx512! {
    /// Triad bits with the boxes moved one place on within each row. Bits
    /// above 26 may be left set: the caller's final AND with the pattern
    /// drops them.
    #[inline]
    fn next_box(o: __m512i) -> __m512i {
        // c ? a : b
        _mm512_ternarylogic_epi32::<0xE4>(
            _mm512_srli_epi32::<3>(o),
            _mm512_slli_epi32::<6>(o),
            splat(BOXES_01),
        )
    }
}

avx512! {
    /// Triad bits with the boxes moved two places on within each row.
    #[inline]
    fn box_after_next(o: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xE4>(
            _mm512_srli_epi32::<6>(o),
            _mm512_slli_epi32::<3>(o),
            splat(BOX_0),
        )
    }
}

avx512! {
    /// The band filter on one band of all nine digits (see `band_filter`):
    /// the triads on no matching of rows to boxes are cleared.
    #[inline]
    fn band_filter(x: __m512i) -> Result<__m512i, Contradiction> {
        let o = occupied(x);
        let r1 = next_row(o);
        let r2 = row_after_next(o);
        let straight = _mm512_and_si512(next_box(r1), box_after_next(r2));
        // (a & b) | c, then & o
        let crossed = _mm512_ternarylogic_epi32::<0xEA>(box_after_next(r1), next_box(r2), straight);
        let keep = _mm512_and_si512(o, crossed);
        let cells = or3(keep, _mm512_slli_epi32::<1>(keep), _mm512_slli_epi32::<2>(keep));
        let kept = _mm512_and_si512(x, cells);
        if _mm512_test_epi32_mask(kept, kept) != DIGITS {
            return Err(Contradiction);
        }
        Ok(kept)
    }
}

avx512! {
    /// The nine columns of a band (bit `c`) that hold a candidate.
    #[inline]
    fn columns(x: __m512i) -> __m512i {
        let c = or3(x, _mm512_srli_epi32::<9>(x), _mm512_srli_epi32::<18>(x));
        _mm512_and_si512(c, splat(0x1FF))
    }
}

avx512! {
    /// A 9-bit column set copied to the three rows of a band.
    #[inline]
    fn column_cells(c: __m512i) -> __m512i {
        or3(c, _mm512_slli_epi32::<9>(c), _mm512_slli_epi32::<18>(c))
    }
}

avx512! {
    /// `next_column_in_stack::<1>` lane by lane (bits above 8 may be left
    /// set; the caller masks them).
    #[inline]
    fn next_column(c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xE4>(
            _mm512_srli_epi32::<1>(c),
            _mm512_slli_epi32::<2>(c),
            splat(0o333),
        )
    }
}

avx512! {
    /// `next_column_in_stack::<2>` lane by lane.
    #[inline]
    fn column_after_next(c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi32::<0xE4>(
            _mm512_srli_epi32::<2>(c),
            _mm512_slli_epi32::<1>(c),
            splat(0o111),
        )
    }
}

avx512! {
    /// The columns of a band kept by the stack filter: `cols & ((n1p & n2q)
    /// | (n2p & n1q))`, with `p` and `q` the other two bands.
    #[inline]
    fn stack_keep(cols: __m512i, n1p: __m512i, n2p: __m512i, n1q: __m512i, n2q: __m512i) -> __m512i {
        let either = _mm512_ternarylogic_epi32::<0xEA>(n2p, n1q, _mm512_and_si512(n1p, n2q));
        _mm512_and_si512(cols, either)
    }
}

avx512! {
    /// The stack filter (see `stack_filter`) for all nine digits.
    #[inline]
    fn stack_filter(a: [__m512i; 3]) -> Result<[__m512i; 3], Contradiction> {
        let cols = [columns(a[0]), columns(a[1]), columns(a[2])];
        let n1 = [next_column(cols[0]), next_column(cols[1]), next_column(cols[2])];
        let n2 = [
            column_after_next(cols[0]),
            column_after_next(cols[1]),
            column_after_next(cols[2]),
        ];
        let keep = [
            stack_keep(cols[0], n1[1], n2[1], n1[2], n2[2]),
            stack_keep(cols[1], n1[0], n2[0], n1[2], n2[2]),
            stack_keep(cols[2], n1[0], n2[0], n1[1], n2[1]),
        ];
        // Every stack keeps a column in band 0 exactly when it has a matching.
        let k = keep[0];
        let stacks = _mm512_and_si512(
            or3(k, _mm512_srli_epi32::<1>(k), _mm512_srli_epi32::<2>(k)),
            splat(STACK_FIRST),
        );
        if _mm512_mask_cmpneq_epi32_mask(DIGITS, stacks, splat(STACK_FIRST)) != 0 {
            return Err(Contradiction);
        }
        Ok([
            _mm512_and_si512(a[0], column_cells(keep[0])),
            _mm512_and_si512(a[1], column_cells(keep[1])),
            _mm512_and_si512(a[2], column_cells(keep[2])),
        ])
    }
}

avx512! {
    #[inline]
    fn differs(a: __m512i, b: __m512i) -> bool {
        _mm512_cmpneq_epi32_mask(a, b) != 0
    }
}

avx512! {
    /// Across the lanes: in every lane, the cells set in at least one lane
    /// and those set in at least two. Rotations by 8, 4, 2 and 1 lanes
    /// merge disjoint groups, as `once_and_twice` does for boards.
    #[inline]
    fn once_and_twice(v: __m512i) -> (__m512i, __m512i) {
        let r = _mm512_alignr_epi32::<8>(v, v);
        let mut twice = _mm512_and_si512(v, r);
        let mut once = _mm512_or_si512(v, r);
        macro_rules! merge {
            ($k:literal) => {
                let o = _mm512_alignr_epi32::<$k>(once, once);
                let t = _mm512_alignr_epi32::<$k>(twice, twice);
                twice = or3(twice, t, _mm512_and_si512(once, o));
                once = _mm512_or_si512(once, o);
            };
        }
        merge!(4);
        merge!(2);
        merge!(1);
        (once, twice)
    }
}

avx512! {
    /// Per lane, the cells alone in their box.
    #[inline]
    fn box_singles(x: __m512i) -> __m512i {
        let mut singles = _mm512_setzero_si512();
        for bx in BOX_IN_BAND {
            let m = _mm512_and_si512(x, splat(bx as i32));
            let one = _mm512_testn_epi32_mask(m, _mm512_sub_epi32(m, splat(1)));
            singles = _mm512_mask_or_epi32(singles, one, singles, m);
        }
        singles
    }
}

avx512! {
    /// Per lane, the cells sharing a row or a box with a cell of `p`.
    #[inline]
    fn rows_and_boxes(p: __m512i) -> __m512i {
        let t = occupied(p);
        let rows = _mm512_and_si512(
            or3(t, _mm512_srli_epi32::<3>(t), _mm512_srli_epi32::<6>(t)),
            splat(ROW_FIRST),
        );
        let boxes = _mm512_and_si512(
            or3(t, _mm512_srli_epi32::<9>(t), _mm512_srli_epi32::<18>(t)),
            splat(STACK_FIRST),
        );
        let rows = or3(rows, _mm512_slli_epi32::<1>(rows), _mm512_slli_epi32::<2>(rows));
        let rows = or3(rows, _mm512_slli_epi32::<3>(rows), _mm512_slli_epi32::<6>(rows));
        let boxes = or3(boxes, _mm512_slli_epi32::<1>(boxes), _mm512_slli_epi32::<2>(boxes));
        let boxes = column_cells(boxes);
        _mm512_or_si512(rows, boxes)
    }
}

avx512! {
    /// Whether some lane has two cells of `p` in one row or one box.
    #[inline]
    fn shares_a_unit(p: __m512i) -> bool {
        // At least two of three: the majority function.
        let in_triad = _mm512_ternarylogic_epi32::<0xE8>(
            p,
            _mm512_srli_epi32::<1>(p),
            _mm512_srli_epi32::<2>(p),
        );
        let t = occupied(p);
        let in_row = _mm512_ternarylogic_epi32::<0xE8>(
            t,
            _mm512_srli_epi32::<3>(t),
            _mm512_srli_epi32::<6>(t),
        );
        let in_box = _mm512_ternarylogic_epi32::<0xE8>(
            t,
            _mm512_srli_epi32::<9>(t),
            _mm512_srli_epi32::<18>(t),
        );
        let twice = or3(
            _mm512_and_si512(in_triad, splat(TRIAD_FIRST)),
            _mm512_and_si512(in_row, splat(ROW_FIRST)),
            _mm512_and_si512(in_box, splat(STACK_FIRST)),
        );
        _mm512_test_epi32_mask(twice, twice) != 0
    }
}

impl Boards {
    avx512! {
        #[inline]
        fn from_state(s: &State) -> Boards {
            // SAFETY: each band is 9 u32, the nine lanes loaded.
            let band = unsafe {
                [
                    _mm512_maskz_loadu_epi32(DIGITS, s.cand[0].as_ptr().cast()),
                    _mm512_maskz_loadu_epi32(DIGITS, s.cand[1].as_ptr().cast()),
                    _mm512_maskz_loadu_epi32(DIGITS, s.cand[2].as_ptr().cast()),
                ]
            };
            Boards {
                band,
                unsolved: s.unsolved,
            }
        }
    }

    avx512! {
        #[inline]
        fn to_state(self) -> State {
            let mut lanes = [[0u32; 16]; 3];
            for (out, &v) in lanes.iter_mut().zip(&self.band) {
                // SAFETY: `out` is 16 u32, the 64 bytes stored; no alignment
                // is needed.
                unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
            }
            let mut s = State::FRESH;
            for (cand, band) in s.cand.iter_mut().zip(&lanes) {
                cand.copy_from_slice(&band[..9]);
            }
            s.unsolved = self.unsolved;
            s
        }
    }

    avx512! {
        /// The scalar `propagate`, all digits at once.
        // The bands are walked by index: bit `b` of the masks goes with `a[b]`.
        #[allow(clippy::needless_range_loop)]
        #[inline]
        fn propagate(&mut self) -> Result<(), Contradiction> {
            let mut a = self.band;
            // Bands the band filter has to look at, and bands changed since
            // hidden singles were last looked for there.
            let mut to_band = 0b111u32;
            let mut to_check = 0b111u32;
            loop {
                for b in 0..3 {
                    if to_band >> b & 1 != 0 {
                        let kept = band_filter(a[b])?;
                        if differs(kept, a[b]) {
                            to_check |= 1 << b;
                        }
                        a[b] = kept;
                    }
                }
                loop {
                    let stacked = stack_filter(a)?;
                    let mut moved = 0;
                    for b in 0..3 {
                        if differs(stacked[b], a[b]) {
                            moved |= 1 << b;
                        }
                    }
                    if moved == 0 {
                        break;
                    }
                    to_check |= moved;
                    a = stacked;
                    let mut banded = 0;
                    for b in 0..3 {
                        if moved >> b & 1 != 0 {
                            let kept = band_filter(a[b])?;
                            if differs(kept, a[b]) {
                                banded |= 1 << b;
                            }
                            a[b] = kept;
                        }
                    }
                    if banded == 0 {
                        break;
                    }
                }
                // Hidden singles: at the filters' fixed point, a digit alone
                // in its box has lost its row and column peers already, so
                // placing it takes the cell from the other digits only. A
                // cell claimed by two digits is a contradiction.
                to_band = 0;
                for b in 0..3 {
                    if to_check >> b & 1 == 0 {
                        continue;
                    }
                    let singles =
                        _mm512_and_si512(box_singles(a[b]), splat(self.unsolved[b] as i32));
                    if _mm512_test_epi32_mask(singles, singles) == 0 {
                        continue;
                    }
                    let (once, twice) = once_and_twice(singles);
                    if lane0(twice) != 0 {
                        return Err(Contradiction);
                    }
                    // a & !(once & !singles)
                    a[b] = _mm512_ternarylogic_epi32::<0xB0>(a[b], once, singles);
                    self.unsolved[b] &= !lane0(once);
                    to_band |= 1 << b;
                }
                to_check = to_band;
                if to_band != 0 {
                    continue;
                }
                // Naked singles, all three bands at once. Two of one digit
                // in a row, box or column are a contradiction (the scalar
                // `place` of the second one fails).
                let mut single = [_mm512_setzero_si512(); 3];
                let mut any = 0;
                for b in 0..3 {
                    let (once, twice) = once_and_twice(a[b]);
                    let open = self.unsolved[b];
                    if open & !lane0(once) != 0 {
                        return Err(Contradiction);
                    }
                    let s = lane0(once) & !lane0(twice) & open;
                    single[b] = splat(s as i32);
                    self.unsolved[b] &= !s;
                    any |= s;
                }
                if any == 0 {
                    self.band = a;
                    return Ok(());
                }
                let placed = [
                    _mm512_and_si512(a[0], single[0]),
                    _mm512_and_si512(a[1], single[1]),
                    _mm512_and_si512(a[2], single[2]),
                ];
                let cols = [columns(placed[0]), columns(placed[1]), columns(placed[2])];
                let across = _mm512_ternarylogic_epi32::<0xE8>(cols[0], cols[1], cols[2]);
                if _mm512_test_epi32_mask(across, across) != 0
                    || shares_a_unit(placed[0])
                    || shares_a_unit(placed[1])
                    || shares_a_unit(placed[2])
                {
                    return Err(Contradiction);
                }
                to_band = 0b111;
                to_check = 0b111;
                for b in 0..3 {
                    let [p, q] = super::OTHER_BANDS[b];
                    let column_peers = column_cells(_mm512_or_si512(cols[p], cols[q]));
                    // a & !(rows_and_boxes & !placed), then & !column_peers
                    let kept =
                        _mm512_ternarylogic_epi32::<0xB0>(a[b], rows_and_boxes(placed[b]), placed[b]);
                    a[b] = _mm512_andnot_si512(column_peers, kept);
                }
            }
        }
    }
}

avx512! {
    /// Loads `puzzle` (less `ruled_out`) and searches it.
    pub(super) fn run(solver: &mut FastSolver, puzzle: &Grid, ruled_out: Option<(usize, u8)>) {
        let Ok(mut state) = State::from_givens(&givens::avx2(puzzle.cells())) else {
            return;
        };
        state.rule_out(ruled_out);
        root(solver, &state);
    }
}

avx512! {
    /// Propagates the root on these boards, where every digit has changed,
    /// then searches below it with the AVX2 version (`search_avx512`: its
    /// band filter in the `pext` form): after a guess only a
    /// few digits change, and its scalar `propagate` looks at those alone,
    /// where these boards would take all nine every round (multi_20k ran
    /// 7% slower searched on boards throughout, easy_100k 23% faster).
    fn root(solver: &mut FastSolver, state: &State) {
        let mut boards = Boards::from_state(state);
        if boards.propagate().is_err() {
            return;
        }
        let mut state = boards.to_state();
        // At the fixed point: no digit needs another look.
        super::search_avx512(solver, &mut state, 0);
    }
}

avx512! {
    /// Searches a pencilmark puzzle.
    pub(super) fn run_marks(solver: &mut FastSolver, marks: &Candidates) {
        root(solver, &State::from_candidates(marks));
    }
}
