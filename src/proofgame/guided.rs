//! The guided proof-game search: *a* game, not the shortest (FIDE 3.10.3: a position is legal when some
//! series of legal moves reaches it; any such game proves it).
//!
//! A portfolio of weighted best-first searches (weighted A*: a position's priority is the plies played plus a
//! weight times the [`Guide`]'s estimate of the moves still needed, and for one of them a charge per unit
//! still to be captured), over the fast bitboard generator's moves, run interleaved a slice at a time until
//! one reaches the target; each visits a position once (a set of position keys). The estimate is not a lower
//! bound, so the game found is usually longer than a shortest one; it comes in milliseconds where the exact
//! search ([`super::search`]) needs an exponential number of nodes. Bounded by a node count (all searches
//! together), a deadline the caller gives (no clock is read without one) and a cap on the positions stored
//! ([`STORE_CAP`], shared). The guide's estimate follows the capture plan ([`super::plan`]): the units each side
//! is to lose are routed to the squares where the other side's pawns must capture to change file.
//!
//! When the target has an e.p. square its last move was that double step (FIDE 3.7.2): the search goes to the
//! position before it, and the double step is appended. Every game is replayed by the reference generator and
//! compared with the target ([`super::matches`]) before it is returned.

use super::guide::{Guide, NEVER};
use super::{castle_mask, matches, replay, Game};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen;
use crate::position::Setup;
use crate::reference;
use crate::types::{Color, Move, Square};
use hashbrown::{HashMap, HashSet};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The searches of the portfolio, run interleaved ([`SLICE`] positions each in turn) until one finds a game:
/// `weight2` is twice the estimate's weight against the plies played, `surplus` the extra priority per unit
/// still to be captured (both sides' units beyond the target's: taking them early, the way capture-heavy
/// games go).
const PORTFOLIO: [Style; 3] = [
    Style {
        weight2: 6,
        surplus: 0,
    },
    Style {
        weight2: 6,
        surplus: 4,
    },
    Style {
        weight2: 14,
        surplus: 0,
    },
];
/// Positions one search expands before the next one's turn.
const SLICE: u64 = 1024;
/// Slices the first search runs alone before the others start (most positions are found within them, and
/// sooner alone).
const HEAD: u32 = 32;
/// Positions kept at most, all the portfolio's searches together (each about 104 bytes, with its entry in the
/// set of visited positions and the open list: about 150 bytes, so about 600 MB at most).
const STORE_CAP: usize = 4_000_000;

/// One search's priority: plies played + `weight2` / 2 × estimate + `surplus` × units still to capture.
#[derive(Clone, Copy, Debug)]
struct Style {
    weight2: u32,
    surplus: u32,
}

/// What the fast search may spend.
#[derive(Clone, Copy, Debug)]
pub struct FastLimits {
    /// Positions expanded at most (all the portfolio's searches together).
    pub max_nodes: u64,
    /// The moment to stop at, if any: the caller reads the clock ([`super::decide`] sets it from the whole
    /// decision's time limit; no clock is read here without one, so the search runs where there is none, e.g.
    /// wasm32, bounded by `max_nodes`).
    pub deadline: Option<Instant>,
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

/// What every search of one target shares.
struct Ctx<'a> {
    start: &'a Setup,
    target: &'a Setup,
    guide: Guide,
    cd: CastlingData,
    mask: u8,
    troles: [u64; 6],
    tcolors: [u64; 2],
    tturn: u8,
}

impl Ctx<'_> {
    fn done(&self, b: &Board) -> bool {
        b.roles == self.troles
            && b.colors == self.tcolors
            && b.turn == self.tturn
            && b.castling == self.mask
    }
}

/// How one slice of a search ended.
enum Step {
    /// A replayed game.
    Found(Vec<Move>),
    /// Still going.
    Going,
    /// Done without a game: why.
    Over(String),
}

/// One weighted best-first search of the portfolio.
struct Run {
    style: Style,
    store: Vec<Node>,
    seen: HashSet<(u64, u64)>,
    open: BinaryHeap<Reverse<(u32, u32, u32)>>,
    memo: HashMap<u64, u32>,
    cap: usize,
}

impl Run {
    fn new(board: Board, h0: u32, style: Style, cap: usize) -> Run {
        let mut seen = HashSet::new();
        seen.insert((board.key, board.check));
        let mut open = BinaryHeap::new();
        open.push(Reverse((0, h0, 0u32)));
        Run {
            style,
            store: vec![Node {
                board,
                parent: u32::MAX,
                mv: 0,
                g: 0,
            }],
            seen,
            open,
            memo: HashMap::new(),
            cap,
        }
    }

    fn priority(&self, ctx: &Ctx, b: &Board, g: u32, h: u32) -> u32 {
        let mut p = 2 * g + self.style.weight2 * h;
        if self.style.surplus > 0 {
            p += 2 * self.style.surplus * ctx.guide.surplus(b);
        }
        p
    }

    fn path(&self, mut i: u32) -> Vec<Move> {
        let mut moves = Vec::new();
        while self.store[i as usize].parent != u32::MAX {
            moves.push(movegen::to_move(self.store[i as usize].mv));
            i = self.store[i as usize].parent;
        }
        moves.reverse();
        moves
    }

    /// Expand at most `n` positions.
    fn step(&mut self, ctx: &Ctx, n: u64) -> Step {
        for _ in 0..n {
            let Some(Reverse((_, _, idx))) = self.open.pop() else {
                return Step::Over(format!(
                    "explored every position its guide allows ({}) without reaching it",
                    self.store.len()
                ));
            };
            if self.store.len() >= self.cap {
                return Step::Over(format!(
                    "stopped at its memory cap ({} positions stored)",
                    self.cap
                ));
            }
            let (b, g) = (self.store[idx as usize].board, self.store[idx as usize].g);
            let moves = movegen::moves::<MagicSliders>(&b, &ctx.cd);
            for &m in moves.as_slice() {
                let next = b.make::<true>(&ctx.cd, m);
                if !self.seen.insert((next.key, next.check)) {
                    continue;
                }
                let h = ctx.guide.estimate(&next, ctx.mask, &mut self.memo);
                if h >= NEVER {
                    continue;
                }
                self.store.push(Node {
                    board: next,
                    parent: idx,
                    mv: m,
                    g: g + 1,
                });
                let ni = (self.store.len() - 1) as u32;
                if ctx.done(&next) {
                    let moves = self.path(ni);
                    if confirmed(ctx.start, &moves, ctx.target) {
                        return Step::Found(moves);
                    }
                }
                let p = self.priority(ctx, &next, u32::from(g) + 1, h);
                self.open.push(Reverse((p, h, ni)));
            }
        }
        Step::Going
    }
}

/// Search for a game from `start` to `target` (see the module docs).
pub fn search_from(start: &Setup, target: &Setup, limits: FastLimits) -> FastResult {
    if let Some(ep) = target.ep_square {
        return via_double_step(start, target, ep, limits);
    }
    let (board, cd) = Board::from_setup(start);
    let Some(mask) = castle_mask(&board, &cd, &target.castling) else {
        return FastResult::NotFound("the start lacks a castling right the target has".into());
    };
    let (troles, tcolors) = super::bb_of(target);
    let ctx = Ctx {
        start,
        target,
        guide: Guide::new(start, target),
        cd,
        mask,
        troles,
        tcolors,
        tturn: target.turn as u8,
    };
    let h0 = ctx.guide.estimate(&board, mask, &mut HashMap::new());
    if h0 >= NEVER {
        return FastResult::NotFound("the guide finds no way from the start".into());
    }
    if ctx.done(&board) && confirmed(start, &[], target) {
        return found(start, Vec::new());
    }
    let cap = STORE_CAP / PORTFOLIO.len();
    let mut runs: Vec<Run> = PORTFOLIO
        .iter()
        .map(|&st| Run::new(board, h0, st, cap))
        .collect();
    let mut over: Vec<String> = Vec::new();
    let mut expanded = 0u64;
    let mut round = 0u32;
    while !runs.is_empty() {
        let mut i = 0;
        round += 1;
        while i < runs.len() {
            if expanded >= limits.max_nodes {
                return FastResult::NotFound(format!(
                    "the fast search stopped at its node budget ({} positions expanded)",
                    limits.max_nodes
                ));
            }
            if limits.deadline.is_some_and(|d| Instant::now() > d) || crate::interrupt::stopping() {
                return FastResult::NotFound(format!(
                    "the fast search stopped at the time limit ({expanded} positions expanded)"
                ));
            }
            let n = SLICE.min(limits.max_nodes - expanded);
            expanded += n;
            match runs[i].step(&ctx, n) {
                Step::Found(moves) => return found(start, moves),
                Step::Going if round <= HEAD => break,
                Step::Going => i += 1,
                Step::Over(why) => {
                    let st = runs.remove(i).style;
                    over.push(format!(
                        "the search of weight {}{} {why}",
                        f64::from(st.weight2) / 2.0,
                        if st.surplus > 0 {
                            " taking captures early"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
    }
    FastResult::NotFound(over.join("; "))
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
