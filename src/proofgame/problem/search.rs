//! The counting search: depth-first over every legal game of exactly the remaining plies, pruned by the
//! deductions ([`super::bound`]), with a transposition table of solution counts per (position, plies left),
//! merged as perft merges transpositions. Budgets (nodes, a deadline, an interruption) stop it; a stopped
//! search's count is a lower bound (every path counted is a real game) and nothing incomplete is stored.

use super::bound::Diagram;
use super::memo::NeedMemo;
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData, PAWN_I};
use crate::bitboard::movegen;
use hashbrown::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Transposition entries kept at most per worker (no entry is added beyond).
const TT_CAP: usize = 1 << 22;
/// Counts are stored (and looked up) from this many plies left on: a position with two plies left is
/// searched again from its bit tests ([`Diagram::one_move_away`] on its children) at less cost than a lookup
/// in a large table, and its entries would crowd the table.
const STORE_FROM: u32 = 3;
/// Nodes counted locally before the shared budget is charged.
const BATCH: u64 = 1024;

/// What ends a game besides the placement: a fixed castling mask, a fixed e.p. square (the last move was the
/// double step over it).
#[derive(Clone, Copy, Debug)]
pub(super) struct Finish {
    /// The castling bits the final position must have exactly, when the stipulation fixes them.
    pub castling: Option<u8>,
    /// The square the last move's double step passed over, when fixed.
    pub ep: Option<u8>,
}

/// Whether `next` (made by `m`) ends the game as the problem asks: the diagram's placement, and the fixed
/// castling rights or e.p. double step.
#[inline]
pub(super) fn ends(diagram: &Diagram, finish: Finish, next: &Board, m: u32) -> bool {
    if !diagram.same_placement(next) {
        return false;
    }
    if finish.castling.is_some_and(|c| c != next.castling) {
        return false;
    }
    match finish.ep {
        None => true,
        Some(ep) => {
            let (from, to) = ((m >> 6) & 63, m & 63);
            (m >> 16) as usize == PAWN_I
                && (m >> 14) & 3 == 0
                && from.abs_diff(to) == 16
                && u32::from(ep) == (from + to) / 2
        }
    }
}

/// The budget shared by the workers.
pub(super) struct Budget {
    pub max_nodes: u64,
    pub deadline: Option<Instant>,
    pub nodes: AtomicU64,
    pub stop: AtomicBool,
    /// Which limit stopped the search: 1 nodes, 2 time, 3 interruption, 4 enough games counted
    /// ([`Worker::stop_at`]).
    pub why: AtomicU64,
}

impl Budget {
    /// A budget of `share` of `max_nodes` and of the time left until `deadline`.
    pub fn new(max_nodes: u64, deadline: Option<Instant>, share: f64) -> Budget {
        let now = Instant::now();
        Budget {
            max_nodes: (max_nodes as f64 * share) as u64,
            deadline: deadline.map(|d| now + d.saturating_duration_since(now).mul_f64(share)),
            nodes: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            why: AtomicU64::new(0),
        }
    }

    fn charge(&self, n: u64) -> bool {
        let total = self.nodes.fetch_add(n, Ordering::Relaxed) + n;
        let why = if total > self.max_nodes {
            1
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            2
        } else if crate::interrupt::stopping() {
            3
        } else {
            0
        };
        if why != 0 {
            self.halt(why);
        }
        !self.stop.load(Ordering::Relaxed)
    }

    /// Stop every worker for reason `why` (the first reason given is kept).
    fn halt(&self, why: u64) {
        let _ = self
            .why
            .compare_exchange(0, why, Ordering::Relaxed, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One worker's search.
pub(super) struct Worker<'a> {
    pub diagram: &'a Diagram,
    pub cd: &'a CastlingData,
    pub finish: Finish,
    pub budget: &'a Budget,
    pub tt: HashMap<(u64, u64, u32), u64>,
    pub local: u64,
    pub path: Vec<u32>,
    /// Solutions met at their last move (in search order), up to `keep`.
    pub found: Vec<Vec<u32>>,
    pub keep: usize,
    /// Stop the search once this many games are counted (0: never; `--stop-at-cook` asks for 2).
    pub stop_at: u64,
    /// Games counted so far: the games met at their last move plus those a table entry stands for, each a
    /// distinct path from the root (the running sum of what [`Worker::count`] returns in the end).
    pub so_far: u64,
    /// The admitted children of the positions on the current path, each level's after its parent's (one
    /// buffer for the whole search: a child is made once, kept with its needs, and searched from here).
    pub kids: Vec<Kid>,
    /// The deductions' bound per side, memoised ([`NeedMemo`]).
    pub memo: NeedMemo,
}

/// A child kept by [`Worker::count_feasible`]: the moves both sides need after it (the search order), the
/// move, each side's need and the position.
#[derive(Clone, Copy)]
pub(super) struct Kid {
    order: u32,
    m: u32,
    needs: [u32; 2],
    next: Board,
}

impl Worker<'_> {
    #[inline]
    fn ends(&self, next: &Board, m: u32) -> bool {
        ends(self.diagram, self.finish, next, m)
    }

    /// Add `n` games to those counted so far, stopping the search when [`Worker::stop_at`] is reached.
    fn counted(&mut self, n: u64) {
        self.so_far = self.so_far.saturating_add(n);
        if self.stop_at > 0 && self.so_far >= self.stop_at {
            self.budget.halt(4);
        }
    }

    fn tick(&mut self) -> bool {
        self.local += 1;
        if self.local >= BATCH {
            let n = std::mem::take(&mut self.local);
            return self.budget.charge(n);
        }
        !self.budget.stop.load(Ordering::Relaxed)
    }

    /// The games of exactly `remaining` plies from `b` that end as asked, and whether the count is complete.
    pub fn count(&mut self, b: &Board, remaining: u32) -> (u64, bool) {
        if remaining == 0 {
            return (u64::from(self.diagram.same_placement(b)), true);
        }
        if let Some(n) = self.stored(b, remaining) {
            return (n, true);
        }
        let Ok(needs) = self.diagram.needs(&mut self.memo, b, remaining) else {
            return (0, true);
        };
        self.count_feasible(b, needs, remaining)
    }

    /// The stored count of `b` with `remaining` plies left (positions with `STORE_FROM` plies left or more are stored),
    /// added to the games counted so far.
    #[inline]
    fn stored(&mut self, b: &Board, remaining: u32) -> Option<u64> {
        if remaining < STORE_FROM {
            return None;
        }
        let n = *self.tt.get(&(b.key, b.check, remaining))?;
        self.counted(n);
        Some(n)
    }

    /// [`Worker::count`] for a position `b` with `remaining` ≥ 1 that the deductions admit, each colour
    /// needing `needs` moves at least. The moves are
    /// searched in the order of the moves both sides still need after them, fewest first (the count does not
    /// depend on the order; solutions, and so cooks, are met sooner).
    fn count_feasible(&mut self, b: &Board, needs: [u32; 2], remaining: u32) -> (u64, bool) {
        if let Some(c) = self.finish.castling {
            if b.castling & c != c {
                return (0, true);
            }
        }
        // The table was looked up by the caller ([`Worker::count`] or the parent's loop below).
        let key = (b.key, b.check, remaining);
        if !self.tick() {
            return (0, false);
        }
        let moves = movegen::moves::<MagicSliders>(b, self.cd);
        let mut total = 0u64;
        // Every move leaves its origin square empty (FIDE 3.2–3.8; castling's origin is the king's), and
        // nothing moves a unit of the other side: a last move from a square the diagram occupies, or a move
        // with one ply left after it from a square where the diagram has a unit of the mover, cannot end on
        // the diagram (a test before the move is made; the same games).
        let mover = b.turn as usize;
        let barred = match remaining {
            1 => self.diagram.occupied(None),
            2 => self.diagram.occupied(Some(mover)),
            _ => 0,
        };
        if remaining == 1 {
            for &m in moves.as_slice() {
                if barred >> ((m >> 6) & 63) & 1 != 0 {
                    continue;
                }
                let next = b.make::<true>(self.cd, m);
                if self.ends(&next, m) {
                    total += 1;
                    if self.found.len() < self.keep {
                        self.path.push(m);
                        self.found.push(self.path.clone());
                        self.path.pop();
                    }
                }
            }
            self.counted(total);
            return (total, true);
        }
        // Each move is played once: the admitted children are kept with their needs, then searched.
        let base = self.kids.len();
        for &m in moves.as_slice() {
            if barred >> ((m >> 6) & 63) & 1 != 0 {
                continue;
            }
            let next = b.make::<true>(self.cd, m);
            // With one ply left after it, a child far from the diagram is dropped by bit tests alone.
            if remaining == 2 && !self.diagram.one_move_away(&next) {
                continue;
            }
            // The deductions' bound first (memoised, cheap), the table after: only a child the bound admits
            // was ever stored (entries are made in this function, which only such children enter, and the
            // bound is a function of the position and the plies left), so a child it drops holds no game and
            // its lookup, a miss in a large table most often, is saved. A stored child is counted at once (a
            // transposition).
            let Ok(n) = self
                .diagram
                .needs_after(&mut self.memo, b, needs, &next, remaining - 1)
            else {
                continue;
            };
            if let Some(stored) = self.stored(&next, remaining - 1) {
                total = total.saturating_add(stored);
                continue;
            }
            self.kids.push(Kid {
                order: n[0] + n[1],
                m,
                needs: n,
                next,
            });
        }
        self.kids[base..].sort_unstable_by_key(|k| (k.order, k.m));
        let mut done = true;
        for i in base..self.kids.len() {
            // The deeper levels push after `self.kids.len()` and truncate back: this level's stay in place.
            let Kid { m, needs, next, .. } = self.kids[i];
            self.path.push(m);
            let (n, complete) = self.count_feasible(&next, needs, remaining - 1);
            self.path.pop();
            total = total.saturating_add(n);
            if !complete {
                done = false;
                break;
            }
        }
        self.kids.truncate(base);
        if !done {
            return (total, false);
        }
        if remaining >= STORE_FROM && self.tt.len() < TT_CAP {
            self.tt.insert(key, total);
        }
        (total, true)
    }

    /// Up to `k` solutions from `b` in move-generation order (after a complete [`Worker::count`], whose table
    /// steers this walk to the branches that hold solutions), appended to `out` with `path` before each.
    pub fn collect(&mut self, b: &Board, remaining: u32, k: usize, out: &mut Vec<Vec<u32>>) {
        if remaining == 0 || out.len() >= k {
            return;
        }
        let moves = movegen::moves::<MagicSliders>(b, self.cd);
        for &m in moves.as_slice() {
            if out.len() >= k {
                return;
            }
            let next = b.make::<true>(self.cd, m);
            self.path.push(m);
            if remaining == 1 {
                if self.ends(&next, m) {
                    out.push(self.path.clone());
                }
            } else if self.count(&next, remaining - 1).0 > 0 {
                self.collect(&next, remaining - 1, k, out);
            }
            self.path.pop();
        }
    }
}
