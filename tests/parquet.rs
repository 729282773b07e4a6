//! Parquet in and out: tables written here with the `parquet` crate (nulls,
//! several row groups, every string type), solved like the plain file,
//! written back as typed columns, and read by `verify` as answers, as is
//! an npy output with its statuses.

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{
    ArrayRef, BinaryArray, DictionaryArray, Float64Array, Int64Array, LargeStringArray,
    RecordBatch, StringArray, StringViewArray,
};
use arrow_schema::DataType;
use common::{batchdoku, sample_lines, sample_path, stdout_of, write};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Writes `columns` as a Parquet file with row groups of `group` rows.
fn table(dir: &Path, name: &str, columns: Vec<(&str, ArrayRef)>, group: usize) -> PathBuf {
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    table_with(dir, name, columns, props)
}

/// Writes `columns` as a Parquet file written with `props`.
fn table_with(
    dir: &Path,
    name: &str,
    columns: Vec<(&str, ArrayRef)>,
    props: WriterProperties,
) -> PathBuf {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let path = dir.join(name);
    let mut w = ArrowWriter::try_new(
        std::fs::File::create(&path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    path
}

/// Writes `batches` as a Parquet file, each batch a row group of its own,
/// zero rows included (as pyarrow writes an empty table, and as a writer
/// may leave one between others), with pages of at most `page_rows` rows.
fn table_in_groups(dir: &Path, name: &str, batches: &[RecordBatch], page_rows: usize) -> PathBuf {
    use parquet::arrow::arrow_writer::{compute_leaves, ArrowRowGroupWriterFactory};
    use parquet::arrow::ArrowSchemaConverter;
    use parquet::file::writer::SerializedFileWriter;
    let schema = batches[0].schema();
    let props = Arc::new(
        WriterProperties::builder()
            .set_data_page_row_count_limit(page_rows)
            .set_write_batch_size(page_rows.min(1024))
            .build(),
    );
    let parquet_schema = ArrowSchemaConverter::new().convert(&schema).unwrap();
    let path = dir.join(name);
    let mut writer = SerializedFileWriter::new(
        std::fs::File::create(&path).unwrap(),
        parquet_schema.root_schema_ptr(),
        Arc::clone(&props),
    )
    .unwrap();
    let factory = ArrowRowGroupWriterFactory::new(&writer, Arc::clone(&schema));
    for (g, batch) in batches.iter().enumerate() {
        let mut columns = factory.create_column_writers(g).unwrap();
        let mut next = columns.iter_mut();
        for (array, field) in batch.columns().iter().zip(schema.fields()) {
            for leaves in compute_leaves(field, array).unwrap() {
                next.next().unwrap().write(&leaves).unwrap();
            }
        }
        let mut group = writer.next_row_group().unwrap();
        for column in columns {
            column
                .close()
                .unwrap()
                .append_to_row_group(&mut group)
                .unwrap();
        }
        group.close().unwrap();
    }
    writer.close().unwrap();
    path
}

/// The batches of a Parquet file, concatenated.
fn read_table(path: &Path) -> (RecordBatch, usize) {
    let b = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap()).unwrap();
    let groups = b.metadata().num_row_groups();
    let schema = b.schema().clone();
    let batches: Vec<RecordBatch> = b.build().unwrap().map(Result::unwrap).collect();
    (
        arrow_select::concat::concat_batches(&schema, &batches).unwrap(),
        groups,
    )
}

fn strings(batch: &RecordBatch, name: &str) -> Vec<Option<String>> {
    batch
        .column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_string::<i32>()
        .iter()
        .map(|v| v.map(str::to_string))
        .collect()
}

/// Writes `lines` as a line file, one puzzle a line.
fn lines_file(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    write(
        dir,
        name,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
}

/// Puzzles with the rows a table can hold that are not puzzles: a null, an
/// empty string, a `#` text (a record here, not a comment) and garbage.
fn rows_with_holes(n: usize) -> Vec<Option<String>> {
    let mut rows: Vec<Option<String>> = sample_lines(n).into_iter().map(Some).collect();
    rows[3] = None;
    rows[5] = Some(String::new());
    rows[7] = Some("# not a comment here".into());
    rows[9] = Some("bad".into());
    rows
}

/// The records of `rows` as a line file would give them: every row that is
/// not 81 characters malformed.
fn plain_file(dir: &Path, rows: &[Option<String>]) -> PathBuf {
    let plain: String = rows
        .iter()
        .map(|r| match r.as_deref() {
            Some(p) if p.len() == 81 => format!("{p}\n"),
            _ => "x\n".into(),
        })
        .collect();
    write(dir, "plain.txt", plain)
}

#[test]
fn a_table_of_many_small_pages_is_solved_in_runs_of_pages_in_order() {
    // Pages of about 200 rows, snappy, and a first row group of 20,000
    // rows: read in lanes at -j 2, a run of pages of at least 2,048 rows a
    // job; the second group (6,000 rows) and -j 3 take the one-decoder path.
    let dir = tempfile::tempdir().unwrap();
    let mut rows = rows_with_holes(3000);
    rows = rows.iter().cycle().take(26_000).cloned().collect();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(20_000))
        .set_data_page_row_count_limit(200)
        .set_write_batch_size(8)
        .set_compression(parquet::basic::Compression::SNAPPY)
        .build();
    let f = table_with(
        dir.path(),
        "pages.parquet",
        vec![(
            "puzzle",
            Arc::new(StringArray::from(rows.clone())) as ArrayRef,
        )],
        props,
    );
    let plain = plain_file(dir.path(), &rows);
    for threads in ["1", "2", "3"] {
        let want = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "csv", "-j", threads])
                .arg(&plain),
        );
        let got = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "csv", "-j", threads])
                .arg(&f),
        );
        // The same results (status on: the plain file's holes are `x`);
        // the table numbers rows from 0, the plain file lines from 1.
        let fields = |l: &str| -> (String, String) {
            let f: Vec<&str> = l.splitn(3, ',').collect();
            (f[0].to_string(), f[2].to_string())
        };
        let want: Vec<(String, String)> = want.lines().map(fields).collect();
        let got: Vec<(String, String)> = got.lines().map(fields).collect();
        assert_eq!(got.len(), 26_001, "-j {threads}");
        for (i, ((row, rest), (line, wanted))) in got.iter().zip(&want).enumerate().skip(1) {
            assert_eq!(*row, (i - 1).to_string(), "-j {threads}");
            assert_eq!(*line, i.to_string());
            assert_eq!(rest, wanted, "-j {threads}, row {}", i - 1);
        }
    }
}

#[test]
fn row_groups_of_zero_rows_are_tables_with_no_records_there() {
    // Empty groups first, between others and last, beside a group read in
    // lanes (small pages, 20,000 rows) and one read by one decoder; and a
    // table whose only group is empty, as pyarrow writes an empty table.
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<Option<String>> = rows_with_holes(3000)
        .into_iter()
        .cycle()
        .take(23_000)
        .collect();
    let batch = |from: usize, to: usize| {
        RecordBatch::try_from_iter([(
            "puzzle",
            Arc::new(StringArray::from(rows[from..to].to_vec())) as ArrayRef,
        )])
        .unwrap()
    };
    let empty = batch(0, 0);
    let groups = [
        empty.clone(),
        batch(0, 20_000),
        empty.clone(),
        empty.clone(),
        batch(20_000, 23_000),
        empty.clone(),
    ];
    let f = table_in_groups(dir.path(), "holes.parquet", &groups, 200);
    let (_, written) = read_table(&f);
    assert_eq!(written, 6, "the file holds its empty groups");
    let only_empty = table_in_groups(dir.path(), "empty.parquet", &[empty], 200);
    // The same rows without the empty groups, and a blank text file.
    let whole = table(
        dir.path(),
        "whole.parquet",
        vec![(
            "puzzle",
            Arc::new(StringArray::from(rows.clone())) as ArrayRef,
        )],
        20_000,
    );
    let blank = write(dir.path(), "blank.txt", "");
    for command in ["solve", "rate", "canon", "dedup"] {
        for threads in ["1", "2", "3"] {
            let run = |input: &Path| {
                stdout_of(batchdoku().args([command, "-q", "-j", threads]).arg(input))
            };
            let want = run(&whole);
            assert!(want.lines().count() > 2_000, "{command}: {want:.200}");
            assert_eq!(run(&f), want, "{command} -j {threads}");
            assert_eq!(run(&only_empty), run(&blank), "{command} -j {threads}");
        }
    }
    // Its answers, as a table, checked by verify against the plain file
    // of its puzzles, and against the table itself.
    let plain = plain_file(dir.path(), &rows);
    let out = dir.path().join("out.parquet");
    batchdoku()
        .args(["solve", "-q", "-j", "2", "--format", "parquet", "-o"])
        .arg(&out)
        .arg(&f)
        .assert()
        .success();
    let (results, _) = read_table(&out);
    assert_eq!(results.num_rows(), 23_000);
    for puzzles in [&plain, &f] {
        batchdoku()
            .arg("verify")
            .arg(puzzles)
            .arg(&out)
            .assert()
            .success();
    }
}

#[test]
fn a_table_with_nulls_and_row_groups_solves_like_the_plain_file() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows_with_holes(1000);
    let ids: Vec<i64> = (0..rows.len() as i64).map(|i| i * 7).collect();
    let f = table(
        dir.path(),
        "t.parquet",
        vec![
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            (
                "puzzle",
                Arc::new(StringArray::from(rows.clone())) as ArrayRef,
            ),
        ],
        300,
    );
    // The same records as a line file: every hole malformed.
    let plain = plain_file(dir.path(), &rows);
    let want = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let out = batchdoku().args(["solve"]).arg(&f).assert().success();
    let got = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(got, want);
    assert_eq!(got.lines().filter(|l| *l == "malformed").count(), 4);
    // Warnings and csv lines give the row index, from 0.
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("t.parquet:3: malformed: null"), "{stderr}");
    assert!(
        stderr.contains("t.parquet:7: malformed: bad character '#'"),
        "{stderr}"
    );
    let csv = stdout_of(batchdoku().args(["solve", "-q", "--format", "csv"]).arg(&f));
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[1].starts_with("0,"), "{}", lines[1]);
    assert!(lines[1000].starts_with("999,"), "{}", lines[1000]);
    assert!(lines[4].starts_with("3,,malformed,"), "{}", lines[4]);
    // rate reads it too, a row per record.
    let rated = stdout_of(batchdoku().args(["rate", "-q"]).arg(&f));
    assert_eq!(rated.lines().count(), 1001);
}

#[test]
fn every_string_type_is_read_as_puzzles() {
    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(200);
    let plain = lines_file(dir.path(), "plain.txt", &p);
    let want = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let refs: Vec<&str> = p.iter().map(String::as_str).collect();
    let bytes: Vec<&[u8]> = refs.iter().map(|s| s.as_bytes()).collect();
    // A categorical column: few distinct values, many rows.
    let keys: Vec<i32> = (0..200).map(|i| i % 50).collect();
    let dict = DictionaryArray::<Int32Type>::try_new(
        keys.clone().into(),
        Arc::new(StringArray::from(refs[..50].to_vec())),
    )
    .unwrap();
    let dict_plain: String = keys
        .iter()
        .map(|&k| format!("{}\n", refs[k as usize]))
        .collect();
    let dict_want = stdout_of(batchdoku().args(["solve", "-q"]).arg(write(
        dir.path(),
        "d.txt",
        dict_plain,
    )));
    let cases: Vec<(&str, ArrayRef, &String)> = vec![
        ("utf8", Arc::new(StringArray::from(refs.clone())), &want),
        (
            "large",
            Arc::new(LargeStringArray::from(refs.clone())),
            &want,
        ),
        ("view", Arc::new(StringViewArray::from(refs.clone())), &want),
        ("binary", Arc::new(BinaryArray::from(bytes.clone())), &want),
        ("dict", Arc::new(dict), &dict_want),
    ];
    for (name, column, want) in cases {
        let f = table(
            dir.path(),
            &format!("{name}.parquet"),
            vec![("sudoku", column)],
            64,
        );
        let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&f));
        assert_eq!(&got, want, "{name}");
    }
}

/// The cells of a puzzle line as digits, 0 for blanks.
fn digits(line: &str) -> Vec<i64> {
    line.bytes()
        .map(|b| if b == b'.' { 0 } else { i64::from(b - b'0') })
        .collect()
}

#[test]
fn lists_of_digits_are_read_as_puzzles() {
    use arrow_array::builder::{Int16Builder, ListBuilder};
    use arrow_array::types::{Int8Type, UInt16Type};
    use arrow_array::{FixedSizeListArray, LargeListArray, ListArray};

    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(40);
    let plain = lines_file(dir.path(), "plain.txt", &p);
    let want = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let cells: Vec<Vec<i64>> = p.iter().map(|l| digits(l)).collect();
    // Then the rows that are not puzzles: a null list, 80 cells, a null
    // cell, a cell of 12, 82 cells.
    let some =
        |c: &[i64]| -> Option<Vec<Option<i64>>> { Some(c.iter().map(|&v| Some(v)).collect()) };
    let mut rows: Vec<Option<Vec<Option<i64>>>> = cells.iter().map(|c| some(c)).collect();
    rows.push(None);
    rows.push(some(&cells[0][..80]));
    let mut hole = some(&cells[0]).unwrap();
    hole[40] = None;
    rows.push(Some(hole));
    let mut twelve = some(&cells[0]).unwrap();
    twelve[80] = Some(12);
    rows.push(Some(twelve));
    rows.push(some(&[cells[0].as_slice(), &[0]].concat()));
    let list8 = ListArray::from_iter_primitive::<Int8Type, _, _>(rows.iter().map(|r| {
        r.as_ref()
            .map(|r| r.iter().map(|v| v.map(|v| v as i8)).collect::<Vec<_>>())
    }));
    let large16 = LargeListArray::from_iter_primitive::<UInt16Type, _, _>(rows.iter().map(|r| {
        r.as_ref()
            .map(|r| r.iter().map(|v| v.map(|v| v as u16)).collect::<Vec<_>>())
    }));
    let fixed = FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
        cells
            .iter()
            .map(|c| Some(c.iter().map(|&v| Some(v as i32)).collect::<Vec<_>>())),
        81,
    );
    // Nine rows of nine, then: a null puzzle, eight rows, a short ninth
    // row, a null ninth row.
    let mut grid = ListBuilder::new(ListBuilder::new(Int16Builder::new()));
    let push_rows = |grid: &mut ListBuilder<ListBuilder<Int16Builder>>, c: &[i64], rows: usize| {
        for r in 0..rows {
            for &v in &c[r * 9..r * 9 + 9] {
                grid.values().values().append_value(v as i16);
            }
            grid.values().append(true);
        }
    };
    for c in &cells {
        push_rows(&mut grid, c, 9);
        grid.append(true);
    }
    grid.append(false);
    push_rows(&mut grid, &cells[0], 8);
    grid.append(true);
    push_rows(&mut grid, &cells[0], 8);
    for &v in &cells[0][72..80] {
        grid.values().values().append_value(v as i16);
    }
    grid.values().append(true);
    grid.append(true);
    push_rows(&mut grid, &cells[0], 8);
    grid.values().append(false);
    grid.append(true);
    let grid = grid.finish();

    for (name, column, extra) in [
        ("list8", Arc::new(list8) as ArrayRef, 5),
        ("large16", Arc::new(large16), 5),
        ("fixed", Arc::new(fixed), 0),
        ("grid", Arc::new(grid), 4),
    ] {
        let f = table(
            dir.path(),
            &format!("{name}.parquet"),
            vec![("cells", column)],
            16,
        );
        let out = stdout_of(
            batchdoku()
                .args(["solve", "-q", "--format", "jsonl"])
                .arg(&f),
        );
        let records: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), 40 + extra, "{name}");
        let solutions: String = records[..40]
            .iter()
            .map(|r| format!("{}\n", r["solution"].as_str().unwrap()))
            .collect();
        assert_eq!(solutions, want, "{name}");
        assert!(
            records[40..].iter().all(|r| r["status"] == "malformed"),
            "{name}"
        );
        if extra > 0 {
            // A null list reads as a null string does.
            assert_eq!(records[40]["puzzle"], "", "{name}");
        }
        if name == "list8" {
            // A cell that is not a digit is named by its column.
            let error = records[43]["error"].as_str().unwrap();
            assert!(error.contains("column 81"), "{error}");
        }
    }
    // A column of anything else is refused, naming it.
    let floats = table(
        dir.path(),
        "floats.parquet",
        vec![("cells", Arc::new(Float64Array::from(vec![1.0])) as ArrayRef)],
        16,
    );
    batchdoku()
        .args(["solve", "-q", "--column", "cells"])
        .arg(&floats)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "\"cells\" holds Float64, not text",
        ));
}

#[test]
fn a_status_column_of_numbers_beside_the_answers_is_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(5);
    let puzzles = lines_file(dir.path(), "p.txt", &p);
    let solved = stdout_of(batchdoku().args(["solve", "-q"]).arg(&puzzles));
    let answers = table(
        dir.path(),
        "answers.parquet",
        vec![
            (
                "status",
                Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5])) as ArrayRef,
            ),
            (
                "solution",
                Arc::new(StringArray::from(solved.lines().collect::<Vec<_>>())),
            ),
        ],
        16,
    );
    batchdoku()
        .args(["verify"])
        .arg(&puzzles)
        .arg(&answers)
        .assert()
        .success()
        .stdout(predicate::str::contains("5 passed, 0 failed"));
}

#[test]
fn the_puzzle_column_is_found_named_or_numbered_and_mistakes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let p: Vec<Option<String>> = sample_lines(20).into_iter().map(Some).collect();
    let other: Vec<Option<String>> = (0..20).map(|i| Some(format!("note {i}"))).collect();
    let two = table(
        dir.path(),
        // No .parquet name: told by its magic bytes.
        "two.data",
        vec![
            ("note", Arc::new(StringArray::from(other)) as ArrayRef),
            ("grid", Arc::new(StringArray::from(p.clone())) as ArrayRef),
            (
                "rating",
                Arc::new(Float64Array::from(vec![1.5; 20])) as ArrayRef,
            ),
        ],
        8,
    );
    batchdoku()
        .args(["solve", "-q"])
        .arg(&two)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "cannot tell which column holds the puzzles",
        ))
        .stderr(predicate::str::contains(
            "note (Utf8), grid (Utf8), rating (Float64)",
        ))
        .stderr(predicate::str::contains("--column"));
    let by_name = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--column", "GRID"])
            .arg(&two),
    );
    let by_number = stdout_of(batchdoku().args(["solve", "-q", "--column", "2"]).arg(&two));
    assert_eq!(by_name, by_number);
    assert_eq!(by_name.lines().filter(|l| l.len() == 81).count(), 20);
    batchdoku()
        .args(["solve", "-q", "--column", "rating"])
        .arg(&two)
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds Float64, not text"));
    batchdoku()
        .args(["solve", "-q", "--column", "nope"])
        .arg(&two)
        .assert()
        .failure()
        .stderr(predicate::str::contains("no column named \"nope\""));
    // A Parquet file cannot come through a pipe: said plainly.
    batchdoku()
        .args(["solve", "-q", "-"])
        .pipe_stdin(&two)
        .unwrap()
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "Parquet cannot be read from a stream",
        ));
    // --input parquet on something else: an error, not garbage records.
    let text = write(
        dir.path(),
        "t.txt",
        format!("{}\n", p[0].as_deref().unwrap()),
    );
    batchdoku()
        .args(["solve", "-q", "--input", "parquet"])
        .arg(&text)
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot read it as Parquet"));
}

#[test]
fn parquet_output_has_typed_columns_and_keeps_the_input_columns() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows_with_holes(500);
    let ids: Vec<i64> = (0..500).map(|i| 1000 + i).collect();
    let f = table(
        dir.path(),
        "in.parquet",
        vec![
            ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
            ("quizzes", Arc::new(StringArray::from(rows)) as ArrayRef),
            (
                "rating",
                Arc::new(Float64Array::from(vec![2.5; 500])) as ArrayRef,
            ),
        ],
        128,
    );
    let out = dir.path().join("out.parquet");
    batchdoku()
        .args([
            "solve",
            "-q",
            "--limit",
            "2",
            "--format",
            "parquet",
            "--keep-columns",
            "-o",
        ])
        .arg(&out)
        .arg(&f)
        .assert()
        .success();
    assert!(!Path::new(&format!("{}.partial", out.display())).exists());
    let (batch, _) = read_table(&out);
    let schema = batch.schema();
    let types: Vec<(&str, &DataType)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    assert_eq!(
        types,
        vec![
            ("line", &DataType::Int64),
            ("puzzle", &DataType::Utf8),
            ("status", &DataType::Utf8),
            ("solutions", &DataType::Int32),
            ("solution", &DataType::Utf8),
            ("guesses", &DataType::Int64),
            ("id", &DataType::Int64),
            ("rating", &DataType::Float64),
        ]
    );
    // The same fields as the csv output, row by row.
    let csv = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--limit", "2", "--format", "csv"])
            .arg(&f),
    );
    let line = batch
        .column_by_name("line")
        .unwrap()
        .as_primitive::<Int64Type>();
    let count = batch
        .column_by_name("solutions")
        .unwrap()
        .as_primitive::<Int32Type>();
    let guesses = batch
        .column_by_name("guesses")
        .unwrap()
        .as_primitive::<Int64Type>();
    let id = batch
        .column_by_name("id")
        .unwrap()
        .as_primitive::<Int64Type>();
    let (puzzle, status, solution) = (
        strings(&batch, "puzzle"),
        strings(&batch, "status"),
        strings(&batch, "solution"),
    );
    for (i, row) in csv.lines().skip(1).enumerate() {
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(line.value(i).to_string(), fields[0], "row {i}");
        assert_eq!(status[i].as_deref(), Some(fields[2]), "row {i}");
        assert_eq!(count.value(i).to_string(), fields[3], "row {i}");
        assert_eq!(solution[i].as_deref().unwrap_or(""), fields[4], "row {i}");
        assert_eq!(guesses.value(i).to_string(), fields[5], "row {i}");
        assert_eq!(id.value(i), ids[i]);
    }
    assert_eq!(batch.num_rows(), 500);
    assert_eq!(puzzle[3], None, "a null puzzle stays null");
    assert_eq!(status[3].as_deref(), Some("malformed"));
    assert_eq!(solution[3], None);

    // From a CSV input, the kept columns are strings.
    let mut text = String::from("id,puzzle,source\n");
    for (i, p) in sample_lines(50).iter().enumerate() {
        text += &format!("{i},{p},\"set, {i}\"\n");
    }
    let csv_in = write(dir.path(), "in.csv", text);
    let out2 = dir.path().join("out2.parquet");
    batchdoku()
        .args(["solve", "-q", "--format", "parquet", "--keep-columns", "-o"])
        .arg(&out2)
        .arg(&csv_in)
        .assert()
        .success();
    let (b2, _) = read_table(&out2);
    assert_eq!(strings(&b2, "id")[7].as_deref(), Some("7"));
    assert_eq!(strings(&b2, "source")[7].as_deref(), Some("set, 7"));
    assert_eq!(
        b2.column_by_name("line")
            .unwrap()
            .as_primitive::<Int64Type>()
            .value(0),
        1
    );
}

#[test]
fn parquet_output_is_written_by_row_groups_and_needs_a_file() {
    let dir = tempfile::tempdir().unwrap();
    // 150,000 records (the sample fifty times): two row groups.
    let sample = std::fs::read_to_string(sample_path()).unwrap();
    let f = write(dir.path(), "big.txt", sample.repeat(50));
    let out = dir.path().join("big.parquet");
    batchdoku()
        .args(["solve", "-q", "--format", "parquet", "-o"])
        .arg(&out)
        .arg(&f)
        .assert()
        .success();
    let (batch, groups) = read_table(&out);
    assert_eq!(batch.num_rows(), 150_000);
    assert!(groups >= 2, "{groups} row groups");
    let lines = batch
        .column_by_name("line")
        .unwrap()
        .as_primitive::<Int64Type>();
    assert!(
        lines.values().windows(2).all(|w| w[0] < w[1]),
        "in input order"
    );
    batchdoku()
        .args(["solve", "--format", "parquet"])
        .arg(&f)
        .assert()
        .failure()
        .stderr(predicate::str::contains("give -o OUT.parquet"));
    batchdoku()
        .args(["solve", "--format", "parquet", "--resume", "-o"])
        .arg(&out)
        .arg(&f)
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--resume cannot continue a parquet output",
        ));
}

#[test]
fn verify_reads_answers_from_tables_and_npy_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(400);
    let plain = lines_file(dir.path(), "plain.txt", &p);
    let solved = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let mut answers: Vec<String> = solved.lines().map(str::to_string).collect();
    // sudoku-extreme as Parquet: question and answer columns.
    let extreme = |name: &str, answers: &[String]| {
        table(
            dir.path(),
            name,
            vec![
                (
                    "question",
                    Arc::new(StringArray::from(p.clone())) as ArrayRef,
                ),
                (
                    "answer",
                    Arc::new(StringArray::from(answers.to_vec())) as ArrayRef,
                ),
            ],
            100,
        )
    };
    let ext = extreme("ext.parquet", &answers);
    batchdoku()
        .arg("verify")
        .arg(&ext)
        .assert()
        .success()
        .stdout(predicate::str::contains("400 passed"));
    // A wrong answer is found by its row.
    answers.swap(10, 11);
    let bad = extreme("bad.parquet", &answers);
    batchdoku()
        .arg("verify")
        .arg(&bad)
        .assert()
        .failure()
        .stdout(
            predicate::str::contains("record 11 (").and(predicate::str::contains("bad.parquet:10")),
        )
        .stdout(predicate::str::contains("2 failed"));
    // Puzzles beside an unnamed column: the answer column must be named.
    let noanswer = table(
        dir.path(),
        "noanswer.parquet",
        vec![
            ("puzzle", Arc::new(StringArray::from(p.clone())) as ArrayRef),
            (
                "result",
                Arc::new(StringArray::from(solved.lines().collect::<Vec<_>>())) as ArrayRef,
            ),
        ],
        100,
    );
    batchdoku()
        .arg("verify")
        .arg(&noanswer)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--answer-column"));
    batchdoku()
        .args(["verify", "--answer-column", "result"])
        .arg(&noanswer)
        .assert()
        .success();
    // solve's Parquet and npy outputs as answers to a line file.
    for format in ["parquet", "npy"] {
        let out = dir.path().join(format!("a.{format}"));
        batchdoku()
            .args(["solve", "-q", "--limit", "2", "--format", format, "-o"])
            .arg(&out)
            .arg(&plain)
            .assert()
            .success();
        batchdoku()
            .args(["verify", "--unique"])
            .arg(&plain)
            .arg(&out)
            .assert()
            .success()
            .stdout(predicate::str::contains("400 passed"));
        // Answers to other puzzles fail.
        let other = write(
            dir.path(),
            "other.txt",
            p.iter().rev().map(|l| format!("{l}\n")).collect::<String>(),
        );
        batchdoku()
            .arg("verify")
            .arg(&other)
            .arg(&out)
            .assert()
            .failure();
    }
    // An npy output with unsolvable rows needs its statuses beside it.
    let mut with_bad = p[..5].join("\n");
    with_bad += &format!("\n11{}\n", ".".repeat(79));
    let f = write(dir.path(), "bad.txt", with_bad);
    let out = dir.path().join("b.npy");
    batchdoku()
        .args(["solve", "-q", "--format", "npy", "-o"])
        .arg(&out)
        .arg(&f)
        .assert()
        .success();
    batchdoku()
        .arg("verify")
        .arg(&f)
        .arg(&out)
        .assert()
        .success();
    std::fs::remove_file(format!("{}.status", out.display())).unwrap();
    batchdoku()
        .arg("verify")
        .arg(&f)
        .arg(&out)
        .assert()
        .failure()
        .stdout(predicate::str::contains("record 6 ("))
        .stdout(predicate::str::contains("1 failed"));
}

#[cfg(unix)]
#[test]
fn verify_reads_claims_from_columns_of_any_case_and_number_type() {
    // A solve output's columns renamed (`Status`, `SOLUTIONS`, any case)
    // and its counts stored as pandas and others store them: float (with a
    // NaN for a missing count), decimal, text, unsigned. Whole counts are
    // counts, a false one fails; a fraction, a negative, a count past 2^63
    // or words are unreadable answers; never a claim ignored.
    use arrow_array::{Decimal128Array, Float32Array, UInt64Array};
    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(40);
    let plain = lines_file(dir.path(), "plain.txt", &p);
    let csv = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--limit", "2", "--format", "csv"])
            .arg(&plain),
    );
    let rows: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(batchdoku::read::answers::split_csv)
        .collect();
    let status: Vec<String> = rows.iter().map(|r| r[2].clone()).collect();
    let counts: Vec<u32> = rows.iter().map(|r| r[3].parse().unwrap()).collect();
    let solution: Vec<String> = rows.iter().map(|r| r[4].clone()).collect();
    assert!(counts.iter().all(|&c| c == 1));
    let answers = |name: &str, names: [&str; 3], status: Vec<String>, count: ArrayRef| {
        table(
            dir.path(),
            name,
            vec![
                (names[0], Arc::new(StringArray::from(status)) as ArrayRef),
                (names[1], count),
                (
                    names[2],
                    Arc::new(StringArray::from(solution.clone())) as ArrayRef,
                ),
            ],
            16,
        )
    };
    let verify = |answers: &Path| {
        let out = batchdoku()
            .arg("verify")
            .arg(&plain)
            .arg(answers)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap())
    };
    // Row 3 (record 4) claims two solutions in every form of the count.
    let false_count: Vec<(&str, ArrayRef)> = vec![
        (
            "int",
            Arc::new(Int64Array::from_iter_values((0..40).map(|i| {
                if i == 3 {
                    2
                } else {
                    1
                }
            }))),
        ),
        (
            "float",
            Arc::new(Float64Array::from_iter((0..40).map(|i| {
                Some(if i == 3 {
                    2.0
                } else if i == 5 {
                    f64::NAN
                } else {
                    1.0
                })
            }))),
        ),
        (
            "float32",
            Arc::new(Float32Array::from_iter_values((0..40).map(|i| {
                if i == 3 {
                    2.0
                } else {
                    1.0
                }
            }))),
        ),
        (
            "decimal",
            Arc::new(
                Decimal128Array::from_iter_values((0..40).map(|i| if i == 3 { 200 } else { 100 }))
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
        ),
        (
            "text",
            Arc::new(StringArray::from_iter_values((0..40).map(|i| {
                if i == 3 {
                    "2"
                } else {
                    "1"
                }
            }))),
        ),
        (
            "unsigned",
            Arc::new(UInt64Array::from_iter_values((0..40).map(|i| {
                if i == 3 {
                    2
                } else {
                    1
                }
            }))),
        ),
    ];
    for names in [
        ["status", "solutions", "solution"],
        ["Status", "Solutions", "SOLUTION"],
        ["STATUS", "solutions", "Solution"],
    ] {
        for (kind, count) in &false_count {
            let f = answers(
                &format!("{kind}-{}.parquet", names[0]),
                names,
                status.clone(),
                count.clone(),
            );
            let (code, out) = verify(&f);
            assert_eq!(code, Some(1), "{kind} {names:?}: {out}");
            assert!(
                out.contains("record 4 (") && out.contains("status unique with 2 solutions"),
                "{kind} {names:?}: {out}"
            );
            assert!(
                out.contains("39 passed, 1 failed"),
                "{kind} {names:?}: {out}"
            );
        }
        // A false status, claimed in a column named in capitals.
        let mut lie = status.clone();
        lie[7] = "multiple".into();
        let ones: ArrayRef = Arc::new(Int64Array::from(vec![None::<i64>; 40]));
        let f = answers(&format!("lie-{}.parquet", names[0]), names, lie, ones);
        let (code, out) = verify(&f);
        assert_eq!(code, Some(1), "{names:?}: {out}");
        assert!(
            out.contains("record 8 (") && out.contains("claimed multiple"),
            "{out}"
        );
    }
    // Counts that are not whole non-negative numbers are unreadable.
    let unreadable: Vec<(&str, ArrayRef, &str)> = vec![
        (
            "fraction",
            Arc::new(Float64Array::from_iter_values((0..40).map(|i| {
                if i == 9 {
                    1.5
                } else {
                    1.0
                }
            }))),
            "\"1.5\"",
        ),
        (
            "negative",
            Arc::new(Int64Array::from_iter_values((0..40).map(|i| {
                if i == 9 {
                    -1
                } else {
                    1
                }
            }))),
            "-1",
        ),
        (
            "huge",
            Arc::new(UInt64Array::from_iter_values((0..40).map(|i| {
                if i == 9 {
                    (1 << 63) + 5
                } else {
                    1
                }
            }))),
            "9223372036854775813",
        ),
        (
            "words",
            Arc::new(StringArray::from_iter_values((0..40).map(|i| {
                if i == 9 {
                    "one"
                } else {
                    "1"
                }
            }))),
            "\"one\"",
        ),
        (
            "cents",
            Arc::new(
                Decimal128Array::from_iter_values((0..40).map(|i| if i == 9 { 150 } else { 100 }))
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            "\"1.50\"",
        ),
    ];
    for (kind, count, shown) in unreadable {
        let f = answers(
            &format!("{kind}.parquet"),
            ["status", "solutions", "solution"],
            status.clone(),
            count,
        );
        let (code, out) = verify(&f);
        assert_eq!(code, Some(1), "{kind}: {out}");
        assert!(
            out.contains(&format!("record 10 ({}", plain.display())),
            "{kind}: {out}"
        );
        assert!(
            out.contains(&format!("not a non-negative integer: {shown}")),
            "{kind}: {out}"
        );
        assert!(out.contains("39 passed, 1 failed"), "{kind}: {out}");
    }
}

#[test]
fn a_run_over_a_table_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let rows = rows_with_holes(3000);
    let f = table(
        dir.path(),
        "t.parquet",
        vec![("puzzle", Arc::new(StringArray::from(rows)) as ArrayRef)],
        700,
    );
    // Cut inside the third row group: 1,600 records and part of the next.
    common::resume_round_trip("solve", &f, dir.path(), 3000, 1600, 10);
}

/// Standard base64 with padding, both ways: the footer's `ARROW:schema`
/// is stored so.
const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_decode(text: &str) -> Vec<u8> {
    let (mut out, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        acc = acc << 6 | BASE64.iter().position(|&x| x == c).unwrap() as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut text = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &x)| n | u32::from(x) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            text.push(char::from(BASE64[(n >> (18 - 6 * i) & 63) as usize]));
        }
        for _ in chunk.len()..3 {
            text.push('=');
        }
    }
    text
}

#[test]
fn a_damaged_arrow_schema_in_the_footer_does_not_stop_the_table_being_read() {
    use arrow_schema::{Field, Schema};
    use parquet::arrow::arrow_writer::ArrowWriterOptions;
    use parquet::file::metadata::KeyValue;

    let dir = tempfile::tempdir().unwrap();
    let rows = sample_lines(50);
    let plain = write(dir.path(), "plain.txt", rows.join("\n") + "\n");
    let want = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    // The Arrow schema of a string column with its type tag (the one byte
    // where a binary column's differs) set to a type no Arrow has: the
    // arrow-ipc crate panics on it rather than return an error.
    let encoded = |t: DataType| {
        base64_decode(&parquet::arrow::encode_arrow_schema(&Schema::new(vec![
            Field::new("puzzle", t, true),
        ])))
    };
    let (text, binary) = (encoded(DataType::Utf8), encoded(DataType::Binary));
    assert_eq!(text.len(), binary.len());
    let tag: Vec<usize> = (0..text.len()).filter(|&i| text[i] != binary[i]).collect();
    assert_eq!(tag.len(), 1);
    let mut unknown_type = text.clone();
    unknown_type[tag[0]] = 63;
    assert_eq!(base64_decode(&base64_encode(&unknown_type)), unknown_type);
    for (what, stored) in [
        ("unknown type", base64_encode(&unknown_type)),
        (
            "not a flatbuffer",
            base64_encode(b"no schema here, just bytes"),
        ),
    ] {
        let batch = RecordBatch::try_from_iter([(
            "puzzle",
            Arc::new(StringArray::from(rows.clone())) as ArrayRef,
        )])
        .unwrap();
        let props = WriterProperties::builder()
            .set_key_value_metadata(Some(vec![KeyValue::new(
                "ARROW:schema".to_string(),
                stored,
            )]))
            .build();
        let options = ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(true);
        let path = dir.path().join("damaged.parquet");
        let mut w = ArrowWriter::try_new_with_options(
            std::fs::File::create(&path).unwrap(),
            batch.schema(),
            options,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        // Read by its Parquet schema: the same answers as the plain file.
        let got = stdout_of(batchdoku().args(["solve", "-q"]).arg(&path));
        assert_eq!(got, want, "{what}");
        let answers = write(dir.path(), "answers.txt", got);
        let checked = stdout_of(batchdoku().args(["verify"]).arg(&path).arg(&answers));
        assert!(checked.contains("50 passed, 0 failed"), "{what}: {checked}");
    }
}

#[test]
fn a_spark_output_folder_is_read_as_its_part_files_in_order() {
    // What Spark's df.write.parquet leaves: part files (named so that name
    // order is row order), _SUCCESS, checksums, and here a Hive-style
    // subfolder holding a text file; all read as the plain file they split.
    let dir = tempfile::tempdir().unwrap();
    let lines = sample_lines(30);
    let folder = dir.path().join("solved.parquet");
    std::fs::create_dir_all(folder.join("zone=9")).unwrap();
    let part = |name: &str, rows: &[String]| {
        let column = Arc::new(StringArray::from(rows.to_vec())) as ArrayRef;
        table(&folder, name, vec![("puzzle", column)], 7);
    };
    part("part-00001-c000.snappy.parquet", &lines[10..20]);
    part("part-00000-c000.snappy.parquet", &lines[..10]);
    write(&folder, "_SUCCESS", "");
    write(
        &folder,
        ".part-00000-c000.snappy.parquet.crc",
        "not a table",
    );
    write(&folder, "_committed_42", "{}");
    lines_file(&folder.join("zone=9"), "part-00000.txt", &lines[20..]);
    let plain = lines_file(dir.path(), "plain.txt", &lines);
    let want = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    assert_eq!(want.lines().count(), 30);
    assert_eq!(
        stdout_of(batchdoku().args(["solve", "-q"]).arg(&folder)),
        want
    );
    let rated = stdout_of(
        batchdoku()
            .args(["rate", "-q", "--format", "csv"])
            .arg(&folder),
    );
    let files: Vec<&str> = rated
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(files.len(), 30);
    assert!(
        files[0].ends_with("part-00000-c000.snappy.parquet"),
        "{}",
        files[0]
    );
    assert!(
        files[29].ends_with("zone=9/part-00000.txt"),
        "{}",
        files[29]
    );

    // Partition subfolders that are links (to folders elsewhere, as a
    // dataset assembled from several places is) are followed in name
    // order; a link back up is refused, naming it, never skipped.
    let linked = dir.path().join("linked");
    std::fs::create_dir(&linked).unwrap();
    for (k, rows) in [(1, &lines[..12]), (2, &lines[12..20]), (3, &lines[20..])] {
        let elsewhere = dir.path().join(format!("store{k}"));
        std::fs::create_dir(&elsewhere).unwrap();
        lines_file(&elsewhere, "part-00000.txt", rows);
        if k == 2 {
            // A real folder between two links.
            std::fs::rename(&elsewhere, linked.join("zone=2")).unwrap();
        } else {
            std::os::unix::fs::symlink(&elsewhere, linked.join(format!("zone={k}"))).unwrap();
        }
    }
    for command in ["solve", "canon"] {
        assert_eq!(
            stdout_of(batchdoku().args([command, "-q"]).arg(&linked)),
            stdout_of(batchdoku().args([command, "-q"]).arg(&plain)),
            "{command}"
        );
    }
    std::os::unix::fs::symlink("..", linked.join("zone=2").join("up")).unwrap();
    batchdoku()
        .args(["solve", "-q"])
        .arg(&linked)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "zone=2/up leads back to a folder it is in",
        ));

    // A Delta table's folder holds replaced files too: refused, not misread.
    std::fs::create_dir(folder.join("_delta_log")).unwrap();
    batchdoku()
        .args(["solve", "-q"])
        .arg(&folder)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("is a Delta table"));
    // A folder with nothing but markers is more likely a wrong name.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    write(&empty, "_SUCCESS", "");
    batchdoku()
        .args(["solve", "-q"])
        .arg(&empty)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no data files"));
}

#[test]
fn verify_reads_folders_of_part_files_as_one_input() {
    // Spark writes a table as part files, some of them empty; the parts of
    // puzzles and of answers need not split the rows at the same places.
    let dir = tempfile::tempdir().unwrap();
    let lines = sample_lines(30);
    let plain = lines_file(dir.path(), "plain.txt", &lines);
    let solved = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain));
    let mut answers: Vec<String> = solved.lines().map(String::from).collect();
    assert_eq!(answers.len(), 30);
    let columns = |from: usize, to: usize, answers: &[String]| {
        vec![
            (
                "puzzle",
                Arc::new(StringArray::from(lines[from..to].to_vec())) as ArrayRef,
            ),
            (
                "solution",
                Arc::new(StringArray::from(answers[from..to].to_vec())) as ArrayRef,
            ),
        ]
    };
    let tables = dir.path().join("checked.parquet");
    std::fs::create_dir(&tables).unwrap();
    let parts = |answers: &[String]| {
        table(&tables, "part-00000.parquet", columns(0, 12, answers), 5);
        table(&tables, "part-00001.parquet", columns(12, 12, answers), 5);
        table(&tables, "part-00002.parquet", columns(12, 30, answers), 5);
        write(&tables, "_SUCCESS", "");
    };
    parts(&answers);
    batchdoku()
        .args(["verify"])
        .arg(&tables)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "30 records checked: 30 passed, 0 failed",
        ));

    // A wrong answer is named by its part file and row there.
    answers[20] = answers[21].clone();
    parts(&answers);
    let report = batchdoku()
        .args(["verify", "--format", "json"])
        .arg(&tables)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&report).unwrap();
    assert_eq!(report["records"], 30);
    assert_eq!(report["failed"], 1);
    let failure = &report["failures"][0];
    assert_eq!(failure["record"], 21);
    let third = tables.join("part-00002.parquet").display().to_string();
    assert_eq!(failure["puzzle_file"], third.as_str());
    assert_eq!(failure["answer_file"], third.as_str());
    // (a table's records are numbered by row index, from 0)
    assert_eq!(failure["puzzle_line"], 8, "{failure}");

    // Puzzles in line parts against answers in parts cut elsewhere.
    let (puzzle_parts, answer_parts) = (dir.path().join("p"), dir.path().join("a"));
    std::fs::create_dir(&puzzle_parts).unwrap();
    std::fs::create_dir(&answer_parts).unwrap();
    lines_file(&puzzle_parts, "part-00000", &lines[..7]);
    lines_file(&puzzle_parts, "part-00001", &lines[7..]);
    let right: Vec<String> = solved.lines().map(String::from).collect();
    lines_file(&answer_parts, "part-00000", &right[..19]);
    write(&answer_parts, "part-00001", "");
    lines_file(&answer_parts, "part-00002", &right[19..]);
    batchdoku()
        .args(["verify"])
        .arg(&puzzle_parts)
        .arg(&answer_parts)
        .assert()
        .success()
        .stdout(predicate::str::contains("30 passed, 0 failed"));
    let wrong = dir.path().join("wrong");
    std::fs::create_dir(&wrong).unwrap();
    lines_file(&wrong, "part-00000", &right[..19]);
    lines_file(&wrong, "part-00001", &right[18..28]);
    let second = wrong.join("part-00001").display().to_string();
    batchdoku()
        .args(["verify"])
        .arg(&puzzle_parts)
        .arg(&wrong)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "record 20 ({}:13, {second}:1)",
            puzzle_parts.join("part-00001").display()
        )))
        .stdout(predicate::str::contains(format!(
            "{} ran out after 29 records",
            wrong.display()
        )));

    // Answers carried in the puzzles' parts: every part a table, or none.
    lines_file(&tables, "part-00003.txt", &lines[..1]);
    batchdoku()
        .args(["verify"])
        .arg(&tables)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not a Parquet table"));
}

#[test]
fn a_full_disk_leaves_outputs_that_say_what_they_hold() {
    // Outputs to a 2 MiB tmpfs (common::run_on_small_disk) of about 3 MB
    // of results. npy: the array and its statuses cut to the rows both
    // hold, the header saying that many, the message the same count;
    // Parquet: no footer could be written, and the message says the file
    // cannot be read (it said "a complete file of N records"); csv: the
    // records counted in the file, resumable.
    let dir = tempfile::tempdir().unwrap();
    let p: Vec<String> = sample_lines(3000)
        .into_iter()
        .cycle()
        .take(60_000)
        .collect();
    let plain = lines_file(dir.path(), "plain.txt", &p);
    let solved: Vec<String> = stdout_of(batchdoku().args(["solve", "-q"]).arg(&plain))
        .lines()
        .map(str::to_string)
        .collect();
    let small = dir.path().join("small");
    std::fs::create_dir(&small).unwrap();
    for format in ["npy", "parquet", "csv"] {
        let out = small.join(format!("out.{format}"));
        let partial = small.join(format!("out.{format}.partial"));
        // Runs, then copies what it left out of the namespace's tmpfs.
        let script = format!(
            r#""$0" solve -q --format {format} -o "$1" "$2"; code=$?; cp "$1"* "$3"/; exit $code"#
        );
        let kept = dir.path().join(format!("kept-{format}"));
        std::fs::create_dir(&kept).unwrap();
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", &script])
            .arg(assert_cmd::cargo::cargo_bin("batchdoku"))
            .arg(&out)
            .arg(&plain)
            .arg(&kept);
        // (Parquet's dictionaries make the cycled sample small.)
        let size = if format == "parquet" { "200k" } else { "2m" };
        let Some(run) = common::run_on_small_disk(&small, size, &mut cmd) else {
            return;
        };
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{format}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{format}: {stderr}"
        );
        let partial_name = partial.display().to_string();
        let kept_file = kept.join(partial.file_name().unwrap());
        match format {
            "npy" => {
                let bytes = std::fs::read(&kept_file).unwrap();
                let header = batchdoku::read::npy::parse_header(&bytes).unwrap();
                let rows = header.rows as usize;
                assert!(rows > 1000 && rows < 60_000, "{rows}");
                assert_eq!(bytes.len(), header.data_offset + rows * 81);
                for (i, row) in bytes[header.data_offset..].chunks(81).enumerate() {
                    let text: String = row.iter().map(|&d| char::from(b'0' + d)).collect();
                    assert_eq!(text, solved[i], "row {i}");
                }
                let words = std::fs::read_to_string(kept.join("out.npy.status.partial")).unwrap();
                assert_eq!(words.lines().count(), rows);
                assert!(
                    words.lines().all(|w| w == "unique" || w == "solved"),
                    "{words:.100}"
                );
                assert!(
                    stderr.contains(&format!(
                        "{partial_name} holds the first {rows} records as a complete file"
                    )),
                    "{stderr}"
                );
            }
            "parquet" => {
                assert!(
                    ParquetRecordBatchReaderBuilder::try_new(
                        std::fs::File::open(&kept_file).unwrap()
                    )
                    .is_err(),
                    "no footer"
                );
                assert!(
                    stderr.contains(&format!(
                        "{partial_name} is incomplete and cannot be read as a Parquet table"
                    )),
                    "{stderr}"
                );
                assert!(!stderr.contains("as a complete file"), "{stderr}");
            }
            _ => {
                let text = std::fs::read_to_string(&kept_file).unwrap();
                let whole = text.rfind('\n').map_or(0, |p| p + 1);
                let records = text[..whole].lines().count() - 1;
                assert!(
                    stderr.contains(&format!("{partial_name} holds the first {records} records; run the same command with --resume")),
                    "{stderr}"
                );
            }
        }
    }
}

#[test]
fn kept_columns_get_names_of_their_own() {
    // Input columns named alike (`id` twice, `ID`), or like the output's
    // own (`solution`), keep their data under names a table can hold:
    // pyarrow refuses a Parquet file with two `id` columns, Spark reads
    // names without case.
    let dir = tempfile::tempdir().unwrap();
    let p = sample_lines(4);
    let mut csv = String::from("id,puzzle,solution,id,ID,id_2\n");
    for (i, puzzle) in p.iter().enumerate() {
        csv += &format!("{i},{puzzle},s{i},a{i},b{i},c{i}\n");
    }
    let f = write(dir.path(), "dup.csv", &csv);
    let want = ["id", "input_solution", "id_2", "ID_3", "id_2_2"];
    let out = stdout_of(
        batchdoku()
            .args(["solve", "-q", "--format", "csv", "--keep-columns"])
            .arg(&f),
    );
    let header: Vec<&str> = out.lines().next().unwrap().split(',').collect();
    assert_eq!(header[6..], want);
    assert!(
        out.lines().nth(1).unwrap().ends_with(",0,s0,a0,b0,c0"),
        "{out}"
    );
    let parquet = dir.path().join("dup.parquet");
    batchdoku()
        .args(["solve", "-q", "--format", "parquet", "--keep-columns", "-o"])
        .arg(&parquet)
        .arg(&f)
        .assert()
        .success();
    let (batch, _) = read_table(&parquet);
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names[6..], want);
    assert_eq!(strings(&batch, "ID_3")[2].as_deref(), Some("b2"));
    // A table's own columns alike.
    let t = table(
        dir.path(),
        "dup_in.parquet",
        vec![
            (
                "Id",
                Arc::new(Int64Array::from(vec![1, 2, 3, 4])) as ArrayRef,
            ),
            ("puzzle", Arc::new(StringArray::from(p.clone())) as ArrayRef),
            (
                "id",
                Arc::new(StringArray::from(vec!["w", "x", "y", "z"])) as ArrayRef,
            ),
        ],
        10,
    );
    let out2 = dir.path().join("dup_out.parquet");
    batchdoku()
        .args(["solve", "-q", "--format", "parquet", "--keep-columns", "-o"])
        .arg(&out2)
        .arg(&t)
        .assert()
        .success();
    let (batch, _) = read_table(&out2);
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names[6..], ["Id", "id_2"]);
    assert_eq!(strings(&batch, "id_2")[3].as_deref(), Some("z"));
}
