//! The batchdoku engine for Python: batch calls over numpy arrays, lists of
//! strings and Arrow string buffers that release the GIL and run on a rayon
//! pool. The Python package (`python/batchdoku/__init__.py`) turns every
//! input it accepts into one of the forms [`inputs::Puzzles`] reads, and the codes
//! returned here into words; everything Sudoku is the `batchdoku` library's.
//!
//! One module per area: [`inputs`] (what the calls accept), [`pools`]
//! (where they run), and one per family of functions.

mod canon;
mod generate;
mod grade;
mod inputs;
mod pools;
mod rate;
mod read;
mod solve;
mod verify;

use batchdoku::tasks::generate::TRIES_PER_PUZZLE;
use pyo3::prelude::*;

/// Runs the `batchdoku` command line on `argv` (the program's name first)
/// in this process and returns its exit code: what the `batchdoku` command
/// installed with the package does (a usage error, `--help` and
/// `--version` end the process there, as clap does). It is the binary's
/// code (the library's `cmd` module), not a copy.
#[pyfunction]
fn run_cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    use std::process::ExitCode;
    let code = py.detach(|| batchdoku::cmd::main(argv));
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // An ExitCode does not tell its number; it compares equal to one made
    // from it.
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .unwrap_or(1)
}

#[pymodule]
fn _batchdoku(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(verify::verify, m)?)?;
    m.add_function(wrap_pyfunction!(verify::verify_files, m)?)?;
    m.add_function(wrap_pyfunction!(grade::grade, m)?)?;
    m.add_function(wrap_pyfunction!(grade::grade_words, m)?)?;
    m.add_function(wrap_pyfunction!(rate::rate, m)?)?;
    m.add_function(wrap_pyfunction!(canon::canon, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate, m)?)?;
    m.add_function(wrap_pyfunction!(read::read, m)?)?;
    m.add_function(wrap_pyfunction!(solve::status_words, m)?)?;
    m.add_function(wrap_pyfunction!(rate::rate_words, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate_matches, m)?)?;
    m.add_function(wrap_pyfunction!(generate::generate_at, m)?)?;
    m.add("TRIES_PER_PUZZLE", TRIES_PER_PUZZLE)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
