//! (c) Blocked structure (semi-static, FIDE 1.5): pawns that can never move again, the squares each piece can
//! ever reach, and the proof that the winner can never give mate inside them.

use super::{attacks, pawn_attacks, squares_of, Reason, Region};
use crate::bitboard::attacks::{KING, PAWN};
use crate::bitboard::board::{Board, BISHOP_I, KING_I, NO_EP, PAWN_I, QUEEN_I, ROOK_I};
use crate::types::{Color, Piece, Role, Square};

/// Squares `role` can reach from `start` moving through `passable` squares, with slider lines stopped by `occ`.
pub(super) fn flood(role: usize, start: usize, passable: u64, occ: u64) -> u64 {
    let mut reach = 1u64 << start;
    let mut frontier = reach;
    while frontier != 0 {
        let s = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let next = attacks(role, s, occ) & passable & !reach;
        reach |= next;
        frontier |= next;
    }
    reach
}

/// The fixed pawn structure of `b`: `Some(pawns, regions)` when the proof below holds for every pawn and piece.
///
/// Proof (by induction on the moves of any continuation, up to the first move that changes the pawns): a pawn is
/// *blocked* when the square in front holds a blocked pawn (greatest fixed point: two pawns facing each other block
/// each other) or a king whose region (below) is its own square only: kings are never captured, so such a king stands
/// there for as long as the pawns do. No pawn can capture now (no enemy piece on a square it attacks, no e.p. square).
/// Each king can only walk through squares that hold no pawn and that no enemy pawn attacks (FIDE 3.8.2: moving onto an
/// attacked square is illegal, and these attacks last while the pawns stand); it may never stand next to an enemy pawn
/// that no other enemy pawn defends, unless the enemy king stands next to that pawn and can never move (kings never
/// stand next to each other, FIDE 3.8.2). Every other piece moves through squares without pawns (lines stopped by pawns
/// only: other pieces can move away or be captured, which only shrinks the region), its region never attacks an enemy
/// pawn and never contains a square an enemy pawn attacks. Then no move can ever capture a pawn or be a pawn move, so
/// the pawns stand forever and every piece stays in its region.
fn blocked_structure(b: &Board) -> Option<(u64, Vec<Region>)> {
    let r = &b.roles;
    let pawns = r[PAWN_I];
    let kings = r[KING_I];
    let mut fixed = pawns;
    loop {
        let white = fixed & b.colors[0] & ((fixed | kings) >> 8);
        let black = fixed & b.colors[1] & ((fixed | kings) << 8);
        let next = white | black;
        if next == fixed {
            break;
        }
        fixed = next;
    }
    if fixed != pawns || b.ep != NO_EP {
        return None;
    }
    // Kings standing right in front of a pawn: each must be unable to ever leave its square (checked below).
    let blocking_kings = kings & (((pawns & b.colors[0]) << 8) | ((pawns & b.colors[1]) >> 8));
    let pawn_att = [
        pawn_attacks(pawns & b.colors[0], 0),
        pawn_attacks(pawns & b.colors[1], 1),
    ];
    if pawn_att[0] & b.colors[1] != 0 || pawn_att[1] & b.colors[0] != 0 {
        return None;
    }
    // A king that can never move guards its neighbours for good: the other king never stands next to it.
    let guard = [0, 1].map(|c: usize| {
        let k = kings & b.colors[c];
        if k == 0 {
            return 0;
        }
        let reach = flood(
            KING_I,
            k.trailing_zeros() as usize,
            !(pawns | pawn_att[c ^ 1]),
            pawns,
        );
        if reach.count_ones() == 1 {
            KING[reach.trailing_zeros() as usize]
        } else {
            0
        }
    });
    let mut regions = Vec::new();
    let mut pieces = (b.colors[0] | b.colors[1]) & !pawns;
    while pieces != 0 {
        let sq = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let bit = 1u64 << sq;
        let c = usize::from(b.colors[1] & bit != 0);
        let role = b.role_on(bit);
        let enemy_pawns = pawns & b.colors[c ^ 1];
        let enemy_att = pawn_att[c ^ 1];
        let reach = if role == KING_I {
            let reach = flood(KING_I, sq, !(pawns | enemy_att), pawns);
            let touch = squares_of(reach)
                .iter()
                .fold(0, |acc, s| acc | KING[s.index()]);
            if touch & enemy_pawns & !(enemy_att | guard[c ^ 1]) != 0 {
                return None;
            }
            if blocking_kings & bit != 0 && reach != bit {
                return None;
            }
            reach
        } else {
            let reach = flood(role, sq, !pawns, pawns);
            let att = squares_of(reach)
                .iter()
                .fold(0, |acc, s| acc | attacks(role, s.index(), pawns));
            if att & enemy_pawns != 0 || reach & enemy_att != 0 {
                return None;
            }
            reach
        };
        let color = if c == 0 { Color::White } else { Color::Black };
        regions.push(Region {
            piece: Piece::new(color, Role::ALL[role]),
            square: Square::new(sq as u8),
            reach,
        });
    }
    Some((pawns, regions))
}

/// The blocked-structure proof for `winner`: the structure is fixed (see [`blocked_structure`]), so every piece
/// stays in its region forever, and [`flight_argument`] shows that the loser's king is never checkmated there.
pub(super) fn blocked_reason(b: &Board, winner: Color) -> Option<Reason> {
    let (pawns, regions) = blocked_structure(b)?;
    let w = winner.index();
    let pieces: Vec<(usize, usize)> = regions
        .iter()
        .map(|r| (r.piece.color.index(), r.piece.role.index()))
        .collect();
    let reach: Vec<u64> = regions.iter().map(|r| r.reach).collect();
    let att: Vec<u64> = regions
        .iter()
        .map(|r| region_attacks(r.piece.role.index(), r.reach, pawns))
        .collect();
    let winner_pawn_att = pawn_attacks(pawns & b.colors[w], w);
    if !flight_argument(pawns, winner_pawn_att, w, &pieces, &reach, &att) {
        return None;
    }
    Some(Reason::Blocked { pawns, regions })
}

/// Every square `role` attacks from some square of `reach`, lines stopped by `pawns` only (a king: its
/// neighbours).
pub(super) fn region_attacks(role: usize, reach: u64, pawns: u64) -> u64 {
    let mut att = 0;
    let mut bits = reach;
    while bits != 0 {
        att |= attacks(role, bits.trailing_zeros() as usize, pawns);
        bits &= bits - 1;
    }
    att
}

/// What the pieces of one pawn configuration can do, from their regions (the inputs of [`flight_argument`] and
/// of [`super::tempo::tempo_argument`]).
pub(super) struct Cover {
    /// Every square a winner's pawn attacks or a winner's non-king piece attacks from its region.
    pub(super) attacked: u64,
    /// Every square of a winner's non-king piece's region.
    pub(super) occupied: u64,
    /// The region of the winner's king.
    pub(super) winner_king: u64,
    /// The region of the loser's king.
    pub(super) loser_king: u64,
    /// The regions of the winner's bishops and queens (diagonal lines).
    pub(super) diag: u64,
    /// The regions of the winner's rooks and queens (ranks and files).
    pub(super) orth: u64,
    /// The winner has a piece other than its king and pawns.
    pub(super) winner_pieces: bool,
    /// The loser has a piece other than its king and pawns.
    pub(super) loser_pieces: bool,
}

impl Cover {
    /// The cover of `pieces` (colour index, role index) with regions `reach` and their attacks `att`, and the
    /// squares the winner's pawns attack, `winner_pawn_att`.
    pub(super) fn of(
        winner_pawn_att: u64,
        winner: usize,
        pieces: &[(usize, usize)],
        reach: &[u64],
        att: &[u64],
    ) -> Cover {
        let mut c = Cover {
            attacked: winner_pawn_att,
            occupied: 0,
            winner_king: 0,
            loser_king: 0,
            diag: 0,
            orth: 0,
            winner_pieces: false,
            loser_pieces: false,
        };
        for (i, &(color, role)) in pieces.iter().enumerate() {
            match (color == winner, role == KING_I) {
                (true, true) => c.winner_king |= reach[i],
                (true, false) => {
                    c.attacked |= att[i];
                    c.occupied |= reach[i];
                    c.winner_pieces = true;
                    if role == BISHOP_I || role == QUEEN_I {
                        c.diag |= reach[i];
                    }
                    if role == ROOK_I || role == QUEEN_I {
                        c.orth |= reach[i];
                    }
                }
                (false, true) => c.loser_king = reach[i],
                (false, false) => c.loser_pieces = true,
            }
        }
        c
    }
}

/// The final step of the blocked-structure proof ([`blocked_reason`]) and of the fortress proof
/// ([`super::saturate`]), for one pawn configuration: `pawns` (both colours), `winner_pawn_att` the squares the
/// winner's pawns attack, and for each non-pawn piece `pieces[i]` = (colour index, role index) the squares
/// `reach[i]` it may stand on while these pawns stand, and `att[i]` = [`region_attacks`] of that region. Whether
/// the loser's king, in any position with these pawns and every piece in its region, can never be checkmated.
///
/// Proof. Over-approximate what the winner's pawns and non-king pieces can ever do: `attacked`, every square a
/// winner's pawn attacks or a winner's non-king piece attacks from a square of its region (lines stopped by pawns
/// only: other pieces only stop more); `occupied`, every square of a winner's non-king piece's region.
/// Checkmate needs check (FIDE 3.9.1, 1.4.1), and a king never gives check (it may not stand next to the other
/// king, FIDE 3.8.2), so the mated king stands on a square `k` of its region that a winner's pawn or non-king
/// piece can attack; nor can it stand on or next to a winner's king whose region is one square. Let `free` be the
/// neighbours of `k` that hold no pawn and that no winner's pawn or non-king piece can ever attack or occupy. In
/// the mate the winner's king stands on a square `q` of its region, not next to `k` (FIDE 3.8.2), and covers at
/// most the neighbours of `q`; every other free square must hold one of the loser's own non-king pieces, one
/// square each (an empty, unattacked neighbour is a legal flight, FIDE 3.7, 3.8.2). So if for every such `q` the
/// free squares `q` does not touch outnumber the loser's pieces whose region meets them, or one of them is in no
/// such region, the king on `k` always has a flight square: it is never checkmated. (First the same test with the
/// squares the winner's king may ever touch all taken away: when it passes, every `q` passes too, since any
/// subset of the free squares that must stay empty leaves a flight.)
pub(super) fn flight_argument(
    pawns: u64,
    winner_pawn_att: u64,
    winner: usize,
    pieces: &[(usize, usize)],
    reach: &[u64],
    att: &[u64],
) -> bool {
    let Cover {
        attacked,
        occupied,
        winner_king,
        mut loser_king,
        ..
    } = Cover::of(winner_pawn_att, winner, pieces, reach, att);
    // What can give check: pawns and pieces other than the king (a king never checks, FIDE 3.8.2).
    let checks = attacked;
    // A winner's king that can never leave its square keeps the loser's king off that square and its neighbours
    // (kings never stand next to each other, FIDE 3.8.2).
    if winner_king.count_ones() == 1 {
        loser_king &= !(winner_king | KING[winner_king.trailing_zeros() as usize]);
    }
    let king_touch = region_attacks(KING_I, winner_king, 0);
    let loser_reach = pieces
        .iter()
        .zip(reach)
        .filter(|&(&(color, role), _)| color != winner && role != KING_I)
        .fold(0, |acc, (_, &r)| acc | r);
    let mut checkable = loser_king & checks;
    while checkable != 0 {
        let k = checkable.trailing_zeros() as usize;
        checkable &= checkable - 1;
        let free = KING[k] & !pawns & !attacked & !occupied;
        // Whether some of the squares `rest` must stay empty: more of them than loser's pieces that can reach
        // any (each piece fills one square), or one that no loser's piece can reach.
        let has_flight = |rest: u64| {
            let blockers = pieces
                .iter()
                .zip(reach)
                .filter(|&(&(color, role), &r)| color != winner && role != KING_I && r & rest != 0)
                .count();
            rest.count_ones() as usize > blockers || rest & !loser_reach != 0
        };
        // Wherever the winner's king is, the free squares it can never touch; else each square `q` it may stand
        // on in the mate (its region, not on or next to `k`), one at a time.
        if has_flight(free & !king_touch) {
            continue;
        }
        let mut spots = winner_king & !KING[k] & !(1u64 << k);
        while spots != 0 {
            let q = spots.trailing_zeros() as usize;
            spots &= spots - 1;
            if !has_flight(free & !KING[q]) {
                return false;
            }
        }
    }
    true
}

/// Whether the blocked-structure argument ([`blocked_reason`]) may answer differently after move `m` than in
/// `b`: after a capture, a pawn move, castling, a move from a position with an e.p. square, or a king leaving a
/// square an enemy pawn attacks. After any other move every pawn and piece is where it was or, for the moved
/// piece, in the same region (regions are connected components of symmetric move graphs fixed by the pawns),
/// and the argument depends only on the pawns, the regions and the e.p. square.
pub(super) fn may_unblock(b: &Board, m: u32) -> bool {
    let (from, to, role) = (
        ((m >> 6) & 63) as usize,
        (m & 63) as usize,
        (m >> 16) as usize,
    );
    let us = b.turn as usize;
    let them = b.colors[us ^ 1];
    them & (1 << to) != 0
        || role == PAWN_I
        || (m >> 14) & 3 == 3
        || b.ep != NO_EP
        || (role == KING_I && PAWN[us][from] & them & b.roles[PAWN_I] != 0)
}
