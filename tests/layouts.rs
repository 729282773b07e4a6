//! Datasets as they are published: CSV files with the puzzle (and answer)
//! in named columns, read by `solve`, `rate` and `verify` as they are.

mod common;

use common::{batchdoku, sample_path, write};
use predicates::prelude::*;
use std::path::Path;

fn stdout_of(cmd: &mut assert_cmd::Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// The first `n` puzzles of the sample and their solutions.
fn puzzles_and_solutions(n: usize) -> Vec<(String, String)> {
    let puzzles: Vec<String> = std::fs::read_to_string(sample_path())
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(n)
        .map(|l| l[..81].to_string())
        .collect();
    let solved = stdout_of(batchdoku().args(["solve", "-q"]).arg(sample_path()));
    puzzles
        .into_iter()
        .zip(solved.lines().map(str::to_string))
        .collect()
}

/// Every layout of the issue, written by hand the way the datasets are.
fn layouts(dir: &Path, rows: &[(String, String)]) -> Vec<(&'static str, std::path::PathBuf)> {
    let mut k1m = String::from("quizzes,solutions\n");
    let mut k9m = String::from("puzzle,solution\r\n");
    let mut r3m = String::from("id,puzzle,solution,clues,difficulty\n");
    let mut ext = String::from("source,question,answer,rating\n");
    let mut rrn = String::new();
    for (i, (p, s)) in rows.iter().enumerate() {
        let zeros = p.replace('.', "0");
        k1m += &format!("{zeros},{s}\n");
        k9m += &format!("{zeros},{s}\r\n");
        let clues = p.chars().filter(|&c| c != '.').count();
        r3m += &format!("{i:x},{p},{s},{clues},{}.{}\n", i % 5, i % 10);
        // Quoted fields, one holding a comma, a quote and a line break.
        ext += &format!(
            "\"forum, \"\"hard\"\"\nset {i}\",\"{p}\",\"{s}\",{}\n",
            i % 7
        );
        rrn += &format!("{zeros},{s}\n");
    }
    vec![
        ("kaggle 1M", write(dir, "k1m.csv", k1m)),
        ("kaggle 9M", write(dir, "k9m.csv", k9m)),
        ("3M rated", write(dir, "r3m.csv", r3m)),
        ("sudoku-extreme", write(dir, "ext.csv", ext)),
        ("rrn", write(dir, "rrn.csv", rrn)),
    ]
}

#[test]
fn every_layout_solves_like_the_plain_file_and_verifies_itself() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(300);
    let plain: String = rows.iter().map(|(p, _)| format!("{p}\n")).collect();
    let plain = write(dir.path(), "plain.txt", plain);
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    for (name, file) in layouts(dir.path(), &rows) {
        let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&file));
        assert_eq!(got, expected, "{name}");
        // The same through a pipe.
        let piped = stdout_of(
            batchdoku()
                .args(["solve", "-q", "-"])
                .write_stdin(std::fs::read(&file).unwrap()),
        );
        assert_eq!(piped, expected, "{name} through a pipe");
        // Its own answer column proves it.
        batchdoku()
            .arg("verify")
            .arg(&file)
            .assert()
            .success()
            .stdout(predicate::str::contains("300 records checked: 300 passed"));
        // And solve's answers for it verify against it.
        let answers = dir.path().join(format!("{name}.answers.csv"));
        batchdoku()
            .args(["solve", "-q", "--limit", "2", "--format", "csv", "-o"])
            .arg(&answers)
            .arg(&file)
            .assert()
            .success();
        batchdoku()
            .arg("verify")
            .arg(&file)
            .arg(&answers)
            .assert()
            .success();
        // Rows are numbered from 1 after the header.
        let csv = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "csv"])
                .arg(&file),
        );
        let second = csv.lines().nth(2).unwrap();
        assert!(second.starts_with("2,"), "{name}: {second}");
    }
}

#[test]
fn wrong_answers_in_a_column_are_found_with_their_row() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(20);
    let mut text = String::from("id,puzzle,solution\n");
    for (i, (p, s)) in rows.iter().enumerate() {
        let s = if i == 6 { rows[7].1.clone() } else { s.clone() };
        text += &format!("{i},{p},{s}\n");
    }
    let f = write(dir.path(), "bad.csv", text);
    batchdoku()
        .arg("verify")
        .arg(&f)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("record 7 ("))
        .stdout(predicate::str::contains("1 failed"));
}

#[test]
fn columns_are_chosen_by_name_or_number_and_unknown_ones_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(10);
    let mut named = String::from("key,grid_text,truth\n");
    let mut bare = String::new();
    for (i, (p, s)) in rows.iter().enumerate() {
        named += &format!("{i},{p},{s}\n");
        bare += &format!("{i};x,{p},{s}\n");
    }
    let named = write(dir.path(), "named.csv", named);
    let bare = write(dir.path(), "bare.csv", bare);
    let expected: String = rows.iter().map(|(_, s)| format!("{s}\n")).collect();
    // A header without a known puzzle name: refused, naming the options.
    batchdoku()
        .args(["solve", "-q"])
        .arg(&named)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--column NAME or --column N"));
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--column", "grid_text"])
            .arg(&named),
    );
    assert_eq!(got, expected);
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--column", "2"])
            .arg(&named),
    );
    assert_eq!(got, expected);
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--column", "2"])
            .arg(&bare),
    );
    assert_eq!(got, expected);
    batchdoku()
        .args(["solve", "-q", "--column", "nope"])
        .arg(&named)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no column named \"nope\""));
    batchdoku()
        .args(["solve", "-q", "--column", "0"])
        .arg(&named)
        .assert()
        .code(2);
    // verify: both columns named.
    batchdoku()
        .args([
            "verify",
            "--column",
            "grid_text",
            "--answer-column",
            "truth",
        ])
        .arg(&named)
        .assert()
        .success();
    batchdoku()
        .args(["verify", "--column", "grid_text"])
        .arg(&named)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--answer-column"));
    // A record without the column is malformed, with its row.
    let short = write(
        dir.path(),
        "short.csv",
        format!("id,puzzle\n1,{}\n2\n", rows[0].0),
    );
    let out = batchdoku()
        .args(["solve", "--format", "csv"])
        .arg(&short)
        .assert()
        .success()
        .stderr(predicate::str::contains(":2: malformed: no column 2"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn a_header_alone_or_an_empty_file_gives_no_records() {
    let dir = tempfile::tempdir().unwrap();
    for body in ["puzzle,solution\n", "", "\u{feff}quizzes,solutions\r\n"] {
        let f = write(dir.path(), "h.csv", body);
        let out = stdout_of(batchdoku().args(["solve", "-q", "--format", "csv"]).arg(&f));
        assert_eq!(
            out, "line,puzzle,status,solutions,solution,guesses\n",
            "{body:?}"
        );
    }
}
