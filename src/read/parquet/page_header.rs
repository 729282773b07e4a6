//! Page headers walked before the parquet crate reads them: a damaged
//! header can make the crate loop up to 2^31 times for nothing, or panic
//! (see [`PageBytes`]).

use super::thrift::{Walk, SKIP_DEPTH};
use parquet::file::reader::ChunkReader;

/// The file's bytes as the page decoders read them: the parquet crate's
/// in-memory reader ([`bytes::Bytes`]), except that a page header is first
/// walked by [`page_header_len`], and the crate is handed its bytes and no
/// more.
///
/// Why: parquet 59 reads a page header through a [`std::io::Read`], and
/// skips a field it does not know by the count of items the field claims.
/// A damaged header can claim up to 2^31 items that the skip takes no
/// bytes for: booleans, which it skips as none where the compact protocol
/// writes one byte each, and 8- or 16-byte items past the end of the file,
/// where its skip stops without an error. It loops over every one (about a
/// second for a header in a release build, at open when the page walk of
/// [`TableSource::in_lanes`] meets it and again in every decoder that
/// does) before it fails. A header refused by the walk fails at once; one
/// it lets through is read in work proportional to its bytes.
///
/// The crate reads page headers through this reader only: the footer is
/// read from the plain bytes (walked first by [`super::footer`]), and the
/// page index (which would give page
/// offsets, and headers read from [`ChunkReader::get_bytes`]) is never
/// loaded, nor are the page headers' statistics.
#[derive(Clone)]
pub(super) struct PageBytes(pub(super) bytes::Bytes);

impl parquet::file::reader::Length for PageBytes {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
}

impl ChunkReader for PageBytes {
    type T = PageHeaderRead;

    fn get_read(&self, start: u64) -> parquet::errors::Result<PageHeaderRead> {
        Ok(PageHeaderRead {
            rest: self.0.get_read(start)?.into_inner(),
            start,
            at: 0,
            header: None,
        })
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<bytes::Bytes> {
        self.0.get_bytes(start, length)
    }
}

/// The page header at byte `start` of the file, for the crate to read:
/// walked at the first read (not before, since the crate also opens one at
/// a page's data after it has read the page's header, and never reads
/// from that one); a refused header, and a read past the header's end,
/// are errors.
pub(super) struct PageHeaderRead {
    /// The file from `start` on.
    rest: bytes::Bytes,
    start: u64,
    /// Bytes read so far.
    at: usize,
    /// The header's length, or why it is refused, once walked.
    header: Option<Result<usize, String>>,
}

impl std::io::Read for PageHeaderRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let walked = self
            .header
            .get_or_insert_with(|| page_header_len(&self.rest));
        let refused = |why: String| {
            let why = format!("the page header at byte {}: {why}", self.start);
            Err(std::io::Error::new(std::io::ErrorKind::InvalidData, why))
        };
        let end = match walked {
            Ok(end) => *end,
            Err(why) => return refused(why.clone()),
        };
        if self.at == end && !buf.is_empty() {
            return refused(format!("read past its end ({end} bytes)"));
        }
        let n = buf.len().min(end - self.at);
        buf[..n].copy_from_slice(&self.rest[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Page types, as parquet.thrift numbers them.
pub(super) const DATA_PAGE: i32 = 0;
pub(super) const DICTIONARY_PAGE: i32 = 2;
pub(super) const DATA_PAGE_V2: i32 = 3;

/// The Thrift structs of a page header, as parquet 59 reads them.
#[derive(Clone, Copy)]
pub(super) enum HeaderStruct {
    Page,
    Data,
    Index,
    Dictionary,
    DataV2,
}

/// How parquet 59 reads a field of a page header, by its id: the fields
/// it knows as their declared types, whatever the wire type says (a
/// boolean must say it is one); any other skipped by its wire type. Page
/// statistics are skipped too (the crate reads them only when asked to).
pub(super) enum HeaderField {
    Int,
    Bool,
    Struct(HeaderStruct),
    Skipped,
}

impl HeaderStruct {
    fn field(self, id: i16) -> HeaderField {
        use HeaderStruct::*;
        match (self, id) {
            (Page | Data, 1..=4) | (Dictionary, 1 | 2) | (DataV2, 1..=6) => HeaderField::Int,
            (Page, 5) => HeaderField::Struct(Data),
            (Page, 6) => HeaderField::Struct(Index),
            (Page, 7) => HeaderField::Struct(Dictionary),
            (Page, 8) => HeaderField::Struct(DataV2),
            (Dictionary, 3) | (DataV2, 7) => HeaderField::Bool,
            _ => HeaderField::Skipped,
        }
    }
}

/// The length of the page header (a Thrift compact `PageHeader`) at the
/// start of `bytes`, walked token by token as parquet 59 reads it
/// (`PageHeader::read_thrift_without_stats`, with its `skip` for the
/// fields it does not know), or why it is refused. Refused: what the crate
/// refuses too (an unknown type, a list or map of more than 2^31 - 1
/// items, a field id past 32,767, skips nested over 64 deep, a boolean
/// field of another type), and, where the crate would go on,
///
/// - a header that runs past the end of the file (a value claiming more
///   bytes than are left included), which no header does;
/// - a skipped list, set or map holding booleans: the crate skips each as
///   taking no bytes where the compact protocol writes one, so it would
///   read those bytes as the fields that follow (no header written with
///   such a field can be read right), and a damaged count makes it loop
///   up to 2^31 times for nothing.
///
/// - a page claiming over 64 MiB uncompressed, and over 1,100 times its
///   compressed size: the crate would allocate it all first.
///
/// Every step of the walk, and of the crate's reading of a header let
/// through, takes at least one byte, so both take time proportional to the
/// header's length.
pub(super) fn page_header_len(bytes: &[u8]) -> Result<usize, String> {
    page_header(bytes).map(|(len, _)| len)
}

/// [`page_header_len`], with the fields the walk saw.
pub(super) fn page_header(bytes: &[u8]) -> Result<(usize, WalkedFields), String> {
    let mut walk = Walk::new(bytes);
    let page = header_fields(&mut walk, HeaderStruct::Page)?;
    // The crate unwraps the fields of a data page (V1 in field 5, V2 in
    // field 8) when it skips the page: a panic where it is missing.
    let needs = match page.page_type() {
        Some(DATA_PAGE) => Some((5, "a data page header without its data page fields")),
        Some(DATA_PAGE_V2) => Some((8, "a data page header (V2) without its data page fields")),
        _ => None,
    };
    if let Some((field, why)) = needs {
        if page.structs & (1 << field) == 0 {
            return Err(why.to_string());
        }
    }
    if let [Some(uncompressed), Some(compressed)] = [page.own.ints[2], page.own.ints[3]] {
        let (u, c) = (i64::from(uncompressed), i64::from(compressed));
        if u > UNCHECKED_PAGE && u > c.max(0) * MOST_EXPANSION {
            return Err(format!(
                "a page of {c} bytes that claims {u} bytes uncompressed \
                 (more than any codec gives)"
            ));
        }
    }
    Ok((walk.at(), page))
}

/// The integer fields (as the crate reads an i32) and boolean fields of
/// one struct, by id.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Fields {
    /// Integer fields 1 to 7, by id (0 unused).
    pub(super) ints: [Option<i32>; 8],
    /// Boolean fields 1 to 15, bit `id`: those there, and those true.
    bools: u16,
    trues: u16,
}

impl Fields {
    /// Boolean field `id`, if there.
    pub(super) fn bool(&self, id: usize) -> Option<bool> {
        (self.bools & (1 << id) != 0).then_some(self.trues & (1 << id) != 0)
    }
}

/// What the walk of a struct saw: its own fields, which of the structs it
/// holds were there, and the fields of the last of them (a page header
/// holds one: the header of its kind of page).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct WalkedFields {
    /// A page header's integers are its type, sizes uncompressed and
    /// compressed, and checksum.
    pub(super) own: Fields,
    /// Structs there, bit `id`.
    structs: u64,
    pub(super) inner: Fields,
}

impl WalkedFields {
    /// A page header's type (field 1).
    pub(super) fn page_type(&self) -> Option<i32> {
        self.own.ints[1]
    }
}

/// A page may claim up to this many bytes uncompressed whatever its
/// compressed size.
const UNCHECKED_PAGE: i64 = 64 << 20;

/// Above [`UNCHECKED_PAGE`], a page may claim at most this many times its
/// compressed size (deflate's limit is about 1,032: a stored length of 258
/// in two bits; snappy's and lz4's lower): the crate allocates and zeroes
/// what the header claims before it decompresses a byte, so a damaged
/// size of 2 GB from a few bytes would cost 2 GB of memory.
const MOST_EXPANSION: i64 = 1100;

/// The fields of a `which` struct, up to its end.
fn header_fields(walk: &mut Walk, which: HeaderStruct) -> Result<WalkedFields, String> {
    let mut seen = WalkedFields::default();
    let mut last = 0;
    while let Some((t, id)) = walk.field(last)? {
        match which.field(id) {
            HeaderField::Int => {
                // Zigzag, then cut to an i32, as the crate reads one.
                let v = walk.int()? as i32;
                if let Some(slot) = seen.own.ints.get_mut(id as usize) {
                    *slot = Some(v);
                }
            }
            // The compact protocol writes a boolean field's value in its
            // type: 1 true, 2 false.
            HeaderField::Bool if t == 1 || t == 2 => {
                if id < 16 {
                    let own = &mut seen.own;
                    own.bools |= 1 << id;
                    own.trues = (own.trues & !(1 << id)) | (u16::from(t == 1) << id);
                }
            }
            HeaderField::Bool => return Err(format!("field {id} is of type {t}, not boolean")),
            HeaderField::Struct(s) => {
                seen.inner = header_fields(walk, s)?.own;
                seen.structs |= 1 << id;
            }
            HeaderField::Skipped => walk.skip(t, SKIP_DEPTH)?,
        }
        last = id;
    }
    Ok(seen)
}
