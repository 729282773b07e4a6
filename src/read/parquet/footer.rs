//! The footer (a Thrift compact `FileMetaData` before the file's last
//! eight bytes) walked before the parquet crate reads it.
//!
//! Why: parquet 59 reads the footer field by field, and skips a field it
//! does not know by its wire type (see [`super::thrift`]). A damaged footer
//! can hold such a field with a list of up to 2^31 booleans, which the
//! crate skips one by one as taking no bytes: a second for a few bytes in a
//! release build (45 s and more under the fuzzer's sanitizer), and a list
//! of such lists multiplies it. It also reserves room for as many row
//! groups as the footer claims before it reads one (2^31 claimed: an
//! allocation that fails and ends the program), and builds the schema by a
//! recursion as deep as its nesting (a deep enough one overflows the
//! stack). [`check_footer`] refuses all three before the crate reads a
//! byte; a footer it lets through is read in work proportional to its
//! length.

use super::thrift::{Walk, SKIP_DEPTH};
use super::MAGIC;

/// The structs of a footer that parquet 59 reads (its unions, a struct of
/// one field on the wire, are walked as structs), as it reads them without
/// its `encryption` feature (see Cargo.toml).
#[derive(Clone, Copy, PartialEq, Debug)]
enum FooterStruct {
    File,
    SchemaElement,
    LogicalType,
    Decimal,
    /// `TimeType` and `TimestampType`.
    Time,
    TimeUnit,
    Integer,
    Variant,
    Geometry,
    Geography,
    /// The empty struct of a union's variant without fields.
    Empty,
    KeyValue,
    ColumnOrder,
    RowGroup,
    SortingColumn,
    ColumnChunk,
    ColumnMetaData,
    Statistics,
    PageEncodingStats,
    SizeStatistics,
    GeospatialStatistics,
    BoundingBox,
}

/// How parquet 59 reads a footer field: by the type it declares for the
/// field's id, whatever the wire type says (a boolean must say it is one);
/// a field it does not know (or does not keep) skipped by its wire type.
#[derive(Clone, Copy)]
enum FooterField {
    /// An integer or enum (a zigzag varint).
    Int,
    /// An `i8`: one byte.
    Byte,
    Double,
    /// A binary or string: a varint length, then the bytes.
    Binary,
    Bool,
    Struct(FooterStruct),
    List(Item),
    Skipped,
}

/// The items of a list the crate reads, by the element type it checks the
/// list's header for.
#[derive(Clone, Copy)]
enum Item {
    I32,
    I64,
    Struct(FooterStruct),
}

impl Item {
    /// The element type on the wire the crate insists on.
    fn wire_type(self) -> u8 {
        match self {
            Item::I32 => 5,
            Item::I64 => 6,
            Item::Struct(_) => 12,
        }
    }
}

impl FooterStruct {
    /// How the crate reads field `id` of this struct (parquet 59's
    /// `parquet_metadata_from_bytes`, `read_row_group`, `read_column_chunk`,
    /// `read_column_metadata`, and the structs and unions they read).
    fn field(self, id: i16) -> FooterField {
        use FooterField::*;
        use FooterStruct::*;
        match (self, id) {
            (File, 1 | 3) => Int,
            (File, 2) => List(Item::Struct(SchemaElement)),
            (File, 4) => List(Item::Struct(RowGroup)),
            (File, 5) => List(Item::Struct(KeyValue)),
            (File, 6) => Binary,
            (File, 7) => List(Item::Struct(ColumnOrder)),
            (SchemaElement, 1..=3 | 5..=9) => Int,
            (SchemaElement, 4) => Binary,
            (SchemaElement, 10) => Struct(LogicalType),
            (LogicalType, 1..=4 | 6 | 11..=15) => Struct(Empty),
            (LogicalType, 5) => Struct(Decimal),
            (LogicalType, 7 | 8) => Struct(Time),
            (LogicalType, 10) => Struct(Integer),
            (LogicalType, 16) => Struct(Variant),
            (LogicalType, 17) => Struct(Geometry),
            (LogicalType, 18) => Struct(Geography),
            (Decimal, 1 | 2) => Int,
            (Time, 1) => Bool,
            (Time, 2) => Struct(TimeUnit),
            (TimeUnit, 1..=3) => Struct(Empty),
            (Integer, 1) => Byte,
            (Integer, 2) => Bool,
            (Variant, 1) => Byte,
            (Geometry, 1) => Binary,
            (Geography, 1) => Binary,
            (Geography, 2) => Int,
            (KeyValue, 1 | 2) => Binary,
            (ColumnOrder, 1) => Struct(Empty),
            (RowGroup, 1) => List(Item::Struct(ColumnChunk)),
            (RowGroup, 2 | 3 | 5 | 7) => Int,
            (RowGroup, 4) => List(Item::Struct(SortingColumn)),
            (SortingColumn, 1) => Int,
            (SortingColumn, 2 | 3) => Bool,
            (ColumnChunk, 1) => Binary,
            (ColumnChunk, 2 | 4..=7) => Int,
            (ColumnChunk, 3) => Struct(ColumnMetaData),
            (ColumnMetaData, 1 | 4..=7 | 9..=11 | 14 | 15) => Int,
            (ColumnMetaData, 2) => List(Item::I32),
            (ColumnMetaData, 12) => Struct(Statistics),
            (ColumnMetaData, 13) => List(Item::Struct(PageEncodingStats)),
            (ColumnMetaData, 16) => Struct(SizeStatistics),
            (ColumnMetaData, 17) => Struct(GeospatialStatistics),
            (Statistics, 1 | 2 | 5 | 6) => Binary,
            (Statistics, 3 | 4) => Int,
            (Statistics, 7 | 8) => Bool,
            (PageEncodingStats, 1..=3) => Int,
            (SizeStatistics, 1) => Int,
            (SizeStatistics, 2 | 3) => List(Item::I64),
            (GeospatialStatistics, 1) => Struct(BoundingBox),
            (GeospatialStatistics, 2) => List(Item::I32),
            (BoundingBox, 1..=8) => Double,
            _ => Skipped,
        }
    }
}

/// A schema may nest groups at most this deep. The crate builds the
/// schema tree (and the Arrow schema from it) by recursion: about 1.4 KiB
/// of stack a level in a release build, so that a schema 1,500 deep
/// overflows the 2 MiB of a reader thread (a footer of 12 KB that ends the
/// program). pyarrow refuses schemas over 100 deep.
pub(super) const DEEPEST_SCHEMA: usize = 128;

/// Checks the footer of the Parquet file `file` before the parquet crate
/// reads it: walked field by field as the crate reads it, and refused
/// (with why) where the crate would loop for nothing (see
/// [`super::thrift`]), reserve more than the footer can hold, or nest its
/// schema deeper than [`DEEPEST_SCHEMA`]. A file too short for a footer,
/// or whose last bytes do not say where one is, is left to the crate,
/// which says why it cannot read it.
pub(super) fn check_footer(file: &[u8]) -> Result<(), String> {
    let Some(end) = file.len().checked_sub(8) else {
        return Ok(());
    };
    let (length, magic) = file[end..].split_at(4);
    if magic != MAGIC {
        return Ok(());
    }
    let length = u32::from_le_bytes(length.try_into().expect("four bytes")) as usize;
    let Some(start) = end.checked_sub(length) else {
        return Ok(());
    };
    walk_footer(&file[start..end])
        .map(drop)
        .map_err(|why| format!("the footer at byte {start}: {why}"))
}

/// The length of the footer (a `FileMetaData`) at the start of `bytes`,
/// walked as [`check_footer`] says, or why it is refused.
fn walk_footer(bytes: &[u8]) -> Result<usize, String> {
    let mut walk = FooterWalk {
        walk: Walk::new(bytes),
        children: Vec::new(),
    };
    walk.fields(FooterStruct::File)?;
    let depth = schema_depth(&walk.children);
    if depth > DEEPEST_SCHEMA {
        return Err(format!(
            "its schema nests {depth} levels deep (at most {DEEPEST_SCHEMA} are read)"
        ));
    }
    Ok(walk.walk.at())
}

/// How deep the crate's recursion over a schema goes: the schema is its
/// elements depth first, each with its count of children (`None` or 0 for
/// a leaf; a negative count, read as none, too).
fn schema_depth(children: &[Option<i32>]) -> usize {
    // Children still to come of each open group, innermost last.
    let mut open: Vec<i32> = Vec::new();
    let mut deepest = 0;
    for n in children {
        while open.last() == Some(&0) {
            open.pop();
        }
        if let Some(left) = open.last_mut() {
            *left -= 1;
        }
        deepest = deepest.max(open.len() + 1);
        match n {
            Some(n) if *n > 0 => open.push(*n),
            _ => {}
        }
    }
    deepest
}

/// A walk through a footer, keeping each schema element's count of
/// children (field 5), in order.
struct FooterWalk<'a> {
    walk: Walk<'a>,
    children: Vec<Option<i32>>,
}

impl FooterWalk<'_> {
    /// The fields of a `which` struct, up to its end.
    fn fields(&mut self, which: FooterStruct) -> Result<(), String> {
        let mut children = None;
        let mut last = 0;
        while let Some((t, id)) = self.walk.field(last)? {
            match which.field(id) {
                FooterField::Int => {
                    let v = self.walk.int()?;
                    if which == FooterStruct::SchemaElement && id == 5 {
                        children = Some(v as i32);
                    }
                }
                FooterField::Byte => drop(self.walk.byte()?),
                FooterField::Double => self.walk.skip_bytes(8)?,
                FooterField::Binary => {
                    let n = self.walk.varint()?;
                    self.walk.skip_bytes(n)?;
                }
                FooterField::Bool if t == 1 || t == 2 => {}
                FooterField::Bool => {
                    return Err(format!("field {id} is of type {t}, not boolean"));
                }
                FooterField::Struct(s) => self.fields(s)?,
                FooterField::List(item) => self.list(item)?,
                FooterField::Skipped => self.walk.skip(t, SKIP_DEPTH)?,
            }
            last = id;
        }
        if which == FooterStruct::SchemaElement {
            self.children.push(children);
        }
        Ok(())
    }

    /// A list the crate reads: its header (the element type checked, as
    /// the crate checks it), then each item. The crate reserves room for
    /// every item the header claims (for row groups, before any check), so
    /// a list claiming more items than bytes are left (each takes one at
    /// least) is refused.
    fn list(&mut self, item: Item) -> Result<(), String> {
        let header = self.walk.byte()?;
        if header == 0 {
            // An empty list, as some writers write one (the crate reads it
            // as such, then refuses its element type).
            return Ok(());
        }
        let wire = header & 0x0f;
        if wire != item.wire_type() {
            return Err(format!(
                "a list of items of type {wire} where parquet reads type {}",
                item.wire_type()
            ));
        }
        let n = match header >> 4 {
            15 => self.walk.count()?,
            n => u32::from(n),
        };
        let left = self.walk.left();
        if n as usize > left {
            return Err(format!("a list of {n} items in {left} bytes"));
        }
        for _ in 0..n {
            match item {
                Item::I32 | Item::I64 => drop(self.walk.int()?),
                Item::Struct(s) => self.fields(s)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::parquet::reader_options;
    use parquet::arrow::arrow_reader::ArrowReaderMetadata;
    use std::sync::Arc;

    /// `footer` (Thrift bytes) as a whole file: magic, footer, its length,
    /// magic.
    fn file_of(footer: &[u8]) -> Vec<u8> {
        let mut file = MAGIC.to_vec();
        file.extend_from_slice(footer);
        file.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        file.extend_from_slice(MAGIC);
        file
    }

    /// The footer of `file`.
    fn footer_of(file: &[u8]) -> &[u8] {
        let end = file.len() - 8;
        let length = u32::from_le_bytes(file[end..end + 4].try_into().unwrap()) as usize;
        &file[end - length..end]
    }

    /// A table of every kind of column the crate writes, with everything a
    /// footer can say about it: statistics, size statistics, encoding
    /// stats, sorting columns, a page index and bloom filters (their
    /// offsets), key-value pairs and column orders, in three row groups.
    fn table_of_every_kind() -> Vec<u8> {
        use arrow_array::*;
        use arrow_schema::{DataType, Field};
        let n = 30;
        let ints = || (0..n).map(|i| Some(i as i32)).collect::<Vec<_>>();
        let longs = || (0..n).map(|i| i as i64);
        let list = ListArray::from_iter_primitive::<arrow_array::types::Int32Type, _, _>(
            (0..n).map(|i| Some(vec![Some(i as i32), None])),
        );
        let strukt = StructArray::from(vec![
            (
                Arc::new(Field::new("a", DataType::Int32, true)),
                Arc::new(Int32Array::from(ints())) as ArrayRef,
            ),
            (
                Arc::new(Field::new("b", DataType::Utf8, true)),
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("s{i}")),
                )) as ArrayRef,
            ),
        ]);
        let dictionary: DictionaryArray<arrow_array::types::Int32Type> =
            (0..n).map(|i| ["x", "y", "z"][i % 3]).collect();
        let columns: Vec<(&str, ArrayRef)> = vec![
            (
                "i8",
                Arc::new(Int8Array::from_iter_values((0..n).map(|i| i as i8))),
            ),
            (
                "i16",
                Arc::new(Int16Array::from_iter_values((0..n).map(|i| i as i16))),
            ),
            ("i32", Arc::new(Int32Array::from(ints()))),
            ("i64", Arc::new(Int64Array::from_iter_values(longs()))),
            (
                "u8",
                Arc::new(UInt8Array::from_iter_values((0..n).map(|i| i as u8))),
            ),
            (
                "u64",
                Arc::new(UInt64Array::from_iter_values((0..n).map(|i| i as u64))),
            ),
            (
                "f32",
                Arc::new(Float32Array::from_iter_values((0..n).map(|i| i as f32))),
            ),
            (
                "f64",
                Arc::new(Float64Array::from_iter_values((0..n).map(|i| i as f64))),
            ),
            (
                "bool",
                Arc::new(BooleanArray::from_iter((0..n).map(|i| Some(i % 2 == 0)))),
            ),
            (
                "text",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("{i:0>81}")),
                )),
            ),
            (
                "large",
                Arc::new(LargeStringArray::from_iter_values(
                    (0..n).map(|i| format!("{i}")),
                )),
            ),
            (
                "bytes",
                Arc::new(BinaryArray::from_iter_values(
                    (0..n).map(|i| [i as u8, 0xff]),
                )),
            ),
            (
                "fixed",
                Arc::new(
                    FixedSizeBinaryArray::try_from_iter((0..n).map(|i| [i as u8; 4])).unwrap(),
                ),
            ),
            (
                "date",
                Arc::new(Date32Array::from_iter_values((0..n).map(|i| i as i32))),
            ),
            (
                "time",
                Arc::new(Time64MicrosecondArray::from_iter_values(longs())),
            ),
            (
                "stamp",
                Arc::new(TimestampNanosecondArray::from_iter_values(longs()).with_timezone("UTC")),
            ),
            (
                "millis",
                Arc::new(TimestampMillisecondArray::from_iter_values(longs())),
            ),
            (
                "decimal",
                Arc::new(
                    Decimal128Array::from_iter_values((0..n).map(|i| i as i128))
                        .with_precision_and_scale(20, 2)
                        .unwrap(),
                ),
            ),
            ("list", Arc::new(list)),
            ("struct", Arc::new(strukt)),
            ("dictionary", Arc::new(dictionary)),
        ];
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(n / 3))
            .set_statistics_enabled(parquet::file::properties::EnabledStatistics::Page)
            .set_bloom_filter_enabled(true)
            .set_sorting_columns(Some(vec![parquet::file::metadata::SortingColumn {
                column_idx: 2,
                descending: false,
                nulls_first: true,
            }]))
            .set_key_value_metadata(Some(vec![parquet::file::metadata::KeyValue::new(
                "origin".to_string(),
                "batchdoku tests".to_string(),
            )]))
            .build();
        let mut file = Vec::new();
        let mut w =
            parquet::arrow::ArrowWriter::try_new(&mut file, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        file
    }

    #[test]
    fn a_footer_of_every_kind_of_column_is_walked_to_its_end() {
        let file = table_of_every_kind();
        let footer = footer_of(&file);
        // The crate reads it; the walk goes through it, to its last byte
        // (a walk that read a field as another type would not end there).
        let meta =
            ArrowReaderMetadata::load(&bytes::Bytes::from(file.clone()), reader_options()).unwrap();
        assert_eq!(meta.metadata().num_row_groups(), 3);
        assert!(meta
            .metadata()
            .row_group(0)
            .column(2)
            .statistics()
            .is_some());
        assert_eq!(walk_footer(footer), Ok(footer.len()));
        assert_eq!(check_footer(&file), Ok(()));
    }

    /// A count of `i32::MAX` items (a varint).
    const MANY: [u8; 5] = [0xff, 0xff, 0xff, 0xff, 0x07];

    /// The footer of `file` with `field` (a field header with a full id,
    /// and its value) before its end.
    fn with_field(file: &[u8], field: &[u8]) -> Vec<u8> {
        let footer = footer_of(file);
        let (fields, end) = footer.split_at(footer.len() - 1);
        assert_eq!(end, [0]);
        file_of(&[fields, field, end].concat())
    }

    #[test]
    fn a_footer_field_the_crate_would_loop_over_is_refused() {
        let good = table_of_every_kind();
        // An unknown field 20 (a full field id: zigzag 40) holding a list,
        // a set or a map of 2^31 - 1 booleans; a list of 1,000 lists of
        // 2^31 - 1 each; a map of booleans to doubles.
        let inner: Vec<u8> = (0..1000)
            .flat_map(|_| [[0xf1].as_slice(), &MANY].concat())
            .collect();
        for field in [
            [[0x09, 0x28, 0xf1].as_slice(), &MANY].concat(),
            [[0x0a, 0x28, 0xf2].as_slice(), &MANY].concat(),
            [[0x0b, 0x28].as_slice(), &MANY, &[0x17]].concat(),
            [[0x09, 0x28, 0xf9, 0xe8, 0x07].as_slice(), &inner].concat(),
        ] {
            let bad = with_field(&good, &field);
            let why = check_footer(&bad).unwrap_err();
            assert!(why.contains("booleans"), "{field:x?}: {why}");
            assert!(why.starts_with("the footer at byte 4:"), "{why}");
        }
        // The same in a struct the crate reads: an unknown field 30 of the
        // schema's root.
        let file = file_of(
            &[
                [0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, b'r', 0x09, 0x3c, 0xf1].as_slice(),
                &MANY,
                &[0x00, 0x00],
            ]
            .concat(),
        );
        assert!(check_footer(&file)
            .unwrap_err()
            .contains("2147483647 booleans"));
        // A few booleans too: the crate would read their bytes as fields.
        let bad = with_field(&good, &[0x09, 0x28, 0x31, 1, 1, 1]);
        assert!(check_footer(&bad).unwrap_err().contains("3 booleans"));
        // An empty list of them is nothing.
        assert_eq!(
            check_footer(&with_field(&good, &[0x09, 0x28, 0x01])),
            Ok(())
        );
    }

    /// A footer of version 1 whose schema is a root, `depth - 2` optional
    /// groups of one child each, and an INT32 leaf, without row groups.
    fn nested_schema(depth: usize) -> Vec<u8> {
        let mut footer = vec![0x15, 0x02, 0x19, 0xfc];
        let mut n = depth;
        while n >= 0x80 {
            footer.push(0x80 | (n & 0x7f) as u8);
            n >>= 7;
        }
        footer.push(n as u8);
        footer.extend_from_slice(&[0x48, 0x01, b'r', 0x15, 0x02, 0x00]);
        for _ in 2..depth {
            footer.extend_from_slice(&[0x35, 0x02, 0x18, 0x01, b'g', 0x15, 0x02, 0x00]);
        }
        footer.extend_from_slice(&[0x15, 0x02, 0x25, 0x02, 0x18, 0x01, b'x', 0x00]);
        // num_rows 0, an empty list of row groups, the end.
        footer.extend_from_slice(&[0x16, 0x00, 0x19, 0x0c, 0x00]);
        file_of(&footer)
    }

    #[test]
    fn a_schema_nested_deeper_than_is_read_is_refused() {
        assert_eq!(schema_depth(&[Some(2), None, Some(1), None]), 3);
        assert_eq!(schema_depth(&[Some(1), Some(-3), None]), 2);
        let deepest = nested_schema(DEEPEST_SCHEMA);
        assert_eq!(check_footer(&deepest), Ok(()));
        let why = check_footer(&nested_schema(DEEPEST_SCHEMA + 1)).unwrap_err();
        assert!(
            why.contains(&format!("nests {} levels", DEEPEST_SCHEMA + 1)),
            "{why}"
        );
        // What is let through, the crate reads on a thread of 2 MiB of
        // stack (a rayon worker's) without overflowing it.
        let read = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                ArrowReaderMetadata::load(&bytes::Bytes::from(deepest), reader_options())
                    .map(|m| m.schema().fields().len())
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(read.unwrap(), 1);
    }

    #[test]
    fn row_groups_claimed_past_the_footer_are_refused() {
        // Version, then 2^31 - 1 row groups claimed in a few bytes (the
        // crate reserves room for them all first).
        let file = file_of(&[[0x15, 0x02, 0x39, 0xfc].as_slice(), &MANY, &[0x00]].concat());
        let why = check_footer(&file).unwrap_err();
        assert!(
            why.contains("a list of 2147483647 items in 1 bytes"),
            "{why}"
        );
        // A list of items of another type than the crate reads.
        let file = file_of(&[0x15, 0x02, 0x39, 0x15, 0x02, 0x00]);
        assert!(check_footer(&file).unwrap_err().contains("type 5"));
    }
}
