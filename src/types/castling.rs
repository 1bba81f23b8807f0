//! Castling rights, stored as the squares of the rooks that may still castle (FIDE 3.8.2.1), so standard chess
//! and Chess960 share one representation.

use super::{Color, Square};

/// Which rook: the one on the king's h-file side or the one on its a-file side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CastlingSide {
    /// Towards the h-file: the king ends on g, the rook on f ("O-O").
    KingSide = 0,
    /// Towards the a-file: the king ends on c, the rook on d ("O-O-O").
    QueenSide = 1,
}

impl CastlingSide {
    /// Both sides, king side first.
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];
}

/// For each colour and side, the square of the rook that keeps its castling right, if any.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CastlingRights {
    rooks: [[Option<Square>; 2]; 2],
}

impl CastlingRights {
    /// No rights at all.
    pub const NONE: CastlingRights = CastlingRights {
        rooks: [[None; 2]; 2],
    };

    /// The rook square of `color`'s right on `side`.
    pub const fn rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        self.rooks[color as usize][side as usize]
    }

    /// Set or clear a right.
    pub fn set(&mut self, color: Color, side: CastlingSide, rook: Option<Square>) {
        self.rooks[color as usize][side as usize] = rook;
    }

    /// Drop both rights of `color` (its king moved, FIDE 3.8.2.1.1).
    pub fn clear_color(&mut self, color: Color) {
        self.rooks[color as usize] = [None; 2];
    }

    /// Drop any right whose rook stands on `sq` (the rook moved or was captured, FIDE 3.8.2.1.2).
    pub fn clear_square(&mut self, sq: Square) {
        for color in &mut self.rooks {
            for r in color.iter_mut() {
                if *r == Some(sq) {
                    *r = None;
                }
            }
        }
    }

    /// Whether no right is left.
    pub fn is_empty(&self) -> bool {
        self.rooks.iter().flatten().all(Option::is_none)
    }

    /// Every right as (colour, side, rook square).
    pub fn iter(&self) -> impl Iterator<Item = (Color, CastlingSide, Square)> + '_ {
        Color::ALL.into_iter().flat_map(move |c| {
            CastlingSide::ALL
                .into_iter()
                .filter_map(move |s| self.rook(c, s).map(|sq| (c, s, sq)))
        })
    }
}
