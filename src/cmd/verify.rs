//! `batchdoku verify`: prove a file of answers right, or say exactly which
//! record is wrong and why.

use super::print_stdout;
use super::run_args::{per_sec, RunArgs};
use crate::engine::pipeline::{run_ordered, Stop};
use crate::engine::{input_files, Source, INPUT_FORMS};
use crate::puzzle::grid::ParseError;
use crate::read::mapfile::MappedFile;
use crate::read::parquet::{self, TableSource};
use crate::read::{
    bom_len, count_newlines, csv_header, detect_layout, find_column, is_skipped, packed_rows,
    record_text_end, records, trim_line_end, ColumnSpec, Framing, InputFormat, ParsedRecord,
    StreamChunks, ANSWER_COLUMNS, MAX_RECORD, PUZZLE_COLUMNS,
};
use crate::tasks::verify::{
    check, column_answer, detect_answers, embedded_answer, parse_answer, AnswerColumns,
    AnswerFormat, BadAnswer, CheckOptions, Failure,
};
use crate::Puzzle;
use crate::SolverKind;
use anyhow::{bail, Context};
use std::fmt::Write as _;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Check a file of answers against its puzzles.
///
/// ANSWERS may be in any form `solve` writes (line, csv or jsonl), or a CSV
/// whose header names a solution column (or status and solution columns,
/// in any order), paired record by record with PUZZLES. A folder (Spark's output) is read as its
/// part files in order, one input; a failure names the part file. Without ANSWERS, each PUZZLES record must
/// carry its own answer (`puzzle,solution` lines, the Kaggle CSV with a
/// `quizzes,solutions` header, `puzzle:count:solution` lines, a CSV or
/// Parquet `solve` output whose status, solutions and solution columns
/// make the claim).
///
/// Every solution must be a complete grid that obeys the rules and keeps
/// every given (for a pencilmark puzzle: puts in each cell one of its
/// candidates). Status claims are checked by solving: `unsolvable` must
/// have no solution, `invalid` must repeat a given in a unit (or pin two of
/// its cells to one digit), `malformed` must not parse, `unique`/`multiple`
/// and solution counts must match the puzzle's count.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku verify puzzles.txt answers.txt
  batchdoku verify --unique --format json puzzles.txt answers.csv
  batchdoku verify kaggle_sudoku.csv          (quizzes,solutions on each line)

Exit codes: 0 every answer is right, 1 some answer is wrong, the files hold
different numbers of records, or an I/O error, 2 usage error.")]
pub struct Args {
    /// The puzzles, one per line (81 cells or 729 pencilmark characters),
    /// or in grid form; or a folder of part files.
    pub puzzles: PathBuf,
    /// The answers; omit when each puzzle line carries its answer.
    pub answers: Option<PathBuf>,
    /// Also demand exactly one solution for every puzzle.
    #[arg(long)]
    pub unique: bool,
    /// Report as text (default) or json; or lines: one line per record, in
    /// order, `ok` or `wrong: REASON` (a filter for pipes such as Spark's
    /// RDD.pipe), with the verdict on stderr.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "lines"])]
    pub format: String,
    /// Count at most N solutions to prove a claimed count: a claim that
    /// needs more is reported as unverifiable (a failure).
    #[arg(long, value_name = "N", default_value_t = crate::tasks::verify::MAX_COUNT)]
    pub max_count: u32,
    /// The puzzle column of a CSV of puzzles: a header name, or a number
    /// from 1 (see `solve --column`).
    #[arg(long, value_name = "NAME|N")]
    pub column: Option<ColumnSpec>,
    /// The answer column of a CSV that carries its answers: a header name,
    /// or a number from 1. Without it, a header's `solution`, `solutions`
    /// or `answer` column, or (no header) the column after the puzzles.
    #[arg(long, value_name = "NAME|N")]
    pub answer_column: Option<ColumnSpec>,
    /// Puzzle input form: auto, line, pencilmark, grid, csv, npy or parquet
    /// (see `solve --help`).
    #[arg(long, default_value = "auto", value_parser = INPUT_FORMS)]
    pub input: String,
    /// (-q leaves the report on standard output as it is: it is the
    /// answer; it quiets warnings, the progress bar, and the summary line
    /// of `--format lines` on stderr.)
    #[command(flatten)]
    pub run: RunArgs,
}

/// Failures shown in full in the text report.
const SHOWN: usize = 20;
/// Records checked per parallel job.
const BATCH: usize = 4096;

/// One puzzle and its answer, as paired (and copied out of the inputs) on
/// the reading thread.
struct Pair {
    record: u64,
    /// The puzzle's file (an index into the puzzles' files) and line.
    puzzle_file: usize,
    puzzle_line: u64,
    puzzle: Result<Puzzle, ParseError>,
    /// The puzzle's record text, kept when it carries its own answer, and
    /// the answer's column in a CSV record.
    puzzle_raw: Vec<u8>,
    answer_column: Option<AnswerColumns>,
    answer: Option<Answer>,
}

/// A wrong answer, located.
struct Located {
    record: u64,
    puzzle_file: usize,
    puzzle_line: u64,
    /// The answer's file (in the answers' files) and line, when it has
    /// its own.
    answer_at: Option<(usize, u64)>,
    failure: Failure,
}

/// The bytes of one input file, whole (mapped) or a chunk at a time (a
/// stream), each with the line number of its first line.
enum Chunks {
    /// A mapped file: its records start at the offset, on the line; both
    /// taken by the first `next`, the map kept to be checked at the end.
    Whole {
        map: Arc<MappedFile>,
        start: Option<(usize, u64)>,
    },
    Stream(StreamChunks<Box<dyn Read + Send>>),
    /// A Parquet table's text column, packed a range of rows at a time.
    Table {
        table: TableSource,
        next: u64,
    },
}

/// A piece of input: a mapped file from an offset on, or bytes read.
enum Piece {
    Mapped(Arc<MappedFile>, usize),
    Owned(Vec<u8>),
}

impl Piece {
    fn bytes(&self) -> &[u8] {
        match self {
            Piece::Mapped(map, start) => &map.bytes()[*start..],
            Piece::Owned(bytes) => bytes,
        }
    }
}

/// Rows of a table read at a time.
const TABLE_ROWS: usize = 4096;

impl Chunks {
    /// Opens `source` (mapping it if it is a regular file). `frame` looks
    /// at its top (for a stream, with leading blank and comment lines
    /// dropped) and says how to cut it, how many bytes of header to skip,
    /// and whether records are numbered by CSV data row (from 1) rather
    /// than by line.
    fn new(
        source: &Source,
        frame: impl FnOnce(&[u8]) -> anyhow::Result<(Framing, usize, bool)>,
    ) -> anyhow::Result<Chunks> {
        if let Some(map) = source.map()? {
            let data = map.bytes();
            let (_, skip, rows) = frame(data)?;
            let line = if rows {
                1
            } else {
                1 + count_newlines(&data[..skip])
            };
            return Ok(Chunks::Whole {
                map,
                start: Some((skip, line)),
            });
        }
        let mut s = StreamChunks::new(source.reader()?);
        let (top, _) = s.top().with_context(|| read_error(source))?;
        let (framing, skip, rows) = frame(top)?;
        s.consume(skip);
        s.set_framing(framing);
        if rows {
            s.number_rows_from(1);
        }
        Ok(Chunks::Stream(s))
    }

    /// The next piece of input and its first line number. At the end of a
    /// mapped file or table, what was read from it is trusted only if the
    /// file did not shrink under us (the fault guard would have given
    /// zeros): checked here, before the file is let go.
    fn next(&mut self, source: &Source) -> anyhow::Result<Option<(Piece, u64)>> {
        match self {
            Chunks::Whole { map, start } => match start.take() {
                Some((skip, line)) => Ok(Some((Piece::Mapped(map.clone(), skip), line))),
                None => {
                    map.check()
                        .with_context(|| source.described().to_string())?;
                    Ok(None)
                }
            },
            Chunks::Stream(s) => Ok(s
                .next_chunk()
                .with_context(|| read_error(source))?
                .map(|c| (Piece::Owned(c.data), c.first_line))),
            Chunks::Table { table, next } => {
                let Some(range) = table.range(*next, TABLE_ROWS) else {
                    table
                        .check()
                        .with_context(|| source.described().to_string())?;
                    return Ok(None);
                };
                *next += range.rows as u64;
                let rows = table.read(range).with_context(|| read_error(source))?;
                Ok(Some((Piece::Owned(rows.packed), rows.first_row)))
            }
        }
    }
}

fn read_error(source: &Source) -> String {
    format!("cannot read {}", source.described())
}

/// Where a reader is: the current piece of input, the offset reached in it
/// and the line number there.
struct Cursor<'a> {
    source: &'a Source,
    chunks: Chunks,
    chunk: Piece,
    pos: usize,
    line: u64,
}

impl<'a> Cursor<'a> {
    fn new(source: &'a Source, chunks: Chunks) -> Self {
        Cursor {
            source,
            chunks,
            chunk: Piece::Owned(Vec::new()),
            pos: 0,
            line: 1,
        }
    }

    /// Moves to the next piece when this one is used up; false at the end.
    fn ready(&mut self) -> anyhow::Result<bool> {
        while self.pos >= self.chunk.bytes().len() {
            match self.chunks.next(self.source)? {
                Some((chunk, line)) => {
                    self.chunk = chunk;
                    self.pos = 0;
                    self.line = line;
                }
                None => return Ok(false),
            }
        }
        Ok(true)
    }
}

/// The puzzle records of an input, read a batch at a time.
struct PuzzleReader<'a> {
    at: Cursor<'a>,
    format: InputFormat,
    /// A CSV input's header line.
    header: Option<Vec<u8>>,
}

impl<'a> PuzzleReader<'a> {
    fn new(
        source: &'a Source,
        forced: Option<InputFormat>,
        column: Option<&ColumnSpec>,
    ) -> anyhow::Result<Self> {
        if source.is_parquet(forced) {
            let table = source.table(column, &PUZZLE_COLUMNS, "puzzles", false, 0)?;
            return Ok(PuzzleReader {
                at: Cursor::new(source, Chunks::Table { table, next: 0 }),
                format: InputFormat::Rows,
                header: None,
            });
        }
        let mut format = InputFormat::Line;
        let mut header_found = None;
        let chunks = Chunks::new(source, |top| {
            let d = detect_layout(top, forced, column)
                .with_context(|| source.described().to_string())?;
            format = d.format;
            if let (InputFormat::Csv(_), Some(header)) = (d.format, csv_header(top)) {
                header_found = Some(header.to_vec());
            }
            Ok((
                d.format.into(),
                d.start,
                matches!(d.format, InputFormat::Csv(_)),
            ))
        })?;
        Ok(PuzzleReader {
            at: Cursor::new(source, chunks),
            format,
            header: header_found,
        })
    }

    /// Passes up to `n` records to `each`; returns how many there were.
    fn read(&mut self, n: usize, mut each: impl FnMut(ParsedRecord<'_>)) -> anyhow::Result<usize> {
        let mut got = 0;
        while got < n && self.at.ready()? {
            let mut recs = records(
                &self.at.chunk.bytes()[self.at.pos..],
                self.at.line,
                self.format,
            );
            for rec in recs.by_ref().take(n - got) {
                each(rec);
                got += 1;
            }
            self.at.line = recs.next_line();
            self.at.pos += recs.offset();
        }
        Ok(got)
    }
}

/// The answer records of an answers input: each non-blank, non-comment
/// line after a header, or each CSV record (which may span lines), with
/// the line number it starts on; or the rows of a table or an npy array,
/// made into answer records and numbered by row index.
enum AnswerReader<'a> {
    Text {
        at: Cursor<'a>,
        format: AnswerFormat,
    },
    Rows {
        /// The next batch of rows, `None` at the end.
        more: RowBatches<'a>,
        ready: std::collections::VecDeque<(u64, Vec<u8>)>,
        format: AnswerFormat,
    },
}

/// Answer records with their row index.
type AnswerRows = Vec<(u64, Vec<u8>)>;

/// Makes the next batch of answer rows.
type RowBatches<'a> = Box<dyn FnMut() -> anyhow::Result<Option<AnswerRows>> + 'a>;

impl<'a> AnswerReader<'a> {
    /// `quiet`: no warning that an npy array's status file is missing.
    fn new(source: &'a Source, quiet: bool) -> anyhow::Result<Self> {
        if source.is_parquet(None) {
            return AnswerReader::table(source, None, false);
        }
        let mut npy = None;
        let mut format = AnswerFormat::Line;
        let chunks = Chunks::new(source, |top| {
            if top.starts_with(crate::read::npy::MAGIC) {
                npy = Some(());
                return Ok((Framing::Line, 0, false));
            }
            // The first record that is not blank or a comment tells the form.
            let mut pos = bom_len(top);
            while pos < top.len() {
                let end = record_text_end(&top[pos..], false);
                let line = trim_line_end(&top[pos..pos + end]);
                if !is_skipped(line) {
                    let (f, header) = detect_answers(line)
                        .map_err(|e| anyhow::anyhow!("{}: {}", source.described(), e.0))?;
                    format = f;
                    let framing = match f {
                        AnswerFormat::Csv(_) => Framing::Csv,
                        _ => Framing::Line,
                    };
                    let skip = if header { pos + end } else { bom_len(top) };
                    return Ok((framing, skip, false));
                }
                pos += end;
            }
            Ok((Framing::Line, bom_len(top), false))
        })?;
        if npy.is_some() {
            if let Chunks::Whole { map, .. } = chunks {
                return AnswerReader::npy(source, map, quiet);
            }
        }
        Ok(AnswerReader::Text {
            at: Cursor::new(source, chunks),
            format,
        })
    }

    fn format(&self) -> AnswerFormat {
        match self {
            AnswerReader::Text { format, .. } | AnswerReader::Rows { format, .. } => *format,
        }
    }

    /// The answers of a Parquet table: `solve --format parquet` output
    /// (status, solutions and solution columns, read as JSON records), or
    /// a table with an answer column (`column`, else a `solution`,
    /// `solutions` or `answer` column, else its only text column) of
    /// solutions or status words. `beside_puzzles`: the table holds the
    /// puzzles too, so its answer column must be named (by the option or
    /// the header), never guessed.
    fn table(
        source: &'a Source,
        column: Option<&ColumnSpec>,
        beside_puzzles: bool,
    ) -> anyhow::Result<Self> {
        let names = source.table_names()?;
        let has = |n: &str| names.iter().any(|c| c.eq_ignore_ascii_case(n));
        if beside_puzzles && column.is_none() && !ANSWER_COLUMNS.iter().any(|n| has(n)) {
            bail!(
                "{}: which column holds the answers? The table's columns {} include no \
                 solution, solutions or answer column; name it with --answer-column, or give an \
                 answers file",
                source.described(),
                names.join(", ")
            );
        }
        let solve_output = column.is_none() && has("status") && has("solution");
        let table = if solve_output {
            source.table(
                Some(&ColumnSpec::Name("solution".into())),
                &[],
                "answers",
                true,
                0,
            )?
        } else {
            source.table(column, &ANSWER_COLUMNS, "answers", false, 0)?
        };
        let mut next = 0u64;
        let described = source.described().to_string();
        let more = move || -> anyhow::Result<Option<AnswerRows>> {
            let Some(range) = table.range(next, TABLE_ROWS) else {
                return Ok(None);
            };
            next += range.rows as u64;
            let rows = table
                .read(range)
                .with_context(|| format!("cannot read {described}"))?;
            let texts = packed_rows(&rows.packed);
            let mut out = Vec::with_capacity(rows.rows);
            if solve_output {
                let others = rows.others.as_ref().expect("kept");
                // Found as they were detected, whatever their case.
                let named = |name: &str| {
                    let schema = others.schema();
                    let k = schema
                        .fields()
                        .iter()
                        .position(|f| f.name().trim().eq_ignore_ascii_case(name))?;
                    Some(others.column(k).clone())
                };
                let mut status: Vec<Option<String>> = Vec::new();
                // A status column of another type (a user's own) says nothing.
                if let Some(col) = named("status").filter(|c| parquet::is_text(c.data_type())) {
                    parquet::for_each_text(col.as_ref(), &mut |v| {
                        status.push(v.map(|b| String::from_utf8_lossy(b).into_owned()))
                    });
                }
                let counts = named("solutions").map(|c| claimed_counts(c.as_ref()));
                for (i, solution) in texts.enumerate() {
                    let record = serde_json::json!({
                        "status": status.get(i).cloned().flatten(),
                        "solutions": counts.as_ref().map_or(serde_json::Value::Null, |c| c[i].clone()),
                        "solution": solution.map(String::from_utf8_lossy),
                    });
                    out.push((rows.first_row + i as u64, record.to_string().into_bytes()));
                }
            } else {
                for (i, text) in texts.enumerate() {
                    out.push((rows.first_row + i as u64, text.unwrap_or_default().to_vec()));
                }
            }
            Ok(Some(out))
        };
        let format = if solve_output {
            AnswerFormat::Jsonl
        } else {
            AnswerFormat::Line
        };
        Ok(AnswerReader::Rows {
            more: Box::new(more),
            ready: Default::default(),
            format,
        })
    }

    /// The answers of an npy array of solutions (`solve --format npy`):
    /// each row a grid, 0 rows where there is none, with the statuses from
    /// `ANSWERS.status` beside it when it is there.
    fn npy(source: &'a Source, map: Arc<MappedFile>, quiet: bool) -> anyhow::Result<Self> {
        let header = crate::read::npy::parse_header(map.bytes())
            .map_err(|e| anyhow::anyhow!("{}: {e}", source.described()))?;
        let mut status_name = std::ffi::OsString::from(source.name());
        status_name.push(".status");
        let statuses: Option<Vec<String>> = std::fs::read_to_string(&status_name)
            .ok()
            .map(|t| t.lines().map(str::to_string).collect());
        if statuses.is_none() && !quiet {
            eprintln!(
                "batchdoku: warning: {} is not there: a row of zeros (no solution) cannot say why",
                std::path::Path::new(&status_name).display()
            );
        }
        let row_bytes = header.dtype.row_bytes();
        let mut pos = header.data_offset;
        let mut row = 0u64;
        let described = source.described().to_string();
        let more = move || -> anyhow::Result<Option<AnswerRows>> {
            let data = map.bytes();
            if pos >= data.len() {
                // What was read is trusted only if the file kept its size.
                map.check().with_context(|| described.clone())?;
                return Ok(None);
            }
            let mut out = Vec::with_capacity(TABLE_ROWS);
            while pos < data.len() && out.len() < TABLE_ROWS {
                let end = (pos + row_bytes).min(data.len());
                let grid = header.dtype.grid(&data[pos..end]);
                pos = end;
                let status = statuses.as_ref().and_then(|s| s.get(row as usize));
                let solution = match &grid {
                    Ok(g) if g.cells().iter().any(|&c| c != 0) => Some(g.to_line()),
                    _ => None,
                };
                let record = match (&grid, status) {
                    (Err(e), _) => {
                        serde_json::json!({ "solution": format!("unreadable row: {e}") })
                    }
                    (Ok(_), None) if solution.is_none() => serde_json::json!({
                        "solution": "a row of zeros (no solution) without the statuses file beside the array",
                    }),
                    (Ok(_), status) => {
                        serde_json::json!({ "status": status, "solution": solution })
                    }
                };
                out.push((row, record.to_string().into_bytes()));
                row += 1;
            }
            Ok(Some(out))
        };
        Ok(AnswerReader::Rows {
            more: Box::new(more),
            ready: Default::default(),
            format: AnswerFormat::Jsonl,
        })
    }

    /// The next answer record: its first line number, its text, and
    /// whether it is a CSV record longer than [`MAX_RECORD`].
    fn next(&mut self) -> anyhow::Result<Option<(u64, Vec<u8>, bool)>> {
        match self {
            AnswerReader::Text { at, format } => {
                let csv = matches!(format, AnswerFormat::Csv(_));
                while at.ready()? {
                    let rest = &at.chunk.bytes()[at.pos..];
                    let end = record_text_end(rest, csv);
                    let text = trim_line_end(&rest[..end]);
                    let line = at.line;
                    // Outside CSV a record is one line, its `\n` the last byte.
                    at.line += if csv {
                        count_newlines(&rest[..end])
                    } else {
                        u64::from(rest[..end].ends_with(b"\n"))
                    };
                    at.pos += end;
                    if !is_skipped(text) {
                        return Ok(Some((line, text.to_vec(), csv && end > MAX_RECORD)));
                    }
                }
                Ok(None)
            }
            AnswerReader::Rows { more, ready, .. } => loop {
                if let Some((row, text)) = ready.pop_front() {
                    return Ok(Some((row, text, false)));
                }
                match more()? {
                    Some(rows) => ready.extend(rows),
                    None => return Ok(None),
                }
            },
        }
    }
}

/// The solution counts a table's `solutions` column claims, as the JSON
/// values the answer reader takes or refuses, read as the CSV path reads
/// the text of a count: a whole non-negative number is a count whatever
/// its type (a float column, as pandas writes one that held a NaN; a
/// decimal; digits in text); a null, a NaN or empty text claims nothing;
/// anything else (1.5, -1, a count past 2^32, other text, another type)
/// is an answer that cannot be read.
fn claimed_counts(column: &dyn arrow_array::Array) -> Vec<serde_json::Value> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Decimal128Type, Decimal256Type, Float16Type, Float32Type, Float64Type, UInt64Type,
    };
    use arrow_array::Array;
    use arrow_schema::DataType;
    use serde_json::Value;
    // A whole number written as text (a decimal's `2.00` is 2).
    let of_text = |t: &str| -> Value {
        let t = t.trim();
        let whole = match t.split_once('.') {
            Some((w, frac)) if frac.bytes().all(|b| b == b'0') => w,
            _ => t,
        };
        match whole.parse::<u64>() {
            _ if t.is_empty() => Value::Null,
            Ok(n) if whole.bytes().all(|b| b.is_ascii_digit()) => Value::from(n),
            _ => Value::String(t.to_string()),
        }
    };
    let of_float = |v: f64| -> Value {
        if v.is_nan() {
            Value::Null
        } else {
            of_text(&v.to_string())
        }
    };
    fn each<T, F: Fn(T) -> Value>(values: impl Iterator<Item = Option<T>>, f: F) -> Vec<Value> {
        values.map(|v| v.map_or(Value::Null, &f)).collect()
    }
    match column.data_type() {
        DataType::UInt64 => each(column.as_primitive::<UInt64Type>().iter(), Value::from),
        DataType::Float16 => each(column.as_primitive::<Float16Type>().iter(), |v| {
            of_float(v.to_f64())
        }),
        DataType::Float32 => each(column.as_primitive::<Float32Type>().iter(), |v| {
            of_float(f64::from(v))
        }),
        DataType::Float64 => each(column.as_primitive::<Float64Type>().iter(), of_float),
        DataType::Decimal128(..) => {
            let d = column.as_primitive::<Decimal128Type>();
            (0..d.len())
                .map(|i| match d.is_null(i) {
                    true => Value::Null,
                    false => of_text(&d.value_as_string(i)),
                })
                .collect()
        }
        DataType::Decimal256(..) => {
            let d = column.as_primitive::<Decimal256Type>();
            (0..d.len())
                .map(|i| match d.is_null(i) {
                    true => Value::Null,
                    false => of_text(&d.value_as_string(i)),
                })
                .collect()
        }
        t if parquet::is_text(t) => {
            let mut out = Vec::with_capacity(column.len());
            parquet::for_each_text(column, &mut |v| {
                out.push(v.map_or(Value::Null, |b| of_text(&String::from_utf8_lossy(b))))
            });
            out
        }
        t => match parquet::integers(column) {
            Some(values) => each(values.into_iter(), Value::from),
            None => (0..column.len())
                .map(|i| match column.is_null(i) {
                    true => Value::Null,
                    false => Value::String(format!("a value of type {t}")),
                })
                .collect(),
        },
    }
}

/// The puzzle records of an input's files (a folder's part files), one
/// file after the other, as one input: each file is opened (and mapped)
/// when its turn comes and let go at its end.
struct PuzzleFiles<'a> {
    sources: &'a [Source],
    forced: Option<InputFormat>,
    column: Option<&'a ColumnSpec>,
    /// No answers file is named: each record carries its answer.
    carried: Option<Option<&'a ColumnSpec>>,
    /// The file being read (its index in `sources`), its reader and, for
    /// a CSV carrying its answers, their column.
    current: Option<(usize, PuzzleReader<'a>, Option<AnswerColumns>)>,
    next: usize,
    /// The form of the first file: a table or not, the same for all.
    table: bool,
}

impl<'a> PuzzleFiles<'a> {
    /// Opens the first file (so that its errors come first, and its form
    /// is known). `carried`: no answers file is named, and the answer
    /// column of a CSV is the one named, if any.
    fn new(
        sources: &'a [Source],
        forced: Option<InputFormat>,
        column: Option<&'a ColumnSpec>,
        carried: Option<Option<&'a ColumnSpec>>,
    ) -> anyhow::Result<Self> {
        let mut files = PuzzleFiles {
            sources,
            forced,
            column,
            carried,
            current: None,
            next: 0,
            table: false,
        };
        files.open_next()?;
        files.table = files
            .current
            .as_ref()
            .is_some_and(|(_, r, _)| r.format == InputFormat::Rows);
        Ok(files)
    }

    /// Opens the next file; false when there is none.
    fn open_next(&mut self) -> anyhow::Result<bool> {
        self.current = None;
        let Some(source) = self.sources.get(self.next) else {
            return Ok(false);
        };
        let file = self.next;
        self.next += 1;
        let reader = PuzzleReader::new(source, self.forced, self.column)?;
        let mut answer_at = None;
        if let Some(answer_spec) = self.carried {
            match reader.format {
                InputFormat::Npy(_) => bail!(
                    "{}: an npy array holds puzzles only, with no room for answers: name the \
                     answers after it (a `solve` output, or the npy array `solve --format npy` \
                     writes)",
                    source.name()
                ),
                InputFormat::Csv(layout) => {
                    answer_at = Some(answer_column(
                        reader.header.as_deref(),
                        answer_spec,
                        source,
                        layout.column,
                    )?)
                }
                _ => {}
            }
            // A table's answers are read from its own column, file by file
            // beside its puzzles: every file must be a table, or none.
            if file > 0 && (reader.format == InputFormat::Rows) != self.table {
                bail!(
                    "{} is {}a Parquet table, and {} is {}: the files of one input are \
                     read as one table, so give them one form",
                    source.name(),
                    if self.table { "not " } else { "" },
                    self.sources[0].name(),
                    if self.table { "one" } else { "not" },
                );
            }
        }
        self.current = Some((file, reader, answer_at));
        Ok(true)
    }

    /// Passes up to `n` records to `each`, with their file's index and
    /// answer column (a CSV carrying its answers); returns how many there
    /// were.
    fn read(
        &mut self,
        n: usize,
        mut each: impl FnMut(usize, Option<AnswerColumns>, ParsedRecord<'_>),
    ) -> anyhow::Result<usize> {
        let mut got = 0;
        while got < n {
            let Some((file, reader, answer_at)) = &mut self.current else {
                break;
            };
            let (file, answer_at) = (*file, *answer_at);
            let read = reader.read(n - got, |rec| each(file, answer_at, rec))?;
            got += read;
            if got < n && !self.open_next()? {
                break;
            }
        }
        Ok(got)
    }
}

/// An answer record: the index of its file, its first line number (row
/// index in a table), its form and its text.
struct Answer {
    file: usize,
    line: u64,
    format: AnswerFormat,
    text: Vec<u8>,
    /// A CSV record longer than [`MAX_RECORD`]: `text` holds only its
    /// start when it was streamed, so it is unreadable however it is read.
    too_long: bool,
}

/// The answer records of an input's files, one file after the other (see
/// [`PuzzleFiles`]): an answers input, or the answer columns of tables of
/// puzzles (`beside_puzzles`, the column named or found by its name).
struct AnswerFiles<'a> {
    sources: &'a [Source],
    beside_puzzles: Option<Option<&'a ColumnSpec>>,
    current: Option<(usize, AnswerReader<'a>)>,
    next: usize,
    quiet: bool,
}

impl<'a> AnswerFiles<'a> {
    fn new(
        sources: &'a [Source],
        beside_puzzles: Option<Option<&'a ColumnSpec>>,
        quiet: bool,
    ) -> anyhow::Result<Self> {
        let mut files = AnswerFiles {
            sources,
            beside_puzzles,
            current: None,
            next: 0,
            quiet,
        };
        files.open_next()?;
        Ok(files)
    }

    /// Opens the next file; false when there is none.
    fn open_next(&mut self) -> anyhow::Result<bool> {
        self.current = None;
        let Some(source) = self.sources.get(self.next) else {
            return Ok(false);
        };
        let reader = match self.beside_puzzles {
            Some(column) => AnswerReader::table(source, column, true)?,
            None => AnswerReader::new(source, self.quiet)?,
        };
        self.current = Some((self.next, reader));
        self.next += 1;
        Ok(true)
    }

    /// The next answer record, `None` after the last file.
    fn next(&mut self) -> anyhow::Result<Option<Answer>> {
        loop {
            let Some((file, reader)) = &mut self.current else {
                return Ok(None);
            };
            if let Some((line, text, too_long)) = reader.next()? {
                return Ok(Some(Answer {
                    file: *file,
                    line,
                    format: reader.format(),
                    text,
                    too_long,
                }));
            }
            if !self.open_next()? {
                return Ok(None);
            }
        }
    }
}

/// The answer column (from 0) of a CSV of puzzles: the one named by
/// `--answer-column`, else the header's `solution`, `solutions` or
/// `answer` column (with the `status` and `solutions` columns beside a
/// `solution` one: a `solve` output claims statuses and counts too);
/// without a header, the column after the puzzles'.
fn answer_column(
    header: Option<&[u8]>,
    spec: Option<&ColumnSpec>,
    source: &Source,
    puzzle_column: usize,
) -> anyhow::Result<AnswerColumns> {
    let name = source.described();
    match (spec, header) {
        (Some(ColumnSpec::Number(n)), _) => Ok(AnswerColumns::single(n - 1)),
        (Some(ColumnSpec::Name(col)), Some(h)) => find_column(h, &[col.as_str()])
            .map(AnswerColumns::single)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{name}: no column named {col:?} in the header {:?}",
                    String::from_utf8_lossy(h)
                )
            }),
        // `status` and `solution` columns (a solve output's claim), else
        // the answer column, as in a separate answers CSV.
        (None, Some(h)) => AnswerColumns::of_header(h).ok_or_else(|| {
            anyhow::anyhow!(
                "{name}: which column holds the answers? The header {:?} has no solution, \
                 solutions or answer column; name it with --answer-column, or give an answers file",
                String::from_utf8_lossy(h)
            )
        }),
        // Without a header the answers are read from the column after the
        // puzzles, as in `puzzle,solution` lines.
        (Some(ColumnSpec::Name(col)), None) => bail!(
            "{name}: --answer-column {col} needs a header line naming the columns; use \
             --answer-column N for a file without one"
        ),
        (None, None) => Ok(AnswerColumns::single(puzzle_column + 1)),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let forced = crate::engine::forced_format(&args.input);
    // A folder (Spark's output) stands for its data files, read in order
    // as one input.
    let open = |path: &Path| -> anyhow::Result<Vec<Source>> {
        input_files(path)?.iter().map(|f| Source::open(f)).collect()
    };
    let puzzle_sources = open(&args.puzzles)?;
    let answer_sources = match &args.answers {
        Some(p) => Some(open(p)?),
        None => None,
    };
    if answer_sources.is_some()
        && args.puzzles.as_os_str() == "-"
        && args.answers.as_deref() == Some(Path::new("-"))
    {
        bail!("standard input (-) can be named only once");
    }
    let carried = answer_sources
        .is_none()
        .then_some(args.answer_column.as_ref());
    let mut puzzles = PuzzleFiles::new(&puzzle_sources, forced, args.column.as_ref(), carried)?;
    let mut answers = match &answer_sources {
        Some(sources) => Some(AnswerFiles::new(sources, None, args.run.quiet)?),
        // Tables of puzzles carry their answers in a column of their own,
        // read row by row beside the puzzles.
        None if puzzles.table => Some(AnswerFiles::new(
            &puzzle_sources,
            Some(args.answer_column.as_ref()),
            args.run.quiet,
        )?),
        None => None,
    };
    let separate = answers.is_some();
    let answer_names: &[Source] = answer_sources.as_deref().unwrap_or(&puzzle_sources);

    let pool = args.run.pool()?;
    // Records checked and their rate (the puzzles' size is not the work's).
    let progress = args.run.progress_bar(0);
    let started = Instant::now();
    let mut record = 0u64;
    let mut mismatch: Option<String> = None;
    let answers_name = args
        .answers
        .as_ref()
        .unwrap_or(&args.puzzles)
        .display()
        .to_string();
    let puzzles_name = args.puzzles.display().to_string();
    // Pairs are made on this thread (cheap splitting and copying) in
    // batches that the pool checks in parallel.
    let batches = std::iter::from_fn(|| {
        if mismatch.is_some() {
            return None;
        }
        let mut batch: Vec<Pair> = Vec::with_capacity(BATCH);
        let read = puzzles.read(BATCH, |file, answer_column, p| {
            record += 1;
            batch.push(Pair {
                record,
                puzzle_file: file,
                puzzle_line: p.line,
                puzzle: p.puzzle,
                puzzle_raw: if separate { Vec::new() } else { p.raw.to_vec() },
                answer_column,
                answer: None,
            });
        });
        if let Err(e) = read {
            return Some(Err(e));
        }
        if let Some(answers) = &mut answers {
            for i in 0..batch.len() {
                match answers.next() {
                    Ok(Some(a)) => batch[i].answer = Some(a),
                    Ok(None) => {
                        let done = batch[i].record - 1;
                        mismatch = Some(format!(
                            "{answers_name} ran out after {done} records; {puzzles_name} has more"
                        ));
                        batch.truncate(i);
                        break;
                    }
                    Err(e) => return Some(Err(e)),
                }
            }
            if batch.len() < BATCH && mismatch.is_none() {
                // The puzzles ran out: the answers must have too.
                match answers.next() {
                    Ok(Some(_)) => {
                        mismatch = Some(format!(
                            "{puzzles_name} ran out after {record} records; {answers_name} has more"
                        ))
                    }
                    Ok(None) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
        }
        (!batch.is_empty()).then_some(Ok::<_, anyhow::Error>(batch))
    });

    let options = CheckOptions {
        unique: args.unique,
        max_count: args.max_count,
    };
    let mut failures: Vec<Located> = Vec::new();
    let mut checked = 0u64;
    let lines = args.format == "lines";
    let mut per_record = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let mut pipe_closed = false;
    let result = run_ordered(
        &pool,
        batches,
        pool.current_num_threads() * 4,
        |batch: Vec<Pair>| {
            let mut solver = SolverKind::Fast.build();
            let mut found = Vec::new();
            let n = batch.len() as u64;
            for pair in batch {
                let claim = match &pair.answer {
                    Some(a) if a.too_long => Err(BadAnswer(ParseError::RecordTooLong.to_string())),
                    Some(a) => parse_answer(a.format, &a.text),
                    // A stream keeps only the start of such a record.
                    None if matches!(pair.puzzle, Err(ParseError::RecordTooLong)) => {
                        Err(BadAnswer(ParseError::RecordTooLong.to_string()))
                    }
                    None => match pair.answer_column {
                        Some(k) => column_answer(&pair.puzzle_raw, k),
                        None => embedded_answer(&pair.puzzle_raw),
                    },
                };
                let outcome = match claim {
                    Ok(claim) => check(solver.as_mut(), &pair.puzzle, &claim, options),
                    Err(e) => Err(Failure::Unreadable(e.0)),
                };
                if let Err(failure) = outcome {
                    found.push(Located {
                        record: pair.record,
                        puzzle_file: pair.puzzle_file,
                        puzzle_line: pair.puzzle_line,
                        answer_at: pair.answer.as_ref().map(|a| (a.file, a.line)),
                        failure,
                    });
                }
            }
            (n, found)
        },
        |(n, found): (u64, Vec<Located>)| {
            if lines && !pipe_closed {
                let mut next = found.iter().peekable();
                let mut text = String::new();
                for record in checked + 1..=checked + n {
                    match next.next_if(|f| f.record == record) {
                        Some(f) => {
                            let _ = writeln!(text, "wrong: {}", f.failure);
                        }
                        None => text.push_str("ok\n"),
                    }
                }
                use std::io::Write as _;
                match per_record.write_all(text.as_bytes()) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => pipe_closed = true,
                    Err(e) => {
                        return ControlFlow::Break(
                            anyhow::Error::new(e).context("cannot write to standard output"),
                        )
                    }
                }
            }
            checked += n;
            failures.extend(found);
            progress.advance(0, checked, started);
            ControlFlow::Continue(())
        },
    );
    progress.finish();
    match result {
        Ok(()) => {}
        Err(Stop::Source(e)) => return Err(e),
        Err(Stop::Sink(e)) => return Err(e),
    }
    let seconds = started.elapsed().as_secs_f64();
    let passed = checked - failures.len() as u64;
    args.run.write_stats(&serde_json::json!({
        "records": checked,
        "passed": passed,
        "failed": failures.len(),
        "count_mismatch": mismatch,
        "seconds": seconds,
        "records_per_sec": per_sec(checked, seconds),
        "threads": pool.current_num_threads(),
    }))?;
    if lines {
        use std::io::Write as _;
        match per_record.flush() {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                return Err(anyhow::Error::new(e).context("cannot write to standard output"))
            }
            _ => {}
        }
        let verdict = if failures.is_empty() && mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        };
        if let Some(m) = &mismatch {
            eprintln!("batchdoku: record counts differ: {m}");
        }
        if !args.run.quiet {
            eprintln!(
                "batchdoku: {checked} records checked: {passed} passed, {} failed ({seconds:.3} s): {verdict}",
                failures.len()
            );
        }
    } else if args.format == "json" {
        let list: Vec<serde_json::Value> = failures
            .iter()
            .map(|f| {
                let (answer_file, answer_line) =
                    f.answer_at.unwrap_or((f.puzzle_file, f.puzzle_line));
                serde_json::json!({
                    "record": f.record,
                    "puzzle_file": puzzle_sources[f.puzzle_file].name(),
                    "puzzle_line": f.puzzle_line,
                    "answer_file": answer_names[answer_file].name(),
                    "answer_line": answer_line,
                    "reason": f.failure.to_string(),
                })
            })
            .collect();
        let report = serde_json::json!({
            "puzzles": puzzles_name,
            "answers": answers_name,
            "records": checked,
            "passed": passed,
            "failed": failures.len(),
            "count_mismatch": mismatch,
            "seconds": seconds,
            "failures": list,
        });
        print_stdout(&(serde_json::to_string_pretty(&report)? + "\n"))?;
    } else {
        let mut text = String::new();
        for f in failures.iter().take(SHOWN) {
            let answer_at = match f.answer_at {
                Some((file, line)) => format!(", {}:{line}", answer_names[file].name()),
                None => String::new(),
            };
            let _ = writeln!(
                text,
                "record {} ({}:{}{answer_at}): {}",
                f.record,
                puzzle_sources[f.puzzle_file].name(),
                f.puzzle_line,
                f.failure
            );
        }
        if failures.len() > SHOWN {
            let _ = writeln!(text, "... and {} more failures", failures.len() - SHOWN);
        }
        if let Some(m) = &mismatch {
            let _ = writeln!(text, "record counts differ: {m}");
        }
        let verdict = if failures.is_empty() && mismatch.is_none() {
            "all answers are right"
        } else {
            "FAILED"
        };
        let _ = writeln!(
            text,
            "{checked} records checked: {passed} passed, {} failed ({:.3} s): {verdict}",
            failures.len(),
            seconds
        );
        print_stdout(&text)?;
    }
    Ok(if failures.is_empty() && mismatch.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
