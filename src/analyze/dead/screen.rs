//! The validity check of `dead`'s positions (FIDE 3.10.3, [`crate::validate`]) at the cost of a few bitboard
//! operations where a position is plainly valid, as almost every real game position is: exactly one king of
//! each colour, no pawn on the first or last rank, the side not to move not in check, each castling right's
//! rook and king where the right needs them, no en-passant square. Any other position goes to [`Checked::new`],
//! so every invalid one is refused with its errors and message, word for word. A scan of real positions spent a tenth of its time in [`Checked::new`]'s
//! square-by-square checks.

use crate::bitboard::{pawn_attacks, piece_attacks, Bitboard};
use crate::error::Result;
pub use crate::position::Pieces;
use crate::position::Setup;
use crate::types::{CastlingSide, Color, Role, Square};
use crate::validate::Checked;

/// `setup` checked: [`Checked::new`]'s answer (the same position, or the same error), found with a few bitboard
/// operations where the position is plainly valid ([`plainly_valid`]).
///
/// # Errors
/// As [`Checked::new`]: [`crate::Error::InvalidPosition`] with every validity error.
pub fn checked(setup: Setup) -> Result<Checked> {
    screened(setup).0
}

/// [`checked`], and the pieces of `setup` ([`Setup::pieces`]) where the screen passed it (`None` where
/// [`Checked::new`] decided): handed to the analysis ([`super::Memo::screened`]) so that its board is built
/// without gathering them again.
///
/// # Errors
/// As [`checked`] (in the first of the pair).
pub fn screened(setup: Setup) -> (Result<Checked>, Option<Pieces>) {
    screened_with(setup, None)
}

/// [`screened`] given the pieces of `setup` where its reader gathered them (`known`: [`Setup::pieces`], as
/// [`Setup::from_fields_with_pieces`] gives them), so that they are not gathered again (as many instructions as
/// the screen's own checks on a scan of real positions).
///
/// # Errors
/// As [`checked`] (in the first of the pair).
pub fn screened_with(setup: Setup, known: Option<Pieces>) -> (Result<Checked>, Option<Pieces>) {
    debug_assert!(known.is_none_or(|k| k == setup.pieces()));
    let mut gathered = None;
    let checked = Checked::screened(setup, |s| {
        if s.ep_square.is_some() {
            return false;
        }
        let pieces = known.unwrap_or_else(|| s.pieces());
        let valid = plainly_valid_with(s, &pieces);
        gathered = valid.then_some(pieces);
        valid
    });
    (checked, gathered)
}

/// The first and last ranks, where no pawn may stand (FIDE 3.7.5: a pawn reaching the last rank is promoted).
const BACK_RANKS: u64 = 0xFF00_0000_0000_00FF;

/// Whether [`crate::validate::check`] certainly finds no error in `setup`: no en-passant square to check (those
/// positions are left to it), one king of each colour, no pawn on a back rank, each castling right's rook of
/// its colour on its back rank on the right's side of its king, that king on its back rank too (FIDE 3.8.2),
/// and no unit of the side to move attacking the other king (FIDE 3.9: the side that just moved cannot have
/// left its king in check). `false` says nothing (the full check decides).
#[cfg(test)]
fn plainly_valid(setup: &Setup) -> bool {
    setup.ep_square.is_none() && plainly_valid_with(setup, &setup.pieces())
}

/// [`plainly_valid`] of a position without an en-passant square, given its pieces.
fn plainly_valid_with(setup: &Setup, pieces: &Pieces) -> bool {
    let Pieces { roles, colors } = *pieces;
    let (us, them) = (setup.turn, !setup.turn);
    let of = |c: Color, r: Role| Bitboard(roles[r.index()] & colors[c.index()]);
    let (Some(their_king), Some(_)) = (of(them, Role::King).single(), of(us, Role::King).single())
    else {
        return false;
    };
    if roles[Role::Pawn.index()] & BACK_RANKS != 0 {
        return false;
    }
    let rights_hold = setup.castling.iter().all(|(color, side, rook)| {
        let (back, king) = (color.back_rank(), of(color, Role::King).single());
        king.is_some_and(|k| {
            k.rank() == back
                && rook.rank() == back
                && of(color, Role::Rook).contains(rook)
                && match side {
                    CastlingSide::KingSide => rook.file() > k.file(),
                    CastlingSide::QueenSide => rook.file() < k.file(),
                }
        })
    });
    rights_hold && !attacked(their_king, us, &of, Bitboard(colors[0] | colors[1]))
}

/// Whether a unit of `by` attacks `target` (FIDE 3.2–3.8), `of` giving its pieces of a role and `occupied`
/// stopping the lines.
fn attacked(
    target: Square,
    by: Color,
    of: &impl Fn(Color, Role) -> Bitboard,
    occupied: Bitboard,
) -> bool {
    // A pawn of `by` attacks `target` when a pawn of the other colour on `target` would attack it.
    let pawns = pawn_attacks(!by, target) & of(by, Role::Pawn);
    let queens = of(by, Role::Queen);
    let lines = (piece_attacks(Role::Bishop, target, occupied) & (of(by, Role::Bishop) | queens))
        | (piece_attacks(Role::Rook, target, occupied) & (of(by, Role::Rook) | queens));
    let steps = (piece_attacks(Role::Knight, target, occupied) & of(by, Role::Knight))
        | (piece_attacks(Role::King, target, occupied) & of(by, Role::King));
    !(pawns | lines | steps).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::board::Board;
    use crate::random::{random_position, Rng};
    use crate::types::Piece;
    use crate::validate::check;

    /// [`Setup::pieces`] square by square: a square's bit is set in a role's and a colour's set exactly when
    /// that piece stands there, on positions of random games (start positions of both kinds included).
    #[test]
    fn pieces_are_the_board_square_by_square() {
        let mut rng = Rng::new(71);
        for game in 0..300 {
            let setup = random_position(&mut rng, game % 2 == 0, game % 120);
            let pieces = setup.pieces();
            for sq in Square::all() {
                for color in Color::ALL {
                    for role in Role::ALL {
                        let set = pieces.roles[role.index()] & pieces.colors[color.index()];
                        let here = setup.piece_at(sq) == Some(Piece::new(color, role));
                        assert_eq!(
                            (set >> sq.index()) & 1 == 1,
                            here,
                            "{} {sq:?}",
                            setup.to_fen()
                        );
                    }
                }
            }
            assert_eq!(pieces.colors[0] & pieces.colors[1], 0);
        }
    }

    /// The screen never passes a position [`check`] finds an error in, and [`checked`] gives
    /// [`Checked::new`]'s answer (the same position, or the same message), on random-game positions (standard
    /// and Chess960: castling rights, en-passant squares) and on the same boards with pieces moved, added or
    /// removed at random (missing and extra kings, pawns on back ranks, the side not to move in check by every
    /// kind of unit, castling rights whose rook or king moved). The screen passes most valid positions without an
    /// en-passant square, some with castling rights.
    #[test]
    fn screen_agrees_with_check() {
        let mut rng = Rng::new(17);
        let mut next = crate::analyze::dead::xorshift(0x9E37_79B9_7F4A_7C15);
        let (mut passed, mut plain, mut invalid, mut castling) = (0, 0, 0, 0);
        for game in 0..4_000 {
            let mut setup = random_position(&mut rng, game % 3 == 0, 200);
            for _ in 0..(next() % 4) {
                let (from, to) = ((next() % 64) as usize, (next() % 64) as usize);
                match next() % 3 {
                    0 => setup.board[to] = setup.board[from],
                    1 => setup.board[to] = setup.board[from].take(),
                    _ => setup.board[to] = None,
                }
            }
            if next().is_multiple_of(2) {
                setup.turn = !setup.turn;
            }
            let errors = check(&setup).errors;
            let screened = plainly_valid(&setup);
            assert!(
                !screened || errors.is_empty(),
                "{} {errors:?}",
                setup.to_fen()
            );
            passed += usize::from(screened);
            plain += usize::from(errors.is_empty() && setup.ep_square.is_none());
            castling += usize::from(screened && !setup.castling.is_empty());
            invalid += usize::from(!errors.is_empty());
            let theirs = Checked::new(setup.clone()).map_err(|e| e.to_string());
            let (ours, pieces) = super::screened(setup.clone());
            assert_eq!(ours.map_err(|e| e.to_string()), theirs);
            // The pieces handed on are those of the position, and only for a position the screen passed: the
            // board built from them is the one built from the position.
            assert_eq!(pieces.is_some(), screened);
            if let Some(gathered) = pieces {
                let Pieces { roles, colors } = gathered;
                let (board, cd) = Board::without_keys(&setup);
                let (from, from_cd) = Board::without_keys_from(&setup, gathered);
                assert_eq!(from, board);
                assert_eq!(format!("{from_cd:?}"), format!("{cd:?}"));
                assert_eq!((board.roles, board.colors), (roles, colors));
            }
        }
        assert!(invalid > 500, "{invalid}");
        assert!(
            passed * 10 >= plain * 9 && plain > 500,
            "{passed} of {plain}"
        );
        assert!(castling > 100, "{castling}");
    }
}
