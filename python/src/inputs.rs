//! What the calls accept as puzzles or answers: lists of strings, numpy
//! arrays of text, bytes or digits, and Arrow string buffers, held
//! without a copy where they can be.

use batchdoku::puzzle::grid::{Grid, ParseError, CELLS};
use batchdoku::read::npy::Dtype;
use batchdoku::Puzzle;
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString, PyTuple};

/// One element of a list of puzzles: a `str` (UTF-8), or `bytes`.
pub(crate) enum Text {
    Str(PyBackedStr),
    Bytes(PyBackedBytes),
}

impl Text {
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Text::Str(s) => s.as_bytes(),
            Text::Bytes(b) => b,
        }
    }
}

/// The elements of a list of puzzles (or answers: `what` names them in
/// errors): `str`, `bytes` (or `bytearray`) or `None` (a null). A `str`
/// UTF-8 cannot hold (a lone surrogate, as `'\ud800'` or a name decoded
/// with `surrogateescape`) is kept as the bytes its `surrogatepass`
/// encoding gives, which are not UTF-8 either: that record is malformed
/// (or its answer wrong) in its row, like any bad bytes, and the call goes
/// on.
pub(crate) fn texts(list: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Option<Text>>> {
    let list = list
        .cast::<PyList>()
        .map_err(|_| PyTypeError::new_err("internal: a texts spec holds a list"))?;
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        if item.is_none() {
            out.push(None);
        } else if let Ok(s) = item.cast::<PyString>() {
            out.push(Some(match PyBackedStr::try_from(s.clone()) {
                Ok(s) => Text::Str(s),
                Err(_) => Text::Bytes(
                    s.call_method1("encode", ("utf-8", "surrogatepass"))?
                        .extract()?,
                ),
            }));
        } else if let Ok(b) = item.extract::<PyBackedBytes>() {
            out.push(Some(Text::Bytes(b)));
        } else {
            return Err(PyTypeError::new_err(format!(
                "{what}[{i}]: str or bytes (None for a missing one) was expected, not {}",
                item.get_type()
                    .name()
                    .map_or_else(|_| "another type".into(), |n| n.to_string())
            )));
        }
    }
    Ok(out)
}

/// Puzzles in one of the forms the Python package passes, each record read
/// by the CLI's rules.
pub(crate) enum Puzzles<'a> {
    /// Rows of 81 integers of `dtype`, 0 for blanks (native byte order).
    Ints { data: &'a [u8], dtype: Dtype },
    /// Texts (`None`: a null), each read as a line.
    Texts(Vec<Option<&'a [u8]>>),
    /// Arrow-style strings: `offsets[i]..offsets[i + 1]` of `data`.
    Offsets {
        offsets: &'a [i64],
        data: &'a [u8],
        valid: Option<&'a [bool]>,
    },
    /// Fixed-width byte strings, NUL-padded (numpy `S`).
    Fixed { data: &'a [u8], width: usize },
}

impl Puzzles<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Puzzles::Ints { data, dtype } => data.len() / dtype.row_bytes(),
            Puzzles::Texts(t) => t.len(),
            Puzzles::Offsets { offsets, .. } => offsets.len().saturating_sub(1),
            Puzzles::Fixed { data, width } => data.len() / width.max(&1),
        }
    }

    /// Record `i`'s puzzle, or why it is not one: integer rows as npy rows
    /// are read, texts as lines (81 cells, or 729 pencilmark characters).
    pub(crate) fn puzzle(&self, i: usize) -> Result<Puzzle, ParseError> {
        match self {
            Puzzles::Ints { data, dtype } => {
                let n = dtype.row_bytes();
                dtype.grid(&data[i * n..(i + 1) * n]).map(Puzzle::from)
            }
            _ => match self.text(i) {
                Some(text) => Puzzle::parse_line(&text),
                None => Err(ParseError::Null),
            },
        }
    }

    /// Record `i`'s givens, or why it has none (pencilmarks included): for
    /// answers and canonical forms.
    pub(crate) fn grid(&self, i: usize) -> Result<Grid, ParseError> {
        self.puzzle(i).and_then(|p| p.givens())
    }

    /// Record `i`'s text, for reading an answer (`None`: a null).
    pub(crate) fn text(&self, i: usize) -> Option<std::borrow::Cow<'_, [u8]>> {
        use std::borrow::Cow;
        match self {
            Puzzles::Ints { .. } => self
                .puzzle(i)
                .ok()
                .map(|p| Cow::Owned(p.to_line().into_bytes())),
            Puzzles::Texts(t) => t[i].map(Cow::Borrowed),
            Puzzles::Offsets {
                offsets,
                data,
                valid,
            } => {
                if valid.is_some_and(|v| !v[i]) {
                    return None;
                }
                data.get(offsets[i] as usize..offsets[i + 1] as usize)
                    .map(Cow::Borrowed)
            }
            Puzzles::Fixed { data, width } => {
                let row = &data[i * width..(i + 1) * width];
                let end = row.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                Some(Cow::Borrowed(&row[..end]))
            }
        }
    }
}

/// What a spec tuple holds while a call runs: the borrows `Puzzles` reads.
pub(crate) enum Held<'py> {
    Ints(PyReadonlyArray2<'py, u8>, Dtype),
    Texts(Vec<Option<Text>>),
    Offsets(
        PyReadonlyArray1<'py, i64>,
        PyReadonlyArray1<'py, u8>,
        Option<PyReadonlyArray1<'py, bool>>,
    ),
    Fixed(PyReadonlyArray2<'py, u8>),
}

/// Reads a spec made by the Python package: `("ints", array, size,
/// signed)` (a C-contiguous uint8 view of (N, 81) integers of `size`
/// bytes), `("texts", list)`, `("offsets", offsets, data, valid)` or
/// `("fixed", array)` (an (N, width) uint8 view of byte strings); `what`
/// names the records in errors (puzzles, answers).
pub(crate) fn hold<'py>(spec: &Bound<'py, PyAny>, what: &str) -> PyResult<Held<'py>> {
    let spec = spec
        .cast::<PyTuple>()
        .map_err(|_| PyTypeError::new_err("internal: a puzzle spec is a tuple"))?;
    let kind: String = spec.get_item(0)?.extract()?;
    let c_contiguous = |a: &PyReadonlyArray2<'py, u8>| -> PyResult<()> {
        if a.is_c_contiguous() {
            Ok(())
        } else {
            Err(PyValueError::new_err(
                "internal: the array must be C-contiguous",
            ))
        }
    };
    Ok(match kind.as_str() {
        "ints" => {
            let a: PyReadonlyArray2<'py, u8> = spec.get_item(1)?.extract()?;
            c_contiguous(&a)?;
            let size: usize = spec.get_item(2)?.extract()?;
            let signed: bool = spec.get_item(3)?.extract()?;
            if ![1, 2, 4, 8].contains(&size) || a.shape()[1] != CELLS * size {
                return Err(PyValueError::new_err("internal: bad integer spec"));
            }
            Held::Ints(
                a,
                Dtype {
                    size,
                    signed,
                    big_endian: cfg!(target_endian = "big"),
                },
            )
        }
        "texts" => Held::Texts(texts(&spec.get_item(1)?, what)?),
        "offsets" => {
            let valid = spec.get_item(3)?;
            Held::Offsets(
                spec.get_item(1)?.extract()?,
                spec.get_item(2)?.extract()?,
                if valid.is_none() {
                    None
                } else {
                    Some(valid.extract()?)
                },
            )
        }
        "fixed" => {
            let a: PyReadonlyArray2<'py, u8> = spec.get_item(1)?.extract()?;
            c_contiguous(&a)?;
            Held::Fixed(a)
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "internal: unknown spec {other:?}"
            )))
        }
    })
}

impl<'py> Held<'py> {
    pub(crate) fn puzzles(&self) -> PyResult<Puzzles<'_>> {
        Ok(match self {
            Held::Ints(a, dtype) => Puzzles::Ints {
                data: a.as_slice()?,
                dtype: *dtype,
            },
            Held::Texts(t) => {
                Puzzles::Texts(t.iter().map(|t| t.as_ref().map(Text::bytes)).collect())
            }
            Held::Offsets(o, d, v) => {
                let offsets = o.as_slice()?;
                let data = d.as_slice()?;
                let valid = match v {
                    Some(v) => Some(v.as_slice()?),
                    None => None,
                };
                let n = offsets.len().saturating_sub(1);
                let sorted = offsets.windows(2).all(|w| 0 <= w[0] && w[0] <= w[1]);
                if !sorted
                    || offsets.last().is_some_and(|&e| e as usize > data.len())
                    || valid.is_some_and(|v| v.len() != n)
                {
                    return Err(PyValueError::new_err(
                        "internal: inconsistent string buffers",
                    ));
                }
                Puzzles::Offsets {
                    offsets,
                    data,
                    valid,
                }
            }
            Held::Fixed(a) => Puzzles::Fixed {
                data: a.as_slice()?,
                width: a.shape()[1],
            },
        })
    }
}
