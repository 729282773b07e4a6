//! `batchdoku man`: the manual page (roff), made from the command line's
//! own definition (clap_mangen): the top page, then one section per
//! subcommand with its options and help text.

use std::process::ExitCode;

/// Print the manual page in roff.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  batchdoku man | man -l -
  batchdoku man > /usr/local/share/man/man1/batchdoku.1")]
pub struct Args {}

pub fn run(_args: Args, command: clap::Command) -> anyhow::Result<ExitCode> {
    let command = command.version(env!("CARGO_PKG_VERSION"));
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    man.render(&mut page)?;
    // One section per subcommand, as `git help` pages list theirs.
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("batchdoku {}", sub.get_name());
        let sub = sub.clone().bin_name(name.clone());
        page.extend_from_slice(format!(".SH \"{}\"\n", name.to_uppercase()).as_bytes());
        let man = clap_mangen::Man::new(sub);
        man.render_synopsis_section(&mut page)?;
        man.render_description_section(&mut page)?;
        man.render_options_section(&mut page)?;
        man.render_extra_section(&mut page)?;
    }
    super::print_stdout(&String::from_utf8_lossy(&page))?;
    Ok(ExitCode::SUCCESS)
}
