//! batchdoku: a high-throughput batch Sudoku engine.
//!
//! The library holds the reusable work; the `batchdoku` binary is a thin
//! command line over it. One folder a layer, each using only those above
//! it in this list:
//!
//! - [`puzzle`]: the puzzle and its forms: the 9x9 grid ([`puzzle::grid`],
//!   its line and block forms, rule checks), pencilmarks
//!   ([`puzzle::pencil`]), and the status a record ends with.
//! - [`solver`]: the [`Solver`](solver::Solver) trait and its three variants.
//! - [`read`]: records from bytes, one module per form (line and grid
//!   text, CSV, npy, Parquet), detection, chunking, streaming, and the
//!   watched map of a file.
//! - [`write`](mod@write): what an output record says and every form it is written
//!   in (line, csv, jsonl, npy, Parquet).
//! - [`engine`]: inputs (files, folders of parts, compressed streams,
//!   standard input, tables) as jobs of whole records; its `pipeline` runs
//!   them on a pool and collects results in order; `solve` does a chunk of
//!   records, the unit of work of the parallel `solve` command.
//! - [`tasks`]: whole jobs built on them: verify, bench, generate, rate,
//!   canon, and classes of equivalent puzzles at dataset scale.
//! - `cmd` (with the `cli` feature): the command line.

#[cfg(feature = "cli")]
pub mod cmd;
pub mod engine;
pub mod puzzle;
pub mod read;
pub mod solver;
pub mod tasks;
pub mod write;

pub use puzzle::grid::{Grid, ParseError};
pub use puzzle::Puzzle;
pub use solver::{Outcome, Solver, SolverKind};
