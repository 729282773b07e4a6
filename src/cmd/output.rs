//! Where results go: standard output, or a file written under a temporary
//! name (`OUT.partial`) and renamed to `OUT` only once complete, so a run cut
//! short never leaves a file that looks finished. A kept `OUT.partial` can be
//! continued with `--resume`.

use anyhow::Context;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Output buffer size. Chunk outputs larger than this skip the copy into the
/// buffer and go straight to `write`.
const OUTPUT_BUFFER: usize = 64 << 10;

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

fn is_stdout(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// What `--resume` found in an existing partial output.
pub struct Resumed {
    pub output: Output,
    /// Complete output lines already in the file (headers included).
    pub lines: u64,
}

impl Output {
    /// Standard output for `None` or `-`, else a new file at `path`. An
    /// existing path that is not a regular file (`/dev/null`, a FIFO, a
    /// terminal) is written in place: renaming over it would replace the
    /// device or pipe with a plain file.
    pub fn create(path: Option<&Path>) -> anyhow::Result<Output> {
        if is_stdout(path) {
            return Ok(Output::stdout());
        }
        let path = path.expect("not stdout");
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            return Ok(Output {
                writer: Box::new(BufWriter::with_capacity(OUTPUT_BUFFER, f)),
                file: None,
            });
        }
        let partial = partial_name(path);
        let f = File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        Ok(Output::file(f, partial, path))
    }

    /// Reopens `OUT.partial` to append to it, after cutting off a last line
    /// left unfinished (a run killed in the middle of a write). `None` when
    /// there is no partial file to continue.
    pub fn resume(path: &Path) -> anyhow::Result<Option<Resumed>> {
        let partial = partial_name(path);
        let mut f = match OpenOptions::new().read(true).write(true).open(&partial) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot open {}", partial.display())),
        };
        let mut text = Vec::new();
        f.read_to_end(&mut text)
            .with_context(|| format!("cannot read {}", partial.display()))?;
        let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let lines = text[..keep].iter().filter(|&&b| b == b'\n').count() as u64;
        f.set_len(keep as u64)
            .and_then(|_| f.seek(SeekFrom::End(0)))
            .with_context(|| format!("cannot truncate {}", partial.display()))?;
        Ok(Some(Resumed {
            output: Output::file(f, partial, path),
            lines,
        }))
    }

    fn file(f: File, partial: PathBuf, path: &Path) -> Output {
        Output {
            writer: Box::new(BufWriter::with_capacity(OUTPUT_BUFFER, f)),
            file: Some((partial, path.to_path_buf())),
        }
    }

    fn stdout() -> Output {
        Output {
            writer: Box::new(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout())),
            file: None,
        }
    }

    /// The partial file's name, for a file output.
    pub fn partial_path(&self) -> Option<&Path> {
        self.file.as_ref().map(|(p, _)| p.as_path())
    }

    /// Appends bytes.
    pub fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Flushes what was written so far (the file keeps its partial name).
    pub fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }

    /// Flushes and, for a file, renames it to its final name.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.writer.flush().with_context(|| match &self.file {
            Some((partial, _)) => format!("cannot write {}", partial.display()),
            None => "cannot write to standard output".to_string(),
        })?;
        drop(self.writer);
        if let Some((partial, path)) = &self.file {
            std::fs::rename(partial, path).with_context(|| {
                format!("cannot rename {} to {}", partial.display(), path.display())
            })?;
        }
        Ok(())
    }
}
