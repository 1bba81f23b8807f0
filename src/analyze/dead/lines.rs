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
//! costs one pass of the move generator per ply of one line: a position's first move alone is taken
//! ([`FirstMove`], no list built) and its other moves are listed only once the line through the first has
//! ended (on real game positions the first line almost never does); it decides the positions where every move
//! captures the last mating material (`8/6K1/8/p7/kQ6/8/8/8 b`: both of Black's moves take the queen).

use super::material::material_rule;
use super::{in_check, legal};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen::{self as mg, Consumer, Sink};
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
    let mut walk = Walk {
        cd,
        winner,
        budget: max_nodes.min(BUDGET),
        visited: 1,
    };
    let proved =
        material_rule(root, winner).is_some() || walk.moves_end_well(root, PLIES, root_moves);
    (proved.then_some(walk.visited), walk.visited)
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

/// The walk of [`every_line`]: the castling data, the intended winner, the positions it may visit and those
/// visited so far.
struct Walk<'a> {
    cd: &'a CastlingData,
    winner: Color,
    budget: u64,
    visited: u64,
}

impl Walk<'_> {
    /// Whether every line from `b` (its material not looked at yet) ends as the module says within `plies`
    /// plies, counting `b` and the positions after it in `visited`. The moves are tried in the generator's
    /// order, the first before the others are listed ([`FirstMove`]): the same positions visited, in the same
    /// order, as [`Walk::moves_end_well`] over the full list.
    fn ends_well(&mut self, b: &Board, plies: u32) -> bool {
        if self.visited >= self.budget {
            return false;
        }
        self.visited += 1;
        if material_rule(b, self.winner).is_some() {
            return true;
        }
        let Some(first) = FirstMove::of(b, self.cd) else {
            return game_over_well(b, self.winner);
        };
        if plies == 0 || !self.ends_well(&b.make::<false>(self.cd, first), plies - 1) {
            return false;
        }
        let list = legal(b, self.cd);
        debug_assert_eq!(list.as_slice().first(), Some(&first));
        self.all_end_well(b, plies, &list.as_slice()[1..])
    }

    /// [`Walk::ends_well`] after each of `moves` from `b`, with `plies` left before them.
    fn all_end_well(&mut self, b: &Board, plies: u32, moves: &[u32]) -> bool {
        moves
            .iter()
            .all(|&m| self.ends_well(&b.make::<false>(self.cd, m), plies - 1))
    }

    /// [`Walk::ends_well`] of a position whose material was looked at, with its legal moves.
    fn moves_end_well(&mut self, b: &Board, plies: u32, moves: &[u32]) -> bool {
        if moves.is_empty() {
            return game_over_well(b, self.winner);
        }
        plies > 0 && self.all_end_well(b, plies, moves)
    }
}

/// A position without legal moves ends the game: stalemate or the winner checkmated end it well; the loser
/// checkmated is the mate itself (FIDE 5.1.1, 5.2.1).
fn game_over_well(b: &Board, winner: Color) -> bool {
    b.turn() == winner || !in_check(b)
}

/// The first legal move in the generator's order (the first of [`legal`]'s list), found by one pass of the
/// generator that expands no target set and builds no list: a [`Sink`] that keeps the first move it is
/// offered, packed as [`Consumer`]s get it.
struct FirstMove(Option<u32>);

impl FirstMove {
    fn of(b: &Board, cd: &CastlingData) -> Option<u32> {
        let mut first = FirstMove(None);
        mg::generate::<MagicSliders, _>(b, cd, &mut first);
        first.0
    }
}

/// The [`Consumer`] that keeps the first move it takes (for the pawn moves, packed by the generator's own
/// [`mg::pawn_moves_to`]).
struct Keep(Option<u32>);

impl Consumer for Keep {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.0.get_or_insert(m);
    }
}

impl Sink for FirstMove {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, targets: u64) {
        if self.0.is_none() && targets != 0 {
            self.0 = Some(mg::pack(role, from, targets.trailing_zeros()));
        }
    }
    #[inline(always)]
    fn pawns(&mut self, targets: u64, delta: i32, promo: u64) {
        if self.0.is_none() && targets != 0 {
            let mut keep = Keep(None);
            mg::pawn_moves_to(targets.trailing_zeros(), delta, promo, &mut keep);
            self.0 = keep.0;
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.0.get_or_insert(mg::pack_ep(from, to));
    }
    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.0.get_or_insert(mg::pack_castle(king, rook));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{random_position, Rng};

    /// [`FirstMove`] is the first move of the generator's list, on random-game positions (standard and
    /// Chess960 starts: castling, en passant, promotions) and on positions without a move.
    #[test]
    fn first_move_is_the_lists_first() {
        let mut rng = Rng::new(5);
        let mut none = 0;
        for game in 0..3_000 {
            let setup = random_position(&mut rng, game % 3 == 0, 300);
            let (b, cd) = Board::from_setup(&setup);
            let first = FirstMove::of(&b, &cd);
            assert_eq!(
                first,
                legal(&b, &cd).as_slice().first().copied(),
                "{}",
                setup.to_fen()
            );
            none += usize::from(first.is_none());
        }
        assert!(none > 0, "no position without a move");
    }
}
