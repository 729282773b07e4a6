//! Batch work on line records: the unit the parallel `solve` command is built
//! from.
//!
//! A *record* is a line of input that is neither blank nor a `#` comment.
//! [`Records`] walks the records of a byte slice with their line numbers;
//! [`solve_record`] turns one into a [`RecordResult`]; [`solve_chunk`] does a
//! whole slice into an output buffer, one output line per record, and counts
//! what it saw in [`Stats`]. [`split_chunks`] cuts a large input on line
//! boundaries so workers can take chunks in parallel and their outputs can be
//! written back in input order.

use crate::grid::{Conflict, Grid, ParseError};
use crate::solver::Solver;

/// One input record: its 1-based line number and its text (no line end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    pub line: u64,
    pub text: &'a [u8],
}

/// The records of a byte slice, in order. Lines end with `\n` or `\r\n`; the
/// last may have no end. Blank lines and lines whose first non-blank byte is
/// `#` are skipped but still counted for line numbers.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    rest: &'a [u8],
    next_line: u64,
}

impl<'a> Records<'a> {
    /// Records of `data`, whose first line is line `first_line` (1-based).
    pub fn new(data: &'a [u8], first_line: u64) -> Self {
        Records {
            rest: data,
            next_line: first_line,
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        while !self.rest.is_empty() {
            let (line, rest) = match self.rest.iter().position(|&b| b == b'\n') {
                Some(p) => (&self.rest[..p], &self.rest[p + 1..]),
                None => (self.rest, &self.rest[self.rest.len()..]),
            };
            self.rest = rest;
            let number = self.next_line;
            self.next_line += 1;
            let text = line.strip_suffix(b"\r").unwrap_or(line);
            if !is_skipped(text) {
                return Some(Record { line: number, text });
            }
        }
        None
    }
}

/// True for a blank line or a `#` comment: not a record.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().find(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(&b) => b == b'#',
    }
}

/// What became of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// At least one solution found with limit 1.
    Solved,
    /// Exactly one solution (limit 2 or more).
    Unique,
    /// Two or more solutions (limit 2 or more).
    Multiple,
    /// A well-formed, rule-abiding puzzle with no solution.
    Unsolvable,
    /// Givens repeat a digit in a unit.
    Invalid,
    /// The line is not a puzzle.
    Malformed,
}

impl Status {
    /// The word written in outputs and statistics.
    pub fn word(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unique => "unique",
            Status::Multiple => "multiple",
            Status::Unsolvable => "unsolvable",
            Status::Invalid => "invalid",
            Status::Malformed => "malformed",
        }
    }
}

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

/// The full result of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordResult {
    pub status: Status,
    /// The parsed puzzle, unless malformed.
    pub puzzle: Option<Grid>,
    /// Solutions counted, up to the limit.
    pub solutions: u32,
    /// The first solution found.
    pub solution: Option<Grid>,
    pub guesses: u64,
    /// Set for `Malformed` and `Invalid`.
    pub problem: Option<Problem>,
}

/// Parses, checks and solves one record's text with `solver`, counting up to
/// `limit` solutions.
pub fn solve_record(solver: &mut dyn Solver, text: &[u8], limit: u32) -> RecordResult {
    let puzzle = match Grid::parse_line(text) {
        Ok(p) => p,
        Err(e) => {
            return RecordResult {
                status: Status::Malformed,
                puzzle: None,
                solutions: 0,
                solution: None,
                guesses: 0,
                problem: Some(Problem::Parse(e)),
            }
        }
    };
    if let Err(conflict) = puzzle.validate() {
        return RecordResult {
            status: Status::Invalid,
            puzzle: Some(puzzle),
            solutions: 0,
            solution: None,
            guesses: 0,
            problem: Some(Problem::Rule(conflict)),
        };
    }
    let limit = limit.max(1);
    let outcome = solver.solve(&puzzle, limit);
    let status = match (outcome.solutions, limit) {
        (0, _) => Status::Unsolvable,
        (_, 1) => Status::Solved,
        (1, _) => Status::Unique,
        _ => Status::Multiple,
    };
    RecordResult {
        status,
        puzzle: Some(puzzle),
        solutions: outcome.solutions,
        solution: outcome.solution,
        guesses: outcome.guesses,
        problem: None,
    }
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
    /// Records with at least one solution found without a guess.
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

    /// Records with at least one solution.
    pub fn with_solution(&self) -> u64 {
        self.solved + self.unique + self.multiple
    }
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
    /// The first few malformed records of the chunk, in order.
    pub malformed: Vec<Malformed>,
}

/// How many malformed records a chunk keeps for warnings.
pub const MALFORMED_KEPT: usize = 10;

/// Writes the line form of a result: the 81-digit solution, or the status word.
pub fn write_line_result(r: &RecordResult, out: &mut Vec<u8>) {
    match r.solution {
        Some(s) => out.extend(s.cells().iter().map(|&v| b'0' + v)),
        None => out.extend_from_slice(r.status.word().as_bytes()),
    }
    out.push(b'\n');
}

/// Solves every record of `data` (whose first line is `first_line`) and
/// appends one output line per record to `out`, in order.
pub fn solve_chunk(
    solver: &mut dyn Solver,
    data: &[u8],
    first_line: u64,
    limit: u32,
    out: &mut Vec<u8>,
) -> ChunkReport {
    let mut report = ChunkReport::default();
    for rec in Records::new(data, first_line) {
        let r = solve_record(solver, rec.text, limit);
        report.stats.add(&r);
        if let Some(Problem::Parse(e)) = &r.problem {
            if report.malformed.len() < MALFORMED_KEPT {
                report.malformed.push(Malformed {
                    line: rec.line,
                    error: e.clone(),
                });
            }
        }
        write_line_result(&r, out);
    }
    report
}

/// A piece of a larger input that starts on a line boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub data: &'a [u8],
    /// 1-based line number of the chunk's first line.
    pub first_line: u64,
}

/// Cuts `data` into chunks of about `target` bytes, each ending just after a
/// `\n` (the last may end without one), with the line number each starts at.
pub fn split_chunks(data: &[u8], target: usize) -> Vec<Chunk<'_>> {
    let target = target.max(1);
    let mut chunks = Vec::with_capacity(data.len() / target + 1);
    let mut start = 0;
    let mut line = 1u64;
    while start < data.len() {
        let guess = (start + target).min(data.len());
        let end = match data[guess..].iter().position(|&b| b == b'\n') {
            Some(p) => guess + p + 1,
            None => data.len(),
        };
        let piece = &data[start..end];
        chunks.push(Chunk {
            data: piece,
            first_line: line,
        });
        line += piece.iter().filter(|&&b| b == b'\n').count() as u64;
        start = end;
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::FastSolver;

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn records_skip_comments_and_blanks_but_count_their_lines() {
        let data = b"# header\n\nabc\r\n  # indented comment\n   \ndef";
        let recs: Vec<_> = Records::new(data, 1).collect();
        assert_eq!(
            recs,
            vec![
                Record {
                    line: 3,
                    text: b"abc"
                },
                Record {
                    line: 6,
                    text: b"def"
                }
            ]
        );
        assert_eq!(Records::new(b"", 1).count(), 0);
        assert_eq!(Records::new(b"\n\n", 1).count(), 0);
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
    }

    #[test]
    fn a_chunk_gives_one_line_per_record_in_order() {
        let data = format!("# c\n{PUZZLE}\nbad line\n\n{PUZZLE}:1:{SOLUTION}\r\n");
        let mut out = Vec::new();
        let report = solve_chunk(&mut FastSolver::new(), data.as_bytes(), 1, 1, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!("{SOLUTION}\nmalformed\n{SOLUTION}\n")
        );
        assert_eq!(report.stats.records, 3);
        assert_eq!(report.stats.solved, 2);
        assert_eq!(report.stats.malformed, 1);
        assert_eq!(report.malformed[0].line, 3);
    }

    #[test]
    fn chunks_cover_the_input_on_line_boundaries() {
        let data: Vec<u8> = (0..100)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .chain(b"last".iter().copied())
            .collect();
        for target in [1, 7, 50, 1000] {
            let chunks = split_chunks(&data, target);
            let joined: Vec<u8> = chunks.iter().flat_map(|c| c.data.iter().copied()).collect();
            assert_eq!(joined, data);
            for c in &chunks[..chunks.len() - 1] {
                assert_eq!(c.data.last(), Some(&b'\n'));
            }
            let lines: Vec<u64> = chunks
                .iter()
                .flat_map(|c| Records::new(c.data, c.first_line).map(|r| r.line))
                .collect();
            assert_eq!(lines, (1..=101).collect::<Vec<_>>());
        }
        assert!(split_chunks(b"", 10).is_empty());
    }
}
