//! Writing results: what one output record says ([`RecordResult`]), the
//! forms it is written in ([`OutputFormat`]: line, csv, jsonl, and the
//! record forms npy and Parquet outputs are assembled from), headers, and
//! the columns `--keep-columns` carries. [`npy`] and [`parquet`] make
//! those two files.

pub mod npy;
pub mod output;
pub mod parquet;

use crate::puzzle::grid::{Conflict, Grid, ParseError};
use crate::puzzle::Status;
use crate::read::ParsedRecord;
use std::io::Write;

/// Why a record got no solution: the parse error or the broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Parse(ParseError),
    Rule(Conflict),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Parse(e) => e.fmt(f),
            Problem::Rule(c) => c.fmt(f),
        }
    }
}

/// What solving one record found (the record itself stays in its
/// [`ParsedRecord`], so nothing 81 bytes long is copied for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordResult {
    pub status: Status,
    /// Solutions counted, up to the limit.
    pub solutions: u32,
    /// The first solution found.
    pub solution: Option<Grid>,
    pub guesses: u64,
    /// Set for `Malformed` and `Invalid`.
    pub problem: Option<Problem>,
}

/// How results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    /// The 81-digit solution or a status word, one line per record.
    #[default]
    Line,
    /// `line,puzzle,status,solutions,solution,guesses` rows under a header
    /// (with a leading `file` column when there are several inputs).
    Csv,
    /// One JSON object per record with the CSV's fields.
    Jsonl,
    /// A NumPy array of the solutions, (N, 81) uint8, 0 rows where there is
    /// none, with the statuses beside it. Each record is written as
    /// [`NPY_RECORD`] bytes, the 81 cells then the status's index in
    /// [`Status::ALL`], which the writer splits between the two files.
    Npy,
    /// A Parquet table of the csv fields as typed columns. Each record is
    /// written in the form of [`crate::write::parquet::push_result`], and workers
    /// turn their chunk into a record batch with
    /// [`crate::write::parquet::results_batch`].
    Parquet,
}

/// Bytes per record in [`OutputFormat::Npy`] chunk output.
pub const NPY_RECORD: usize = 82;

impl OutputFormat {
    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Line => "line",
            OutputFormat::Csv => "csv",
            OutputFormat::Jsonl => "jsonl",
            OutputFormat::Npy => "npy",
            OutputFormat::Parquet => "parquet",
        }
    }
}

impl std::fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for OutputFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "line" => Ok(OutputFormat::Line),
            "csv" => Ok(OutputFormat::Csv),
            "jsonl" => Ok(OutputFormat::Jsonl),
            "npy" => Ok(OutputFormat::Npy),
            "parquet" => Ok(OutputFormat::Parquet),
            _ => Err(format!(
                "unknown format {s:?} (expected line, csv, jsonl, npy or parquet)"
            )),
        }
    }
}

/// Writes the CSV header (the other formats have none).
pub fn write_header(format: OutputFormat, with_file: bool, out: &mut Vec<u8>) {
    write_header_kept(format, with_file, &[], out);
}

/// Writes the CSV header with the names of kept input columns after the
/// output's own.
pub fn write_header_kept(
    format: OutputFormat,
    with_file: bool,
    kept: &[String],
    out: &mut Vec<u8>,
) {
    if format == OutputFormat::Csv {
        if with_file {
            out.extend_from_slice(b"file,");
        }
        out.extend_from_slice(b"line,puzzle,status,solutions,solution,guesses");
        for name in kept {
            out.push(b',');
            csv_field(one_line(name.as_bytes(), None).as_bytes(), out);
        }
        out.push(b'\n');
    }
}

/// Appends `field` as one CSV field, quoted when it holds a comma, quote or
/// line break. Bytes that are not UTF-8 become U+FFFD.
pub fn csv_field(field: &[u8], out: &mut Vec<u8>) {
    let text = String::from_utf8_lossy(field);
    if text.contains([',', '"', '\n', '\r']) {
        out.push(b'"');
        out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(text.as_bytes());
    }
}

/// The most of a malformed record's text that csv and jsonl outputs carry:
/// enough to find and recognise it, a pencilmark line with a typo whole
/// (a megabyte of garbage is not a field).
pub const RAW_SHOWN: usize = 800;

/// `text` on one line: `\\`, `\n`, `\r`, `\t` and `\xNN` for the other
/// control characters, so no output record spans lines (`--resume` and
/// line-oriented tools count records by lines). With `limit`, at most that
/// many bytes of `text` are shown, then `[...N more bytes]`.
pub fn one_line(text: &[u8], limit: Option<usize>) -> String {
    let shown = match limit {
        Some(n) if text.len() > n => &text[..n],
        _ => text,
    };
    let mut out = String::with_capacity(shown.len() + 16);
    for c in String::from_utf8_lossy(shown).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    if shown.len() < text.len() {
        out.push_str(&format!("[...{} more bytes]", text.len() - shown.len()));
    }
    out
}

/// The puzzle as written in csv/jsonl: its line form when it parsed, else
/// the record's own text on one line, cut to [`RAW_SHOWN`] bytes.
pub(crate) fn puzzle_text(rec: &ParsedRecord<'_>, out: &mut Vec<u8>) {
    match &rec.puzzle {
        Ok(p) => p.write_text(out),
        Err(_) => out.extend_from_slice(one_line(rec.raw, Some(RAW_SHOWN)).as_bytes()),
    }
}

/// Writes the result `r` of the record `rec`. `file` is the input's name
/// when the output covers several inputs.
pub fn write_record(
    format: OutputFormat,
    file: Option<&str>,
    rec: &ParsedRecord<'_>,
    r: &RecordResult,
    out: &mut Vec<u8>,
) {
    let line = rec.line;
    match format {
        OutputFormat::Parquet => {
            let mut text = Vec::new();
            let puzzle = match rec.puzzle {
                Err(ParseError::Null) => None,
                _ => {
                    puzzle_text(rec, &mut text);
                    Some(&text[..])
                }
            };
            crate::write::parquet::push_result(
                line,
                r.status.code(),
                r.solutions,
                r.guesses,
                r.solution.as_ref().map(|s| s.cells()),
                puzzle,
                out,
            );
            return;
        }
        OutputFormat::Npy => {
            match &r.solution {
                Some(s) => out.extend_from_slice(s.cells()),
                None => out.extend_from_slice(&[0; 81]),
            }
            out.push(r.status.code());
            return;
        }
        OutputFormat::Line => match &r.solution {
            Some(s) => s.push_digits(out),
            None => out.extend_from_slice(r.status.word().as_bytes()),
        },
        OutputFormat::Csv => {
            if let Some(f) = file {
                csv_field(one_line(f.as_bytes(), None).as_bytes(), out);
                out.push(b',');
            }
            let _ = write!(out, "{line},");
            let mut text = Vec::new();
            puzzle_text(rec, &mut text);
            csv_field(&text, out);
            let _ = write!(out, ",{},{},", r.status.word(), r.solutions);
            if let Some(s) = &r.solution {
                s.push_digits(out);
            }
            let _ = write!(out, ",{}", r.guesses);
        }
        OutputFormat::Jsonl => {
            out.push(b'{');
            if let Some(f) = file {
                out.extend_from_slice(b"\"file\":");
                json_string(f, out);
                out.push(b',');
            }
            let _ = write!(out, "\"line\":{line},\"puzzle\":");
            let mut text = Vec::new();
            puzzle_text(rec, &mut text);
            json_string(&String::from_utf8_lossy(&text), out);
            let _ = write!(
                out,
                ",\"status\":\"{}\",\"solutions\":{},\"solution\":",
                r.status.word(),
                r.solutions
            );
            match &r.solution {
                Some(s) => {
                    out.push(b'"');
                    s.push_digits(out);
                    out.push(b'"');
                }
                None => out.extend_from_slice(b"null"),
            }
            let _ = write!(out, ",\"guesses\":{}", r.guesses);
            if let Some(p) = &r.problem {
                out.extend_from_slice(b",\"error\":");
                json_string(&p.to_string(), out);
            }
            out.push(b'}');
        }
    }
    out.push(b'\n');
}

pub(crate) fn json_string(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
}

/// The input columns a csv output carries after its own (`--keep-columns`):
/// every column of a CSV input but the puzzle's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepColumns {
    /// The puzzle's column (from 0), not repeated.
    pub puzzle: usize,
    /// Columns in the input's header (records with fewer get empty fields,
    /// extra fields are dropped).
    pub count: usize,
}

/// The output's own column names (csv, jsonl, parquet).
pub const OWN_COLUMNS: [&str; 7] = [
    "file",
    "line",
    "puzzle",
    "status",
    "solutions",
    "solution",
    "guesses",
];

/// The name a kept input column goes by: its own, with `input_` before one
/// that would clash with the output's own columns.
pub fn kept_name(name: &str) -> String {
    if OWN_COLUMNS.contains(&name.to_ascii_lowercase().as_str()) {
        format!("input_{name}")
    } else {
        name.to_string()
    }
}

/// The names kept input columns go by ([`kept_name`]), each unique, as
/// tables need them (pyarrow cannot read a Parquet file with two `id`
/// columns, and Spark tells names apart without case): a name met before,
/// ignoring case, gets `_2`, `_3`, ... after it.
pub fn unique_kept_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> =
        OWN_COLUMNS.iter().map(|n| n.to_string()).collect();
    names
        .into_iter()
        .map(|name| {
            let base = kept_name(name);
            let mut name = base.clone();
            let mut k = 1;
            while !taken.insert(name.to_lowercase()) {
                k += 1;
                name = format!("{base}_{k}");
            }
            name
        })
        .collect()
}

/// The names the kept columns go by in the output header (see
/// [`unique_kept_names`]).
pub fn kept_names(header: &[String], keep: KeepColumns) -> Vec<String> {
    let names: Vec<String> = (0..keep.count)
        .filter(|&i| i != keep.puzzle)
        .map(|i| match header.get(i) {
            Some(name) => name.clone(),
            None => format!("column_{}", i + 1),
        })
        .collect();
    unique_kept_names(names.iter().map(String::as_str))
}

/// Appends the kept columns of CSV record `raw`, each as a CSV field after
/// a comma.
pub(crate) fn append_kept(raw: &[u8], keep: KeepColumns, out: &mut Vec<u8>) {
    let fields = crate::read::csv_fields(raw);
    for i in (0..keep.count).filter(|&i| i != keep.puzzle) {
        out.push(b',');
        if let Some(f) = fields.get(i) {
            csv_field(one_line(f, None).as_bytes(), out);
        }
    }
}
