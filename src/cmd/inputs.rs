//! The inputs of the record engine shared by `solve` and `rate`: mapped
//! files and standard input, cut into chunks on record boundaries, with
//! --resume skipping and Ctrl-C stopping.

use super::output::partial_name;
use anyhow::{bail, Context};
use batchdoku::input::{detect, skip_records, ChunkSplitter, InputFormat, StreamChunks};
use batchdoku::mapfile::MappedFile;
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by Ctrl-C: workers stop at the next record, no new chunk starts.
pub(super) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The smallest chunk: 4 KiB, about 50 puzzles.
const SMALLEST_CHUNK: usize = 4 << 10;

/// Input bytes per chunk at most: about 8 chunks per thread so hard and
/// easy stretches even out, between 4 KiB and 256 KiB (about 3,000 puzzles:
/// enough to amortise scheduling). Toward the end of an input chunks shrink
/// to a quarter of a thread's share of what is left, down to 4 KiB, so the
/// threads finish together (see `ChunkSplitter::shrinking`). Each chunk
/// costs a hand-off to the writer thread (tens of microseconds on two
/// cores while it writes), so no more of them than that.
pub(super) fn chunk_bytes(input: usize, threads: usize) -> usize {
    (input / (threads * 8)).clamp(SMALLEST_CHUNK, 256 << 10)
}

/// Bytes at the top of an input looked at for NUL bytes.
const BINARY_PROBE: usize = 64 << 10;

/// The form `--input auto|line|grid` asks for (`None`: detect per input).
pub(super) fn forced_format(input: &str) -> Option<InputFormat> {
    match input {
        "line" => Some(InputFormat::Line),
        "grid" => Some(InputFormat::Grid),
        _ => None,
    }
}

/// Opens the named inputs in order; none means standard input.
pub(super) fn open_sources(files: &[PathBuf]) -> anyhow::Result<Vec<Source>> {
    let stdin = [PathBuf::from("-")];
    let paths = if files.is_empty() { &stdin[..] } else { files };
    if paths.iter().filter(|p| p.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be named only once");
    }
    paths.iter().map(|p| Source::open(p)).collect()
}

/// One input as the engine sees it: a regular file, memory-mapped, or a
/// stream read in pieces (standard input, a pipe, a FIFO, a device, a
/// `/proc` file: anything that is not a regular file, whose size says
/// nothing of its contents).
pub(super) enum Source {
    Mapped {
        name: String,
        path: PathBuf,
        meta: std::fs::Metadata,
        map: MappedFile,
    },
    Stream {
        name: String,
        /// `None`: standard input.
        file: Option<File>,
        meta: Option<std::fs::Metadata>,
    },
}

impl Source {
    pub(super) fn open(path: &Path) -> anyhow::Result<Source> {
        if path.as_os_str() == "-" {
            return Ok(Source::Stream {
                name: "-".into(),
                file: None,
                meta: None,
            });
        }
        let name = path.display().to_string();
        let file = File::open(path).with_context(|| format!("cannot open {name}"))?;
        let meta = file
            .metadata()
            .with_context(|| format!("cannot read {name}"))?;
        if meta.is_dir() {
            bail!("{name} is a directory");
        }
        // Not a regular file, or one whose size says nothing (`/proc` files
        // read as 0 bytes): read it as a stream, never as an empty map.
        if !meta.is_file() || meta.len() == 0 {
            return Ok(Source::Stream {
                name,
                file: Some(file),
                meta: Some(meta),
            });
        }
        let map = MappedFile::new(file).with_context(|| format!("cannot map {name}"))?;
        map.advise_sequential();
        Ok(Source::Mapped {
            name,
            path: path.to_path_buf(),
            meta,
            map,
        })
    }

    pub(super) fn name(&self) -> &str {
        match self {
            Source::Mapped { name, .. } | Source::Stream { name, .. } => name,
        }
    }

    /// Bytes known up front (0 for a stream), for the progress bar.
    pub(super) fn mapped_len(&self) -> u64 {
        match self {
            Source::Mapped { map, .. } => map.bytes().len() as u64,
            Source::Stream { .. } => 0,
        }
    }

    /// The file's device and inode, when it has them.
    pub(super) fn file_id(&self) -> Option<(u64, u64)> {
        match self {
            Source::Mapped { meta, .. }
            | Source::Stream {
                meta: Some(meta), ..
            } => file_id(meta),
            Source::Stream { meta: None, .. } => std::fs::metadata("/dev/stdin")
                .ok()
                .as_ref()
                .and_then(file_id),
        }
    }

    /// Ok while the bytes read from this input can be trusted (a mapped
    /// file that shrank while being read cannot).
    pub(super) fn check(&self) -> anyhow::Result<()> {
        match self {
            Source::Mapped { name, map, .. } => map.check().with_context(|| name.clone()),
            Source::Stream { .. } => Ok(()),
        }
    }

    /// What identifies this input for `--resume`: its path, size and
    /// modification time (a stream has only its name).
    pub(super) fn identity(&self) -> serde_json::Value {
        match self {
            Source::Mapped { path, meta, .. } => serde_json::json!({
                "path": std::fs::canonicalize(path).unwrap_or_else(|_| path.clone()),
                "size": meta.len(),
                "modified_ns": modified_ns(meta),
            }),
            Source::Stream { name, .. } => serde_json::json!({ "stream": name }),
        }
    }

    /// A reader over a stream input.
    pub(super) fn reader(&self) -> Box<dyn Read + '_> {
        match self {
            Source::Stream { file: Some(f), .. } => Box::new(f),
            _ => Box::new(io::stdin().lock()),
        }
    }
}

/// Device and inode of a file.
pub(super) fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

fn modified_ns(meta: &std::fs::Metadata) -> Option<u128> {
    meta.modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_nanos())
}

/// Refuses inputs that are the output file or its partial (reading a file
/// while writing it, or truncating it on open, loses it).
pub(super) fn refuse_output_as_input(sources: &[Source], output: &Path) -> anyhow::Result<()> {
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

/// A chunk of work: borrowed from a map, or owned (read from a stream).
pub(super) struct Job<'a> {
    pub(super) data: Cow<'a, [u8]>,
    /// Line number of the chunk's first line when `line_known`; else the
    /// chunk continues where the previous chunk of its file ended, and its
    /// records are numbered from 1 and rebased when written.
    pub(super) first_line: u64,
    pub(super) line_known: bool,
    pub(super) format: InputFormat,
    pub(super) file: usize,
}

/// Why the job stream stopped.
#[derive(Debug)]
pub(super) enum Halt {
    Interrupted,
    Read(anyhow::Error),
    Write(io::Error),
}

/// Produces the jobs of all inputs in order, skipping `to_skip` records
/// first (for --resume).
pub(super) struct Jobs<'a> {
    sources: &'a [Source],
    forced: Option<InputFormat>,
    threads: usize,
    /// Whether chunks are numbered as they are cut: needed when output
    /// records carry line numbers (csv, jsonl), since workers write them,
    /// and when resuming. Otherwise workers number from 1 and the writer
    /// rebases, which spares this thread a pass over every input byte.
    count_lines: bool,
    /// Records still to skip (--resume).
    pub(super) to_skip: u64,
    current: usize,
    splitter: Option<ChunkSplitter<'a>>,
    stream: Option<(StreamChunks<Box<dyn Read + 'a>>, InputFormat)>,
}

impl<'a> Jobs<'a> {
    /// The jobs of `sources` in order. `count_lines`: number every chunk as
    /// it is cut (see the field); `to_skip`: records to leave out first.
    pub(super) fn new(
        sources: &'a [Source],
        forced: Option<InputFormat>,
        threads: usize,
        count_lines: bool,
        to_skip: u64,
    ) -> Self {
        Jobs {
            sources,
            forced,
            threads,
            count_lines,
            to_skip,
            current: 0,
            splitter: None,
            stream: None,
        }
    }

    /// The next chunk of the current input, before any skipping.
    fn next_raw(&mut self) -> Option<Result<Job<'a>, Halt>> {
        loop {
            if self.current >= self.sources.len() {
                return None;
            }
            if let Some(s) = &mut self.splitter {
                let first_of_file = s.at_start();
                if let Some(c) = s.next() {
                    return Some(Ok(Job {
                        data: Cow::Borrowed(c.data),
                        first_line: c.first_line,
                        line_known: first_of_file || self.count_lines,
                        format: c.format,
                        file: self.current,
                    }));
                }
                self.splitter = None;
                self.current += 1;
                continue;
            }
            if let Some((s, format)) = &mut self.stream {
                match s.next_chunk() {
                    Ok(Some(c)) => {
                        return Some(Ok(Job {
                            data: Cow::Owned(c.data),
                            first_line: c.first_line,
                            line_known: true,
                            format: *format,
                            file: self.current,
                        }))
                    }
                    Ok(None) => {
                        self.stream = None;
                        self.current += 1;
                        continue;
                    }
                    Err(e) => return Some(Err(self.read_error(e))),
                }
            }
            let source = &self.sources[self.current];
            match source {
                Source::Mapped { map, .. } => {
                    let data: &'a [u8] = map.bytes();
                    if let Err(e) = self.refuse_binary(data) {
                        return Some(Err(e));
                    }
                    let d = detect(data, self.forced);
                    let splitter = ChunkSplitter::new(
                        &data[d.start..],
                        d.first_line,
                        d.format,
                        chunk_bytes(data.len(), self.threads),
                    )
                    .shrinking(self.threads * 4, SMALLEST_CHUNK);
                    self.splitter = Some(if self.count_lines {
                        splitter
                    } else {
                        splitter.without_line_numbers()
                    });
                }
                Source::Stream { .. } => {
                    let mut chunks = StreamChunks::new(source.reader());
                    let d = match chunks.top() {
                        Ok((top, _)) => match self.refuse_binary(top) {
                            Ok(()) => detect(top, self.forced),
                            Err(e) => return Some(Err(e)),
                        },
                        Err(e) => return Some(Err(self.read_error(e))),
                    };
                    chunks.consume(d.start);
                    chunks.set_framing(d.format.into());
                    self.stream = Some((chunks, d.format));
                }
            }
        }
    }

    /// Like ripgrep, takes NUL bytes near the top for a binary file and
    /// refuses it (unless `--input line` insists): a binary read as
    /// puzzles gives hundreds of malformed records and no answer.
    fn refuse_binary(&mut self, top: &[u8]) -> Result<(), Halt> {
        let head = &top[..top.len().min(BINARY_PROBE)];
        if self.forced == Some(InputFormat::Line) || memchr::memchr(0, head).is_none() {
            return Ok(());
        }
        let name = self.sources[self.current].name();
        let name = if name == "-" { "standard input" } else { name };
        let halt = Halt::Read(anyhow::anyhow!(
            "{name} looks like a binary file (it holds NUL bytes); --input line reads it anyway"
        ));
        self.current = self.sources.len();
        Err(halt)
    }

    fn read_error(&mut self, e: io::Error) -> Halt {
        let name = self.sources[self.current].name();
        let name = if name == "-" { "standard input" } else { name };
        let halt = Halt::Read(anyhow::Error::new(e).context(format!("cannot read {name}")));
        self.current = self.sources.len();
        halt
    }
}

impl<'a> Iterator for Jobs<'a> {
    type Item = Result<Job<'a>, Halt>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if INTERRUPTED.load(Ordering::Relaxed) {
                return Some(Err(Halt::Interrupted));
            }
            let mut job = match self.next_raw()? {
                Ok(job) => job,
                Err(e) => return Some(Err(e)),
            };
            if self.to_skip == 0 {
                return Some(Ok(job));
            }
            // Resuming numbers every chunk (see `count_lines`), so
            // `first_line` is real here.
            let (skipped, pos, line) =
                skip_records(&job.data, job.first_line, job.format, self.to_skip);
            self.to_skip -= skipped;
            if pos < job.data.len() {
                job.data = match job.data {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[pos..]),
                    Cow::Owned(v) => Cow::Owned(v[pos..].to_vec()),
                };
                job.first_line = line;
                return Some(Ok(job));
            }
        }
    }
}
