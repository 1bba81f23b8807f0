//! (e) The kings' dance (FIDE 1.5, 3.8.2, 3.9, 5.2.1): the reach proof ([`super::reach`]) made on a hypothesis,
//! *no king ever takes an enemy piece that never moves*, and an exact walk over the two kings' squares and the
//! side to move that shows the hypothesis can only break where the game ends, and no checkmate of the loser
//! comes before.
//!
//! The reach proof fails where a king could take a blocked pawn and open the structure: in
//! `3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/8 w` (D3-Chess issue #48) White's king could take c7, then the c6
//! pawn would queen. But Black has nothing to move but its king (the pawns are blocked, the bishop shut in, and
//! White's light-squared bishops never stand where a pawn could take them), and White's king can take c7 only
//! from b7 or b8 while Black's king is on e8 (from d8 it defends c7; White's king never gets past c8, since it
//! could step there only with Black's king on e8, and Black, to move, would be stalemated): after the capture
//! Black is stalemated. Nor can White mate on e8 (d8 must be covered, only White's king on c8 covers it, and it
//! cannot stand there while Black's king steps from d8 to e8), on c8 or on a8 (two dark flight squares each).
//!
//! **Proof.** Let the *spared* pieces be those whose region is their own square when the reach proof's rules
//! are saturated with one more: no king enters the square of an enemy piece whose region is its own square
//! ([`spared_field`]; at the fixed point that set is the final one). Take any continuation from the position
//! that ends in a checkmate of the loser. Up to the first move, if any, in which a king takes a spared piece,
//! every move is one the saturated rules allow, so by the reach proof's induction (its module's header) every
//! piece stands in its region, the fixed pieces on their squares, and the sets `guarded` and `hit` hold. Map
//! each position up to then to (winner's king's square, loser's king's square, side to move). Each move is:
//! 1. a king's step to a square of its region next to it, not on or next to the other king (FIDE 3.8.2), or a
//!    king's capture of a spared piece next to it (the first such ends the prefix), which it may make only where
//!    the piece is not next to the other king nor in `guarded` of its colour (3.8.2);
//! 2. a move of another piece, which leaves the kings where they are: possible only for a colour with a piece
//!    whose region has more than one square (`mobile`), or one that may promote.
//!
//! [`Walk`] follows every such step from the position's image, so the images of the prefix are among the
//! abstract positions it reaches. A checkmate of the loser within the prefix comes right after a move of the
//! winner, and the loser is in check: after a move of another piece only if its king stands on a square of
//! `hit`; after a king's step from `u` only by a line uncovered at `u` ([`discovers`]: from a square of the
//! winner's line pieces' regions, no other fixed piece between). Every square next to the loser's king in its region
//! (it never stands elsewhere in such a continuation) must then be in `hit`, next to the winner's king, or held
//! by a loser's piece ([`blockable`]); [`Walk`] gives up wherever that may be so. Where the prefix ends, a king
//! takes a spared piece, and the side to move then must have no legal move at all (the game is drawn, FIDE
//! 5.2.1) without being checkmated by the winner: [`Field::stuck`] over-approximates its moves (its king's
//! squares not held by its own fixed pieces, not next to the other king, not in the other side's `guarded`; each
//! of its pieces that never moves, with only fixed pieces and the kings surely in the way, pawns taking where an
//! enemy piece may stand), and when the winner took, no line may be uncovered at the king's square it left
//! (the loser would be in check). Where a side to move keeps no legal move in the prefix, the game ended there.
//! So no continuation ends in the loser's checkmate.

use super::reach::{blockable, spared_field, Field};
use super::tempo::{discovers, steps, Abstract};
use super::{in_check, Reason};
use crate::bitboard::board::Board;
use crate::bitboard::{king_attacks, pawn_attacks, piece_attacks, Bitboard};
use crate::types::{Color, Role, Square};

/// The kings' dance for `winner` in `b`: `Some(Reason::Dance)` when the winner can never give mate.
pub(super) fn dance_reason(b: &Board, winner: Color) -> Option<Reason> {
    if in_check(b) {
        return None;
    }
    let field = spared_field(b, winner)?;
    let king = |c: Color| (b.occupied(c) & b.role(Role::King)).iter().next();
    let mut walk = Walk::new(&field);
    walk.add(king(winner)?, king(!winner)?, b.turn() == winner);
    walk.run()?;
    let (positions, spared) = (walk.game.met(), walk.spared.0);
    Some(Reason::Dance {
        fixed: field.fixed.0,
        regions: field.regions,
        positions,
        spared,
    })
}

/// The dance's abstract positions (the two kings' squares and the side to move, [`Abstract`]) met so far.
struct Walk<'f> {
    field: &'f Field,
    game: Abstract,
    /// The squares of each colour's spared pieces (the kings' captures the hypothesis leaves out).
    targets: [Bitboard; 2],
    /// The spared pieces' squares where a king's capture was met (each ending in a position without a move).
    spared: Bitboard,
}

impl<'f> Walk<'f> {
    fn new(field: &'f Field) -> Walk<'f> {
        let targets = field.unmoved.each_ref().map(|men| {
            men.iter()
                .fold(Bitboard::EMPTY, |acc, &(_, sq)| acc.with(sq))
        });
        Walk {
            field,
            game: Abstract::default(),
            targets,
            spared: Bitboard::EMPTY,
        }
    }

    /// Adds the winner's king on `w`, the loser's on `l`, `winner_to_move`, when not met yet.
    fn add(&mut self, w: Square, l: Square, winner_to_move: bool) {
        self.game.add(l, w, !winner_to_move);
    }

    /// Follows every step from the positions met (the module's header); `None` where a checkmate of the loser
    /// may come, or a king's capture of a spared piece may leave the game going on.
    fn run(&mut self) -> Option<()> {
        let (f, winner) = (self.field, self.field.winner);
        let (wi, li) = (winner.index(), (!winner).index());
        while let Some((l, w, loser_to_move)) = self.game.next() {
            if !loser_to_move {
                // Fixed pieces block the line, but a fixed line piece of the winner's may be the one uncovered.
                let uncovered = discovers(l, w, f.fixed & !(f.diag | f.orth), f.diag, f.orth);
                for k in steps(w, f.kings[wi], l) {
                    if uncovered && f.mate_possible(l, k) {
                        return None;
                    }
                    self.add(k, l, false);
                }
                for c in self.captures(w, l, winner) {
                    if uncovered || !f.stuck(!winner, l, c) {
                        return None;
                    }
                }
                if f.mobile[wi] {
                    if f.hit.contains(l) && f.mate_possible(l, w) {
                        return None;
                    }
                    self.add(w, l, false);
                }
            } else {
                for k in steps(l, f.kings[li], w) {
                    self.add(w, k, true);
                }
                for c in self.captures(l, w, !winner) {
                    if !f.stuck(winner, w, c) {
                        return None;
                    }
                }
                if f.mobile[li] {
                    self.add(w, l, true);
                }
            }
        }
        Some(())
    }

    /// The squares of the spared pieces `color`'s king on `from` may take with the other king on `other`:
    /// next to it, not next to the other king, not guarded by the other side; noted in `spared`.
    fn captures(&mut self, from: Square, other: Square, color: Color) -> Bitboard {
        let them = (!color).index();
        let found = king_attacks(from)
            & self.targets[them]
            & !king_attacks(other).with(other)
            & !self.field.guarded[them];
        self.spared |= found;
        found
    }
}

impl Field {
    /// Whether the loser's king on `l` may be checkmated by a check with the winner's king on `w`: every
    /// square next to it in its region is in `hit`, next to `w`, or may hold a piece of the loser's.
    fn mate_possible(&self, l: Square, w: Square) -> bool {
        let region = self.kings[(!self.winner).index()];
        let free = king_attacks(l) & region & !self.hit & !king_attacks(w).with(w);
        blockable(free, &self.blockers)
    }

    /// Whether `color`, to move with its king on `k` after the other king took a spared piece of its on `c`,
    /// surely has no legal move (over-approximated moves; see the module's header).
    fn stuck(&self, color: Color, k: Square, c: Square) -> bool {
        let (i, them) = (color.index(), (!color).index());
        if self.mobile[i] {
            return false;
        }
        let own = self.fixed & self.origins[i] & !Bitboard::from_square(c);
        let sure = self.fixed.with(k).with(c);
        let king = king_attacks(k) & !own & !king_attacks(c).with(c) & !self.guarded[them];
        if !king.is_empty() {
            return false;
        }
        let prey = (self.stand[them] | (self.fixed & self.origins[them])).without(c);
        self.unmoved[i]
            .iter()
            .filter(|&&(_, sq)| sq != c)
            .all(|&(piece, sq)| {
                let to = match piece.role {
                    Role::Pawn => {
                        let push = Bitboard::from_square(sq).forward(color) & !sure;
                        push | (pawn_attacks(color, sq) & prey)
                    }
                    role => {
                        piece_attacks(role, sq, sure) & !own & !Bitboard::from_square(k).with(c)
                    }
                };
                to.is_empty()
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::dead::{mate_within, random_walks, reach::reach_reason, xorshift};
    use crate::position::Setup;
    use crate::types::Piece;
    use crate::validate::Checked;

    /// D3-Chess issue #48 (github.com/miguel-ambrona/D3-Chess/issues/48): reported unwinnable for White.
    const D3_48: &str = "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 0 1";

    fn board(fen: &str) -> Board {
        Board::from_setup(&Setup::from_fen(fen).unwrap()).0
    }

    /// The dance decides D3-Chess issue #48's position for both sides, where the reach proof alone does not
    /// (White's king could take c7), and its text names c7 as the piece whose capture stalemates Black.
    #[test]
    fn the_dance_decides_d3_chess_issue_48() {
        let b = board(D3_48);
        for winner in Color::ALL {
            assert!(reach_reason(&b, winner).is_none(), "{winner:?}");
            let text = dance_reason(&b, winner).unwrap().to_string();
            assert!(text.starts_with("kings' dance: "), "{text}");
            assert!(text.contains("could take a piece on c7,"), "{text}");
        }
    }

    /// The dance does not answer where the capture of a blocked pawn leaves the game going on: Black with a
    /// knight to move after White's king takes c7, or kings beside locked pawns with room to spare (either king
    /// takes the other's pawn and queens its own); nor where White mates at once (Bg8–f7 mates on e8, the
    /// independent search confirms it).
    #[test]
    fn no_dance_where_a_capture_or_a_mate_comes() {
        for (fen, winner) in [
            (
                "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/7n w - - 0 1",
                Color::White,
            ),
            ("8/8/8/2k5/2p5/2P5/2K5/8 w - - 0 1", Color::White),
            ("8/8/8/2k5/2p5/2P5/2K5/8 w - - 0 1", Color::Black),
            (
                "2K1kbB1/2p1p1p1/1pP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 0 1",
                Color::White,
            ),
        ] {
            assert!(
                dance_reason(&board(fen), winner).is_none(),
                "{fen} {winner:?}"
            );
        }
        let first = Checked::new(
            Setup::from_fen("2K1kbB1/2p1p1p1/1pP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 0 1").unwrap(),
        );
        assert!(mate_within(&first.unwrap(), Color::White, 1));
    }

    fn sq(name: &str) -> Square {
        Square::parse(name).unwrap()
    }

    fn bits(names: &[&str]) -> Bitboard {
        names.iter().fold(Bitboard::EMPTY, |acc, n| acc.with(sq(n)))
    }

    /// A walk on a field made by hand for White: White's king on e8 with the region `white_king`, Black's king
    /// on h8 with no other square, a rook's region `orth`, Black's piece `spared` that never moves, and the
    /// squares `guarded` White attacks for good. The number of positions reached, or `None` where the walk
    /// finds a possible mate or a capture that leaves the game going on.
    fn hand_walk(
        white_king: Bitboard,
        orth: Bitboard,
        spared: Vec<(Piece, Square)>,
        guarded: Bitboard,
    ) -> Option<usize> {
        let field = Field {
            winner: Color::White,
            kings: [white_king, bits(&["h8"])],
            hit: Bitboard::EMPTY,
            blockers: Vec::new(),
            guarded: [guarded, Bitboard::EMPTY],
            unmoved: [Vec::new(), spared],
            fixed: Bitboard::EMPTY,
            origins: [bits(&["e8"]), bits(&["h8"])],
            mobile: [false, false],
            stand: [Bitboard::EMPTY; 2],
            diag: Bitboard::EMPTY,
            orth,
            regions: Vec::new(),
        };
        let mut walk = Walk::new(&field);
        walk.add(sq("e8"), sq("h8"), true);
        walk.run().map(|()| walk.game.met() as usize)
    }

    /// A step of White's king from e8 to f7 uncovers a rook's line on a8 onto Black's king on h8, which has no
    /// other square: a mate; with no line piece beyond e8 nothing is uncovered, and the walk ends with Black to
    /// move and no legal move.
    #[test]
    fn a_step_that_uncovers_a_line_may_mate() {
        let king = bits(&["e8", "f7"]);
        assert_eq!(
            hand_walk(king, bits(&["a8"]), Vec::new(), Bitboard::EMPTY),
            None
        );
        assert_eq!(
            hand_walk(king, Bitboard::EMPTY, Vec::new(), Bitboard::EMPTY),
            Some(2)
        );
    }

    /// White's king on e8 (no other square) takes Black's pawn on f7, which never moves, and Black's king on h8
    /// then has no move (h7 guarded, g8 and g7 next to White's king): stalemate, unless the capture uncovers the
    /// rook's line on a8, which is then a mate; and where h7 is free Black moves on.
    #[test]
    fn a_capture_that_uncovers_a_line_may_mate() {
        let (king, pawn) = (
            bits(&["e8"]),
            vec![(Piece::new(Color::Black, Role::Pawn), sq("f7"))],
        );
        let h7 = bits(&["h7"]);
        assert_eq!(hand_walk(king, bits(&["a8"]), pawn.clone(), h7), None);
        assert_eq!(hand_walk(king, Bitboard::EMPTY, pawn.clone(), h7), Some(1));
        assert_eq!(
            hand_walk(king, Bitboard::EMPTY, pawn, Bitboard::EMPTY),
            None
        );
    }

    /// Soundness on seeded random walks: from D3-Chess issue #48's position, from the same with White's king and
    /// a bishop set for the mate on e8, with a knight, a rook or a dark-squared bishop of White's, with a black
    /// knight, and from the tempo fortress of `tempo.rs` and a locked pawn ending: wherever the dance answers
    /// for a side, the independent exhaustive search finds no mate for it within 3 plies; and it answers often
    /// enough, beside mates in the same walks, that this checks it.
    #[test]
    fn no_dance_proof_beside_a_short_mate() {
        let fens = [
            D3_48,
            "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/8 b - - 0 1",
            "2K1kbB1/2p1p1p1/1pP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 0 1",
            "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/6N1 w - - 0 1",
            "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/3R4 b - - 0 1",
            "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/2B5 w - - 0 1",
            "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/7n w - - 0 1",
            "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w - - 0 1",
            "8/8/8/2k5/2p5/2P5/2K5/8 w - - 0 1",
        ];
        let mut next = xorshift(0x1405_7B7E_F767_814F);
        let (mut proofs, mut mates) = (0, 0);
        random_walks(&fens, (10, 24), &mut next, |_, b, cd, _, _| {
            let pos = Checked::new(b.to_setup(cd)).unwrap();
            for winner in Color::ALL {
                let mate = mate_within(&pos, winner, 3);
                mates += usize::from(mate);
                if dance_reason(b, winner).is_some() {
                    assert!(
                        !mate,
                        "{}: dance for {winner:?} beside a mate",
                        pos.to_fen()
                    );
                    proofs += 1;
                }
            }
        });
        assert!(proofs > 50 && mates > 20, "{proofs} proofs, {mates} mates");
    }
}
