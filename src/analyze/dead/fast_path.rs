//! The quick and scan paths of [`super::decide_next`] (FIDE 1.5, 6.9): the gates that keep their costly proofs
//! to the positions where those proofs can succeed, and their small search.
//!
//! A gate is never a proof: it only skips a proof (the position is then `Undetermined` on these paths, and the
//! default path still tries everything). Every figure below was measured on CHA-Solver's test files
//! (tests/lichess.txt: 65,536 final positions of real games; tests/positions.txt: 3,414 hard ones), one thread.

use super::closure::{self, Closure};
use super::helpmate::helpmate_search;
use super::{Limit, Limits, Root};
use crate::bitboard::board::Board;
use crate::bitboard::{piece_attacks, Bitboard};
use crate::types::{Color, Role};
use std::time::Instant;

/// Nodes of the quick path's closure (gated by [`CLOSURE_GATE_MOVES`]).
const QUICK_NODES: u64 = 3_000;
/// Nodes of the quick path's helpmate probe.
const QUICK_PROBE_NODES: u64 = 1_000;
/// The quick and scan paths run their small closure only when the side to move has at most this many legal
/// moves: a closure of [`QUICK_NODES`] positions closes only where almost nothing can move, and an open
/// position would spend its whole budget for nothing.
pub(super) const CLOSURE_GATE_MOVES: u64 = 8;
// The root's count is exact up to here ([`super::COUNT_CAP`]).
const _: () = assert!(CLOSURE_GATE_MOVES < super::COUNT_CAP);
/// ... and the other side at most this many moves, roughly counted ([`other_side_mobility`]). Measured on
/// CHA-Solver's test files, scan mode, one thread (2026-12-03): without this gate tests/lichess.txt took 2.7 s
/// CPU and tests/positions.txt proved 2,433 queries unwinnable; with 24, 1.9 s and 2,433; with 16, 1.44 s and
/// 2,419 (CHA-Solver's fast check: 2,334); with 12, 1.45 s and 2,416. Lichess proved 2,410 at every setting.
const CLOSURE_GATE_OTHER_MOVES: u32 = 16;
/// The small closure and the fortress proof run only where the two kings' rooms ([`king_room`]) multiply to at
/// most this. Measured 2026-12-03 (scan mode, one thread): on tests/lichess.txt the closure ran for 291
/// queries and the fortress proof for 4,658, about three fifths of the scan's decision time, and proved
/// nothing; with this gate 30 and 1,364, and the proofs on tests/positions.txt went from 2,361 queries to
/// 2,353 (2,351 at 2,000; the fortress gate alone cost none; CHA-Solver's fast check proves 2,334).
const KING_ROOM_GATE: u64 = 2_400;

/// The small closure's own bound on the kings' rooms, below [`KING_ROOM_GATE`]: the kings alone then make
/// about twice this many positions (each placement with either side to move), near the closure's
/// [`QUICK_NODES`]. Measured 2026-12-07 (scan mode, one thread): on 10,372 final positions of Stockfish's games
/// against itself the closure ran for 4 queries at 2,400, each to its whole budget (3,004 nodes, a tenth of
/// the scan's instructions), and for none at 2,000 (−6.8 % instructions); the proofs at 2,400 and 2,000:
/// CHA-Solver's tests/positions.txt 2,353 and 2,351 (its fast check 2,334), CHA's vectors 1,558 and 1,556
/// (1,542), tests/lichess.txt 2,410 both; at 1,500, 2,334 on tests/positions.txt.
const CLOSURE_KING_ROOM_GATE: u64 = 2_000;

/// Whether some pawn has no unit of either colour anywhere ahead of it on its file. The fortress proof over pawn
/// configurations then meets the configuration where that pawn promotes (pieces step aside) and gives up, so the
/// quick and scan paths skip it (a gate only, never a proof: the default path still tries it). Most real game
/// positions have such a pawn, and the proof's regions were a fifth of the scan's time; the gate cost no proof
/// on CHA-Solver's test files (scan mode, 2026-12-03: tests/lichess.txt 2,409 and tests/positions.txt 2,369
/// queries proved unwinnable with and without it).
pub(super) fn free_pawn(root: &Board) -> bool {
    let white = root.pieces(Color::White, Role::Pawn);
    let black = root.pieces(Color::Black, Role::Pawn);
    // The squares with a unit somewhere above (for White) and below (for Black) on the file.
    let units = root.occupied_all();
    let (mut ahead_w, mut ahead_b) = (units.forward(Color::Black), units.forward(Color::White));
    for _ in 0..5 {
        ahead_w |= ahead_w.forward(Color::Black);
        ahead_b |= ahead_b.forward(Color::White);
    }
    !(white & !ahead_w).is_empty() || !(black & !ahead_b).is_empty()
}

/// Whether at least max(1, pawns / 2 − 2) pawns stand blocked by an enemy pawn in front of them (after the
/// "low entropy" condition of CHA-Solver's fast check, which tries its deeper steps only then). A gate of the
/// quick and scan paths' fortress proof, never a proof. Measured with the closure's [`free_pawn`] gate, scan
/// mode, one thread, CHA-Solver's test files (2026-12-03, shared machine, two runs): tests/lichess.txt
/// 1.79–1.83 s CPU before, 1.12–1.21 s with both gates, 2,410 proved either way; tests/positions.txt
/// 2,419 proved before, 2,379 with both (CHA-Solver's fast check: 2,334).
pub(super) fn mostly_blocked(root: &Board) -> bool {
    let pawns = |c: Color| root.pieces(c, Role::Pawn);
    let blocked = (pawns(Color::White).forward(Color::White) & pawns(Color::Black)).count();
    let all = root.role(Role::Pawn).count();
    blocked >= (all / 2).saturating_sub(2).max(1)
}

/// The pseudo-legal moves of the side not to move, counted roughly (each piece's attacked squares not held by
/// its own side, each pawn's push onto an empty square and captures): the side to move having few moves is not
/// enough for the small closure when the other side moves freely.
fn other_side_mobility(root: &Board) -> u32 {
    let them = !root.turn();
    let (own, occ) = (root.occupied(them), root.occupied_all());
    let pawns = root.pieces(them, Role::Pawn);
    let pushes = pawns.forward(them) & !occ;
    let captures = pawns.pawn_attacks(them) & root.occupied(!them);
    let pieces = (own & !pawns).iter().map(|sq| {
        let role = root.role_at(sq).unwrap_or(Role::King);
        (piece_attacks(role, sq, occ) & !own).count()
    });
    pushes.count() + captures.count() + pieces.sum::<u32>()
}

/// The gate of the quick and scan paths' small closure: the side to move has at most [`CLOSURE_GATE_MOVES`]
/// legal moves, the other side at most [`CLOSURE_GATE_OTHER_MOVES`] ([`other_side_mobility`]), some pawn
/// stands blocked by an enemy pawn in front of it (after CHA-Solver's fast check,
/// which tries its deeper steps only on mutually blocked pawn structures), and no pawn has an empty file ahead
/// ([`free_pawn`]: its promotion alone would fill the closure's budget). A closure of [`QUICK_NODES`]
/// positions closes only where almost nothing can move; measured: on CHA-Solver's tests/positions.txt the
/// scan proves 2,399 queries unwinnable with the move gate alone and 2,369 with both (1,877 with no closure),
/// and on the first 4,000 queries of its tests/lichess.txt the blocked-pawn gate halves the scan's time.
/// `root_moves`: the side to move's legal moves, as the root counted them ([`Root::count`], exact up to the
/// gate).
fn closure_may_close(root: &Board, root_moves: u64) -> bool {
    let pawns = |c: Color| root.pieces(c, Role::Pawn);
    let blocked = pawns(Color::White).forward(Color::White) & pawns(Color::Black);
    !blocked.is_empty()
        && !free_pawn(root)
        && king_room(root) <= CLOSURE_KING_ROOM_GATE
        && root_moves <= CLOSURE_GATE_MOVES
        && other_side_mobility(root) <= CLOSURE_GATE_OTHER_MOVES
}

/// The quick and scan paths after the static proofs, with `left` nodes: a small helpmate probe (quick only),
/// then, where the side to move has at most [`CLOSURE_GATE_MOVES`] moves, a closure of [`QUICK_NODES`]
/// positions. The outcome and the nodes used; `Stopped(Limit::Quick)` when these small steps decided nothing
/// with nodes left.
pub(super) fn small_search(
    shared: &Root,
    winner: Color,
    limits: &Limits,
    left: u64,
    deadline: Option<Instant>,
    closure_stopped: &mut bool,
) -> (Closure, u64) {
    let (root, cd) = (&shared.board, &shared.cd);
    let mut used = 0;
    if !limits.scan {
        let probe = left.min(QUICK_PROBE_NODES);
        let (found, n) = helpmate_search(shared.keyed(), cd, winner, probe, probe, 2, deadline);
        used += n;
        match found {
            Ok(line) => return (Closure::Mate(line), used),
            Err(Limit::Time) => return (Closure::Stopped(Limit::Time), used),
            Err(_) => {}
        }
    }
    let left = left - used;
    if left == 0 {
        return (Closure::Stopped(Limit::Nodes), used);
    }
    if (limits.scan && *closure_stopped) || !closure_may_close(root, shared.count) {
        return (Closure::Stopped(Limit::Quick), used);
    }
    let mut run = closure::Run::new(shared.keyed());
    let before = run.len();
    let share = QUICK_NODES;
    let outcome = run.run(cd, winner, share.min(before + left), deadline);
    used += run.len() - before;
    if matches!(outcome, Closure::Stopped(Limit::Nodes)) {
        *closure_stopped = true;
    }
    let outcome = match outcome {
        Closure::Stopped(Limit::Nodes) if left > share => Closure::Stopped(Limit::Quick),
        other => other,
    };
    (outcome, used)
}

/// The gate of the quick and scan paths' fortress proof: no pawn has an empty file ahead ([`free_pawn`]), enough
/// pawns stand blocked ([`mostly_blocked`]) and the kings' rooms are small ([`KING_ROOM_GATE`]).
pub(super) fn fortress_may_hold(root: &Board) -> bool {
    !free_pawn(root) && mostly_blocked(root) && king_room(root) <= KING_ROOM_GATE
}

/// The product of the two kings' rooms: for each king, the squares it reaches by king steps from its own
/// square over squares that hold no pawn and no unit of its own and that no enemy pawn attacks (pawns as they
/// stand now, other enemy units ignored). Where both kings roam, the closure of all reachable positions holds
/// at least about as many king placements as this product, and a fortress needs a wall between the kings; a
/// rough size, used only as a gate.
fn king_room(b: &Board) -> u64 {
    let pawns = b.role(Role::Pawn);
    Color::ALL
        .iter()
        .map(|&c| {
            let enemy_pawns = pawns & b.occupied(!c);
            let passable = !pawns & !b.occupied(c) & !enemy_pawns.pawn_attacks(!c);
            let mut room = b.pieces(c, Role::King);
            loop {
                let next = room | (king_steps(room) & passable);
                if next == room {
                    break u64::from(room.count());
                }
                room = next;
            }
        })
        .product()
}

/// The squares a king step away from some square of `set` (the union of [`crate::bitboard::king_attacks`] over
/// `set`, FIDE 3.8.1), by shifts: the king's room grew square by square before, a twentieth of a scan of real
/// positions.
fn king_steps(set: Bitboard) -> Bitboard {
    let (not_a, not_h) = (!Bitboard::file(0), !Bitboard::file(7));
    let sideways = Bitboard((set.0 << 1) & not_a.0) | Bitboard((set.0 >> 1) & not_h.0);
    let row = set | sideways;
    sideways | Bitboard(row.0 << 8) | Bitboard(row.0 >> 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::attacks::MagicSliders;
    use crate::bitboard::king_attacks;
    use crate::bitboard::movegen as mg;
    use crate::random::{random_position, Rng};

    /// The root's count ([`mg::count_up_to`], [`super::super::COUNT_CAP`]) against the whole count ([`mg::count`],
    /// which the perft tests check against the reference generator): the same below the cap, at least the cap
    /// and at most the whole count from there, on random-game positions (both starts; checks, double checks,
    /// castling, en passant, promotions) and every cap from 0 to 40.
    #[test]
    fn count_up_to_is_the_count_below_its_cap() {
        let mut rng = Rng::new(71);
        let (mut stopped, mut exact) = (0, 0);
        for game in 0..2_000 {
            let setup = random_position(&mut rng, game % 3 == 0, game % 200);
            let (b, cd) = Board::from_setup(&setup);
            let all = mg::count::<MagicSliders>(&b, &cd);
            for cap in 0..=40 {
                let capped = mg::count_up_to::<MagicSliders>(&b, &cd, cap);
                if all < cap {
                    assert_eq!(capped, all, "{} cap {cap}", setup.to_fen());
                    exact += 1;
                } else {
                    assert!(
                        cap <= capped && capped <= all,
                        "{} cap {cap}: {capped} of {all}",
                        setup.to_fen()
                    );
                    stopped += usize::from(capped < all);
                }
            }
        }
        assert!(stopped > 10_000 && exact > 10_000, "{stopped} {exact}");
    }

    /// [`king_steps`] is the union of [`king_attacks`] over the set, on random sets (of 1 to 64 squares), every
    /// single square and the empty and full boards.
    #[test]
    fn king_steps_is_the_union_of_king_attacks() {
        let mut next = super::super::xorshift(0x2545_F491_4F6C_DD1D);
        let singles = (0..64).map(|i| 1u64 << i);
        let randoms = (0..20_000).map(|k| {
            let mut x = next();
            for _ in 0..(k % 4) {
                x &= next();
            }
            x
        });
        for set in singles.chain([0, !0]).chain(randoms).map(Bitboard) {
            let union = set
                .iter()
                .fold(Bitboard::EMPTY, |acc, s| acc | king_attacks(s));
            assert_eq!(king_steps(set), union, "{:#x}", set.0);
        }
    }
}
