//! The abstract state of the proof-kernel search, its target and its moves (see [`super`]).

use crate::position::Setup;
use crate::retro::proofs::shade;
use crate::types::{Color, Role, Square};
use std::fmt;

/// The pawns of one file in order from White's side (rank 1) to Black's: `len` pawns, bit i of `black` set
/// when the i-th is Black's.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub(super) struct Column {
    pub(super) len: u8,
    pub(super) black: u32,
}

impl Column {
    pub(super) fn get(self, i: u8) -> Color {
        if self.black >> i & 1 != 0 {
            Color::Black
        } else {
            Color::White
        }
    }

    pub(super) fn count(self, c: Color) -> u8 {
        let b = self.black.count_ones() as u8;
        match c {
            Color::Black => b,
            Color::White => self.len - b,
        }
    }

    pub(super) fn remove(self, i: u8) -> Column {
        let low = self.black & ((1 << i) - 1);
        let high = (self.black >> (i + 1)) << i;
        Column {
            len: self.len - 1,
            black: low | high,
        }
    }

    pub(super) fn insert(self, i: u8, c: Color) -> Column {
        let low = self.black & ((1 << i) - 1);
        let high = (self.black >> i) << (i + 1);
        let bit = u32::from(c == Color::Black) << i;
        Column {
            len: self.len + 1,
            black: low | high | bit,
        }
    }

    pub(super) fn set(self, i: u8, c: Color) -> Column {
        let cleared = self.black & !(1 << i);
        Column {
            len: self.len,
            black: cleared | u32::from(c == Color::Black) << i,
        }
    }

    /// The index of the pawn at `c`'s promotion end (the top for White, the bottom for Black), when it is
    /// `c`'s.
    pub(super) fn far_end(self, c: Color) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let i = match c {
            Color::White => self.len - 1,
            Color::Black => 0,
        };
        (self.get(i) == c).then_some(i)
    }

    /// How `self` becomes `target` by promotions of its foremost pawns: (Black pawns promoted from the bottom,
    /// White pawns promoted from the top), or `None`.
    pub(super) fn reduces_to(self, target: Column) -> Option<(u8, u8)> {
        if self.len < target.len {
            return None;
        }
        let extra = self.len - target.len;
        (0..=extra).find_map(|b| {
            let w = extra - b;
            let bottom_black = (0..b).all(|i| self.get(i) == Color::Black);
            let top_white = (self.len - w..self.len).all(|i| self.get(i) == Color::White);
            let middle = (self.black >> b) & ((1u32 << target.len) - 1) == target.black;
            (bottom_black && top_white && middle).then_some((b, w))
        })
    }

    pub(super) fn describe(self) -> String {
        if self.len == 0 {
            return "none".to_string();
        }
        (0..self.len)
            .map(|i| match self.get(i) {
                Color::White => "W",
                Color::Black => "B",
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A state of the search (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct State {
    pub(super) cols: [Column; 8],
    /// Pieces of each side (not pawns, not the king), promoted ones included.
    pub(super) pieces: [u8; 2],
    /// Promotions of each side so far, on dark (0) and light (1) squares.
    pub(super) promos: [[u8; 2]; 2],
}

impl State {
    pub(super) fn start() -> State {
        State {
            cols: [Column { len: 2, black: 2 }; 8],
            pieces: [7, 7],
            promos: [[0; 2]; 2],
        }
    }

    pub(super) fn pawns(&self, c: Color) -> u8 {
        self.cols.iter().map(|col| col.count(c)).sum()
    }

    pub(super) fn units(&self, c: Color) -> u8 {
        self.pawns(c) + self.pieces[c.index()]
    }
}

/// The square colour of `c`'s promotion square on file `f` (0 dark, 1 light).
pub(super) fn promotion_shade(c: Color, f: u8) -> usize {
    shade(Square::new((!c).back_rank() * 8 + f))
}

/// Promotions a side needs at least: in all, and bishops on dark and on light squares.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Excess {
    pub(super) total: u8,
    pub(super) bishops: [u8; 2],
    /// The pieces beyond the initial set, in words.
    pub(super) words: [u8; 4],
}

/// The target of the search.
#[derive(Clone, Debug)]
pub(super) struct Goal {
    pub(super) cols: [Column; 8],
    pub(super) units: [u8; 2],
    pub(super) pieces: [u8; 2],
    pub(super) excess: [Excess; 2],
    /// Files where the target has a pawn of White on its second rank (bit f of `frozen[0]`), of Black on its
    /// seventh (`frozen[1]`): that pawn never moved, so it never captured nor was captured, and it stays at its
    /// end of the file (nothing below a pawn on the second rank, nothing above one on the seventh; FIDE 3.7).
    pub(super) frozen: [u8; 2],
}

impl Goal {
    pub(super) fn of(setup: &Setup) -> Goal {
        let mut cols = [Column::default(); 8];
        let mut frozen = [0u8; 2];
        let mut counts = [[0u8; 6]; 2]; // knights, dark bishops, light bishops, rooks, queens, pawns
        for rank in 0..8u8 {
            for f in 0..8u8 {
                let Some(p) = setup.piece_at(Square::new(rank * 8 + f)) else {
                    continue;
                };
                let k = match p.role {
                    Role::King => continue,
                    Role::Pawn => {
                        if rank == 1 && p.color == Color::White {
                            frozen[0] |= 1 << f;
                        }
                        if rank == 6 && p.color == Color::Black {
                            frozen[1] |= 1 << f;
                        }
                        let col = cols[f as usize];
                        cols[f as usize] = col.insert(col.len, p.color);
                        5
                    }
                    Role::Knight => 0,
                    Role::Bishop => 1 + shade(Square::new(rank * 8 + f)),
                    Role::Rook => 3,
                    Role::Queen => 4,
                };
                counts[p.color.index()][k] += 1;
            }
        }
        let side = |n: &[u8; 6]| {
            let q = n[4].saturating_sub(1);
            let r = n[3].saturating_sub(2);
            let k = n[0].saturating_sub(2);
            let b = [n[1].saturating_sub(1), n[2].saturating_sub(1)];
            Excess {
                total: q + r + k + b[0] + b[1],
                bishops: b,
                words: [q, r, k, b[0] + b[1]],
            }
        };
        let pieces = counts.map(|n| n[..5].iter().sum::<u8>());
        Goal {
            cols,
            units: [0, 1].map(|i| pieces[i] + counts[i][5]),
            pieces,
            excess: [side(&counts[0]), side(&counts[1])],
            frozen,
        }
    }

    /// Whether the pawn at place `i` of file `f` in a state whose file has `len` pawns is a frozen one.
    pub(super) fn fixed(&self, f: u8, i: u8, len: u8) -> bool {
        (self.frozen[0] >> f & 1 != 0 && i == 0) || (self.frozen[1] >> f & 1 != 0 && i + 1 == len)
    }

    /// The places a pawn may join file `f` of `len` pawns: not below a frozen White pawn, not above a frozen
    /// Black one.
    pub(super) fn joins(&self, f: u8, len: u8) -> std::ops::RangeInclusive<u8> {
        let lo = self.frozen[0] >> f & 1;
        let hi = len - (self.frozen[1] >> f & 1);
        lo..=hi
    }

    pub(super) fn pawns(&self, c: Color) -> u8 {
        self.cols.iter().map(|col| col.count(c)).sum()
    }
}

/// One capture of a kernel (see [`super`]); files 0-7 (a-h), places in a file's order from White's side (0 the
/// nearest to White's first rank).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KernelMove {
    /// A pawn takes a pawn and takes its place.
    PawnTakesPawn {
        /// The side of the capturing pawn.
        by: Color,
        /// Its file.
        from: u8,
        /// Its place there.
        at: u8,
        /// The file of the pawn taken.
        to: u8,
        /// The place of the pawn taken (the capturing pawn's afterwards).
        to_at: u8,
    },
    /// A pawn takes a piece.
    PawnTakesPiece {
        /// The side of the capturing pawn.
        by: Color,
        /// Its file.
        from: u8,
        /// Its place there.
        at: u8,
        /// The file of the piece taken.
        to: u8,
        /// The pawn's place in that file afterwards, or `None` when it promotes there.
        to_at: Option<u8>,
        /// `Some(h)`: the piece taken is one promoted without capture on file h.
        promoted_on: Option<u8>,
    },
    /// A piece takes a pawn.
    PieceTakesPawn {
        /// The side of the capturing piece.
        by: Color,
        /// The file of the pawn taken.
        file: u8,
        /// Its place there.
        at: u8,
    },
    /// A piece takes a piece.
    PieceTakesPiece {
        /// The side of the capturing piece.
        by: Color,
        /// `Some(h)`: the piece taken is one promoted without capture on file h.
        promoted_on: Option<u8>,
    },
}

pub(super) fn file_char(f: u8) -> char {
    (b'a' + f) as char
}

impl fmt::Display for KernelMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: Color| if c == Color::White { 'w' } else { 'b' };
        let victim = |p: Option<u8>| {
            p.map_or("piece".to_string(), |h| {
                format!("{}-promoted", file_char(h))
            })
        };
        match *self {
            KernelMove::PawnTakesPawn {
                by,
                from,
                at,
                to,
                to_at,
            } => write!(
                f,
                "{}P{}{at}xP{}{to_at}",
                side(by),
                file_char(from),
                file_char(to)
            ),
            KernelMove::PawnTakesPiece {
                by,
                from,
                at,
                to,
                to_at,
                promoted_on,
            } => {
                let land = to_at.map_or("=".to_string(), |i| i.to_string());
                write!(
                    f,
                    "{}P{}{at}x{}{}{land}",
                    side(by),
                    file_char(from),
                    victim(promoted_on),
                    file_char(to)
                )
            }
            KernelMove::PieceTakesPawn { by, file, at } => {
                write!(f, "{}xP{}{at}", side(by), file_char(file))
            }
            KernelMove::PieceTakesPiece { by, promoted_on } => {
                write!(f, "{}x{}", side(by), victim(promoted_on))
            }
        }
    }
}
