//! `rate` and its words.

use crate::inputs::hold;
use crate::pools::{pool, run, stopped_error, tasks, STOP, TASK};
use batchdoku::solver::FastSolver;
use batchdoku::tasks::rate::{rate as rate_one, Difficulty, Inference};
use batchdoku::Solver;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) type RateArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<u8>>,
);

/// Rates every puzzle: solutions (up to 2), guesses, and codes of the
/// inference and difficulty words (`rate_words()`).
#[pyfunction]
#[pyo3(signature = (spec, threads))]
pub(crate) fn rate<'py>(
    py: Python<'py>,
    spec: &Bound<'py, PyAny>,
    threads: usize,
) -> PyResult<RateArrays<'py>> {
    let held = hold(spec, "puzzles")?;
    let puzzles = held.puzzles()?;
    let n = puzzles.len();
    let pool = pool(threads, tasks(n))?;
    let (mut sols, mut guesses) = (vec![0u32; n], vec![0u64; n]);
    let (mut inference, mut difficulty) = (vec![0u8; n], vec![0u8; n]);
    // Codes past the inference and difficulty words: invalid, malformed.
    let invalid_inf = INFERENCES.len() as u8;
    let invalid_dif = Difficulty::ALL.len() as u8;
    let complete = run(py, Some(&pool), || {
        let stopped = AtomicBool::new(false);
        sols.par_chunks_mut(TASK)
            .zip(guesses.par_chunks_mut(TASK))
            .zip(inference.par_chunks_mut(TASK))
            .zip(difficulty.par_chunks_mut(TASK))
            .enumerate()
            .for_each(|(k, (((so, gu), inf), dif))| {
                let mut solver = FastSolver::new();
                solver.set_stop(Some(&STOP));
                for j in 0..so.len() {
                    if STOP.load(Ordering::Relaxed) {
                        stopped.store(true, Ordering::Relaxed);
                        return;
                    }
                    match puzzles.puzzle(k * TASK + j) {
                        Err(_) => (inf[j], dif[j]) = (invalid_inf + 1, invalid_dif + 1),
                        Ok(p) if p.validate().is_err() => {
                            (inf[j], dif[j]) = (invalid_inf, invalid_dif)
                        }
                        Ok(p) => {
                            let r = rate_one(&mut solver, &p);
                            if solver.stopped() {
                                stopped.store(true, Ordering::Relaxed);
                                return;
                            }
                            so[j] = r.solutions;
                            gu[j] = r.guesses;
                            inf[j] = INFERENCES
                                .iter()
                                .position(|&x| x == r.inference)
                                .expect("listed") as u8;
                            dif[j] = Difficulty::ALL
                                .iter()
                                .position(|&x| x == r.difficulty)
                                .expect("listed") as u8;
                        }
                    }
                }
            });
        !stopped.load(Ordering::Relaxed)
    })?;
    if !complete {
        return Err(stopped_error());
    }
    Ok((
        sols.into_pyarray(py),
        guesses.into_pyarray(py),
        inference.into_pyarray(py),
        difficulty.into_pyarray(py),
    ))
}

pub(crate) const INFERENCES: [Inference; 3] = [
    Inference::Singles,
    Inference::LockedCandidates,
    Inference::Search,
];

/// The inference and difficulty words in code order, each followed by
/// `invalid` and `malformed` (what `batchdoku rate` writes for those).
#[pyfunction]
pub(crate) fn rate_words() -> (Vec<&'static str>, Vec<&'static str>) {
    let mut inf: Vec<&str> = INFERENCES.iter().map(|i| i.word()).collect();
    let mut dif: Vec<&str> = Difficulty::ALL.iter().map(|d| d.word()).collect();
    for words in [&mut inf, &mut dif] {
        words.extend(["invalid", "malformed"]);
    }
    (inf, dif)
}
