//! Checking answers: does a claimed solution or status hold for its puzzle?
//!
//! An answer is read into a [`Claim`] by [`crate::read::answers`]; [`check`]
//! then proves the claim or says, in a [`Failure`], exactly what is wrong
//! with it.

use crate::engine::pairs::{Pair, PairBatches};
use crate::engine::pipeline::{run_ordered, Stop};
use crate::puzzle::grid::{Grid, ParseError, Unit, CELLS, COL_OF, ROW_OF};
use crate::puzzle::Puzzle;
use crate::puzzle::Status;
use crate::read::answers::{column_answer, embedded_answer, parse_answer, BadAnswer, Claim};
use crate::solver::Solver;
use std::fmt;
use std::ops::ControlFlow;

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
    /// Pencilmarks: the solution puts a digit where it is not a candidate.
    NotACandidate { row: usize, col: usize, digit: u8 },
    /// The puzzle is malformed, but the answer does not say so.
    PuzzleMalformed(ParseError),
    /// The answer says malformed, but the puzzle parses.
    NotMalformed,
    /// The puzzle's givens break a rule, but the answer does not say invalid.
    PuzzleInvalid { unit: Unit, digit: u8 },
    /// The answer says invalid, but no given repeats (no two cells of a
    /// unit are pinned to one digit).
    NotInvalid,
    /// The answer says unsolvable, but the puzzle has a solution.
    HasSolution,
    /// The claimed count (or status) disagrees with the puzzle's count.
    /// `found` solutions were counted with the search stopped at `limit`,
    /// so `found == limit` means "at least that many".
    WrongCount {
        claimed: String,
        found: u32,
        limit: u32,
    },
    /// The answer's status and count cannot both be true (`unique,3`).
    Contradictory { status: Status, count: u32 },
    /// Proving the claim needs more solutions counted than allowed.
    TooManyToCount { claimed: String, max: u32 },
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

/// `found` solutions counted by a search stopped at `limit`, in words.
fn counted_words(found: u32, limit: u32) -> String {
    match (found, found >= limit) {
        (0, _) => "no solution".into(),
        (1, false) => "exactly one solution".into(),
        (1, true) => "at least one solution".into(),
        (n, false) => format!("exactly {n} solutions"),
        (n, true) => format!("at least {n} solutions"),
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
            Failure::NotACandidate { row, col, digit } => write!(
                f,
                "solution puts {digit} at row {row}, column {col}, where it is not a candidate"
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
            Failure::NotInvalid => write!(f, "claimed invalid but the puzzle breaks no rule"),
            Failure::HasSolution => write!(f, "claimed unsolvable but has a solution"),
            Failure::WrongCount {
                claimed,
                found,
                limit,
            } => {
                write!(
                    f,
                    "claimed {claimed} but the puzzle has {}",
                    counted_words(*found, *limit)
                )
            }
            Failure::TooManyToCount { claimed, max } => write!(
                f,
                "cannot check the claim {claimed}: counting stops at {max} solutions (--max-count)"
            ),
            Failure::Contradictory { status, count } => write!(
                f,
                "answer contradicts itself: status {} with {count} solutions",
                status.word()
            ),
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
#[derive(Debug, Clone, Copy)]
pub struct CheckOptions {
    /// Demand exactly one solution for every puzzle.
    pub unique: bool,
    /// The most solutions counted to prove a claim: a claim that needs more
    /// (`P:4000000000:S`) fails as unverifiable instead of holding the run
    /// for an hour.
    pub max_count: u32,
}

/// The default [`CheckOptions::max_count`]: about 2.5 s of counting on an
/// empty grid.
pub const MAX_COUNT: u32 = 10_000_000;

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            unique: false,
            max_count: MAX_COUNT,
        }
    }
}

/// Checks a solution against the rules and the puzzle's givens (or, for
/// pencilmarks, its candidates).
pub fn check_solution(puzzle: &Puzzle, solution: &Grid) -> Result<(), Failure> {
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
    let row = |i: usize| ROW_OF[i] as usize + 1;
    let col = |i: usize| COL_OF[i] as usize + 1;
    match puzzle {
        Puzzle::Givens(givens) => {
            for i in 0..CELLS {
                let (given, found) = (givens.cells()[i], solution.cells()[i]);
                if given != 0 && given != found {
                    return Err(Failure::ChangedGiven {
                        row: row(i),
                        col: col(i),
                        given,
                        found,
                    });
                }
            }
        }
        Puzzle::Marks(marks) => {
            for i in 0..CELLS {
                let digit = solution.cells()[i];
                if marks.masks()[i] >> (digit - 1) & 1 == 0 {
                    return Err(Failure::NotACandidate {
                        row: row(i),
                        col: col(i),
                        digit,
                    });
                }
            }
        }
    }
    Ok(())
}

/// Proves `claim` for the puzzle `parsed`, solving with `solver` when a
/// status or count must be confirmed.
pub fn check(
    solver: &mut dyn Solver,
    parsed: &Result<Puzzle, ParseError>,
    claim: &Claim,
    options: CheckOptions,
) -> Result<(), Failure> {
    if let (Some(status @ (Status::Malformed | Status::Invalid)), Some(n)) =
        (claim.status, claim.solutions)
    {
        if n != 0 {
            return Err(Failure::Contradictory { status, count: n });
        }
    }
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
    let need = count_needed(claim, options)?;
    if solution.is_none() && !matches!(claim.status, Some(Status::Unsolvable)) {
        return Err(Failure::NoSolution {
            status: claim.status.unwrap_or(Status::Solved),
        });
    }
    let Some(need) = need else {
        return Ok(());
    };
    // Count one past what is claimed, so "exactly n" can be told from "more".
    let limit = match need {
        Need::Exactly(n, _) => n.saturating_add(1),
        Need::AtLeast(n, _) => n,
    }
    .max(if options.unique { 2 } else { 1 });
    if limit > options.max_count.max(2) {
        let claimed = match need {
            Need::Exactly(_, c) | Need::AtLeast(_, c) => c,
        };
        return Err(Failure::TooManyToCount {
            claimed,
            max: options.max_count,
        });
    }
    let found = puzzle.solve(solver, limit).solutions;
    let wrong = |claimed: &str| Failure::WrongCount {
        claimed: claimed.to_string(),
        found,
        limit,
    };
    match need {
        Need::Exactly(0, _) if found > 0 => return Err(Failure::HasSolution),
        Need::Exactly(n, claimed) if found != n => return Err(wrong(&claimed)),
        Need::AtLeast(n, claimed) if found < n => return Err(wrong(&claimed)),
        _ => {}
    }
    if options.unique && found != 1 {
        return Err(Failure::NotUnique { found });
    }
    Ok(())
}

/// A count an answer claims, and how it was put.
enum Need {
    /// Exactly this many solutions (`unique`, `unsolvable`, a bare count).
    Exactly(u32, String),
    /// At least this many: `multiple` with the count `solve` stopped at.
    AtLeast(u32, String),
}

/// What must be counted to prove `claim` (`None`: nothing), or why its
/// status and count contradict each other.
///
/// A count next to `solved` says one solution was found (limit 1), so it
/// must be 1. `multiple` with count `n` is what `solve --limit n` writes
/// when the search stopped at its limit: at least `n` (2 or more)
/// solutions. Any other count is exact.
fn count_needed(claim: &Claim, options: CheckOptions) -> Result<Option<Need>, Failure> {
    let contradiction = |status, count| Err(Failure::Contradictory { status, count });
    let need = match (claim.status, claim.solutions) {
        (Some(Status::Solved), Some(n)) if n != 1 => return contradiction(Status::Solved, n),
        (Some(Status::Unique), Some(n)) if n != 1 => return contradiction(Status::Unique, n),
        (Some(Status::Unsolvable), Some(n)) if n != 0 => {
            return contradiction(Status::Unsolvable, n)
        }
        (Some(Status::Multiple), Some(n)) if n < 2 => return contradiction(Status::Multiple, n),
        (Some(Status::Solved), _) => None,
        (Some(Status::Unique), _) => Some(Need::Exactly(1, "unique".into())),
        (Some(Status::Unsolvable), _) => Some(Need::Exactly(0, "unsolvable".into())),
        (Some(Status::Multiple), n) => {
            let n = n.unwrap_or(2);
            Some(Need::AtLeast(
                n,
                format!("multiple ({n} or more solutions)"),
            ))
        }
        (_, Some(n)) => Some(Need::Exactly(n, format!("{n} solutions"))),
        (_, None) => None,
    };
    Ok(match need {
        None if options.unique => Some(Need::AtLeast(1, "a solution".into())),
        need => need,
    })
}

/// A wrong answer, located.
pub struct Located {
    pub record: u64,
    pub puzzle_file: usize,
    pub puzzle_line: u64,
    /// The answer's file (in the answers' files) and line, when it has
    /// its own.
    pub answer_at: Option<(usize, u64)>,
    pub failure: Failure,
}

/// Checks every pair on `pool` (the pairs made on the calling thread, at
/// most four batches a thread in flight), giving `take` each batch's
/// record count and wrong records, in input order; `take` may stop the
/// run with an error. Every check uses the fast solver.
pub fn check_all(
    pool: &rayon::ThreadPool,
    pairs: &mut PairBatches<'_>,
    options: CheckOptions,
    mut take: impl FnMut(u64, Vec<Located>) -> ControlFlow<anyhow::Error>,
) -> anyhow::Result<()> {
    let result = run_ordered(
        pool,
        pairs,
        pool.current_num_threads() * 4,
        |batch: Vec<Pair>| {
            let n = batch.len() as u64;
            let mut solver = crate::solver::FastSolver::new();
            (n, check_pairs(&mut solver, batch, options))
        },
        |(n, found)| take(n, found),
    );
    match result {
        Ok(()) => Ok(()),
        Err(Stop::Source(e) | Stop::Sink(e)) => Err(e),
    }
}

/// Checks a batch of pairs (each answer read, then its claim checked
/// against its puzzle with `solver`): the wrong ones, located, in order.
pub fn check_pairs(
    solver: &mut dyn Solver,
    batch: Vec<Pair>,
    options: CheckOptions,
) -> Vec<Located> {
    let mut found = Vec::new();
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
            Ok(claim) => check(solver, &pair.puzzle, &claim, options),
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
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::answers::{
        detect_answers, embedded_answer, parse_answer, AnswerColumns, AnswerFormat,
    };
    use crate::solver::FastSolver;

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const S: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    fn ok(p: &str) -> Result<Puzzle, ParseError> {
        Puzzle::parse_line(p.as_bytes())
    }

    fn grid(p: &str) -> Result<Grid, ParseError> {
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
            CheckOptions {
                unique,
                ..CheckOptions::default()
            },
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
        let bad: Result<Puzzle, ParseError> = Puzzle::parse_line(b"xyz");
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
            solution: Some(grid(S)),
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

    /// A puzzle with exactly `n` solutions (n = 2 or 3): the classic
    /// puzzle's solution with the unavoidable sets opened up. Found by
    /// blanking cells of a solution until the count is right.
    fn puzzle_with(n: u32) -> (String, String) {
        let mut s = FastSolver::new();
        let mut cells: Vec<u8> = S.bytes().collect();
        for i in 0..81 {
            let keep = cells[i];
            cells[i] = b'.';
            let count = s.solve(&grid(std::str::from_utf8(&cells).unwrap()).unwrap(), 4);
            if count.solutions > n {
                cells[i] = keep;
            } else if count.solutions == n {
                let p = String::from_utf8(cells).unwrap();
                let sol = count.solution.unwrap().to_string();
                return (p, sol);
            }
        }
        panic!("no puzzle with {n} solutions found");
    }

    #[test]
    fn counts_are_compared_exactly() {
        let (p3, s3) = puzzle_with(3);
        let (p2, s2) = puzzle_with(2);
        let csv = |row: &str| {
            parse_answer(
                AnswerFormat::Csv(AnswerColumns::solve_output(false)),
                row.as_bytes(),
            )
        };
        let claim = |row: String| csv(&row).unwrap();
        // What `solve --limit 2` and `--limit 5` write for three solutions.
        assert_eq!(
            run(&p3, &claim(format!("1,x,multiple,2,{s3},0")), false),
            Ok(())
        );
        assert_eq!(
            run(&p3, &claim(format!("1,x,multiple,3,{s3},0")), false),
            Ok(())
        );
        assert_eq!(run(&p3, &claim(format!("1,x,,3,{s3},0")), false), Ok(()));
        // Lies about the count.
        for row in [
            format!("1,x,multiple,7,{s3},0"),
            format!("1,x,,5,{s3},0"),
            format!("1,x,,2,{s3},0"),
        ] {
            let e = run(&p3, &claim(row.clone()), false).unwrap_err();
            assert!(matches!(e, Failure::WrongCount { .. }), "{row}: {e}");
        }
        let e = run(&p2, &claim(format!("1,x,multiple,3,{s2},0")), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "claimed multiple (3 or more solutions) but the puzzle has exactly 2 solutions"
        );
        let e = run(
            &p3,
            &embedded_answer(format!("{p3}:7:{s3}").as_bytes()).unwrap(),
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "claimed 7 solutions but the puzzle has exactly 3 solutions"
        );
        // A claim too large to count fails as unverifiable, at once.
        let huge = embedded_answer(format!("{p3}:4000000000:{s3}").as_bytes()).unwrap();
        let e = run(&p3, &huge, false).unwrap_err();
        assert!(matches!(e, Failure::TooManyToCount { .. }), "{e}");
        assert_eq!(
            run(
                &p3,
                &embedded_answer(format!("{p3}:3:{s3}").as_bytes()).unwrap(),
                false
            ),
            Ok(())
        );
        // A status and a count that cannot both hold.
        for row in [
            format!("1,x,unique,2,{s2},0"),
            format!("1,x,solved,7,{s2},0"),
            format!("1,x,multiple,1,{s2},0"),
            "1,x,unsolvable,1,,0".to_string(),
        ] {
            let e = run(&p2, &claim(row.clone()), false).unwrap_err();
            assert!(matches!(e, Failure::Contradictory { .. }), "{row}: {e}");
        }
        // Counts that are not non-negative integers are unreadable.
        for bad in ["-1", "1.0", "+1", "1e3", "x"] {
            assert!(csv(&format!("1,x,,{bad},{s2},0")).is_err(), "{bad}");
        }
    }

    #[test]
    fn jsonl_fields_must_have_their_types() {
        let row = |solutions: &str| {
            format!(r#"{{"line":1,"status":"solved","solutions":{solutions},"solution":"{S}"}}"#)
        };
        assert!(parse_answer(AnswerFormat::Jsonl, row("1").as_bytes()).is_ok());
        assert!(parse_answer(AnswerFormat::Jsonl, row("null").as_bytes()).is_ok());
        for bad in ["\"1\"", "1.0", "-1", "4294967296", "true"] {
            let e = parse_answer(AnswerFormat::Jsonl, row(bad).as_bytes()).unwrap_err();
            assert!(e.0.contains("not a non-negative integer"), "{bad}: {e}");
        }
        let wrong_status = format!(r#"{{"status":1,"solution":"{S}"}}"#);
        assert!(parse_answer(AnswerFormat::Jsonl, wrong_status.as_bytes()).is_err());
        assert!(parse_answer(AnswerFormat::Jsonl, b"[1,2]").is_err());
    }

    #[test]
    fn answers_are_read_in_every_form() {
        let csv = format!("in.txt,7,{P},unique,1,{S},0");
        let c = parse_answer(
            AnswerFormat::Csv(AnswerColumns::solve_output(true)),
            csv.as_bytes(),
        )
        .unwrap();
        assert_eq!(c.status, Some(Status::Unique));
        assert_eq!(c.solutions, Some(1));
        assert_eq!(c.solution, Some(grid(S)));
        let row = format!("3,{P},unsolvable,0,,0");
        let c = parse_answer(
            AnswerFormat::Csv(AnswerColumns::solve_output(false)),
            row.as_bytes(),
        )
        .unwrap();
        assert_eq!((c.status, c.solution), (Some(Status::Unsolvable), None));
        let json = format!(
            r#"{{"line":1,"puzzle":"{P}","status":"solved","solutions":1,"solution":"{S}","guesses":0}}"#
        );
        let c = parse_answer(AnswerFormat::Jsonl, json.as_bytes()).unwrap();
        assert_eq!(c.solution, Some(grid(S)));
        assert!(parse_answer(AnswerFormat::Jsonl, b"{oops").is_err());
        assert!(parse_answer(
            AnswerFormat::Csv(AnswerColumns::solve_output(false)),
            b"1,2"
        )
        .is_err());
        let detect = |line: &str| detect_answers(line.as_bytes()).unwrap();
        assert_eq!(
            detect("line,puzzle,status,solutions,solution,guesses"),
            (AnswerFormat::Csv(AnswerColumns::solve_output(false)), true)
        );
        assert_eq!(
            detect("file,line,puzzle,status,solutions,solution,guesses,id"),
            (AnswerFormat::Csv(AnswerColumns::solve_output(true)), true)
        );
        // Spark's CSV of solve_df, and the Kaggle CSV, by their names.
        let spark = AnswerColumns {
            solution: 3,
            status: Some(1),
            count: Some(2),
        };
        assert_eq!(
            detect("puzzle,status,solutions,solution,guesses"),
            (AnswerFormat::Csv(spark), true)
        );
        let row = format!("{P},unsolvable,0,,0");
        let c = parse_answer(AnswerFormat::Csv(spark), row.as_bytes()).unwrap();
        assert_eq!((c.status, c.solution), (Some(Status::Unsolvable), None));
        assert_eq!(
            detect("quizzes,solutions"),
            (AnswerFormat::Csv(AnswerColumns::single(1)), true)
        );
        assert_eq!(
            detect("Solution"),
            (AnswerFormat::Csv(AnswerColumns::single(0)), true)
        );
        let c = parse_answer(
            AnswerFormat::Csv(AnswerColumns::single(1)),
            format!("{P},{S}").as_bytes(),
        );
        assert_eq!(c.unwrap().solution, Some(grid(S)));
        assert!(detect_answers(b"quizzes,difficulty").is_err());
        // A status word alone is an answer, not a header.
        assert_eq!(detect("unsolvable"), (AnswerFormat::Line, false));
        assert_eq!(detect(S), (AnswerFormat::Line, false));
        assert_eq!(detect("{\"line\":1}"), (AnswerFormat::Jsonl, false));
    }

    #[test]
    fn embedded_answers_follow_the_puzzle() {
        let c = embedded_answer(format!("{P},{S}").as_bytes()).unwrap();
        assert_eq!(c.solution, Some(grid(S)));
        let c = embedded_answer(format!("{P}:1:{S}").as_bytes()).unwrap();
        assert_eq!((c.solutions, c.solution), (Some(1), Some(grid(S))));
        assert!(embedded_answer(P.as_bytes()).is_err());
        // `puzzle,solution,clues,difficulty`: the solution is 81 digits,
        // not a count, and the columns after it are ignored.
        let c = embedded_answer(format!("{P},{S},30,1.5").as_bytes()).unwrap();
        assert_eq!((c.solutions, &c.solution), (None, &Some(grid(S))));
        assert_eq!(run(P, &c, true), Ok(()));
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
