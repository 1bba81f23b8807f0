//! A second game from a first one, when a search found one game of a problem but no second: the cook of a
//! problem set from a game is most often another way through part of it. Two ways are tried, cheapest first:
//!
//! - **exchange**: two moves of the same side (plies i and j of the same parity) swapped;
//! - **splice**: for a window of plies of the game, from its position P before ply i to its position Q after
//!   ply i + w − 1, every game of exactly w plies from P to Q's placement and side to move is counted by the
//!   counting search ([`super::search`], pruned by the deductions with Q as the diagram); when there are
//!   several, another of them put in place of the window's moves is another game of N plies.
//!
//! Nothing is claimed but a game the reference generator replays from the initial position to the diagram
//! ([`super::replays`]); a different sequence of moves is a second solution, so the problem is cooked. The
//! deductions hold for the window's games: each, after the game's first i plies, is part of a game from the
//! initial position to Q (docs/proofgames.md, D1–D9).

use super::bound::Diagram;
use super::memo::NeedMemo;
use super::search::{Budget, Finish, Worker};
use super::{replays, Problem};
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::movegen;
use crate::position::Setup;
use crate::types::Move;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Positions one window's count may enter at most.
const WINDOW_NODES: u64 = 20_000;
/// Windows of at most this many plies are counted (a unique problem tries every one: they must stay cheap).
pub(super) const MAX_WINDOW: usize = 12;
/// Other games of one window tried at most (each spliced in and replayed).
const WINDOW_GAMES: usize = 4;

/// What the splice may spend.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spend {
    /// Positions entered at most, over all windows.
    pub max_nodes: u64,
    /// Stop at this instant.
    pub deadline: Option<Instant>,
}

impl Spend {
    /// `share` (0–1) of what is left: of `nodes_left` positions and of the time until `deadline`, from now.
    pub fn share(nodes_left: u64, deadline: Option<Instant>, share: f64) -> Spend {
        let now = Instant::now();
        Spend {
            max_nodes: (nodes_left as f64 * share) as u64,
            deadline: deadline.map(|d| {
                let left = d.saturating_duration_since(now).as_secs_f64();
                now + std::time::Duration::from_secs_f64(left * share)
            }),
        }
    }

    /// Whether `nodes` positions use the budget up, the deadline has passed or the user stops the run.
    pub fn spent(&self, nodes: u64) -> bool {
        nodes >= self.max_nodes
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || crate::interrupt::stopping()
    }
}

/// A second game of `p` from `game` (one of its solutions), by an exchange or a splice (module docs), and the
/// positions the splice's counts entered.
pub(super) fn second(p: &Problem, game: &[Move], spend: Spend) -> (Option<Vec<Move>>, u64) {
    if let Some(g) = exchanged(p, game) {
        return (Some(g), 0);
    }
    spliced(p, game, spend)
}

/// The game with two moves of the same side exchanged (plies i and j of the same parity), if the reference
/// generator replays it legally to the diagram ([`replays`]).
fn exchanged(p: &Problem, game: &[Move]) -> Option<Vec<Move>> {
    for gap in (2..game.len()).step_by(2) {
        for i in 0..game.len() - gap {
            if game[i] == game[i + gap] {
                continue;
            }
            let mut g = game.to_vec();
            g.swap(i, i + gap);
            if replays(p, &g) {
                return Some(g);
            }
        }
    }
    None
}

/// A game from the initial position as the windows need it: its positions on the fast generator's boards, its
/// moves in that generator's encoding, and its positions as setups (the windows' targets).
pub(super) struct Encoded {
    pub cd: CastlingData,
    pub boards: Vec<Board>,
    pub moves: Vec<u32>,
    pub setups: Vec<Setup>,
}

impl Encoded {
    /// `game` encoded (`None` when a move is not among the generator's, or the reference generator does not
    /// replay it: the caller has replayed the game, so only a generator bug gives it).
    pub fn new(game: &[Move]) -> Option<Encoded> {
        let start = Setup::startpos();
        let (root, cd) = Board::from_setup(&start);
        let setups = crate::proofgame::replay(&start, game).ok()?;
        let mut boards = vec![root];
        let mut moves = Vec::with_capacity(game.len());
        for &mv in game {
            let b = *boards.last().expect("nonempty");
            let m = *movegen::moves::<MagicSliders>(&b, &cd)
                .as_slice()
                .iter()
                .find(|&&m| movegen::to_move(m) == mv)?;
            moves.push(m);
            boards.push(b.make::<true>(&cd, m));
        }
        Some(Encoded {
            cd,
            boards,
            moves,
            setups,
        })
    }

    /// The game with its plies `i..i + w` replaced by `seg`.
    pub fn splice(&self, i: usize, w: usize, seg: &[u32]) -> Vec<Move> {
        self.moves[..i]
            .iter()
            .chain(seg)
            .chain(&self.moves[i + w..])
            .map(|&m| movegen::to_move(m))
            .collect()
    }
}

/// The splice (module docs): windows of 2 plies and up (to [`MAX_WINDOW`]), each start in turn, until a second
/// game replays or `spend` is used up.
fn spliced(p: &Problem, game: &[Move], spend: Spend) -> (Option<Vec<Move>>, u64) {
    let Some(e) = Encoded::new(game) else {
        return (None, 0);
    };
    let mut nodes = 0u64;
    for w in 2..game.len().min(MAX_WINDOW + 1) {
        for i in 0..=game.len() - w {
            if spend.spent(nodes) {
                return (None, nodes);
            }
            let (others, n) = window(&e.cd, &e.boards[i], &e.setups[i + w], w as u32, 2, spend);
            nodes += n;
            for seg in others.iter().filter(|s| s[..] != e.moves[i..i + w]) {
                let g = e.splice(i, w, seg);
                if g != game && replays(p, &g) {
                    return (Some(g), nodes);
                }
            }
        }
    }
    (None, nodes)
}

/// Up to [`WINDOW_GAMES`] + 1 games of exactly `plies` plies from `from` to `to`'s placement and side to move
/// (castling rights and e.p. free: the caller's replay checks the rest), when the count finds at least `min`
/// within [`WINDOW_NODES`]; and the positions entered.
pub(super) fn window(
    cd: &CastlingData,
    from: &Board,
    to: &Setup,
    plies: u32,
    min: u64,
    spend: Spend,
) -> (Vec<Vec<u32>>, u64) {
    let diagram = Diagram::new(to);
    let budget = Budget {
        max_nodes: WINDOW_NODES,
        deadline: spend.deadline,
        nodes: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        why: AtomicU64::new(0),
    };
    let mut w = Worker {
        diagram: &diagram,
        cd,
        finish: Finish {
            castling: None,
            ep: None,
        },
        budget: &budget,
        tt: hashbrown::HashMap::new(),
        local: 0,
        path: Vec::new(),
        found: Vec::new(),
        keep: WINDOW_GAMES + 1,
        stop_at: 0,
        so_far: 0,
        kids: Vec::new(),
        memo: NeedMemo::default(),
    };
    let (n, done) = w.count(from, plies);
    let entered = budget.nodes.load(Ordering::Relaxed) + w.local;
    if n < min {
        return (Vec::new(), entered);
    }
    let mut found = std::mem::take(&mut w.found);
    if done && (found.len() as u64) < n.min(WINDOW_GAMES as u64 + 1) {
        found.clear();
        w.collect(from, plies, WINDOW_GAMES + 1, &mut found);
    }
    (found, entered)
}
