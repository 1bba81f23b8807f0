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
//!
//! The first line (each position's first move, from the root down) does not depend on the intended winner: the
//! walks of a position's two winners share it ([`FirstLine`], kept with the position after its forced moves), so
//! the second walk takes its boards and first moves from the first's instead of generating them again.

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
/// `line` is `root`'s [`FirstLine`] (empty, or as an earlier walk from `root` left it).
pub(super) fn every_line(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    max_nodes: u64,
    line: &mut FirstLine,
) -> (Option<u64>, u64) {
    let mut walk = Walk {
        cd,
        winner,
        budget: max_nodes.min(BUDGET),
        visited: 0,
        line,
    };
    let proved = walk.ends_well(root, PLIES, true);
    (proved.then_some(walk.visited), walk.visited)
}

/// The first line of a root: the boards along it (each the one before after its first move) and the first move
/// of each, in the generator's order ([`FirstMove`]); as far down as a walk has gone. The same for every intended
/// winner (a board and its moves are), so a position's walks share it.
#[derive(Clone, Debug, Default)]
pub(super) struct FirstLine(Vec<(Board, Option<u32>)>);

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
pub(super) const GATE_MOVES: usize = 8;
// The root's count is exact up to here ([`super::COUNT_CAP`]).
const _: () = assert!((GATE_MOVES as u64) < super::COUNT_CAP);

/// The walk of [`every_line`]: the castling data, the intended winner, the positions it may visit and those
/// visited so far, and the root's first line.
struct Walk<'a> {
    cd: &'a CastlingData,
    winner: Color,
    budget: u64,
    visited: u64,
    line: &'a mut FirstLine,
}

impl Walk<'_> {
    /// Whether every line from `b` (its material not looked at yet) ends as the module says within `plies`
    /// plies, counting `b` and the positions after it in `visited`. The moves are tried in the generator's
    /// order, the first before the others are listed ([`FirstMove`]): the same positions visited, in the same
    /// order, as over the full list. `on_line`: `b` is on the root's first line (at depth [`PLIES`] − `plies`),
    /// whose boards and first moves come from [`FirstLine`] where an earlier walk made them.
    fn ends_well(&mut self, b: &Board, plies: u32, on_line: bool) -> bool {
        if self.visited >= self.budget {
            return false;
        }
        self.visited += 1;
        if material_rule(b, self.winner).is_some() {
            return true;
        }
        let depth = (PLIES - plies) as usize;
        let first = if on_line {
            self.line_first(b, depth)
        } else {
            FirstMove::of(b, self.cd)
        };
        let Some(first) = first else {
            return game_over_well(b, self.winner);
        };
        if plies == 0 {
            return false;
        }
        let child = match self.line.0.get(depth + 1) {
            Some(&(next, _)) if on_line => next,
            _ => b.make::<false>(self.cd, first),
        };
        if !self.ends_well(&child, plies - 1, on_line) {
            return false;
        }
        let list = legal(b, self.cd);
        debug_assert_eq!(list.as_slice().first(), Some(&first));
        self.all_end_well(b, plies, &list.as_slice()[1..])
    }

    /// The first move of `b`, the board at `depth` of the root's first line: the line's, or found and added to it.
    fn line_first(&mut self, b: &Board, depth: usize) -> Option<u32> {
        if let Some(&(_, first)) = self.line.0.get(depth) {
            debug_assert_eq!(self.line.0[depth].0, *b);
            return first;
        }
        debug_assert_eq!(self.line.0.len(), depth);
        let first = FirstMove::of(b, self.cd);
        if self.line.0.is_empty() {
            self.line.0.reserve_exact(PLIES as usize + 1);
        }
        self.line.0.push((*b, first));
        first
    }

    /// [`Walk::ends_well`] after each of `moves` from `b` (none of them its first), with `plies` left before them.
    fn all_end_well(&mut self, b: &Board, plies: u32, moves: &[u32]) -> bool {
        moves
            .iter()
            .all(|&m| self.ends_well(&b.make::<false>(self.cd, m), plies - 1, false))
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

    /// A walk over a [`FirstLine`] that an earlier walk (the other winner's, with any budget) left gives the
    /// same answer and the same positions visited as a walk with a fresh one, on random-game positions.
    #[test]
    fn shared_first_line_changes_nothing() {
        let mut rng = Rng::new(9);
        let (mut proved, mut shared) = (0, 0);
        for game in 0..3_000 {
            let setup = random_position(&mut rng, game % 3 == 0, 300);
            let (b, cd) = Board::from_setup(&setup);
            for winner in Color::ALL {
                let fresh = every_line(&b, &cd, winner, 2_000, &mut FirstLine::default());
                for budget in [1, 3, 7, 2_000] {
                    let mut line = FirstLine::default();
                    let _ = every_line(&b, &cd, !winner, budget, &mut line);
                    shared += usize::from(line.0.len() > 1);
                    let again = every_line(&b, &cd, winner, 2_000, &mut line);
                    assert_eq!(again, fresh, "{} {winner:?} {budget}", setup.to_fen());
                }
                proved += usize::from(fresh.0.is_some());
            }
        }
        assert!(proved > 0 && shared > 1_000, "{proved} {shared}");
    }

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
