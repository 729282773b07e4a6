//! Telling an input's form from its first bytes: line, grid, CSV (and
//! its layout: header, puzzle column), npy or pencilmarks.

use super::*;

/// Why the puzzles of an input cannot be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LayoutError(pub String);

/// Like [`detect`], and also finds the puzzle column of a CSV input with a
/// header: the column `column` names, else the first one called `puzzle`,
/// `quizzes`, `question`, `quiz` or `sudoku`, else the first column when
/// the first record opens with a puzzle (the puzzle-first layouts). A
/// header naming none of these, or a `--column` name the header lacks, is
/// an error that says which options to use. `--column N` on a file without
/// a header reads every line as a CSV record.
pub fn detect_layout(
    data: &[u8],
    forced: Option<InputFormat>,
    column: Option<&ColumnSpec>,
) -> Result<Detected, LayoutError> {
    if matches!(forced, Some(InputFormat::Npy(_))) || data.starts_with(npy::MAGIC) {
        return npy::parse_header(data)
            .map(npy_detected)
            .map_err(|e| LayoutError(e.to_string()));
    }
    let forced_csv = matches!(forced, Some(InputFormat::Csv(_)));
    let d = detect(data, forced.filter(|_| !forced_csv));
    let header = csv_header(data);
    let column = match (column, header) {
        (Some(ColumnSpec::Number(n)), _) => n - 1,
        (Some(ColumnSpec::Name(name)), Some(h)) => find_column(h, &[name.as_str()])
            .ok_or_else(|| {
                LayoutError(format!(
                    "no column named {name:?} in the header {:?}",
                    String::from_utf8_lossy(h)
                ))
            })?,
        (Some(ColumnSpec::Name(name)), None) => {
            return Err(LayoutError(format!(
                "--column {name} needs a header line naming the columns; use --column N for a file without one"
            )))
        }
        (None, Some(h)) if forced_csv || forced.is_none() => {
            match find_column(h, &PUZZLE_COLUMNS) {
                Some(k) => k,
                None if forced_csv => 0,
                // A header with other names over puzzle-first rows (as
                // before columns were read by name).
                None if first_opens_with_puzzle(&data[d.start..]) => 0,
                None => {
                    return Err(LayoutError(format!(
                        "cannot tell which column of {:?} holds the puzzles; name it with \
                         --column NAME or --column N (or --input line if each line opens \
                         with a puzzle)",
                        String::from_utf8_lossy(h)
                    )))
                }
            }
        }
        (None, None) if forced_csv => 0,
        // No header, and the first record does not open with a puzzle: a
        // headerless CSV (`id,puzzle,solution`) when one of its fields is
        // a puzzle of 81 cells, read from the first such field.
        (None, None) if forced.is_none() && d.format == InputFormat::Line => {
            match puzzle_field_of_first_record(&data[d.start..]) {
                Some(k) => k,
                None => return Ok(d),
            }
        }
        (None, _) => return Ok(d),
    };
    Ok(Detected {
        format: InputFormat::Csv(CsvLayout { column }),
        // After the header; without one, every line is a record.
        start: if header.is_some() {
            d.start
        } else {
            bom_len(data)
        },
        first_line: 1,
    })
}

/// The first record of `data`: its first line that is not blank or a
/// comment.
pub(crate) fn first_record(data: &[u8]) -> Option<&[u8]> {
    Lines { data, pos: 0 }
        .map(|(_, l)| l)
        .find(|l| !is_skipped(l))
}

/// True when the first record of `data` opens with a puzzle in its first
/// CSV field, or there is none.
pub(crate) fn first_opens_with_puzzle(data: &[u8]) -> bool {
    first_record(data)
        .is_none_or(|row| csv_field(row, 0).is_some_and(|f| Grid::parse_line(&f).is_ok()))
}

/// For a first record that does not open with a puzzle but has a CSV field
/// that is exactly an 81-cell puzzle, the index of the first such field.
pub(crate) fn puzzle_field_of_first_record(data: &[u8]) -> Option<usize> {
    if first_opens_with_puzzle(data) {
        return None;
    }
    let is_puzzle = |f: &[u8]| f.trim_ascii().len() == CELLS && Grid::parse_line(f).is_ok();
    csv_fields(first_record(data)?)
        .iter()
        .position(|f| is_puzzle(f))
}

/// An npy array's records: rows of its element type after its header,
/// numbered from 0.
pub(crate) fn npy_detected(h: npy::Header) -> Detected {
    Detected {
        format: InputFormat::Npy(h.dtype),
        start: h.data_offset,
        first_line: 0,
    }
}

/// True for a CSV header such as `quizzes,solutions` or `puzzle,solution`:
/// comma-separated names (letters, digits, `_`, `-`, spaces) starting with a
/// letter, or one of the usual single-column names.
pub fn is_csv_header(line: &[u8]) -> bool {
    let line = line.trim_ascii();
    // Names may be quoted (R and some exporters quote every field).
    let fields = csv_fields(line);
    let first_is_a_name = fields[0]
        .trim_ascii()
        .first()
        .is_some_and(u8::is_ascii_alphabetic);
    let names_only = fields.iter().all(|f| {
        f.iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' '))
    });
    if !first_is_a_name || !names_only {
        return false;
    }
    if fields.len() > 1 {
        return true;
    }
    let lower = fields[0].trim_ascii().to_ascii_lowercase();
    matches!(
        lower.as_slice(),
        b"puzzle" | b"puzzles" | b"quizzes" | b"quiz" | b"sudoku" | b"grid"
    )
}

/// What [`detect`] found at the top of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detected {
    pub format: InputFormat,
    /// Byte offset where records start (after a CSV header or count line).
    pub start: usize,
    /// Line number of the line at `start`.
    pub first_line: u64,
}

/// The UTF-8 byte-order mark some editors put at the top of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The length of a byte-order mark at the top of `data` (3 or 0).
pub fn bom_len(data: &[u8]) -> usize {
    if data.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// Decides the form of an input (grid form when, after an optional count or
/// title line, its first nine non-separator lines are grid rows) and skips a
/// byte-order mark, a CSV header or the contest form's leading count line.
/// `forced` overrides the detected form.
pub fn detect(data: &[u8], forced: Option<InputFormat>) -> Detected {
    if let Ok(h) = npy::parse_header(data) {
        return npy_detected(h);
    }
    let bom = bom_len(data);
    let d = detect_after_bom(&data[bom..], forced);
    Detected {
        start: d.start + bom,
        ..d
    }
}

pub(crate) fn detect_after_bom(data: &[u8], forced: Option<InputFormat>) -> Detected {
    let mut lines = Lines { data, pos: 0 };
    let mut number = 0u64;
    let (offset, line) = loop {
        match lines.next() {
            None => {
                return Detected {
                    format: forced.unwrap_or(InputFormat::Line),
                    start: 0,
                    first_line: 1,
                }
            }
            Some((offset, line)) => {
                number += 1;
                if !is_skipped(line) {
                    break (offset, line);
                }
            }
        }
    };
    let after_first = Detected {
        format: InputFormat::Line,
        start: lines.pos,
        first_line: number + 1,
    };
    let at_first = Detected {
        format: InputFormat::Line,
        start: offset,
        first_line: number,
    };
    let format = forced.unwrap_or_else(|| {
        if looks_like_grid(&data[offset..]) {
            InputFormat::Grid
        } else {
            InputFormat::Line
        }
    });
    match format {
        InputFormat::Line | InputFormat::Pencilmark if is_csv_header(line) => Detected {
            format,
            ..after_first
        },
        InputFormat::Grid if is_count_line(line) => Detected {
            format,
            ..after_first
        },
        _ => Detected { format, ..at_first },
    }
}

/// True when `data` opens with a grid-form puzzle: an optional count or
/// title line, then nine grid rows (separator lines between them allowed).
pub(crate) fn looks_like_grid(data: &[u8]) -> bool {
    let mut rows = 0;
    for (i, (_, line)) in (Lines { data, pos: 0 })
        .filter(|(_, l)| !is_skipped(l))
        .enumerate()
    {
        if i == 0 && (is_count_line(line) || is_title(line)) {
            continue;
        }
        if is_separator_line(line) {
            continue;
        }
        if !is_grid_row(line) {
            return false;
        }
        rows += 1;
        if rows == 9 {
            return true;
        }
    }
    false
}
