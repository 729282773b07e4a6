//! The inputs of the record engine shared by `solve` and `rate`: mapped
//! files and standard input, cut into chunks on record boundaries, with
//! --resume skipping and Ctrl-C stopping.

use anyhow::{bail, Context};
use batchdoku::input::{
    complete_prefix, count_newlines, detect, skip_records, ChunkSplitter, InputFormat,
};
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

/// Bytes read from standard input per chunk.
pub(super) const STDIN_CHUNK: usize = 256 << 10;

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

/// Maps a file read-only; `None` for an empty file (which cannot be mapped).
pub(super) fn map_file(path: &Path) -> anyhow::Result<Option<memmap2::Mmap>> {
    let name = path.display();
    let file = File::open(path).with_context(|| format!("cannot open {name}"))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {name}"))?;
    if meta.is_dir() {
        bail!("{name} is a directory");
    }
    if meta.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the map is only read. If another process truncates the file
    // while we run, reading the lost pages faults (SIGBUS), the documented
    // risk of every mapped reader; we never write through it, and the bytes
    // are only copied out or parsed.
    let map = unsafe { memmap2::Mmap::map(&file) }.with_context(|| format!("cannot map {name}"))?;
    Ok(Some(map))
}

/// One input as the engine sees it.
pub(super) enum Source {
    Mapped {
        name: String,
        map: Option<memmap2::Mmap>,
    },
    Stdin,
}

impl Source {
    pub(super) fn open(path: &Path) -> anyhow::Result<Source> {
        if path.as_os_str() == "-" {
            return Ok(Source::Stdin);
        }
        let name = path.display().to_string();
        let map = map_file(path)?;
        #[cfg(unix)]
        if let Some(m) = &map {
            let _ = m.advise(memmap2::Advice::Sequential);
        }
        Ok(Source::Mapped { name, map })
    }

    pub(super) fn name(&self) -> &str {
        match self {
            Source::Mapped { name, .. } => name,
            Source::Stdin => "-",
        }
    }

    pub(super) fn mapped_len(&self) -> u64 {
        match self {
            Source::Mapped { map, .. } => map.as_ref().map_or(0, |m| m.len() as u64),
            Source::Stdin => 0,
        }
    }
}

/// A chunk of work: borrowed from a map, or owned (read from stdin).
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
    pub(super) sources: &'a [Source],
    pub(super) forced: Option<InputFormat>,
    pub(super) threads: usize,
    /// Whether chunks are numbered as they are cut: needed when output
    /// records carry line numbers (csv, jsonl), since workers write them,
    /// and when resuming. Otherwise workers number from 1 and the writer
    /// rebases, which spares this thread a pass over every input byte.
    pub(super) count_lines: bool,
    pub(super) to_skip: u64,
    pub(super) current: usize,
    pub(super) splitter: Option<ChunkSplitter<'a>>,
    pub(super) stdin: Option<StdinChunks>,
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
            stdin: None,
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
            if let Some(s) = &mut self.stdin {
                match s.next_chunk() {
                    Ok(Some((data, first_line, format))) => {
                        return Some(Ok(Job {
                            data: Cow::Owned(data),
                            first_line,
                            line_known: true,
                            format,
                            file: self.current,
                        }))
                    }
                    Ok(None) => {
                        self.stdin = None;
                        self.current += 1;
                        continue;
                    }
                    Err(e) => {
                        self.current = self.sources.len();
                        return Some(Err(Halt::Read(
                            anyhow::Error::new(e).context("cannot read standard input"),
                        )));
                    }
                }
            }
            match &self.sources[self.current] {
                Source::Mapped { map: None, .. } => self.current += 1,
                Source::Mapped { map: Some(m), .. } => {
                    let data: &'a [u8] = m;
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
                Source::Stdin => self.stdin = Some(StdinChunks::new(self.forced)),
            }
        }
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

/// Standard input read in chunks that end on record boundaries, so memory
/// stays bounded in a pipe.
pub(super) struct StdinChunks {
    forced: Option<InputFormat>,
    /// Bytes read but not yet handed out.
    carry: Vec<u8>,
    /// Form and line number of `carry`, once the top was read.
    state: Option<(InputFormat, u64)>,
    eof: bool,
}

impl StdinChunks {
    fn new(forced: Option<InputFormat>) -> Self {
        StdinChunks {
            forced,
            carry: Vec::new(),
            state: None,
            eof: false,
        }
    }

    /// Reads until `carry` holds at least `want` bytes or input ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        let mut stdin = io::stdin().lock();
        while !self.eof && self.carry.len() < want {
            let start = self.carry.len();
            self.carry.resize(want.max(start + 64 * 1024), 0);
            match stdin.read(&mut self.carry[start..]) {
                Ok(0) => {
                    self.carry.truncate(start);
                    self.eof = true;
                }
                Ok(n) => self.carry.truncate(start + n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => self.carry.truncate(start),
                Err(e) => {
                    self.carry.truncate(start);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn next_chunk(&mut self) -> io::Result<Option<(Vec<u8>, u64, InputFormat)>> {
        let mut want = STDIN_CHUNK;
        loop {
            self.fill(want)?;
            let (format, line) = match self.state {
                Some(s) => s,
                None => {
                    let d = detect(&self.carry, self.forced);
                    self.carry.drain(..d.start);
                    self.state = Some((d.format, d.first_line));
                    (d.format, d.first_line)
                }
            };
            if self.carry.is_empty() && self.eof {
                return Ok(None);
            }
            let cut = if self.eof {
                self.carry.len()
            } else {
                complete_prefix(&self.carry, format)
            };
            if cut == 0 {
                // One record longer than what we hold: read on.
                want = self.carry.len() * 2;
                continue;
            }
            let rest = self.carry.split_off(cut);
            let data = std::mem::replace(&mut self.carry, rest);
            let lines = count_newlines(&data);
            self.state = Some((format, line + lines));
            return Ok(Some((data, line, format)));
        }
    }
}
