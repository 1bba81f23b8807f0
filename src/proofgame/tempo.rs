//! The finishing stage of the staged search (issue 32 item 2, the tempo stall): from a position one or two
//! moves from the target by the guide's estimate, a short exhaustive search to the exact target.
//!
//! The climb stalls there when the side to move is wrong: the target's placement reached with the other side
//! to move, or the last move (a pawn's step, `5k2/6P1/7K/8/8/8/8/8 b`: g6–g7+) due from the side that just
//! moved. The side to move changes only by moving, so one side must lose a tempo: a king, queen, rook or
//! bishop plays an odd cycle (three moves along a line or a triangle: a1–a3, a3–a2, a2–a1; a knight's
//! moves always change the colour of its square, so it has none; FIDE 3.2–3.6) while the other side moves
//! out and back. The estimate counts none of these moves, so the climb never finds them; this search does:
//! iterative deepening over the lengths with the right parity (at most [`MAX_PLIES`]), over moves that keep
//! the target's material (no capture: the target has as many units) and its castling rights (FIDE 3.8.2: a
//! right lost is never regained), pruned by the squares each side still has to change (a move changes at most
//! two of its own side's), within [`NODE_CAP`] positions expanded.
//!
//! Nothing here is a proof: the caller replays the whole game by the reference generator before returning it.

use super::guided::Reached;
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen;

/// Positions one call expands at most (each generates its moves).
const NODE_CAP: u32 = 2_000;
/// The longest finish tried, in plies.
const MAX_PLIES: u32 = 7;

/// Squares where `b`'s units of colour `c` differ from the target's.
fn misplaced(b: &Board, goal: &Reached, c: usize) -> u32 {
    let (roles, colors) = goal.placement();
    let mut diff = 0u64;
    for (r, &gr) in roles.iter().enumerate() {
        diff |= (b.roles[r] & b.colors[c]) ^ (gr & colors[c]);
    }
    diff.count_ones()
}

struct Finish<'a> {
    cd: &'a CastlingData,
    goal: &'a Reached,
    nodes: u32,
    moves: Vec<u32>,
}

impl Finish<'_> {
    /// Whether `left` plies from `b` reach the target; the moves in `self.moves`.
    fn dfs(&mut self, b: &Board, left: u32) -> bool {
        if left == 0 {
            return self.goal.by(b);
        }
        // The side to move has the odd ply of `left`; a move changes at most two of its side's squares (one
        // left, one entered; castling is excluded below).
        let (me, them) = (b.turn as usize, b.turn as usize ^ 1);
        if misplaced(b, self.goal, me) > 2 * left.div_ceil(2)
            || misplaced(b, self.goal, them) > 2 * (left / 2)
        {
            return false;
        }
        if self.nodes >= NODE_CAP {
            return false;
        }
        self.nodes += 1;
        let count = (b.colors[0] | b.colors[1]).count_ones();
        for &m in movegen::moves::<MagicSliders>(b, self.cd).as_slice() {
            let next = b.make::<true>(self.cd, m);
            if next.castling != b.castling
                || (next.colors[0] | next.colors[1]).count_ones() != count
            {
                continue;
            }
            self.moves.push(m);
            if self.dfs(&next, left - 1) {
                return true;
            }
            self.moves.pop();
        }
        false
    }
}

/// From `b` (as many units as the target, its castling rights), the moves (fast generator's encoding) to the
/// exact target within [`MAX_PLIES`], or `None` (see the module docs).
pub(super) fn finish(b: &Board, cd: &CastlingData, goal: &Reached) -> Option<Vec<u32>> {
    let mut f = Finish {
        cd,
        goal,
        nodes: 0,
        moves: Vec::new(),
    };
    // Lengths of the right parity: the side to move after them is the target's.
    let first = if goal.by_turn(b) { 2 } else { 1 };
    for depth in (first..=MAX_PLIES).step_by(2) {
        if f.dfs(b, depth) {
            return Some(f.moves);
        }
        f.moves.clear();
        if f.nodes >= NODE_CAP {
            break;
        }
    }
    None
}
