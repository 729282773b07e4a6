//! The `batchdoku` binary as a user runs it.

mod common;

use batchdoku::Grid;
use common::{batchdoku, load_puzzles, sample_path, shared_datasets, CLASSIC, CLASSIC_SOLUTION};
use predicates::prelude::*;
use std::path::Path;

/// Checks that `out` answers `puzzles` line by line with valid solutions.
fn assert_solves(puzzles: &[Grid], out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), puzzles.len(), "one output line per record");
    for (i, (p, line)) in puzzles.iter().zip(&lines).enumerate() {
        let s: Grid = line
            .parse()
            .unwrap_or_else(|e| panic!("record {}: {line:?}: {e}", i + 1));
        assert!(s.solves(p), "record {}: {line} does not solve {p}", i + 1);
    }
}

#[test]
fn solves_the_sample_with_every_fast_variant_into_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let puzzles = load_puzzles(&sample_path());
    for solver in ["fast", "mrv"] {
        let out = dir.path().join(format!("{solver}.txt"));
        batchdoku()
            .args(["solve", "--solver", solver, "-j", "2", "-o"])
            .arg(&out)
            .arg(sample_path())
            .assert()
            .success()
            .stderr(predicate::str::contains("3000 records"));
        assert_solves(&puzzles, &std::fs::read_to_string(&out).unwrap());
        assert!(!Path::new(&format!("{}.partial", out.display())).exists());
    }
}

#[test]
fn backtrack_solves_minimal_puzzles() {
    let puzzles = load_puzzles(&sample_path());
    let few: String = std::fs::read_to_string(sample_path())
        .unwrap()
        .lines()
        .take(200)
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("few.txt");
    std::fs::write(&file, few).unwrap();
    let out = batchdoku()
        .args(["solve", "--solver", "backtrack", "-q"])
        .arg(&file)
        .assert()
        .success();
    assert_solves(
        &puzzles[..200],
        &String::from_utf8_lossy(&out.get_output().stdout),
    );
}

#[test]
fn one_status_line_per_record_in_order() {
    let mut invalid = CLASSIC.to_string();
    invalid.replace_range(2..3, "5");
    let unsolvable = format!("12.456789{}..3{}", ".".repeat(18), ".".repeat(51));
    let input = format!(
        "# a comment\n{CLASSIC}\n\n{invalid}\nnot a puzzle\r\n{unsolvable}\n{}\n{CLASSIC},{CLASSIC_SOLUTION}",
        ".".repeat(81)
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("in.txt");
    std::fs::write(&file, input).unwrap();
    let out = batchdoku()
        .args(["solve", "--limit", "2"])
        .arg(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "{}:5: malformed: bad character 'n' at column 1",
            file.display()
        )));
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], CLASSIC_SOLUTION);
    assert_eq!(lines[1], "invalid");
    assert_eq!(lines[2], "malformed");
    assert_eq!(lines[3], "unsolvable");
    assert!(lines[4].parse::<Grid>().unwrap().is_valid_solution());
    assert_eq!(lines[5], CLASSIC_SOLUTION);
}

#[test]
fn usage_errors_exit_2_and_missing_files_exit_1() {
    batchdoku()
        .args(["solve", "--solver", "quick", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown solver"));
    batchdoku()
        .args(["solve", "--limit", "0", "x"])
        .assert()
        .code(2);
    batchdoku()
        .args(["solve", "/no/such/file.txt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot open /no/such/file.txt"));
}

#[test]
fn an_empty_file_gives_empty_output() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.txt");
    std::fs::write(&file, "").unwrap();
    batchdoku()
        .arg("solve")
        .arg(&file)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn generate_is_reproducible_whatever_the_thread_count() {
    let run = |threads: &str| {
        batchdoku()
            .args(["generate", "-n", "60", "--seed", "5", "-j", threads])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    let text = String::from_utf8(one).unwrap();
    assert_eq!(text.lines().count(), 60);
    let mut solver = batchdoku::SolverKind::Fast.build();
    for line in text.lines() {
        let p: Grid = line.parse().unwrap();
        assert_eq!(solver.solve(&p, 2).solutions, 1);
    }
}

#[test]
fn solves_magictour_with_fast_and_mrv() {
    let Some(dir) = shared_datasets() else { return };
    let file = dir.join("magictour_top1465.txt");
    let puzzles = load_puzzles(&file);
    assert_eq!(puzzles.len(), 1465);
    for solver in ["fast", "mrv"] {
        let out = batchdoku()
            .args(["solve", "-q", "-j", "2", "--solver", solver])
            .arg(&file)
            .assert()
            .success();
        assert_solves(&puzzles, &String::from_utf8_lossy(&out.get_output().stdout));
    }
}

#[test]
fn completions_for_every_shell_know_every_subcommand() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = batchdoku().args(["completions", shell]).assert().success();
        let script = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        for sub in ["solve", "verify", "bench", "generate", "rate"] {
            assert!(script.contains(sub), "{shell}: {sub}");
        }
        assert!(script.contains("resume"), "{shell}");
    }
    batchdoku().args(["completions", "tcsh"]).assert().code(2);
}

#[test]
fn the_man_page_has_a_section_per_subcommand() {
    let out = batchdoku().arg("man").assert().success();
    let page = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(page.starts_with(".ie"), "{}", &page[..80]);
    assert!(page.contains(".TH batchdoku 1"));
    for sub in [
        "SOLVE",
        "VERIFY",
        "BENCH",
        "GENERATE",
        "RATE",
        "COMPLETIONS",
    ] {
        assert!(page.contains(&format!(".SH \"BATCHDOKU {sub}\"")), "{sub}");
    }
    assert!(page.contains("\\-\\-resume"));
}

#[test]
fn every_subcommand_help_ends_with_examples() {
    for sub in [
        "solve",
        "verify",
        "bench",
        "generate",
        "rate",
        "completions",
        "man",
    ] {
        let out = batchdoku().args([sub, "--help"]).assert().success();
        let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let examples = help
            .split("Examples:")
            .nth(1)
            .unwrap_or_else(|| panic!("{sub}: no examples"));
        let shown = examples
            .lines()
            .filter(|l| l.trim_start().starts_with("batchdoku "))
            .count();
        assert!((2..=3).contains(&shown), "{sub}: {shown} examples");
    }
}
