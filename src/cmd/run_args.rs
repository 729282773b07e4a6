//! The options every command that runs over records shares (`solve`,
//! `verify`, `rate`, `canon`, `dedup`, `generate`, `bench`), declared once
//! so they read and behave alike: threads, quiet, the progress bar, and a
//! statistics file.

use super::progress::Progress;
use anyhow::Context;
use std::path::PathBuf;

/// Threads, quiet, progress and statistics: flattened into each command's
/// arguments.
#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    /// Worker threads (0: one per core) [default: one per core; for
    /// `bench`, 1]
    #[arg(short = 'j', long = "threads", value_name = "N")]
    pub threads: Option<usize>,
    /// Print no summary, warnings or progress.
    #[arg(short, long)]
    pub quiet: bool,
    /// Progress bar on stderr: auto (when stderr is a terminal), always or
    /// never.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub progress: String,
    /// Also write the run's statistics (the figures of the summary) as
    /// JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

impl RunArgs {
    /// The pool for `-j` (one thread per core without it).
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        super::thread_pool(self.threads.unwrap_or(0))
    }

    /// A progress bar over `total_bytes` of input (a spinner counting
    /// records when 0: unknown).
    pub fn progress_bar(&self, total_bytes: u64) -> Progress {
        Progress::new(&self.progress, self.quiet, total_bytes)
    }

    /// A progress bar counting items towards `total`.
    pub fn progress_counter(&self, total: u64) -> Progress {
        Progress::counter(&self.progress, self.quiet, total)
    }

    /// Writes `stats` (a JSON object) to the `--stats` file, when one is
    /// named, whatever `-q` says.
    pub fn write_stats(&self, stats: &serde_json::Value) -> anyhow::Result<()> {
        let Some(path) = &self.stats else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(stats)? + "\n";
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
    }
}

/// Records per second, `null` without records: the figure every statistics
/// file gives beside its counts.
pub fn per_sec(records: u64, seconds: f64) -> Option<f64> {
    (records > 0).then(|| records as f64 / seconds.max(1e-9))
}
