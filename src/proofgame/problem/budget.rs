//! The budget search of a proof-game problem: an IDA*-style depth-first search for a first game of exactly N
//! plies, built move by move from the plan instead of found by a best-first search or trimmed from a longer
//! game. A heuristic finder: it claims nothing but the games it returns (the caller replays them).
//!
//! The plan is the guide's ([`crate::proofgame::guide::Guide`]): an assignment of the units on the board to
//! the diagram's units, with the captures assigned, whose cost estimates the plies both sides still need. From a
//! position with r plies left, a move is tried only when
//! - the sound deductions ([`super::bound`], D1–D9) admit the position after it: each side can still make the
//!   moves they ask of it in its share of the r − 1 plies left (the side to move after it ⌈(r − 1)/2⌉, the
//!   other ⌊(r − 1)/2⌋: each side's tempo is counted; no per-unit parity argument is used);
//! - the guide's estimate after it is at most r − 1 + `slack`: the spare tempi (r − estimate) are spent only
//!   where the estimate allows it, and `slack` admits the estimate's errors, as IDA* raises its threshold:
//!   the search runs again with `slack` 0, 1, 2, 4, 6 … until it finds a game or the budget is spent.
//!
//! Moves are tried fewest-estimated-plies first (then fewest moves by the deductions), so the first line
//! followed is the plan's, and spare tempi are spent late, where they cost the least. A position from which
//! an iteration found no game is remembered with its plies left and the slack it was searched with, so it
//! is not searched again in that iteration or a smaller one (a transposition is searched once).

use super::first::{Goal, Limits};
use super::search::ends;
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::Board;
use crate::bitboard::movegen;
use crate::proofgame::guide::NEVER;
use hashbrown::HashMap;
use std::time::Instant;

/// The slack of each iteration (plies the guide's estimate may exceed the plies left by).
const SLACKS: [u32; 6] = [0, 1, 2, 4, 6, 8];
/// Positions entered between two looks at the clock.
const CLOCK_EVERY: u64 = 1024;
/// Once a first game is found, the search for a second enters at most as many positions again as the first
/// took, and at least this many: a unique problem's proof (the count) needs the time more.
const SECOND_AT_LEAST: u64 = 20_000;
/// On a problem of at least this many plies the search for a second game enters at most a quarter of the
/// positions the first took (and at least [`SECOND_AT_LEAST`]): there the count needs most of the time, and the
/// splice ([`super::cook`]) still looks for a second game near the first (docs/proofgames.md, twelfth session).
const SHORT_SECOND_FROM: u32 = 20;

/// The search's state.
struct Ida<'a> {
    /// The diagram, guide, castling data, finish, root and plies of the problem.
    goal: Goal<'a>,
    /// The castling bits the diagram must keep (the guide's mask).
    mask: u8,
    limits: Limits,
    memo: HashMap<u64, u32>,
    /// Positions (key, check, plies left) from which no game was found, with the slack they were searched with.
    failed: HashMap<(u64, u64, u32), u32>,
    slack: u32,
    path: Vec<u32>,
    games: Vec<Vec<u32>>,
    want: usize,
    nodes: u64,
    stopped: bool,
}

/// Up to `want` distinct games that reach the `goal`, in the fast generator's encoding (not yet replayed: the
/// caller replays them), and the positions entered.
pub(super) fn games(goal: Goal<'_>, limits: Limits, want: usize) -> (Vec<Vec<u32>>, u64) {
    let (root, plies) = (goal.root, goal.plies);
    let mut s = Ida {
        goal,
        mask: goal.finish.castling.unwrap_or(0),
        limits,
        memo: HashMap::new(),
        failed: HashMap::new(),
        slack: 0,
        path: Vec::new(),
        games: Vec::new(),
        want,
        nodes: 0,
        stopped: false,
    };
    if plies == 0 {
        return (Vec::new(), 0);
    }
    let h = goal.guide.estimate(root, s.mask, false, &mut s.memo);
    if h >= NEVER {
        return (Vec::new(), 0);
    }
    // The first iteration admits the root itself: its estimate may exceed the plies.
    let base = h.saturating_sub(plies);
    for slack in SLACKS {
        s.slack = base + slack;
        s.dfs(root, plies);
        if s.stopped || s.games.len() >= want {
            break;
        }
    }
    (s.games, s.nodes)
}

impl Ida<'_> {
    /// Whether a limit stops the search (checked every [`CLOCK_EVERY`] positions).
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        let over = self.nodes > self.limits.max_nodes || self.failed.len() >= self.limits.store;
        if over
            || (self.nodes.is_multiple_of(CLOCK_EVERY)
                && (self.limits.deadline.is_some_and(|d| Instant::now() >= d)
                    || crate::interrupt::stopping()))
        {
            self.stopped = true;
        }
        !self.stopped
    }

    /// Search `b` with `r` ≥ 1 plies left; true when enough games are found or a limit stops the search.
    fn dfs(&mut self, b: &Board, r: u32) -> bool {
        if !self.tick() {
            return true;
        }
        let moves = movegen::moves::<MagicSliders>(b, self.goal.cd);
        if r == 1 {
            for &m in moves.as_slice() {
                let next = b.make::<true>(self.goal.cd, m);
                if ends(self.goal.diagram, self.goal.finish, &next, m) {
                    let mut game = self.path.clone();
                    game.push(m);
                    if !self.games.contains(&game) {
                        self.games.push(game);
                        if self.games.len() == 1 {
                            let more = if self.goal.plies >= SHORT_SECOND_FROM {
                                self.nodes / 4
                            } else {
                                self.nodes
                            };
                            let more = more.max(SECOND_AT_LEAST);
                            self.limits.max_nodes =
                                self.limits.max_nodes.min(self.nodes.saturating_add(more));
                        }
                    }
                }
            }
            return self.games.len() >= self.want;
        }
        let left = r - 1;
        let mut kids: Vec<(u32, u32, u32)> = Vec::with_capacity(moves.as_slice().len());
        for &m in moves.as_slice() {
            let next = b.make::<true>(self.goal.cd, m);
            if self
                .goal
                .finish
                .castling
                .is_some_and(|c| next.castling & c != c)
            {
                continue;
            }
            let Ok(need) = self.goal.diagram.feasible(&next, left) else {
                continue;
            };
            if self
                .failed
                .get(&(next.key, next.check, left))
                .is_some_and(|&s| s >= self.slack)
            {
                continue;
            }
            let h = self
                .goal
                .guide
                .estimate(&next, self.mask, false, &mut self.memo);
            if h > left + self.slack {
                continue;
            }
            kids.push((h, need, m));
        }
        kids.sort_unstable();
        let before = self.games.len();
        for &(_, _, m) in &kids {
            let next = b.make::<true>(self.goal.cd, m);
            self.path.push(m);
            let done = self.dfs(&next, left);
            self.path.pop();
            if done {
                return true;
            }
        }
        if self.games.len() == before {
            self.failed.insert((b.key, b.check, r), self.slack);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitboard::movegen::to_move;
    use crate::position::Setup;
    use crate::proofgame::guide::Guide;
    use crate::proofgame::problem::bound::Diagram;
    use crate::proofgame::problem::search::Finish;
    use crate::proofgame::problem::{parse_diagram, replays, Problem};

    /// The games the budget search finds for `diagram` in `plies` plies within `max_nodes` positions (no
    /// deadline: the same games on every machine), each checked by the reference generator's replay.
    fn found(diagram: &str, plies: u32, max_nodes: u64) -> usize {
        let setup = parse_diagram(diagram, plies).expect("diagram");
        let d = Diagram::new(&setup);
        let guide = Guide::new(&Setup::startpos(), &setup);
        let (root, cd) = Board::from_setup(&Setup::startpos());
        let finish = Finish {
            castling: None,
            ep: None,
        };
        let limits = Limits {
            max_nodes,
            deadline: None,
            store: 1 << 20,
        };
        let goal = Goal {
            diagram: &d,
            guide: &guide,
            cd: &cd,
            finish,
            root: &root,
            plies,
        };
        let (games, _) = games(goal, limits, 2);
        let p = Problem {
            diagram: setup,
            plies,
            castling: None,
            ep: None,
        };
        for g in &games {
            let moves: Vec<_> = g.iter().map(|&m| to_move(m)).collect();
            assert!(replays(&p, &moves), "a game fails the replay: {moves:?}");
        }
        games.len()
    }

    /// 1. e4 e5 2. Nf3 Nc6 3. Bb5: the diagram after 5 plies; the budget search finds the game and, with
    /// 3. Bb5 and 2. … Nc6 in either order among the others, a second (replayed).
    #[test]
    fn finds_the_games_of_a_short_problem() {
        let n = found(
            "r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R",
            5,
            10_000,
        );
        assert_eq!(n, 2);
    }

    /// A bench problem of 23 plies (benches/proofgame-problems.txt) on which the best-first orders took 1.9 s
    /// of CPU (docs/proofgames.md, fifth session): the budget search builds a game within 200,000 positions.
    #[test]
    fn finds_a_game_of_a_long_bench_problem() {
        let n = found(
            "rn1qk2r/2p4p/pp2b1pn/1N1pPp2/3bP2P/3B1QPN/PPP5/R1B1K2R b",
            23,
            200_000,
        );
        assert!(n >= 1);
    }
}
