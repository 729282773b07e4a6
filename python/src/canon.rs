//! `canon`: canonical forms.

use crate::inputs::hold;
use crate::pools::{pool, run, stopped_error, tasks, STOP, TASK};
use batchdoku::puzzle::grid::CELLS;
use batchdoku::tasks::canon::Canonicalizer;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) type CanonArrays<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
);

/// Each puzzle's canonical form (an (N, 81) array, 0 rows for records
/// without one), its automorphism count, and a status code: 0 ok,
/// 1 invalid, 2 malformed.
#[pyfunction]
#[pyo3(signature = (spec, threads))]
pub(crate) fn canon<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<CanonArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let mut forms = vec![0u8; n * CELLS];
    let (mut automorphisms, mut status) = (vec![0u64; n], vec![0u8; n]);
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        forms
            .par_chunks_mut(TASK * CELLS)
            .zip(automorphisms.par_chunks_mut(TASK))
            .zip(status.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, ((fo, au), st))| {
                let mut canonicalizer = Canonicalizer::new();
                for j in 0..au.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match puzzles.grid(k * TASK + j) {
                        Err(_) => st[j] = 2,
                        Ok(g) => match canonicalizer.canonical_of_valid(&g) {
                            Err(_) => st[j] = 1,
                            Ok(c) => {
                                fo[j * CELLS..(j + 1) * CELLS].copy_from_slice(c.grid.cells());
                                au[j] = c.automorphisms;
                            }
                        },
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        Array2::from_shape_vec((n, CELLS), forms)
            .expect("n rows of 81")
            .into_pyarray(py),
        automorphisms.into_pyarray(py),
        status.into_pyarray(py),
    ))
}
