//! The `batchdoku` command line: a thin layer over the library, whose
//! `cmd` module (the `cli` feature) holds a module per subcommand with its
//! own help text.

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    batchdoku::cmd::main(std::env::args_os())
}
