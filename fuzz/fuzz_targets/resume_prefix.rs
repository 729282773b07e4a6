//! `--resume`'s look at a partial output, on arbitrary bytes: the prefix it
//! keeps ends on a record boundary (after a line end outside quotes), holds
//! exactly the records it counts, and reading it again finds the same.
#![no_main]

use batchdoku::read::{count_csv_records, count_newlines, csv_records, CsvQuotes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (n, keep) = count_csv_records(data);
    assert!(keep <= data.len());
    let prefix = &data[..keep];
    assert!(keep == 0 || prefix.ends_with(b"\n"));
    assert_eq!(count_csv_records(prefix), (n, keep), "not idempotent");
    assert_eq!(csv_records(prefix, 1).len() as u64, n);
    // The kept prefix ends outside quotes (a stray `"` inside a field is a
    // character, so quotes need not pair up: the scanner says).
    let mut quotes = CsvQuotes::new();
    assert_eq!(quotes.scan(prefix, b'\n', |_| true), None);
    assert!(!quotes.quoted(), "the kept prefix ends inside quotes");
    // Every record it skips is whole: what follows starts a new record.
    let records = csv_records(data, 1);
    assert!(records.len() as u64 >= n);
    // Line outputs: the newline count of the kept prefix.
    let line_keep = data.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    assert_eq!(
        count_newlines(&data[..line_keep]),
        data[..line_keep].iter().filter(|&&b| b == b'\n').count() as u64
    );
});
