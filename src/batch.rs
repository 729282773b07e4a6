//! Solving records in bulk: the unit of work of the parallel `solve` command.
//!
//! [`solve_puzzle`] turns one parsed record into a [`RecordResult`];
//! [`write_record`] writes it in an [`OutputFormat`]; [`solve_chunk`] does a
//! whole [`Chunk`] of input into an output buffer, one output record per
//! input record, and counts what it saw in [`Stats`].

use crate::puzzle::grid::{Conflict, Grid, ParseError};
use crate::puzzle::{Puzzle, Status};
use crate::read::{records, Chunk, ParsedRecord};
use crate::solver::Solver;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Checks and solves one parsed record with `solver`, counting up to
/// `limit` solutions.
pub fn solve_puzzle(
    solver: &mut dyn Solver,
    parsed: &Result<Puzzle, ParseError>,
    limit: u32,
) -> RecordResult {
    let puzzle = match parsed {
        Ok(p) => p,
        Err(e) => {
            return RecordResult {
                status: Status::Malformed,
                solutions: 0,
                solution: None,
                guesses: 0,
                problem: Some(Problem::Parse(e.clone())),
            }
        }
    };
    let limit = limit.max(1);
    let outcome = puzzle.solve(solver, limit);
    // Every solver finds no solution for givens (or cells pinned) that
    // break a rule, so the rule check only runs to tell `invalid` from
    // `unsolvable`.
    if outcome.solutions == 0 {
        if let Err(conflict) = puzzle.validate() {
            return RecordResult {
                status: Status::Invalid,
                solutions: 0,
                solution: None,
                guesses: 0,
                problem: Some(Problem::Rule(conflict)),
            };
        }
    }
    let status = match (outcome.solutions, limit) {
        (0, _) => Status::Unsolvable,
        (_, 1) => Status::Solved,
        (1, _) => Status::Unique,
        _ => Status::Multiple,
    };
    RecordResult {
        status,
        solutions: outcome.solutions,
        solution: outcome.solution,
        guesses: outcome.guesses,
        problem: None,
    }
}

/// Parses, checks and solves one line-form record (81 cells or 729
/// characters of pencilmarks).
pub fn solve_record(solver: &mut dyn Solver, text: &[u8], limit: u32) -> RecordResult {
    solve_puzzle(solver, &Puzzle::parse_line(text), limit)
}

/// Counts of what a run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub records: u64,
    pub solved: u64,
    pub unique: u64,
    pub multiple: u64,
    pub unsolvable: u64,
    pub invalid: u64,
    pub malformed: u64,
    /// Guesses summed over all records.
    pub guesses: u64,
    /// Records with a solution found without a single guess.
    pub no_guess: u64,
}

impl Stats {
    /// Counts one result.
    pub fn add(&mut self, r: &RecordResult) {
        self.records += 1;
        self.guesses += r.guesses;
        match r.status {
            Status::Solved => self.solved += 1,
            Status::Unique => self.unique += 1,
            Status::Multiple => self.multiple += 1,
            Status::Unsolvable => self.unsolvable += 1,
            Status::Invalid => self.invalid += 1,
            Status::Malformed => self.malformed += 1,
        }
        if r.solutions > 0 && r.guesses == 0 {
            self.no_guess += 1;
        }
    }

    /// Adds another run's counts to these.
    pub fn merge(&mut self, o: &Stats) {
        self.records += o.records;
        self.solved += o.solved;
        self.unique += o.unique;
        self.multiple += o.multiple;
        self.unsolvable += o.unsolvable;
        self.invalid += o.invalid;
        self.malformed += o.malformed;
        self.guesses += o.guesses;
        self.no_guess += o.no_guess;
    }
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
    /// written in the form of [`crate::table::push_result`], and workers
    /// turn their chunk into a record batch with
    /// [`crate::table::results_batch`].
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
fn puzzle_text(rec: &ParsedRecord<'_>, out: &mut Vec<u8>) {
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
            crate::table::push_result(
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

fn json_string(s: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec cannot fail");
}

/// A malformed record, kept for the warning that names its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub line: u64,
    pub error: ParseError,
}

/// What [`solve_chunk`] reports besides its output.
#[derive(Debug, Clone, Default)]
pub struct ChunkReport {
    pub stats: Stats,
    /// The first [`MALFORMED_KEPT`] malformed records of the chunk, in order.
    pub malformed: Vec<Malformed>,
    /// False when `cancel` stopped the chunk before its end: the output then
    /// holds the records before the first one not done.
    pub complete: bool,
    /// Lines read (all of the chunk's lines when complete).
    pub lines: u64,
}

/// How many malformed records a chunk keeps for warnings.
pub const MALFORMED_KEPT: usize = 10;

/// Settings shared by every chunk of a run.
#[derive(Debug, Clone, Copy)]
pub struct ChunkJob<'a> {
    pub limit: u32,
    pub format: OutputFormat,
    /// The input's name, written in each record when set.
    pub file: Option<&'a str>,
    /// csv output of a CSV input: carry the input's other columns along.
    pub keep: Option<KeepColumns>,
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
fn append_kept(raw: &[u8], keep: KeepColumns, out: &mut Vec<u8>) {
    let fields = crate::read::csv_fields(raw);
    for i in (0..keep.count).filter(|&i| i != keep.puzzle) {
        out.push(b',');
        if let Some(f) = fields.get(i) {
            csv_field(one_line(f, None).as_bytes(), out);
        }
    }
}

/// Solves every record of `chunk` and appends one output record per input
/// record to `out`, in order. Checks `cancel` before each record and stops
/// early (reporting `complete: false`) once it is set; so does a record
/// whose search the solver gave up (its stop flag, see
/// [`Solver::set_stop`]), which is then left out.
pub fn solve_chunk(
    solver: &mut dyn Solver,
    chunk: &Chunk<'_>,
    job: ChunkJob<'_>,
    cancel: &AtomicBool,
    out: &mut Vec<u8>,
) -> ChunkReport {
    let mut report = ChunkReport {
        complete: true,
        ..ChunkReport::default()
    };
    let mut recs = records(chunk.data, chunk.first_line, chunk.format);
    for rec in recs.by_ref() {
        if cancel.load(Ordering::Relaxed) {
            report.complete = false;
            break;
        }
        if let Err(e) = &rec.puzzle {
            if report.malformed.len() < MALFORMED_KEPT {
                report.malformed.push(Malformed {
                    line: rec.line,
                    error: e.clone(),
                });
            }
        }
        let r = solve_puzzle(solver, &rec.puzzle, job.limit);
        if solver.stopped() {
            // Cut short by the stop flag: this record is not done.
            report.complete = false;
            break;
        }
        report.stats.add(&r);
        write_record(job.format, job.file, &rec, &r, out);
        match (job.keep, job.format) {
            (Some(keep), OutputFormat::Csv) => {
                out.pop(); // the line end, put back after the kept columns
                append_kept(rec.raw, keep, out);
                out.push(b'\n');
            }
            (Some(keep), OutputFormat::Parquet) => {
                let fields = crate::read::csv_fields(rec.raw);
                for i in (0..keep.count).filter(|&i| i != keep.puzzle) {
                    crate::read::push_row(fields.get(i).map(|f| &f[..]), out);
                }
            }
            _ => {}
        }
    }
    report.lines = recs.next_line() - chunk.first_line;
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::InputFormat;
    use crate::solver::FastSolver;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn chunk(data: &str) -> Chunk<'_> {
        Chunk {
            data: data.as_bytes(),
            first_line: 1,
            format: InputFormat::Line,
        }
    }

    fn job(format: OutputFormat, limit: u32) -> ChunkJob<'static> {
        ChunkJob {
            limit,
            format,
            file: None,
            keep: None,
        }
    }

    #[test]
    fn every_status_is_reported() {
        let mut s = FastSolver::new();
        let r = solve_record(&mut s, PUZZLE.as_bytes(), 1);
        assert_eq!(r.status, Status::Solved);
        assert_eq!(r.solution.unwrap().to_string(), SOLUTION);
        assert_eq!(
            solve_record(&mut s, PUZZLE.as_bytes(), 2).status,
            Status::Unique
        );
        let empty = ".".repeat(81);
        let r = solve_record(&mut s, empty.as_bytes(), 2);
        assert_eq!((r.status, r.solutions), (Status::Multiple, 2));
        let mut invalid = PUZZLE.to_string();
        invalid.replace_range(2..3, "5");
        let r = solve_record(&mut s, invalid.as_bytes(), 2);
        assert_eq!(r.status, Status::Invalid);
        assert_eq!(r.problem.unwrap().to_string(), "row 1 repeats digit 5");
        let r = solve_record(&mut s, b"123", 2);
        assert_eq!(r.status, Status::Malformed);
        assert_eq!(
            r.problem.unwrap().to_string(),
            "too short: 3 cells, need 81"
        );
        // Rule-abiding givens with no solution: row 1 lacks only a 3, and the
        // one open cell of row 1 sees a 3 in its column.
        let unsolvable = format!("12.456789{}..3{}", ".".repeat(18), ".".repeat(51));
        let r = solve_record(&mut s, unsolvable.as_bytes(), 2);
        assert_eq!(r.status, Status::Unsolvable);
        for st in Status::ALL {
            assert_eq!(Status::from_word(st.word()), Some(st));
        }
    }

    #[test]
    fn a_chunk_gives_one_line_per_record_in_order() {
        let data = format!("# c\n{PUZZLE}\nbad line\n\n{PUZZLE}:1:{SOLUTION}\r\n");
        let mut out = Vec::new();
        let report = solve_chunk(
            &mut FastSolver::new(),
            &chunk(&data),
            job(OutputFormat::Line, 1),
            &AtomicBool::new(false),
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{SOLUTION}\nmalformed\n{SOLUTION}\n")
        );
        assert!(report.complete);
        assert_eq!(report.stats.records, 3);
        assert_eq!(report.stats.solved, 2);
        assert_eq!(report.stats.malformed, 1);
        assert_eq!(report.malformed[0].line, 3);
    }

    #[test]
    fn csv_and_jsonl_rows_carry_every_field() {
        let data = format!("{PUZZLE}\n\"a,b\"\n");
        let mut out = Vec::new();
        let mut j = job(OutputFormat::Csv, 2);
        j.file = Some("in.txt");
        write_header(OutputFormat::Csv, true, &mut out);
        solve_chunk(
            &mut FastSolver::new(),
            &chunk(&data),
            j,
            &AtomicBool::new(false),
            &mut out,
        );
        let text = String::from_utf8(out).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows[0],
            "file,line,puzzle,status,solutions,solution,guesses"
        );
        assert_eq!(rows[1], format!("in.txt,1,{PUZZLE},unique,1,{SOLUTION},0"));
        assert_eq!(rows[2], "in.txt,2,\"\"\"a,b\"\"\",malformed,0,,0");

        let mut out = Vec::new();
        solve_chunk(
            &mut FastSolver::new(),
            &chunk(&data),
            job(OutputFormat::Jsonl, 1),
            &AtomicBool::new(false),
            &mut out,
        );
        let text = String::from_utf8(out).unwrap();
        let objs: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(objs[0]["line"], 1);
        assert_eq!(objs[0]["status"], "solved");
        assert_eq!(objs[0]["solution"], SOLUTION);
        assert_eq!(objs[1]["puzzle"], "\"a,b\"");
        assert_eq!(objs[1]["solution"], serde_json::Value::Null);
        assert_eq!(objs[1]["error"], "bad character '\"' at column 1");
    }

    #[test]
    fn a_cancelled_chunk_stops_and_says_so() {
        let data = format!("{PUZZLE}\n{PUZZLE}\n");
        let mut out = Vec::new();
        let report = solve_chunk(
            &mut FastSolver::new(),
            &chunk(&data),
            job(OutputFormat::Line, 1),
            &AtomicBool::new(true),
            &mut out,
        );
        assert!(!report.complete);
        assert!(out.is_empty());
        assert_eq!(report.stats.records, 0);
    }
}
