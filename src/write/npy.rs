//! npy outputs: the header of an (N, 81) uint8 array, written first with
//! a placeholder count and rewritten with the final one.

use crate::read::npy::MAGIC;

/// An `.npy` header (version 1.0) for an array of element type `descr`
/// (`|u1`, `<i8`...) and `shape` (Python tuple text, `(3, 81)`), padded
/// as NumPy pads it so the data starts on a 64-byte boundary.
pub fn header(descr: &str, shape: &str) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(MAGIC.len() + 4 + dict.len() + 1).is_multiple_of(64) {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// The header of an output array: (rows, 81) uint8. Always
/// [`OUTPUT_HEADER`] bytes long (the dict stays under 118 bytes for any
/// `u64`), so it can be written first and rewritten with the final count
/// once the rows are all written.
pub fn output_header(rows: u64) -> Vec<u8> {
    let h = header("|u1", &format!("({rows}, 81)"));
    debug_assert_eq!(h.len(), OUTPUT_HEADER);
    h
}

/// The length of [`output_header`]'s headers.
pub const OUTPUT_HEADER: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::npy::{parse_header, Dtype};

    #[test]
    fn headers_of_every_integer_type_and_both_shapes() {
        for (descr, size, signed, big) in [
            ("|u1", 1, false, false),
            ("<i2", 2, true, false),
            (">u4", 4, false, true),
            ("<i8", 8, true, false),
        ] {
            for shape in ["(3, 81)", "(3, 9, 9)"] {
                let h = parse_header(&header(descr, shape)).unwrap();
                assert_eq!(h.rows, 3);
                assert_eq!(h.data_offset % 64, 0);
                assert_eq!(
                    h.dtype,
                    Dtype {
                        size,
                        signed,
                        big_endian: big
                    }
                );
            }
        }
        assert!(parse_header(&header("<f4", "(3, 81)")).is_err());
        assert!(parse_header(&header("|u1", "(3, 80)")).is_err());
        assert!(parse_header(b"\x93NUMPY\x01\x00\xff\x00{").is_err());
    }

    #[test]
    fn output_headers_keep_their_length_and_parse() {
        for rows in [0, 7, u64::MAX] {
            let h = output_header(rows);
            assert_eq!(h.len(), OUTPUT_HEADER);
            let parsed = parse_header(&h).unwrap();
            assert_eq!((parsed.rows, parsed.data_offset), (rows, OUTPUT_HEADER));
        }
    }
}
