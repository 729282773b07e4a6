//! Reading a puzzle's givens into per-digit band masks: the first step of
//! every solve, and on easy puzzles a large share of it.
//!
//! Both versions produce the same [`Givens`]; `tests` checks them against
//! each other. The AVX2 one compares 32 cells at once with each digit and
//! keeps the comparison's sign bits (one `vpcmpeqb` and one `vpmovmskb` per
//! digit and band), where the portable one visits the 81 cells one by one.

use super::BAND;
use crate::puzzle::grid::CELLS;

/// Where the givens are, in the solver's band layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Givens {
    /// `own[3 * d + b]`: the cells of band `b` given as digit `d + 1`.
    pub own: [u32; 27],
    /// Per band, the cells holding any given.
    pub taken: [u32; 3],
}

/// Any target: one pass over the cells without a branch. Slot `3 * v + b`
/// collects the cells of value `v` (0 for empty) in band `b`, so the empty
/// cells land in slots 0-2 instead of needing a test.
#[inline(always)]
pub(super) fn portable(cells: &[u8; CELLS]) -> Givens {
    let mut by_value = [0u32; 30];
    for (b, band) in cells.chunks_exact(27).enumerate() {
        for (pos, &v) in band.iter().enumerate() {
            // Values are 0-9 (Grid's invariant); `min` keeps a broken one in
            // bounds without a panic path in the hot loop.
            by_value[3 * usize::from(v.min(9)) + b] |= 1 << pos;
        }
    }
    let mut own = [0u32; 27];
    own.copy_from_slice(&by_value[3..]);
    Givens {
        own,
        taken: [
            BAND & !by_value[0],
            BAND & !by_value[1],
            BAND & !by_value[2],
        ],
    }
}

/// x86-64 with AVX2: per band, one 32-byte load and a byte compare per digit.
/// The third band's load starts 5 cells early (at 49) so that it ends at the
/// last cell; its masks are shifted down by those 5.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn avx2(cells: &[u8; CELLS]) -> Givens {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    const LOADS: [(usize, u32); 3] = [(0, 0), (27, 0), (49, 5)];
    let mut own = [0u32; 27];
    let mut taken = [0u32; 3];
    for (b, &(start, shift)) in LOADS.iter().enumerate() {
        // SAFETY: `start + 32 <= 81` for each start (0, 27, 49), so the 32
        // bytes read lie inside `cells`; the load has no alignment demand.
        let v = unsafe { _mm256_loadu_si256(cells.as_ptr().add(start).cast::<__m256i>()) };
        let mask = |value: u8| {
            let hits = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(value as i8)));
            ((hits as u32) >> shift) & BAND
        };
        taken[b] = BAND & !mask(0);
        for d in 0..9 {
            own[3 * d + b] = mask(d as u8 + 1);
        }
    }
    Givens { own, taken }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_cells(rng: &mut impl Rng) -> [u8; CELLS] {
        let density = rng.gen_range(0.0..1.0);
        std::array::from_fn(|_| {
            if rng.gen_bool(density) {
                rng.gen_range(1..=9)
            } else {
                0
            }
        })
    }

    #[test]
    fn portable_places_each_value_in_its_band_and_bit() {
        let mut cells = [0u8; CELLS];
        cells[0] = 1; // band 0, bit 0
        cells[26] = 9; // band 0, bit 26
        cells[27 + 10] = 5; // band 1, bit 10
        cells[80] = 3; // band 2, bit 26
        let g = portable(&cells);
        assert_eq!(g.own[0], 1);
        assert_eq!(g.own[3 * 8], 1 << 26);
        assert_eq!(g.own[3 * 4 + 1], 1 << 10);
        assert_eq!(g.own[3 * 2 + 2], 1 << 26);
        assert_eq!(g.taken, [1 | 1 << 26, 1 << 10, 1 << 26]);
        let total: u32 = g.own.iter().map(|m| m.count_ones()).sum();
        assert_eq!(total, 4);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_agrees_with_portable() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: only the portable path runs");
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        let mut edge = [0u8; CELLS];
        edge[49..54].fill(7); // read by the last load, then shifted away
        edge[54] = 2;
        edge[80] = 9;
        for cells in [[0u8; CELLS], [9u8; CELLS], edge]
            .into_iter()
            .chain((0..2000).map(|_| random_cells(&mut rng)))
        {
            // SAFETY: AVX2 was detected above.
            let fast = unsafe { avx2(&cells) };
            assert_eq!(fast, portable(&cells), "{cells:?}");
        }
    }
}
