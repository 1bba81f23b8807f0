//! (c) Blocked structure (semi-static, FIDE 1.5): pawns that can never move again, the squares each piece can
//! ever reach, and the proof that the winner can never give mate inside them.

use super::{attacks, pawn_attacks, squares_of, Reason, Region};
use crate::fast::attacks::{KING, PAWN};
use crate::fast::board::{Board, KING_I, NO_EP, PAWN_I};
use crate::types::{Color, Piece, Role, Square};
use crate::validate::Checked;

/// Squares `role` can reach from `start` moving through `passable` squares, with slider lines stopped by `occ`.
fn flood(role: usize, start: usize, passable: u64, occ: u64) -> u64 {
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
/// stays in its region forever. Over-approximate what the winner can ever do: `attacked`, every square a winner's
/// pawn attacks, or a winner's piece attacks from a square of its region (lines stopped by pawns only), or the
/// winner's king touches from its region; `occupied`, every square of a winner's non-king piece's region. For
/// each square `k` the loser's king can reach and a winner's pawn or non-king piece can attack (elsewhere it is
/// never in check: a king never gives check; nor can it stand next to a winner's king that can never move), count
/// the neighbours of `k` that hold no pawn and that the winner can never attack or occupy ("free" squares): only
/// the loser's own non-king pieces could ever stand there, one square each. If at every such `k` the free
/// squares outnumber the loser's pieces that can reach any of them, the king on `k` always has a flight square
/// (moving there is legal: never attacked, never occupied by the winner, FIDE 3.8), so it is never checkmated.
pub(super) fn blocked_reason(b: &Board, winner: Color) -> Option<Reason> {
    let (pawns, regions) = blocked_structure(b)?;
    let w = winner.index();
    let mut attacked = pawn_attacks(pawns & b.colors[w], w);
    // What can give check: pawns and pieces other than the king (a king never checks, FIDE 3.8.2).
    let mut checks = attacked;
    let mut occupied = 0;
    let mut loser_king = 0;
    let mut loser_pieces = Vec::new();
    for reg in &regions {
        let role = reg.piece.role.index();
        match (reg.piece.color == winner, role == KING_I) {
            (true, is_king) => {
                let mut att = 0;
                for s in squares_of(reg.reach) {
                    att |= attacks(role, s.index(), pawns);
                }
                attacked |= att;
                if !is_king {
                    occupied |= reg.reach;
                    checks |= att;
                }
            }
            (false, true) => loser_king = reg.reach,
            (false, false) => loser_pieces.push(reg.reach),
        }
    }
    // A winner's king that can never leave its square keeps the loser's king off that square and its neighbours
    // (kings never stand next to each other, FIDE 3.8.2).
    for reg in &regions {
        if reg.piece.color == winner
            && reg.piece.role.index() == KING_I
            && reg.reach.count_ones() == 1
        {
            loser_king &= !(reg.reach | KING[reg.reach.trailing_zeros() as usize]);
        }
    }
    let mut checkable = loser_king & checks;
    while checkable != 0 {
        let k = checkable.trailing_zeros() as usize;
        checkable &= checkable - 1;
        let free = KING[k] & !pawns & !attacked & !occupied;
        let blockers = loser_pieces.iter().filter(|&&r| r & free != 0).count();
        if free.count_ones() as usize <= blockers {
            return None;
        }
    }
    Some(Reason::Blocked { pawns, regions })
}

/// The squares `defender`'s pieces (its king and other pieces, not its pawns) can never reach in `pos`, when
/// the blocked-structure argument proves that the other side can never checkmate (`None` otherwise): the
/// fortress, for pictures (`analyze --svg`). Pawn squares are left out.
pub fn fortress(pos: &Checked, defender: Color) -> Option<u64> {
    let (root, _) = Board::from_setup(pos.setup());
    match blocked_reason(&root, !defender)? {
        Reason::Blocked { pawns, regions } if pawns != 0 => {
            let reach = regions
                .iter()
                .filter(|r| r.piece.color == defender)
                .fold(0, |acc, r| acc | r.reach);
            Some(!reach & !pawns)
        }
        _ => None,
    }
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
