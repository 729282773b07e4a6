//! The answer readers (line, csv, jsonl, the text after a puzzle) and the
//! checker on arbitrary text. Nothing panics; whatever the checker passes
//! is true of the puzzle: a solution it accepts solves it, and a count or
//! status it accepts matches a count made here by the reference solver.
#![no_main]

use batchdoku::puzzle::Status;
use batchdoku::solver::{MrvSolver, Solver};
use batchdoku::read::answers::{embedded_answer, parse_answer, AnswerColumns, AnswerFormat};
use batchdoku::tasks::verify::{check, CheckOptions};
use batchdoku::{Grid, Puzzle};
use libfuzzer_sys::fuzz_target;

/// A uniquely solvable puzzle, one with exactly two solutions, one with
/// none (every rule kept), and one whose givens repeat a digit.
const PUZZLES: [&str; 4] = [
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79",
    "................48198342567859761423426853791713924856961537284287419635345286179",
    "12.456789.........3......................................................................",
    "55...............................................................................",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let puzzle_text = PUZZLES[pick as usize % PUZZLES.len()];
    let puzzle = Grid::parse_line(&puzzle_text.as_bytes()[..81]);
    let claims = [
        parse_answer(AnswerFormat::Line, text),
        parse_answer(AnswerFormat::Csv(AnswerColumns::solve_output(false)), text),
        parse_answer(AnswerFormat::Csv(AnswerColumns::solve_output(true)), text),
        parse_answer(AnswerFormat::Jsonl, text),
        embedded_answer(&[&puzzle_text.as_bytes()[..81], text].concat()),
    ];
    let mut reference = MrvSolver::new();
    for claim in claims.into_iter().flatten() {
        let unique = pick & 0x80 != 0;
        let mut solver = batchdoku::solver::FastSolver::new();
        if check(
            &mut solver,
            &puzzle.clone().map(Puzzle::from),
            &claim,
            CheckOptions {
                unique,
                max_count: 1_000,
            },
        )
        .is_err()
        {
            continue;
        }
        let grid = puzzle.as_ref().expect("these puzzles parse");
        let limit = claim
            .solutions
            .unwrap_or(0)
            .saturating_add(1)
            .max(2)
            .min(1_000);
        let found = reference.solve(grid, limit).solutions;
        if grid.validate().is_err() {
            assert_eq!(claim.status, Some(Status::Invalid), "accepted a rule break");
            continue;
        }
        if let Some(Ok(s)) = &claim.solution {
            assert!(s.solves(grid), "accepted a wrong solution");
        }
        match claim.status {
            Some(Status::Unique) => assert_eq!(found, 1),
            Some(Status::Multiple) => assert!(found >= 2),
            Some(Status::Unsolvable) => assert_eq!(found, 0),
            Some(Status::Invalid) => assert!(grid.validate().is_err(), "accepted invalid"),
            Some(Status::Malformed) => panic!("accepted malformed for a puzzle that parses"),
            _ => {}
        }
        if let (Some(n), None | Some(Status::Unique | Status::Unsolvable)) =
            (claim.solutions, claim.status)
        {
            if n < 1_000 {
                assert_eq!(found, n, "accepted a count of {n}");
            }
        }
        if unique {
            assert_eq!(found, 1, "--unique accepted a puzzle with {found}");
        }
    }
});
