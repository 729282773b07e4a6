//! CSV read mapped and read as a stream give the same records.
//!
//! The same bytes are read whole (as a mapped file is), cut into chunks by
//! `ChunkSplitter`, and through `StreamChunks` from a reader that hands
//! them over a few bytes at a time (so quoting is carried across every
//! kind of read boundary), numbered by data row as puzzles are and by line
//! as verify's answers are. Long fields are reachable: `0xFE n c` in the
//! input stands for `c` repeated `(n % 40 + 1) * 32 KiB` times, so records
//! over `MAX_RECORD` (malformed, and cut short by the stream) and quoted
//! stretches of many line ends come up in small inputs.
#![no_main]

use batchdoku::read::{
    csv_records, records, ChunkSplitter, CsvLayout, Framing, InputFormat, StreamChunks, MAX_RECORD,
};
use libfuzzer_sys::fuzz_target;

/// A record as compared: its number, whether its puzzle reads, and the
/// start of its text (a stream keeps only the start of an over-long one).
type Rec = (u64, bool, Vec<u8>);

fn brief(line: u64, ok: bool, raw: &[u8]) -> Rec {
    (line, ok, raw[..raw.len().min(64)].to_vec())
}

/// Asserts `got == want`, showing the first difference (records can be
/// megabytes).
fn same(got: &[Rec], want: &[Rec], what: &str) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        panic!("{what}: record {i}: {:?} against {:?}", got[i], want[i]);
    }
    assert_eq!(got.len(), want.len(), "{what}: records");
}

/// The fuzzer's bytes with `0xFE n c` runs expanded, to 1.5 MiB at most:
/// room for one record over `MAX_RECORD`, and a run over it in at most a
/// second or two with the sanitizer (4 MiB took several).
fn expand(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if data[i] == 0xFE && i + 2 < data.len() {
            let n = (usize::from(data[i + 1]) % 40 + 1) * (32 << 10);
            let n = n.min((3 << 19) - out.len().min(3 << 19));
            out.extend(std::iter::repeat_n(data[i + 2], n));
            i += 3;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// Reads `data` `step` bytes at a time.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fn stream(data: &[u8], step: usize, by_row: bool) -> StreamChunks<Trickle<'_>> {
    let mut s = StreamChunks::new(Trickle { data, step });
    s.set_framing(Framing::Csv);
    if by_row {
        s.number_rows_from(1);
    }
    s
}

fuzz_target!(|input: &[u8]| {
    let Some((&first, rest)) = input.split_first() else {
        return;
    };
    let layout = InputFormat::Csv(CsvLayout {
        column: usize::from(first % 3),
    });
    let data = expand(rest);
    // Tiny reads on small inputs only: a byte a read of megabytes is slow.
    let steps: &[usize] = if data.len() < 1 << 16 {
        &[1, 2, 3, 7, 64, 4096]
    } else {
        &[4093, 1 << 16]
    };
    let step = steps[usize::from(first / 3) % steps.len()];

    // Numbered by data row, puzzles read from their column.
    let whole: Vec<Rec> = records(&data, 1, layout)
        .map(|r| brief(r.line, r.puzzle.is_ok(), r.raw))
        .collect();
    for target in [1, 100, 70_000] {
        let chunked: Vec<Rec> = ChunkSplitter::new(&data, 1, layout, target)
            .flat_map(|c| records(c.data, c.first_line, c.format))
            .map(|r| brief(r.line, r.puzzle.is_ok(), r.raw))
            .collect();
        same(&chunked, &whole, &format!("chunks of {target}"));
    }
    let mut streamed = Vec::new();
    let mut s = stream(&data, step, true);
    while let Some(c) = s.next_chunk().expect("reading a slice cannot fail") {
        assert!(c.data.len() <= (256 << 10) + MAX_RECORD + (64 << 10) + 2);
        streamed.extend(
            records(&c.data, c.first_line, layout).map(|r| brief(r.line, r.puzzle.is_ok(), r.raw)),
        );
    }
    same(&streamed, &whole, &format!("streamed by {step}, by row"));

    // Numbered by line, as verify reads answers: the same records on the
    // same lines (an over-long one known by its length alone).
    let by_line = |data: &[u8], first: u64| -> Vec<Rec> {
        csv_records(data, first)
            .into_iter()
            .map(|(line, text)| brief(line, text.len() < MAX_RECORD, text))
            .collect()
    };
    let whole = by_line(&data, 1);
    let mut streamed = Vec::new();
    let mut s = stream(&data, step, false);
    while let Some(c) = s.next_chunk().expect("reading a slice cannot fail") {
        streamed.extend(by_line(&c.data, c.first_line));
    }
    same(&streamed, &whole, &format!("streamed by {step}, by line"));
});
