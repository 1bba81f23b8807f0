//! (c) Blocked structure (semi-static, FIDE 1.5): pawns that can never move again, the squares each piece can
//! ever reach, and the proof that the winner can never give mate inside them.

use super::{Reason, Region};
use crate::bitboard::board::Board;
use crate::bitboard::{king_attacks, pawn_attacks, piece_attacks, unpack, Bitboard};
use crate::types::{Color, MoveKind, Piece, Role, Square};

/// Squares `role` can reach from `start` moving through `passable` squares, with slider lines stopped by `occ`.
pub(super) fn flood(role: Role, start: Square, passable: Bitboard, occ: Bitboard) -> Bitboard {
    let mut reach = Bitboard::from_square(start);
    let mut frontier = reach;
    while let Some(s) = frontier.first() {
        frontier = frontier.without(s);
        let next = piece_attacks(role, s, occ) & passable & !reach;
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
fn blocked_structure(b: &Board) -> Option<(Bitboard, Vec<Region>)> {
    let pawns = b.role(Role::Pawn);
    let kings = b.role(Role::King);
    let pawns_of = |c: Color| b.pieces(c, Role::Pawn);
    let mut fixed = pawns;
    loop {
        let in_front = |c: Color| (fixed | kings).forward(!c);
        let next = (fixed & b.occupied(Color::White) & in_front(Color::White))
            | (fixed & b.occupied(Color::Black) & in_front(Color::Black));
        if next == fixed {
            break;
        }
        fixed = next;
    }
    if fixed != pawns || b.ep_square().is_some() {
        return None;
    }
    // Kings standing right in front of a pawn: each must be unable to ever leave its square (checked below).
    let blocking_kings = kings
        & (pawns_of(Color::White).forward(Color::White)
            | pawns_of(Color::Black).forward(Color::Black));
    let pawn_att = Color::ALL.map(|c| pawns_of(c).pawn_attacks(c));
    let attacked_by = |c: Color| pawn_att[c.index()];
    if attacked_by(Color::White).intersects(b.occupied(Color::Black))
        || attacked_by(Color::Black).intersects(b.occupied(Color::White))
    {
        return None;
    }
    // A king that can never move guards its neighbours for good: the other king never stands next to it.
    let guard = Color::ALL.map(|c| {
        let Some(k) = b.king(c) else {
            return Bitboard::EMPTY;
        };
        let reach = flood(Role::King, k, !(pawns | attacked_by(!c)), pawns);
        reach.single().map_or(Bitboard::EMPTY, king_attacks)
    });
    let mut regions = Vec::new();
    for sq in b.occupied_all() & !pawns {
        let piece = b.piece_at(sq)?;
        let c = piece.color;
        let enemy_pawns = pawns_of(!c);
        let enemy_att = attacked_by(!c);
        let reach = if piece.role == Role::King {
            let reach = flood(Role::King, sq, !(pawns | enemy_att), pawns);
            let touch = region_attacks(Role::King, reach, Bitboard::EMPTY);
            if touch.intersects(enemy_pawns & !(enemy_att | guard[(!c).index()])) {
                return None;
            }
            if blocking_kings.contains(sq) && reach != Bitboard::from_square(sq) {
                return None;
            }
            reach
        } else {
            let reach = flood(piece.role, sq, !pawns, pawns);
            let att = region_attacks(piece.role, reach, pawns);
            if att.intersects(enemy_pawns) || reach.intersects(enemy_att) {
                return None;
            }
            reach
        };
        regions.push(Region {
            piece,
            square: sq,
            reach: reach.0,
        });
    }
    Some((pawns, regions))
}

/// The blocked-structure proof for `winner`: the structure is fixed (see [`blocked_structure`]), so every piece
/// stays in its region forever, and [`flight_argument`] shows that the loser's king is never checkmated there.
pub(super) fn blocked_reason(b: &Board, winner: Color) -> Option<Reason> {
    if never_blocked(b, winner) {
        return None;
    }
    blocked_reason_of_regions(b, winner)
}

/// Whether [`blocked_reason`] fails for a reason seen without the regions: no pawn is left and the winner has a
/// knight, rook or queen. With no pawns that piece's region is the whole board (the knight's and the rook's
/// move graphs on an empty board are connected) and it attacks every square from it, so no neighbour of the
/// loser's king is ever free, and the winner's king (whose region, with no pawns, is the whole board) has a
/// square not next to the loser's king: [`flight_argument`] finds no flight. The helpmate search asks after
/// every capture, and in real game positions these endgames were most of its cost (a flood of every piece's
/// region each time; 4.6 % of the instructions of the first 4,096 queries of CHA-Solver's tests/lichess.txt).
fn never_blocked(b: &Board, winner: Color) -> bool {
    let heavy = b.role(Role::Knight) | b.role(Role::Rook) | b.role(Role::Queen);
    b.role(Role::Pawn).is_empty() && b.occupied(winner).intersects(heavy)
}

/// [`blocked_reason`] from the regions, with no shortcut.
fn blocked_reason_of_regions(b: &Board, winner: Color) -> Option<Reason> {
    let (pawns, regions) = blocked_structure(b)?;
    let pieces: Vec<Piece> = regions.iter().map(|r| r.piece).collect();
    let reach: Vec<Bitboard> = regions.iter().map(|r| Bitboard(r.reach)).collect();
    let att: Vec<Bitboard> = regions
        .iter()
        .map(|r| region_attacks(r.piece.role, Bitboard(r.reach), pawns))
        .collect();
    let winner_pawn_att = b.pieces(winner, Role::Pawn).pawn_attacks(winner);
    if !flight_argument(pawns, winner_pawn_att, winner, &pieces, &reach, &att) {
        return None;
    }
    Some(Reason::Blocked {
        pawns: pawns.0,
        regions,
    })
}

/// Every square `role` attacks from some square of `reach`, lines stopped by `pawns` only (a king: its
/// neighbours).
pub(super) fn region_attacks(role: Role, reach: Bitboard, pawns: Bitboard) -> Bitboard {
    reach.iter().fold(Bitboard::EMPTY, |att, s| {
        att | piece_attacks(role, s, pawns)
    })
}

/// What the pieces of one pawn configuration can do, from their regions (the inputs of [`flight_argument`] and
/// of [`super::tempo::tempo_argument`]).
pub(super) struct Cover {
    /// Every square a winner's pawn attacks or a winner's non-king piece attacks from its region.
    pub(super) attacked: Bitboard,
    /// Every square of a winner's non-king piece's region.
    pub(super) occupied: Bitboard,
    /// The region of the winner's king.
    pub(super) winner_king: Bitboard,
    /// The region of the loser's king.
    pub(super) loser_king: Bitboard,
    /// The regions of the winner's bishops and queens (diagonal lines).
    pub(super) diag: Bitboard,
    /// The regions of the winner's rooks and queens (ranks and files).
    pub(super) orth: Bitboard,
    /// The winner has a piece other than its king and pawns.
    pub(super) winner_pieces: bool,
    /// The loser has a piece other than its king and pawns.
    pub(super) loser_pieces: bool,
}

impl Cover {
    /// The cover of `pieces` with regions `reach` and their attacks `att`, and the squares the winner's pawns
    /// attack, `winner_pawn_att`.
    pub(super) fn of(
        winner_pawn_att: Bitboard,
        winner: Color,
        pieces: &[Piece],
        reach: &[Bitboard],
        att: &[Bitboard],
    ) -> Cover {
        let mut c = Cover {
            attacked: winner_pawn_att,
            occupied: Bitboard::EMPTY,
            winner_king: Bitboard::EMPTY,
            loser_king: Bitboard::EMPTY,
            diag: Bitboard::EMPTY,
            orth: Bitboard::EMPTY,
            winner_pieces: false,
            loser_pieces: false,
        };
        for (i, piece) in pieces.iter().enumerate() {
            match (piece.color == winner, piece.role == Role::King) {
                (true, true) => c.winner_king |= reach[i],
                (true, false) => {
                    c.attacked |= att[i];
                    c.occupied |= reach[i];
                    c.winner_pieces = true;
                    if matches!(piece.role, Role::Bishop | Role::Queen) {
                        c.diag |= reach[i];
                    }
                    if matches!(piece.role, Role::Rook | Role::Queen) {
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
    pawns: Bitboard,
    winner_pawn_att: Bitboard,
    winner: Color,
    pieces: &[Piece],
    reach: &[Bitboard],
    att: &[Bitboard],
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
    if let Some(w) = winner_king.single() {
        loser_king &= !(winner_king | king_attacks(w));
    }
    let king_touch = region_attacks(Role::King, winner_king, Bitboard::EMPTY);
    // The loser's non-king pieces' regions.
    let blockers = || {
        pieces
            .iter()
            .zip(reach)
            .filter(|&(p, _)| p.color != winner && p.role != Role::King)
            .map(|(_, &r)| r)
    };
    let loser_reach = blockers().fold(Bitboard::EMPTY, |acc, r| acc | r);
    for k in loser_king & checks {
        let free = king_attacks(k) & !pawns & !attacked & !occupied;
        // Whether some of the squares `rest` must stay empty: more of them than loser's pieces that can reach
        // any (each piece fills one square), or one that no loser's piece can reach.
        let has_flight = |rest: Bitboard| {
            let n = blockers().filter(|r| r.intersects(rest)).count();
            rest.count() as usize > n || rest.intersects(!loser_reach)
        };
        // Wherever the winner's king is, the free squares it can never touch; else each square `q` it may stand
        // on in the mate (its region, not on or next to `k`), one at a time.
        if has_flight(free & !king_touch) {
            continue;
        }
        let spots = winner_king & !king_attacks(k) & !Bitboard::from_square(k);
        if spots.iter().any(|q| !has_flight(free & !king_attacks(q))) {
            return false;
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
    let (mv, role) = unpack(m);
    let us = b.turn();
    let them = b.occupied(!us);
    them.contains(mv.to())
        || role == Role::Pawn
        || mv.kind() == MoveKind::Castling
        || b.ep_square().is_some()
        || (role == Role::King && pawn_attacks(us, mv.from()).intersects(them & b.role(Role::Pawn)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::dead::legal_into;
    use crate::position::Setup;

    /// The shortcut of [`blocked_reason`] only answers where the regions give no proof either: along seeded
    /// random walks from pawnless positions (and ones whose pawns get captured), wherever [`never_blocked`]
    /// holds, the full argument fails too, for both winners.
    #[test]
    fn the_pawnless_shortcut_agrees_with_the_regions() {
        let fens = [
            "8/8/3k4/8/8/2NK4/8/8 w - - 0 1",
            "7k/8/6K1/8/8/8/8/R7 w - - 0 1",
            "4k3/8/8/8/3q4/8/2B5/4K3 b - - 0 1",
            "n6k/8/8/8/8/8/8/K6N w - - 0 1",
            "4k3/3p4/8/8/8/8/3P4/3QK3 w - - 0 1",
            "1k6/8/1K6/8/8/8/8/1B1b2N1 w - - 0 1",
        ];
        let mut next = super::super::xorshift(0x2545_F491_4F6C_DD1Du64);
        let mut shortcut = 0;
        for fen in fens {
            let (root, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            for _ in 0..30 {
                let mut b = root;
                for _ in 0..40 {
                    for winner in Color::ALL {
                        if never_blocked(&b, winner) {
                            shortcut += 1;
                            assert!(
                                blocked_reason_of_regions(&b, winner).is_none(),
                                "{fen}: {b:?} for {winner:?}"
                            );
                        }
                    }
                    let mut moves = Vec::new();
                    legal_into(&b, &cd, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    b = b.make::<false>(&cd, moves[(next() % moves.len() as u64) as usize]);
                }
            }
        }
        assert!(shortcut > 2_000, "{shortcut}");
    }
}
