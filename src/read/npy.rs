//! NumPy `.npy` arrays of puzzles: integer arrays of shape (N, 81) or
//! (N, 9, 9), 0 for blanks, as machine-learning datasets keep them. Only
//! the header is parsed here; the rows are read in place (a mapped file) or
//! as they stream in, a fixed number of bytes each.

use crate::puzzle::grid::{Grid, ParseError, CELLS};

/// The magic bytes every `.npy` file opens with.
pub const MAGIC: &[u8] = b"\x93NUMPY";

/// The element type of an array, from its `descr` (`<u1`, `|i1`, `<i8`,
/// `>u2`...): integers of 1, 2, 4 or 8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dtype {
    /// Bytes per element.
    pub size: usize,
    pub signed: bool,
    pub big_endian: bool,
}

impl Dtype {
    /// Bytes per puzzle row.
    pub fn row_bytes(self) -> usize {
        self.size * CELLS
    }

    /// Element `i` of `row`, as a signed value.
    fn value(self, row: &[u8], i: usize) -> i128 {
        let b = &row[i * self.size..(i + 1) * self.size];
        let mut bytes = [0u8; 16];
        if self.big_endian {
            bytes[16 - self.size..].copy_from_slice(b);
            bytes[..16 - self.size].fill(if self.signed && b[0] & 0x80 != 0 {
                0xFF
            } else {
                0
            });
            i128::from_be_bytes(bytes)
        } else {
            bytes[..self.size].copy_from_slice(b);
            let negative = self.signed && b[self.size - 1] & 0x80 != 0;
            bytes[self.size..].fill(if negative { 0xFF } else { 0 });
            i128::from_le_bytes(bytes)
        }
    }

    /// The grid a row holds, or which cell holds something other than 0-9.
    pub fn grid(self, row: &[u8]) -> Result<Grid, ParseError> {
        if row.len() < self.row_bytes() {
            return Err(ParseError::TruncatedRow {
                bytes: row.len(),
                need: self.row_bytes(),
            });
        }
        // Bytes (the common case): the row is the cells, checked in one
        // pass the compiler vectorises.
        if self.size == 1 {
            if let Some(grid) = row
                .first_chunk::<CELLS>()
                .and_then(|c| Grid::from_cells(*c))
            {
                return Ok(grid);
            }
        }
        let mut cells = [0u8; CELLS];
        for (i, cell) in cells.iter_mut().enumerate() {
            match self.value(row, i) {
                v @ 0..=9 => *cell = v as u8,
                v => {
                    return Err(ParseError::BadValue {
                        cell: i + 1,
                        value: v,
                    })
                }
            }
        }
        Ok(Grid::from_cells(cells).expect("values checked to be 0-9"))
    }
}

/// What an `.npy` header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub dtype: Dtype,
    /// Puzzles (the first dimension).
    pub rows: u64,
    /// Where the array's bytes start.
    pub data_offset: usize,
}

/// Why an `.npy` file cannot be read as puzzles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a puzzle array: {0}")]
pub struct NpyError(pub String);

fn bad(why: impl Into<String>) -> NpyError {
    NpyError(why.into())
}

/// Parses the header at the top of `data` (which must hold all of it).
pub fn parse_header(data: &[u8]) -> Result<Header, NpyError> {
    if !data.starts_with(MAGIC) || data.len() < 10 {
        return Err(bad("no .npy header"));
    }
    let (len, start) = match data[6] {
        1 => (u16::from_le_bytes([data[8], data[9]]) as usize, 10),
        2 | 3 if data.len() >= 12 => (
            u32::from_le_bytes([data[8], data[9], data[10], data[11]]) as usize,
            12,
        ),
        v => return Err(bad(format!("unknown .npy version {v}"))),
    };
    let text = data
        .get(start..start + len)
        .ok_or_else(|| bad("the header is cut short"))?;
    let text = String::from_utf8_lossy(text);
    let descr = dict_value(&text, "descr").ok_or_else(|| bad("the header has no descr"))?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let dtype = parse_descr(descr)?;
    match dict_value(&text, "fortran_order").map(str::trim) {
        Some("False") => {}
        Some(_) => {
            return Err(bad(
                "a Fortran-ordered array (save it with numpy.ascontiguousarray)",
            ))
        }
        None => return Err(bad("the header has no fortran_order")),
    }
    let shape = dict_value(&text, "shape").ok_or_else(|| bad("the header has no shape"))?;
    let dims: Vec<u64> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse().map_err(|_| bad(format!("shape {shape}"))))
        .collect::<Result<_, _>>()?;
    let rows = match dims.as_slice() {
        [n, 81] | [n, 9, 9] => *n,
        [81] | [9, 9] => 1,
        _ => return Err(bad(format!("shape {shape}: expected (N, 81) or (N, 9, 9)"))),
    };
    Ok(Header {
        dtype,
        rows,
        data_offset: start + len,
    })
}

/// The text of `key`'s value in the header's Python dict literal.
fn dict_value<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text
        .find(&format!("'{key}'"))
        .or_else(|| text.find(&format!("\"{key}\"")))?;
    let rest = &text[at + key.len() + 2..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(&rest[..end])
}

fn parse_descr(descr: &str) -> Result<Dtype, NpyError> {
    let (order, kind) = match descr.as_bytes() {
        [o @ (b'<' | b'>' | b'|' | b'='), rest @ ..] => (*o, rest),
        rest => (b'=', rest),
    };
    let signed = match kind.first() {
        Some(b'u') => false,
        Some(b'i') => true,
        _ => {
            return Err(bad(format!(
                "element type {descr}: puzzles are integers (u1, i1, u2, ... i8)"
            )))
        }
    };
    let size: usize = std::str::from_utf8(&kind[1..])
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s| matches!(s, 1 | 2 | 4 | 8))
        .ok_or_else(|| bad(format!("element type {descr}")))?;
    Ok(Dtype {
        size,
        signed,
        big_endian: order == b'>' || (order == b'=' && cfg!(target_endian = "big")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_become_grids_or_say_which_cell_is_wrong() {
        let d = Dtype {
            size: 2,
            signed: true,
            big_endian: false,
        };
        let mut row: Vec<u8> = (0..81u16).flat_map(|i| (i % 10).to_le_bytes()).collect();
        row[2 * 10..2 * 10 + 2].copy_from_slice(&0u16.to_le_bytes());
        assert!(d.grid(&row).is_ok());
        row[2 * 5..2 * 5 + 2].copy_from_slice(&(-1i16).to_le_bytes());
        assert_eq!(
            d.grid(&row),
            Err(ParseError::BadValue { cell: 6, value: -1 })
        );
        // The largest unsigned values are what they are, not -1.
        let u = Dtype {
            size: 8,
            signed: false,
            big_endian: false,
        };
        let mut row: Vec<u8> = (0..81u64).flat_map(|i| (i % 10).to_le_bytes()).collect();
        row[8 * 3..8 * 4].copy_from_slice(&u64::MAX.to_le_bytes());
        let e = u.grid(&row).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cell 4 holds 18446744073709551615 (0-9 expected)"
        );
        let u4 = Dtype { size: 4, ..u };
        let mut row: Vec<u8> = (0..81u32).flat_map(|i| (i % 10).to_le_bytes()).collect();
        row[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            u4.grid(&row).unwrap_err().to_string(),
            "cell 1 holds 4294967295 (0-9 expected)"
        );
        assert_eq!(
            d.grid(&row[..7]),
            Err(ParseError::TruncatedRow {
                bytes: 7,
                need: 162
            })
        );
    }
}
