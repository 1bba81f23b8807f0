//! The fast proof-game search: *a* game, not the shortest (FIDE 3.10.3: a position is legal when some series
//! of legal moves reaches it; any such game proves it).
//!
//! Weighted best-first search (weighted A*: a position's priority is the plies played plus `WEIGHT` times the
//! [`Guide`]'s estimate of the moves still needed), over the fast bitboard generator's moves, with every
//! position visited once (a set of position keys). The estimate is not a lower bound, so the game found is
//! usually longer than a shortest one; it comes in milliseconds where the exact search ([`super::search`])
//! needs an exponential number of nodes. Bounded by a node count and a clock.
//!
//! When the target has an e.p. square its last move was that double step (FIDE 3.7.2): the search goes to the
//! position before it, and the double step is appended. Every game is replayed by the reference generator and
//! compared with the target ([`super::matches`]) before it is returned.

use super::guide::{Guide, NEVER};
use super::{castle_mask, matches, replay, Game};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::Board;
use crate::bitboard::movegen;
use crate::position::Setup;
use crate::reference;
use crate::types::{Color, Move, Square};
use hashbrown::{HashMap, HashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

/// Weight of the estimate against the plies played.
const WEIGHT: u32 = 3;
/// Positions kept at most (each about 100 bytes).
const STORE_CAP: usize = 4_000_000;

/// What the fast search may spend.
#[derive(Clone, Copy, Debug)]
pub struct FastLimits {
    /// Positions expanded at most.
    pub max_nodes: u64,
    /// Wall-clock time at most.
    pub time_limit: Duration,
}

/// How the fast search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FastResult {
    /// A game (replayed).
    Found(Game),
    /// No game found: the reason (budget, clock, or every reachable position explored within the guide's
    /// pruning).
    NotFound(String),
}

struct Node {
    board: Board,
    parent: u32,
    mv: u32,
    g: u16,
}

/// Search for a game from `start` to `target` (see the module docs).
pub fn search_from(start: &Setup, target: &Setup, limits: FastLimits) -> FastResult {
    let clock = Instant::now();
    if let Some(ep) = target.ep_square {
        return via_double_step(start, target, ep, limits);
    }
    let (board, cd) = Board::from_setup(start);
    let Some(mask) = castle_mask(&board, &cd, &target.castling) else {
        return FastResult::NotFound("the start lacks a castling right the target has".into());
    };
    let guide = Guide::new(target);
    let (troles, tcolors) = super::bb_of(target);
    let tturn = target.turn as u8;
    let done = |b: &Board| {
        b.roles == troles && b.colors == tcolors && b.turn == tturn && b.castling == mask
    };
    let mut memo = HashMap::new();
    let h0 = guide.estimate(&board, mask, &mut memo);
    if h0 >= NEVER {
        return FastResult::NotFound("the guide finds no way from the start".into());
    }
    let mut store = vec![Node {
        board,
        parent: u32::MAX,
        mv: 0,
        g: 0,
    }];
    let mut seen: HashSet<(u64, u64)> = HashSet::new();
    seen.insert((board.key, board.check));
    let mut open = BinaryHeap::new();
    open.push(Reverse((WEIGHT * h0, h0, 0u32)));
    let mut expanded = 0u64;
    let path_of = |store: &Vec<Node>, mut i: u32| {
        let mut moves = Vec::new();
        while store[i as usize].parent != u32::MAX {
            moves.push(movegen::to_move(store[i as usize].mv));
            i = store[i as usize].parent;
        }
        moves.reverse();
        moves
    };
    if done(&board) && confirmed(start, &[], target) {
        return found(start, Vec::new());
    }
    while let Some(Reverse((_, _, idx))) = open.pop() {
        expanded += 1;
        if expanded > limits.max_nodes {
            return FastResult::NotFound(format!(
                "the fast search stopped at its node budget ({} positions expanded)",
                limits.max_nodes
            ));
        }
        if expanded.is_multiple_of(256)
            && (clock.elapsed() > limits.time_limit || crate::interrupt::stopping())
        {
            return FastResult::NotFound(format!(
                "the fast search stopped at its time limit ({:.1} s, {expanded} positions expanded)",
                limits.time_limit.as_secs_f64()
            ));
        }
        if store.len() >= STORE_CAP {
            return FastResult::NotFound(format!(
                "the fast search stopped at its memory cap ({STORE_CAP} positions stored)"
            ));
        }
        let (b, g) = (store[idx as usize].board, store[idx as usize].g);
        let moves = movegen::moves::<MagicSliders>(&b, &cd);
        for &m in moves.as_slice() {
            let next = b.make::<true>(&cd, m);
            if !seen.insert((next.key, next.check)) {
                continue;
            }
            let h = guide.estimate(&next, mask, &mut memo);
            if h >= NEVER {
                continue;
            }
            store.push(Node {
                board: next,
                parent: idx,
                mv: m,
                g: g + 1,
            });
            let ni = (store.len() - 1) as u32;
            if done(&next) {
                let moves = path_of(&store, ni);
                if confirmed(start, &moves, target) {
                    return found(start, moves);
                }
            }
            open.push(Reverse((u32::from(g) + 1 + WEIGHT * h, h, ni)));
        }
    }
    FastResult::NotFound(format!(
        "the fast search explored every position its guide allows ({expanded}) without reaching it"
    ))
}

fn found(start: &Setup, moves: Vec<Move>) -> FastResult {
    FastResult::Found(Game {
        start: start.clone(),
        moves,
    })
}

/// The reference generator's word: legal moves, and the exact target.
fn confirmed(start: &Setup, moves: &[Move], target: &Setup) -> bool {
    match replay(start, moves) {
        Ok(p) => matches(p.last().expect("nonempty"), target),
        Err(_) => false,
    }
}

/// The target's last move was the double step to `ep`'s other side: search the position before it.
fn via_double_step(start: &Setup, target: &Setup, ep: Square, limits: FastLimits) -> FastResult {
    let mover = match target.turn {
        Color::White => Color::Black,
        Color::Black => Color::White,
    };
    let (from, to) = match mover {
        Color::White => (ep.index() - 8, ep.index() + 8),
        Color::Black => (ep.index() + 8, ep.index() - 8),
    };
    let mut before = target.clone();
    before.board[from] = target.board[to];
    before.board[to] = None;
    before.turn = mover;
    before.ep_square = None;
    match search_from(start, &before, limits) {
        FastResult::Found(g) => {
            let end = replay(&g.start, &g.moves).expect("replayed");
            let last = end.last().expect("nonempty");
            let legal = reference::legal_moves(last);
            let Some(&m) = legal.iter().find(|m| {
                m.from().index() == from && m.to().index() == to && m.promotion_role().is_none()
            }) else {
                return FastResult::NotFound(
                    "the double step of the e.p. square is not legal".into(),
                );
            };
            let mut moves = g.moves;
            moves.push(m);
            if confirmed(&g.start, &moves, target) {
                FastResult::Found(Game {
                    start: g.start,
                    moves,
                })
            } else {
                FastResult::NotFound(
                    "the double step of the e.p. square does not give the target".into(),
                )
            }
        }
        other => other,
    }
}
