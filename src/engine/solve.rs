//! Solving records in bulk: the unit of work of the parallel `solve`
//! command. [`solve_puzzle`] turns one parsed record into a
//! [`RecordResult`]; [`solve_chunk`] does a whole [`Chunk`] of input into
//! an output buffer (written by [`write_record`]), one output record per
//! input record, and counts what it saw in [`Stats`].

use crate::puzzle::grid::ParseError;
use crate::puzzle::{Puzzle, Status};
use crate::read::{records, Chunk};
use crate::solver::Solver;
use crate::write::*;
use std::sync::atomic::{AtomicBool, Ordering};

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
