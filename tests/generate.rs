//! `batchdoku generate` and `batchdoku rate` as a user runs them.

use assert_cmd::Command;
use batchdoku::{Grid, SolverKind};
use predicates::prelude::*;

fn batchdoku() -> Command {
    Command::cargo_bin("batchdoku").unwrap()
}

fn generate(args: &[&str]) -> Vec<String> {
    let out = batchdoku().arg("generate").args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

fn count(p: &Grid) -> u32 {
    SolverKind::Fast.build().solve(p, 2).solutions
}

#[test]
fn one_seed_gives_the_same_file_whatever_the_thread_count() {
    let one = generate(&["-n", "3000", "--seed", "42", "-j", "1", "-q"]);
    let two = generate(&["-n", "3000", "--seed", "42", "-j", "2", "-q"]);
    assert_eq!(one.len(), 3000);
    assert_eq!(one, two);
    let other = generate(&["-n", "10", "--seed", "43", "-q"]);
    assert_ne!(&one[..10], &other[..]);
    for line in &one {
        let p: Grid = line.parse().unwrap();
        assert_eq!(count(&p), 1, "{line}");
    }
}

#[test]
fn minimal_puzzles_lose_uniqueness_when_any_clue_goes() {
    let mut solver = SolverKind::Fast.build();
    for line in generate(&["-n", "100", "--seed", "5", "--minimal", "-q"]) {
        let p: Grid = line.parse().unwrap();
        assert_eq!(solver.solve(&p, 2).solutions, 1);
        for i in 0..81 {
            let mut cells = *p.cells();
            if cells[i] != 0 {
                cells[i] = 0;
                let fewer = Grid::from_cells(cells).unwrap();
                assert_eq!(solver.solve(&fewer, 2).solutions, 2, "{line}: clue {i}");
            }
        }
    }
}

#[test]
fn min_clues_keeps_at_least_that_many() {
    for line in generate(&[
        "-n",
        "200",
        "--seed",
        "6",
        "--minimal",
        "--min-clues",
        "32",
        "-q",
    ]) {
        let p: Grid = line.parse().unwrap();
        assert!(p.clue_count() >= 32, "{line}");
        assert_eq!(count(&p), 1, "{line}");
    }
}

/// True when no single clue of `p` can go without losing uniqueness.
fn no_clue_can_go(p: &Grid) -> bool {
    let mut solver = SolverKind::Fast.build();
    (0..81).filter(|&i| p.cells()[i] != 0).all(|i| {
        let mut cells = *p.cells();
        cells[i] = 0;
        solver.solve(&Grid::from_cells(cells).unwrap(), 2).solutions == 2
    })
}

#[test]
fn minimal_with_symmetry_means_no_clue_can_go() {
    for symmetry in ["rotational", "mirror", "diagonal"] {
        let lines = generate(&[
            "-n",
            "40",
            "--seed",
            "8",
            "--minimal",
            "--symmetry",
            symmetry,
            "-q",
        ]);
        let mut asymmetric = 0;
        for line in &lines {
            let p: Grid = line.parse().unwrap();
            assert_eq!(count(&p), 1, "{line}");
            assert!(no_clue_can_go(&p), "{symmetry}: {line}");
            let partner = |i: usize| match symmetry {
                "rotational" => 80 - i,
                "mirror" => i / 9 * 9 + 8 - i % 9,
                _ => i % 9 * 9 + i / 9,
            };
            asymmetric += (0..81)
                .filter(|&i| (p.cells()[i] == 0) != (p.cells()[partner(i)] == 0))
                .count();
        }
        // Pairs go first, so symmetry is broken only by the few single
        // clues taken after them (about 7 cells of 24 clues on average for
        // rotational; clues removed one by one from the start would leave
        // most cells without their partner).
        let mean = asymmetric as f64 / lines.len() as f64;
        assert!(
            mean < 12.0,
            "{symmetry}: {mean} cells without their partner"
        );
    }
}

#[test]
fn symmetry_and_solutions() {
    for line in generate(&[
        "-n",
        "20",
        "--seed",
        "8",
        "--symmetry",
        "rotational",
        "--with-solution",
        "-q",
    ]) {
        let (p, s) = line.split_once(',').unwrap();
        let (p, s): (Grid, Grid) = (p.parse().unwrap(), s.parse().unwrap());
        assert!(s.solves(&p));
        assert_eq!(count(&p), 1);
        for i in 0..81 {
            assert_eq!(p.cells()[i] == 0, p.cells()[80 - i] == 0, "{line}");
        }
    }
}

#[test]
fn difficulty_keeps_only_that_class() {
    let lines = generate(&[
        "-n",
        "5",
        "--seed",
        "9",
        "--minimal",
        "--difficulty",
        "hard",
        "-q",
    ]);
    assert_eq!(lines.len(), 5);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("hard.txt");
    std::fs::write(&f, lines.join("\n")).unwrap();
    let out = batchdoku()
        .args(["rate", "--format", "csv", "-q"])
        .arg(&f)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let classes: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(classes, ["hard"; 5]);
    // An impossible request ends with a clear error, not a hang.
    batchdoku()
        .args([
            "generate",
            "-n",
            "1",
            "--seed",
            "1",
            "--min-clues",
            "60",
            "--difficulty",
            "extreme",
            "-q",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("only 0 of 1 extreme puzzles"));
}

#[test]
fn without_a_seed_one_is_chosen_and_printed() {
    batchdoku()
        .args(["generate", "-n", "2"])
        .assert()
        .success()
        .stderr(predicate::str::contains("batchdoku: seed "))
        .stderr(predicate::str::contains("clues: "));
}

#[test]
fn rate_gives_every_record_a_class_and_a_summary() {
    let sample = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/sample.txt");
    let out = batchdoku()
        .arg("rate")
        .arg(&sample)
        .assert()
        .success()
        .stderr(predicate::str::contains("3000 records"))
        .stderr(predicate::str::contains("    easy "))
        .stderr(predicate::str::contains(" extreme "));
    let csv = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "line",
            "puzzle",
            "solutions",
            "guesses",
            "inference",
            "difficulty"
        ]
    );
    assert_eq!(rows.len(), 3001);
    for r in &rows[1..] {
        let guesses: u64 = r[3].parse().unwrap();
        let expected = match (r[4], guesses) {
            ("singles", _) => "easy",
            ("locked_candidates", _) => "medium",
            ("search", g) if g < 20 => "hard",
            ("search", _) => "extreme",
            other => panic!("unexpected {other:?}"),
        };
        assert_eq!(r[5], expected, "{r:?}");
    }
    // Deterministic, and the same through standard input.
    let again = batchdoku()
        .args(["rate", "-q", "-j", "1", "-"])
        .write_stdin(std::fs::read(&sample).unwrap())
        .assert()
        .success();
    assert_eq!(
        String::from_utf8(again.get_output().stdout.clone()).unwrap(),
        csv
    );
    // Bad records get a row of their own.
    let bad = batchdoku()
        .args(["rate", "-q", "--format", "jsonl"])
        .write_stdin(format!("oops\n{}\n", ".".repeat(81)))
        .assert()
        .success();
    let objs: Vec<serde_json::Value> = String::from_utf8(bad.get_output().stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs[0]["difficulty"], "malformed");
    assert_eq!(objs[1]["solutions"], 2);
    assert_eq!(objs[1]["inference"], "search");
}

#[test]
fn an_er_range_keeps_puzzles_graded_in_it_whatever_the_thread_count() {
    let one = generate(&["-n", "12", "--seed", "5", "--er", "3.0-4.5", "-j", "1"]);
    let two = generate(&["-n", "12", "--seed", "5", "--er", "3.0-4.5", "-j", "2"]);
    assert_eq!(one, two);
    assert_eq!(one.len(), 12);
    let mut solver = batchdoku::solver::FastSolver::new();
    for line in &one {
        let p = batchdoku::Puzzle::Givens(Grid::parse_line(line.as_bytes()).unwrap());
        match batchdoku::tasks::grade::grade(&p, &mut solver, false) {
            batchdoku::tasks::grade::Grade::Rated { er, .. } => {
                assert!((30..=45).contains(&er), "{line}: {er}")
            }
            other => panic!("{line}: {other:?}"),
        }
    }
    // Chain ratings too.
    let chains = generate(&["-n", "3", "--seed", "5", "--er", "6.5-8.9", "--minimal"]);
    assert_eq!(chains.len(), 3);
    for line in &chains {
        let p = batchdoku::Puzzle::Givens(Grid::parse_line(line.as_bytes()).unwrap());
        match batchdoku::tasks::grade::grade(&p, &mut solver, false) {
            batchdoku::tasks::grade::Grade::Rated { er, .. } => {
                assert!((65..=89).contains(&er), "{line}: {er}")
            }
            other => panic!("{line}: {other:?}"),
        }
    }
    // Ranges past what grade rates, reversed, or with --difficulty: refused.
    for bad in [
        &["--er", "9.5"][..],
        &["--er", "4-3"],
        &["--er", "x"],
        &["--er", "3", "--difficulty", "easy"],
    ] {
        batchdoku()
            .args(["generate", "-n", "1"])
            .args(bad)
            .assert()
            .code(2);
    }
}
