//! The closure: every position reachable from the root, exactly compared (FIDE 1.5: "by any possible series of
//! legal moves"). When it closes with no checkmate of the loser, the winner can never mate; when it meets one,
//! the line to it is a shortest helpmate.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_reason;
use super::{exact_key, in_check, legal, Limit};
use crate::fast::board::{Board, CastlingData};
use crate::types::Color;
use hashbrown::HashMap;
use std::time::Instant;

pub(super) enum Closure {
    Mate(Vec<u32>, u64),
    Closed(u64),
    Stopped(Limit, u64),
}

/// Breadth-first over every position reachable from `root` (exact keys), stopping at the first checkmate of the
/// loser (its line is a shortest helpmate). Positions where a material rule or the blocked-structure argument
/// proves the winner cannot mate are not expanded (a proof covers everything after them). The blocked-structure
/// argument is only re-tried after a capture, a pawn move, castling or an e.p. square: after any other move every
/// piece stays in the region it had (regions are connected components of symmetric move graphs), so the
/// argument gives the same answer as in the parent.
pub(super) fn closure(
    root: &Board,
    cd: &CastlingData,
    winner: Color,
    state_limit: u64,
    deadline: Option<Instant>,
) -> Closure {
    let mut seen: HashMap<[u64; 8], ()> = HashMap::new();
    let mut states: Vec<(Board, u32, u32, bool)> = vec![(*root, u32::MAX, 0, true)];
    seen.insert(exact_key(root), ());
    let mut i = 0;
    while i < states.len() {
        if i.is_multiple_of(1024) && deadline.is_some_and(|d| Instant::now() >= d) {
            return Closure::Stopped(Limit::Time, states.len() as u64);
        }
        let (b, _, _, recheck) = states[i];
        let list = legal(&b, cd);
        let moves = list.as_slice();
        if moves.is_empty() {
            if b.turn as usize != winner.index() && in_check(&b) {
                let mut line = Vec::new();
                let mut j = i;
                while states[j].1 != u32::MAX {
                    line.push(states[j].2);
                    j = states[j].1 as usize;
                }
                line.reverse();
                return Closure::Mate(line, states.len() as u64);
            }
        } else if material_reason(&b, winner).is_none()
            && !(recheck && blocked_reason(&b, winner).is_some())
        {
            for &m in moves {
                let child = b.make::<true>(cd, m);
                if seen.insert(exact_key(&child), ()).is_none() {
                    if states.len() as u64 >= state_limit {
                        return Closure::Stopped(Limit::Nodes, states.len() as u64);
                    }
                    states.push((child, i as u32, m, may_unblock(&b, m)));
                }
            }
        }
        i += 1;
    }
    Closure::Closed(states.len() as u64)
}
