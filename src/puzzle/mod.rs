//! A puzzle as a record holds it: givens (81 cells), or pencilmarks (the
//! 729-character form of [`Candidates`]), told apart by length; and the
//! [`Status`] a record ends with, which every output form writes.

pub mod grid;
pub mod pencil;

use crate::puzzle::grid::{Conflict, Grid, ParseError, CELLS};
use crate::puzzle::pencil::{cell_text, Candidates, PENCIL_NEAR};

/// A puzzle read from a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Puzzle {
    /// Givens: each cell a digit or blank.
    Givens(Grid),
    /// Pencilmarks: each cell's candidates (boxed: records of givens, the
    /// common case, stay small).
    Marks(Box<Candidates>),
}

impl Puzzle {
    /// Parses a line in either form: 81 cells (see [`Grid::parse_line`]), or
    /// pencilmarks when the text before the first separator is nearer 729
    /// characters than 81 (see [`Candidates::parse_line`]).
    #[inline]
    pub fn parse_line(line: &[u8]) -> Result<Puzzle, ParseError> {
        match Grid::parse_line(line) {
            Ok(grid) => Ok(Puzzle::Givens(grid)),
            // Nearer 729 characters than 81: a pencilmark line with a typo or a
            // cell missing is explained as one, an 81-cell line with extra
            // cells as that.
            Err(_) if cell_text(line).1 >= PENCIL_NEAR => Puzzle::parse_marks(line),
            Err(e) => Err(e),
        }
    }

    /// Parses a line as pencilmarks whatever its length (`--input
    /// pencilmark`).
    pub fn parse_marks(line: &[u8]) -> Result<Puzzle, ParseError> {
        Candidates::parse_line(line).map(|c| Puzzle::Marks(Box::new(c)))
    }

    /// The givens, or for pencilmarks the error of a command that reads
    /// only 81-cell puzzles (`canon`, `dedup`, answers).
    pub fn givens(&self) -> Result<Grid, ParseError> {
        match self {
            Puzzle::Givens(g) => Ok(*g),
            Puzzle::Marks(_) => Err(ParseError::PencilmarksNotRead),
        }
    }

    /// Each cell's candidates (for givens: their pencilmarks).
    pub fn candidates(&self) -> Candidates {
        match self {
            Puzzle::Givens(g) => Candidates::from_grid(g),
            Puzzle::Marks(c) => **c,
        }
    }

    /// The rule the puzzle breaks, if any: two givens of one unit with the
    /// same digit, or two cells of one unit pinned to the same digit.
    pub fn validate(&self) -> Result<(), Conflict> {
        match self {
            Puzzle::Givens(g) => g.validate(),
            Puzzle::Marks(c) => c.validate(),
        }
    }

    /// Whether `solution` keeps to the puzzle: it holds every given, or
    /// every cell's digit is one of its candidates.
    pub fn allows(&self, solution: &Grid) -> bool {
        match self {
            Puzzle::Givens(g) => solution.keeps_givens_of(g),
            Puzzle::Marks(c) => c.allows(solution),
        }
    }

    /// True when `answer` is a valid complete grid the puzzle allows.
    pub fn solved_by(&self, answer: &Grid) -> bool {
        answer.is_valid_solution() && self.allows(answer)
    }

    /// Appends the puzzle's line form: 81 cells with `.` for blanks, or the
    /// 729 characters of its pencilmarks.
    pub fn write_text(&self, out: &mut Vec<u8>) {
        match self {
            Puzzle::Givens(g) => {
                let mut line = [0u8; CELLS];
                g.write_line(&mut line);
                out.extend_from_slice(&line);
            }
            Puzzle::Marks(c) => out.extend_from_slice(c.to_line().as_bytes()),
        }
    }
}

impl Puzzle {
    /// The line form as a string (see [`Puzzle::write_text`]).
    pub fn to_line(&self) -> String {
        let mut text = Vec::new();
        self.write_text(&mut text);
        String::from_utf8(text).expect("digits and dots")
    }
}

impl std::fmt::Display for Puzzle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_line())
    }
}

impl From<Grid> for Puzzle {
    fn from(grid: Grid) -> Puzzle {
        Puzzle::Givens(grid)
    }
}

/// What became of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// At least one solution found with limit 1.
    Solved,
    /// Exactly one solution (limit 2 or more).
    Unique,
    /// Two or more solutions (limit 2 or more).
    Multiple,
    /// A well-formed, rule-abiding puzzle with no solution.
    Unsolvable,
    /// Givens repeat a digit in a unit.
    Invalid,
    /// The record is not a puzzle.
    Malformed,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Solved,
        Status::Unique,
        Status::Multiple,
        Status::Unsolvable,
        Status::Invalid,
        Status::Malformed,
    ];

    /// The word written in outputs and statistics.
    pub fn word(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unique => "unique",
            Status::Multiple => "multiple",
            Status::Unsolvable => "unsolvable",
            Status::Invalid => "invalid",
            Status::Malformed => "malformed",
        }
    }

    /// The status's index in [`Status::ALL`]: how npy and Parquet chunk
    /// output and the Python package carry it.
    pub fn code(self) -> u8 {
        let index = Status::ALL.iter().position(|&s| s == self);
        index.expect("every status is in ALL") as u8
    }

    /// The status a code (see [`Status::code`]) stands for.
    pub fn from_code(code: u8) -> Option<Status> {
        Status::ALL.get(usize::from(code)).copied()
    }

    /// The status a word names.
    pub fn from_word(word: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.word() == word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

    #[test]
    fn the_form_is_told_by_length() {
        let g = Grid::parse_line(P.as_bytes()).unwrap();
        assert_eq!(Puzzle::parse_line(P.as_bytes()), Ok(Puzzle::Givens(g)));
        let marks = Candidates::from_grid(&g).to_line();
        let parsed = Puzzle::parse_line(format!("{marks},extra").as_bytes()).unwrap();
        assert_eq!(parsed.candidates(), Candidates::from_grid(&g));
        assert_eq!(parsed.givens(), Err(ParseError::PencilmarksNotRead));
        // Short of 729 but nearer it than 81: explained as pencilmarks.
        assert_eq!(
            Puzzle::parse_line(&marks.as_bytes()[..700]),
            Err(ParseError::PencilLength { chars: 700 })
        );
        // An 81-cell line with a few cells too many stays one.
        assert_eq!(
            Puzzle::parse_line(format!("{P}123").as_bytes()),
            Err(ParseError::TooLong { column: 82 })
        );
        // Forced, even a short line is read as pencilmarks.
        assert_eq!(
            Puzzle::parse_marks(P.as_bytes()),
            Err(ParseError::PencilLength { chars: 81 })
        );
    }

    #[test]
    fn allows_and_writes_both_forms() {
        let g = Grid::parse_line(P.as_bytes()).unwrap();
        let solution = Grid::parse_line(
            b"534678912672195348198342567859761423426853791713924856961537284287419635345286179",
        )
        .unwrap();
        for p in [
            Puzzle::Givens(g),
            Puzzle::Marks(Box::new(Candidates::from_grid(&g))),
        ] {
            assert!(p.allows(&solution));
            assert!(p.validate().is_ok());
            let mut other = solution;
            let (a, b) = (other.get(0, 0), other.get(0, 1));
            other.set(0, 0, b);
            other.set(0, 1, a);
            assert!(!p.allows(&other));
            let mut text = Vec::new();
            p.write_text(&mut text);
            assert_eq!(Puzzle::parse_line(&text), Ok(p));
        }
    }
}
