//! The packed 16-bit move, in Stockfish's layout, with UCI text in and out.
//!
//! ```text
//! bit 15 14 | 13 12 | 11 10 9 8 7 6 | 5 4 3 2 1 0
//!     kind  | promo |     from      |     to
//! ```
//! - `to`, `from`: square indices (a1 = 0 … h8 = 63);
//! - `promo`: promoted role minus knight (0 = N, 1 = B, 2 = R, 3 = Q), meaningful only for promotions;
//! - `kind`: 0 normal, 1 promotion, 2 en passant, 3 castling.
//!
//! Castling is stored as "king takes own rook" (`to` is the rook's square), so Chess960 needs no second
//! encoding; the UCI text shows the king's destination unless Chess960 output is asked for, like Stockfish's
//! `UCI_Chess960` option. The same 16 bits are used in GPU buffers and hash entries.

use super::{Role, Square};
use std::fmt;

/// How a move is played out beyond moving one piece (see the module docs for the bit layout).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MoveKind {
    /// Any move that is not one of the others (captures included).
    Normal = 0,
    /// A pawn reaching the last rank (FIDE 3.7.5).
    Promotion = 1,
    /// Capture en passant (FIDE 3.7.4).
    EnPassant = 2,
    /// Castling, encoded as king takes own rook (FIDE 3.8.2).
    Castling = 3,
}

/// A move packed into 16 bits; see the module docs for the layout. `Debug` shows its UCI text and kind
/// (`Move(e1g1 Castling)`), not the packed number.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Move(pub u16);

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Move({} {:?})", self.to_uci(false), self.kind())
    }
}

impl Move {
    /// A normal move.
    pub const fn normal(from: Square, to: Square) -> Move {
        Move((from.to_u8() as u16) << 6 | to.to_u8() as u16)
    }

    /// A promotion to `role` (knight, bishop, rook or queen).
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        let promo = (role as u16).wrapping_sub(Role::Knight as u16) & 3;
        Move(1 << 14 | promo << 12 | (from.to_u8() as u16) << 6 | to.to_u8() as u16)
    }

    /// An en-passant capture landing on `to`.
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(2 << 14 | (from.to_u8() as u16) << 6 | to.to_u8() as u16)
    }

    /// Castling of the king on `king` with the rook on `rook`.
    pub const fn castling(king: Square, rook: Square) -> Move {
        Move(3 << 14 | (king.to_u8() as u16) << 6 | rook.to_u8() as u16)
    }

    /// Origin square.
    pub const fn from(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    /// Destination square (the rook's square for castling).
    pub const fn to(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    /// The move kind.
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 14 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The promoted role, for promotions.
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion => Some(match (self.0 >> 12) & 3 {
                0 => Role::Knight,
                1 => Role::Bishop,
                2 => Role::Rook,
                _ => Role::Queen,
            }),
            _ => None,
        }
    }

    /// The square the king lands on when castling: g-file or c-file of the king's rank.
    pub const fn castling_king_target(self) -> Square {
        let (king, rook) = (self.from(), self.to());
        let file = if rook.file() > king.file() { 6 } else { 2 };
        Square::new(king.rank() * 8 + file)
    }

    /// The square the rook lands on when castling: f-file or d-file.
    pub const fn castling_rook_target(self) -> Square {
        let (king, rook) = (self.from(), self.to());
        let file = if rook.file() > king.file() { 5 } else { 3 };
        Square::new(king.rank() * 8 + file)
    }

    /// UCI text. Castling is shown as the king's move (`e1g1`) unless `chess960`, where it is king takes rook
    /// (`e1h1`), as Stockfish does with `UCI_Chess960`.
    pub fn to_uci(self, chess960: bool) -> String {
        let (text, n) = self.uci_bytes(chess960);
        // ASCII letters and digits: borrowed as they are, then copied once.
        String::from_utf8_lossy(&text[..n]).into_owned()
    }

    /// [`Move::to_uci`]'s text as ASCII bytes, four or five (a promotion), without a formatter or an
    /// allocation: a helpmate of a real game position has about fifty moves, and formatting them was a sixth
    /// of a `dead` run's instructions.
    pub fn uci_bytes(self, chess960: bool) -> ([u8; 5], usize) {
        let to = if self.kind() == MoveKind::Castling && !chess960 {
            self.castling_king_target()
        } else {
            self.to()
        };
        let from = self.from();
        let mut text = [
            b'a' + from.file(),
            b'1' + from.rank(),
            b'a' + to.file(),
            b'1' + to.rank(),
            0,
        ];
        match self.promotion_role() {
            Some(role) => {
                text[4] = role.char() as u8;
                (text, 5)
            }
            None => (text, 4),
        }
    }

    /// Find the move among `legal` that the UCI text `text` names. Both castling notations are accepted
    /// (king's destination and king takes rook); a plain king move wins over castling with the same text.
    pub fn find_uci(legal: &[Move], text: &str) -> Option<Move> {
        legal
            .iter()
            .find(|m| m.kind() != MoveKind::Castling && m.to_uci(false) == text)
            .or_else(|| {
                legal.iter().find(|m| {
                    m.kind() == MoveKind::Castling
                        && (m.to_uci(false) == text || m.to_uci(true) == text)
                })
            })
            .copied()
    }
}

impl fmt::Display for Move {
    /// UCI text in standard notation (castling as the king's move).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (text, n) = self.uci_bytes(false);
        // ASCII letters and digits only, so always a valid `str` (checked, not assumed).
        f.write_str(std::str::from_utf8(&text[..n]).map_err(|_| fmt::Error)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn debug_shows_the_uci_text() {
        let m = Move::normal(sq("e2"), sq("e4"));
        assert_eq!(format!("{m:?}"), "Move(e2e4 Normal)");
    }

    #[test]
    fn layout_matches_the_documented_bits() {
        let m = Move::normal(sq("e2"), sq("e4"));
        assert_eq!(m.0, 12 << 6 | 28);
        let p = Move::promotion(sq("e7"), sq("e8"), Role::Queen);
        assert_eq!(p.0 >> 14, 1);
        assert_eq!((p.0 >> 12) & 3, 3);
        assert_eq!(p.promotion_role(), Some(Role::Queen));
        assert_eq!(
            Move::en_passant(sq("e5"), sq("d6")).kind(),
            MoveKind::EnPassant
        );
    }

    #[test]
    fn uci_text() {
        assert_eq!(Move::normal(sq("e2"), sq("e4")).to_uci(false), "e2e4");
        for (role, c) in [
            (Role::Knight, 'n'),
            (Role::Bishop, 'b'),
            (Role::Rook, 'r'),
            (Role::Queen, 'q'),
        ] {
            assert_eq!(
                Move::promotion(sq("e7"), sq("e8"), role).to_uci(false),
                format!("e7e8{c}")
            );
        }
        let oo = Move::castling(sq("e1"), sq("h1"));
        assert_eq!(oo.to_uci(false), "e1g1");
        assert_eq!(oo.to_uci(true), "e1h1");
        let ooo = Move::castling(sq("e8"), sq("a8"));
        assert_eq!(ooo.to_uci(false), "e8c8");
        assert_eq!(ooo.to_uci(true), "e8a8");
    }

    #[test]
    fn find_uci_prefers_plain_king_move_and_takes_both_castling_notations() {
        let step = Move::normal(sq("b1"), sq("c1"));
        let castle = Move::castling(sq("b1"), sq("a1"));
        assert_eq!(Move::find_uci(&[castle, step], "b1c1"), Some(step));
        assert_eq!(Move::find_uci(&[castle, step], "b1a1"), Some(castle));
        let oo = Move::castling(sq("e1"), sq("h1"));
        assert_eq!(Move::find_uci(&[oo], "e1g1"), Some(oo));
        assert_eq!(Move::find_uci(&[oo], "e1h1"), Some(oo));
        assert_eq!(Move::find_uci(&[oo], "e1f1"), None);
    }
}
