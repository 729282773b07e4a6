//! Datasets as they are published: CSV files with the puzzle (and answer)
//! in named columns, read by `solve`, `rate` and `verify` as they are.

mod common;

use common::{batchdoku, sample_path, stdout_of, write};
use predicates::prelude::*;
use std::path::Path;

/// The first `n` puzzles of the sample and their solutions.
fn puzzles_and_solutions(n: usize) -> Vec<(String, String)> {
    let puzzles = common::sample_lines(n);
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
    let f = write(dir.path(), "bad.csv", &text);
    // The same rows without their header: the answers are the column after
    // the puzzles.
    let bare = write(dir.path(), "bad_bare.csv", text.split_once('\n').unwrap().1);
    for f in [f, bare] {
        batchdoku()
            .arg("verify")
            .arg(&f)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("record 7 ("))
            .stdout(predicate::str::contains("1 failed"));
    }
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
    // Without a header or flags: the first line's puzzle field is found,
    // and verify reads the answers from the field after it.
    let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&bare));
    assert_eq!(got, expected);
    let csv = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv"])
            .arg(&bare),
    );
    assert!(csv.lines().nth(1).unwrap().starts_with("1,"), "{csv}");
    batchdoku().arg("verify").arg(&bare).assert().success();
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

/// An `.npy` file of `rows` in element type `descr` (`|u1`, `<i8`, `>i2`...)
/// and `shape` (`(N, 81)` or `(N, 9, 9)`), written as NumPy writes one:
/// magic, version 1.0, a dict header padded to 64 bytes, the rows.
fn npy(rows: &[(String, String)], descr: &str, nine_by_nine: bool) -> Vec<u8> {
    let n = rows.len();
    let shape = if nine_by_nine {
        format!("({n}, 9, 9)")
    } else {
        format!("({n}, 81)")
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    let size: usize = descr[2..].parse().unwrap();
    for (p, _) in rows {
        for c in p.bytes() {
            let v = if c == b'.' { 0u64 } else { u64::from(c - b'0') };
            let bytes = v.to_le_bytes();
            if descr.starts_with('>') {
                out.extend(bytes[..size].iter().rev());
            } else {
                out.extend_from_slice(&bytes[..size]);
            }
        }
    }
    out
}

#[test]
fn npy_arrays_of_every_integer_type_and_shape_solve_like_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(300);
    let plain: String = rows.iter().map(|(p, _)| format!("{p}\n")).collect();
    let plain = write(dir.path(), "plain.txt", plain);
    let expected = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let answers = write(dir.path(), "answers.txt", &expected);
    for descr in ["|u1", "|i1", "<u2", "<i4", ">i2", "<i8", ">u8"] {
        for nine_by_nine in [false, true] {
            let bytes = npy(&rows, descr, nine_by_nine);
            let f = write(dir.path(), "p.npy", &bytes);
            let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&f));
            assert_eq!(got, expected, "{descr} {nine_by_nine}");
            let piped = stdout_of(batchdoku().args(["solve", "-q", "-"]).write_stdin(bytes));
            assert_eq!(piped, expected, "{descr} {nine_by_nine} through a pipe");
            batchdoku()
                .arg("verify")
                .arg(&f)
                .arg(&answers)
                .assert()
                .success();
        }
    }
    // An array of puzzles has no answers in it: verify asks for them.
    batchdoku()
        .arg("verify")
        .arg(dir.path().join("p.npy"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("npy array holds puzzles only"));
    // Rows are numbered from 0.
    let f = write(dir.path(), "p.npy", npy(&rows, "|u1", false));
    let csv = stdout_of(batchdoku().args(["solve", "-q", "--format", "csv"]).arg(&f));
    assert!(csv.lines().nth(1).unwrap().starts_with("0,"));
}

#[test]
fn npy_problems_are_records_or_messages_never_silence() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(5);
    // A cut file: the last row is malformed, and the header's count is
    // said to disagree.
    let mut bytes = npy(&rows, "|u1", false);
    bytes.truncate(bytes.len() - 30);
    let f = write(dir.path(), "cut.npy", &bytes);
    let out = batchdoku()
        .args(["solve", "--format", "csv"])
        .arg(&f)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "the header says 5 rows, the file holds 4.63",
        ))
        .stderr(predicate::str::contains(
            ":4: malformed: truncated row: 51 of 81 bytes",
        ));
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(text.lines().count(), 1 + 5);
    // The same array through a pipe, and one with whole rows missing or
    // over: the count is said to disagree once the stream has ended.
    let mut short = npy(&rows, "|u1", false);
    short.truncate(short.len() - 2 * 81);
    let mut long = npy(&rows, "|u1", false);
    long.extend_from_slice(&[1; 81]);
    for (piped, said, records) in [
        (&bytes, "the header says 5 rows, the stream holds 4.63", 5),
        (&short, "the header says 5 rows, the stream holds 3.00", 3),
        (&long, "the header says 5 rows, the stream holds 6.00", 6),
    ] {
        let out = batchdoku()
            .args(["solve", "--format", "csv", "-"])
            .write_stdin(piped.clone())
            .assert()
            .success()
            .stderr(predicate::str::contains(said));
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert_eq!(text.lines().count(), 1 + records);
    }
    batchdoku()
        .args(["solve", "-"])
        .write_stdin(npy(&rows, "|u1", false))
        .assert()
        .success()
        .stderr(predicate::str::contains("header says").not());
    // The largest unsigned value is named as it is, not as -1.
    let mut big = npy(&rows, "<u8", false);
    let at = big.len() - 8 * 81;
    big[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let f = write(dir.path(), "big.npy", &big);
    batchdoku()
        .args(["solve"])
        .arg(&f)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "cell 1 holds 18446744073709551615 (0-9 expected)",
        ));
    // A value out of range is a malformed record naming its cell.
    let mut bytes = npy(&rows, "|u1", false);
    let at = bytes.len() - 81 + 9;
    bytes[at] = 12;
    let f = write(dir.path(), "bad.npy", &bytes);
    batchdoku()
        .args(["solve", "-q", "--format", "csv"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains("malformed"));
    batchdoku()
        .args(["solve"])
        .arg(&f)
        .assert()
        .stderr(predicate::str::contains("cell 10 holds 12 (0-9 expected)"));
    // Floats and other shapes are refused with the reason.
    let mut bytes = npy(&rows, "|u1", false);
    let header = String::from_utf8_lossy(&bytes[10..74]).replace("|u1", "<f4");
    bytes[10..74].copy_from_slice(header.as_bytes());
    let f = write(dir.path(), "float.npy", &bytes);
    batchdoku()
        .args(["solve", "-q"])
        .arg(&f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("puzzles are integers"));
}

#[test]
fn keep_columns_carries_ids_with_the_answers_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(50);
    let files = layouts(dir.path(), &rows);
    let (_, r3m) = &files[2];
    let out = dir.path().join("kept.csv");
    batchdoku()
        .args([
            "solve",
            "-q",
            "--format",
            "csv",
            "--limit",
            "2",
            "--keep-columns",
            "-o",
        ])
        .arg(&out)
        .arg(r3m)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("line,puzzle,status,solutions,solution,guesses,id,input_solution,clues,difficulty")
    );
    for (i, line) in lines.enumerate() {
        let f = batchdoku::read::answers::split_csv(line);
        assert_eq!(f.len(), 10, "{line}");
        assert_eq!(f[6], format!("{i:x}"), "the id travels with its answer");
        assert_eq!(f[4], f[7], "the solution found is the published one");
    }
    batchdoku()
        .arg("verify")
        .arg(r3m)
        .arg(&out)
        .assert()
        .success();
    // Quoted input fields stay one field.
    let (_, ext) = &files[3];
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv", "--keep-columns"])
            .arg(ext),
    );
    let second = got.lines().nth(1).unwrap();
    assert!(second.contains(r#","forum, ""hard""\nset 0","#), "{second}");
    // Only with csv output, and only for CSV inputs with a header.
    let refused = dir.path().join("refused.txt");
    batchdoku()
        .args(["solve", "-q", "--keep-columns", "-o"])
        .arg(&refused)
        .arg(r3m)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "--keep-columns goes with --format csv",
        ));
    // Refused before any file is made.
    assert!(!dir.path().join("refused.txt.partial").exists());
    let (_, rrn) = &files[4];
    batchdoku()
        .args(["solve", "-q", "--format", "csv", "--keep-columns"])
        .arg(rrn)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("needs CSV inputs with a header"));
}

#[test]
fn input_csv_and_npy_can_be_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(20);
    let expected: String = rows.iter().map(|(_, s)| format!("{s}\n")).collect();
    // No header, the puzzle second: --input csv --column 2.
    let bare: String = rows.iter().map(|(p, s)| format!("x,{p},{s}\n")).collect();
    let bare = write(dir.path(), "bare.csv", bare);
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "csv", "--column", "2"])
            .arg(&bare),
    );
    assert_eq!(got, expected);
    // --input csv on puzzle-first lines reads the first column.
    let first: String = rows.iter().map(|(p, s)| format!("{p},{s}\n")).collect();
    let first = write(dir.path(), "first.csv", first);
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "csv"])
            .arg(&first),
    );
    assert_eq!(got, expected);
    // --input npy on a file that is not one: refused with the reason.
    batchdoku()
        .args(["solve", "-q", "--input", "npy"])
        .arg(&first)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no .npy header"));
    let arr = write(dir.path(), "a.npy", npy(&rows, "<u2", true));
    let got = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--input", "npy"])
            .arg(&arr),
    );
    assert_eq!(got, expected);
}

#[test]
fn npy_output_holds_the_solutions_and_a_status_file_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(40);
    let mut text: String = rows.iter().map(|(p, _)| format!("{p}\n")).collect();
    text += "not a puzzle\n";
    let input = write(dir.path(), "in.txt", &text);
    let out = dir.path().join("out.npy");
    batchdoku()
        .args(["solve", "-q", "--format", "npy", "-o"])
        .arg(&out)
        .arg(&input)
        .assert()
        .success();
    let bytes = std::fs::read(&out).unwrap();
    let header = batchdoku::read::npy::parse_header(&bytes).unwrap();
    assert_eq!(header.rows, 41);
    assert_eq!(header.dtype.size, 1);
    assert_eq!(bytes.len(), header.data_offset + 41 * 81);
    let data = &bytes[header.data_offset..];
    for (i, (_, s)) in rows.iter().enumerate() {
        let row: String = data[i * 81..(i + 1) * 81]
            .iter()
            .map(|&d| char::from(b'0' + d))
            .collect();
        assert_eq!(&row, s, "row {i}");
    }
    assert!(
        data[40 * 81..].iter().all(|&d| d == 0),
        "no solution: zeros"
    );
    let statuses = std::fs::read_to_string(format!("{}.status", out.display())).unwrap();
    let words: Vec<&str> = statuses.lines().collect();
    assert_eq!(words.len(), 41);
    assert!(words[..40].iter().all(|&w| w == "solved"));
    assert_eq!(words[40], "malformed");
    assert!(!dir.path().join("out.npy.partial").exists());
    // Only to a file, and not resumed.
    batchdoku()
        .args(["solve", "-q", "--format", "npy"])
        .arg(&input)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("give -o"));
}

#[test]
fn gzip_zstd_and_bzip2_files_are_read_as_their_contents() {
    // A gzipped Kaggle CSV (two gzip members, as `cat a.gz b.gz` or bgzip
    // make), a zstd line file, a bzip2 CSV of two streams (as pbzip2
    // writes): solved, rated and verified like the plain files; a cut-off
    // gzip or bzip2 file is an error that says so, never a panic.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(40);
    let csv: String = std::iter::once("quizzes,solutions\n".to_string())
        .chain(
            rows.iter()
                .map(|(p, s)| format!("{},{s}\n", p.replace('.', "0"))),
        )
        .collect();
    let plain_csv = write(dir.path(), "kaggle.csv", &csv);
    let gzip = |text: &str| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    // the header and 20 rows in one member, 20 rows in the other
    let (head, tail) = csv.split_at(csv.match_indices('\n').nth(20).unwrap().0 + 1);
    let mut two_members = gzip(head);
    two_members.extend(gzip(tail));
    let gz = write(dir.path(), "kaggle.csv.gz", &two_members);
    let lines: String = rows.iter().map(|(p, _)| format!("{p}\n")).collect();
    let plain_lines = write(dir.path(), "lines.txt", &lines);
    let zst = write(
        dir.path(),
        "lines.txt.zst",
        zstd::encode_all(lines.as_bytes(), 3).unwrap(),
    );
    let bzip2 = |text: &str| {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let mut two_streams = bzip2(head);
    two_streams.extend(bzip2(tail));
    let bz2 = write(dir.path(), "kaggle.csv.bz2", &two_streams);
    for (plain, packed) in [(&plain_csv, &gz), (&plain_lines, &zst), (&plain_csv, &bz2)] {
        for cmd in [["solve", "-q"], ["rate", "-q"]] {
            let want = stdout_of(batchdoku().args(cmd).arg(plain));
            // (rate writes a CSV header first)
            assert_eq!(want.lines().count(), 40 + usize::from(cmd[0] == "rate"));
            assert_eq!(
                stdout_of(batchdoku().args(cmd).arg(packed)),
                want,
                "{cmd:?} {packed:?}"
            );
        }
    }
    // A zstd file that opens with a skippable frame, as pzstd writes.
    let mut skippable = vec![0x50, 0x2a, 0x4d, 0x18];
    skippable.extend_from_slice(&4u32.to_le_bytes());
    skippable.extend_from_slice(&[7, 0, 0, 0]);
    skippable.extend(zstd::encode_all(lines.as_bytes(), 3).unwrap());
    let pzstd = write(dir.path(), "lines.pz.zst", &skippable);
    assert_eq!(
        stdout_of(batchdoku().args(["solve", "-q"]).arg(&pzstd)),
        stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain_lines))
    );
    // Compressed data through a pipe is read as the files are.
    for (plain, packed) in [
        (&plain_csv, &gz),
        (&plain_lines, &zst),
        (&plain_csv, &bz2),
        (&plain_lines, &pzstd),
    ] {
        let bytes = std::fs::read(packed).unwrap();
        for cmd in [["solve", "-q"], ["rate", "-q"], ["canon", "-q"]] {
            assert_eq!(
                stdout_of(batchdoku().args(cmd).arg("-").write_stdin(bytes.clone())),
                stdout_of(batchdoku().args(cmd).arg(plain)),
                "{cmd:?} {packed:?} through a pipe"
            );
        }
    }
    for packed in [&gz, &bz2] {
        batchdoku()
            .arg("verify")
            .arg(packed)
            .assert()
            .success()
            .stdout(predicate::str::contains("40 records checked: 40 passed"));
        batchdoku()
            .args(["verify", "-"])
            .write_stdin(std::fs::read(packed).unwrap())
            .assert()
            .success()
            .stdout(predicate::str::contains("40 records checked: 40 passed"));
    }
    for (name, whole) in [("cut.gz", &two_members), ("cut.bz2", &two_streams)] {
        let cut = write(dir.path(), name, &whole[..whole.len() / 3]);
        batchdoku()
            .args(["solve", "-q"])
            .arg(&cut)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(name));
    }
}

#[test]
fn long_quoted_fields_and_stray_quotes_read_alike_mapped_streamed_and_compressed() {
    // A CSV whose notes hold a stray quote (`a 5" board`), a quoted field of
    // 150 KB with commas, doubled quotes and line breaks, and a record over
    // 1 MiB (malformed, however it is read), then a wrong answer: solve and
    // verify give the same records from the file, through a pipe and
    // compressed, and the wrong answer is found in each.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let rows = puzzles_and_solutions(60);
    let long = format!("\"{}\"", "notes, \"\"quoted\"\"\nmore\n".repeat(6_000));
    let huge = format!("\"{}\"", "x\n".repeat(700_000));
    let mut with_puzzles = String::from("id,notes,puzzle,solution\n");
    let mut answers = String::from("notes,solution\n");
    for (i, (p, s)) in rows.iter().enumerate() {
        let notes = match i {
            3 => "a 5\" board".to_string(),
            4 => "12\" x 12\"".to_string(),
            10 | 40 => long.clone(),
            20 => huge.clone(),
            _ => "plain".to_string(),
        };
        let s = if i == 30 { &rows[31].1 } else { s };
        with_puzzles += &format!("{i},{notes},{p},{s}\n");
        answers += &format!("{notes},{s}\n");
    }
    let puzzles: String = rows.iter().map(|(p, _)| format!("{p}\n")).collect();
    let puzzles = write(dir.path(), "puzzles.txt", puzzles);
    let gzip = |text: &str| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    let bzip2 = |text: &str| {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(text.as_bytes()).unwrap();
        e.finish().unwrap()
    };
    for (name, text) in [("rows", &with_puzzles), ("answers", &answers)] {
        let plain = write(dir.path(), &format!("{name}.csv"), text);
        let packed = [
            write(dir.path(), &format!("{name}.csv.gz"), gzip(text)),
            write(
                dir.path(),
                &format!("{name}.csv.zst"),
                zstd::encode_all(text.as_bytes(), 1).unwrap(),
            ),
            write(dir.path(), &format!("{name}.csv.bz2"), bzip2(text)),
        ];
        // verify: the file alone (puzzle and answer columns) or the
        // answers beside the line file of puzzles.
        let verify = |input: Option<&Path>| {
            let mut cmd = batchdoku();
            cmd.arg("verify");
            if name == "answers" {
                cmd.arg(&puzzles);
            }
            match input {
                Some(f) => cmd.arg(f),
                None => cmd.arg("-").write_stdin(text.as_bytes()),
            };
            let out = cmd.assert().code(1).get_output().stdout.clone();
            let out = String::from_utf8(out).unwrap();
            // Without the time taken.
            match out.rfind(" (") {
                Some(at) => out[..at].to_string(),
                None => out,
            }
        };
        let want = verify(Some(&plain));
        assert!(want.contains("record 31 ("), "{want}");
        assert!(want.contains("record 21 ("), "{want}");
        assert!(
            want.contains("60 records checked: 58 passed, 2 failed"),
            "{want}"
        );
        let plain_name = plain.file_name().unwrap().to_str().unwrap();
        for f in &packed {
            let got = verify(Some(f));
            let f_name = f.file_name().unwrap().to_str().unwrap();
            assert_eq!(got.replace(f_name, plain_name), want, "{f:?}");
        }
        assert_eq!(
            verify(None)
                .replace("standard input", plain_name)
                .replace("-:", &format!("{plain_name}:")),
            want.replace(&plain.display().to_string(), plain_name)
        );
        if name == "rows" {
            let solve = |input: &Path| {
                stdout_of(
                    batchdoku()
                        .args(["solve", "-q", "--format", "csv"])
                        .arg(input)
                        .write_stdin(text.as_bytes()),
                )
            };
            let want = solve(&plain);
            assert_eq!(want.lines().count(), 61);
            assert_eq!(
                want.lines().filter(|l| l.contains(",malformed,")).count(),
                1
            );
            for f in &packed {
                assert_eq!(solve(f), want, "{f:?}");
            }
            assert_eq!(solve(Path::new("-")), want, "standard input");
        }
    }
}
