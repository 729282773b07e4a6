//! The tasks built on the readers, solvers and engine, each a whole job a
//! command or a Python call runs: [`verify`] (answers checked against
//! their puzzles), [`bench`] (solver variants measured), [`generate`]
//! (uniquely solvable puzzles), [`rate`] (a difficulty), [`grade`]
//! (Sudoku Explainer's rating and the solving path), [`canon`]
//! (canonical forms) and [`classes`] (a set of them at dataset scale).

pub mod bench;
pub mod canon;
pub mod classes;
pub mod generate;
pub mod grade;
pub mod rate;
pub mod verify;
