//! (b') Every short line ends without mate (FIDE 1.5, 5.1.1, 5.2.1): every series of legal moves from the
//! position reaches, within a few plies, a position where the intended winner lacks mating material
//! ([`super::material`]) or the game is over (stalemate, or the winner checkmated), and no position on the way is
//! a checkmate of the loser.
//!
//! Proof: every position reachable from the root is either in the explored tree (each checked: none is a
//! checkmate of the loser) or reachable from one of its leaves. A leaf where the game is over has nothing after
//! it; a leaf with insufficient material is unwinnable by [`super::material`]'s rule, which holds for every
//! position reachable from it. So no reachable position is a checkmate of the loser.
//!
//! The search is depth first and stops at the first line that ends elsewhere, so on an ordinary position it
//! costs a move generation per ply of one line; it decides the positions where every move captures the last
//! mating material (`8/6K1/8/p7/kQ6/8/8/8 b`: both of Black's moves take the queen).

use super::material::material_rule;
use super::{in_check, legal};
use crate::bitboard::board::{Board, CastlingData};
use crate::types::{Color, Role};

/// Plies of the lines explored.
pub(super) const PLIES: u32 = 4;
/// Positions visited at most.
const BUDGET: u64 = 2_000;

/// Whether every line of at most [`PLIES`] plies from `root` ends as the module says, visiting at most
/// `max_nodes` positions (and at most [`BUDGET`]): `Some(positions)` when it does, and the positions visited.
/// `root_moves` are the root's legal moves (the caller has them).
pub(super) fn every_line(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    max_nodes: u64,
    root_moves: &[u32],
) -> (Option<u64>, u64) {
    let mut visited = 1;
    let budget = max_nodes.min(BUDGET);
    let proved = material_rule(root, winner).is_some()
        || moves_end_well(root, cd, winner, PLIES, budget, &mut visited, root_moves);
    (proved.then_some(visited), visited)
}

/// The fast paths' gate of [`every_line`] (a gate, never a proof): whether the proof may hold at all. Each ply
/// takes at most one of the winner's pawns, rooks and queens off (a capture, or an underpromotion of a pawn),
/// and mating material ([`super::material`]) needs them all gone, so with more of them than [`PLIES`] every
/// line must end in a game over (stalemate or the winner checkmated), which is only met where there are few
/// moves: at most [`GATE_MOVES`] at the root. Measured on CHA-Solver's tests/positions.txt (2026-12-03): of
/// the 166 queries the scan proved by this proof, 12 have both more pawns, rooks and queens and more root
/// moves.
pub(super) fn may_end(root: &Board, winner: Color, root_moves: usize) -> bool {
    let heavy = root.occupied(winner)
        & (root.role(Role::Pawn) | root.role(Role::Rook) | root.role(Role::Queen));
    heavy.count() <= PLIES || root_moves <= GATE_MOVES
}

/// Root moves at most for the [`may_end`] gate with more heavy units than plies.
const GATE_MOVES: usize = 8;

fn ends_well(
    b: &Board,
    cd: &CastlingData,
    winner: Color,
    plies: u32,
    budget: u64,
    visited: &mut u64,
) -> bool {
    if *visited >= budget {
        return false;
    }
    *visited += 1;
    if material_rule(b, winner).is_some() {
        return true;
    }
    let list = legal(b, cd);
    moves_end_well(b, cd, winner, plies, budget, visited, list.as_slice())
}

/// [`ends_well`] of a position whose material was looked at, with its legal moves.
fn moves_end_well(
    b: &Board,
    cd: &CastlingData,
    winner: Color,
    plies: u32,
    budget: u64,
    visited: &mut u64,
    moves: &[u32],
) -> bool {
    if moves.is_empty() {
        // Stalemate or the winner checkmated ends the game; the loser checkmated is the mate itself.
        return b.turn() == winner || !in_check(b);
    }
    plies > 0
        && moves.iter().all(|&m| {
            ends_well(
                &b.make::<true>(cd, m),
                cd,
                winner,
                plies - 1,
                budget,
                visited,
            )
        })
}
