//! `verify`: answers checked against their puzzles.

use crate::inputs::{hold, Held, Puzzles};
use crate::pools::{pool, run, stopped_error, tasks, STOP, TASK};
use crate::solve::BYTE_ROWS;
use batchdoku::engine::pairs::{PairBatches, PairOptions};
use batchdoku::engine::{forced_format, open_sources, INPUT_FORMS};
use batchdoku::puzzle::grid::CELLS;
use batchdoku::puzzle::Status;
use batchdoku::read::answers::{parse_answer, AnswerColumns, AnswerFormat, Claim};
use batchdoku::read::ColumnSpec;
use batchdoku::solver::FastSolver;
use batchdoku::tasks::verify::{check, check_all, CheckOptions};
use batchdoku::Solver;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Checks each answer against its puzzle: `ok` per record, and the reason
/// (the CLI's words) where it is wrong. `answers` is a spec like
/// `puzzles`, or `("result", status codes, counts, solutions)` from
/// `solve`. With `status` (a spec of status words, a null or empty one
/// claiming nothing) and `count` (a spec of solution counts as text, read
/// only with `status`), each record's claim is its status, count and
/// solution (the answer, empty or a 0 row where there is none), as the
/// command line reads a `solve` output's `status`, `solutions` and
/// `solution` columns.
#[pyfunction]
#[pyo3(signature = (spec, answers, unique, threads, status=None, count=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn verify<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    answers: &Bound<'py, PyAny>,
    unique: bool,
    threads: usize,
    status: Option<&Bound<'py, PyAny>>,
    count: Option<&Bound<'py, PyAny>>,
) -> PyResult<VerifyArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let answers_tuple = answers
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("internal: an answers spec is a tuple"))?;
    let kind: String = answers_tuple.get_item(0)?.extract()?;
    // A solve() result: its statuses, counts and solutions.
    let result: Option<(
        PyReadonlyArray1<u8>,
        PyReadonlyArray1<u32>,
        PyReadonlyArray2<u8>,
    )> = if kind == "result" {
        Some((
            answers_tuple.get_item(1)?.extract()?,
            answers_tuple.get_item(2)?.extract()?,
            answers_tuple.get_item(3)?.extract()?,
        ))
    } else {
        None
    };
    let held_answers = match result {
        Some(_) => None,
        None => Some(hold(answers, "answers")?),
    };
    let answer_puzzles = match &held_answers {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    let result_slices = match &result {
        Some((s, c, cells)) => Some((s.as_slice()?, c.as_slice()?, cells.as_slice()?)),
        None => None,
    };
    let m = match (&answer_puzzles, &result_slices) {
        (Some(a), _) => a.len(),
        (None, Some((s, c, cells))) => {
            if c.len() != s.len() || cells.len() != s.len() * CELLS {
                return Err(PyValueError::new_err("answers: inconsistent result arrays"));
            }
            s.len()
        }
        (None, None) => unreachable!("one of the two"),
    };
    if m != n {
        return Err(PyValueError::new_err(format!(
            "answers: {m} answers for {n} puzzles; one answer per puzzle was expected"
        )));
    }
    // The statuses and counts beside the answers, one per answer.
    let beside = |spec: Option<&Bound<'py, PyAny>>, what: &str| -> PyResult<Option<Held<'py>>> {
        let Some(spec) = spec.filter(|s| !s.is_none()) else {
            return Ok(None);
        };
        if result.is_some() {
            return Err(PyValueError::new_err(format!(
                "{what}: a SolveResult carries its own statuses and counts"
            )));
        }
        Ok(Some(hold(spec, what)?))
    };
    let held_status = beside(status, "status")?;
    let held_count = match held_status {
        Some(_) => beside(count, "count")?,
        None => None,
    };
    let status_texts = match &held_status {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    let count_texts = match &held_count {
        Some(h) => Some(h.puzzles()?),
        None => None,
    };
    for (what, texts) in [("status", &status_texts), ("count", &count_texts)] {
        if let Some(t) = texts.as_ref().filter(|t| t.len() != n) {
            return Err(PyValueError::new_err(format!(
                "{what}: {} values for {n} answers; one per answer was expected",
                t.len()
            )));
        }
    }
    let claim = |i: usize| -> Result<Claim, String> {
        if let (Some(status), Some(a)) = (&status_texts, &answer_puzzles) {
            return solve_output_claim(status, count_texts.as_ref(), a, i);
        }
        match (&answer_puzzles, &result_slices) {
            (Some(Puzzles::Ints { .. }), _) => {
                let a = answer_puzzles.as_ref().expect("some");
                match a.grid(i) {
                    Ok(g) if g.cells().iter().all(|&c| c == 0) => Err(
                        "the answer is a row of zeros: no solution, and no status to say why"
                            .into(),
                    ),
                    g => Ok(Claim {
                        solution: Some(g),
                        ..Claim::default()
                    }),
                }
            }
            (Some(a), _) => match a.text(i) {
                Some(text) => parse_answer(AnswerFormat::Line, &text).map_err(|e| e.to_string()),
                None => Err("the answer is missing (None)".into()),
            },
            (None, Some((s, c, cells))) => {
                let status = Status::from_code(s[i])
                    .ok_or_else(|| format!("status code {} is not one of solve's", s[i]))?;
                let row = &cells[i * CELLS..(i + 1) * CELLS];
                // Read as an npy row of bytes: a value above 9 is named.
                let solution = row.iter().any(|&c| c != 0).then(|| BYTE_ROWS.grid(row));
                Ok(Claim {
                    status: Some(status),
                    solutions: Some(c[i]),
                    solution,
                })
            }
            (None, None) => unreachable!(),
        }
    };
    let options = CheckOptions {
        unique,
        ..CheckOptions::default()
    };
    let pool = pool(threads, tasks(n))?;
    let mut ok = vec![false; n];
    let mut reasons: Vec<Option<String>> = vec![None; n];
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        ok.par_chunks_mut(TASK)
            .zip(reasons.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (ok, why))| {
                let mut solver = FastSolver::new();
                solver.set_stop(Some(&STOP));
                for j in 0..ok.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    let i = k * TASK + j;
                    let outcome = match claim(i) {
                        Ok(c) => check(&mut solver, &puzzles.puzzle(i), &c, options)
                            .map_err(|f| f.to_string()),
                        Err(e) => Err(e),
                    };
                    if solver.stopped() {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match outcome {
                        Ok(()) => ok[j] = true,
                        Err(e) => why[j] = Some(e),
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((PyArray1::from_vec(py, ok), reasons))
}

/// Record `i`'s claim as a `solve` output states it: the status word in
/// `status`, the count in `count` (text, if any) and the solution in
/// `answers` (empty, or an integer row of 0s, where there is none), read
/// as the command line reads a CSV's status, solutions and solution
/// columns (quoted here, so any text stays in its field).
pub(crate) fn solve_output_claim(
    status: &Puzzles<'_>,
    count: Option<&Puzzles<'_>>,
    answers: &Puzzles<'_>,
    i: usize,
) -> Result<Claim, String> {
    let mut row = Vec::with_capacity(CELLS + 32);
    let mut field = |text: Option<&[u8]>, last: bool| {
        row.push(b'"');
        for &b in text.unwrap_or_default() {
            if b == b'"' {
                row.push(b'"');
            }
            row.push(b);
        }
        row.push(b'"');
        if !last {
            row.push(b',');
        }
    };
    let ints = matches!(answers, Puzzles::Ints { .. });
    field(status.text(i).as_deref(), false);
    field(count.and_then(|c| c.text(i)).as_deref(), false);
    field(if ints { None } else { answers.text(i) }.as_deref(), true);
    let columns = AnswerColumns {
        status: Some(0),
        count: Some(1),
        solution: 2,
    };
    let mut claim = parse_answer(AnswerFormat::Csv(columns), &row).map_err(|e| e.to_string())?;
    if ints {
        claim.solution = match answers.grid(i) {
            Ok(g) if g.cells().iter().all(|&c| c == 0) => None,
            g => Some(g),
        };
    }
    Ok(claim)
}

pub(crate) type VerifyArrays<'py> = (Bound<'py, PyArray1<bool>>, Vec<Option<String>>);

/// One wrong record of [`verify_files`]: its number (from 1), the puzzle's
/// file and line, the answer's file and line, and the reason.
pub(crate) type FileFailure = (u64, String, u64, String, u64, String);

/// Checks the answers of a file (or a folder of part files) against their
/// puzzles, paired as the command line's `verify PUZZLES [ANSWERS]` pairs
/// them: the records checked, the wrong ones located, and the record
/// counts' mismatch if one side ran out first.
#[pyfunction]
#[pyo3(signature = (puzzles, answers, input, column, answer_column, unique, max_count, threads))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn verify_files(
    py: Python<'_>,
    puzzles: std::path::PathBuf,
    answers: Option<std::path::PathBuf>,
    input: &str,
    column: Option<String>,
    answer_column: Option<String>,
    unique: bool,
    max_count: u32,
    threads: usize,
) -> PyResult<(u64, Vec<FileFailure>, Option<String>)> {
    if !INPUT_FORMS.contains(&input) {
        return Err(PyValueError::new_err(format!(
            "input: {input:?} is not one of {}",
            INPUT_FORMS.join(", ")
        )));
    }
    let column_spec = |what: &str, c: Option<String>| -> PyResult<Option<ColumnSpec>> {
        c.map(|c| {
            c.parse()
                .map_err(|e: String| PyValueError::new_err(format!("{what}: {e}")))
        })
        .transpose()
    };
    let column = column_spec("column", column)?;
    let answer_column = column_spec("answer_column", answer_column)?;
    for path in std::iter::once(&puzzles).chain(&answers) {
        if path.as_os_str() == "-" {
            return Err(PyValueError::new_err(
                "verify_files: give a file's path (standard input is not read)",
            ));
        }
    }
    let value_error = |e: anyhow::Error| PyValueError::new_err(format!("{e:#}"));
    let puzzle_sources = open_sources(std::slice::from_ref(&puzzles)).map_err(value_error)?;
    let answer_sources = match &answers {
        Some(a) => Some(open_sources(std::slice::from_ref(a)).map_err(value_error)?),
        None => None,
    };
    let answer_names = answer_sources.as_deref().unwrap_or(&puzzle_sources);
    let options = PairOptions {
        forced: forced_format(input),
        column: column.as_ref(),
        answer_column: answer_column.as_ref(),
        quiet: true,
    };
    let check_options = CheckOptions { unique, max_count };
    let pool = pool(threads, usize::MAX)?;
    let outcome = run(py, None, || -> anyhow::Result<_> {
        let mut pairs = PairBatches::open(
            &puzzle_sources,
            answer_sources.as_deref(),
            options,
            puzzles.display().to_string(),
            answers.as_ref().unwrap_or(&puzzles).display().to_string(),
        )?;
        let mut checked = 0u64;
        let mut failures = Vec::new();
        check_all(&pool, &mut pairs, check_options, |n, found| {
            if STOP.load(Ordering::Relaxed) {
                return std::ops::ControlFlow::Break(anyhow::anyhow!(STOPPED));
            }
            checked += n;
            failures.extend(found);
            std::ops::ControlFlow::Continue(())
        })?;
        Ok((checked, failures, pairs.mismatch().map(str::to_string)))
    })?;
    let (checked, failures, mismatch) = match outcome {
        Ok(found) => found,
        Err(e) if e.to_string() == STOPPED => return Err(stopped_error()),
        Err(e) => return Err(value_error(e)),
    };
    let failures = failures
        .into_iter()
        .map(|f| {
            let (answer_file, answer_line) = f.answer_at.unwrap_or((f.puzzle_file, f.puzzle_line));
            (
                f.record,
                puzzle_sources[f.puzzle_file].name().to_string(),
                f.puzzle_line,
                answer_names[answer_file].name().to_string(),
                answer_line,
                f.failure.to_string(),
            )
        })
        .collect();
    Ok((checked, failures, mismatch))
}

/// The error a Ctrl-C turns a file check into.
const STOPPED: &str = "interrupted";
