//! Canonical forms: invariant under every transformation of the group,
//! idempotent, reached by the transformation returned, and equal to the
//! brute force over all 3,359,232 arrangements.

mod common;

use batchdoku::solver::{FastSolver, Isa, Solver};
use batchdoku::tasks::canon::{canonical, canonical_by_brute_force, Canonicalizer, Transform};
use batchdoku::tasks::generate::{
    generate, puzzle_rng, random_solution, GenerateOptions, Symmetry,
};
use batchdoku::Grid;
use common::random_transform;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// The kinds of grid a canonical form must handle.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// A minimal puzzle with one solution.
    Unique,
    /// A few clues of a solution: many solutions.
    Multiple,
    /// A unique puzzle with one more clue that breaks no rule but no
    /// solution keeps.
    Unsolvable,
    Solved,
    /// 0 to 8 clues.
    Sparse,
    /// 50 to 80 clues of a solution.
    Dense,
    /// A puzzle with a symmetry of the group built in (a grid and its image
    /// under a transformation merged where they agree).
    Symmetric,
}

const KINDS: [Kind; 7] = [
    Kind::Unique,
    Kind::Multiple,
    Kind::Unsolvable,
    Kind::Solved,
    Kind::Sparse,
    Kind::Dense,
    Kind::Symmetric,
];

/// Keeps `n` random clues of `g`.
fn keep(g: &Grid, n: usize, rng: &mut ChaCha8Rng) -> Grid {
    let mut cells: Vec<usize> = (0..81).collect();
    cells.shuffle(rng);
    let mut out = Grid::EMPTY;
    for &i in &cells[..n] {
        out.set(i / 9, i % 9, g.get(i / 9, i % 9));
    }
    out
}

fn puzzle(kind: Kind, seed: u64) -> Grid {
    let mut rng = puzzle_rng(seed, 7);
    let mut solver = FastSolver::new();
    let solution = random_solution(&mut rng, &mut solver);
    match kind {
        Kind::Unique => {
            let options = GenerateOptions {
                minimal: true,
                min_clues: 0,
                symmetry: Symmetry::None,
            };
            generate(seed, 0, options).puzzle
        }
        Kind::Multiple => {
            let n = rng.gen_range(12..22);
            keep(&solution, n, &mut rng)
        }
        Kind::Unsolvable => loop {
            let mut p = keep(&solution, 30, &mut rng);
            let i = rng.gen_range(0..81);
            if p.get(i / 9, i % 9) != 0 {
                continue;
            }
            p.set(i / 9, i % 9, rng.gen_range(1..10));
            if p.validate().is_ok() && solver.solve(&p, 1).solutions == 0 {
                return p;
            }
        },
        Kind::Solved => solution,
        Kind::Sparse => {
            let n = rng.gen_range(0..9);
            keep(&solution, n, &mut rng)
        }
        Kind::Dense => {
            let n = rng.gen_range(50..81);
            keep(&solution, n, &mut rng)
        }
        Kind::Symmetric => {
            // Clues of the solution kept where its image under a
            // transformation of order two (transposition, or a swap of two
            // bands and the matching stacks) keeps the same cells.
            let t = if rng.gen() {
                Transform {
                    transpose: true,
                    ..Transform::IDENTITY
                }
            } else {
                Transform {
                    rows: [3, 4, 5, 0, 1, 2, 6, 7, 8],
                    cols: [3, 4, 5, 0, 1, 2, 6, 7, 8],
                    ..Transform::IDENTITY
                }
            };
            let mask = keep(&solution, rng.gen_range(10..40), &mut rng);
            let image = t.apply(&mask);
            let mut p = Grid::EMPTY;
            for i in 0..81 {
                let (r, c) = (i / 9, i % 9);
                if mask.get(r, c) != 0 && image.get(r, c) != 0 {
                    p.set(r, c, solution.get(r, c));
                }
            }
            p
        }
    }
}

#[test]
fn every_kind_is_canonicalised() {
    for (seed, kind) in KINDS.iter().enumerate() {
        let p = puzzle(*kind, seed as u64);
        assert!(p.validate().is_ok(), "{kind:?}: {}", p.to_line());
        let c = canonical(&p).unwrap_or_else(|| panic!("{kind:?} refused"));
        assert_eq!(c.grid.clue_count(), p.clue_count());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// canon(t(p)) == canon(p), canon(canon(p)) == canon(p), the returned
    /// transformation is a member of the group and takes p to its form,
    /// and t(p) has as many automorphisms as p.
    #[test]
    fn invariant_idempotent_and_reached(seed in any::<u64>(), kind in 0..KINDS.len()) {
        let p = puzzle(KINDS[kind], seed % 100_000);
        let mut rng = puzzle_rng(seed, 99);
        let t = random_transform(&mut rng);
        prop_assert!(t.is_valid());
        let moved = t.apply(&p);
        let mut c = Canonicalizer::new();
        let a = c.canonical(&p).unwrap();
        let b = c.canonical(&moved).unwrap();
        // The entry point that validates first gives the same answer, and
        // so does the version for any CPU.
        prop_assert_eq!(c.canonical_of_valid(&moved), Ok(b));
        let mut portable = Canonicalizer::with_isa(Isa::Portable).unwrap();
        prop_assert_eq!(portable.canonical(&moved), Some(b));
        prop_assert_eq!(a.grid, b.grid, "{:?} {} under {:?}", KINDS[kind], p.to_line(), t);
        prop_assert_eq!(a.automorphisms, b.automorphisms);
        prop_assert!(a.transform.is_valid() && b.transform.is_valid());
        prop_assert_eq!(a.transform.apply(&p), a.grid);
        prop_assert_eq!(b.transform.apply(&moved), b.grid);
        let again = c.canonical(&a.grid).unwrap();
        prop_assert_eq!(again.grid, a.grid);
        prop_assert_eq!(again.automorphisms, a.automorphisms);
    }
}

/// The fast search against every arrangement, on a few hundred grids of
/// every kind (and the project's sample puzzles).
#[test]
fn agrees_with_the_brute_force() {
    let mut grids: Vec<Grid> = common::load_puzzles(&common::sample_path())
        .into_iter()
        .take(60)
        .collect();
    for seed in 0..30u64 {
        for kind in KINDS {
            grids.push(puzzle(kind, 1000 + seed));
        }
    }
    assert!(grids.len() >= 250);
    let disagreements: Vec<String> = grids
        .par_iter()
        .filter_map(|g| {
            let fast = canonical(g).unwrap();
            let (slow, count) = canonical_by_brute_force(g);
            (fast.grid != slow || fast.automorphisms != count).then(|| {
                format!(
                    "{}: fast {} x{}, brute force {} x{}",
                    g.to_line(),
                    fast.grid.to_line(),
                    fast.automorphisms,
                    slow.to_line(),
                    count
                )
            })
        })
        .collect();
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

/// Automorphism counts of known cases, each also computed by the brute
/// force.
#[test]
fn automorphisms_of_known_grids() {
    let cases: [(&str, u64); 4] = [
        // Every arrangement fixes the empty grid.
        (&".".repeat(81), 3_359_232),
        // One clue: its row and column stay, the rest moves freely.
        (
            &format!("5{}", ".".repeat(80)),
            2 * (2 * 2 * 6 * 6) * (2 * 2 * 6 * 6),
        ),
        // The most symmetric solution grid known: 648 automorphisms.
        (
            "123456789456789123789123456231564897564897231897231564312645978645978312978312645",
            648,
        ),
        // A grid of shifted rows: symmetric under many arrangements.
        (
            "123456789456789123789123456234567891567891234891234567345678912678912345912345678",
            0,
        ),
    ];
    for (line, known) in cases {
        let g = Grid::parse_line(line.as_bytes()).unwrap();
        let fast = canonical(&g).unwrap();
        let (slow, count) = canonical_by_brute_force(&g);
        assert_eq!(fast.grid, slow, "{line}");
        assert_eq!(fast.automorphisms, count, "{line}");
        if known != 0 {
            assert_eq!(count, known, "{line}");
        } else {
            assert!(count > 1, "{line}: {count}");
        }
    }
}

/// The canonical forms of the project's sample set: the shipped file has
/// no two equivalent puzzles, and one copy of each in disguise is found.
#[test]
fn disguised_copies_share_a_form() {
    let puzzles = common::load_puzzles(&common::sample_path());
    let mut c = Canonicalizer::new();
    let mut forms = std::collections::HashMap::new();
    for (i, p) in puzzles.iter().enumerate() {
        forms.insert(c.canonical(p).unwrap().grid, i);
    }
    assert_eq!(forms.len(), puzzles.len());
    let mut rng = puzzle_rng(5, 5);
    for (i, p) in puzzles.iter().enumerate().step_by(7) {
        let moved = random_transform(&mut rng).apply(p);
        assert_eq!(forms[&c.canonical(&moved).unwrap().grid], i);
    }
}
