//! Checking answers: does a claimed solution or status hold for its puzzle?
//!
//! An answer is read into a [`Claim`] from any form `solve` writes (a line
//! with a solution or a status word, a csv row, a jsonl object) or from the
//! text that follows a puzzle on its own line (`puzzle,solution`,
//! `puzzle:count:solution`). [`check`] then proves the claim or says, in a
//! [`Failure`], exactly what is wrong with it.

use crate::batch::Status;
use crate::grid::{Grid, ParseError, Unit, CELLS, COL_OF, ROW_OF};
use crate::solver::Solver;
use std::fmt;

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
    /// `solve --format csv` rows; `with_file` when a `file` column leads.
    Csv { with_file: bool },
    /// `solve --format jsonl` objects.
    Jsonl,
}

/// Tells an answers file's form from its first non-comment line, and
/// whether that line is a header to skip.
pub fn detect_answers(first: &[u8]) -> (AnswerFormat, bool) {
    let t = first.trim_ascii();
    if t.starts_with(b"line,puzzle,status") {
        (AnswerFormat::Csv { with_file: false }, true)
    } else if t.starts_with(b"file,line,puzzle,status") {
        (AnswerFormat::Csv { with_file: true }, true)
    } else if t.starts_with(b"{") {
        (AnswerFormat::Jsonl, false)
    } else {
        (AnswerFormat::Line, false)
    }
}

/// Why an answer record could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unreadable answer: {0}")]
pub struct BadAnswer(pub String);

fn solution_field(text: &str) -> Option<Result<Grid, ParseError>> {
    let t = text.trim();
    (!t.is_empty()).then(|| Grid::parse_line(t.as_bytes()))
}

fn status_field(text: &str) -> Result<Option<Status>, BadAnswer> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    Status::from_word(t)
        .map(Some)
        .ok_or_else(|| BadAnswer(format!("unknown status {t:?}")))
}

fn count_field(text: &str) -> Result<Option<u32>, BadAnswer> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse()
        .map(Some)
        .map_err(|_| BadAnswer(format!("solution count {t:?} is not a number")))
}

/// Splits one CSV row into fields (quotes and doubled quotes handled).
pub fn split_csv(row: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = row.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().expect("one field").push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => fields.last_mut().expect("one field").push(c),
        }
    }
    fields
}

/// Reads one answer record (its text without line end) in `format`.
pub fn parse_answer(format: AnswerFormat, text: &[u8]) -> Result<Claim, BadAnswer> {
    let text = String::from_utf8_lossy(text);
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
        AnswerFormat::Csv { with_file } => {
            let fields = split_csv(&text);
            let skip = usize::from(with_file);
            if fields.len() != 6 + skip {
                return Err(BadAnswer(format!(
                    "csv row has {} fields, expected {}",
                    fields.len(),
                    6 + skip
                )));
            }
            Ok(Claim {
                status: status_field(&fields[skip + 2])?,
                solutions: count_field(&fields[skip + 3])?,
                solution: solution_field(&fields[skip + 4]),
            })
        }
        AnswerFormat::Jsonl => {
            let v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| BadAnswer(format!("bad JSON: {e}")))?;
            let status = match v.get("status").and_then(|s| s.as_str()) {
                Some(s) => status_field(s)?,
                None => None,
            };
            let solutions = v
                .get("solutions")
                .and_then(|n| n.as_u64())
                .map(|n| n.min(u64::from(u32::MAX)) as u32);
            let solution = v
                .get("solution")
                .and_then(|s| s.as_str())
                .and_then(solution_field);
            Ok(Claim {
                status,
                solutions,
                solution,
            })
        }
    }
}

/// Reads the answer that follows a puzzle on its own line: after the 81
/// cells, a separator, then `solution` (`puzzle,solution`, Kaggle CSV) or
/// `count:solution` (`puzzle:count:solution`). `None` when the line carries
/// nothing after the puzzle.
pub fn embedded_answer(line: &[u8]) -> Option<Claim> {
    let text = String::from_utf8_lossy(line);
    let t = text.trim();
    // The puzzle's 81 cells end before the first separator.
    let cut = t.find([',', ':', ';', '\t', ' '])?;
    let rest: Vec<&str> = t[cut + 1..]
        .split([',', ':', ';', '\t', ' '])
        .filter(|f| !f.is_empty())
        .collect();
    match rest.as_slice() {
        [] => None,
        [solution] => Some(Claim {
            solution: Some(Grid::parse_line(solution.as_bytes())),
            ..Claim::default()
        }),
        [count, solution, ..] if count.bytes().all(|b| b.is_ascii_digit()) => Some(Claim {
            solutions: count.parse().ok(),
            solution: Some(Grid::parse_line(solution.as_bytes())),
            ..Claim::default()
        }),
        [solution, ..] => Some(Claim {
            solution: Some(Grid::parse_line(solution.as_bytes())),
            ..Claim::default()
        }),
    }
}

/// Why an answer is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The answer record could not be read.
    Unreadable(String),
    /// The text given as a solution is not a grid.
    SolutionMalformed(ParseError),
    /// The solution has empty cells.
    Incomplete { empty: usize },
    /// The solution repeats a digit in a unit.
    BreaksRule { unit: Unit, digit: u8 },
    /// The solution changed a given.
    ChangedGiven {
        row: usize,
        col: usize,
        given: u8,
        found: u8,
    },
    /// The puzzle is malformed, but the answer does not say so.
    PuzzleMalformed(ParseError),
    /// The answer says malformed, but the puzzle parses.
    NotMalformed,
    /// The puzzle's givens break a rule, but the answer does not say invalid.
    PuzzleInvalid { unit: Unit, digit: u8 },
    /// The answer says invalid, but no given repeats.
    NotInvalid,
    /// The answer says unsolvable, but the puzzle has a solution.
    HasSolution,
    /// The claimed count (or status) disagrees with the puzzle's count.
    WrongCount { claimed: String, found: u32 },
    /// The answer has neither a solution nor a status that needs none.
    NoSolution { status: Status },
    /// `--unique`: the puzzle does not have exactly one solution.
    NotUnique { found: u32 },
}

fn count_words(n: u32) -> &'static str {
    match n {
        0 => "no solution",
        1 => "exactly one solution",
        _ => "more than one solution",
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Unreadable(why) => write!(f, "unreadable answer: {why}"),
            Failure::SolutionMalformed(e) => write!(f, "solution is not a grid: {e}"),
            Failure::Incomplete { empty } => write!(f, "solution has {empty} empty cells"),
            Failure::BreaksRule { unit, digit } => {
                write!(f, "solution breaks a rule: {unit} repeats digit {digit}")
            }
            Failure::ChangedGiven {
                row,
                col,
                given,
                found,
            } => write!(
                f,
                "solution changed the given {given} at row {row}, column {col} to {found}"
            ),
            Failure::PuzzleMalformed(e) => {
                write!(
                    f,
                    "puzzle is malformed ({e}) but the answer does not say so"
                )
            }
            Failure::NotMalformed => write!(f, "claimed malformed but the puzzle parses"),
            Failure::PuzzleInvalid { unit, digit } => write!(
                f,
                "puzzle is invalid ({unit} repeats digit {digit}) but the answer does not say so"
            ),
            Failure::NotInvalid => write!(f, "claimed invalid but no given repeats"),
            Failure::HasSolution => write!(f, "claimed unsolvable but has a solution"),
            Failure::WrongCount { claimed, found } => {
                write!(
                    f,
                    "claimed {claimed} but the puzzle has {}",
                    count_words(*found)
                )
            }
            Failure::NoSolution { status } => {
                write!(f, "claimed {} but gives no solution", status.word())
            }
            Failure::NotUnique { found } => {
                write!(f, "not unique: the puzzle has {}", count_words(*found))
            }
        }
    }
}

/// Options for [`check`].
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    /// Demand exactly one solution for every puzzle.
    pub unique: bool,
}

/// Checks a solution against the rules and the puzzle's givens.
pub fn check_solution(puzzle: &Grid, solution: &Grid) -> Result<(), Failure> {
    let empty = solution.cells().iter().filter(|&&v| v == 0).count();
    if empty > 0 {
        return Err(Failure::Incomplete { empty });
    }
    if let Err(c) = solution.validate() {
        return Err(Failure::BreaksRule {
            unit: c.unit,
            digit: c.digit,
        });
    }
    for i in 0..CELLS {
        let (given, found) = (puzzle.cells()[i], solution.cells()[i]);
        if given != 0 && given != found {
            return Err(Failure::ChangedGiven {
                row: ROW_OF[i] as usize + 1,
                col: COL_OF[i] as usize + 1,
                given,
                found,
            });
        }
    }
    Ok(())
}

/// Proves `claim` for the puzzle `parsed`, solving with `solver` when a
/// status or count must be confirmed.
pub fn check(
    solver: &mut dyn Solver,
    parsed: &Result<Grid, ParseError>,
    claim: &Claim,
    options: CheckOptions,
) -> Result<(), Failure> {
    let puzzle = match (parsed, claim.status) {
        (Err(_), Some(Status::Malformed)) => return Ok(()),
        (Err(e), _) => return Err(Failure::PuzzleMalformed(e.clone())),
        (Ok(_), Some(Status::Malformed)) => return Err(Failure::NotMalformed),
        (Ok(p), _) => p,
    };
    match (puzzle.validate(), claim.status) {
        (Err(_), Some(Status::Invalid)) => return Ok(()),
        (Err(c), _) => {
            return Err(Failure::PuzzleInvalid {
                unit: c.unit,
                digit: c.digit,
            })
        }
        (Ok(()), Some(Status::Invalid)) => return Err(Failure::NotInvalid),
        (Ok(()), _) => {}
    }
    let solution = match &claim.solution {
        Some(Ok(s)) => {
            check_solution(puzzle, s)?;
            Some(*s)
        }
        Some(Err(e)) => return Err(Failure::SolutionMalformed(e.clone())),
        None => None,
    };
    // A count claimed next to `solved` only says one was found (limit 1);
    // any other count claims the puzzle's number of solutions.
    let count_claim = match claim.status {
        Some(Status::Solved) => None,
        _ => claim.solutions,
    };
    // What must be counted: a status or count claim, or --unique.
    let needs_count = options.unique
        || count_claim.is_some()
        || matches!(
            claim.status,
            Some(Status::Unique | Status::Multiple | Status::Unsolvable)
        );
    if solution.is_none() && !matches!(claim.status, Some(Status::Unsolvable)) {
        return Err(Failure::NoSolution {
            status: claim.status.unwrap_or(Status::Solved),
        });
    }
    if !needs_count {
        return Ok(());
    }
    let found = solver.solve(puzzle, 2).solutions;
    match claim.status {
        Some(Status::Unsolvable) if found > 0 => return Err(Failure::HasSolution),
        Some(Status::Unique) if found != 1 => {
            return Err(Failure::WrongCount {
                claimed: "unique".into(),
                found,
            })
        }
        Some(Status::Multiple) if found != 2 => {
            return Err(Failure::WrongCount {
                claimed: "multiple".into(),
                found,
            })
        }
        _ => {}
    }
    if let Some(n) = count_claim {
        // Counts are capped at 2 when compared: 2 means "two or more".
        if n.min(2) != found {
            return Err(Failure::WrongCount {
                claimed: format!("{n} solutions"),
                found,
            });
        }
    }
    if options.unique && found != 1 {
        return Err(Failure::NotUnique { found });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::FastSolver;

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const S: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn ok(p: &str) -> Result<Grid, ParseError> {
        Grid::parse_line(p.as_bytes())
    }

    fn line_claim(text: &str) -> Claim {
        parse_answer(AnswerFormat::Line, text.as_bytes()).unwrap()
    }

    fn run(puzzle: &str, claim: &Claim, unique: bool) -> Result<(), Failure> {
        check(
            &mut FastSolver::new(),
            &ok(puzzle),
            claim,
            CheckOptions { unique },
        )
    }

    #[test]
    fn a_right_solution_passes() {
        assert_eq!(run(P, &line_claim(S), false), Ok(()));
        assert_eq!(run(P, &line_claim(S), true), Ok(()));
    }

    #[test]
    fn wrong_solutions_say_what_is_wrong() {
        let mut swapped = S.to_string();
        swapped.replace_range(0..2, "35");
        assert_eq!(
            run(P, &line_claim(&swapped), false)
                .unwrap_err()
                .to_string(),
            "solution breaks a rule: column 2 repeats digit 5"
        );
        // A valid grid that is not this puzzle's: digits 1 and 2 swapped.
        let other: String = S
            .chars()
            .map(|c| match c {
                '1' => '2',
                '2' => '1',
                c => c,
            })
            .collect();
        let e = run(P, &line_claim(&other), false).unwrap_err();
        assert!(matches!(e, Failure::ChangedGiven { .. }), "{e}");
        assert!(
            e.to_string().starts_with("solution changed the given"),
            "{e}"
        );
        let mut holes = S.to_string();
        holes.replace_range(5..7, "..");
        assert_eq!(
            run(P, &line_claim(&holes), false),
            Err(Failure::Incomplete { empty: 2 })
        );
        assert!(matches!(
            run(P, &line_claim("12345"), false),
            Err(Failure::SolutionMalformed(_))
        ));
    }

    #[test]
    fn status_claims_are_checked_by_solving() {
        let unsolvable = format!("12.456789{}..3{}", ".".repeat(18), ".".repeat(51));
        assert_eq!(run(&unsolvable, &line_claim("unsolvable"), false), Ok(()));
        assert_eq!(
            run(P, &line_claim("unsolvable"), false),
            Err(Failure::HasSolution)
        );
        assert_eq!(
            run(P, &line_claim("unsolvable"), false)
                .unwrap_err()
                .to_string(),
            "claimed unsolvable but has a solution"
        );
        let mut invalid = P.to_string();
        invalid.replace_range(2..3, "5");
        assert_eq!(run(&invalid, &line_claim("invalid"), false), Ok(()));
        assert_eq!(
            run(P, &line_claim("invalid"), false),
            Err(Failure::NotInvalid)
        );
        assert!(matches!(
            run(&invalid, &line_claim(S), false),
            Err(Failure::PuzzleInvalid { .. })
        ));
        let bad: Result<Grid, ParseError> = Grid::parse_line(b"xyz");
        let mut s = FastSolver::new();
        assert_eq!(
            check(
                &mut s,
                &bad,
                &line_claim("malformed"),
                CheckOptions::default()
            ),
            Ok(())
        );
        assert!(matches!(
            check(&mut s, &bad, &line_claim(S), CheckOptions::default()),
            Err(Failure::PuzzleMalformed(_))
        ));
        assert_eq!(
            run(P, &line_claim("malformed"), false),
            Err(Failure::NotMalformed)
        );
    }

    #[test]
    fn counts_and_uniqueness_are_checked() {
        let empty = ".".repeat(81);
        let claim = |status: &str, n: u32| Claim {
            status: Status::from_word(status),
            solutions: Some(n),
            solution: Some(ok(S)),
        };
        assert_eq!(run(P, &claim("unique", 1), false), Ok(()));
        assert_eq!(run(&empty, &claim("multiple", 2), false), Ok(()));
        assert!(matches!(
            run(&empty, &claim("unique", 1), false),
            Err(Failure::WrongCount { .. })
        ));
        assert!(matches!(
            run(P, &claim("multiple", 2), false),
            Err(Failure::WrongCount { .. })
        ));
        assert_eq!(
            run(&empty, &line_claim(S), true),
            Err(Failure::NotUnique { found: 2 })
        );
        assert_eq!(run(&empty, &line_claim(S), false), Ok(()));
    }

    #[test]
    fn answers_are_read_in_every_form() {
        let csv = format!("in.txt,7,{P},unique,1,{S},0");
        let c = parse_answer(AnswerFormat::Csv { with_file: true }, csv.as_bytes()).unwrap();
        assert_eq!(c.status, Some(Status::Unique));
        assert_eq!(c.solutions, Some(1));
        assert_eq!(c.solution, Some(ok(S)));
        let row = format!("3,{P},unsolvable,0,,0");
        let c = parse_answer(AnswerFormat::Csv { with_file: false }, row.as_bytes()).unwrap();
        assert_eq!((c.status, c.solution), (Some(Status::Unsolvable), None));
        let json = format!(
            r#"{{"line":1,"puzzle":"{P}","status":"solved","solutions":1,"solution":"{S}","guesses":0}}"#
        );
        let c = parse_answer(AnswerFormat::Jsonl, json.as_bytes()).unwrap();
        assert_eq!(c.solution, Some(ok(S)));
        assert!(parse_answer(AnswerFormat::Jsonl, b"{oops").is_err());
        assert!(parse_answer(AnswerFormat::Csv { with_file: false }, b"1,2").is_err());
        assert_eq!(
            detect_answers(b"line,puzzle,status,solutions,solution,guesses"),
            (AnswerFormat::Csv { with_file: false }, true)
        );
        assert_eq!(detect_answers(S.as_bytes()), (AnswerFormat::Line, false));
        assert_eq!(
            detect_answers(b"{\"line\":1}"),
            (AnswerFormat::Jsonl, false)
        );
    }

    #[test]
    fn embedded_answers_follow_the_puzzle() {
        let c = embedded_answer(format!("{P},{S}").as_bytes()).unwrap();
        assert_eq!(c.solution, Some(ok(S)));
        let c = embedded_answer(format!("{P}:1:{S}").as_bytes()).unwrap();
        assert_eq!((c.solutions, c.solution), (Some(1), Some(ok(S))));
        assert_eq!(embedded_answer(P.as_bytes()), None);
        assert_eq!(
            run(
                P,
                &embedded_answer(format!("{P}:1:{S}").as_bytes()).unwrap(),
                false
            ),
            Ok(())
        );
        assert!(matches!(
            run(
                P,
                &embedded_answer(format!("{P}:2:{S}").as_bytes()).unwrap(),
                false
            ),
            Err(Failure::WrongCount { .. })
        ));
    }
}
