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
use crate::bitboard::attacks::KING;

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
    pub(super) loser: u64,
    /// The squares the winner's king may stand on.
    pub(super) winner: u64,
    /// The loser is to move.
    pub(super) loser_to_move: bool,
    /// The loser's king may be in check (only with the loser to move).
    pub(super) check: bool,
}

/// Whether a king of the winner leaving `from` may discover a check on a king on `l`: `from` on a line from `l`
/// (rank, file or diagonal) with no pawn strictly between them, and beyond `from`, before the first pawn, a
/// square of `diag` (bishop or queen regions) on a diagonal, of `orth` (rook or queen regions) on a rank or file.
fn discovers(l: usize, from: usize, pawns: u64, diag: u64, orth: u64) -> bool {
    let (lf, lr) = ((l % 8) as i32, (l / 8) as i32);
    let (ff, fr) = ((from % 8) as i32, (from / 8) as i32);
    let (df, dr) = (ff - lf, fr - lr);
    if (df, dr) == (0, 0) || !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
        return false;
    }
    let (sf, sr) = (df.signum(), dr.signum());
    let sliders = if sf != 0 && sr != 0 { diag } else { orth };
    let bit = |f: i32, r: i32| 1u64 << (r * 8 + f);
    let (mut f, mut r) = (lf + sf, lr + sr);
    while (f, r) != (ff, fr) {
        if pawns & bit(f, r) != 0 {
            return false;
        }
        f += sf;
        r += sr;
    }
    let (mut f, mut r) = (ff + sf, fr + sr);
    while (0..8).contains(&f) && (0..8).contains(&r) {
        if pawns & bit(f, r) != 0 {
            return false;
        }
        if sliders & bit(f, r) != 0 {
            return true;
        }
        f += sf;
        r += sr;
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
    pawns: u64,
    winner_pawn_att: u64,
    winner: usize,
    pieces: &[(usize, usize)],
    reach: &[u64],
    att: &[u64],
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
    if loser_pieces {
        return None;
    }
    if loser_king.count_ones() > MAX_LOSER_SQUARES {
        return None;
    }
    // A checkmate of a king on `l` with the winner's king on `w` is possible: `l` attackable and no sure flight.
    let mate = |l: usize, w: usize| {
        attacked & (1u64 << l) != 0
            && KING[l] & !pawns & !attacked & !occupied & !KING[w] & !(1u64 << w) == 0
    };
    let index =
        |l: usize, w: usize, loser_to_move: bool| (l * 64 + w) * 2 + usize::from(loser_to_move);
    let mut seen = vec![0u64; STATES / 64];
    let mut queue: Vec<u16> = Vec::new();
    let mut add = |l: usize, w: usize, loser_to_move: bool, queue: &mut Vec<u16>| {
        let i = index(l, w, loser_to_move);
        if seen[i / 64] & (1u64 << (i % 64)) == 0 {
            seen[i / 64] |= 1u64 << (i % 64);
            queue.push(i as u16);
        }
    };
    for e in entries {
        let mut ls = e.loser & loser_king;
        while ls != 0 {
            let l = ls.trailing_zeros() as usize;
            ls &= ls - 1;
            let mut ws = e.winner & winner_king & !KING[l] & !(1u64 << l);
            while ws != 0 {
                let w = ws.trailing_zeros() as usize;
                ws &= ws - 1;
                if e.loser_to_move && e.check && mate(l, w) {
                    return None;
                }
                add(l, w, e.loser_to_move, &mut queue);
            }
        }
    }
    let mut done = 0;
    while done < queue.len() {
        let i = queue[done] as usize;
        done += 1;
        let (l, w, loser_to_move) = (i / 128, (i / 2) % 64, i % 2 == 1);
        if loser_to_move {
            let mut to = KING[l] & loser_king & !KING[w] & !(1u64 << w);
            while to != 0 {
                let l2 = to.trailing_zeros() as usize;
                to &= to - 1;
                add(l2, w, false, &mut queue);
            }
            continue;
        }
        let mut to = KING[w] & winner_king & !KING[l] & !(1u64 << l);
        if to != 0 && discovers(l, w, pawns, diag, orth) {
            // A discovered check is possible after any king move: every destination must leave a flight.
            let mut t = to;
            while t != 0 {
                if mate(l, t.trailing_zeros() as usize) {
                    return None;
                }
                t &= t - 1;
            }
        }
        while to != 0 {
            let w2 = to.trailing_zeros() as usize;
            to &= to - 1;
            add(l, w2, true, &mut queue);
        }
        if can_pass {
            if mate(l, w) {
                return None;
            }
            add(l, w, true, &mut queue);
        }
    }
    Some(queue.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> usize {
        let b = name.as_bytes();
        usize::from(b[1] - b'1') * 8 + usize::from(b[0] - b'a')
    }

    #[test]
    fn discovered_checks_need_a_slider_region_beyond_the_king() {
        let bit = |s: &str| 1u64 << sq(s);
        // King on h1, winner's king on h4 leaving: a rook region on h6 beyond it discovers; a pawn on h5 stops it.
        assert!(discovers(sq("h1"), sq("h4"), 0, 0, bit("h6")));
        assert!(!discovers(sq("h1"), sq("h4"), bit("h5"), 0, bit("h6")));
        // A pawn between the two kings stops it too, and a bishop region does not act along a file.
        assert!(!discovers(sq("h1"), sq("h4"), bit("h2"), 0, bit("h6")));
        assert!(!discovers(sq("h1"), sq("h4"), 0, bit("h6"), 0));
        // Diagonals: a1 through c3 to a bishop region on f6.
        assert!(discovers(sq("a1"), sq("c3"), 0, bit("f6"), 0));
        assert!(!discovers(sq("a1"), sq("c3"), 0, 0, bit("f6")));
        // Not on a line.
        assert!(!discovers(sq("a1"), sq("b3"), 0, !0, !0));
    }
}
