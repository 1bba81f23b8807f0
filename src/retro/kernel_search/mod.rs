//! The proof-kernel search (FIDE 3.7, 3.10.3): an exhaustive search of the captures of a game, with the board
//! abstracted away, after the "proof game kernel" of Texel's `doc/proofgame.md` (Peter Österlund; the idea is
//! his, this code is not his).
//!
//! **The abstract state.** For each file, the pawns on it in order from White's side to Black's (their colours
//! only, no ranks); for each side, the number of its pieces (not pawns, not the king; promoted ones included,
//! kinds ignored) and the number of its promotions so far on light and on dark squares. The captures each side
//! still has to make follow: the units the enemy has in the state less those it has in the target. The start
//! is one White pawn below one Black pawn on every file and seven pieces a side; every Chess960 start maps to
//! the same state (one bishop of each square colour a side, FIDE 2.3), so everything here holds for both.
//!
//! **The moves** are the captures (a non-capture changes none of this, except a promotion, below):
//!
//! - a pawn takes a pawn of the other side on a neighbouring file: it leaves its file and takes the captured
//!   pawn's place in the order of the other file (FIDE 3.7.3; e.p. too: it lands next to the captured pawn,
//!   on a square that pawn just passed);
//! - a pawn takes a piece on a neighbouring file: it leaves its file and joins the other one anywhere in its
//!   order (ranks are not kept, so every place is allowed);
//! - a pawn at the far end of its file (a White pawn above every pawn on its file: it stands on the seventh
//!   rank) takes a piece on the last rank of a neighbouring file and promotes there (FIDE 3.7.5);
//! - a piece (the king included) takes a pawn anywhere, or a piece.
//!
//! **Promotions without a capture** are not moves of the search: such a pawn is left at the far end of its
//! file, and the goal allows it to promote then. Its promoted piece may have been captured earlier in the real
//! game: a capture of a piece of a side with no pieces in the state takes such a pawn instead ("a piece
//! promoted on file f"), counted as that side's promotion there. A pawn left so never changes what any other
//! move may do: it stays at the far end, the pawns of its side below it are interchangeable with it, and a
//! pawn joining its file goes below it.
//!
//! **The goal**: both sides have made their captures; each file's pawns are the target's after some of its
//! foremost pawns promote (White's from the top, Black's from the bottom); and the promotions cover the pieces
//! beyond the initial set (beyond one queen, two rooks, two knights, one bishop of each square colour; a
//! promoted bishop on a square of the colour of its promotion square, FIDE 3.2).
//!
//! **Why "no kernel" is a proof.** Every legal game maps to a path of this search: take its captures in order
//! (and its promotions without capture, left at the far end as above); each is one of the moves above from the
//! state of the game before it, and the game's final position satisfies the goal. So when the search, which
//! tries every move from every state it reaches, finds no path to the goal, no legal game reaches the
//! position. Ranks, squares of pieces, kinds of pieces captured, checks and the side to move are all ignored:
//! dropping constraints only allows more paths, so the search is over a relaxation and stays sound. States
//! found dead are remembered exactly (the whole state is the key, no hash signatures), and the search stops
//! without a verdict at its node budget.

pub mod bounds;
pub mod moves;
pub mod state;

use super::{Proof, ProofKind};
use crate::position::Setup;
use crate::types::Color;
use state::{file_char, Excess, Goal, KernelMove, State};
use std::collections::HashSet;

/// States the search expands at most per position; past it there is no verdict.
pub const NODE_BUDGET: u64 = 200_000;

/// The outcome of a kernel search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelResult {
    /// A kernel: the captures in order (promotions without capture left to the end).
    Found(Vec<KernelMove>),
    /// No kernel exists (the whole relaxation searched): the position is impossible.
    None {
        /// States expanded.
        states: u64,
    },
    /// The node budget ran out first: no verdict.
    Budget,
}

enum Outcome {
    Found,
    Dead,
    Budget,
}

struct Search<'a> {
    goal: &'a Goal,
    dead: HashSet<State>,
    nodes: u64,
    budget: u64,
    path: Vec<KernelMove>,
}

impl Search<'_> {
    fn dfs(&mut self, s: &State) -> Outcome {
        if self.dead.contains(s) {
            return Outcome::Dead;
        }
        if bounds::is_goal(s, self.goal) {
            return Outcome::Found;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            return Outcome::Budget;
        }
        let mut kids = moves::children(s, self.goal);
        kids.retain(|(_, k)| !self.dead.contains(k) && bounds::hopeless(k, self.goal).is_none());
        kids.sort_by_key(|(_, k)| bounds::estimate(k, self.goal));
        for (m, k) in kids {
            self.path.push(m);
            match self.dfs(&k) {
                Outcome::Found => return Outcome::Found,
                Outcome::Budget => return Outcome::Budget,
                Outcome::Dead => {
                    self.path.pop();
                }
            }
        }
        self.dead.insert(*s);
        Outcome::Dead
    }
}

/// Search the kernels of `setup` from the initial state, expanding at most `budget` states.
pub fn search(setup: &Setup, budget: u64) -> KernelResult {
    let goal = Goal::of(setup);
    let start = State::start();
    if bounds::hopeless(&start, &goal).is_some() {
        return KernelResult::None { states: 0 };
    }
    let mut s = Search {
        goal: &goal,
        dead: HashSet::new(),
        nodes: 0,
        budget,
        path: Vec::new(),
    };
    match s.dfs(&start) {
        Outcome::Found => KernelResult::Found(s.path),
        Outcome::Dead => KernelResult::None { states: s.nodes },
        Outcome::Budget => KernelResult::Budget,
    }
}

/// The proof that `setup` has no kernel (see the module docs), within [`NODE_BUDGET`] states; `None` when a
/// kernel exists or the budget ran out.
pub fn no_kernel(setup: &Setup) -> Option<Proof> {
    no_kernel_in(setup, &KernelCell::new())
}

/// The kernel search's outcome for one position, found at most once and passed on (the impossibility proof,
/// the initial path of the proof-game search and `reachable --json` all read it; see [`kernel_in`]).
pub type KernelCell = std::cell::OnceCell<KernelResult>;

/// The kernels of `setup` within [`NODE_BUDGET`] states ([`search`]), searched on the first call and kept in
/// `cell` (which must belong to `setup`) for the next ones.
pub fn kernel_in<'a>(setup: &Setup, cell: &'a KernelCell) -> &'a KernelResult {
    cell.get_or_init(|| search(setup, NODE_BUDGET))
}

/// [`no_kernel`] with the search's outcome kept in `cell` ([`kernel_in`]).
pub fn no_kernel_in(setup: &Setup, cell: &KernelCell) -> Option<Proof> {
    let goal = Goal::of(setup);
    if goal.units.iter().any(|&u| u > 15)
        || goal.pawns(Color::White) > 8
        || goal.pawns(Color::Black) > 8
    {
        return None; // the static proofs' business (material)
    }
    match *kernel_in(setup, cell) {
        KernelResult::None { states } => Some(Proof {
            kind: ProofKind::NoKernel,
            sentence: sentence(&goal, states),
        }),
        _ => None,
    }
}

fn side_words(c: Color, e: &Excess) -> String {
    let n = if c == Color::White { "White" } else { "Black" };
    if e.total == 0 {
        return format!("{n} none");
    }
    let parts: Vec<String> = ["queen", "rook", "knight", "bishop"]
        .iter()
        .zip(e.words)
        .filter(|(_, k)| *k > 0)
        .map(|(w, k)| format!("{k} {w}{}", if k == 1 { "" } else { "s" }))
        .collect();
    format!("{n} {} ({})", e.total, parts.join(", "))
}

/// The sentence of a proof that no kernel exists.
fn sentence(goal: &Goal, states: u64) -> String {
    let start = State::start();
    if let Some(why) = bounds::hopeless(&start, goal) {
        return format!("no capture kernel (FIDE 3.7, 3.10.3): {why}");
    }
    let lost = |c: Color| 16 - 1 - goal.units[c.index()];
    let files: Vec<String> = (0..8u8)
        .map(|f| format!("{} {}", file_char(f), goal.cols[f as usize].describe()))
        .collect();
    format!(
        "no capture kernel (FIDE 3.7, 3.10.3): White must make {} captures and Black {} (the units each has \
         lost), and no order of them turns the initial pawns (a White pawn below a Black one on every file) into \
         the position's (by file, from White's side: {}) with the promotions it needs (beyond the initial \
         pieces: {}; {}): a pawn changes file only by capturing, one file per capture, never passes a pawn on \
         its file, and promotes only as the foremost pawn of its file; the search of every sequence of captures \
         (which pawn or piece takes which unit, on which file; ranks, squares of pieces and kinds of the units \
         taken ignored, which only allows more) is exhaustive ({states} states)",
        lost(Color::Black),
        lost(Color::White),
        files.join(", "),
        side_words(Color::White, &goal.excess[0]),
        side_words(Color::Black, &goal.excess[1]),
    )
}

#[cfg(test)]
mod tests;
