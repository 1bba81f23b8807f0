//! (e) The tempo argument (FIDE 1.5, 3.8.2, 3.9, 5.2.1): a fortress that holds only because the side that would
//! be mated has nothing but king moves, so it can never pass, and the mate would need the winner to gain a tempo.
//!
//! The fortress proof ([`super::saturate`]) places every piece in a region per pawn configuration and asks, in
//! [`super::blocked::flight_argument`], whether the loser's king keeps a flight square wherever it could be in
//! check. That final step knows neither whose move it is nor where the two kings stood a move earlier, so it
//! fails on fortresses like `8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w` for Black: a mate on h4 needs h3 covered,
//! only the black king on h2 can cover it, the black king can step to h2 only while the white king is on h4, and
//! then White, to move, is stalemated (its king has no square, its pawns are stopped). [`tempo_argument`] decides
//! such a configuration exactly on an abstract game of the two kings and the side to move.

use super::blocked::Cover;
use crate::bitboard::{king_attacks, Bitboard};
use crate::types::{Color, Piece, Square};

/// Abstract positions: the loser king's square × the winner king's square × the side to move.
const STATES: usize = 64 * 64 * 2;
/// Squares of the loser king's region at most: a king with more room can nearly always lose a tempo (a triangle
/// of squares), so the search would only cost time (it runs on every query that reaches it).
const MAX_LOSER_SQUARES: u32 = 8;

/// Where abstract play may enter a pawn configuration: a king on a square of `loser` and one on a square of
/// `winner` (two kings not next to each other), the side to move, and whether the loser may be in check.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// The squares the loser's king may stand on.
    pub(super) loser: Bitboard,
    /// The squares the winner's king may stand on.
    pub(super) winner: Bitboard,
    /// The loser is to move.
    pub(super) loser_to_move: bool,
    /// The loser's king may be in check (only with the loser to move).
    pub(super) check: bool,
}

/// Whether a king of the winner leaving `from` may discover a check on a king on `l`: `from` on a line from `l`
/// (rank, file or diagonal) with no pawn strictly between them, and beyond `from`, before the first pawn, a
/// square of `diag` (bishop or queen regions) on a diagonal, of `orth` (rook or queen regions) on a rank or file.
/// `pawns` are the pieces surely in the way (the kings' dance, [`super::dance`], passes its fixed pieces that
/// are not the winner's line pieces).
pub(super) fn discovers(
    l: Square,
    from: Square,
    pawns: Bitboard,
    diag: Bitboard,
    orth: Bitboard,
) -> bool {
    let (lf, lr) = (i32::from(l.file()), i32::from(l.rank()));
    let (ff, fr) = (i32::from(from.file()), i32::from(from.rank()));
    let (df, dr) = (ff - lf, fr - lr);
    if (df, dr) == (0, 0) || !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
        return false;
    }
    let (sf, sr) = (df.signum(), dr.signum());
    let sliders = if sf != 0 && sr != 0 { diag } else { orth };
    // The squares from `l` (excluded) along the line through `from`, to the edge.
    let ray = std::iter::successors(Square::from_coords(lf + sf, lr + sr), |s| {
        Square::from_coords(i32::from(s.file()) + sf, i32::from(s.rank()) + sr)
    });
    let mut passed = false;
    for sq in ray {
        if sq == from {
            passed = true;
            continue;
        }
        if pawns.contains(sq) {
            return false;
        }
        if passed && sliders.contains(sq) {
            return true;
        }
    }
    false
}

/// The tempo argument for one pawn configuration: `pawns` (both colours), `winner_pawn_att` the squares the
/// winner's pawns attack, and per non-pawn piece `pieces[i]` = (colour index, role index), its region `reach[i]`
/// in this configuration and `att[i]` = [`super::blocked::region_attacks`] of it (as for
/// [`super::blocked::flight_argument`]); `entries` every way play may enter the configuration. `Some(n)` (the
/// abstract positions reached) when no position of this configuration reachable from an entry is a checkmate
/// of the loser; `None` when one may be, when the loser has a piece other than its king and pawns, or when its
/// king's region has more than [`MAX_LOSER_SQUARES`] squares (a bound on the cost, not part of the proof).
///
/// Proof. The loser has only its king and pawns, and never more (the fortress proof gives up at any reachable
/// promotion, FIDE 3.7.5); no castling right remains (the caller checks: a castling move moves a rook too). Map
/// a position P of this configuration to (l, w, side to move): the two kings' squares. Take any series of legal
/// moves from an entry staying in the configuration (a pawn move or a capture of a pawn leaves it; positions
/// after it are the next configuration's concern). Each move is one of:
/// 1. a move of the winner's king (not castling) from w to w' in KING\[w\] ∩ R(winner's king): w' is in the king's
///    region by the fortress invariant, and not next to l (FIDE 3.8.2: kings never stand next to each other).
///    Before it the loser was not in check (the side not to move never is, FIDE 3.9.1 and 1.4.1: each move
///    leaves its own king out of check). A king never gives check itself (it would stand next to the other
///    king), and only `from` became empty, so a check after it is discovered: some winner's bishop, rook or
///    queen Y on a line from l through w, all squares between empty, w between them, Y on a square of its
///    region: [`discovers`] over-approximates this (only pawns block, every square of the region may hold Y);
/// 2. a move of one of the winner's other pieces (it has one): the kings stay; after it the loser may be in
///    check only from a winner's pawn or piece, which attacks l from its region (lines stopped by pawns only:
///    every other piece only blocks more), so only if l is in `attacked` below;
/// 3. a move of the loser's king from l to l' in KING\[l\] ∩ R(loser's king), l' not next to w (FIDE 3.8.2); the
///    loser has no other move that stays in the configuration (no pieces; a pawn move leaves it).
///
/// So the abstract positions reached below by these three kinds of steps from the entries contain every
/// reachable position's image, with, when the loser is to move, whether it may be in check. A checkmate of the
/// loser (FIDE 3.9.1, 1.4.1) needs the loser to move, in check, with no legal move. Let `attacked` be every
/// square a winner's pawn attacks or a winner's non-king piece attacks from its region (lines stopped by pawns
/// only, so x-rays through the loser's king count), `occupied` every square of a winner's non-king piece's
/// region. A neighbour f of l that holds no pawn, is not in `attacked` or `occupied` and not next to w is empty
/// (the loser has no piece to stand there, the winner's king is on w) and is attacked by no winner's piece once
/// the king stands on it: the king's move there is legal (FIDE 3.8.2), so there is no checkmate. Each abstract
/// position with the loser to move and possibly in check is tested so; when every one has such a square, no
/// reachable position of this configuration is a checkmate of the loser. Larger regions or more entries only
/// add abstract positions and attacks, so the argument is monotone like the fortress proof's final step.
pub(super) fn tempo_argument(
    pawns: Bitboard,
    winner_pawn_att: Bitboard,
    winner: Color,
    pieces: &[Piece],
    reach: &[Bitboard],
    att: &[Bitboard],
    entries: &[Entry],
) -> Option<u64> {
    let Cover {
        attacked,
        occupied,
        winner_king,
        loser_king,
        diag,
        orth,
        winner_pieces: can_pass,
        loser_pieces,
    } = Cover::of(winner_pawn_att, winner, pieces, reach, att);
    if loser_pieces || loser_king.count() > MAX_LOSER_SQUARES {
        return None;
    }
    // A checkmate of a king on `l` with the winner's king on `w` is possible: `l` attackable and no sure flight.
    let mate = |l: Square, w: Square| {
        let touched = king_attacks(w).with(w);
        attacked.contains(l)
            && (king_attacks(l) & !pawns & !attacked & !occupied & !touched).is_empty()
    };
    let mut game = Abstract::default();
    for e in entries {
        for l in e.loser & loser_king {
            for w in e.winner & winner_king & !king_attacks(l).with(l) {
                if e.loser_to_move && e.check && mate(l, w) {
                    return None;
                }
                game.add(l, w, e.loser_to_move);
            }
        }
    }
    while let Some((l, w, loser_to_move)) = game.next() {
        if loser_to_move {
            for l2 in steps(l, loser_king, w) {
                game.add(l2, w, false);
            }
            continue;
        }
        let to = steps(w, winner_king, l);
        // A discovered check is possible after any king move: every destination must leave a flight.
        if !to.is_empty() && discovers(l, w, pawns, diag, orth) && to.iter().any(|w2| mate(l, w2)) {
            return None;
        }
        for w2 in to {
            game.add(l, w2, true);
        }
        if can_pass {
            if mate(l, w) {
                return None;
            }
            game.add(l, w, true);
        }
    }
    Some(game.met())
}

/// The squares a king on `from` may step to in `region`, not on or next to the other king on `other` (FIDE
/// 3.8.2).
pub(super) fn steps(from: Square, region: Bitboard, other: Square) -> Bitboard {
    king_attacks(from) & region & !king_attacks(other).with(other)
}

/// The abstract positions of [`tempo_argument`] (and of the kings' dance, [`super::dance`]) met so far (a bit
/// each) and the queue of those to expand.
pub(super) struct Abstract {
    seen: [u64; STATES / 64],
    queue: Vec<u16>,
    done: usize,
}

impl Default for Abstract {
    fn default() -> Abstract {
        Abstract {
            seen: [0; STATES / 64],
            queue: Vec::new(),
            done: 0,
        }
    }
}

impl Abstract {
    /// Add the loser's king on `l`, the winner's on `w`, `loser_to_move`, when not met yet.
    pub(super) fn add(&mut self, l: Square, w: Square, loser_to_move: bool) {
        let i = (l.index() * 64 + w.index()) * 2 + usize::from(loser_to_move);
        if self.seen[i / 64] & (1u64 << (i % 64)) == 0 {
            self.seen[i / 64] |= 1u64 << (i % 64);
            self.queue.push(i as u16);
        }
    }

    /// The next abstract position to expand, in the order they were met.
    pub(super) fn next(&mut self) -> Option<(Square, Square, bool)> {
        let i = *self.queue.get(self.done)? as usize;
        self.done += 1;
        Some((
            Square::new((i / 128) as u8),
            Square::new((i / 2 % 64) as u8),
            i % 2 == 1,
        ))
    }

    /// The abstract positions met so far.
    pub(super) fn met(&self) -> u64 {
        self.queue.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        Square::parse(name).expect("a square name")
    }

    #[test]
    fn discovered_checks_need_a_slider_region_beyond_the_king() {
        let e = Bitboard::EMPTY;
        let bit = |s: &str| Bitboard::from_square(sq(s));
        // King on h1, winner's king on h4 leaving: a rook region on h6 beyond it discovers; a pawn on h5 stops it.
        assert!(discovers(sq("h1"), sq("h4"), e, e, bit("h6")));
        assert!(!discovers(sq("h1"), sq("h4"), bit("h5"), e, bit("h6")));
        // A pawn between the two kings stops it too, and a bishop region does not act along a file.
        assert!(!discovers(sq("h1"), sq("h4"), bit("h2"), e, bit("h6")));
        assert!(!discovers(sq("h1"), sq("h4"), e, bit("h6"), e));
        // Diagonals: a1 through c3 to a bishop region on f6.
        assert!(discovers(sq("a1"), sq("c3"), e, bit("f6"), e));
        assert!(!discovers(sq("a1"), sq("c3"), e, e, bit("f6")));
        // Not on a line.
        assert!(!discovers(
            sq("a1"),
            sq("b3"),
            Bitboard::EMPTY,
            Bitboard::ALL,
            Bitboard::ALL
        ));
    }
}
