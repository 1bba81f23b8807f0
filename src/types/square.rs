//! Squares of the board (FIDE 2.1, 2.4): a1 = 0 … h8 = 63, file-major within a rank.

use std::fmt;

/// A knight's eight steps as (file, rank) offsets (FIDE 3.6).
pub const KNIGHT_STEPS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// A king's eight steps as (file, rank) offsets, anticlockwise from east (FIDE 3.8.1).
pub const KING_STEPS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// The eight line directions as (file, rank) offsets, the four orthogonal ones first (FIDE 3.2–3.4).
pub const LINE_DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// One of the 64 squares, `a1 = 0`, `b1 = 1`, … `h8 = 63` (little-endian rank-file mapping).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// Number of squares.
    pub const NUM: usize = 64;

    /// The square with this index.
    ///
    /// # Panics
    /// When `index >= 64`.
    #[track_caller]
    pub const fn new(index: u8) -> Square {
        assert!(index < 64, "square index out of range");
        Square(index)
    }

    /// The square with this index, or `None` when `index >= 64`.
    pub const fn try_new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square on `file` (0 = a) and `rank` (0 = 1st), or `None` when either is off the board.
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 8 && rank >= 0 && rank < 8 {
            Some(Square((rank * 8 + file) as u8))
        } else {
            None
        }
    }

    /// Index 0..64.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Index as `u8`.
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// File 0..8 (0 = a).
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8 (0 = 1st rank).
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// Mirror vertically (a1 ↔ a8).
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Iterator over all 64 squares, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0u8..64).map(Square)
    }

    /// Parse algebraic coordinates such as `e4`.
    pub fn parse(text: &str) -> Option<Square> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        if file < 8 && rank < 8 {
            Some(Square(rank * 8 + file))
        } else {
            None
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file()) as char,
            (b'1' + self.rank()) as char
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::parse("e4").unwrap().index(), 28);
        assert_eq!(Square::parse("i1"), None);
        assert_eq!(Square::parse("a9"), None);
        assert_eq!(Square::parse("a"), None);
    }
}
