//! `solve` and the status words.

use crate::inputs::hold;
use crate::pools::{pool, run, stopped_error, tasks, STOP, TASK};
use batchdoku::engine::solve::solve_puzzle;
use batchdoku::puzzle::grid::CELLS;
use batchdoku::puzzle::Status;
use batchdoku::read::npy::Dtype;
use batchdoku::SolverKind;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) fn solver_kind(name: &str) -> PyResult<SolverKind> {
    name.parse()
        .map_err(|e: String| PyValueError::new_err(format!("solver: {e}")))
}

// ---------------------------------------------------------------------
// Calls

/// Rows of 81 bytes, as solve's solutions come back.
pub(crate) const BYTE_ROWS: Dtype = Dtype {
    size: 1,
    signed: false,
    big_endian: false,
};

pub(crate) type SolveArrays<'py> = (
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
);

/// Solves every puzzle: status codes (indexes of `status_words()`), the
/// solutions as (N, 81) uint8 (0 rows where there is none), solutions
/// counted up to `limit`, and guesses.
#[pyfunction]
#[pyo3(signature = (spec, limit, solver, threads))]
pub(crate) fn solve<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    limit: u32,
    solver: &str,
    threads: usize,
) -> PyResult<SolveArrays<'py>> {
    if limit == 0 {
        return Err(PyValueError::new_err("limit: must be 1 or more"));
    }
    let kind = solver_kind(solver)?;
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let mut status = vec![0u8; n];
    let mut cells = vec![0u8; n * CELLS];
    let mut count = vec![0u32; n];
    let mut guesses = vec![0u64; n];
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        status
            .par_chunks_mut(TASK)
            .zip(cells.par_chunks_mut(TASK * CELLS))
            .zip(count.par_chunks_mut(TASK))
            .zip(guesses.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (((st, ce), co), gu))| {
                if STOP.load(Ordering::Relaxed) {
                    stopped.store(true, Ordering::Relaxed);
                    return;
                }
                let mut solver = kind.build();
                solver.set_stop(Some(&STOP));
                for j in 0..st.len() {
                    let r = solve_puzzle(solver.as_mut(), &puzzles.puzzle(k * TASK + j), limit);
                    if solver.stopped() {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    st[j] = r.status.code();
                    co[j] = r.solutions;
                    gu[j] = r.guesses;
                    if let Some(s) = r.solution {
                        ce[j * CELLS..(j + 1) * CELLS].copy_from_slice(s.cells());
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        status.into_pyarray(py),
        Array2::from_shape_vec((n, CELLS), cells)
            .expect("n rows of 81")
            .into_pyarray(py),
        count.into_pyarray(py),
        guesses.into_pyarray(py),
    ))
}

/// The status words, in code order.
#[pyfunction]
pub(crate) fn status_words() -> Vec<&'static str> {
    Status::ALL.iter().map(|s| s.word()).collect()
}
