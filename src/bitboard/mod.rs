//! The bitboard core: one bitboard vocabulary for the whole crate, below the fast CPU backend (`crate::fast`),
//! the analysis (`crate::analyze::dead`), the proof-game search (`crate::proofgame`), the GPU planner and the
//! deep runs, none of which reaches into a backend's internals for it.
//!
//! Independent of the reference generator on purpose: it shares only [`crate::types`] and
//! [`crate::position::Setup`] with it, so a bug cannot hide in shared code.
//!
//! Modules:
//! - [`Bitboard`] (this file): a set of squares, a `u64` newtype with set operations and an iterator of
//!   [`Square`]s, and the typed face of [`board::Board`] ([`Board::pieces`], [`Board::occupied`],
//!   [`Board::king`], [`Board::piece_at`], [`Board::turn`]) in the vocabulary types [`Color`], [`Role`],
//!   [`Square`];
//! - `attacks`: leaper tables, `between`/`line`, slider attacks by magic bitboards and by PEXT (`const` built);
//! - `magics`: the magic multipliers;
//! - `zobrist`: the keys (from a seed: `--zobrist-seed`); `board`: `Board` and copy-make with incremental keys;
//! - `movegen`: legal generation (FIDE 3.1–3.9) from check and pin masks into a counting sink or a move consumer;
//! - `memory`: huge-page advice for large fresh tables (Linux);
//! - `frontier`: the one frontier expansion with multiplicities (transpositions merged, memory bounded), used
//!   by the backend's parallel split, the deep runs' split frontier and the GPU host levels.
//!
//! The hot loops (the backend's walks, the movegen) work on the raw `u64` fields of `Board` for speed; code
//! above them reads positions through the typed face.

pub mod attacks;
pub mod board;
pub mod frontier;
mod magics;
pub(crate) mod memory;
pub mod movegen;
pub mod zobrist;

use crate::types::{Color, Move, Piece, Role, Square};
use board::Board;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of squares: bit `i` is [`Square::new(i)`](Square::new) (a1 = 0, h8 = 63).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No square.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// Every square.
    pub const ALL: Bitboard = Bitboard(!0);
    /// The dark squares (a1 is dark).
    pub const DARK: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);
    /// The light squares.
    pub const LIGHT: Bitboard = Bitboard(!0xAA55_AA55_AA55_AA55);

    /// The set of one square.
    #[inline]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// The squares of a file (0 = a).
    #[inline]
    pub const fn file(file: u8) -> Bitboard {
        Bitboard(0x0101_0101_0101_0101 << (file & 7))
    }

    /// The squares of a rank (0 = the first).
    #[inline]
    pub const fn rank(rank: u8) -> Bitboard {
        Bitboard(0xFF << (8 * (rank & 7)))
    }

    /// Whether no square is in the set.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 != 0
    }

    /// How many squares the set has.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square of the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::new(self.0.trailing_zeros() as u8))
        }
    }

    /// The set with `sq` added.
    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set without `sq`.
    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// The squares of the set, lowest first.
    #[inline]
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }

    /// Whether the set has at least two squares.
    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// The only square of the set, when it has exactly one.
    #[inline]
    pub const fn single(self) -> Option<Square> {
        if self.0 != 0 && !self.more_than_one() {
            self.first()
        } else {
            None
        }
    }

    /// Whether the two sets share a square.
    #[inline]
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The set moved one rank toward `color`'s last rank (squares leaving the board dropped): the squares in
    /// front of `color`'s pawns.
    #[inline]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => Bitboard(self.0 << 8),
            Color::Black => Bitboard(self.0 >> 8),
        }
    }

    /// The squares pawns of `color` on this set attack (FIDE 3.7.3), by two shifts: the union of
    /// [`pawn_attacks`] over the set.
    #[inline]
    pub const fn pawn_attacks(self, color: Color) -> Bitboard {
        const NOT_A: u64 = !0x0101_0101_0101_0101;
        const NOT_H: u64 = !0x8080_8080_8080_8080;
        let (west, east) = (self.0 & NOT_A, self.0 & NOT_H);
        match color {
            Color::White => Bitboard(west << 7 | east << 9),
            Color::Black => Bitboard(west >> 9 | east >> 7),
        }
    }

    /// The files (bit `f` for file `f`, 0 = a) that hold a square of the set.
    #[inline]
    pub fn files(self) -> u8 {
        let mut bb = self.0;
        // Fold the ranks onto the first.
        bb |= bb >> 32;
        bb |= bb >> 16;
        bb |= bb >> 8;
        bb as u8
    }
}

/// The squares a `role` on `sq` attacks, lines stopped by `occupied` (FIDE 3.2–3.6, 3.8; a pawn: none, see
/// [`pawn_attacks`]).
#[inline]
pub fn piece_attacks(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    use attacks::{MagicSliders, Sliders};
    let (s, occ) = (sq.index(), occupied.0);
    Bitboard(match role {
        Role::Pawn => 0,
        Role::Knight => attacks::KNIGHT[s],
        Role::Bishop => MagicSliders::bishop(s, occ),
        Role::Rook => MagicSliders::rook(s, occ),
        Role::Queen => MagicSliders::bishop(s, occ) | MagicSliders::rook(s, occ),
        Role::King => attacks::KING[s],
    })
}

/// The squares next to `sq` (a king's moves, FIDE 3.8.1).
#[inline]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(attacks::KING[sq.index()])
}

/// The squares a knight on `sq` attacks (FIDE 3.6).
#[inline]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(attacks::KNIGHT[sq.index()])
}

/// The squares a pawn of `color` on `sq` attacks (diagonally forward, FIDE 3.7.3).
#[inline]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(attacks::PAWN[color.index()][sq.index()])
}

/// The squares strictly between `a` and `b` when they share a rank, file or diagonal, else none.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(attacks::between(a.index(), b.index()))
}

/// The whole line (edge to edge) through `a` and `b` when they share one, else none.
#[inline]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(attacks::line(a.index(), b.index()))
}

/// A move as the move generator packs it (`movegen`: a [`Move`] in the low 16 bits, the moving role in bits
/// 16–18), read back: the move and the role that moves.
#[inline]
pub fn unpack(m: u32) -> (Move, Role) {
    (Move(m as u16), Role::ALL[(m >> 16 & 7) as usize])
}

/// The squares of a [`Bitboard`], lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = Square::new(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(sq)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

/// The set operations, each on the `u64` underneath.
macro_rules! set_operation {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, other: Bitboard) -> Bitboard {
                Bitboard(self.0 $op other.0)
            }
        }
        impl $assign for Bitboard {
            #[inline]
            fn $assign_method(&mut self, other: Bitboard) {
                self.0 = self.0 $op other.0;
            }
        }
    };
}

set_operation!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
set_operation!(BitOr, bitor, BitOrAssign, bitor_assign, |);
set_operation!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// The typed face of the board: what code above the move generator reads.
impl Board {
    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Color {
        Color::ALL[self.turn as usize & 1]
    }

    /// The pieces of `color` and `role`.
    #[inline]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        Bitboard(self.roles[role.index()] & self.colors[color.index()])
    }

    /// The pieces of `role`, both colours.
    #[inline]
    pub fn role(&self, role: Role) -> Bitboard {
        Bitboard(self.roles[role.index()])
    }

    /// The squares `color`'s pieces stand on.
    #[inline]
    pub fn occupied(&self, color: Color) -> Bitboard {
        Bitboard(self.colors[color.index()])
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied_all(&self) -> Bitboard {
        Bitboard(self.colors[0] | self.colors[1])
    }

    /// `color`'s king (a board made from a checked position has exactly one of each).
    #[inline]
    pub fn king(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// The role on `sq`, if any.
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        let bit = 1u64 << sq.index();
        if (self.colors[0] | self.colors[1]) & bit == 0 {
            return None;
        }
        Some(Role::ALL[self.role_on(bit)])
    }

    /// The colour of the piece on `sq`, if any.
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        let bit = 1u64 << sq.index();
        if self.colors[0] & bit != 0 {
            Some(Color::White)
        } else if self.colors[1] & bit != 0 {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The en-passant square, when an enemy pawn could capture there.
    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        Square::try_new(self.ep)
    }

    /// Whether any castling right remains.
    #[inline]
    pub fn has_castling(&self) -> bool {
        self.castling != 0
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = 1u64 << sq.index();
        let color = Color::ALL
            .into_iter()
            .find(|c| self.colors[c.index()] & bit != 0)?;
        let role = Role::ALL
            .into_iter()
            .find(|r| self.roles[r.index()] & bit != 0)?;
        Some(Piece::new(color, role))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Setup;

    #[test]
    fn squares_come_lowest_first_and_count_agrees() {
        let set: Bitboard = [Square::new(63), Square::new(0), Square::new(27)]
            .into_iter()
            .collect();
        let squares: Vec<usize> = set.iter().map(Square::index).collect();
        assert_eq!(squares, vec![0, 27, 63]);
        assert_eq!(set.count(), 3);
        assert_eq!(set.iter().len(), 3);
        assert!(set.contains(Square::new(27)) && !set.contains(Square::new(26)));
        assert_eq!(set.without(Square::new(0)).first(), Some(Square::new(27)));
        assert_eq!((set & !set), Bitboard::EMPTY);
        assert_eq!(Bitboard::DARK.count(), 32);
        assert!(Bitboard::DARK.contains(Square::new(0))); // a1 is dark (FIDE 2.1: h1 is light)
        assert!(!Bitboard::DARK.contains(Square::new(7)));
        assert_eq!(
            Bitboard::file(0) & Bitboard::rank(0),
            Bitboard::from_square(Square::new(0))
        );
    }

    #[test]
    fn the_typed_face_reads_the_initial_position() {
        let setup = Setup::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("the initial position parses");
        let (b, _) = Board::from_setup(&setup);
        assert_eq!(b.turn(), Color::White);
        assert_eq!(b.pieces(Color::White, Role::Pawn), Bitboard::rank(1));
        assert_eq!(b.pieces(Color::Black, Role::Pawn), Bitboard::rank(6));
        assert_eq!(b.king(Color::Black), Square::parse("e8"));
        assert_eq!(b.occupied_all().count(), 32);
        for sq in Square::all() {
            assert_eq!(b.piece_at(sq), setup.piece_at(sq), "{sq:?}");
        }
    }
}
