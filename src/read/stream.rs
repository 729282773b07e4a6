//! Reading a stream (standard input, a pipe, a decompressor) in chunks of
//! whole records in bounded memory: lines cut at [`MAX_LINE`], CSV records
//! at [`MAX_RECORD`].

use super::*;

/// How a stream is cut into chunks: after whole lines, whole grid-form
/// records, or whole CSV records (a quoted field may hold line ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    Line,
    Grid,
    Csv,
    /// Fixed-size rows of this many bytes (an npy array).
    Rows(usize),
    /// Packed table rows ([`InputFormat::Rows`]).
    Packed,
}

impl Framing {
    /// The length of the longest prefix of `buf` that ends on a record
    /// boundary when more data may follow (see [`complete_prefix`]).
    pub fn complete_prefix(self, buf: &[u8]) -> usize {
        match self {
            Framing::Line => buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1),
            Framing::Grid => grid_complete_prefix(buf),
            Framing::Csv => csv_complete_prefix(buf),
            Framing::Rows(n) => buf.len() / n * n,
            Framing::Packed => {
                let mut pos = 0;
                while let Some((len, _)) = packed_row_end(&buf[pos..]) {
                    if pos + len > buf.len() {
                        break;
                    }
                    pos += len;
                }
                pos
            }
        }
    }
}

impl From<InputFormat> for Framing {
    fn from(f: InputFormat) -> Framing {
        match f {
            InputFormat::Line | InputFormat::Pencilmark => Framing::Line,
            InputFormat::Grid => Framing::Grid,
            InputFormat::Csv(_) => Framing::Csv,
            InputFormat::Npy(dtype) => Framing::Rows(dtype.row_bytes()),
            InputFormat::Rows => Framing::Packed,
        }
    }
}

/// The longest line a stream keeps: the rest of a longer line is dropped as
/// it is read (the line is malformed either way: a puzzle line is under 200
/// bytes), so memory stays bounded on `/dev/zero` or a file without line
/// ends. CSV records are bounded by [`MAX_RECORD`] instead.
pub const MAX_LINE: usize = 64 << 10;

/// The most a stream holds while waiting for a grid-form record to end:
/// beyond it the bytes held are handed out as they are (a grid-form record
/// that long is malformed anyway). Also the longest CSV record read, line
/// end included, mapped or streamed alike: a longer one is malformed
/// ([`ParseError::RecordTooLong`]), and a stream keeps only its first
/// bytes, so a quoted field may be long and may hold line ends without
/// costing more memory than this or losing the records after it.
pub const MAX_RECORD: usize = 1 << 20;

/// Bytes a stream reads per chunk.
pub const STREAM_CHUNK: usize = 256 << 10;

/// A piece of a stream that starts and ends on record boundaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamChunk {
    pub data: Vec<u8>,
    /// Line number of the chunk's first line.
    pub first_line: u64,
}

/// A stream (standard input, a pipe, a FIFO, a device) read in chunks that
/// end on record boundaries, in bounded memory: at most [`STREAM_CHUNK`]
/// bytes plus one record, lines capped at [`MAX_LINE`] bytes (CSV records
/// at [`MAX_RECORD`]), and stretches of blank and comment lines dropped as
/// they go by.
#[derive(Debug)]
pub struct StreamChunks<R> {
    pub(crate) reader: R,
    /// Bytes read but not yet handed out.
    pub(crate) carry: Vec<u8>,
    /// Line number of `carry[0]`.
    pub(crate) line: u64,
    pub(crate) eof: bool,
    /// How records end; `None` until the caller has looked at the top and
    /// said (nothing is capped before: the top is read whole).
    pub(crate) framing: Option<Framing>,
    /// Bytes of the last, unfinished line in `carry`.
    pub(crate) open_line: usize,
    /// Number CSV data rows instead of lines (see `number_rows_from`).
    pub(crate) count_rows: bool,
    /// A binary array (npy): bytes kept as they come, no lines.
    pub(crate) raw: bool,
    /// Dropping the rest of a line longer than [`MAX_LINE`].
    pub(crate) dropping: bool,
    /// CSV: the quoting at the end of `carry`, in its unfinished record.
    pub(crate) quotes: CsvQuotes,
    /// CSV: bytes of the unfinished record in `carry`.
    pub(crate) open_record: usize,
    /// CSV: dropping the rest of a record longer than [`MAX_RECORD`].
    pub(crate) dropping_record: bool,
    /// CSV: records cut at [`MAX_RECORD`], in order: where each ends in
    /// `carry`, and the line ends dropped from it (counted back when it is
    /// handed out, so line numbers after it stay right).
    pub(crate) cut_records: std::collections::VecDeque<(usize, u64)>,
}

impl<R: std::io::Read> StreamChunks<R> {
    /// A stream read uncut until its framing is set
    /// ([`StreamChunks::set_framing`]).
    pub fn new(reader: R) -> Self {
        StreamChunks {
            reader,
            carry: Vec::new(),
            line: 1,
            eof: false,
            framing: None,
            open_line: 0,
            dropping: false,
            count_rows: false,
            raw: false,
            quotes: CsvQuotes::new(),
            open_record: 0,
            dropping_record: false,
            cut_records: std::collections::VecDeque::new(),
        }
    }

    /// Numbers what follows by CSV data row, the next being `first`
    /// (records of [`InputFormat::Csv`] are numbered so), instead of by line.
    pub fn number_rows_from(&mut self, first: u64) {
        self.line = first;
        self.count_rows = true;
    }

    /// Says how records end, from what is held on: the bytes held (from a
    /// record boundary) are capped as if they had just been read.
    pub fn set_framing(&mut self, framing: Framing) {
        self.framing = Some(framing);
        let held = std::mem::take(&mut self.carry);
        self.open_line = 0;
        self.dropping = false;
        self.quotes = CsvQuotes::new();
        self.open_record = 0;
        self.dropping_record = false;
        self.cut_records.clear();
        self.append(&held);
    }

    fn framing(&self) -> Framing {
        self.framing.unwrap_or(Framing::Line)
    }

    /// The top of the stream, for telling its form: leading blank and
    /// comment lines are dropped (however many), then at least
    /// [`STREAM_CHUNK`] bytes are held, or all there is. Returns the bytes
    /// and the line number of the first.
    pub fn top(&mut self) -> std::io::Result<(&[u8], u64)> {
        // One read of up to 64 KiB, so an npy array's magic is seen before
        // any line rule could touch its bytes.
        self.fill(npy::MAGIC.len())?;
        if self.carry.starts_with(npy::MAGIC) {
            self.raw = true;
            self.fill(STREAM_CHUNK)?;
            return Ok((&self.carry, self.line));
        }
        if self.line == 1 && self.carry.starts_with(BOM) {
            self.carry.drain(..BOM.len());
        }
        loop {
            self.fill(STREAM_CHUNK)?;
            let held = self.carry.len();
            self.drop_skipped_lines();
            if self.carry.len() == held || self.eof {
                break;
            }
        }
        Ok((&self.carry, self.line))
    }

    /// Drops the first `n` bytes held (a header the caller recognised),
    /// before the framing is set.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.carry.len());
        self.line += count_newlines(&self.carry[..n]);
        self.carry.drain(..n);
    }

    /// Drops whole blank and comment records at the front of `carry`: lines,
    /// or CSV records (which may span lines).
    fn drop_skipped_lines(&mut self) {
        if self.raw {
            return;
        }
        let csv = self.framing == Some(Framing::Csv);
        let mut keep_from = 0;
        let mut dropped_lines = 0u64;
        while keep_from < self.carry.len() {
            let rest = &self.carry[keep_from..];
            let end = if csv {
                csv_record_end_from(rest, 0)
            } else {
                memchr::memchr(b'\n', rest).map(|p| p + 1)
            };
            // An unfinished last record, or one to keep.
            let Some(end) = end.filter(|&end| is_skipped(trim_line_end(&rest[..end]))) else {
                break;
            };
            dropped_lines += if csv { count_newlines(&rest[..end]) } else { 1 };
            keep_from += end;
        }
        if keep_from == 0 {
            return;
        }
        self.carry.drain(..keep_from);
        // Skipped records are not data rows.
        if !self.count_rows {
            self.line += dropped_lines;
        }
        while let Some(&(end, dropped)) = self.cut_records.front() {
            if end > keep_from {
                break;
            }
            self.cut_records.pop_front();
            if !self.count_rows {
                self.line += dropped;
            }
        }
        for (end, _) in self.cut_records.iter_mut() {
            *end -= keep_from;
        }
    }

    /// Appends read bytes, capped as the framing says.
    fn append(&mut self, bytes: &[u8]) {
        match self.framing {
            _ if self.raw => self.carry.extend_from_slice(bytes),
            None => self.carry.extend_from_slice(bytes),
            Some(Framing::Csv) => self.append_csv(bytes),
            Some(_) => self.append_lines(bytes),
        }
    }

    /// Appends read bytes, cutting every line at [`MAX_LINE`] bytes.
    fn append_lines(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let nl = memchr::memchr(b'\n', bytes);
            if self.dropping {
                match nl {
                    Some(p) => {
                        self.dropping = false;
                        bytes = &bytes[p..];
                        continue;
                    }
                    None => return,
                }
            }
            let line_end = nl.unwrap_or(bytes.len());
            let room = MAX_LINE.saturating_sub(self.open_line);
            let take = line_end.min(room);
            self.carry.extend_from_slice(&bytes[..take]);
            match nl {
                // The line ends here: kept whole, or its first MAX_LINE
                // bytes when it is longer.
                Some(p) => {
                    self.carry.push(b'\n');
                    self.open_line = 0;
                    bytes = &bytes[p + 1..];
                }
                None => {
                    self.open_line += take;
                    self.dropping = bytes.len() > room;
                    return;
                }
            }
        }
    }

    /// Appends read CSV bytes, keeping at most `MAX_RECORD + 1` bytes of a
    /// record: a longer one (malformed, however it is read) is closed there
    /// (with a `"` first when it is inside quotes) and the rest of it
    /// dropped as it is read, its quotes still followed to find where it
    /// ends.
    fn append_csv(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.dropping_record {
                let end = self.quotes.scan(bytes, b'\n', |_| false);
                let (dropped, ended) = match end {
                    Some(nl) => (&bytes[..nl], true),
                    None => (bytes, false),
                };
                if let Some(cut) = self.cut_records.back_mut() {
                    cut.1 += count_newlines(dropped);
                }
                if !ended {
                    return;
                }
                self.dropping_record = false;
                self.open_record = 0;
                bytes = &bytes[dropped.len() + 1..];
                continue;
            }
            let room = (MAX_RECORD + 1 - self.open_record).min(bytes.len());
            let mut last_end = None;
            self.quotes.scan(&bytes[..room], b'\n', |nl| {
                last_end = Some(nl + 1);
                true
            });
            match last_end {
                // Whole records, then the start of the next.
                Some(end) => {
                    self.carry.extend_from_slice(&bytes[..room]);
                    self.open_record = room - end;
                }
                None => {
                    self.carry.extend_from_slice(&bytes[..room]);
                    self.open_record += room;
                }
            }
            bytes = &bytes[room..];
            if self.open_record > MAX_RECORD {
                // Closed here, where nothing of it is quoted any more.
                if self.quotes.quoted() {
                    self.carry.push(b'"');
                }
                self.carry.push(b'\n');
                self.cut_records.push_back((self.carry.len(), 0));
                self.dropping_record = true;
            }
        }
    }

    /// Reads until `carry` holds at least `want` bytes, the input ends, or
    /// the last line is over-long (`carry` cannot grow until it ends).
    fn fill(&mut self, want: usize) -> std::io::Result<()> {
        while !self.eof && self.carry.len() < want && !self.dropping {
            self.read_once()?;
        }
        Ok(())
    }

    /// Reads and drops the rest of an over-long line or CSV record (in
    /// bounded memory, however long it is), so that the line ends dropped
    /// from it are all counted before it is handed out.
    fn finish_dropped_line(&mut self) -> std::io::Result<()> {
        while (self.dropping || self.dropping_record) && !self.eof {
            self.read_once()?;
        }
        Ok(())
    }

    /// One read from the stream, appended (with lines capped).
    fn read_once(&mut self) -> std::io::Result<()> {
        let mut buf = [0u8; 64 << 10];
        match self.reader.read(&mut buf) {
            Ok(0) => self.eof = true,
            Ok(n) => self.append(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The next chunk of whole records; `None` at the end of the stream.
    /// Cut after lines unless told otherwise.
    pub fn next_chunk(&mut self) -> std::io::Result<Option<StreamChunk>> {
        if self.framing.is_none() {
            self.set_framing(Framing::Line);
        }
        let mut want = STREAM_CHUNK;
        let framing = self.framing();
        loop {
            self.fill(want)?;
            if (self.dropping || self.dropping_record) && !self.eof {
                self.finish_dropped_line()?;
                continue;
            }
            if self.carry.is_empty() && self.eof {
                return Ok(None);
            }
            let mut cut = if self.eof {
                self.carry.len()
            } else {
                framing.complete_prefix(&self.carry)
            };
            if cut == 0 {
                // Nothing whole yet: drop a stretch of comments (grid form
                // holds them until a record closes), else read on up to
                // MAX_RECORD, then hand out what there is. A CSV record is
                // closed by `append_csv` within MAX_RECORD + 2 bytes, so
                // reading on always ends one.
                let held = self.carry.len();
                self.drop_skipped_lines();
                if self.carry.len() < held {
                    continue;
                }
                if framing == Framing::Csv {
                    // (Twice as much each time, so a stream of small reads
                    // is not scanned again for every one.)
                    want = (held * 2).clamp(STREAM_CHUNK, MAX_RECORD + 2);
                    continue;
                }
                if held < MAX_RECORD {
                    want = (held * 2).clamp(STREAM_CHUNK, MAX_RECORD);
                    continue;
                }
                cut = self
                    .carry
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(held, |p| p + 1);
            }
            // A record cut at MAX_RECORD ends its chunk, so that the line
            // ends dropped from it are counted before the next record.
            let mut dropped = 0;
            if let Some(&(end, lines)) = self.cut_records.front() {
                if end <= cut {
                    cut = end;
                    dropped = lines;
                    self.cut_records.pop_front();
                }
            }
            for (end, _) in self.cut_records.iter_mut() {
                *end -= cut;
            }
            let rest = self.carry.split_off(cut);
            let data = std::mem::replace(&mut self.carry, rest);
            let first_line = self.line;
            self.line += if let Framing::Rows(n) = framing {
                (data.len() as u64).div_ceil(n as u64)
            } else if self.count_rows {
                csv_rows(&data)
            } else {
                count_newlines(&data) + dropped
            };
            return Ok(Some(StreamChunk { data, first_line }));
        }
    }
}
