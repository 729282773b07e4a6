//! `batchdoku verify` and `batchdoku bench` as a user runs them.

mod common;

use common::{batchdoku, sample_path, write};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// Solves the sample into `dir/answers.FORMAT` and returns its path.
fn answers(dir: &Path, format: &str) -> PathBuf {
    let out = dir.join(format!("answers.{format}"));
    batchdoku()
        .args(["solve", "-q", "--limit", "2", "--format", format, "-o"])
        .arg(&out)
        .arg(sample_path())
        .assert()
        .success();
    out
}

#[test]
fn verify_passes_correct_answers_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    for format in ["line", "csv", "jsonl"] {
        let a = answers(dir.path(), format);
        batchdoku()
            .arg("verify")
            .arg(sample_path())
            .arg(&a)
            .arg("--unique")
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "3000 records checked: 3000 passed, 0 failed",
            ));
    }
}

#[test]
fn verify_names_a_corrupted_record() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(answers(dir.path(), "line")).unwrap();
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    // Record 1234: two digits swapped, so a column repeats a digit.
    let l = &lines[1233];
    lines[1233] = format!("{}{}{}", &l[1..2], &l[0..1], &l[2..]);
    let bad = write(dir.path(), "bad.txt", lines.join("\n") + "\n");
    batchdoku()
        .arg("verify")
        .arg(sample_path())
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "record 1234 ({}:1234, {}:1234): solution breaks a rule",
            sample_path().display(),
            bad.display()
        )))
        .stdout(predicate::str::contains("2999 passed, 1 failed"));
    let json = batchdoku()
        .args(["verify", "--format", "json"])
        .arg(sample_path())
        .arg(&bad)
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(v["failed"], 1);
    assert_eq!(v["failures"][0]["record"], 1234);
    assert!(v["failures"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("repeats digit"));
}

#[test]
fn verify_fails_a_false_unsolvable_and_a_changed_given() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(answers(dir.path(), "line")).unwrap();
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    lines[9] = "unsolvable".into();
    // Record 20: a valid grid of another puzzle (digits relabelled 1<->2).
    lines[19] = lines[19]
        .chars()
        .map(|c| match c {
            '1' => '2',
            '2' => '1',
            c => c,
        })
        .collect();
    let bad = write(dir.path(), "bad.txt", lines.join("\n") + "\n");
    batchdoku()
        .arg("verify")
        .arg(sample_path())
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("record 10 ("))
        .stdout(predicate::str::contains(
            "claimed unsolvable but has a solution",
        ))
        .stdout(predicate::str::contains("record 20 ("))
        .stdout(predicate::str::contains("solution changed the given"));
}

#[test]
fn verify_reports_which_file_ran_out() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(answers(dir.path(), "line")).unwrap();
    let short: String = good.lines().take(2999).map(|l| format!("{l}\n")).collect();
    let short = write(dir.path(), "short.txt", short);
    batchdoku()
        .arg("verify")
        .arg(sample_path())
        .arg(&short)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{} ran out after 2999 records",
            short.display()
        )));
    let long = write(dir.path(), "long.txt", good.clone() + &good[..82]);
    batchdoku()
        .arg("verify")
        .arg(sample_path())
        .arg(&long)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{} ran out after 3000 records",
            sample_path().display()
        )));
}

#[test]
fn verify_reads_answers_embedded_in_the_puzzle_file() {
    let dir = tempfile::tempdir().unwrap();
    let with = batchdoku()
        .args(["generate", "-n", "50", "--seed", "9", "--with-solution"])
        .assert()
        .success();
    let pairs = String::from_utf8(with.get_output().stdout.clone()).unwrap();
    let kaggle = write(
        dir.path(),
        "kaggle.csv",
        format!("quizzes,solutions\n{pairs}"),
    );
    batchdoku()
        .args(["verify", "--unique"])
        .arg(&kaggle)
        .assert()
        .success()
        .stdout(predicate::str::contains("50 passed, 0 failed"));
    // puzzle:count:solution, with one wrong count.
    let counted: Vec<String> = pairs
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let (p, s) = l.split_once(',').unwrap();
            format!("{p}:{}:{s}", if i == 7 { 2 } else { 1 })
        })
        .collect();
    let counted = write(dir.path(), "counted.txt", counted.join("\n"));
    batchdoku()
        .arg("verify")
        .arg(&counted)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("record 8 ("))
        .stdout(predicate::str::contains(
            "claimed 2 solutions but the puzzle has exactly one solution",
        ));
}

#[test]
fn bench_gives_json_rows_for_each_requested_solver() {
    let out = batchdoku()
        .args([
            "bench",
            "--solvers",
            "fast,mrv,backtrack",
            "--min-time",
            "0.05",
            "--warmup",
            "0",
            "--backtrack-cap",
            "0.2",
            "--format",
            "json",
        ])
        .assert()
        .success();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let solvers: Vec<&str> = rows.iter().map(|r| r["solver"].as_str().unwrap()).collect();
    assert_eq!(solvers, ["fast", "mrv", "backtrack"]);
    for r in &rows {
        assert_eq!(r["dataset"], "sample.txt");
        assert_eq!(r["threads"], 1);
        assert_eq!(r["limit"], 2);
        for key in [
            "puzzles",
            "seconds",
            "puzzles_per_sec",
            "usec_per_puzzle",
            "no_guess_pct",
            "guesses_per_puzzle",
        ] {
            assert!(r[key].as_f64().unwrap() >= 0.0, "{key} in {r}");
        }
        assert!(r["puzzles"].as_u64().unwrap() > 0);
    }
}

#[test]
fn bench_table_csv_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("plot.svg");
    batchdoku()
        .args(["bench", "--min-time", "0.05", "--warmup", "0", "--plot"])
        .arg(&svg)
        .assert()
        .success()
        .stdout(predicate::str::contains("### sample.txt (3,000 puzzles)"))
        .stdout(predicate::str::contains(
            "|solver|puzzles/sec|usec/puzzle|%no_guess|guesses/puzzle|",
        ))
        .stdout(predicate::str::contains("CPU: "));
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert!(plot.starts_with("<svg") && plot.contains("sample.txt"));
    assert_eq!(plot.matches("<rect").count(), 2);
    // Saved rows re-render without measuring.
    let saved = batchdoku()
        .args([
            "bench",
            "--min-time",
            "0.05",
            "--warmup",
            "0",
            "--format",
            "json",
            "--solvers",
            "fast",
        ])
        .assert()
        .success();
    let rows = write(dir.path(), "rows.json", &saved.get_output().stdout);
    let again = dir.path().join("again.svg");
    batchdoku()
        .args(["bench", "--from-json"])
        .arg(&rows)
        .arg("--plot")
        .arg(&again)
        .assert()
        .success()
        .stdout(predicate::str::contains("|fast|"));
    assert_eq!(
        std::fs::read_to_string(&again)
            .unwrap()
            .matches("<rect")
            .count(),
        1
    );
    batchdoku()
        .args([
            "bench",
            "--min-time",
            "0.05",
            "--warmup",
            "0",
            "--format",
            "csv",
            "--solvers",
            "fast",
        ])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "dataset,solver,threads,limit,puzzles,seconds,puzzles_per_sec",
        ));
}

#[test]
fn bench_stops_on_a_wrong_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bad.txt", "not a puzzle\n");
    batchdoku()
        .args(["bench", "--min-time", "0.01"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("bad.txt:1"));
}

#[test]
fn verify_lines_writes_one_line_per_record_in_order() {
    let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let s = "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
    let bad = format!("4{}", &s[1..]);
    let input = format!("{p},{s}\n{p},{bad}\n{p},{s}\nnot a puzzle,{s}\n");
    let out = batchdoku()
        .args(["verify", "--format", "lines", "-"])
        .write_stdin(input)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "4 records checked: 2 passed, 2 failed",
        ));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], "ok");
    assert!(
        lines[1].starts_with("wrong: solution breaks a rule"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "ok");
    assert!(
        lines[3].starts_with("wrong: puzzle is malformed"),
        "{}",
        lines[3]
    );
}

#[test]
fn csv_answers_are_read_by_the_names_of_their_columns() {
    // `solve --format csv` (and Spark's solve_df written as CSV) carries
    // status, solutions and solution beside the puzzle: an invalid or
    // malformed puzzle has no solution, and its status says why.
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(sample_path())
        .unwrap()
        .lines()
        .find(|l| l.len() == 81)
        .unwrap()
        .to_string();
    // Two 1s in the first row: invalid.
    let clash = format!("11{}", &good[2..]);
    let puzzles = write(dir.path(), "mix.txt", format!("{good}\n{clash}\n123\n"));
    let out = dir.path().join("mix.csv");
    batchdoku()
        .args(["solve", "-q", "--format", "csv"])
        .arg(&puzzles)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains(",invalid,0,,") && text.contains(",malformed,0,,"),
        "{text}"
    );
    batchdoku()
        .arg("verify")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("3 passed, 0 failed"));
    // A wrong status, or a count that contradicts it, is still caught.
    let wrong = write(
        dir.path(),
        "wrong.csv",
        text.replace(",invalid,0,", ",unsolvable,0,")
            .replace(",malformed,0,", ",malformed,1,"),
    );
    batchdoku()
        .arg("verify")
        .arg(&wrong)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("record 2 ("))
        .stdout(predicate::str::contains("but the answer does not say so"))
        .stdout(predicate::str::contains("record 3 ("))
        .stdout(predicate::str::contains(
            "status malformed with 1 solutions",
        ));

    // As a separate answers file, the columns are found by their names
    // wherever they stand (Spark writes its own order), and a header that
    // names no answer column is an error, not an answer.
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let spark: String = rows
        .iter()
        .map(|r| format!("{},{},{},{}\n", r[3], r[1], r[4], r[2]))
        .collect();
    assert!(
        spark.starts_with("solutions,puzzle,solution,status\n"),
        "{spark}"
    );
    let spark = write(dir.path(), "spark.csv", spark);
    batchdoku()
        .arg("verify")
        .arg(&puzzles)
        .arg(&spark)
        .assert()
        .success()
        .stdout(predicate::str::contains("3 passed, 0 failed"));
    let kaggle = write(
        dir.path(),
        "kaggle.csv",
        format!("quizzes,solutions\n{good},{}\n", rows[1][4]),
    );
    let first = write(dir.path(), "first.txt", format!("{good}\n"));
    batchdoku()
        .arg("verify")
        .arg(&first)
        .arg(&kaggle)
        .assert()
        .success()
        .stdout(predicate::str::contains("1 passed, 0 failed"));
    let nameless = write(dir.path(), "nameless.csv", "quizzes,rating\nx,1\n");
    batchdoku()
        .arg("verify")
        .arg(&first)
        .arg(&nameless)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("which column holds the answers?"));
}
