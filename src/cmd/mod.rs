//! The `batchdoku` command line: one module per subcommand, each with its
//! own help text, over the library. Built with the `cli` feature; [`main`]
//! serves the `batchdoku` binary and the Python package's `batchdoku`
//! command alike.

use clap::{CommandFactory, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;

pub mod bench;
pub mod canon;
pub mod completions;
pub mod dedup;
pub mod generate;
pub mod grade;
pub mod man;
pub mod output;
pub mod progress;
pub mod rate;
pub mod records;
pub mod run_args;
pub mod solve;
pub mod verify;

/// Set by Ctrl-C: workers stop at the next record, no new chunk starts.
pub static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The jobs of `sources` for `solve` and `rate`: stopped by Ctrl-C, reading
/// CSV and Parquet puzzles from `column`, warning about odd inputs on
/// stderr unless `quiet`.
pub fn jobs<'a>(
    sources: &'a [crate::engine::Source],
    forced: Option<crate::read::InputFormat>,
    threads: usize,
    count_lines: bool,
    to_skip: u64,
    column: Option<crate::read::ColumnSpec>,
    quiet: bool,
) -> crate::engine::Jobs<'a> {
    let jobs = crate::engine::Jobs::new(sources, forced, threads, count_lines, to_skip)
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

/// High-throughput batch Sudoku engine.
#[derive(Parser)]
#[command(name = "batchdoku", version, about, long_about = None)]
#[command(
    after_help = "Exit codes: 0 success; 1 failure (I/O error, interruption, wrong answers: see each command's help); 2 usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Solve(solve::Args),
    Verify(verify::Args),
    Bench(bench::Args),
    Generate(generate::Args),
    Rate(rate::Args),
    Grade(grade::Args),
    Canon(canon::Args),
    Dedup(dedup::Args),
    Completions(completions::Args),
    Man(man::Args),
}

/// Runs the command line `args` (the program's name first), as the
/// `batchdoku` binary does: errors are printed, and the exit code returned
/// (a usage error, `--help` and `--version` exit here, through clap).
pub fn main<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::parse_from(args);
    // A mapped input cut short by another program reads as zeros and is
    // reported, instead of killing the process with SIGBUS.
    crate::read::mapfile::install_fault_guard();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Rate(args) => rate::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Canon(args) => canon::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Completions(args) => completions::run(args, Cli::command()),
        Command::Man(args) => man::run(args, Cli::command()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("batchdoku: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
