//! The `batchdoku` command line: a thin layer over the library. Each
//! subcommand lives in its own module under `cmd/` with its own help text.

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    Solve(cmd::solve::Args),
    Verify(cmd::verify::Args),
    Bench(cmd::bench::Args),
    Generate(cmd::generate::Args),
    Rate(cmd::rate::Args),
    Canon(cmd::canon::Args),
    Dedup(cmd::dedup::Args),
    Completions(cmd::completions::Args),
    Man(cmd::man::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A mapped input cut short by another program reads as zeros and is
    // reported, instead of killing the process with SIGBUS.
    batchdoku::mapfile::install_fault_guard();
    let result = match cli.command {
        Command::Solve(args) => cmd::solve::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Bench(args) => cmd::bench::run(args),
        Command::Generate(args) => cmd::generate::run(args),
        Command::Rate(args) => cmd::rate::run(args),
        Command::Canon(args) => cmd::canon::run(args),
        Command::Dedup(args) => cmd::dedup::run(args),
        Command::Completions(args) => cmd::completions::run(args, Cli::command()),
        Command::Man(args) => cmd::man::run(args, Cli::command()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("batchdoku: error: {e:#}");
            ExitCode::from(1)
        }
    }
}
