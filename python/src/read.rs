//! `read`: the puzzles of a file, in any form the command line reads.

use crate::pools::{pool, run, stopped_error, STOP};
use batchdoku::engine::pipeline::{run_ordered, Stop};
use batchdoku::engine::{forced_format, open_sources, Job};
use batchdoku::puzzle::grid::CELLS;
use batchdoku::read::records;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use std::ops::ControlFlow;

pub(crate) type ReadArrays<'py> = (
    Bound<'py, PyArray2<u8>>,
    Bound<'py, PyArray1<i64>>,
    Vec<(usize, i64, String)>,
);

/// Reads every record of a file the CLI reads (memory-mapped; any form,
/// `input` as the CLI's `--input`): the puzzles as (N, 81) uint8, each
/// record's line number (row index for npy and Parquet), and the malformed
/// ones as (index, line, reason) with 0 rows in the array.
#[pyfunction]
#[pyo3(signature = (path, input, column, threads))]
pub(crate) fn read<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    input: &str,
    column: Option<String>,
    threads: usize,
) -> PyResult<ReadArrays<'py>> {
    if !["auto", "line", "grid", "csv", "npy", "parquet"].contains(&input) {
        return Err(PyValueError::new_err(format!(
            "input: {input:?} is not one of auto, line, grid, csv, npy, parquet"
        )));
    }
    if path.as_os_str() == "-" {
        return Err(PyValueError::new_err(
            "read: give a file's path (standard input is not read)",
        ));
    }
    let column = match column {
        Some(c) => Some(
            c.parse()
                .map_err(|e: String| PyValueError::new_err(format!("column: {e}")))?,
        ),
        None => None,
    };
    let sources = open_sources(&[path]).map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
    let pool = pool(threads, usize::MAX)?;
    let nthreads = pool.current_num_threads();
    let forced = forced_format(input);
    type Piece = (Vec<u8>, Vec<i64>, Vec<(usize, i64, String)>);
    let result = run(py, None, || -> Result<Vec<Piece>, String> {
        let jobs = batchdoku::engine::Jobs::new(&sources, forced, nthreads, true, 0)
            .with_column(column)
            .with_stop(&STOP);
        let mut pieces: Vec<Piece> = Vec::new();
        let r = run_ordered(
            &pool,
            jobs,
            nthreads * 4,
            |job: Job| -> Result<Piece, String> {
                let job = job.load(&sources).map_err(|e| format!("{e:#}"))?;
                let mut cells = Vec::with_capacity(job.data.len());
                let mut lines = Vec::new();
                let mut bad = Vec::new();
                for (k, rec) in records(&job.data, job.first_line, job.format).enumerate() {
                    lines.push(rec.line as i64);
                    match rec.givens() {
                        Ok(g) => cells.extend_from_slice(g.cells()),
                        Err(e) => {
                            cells.extend_from_slice(&[0; CELLS]);
                            bad.push((k, rec.line as i64, e.to_string()));
                        }
                    }
                }
                Ok((cells, lines, bad))
            },
            |piece| match piece {
                Ok(p) => {
                    pieces.push(p);
                    ControlFlow::Continue(())
                }
                Err(e) => ControlFlow::Break(batchdoku::engine::Halt::Read(anyhow::anyhow!(e))),
            },
        );
        match r {
            Ok(()) => Ok(pieces),
            Err(Stop::Source(h) | Stop::Sink(h)) => Err(match h {
                batchdoku::engine::Halt::Interrupted => "stopped".into(),
                batchdoku::engine::Halt::Read(e) => format!("{e:#}"),
                batchdoku::engine::Halt::Write(e) => e.to_string(),
            }),
        }
    })?;
    let pieces = match result {
        Ok(p) => p,
        Err(e) if e == "stopped" => return Err(stopped_error()),
        Err(e) => return Err(PyValueError::new_err(e)),
    };
    let mut cells = Vec::new();
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    for (c, l, b) in pieces {
        let base = lines.len();
        bad.extend(b.into_iter().map(|(k, line, e)| (base + k, line, e)));
        cells.extend(c);
        lines.extend(l);
    }
    let n = lines.len();
    Ok((
        Array2::from_shape_vec((n, CELLS), cells)
            .expect("n rows of 81")
            .into_pyarray(py),
        lines.into_pyarray(py),
        bad,
    ))
}

// ---------------------------------------------------------------------
// The command line
