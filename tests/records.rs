//! The line-form record reader against a plain reference: split on `\n`,
//! drop one `\r`, skip blanks and comments, parse what is left. The reader
//! reads most lines without searching for their end first (81 cells and a
//! line end in one pass), so lines that almost look like that are the cases
//! that matter: a bad byte among the cells, a separator or an 82nd cell
//! after them, a lone `\r`, no final line end.

use batchdoku::puzzle::grid::{ParseError, CELLS};
use batchdoku::read::{is_skipped, records, InputFormat};
use batchdoku::Grid;
use proptest::prelude::*;

/// (line number, raw text, parsed grid) for every record, the simple way.
fn reference(data: &[u8]) -> Vec<(u64, Vec<u8>, Result<Grid, ParseError>)> {
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if data.ends_with(b"\n") || data.is_empty() {
        pieces.pop();
    }
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, line)| (i as u64 + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !is_skipped(line))
        .map(|(n, line)| (n, line.to_vec(), Grid::parse_line(line)))
        .collect()
}

fn read(data: &[u8]) -> Vec<(u64, Vec<u8>, Result<Grid, ParseError>)> {
    records(data, 1, InputFormat::Line)
        .map(|r| (r.line, r.raw.to_vec(), r.givens()))
        .collect()
}

/// A line of 81 cells, then damaged at one place and given a tail.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let cells =
        proptest::collection::vec(prop_oneof![Just(b'.'), Just(b'0'), (b'1'..=b'9')], CELLS);
    let damage = prop_oneof![
        4 => Just(None),
        1 => (0..CELLS, prop_oneof![Just(b'x'), Just(b' '), Just(b','), Just(b'\r'), Just(b'#')])
            .prop_map(Some),
    ];
    let tail = prop_oneof![
        6 => Just(&b""[..]),
        1 => Just(&b"\r"[..]),
        1 => Just(&b"\r\r"[..]),
        1 => Just(&b",534678912"[..]),
        1 => Just(&b" "[..]),
        1 => Just(&b"5"[..]),
    ];
    let cut = prop_oneof![4 => Just(CELLS), 1 => 0..CELLS];
    (cells, damage, tail, cut).prop_map(|(mut cells, damage, tail, cut)| {
        if let Some((at, byte)) = damage {
            cells[at] = byte;
        }
        cells.truncate(cut);
        cells.extend_from_slice(tail);
        cells
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(20261122),
        ..ProptestConfig::default()
    })]

    #[test]
    fn line_records_match_the_plain_reading(
        lines in proptest::collection::vec(line(), 0..12),
        crlf in any::<bool>(),
        final_end in any::<bool>(),
    ) {
        let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut data = lines.join(end);
        if final_end && !lines.is_empty() {
            data.extend_from_slice(end);
        }
        prop_assert_eq!(read(&data), reference(&data));
    }
}

#[test]
fn a_last_line_without_a_line_end_is_read() {
    let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let data = format!("{p}\r\n{p}");
    let got = read(data.as_bytes());
    assert_eq!(got.len(), 2);
    assert_eq!(got, reference(data.as_bytes()));
    assert!(got
        .iter()
        .all(|(_, raw, g)| raw.len() == CELLS && g.is_ok()));
}
