//! One module per subcommand.

pub mod bench;
pub mod canon;
pub mod completions;
pub mod dedup;
pub mod generate;
pub mod man;
pub mod output;
pub mod progress;
pub mod rate;
pub mod records;
pub mod solve;
pub mod verify;

/// Set by Ctrl-C: workers stop at the next record, no new chunk starts.
pub static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The jobs of `sources` for `solve` and `rate`: stopped by Ctrl-C, reading
/// CSV and Parquet puzzles from `column`, warning about odd inputs on
/// stderr unless `quiet`.
pub fn jobs<'a>(
    sources: &'a [batchdoku::engine::Source],
    forced: Option<batchdoku::input::InputFormat>,
    threads: usize,
    count_lines: bool,
    to_skip: u64,
    column: Option<batchdoku::input::ColumnSpec>,
    quiet: bool,
) -> batchdoku::engine::Jobs<'a> {
    let jobs = batchdoku::engine::Jobs::new(sources, forced, threads, count_lines, to_skip)
        .with_column(column)
        .with_stop(&INTERRUPTED);
    if quiet {
        jobs
    } else {
        jobs.with_warnings(|w| eprintln!("batchdoku: warning: {w}"))
    }
}

/// Writes a report to standard output. A reader that went away (a closed
/// pipe, as after `| head`) is not an error; any other failure (`>
/// /dev/full`) is, with a message instead of a panic.
pub fn print_stdout(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(anyhow::Error::new(e).context("cannot write to standard output")),
    }
}

/// Threads per core above which `-j` is capped: more only adds switching
/// (and thousands of threads take seconds to start, or fail to).
const THREADS_PER_CORE: usize = 16;

/// The rayon pool for `-j N`; 0 means one thread per core. A count far
/// beyond the cores is capped, with a warning.
pub fn thread_pool(threads: usize) -> anyhow::Result<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = cores * THREADS_PER_CORE;
    let threads = match threads {
        0 => cores,
        n if n > cap => {
            eprintln!(
                "batchdoku: warning: -j {n} is far beyond the {cores} cores here; using {cap} threads ({THREADS_PER_CORE} per core)"
            );
            cap
        }
        n => n,
    };
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))
}
