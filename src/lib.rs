//! batchdoku: a high-throughput batch Sudoku engine.
//!
//! The library holds the reusable work; the `batchdoku` binary is a thin
//! command line over it.
//!
//! - [`puzzle`]: the puzzle and its forms: the 9x9 grid ([`puzzle::grid`],
//!   its line and block forms, rule checks), pencilmarks
//!   ([`puzzle::pencil`]), and the status a record ends with.
//! - [`solver`]: the [`Solver`](solver::Solver) trait and its three variants.
//! - [`input`], [`npy`], [`table`]: records from bytes in every form read
//!   (line, grid, CSV, npy, Parquet), and cutting inputs into chunks.
//! - [`engine`]: inputs (files, standard input, tables) as jobs of whole
//!   records; [`pipeline`] runs them on a pool and collects results in
//!   order.
//! - [`canon`]: canonical (minlex) forms, for telling disguised copies of
//!   a puzzle apart from new ones; [`classes`]: a set of them at dataset
//!   scale.
//! - [`batch`]: solving a slice of records into an output buffer, the
//!   unit of work the parallel `solve` command is built from.

pub mod batch;
#[cfg(feature = "cli")]
pub mod cmd;
pub mod engine;
pub mod mapfile;
pub mod npy;
pub mod pipeline;
pub mod puzzle;
pub mod read;
pub mod solver;
pub mod table;
pub mod tasks;

pub use puzzle::grid::{Grid, ParseError};
pub use puzzle::Puzzle;
pub use solver::{Outcome, Solver, SolverKind};
