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
use crate::types::Color;

/// Plies of the lines explored.
pub(super) const PLIES: u32 = 4;
/// Positions visited at most.
const BUDGET: u64 = 2_000;

/// Whether every line of at most [`PLIES`] plies from `root` ends as the module says, visiting at most
/// `max_nodes` positions (and at most [`BUDGET`]): `Some(positions)` when it does, and the positions visited.
pub(super) fn every_line(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    max_nodes: u64,
) -> (Option<u64>, u64) {
    let mut visited = 0;
    let budget = max_nodes.min(BUDGET);
    let proved = ends_well(root, cd, winner, PLIES, budget, &mut visited);
    (proved.then_some(visited), visited)
}

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
    let moves = list.as_slice();
    if moves.is_empty() {
        // Stalemate or the winner checkmated ends the game; the loser checkmated is the mate itself.
        return b.turn as usize == winner.index() || !in_check(b);
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
