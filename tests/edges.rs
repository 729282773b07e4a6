//! Robust at the edges: full or closed standard output, warning counts,
//! thread counts far beyond the cores, byte-order marks, comment stretches
//! through a pipe, failed generation, figures over zero records.
#![cfg(unix)]

mod common;

use common::{batchdoku, bin, sample_path, write, CLASSIC, CLASSIC_SOLUTION};
use predicates::prelude::*;
use std::process::{Command, Stdio};

/// Runs `batchdoku ARGS | head -c 10` and returns batchdoku's exit code and
/// stderr (the pipe is closed after 10 bytes).
fn into_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut ten = [0u8; 10];
    std::io::Read::read_exact(&mut stdout, &mut ten).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn full_or_closed_standard_output_is_a_message_or_success_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample_path();
    let sample_s = sample.to_str().unwrap();
    // Enough output that the pipe is closed before it is all written.
    let answers = dir.path().join("answers.txt");
    batchdoku()
        .args(["solve", "-q", "-o"])
        .arg(&answers)
        .arg(&sample)
        .assert()
        .success();
    let wrong = write(
        dir.path(),
        "wrong.txt",
        format!("{CLASSIC_SOLUTION}\n").repeat(3000),
    );
    let wrong_s = wrong.to_str().unwrap();
    let big = write(
        dir.path(),
        "big.txt",
        std::fs::read_to_string(&sample).unwrap().repeat(30),
    );
    let big_s = big.to_str().unwrap();
    for args in [
        vec!["verify", sample_s, wrong_s],
        vec![
            "bench",
            "--min-time",
            "0",
            "--warmup",
            "0",
            "--solvers",
            "fast",
            sample_s,
            sample_s,
            sample_s,
        ],
        vec!["generate", "-n", "100000", "--seed", "1", "-q"],
        vec!["solve", "-q", big_s],
        vec!["rate", "-q", big_s],
    ] {
        let (code, stderr) = into_closed_pipe(&args);
        let expect = if args[0] == "verify" { 1 } else { 0 };
        assert_eq!(code, Some(expect), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
        // Into a full device: exit 1 with a message.
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = Command::new(bin())
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `grade`, `rate`, `canon` and `dedup` say which records are bad and why,
/// as `solve` does: the first ten with file and line, then a count.
#[test]
fn per_record_commands_warn_about_bad_records_by_line() {
    let dir = tempfile::tempdir().unwrap();
    // Line 1 a puzzle, lines 2-13 malformed, line 14 invalid, line 15 a
    // puzzle: 13 bad records.
    let mut text = format!("{CLASSIC}\n");
    for k in 0..12 {
        text += &format!("bad {k}\n");
    }
    text += &format!("11{}\n{CLASSIC}\n", ".".repeat(79));
    let f = write(dir.path(), "bad.txt", &text);
    let name = f.display().to_string();
    for (command, after) in [
        ("grade", ""),
        ("rate", ""),
        ("canon", ""),
        ("dedup", " (left out)"),
    ] {
        for threads in ["1", "2"] {
            let out = batchdoku()
                .args([command, "-j", threads, "-o"])
                .arg(dir.path().join("out"))
                .arg(&f)
                .output()
                .unwrap();
            assert!(out.status.success(), "{command}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let warnings: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("batchdoku: warning: "))
                .collect();
            let mut expected: Vec<String> = (0..10)
                .map(|k| {
                    format!(
                        "batchdoku: warning: {name}:{}: malformed: bad character 'b' at column 1{after}",
                        k + 2
                    )
                })
                .collect();
            expected.push("batchdoku: warning: 3 more bad records not shown".to_string());
            assert_eq!(warnings, expected, "{command} -j {threads}");
        }
        // The invalid record's reason, when it is among the first ten.
        let out = batchdoku()
            .args([command, "-o"])
            .arg(dir.path().join("out"))
            .arg("-")
            .write_stdin(format!("{CLASSIC}\n11{}\n", ".".repeat(79)))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "batchdoku: warning: -:2: invalid: row 1 repeats digit 1{after}"
            )),
            "{command}: {stderr}"
        );
        assert!(!stderr.contains("not shown"), "{command}: {stderr}");
        // None with -q.
        batchdoku()
            .args([command, "-q", "-o"])
            .arg(dir.path().join("out"))
            .arg(&f)
            .assert()
            .success()
            .stderr(predicate::str::is_empty());
    }
}

#[test]
fn the_count_of_malformed_records_not_shown_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    // 588 malformed among 60,000 records, spread over many chunks.
    let mut text = String::new();
    for i in 0..60_000 {
        if i % 102 == 7 && i / 102 < 588 {
            text += "not a puzzle\n";
        } else {
            text += CLASSIC;
            text += "\n";
        }
    }
    assert_eq!(text.matches("not a puzzle").count(), 588);
    let f = write(dir.path(), "mixed.txt", &text);
    for threads in ["1", "2"] {
        batchdoku()
            .args(["solve", "-j", threads])
            .arg(&f)
            .assert()
            .success()
            .stderr(predicate::str::contains(
                "578 more malformed records not shown",
            ))
            .stderr(predicate::str::contains("588 malformed"));
    }
    // 25 through standard input: one chunk.
    batchdoku()
        .args(["solve", "-"])
        .write_stdin("bad\n".repeat(25))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "15 more malformed records not shown",
        ));
    // Ten or fewer: no count line.
    batchdoku()
        .args(["solve", "-"])
        .write_stdin("bad\n".repeat(10))
        .assert()
        .success()
        .stderr(predicate::str::contains("not shown").not());
}

#[test]
fn thread_counts_far_beyond_the_cores_are_capped_with_a_warning() {
    let start = std::time::Instant::now();
    let out = batchdoku()
        .args(["solve", "-q", "-j", "200000"])
        .arg(sample_path())
        .assert()
        .success()
        .stderr(predicate::str::contains("is far beyond the"));
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .count(),
        3000
    );
}

#[test]
fn a_pipe_reads_like_the_file_after_any_number_of_comment_lines() {
    let dir = tempfile::tempdir().unwrap();
    let comments = "# a comment\n".repeat(30_000);
    let grid: String = CLASSIC
        .as_bytes()
        .chunks(9)
        .map(|r| format!("{}\n", std::str::from_utf8(r).unwrap()))
        .collect();
    for (name, body) in [
        (
            "csv",
            format!("{comments}quizzes,solutions\n{CLASSIC},{CLASSIC_SOLUTION}\n"),
        ),
        ("grid", format!("{comments}{grid}\n{grid}")),
        ("bom", format!("\u{feff}{comments}puzzle\n{CLASSIC}\n")),
        ("bom-line", format!("\u{feff}{CLASSIC}\n")),
    ] {
        let f = write(dir.path(), name, &body);
        let from_file = batchdoku()
            .args(["solve", "--format", "csv", "-q"])
            .arg(&f)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let from_pipe = batchdoku()
            .args(["solve", "--format", "csv", "-q", "-"])
            .write_stdin(body.clone())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(from_file.clone()).unwrap();
        assert_eq!(from_file, from_pipe, "{name}");
        assert!(!text.contains("malformed"), "{name}: {text}");
        assert!(text.contains(CLASSIC_SOLUTION), "{name}: {text}");
    }
    // A byte-order mark before an answers file's header too.
    let answers = write(
        dir.path(),
        "answers.csv",
        format!("\u{feff}line,puzzle,status,solutions,solution,guesses\n1,{CLASSIC},solved,1,{CLASSIC_SOLUTION},0\n"),
    );
    let puzzles = write(dir.path(), "p.txt", format!("\u{feff}{CLASSIC}\n"));
    batchdoku()
        .arg("verify")
        .arg(&puzzles)
        .arg(&answers)
        .assert()
        .success();
}

#[test]
fn failed_generation_leaves_no_file_that_looks_complete() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen.txt");
    batchdoku()
        .args([
            "generate",
            "-n",
            "3",
            "--seed",
            "1",
            "-q",
            "--difficulty",
            "extreme",
        ])
        .args(["--min-clues", "45", "-o"])
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--min-clues 45"))
        .stderr(predicate::str::contains("--symmetry").not())
        .stderr(predicate::str::contains(
            "gen.txt.partial holds the 0 found",
        ));
    assert!(!out.exists());
}

#[test]
fn figures_over_zero_records_are_dashes() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.txt", "");
    let stats = dir.path().join("stats.json");
    batchdoku()
        .arg("solve")
        .arg(&empty)
        .arg("--stats")
        .arg(&stats)
        .assert()
        .success()
        .stderr(predicate::str::contains("0 records:"))
        .stderr(predicate::str::contains("- puzzles/s, - us/puzzle"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(v["puzzles_per_sec"], serde_json::Value::Null);
    batchdoku()
        .arg("rate")
        .arg(&empty)
        .assert()
        .success()
        .stderr(predicate::str::contains("(-/s)"));
}

/// `-o /dev/stdout` with standard output redirected to a file writes
/// through the descriptor: the file gets the answers and /dev/stdout stays
/// what it was (renaming a partial over it replaced the link with a plain
/// file when run as root).
#[cfg(unix)]
#[test]
fn output_to_dev_stdout_writes_through_the_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "p.txt", format!("{CLASSIC}\n"));
    let out = dir.path().join("redirected.txt");
    let was = std::fs::symlink_metadata("/dev/stdout").map(|m| m.file_type().is_symlink());
    let status = std::process::Command::new(common::bin())
        .args(["solve", "-q"])
        .arg(&input)
        .args(["-o", "/dev/stdout"])
        .stdout(std::fs::File::create(&out).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("{CLASSIC_SOLUTION}\n")
    );
    let now = std::fs::symlink_metadata("/dev/stdout").map(|m| m.file_type().is_symlink());
    assert_eq!(was.ok(), now.ok());
    assert!(!std::path::Path::new("/dev/stdout.partial").exists());
}

/// `-o LINK` where LINK is a symbolic link (even to a file not made yet):
/// the answers land in its target and the link stays a link.
#[cfg(unix)]
#[test]
fn output_through_a_symbolic_link_keeps_the_link() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "p.txt", format!("{CLASSIC}\n"));
    let link = dir.path().join("answers.txt");
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    for _ in 0..2 {
        batchdoku()
            .args(["solve", "-q"])
            .arg(&input)
            .arg("-o")
            .arg(&link)
            .assert()
            .success();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let target = dir.path().join("target.txt");
        assert_eq!(
            std::fs::read_to_string(target).unwrap(),
            format!("{CLASSIC_SOLUTION}\n")
        );
    }
}
