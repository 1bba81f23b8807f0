//! Vocabulary types shared by every move generator: squares, colours, piece roles, pieces, packed moves and
//! castling rights.
//!
//! These types carry no move-generation logic, so the reference generator, the fast bitboard generator and the
//! GPU buffer packing can all depend on them without sharing a bug.

mod castling;
mod mv;
mod piece;
mod square;

pub use castling::{CastlingRights, CastlingSide};
pub use mv::{Move, MoveKind};
pub use piece::{Color, Piece, Role};
pub use square::{Square, KING_STEPS, KNIGHT_STEPS, LINE_DIRECTIONS};
