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
//! is to lose are routed to the squares where the other side's pawns must capture to change file; one search
//! charges the other captures their capturer's detour ([`Guide::estimate`]'s `detour`) and evaluates quiet
//! children only when it takes them from the open list (deferred evaluation, [`Entry`]).
//!
//! When the target has an e.p. square its last move was that double step (FIDE 3.7.2): the search goes to the
//! position before it, and the double step is appended. Every game is replayed by the reference generator and
//! compared with the target ([`super::matches`]) before it is returned.

use super::guide::{Guide, WarmStart, NEVER};
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
/// games go), `detour` the guide's charge for a unit left over (its capturer's detour, or the nearest enemy
/// unit's distance), `lazy` deferred evaluation. The first two take turns alone for [`HEAD`] rounds: they
/// find different positions (on Lichess sample A each found 6 or 8 the other missed at 5 s).
const PORTFOLIO: [Style; 4] = [
    Style {
        weight2: 6,
        surplus: 0,
        detour: false,
        lazy: false,
    },
    Style {
        weight2: 6,
        surplus: 0,
        detour: true,
        lazy: true,
    },
    Style {
        weight2: 6,
        surplus: 4,
        detour: false,
        lazy: false,
    },
    Style {
        weight2: 14,
        surplus: 0,
        detour: false,
        lazy: false,
    },
];
/// Positions one search expands before the next one's turn.
const SLICE: u64 = 1024;
/// Rounds in which only the first two searches run (most positions are found within them, and sooner
/// without the others).
const HEAD: u32 = 32;
/// Searches that run in the first [`HEAD`] rounds.
const HEAD_RUNS: usize = 2;
/// Positions kept at most, all the portfolio's searches together (a stored position is about 140 bytes with
/// its entry in the set of visited positions and the open list, an entry of a child not yet evaluated 16:
/// about 600 MB at most).
const STORE_CAP: usize = 4_000_000;

/// One search's priority: plies played + `weight2` / 2 × estimate + `surplus` × units still to capture; the
/// guide's `detour` charge; `lazy`: children evaluated when taken from the open list (captures at once).
#[derive(Clone, Copy, Debug)]
struct Style {
    weight2: u32,
    surplus: u32,
    detour: bool,
    lazy: bool,
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
    /// Whether the guide charges a piece settled ahead of a pawn to promote ([`Guide::charging_settled`]; the
    /// decision's first, short pass, [`super::decide`]).
    pub charge_settled: bool,
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
    /// The guide's estimate.
    h: u32,
}

/// What every search of one target shares.
struct Ctx<'a> {
    start: &'a Setup,
    target: &'a Setup,
    guide: Guide,
    cd: CastlingData,
    mask: u8,
    goal: Reached,
}

/// The target as the fast searches compare boards with it: placement, side to move, and castling rights as
/// the start's mask ([`castle_mask`]).
pub(super) struct Reached {
    roles: [u64; 6],
    colors: [u64; 2],
    turn: u8,
    castling: u8,
}

impl Reached {
    pub(super) fn of(target: &Setup, mask: u8) -> Self {
        let (roles, colors) = super::bb_of(target);
        Self {
            roles,
            colors,
            turn: target.turn as u8,
            castling: mask,
        }
    }

    /// Whether `b` is the target: a candidate, whose game is still replayed and compared by the reference
    /// generator before it is returned.
    pub(super) fn by(&self, b: &Board) -> bool {
        b.roles == self.roles
            && b.colors == self.colors
            && b.turn == self.turn
            && b.castling == self.castling
    }

    /// Whether `b` has the target's side to move.
    pub(super) fn by_turn(&self, b: &Board) -> bool {
        b.turn == self.turn
    }

    /// Whether `b` has as many units as the target and its castling rights ([`super::tempo`]).
    pub(super) fn near(&self, b: &Board) -> bool {
        b.castling == self.castling
            && (b.colors[0] | b.colors[1]).count_ones()
                == (self.colors[0] | self.colors[1]).count_ones()
    }

    /// The target's placement: per role (both colours), per colour.
    pub(super) fn placement(&self) -> (&[u64; 6], &[u64; 2]) {
        (&self.roles, &self.colors)
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

/// An entry of the open list: (priority, estimate, node or parent, move). With `mv` = [`EVALUATED`] the third
/// field is a stored node, its priority exact; otherwise it is the parent of a child not yet made and
/// evaluated, its priority the parent's estimate with one ply more (deferred evaluation: most children of a
/// position are never evaluated, because a sibling's descendants come first).
type Entry = (u32, u32, u32, u32);
/// The `mv` of an [`Entry`] that names a stored node.
const EVALUATED: u32 = u32::MAX;
/// Whether a lazy search still evaluates captures when they are made (they change the material, which the
/// estimate weighs most).
const EAGER_CAPTURES: bool = true;

/// One weighted best-first search of the portfolio.
struct Run {
    style: Style,
    store: Vec<Node>,
    seen: HashSet<(u64, u64)>,
    open: BinaryHeap<Reverse<Entry>>,
    memo: HashMap<u64, u32>,
    /// The estimate's last assignments ([`Guide::estimate_warm`]).
    warm: WarmStart,
    cap: usize,
}

impl Run {
    fn new(board: Board, h0: u32, style: Style, cap: usize) -> Run {
        let mut seen = HashSet::new();
        seen.insert((board.key, board.check));
        let mut open = BinaryHeap::new();
        open.push(Reverse((0, h0, 0u32, EVALUATED)));
        Run {
            style,
            store: vec![Node {
                board,
                parent: u32::MAX,
                mv: 0,
                g: 0,
                h: h0,
            }],
            seen,
            open,
            memo: HashMap::new(),
            warm: WarmStart::default(),
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

    /// Positions kept, counting the open list's entries (16 bytes each against about 140 for a stored node).
    fn kept(&self) -> usize {
        self.store.len() + self.open.len() / 8
    }

    /// Store `next`, the child of node `parent` by move `m` (made by the caller, once), when it is new and the
    /// guide allows it: its index, estimate and priority, and whether it is the target (replayed).
    fn evaluate(
        &mut self,
        ctx: &Ctx,
        parent: u32,
        m: u32,
        next: Board,
    ) -> Option<(u32, u32, u32, bool)> {
        let g = self.store[parent as usize].g;
        if !self.seen.insert((next.key, next.check)) {
            return None;
        }
        let h = ctx.guide.estimate_warm(
            &next,
            ctx.mask,
            self.style.detour,
            &mut self.memo,
            &mut self.warm,
        );
        if h >= NEVER {
            return None;
        }
        self.store.push(Node {
            board: next,
            parent,
            mv: m,
            g: g + 1,
            h,
        });
        let ni = (self.store.len() - 1) as u32;
        let done = ctx.goal.by(&next) && confirmed(ctx.start, &self.path(ni), ctx.target);
        let p = self.priority(ctx, &next, u32::from(g) + 1, h);
        Some((ni, h, p, done))
    }

    /// Expand at most `n` positions.
    fn step(&mut self, ctx: &Ctx, n: u64) -> Step {
        let mut expanded = 0;
        while expanded < n {
            let Some(Reverse((prio, _, at, mv))) = self.open.pop() else {
                return Step::Over(format!(
                    "explored every position its guide allows ({}) without reaching it",
                    self.store.len()
                ));
            };
            if self.kept() >= self.cap {
                return Step::Over(format!(
                    "stopped at its memory cap ({} positions kept)",
                    self.cap
                ));
            }
            let idx = if mv == EVALUATED {
                at
            } else {
                let next = self.store[at as usize].board.make::<true>(&ctx.cd, mv);
                let Some((ni, h, p, done)) = self.evaluate(ctx, at, mv, next) else {
                    continue;
                };
                if done {
                    return Step::Found(self.path(ni));
                }
                // Worse than its parent promised and than the best entry waiting: back in the list.
                if p > prio && self.open.peek().is_some_and(|Reverse(e)| e.0 < p) {
                    self.open.push(Reverse((p, h, ni, EVALUATED)));
                    continue;
                }
                ni
            };
            expanded += 1;
            if let Some(ni) = self.expand(ctx, idx) {
                return Step::Found(self.path(ni));
            }
        }
        Step::Going
    }

    /// Put the children of stored node `idx` in the open list: deferred (its estimate, one ply more), or
    /// evaluated now when the search is not lazy (then a child that is the target, replayed, is returned).
    fn expand(&mut self, ctx: &Ctx, idx: u32) -> Option<u32> {
        let node = &self.store[idx as usize];
        let (b, g, h) = (node.board, u32::from(node.g), node.h);
        let moves = movegen::moves::<MagicSliders>(&b, &ctx.cd);
        let p = self.priority(ctx, &b, g + 1, h);
        let units = (b.colors[0] | b.colors[1]).count_ones();
        for &m in moves.as_slice() {
            let next = b.make::<true>(&ctx.cd, m);
            let capture = (next.colors[0] | next.colors[1]).count_ones() < units;
            if self.style.lazy && !(capture && EAGER_CAPTURES) {
                if !self.seen.contains(&(next.key, next.check)) {
                    self.open.push(Reverse((p, h, idx, m)));
                }
            } else if let Some((ni, h, p, done)) = self.evaluate(ctx, idx, m, next) {
                if done {
                    return Some(ni);
                }
                self.open.push(Reverse((p, h, ni, EVALUATED)));
            }
        }
        None
    }
}

/// Search for a game from `start` to `target` (see the module docs).
pub fn search_from(start: &Setup, target: &Setup, limits: FastLimits) -> FastResult {
    if let Some(ep) = target.ep_square {
        return via_double_step(start, target, ep, limits, search_from);
    }
    let (board, cd) = Board::from_setup(start);
    let Some(mask) = castle_mask(&board, &cd, &target.castling) else {
        return FastResult::NotFound("the start lacks a castling right the target has".into());
    };
    let ctx = Ctx {
        start,
        target,
        guide: Guide::new(start, target).charging_settled(limits.charge_settled),
        cd,
        mask,
        goal: Reached::of(target, mask),
    };
    let h0 = ctx.guide.estimate(&board, mask, false, &mut HashMap::new());
    if h0 >= NEVER {
        return FastResult::NotFound("the guide finds no way from the start".into());
    }
    if ctx.goal.by(&board) && confirmed(start, &[], target) {
        return found(start, Vec::new());
    }
    let cap = STORE_CAP / PORTFOLIO.len();
    let mut runs: Vec<Run> = PORTFOLIO
        .iter()
        .map(|&st| {
            let h = ctx
                .guide
                .estimate(&board, mask, st.detour, &mut HashMap::new());
            Run::new(board, h, st, cap)
        })
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
                Step::Going if round <= HEAD && i + 1 >= HEAD_RUNS => break,
                Step::Going => i += 1,
                Step::Over(why) => {
                    let st = runs.remove(i).style;
                    over.push(format!(
                        "the search of weight {}{}{} {why}",
                        f64::from(st.weight2) / 2.0,
                        if st.surplus > 0 {
                            " taking captures early"
                        } else {
                            ""
                        },
                        if st.detour {
                            " charging capturers' detours"
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
pub(super) fn confirmed(start: &Setup, moves: &[Move], target: &Setup) -> bool {
    match replay(start, moves) {
        Ok(p) => matches(p.last().expect("nonempty"), target),
        Err(_) => false,
    }
}

/// The target's last move was the double step to `ep`'s other side: search the position before it (with
/// `search`, this module's or the staged one, [`super::staged`]).
pub(super) fn via_double_step(
    start: &Setup,
    target: &Setup,
    ep: Square,
    limits: FastLimits,
    search: fn(&Setup, &Setup, FastLimits) -> FastResult,
) -> FastResult {
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
    match search(start, &before, limits) {
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
