//! `batchdoku completions`: shell completion scripts, made from the command
//! line's own definition (clap_complete), so they never fall behind it.

use std::process::ExitCode;

/// Print a completion script for a shell.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku completions bash > ~/.local/share/bash-completion/completions/batchdoku
  batchdoku completions zsh > \"${fpath[1]}/_batchdoku\"
  batchdoku completions fish > ~/.config/fish/completions/batchdoku.fish")]
pub struct Args {
    /// The shell: bash, zsh, fish, powershell or elvish.
    pub shell: clap_complete::Shell,
}

pub fn run(args: Args, mut command: clap::Command) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "batchdoku", &mut script);
    super::print_stdout(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::SUCCESS)
}
