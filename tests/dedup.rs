//! `batchdoku canon` and `batchdoku dedup` through the built binary:
//! planted classes of disguised copies (unique, several-solution and
//! solved) found exactly, in every layout, through a pipe, across files and
//! against a training set.

mod common;

use batchdoku::solver::FastSolver;
use batchdoku::tasks::canon::canonical;
use batchdoku::tasks::generate::{puzzle_rng, random_solution};
use batchdoku::Grid;
use common::{batchdoku, random_transform, stdout_of, write};
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::HashMap;

/// A planted dataset: `classes` distinct puzzles of three kinds, then
/// disguised copies of random ones, shuffled. Returns the lines and, per
/// line, the index of its class.
fn planted(classes: usize, copies: usize, seed: u64) -> (Vec<String>, Vec<usize>) {
    let mut rng = puzzle_rng(seed, 1);
    let mut solver = FastSolver::new();
    let samples = common::load_puzzles(&common::sample_path());
    let mut bases: Vec<Grid> = Vec::new();
    let mut forms = std::collections::HashSet::new();
    while bases.len() < classes {
        let g = match bases.len() % 3 {
            // Unique puzzles from the sample set.
            0 => samples[rng.gen_range(0..samples.len())],
            // Several solutions: 20 clues of a random grid.
            1 => {
                let s = random_solution(&mut rng, &mut solver);
                let mut cells: Vec<usize> = (0..81).collect();
                cells.shuffle(&mut rng);
                let mut g = Grid::EMPTY;
                for &i in &cells[..20] {
                    g.set(i / 9, i % 9, s.get(i / 9, i % 9));
                }
                g
            }
            // Solved grids.
            _ => random_solution(&mut rng, &mut solver),
        };
        // Distinct classes only (two samples could be equivalent).
        if forms.insert(canonical(&g).unwrap().grid) {
            bases.push(g);
        }
    }
    let mut rows: Vec<(Grid, usize)> = bases.iter().copied().zip(0..).collect();
    for _ in 0..copies {
        let class = rng.gen_range(0..classes);
        rows.push((random_transform(&mut rng).apply(&bases[class]), class));
    }
    rows.shuffle(&mut rng);
    rows.into_iter().map(|(g, c)| (g.to_line(), c)).unzip()
}

/// What dedup must keep: the first line of each class (as 1-based line
/// numbers), and for every other line the line it repeats.
fn expected(classes: &[usize]) -> (Vec<usize>, Vec<(usize, usize)>) {
    let mut first: HashMap<usize, usize> = HashMap::new();
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (i, &c) in classes.iter().enumerate() {
        match first.get(&c) {
            Some(&f) => dropped.push((i + 1, f)),
            None => {
                first.insert(c, i + 1);
                kept.push(i + 1);
            }
        }
    }
    (kept, dropped)
}

#[test]
fn dedup_finds_exactly_the_planted_classes() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, classes) = planted(300, 700, 11);
    let input = write(dir.path(), "in.txt", lines.join("\n") + "\n");
    let out = dir.path().join("out.txt");
    let report = dir.path().join("dropped.csv");
    batchdoku()
        .args(["dedup", "-q", "-j", "2"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let (kept, dropped) = expected(&classes);
    let want: String = kept.iter().map(|&i| lines[i - 1].clone() + "\n").collect();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), want);
    let mut want_report = String::from("file,line,duplicate_of_file,duplicate_of_line\n");
    for (line, of) in dropped {
        want_report += &format!("in.txt,{line},in.txt,{of}\n");
    }
    let report = std::fs::read_to_string(&report).unwrap();
    // Inputs are named as given: compare with the directory taken out.
    let report = report.replace(&format!("{}/", dir.path().display()), "");
    assert_eq!(report, want_report);
    assert_eq!(kept.len(), 300);
}

#[test]
fn canon_gives_one_form_per_planted_class_in_every_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, classes) = planted(60, 140, 12);
    let text = lines.join("\n") + "\n";
    let input = write(dir.path(), "in.txt", &text);
    let forms = stdout_of(batchdoku().args(["canon", "-q"]).arg(&input));
    let forms: Vec<&str> = forms.lines().collect();
    assert_eq!(forms.len(), lines.len());
    let mut form_of_class: HashMap<usize, &str> = HashMap::new();
    for (&c, &f) in classes.iter().zip(&forms) {
        assert_eq!(*form_of_class.entry(c).or_insert(f), f, "class {c}");
        assert_eq!(f.len(), 81);
    }
    let distinct: std::collections::HashSet<&&str> = form_of_class.values().collect();
    assert_eq!(distinct.len(), 60);
    // The same through a pipe, from a CSV with quoted fields, and from npy.
    let piped = stdout_of(
        batchdoku()
            .args(["canon", "-q", "-"])
            .write_stdin(text.clone()),
    );
    assert_eq!(piped.lines().collect::<Vec<_>>(), forms);
    let mut csv = String::from("id,\"puzzle\",note\n");
    for (i, l) in lines.iter().enumerate() {
        csv += &format!("{i},\"{l}\",\"a, b\"\n");
    }
    let csv = write(dir.path(), "in.csv", csv);
    let from_csv = stdout_of(batchdoku().args(["canon", "-q"]).arg(&csv));
    assert_eq!(from_csv.lines().collect::<Vec<_>>(), forms);
    let mut npy = batchdoku::write::npy::output_header(lines.len() as u64);
    for l in &lines {
        let g = Grid::parse_line(l.as_bytes()).unwrap();
        npy.extend_from_slice(g.cells());
    }
    let npy = write(dir.path(), "in.npy", npy);
    let from_npy = stdout_of(batchdoku().args(["canon", "-q"]).arg(&npy));
    assert_eq!(from_npy.lines().collect::<Vec<_>>(), forms);
}

#[test]
fn canon_csv_and_jsonl_fields_and_bad_records() {
    let dir = tempfile::tempdir().unwrap();
    let empty = ".".repeat(81);
    let text = format!(
        "{}\nnot a puzzle\n{}\n55{}\n",
        common::CLASSIC,
        empty,
        ".".repeat(79)
    );
    let input = write(dir.path(), "in.txt", text);
    let assert = batchdoku()
        .args(["canon", "--format", "csv"])
        .arg(&input)
        .assert()
        .success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    let rows: Vec<Vec<&str>> = out.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        [
            "line",
            "puzzle",
            "status",
            "canonical",
            "automorphisms",
            "clues"
        ]
    );
    let classic = canonical(&Grid::parse_line(common::CLASSIC.as_bytes()).unwrap()).unwrap();
    assert_eq!(rows[1][2], "ok");
    assert_eq!(rows[1][3], classic.grid.to_line());
    assert_eq!(rows[1][4], classic.automorphisms.to_string());
    assert_eq!(rows[1][5], "30");
    assert_eq!(rows[2][..3], ["2", "not a puzzle", "malformed"]);
    assert_eq!(rows[3][2..], ["ok", &empty, "3359232", "0"]);
    assert_eq!(rows[4][2], "invalid");
    assert!(err.contains(":2: malformed"), "{err}");
    assert!(err.contains(":4: invalid"), "{err}");
    let jsonl = stdout_of(
        batchdoku()
            .args(["canon", "-q", "--format", "jsonl"])
            .arg(&input),
    );
    let objs: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(objs.len(), 4);
    assert_eq!(objs[2]["automorphisms"], 3_359_232);
    assert_eq!(objs[1]["status"], "malformed");
    assert_eq!(objs[1]["canonical"], serde_json::Value::Null);
    let lines = stdout_of(batchdoku().args(["canon", "-q"]).arg(&input));
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines[1..], ["malformed", &empty, "invalid"]);
}

#[test]
fn dedup_across_files_and_against_a_training_set() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, classes) = planted(90, 210, 13);
    // Three files cut from one planted list: the classes carry across.
    let cuts = [0, 100, 220, lines.len()];
    let mut files = Vec::new();
    for (k, w) in cuts.windows(2).enumerate() {
        let text = lines[w[0]..w[1]].join("\n") + "\n";
        files.push(write(dir.path(), &format!("f{k}.txt"), text));
    }
    let out = stdout_of(batchdoku().args(["dedup", "-q"]).args(&files));
    let (kept, _) = expected(&classes);
    let want: Vec<&str> = kept.iter().map(|&i| lines[i - 1].as_str()).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);

    // Against: the first file is the training set; of the rest, only the
    // records of classes not in it remain (duplicates among themselves
    // included), and the report names the training line each repeats.
    let train_classes: std::collections::HashSet<usize> = classes[..100].iter().copied().collect();
    let report = dir.path().join("leaks.csv");
    let out = stdout_of(
        batchdoku()
            .args(["dedup", "-q"])
            .args(&files[1..])
            .arg("--against")
            .arg(&files[0])
            .arg("--report")
            .arg(&report),
    );
    let want: Vec<&str> = (100..lines.len())
        .filter(|&i| !train_classes.contains(&classes[i]))
        .map(|i| lines[i].as_str())
        .collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    let report = std::fs::read_to_string(&report).unwrap();
    let leaks: Vec<&str> = report.lines().skip(1).collect();
    assert_eq!(leaks.len(), lines.len() - 100 - want.len());
    for leak in leaks {
        let f: Vec<&str> = leak.split(',').collect();
        assert!(f[2].ends_with("f0.txt"), "{leak}");
        let file_start = if f[0].ends_with("f1.txt") { 100 } else { 220 };
        let line: usize = f[1].parse().unwrap();
        let train_line: usize = f[3].parse().unwrap();
        assert_eq!(
            classes[file_start + line - 1],
            classes[train_line - 1],
            "{leak}"
        );
        // The training line named is that class's first.
        assert_eq!(
            classes[..100]
                .iter()
                .position(|&c| c == classes[train_line - 1]),
            Some(train_line - 1)
        );
    }
}

#[test]
fn dedup_keeps_a_csv_header_and_whole_rows_and_leaves_out_bad_records() {
    let dir = tempfile::tempdir().unwrap();
    let moved = random_transform(&mut puzzle_rng(3, 3))
        .apply(&Grid::parse_line(common::CLASSIC.as_bytes()).unwrap())
        .to_line();
    let csv = format!(
        "id,puzzle,solution\n1,{},{}\n2,junk,x\n3,{moved},\"with, comma\"\n4,{},-\n",
        common::CLASSIC,
        common::CLASSIC_SOLUTION,
        common::ESCARGOT
    );
    let input = write(dir.path(), "k.csv", csv);
    let assert = batchdoku().arg("dedup").arg(&input).assert().success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(
        out,
        format!(
            "id,puzzle,solution\n1,{},{}\n4,{},-\n",
            common::CLASSIC,
            common::CLASSIC_SOLUTION,
            common::ESCARGOT
        )
    );
    assert!(err.contains(":2: malformed"), "{err}");
    assert!(err.contains("2 kept, 1 duplicates, 1 malformed"), "{err}");
}

/// Ctrl-C while the second input (standard input) is awaited: exit 1, the
/// output left as OUT.partial holding exactly what the first file gives.
#[cfg(unix)]
#[test]
fn interrupted_runs_keep_what_is_finished_as_partial() {
    let dir = tempfile::tempdir().unwrap();
    let (lines, _) = planted(20, 30, 14);
    let input = write(dir.path(), "a.txt", lines.join("\n") + "\n");
    for command in ["canon", "dedup"] {
        let out = dir.path().join(format!("{command}.out"));
        let args = [
            command.as_ref(),
            input.as_os_str(),
            "-".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        common::interrupt_while_reading_stdin(&args);
        assert!(!out.exists(), "{command}");
        let partial =
            std::fs::read_to_string(dir.path().join(format!("{command}.out.partial"))).unwrap();
        let whole = stdout_of(batchdoku().args([command, "-q"]).arg(&input));
        assert_eq!(partial, whole, "{command}");
    }
}

#[test]
fn a_full_temporary_folder_is_an_error_that_names_it() {
    // dedup's forms go to a file in TMPDIR, written through a map: on a
    // full disk that was a SIGBUS (exit 135) with no word. Here TMPDIR is
    // a 2 MiB tmpfs (common::run_on_small_disk), and 60,000 distinct
    // puzzles need about 3 MiB of forms.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = puzzle_rng(7, 1);
    let mut solver = FastSolver::new();
    let mut text = String::new();
    for _ in 0..60_000 {
        let s = random_solution(&mut rng, &mut solver);
        let mut g = Grid::EMPTY;
        for i in 0..81 {
            if rng.gen_bool(0.4) {
                g.set(i / 9, i % 9, s.get(i / 9, i % 9));
            }
        }
        text += &format!("{}\n", g.to_line());
    }
    let input = write(dir.path(), "many.txt", &text);
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    let out = dir.path().join("kept.txt");
    let run = |size: &str| {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("batchdoku"));
        cmd.args(["dedup", "-q"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .env("TMPDIR", &small);
        common::run_on_small_disk(&small, size, &mut cmd)
    };
    let Some(full) = run("2m") else {
        return;
    };
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert_eq!(full.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("temporary file of forms in {}", small.display()))
            && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert!(stderr.contains("kept.txt.partial (incomplete)"), "{stderr}");
    assert!(!out.exists());
    // Room enough: the same run completes, every class kept.
    std::fs::remove_file(dir.path().join("kept.txt.partial")).unwrap();
    let roomy = run("16m").unwrap();
    assert!(
        roomy.status.success(),
        "{}",
        String::from_utf8_lossy(&roomy.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        60_000
    );
}

#[test]
fn inputs_of_different_layouts_are_refused_not_written_under_one_header() {
    // dedup writes the records as read, under the first CSV's header: the
    // rows of a CSV with other columns (or of a line file) under it would
    // be misread. Same columns (any case, spaces) are fine.
    let dir = tempfile::tempdir().unwrap();
    let p = common::sample_lines(6);
    let a = write(
        dir.path(),
        "a.csv",
        format!("id,puzzle\n1,{}\n2,{}\n", p[0], p[1]),
    );
    let same = write(
        dir.path(),
        "same.csv",
        format!("ID, Puzzle\n3,{}\n4,{}\n", p[2], p[0]),
    );
    let other = write(
        dir.path(),
        "other.csv",
        format!("puzzle,source\n{},x\n{},y\n", p[3], p[4]),
    );
    let lines = write(dir.path(), "lines.txt", format!("{}\n", p[5]));
    let out = stdout_of(batchdoku().args(["dedup", "-q"]).arg(&a).arg(&same));
    assert_eq!(
        out,
        format!("id,puzzle\n1,{}\n2,{}\n3,{}\n", p[0], p[1], p[2])
    );
    for (second, said) in [
        (
            &other,
            "has the header puzzle,source but the first input has the header id,puzzle",
        ),
        (
            &lines,
            "has no CSV header but the first input has the header id,puzzle",
        ),
    ] {
        batchdoku()
            .args(["dedup", "-q"])
            .arg(&a)
            .arg(second)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(format!(
                "{} {said}",
                second.display()
            )));
    }
    batchdoku()
        .args(["dedup", "-q"])
        .arg(&lines)
        .arg(&a)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "has the header id,puzzle but the first input has no CSV header",
        ));
}
