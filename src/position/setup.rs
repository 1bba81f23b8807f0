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

/// The squares of a placement's pieces as bit sets (bit `i`: square `i`, a1 = 0), by role (both colours) and
/// by colour: what a bitboard generator is built from. [`Setup::pieces`] gathers them from the board; the FEN
/// reader gathers them as it reads the placement ([`Setup::from_fields_with_pieces`]), which a scan of real
/// positions would otherwise spend a tenth of its instructions doing again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pieces {
    /// Pieces of each role ([`Role::index`]), both colours.
    pub roles: [u64; 6],
    /// Pieces of each colour ([`Color::index`]).
    pub colors: [u64; 2],
}

impl Pieces {
    /// `piece` put on `sq` (which is empty).
    #[inline]
    pub fn add(&mut self, piece: Piece, sq: Square) {
        self.roles[piece.role.index()] |= 1 << sq.index();
        self.colors[piece.color.index()] |= 1 << sq.index();
    }
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

    /// The squares of the pieces, by role and by colour ([`Pieces`]).
    pub fn pieces(&self) -> Pieces {
        // The occupied squares first, without a branch per square on whether it holds a piece (a `dead --scan`
        // of real positions mispredicted about 24 of them a position), then only the pieces.
        let mut occupied = 0u64;
        for sq in Square::all() {
            occupied |= u64::from(self.piece_at(sq).is_some()) << sq.index();
        }
        let mut pieces = Pieces::default();
        while occupied != 0 {
            let sq = Square::new(occupied.trailing_zeros() as u8);
            occupied &= occupied - 1;
            if let Some(p) = self.piece_at(sq) {
                pieces.add(p, sq);
            }
        }
        pieces
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
