//! Answers as `verify` reads them: a [`Claim`] from any form `solve`
//! writes (a line with a solution or a status word, a csv row, a jsonl
//! object) or from the text that follows a puzzle on its own line
//! (`puzzle,solution`, `puzzle:count:solution`), or from the answer
//! columns of a CSV or table ([`AnswerColumns`]).

use crate::puzzle::grid::{Grid, ParseError, CELLS};
use crate::puzzle::Status;

/// What an answer record says about its puzzle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claim {
    /// A claimed status; `None` when the answer is only a solution.
    pub status: Option<Status>,
    /// A claimed number of solutions (csv, jsonl, `puzzle:count:solution`).
    pub solutions: Option<u32>,
    /// A claimed solution, or the reason the text given as one is not a grid.
    pub solution: Option<Result<Grid, ParseError>>,
}

/// The forms an answers file can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerFormat {
    /// A solution or a status word per line.
    Line,
    /// CSV rows with a header naming the answer's columns: `solve --format
    /// csv` output (`line,puzzle,status,solutions,solution,guesses`, or
    /// `file,` before them), the same columns as Spark writes them, or a
    /// solution column (`quizzes,solutions`).
    Csv(AnswerColumns),
    /// `solve --format jsonl` objects.
    Jsonl,
}

/// Tells an answers file's form from its first non-comment line, and
/// whether that line is a header to skip: a CSV header (two names or more,
/// or one of `solution`, `solutions`, `answer`) gives the answer's columns
/// ([`AnswerColumns::of_header`]); an answers CSV whose header names none
/// is an error.
pub fn detect_answers(first: &[u8]) -> Result<(AnswerFormat, bool), BadAnswer> {
    let t = first.trim_ascii();
    if t.starts_with(b"{") {
        return Ok((AnswerFormat::Jsonl, false));
    }
    let one_answer_name = crate::read::ANSWER_COLUMNS
        .iter()
        .any(|n| t.eq_ignore_ascii_case(n.as_bytes()));
    let header = one_answer_name || (t.contains(&b',') && crate::read::is_csv_header(t));
    if !header {
        return Ok((AnswerFormat::Line, false));
    }
    match AnswerColumns::of_header(t) {
        Some(columns) => Ok((AnswerFormat::Csv(columns), true)),
        None => Err(BadAnswer(format!(
            "which column holds the answers? The header {:?} has no solution, solutions or \
             answer column (nor status and solution, as solve writes)",
            String::from_utf8_lossy(t)
        ))),
    }
}

/// Why an answer record could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unreadable answer: {0}")]
pub struct BadAnswer(pub String);

pub(crate) fn solution_field(text: &str) -> Option<Result<Grid, ParseError>> {
    let t = text.trim();
    (!t.is_empty()).then(|| Grid::parse_line(t.as_bytes()))
}

pub(crate) fn status_field(text: &str) -> Result<Option<Status>, BadAnswer> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    Status::from_word(t)
        .map(Some)
        .ok_or_else(|| BadAnswer(format!("unknown status {t:?}")))
}

pub(crate) fn count_field(text: &str) -> Result<Option<u32>, BadAnswer> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    parse_count(t).map(Some)
}

/// A solution count: a non-negative integer written in digits only (`+1`,
/// `1.0`, `-1` and `1e3` are not counts).
pub(crate) fn parse_count(t: &str) -> Result<u32, BadAnswer> {
    let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    match digits.then(|| t.parse::<u32>()) {
        Some(Ok(n)) => Ok(n),
        _ => Err(BadAnswer(format!(
            "solution count {t:?} is not a non-negative integer"
        ))),
    }
}

/// Splits one CSV row into fields, as every CSV input is read
/// ([`crate::read::csv_fields`]); bytes that are not UTF-8 become U+FFFD.
pub fn split_csv(row: &str) -> Vec<String> {
    crate::read::csv_fields(row.as_bytes())
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

/// Reads one answer record (its text without line end) in `format`.
pub fn parse_answer(format: AnswerFormat, text: &[u8]) -> Result<Claim, BadAnswer> {
    // from_utf8 checks ASCII a word at a time; the lossy form walks byte
    // by byte (a tenth of verify's time), and is needed only for bad bytes.
    let text = match std::str::from_utf8(text) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(text),
    };
    match format {
        AnswerFormat::Line => {
            let t = text.trim();
            match Status::from_word(t) {
                Some(status) => Ok(Claim {
                    status: Some(status),
                    ..Claim::default()
                }),
                None => Ok(Claim {
                    solution: Some(Grid::parse_line(t.as_bytes())),
                    ..Claim::default()
                }),
            }
        }
        AnswerFormat::Csv(columns) => {
            let fields = split_csv(&text);
            let field = |k: usize| {
                fields.get(k).map(String::as_str).ok_or_else(|| {
                    BadAnswer(format!(
                        "csv row has {} fields, and the answer is in column {}",
                        fields.len(),
                        k + 1
                    ))
                })
            };
            let Some(status) = columns.status else {
                return parse_answer(AnswerFormat::Line, field(columns.solution)?.as_bytes());
            };
            Ok(Claim {
                status: status_field(field(status)?)?,
                solutions: match columns.count {
                    Some(k) => count_field(field(k)?)?,
                    None => None,
                },
                solution: solution_field(field(columns.solution)?),
            })
        }
        AnswerFormat::Jsonl => {
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| BadAnswer(format!("bad JSON: {e}")))?;
            let serde_json::Value::Object(fields) = v else {
                return Err(BadAnswer("not a JSON object".into()));
            };
            // A field that is present must have its type: a count of
            // `"1"`, `1.0` or `-1` is a lie about the format, not a count.
            let text_field = |name: &str| -> Result<Option<&str>, BadAnswer> {
                match fields.get(name) {
                    None | Some(serde_json::Value::Null) => Ok(None),
                    Some(serde_json::Value::String(s)) => Ok(Some(s)),
                    Some(other) => Err(BadAnswer(format!("\"{name}\" is not a string: {other}"))),
                }
            };
            let status = match text_field("status")? {
                Some(s) => status_field(s)?,
                None => None,
            };
            let solutions = match fields.get("solutions") {
                None | Some(serde_json::Value::Null) => None,
                Some(n) => Some(
                    n.as_u64()
                        .filter(|_| n.is_u64())
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| {
                            BadAnswer(format!("\"solutions\" is not a non-negative integer: {n}"))
                        })?,
                ),
            };
            let solution = text_field("solution")?.and_then(solution_field);
            Ok(Claim {
                status,
                solutions,
                solution,
            })
        }
    }
}

/// Reads the answer that follows a puzzle on its own line: after the 81
/// cells, a separator, then `solution` (`puzzle,solution`, the Kaggle CSV,
/// `puzzle,solution,clues,difficulty`) or `count:solution`
/// (`puzzle:count:solution`). Fields after the solution are ignored. A
/// field is taken as a count only when it is shorter than a grid and
/// another field follows it. `None` when the line carries nothing after the
/// puzzle.
pub fn embedded_answer(line: &[u8]) -> Result<Claim, BadAnswer> {
    let none = || BadAnswer("no answer follows the puzzle".into());
    let text = String::from_utf8_lossy(line);
    let t = text.trim();
    // The puzzle's 81 cells end before the first separator.
    let cut = t.find([',', ':', ';', '\t', ' ']).ok_or_else(none)?;
    let rest: Vec<&str> = t[cut + 1..]
        .split([',', ':', ';', '\t', ' '])
        .filter(|f| !f.is_empty())
        .collect();
    let solution = |s: &str| Some(Grid::parse_line(s.as_bytes()));
    match rest.as_slice() {
        [] => Err(none()),
        [count, next, ..] if count.len() < CELLS && count.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Claim {
                solutions: Some(parse_count(count)?),
                solution: solution(next),
                ..Claim::default()
            })
        }
        [first, ..] => Ok(Claim {
            solution: solution(first),
            ..Claim::default()
        }),
    }
}

/// Where a CSV record carries its answer (columns from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnswerColumns {
    /// The solution, or a status word when `status` is `None`.
    pub solution: usize,
    /// A `status` column beside the solution (a `solve` output, from the
    /// command line or Spark's `solve_df`): the claim is the status, the
    /// count in `count` (a `solutions` column) if any, and the solution,
    /// empty where there is none.
    pub status: Option<usize>,
    pub count: Option<usize>,
}

impl AnswerColumns {
    /// A column of solutions or status words.
    pub fn single(solution: usize) -> AnswerColumns {
        AnswerColumns {
            solution,
            status: None,
            count: None,
        }
    }

    /// The columns of `solve --format csv` output, after a `file` column
    /// when `with_file`.
    pub fn solve_output(with_file: bool) -> AnswerColumns {
        let skip = usize::from(with_file);
        AnswerColumns {
            solution: skip + 4,
            status: Some(skip + 2),
            count: Some(skip + 3),
        }
    }

    /// The answer's columns in a CSV header: `status` and `solution` (with
    /// `solutions` as the count if there), as `solve` writes them, else the
    /// first `solution`, `solutions` or `answer` column.
    pub fn of_header(header: &[u8]) -> Option<AnswerColumns> {
        use crate::read::{find_column, ANSWER_COLUMNS};
        if let (Some(status), Some(solution)) = (
            find_column(header, &["status"]),
            find_column(header, &["solution"]),
        ) {
            return Some(AnswerColumns {
                solution,
                status: Some(status),
                count: find_column(header, &["solutions"]),
            });
        }
        find_column(header, &ANSWER_COLUMNS).map(AnswerColumns::single)
    }
}

/// Reads the answer a CSV record of puzzles carries in `columns`
/// (`id,puzzle,solution,...`, or `puzzle,status,solutions,solution`).
pub fn column_answer(record: &[u8], columns: AnswerColumns) -> Result<Claim, BadAnswer> {
    parse_answer(AnswerFormat::Csv(columns), record)
}
