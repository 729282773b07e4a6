//! Pencilmark puzzles in the solvers: the candidates of a puzzle of givens
//! solve like the puzzle, eliminations that keep a known solution still
//! find it, the portable and AVX2 searches agree, and the fast solver agrees
//! with `mrv` started from the same candidates.

mod common;

use batchdoku::puzzle::pencil::Candidates;
use batchdoku::solver::{FastSolver, Isa, MrvSolver, Solver};
use batchdoku::tasks::generate::puzzle_rng;
use batchdoku::Grid;
use common::{load_puzzles, sample_path, shared_datasets};
use rand::Rng;
use rayon::prelude::*;

/// `marks` with each candidate other than `keep`'s digit dropped with
/// probability `p` (a cell keeps at least `keep`'s digit when given).
fn eliminate(marks: &Candidates, keep: Option<&Grid>, p: f64, seed: u64) -> Candidates {
    let mut rng = puzzle_rng(seed, 17);
    let mut masks = *marks.masks();
    for (i, m) in masks.iter_mut().enumerate() {
        for d in 0..9u16 {
            let kept = keep.is_some_and(|s| s.cells()[i] as u16 == d + 1);
            if !kept && rng.gen_bool(p) {
                *m &= !(1 << d);
            }
        }
    }
    Candidates::from_masks(masks)
}

#[test]
fn the_candidates_of_a_puzzle_solve_like_the_puzzle() {
    let puzzles = load_puzzles(&sample_path());
    puzzles.par_iter().for_each_init(
        || (FastSolver::new(), MrvSolver::new()),
        |(fast, mrv), p| {
            let marks = Candidates::from_grid(p);
            let want = fast.solve(p, 2);
            let got = fast.solve_candidates(&marks, 2);
            assert_eq!(
                (got.solutions, got.solution),
                (want.solutions, want.solution),
                "{}",
                p.to_line()
            );
            let by_mrv = mrv.solve_candidates(&marks, 2);
            assert_eq!(
                (by_mrv.solutions, by_mrv.solution),
                (want.solutions, want.solution)
            );
        },
    );
}

#[test]
fn eliminations_that_keep_the_solution_still_find_it() {
    let puzzles = load_puzzles(&sample_path());
    puzzles
        .par_iter()
        .enumerate()
        .for_each_init(FastSolver::new, |fast, (i, p)| {
            let solution = fast.solve(p, 1).solution.unwrap();
            let marks = eliminate(&Candidates::from_grid(p), Some(&solution), 0.3, i as u64);
            assert!(marks.allows(&solution));
            let got = fast.solve_candidates(&marks, 2);
            // Fewer candidates than a unique puzzle's: still exactly one.
            assert_eq!(got.solutions, 1, "{}", marks.to_line());
            assert_eq!(got.solution, Some(solution));
        });
}

#[test]
fn every_fast_version_and_mrv_agree_on_random_candidates() {
    for isa in [Isa::Avx2, Isa::Avx512] {
        if !isa.is_supported() {
            eprintln!("note: no {isa:?} here; the other versions against mrv only");
        }
    }
    let puzzles = load_puzzles(&sample_path());
    (0..3000u64).into_par_iter().for_each_init(
        || {
            (
                FastSolver::with_isa(Isa::Portable).unwrap(),
                [Isa::Avx2, Isa::Avx512].map(FastSolver::with_isa),
                MrvSolver::new(),
            )
        },
        |(portable, versions, mrv), seed| {
            // Sparse, dense, solvable or not, one solution or many.
            let p = &puzzles[seed as usize % puzzles.len()];
            let base = if seed % 3 == 0 {
                Candidates::OPEN
            } else {
                Candidates::from_grid(p)
            };
            let marks = eliminate(&base, None, [0.02, 0.1, 0.3, 0.6][seed as usize % 4], seed);
            let a = portable.solve_candidates(&marks, 2);
            for version in versions.iter_mut().flatten() {
                assert_eq!(
                    version.solve_candidates(&marks, 2),
                    a,
                    "{:?}: {}",
                    version.isa(),
                    marks.to_line()
                );
            }
            let m = mrv.solve_candidates(&marks, 2);
            assert_eq!(m.solutions, a.solutions, "{}", marks.to_line());
            if let Some(s) = a.solution {
                assert!(s.is_valid_solution() && marks.allows(&s));
            }
            if a.solutions == 1 {
                assert_eq!(m.solution, a.solution);
            }
        },
    );
}

#[test]
fn invalid_and_unsolvable_pencilmarks() {
    let mut fast = FastSolver::new();
    // A cell with no candidate: no solution, and no rule broken.
    let mut masks = *Candidates::OPEN.masks();
    masks[40] = 0;
    let empty_cell = Candidates::from_masks(masks);
    assert!(empty_cell.validate().is_ok());
    assert_eq!(fast.solve_candidates(&empty_cell, 2).solutions, 0);
    assert_eq!(
        MrvSolver::new().solve_candidates(&empty_cell, 2).solutions,
        0
    );
    // Two cells of row 1 pinned to 7: invalid, and no solution.
    let mut masks = *Candidates::OPEN.masks();
    masks[0] = 1 << 6;
    masks[8] = 1 << 6;
    let clash = Candidates::from_masks(masks);
    assert!(clash.validate().is_err());
    assert_eq!(fast.solve_candidates(&clash, 2).solutions, 0);
}

/// The shared pencilmark set: every puzzle has exactly one solution, which
/// keeps to its candidates; mrv agrees on a slice.
#[test]
fn the_shared_pencilmark_set_solves() {
    let Some(dir) = shared_datasets() else { return };
    let text = std::fs::read_to_string(dir.join("pencil_10k.txt")).unwrap();
    let marks: Vec<Candidates> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| Candidates::parse_line(l.as_bytes()).unwrap())
        .collect();
    assert_eq!(marks.len(), 10_000);
    marks.par_iter().enumerate().for_each_init(
        || (FastSolver::new(), MrvSolver::new()),
        |(fast, mrv), (i, m)| {
            let r = fast.solve_candidates(m, 2);
            assert_eq!(r.solutions, 1, "line {}", i + 1);
            let s = r.solution.unwrap();
            assert!(s.is_valid_solution() && m.allows(&s));
            if i % 20 == 0 {
                assert_eq!(mrv.solve_candidates(m, 2).solution, Some(s));
            }
        },
    );
}

/// The reference backtracker, started from the same candidates, counts and
/// finds what the fast solver does (on sets it gets through quickly: the
/// eliminations keep a known solution and drop 30% of the rest).
#[test]
fn the_backtracker_agrees_from_candidates() {
    use batchdoku::solver::BacktrackSolver;
    let puzzles = load_puzzles(&sample_path());
    (0..200usize).into_par_iter().for_each_init(
        || (FastSolver::new(), BacktrackSolver::new()),
        |(fast, backtrack), i| {
            let p = &puzzles[i];
            let solution = fast.solve(p, 1).solution.unwrap();
            let keep = (i % 2 == 0).then_some(&solution);
            let marks = eliminate(&Candidates::from_grid(p), keep, 0.3, 1000 + i as u64);
            let want = fast.solve_candidates(&marks, 2);
            let got = backtrack.solve_candidates(&marks, 2);
            assert_eq!(
                (got.solutions, got.solution),
                (want.solutions, want.solution),
                "{}",
                marks.to_line()
            );
        },
    );
}

// The commands on pencilmark lines.

use common::{batchdoku, stdout_of, write};

/// The first `n` sample puzzles: their 81-cell lines, and their pencilmark
/// lines (peers of givens eliminated, then 20% of the other wrong
/// candidates, so the lines are not mere transcriptions).
fn sample_pairs(n: usize) -> (String, String) {
    let puzzles = load_puzzles(&sample_path());
    let mut fast = FastSolver::new();
    let (mut cells, mut marks) = (String::new(), String::new());
    for (i, p) in puzzles.iter().take(n).enumerate() {
        let solution = fast.solve(p, 1).solution.unwrap();
        let m = eliminate(&Candidates::from_grid(p), Some(&solution), 0.2, i as u64);
        cells += &format!("{}\n", p.to_line());
        marks += &format!("{}\n", m.to_line());
    }
    (cells, marks)
}

/// The csv fields of each output row but the puzzle's.
fn without_puzzle(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            [&f[..1], &f[2..]].concat().join(",")
        })
        .collect()
}

#[test]
fn solve_reads_pencilmark_lines_like_their_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let (cells, marks) = sample_pairs(300);
    let cells = write(dir.path(), "cells.txt", cells);
    let marks = write(dir.path(), "marks.txt", &marks);
    let solve = |path: &std::path::Path| {
        stdout_of(
            batchdoku()
                .args(["solve", "-q", "--limit", "2", "--format", "csv"])
                .arg(path),
        )
    };
    let (a, b) = (solve(&cells), solve(&marks));
    let (a, b) = (without_puzzle(&a), without_puzzle(&b));
    assert_eq!(a.len(), 301);
    // Same lines, statuses, counts and solutions; guesses may differ (the
    // extra eliminations can spare some).
    let strip_guesses = |rows: &[String]| -> Vec<String> {
        rows.iter()
            .map(|r| r.rsplit_once(',').unwrap().0.to_string())
            .collect()
    };
    assert_eq!(strip_guesses(&a), strip_guesses(&b));
    // The puzzle column holds the pencilmark line itself.
    let csv = solve(&marks);
    let first = csv.lines().nth(1).unwrap().split(',').nth(1).unwrap();
    let text = std::fs::read_to_string(&marks).unwrap();
    assert_eq!(first, text.lines().next().unwrap());
}

#[test]
fn verify_rate_and_bench_read_pencilmark_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (cells, marks) = sample_pairs(200);
    let cells = write(dir.path(), "cells.txt", cells);
    let marks = write(dir.path(), "marks.txt", &marks);
    let answers = dir.path().join("answers.txt");
    batchdoku()
        .args(["solve", "-q", "-o"])
        .arg(&answers)
        .arg(&marks)
        .assert()
        .success();
    batchdoku()
        .args(["verify", "--unique"])
        .arg(&marks)
        .arg(&answers)
        .assert()
        .success();
    // An answer that keeps the rules but not the candidates is wrong: the
    // solution of another puzzle.
    let text = std::fs::read_to_string(&answers).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(0, 1);
    let swapped = write(dir.path(), "swapped.txt", lines.join("\n") + "\n");
    let out = batchdoku()
        .args(["verify"])
        .arg(&marks)
        .arg(&swapped)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let report = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(report.contains("where it is not a candidate"), "{report}");
    assert!(report.contains("marks.txt:1,"), "{report}");

    // rate: the pencilmark form of a puzzle of givens (peers eliminated
    // only) rates as the puzzle does.
    let puzzles = load_puzzles(&sample_path());
    let plain: String = puzzles[..200]
        .iter()
        .map(|p| format!("{}\n", Candidates::from_grid(p).to_line()))
        .collect();
    let plain = write(dir.path(), "plain.txt", plain);
    let rate = |path: &std::path::Path| {
        without_puzzle(&stdout_of(batchdoku().args(["rate", "-q"]).arg(path)))
    };
    assert_eq!(rate(&cells), rate(&plain));

    // bench checks each answer against the candidates and agrees across
    // the solvers, or fails.
    let table = stdout_of(
        batchdoku()
            .args([
                "bench",
                "--solvers",
                "fast,mrv",
                "--threads",
                "1",
                "--limit",
                "2",
            ])
            .args(["--min-time", "0.05"])
            .arg(&marks),
    );
    assert!(table.contains("marks.txt (200 puzzles)"), "{table}");
    assert!(
        table.contains("|fast|") && table.contains("|mrv|"),
        "{table}"
    );
}

#[test]
fn bad_pencilmark_records_are_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (_, marks) = sample_pairs(1);
    let good = marks.trim_end().to_string();
    let mut empty_cell = good.clone().into_bytes();
    empty_cell[9 * 40..9 * 41].copy_from_slice(b".........");
    let mut pinned = good.clone().into_bytes();
    // Cells 1 and 2 of row 1 both pinned to 5.
    pinned[..18].copy_from_slice(b"....5........5....");
    let mut bad_char = good.clone().into_bytes();
    bad_char[100] = b'x';
    let lines = [
        good.clone(),
        String::from_utf8(empty_cell).unwrap(),
        String::from_utf8(pinned).unwrap(),
        String::from_utf8(bad_char).unwrap(),
        good[..700].to_string(),
        format!("{good}1"),
        good.clone(),
    ];
    let input = write(dir.path(), "bad.txt", lines.join("\n") + "\n");
    let out = batchdoku()
        .args(["solve", "--format", "csv"])
        .arg(&input)
        .assert()
        .success()
        .get_output()
        .clone();
    let csv = String::from_utf8(out.stdout).unwrap();
    let statuses: Vec<&str> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap())
        .collect();
    assert_eq!(
        statuses,
        [
            "solved",
            "unsolvable",
            "invalid",
            "malformed",
            "malformed",
            "malformed",
            "solved"
        ]
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("bad.txt:4: malformed: bad character 'x' at column 101"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.txt:5: malformed: pencilmarks of 700 characters"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.txt:6: malformed: pencilmarks of 730 characters"),
        "{stderr}"
    );
    // Through a real pipe, in order, one line per record.
    let piped = stdout_of(
        batchdoku()
            .args(["solve", "-q", "-"])
            .write_stdin(lines.join("\n") + "\n"),
    );
    let rows: Vec<&str> = piped.lines().collect();
    assert_eq!(rows.len(), 7);
    assert_eq!(
        rows[1..6],
        [
            "unsolvable",
            "invalid",
            "malformed",
            "malformed",
            "malformed"
        ]
    );
    assert_eq!(rows[0], rows[6]);
    // verify agrees with those statuses.
    let answers = write(dir.path(), "answers.txt", piped);
    batchdoku()
        .args(["verify"])
        .arg(&input)
        .arg(&answers)
        .assert()
        .success();
}

#[test]
fn input_pencilmark_forces_the_form_and_canon_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let (cells, marks) = sample_pairs(3);
    let cells = write(dir.path(), "cells.txt", cells);
    let marks = write(dir.path(), "marks.txt", &marks);
    // Forced: an 81-cell line is a pencilmark line of the wrong length.
    let out = batchdoku()
        .args(["solve", "--input", "pencilmark"])
        .arg(&cells)
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "malformed\n".repeat(3)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("pencilmarks of 81 characters, need 729"),
        "{stderr}"
    );
    let forced = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "pencilmark"])
            .arg(&marks),
    );
    assert_eq!(
        forced,
        stdout_of(batchdoku().args(["solve", "-q"]).arg(&marks))
    );
    // A CSV column of pencilmark text.
    let text = std::fs::read_to_string(&marks).unwrap();
    let csv: String = std::iter::once("id,puzzle\n".to_string())
        .chain(text.lines().enumerate().map(|(i, l)| format!("p{i},{l}\n")))
        .collect();
    let csv = write(dir.path(), "marks.csv", csv);
    assert_eq!(
        stdout_of(batchdoku().args(["solve", "-q"]).arg(&csv)),
        forced
    );
    // canon works on givens only, and says so.
    let out = batchdoku()
        .args(["canon"])
        .arg(&marks)
        .assert()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("a pencilmark puzzle"), "{stderr}");
}

/// The whole shared pencilmark set through the CLI: every puzzle unique,
/// and `verify --unique` proves the answers.
#[test]
fn the_shared_pencilmark_set_through_the_cli() {
    let Some(dir) = shared_datasets() else { return };
    let path = dir.join("pencil_10k.txt");
    let tmp = tempfile::tempdir().unwrap();
    let answers = tmp.path().join("answers.csv");
    batchdoku()
        .args(["solve", "-q", "--limit", "2", "--format", "csv", "-o"])
        .arg(&answers)
        .arg(&path)
        .assert()
        .success();
    let csv = std::fs::read_to_string(&answers).unwrap();
    assert_eq!(csv.lines().count(), 10_001);
    assert!(csv
        .lines()
        .skip(1)
        .all(|l| l.split(',').nth(2) == Some("unique")));
    batchdoku()
        .args(["verify", "--unique"])
        .arg(&path)
        .arg(&answers)
        .assert()
        .success();
}
