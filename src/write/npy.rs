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
