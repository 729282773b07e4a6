//! Helpers shared by the integration tests.
#![allow(dead_code)]

use assert_cmd::Command;
use batchdoku::read::{records, InputFormat};
use batchdoku::tasks::canon::Transform;
use batchdoku::Grid;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};

/// A classic puzzle that singles solve, and its solution.
pub const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
pub const CLASSIC_SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
/// "AI Escargot": needs real search.
pub const ESCARGOT: &str =
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..";

/// The binary under test.
pub fn batchdoku() -> Command {
    Command::cargo_bin("batchdoku").unwrap()
}

/// Runs `cmd`, requires success, and returns its standard output.
pub fn stdout_of(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `../shared/datasets` beside the project (or `$BATCHDOKU_DATASETS`), when
/// present. Tests that need it say so on stderr and pass without it.
pub fn shared_datasets() -> Option<PathBuf> {
    let dir = std::env::var_os("BATCHDOKU_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} not found; shared-dataset checks not run",
            dir.display()
        );
        None
    }
}

/// The project's own sample dataset.
pub fn sample_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/sample.txt")
}

/// Every puzzle of a line-per-puzzle file.
pub fn load_puzzles(path: &std::path::Path) -> Vec<Grid> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    records(&data, 1, InputFormat::Line)
        .map(|r| {
            r.givens()
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), r.line))
        })
        .collect()
}

/// Every puzzle of a line-per-puzzle file, 81-cell or pencilmark.
pub fn load_records(path: &std::path::Path) -> Vec<batchdoku::Puzzle> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    records(&data, 1, InputFormat::Line)
        .map(|r| {
            r.puzzle
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), r.line))
        })
        .collect()
}

/// The path of the binary under test, for `std::process::Command`.
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("batchdoku")
}

/// Sends signal `name` (`-INT`, `-TERM`) to a child process.
#[cfg(unix)]
pub fn signal(child: &std::process::Child, name: &str) {
    std::process::Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap();
}

/// Runs `batchdoku ARGS` with standard input held open and empty (`-` is
/// among the inputs), interrupts it with SIGINT while it waits there, then
/// closes standard input: a real interrupted run at a known point (every
/// earlier input read), leaving `OUT.partial` and the record of its run.
///
/// Standard input is closed only once the program has said it heard the
/// interrupt: on a loaded machine its handler may run late, and an input
/// that ends first is a complete run. A signal that lands before the
/// handler is installed ends the process; that attempt is run again, later.
#[cfg(unix)]
pub fn interrupt_while_reading_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S]) {
    use std::io::Read;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    const HEARD: &str = "finishing the records already read";
    for attempt in 1..=4u64 {
        let mut child = Command::new(bin())
            .args(args)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        std::thread::sleep(Duration::from_millis(300 * attempt));
        signal(&child, "-INT");
        let mut text = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !String::from_utf8_lossy(&text).contains(HEARD) && Instant::now() < deadline {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(bytes) => text.extend(bytes),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        drop(stdin);
        let status = child.wait().unwrap();
        reader.join().unwrap();
        text.extend(rx.try_iter().flatten());
        let stderr = String::from_utf8_lossy(&text);
        if status.code().is_none() && !stderr.contains(HEARD) && attempt < 4 {
            continue; // killed by the signal before its handler was set
        }
        assert!(stderr.contains(HEARD), "{stderr}");
        assert_eq!(status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("interrupted"), "{stderr}");
        return;
    }
}

/// The first `n` puzzles of the shipped sample, 81 cells each.
pub fn sample_lines(n: usize) -> Vec<String> {
    std::fs::read_to_string(sample_path())
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(n)
        .map(|l| l[..81].to_string())
        .collect()
}

/// Leaves `OUT.partial` as a killed run would: the first `whole` lines of
/// the finished output `full`, then `cut` bytes of the next line.
pub fn leave_partial(out: &Path, full: &str, whole: usize, cut: usize) {
    let lines: Vec<&str> = full.lines().collect();
    let mut partial: String = lines[..whole].iter().map(|l| format!("{l}\n")).collect();
    partial += &lines[whole][..cut];
    std::fs::write(format!("{}.partial", out.display()), partial).unwrap();
}

/// Runs `command` on `input` (then standard input, left empty) in every
/// output format, interrupts the same run, cuts its partial output as a
/// killed run leaves it (`kept` whole records, then `cut` bytes of the
/// next), resumes it, and checks that the resumed output is the
/// uninterrupted one, byte for byte, with no partial file or run record
/// left. `records` is the number of input records.
#[cfg(unix)]
pub fn resume_round_trip(
    command: &str,
    input: &Path,
    dir: &Path,
    records: usize,
    kept: usize,
    cut: usize,
) {
    use predicates::prelude::*;
    for format in ["line", "csv", "jsonl"] {
        let out = dir.join(format!("out.{format}"));
        let args = |out: &Path| -> Vec<std::ffi::OsString> {
            vec![
                command.into(),
                "--format".into(),
                format.into(),
                "-o".into(),
                out.into(),
                input.into(),
                "-".into(),
            ]
        };
        let full = dir.join(format!("full.{format}"));
        batchdoku()
            .args(args(&full))
            .write_stdin("")
            .assert()
            .success();
        let full_text = std::fs::read_to_string(&full).unwrap();
        // A real interrupted run leaves the partial and its run record ...
        interrupt_while_reading_stdin(&args(&out));
        // ... cut here (after the csv header, if any).
        let head = usize::from(format == "csv");
        leave_partial(&out, &full_text, head + kept, cut);
        batchdoku()
            .args(args(&out))
            .arg("--resume")
            .write_stdin("")
            .assert()
            .success()
            .stderr(predicate::str::contains(format!(
                "resuming after {kept} records"
            )))
            .stderr(predicate::str::contains(format!(
                "{} records",
                records - kept
            )));
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            full_text,
            "{command} {format}"
        );
        assert!(!Path::new(&format!("{}.partial", out.display())).exists());
        assert!(!Path::new(&format!("{}.partial.run", out.display())).exists());
    }
}

/// A random member of the group.
pub fn random_transform(rng: &mut ChaCha8Rng) -> Transform {
    fn order(rng: &mut ChaCha8Rng) -> [u8; 9] {
        let mut blocks = [0u8, 1, 2];
        blocks.shuffle(rng);
        let mut order = [0u8; 9];
        for (b, &block) in blocks.iter().enumerate() {
            let mut inner = [0u8, 1, 2];
            inner.shuffle(rng);
            for i in 0..3 {
                order[3 * b + i] = 3 * block + inner[i];
            }
        }
        order
    }
    let mut digits = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
    digits.shuffle(rng);
    let mut map = [0u8; 10];
    map[1..].copy_from_slice(&digits);
    Transform {
        transpose: rng.gen(),
        rows: order(rng),
        cols: order(rng),
        digits: map,
    }
}

/// Runs `cmd` (a program and its arguments) where `dir` is a fresh tmpfs
/// of `size` (`2m`): in a mount namespace of its own (`unshare -rm`, as
/// root or in a user namespace), so a test can fill a disk. `None`, said
/// on stderr, where such namespaces are not allowed.
pub fn run_on_small_disk(
    dir: &Path,
    size: &str,
    cmd: &mut std::process::Command,
) -> Option<std::process::Output> {
    let allowed = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !allowed {
        eprintln!("note: unshare -rm is not allowed here; the full-disk check is not run");
        return None;
    }
    let mut run = std::process::Command::new("unshare");
    run.args([
        "-rm",
        "sh",
        "-c",
        r#"mount -t tmpfs -o size="$1" tmpfs "$2" && shift 2 && exec "$@""#,
        "sh",
        size,
    ])
    .arg(dir)
    .arg(cmd.get_program())
    .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => run.env(k, v),
            None => run.env_remove(k),
        };
    }
    Some(run.output().unwrap())
}
