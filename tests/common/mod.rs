//! Helpers shared by the integration tests.
#![allow(dead_code)]

use batchdoku::input::{records, InputFormat};
use batchdoku::Grid;
use std::path::PathBuf;

/// `../shared/datasets` beside the project (or `$BATCHDOKU_DATASETS`), when
/// present. Tests that need it say so on stderr and pass without it.
pub fn shared_datasets() -> Option<PathBuf> {
    let dir = std::env::var_os("BATCHDOKU_DATASETS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"));
    if dir.join("README.md").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "note: {} not found; shared-dataset checks not run",
            dir.display()
        );
        None
    }
}

/// The project's own sample dataset.
pub fn sample_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("datasets/sample.txt")
}

/// Every puzzle of a line-per-puzzle file.
pub fn load_puzzles(path: &std::path::Path) -> Vec<Grid> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    records(&data, 1, InputFormat::Line)
        .map(|r| {
            r.grid
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), r.line))
        })
        .collect()
}
