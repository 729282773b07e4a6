//! Single-thread solve rate of one variant on a file, measured the way
//! `../shared/peer-bench rate FILE LIMIT` measures the `sudoku` crate, so the
//! two can be compared as a ratio taken in one run:
//!
//!     cargo run --release --example rate -- FILE [fast|fast-portable|fast-avx2|fast-avx512|mrv|backtrack] [LIMIT] [MIN_SECONDS]
//!
//! A first pass checks every answer; then whole passes over the file repeat
//! until MIN_SECONDS (default 3) have gone by. Prints one JSON object.

use batchdoku::read::{records, InputFormat};
use batchdoku::solver::{FastSolver, Isa, Solver};
use batchdoku::{Grid, SolverKind};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: rate FILE [fast|fast-portable|fast-avx2|fast-avx512|mrv|backtrack] [LIMIT] [MIN_SECONDS]");
        std::process::exit(2);
    };
    // `fast-portable`, `fast-avx2` and `fast-avx512` are the fast solver in
    // that version rather than the one `Isa::detect` picks, for measuring
    // what each gains.
    let name = args.get(2).map_or("fast", String::as_str);
    let isa = match name {
        "fast-portable" => Some(Isa::Portable),
        "fast-avx2" => Some(Isa::Avx2),
        "fast-avx512" => Some(Isa::Avx512),
        _ => None,
    };
    let kind: SolverKind = if isa.is_some() { "fast" } else { name }.parse().unwrap();
    let limit: u32 = args.get(3).map_or(2, |s| s.parse().expect("LIMIT"));
    let min_seconds: f64 = args.get(4).map_or(3.0, |s| s.parse().expect("MIN_SECONDS"));
    let data = std::fs::read(path).expect("readable file");
    let puzzles: Vec<Grid> = records(&data, 1, InputFormat::Line)
        .filter_map(|r| r.givens().ok())
        .collect();
    let mut solver: Box<dyn Solver> = match isa {
        Some(isa) => Box::new(FastSolver::with_isa(isa).unwrap_or_else(|| {
            eprintln!("this CPU cannot run the {isa:?} version");
            std::process::exit(2)
        })),
        None => kind.build(),
    };
    let mut guesses = 0u64;
    for (i, p) in puzzles.iter().enumerate() {
        let out = solver.solve(p, limit);
        if let Some(s) = out.solution {
            assert!(s.solves(p), "wrong answer to puzzle {}", i + 1);
        }
        guesses += out.guesses;
    }
    let start = Instant::now();
    let mut solved = 0usize;
    while start.elapsed().as_secs_f64() < min_seconds {
        for p in &puzzles {
            std::hint::black_box(solver.solve(std::hint::black_box(p), limit));
        }
        solved += puzzles.len();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"solver\":\"batchdoku-{name}\",\"dataset\":\"{path}\",\"limit\":{limit},\"puzzles\":{solved},\"seconds\":{secs:.3},\"puzzles_per_sec\":{:.1},\"guesses_per_puzzle\":{:.2}}}",
        solved as f64 / secs,
        guesses as f64 / puzzles.len().max(1) as f64
    );
}
