//! A walk through Thrift compact bytes (the encoding of Parquet's page
//! headers and footer), step by step as the parquet crate (version 59)
//! reads them, so that what would make the crate loop for nothing is
//! refused before it reads a byte (see [`super::page_header`] and
//! [`super::footer`]).
//!
//! The crate skips a value it does not know by its wire type, and skips a
//! boolean in a list, set or map as taking no bytes (the compact protocol
//! writes one each): a count of up to 2^31 booleans costs it 2^31 steps
//! for a few bytes of input. [`Walk::skip`] skips as the crate does, but
//! refuses such a list, so every step of a walk takes at least one byte.

/// The compact protocol's boolean type, in a list (1 or 2 on the wire).
pub(super) const THRIFT_BOOL: u8 = 1;

/// Skips nest at most this deep (the crate's own limit).
pub(super) const SKIP_DEPTH: u8 = 64;

/// A zigzag-encoded integer (0, -1, 1, -2, ... as 0, 1, 2, 3, ...), as the
/// crate decodes field ids and integers, before it cuts them to size.
fn zigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// A walk through Thrift compact bytes.
pub(super) struct Walk<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Walk<'a> {
    /// A walk from the first of `bytes`.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Walk { bytes, at: 0 }
    }

    /// Bytes walked so far.
    pub(super) fn at(&self) -> usize {
        self.at
    }

    /// Bytes not yet walked.
    pub(super) fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub(super) fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or("it runs past the end of the file")?;
        self.at += 1;
        Ok(b)
    }

    pub(super) fn skip_bytes(&mut self, n: u64) -> Result<(), String> {
        let left = self.left();
        match usize::try_from(n) {
            Ok(n) if n <= left => {
                self.at += n;
                Ok(())
            }
            _ => Err(format!(
                "it runs past the end of the file (a value of {n} bytes, {left} left)"
            )),
        }
    }

    /// An unsigned varint, as the crate reads it (bits past 64 wrap).
    pub(super) fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f).wrapping_shl(shift);
            if b & 0x80 == 0 {
                return Ok(value);
            }
            shift = shift.wrapping_add(7);
        }
    }

    /// An integer (i16, i32, i64 or an enum) as the crate reads one: a
    /// zigzag varint, before it is cut to size.
    pub(super) fn int(&mut self) -> Result<i64, String> {
        Ok(zigzag(self.varint()?))
    }

    /// A count of list or map items (at most `i32::MAX`).
    pub(super) fn count(&mut self) -> Result<u32, String> {
        let n = self.varint()?;
        i32::try_from(n)
            .map(|n| n as u32)
            .map_err(|_| format!("a count of {n} items"))
    }

    /// A list, set or map item type: 1 or 2 (boolean) as [`THRIFT_BOOL`].
    pub(super) fn item_type(t: u8) -> Result<u8, String> {
        match t {
            1 | 2 => Ok(THRIFT_BOOL),
            3..=13 => Ok(t),
            _ => Err(format!("an item of unknown type {t}")),
        }
    }

    /// The next field's wire type and id, `None` at the struct's end.
    pub(super) fn field(&mut self, last: i16) -> Result<Option<(u8, i16)>, String> {
        let b = self.byte()?;
        let (t, delta) = (b & 0x0f, b >> 4);
        if t == 0 {
            return Ok(None);
        }
        if t > 13 {
            return Err(format!("a field of unknown type {t}"));
        }
        let id = if delta != 0 {
            last.checked_add(i16::from(delta))
                .ok_or("a field id past 32,767")?
        } else {
            zigzag(self.varint()?) as i16
        };
        Ok(Some((t, id)))
    }

    /// Skips a value of wire type `t`, as the crate does.
    pub(super) fn skip(&mut self, t: u8, depth: u8) -> Result<(), String> {
        if depth == 0 {
            return Err(format!("values nested over {SKIP_DEPTH} deep"));
        }
        match t {
            1 | 2 => Ok(()),
            3 => self.byte().map(drop),
            4..=6 => self.varint().map(drop),
            7 => self.skip_bytes(8),
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let header = self.byte()?;
                if header == 0 {
                    return Ok(());
                }
                let item = Self::item_type(header & 0x0f)?;
                let n = match header >> 4 {
                    15 => self.count()?,
                    n => u32::from(n),
                };
                self.items(n, &[item], depth)
            }
            11 => {
                let n = self.count()?;
                if n == 0 {
                    return Ok(());
                }
                let kv = self.byte()?;
                let types = [Self::item_type(kv >> 4)?, Self::item_type(kv & 0x0f)?];
                self.items(n, &types, depth)
            }
            12 => {
                while let Some((t, _)) = self.field(0)? {
                    self.skip(t, depth - 1)?;
                }
                Ok(())
            }
            13 => self.skip_bytes(16),
            _ => Err(format!("a value of unknown type {t}")),
        }
    }

    /// Skips `n` items of a list (one type) or map (key and value types).
    pub(super) fn items(&mut self, n: u32, types: &[u8], depth: u8) -> Result<(), String> {
        if n > 0 && types.contains(&THRIFT_BOOL) {
            return Err(format!(
                "a field it does not know holds {n} booleans in a list, set or map, \
                 which parquet 59 would skip as taking no bytes"
            ));
        }
        for _ in 0..n {
            for &t in types {
                self.skip(t, depth - 1)?;
            }
        }
        Ok(())
    }
}
