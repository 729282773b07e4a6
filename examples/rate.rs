//! Quick single-thread rate of one solver on a file: `rate FILE SOLVER LIMIT`.
use batchdoku::{Grid, SolverKind};
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let kind: SolverKind = a.get(2).map(|s| s.parse().unwrap()).unwrap_or(SolverKind::Fast);
    let limit: u32 = a.get(3).map(|s| s.parse().unwrap()).unwrap_or(2);
    let puzzles: Vec<Grid> = text.lines().filter(|l| !l.starts_with('#') && l.len() >= 81).map(|l| Grid::parse_line(l.as_bytes()).unwrap()).collect();
    let mut s = kind.build();
    let start = Instant::now();
    let (mut n, mut g, mut sols, mut bad) = (0u64, 0u64, 0u64, 0u64);
    while start.elapsed().as_secs_f64() < 3.0 {
        for p in &puzzles { let o = s.solve(p, limit); n += 1; g += o.guesses; sols += o.solutions as u64; if o.solution.map_or(true, |x| !x.solves(p)) { bad += 1; } }
    }
    let t = start.elapsed().as_secs_f64();
    println!("{} {}: {:.0}/s guesses/puzzle {:.2} sols/puzzle {:.3} bad {}", a[1], kind, n as f64 / t, g as f64 / n as f64, sols as f64 / n as f64, bad);
}
