//! The record readers on arbitrary bytes, against plain references.
//!
//! - Line form: split on `\n`, drop one `\r`, skip blanks and comments,
//!   parse the rest: the same records, line numbers and statuses.
//! - Both forms: the records read whole, read in chunks cut by
//!   `ChunkSplitter` (small targets, so records meet chunk edges), and read
//!   through `StreamChunks` (as from a pipe) are the same, and every
//!   record's text lies on the lines its number says.
#![no_main]

use batchdoku::read::{
    detect, is_skipped, records, ChunkSplitter, Framing, InputFormat, StreamChunks, MAX_LINE,
};
use batchdoku::Puzzle;
use libfuzzer_sys::fuzz_target;

type Rec = (u64, Vec<u8>, bool);

fn whole(data: &[u8], format: InputFormat) -> Vec<Rec> {
    records(data, 1, format)
        .map(|r| (r.line, r.raw.to_vec(), r.puzzle.is_ok()))
        .collect()
}

fn reference_lines(data: &[u8]) -> Vec<Rec> {
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.ends_with(b"\n") || data.is_empty() {
        pieces.pop();
    }
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, line)| (i as u64 + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !is_skipped(line))
        .map(|(n, line)| (n, line.to_vec(), Puzzle::parse_line(line).is_ok()))
        .collect()
}

fn chunked(data: &[u8], format: InputFormat, target: usize) -> Vec<Rec> {
    ChunkSplitter::new(data, 1, format, target)
        .flat_map(|c| records(c.data, c.first_line, c.format))
        .map(|r| (r.line, r.raw.to_vec(), r.puzzle.is_ok()))
        .collect()
}

fn streamed(data: &[u8], format: InputFormat) -> Vec<Rec> {
    let mut s = StreamChunks::new(data);
    s.set_framing(Framing::from(format));
    let mut out = Vec::new();
    while let Some(c) = s.next_chunk().expect("reading a slice cannot fail") {
        out.extend(
            records(&c.data, c.first_line, format)
                .map(|r| (r.line, r.raw.to_vec(), r.puzzle.is_ok())),
        );
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let line = whole(data, InputFormat::Line);
    assert_eq!(line, reference_lines(data));
    let csv = InputFormat::Csv(batchdoku::read::CsvLayout { column: 1 });
    for format in [InputFormat::Line, InputFormat::Grid, csv] {
        let all = whole(data, format);
        for target in [1, 7, 100] {
            assert_eq!(
                chunked(data, format, target),
                all,
                "{format:?} target {target}"
            );
        }
        // A stream cuts lines longer than MAX_LINE; below that it reads the
        // same records. CSV records are cut at MAX_RECORD instead (the
        // `csv_stream` target reaches that), mapped or streamed alike.
        if format == csv || data.split(|&b| b == b'\n').all(|l| l.len() < MAX_LINE) {
            assert_eq!(streamed(data, format), all, "{format:?} streamed");
        }
        if format == csv {
            continue; // numbered by data row, not by line
        }
        let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        for (n, raw, _) in &all {
            let first = lines[(*n - 1) as usize];
            let first = first.strip_suffix(b"\r").unwrap_or(first);
            assert!(first.starts_with(&raw[..raw.len().min(first.len())]));
        }
    }
    // Detection never points past the data.
    let d = detect(data, None);
    assert!(d.start <= data.len());
});
