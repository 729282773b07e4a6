//! A text column's pages decoded straight into packed rows, without Arrow.
//!
//! The common case of the tables people bring: one flat string (or
//! binary) column, required or optional, its pages PLAIN or dictionary
//! encoded, data pages V1 or V2, uncompressed, snappy or zstd. Its pages
//! are walked once at open (by [`TextPages::walk`]); a range of rows is
//! then decoded from its pages alone, by any thread, into the engine's
//! packed rows ([`RowPacker`]), whose form (a little-endian `u32` length,
//! then the bytes) is PLAIN's own: a page without nulls is copied as it
//! is. A dictionary page is decoded once for its row group
//! ([`Dictionary`]).
//!
//! Why not the parquet crate's Arrow reader: on a million puzzles in
//! 64Ki-row groups it decoded each page into a fresh, zero-filled buffer,
//! each group's dictionary once per lane, and built string views and
//! checked UTF-8 that the packing then copied again (see BENCHMARKS.md,
//! "Parquet in small row groups"). Anything else (other codecs and
//! encodings, nested or repeated columns, index pages, the other columns
//! kept) is read by the crate, as before.

use super::page_header::{page_header, DATA_PAGE, DATA_PAGE_V2, DICTIONARY_PAGE};
use crate::read::{RowPacker, MAX_LINE};
use std::cell::RefCell;

/// Encodings, as parquet.thrift numbers them.
const PLAIN: i32 = 0;
const PLAIN_DICTIONARY: i32 = 2;
const RLE: i32 = 3;
const RLE_DICTIONARY: i32 = 8;

/// A data page may hold at most this many rows: a range is read a page
/// (or run of pages) at a time, so a page of millions of rows would be one
/// job; such tables are read by the crate, which cuts its ranges anywhere.
const MOST_PAGE_ROWS: i32 = 1 << 16;

/// The codecs decoded here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Codec {
    Uncompressed,
    Snappy,
    Zstd,
}

impl Codec {
    /// The codec of a column chunk, when it is one decoded here.
    pub(super) fn of(c: parquet::basic::Compression) -> Option<Codec> {
        use parquet::basic::Compression as C;
        match c {
            C::UNCOMPRESSED => Some(Codec::Uncompressed),
            C::SNAPPY => Some(Codec::Snappy),
            C::ZSTD(_) => Some(Codec::Zstd),
            _ => None,
        }
    }
}

/// Where a page's bytes lie in the file (after its header), and its size
/// once decompressed.
#[derive(Clone, Copy, Debug)]
struct PageBytes {
    at: usize,
    len: usize,
    uncompressed: usize,
}

/// One data page of the column.
#[derive(Clone, Copy, Debug)]
struct DataPage {
    bytes: PageBytes,
    /// Row index (in the table) of its first row, and its rows.
    first_row: u64,
    rows: usize,
    /// Its values are dictionary indexes (else PLAIN).
    indexed: bool,
    /// V2: the bytes of definition levels that come first, stored
    /// uncompressed, and whether the values after them are compressed.
    v2: Option<(usize, bool)>,
}

/// A row group's pages of the text column, walked by their headers.
#[derive(Debug)]
pub(super) struct TextPages {
    codec: Codec,
    /// The column is optional: each page has definition levels (0 a null,
    /// 1 a value).
    optional: bool,
    /// The dictionary page, and its values.
    dictionary: Option<(PageBytes, usize)>,
    pages: Vec<DataPage>,
}

impl TextPages {
    /// The pages of a column chunk of `rows` rows (the first being row
    /// `first_row` of the table), lying at `chunk` in `file`; `None` when
    /// anything about them is not decoded here, or does not add up (the
    /// crate will read it, or say what is wrong).
    pub(super) fn walk(
        file: &[u8],
        chunk: std::ops::Range<usize>,
        codec: Codec,
        optional: bool,
        first_row: u64,
        rows: u64,
    ) -> Option<TextPages> {
        let chunk = file.get(chunk.clone()).map(|_| chunk)?;
        let mut walked = TextPages {
            codec,
            optional,
            dictionary: None,
            pages: Vec::new(),
        };
        let mut at = chunk.start;
        let mut row = first_row;
        while at < chunk.end {
            let (header_len, fields) = page_header(&file[at..chunk.end]).ok()?;
            let int = |v: Option<i32>| v.and_then(|v| usize::try_from(v).ok());
            let len = int(fields.own.ints[3])?;
            let bytes = PageBytes {
                at: at + header_len,
                len,
                uncompressed: int(fields.own.ints[2])?,
            };
            at = bytes.at.checked_add(len).filter(|&end| end <= chunk.end)?;
            let inner = &fields.inner.ints;
            let indexed = |encoding: Option<i32>| match encoding? {
                PLAIN => Some(false),
                PLAIN_DICTIONARY | RLE_DICTIONARY => Some(true),
                _ => None,
            };
            let (rows, indexed, v2) = match fields.page_type()? {
                DICTIONARY_PAGE => {
                    let first = walked.dictionary.is_none() && walked.pages.is_empty();
                    if !first || !matches!(inner[2]?, PLAIN | PLAIN_DICTIONARY) {
                        return None;
                    }
                    walked.dictionary = Some((bytes, int(inner[1])?));
                    continue;
                }
                DATA_PAGE => {
                    // Definition levels RLE-encoded (the deprecated
                    // BIT_PACKED is left to the crate).
                    if optional && inner[3]? != RLE {
                        return None;
                    }
                    (inner[1]?, indexed(inner[2])?, None)
                }
                DATA_PAGE_V2 => {
                    let levels = int(inner[5])?;
                    let flat = inner[6] == Some(0) && inner[3] == inner[1];
                    if !flat || levels > len || (!optional && levels != 0) {
                        return None;
                    }
                    let compressed = fields.inner.bool(7).unwrap_or(true);
                    (inner[1]?, indexed(inner[4])?, Some((levels, compressed)))
                }
                _ => return None,
            };
            if !(0..=MOST_PAGE_ROWS).contains(&rows) || (indexed && walked.dictionary.is_none()) {
                return None;
            }
            walked.pages.push(DataPage {
                bytes,
                first_row: row,
                rows: rows as usize,
                indexed,
                v2,
            });
            row += rows as u64;
        }
        (row == first_row + rows && rows > 0).then_some(walked)
    }

    /// The first row of each data page, then the end of the last.
    pub(super) fn page_starts(&self) -> Vec<u64> {
        let mut starts: Vec<u64> = self.pages.iter().map(|p| p.first_row).collect();
        let last = self.pages.last().expect("a walked column has a page");
        starts.push(last.first_row + last.rows as u64);
        starts
    }

    /// True when a page of rows `from..to` holds dictionary indexes.
    pub(super) fn needs_dictionary(&self, from: u64, to: u64) -> bool {
        self.overlapping(from, to).any(|p| p.indexed)
    }

    fn overlapping(&self, from: u64, to: u64) -> impl Iterator<Item = &DataPage> {
        let first = self
            .pages
            .partition_point(|p| p.first_row + p.rows as u64 <= from);
        self.pages[first..]
            .iter()
            .take_while(move |p| p.first_row < to)
    }

    /// Decodes the dictionary page.
    pub(super) fn dictionary(&self, file: &[u8]) -> Result<Dictionary, String> {
        let (bytes, count) = self.dictionary.ok_or("no dictionary page")?;
        let mut dictionary = Dictionary {
            bytes: Vec::new(),
            values: Vec::with_capacity(count.min(bytes.uncompressed / 4)),
        };
        decompress(
            self.codec,
            &file[bytes.at..][..bytes.len],
            bytes.uncompressed,
            &mut dictionary.bytes,
        )?;
        let mut values = Plain::new(&dictionary.bytes);
        for _ in 0..count {
            // A value's bytes start after its length.
            let start = values.at + 4;
            let v = values
                .next()
                .map_err(|e| format!("the dictionary page: {e}"))?;
            dictionary.values.push((start, v.len()));
        }
        Ok(dictionary)
    }

    /// Packs rows `from..to` (table row indexes, inside this group) into
    /// `packer`, from the pages that hold them (`dictionary`: the group's,
    /// when [`TextPages::needs_dictionary`]).
    pub(super) fn decode(
        &self,
        file: &[u8],
        from: u64,
        to: u64,
        dictionary: Option<&Dictionary>,
        packer: &mut RowPacker,
    ) -> Result<(), String> {
        SCRATCH.with(|scratch| {
            let scratch = &mut *scratch.borrow_mut();
            for page in self.overlapping(from, to) {
                let skip = from.saturating_sub(page.first_row) as usize;
                let end = (to - page.first_row).min(page.rows as u64) as usize;
                let decoded = self.decode_page(file, page, skip, end, dictionary, scratch, packer);
                if scratch.len() > KEPT_SCRATCH {
                    // Not kept for the thread's life: most pages are 1 MiB.
                    *scratch = Vec::new();
                }
                decoded.map_err(|e| format!("the data page at byte {}: {e}", page.bytes.at))?;
            }
            Ok(())
        })
    }

    /// Packs rows `skip..end` of `page` (counted from its first).
    #[allow(clippy::too_many_arguments)]
    fn decode_page(
        &self,
        file: &[u8],
        page: &DataPage,
        skip: usize,
        end: usize,
        dictionary: Option<&Dictionary>,
        scratch: &mut Vec<u8>,
        packer: &mut RowPacker,
    ) -> Result<(), String> {
        let stored = &file[page.bytes.at..][..page.bytes.len];
        // The definition levels (empty for a required column) and the
        // values.
        let (levels, values): (&[u8], &[u8]) = match page.v2 {
            None => {
                let data = self.uncompressed(stored, page.bytes.uncompressed, scratch)?;
                if self.optional {
                    let len = u32::from_le_bytes(
                        *data
                            .first_chunk::<4>()
                            .ok_or("no length of its definition levels")?,
                    ) as usize;
                    let levels = data
                        .get(4..4 + len)
                        .ok_or("definition levels past the end of the page")?;
                    (levels, &data[4 + len..])
                } else {
                    (&[], data)
                }
            }
            Some((levels_len, compressed)) => {
                let (levels, values) = stored.split_at(levels_len);
                let values = if compressed {
                    let size = page.bytes.uncompressed.checked_sub(levels_len);
                    let size = size.ok_or("levels longer than the page")?;
                    self.uncompressed(values, size, scratch)?
                } else {
                    values
                };
                (levels, values)
            }
        };
        // An optional column without nulls in this page (levels one run of
        // values) is read as a required one.
        let all_there = !self.optional || all_present(levels, page.rows);
        let mut levels = (!all_there).then(|| Hybrid::new(levels, 1));
        let mut present = || -> Result<bool, String> {
            match &mut levels {
                None => Ok(true),
                // A value is there where its level is not 0 (as the crate
                // reads a level of a column at most one level deep).
                Some(levels) => Ok(levels
                    .next()
                    .map_err(|e| format!("definition levels: {e}"))?
                    != 0),
            }
        };
        if page.indexed {
            let dictionary = dictionary.ok_or("no dictionary")?;
            let (&width, indexes) = values.split_first().ok_or("no index width")?;
            if width > 32 {
                return Err(format!("dictionary indexes {width} bits wide"));
            }
            let mut indexes = Hybrid::new(indexes, width);
            for row in 0..end {
                let value = if present()? {
                    let i = indexes
                        .next()
                        .map_err(|e| format!("dictionary indexes: {e}"))?;
                    let v = dictionary.value(i).ok_or_else(|| {
                        format!(
                            "index {i} past the dictionary's {} values",
                            dictionary.values.len()
                        )
                    })?;
                    Some(v)
                } else {
                    None
                };
                if row >= skip {
                    packer.push(value);
                }
            }
            return Ok(());
        }
        let mut plain = Plain::new(values);
        if all_there && skip == 0 {
            // No nulls, and the rows wanted from the first: PLAIN values are
            // packed rows already, unless one is longer than a row kept.
            let start = plain.at;
            let mut short = true;
            for _ in 0..end {
                short &= plain.next()?.len() <= MAX_LINE;
            }
            if short {
                packer.push_packed(&values[start..plain.at], end);
                return Ok(());
            }
            plain = Plain::new(values);
        }
        for row in 0..end {
            let value = if present()? {
                Some(plain.next()?)
            } else {
                None
            };
            if row >= skip {
                packer.push(value);
            }
        }
        Ok(())
    }

    /// `stored` decompressed (`size` bytes), in `scratch` unless stored
    /// uncompressed.
    fn uncompressed<'a>(
        &self,
        stored: &'a [u8],
        size: usize,
        scratch: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], String> {
        if self.codec == Codec::Uncompressed {
            return Ok(stored);
        }
        decompress(self.codec, stored, size, scratch)?;
        Ok(&scratch[..size])
    }
}

/// True when definition levels `levels` (of an optional column) start
/// with one repeated run of at least `rows` values that are there.
fn all_present(levels: &[u8], rows: usize) -> bool {
    let mut run = Hybrid::new(levels, 1);
    run.start_run().is_ok() && run.repeated.is_some_and(|v| v != 0) && run.left >= rows as u64
}

/// A thread's page buffer is dropped after a page that made it larger than
/// this.
const KEPT_SCRATCH: usize = 16 << 20;

thread_local! {
    /// Each thread's buffer for decompressed pages: reused, so a page is
    /// decompressed into memory already touched (no page faults, no
    /// zero-filling once it has grown).
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Decompresses `stored` (which must give exactly `size` bytes) into the
/// first `size` bytes of `out`, which grows when it must and is never
/// zero-filled again.
fn decompress(codec: Codec, stored: &[u8], size: usize, out: &mut Vec<u8>) -> Result<(), String> {
    // Sizes checked before the buffer grows to what the header claims.
    let given = match codec {
        Codec::Uncompressed => Some(stored.len()),
        Codec::Snappy => {
            Some(snap::raw::decompress_len(stored).map_err(|e| format!("snappy: {e}"))?)
        }
        Codec::Zstd => None,
    };
    if let Some(given) = given.filter(|&g| g != size) {
        return Err(format!("it holds {given} bytes, the header says {size}"));
    }
    if out.len() < size {
        out.resize(size, 0);
    }
    let out = &mut out[..size];
    let got = match codec {
        Codec::Uncompressed => {
            out.copy_from_slice(stored);
            size
        }
        Codec::Snappy => snap::raw::Decoder::new()
            .decompress(stored, out)
            .map_err(|e| format!("snappy: {e}"))?,
        Codec::Zstd => {
            zstd::bulk::decompress_to_buffer(stored, out).map_err(|e| format!("zstd: {e}"))?
        }
    };
    if got != size {
        return Err(format!(
            "it decompresses to {got} bytes, the header says {size}"
        ));
    }
    Ok(())
}

/// A row group's dictionary page, decoded: its bytes and where each value
/// lies in them.
#[derive(Debug)]
pub(super) struct Dictionary {
    bytes: Vec<u8>,
    values: Vec<(usize, usize)>,
}

impl Dictionary {
    fn value(&self, i: u32) -> Option<&[u8]> {
        let &(start, len) = self.values.get(i as usize)?;
        Some(&self.bytes[start..start + len])
    }
}

/// PLAIN byte arrays: each a little-endian `u32` length, then its bytes.
struct Plain<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Plain<'a> {
    fn new(data: &'a [u8]) -> Self {
        Plain { data, at: 0 }
    }

    fn next(&mut self) -> Result<&'a [u8], String> {
        let rest = &self.data[self.at..];
        let len = rest
            .first_chunk::<4>()
            .map(|l| u32::from_le_bytes(*l) as usize)
            .ok_or("fewer values than rows")?;
        let value = rest
            .get(4..4 + len)
            .ok_or("a value past the end of the page")?;
        self.at += 4 + len;
        Ok(value)
    }
}

/// Parquet's RLE / bit-packed hybrid encoding (of levels and dictionary
/// indexes), value by value: runs, each a ULEB128 header whose low bit
/// says which kind; a repeated value (`header >> 1` times, in
/// `ceil(width / 8)` little-endian bytes), or `header >> 1` groups of
/// eight values packed `width` bits each, least significant bit first.
struct Hybrid<'a> {
    data: &'a [u8],
    at: usize,
    width: u8,
    /// Values left in the current run.
    left: u64,
    /// The current run: a repeated value, or packed values from bit `bit`
    /// of `data` on.
    repeated: Option<u32>,
    bit: usize,
}

impl<'a> Hybrid<'a> {
    fn new(data: &'a [u8], width: u8) -> Self {
        Hybrid {
            data,
            at: 0,
            width,
            left: 0,
            repeated: None,
            bit: 0,
        }
    }

    fn next(&mut self) -> Result<u32, String> {
        while self.left == 0 {
            self.start_run()?;
        }
        self.left -= 1;
        if let Some(v) = self.repeated {
            return Ok(v);
        }
        let width = usize::from(self.width);
        let (byte, shift) = (self.bit / 8, self.bit % 8);
        let need = (shift + width).div_ceil(8);
        let bytes = self
            .data
            .get(byte..byte + need)
            .ok_or("bit-packed values past the end")?;
        let mut word = [0u8; 8];
        word[..need].copy_from_slice(bytes);
        self.bit += width;
        let mask = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        Ok((u64::from_le_bytes(word) >> shift) as u32 & mask)
    }

    fn start_run(&mut self) -> Result<(), String> {
        let mut header = 0u64;
        for k in 0.. {
            let b = *self.data.get(self.at).ok_or("fewer values than rows")?;
            self.at += 1;
            header |= u64::from(b & 0x7f) << (7 * k);
            if b & 0x80 == 0 {
                break;
            }
            if k == 4 {
                return Err("a run header longer than five bytes".into());
            }
        }
        let count = header >> 1;
        if header & 1 == 1 {
            // Groups of eight values; the bits they take follow.
            let bytes = count * u64::from(self.width);
            self.repeated = None;
            self.bit = self.at * 8;
            self.left = count * 8;
            self.at = self.at.saturating_add(bytes as usize).min(self.data.len());
        } else {
            let width = usize::from(self.width).div_ceil(8);
            let bytes = self
                .data
                .get(self.at..self.at + width)
                .ok_or("a repeated value past the end")?;
            let mut word = [0u8; 4];
            word[..width].copy_from_slice(bytes);
            self.at += width;
            self.repeated = Some(u32::from_le_bytes(word));
            self.left = count;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ULEB128 run header.
    fn header(v: u64, out: &mut Vec<u8>) {
        let mut v = v;
        loop {
            let b = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }

    /// `values` as one bit-packed run (padded to groups of eight with
    /// zeros), then `repeat` as a repeated run of `times`.
    fn hybrid(width: u8, values: &[u32], repeat: u32, times: u64) -> Vec<u8> {
        let groups = values.len().div_ceil(8);
        let mut out = Vec::new();
        header((groups as u64) << 1 | 1, &mut out);
        let mut bits = vec![0u8; groups * usize::from(width)];
        for (i, &v) in values.iter().enumerate() {
            for b in 0..usize::from(width) {
                if v >> b & 1 == 1 {
                    let at = i * usize::from(width) + b;
                    bits[at / 8] |= 1 << (at % 8);
                }
            }
        }
        out.extend_from_slice(&bits);
        header(times << 1, &mut out);
        out.extend_from_slice(&repeat.to_le_bytes()[..usize::from(width).div_ceil(8)]);
        out
    }

    #[test]
    fn hybrid_runs_are_read_as_written_at_every_width() {
        for width in 0..=32u8 {
            let mask = if width == 32 {
                u32::MAX
            } else {
                (1u32 << width) - 1
            };
            let values: Vec<u32> = (0..37u32)
                .map(|i| i.wrapping_mul(2_654_435_761) & mask)
                .collect();
            let data = hybrid(width, &values, mask, 300);
            let mut read = Hybrid::new(&data, width);
            let got: Vec<u32> = (0..37).map(|_| read.next().unwrap()).collect();
            assert_eq!(got, values, "width {width}");
            // The padding of the last group of eight, then the repeats.
            for _ in 37..40 {
                assert_eq!(read.next().unwrap(), 0);
            }
            for _ in 0..300 {
                assert_eq!(read.next().unwrap(), mask, "width {width}");
            }
            assert!(read.next().is_err(), "width {width}: past the last run");
            // Cut anywhere, an error, never a panic.
            for cut in 0..data.len() {
                let mut read = Hybrid::new(&data[..cut], width);
                assert!((0..340).map(|_| read.next()).any(|v| v.is_err()));
            }
        }
    }

    #[test]
    fn levels_are_all_present_only_for_one_run_of_values_long_enough() {
        assert!(all_present(&hybrid(1, &[], 1, 500)[1..], 500));
        assert!(all_present(&hybrid(1, &[], 1, 500)[1..], 499));
        assert!(!all_present(&hybrid(1, &[], 1, 500)[1..], 501));
        assert!(!all_present(&hybrid(1, &[], 0, 500)[1..], 10));
        // Bit-packed, even if all ones.
        assert!(!all_present(&hybrid(1, &[1; 16], 1, 0), 16));
        assert!(!all_present(&[], 0));
    }

    #[test]
    fn plain_values_past_the_page_are_errors() {
        let mut page = Vec::new();
        for v in ["ab", "", "cde"] {
            page.extend_from_slice(&(v.len() as u32).to_le_bytes());
            page.extend_from_slice(v.as_bytes());
        }
        let mut plain = Plain::new(&page);
        assert_eq!(plain.next().unwrap(), b"ab");
        assert_eq!(plain.next().unwrap(), b"");
        assert_eq!(plain.next().unwrap(), b"cde");
        assert!(plain.next().is_err());
        for cut in 0..page.len() {
            let mut plain = Plain::new(&page[..cut]);
            assert!((0..3).map(|_| plain.next()).any(|v| v.is_err()));
        }
    }
}
