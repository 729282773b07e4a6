//! The commands' side of their outputs: refusing an output that is one of
//! the inputs, and saying that an input refused before any record left no
//! output behind. The output itself is [`crate::write::output::Output`].

use crate::engine::Source;
use crate::read::folders::file_id;
use crate::write::output::{partial_name, Output};
use anyhow::bail;
use std::path::Path;

/// An input stopped the run before any record was written (and none is
/// kept from an earlier run): `output` and the file written `beside` it
/// (a report, an npy array's statuses) are removed, partial and run
/// record, since there is nothing to resume, and the error says so.
pub fn refused_before_any_record(
    e: &anyhow::Error,
    output: &mut Output,
    beside: Option<&mut Output>,
) {
    let discarded = output.discard();
    if let Some(beside) = beside {
        beside.discard();
    }
    let nothing = if discarded { "; no output written" } else { "" };
    eprintln!("batchdoku: error: {e:#}{nothing}");
}

/// Refuses inputs that are the output file or its partial (reading a file
/// while writing it, or truncating it on open, loses it).
pub fn refuse_output_as_input(sources: &[Source], output: &Path) -> anyhow::Result<()> {
    let targets = [output.to_path_buf(), partial_name(output)];
    for target in &targets {
        let Some(id) = std::fs::metadata(target).ok().as_ref().and_then(file_id) else {
            continue;
        };
        if !std::fs::metadata(target).is_ok_and(|m| m.is_file()) {
            continue; // a device or FIFO written in place
        }
        for s in sources {
            if s.file_id() == Some(id) {
                bail!(
                    "input {} is the same file as {}: the output would overwrite its own input",
                    s.name(),
                    target.display()
                );
            }
        }
    }
    Ok(())
}
