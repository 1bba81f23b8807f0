//! The staged search: *a* game, found by stages (FIDE 3.10.3: any series of legal moves that reaches the
//! position proves it legal). Tried first by the default decision ([`super::decide`]), before the weighted
//! best-first portfolio ([`super::guided`]): it finds most real games' positions in a tenth of a second.
//!
//! Each stage is a short search from where the previous one stopped (enforced hill climbing on the
//! [`Guide`]'s estimate, the one the portfolio uses: it follows the capture plan and the promotions the target
//! needs): from the current position, a best-first search ordered by the estimate (fewest plies first among
//! equals) runs until it expands a position with a child whose estimate is lower than the current one's; the
//! moves to the best such child are kept, and the next stage starts there. A stage never enters a position of
//! the game so far. A stage that finds none within [`STEP_NODES`] positions, or runs out of positions, is a
//! dead end: the climb goes back one stage (more as dead ends repeat without getting deeper), and the dead
//! position is never entered again. A climb that stops starts again from the initial position with another
//! order among equals ([`ORDERS`]).
//!
//! From a child close to the target (estimate at most [`FINISH_AT`], the target's material and castling
//! rights) the finishing stage ([`tempo`]) searches the last few plies exactly: the climb alone stalls there
//! when a side must lose a tempo (the estimate ignores the side to move).
//!
//! Nothing here is a proof: the climb may miss a game that exists. Every game is replayed by the reference
//! generator from the initial position and compared with the target ([`super::matches`]) before it is
//! returned. Memory: one stage's positions ([`STEP_NODES`] expanded, their children) and the positions of the
//! game and of the dead ends (at most [`DEAD_CAP`]).

use super::guide::{Guide, WarmStart, NEVER};
use super::guided::{confirmed, via_double_step, FastLimits, FastResult, Reached};
use super::{castle_mask, tempo, Game};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen;
use crate::position::Setup;
use crate::types::Move;
use hashbrown::{HashMap, HashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// Positions one stage expands at most before it is a dead end.
const STEP_NODES: u32 = 3000;
/// Dead ends remembered over one climb at most (then the climb stops).
const DEAD_CAP: usize = 1_000_000;
/// The orders among positions of equal estimate, one per climb: `false` takes the one found first (fewest
/// plies), `true` the one found last (deepest).
const ORDERS: [bool; 2] = [false, true];
/// Estimates at which the finishing stage ([`tempo`]) is tried from a position (the target's material and
/// castling rights): the climb stalls there when a side must lose a tempo.
const FINISH_AT: u32 = 3;
/// Positions the finishing stage is tried from at most, per climb (each try expands at most 2,000 positions of
/// its own, beyond the climb's budget: 64,000 per climb at most).
const FINISH_CAP: usize = 32;

/// What every stage of one target shares.
struct Climb<'a> {
    start: &'a Setup,
    target: &'a Setup,
    guide: &'a Guide,
    cd: CastlingData,
    mask: u8,
    goal: Reached,
    /// The positions of the game so far (a stage never goes back to one).
    on_path: HashSet<(u64, u64)>,
    /// Positions whose climb ended in a dead end (never entered again).
    dead: HashSet<(u64, u64)>,
    /// Positions the finishing stage ([`tempo`]) was tried from (at most [`FINISH_CAP`]).
    finished: HashSet<(u64, u64)>,
    memo: HashMap<u64, u32>,
    /// The estimate's last assignments ([`Guide::estimate_warm`]).
    warm: WarmStart,
    /// The moves of the climb so far (fast generator's encoding).
    moves: Vec<u32>,
    /// Positions expanded, all climbs together.
    expanded: u64,
    deepest_first: bool,
}

/// How a stage ended.
enum Stage {
    /// A replayed game.
    Found(Vec<Move>),
    /// Moved on: the moves to the new position, it, and its estimate.
    Moved(Vec<u32>, Board, u32),
    /// Nothing left to visit from here, or a limit: why.
    Stopped(String),
}

/// One position of a stage's search: the board, its parent's index, the move from it, its estimate.
struct Node {
    board: Board,
    parent: u32,
    mv: u32,
    h: u32,
    g: u32,
}

impl Climb<'_> {
    fn estimate(&mut self, b: &Board) -> u32 {
        self.guide
            .estimate_warm(b, self.mask, false, &mut self.memo, &mut self.warm)
    }

    fn out_of_budget(&self, limits: &FastLimits) -> Option<String> {
        if self.expanded >= limits.max_nodes {
            return Some(format!(
                "stopped at its node budget ({} positions expanded)",
                limits.max_nodes
            ));
        }
        if self.expanded.is_multiple_of(64)
            && (limits.deadline.is_some_and(|d| Instant::now() > d) || crate::interrupt::stopping())
        {
            return Some(format!(
                "stopped at the time limit ({} positions expanded)",
                self.expanded
            ));
        }
        None
    }

    /// The moves from a stage's root to node `i`.
    fn path(store: &[Node], mut i: u32) -> Vec<u32> {
        let mut moves = Vec::new();
        while store[i as usize].parent != u32::MAX {
            moves.push(store[i as usize].mv);
            i = store[i as usize].parent;
        }
        moves.reverse();
        moves
    }

    /// The whole game to node `i` of the current stage, then `tail`, replayed: `Some` when it reaches the
    /// target.
    fn game_to(&self, store: &[Node], i: u32, tail: &[u32]) -> Option<Vec<Move>> {
        let moves: Vec<Move> = self
            .moves
            .iter()
            .chain(Self::path(store, i).iter())
            .chain(tail.iter())
            .map(|&m| movegen::to_move(m))
            .collect();
        confirmed(self.start, &moves, self.target).then_some(moves)
    }

    /// One stage from `root` (estimate `h0`; see the module docs).
    fn stage(&mut self, root: Board, h0: u32, limits: &FastLimits) -> Stage {
        let mut store = vec![Node {
            board: root,
            parent: u32::MAX,
            mv: 0,
            h: h0,
            g: 0,
        }];
        let mut open: BinaryHeap<Reverse<(u32, u32, i64)>> = BinaryHeap::new();
        open.push(Reverse((h0, 0, 0)));
        let mut count = 0u32;
        let mut seen: HashSet<(u64, u64)> = HashSet::new();
        while let Some(Reverse((_, _, tag))) = open.pop() {
            if let Some(why) = self.out_of_budget(limits) {
                return Stage::Stopped(why);
            }
            if count >= STEP_NODES {
                break;
            }
            count += 1;
            self.expanded += 1;
            let idx = if self.deepest_first { -tag } else { tag } as u32;
            let (b, g) = (store[idx as usize].board, store[idx as usize].g);
            let moves = movegen::moves::<MagicSliders>(&b, &self.cd);
            let mut better: Option<u32> = None;
            for &m in moves.as_slice() {
                let next = b.make::<true>(&self.cd, m);
                let k = (next.key, next.check);
                if self.on_path.contains(&k) || self.dead.contains(&k) || !seen.insert(k) {
                    continue;
                }
                let h = self.estimate(&next);
                if h >= NEVER {
                    continue;
                }
                store.push(Node {
                    board: next,
                    parent: idx,
                    mv: m,
                    h,
                    g: g + 1,
                });
                let ni = (store.len() - 1) as u32;
                if self.goal.by(&next) {
                    if let Some(game) = self.game_to(&store, ni, &[]) {
                        return Stage::Found(game);
                    }
                }
                if h <= FINISH_AT
                    && self.goal.near(&next)
                    && self.finished.len() < FINISH_CAP
                    && self.finished.insert(k)
                {
                    let tail = tempo::finish(&next, &self.cd, &self.goal);
                    if let Some(game) = tail.and_then(|t| self.game_to(&store, ni, &t)) {
                        return Stage::Found(game);
                    }
                }
                if h < h0 && better.is_none_or(|bi| h < store[bi as usize].h) {
                    better = Some(ni);
                }
                let tag = if self.deepest_first {
                    -i64::from(ni)
                } else {
                    i64::from(ni)
                };
                open.push(Reverse((h, g + 1, tag)));
            }
            // The best child whose estimate is lower than the root's: the stage's end.
            if let Some(bi) = better {
                let n = &store[bi as usize];
                return Stage::Moved(Self::path(&store, bi), n.board, n.h);
            }
        }
        Stage::Stopped(if count >= STEP_NODES {
            "found no better position within a stage's positions".into()
        } else {
            "every position it could still visit explored".into()
        })
    }

    /// One climb from `board` (see the module docs): stages one after the other; at a dead end, back to an
    /// earlier stage's start (one stage back, then more as dead ends repeat), the dead position never entered
    /// again.
    fn climb(&mut self, board: Board, limits: &FastLimits) -> Result<Vec<Move>, String> {
        let h = self.estimate(&board);
        let first = h;
        self.on_path.insert((board.key, board.check));
        // Each stage's start: its position, estimate, and the game's length there.
        let mut stack: Vec<(Board, u32, usize)> = vec![(board, h, 0)];
        let (mut deepest, mut backs, mut lowest) = (0usize, 0usize, h);
        loop {
            let &(at, h, _) = stack.last().expect("the initial position stays");
            match self.stage(at, h, limits) {
                Stage::Found(game) => return Ok(game),
                Stage::Moved(path, next, hn) => {
                    self.walk(&at, &path, true);
                    self.moves.extend(path);
                    stack.push((next, hn, self.moves.len()));
                    lowest = lowest.min(hn);
                    if self.moves.len() > deepest {
                        deepest = self.moves.len();
                        backs = 0;
                    }
                }
                Stage::Stopped(why) if why.starts_with("stopped") || self.dead.len() >= DEAD_CAP => {
                    return Err(format!("{why} ({deepest} plies at most, estimate {first} at the start, {lowest} at the lowest)"))
                }
                Stage::Stopped(why) => {
                    if stack.len() == 1 {
                        return Err(format!("{why} ({deepest} plies at most, estimate {first} at the start, {lowest} at the lowest)"));
                    }
                    backs += 1;
                    for _ in 0..backs.min(stack.len() - 1) {
                        let (end, _, _) = stack.pop().expect("checked");
                        let &(from, _, len) = stack.last().expect("checked");
                        let path: Vec<u32> = self.moves.drain(len..).collect();
                        self.walk(&from, &path, false);
                        self.dead.insert((end.key, end.check));
                    }
                }
            }
        }
    }

    /// Enter (`on`) or leave the positions of `path` from `from` in the set of the game's positions.
    fn walk(&mut self, from: &Board, path: &[u32], on: bool) {
        let mut b = *from;
        for &m in path {
            b = b.make::<true>(&self.cd, m);
            if on {
                self.on_path.insert((b.key, b.check));
            } else {
                self.on_path.remove(&(b.key, b.check));
            }
        }
    }
}

/// Search for a game from `start` to `target` by stages (see the module docs).
pub fn search_from(start: &Setup, target: &Setup, limits: FastLimits) -> FastResult {
    if let Some(ep) = target.ep_square {
        return via_double_step(start, target, ep, limits, search_from);
    }
    let (board, cd) = Board::from_setup(start);
    let Some(mask) = castle_mask(&board, &cd, &target.castling) else {
        return FastResult::NotFound("the start lacks a castling right the target has".into());
    };
    let guide = Guide::new(start, target).charging_settled(limits.charge_settled);
    let mut tried = Vec::new();
    let mut expanded = 0;
    for deepest_first in ORDERS {
        let mut c = Climb {
            start,
            target,
            guide: &guide,
            cd: cd.clone(),
            mask,
            goal: Reached::of(target, mask),
            on_path: HashSet::new(),
            dead: HashSet::new(),
            finished: HashSet::new(),
            memo: HashMap::new(),
            warm: WarmStart::default(),
            moves: Vec::new(),
            expanded,
            deepest_first,
        };
        if c.estimate(&board) >= NEVER {
            return FastResult::NotFound("the guide finds no way from the start".into());
        }
        match c.climb(board, &limits) {
            Ok(moves) => {
                return FastResult::Found(Game {
                    start: start.clone(),
                    moves,
                })
            }
            Err(why) => tried.push(format!(
                "the staged search ({}) {why}",
                if deepest_first {
                    "deepest first"
                } else {
                    "fewest plies first"
                }
            )),
        }
        expanded = c.expanded;
        if expanded >= limits.max_nodes || limits.deadline.is_some_and(|d| Instant::now() > d) {
            break;
        }
    }
    FastResult::NotFound(tried.join("; "))
}
