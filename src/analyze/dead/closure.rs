//! The closure: every position reachable from the root, exactly compared (FIDE 1.5: "by any possible series of
//! legal moves"). When it closes with no checkmate of the loser, the winner can never mate; when it meets one,
//! the line to it is a shortest helpmate.
//!
//! The set of visited positions is an open-addressing table of indices into the list of states, probed by the
//! Zobrist key; two positions are the same only when pieces, side to move, e.p. square and castling rights are
//! all equal (the key only picks the slot, so a key collision can never merge two positions). The closure can
//! be resumed with a larger limit: `decide` alternates it with the helpmate search without redoing work.

use super::blocked::{blocked_reason, may_unblock};
use super::material::material_rule;
use super::{in_check, legal, Limit};
use crate::bitboard::board::{Board, CastlingData};
use crate::types::Color;
use std::time::Instant;

pub(super) enum Closure {
    /// A helpmate (a shortest one).
    Mate(Vec<u32>),
    /// Every reachable position was stored (the count), none a checkmate of the loser.
    Closed(u64),
    /// A limit came first.
    Stopped(Limit),
}

/// One stored position: the board, its parent's index (`u32::MAX` for the root), the move from the parent,
/// and whether the blocked-structure argument must be re-tried (see [`Run::run`]).
struct State {
    b: Board,
    parent: u32,
    mv: u32,
    recheck: bool,
}

/// Exact identity (no hash): pieces, side to move, e.p. square, castling rights.
#[inline]
fn same(a: &Board, b: &Board) -> bool {
    let mut diff = (a.colors[0] ^ b.colors[0]) | (a.colors[1] ^ b.colors[1]);
    for i in 0..6 {
        diff |= a.roles[i] ^ b.roles[i];
    }
    diff == 0 && a.turn == b.turn && a.ep == b.ep && a.castling == b.castling
}

/// A free slot of the table.
const EMPTY: Slot = Slot {
    tag: 0,
    index: u32::MAX,
};

/// A slot of the table: the high half of the stored position's Zobrist key (compared first, so most probes
/// never read the state itself) and its index in the list.
#[derive(Clone, Copy)]
struct Slot {
    tag: u32,
    index: u32,
}

#[inline]
fn tag(b: &Board) -> u32 {
    (b.key >> 32) as u32
}

/// A resumable breadth-first closure from one root.
pub(super) struct Run {
    states: Vec<State>,
    /// Keys and indices into `states` (`EMPTY` for a free slot); length a power of two, at most half full.
    slots: Vec<Slot>,
    /// The next state to expand.
    next: usize,
    /// The children of the state being expanded (kept to reuse the allocation).
    children: Vec<(Board, u32)>,
}

/// The list buffers of a closure are kept for the next one on this thread up to this many states (a few
/// MiB): no allocation per query in a batch, and a bounded memory per thread.
const SPARE_STATES: usize = 1 << 16;

/// A closure's buffers kept for the next one: states, children, slots of the smallest size (all emptied).
type Buffers = (Vec<State>, Vec<(Board, u32)>, Vec<Slot>);

thread_local! {
    /// The last closure's buffers on this thread.
    static SPARE: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

impl Drop for Run {
    fn drop(&mut self) {
        if self.states.capacity() <= SPARE_STATES {
            let mut states = std::mem::take(&mut self.states);
            let mut children = std::mem::take(&mut self.children);
            states.clear();
            children.clear();
            let mut slots = std::mem::take(&mut self.slots);
            if slots.len() != 1 << 12 {
                slots = Vec::new();
            }
            SPARE.set(Some((states, children, slots)));
        }
    }
}

impl Run {
    pub(super) fn new(root: &Board) -> Run {
        let (states, children, mut slots) = SPARE.take().unwrap_or_default();
        if slots.len() == 1 << 12 {
            slots.fill(EMPTY);
        } else {
            slots = vec![EMPTY; 1 << 12];
        }
        let mut run = Run {
            states,
            slots,
            next: 0,
            children,
        };
        let slot = run.free_slot(root).unwrap_or(0);
        run.insert(slot, *root, u32::MAX, 0, true);
        run
    }

    /// Positions stored.
    pub(super) fn len(&self) -> u64 {
        self.states.len() as u64
    }

    /// The free slot for `b`, or `None` when an equal position is stored already.
    fn free_slot(&self, b: &Board) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut i = b.key as usize & mask;
        loop {
            let s = self.slots[i];
            if s.index == u32::MAX {
                return Some(i);
            }
            if s.tag == tag(b) && same(&self.states[s.index as usize].b, b) {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Store `b` (new) in `slot`.
    fn insert(&mut self, slot: usize, b: Board, parent: u32, mv: u32, recheck: bool) {
        self.slots[slot] = Slot {
            tag: tag(&b),
            index: self.states.len() as u32,
        };
        self.states.push(State {
            b,
            parent,
            mv,
            recheck,
        });
        if self.states.len() * 2 > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let mask = size - 1;
        let mut slots = vec![EMPTY; size];
        for (n, st) in self.states.iter().enumerate() {
            let mut i = st.b.key as usize & mask;
            while slots[i].index != u32::MAX {
                i = (i + 1) & mask;
            }
            slots[i] = Slot {
                tag: tag(&st.b),
                index: n as u32,
            };
        }
        self.slots = slots;
    }

    /// Breadth-first on, until `state_limit` positions are stored, stopping at the first checkmate of the loser
    /// (its line is a shortest helpmate). Positions where a material rule or the blocked-structure argument
    /// proves the winner cannot mate are not expanded (a proof covers everything after them). The
    /// blocked-structure argument is only re-tried after a capture, a pawn move, castling or an e.p. square:
    /// after any other move every piece stays in the region it had (regions are connected components of
    /// symmetric move graphs), so the argument gives the same answer as in the parent.
    pub(super) fn run(
        &mut self,
        cd: &CastlingData,
        winner: Color,
        state_limit: u64,
        deadline: Option<Instant>,
    ) -> Closure {
        while self.next < self.states.len() {
            let i = self.next;
            if i.is_multiple_of(1024) && deadline.is_some_and(|d| Instant::now() >= d) {
                return Closure::Stopped(Limit::Time);
            }
            let (b, recheck) = (self.states[i].b, self.states[i].recheck);
            let list = legal(&b, cd);
            let moves = list.as_slice();
            if moves.is_empty() {
                if b.turn() != winner && in_check(&b) {
                    let mut line = Vec::new();
                    let mut j = i;
                    while self.states[j].parent != u32::MAX {
                        line.push(self.states[j].mv);
                        j = self.states[j].parent as usize;
                    }
                    line.reverse();
                    return Closure::Mate(line);
                }
            } else if material_rule(&b, winner).is_none()
                && !(recheck && blocked_reason(&b, winner).is_some())
            {
                // Make every child first and touch the slots (then the states) they will probe, so that the
                // memory loads overlap instead of waiting for one another; then probe and store in order.
                let mut children = std::mem::take(&mut self.children);
                children.clear();
                children.extend(moves.iter().map(|&m| (b.make::<true>(cd, m), m)));
                let mask = self.slots.len() - 1;
                let mut touch = 0u32;
                for (child, _) in &children {
                    touch ^= self.slots[child.key as usize & mask].tag;
                }
                for (child, _) in &children {
                    let s = self.slots[child.key as usize & mask];
                    if s.tag == tag(child) && s.index != u32::MAX {
                        let st = &self.states[s.index as usize].b;
                        touch ^= st.roles[0] as u32 ^ st.turn as u32;
                    }
                }
                std::hint::black_box(touch);
                for &(child, m) in &children {
                    if let Some(slot) = self.free_slot(&child) {
                        // Stopping in the middle leaves `next` here: a resumed run expands this state
                        // again (the children stored already are found in the table).
                        if self.len() >= state_limit {
                            self.children = children;
                            return Closure::Stopped(Limit::Nodes);
                        }
                        self.insert(slot, child, i as u32, m, may_unblock(&b, m));
                    }
                }
                self.children = children;
            }
            self.next += 1;
        }
        Closure::Closed(self.len())
    }
}
