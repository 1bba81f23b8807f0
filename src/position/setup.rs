//! [`Setup`]: a position as plain data, the interchange format between parsers and generators.

use crate::types::{CastlingRights, Color, Piece, Role, Square};

/// A position as plain data: what FEN says, nothing derived. It may be invalid; see
/// [`crate::validate::Checked`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Piece on each square, indexed a1 = 0 … h8 = 63.
    pub board: [Option<Piece>; 64],
    /// Side to move.
    pub turn: Color,
    /// Castling rights as rook squares.
    pub castling: CastlingRights,
    /// The square a pawn passed over by a double step on the last move, if FEN names one.
    pub ep_square: Option<Square>,
    /// Half-moves since the last capture or pawn move (FIDE 9.3, the 50-move rule).
    pub halfmoves: u32,
    /// Full-move number, starting at 1.
    pub fullmoves: u32,
}

impl Setup {
    /// The FIDE initial position (FIDE 2.3).
    pub fn startpos() -> Setup {
        Setup::from_fen(Setup::STARTPOS_FEN).expect("start position FEN is valid")
    }

    /// FEN of the initial position.
    pub const STARTPOS_FEN: &'static str =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// An empty board, White to move.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 64],
            turn: Color::White,
            castling: CastlingRights::NONE,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The squares of `color`'s kings (normally exactly one).
    pub fn kings(&self, color: Color) -> Vec<Square> {
        Square::all()
            .filter(|&sq| self.piece_at(sq) == Some(Piece::new(color, Role::King)))
            .collect()
    }

    /// Whether castling rights or piece placement make standard UCI castling notation ambiguous or wrong,
    /// so that moves must be shown as king takes rook (Chess960 notation).
    pub fn needs_chess960_notation(&self) -> bool {
        self.castling.iter().any(|(color, side, rook)| {
            let rank = color.back_rank();
            let standard_rook = match side {
                crate::types::CastlingSide::KingSide => 7,
                crate::types::CastlingSide::QueenSide => 0,
            };
            rook.rank() != rank
                || rook.file() != standard_rook
                || self.piece_at(Square::new(rank * 8 + 4)) != Some(Piece::new(color, Role::King))
        })
    }
}
