//! A first game of exactly N plies from a game of another length: when the first-solution search finds none,
//! the guided search of `reachable` ([`crate::proofgame::guided`]) finds *a* game to the diagram's placement
//! (usually longer than N: its estimate is not a bound). A longer game is first trimmed of both sides' wasted
//! moves at once ([`super::trim`]), to N plies or else as close to N as a trim reaches; then windows of it are
//! replaced, one at a time, by games two plies shorter (or longer, when it is short) between the same two
//! placements, found by the counting search ([`super::cook`]'s windows), and the trim tried again, until the
//! game has N plies.
//!
//! A heuristic finder: it claims nothing but the game it returns, which the reference generator replays from
//! the initial position to the diagram ([`super::replays`]) — and every intermediate game is replayed too, so
//! each window is cut out of a real game.

use super::cook::{window, Encoded, Spend, MAX_WINDOW};
use super::{replays, Problem};
use crate::position::Setup;
use crate::proofgame::guided::{self, FastLimits, FastResult};
use crate::types::{Color, Move, Role, Square};

/// The diagram as the guided search's target: the placement and side to move, the stipulated castling rights
/// and e.p. square, and else every castling right whose king and rook stand on their initial squares (losing a
/// right takes moves; a game that keeps it is the likelier short one).
fn target(p: &Problem) -> Setup {
    let mut t = p.diagram.clone();
    if p.castling.is_none() {
        let mut rights = String::new();
        let at = |s: &str, c: Color, r: Role| {
            Square::parse(s)
                .and_then(|sq| t.piece_at(sq))
                .is_some_and(|x| x.color == c && x.role == r)
        };
        for (k, rook, ch, c) in [
            ("e1", "h1", 'K', Color::White),
            ("e1", "a1", 'Q', Color::White),
            ("e8", "h8", 'k', Color::Black),
            ("e8", "a8", 'q', Color::Black),
        ] {
            if at(k, c, Role::King) && at(rook, c, Role::Rook) {
                rights.push(ch);
            }
        }
        let text = super::diagram_text(&t);
        if let Ok(s) = Setup::from_fen(&format!(
            "{text} {} -",
            if rights.is_empty() { "-" } else { &rights }
        )) {
            t.castling = s.castling;
        }
    }
    t.ep_square = p.ep;
    t
}

/// A game of exactly `p.plies` plies to the diagram, replayed, and the positions spent (see the module docs).
pub(super) fn first_game(p: &Problem, spend: Spend) -> (Option<Vec<Move>>, u64) {
    let limits = FastLimits {
        max_nodes: spend.max_nodes / 2,
        deadline: spend.deadline,
        charge_settled: false,
    };
    let FastResult::Found(g) = guided::search_from(&Setup::startpos(), &target(p), limits) else {
        return (None, 0);
    };
    let mut game = g.moves;
    let mut nodes = 0u64;
    let n = p.plies as usize;
    if game.len() % 2 != n % 2 {
        return (None, nodes);
    }
    while game.len() != n {
        if game.len() > n {
            if let Some(g) = trim_toward(p, &game, spend) {
                game = g;
                continue;
            }
        }
        let delta: i32 = if game.len() > n { -2 } else { 2 };
        let left = Spend {
            max_nodes: spend.max_nodes.saturating_sub(nodes),
            deadline: spend.deadline,
        };
        let (next, used) = step(p, &game, delta, left);
        nodes += used;
        match next {
            Some(g) => game = g,
            None => return (None, nodes),
        }
    }
    (replays(p, &game).then_some(game), nodes)
}

/// `game` (longer than `p.plies`) trimmed ([`super::trim`]) to `p.plies` plies, else to the fewest plies above
/// it that a trim reaches (the windows then take it on from a game closer to N), replayed to the diagram.
fn trim_toward(p: &Problem, game: &[Move], spend: Spend) -> Option<Vec<Move>> {
    let n = p.plies as usize;
    (n..game.len()).step_by(2).find_map(|len| {
        if spend.spent(0) {
            return None;
        }
        let shorter = Problem {
            plies: len as u32,
            ..p.clone()
        };
        super::trim::trimmed(&shorter, game, spend.deadline)
    })
}

/// `game` with one window replaced by a game `delta` plies longer between the same placements, the smallest
/// window first, replayed from the initial position to the diagram; and the positions spent.
fn step(p: &Problem, game: &[Move], delta: i32, spend: Spend) -> (Option<Vec<Move>>, u64) {
    let Some(e) = Encoded::new(game) else {
        return (None, 0);
    };
    let shorter = Problem {
        plies: (game.len() as i32 + delta) as u32,
        ..p.clone()
    };
    let mut nodes = 0u64;
    let smallest = if delta < 0 { 3 } else { 1 };
    for w in smallest..=MAX_WINDOW.min(game.len()) {
        for i in 0..=game.len() - w {
            if spend.spent(nodes) {
                return (None, nodes);
            }
            let plies = (w as i32 + delta) as u32;
            let (others, n) = window(&e.cd, &e.boards[i], &e.setups[i + w], plies, 1, spend);
            nodes += n;
            for seg in &others {
                let g = e.splice(i, w, seg);
                if replays(&shorter, &g) {
                    return (Some(g), nodes);
                }
            }
        }
    }
    (None, nodes)
}
