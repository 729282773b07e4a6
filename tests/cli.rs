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
        "grade",
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

/// The commands that run over records, with arguments for a short run on
/// the files in `dir` (`p.txt`: puzzles, `a.txt`: their answers).
fn record_commands(dir: &Path) -> Vec<(&'static str, Vec<String>)> {
    let at = |name: &str| dir.join(name).display().to_string();
    vec![
        ("solve", vec![at("p.txt"), "-o".into(), at("out.txt")]),
        ("verify", vec![at("p.txt"), at("a.txt")]),
        ("rate", vec![at("p.txt"), "-o".into(), at("out.csv")]),
        ("grade", vec![at("p.txt"), "-o".into(), at("out.grade")]),
        ("canon", vec![at("p.txt"), "-o".into(), at("out.canon")]),
        ("dedup", vec![at("p.txt"), "-o".into(), at("out.dedup")]),
        (
            "generate",
            vec!["-n".into(), "6".into(), "--seed".into(), "3".into()],
        ),
        (
            "bench",
            ["--solvers", "fast", "--min-time", "0.01", "--warmup", "0"]
                .iter()
                .map(|s| s.to_string())
                .chain([at("p.txt")])
                .collect(),
        ),
    ]
}

#[test]
fn every_command_over_records_takes_the_same_run_options() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = std::fs::read_to_string(sample_path())
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .take(40)
        .map(str::to_string)
        .collect();
    common::write(dir.path(), "p.txt", lines.join("\n") + "\n");
    batchdoku()
        .args(["solve", "-q", "-o"])
        .arg(dir.path().join("a.txt"))
        .arg(dir.path().join("p.txt"))
        .assert()
        .success();
    let mut helps = Vec::new();
    for (sub, args) in record_commands(dir.path()) {
        // The help of each lists them alike.
        let out = batchdoku().args([sub, "--help"]).assert().success();
        let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let shared: Vec<&str> = help
            .lines()
            .filter(|l| {
                ["-j, --threads", "-q, --quiet", "--progress", "--stats"]
                    .iter()
                    .any(|o| l.trim_start().starts_with(o))
            })
            .collect();
        assert_eq!(shared.len(), 4, "{sub}: {help}");
        helps.push((sub, shared.join("\n")));
        // Quiet means nothing on stderr; --stats writes the run's figures.
        let stats = dir.path().join(format!("{sub}.json"));
        let out = batchdoku()
            .arg(sub)
            .args(&args)
            .args(["-j", "2", "-q", "--progress", "always", "--stats"])
            .arg(&stats)
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(stderr, "", "{sub}: -q still printed");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert_eq!(json["threads"], 2, "{sub}: {json}");
        assert!(json["seconds"].as_f64().unwrap() >= 0.0, "{sub}: {json}");
        let count = ["puzzles", "records"]
            .iter()
            .find_map(|k| json[k].as_u64())
            .or_else(|| {
                json["rows"]
                    .as_array()
                    .map(|r| r[0]["set_size"].as_u64().unwrap())
            });
        let want = if sub == "generate" { 6 } else { 40 };
        assert_eq!(count, Some(want), "{sub}: {json}");
    }
    // Word for word the same help for the shared options.
    for (sub, shared) in &helps[1..] {
        assert_eq!(shared, &helps[0].1, "{sub} against {}", helps[0].0);
    }
}

#[test]
fn the_top_level_help_gives_each_command_one_short_line() {
    let out = batchdoku().arg("--help").assert().success();
    let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let commands = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap();
    let lines: Vec<&str> = commands.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() >= 9, "{commands}");
    for line in lines {
        assert!(line.len() <= 100, "too long: {line}");
    }
}
