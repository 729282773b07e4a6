//! The tool under attack, as a hostile user would try it: inputs that are
//! not regular files, resumes of the wrong run, answer files that lie,
//! inputs that change or vanish while read, signals, endless input. Every
//! record once, in order; no false pass; every refusal a message and exit 1.
#![cfg(unix)]

mod common;

use batchdoku::read::count_csv_records;
use common::{
    batchdoku, bin, interrupt_while_reading_stdin, sample_path, signal, stdout_of, write, CLASSIC,
    CLASSIC_SOLUTION,
};
use predicates::prelude::*;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Waits until `path` exists with at least `bytes` bytes (the run is under
/// way and has flushed output), or panics after 30 s.
fn wait_for_bytes(path: &Path, bytes: u64) {
    let start = Instant::now();
    while std::fs::metadata(path).map_or(0, |m| m.len()) < bytes {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{path:?} stayed short"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The partial output of `out`.
fn partial(out: &Path) -> PathBuf {
    PathBuf::from(format!("{}.partial", out.display()))
}

/// Nine rows of nine cells.
fn as_grid(line: &str) -> String {
    line.as_bytes()
        .chunks(9)
        .map(|r| format!("{}\n", std::str::from_utf8(r).unwrap()))
        .collect()
}

#[test]
fn pipes_fifos_and_special_files_are_read_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let sample = sample_path();
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(&sample));
    assert_eq!(expected.lines().count(), 3000);

    // A pipe named /dev/stdin.
    let text = std::fs::read(&sample).unwrap();
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "/dev/stdin"])
            .write_stdin(text.clone()),
    );
    assert_eq!(got, expected);

    // A named FIFO, for solve and for both inputs of verify.
    let fifo = dir.path().join("puzzles.fifo");
    mkfifo(&fifo);
    let feed =
        |path: PathBuf, bytes: Vec<u8>| std::thread::spawn(move || std::fs::write(path, bytes));
    let writer = feed(fifo.clone(), text.clone());
    let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&fifo));
    writer.join().unwrap().unwrap();
    assert_eq!(got, expected);

    let answers = dir.path().join("answers.fifo");
    mkfifo(&answers);
    let w1 = feed(fifo.clone(), text.clone());
    let w2 = feed(answers.clone(), expected.clone().into_bytes());
    batchdoku()
        .arg("verify")
        .arg(&fifo)
        .arg(&answers)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "3000 records checked: 3000 passed",
        ));
    w1.join().unwrap().unwrap();
    w2.join().unwrap().unwrap();

    // Garbage answers through a FIFO fail, never pass vacuously.
    let w1 = feed(fifo.clone(), text.clone());
    let w2 = feed(answers.clone(), b"garbage\n".to_vec());
    batchdoku()
        .arg("verify")
        .arg(&fifo)
        .arg(&answers)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAILED"))
        .stdout(predicate::str::contains("record counts differ"));
    w1.join().unwrap().unwrap();
    w2.join().unwrap().unwrap();

    // A /proc file has size 0 but contents: every line is a record.
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let records = cpuinfo.lines().filter(|l| !l.trim().is_empty()).count();
    let got = stdout_of(batchdoku().args(["solve", "-q", "/proc/cpuinfo"]));
    assert_eq!(got.lines().count(), records);
    assert!(got.lines().all(|l| l == "malformed"));
}

#[test]
fn binary_files_are_refused_unless_line_form_is_forced() {
    let dir = tempfile::tempdir().unwrap();
    let bin_file = write(dir.path(), "x.bin", b"\x7fELF\x02\x01\0\0\0\0garbage\n");
    batchdoku()
        .args(["solve", "-q"])
        .arg(&bin_file)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("looks like a binary file"));
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "line"])
            .arg(&bin_file),
    );
    assert_eq!(got, "malformed\n");
    // /dev/zero: refused at once instead of read forever.
    batchdoku()
        .args(["solve", "-q", "/dev/zero"])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("binary"));
}

fn os(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Vec<OsString> {
    args.iter().map(|a| a.as_ref().to_os_string()).collect()
}

#[test]
fn grid_records_with_line_breaks_resume_exactly_in_csv() {
    // Five grids, the second malformed: its text spans lines.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..5 {
        let mut g = as_grid(CLASSIC);
        if i == 1 {
            g = g.replacen("6..195...", "6..19x...", 1);
        }
        text += &g;
        text += "\n";
    }
    let input = write(dir.path(), "grids.txt", &text);
    let full = dir.path().join("full.csv");
    let out = dir.path().join("out.csv");
    let args = |o: &Path| os(&[&"solve", &"--format", &"csv", &"-o", &o, &input, &"-"]);
    batchdoku()
        .args(args(&full))
        .write_stdin("")
        .assert()
        .success();
    let full_text = std::fs::read_to_string(&full).unwrap();
    // One line per record: the malformed grid's text is escaped onto one.
    assert_eq!(full_text.lines().count(), 1 + 5, "{full_text}");
    assert!(full_text.contains(r"53..7....\n6..19x...\n"), "{full_text}");

    // Interrupted after two records (header and two rows kept).
    interrupt_while_reading_stdin(&args(&out));
    let kept: String = full_text
        .lines()
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(partial(&out), kept).unwrap();
    let mut resume = args(&out);
    resume.push("--resume".into());
    batchdoku()
        .args(&resume)
        .write_stdin("")
        .assert()
        .success()
        .stderr(predicate::str::contains("resuming after 2 records"));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), full_text);
}

#[test]
fn a_resume_of_another_run_is_refused_with_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let input = write(dir.path(), "in.txt", &sample);
    let out = dir.path().join("out.csv");
    let args = |format: &str| os(&[&"solve", &"--format", &format, &"-o", &out, &input, &"-"]);
    interrupt_while_reading_stdin(&args("csv"));
    let made = std::fs::read(partial(&out)).unwrap();
    let (records, _) = count_csv_records(&made);
    assert_eq!(records, 3001, "the header and every record of in.txt");

    let resume = |format: &str| {
        let mut a = args(format);
        a.push("--resume".into());
        a
    };
    // Another output format.
    batchdoku()
        .args(resume("line"))
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(r#"format: was "csv", now "line""#));
    // Other solver or limit.
    let mut other = resume("csv");
    other.extend(os(&[&"--limit", &"2"]));
    batchdoku()
        .args(&other)
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("limit: was 1, now 2"));
    // The input changed (shorter): its size is recorded.
    std::fs::write(&input, format!("{CLASSIC}\n")).unwrap();
    batchdoku()
        .args(resume("csv"))
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("input 1: was"));
    // Nothing was changed by the refusals.
    assert_eq!(std::fs::read(partial(&out)).unwrap(), made);
    assert!(!out.exists());

    // A partial that holds more records than the inputs have.
    std::fs::write(&input, &sample).unwrap();
    interrupt_while_reading_stdin(&args("csv"));
    let mut more = std::fs::read(partial(&out)).unwrap();
    more.extend_from_slice(
        format!("-,9,{CLASSIC},solved,1,{CLASSIC_SOLUTION},0\n")
            .repeat(5)
            .as_bytes(),
    );
    std::fs::write(partial(&out), &more).unwrap();
    batchdoku()
        .args(resume("csv"))
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "the inputs hold only 3000 records but the partial output holds 3005",
        ));
    assert!(!out.exists());

    // A partial without its run record.
    std::fs::remove_file(format!("{}.partial.run", out.display())).unwrap();
    batchdoku()
        .args(resume("csv"))
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing says which run made it"));
}

#[test]
fn a_megabyte_of_garbage_is_not_a_megabyte_field() {
    let dir = tempfile::tempdir().unwrap();
    let junk = "x,\"y\\".repeat(250_000);
    let input = write(
        dir.path(),
        "junk.txt",
        format!("{CLASSIC}\n{junk}\n{CLASSIC}\n"),
    );
    for format in ["csv", "jsonl"] {
        let got = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", format])
                .arg(&input),
        );
        let rows: Vec<&str> = got.lines().collect();
        assert_eq!(rows.len(), 3 + usize::from(format == "csv"), "{format}");
        let bad = rows[1 + usize::from(format == "csv")];
        assert!(bad.len() < 2000, "{format}: {} bytes", bad.len());
        assert!(bad.contains("[...1249200 more bytes]"), "{format}: {bad}");
        assert!(bad.contains("malformed"), "{bad}");
    }
}

#[test]
fn verify_counts_exactly_and_reads_what_solve_writes() {
    let dir = tempfile::tempdir().unwrap();
    // Blank the classic solution until the puzzle has exactly 3 solutions.
    let mut cells: Vec<u8> = CLASSIC_SOLUTION.bytes().collect();
    let mut puzzle = None;
    for i in 0..81 {
        let keep = cells[i];
        cells[i] = b'.';
        let line = String::from_utf8(cells.clone()).unwrap();
        let p = write(dir.path(), "probe.txt", format!("{line}\n"));
        let csv = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "csv", "--limit", "4"])
                .arg(&p),
        );
        let count: u32 = batchdoku::read::answers::split_csv(csv.lines().nth(1).unwrap())[3]
            .parse()
            .unwrap();
        match count {
            3 => {
                puzzle = Some(line);
                break;
            }
            c if c > 3 => cells[i] = keep,
            _ => {}
        }
    }
    let p3 = puzzle.expect("a puzzle with exactly 3 solutions");
    let puzzles = write(dir.path(), "p3.txt", format!("{p3}\n"));
    // What solve writes at limits 2 and 5 passes.
    for limit in ["2", "5"] {
        let answers = dir.path().join(format!("a{limit}.csv"));
        batchdoku()
            .args(["solve", "-q", "--format", "csv", "--limit", limit, "-o"])
            .arg(&answers)
            .arg(&puzzles)
            .assert()
            .success();
        batchdoku()
            .arg("verify")
            .arg(&puzzles)
            .arg(&answers)
            .assert()
            .success();
    }
    let solution = {
        let csv = stdout_of(batchdoku().args(["solve", "-q"]).arg(&puzzles));
        csv.trim().to_string()
    };
    // Lies about the count fail, each with exit 1.
    for (name, text) in [
        ("m7.csv", format!("line,puzzle,status,solutions,solution,guesses\n1,{p3},multiple,7,{solution},0\n")),
        ("n5.csv", format!("line,puzzle,status,solutions,solution,guesses\n1,{p3},,5,{solution},0\n")),
        ("j.jsonl", format!("{{\"line\":1,\"status\":\"multiple\",\"solutions\":\"1\",\"solution\":\"{solution}\"}}\n")),
        ("f.jsonl", format!("{{\"line\":1,\"status\":\"multiple\",\"solutions\":2.0,\"solution\":\"{solution}\"}}\n")),
    ] {
        let answers = write(dir.path(), name, text);
        batchdoku()
            .arg("verify")
            .arg(&puzzles)
            .arg(&answers)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("FAILED"));
    }
    let embedded = write(dir.path(), "e.txt", format!("{p3}:7:{solution}\n"));
    batchdoku()
        .arg("verify")
        .arg(&embedded)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "claimed 7 solutions but the puzzle has exactly 3 solutions",
        ));

    // puzzle,solution,clues,difficulty lines pass.
    let rated = write(
        dir.path(),
        "r.csv",
        format!("puzzle,solution,clues,difficulty\n{CLASSIC},{CLASSIC_SOLUTION},30,1.2\n"),
    );
    batchdoku().arg("verify").arg(&rated).assert().success();

    // A CSV answer whose quoted field holds line breaks is one record.
    let puzzles = write(dir.path(), "two.txt", format!("{CLASSIC}\nnot a puzzle\n"));
    let answers = write(
        dir.path(),
        "multi.csv",
        format!(
            "line,puzzle,status,solutions,solution,guesses\n1,{CLASSIC},solved,1,{CLASSIC_SOLUTION},0\n2,\"not\na\r\npuzzle\",malformed,0,,0\n"
        ),
    );
    batchdoku()
        .arg("verify")
        .arg(&puzzles)
        .arg(&answers)
        .assert()
        .success()
        .stdout(predicate::str::contains("2 records checked: 2 passed"));
}

#[test]
fn an_input_that_is_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{CLASSIC}\n");
    let results = write(dir.path(), "results", &text);
    let partial_file = write(dir.path(), "results.partial", &text);
    for input in [&partial_file, &results] {
        batchdoku()
            .args(["solve", "-q", "-o"])
            .arg(&results)
            .arg(input)
            .assert()
            .code(1)
            .stderr(predicate::str::contains("is the same file as"));
        assert_eq!(std::fs::read_to_string(input).unwrap(), text);
    }
    batchdoku()
        .args(["rate", "-q", "-o"])
        .arg(&results)
        .arg(&results)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is the same file as"));
}

#[test]
fn an_input_cut_short_while_read_is_an_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let input = write(dir.path(), "in.txt", sample.repeat(40));
    let out = dir.path().join("out.txt");
    let child = Command::new(bin())
        .args(["solve", "--solver", "mrv", "-j", "1", "-o"])
        .arg(&out)
        .arg(&input)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once output is flowing, truncate the input under the running solve.
    wait_for_bytes(&partial(&out), 1);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&input)
        .unwrap()
        .set_len(100)
        .unwrap();
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("changed while it was read"), "{stderr}");
    assert!(stderr.contains("holds the first"), "{stderr}");
    // What was kept are whole, right records of the original input.
    let kept = std::fs::read_to_string(partial(&out)).unwrap();
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(sample_path())).repeat(40);
    assert!(expected.starts_with(&kept));
}

#[test]
fn ctrl_c_stops_a_long_search_and_keeps_what_is_finished() {
    let dir = tempfile::tempdir().unwrap();
    // 100 quick records, then one that searches for a very long time.
    let text = format!("{CLASSIC}\n").repeat(100) + &".".repeat(81) + "\n";
    let input = write(dir.path(), "in.txt", &text);
    for (name, signals) in [("-INT", 1), ("-INT", 2), ("-TERM", 1)] {
        let out = dir.path().join(format!("out{name}{signals}.txt"));
        let child = Command::new(bin())
            .args(["solve", "-j", "1", "--limit", "1000000000", "-o"])
            .arg(&out)
            .arg(&input)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        for _ in 0..signals {
            signal(&child, name);
        }
        let started = Instant::now();
        let result = child.wait_with_output().unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(matches!(result.status.code(), Some(1 | 130)), "{stderr}");
        assert!(stderr.contains("holds the first 100 records"), "{stderr}");
        let kept = std::fs::read_to_string(partial(&out)).unwrap();
        assert_eq!(kept, format!("{CLASSIC_SOLUTION}\n").repeat(100));
    }
}

#[test]
fn a_write_error_keeps_a_partial_that_says_how_many_records_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    // A file size limit (SIGXFSZ ignored, so the write fails with EFBIG)
    // stands in for a full disk: 100 blocks of 512 bytes.
    let script = format!(
        "trap '' XFSZ; ulimit -f 100; exec '{}' solve -q -o '{}' '{}'",
        bin().display(),
        out.display(),
        sample_path().display()
    );
    let result = Command::new("sh").args(["-c", &script]).output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(1), "{stderr}");
    let kept = std::fs::read_to_string(partial(&out)).unwrap();
    let whole = kept.matches('\n').count();
    assert!(whole > 0 && whole < 3000, "{whole}");
    assert!(
        stderr.contains(&format!("holds the first {whole} records")),
        "{stderr}"
    );
    batchdoku()
        .args(["solve", "-q", "--resume", "-o"])
        .arg(&out)
        .arg(sample_path())
        .assert()
        .success();
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(sample_path()));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    // A device that is full is named as itself, not as standard output.
    batchdoku()
        .args(["solve", "-q", "-o", "/dev/full"])
        .arg(sample_path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot write /dev/full"));
}

/// Peak resident memory of a process, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn endless_or_huge_standard_input_stays_in_bounded_memory() {
    // /dev/zero as line form: one endless malformed line.
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let mut child = Command::new(bin())
        .args(["solve", "-q", "--input", "line", "-"])
        .stdin(zero)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let peak = peak_kib(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(peak > 0 && peak < 100 * 1024, "peak {peak} KiB");

    // Grid form with 200 MB of comment lines between two puzzles.
    let mut child = Command::new(bin())
        .args(["solve", "-q", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let pid = child.id();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(as_grid(CLASSIC).as_bytes()).unwrap();
        let comments = "# a comment line of some length, over and over\n".repeat(20_000);
        for _ in 0..200 {
            stdin.write_all(comments.as_bytes()).unwrap();
        }
        stdin.write_all(b"\n").unwrap();
        stdin.write_all(as_grid(CLASSIC).as_bytes()).unwrap();
        peak_kib(pid)
    });
    let peak = feeder.join().unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{CLASSIC_SOLUTION}\n{CLASSIC_SOLUTION}\n")
    );
    assert!(peak > 0 && peak < 100 * 1024, "peak {peak} KiB");
}

#[test]
fn an_input_refused_before_any_record_leaves_no_output_behind() {
    let dir = tempfile::tempdir().unwrap();
    let bin_file = write(dir.path(), "x.bin", b"\x7fELF\x02\x01\0\0\0\0garbage\n");
    let csv = write(
        dir.path(),
        "p.csv",
        format!("id,puzzle\n1,{}\n", common::CLASSIC).as_bytes(),
    );
    let inputs = ["x.bin", "p.csv"];
    let left = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !inputs.contains(&n.as_str()))
            .collect();
        names.sort();
        names
    };
    // A binary file, and a CSV without the column asked for.
    let refused: [(&Path, &[&str]); 2] = [(&bin_file, &[]), (&csv, &["--column", "nosuch"])];
    for (input, extra) in refused {
        let runs: Vec<Vec<&str>> = vec![
            vec!["solve", "-o", "out.txt"],
            vec!["solve", "--format", "csv", "-o", "out.csv"],
            vec!["solve", "--format", "npy", "-o", "out.npy"],
            vec!["solve", "--format", "parquet", "-o", "out.parquet"],
            vec!["rate", "-o", "out.csv"],
            vec!["canon", "-o", "out.txt"],
            vec!["dedup", "-o", "out.txt", "--report", "report.csv"],
        ];
        for run in runs {
            let assert = batchdoku()
                .current_dir(dir.path())
                .args(&run)
                .args(extra)
                .arg(input)
                .assert()
                .code(1);
            let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
            assert!(stderr.contains("no output written"), "{run:?}: {stderr}");
            assert!(!stderr.contains("--resume"), "{run:?}: {stderr}");
            assert!(!stderr.contains("partial"), "{run:?}: {stderr}");
            assert_eq!(left(dir.path()), Vec::<String>::new(), "{run:?} {extra:?}");
        }
    }
    // Records written before the refused input: the partial is kept, to
    // be resumed.
    let good = write(
        dir.path(),
        "good.txt",
        format!("{}\n", common::CLASSIC).as_bytes(),
    );
    let assert = batchdoku()
        .current_dir(dir.path())
        .args(["solve", "-j", "1", "-o", "out.txt"])
        .arg(&good)
        .arg(&bin_file)
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("--resume"), "{stderr}");
    assert!(dir.path().join("out.txt.partial").exists());
}
