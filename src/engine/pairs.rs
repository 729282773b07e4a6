//! Pairing a puzzle input with an answer input, as `verify` checks them:
//! the puzzles of files, folders and tables record by record
//! ([`PuzzleFiles`]), and their answers from a file of their own in any
//! form `solve` writes, from the answer columns beside the puzzles, or
//! from an npy array with its status file ([`AnswerFiles`]), each
//! located by file and line.

use crate::engine::Source;
use crate::puzzle::grid::ParseError;
use crate::read::answers::{detect_answers, AnswerColumns, AnswerFormat};
use crate::read::mapfile::MappedFile;
use crate::read::parquet::{self, TableSource};
use crate::read::{
    bom_len, count_newlines, csv_header, detect_layout, find_column, is_skipped, packed_rows,
    record_text_end, records, trim_line_end, ColumnSpec, Framing, InputFormat, ParsedRecord,
    StreamChunks, ANSWER_COLUMNS, MAX_RECORD, PUZZLE_COLUMNS,
};
use crate::Puzzle;
use anyhow::{bail, Context};
use std::io::Read;
use std::sync::Arc;

/// Records checked per parallel job.
pub const BATCH: usize = 4096;

/// One puzzle and its answer, as paired (and copied out of the inputs) on
/// the reading thread.
pub struct Pair {
    pub record: u64,
    /// The puzzle's file (an index into the puzzles' files) and line.
    pub puzzle_file: usize,
    pub puzzle_line: u64,
    pub puzzle: Result<Puzzle, ParseError>,
    /// The puzzle's record text, kept when it carries its own answer, and
    /// the answer's column in a CSV record.
    pub puzzle_raw: Vec<u8>,
    pub answer_column: Option<AnswerColumns>,
    pub answer: Option<Answer>,
}

/// The bytes of one input file, whole (mapped) or a chunk at a time (a
/// stream), each with the line number of its first line.
pub enum Chunks {
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
pub enum Piece {
    Mapped(Arc<MappedFile>, usize),
    Owned(Vec<u8>),
}

impl Piece {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Piece::Mapped(map, start) => &map.bytes()[*start..],
            Piece::Owned(bytes) => bytes,
        }
    }
}

/// Rows of a table read at a time.
pub const TABLE_ROWS: usize = 4096;

impl Chunks {
    /// Opens `source` (mapping it if it is a regular file). `frame` looks
    /// at its top (for a stream, with leading blank and comment lines
    /// dropped) and says how to cut it, how many bytes of header to skip,
    /// and whether records are numbered by CSV data row (from 1) rather
    /// than by line.
    pub fn new(
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
    pub fn next(&mut self, source: &Source) -> anyhow::Result<Option<(Piece, u64)>> {
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

pub fn read_error(source: &Source) -> String {
    format!("cannot read {}", source.described())
}

/// Where a reader is: the current piece of input, the offset reached in it
/// and the line number there.
pub struct Cursor<'a> {
    pub source: &'a Source,
    pub chunks: Chunks,
    pub chunk: Piece,
    pub pos: usize,
    pub line: u64,
}

impl<'a> Cursor<'a> {
    pub fn new(source: &'a Source, chunks: Chunks) -> Self {
        Cursor {
            source,
            chunks,
            chunk: Piece::Owned(Vec::new()),
            pos: 0,
            line: 1,
        }
    }

    /// Moves to the next piece when this one is used up; false at the end.
    pub fn ready(&mut self) -> anyhow::Result<bool> {
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
pub struct PuzzleReader<'a> {
    pub at: Cursor<'a>,
    pub format: InputFormat,
    /// A CSV input's header line.
    pub header: Option<Vec<u8>>,
}

impl<'a> PuzzleReader<'a> {
    pub fn new(
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
    pub fn read(
        &mut self,
        n: usize,
        mut each: impl FnMut(ParsedRecord<'_>),
    ) -> anyhow::Result<usize> {
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
pub enum AnswerReader<'a> {
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
pub type AnswerRows = Vec<(u64, Vec<u8>)>;

/// Makes the next batch of answer rows.
pub type RowBatches<'a> = Box<dyn FnMut() -> anyhow::Result<Option<AnswerRows>> + 'a>;

impl<'a> AnswerReader<'a> {
    /// `quiet`: no warning that an npy array's status file is missing.
    pub fn new(source: &'a Source, quiet: bool) -> anyhow::Result<Self> {
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

    pub fn format(&self) -> AnswerFormat {
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
    pub fn table(
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
    pub fn npy(source: &'a Source, map: Arc<MappedFile>, quiet: bool) -> anyhow::Result<Self> {
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
    pub fn next_record(&mut self) -> anyhow::Result<Option<(u64, Vec<u8>, bool)>> {
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
pub fn claimed_counts(column: &dyn arrow_array::Array) -> Vec<serde_json::Value> {
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
    pub fn each<T, F: Fn(T) -> Value>(values: impl Iterator<Item = Option<T>>, f: F) -> Vec<Value> {
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
pub struct PuzzleFiles<'a> {
    pub sources: &'a [Source],
    pub forced: Option<InputFormat>,
    pub column: Option<&'a ColumnSpec>,
    /// No answers file is named: each record carries its answer.
    pub carried: Option<Option<&'a ColumnSpec>>,
    /// The file being read (its index in `sources`), its reader and, for
    /// a CSV carrying its answers, their column.
    pub current: Option<(usize, PuzzleReader<'a>, Option<AnswerColumns>)>,
    pub next: usize,
    /// The form of the first file: a table or not, the same for all.
    pub table: bool,
}

impl<'a> PuzzleFiles<'a> {
    /// Opens the first file (so that its errors come first, and its form
    /// is known). `carried`: no answers file is named, and the answer
    /// column of a CSV is the one named, if any.
    pub fn new(
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
    pub fn open_next(&mut self) -> anyhow::Result<bool> {
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
    pub fn read(
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
pub struct Answer {
    pub file: usize,
    pub line: u64,
    pub format: AnswerFormat,
    pub text: Vec<u8>,
    /// A CSV record longer than [`MAX_RECORD`]: `text` holds only its
    /// start when it was streamed, so it is unreadable however it is read.
    pub too_long: bool,
}

/// The answer records of an input's files, one file after the other (see
/// [`PuzzleFiles`]): an answers input, or the answer columns of tables of
/// puzzles (`beside_puzzles`, the column named or found by its name).
pub struct AnswerFiles<'a> {
    pub sources: &'a [Source],
    pub beside_puzzles: Option<Option<&'a ColumnSpec>>,
    pub current: Option<(usize, AnswerReader<'a>)>,
    pub next: usize,
    pub quiet: bool,
}

impl<'a> AnswerFiles<'a> {
    pub fn new(
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
    pub fn open_next(&mut self) -> anyhow::Result<bool> {
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
    pub fn next_answer(&mut self) -> anyhow::Result<Option<Answer>> {
        loop {
            let Some((file, reader)) = &mut self.current else {
                return Ok(None);
            };
            if let Some((line, text, too_long)) = reader.next_record()? {
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
pub fn answer_column(
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

/// The pairs of a puzzle input and its answers (an input of their own, a
/// column beside the puzzles, or the text after each puzzle), made in
/// batches of [`BATCH`] on the calling thread (cheap splitting and
/// copying) for a pool to check. Ends early, with [`PairBatches::mismatch`]
/// saying so, when one side runs out before the other.
pub struct PairBatches<'a> {
    puzzles: PuzzleFiles<'a>,
    answers: Option<AnswerFiles<'a>>,
    /// Answers of their own: the puzzle's text need not be kept.
    separate: bool,
    /// Records paired so far.
    record: u64,
    mismatch: Option<String>,
    puzzles_name: String,
    answers_name: String,
}

/// How a pairing reads its puzzle input (as `verify`'s options say).
#[derive(Clone, Copy, Default)]
pub struct PairOptions<'a> {
    /// The puzzles' form, when not detected.
    pub forced: Option<InputFormat>,
    /// The puzzle column of a table.
    pub column: Option<&'a ColumnSpec>,
    /// The answer column of a table that carries its answers.
    pub answer_column: Option<&'a ColumnSpec>,
    /// No warnings on stderr.
    pub quiet: bool,
}

impl<'a> PairBatches<'a> {
    /// The puzzles of `puzzle_sources` (one input: a file, or a folder's
    /// part files) paired with their answers: from `answer_sources`, an
    /// input of their own; without it, from an answer column of a table of
    /// puzzles (read row by row beside them), or from the text after each
    /// puzzle. The names are the two inputs as the user gave them.
    pub fn open(
        puzzle_sources: &'a [Source],
        answer_sources: Option<&'a [Source]>,
        options: PairOptions<'a>,
        puzzles_name: String,
        answers_name: String,
    ) -> anyhow::Result<PairBatches<'a>> {
        let carried = answer_sources.is_none().then_some(options.answer_column);
        let puzzles = PuzzleFiles::new(puzzle_sources, options.forced, options.column, carried)?;
        let answers = match answer_sources {
            Some(sources) => Some(AnswerFiles::new(sources, None, options.quiet)?),
            None if puzzles.table => Some(AnswerFiles::new(
                puzzle_sources,
                Some(options.answer_column),
                options.quiet,
            )?),
            None => None,
        };
        Ok(PairBatches::new(
            puzzles,
            answers,
            puzzles_name,
            answers_name,
        ))
    }

    /// `puzzles_name` and `answers_name` name the two sides in the message
    /// of a mismatch.
    pub fn new(
        puzzles: PuzzleFiles<'a>,
        answers: Option<AnswerFiles<'a>>,
        puzzles_name: String,
        answers_name: String,
    ) -> PairBatches<'a> {
        PairBatches {
            separate: answers.is_some(),
            puzzles,
            answers,
            record: 0,
            mismatch: None,
            puzzles_name,
            answers_name,
        }
    }

    /// Why the pairing stopped before the end of both sides: one ran out
    /// after N records while the other has more.
    pub fn mismatch(&self) -> Option<&str> {
        self.mismatch.as_deref()
    }
}

impl Iterator for PairBatches<'_> {
    type Item = anyhow::Result<Vec<Pair>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.mismatch.is_some() {
            return None;
        }
        let (separate, puzzles_name, answers_name) =
            (self.separate, &self.puzzles_name, &self.answers_name);
        let record = &mut self.record;
        let mut batch: Vec<Pair> = Vec::with_capacity(BATCH);
        let read = self.puzzles.read(BATCH, |file, answer_column, p| {
            *record += 1;
            batch.push(Pair {
                record: *record,
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
        if let Some(answers) = &mut self.answers {
            for i in 0..batch.len() {
                match answers.next_answer() {
                    Ok(Some(a)) => batch[i].answer = Some(a),
                    Ok(None) => {
                        let done = batch[i].record - 1;
                        self.mismatch = Some(format!(
                            "{answers_name} ran out after {done} records; {puzzles_name} has more"
                        ));
                        batch.truncate(i);
                        break;
                    }
                    Err(e) => return Some(Err(e)),
                }
            }
            if batch.len() < BATCH && self.mismatch.is_none() {
                // The puzzles ran out: the answers must have too.
                match answers.next_answer() {
                    Ok(Some(_)) => {
                        self.mismatch = Some(format!(
                            "{puzzles_name} ran out after {} records; {answers_name} has more",
                            self.record
                        ))
                    }
                    Ok(None) => {}
                    Err(e) => return Some(Err(e)),
                }
            }
        }
        (!batch.is_empty()).then_some(Ok(batch))
    }
}
