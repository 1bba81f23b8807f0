//! The first-solution search of a proof-game problem: a weighted best-first search for *some* games of
//! exactly N plies, to find a cook fast where counting every game is out of reach. It never claims more than
//! the games it returns (no "unique", no "no solution"): it prunes only with the sound deductions
//! ([`super::bound`]) and, being a heuristic finder, also drops the positions the guide calls hopeless.
//!
//! The estimate of the moves still needed is the guide's ([`crate::proofgame::guide::Guide`]: an assignment of
//! units to target squares, not a bound); two orders ([`Order`]) use it, run one after the other. A position is entered only when both sides can still make the moves the deductions ask for in the
//! plies left (as in the counting search), and once per (position, plies played). When a position is met again
//! by another move, that second way in is kept: a game through it, with the first way's moves replaced by the
//! second's, is another game of N plies to the diagram (a *transposition*), so one found game often gives two.

use super::bound::Diagram;
use super::search::{ends, Finish};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen;
use crate::proofgame::guide::{Guide, NEVER};
use hashbrown::HashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

/// The estimate's weight against the plies played.
const WEIGHT: u32 = 3;
/// Positions expanded between two looks at the clock.
const CLOCK_EVERY: u64 = 1024;

/// What the search may spend.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Positions expanded at most.
    pub max_nodes: u64,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
    /// Positions stored at most (each about 110 bytes with its table entry).
    pub store: usize,
}

/// What a first-game search looks for: games of exactly `plies` plies from `root` that end on `diagram` as
/// `finish` asks, in the fast generator's encoding (castling data `cd`), guided by `guide`. Shared by this
/// search and the budget search ([`super::budget`]).
#[derive(Clone, Copy)]
pub(super) struct Goal<'a> {
    pub diagram: &'a Diagram,
    pub guide: &'a Guide,
    pub cd: &'a CastlingData,
    pub finish: Finish,
    pub root: &'a Board,
    pub plies: u32,
}

/// The order in which stored positions are expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    /// Weighted best-first: plies played + [`WEIGHT`] × estimate, deeper first on ties. Wasting a tempo costs
    /// 1 + [`WEIGHT`], so it suits problems with little spare time.
    Weighted,
    /// Deepest first among the positions whose estimate fits the plies left (then the smaller estimate), the
    /// others (estimate beyond the plies left, by how far) after: wasting a tempo costs nothing while the
    /// estimate fits, so it suits problems with spare tempi.
    Deepest,
}

/// A stored position: the board, the way in (parent's index and move) and the plies played.
struct Node {
    board: Board,
    parent: u32,
    mv: u32,
    g: u32,
}

/// The search's state.
struct Search<'a> {
    /// The diagram, guide, castling data, finish, root and plies of the problem.
    goal: Goal<'a>,
    /// The castling bits the diagram must keep (the guide's mask).
    mask: u8,
    store: Vec<Node>,
    seen: HashMap<(u64, u64, u32), u32>,
    /// A second way into a stored position: (parent's index, move).
    alt: HashMap<u32, (u32, u32)>,
    open: BinaryHeap<Reverse<(u32, u32, u32, u32)>>,
    order: Order,
    memo: HashMap<u64, u32>,
    games: Vec<Vec<u32>>,
}

/// Up to `want` distinct games that reach the `goal`, in the fast generator's encoding (not yet replayed: the
/// caller replays them), and the positions expanded.
pub(super) fn games(
    goal: Goal<'_>,
    limits: Limits,
    order: Order,
    want: usize,
) -> (Vec<Vec<u32>>, u64) {
    let (root, plies) = (goal.root, goal.plies);
    let mut s = Search {
        goal,
        mask: goal.finish.castling.unwrap_or(0),
        store: Vec::new(),
        seen: HashMap::new(),
        alt: HashMap::new(),
        open: BinaryHeap::new(),
        memo: HashMap::new(),
        games: Vec::new(),
        order,
    };
    if plies == 0 {
        return (Vec::new(), 0);
    }
    s.push(*root, u32::MAX, 0, 0);
    let mut expanded = 0u64;
    while let Some(Reverse((_, _, _, idx))) = s.open.pop() {
        expanded += 1;
        if expanded > limits.max_nodes || s.store.len() >= limits.store {
            break;
        }
        if expanded.is_multiple_of(CLOCK_EVERY)
            && (limits.deadline.is_some_and(|d| Instant::now() >= d)
                || crate::interrupt::stopping())
        {
            break;
        }
        s.expand(idx);
        s.transpositions();
        if s.games.len() >= want {
            break;
        }
    }
    s.games.truncate(want.max(1));
    (s.games, expanded)
}

impl Search<'_> {
    /// Store `board` (reached from `parent` by `mv` after `g` plies) and queue it, unless the guide calls it
    /// hopeless.
    fn push(&mut self, board: Board, parent: u32, mv: u32, g: u32) {
        let h = self
            .goal
            .guide
            .estimate(&board, self.mask, false, &mut self.memo);
        if h >= NEVER {
            return;
        }
        let idx = self.store.len() as u32;
        self.store.push(Node {
            board,
            parent,
            mv,
            g,
        });
        self.seen.insert((board.key, board.check, g), idx);
        let r = self.goal.plies - g;
        let key = match self.order {
            Order::Weighted => (g + WEIGHT * h, r, 0, idx),
            Order::Deepest => (h.saturating_sub(r), r, h, idx),
        };
        self.open.push(Reverse(key));
    }

    /// The moves from the root to stored position `idx`.
    fn path(&self, mut idx: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while self.store[idx as usize].parent != u32::MAX {
            let n = &self.store[idx as usize];
            out.push(n.mv);
            idx = n.parent;
        }
        out.reverse();
        out
    }

    /// Generate the children of stored position `idx`: games ending on the diagram at the last ply, the others
    /// stored when the deductions admit them.
    fn expand(&mut self, idx: u32) {
        let (b, g) = {
            let n = &self.store[idx as usize];
            (n.board, n.g)
        };
        let left = self.goal.plies - g - 1;
        for &m in movegen::moves::<MagicSliders>(&b, self.goal.cd).as_slice() {
            let next = b.make::<true>(self.goal.cd, m);
            if left == 0 {
                if ends(self.goal.diagram, self.goal.finish, &next, m) {
                    let mut game = self.path(idx);
                    game.push(m);
                    self.add(game);
                }
                continue;
            }
            if self
                .goal
                .finish
                .castling
                .is_some_and(|c| next.castling & c != c)
                || self.goal.diagram.feasible(&next, left).is_err()
            {
                continue;
            }
            match self.seen.get(&(next.key, next.check, g + 1)) {
                Some(&j) => {
                    self.alt.entry(j).or_insert((idx, m));
                }
                None => self.push(next, idx, m, g + 1),
            }
        }
    }

    /// Keep `game` if it is new.
    fn add(&mut self, game: Vec<u32>) {
        if !self.games.contains(&game) {
            self.games.push(game);
        }
    }

    /// For the first game found, the games through a second way into one of its positions: that way's moves
    /// up to the position, then the first game's moves from it.
    fn transpositions(&mut self) {
        if self.games.len() != 1 {
            return;
        }
        let game = self.games[0].clone();
        // Walk the game's stored positions from the root.
        let mut idx = 0u32;
        for (ply, &m) in game.iter().enumerate().take(game.len() - 1) {
            let b = self.store[idx as usize].board;
            let next = b.make::<true>(self.goal.cd, m);
            let Some(&j) = self.seen.get(&(next.key, next.check, ply as u32 + 1)) else {
                return;
            };
            if let Some(&(p, mv)) = self.alt.get(&j) {
                let mut other = self.path(p);
                other.push(mv);
                other.extend_from_slice(&game[ply + 1..]);
                self.add(other);
                return;
            }
            idx = j;
        }
    }
}
