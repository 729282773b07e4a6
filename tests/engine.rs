//! The batch engine (`batchdoku solve`) end to end: formats, inputs, order,
//! bad input, interruption and resume.

mod common;

use batchdoku::read::answers::split_csv;
use batchdoku::Grid;
use common::{batchdoku, sample_path, stdout_of, write, CLASSIC, CLASSIC_SOLUTION, ESCARGOT};
use predicates::prelude::*;
use std::path::PathBuf;

/// Rule-abiding givens with no solution: row 1 lacks only a 3 and its open
/// cell sees a 3 below.
fn unsolvable() -> String {
    format!("12.456789{}..3{}", ".".repeat(18), ".".repeat(51))
}

fn with_digit(base: &str, at: usize, d: char) -> String {
    let mut s = base.to_string();
    s.replace_range(at..at + 1, &d.to_string());
    s
}

/// The classic puzzle with one clue taken away has more than one solution.
fn multiple() -> String {
    let g: Grid = CLASSIC.parse().unwrap();
    for i in 0..81 {
        if g.cells()[i] != 0 {
            let p = with_digit(CLASSIC, i, '.');
            let mut s = batchdoku::SolverKind::Fast.build();
            if s.solve(&p.parse().unwrap(), 2).solutions == 2 {
                return p;
            }
        }
    }
    unreachable!("some clue of the classic puzzle is needed")
}

/// The held-out style bad-input file: each line and the status and error it
/// must get, with the line number it sits on.
fn bad_input() -> (Vec<u8>, Vec<(u64, &'static str)>) {
    let mut data = Vec::new();
    let mut expect = Vec::new();
    let mut line = 0u64;
    let mut add = |bytes: &[u8], end: &[u8], status: Option<&'static str>| {
        data.extend_from_slice(bytes);
        data.extend_from_slice(end);
        line += 1;
        if let Some(s) = status {
            expect.push((line, s));
        }
    };
    add(b"# bad input: every kind of broken record", b"\n", None);
    add(CLASSIC.as_bytes(), b"\n", Some("unique"));
    add(&CLASSIC.as_bytes()[..80], b"\n", Some("malformed")); // short
    add(format!("{CLASSIC}5").as_bytes(), b"\n", Some("malformed")); // long
    add(
        format!("{}é{}", &CLASSIC[..40], &CLASSIC[41..]).as_bytes(),
        b"\n",
        Some("malformed"),
    ); // non-ASCII
    add(
        format!("{}\0{}", &CLASSIC[..10], &CLASSIC[11..]).as_bytes(),
        b"\n",
        Some("malformed"),
    ); // NUL byte
    add(&vec![b'1'; 1 << 20], b"\n", Some("malformed")); // a megabyte of digits
    add(b"", b"\n", None); // blank
    add(CLASSIC.as_bytes(), b"\r\n", Some("unique")); // CRLF
    add(
        with_digit(CLASSIC, 2, '5').as_bytes(),
        b"\n",
        Some("invalid"),
    ); // repeated given
    add(".".repeat(81).as_bytes(), b"\n", Some("multiple")); // empty grid
    add(CLASSIC_SOLUTION.as_bytes(), b"\n", Some("unique")); // solved grid
    add(
        with_digit(CLASSIC_SOLUTION, 0, '3').as_bytes(),
        b"\n",
        Some("invalid"),
    ); // solved grid with a repeat
    add(unsolvable().as_bytes(), b"\n", Some("unsolvable"));
    add(b"   ", b"\n", None); // spaces only
    add(CLASSIC.as_bytes(), b"", Some("unique")); // no final newline
    (data, expect)
}

#[test]
fn bad_input_gets_one_correct_row_per_record_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let (data, expect) = bad_input();
    let file = write(dir.path(), "bad.txt", &data);
    // `--input line`: a NUL byte near the top makes a file binary, refused
    // unless line form is asked for (see `binary_files_are_refused`).
    let out = batchdoku()
        .args(["solve", "--limit", "2", "--format", "csv", "-j", "2"])
        .args(["--input", "line"])
        .arg(&file)
        .assert()
        .success()
        .stderr(predicate::str::contains(format!(
            "{}:3: malformed: too short: 80 cells, need 81",
            file.display()
        )))
        .stderr(predicate::str::contains(format!(
            "{}:5: malformed: bad character 'é' at column 41",
            file.display()
        )))
        .stderr(predicate::str::contains("5 malformed"));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut rows = text.lines();
    assert_eq!(
        rows.next(),
        Some("line,puzzle,status,solutions,solution,guesses")
    );
    let rows: Vec<Vec<String>> = rows.map(split_csv).collect();
    assert_eq!(rows.len(), expect.len());
    for (row, (line, status)) in rows.iter().zip(&expect) {
        assert_eq!(row[0], line.to_string(), "{row:?}");
        assert_eq!(row[2], *status, "line {line}: {row:?}");
        if matches!(*status, "unique" | "multiple") {
            let solution: Grid = row[4].parse().unwrap();
            let puzzle: Grid = row[1].parse().unwrap();
            assert!(solution.solves(&puzzle));
        } else {
            assert_eq!(row[4], "", "line {line}");
        }
    }
    // The same file in line form: one line per record, the same statuses.
    let lines = stdout_of(
        batchdoku()
            .args(["solve", "--limit", "2", "-q", "--input", "line"])
            .arg(&file),
    );
    let words: Vec<&str> = lines.lines().collect();
    assert_eq!(words.len(), expect.len());
    for (w, (_, status)) in words.iter().zip(&expect) {
        match *status {
            "unique" | "multiple" => assert_eq!(w.len(), 81),
            s => assert_eq!(*w, s),
        }
    }
}

#[test]
fn statuses_with_limit_2_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{CLASSIC}\n{}\n{}\n{}\nnope\n",
        multiple(),
        unsolvable(),
        with_digit(CLASSIC, 2, '5')
    );
    let file = write(dir.path(), "in.txt", &input);
    let statuses = ["unique", "multiple", "unsolvable", "invalid", "malformed"];

    let line = stdout_of(batchdoku().args(["solve", "--limit", "2", "-q"]).arg(&file));
    let line: Vec<&str> = line.lines().collect();
    assert_eq!(line[0], CLASSIC_SOLUTION);
    assert_eq!(line[1].len(), 81);
    assert_eq!(&line[2..], &statuses[2..]);

    let csv = stdout_of(
        batchdoku()
            .args(["solve", "--limit", "2", "-q", "--format", "csv"])
            .arg(&file),
    );
    let rows: Vec<Vec<String>> = csv.lines().skip(1).map(split_csv).collect();
    let got: Vec<&str> = rows.iter().map(|r| r[2].as_str()).collect();
    assert_eq!(got, statuses);
    let counts: Vec<&str> = rows.iter().map(|r| r[3].as_str()).collect();
    assert_eq!(counts, ["1", "2", "0", "0", "0"]);
    assert_eq!(rows[4][1], "nope");

    let jsonl = stdout_of(
        batchdoku()
            .args(["solve", "--limit", "2", "-q", "--format", "jsonl"])
            .arg(&file),
    );
    let objs: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 5);
    for (i, (o, s)) in objs.iter().zip(statuses).enumerate() {
        assert_eq!(o["status"], s);
        assert_eq!(o["line"], i as u64 + 1);
        for key in ["puzzle", "solutions", "solution", "guesses"] {
            assert!(o.get(key).is_some(), "{key} missing in {o}");
        }
    }
    assert_eq!(objs[0]["solution"], CLASSIC_SOLUTION);
    assert_eq!(objs[3]["error"], "row 1 repeats digit 5");

    // limit 1 says `solved`.
    let csv1 = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv"])
            .arg(&file),
    );
    assert_eq!(split_csv(csv1.lines().nth(1).unwrap())[2], "solved");
}

#[test]
fn stdin_output_equals_file_output() {
    let sample = std::fs::read(sample_path()).unwrap();
    for format in ["line", "csv", "jsonl"] {
        let from_file = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--limit", "2", "--format", format])
                .arg(sample_path()),
        );
        let from_stdin = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--limit", "2", "--format", format, "-"])
                .write_stdin(sample.clone()),
        );
        assert_eq!(from_file, from_stdin, "{format}");
        let no_arg = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--limit", "2", "--format", format])
                .write_stdin(sample.clone()),
        );
        assert_eq!(from_file, no_arg, "{format}");
    }
}

#[test]
fn several_files_keep_their_own_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.txt", format!("# a\n{CLASSIC}\n{ESCARGOT}\n"));
    let b = write(dir.path(), "b.txt", format!("{ESCARGOT}\n\nbad\n"));
    let csv = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv"])
            .arg(&a)
            .arg(&b),
    );
    let rows: Vec<Vec<String>> = csv.lines().map(split_csv).collect();
    assert_eq!(
        rows[0].join(","),
        "file,line,puzzle,status,solutions,solution,guesses"
    );
    let where_: Vec<(String, String, String)> = rows[1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[3].clone()))
        .collect();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    assert_eq!(
        where_,
        vec![
            (a.clone(), "2".into(), "solved".into()),
            (a, "3".into(), "solved".into()),
            (b.clone(), "1".into(), "solved".into()),
            (b, "3".into(), "malformed".into()),
        ]
    );
}

#[test]
fn a_csv_header_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "kaggle.csv",
        format!("quizzes,solutions\r\n{CLASSIC},{CLASSIC_SOLUTION}\r\n"),
    );
    let out = stdout_of(batchdoku().args(["solve", "-q"]).arg(&f));
    assert_eq!(out, format!("{CLASSIC_SOLUTION}\n"));
}

#[test]
fn grid_form_is_detected_and_can_be_forced() {
    let dir = tempfile::tempdir().unwrap();
    let g: Grid = CLASSIC.parse().unwrap();
    let e: Grid = ESCARGOT.parse().unwrap();
    // Contest form: a count line, then blocks of nine digit rows.
    let rows = |p: &str| -> String {
        (0..9)
            .map(|r| format!("{}\n", p[9 * r..9 * r + 9].replace('.', "0")))
            .collect()
    };
    let contest = write(
        dir.path(),
        "contest.txt",
        format!("2\n{}{}", rows(CLASSIC), rows(ESCARGOT)),
    );
    // Block form with separators and titles, as people write it.
    let blocks = write(
        dir.path(),
        "blocks.txt",
        format!("Grid 01\n{}\nGrid 02\n{}", g.to_block(), e.to_block()),
    );
    for f in [&contest, &blocks] {
        let csv = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "csv", "--limit", "2"])
                .arg(f),
        );
        let rows: Vec<Vec<String>> = csv.lines().skip(1).map(split_csv).collect();
        assert_eq!(rows.len(), 2, "{}", f.display());
        assert_eq!(rows[0][1], CLASSIC);
        assert_eq!(rows[0][2], "unique");
        assert_eq!(rows[1][1], ESCARGOT);
        assert_eq!(rows[1][2], "unique");
    }
    let csv = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv"])
            .arg(&contest),
    );
    let lines: Vec<String> = csv
        .lines()
        .skip(1)
        .map(|r| split_csv(r)[0].clone())
        .collect();
    assert_eq!(lines, ["2", "11"]);
    // Forced grid form on a broken block reports it and goes on.
    let broken = write(
        dir.path(),
        "broken.txt",
        format!("{}\n{}", &rows(CLASSIC)[..40], rows(CLASSIC)),
    );
    let out = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "grid"])
            .arg(&broken),
    );
    assert_eq!(out, format!("malformed\n{CLASSIC_SOLUTION}\n"));
}

#[test]
fn order_is_kept_with_many_threads_on_uneven_puzzles() {
    // Hard puzzles (and slow empty-grid counts) between runs of easy ones,
    // so that later chunks finish first.
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let easy: Vec<&str> = sample.lines().collect();
    let mut input = String::new();
    let mut puzzles = Vec::new();
    for (i, p) in easy.iter().enumerate().take(2400) {
        if i % 300 == 0 {
            for _ in 0..20 {
                input += ESCARGOT;
                input += "\n";
                puzzles.push(ESCARGOT.to_string());
            }
        }
        input += p;
        input += "\n";
        puzzles.push(p.to_string());
    }
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "uneven.txt", &input);
    let one = stdout_of(
        batchdoku()
            .args(["solve", "-q", "-j", "1", "--solver", "mrv"])
            .arg(&f),
    );
    let many = stdout_of(
        batchdoku()
            .args(["solve", "-q", "-j", "8", "--solver", "mrv"])
            .arg(&f),
    );
    assert_eq!(one, many);
    let answers: Vec<&str> = many.lines().collect();
    assert_eq!(answers.len(), puzzles.len());
    for (p, a) in puzzles.iter().zip(&answers) {
        let (p, a): (Grid, Grid) = (p.parse().unwrap(), a.parse().unwrap());
        assert!(a.solves(&p));
    }
}

#[test]
fn stats_json_and_strict_mode() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "in.txt", format!("{CLASSIC}\nbad\n"));
    let stats = dir.path().join("stats.json");
    batchdoku()
        .args(["solve", "-q", "--stats"])
        .arg(&stats)
        .arg(&f)
        .assert()
        .success();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    for key in [
        "puzzles",
        "solved",
        "unique",
        "multiple",
        "unsolvable",
        "invalid",
        "malformed",
        "seconds",
        "puzzles_per_sec",
        "guesses_per_puzzle",
        "no_guess_pct",
        "threads",
        "solver",
    ] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    assert_eq!(v["puzzles"], 2);
    assert_eq!(v["solved"], 1);
    assert_eq!(v["malformed"], 1);
    assert_eq!(v["solver"], "fast");
    batchdoku()
        .args(["solve", "-q", "--strict"])
        .arg(&f)
        .assert()
        .code(1);
    let good = write(dir.path(), "good.txt", format!("{CLASSIC}\n"));
    batchdoku()
        .args(["solve", "-q", "--strict"])
        .arg(&good)
        .assert()
        .success();
}

#[cfg(unix)]
#[test]
fn resume_finishes_a_partial_file_without_losing_or_redoing_records() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let f = write(dir.path(), "in.txt", &sample);
    assert_eq!(sample.lines().count(), 3000);
    // 1,234 whole records and 20 bytes of the next.
    common::resume_round_trip("solve", &f, dir.path(), 3000, 1234, 20);
}

#[cfg(unix)]
#[test]
fn ctrl_c_keeps_a_partial_file_that_resume_completes() {
    let dir = tempfile::tempdir().unwrap();
    // Enough slow work (the reference mrv solver on one thread) that the
    // interrupt lands mid-run.
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let f = write(dir.path(), "in.txt", sample.repeat(20));
    let out = dir.path().join("out.txt");
    let bin = assert_cmd::cargo::cargo_bin("batchdoku");
    let child = std::process::Command::new(&bin)
        .args(["solve", "--solver", "mrv", "-j", "1", "-o"])
        .arg(&out)
        .arg(&f)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    let partial = PathBuf::from(format!("{}.partial", out.display()));
    eprintln!("first run: {stderr}");
    if result.status.success() {
        // The machine was fast enough to finish first: nothing to resume.
        assert!(out.exists() && !partial.exists());
    } else {
        assert_eq!(result.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        assert!(!out.exists());
        let kept = std::fs::read_to_string(&partial).unwrap();
        let n = kept.lines().count();
        assert!(
            stderr.contains(&format!("holds the first {n} records")),
            "{stderr}"
        );
        batchdoku()
            .args([
                "solve", "-q", "--resume", "--solver", "mrv", "-j", "2", "-o",
            ])
            .arg(&out)
            .arg(&f)
            .assert()
            .success();
    }
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(&f));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
}

#[test]
fn progress_always_draws_even_into_a_pipe_and_never_stays_silent() {
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "in.txt", sample.repeat(10));
    let run = |mode: &str| {
        let out = batchdoku()
            .args(["solve", "--solver", "mrv", "-j", "1", "--progress", mode])
            .arg(&f)
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stderr).to_string()
    };
    let always = run("always");
    assert!(always.contains("30000 records, "), "{always}");
    assert!(always.contains("100%"), "{always}");
    let never = run("never");
    assert!(!never.contains("records, "), "{never}");
    assert!(never.contains("30000 records: "), "{never}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_device_output_is_written_in_place_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let input = write(dir.path(), "in.txt", format!("{CLASSIC}\n"));
    batchdoku()
        .args(["solve", "-q", "-o"])
        .arg(&fifo)
        .arg(&input)
        .assert()
        .success();
    assert_eq!(reader.join().unwrap(), format!("{CLASSIC_SOLUTION}\n"));
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced by a plain file");
    assert!(!dir.path().join("pipe.partial").exists());
}
