//! Parquet outputs: each result as a worker packs it ([`push_result`]),
//! and chunk output of those turned into a [`RecordBatch`] with the csv
//! output's fields as typed columns, for `parquet`'s `ArrowWriter`.

use crate::puzzle::Status;
use crate::read::parquet::TableError;
use crate::read::{packed_row, push_row};
use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// Bytes of one result in [`crate::write::OutputFormat::Parquet`] chunk
/// output before its text fields: line (u64), status index (u8),
/// solutions (u32), guesses (u64), then the 81 solution cells (zeros when
/// there is none).
const FIXED: usize = 8 + 1 + 4 + 8 + 81;

/// One result as a worker writes it for a Parquet output: the fixed
/// fields, then the puzzle's text and each kept field as packed rows (a
/// `u32` length and the bytes, `u32::MAX` for none).
#[allow(clippy::too_many_arguments)]
pub fn push_result(
    line: u64,
    status: u8,
    solutions: u32,
    guesses: u64,
    solution: Option<&[u8; 81]>,
    puzzle: Option<&[u8]>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(&line.to_le_bytes());
    out.push(status);
    out.extend_from_slice(&solutions.to_le_bytes());
    out.extend_from_slice(&guesses.to_le_bytes());
    out.extend_from_slice(solution.unwrap_or(&[0; 81]));
    push_row(puzzle, out);
}

/// The schema of a Parquet output: `file` when there are several inputs,
/// `line`, `puzzle`, `status`, `solutions`, `solution`, `guesses`, then the
/// kept columns.
pub fn results_schema(with_file: bool, kept: &[Field]) -> SchemaRef {
    let mut fields = Vec::new();
    if with_file {
        fields.push(Field::new("file", DataType::Utf8, false));
    }
    fields.extend([
        Field::new("line", DataType::Int64, false),
        Field::new("puzzle", DataType::Utf8, true),
        Field::new("status", DataType::Utf8, false),
        Field::new("solutions", DataType::Int32, false),
        Field::new("solution", DataType::Utf8, true),
        Field::new("guesses", DataType::Int64, false),
    ]);
    fields.extend(kept.iter().cloned());
    Arc::new(Schema::new(fields))
}

/// Turns chunk output of [`push_result`] records (each followed by
/// `kept_text` text fields) into a batch of `schema`. `file` fills the
/// `file` column when the schema has one; `others` (columns kept from a
/// table input, one row per input record) is cut to the records written.
pub fn results_batch(
    records: &[u8],
    file: Option<&str>,
    kept_text: usize,
    others: Option<&RecordBatch>,
    schema: &SchemaRef,
) -> Result<RecordBatch, TableError> {
    let mut line = Vec::new();
    let mut status = Vec::new();
    let mut solutions = Vec::new();
    let mut guesses = Vec::new();
    let mut solution: Vec<Option<String>> = Vec::new();
    let mut puzzle: Vec<Option<String>> = Vec::new();
    let mut kept: Vec<Vec<Option<String>>> = vec![Vec::new(); kept_text];
    let mut pos = 0;
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    while pos + FIXED <= records.len() {
        let r = &records[pos..];
        line.push(i64::from_le_bytes(r[0..8].try_into().expect("8 bytes")));
        status.push(Status::from_code(r[8]).map_or("malformed", Status::word));
        solutions.push(u32::from_le_bytes(r[9..13].try_into().expect("4 bytes")) as i32);
        guesses.push(i64::from_le_bytes(r[13..21].try_into().expect("8 bytes")));
        let cells = &r[21..FIXED];
        solution
            .push((cells[0] != 0).then(|| cells.iter().map(|&d| char::from(b'0' + d)).collect()));
        pos += FIXED;
        let mut field = || {
            let (value, len) = packed_row(&records[pos..]);
            pos += len;
            value.map(text)
        };
        puzzle.push(field());
        for column in kept.iter_mut() {
            column.push(field());
        }
    }
    let n = line.len();
    let mut columns: Vec<ArrayRef> = Vec::new();
    if schema.fields().first().is_some_and(|f| f.name() == "file") {
        columns.push(Arc::new(StringArray::from(vec![file.unwrap_or(""); n])));
    }
    columns.push(Arc::new(Int64Array::from(line)));
    columns.push(Arc::new(StringArray::from(puzzle)));
    columns.push(Arc::new(StringArray::from(status)));
    columns.push(Arc::new(Int32Array::from(solutions)));
    columns.push(Arc::new(StringArray::from(solution)));
    columns.push(Arc::new(Int64Array::from(guesses)));
    for column in kept {
        columns.push(Arc::new(StringArray::from(column)));
    }
    if let Some(others) = others {
        let others = others.slice(0, n.min(others.num_rows()));
        columns.extend(others.columns().iter().cloned());
    }
    Ok(RecordBatch::try_new(Arc::clone(schema), columns)?)
}
