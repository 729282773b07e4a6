//! `grade`: Sudoku Explainer's ratings, and the solving paths.

use crate::inputs::hold;
use crate::pools::{pool, run, stopped_error, tasks, STOP, TASK};
use batchdoku::solver::FastSolver;
use batchdoku::tasks::grade::{grade as grade_one, Grade, Step, Technique};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Status codes, in the order of [`grade_words`].
const RATED: u8 = 0;
const BEYOND: u8 = 1;
const MULTIPLE: u8 = 2;
const UNSOLVABLE: u8 = 3;
const INVALID: u8 = 4;
const MALFORMED: u8 = 5;
/// No rating or technique.
const NONE: u8 = u8::MAX;

/// One record's result.
#[derive(Default, Clone)]
struct Row {
    status: u8,
    /// Ratings in tenths; 0 where there is none.
    er: u16,
    ep: u16,
    ed: u16,
    hardest: u8,
    steps: Vec<Step>,
}

fn technique_code(t: Technique) -> u8 {
    Technique::ALL.iter().position(|&x| x == t).expect("listed") as u8
}

fn grade_record(
    p: Result<batchdoku::Puzzle, batchdoku::ParseError>,
    solver: &mut FastSolver,
    keep: bool,
) -> Row {
    let p = match p {
        Err(_) => {
            return Row {
                status: MALFORMED,
                hardest: NONE,
                ..Row::default()
            }
        }
        Ok(p) => p,
    };
    if p.validate().is_err() {
        return Row {
            status: INVALID,
            hardest: NONE,
            ..Row::default()
        };
    }
    match grade_one(&p, solver, keep) {
        Grade::Rated {
            er,
            ep,
            ed,
            hardest,
            steps,
        } => Row {
            status: RATED,
            er,
            ep,
            ed,
            hardest: hardest.map_or(NONE, technique_code),
            steps,
        },
        Grade::Beyond { er, ep, ed, steps } => Row {
            status: BEYOND,
            er,
            ep: ep.unwrap_or(0),
            ed: ed.unwrap_or(0),
            hardest: NONE,
            steps,
        },
        Grade::Multiple => Row {
            status: MULTIPLE,
            hardest: NONE,
            ..Row::default()
        },
        Grade::Unsolvable => Row {
            status: UNSOLVABLE,
            hardest: NONE,
            ..Row::default()
        },
    }
}

/// The arrays of [`grade`]: status codes, ER, EP and ED in tenths (0: none),
/// the hardest technique's code (255: none), and with `steps` the paths
/// as flat columns (see [`StepColumns`]).
pub(crate) type GradeArrays<'py> = (
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u16>>,
    Bound<'py, PyArray1<u16>>,
    Bound<'py, PyArray1<u16>>,
    Bound<'py, PyArray1<u8>>,
    Option<StepColumns<'py>>,
);

/// The paths, flat: per record the offsets of its steps (N + 1); per step
/// the technique code, the rating in tenths, the placement (cell * 10 +
/// digit, or -1), the offsets of its removals and of its pattern's cells;
/// the removals (cell * 10 + digit) and the cells; then a chain's
/// branches: per step the offsets of its branches, per branch the offsets
/// of its nodes, per node cell * 10 + digit and whether it is "on".
pub(crate) type StepColumns<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u16>>,
    Bound<'py, PyArray1<i16>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u16>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u8>>,
    (
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<u16>>,
        Bound<'py, PyArray1<bool>>,
    ),
);

/// Grades every puzzle on the pool, the GIL released.
#[pyfunction]
#[pyo3(signature = (spec, steps, threads))]
pub(crate) fn grade<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    steps: bool,
    threads: usize,
) -> PyResult<GradeArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let mut rows = vec![Row::default(); n];
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        rows.par_chunks_mut(TASK)
            .enumerate()
            .for_each(|(k, chunk)| {
                let mut solver = FastSolver::new();
                for (j, row) in chunk.iter_mut().enumerate() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    *row = grade_record(puzzles.puzzle(k * TASK + j), &mut solver, steps);
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    let column = |f: fn(&Row) -> u16| rows.iter().map(f).collect::<Vec<u16>>();
    let (er, ep, ed) = (column(|r| r.er), column(|r| r.ep), column(|r| r.ed));
    let status: Vec<u8> = rows.iter().map(|r| r.status).collect();
    let hardest: Vec<u8> = rows.iter().map(|r| r.hardest).collect();
    let paths = steps.then(|| step_columns(py, &rows));
    Ok((
        status.into_pyarray(py),
        er.into_pyarray(py),
        ep.into_pyarray(py),
        ed.into_pyarray(py),
        hardest.into_pyarray(py),
        paths,
    ))
}

fn step_columns<'py>(py: Python<'py>, rows: &[Row]) -> StepColumns<'py> {
    let mut offsets = vec![0i64];
    let (mut technique, mut rating, mut place) = (Vec::new(), Vec::new(), Vec::new());
    let (mut elim_offsets, mut elim) = (vec![0i64], Vec::new());
    let (mut cell_offsets, mut cells) = (vec![0i64], Vec::new());
    let (mut chain_offsets, mut branch_offsets) = (vec![0i64], vec![0i64]);
    let (mut nodes, mut node_on) = (Vec::new(), Vec::new());
    for row in rows {
        for s in &row.steps {
            technique.push(technique_code(s.technique));
            rating.push(s.rating);
            place.push(s.placed.map_or(-1, |(c, d)| c as i16 * 10 + d as i16));
            elim.extend(s.eliminated.iter().map(|&(c, d)| c as u16 * 10 + d as u16));
            elim_offsets.push(elim.len() as i64);
            cells.extend_from_slice(&s.pattern);
            cell_offsets.push(cells.len() as i64);
            for branch in &s.chains {
                for &(cell, d, on) in branch {
                    nodes.push(cell as u16 * 10 + d as u16);
                    node_on.push(on);
                }
                branch_offsets.push(nodes.len() as i64);
            }
            chain_offsets.push(branch_offsets.len() as i64 - 1);
        }
        offsets.push(technique.len() as i64);
    }
    (
        offsets.into_pyarray(py),
        technique.into_pyarray(py),
        rating.into_pyarray(py),
        place.into_pyarray(py),
        elim_offsets.into_pyarray(py),
        elim.into_pyarray(py),
        cell_offsets.into_pyarray(py),
        cells.into_pyarray(py),
        (
            chain_offsets.into_pyarray(py),
            branch_offsets.into_pyarray(py),
            nodes.into_pyarray(py),
            node_on.into_pyarray(py),
        ),
    )
}

/// The status words and technique names in code order.
#[pyfunction]
pub(crate) fn grade_words() -> (Vec<&'static str>, Vec<&'static str>) {
    (
        vec![
            "rated",
            "beyond",
            "multiple",
            "unsolvable",
            "invalid",
            "malformed",
        ],
        Technique::ALL.iter().map(|t| t.name()).collect(),
    )
}
