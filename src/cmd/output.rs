//! Where results go: standard output, or a file written under a temporary
//! name (`OUT.partial`) and renamed to `OUT` only once complete, so a run cut
//! short never leaves a file that looks finished.

use anyhow::Context;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// An output sink for one run.
pub struct Output {
    writer: Box<dyn Write>,
    /// `(partial, final)` names for a file output.
    file: Option<(PathBuf, PathBuf)>,
}

/// The temporary name a file output is written under.
pub fn partial_name(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

impl Output {
    /// Standard output for `None` or `-`, else a new file at `path`.
    pub fn create(path: Option<&Path>) -> anyhow::Result<Output> {
        match path {
            None => Ok(Output::stdout()),
            Some(p) if p.as_os_str() == "-" => Ok(Output::stdout()),
            Some(p) => {
                let partial = partial_name(p);
                let f = File::create(&partial)
                    .with_context(|| format!("cannot create {}", partial.display()))?;
                Ok(Output {
                    writer: Box::new(BufWriter::with_capacity(1 << 20, f)),
                    file: Some((partial, p.to_path_buf())),
                })
            }
        }
    }

    fn stdout() -> Output {
        Output {
            writer: Box::new(BufWriter::with_capacity(1 << 20, io::stdout())),
            file: None,
        }
    }

    /// Appends bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.writer
            .write_all(bytes)
            .with_context(|| self.describe())
    }

    fn describe(&self) -> String {
        match &self.file {
            Some((partial, _)) => format!("cannot write {}", partial.display()),
            None => "cannot write to standard output".to_string(),
        }
    }

    /// Flushes and, for a file, renames it to its final name.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.writer.flush().with_context(|| self.describe())?;
        drop(self.writer);
        if let Some((partial, path)) = &self.file {
            std::fs::rename(partial, path).with_context(|| {
                format!("cannot rename {} to {}", partial.display(), path.display())
            })?;
        }
        Ok(())
    }
}
