//! Parquet tables, damaged or not: whatever the bytes, opening and reading
//! end in rows or an error (never a panic or a hang), and every way of
//! reading gives the same rows.
//!
//! The input is two bytes of options, then the file. The table is read
//! four ways from the same first row (the second byte picks it):
//!
//! - by the parquet crate's Arrow reader, one decoder a group, a range
//!   after another (the reference);
//! - by the same in lanes (2 to 5 decoders a row group, each range a page
//!   or a run of pages of at least 1 to 128 rows, as the first byte says),
//!   the ranges asked for out of order, so lanes skip each other's pages
//!   by their headers and rows decoded ahead wait for their own request;
//! - by our own page decoder (`text_pages`) where it takes the text
//!   column, the same ranges of pages, out of order;
//! - with the other columns kept, so every column's pages are decoded.
//!
//! Each way stops at its first error, as a run does. The ranges run from
//! the first row to the footer's count, back to back, each row in exactly
//! one; a range read holds its own rows, the same in every way that read
//! them; and the lanes read every range without an error exactly when the
//! one decoder does (they decode the same pages). Our page decoder may
//! stop where the crate goes on, or the other way (they check different
//! things: the crate checks UTF-8, we check page sizes), but never reads
//! a row differently. At most 65,536 rows are read (a few bytes of
//! run-length nulls can claim billions).
#![no_main]

use batchdoku::read::packed_rows;
use batchdoku::read::parquet::{RowRange, TableSource};
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// Rows read past the first row at most.
const MOST_ROWS: u64 = 1 << 16;

/// A row as read: its length and a hash of its text, `None` for a null
/// (cells can be long).
type Row = Option<(usize, u64)>;

fn row(text: Option<&[u8]>) -> Row {
    text.map(|t| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        t.hash(&mut h);
        (t.len(), h.finish())
    })
}

/// The rows read one way, by row index, and whether every range was read.
struct Read {
    rows: BTreeMap<u64, Row>,
    whole: bool,
}

/// The ranges of `t` from row `from` on (`most` rows at most, or a page or
/// run of pages for a group read in lanes), up to [`MOST_ROWS`] rows: in
/// order, back to back, and to the footer's count when not cut there.
fn ranges(t: &TableSource, from: u64, most: usize) -> Vec<RowRange> {
    let mut out = Vec::new();
    let mut next = from;
    while next - from < MOST_ROWS {
        let Some(r) = t.range(next, most) else {
            assert_eq!(
                next,
                t.rows().max(from),
                "the ranges end at the footer's rows"
            );
            break;
        };
        assert_eq!(r.first_row, next);
        assert!(r.rows >= 1, "an empty range at row {next}");
        next += r.rows as u64;
        out.push(r);
    }
    out
}

/// Reads `ranges` in `order` (indexes) until the first error.
fn read(t: &TableSource, ranges: &[RowRange], order: &[usize]) -> Read {
    let mut rows = BTreeMap::new();
    let mut whole = true;
    for &k in order {
        let r = ranges[k];
        let Ok(read) = t.read(r) else {
            whole = false;
            break;
        };
        assert_eq!(read.first_row, r.first_row);
        assert_eq!(read.rows, r.rows, "range {r:?} read {} rows", read.rows);
        let mut at = r.first_row;
        for text in packed_rows(&read.packed) {
            assert!(rows.insert(at, row(text)).is_none(), "row {at} read twice");
            at += 1;
        }
        assert_eq!(
            at - r.first_row,
            r.rows as u64,
            "range {r:?} packed other rows"
        );
        if let Some(others) = &read.others {
            assert_eq!(others.num_rows(), r.rows);
        }
    }
    t.check().expect("the file is not changed while read");
    Read { rows, whole }
}

/// Rows read both ways are the same.
fn same(a: &Read, b: &Read, what: &str) {
    for (at, x) in &a.rows {
        if let Some(y) = b.rows.get(at) {
            assert_eq!(x, y, "{what}: row {at}");
        }
    }
}

fn open(path: &Path, keep: bool, from: u64) -> Option<TableSource> {
    TableSource::open(path, None, &["puzzle"], "puzzles", keep, from).ok()
}

/// The input's bytes as a file (the reader opens files), removed when
/// the input's run ends, however it ends short of a crash.
struct InputFile(PathBuf);

impl Drop for InputFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fuzz_target!(|input: &[u8]| {
    let [options, start, data @ ..] = input else {
        return;
    };
    let file = InputFile(
        std::env::temp_dir().join(format!("batchdoku-fuzz-parquet-{}", std::process::id())),
    );
    let path = file.0.as_path();
    std::fs::write(path, data).unwrap();
    let lanes = 2 + usize::from(options & 3);
    let least = 1u64 << ((options >> 2) & 7);
    let most = 1 + usize::from(options >> 5) * 9;

    let Some(t) = open(path, false, 0) else {
        return;
    };
    let from = (u128::from(t.rows()) * u128::from(*start) / 255) as u64;
    let t = open(path, false, from).expect("opened once").by_arrow();
    let all = ranges(&t, from, most);
    let reference = read(&t, &all, &(0..all.len()).collect::<Vec<_>>());
    let cut = t.rows() - from > MOST_ROWS;

    let t = open(path, false, from)
        .expect("opened once")
        .by_arrow()
        .in_lanes_of(lanes, least);
    let pages = ranges(&t, from, most);
    // Out of order: every other range, then the rest backwards.
    let out_of_order =
        |n: usize| -> Vec<usize> { (0..n).step_by(2).chain((1..n).step_by(2).rev()).collect() };
    let laned = read(&t, &pages, &out_of_order(pages.len()));
    same(&laned, &reference, "in lanes");
    if !cut {
        assert_eq!(
            laned.whole, reference.whole,
            "in {lanes} lanes (runs of {least} rows) the table reads whole, by one decoder not, or the other way"
        );
    }

    let t = open(path, false, from)
        .expect("opened once")
        .in_lanes_of(lanes, least);
    let pages = ranges(&t, from, most);
    let own = read(&t, &pages, &out_of_order(pages.len()));
    same(&own, &reference, "by our page decoder");

    let t = open(path, true, from).expect("opened once");
    let all = ranges(&t, from, most);
    let kept = read(&t, &all, &(0..all.len()).collect::<Vec<_>>());
    same(&kept, &reference, "with the other columns");
});
