//! `generate` and the pieces Spark's `generate_df` calls per partition.

use crate::pools::{pool, run, stopped_error, STOP};
use batchdoku::puzzle::grid::Grid;
use batchdoku::tasks::generate::{
    candidates_kept, generate as generate_one, GenerateOptions, Keep, Symmetry, TRIES_PER_PUZZLE,
};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// Candidates rated per parallel round when filtering by difficulty
/// (Ctrl-C is looked for between rounds).
pub(crate) const ROUND: u64 = 1024;

/// The generator's options, checked.
pub(crate) fn generate_options(
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
) -> PyResult<GenerateOptions> {
    let symmetry: Symmetry = symmetry
        .parse()
        .map_err(|e: String| PyValueError::new_err(format!("symmetry: {e}")))?;
    Ok(GenerateOptions {
        minimal,
        min_clues,
        symmetry,
    })
}

/// What to keep: a difficulty class word, or `er:MIN-MAX` (an ER range).
pub(crate) fn keep_named(word: &str) -> PyResult<Keep> {
    Keep::named(word).map_err(|e: String| {
        let what = if word.starts_with("er:") {
            "er"
        } else {
            "difficulty"
        };
        PyValueError::new_err(format!("{what}: {e}"))
    })
}

/// Of candidates `start..end` of the run seeded with `seed`, the indexes
/// of those whose puzzles rate as `difficulty`, in order: a slice of the
/// scan `generate` makes with a difficulty, for `generate_df` to spread
/// over a cluster (it then makes the puzzles kept with `generate_at`).
#[pyfunction]
#[pyo3(signature = (seed, start, end, minimal, min_clues, symmetry, difficulty, threads))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate_matches(
    py: Python<'_>,
    seed: u64,
    start: u64,
    end: u64,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    difficulty: &str,
    threads: usize,
) -> PyResult<Vec<u64>> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let want = keep_named(difficulty)?;
    let pool = pool(threads, usize::MAX)?;
    let found = run(py, Some(&pool), || {
        let mut found = Vec::new();
        let mut next = start;
        while next < end {
            if STOP.load(Ordering::Relaxed) {
                return None;
            }
            let round_end = end.min(next.saturating_add(16 * ROUND));
            let kept = candidates_kept(seed, next..round_end, options, want);
            found.extend(kept.into_iter().map(|(i, _)| i));
            next = round_end;
        }
        Some(found)
    })?;
    found.ok_or_else(stopped_error)
}

/// The puzzles and solutions of candidates `indexes` of the run seeded
/// with `seed` (each made alone: candidate `i` is line `i + 1` of
/// `batchdoku generate` without a difficulty).
#[pyfunction]
#[pyo3(signature = (seed, indexes, minimal, min_clues, symmetry, threads))]
pub(crate) fn generate_at(
    py: Python<'_>,
    seed: u64,
    indexes: Vec<u64>,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    threads: usize,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let pool = pool(threads, indexes.len())?;
    let made = run(py, Some(&pool), || {
        make_candidates(seed, indexes.par_iter().copied(), options)
    })?;
    made.map(|m| {
        m.into_iter()
            .map(|(p, s)| (p.to_line(), s.to_line()))
            .unzip()
    })
    .ok_or_else(stopped_error)
}

/// Candidates `indexes` of the run seeded with `seed`, each made alone
/// (puzzle and solution), in parallel and in order; None when Ctrl-C
/// stopped the run.
pub(crate) fn make_candidates(
    seed: u64,
    indexes: impl ParallelIterator<Item = u64>,
    options: GenerateOptions,
) -> Option<Vec<(Grid, Grid)>> {
    indexes
        .map(|i| {
            if STOP.load(Ordering::Relaxed) {
                return None;
            }
            let g = generate_one(seed, i, options);
            Some((g.puzzle, g.solution))
        })
        .collect()
}

/// Puzzles `start..start + n` of the run seeded with `seed`: exactly lines
/// `start + 1..` of `batchdoku generate -n N --seed SEED` with the same
/// options. With a difficulty, the CLI keeps candidates of that class in
/// order, so the candidates before `start` are made (and rated) too.
#[pyfunction]
#[pyo3(signature = (n, seed, start, minimal, min_clues, symmetry, difficulty, threads))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate(
    py: Python<'_>,
    n: u64,
    seed: u64,
    start: u64,
    minimal: bool,
    min_clues: usize,
    symmetry: &str,
    difficulty: Option<&str>,
    threads: usize,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let options = generate_options(minimal, min_clues, symmetry)?;
    let difficulty = match difficulty {
        Some(d) => Some(keep_named(d)?),
        None => None,
    };
    // Puzzles `start..=last`: the last index must be a u64 (a range that
    // wrapped past 2**64 would make fewer puzzles than asked, silently).
    let last = match n.checked_sub(1).map(|k| start.checked_add(k)) {
        None => return Ok((Vec::new(), Vec::new())),
        Some(Some(last)) => last,
        Some(None) => {
            return Err(PyValueError::new_err(format!(
                "start + n: puzzles {start} to {start} + {n} - 1 were asked for, past the last \
                 index, 2**64 - 1"
            )))
        }
    };
    let pool = pool(
        threads,
        match difficulty {
            None => usize::try_from(n).unwrap_or(usize::MAX),
            Some(_) => usize::MAX,
        },
    )?;
    let made = run(py, Some(&pool), || -> Result<Vec<(Grid, Grid)>, String> {
        match difficulty {
            None => make_candidates(seed, (start..=last).into_par_iter(), options)
                .ok_or_else(|| "stopped".into()),
            Some(want) => {
                // `start + n` candidates of the class are counted from 0,
                // a count that must fit a u64 too.
                let Some(wanted) = start.checked_add(n) else {
                    return Err(format!(
                        "start + n: {start} + {n} puzzles of {} cannot be counted \
                         (more than 2**64 - 1)",
                        want.describe()
                    ));
                };
                let most = wanted.saturating_mul(TRIES_PER_PUZZLE);
                let mut kept: Vec<(Grid, Grid)> = Vec::new();
                let mut seen = 0u64; // kept candidates before `start` count too
                let mut next = 0u64;
                while seen < wanted && next < most {
                    if STOP.load(Ordering::Relaxed) {
                        return Err("stopped".into());
                    }
                    let end = next.saturating_add(ROUND).min(most);
                    for (_, g) in candidates_kept(seed, next..end, options, want) {
                        if seen >= wanted {
                            break;
                        }
                        if seen >= start {
                            kept.push((g.puzzle, g.solution));
                        }
                        seen += 1;
                    }
                    next = end;
                }
                if seen < wanted {
                    return Err(format!(
                        "{}: found only {seen} of {wanted} puzzles in {next} candidates; \
                         relax the other options or ask for fewer",
                        want.describe()
                    ));
                }
                Ok(kept)
            }
        }
    })?;
    let made = match made {
        Ok(m) => m,
        Err(e) if e == "stopped" => return Err(stopped_error()),
        Err(e) => return Err(PyValueError::new_err(e)),
    };
    Ok(made
        .into_iter()
        .map(|(p, s)| (p.to_line(), s.to_line()))
        .unzip())
}
