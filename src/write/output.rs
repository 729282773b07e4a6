//! Where results go: standard output, or a file written under a temporary
//! name (`OUT.partial`) and renamed to `OUT` only once complete, so a run cut
//! short never leaves a file that looks finished. A kept `OUT.partial` can be
//! continued with `--resume`.

use anyhow::{bail, Context};
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Output buffer size. Chunk outputs larger than this skip the copy into the
/// buffer and go straight to `write`.
const OUTPUT_BUFFER: usize = 64 << 10;

/// An output sink for one run.
pub struct Output {
    writer: BufWriter<Box<dyn Write + Send>>,
    /// What to call the output in messages, when not a partial file.
    target: String,
    /// `(partial, final)` names for a file output.
    file: Option<(PathBuf, PathBuf)>,
}

/// The file beside `OUT.partial` that records what run made it (inputs and
/// the options that shape the output), so `--resume` continues only the
/// same run.
pub fn run_record_name(path: &Path) -> PathBuf {
    let mut name = partial_name(path).into_os_string();
    name.push(".run");
    PathBuf::from(name)
}

/// How the records already in an output are counted.
pub type RecordCounter = fn(&[u8]) -> (u64, usize);

/// The temporary name a file output is written under.
pub fn partial_name(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// `-`, and the names of standard output itself: a file behind them is
/// the one the shell opened (perhaps for appending), written through the
/// descriptor, never replaced.
fn is_stdout(path: Option<&Path>) -> bool {
    path.is_none_or(|p| {
        ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
            .iter()
            .any(|name| p.as_os_str() == *name)
    })
}

/// Where a file output goes: written in place (devices, pipes, anything
/// under /dev or /proc, which must never be renamed over), or as a partial
/// file renamed at the end onto this path (a symbolic link's target, so
/// the link stays).
fn final_place(path: &Path) -> Option<PathBuf> {
    let not_a_file = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let system = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    let link = std::fs::read_link(path).ok();
    if not_a_file || system(&absolute) || link.as_deref().is_some_and(system) {
        return None;
    }
    match link {
        // A link to a file not made yet: its target, beside the link.
        Some(target) => Some(std::fs::canonicalize(path).unwrap_or_else(|_| {
            path.parent()
                .map_or_else(|| target.clone(), |dir| dir.join(&target))
        })),
        None => Some(path.to_path_buf()),
    }
}

/// What `--resume` found in an existing partial output.
pub struct Resumed {
    pub output: Output,
    /// Complete output records already in the file (a header included).
    pub records: u64,
}

impl Output {
    /// Standard output for `None`, `-` or `/dev/stdout`, else a new file at
    /// `path`. An existing path that is not a regular file (`/dev/null`, a
    /// FIFO, a terminal), or any path under /dev or /proc, is written in
    /// place: renaming over it would replace the device, pipe or link with
    /// a plain file. A symbolic link is followed, so the link stays. With
    /// `run`, a file output gets the record of its run beside its partial,
    /// for `--resume`.
    pub fn create(path: Option<&Path>, run: Option<&serde_json::Value>) -> anyhow::Result<Output> {
        if is_stdout(path) {
            return Ok(Output::stdout());
        }
        let given = path.expect("not stdout");
        let place = final_place(given);
        let Some(path) = place.as_deref() else {
            let path = given;
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            return Ok(Output {
                writer: BufWriter::with_capacity(OUTPUT_BUFFER, Box::new(f)),
                target: path.display().to_string(),
                file: None,
            });
        };
        let partial = partial_name(path);
        let record = run_record_name(path);
        match run {
            Some(run) => std::fs::write(&record, serde_json::to_string_pretty(run)? + "\n")
                .with_context(|| format!("cannot write {}", record.display()))?,
            None => {
                let _ = std::fs::remove_file(&record);
            }
        }
        let f = File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        Ok(Output::file(f, partial, path))
    }

    /// Reopens `OUT.partial` to append to it, after checking that it was
    /// made by the same run (`run`, against the record beside it) and
    /// cutting off a last record left unfinished (a run killed in the
    /// middle of a write). `count` finds the whole records of the output's
    /// format and where they end. `None` when there is no partial file.
    pub fn resume(
        path: &Path,
        run: &serde_json::Value,
        count: RecordCounter,
    ) -> anyhow::Result<Option<Resumed>> {
        // The partial sits where `create` put it (beside a link's target).
        let resolved = final_place(path);
        let path = resolved.as_deref().unwrap_or(path);
        let partial = partial_name(path);
        let mut f = match OpenOptions::new().read(true).write(true).open(&partial) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("cannot open {}", partial.display())),
        };
        let record = run_record_name(path);
        let made_by: serde_json::Value = match std::fs::read(&record) {
            Ok(text) => serde_json::from_slice(&text)
                .with_context(|| format!("cannot read {}", record.display()))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
                "cannot resume {}: {} is missing, so nothing says which run made it; \
                 remove the partial file or run without --resume",
                partial.display(),
                record.display()
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", record.display())),
        };
        let differences = differences(&made_by, run);
        if !differences.is_empty() {
            bail!(
                "cannot resume {}: it was made by a different run ({}); \
                 run the same command as before, or without --resume to start over",
                partial.display(),
                differences.join("; ")
            );
        }
        let mut text = Vec::new();
        f.read_to_end(&mut text)
            .with_context(|| format!("cannot read {}", partial.display()))?;
        let (records, keep) = count(&text);
        f.set_len(keep as u64)
            .and_then(|_| f.seek(SeekFrom::End(0)))
            .with_context(|| format!("cannot truncate {}", partial.display()))?;
        Ok(Some(Resumed {
            output: Output::file(f, partial, path),
            records,
        }))
    }

    fn file(f: File, partial: PathBuf, path: &Path) -> Output {
        Output {
            writer: BufWriter::with_capacity(OUTPUT_BUFFER, Box::new(f)),
            target: path.display().to_string(),
            file: Some((partial, path.to_path_buf())),
        }
    }

    fn stdout() -> Output {
        Output {
            writer: BufWriter::with_capacity(OUTPUT_BUFFER, Box::new(io::stdout())),
            target: "standard output".into(),
            file: None,
        }
    }

    /// The output's name for messages: its path, or "standard output".
    pub fn target(&self) -> String {
        match &self.file {
            Some((partial, _)) => partial.display().to_string(),
            None => self.target.clone(),
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

    /// Closes the output, dropping what is still buffered (after a failed
    /// write, so nothing lands later behind a file cut to its whole
    /// records); it keeps its partial name.
    pub fn close_dropping_unwritten(&mut self) {
        let sink: Box<dyn Write + Send> = Box::new(io::sink());
        let writer = std::mem::replace(&mut self.writer, BufWriter::new(sink));
        drop(writer.into_parts());
    }

    /// Closes the output and, for a file, removes its partial and the run
    /// record beside it: for a run that wrote no record (an input refused
    /// before any was read), which leaves nothing to resume. True when
    /// there was a file to remove.
    pub fn discard(&mut self) -> bool {
        self.close_dropping_unwritten();
        match self.file.take() {
            Some((partial, path)) => {
                let _ = std::fs::remove_file(&partial);
                let _ = std::fs::remove_file(run_record_name(&path));
                true
            }
            None => false,
        }
    }

    /// Flushes and, for a file, renames it to its final name.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        let target = self.target();
        self.writer
            .flush()
            .with_context(|| format!("cannot write {target}"))?;
        // Close the file before it is renamed.
        self.close_dropping_unwritten();
        if let Some((partial, path)) = self.file.take() {
            std::fs::rename(&partial, &path).with_context(|| {
                format!("cannot rename {} to {}", partial.display(), path.display())
            })?;
            let _ = std::fs::remove_file(run_record_name(&path));
        }
        Ok(())
    }
}

/// What differs between the run that made a partial output and this one,
/// field by field (inputs one by one), in words.
fn differences(was: &serde_json::Value, now: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let mut out = Vec::new();
    let (Value::Object(was), Value::Object(now)) = (was, now) else {
        return vec!["the run record is not a JSON object".into()];
    };
    let mut keys: Vec<&String> = was.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (a, b) = (was.get(key), now.get(key));
        if a == b {
            continue;
        }
        match (key.as_str(), a, b) {
            ("inputs", Some(Value::Array(a)), Some(Value::Array(b))) => {
                if a.len() != b.len() {
                    out.push(format!("{} inputs then, {} now", a.len(), b.len()));
                }
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    if x != y {
                        out.push(format!("input {}: was {x}, now {y}", i + 1));
                    }
                }
            }
            _ => out.push(format!(
                "{key}: was {}, now {}",
                a.unwrap_or(&Value::Null),
                b.unwrap_or(&Value::Null)
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_each_field_and_input() {
        let was = serde_json::json!({"format": "csv", "limit": 1,
            "inputs": [{"path": "a", "size": 10}, {"path": "b", "size": 5}]});
        let now = serde_json::json!({"format": "line", "limit": 1,
            "inputs": [{"path": "a", "size": 3}, {"path": "b", "size": 5}]});
        assert_eq!(
            differences(&was, &now),
            vec![
                "format: was \"csv\", now \"line\"".to_string(),
                "input 1: was {\"path\":\"a\",\"size\":10}, now {\"path\":\"a\",\"size\":3}"
                    .to_string()
            ]
        );
        assert!(differences(&was, &was).is_empty());
    }
}
