//! Trimming a game that reaches the diagram in more than N plies: each side's wasted moves are taken out, and
//! the two sides' remaining moves are interleaved again (White, Black, White, …). Wasted moves of a unit, in a
//! run of its normal moves (castling, promotion and e.p. end a run) of at most [`SPAN`] moves:
//!
//! - **a cycle**: the unit's moves from square X back to X, none a capture — all removed (an out-and-back
//!   X→Y→X saves two moves, a triangle three);
//! - **a shortcut**: the unit's moves from X to Z where X→Z is one move of the unit's role (a knight's or
//!   king's step, a slider's line, a pawn's double step from its starting rank), none but the last a capture —
//!   replaced by X→Z at the last one's ply (a detour X→Y→Z saves one move, a longer way more).
//!
//! Both sides must lose (M − N) / 2 moves. A heuristic finder: the trimmed game is kept only when the
//! reference generator replays it from the initial position to the diagram ([`super::replays`]).

use super::{replays, Problem};
use crate::position::Setup;
use crate::types::{Color, Move, MoveKind, Role, Square};
use std::time::Instant;

/// Combinations of one side's edits tried at most.
const COMBOS: usize = 300;
/// Trimmed games replayed at most.
const REPLAYS: usize = 4000;
/// Moves of one unit an edit spans at most.
const SPAN: usize = 8;

/// One edit of a side's moves: the plies it removes, the ply whose move it replaces (and by what), and the
/// moves it saves.
#[derive(Clone, Debug)]
struct Edit {
    remove: Vec<usize>,
    set: Option<(usize, Move)>,
    saves: usize,
}

impl Edit {
    fn plies(&self) -> impl Iterator<Item = usize> + '_ {
        self.remove.iter().copied().chain(self.set.map(|(k, _)| k))
    }
}

/// Whether a unit of `role` goes from `a` to `b` in one move on an empty board (FIDE 3.2–3.7).
fn one_move(role: Role, color: Color, a: Square, b: Square) -> bool {
    let (df, dr) = (
        (i32::from(b.file()) - i32::from(a.file())).abs(),
        i32::from(b.rank()) - i32::from(a.rank()),
    );
    let adr = dr.abs();
    match role {
        Role::Knight => (df, adr) == (1, 2) || (df, adr) == (2, 1),
        Role::Bishop => df == adr && df > 0,
        Role::Rook => (df == 0) != (adr == 0),
        Role::Queen => (df == adr && df > 0) || ((df == 0) != (adr == 0)),
        Role::King => df.max(adr) == 1,
        Role::Pawn => {
            let (start, step) = if color == Color::White {
                (1, 2)
            } else {
                (6, -2)
            };
            df == 0 && a.rank() == start && dr == step
        }
    }
}

/// Per side, the edits of `game` (module docs), from its positions (`setups[k]` before ply k).
fn edits(game: &[Move], setups: &[Setup]) -> [Vec<Edit>; 2] {
    // Each unit's plies, in order: units are numbered by their square in the initial position.
    let mut unit: [Option<usize>; 64] = std::array::from_fn(|s| setups[0].board[s].map(|_| s));
    let mut moves_of: Vec<Vec<usize>> = vec![Vec::new(); 64];
    for (k, m) in game.iter().enumerate() {
        let from = m.from().index();
        if let Some(u) = unit[from] {
            moves_of[u].push(k);
        }
        if m.kind() == MoveKind::Castling {
            // Castling ends the chains of both units: never edited.
            let rook = unit[m.to().index()];
            let king = unit[from].take();
            unit[m.to().index()] = None;
            if let Some(r) = rook {
                moves_of[r].push(k);
            }
            let kt = m.castling_king_target();
            let rt = Square::new(if kt.file() == 6 {
                kt.index() as u8 - 1
            } else {
                kt.index() as u8 + 1
            });
            unit[kt.index()] = king;
            unit[rt.index()] = rook;
            continue;
        }
        if m.kind() == MoveKind::EnPassant {
            let victim = (m.from().rank() * 8 + m.to().file()) as usize;
            unit[victim] = None;
        }
        unit[m.to().index()] = unit[from].take();
    }
    let mut out = [Vec::new(), Vec::new()];
    for plies in &moves_of {
        // A unit's path is edited between its special moves (castling, promotion, e.p.), never across.
        for run in plies.split(|&k| game[k].kind() != MoveKind::Normal) {
            unit_edits(game, setups, run, &mut out);
        }
    }
    out
}

/// The edits of one unit's run of normal moves (plies `run`, in order): with `sq[t]` the unit's square
/// before the run's move t (and `sq[len]` after the last), a **cycle** `sq[i] = sq[j]` whose moves capture
/// nothing is removed (j − i moves saved), and a **shortcut** `sq[i] → sq[j]` that the unit's role makes in one
/// move (j ≥ i + 2) replaces the moves i..j by one at the ply of the last (which may capture; the others
/// capture nothing): j − i − 1 moves saved. Segments of at most [`SPAN`] moves.
fn unit_edits(game: &[Move], setups: &[Setup], run: &[usize], out: &mut [Vec<Edit>; 2]) {
    let Some(piece) = run
        .first()
        .and_then(|&k| setups[k].piece_at(game[k].from()))
    else {
        return;
    };
    let side = piece.color.index();
    let sq: Vec<Square> = std::iter::once(game[run[0]].from())
        .chain(run.iter().map(|&k| game[k].to()))
        .collect();
    let capture: Vec<bool> = run
        .iter()
        .map(|&k| setups[k].piece_at(game[k].to()).is_some())
        .collect();
    for i in 0..run.len() {
        for j in i + 1..=run.len().min(i + SPAN) {
            if sq[i] == sq[j] && !capture[j - 1] {
                out[side].push(Edit {
                    remove: run[i..j].to_vec(),
                    set: None,
                    saves: j - i,
                });
            } else if j >= i + 2 && one_move(piece.role, piece.color, sq[i], sq[j]) {
                out[side].push(Edit {
                    remove: run[i..j - 1].to_vec(),
                    set: Some((run[j - 1], Move::normal(sq[i], sq[j]))),
                    saves: j - i - 1,
                });
            }
            if capture[j - 1] {
                break;
            }
        }
    }
}

/// Sets of non-overlapping edits of one side saving exactly `need` moves, at most [`COMBOS`].
fn combos(list: &[Edit], need: usize) -> Vec<Vec<Edit>> {
    fn walk(list: &[Edit], at: usize, need: usize, cur: &mut Vec<Edit>, out: &mut Vec<Vec<Edit>>) {
        if out.len() >= COMBOS {
            return;
        }
        if need == 0 {
            out.push(cur.clone());
            return;
        }
        for i in at..list.len() {
            let e = &list[i];
            if e.saves > need
                || cur
                    .iter()
                    .any(|c| c.plies().any(|k| e.plies().any(|j| j == k)))
            {
                continue;
            }
            cur.push(e.clone());
            walk(list, i + 1, need - e.saves, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    walk(list, 0, need, &mut Vec::new(), &mut out);
    out
}

/// `game` (to the diagram's placement, longer than `p.plies` by an even number) trimmed to `p.plies` plies and
/// replayed, if some pair of edit sets does it before `deadline`.
pub(super) fn trimmed(p: &Problem, game: &[Move], deadline: Option<Instant>) -> Option<Vec<Move>> {
    let n = p.plies as usize;
    if game.len() <= n || !(game.len() - n).is_multiple_of(2) {
        return None;
    }
    let setups = crate::proofgame::replay(&Setup::startpos(), game).ok()?;
    let need = (game.len() - n) / 2;
    let [white, black] = edits(game, &setups);
    let (cw, cb) = (combos(&white, need), combos(&black, need));
    let mut tried = 0;
    for w in &cw {
        for b in &cb {
            tried += 1;
            if tried > REPLAYS || (tried % 64 == 0 && deadline.is_some_and(|d| Instant::now() >= d))
            {
                return None;
            }
            let g = apply(game, w.iter().chain(b));
            if replays(p, &g) {
                return Some(g);
            }
        }
    }
    None
}

/// The game with the edits made: each side's remaining moves, interleaved again from White's first.
fn apply<'a>(game: &[Move], edits: impl Iterator<Item = &'a Edit>) -> Vec<Move> {
    let mut moves: Vec<Option<Move>> = game.iter().copied().map(Some).collect();
    for e in edits {
        for k in &e.remove {
            moves[*k] = None;
        }
        if let Some((k, m)) = e.set {
            moves[k] = Some(m);
        }
    }
    let side = |parity: usize| -> Vec<Move> {
        moves
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 2 == parity)
            .filter_map(|(_, m)| *m)
            .collect()
    };
    let (w, b) = (side(0), side(1));
    let mut out = Vec::with_capacity(w.len() + b.len());
    for i in 0..w.len().max(b.len()) {
        out.extend(w.get(i));
        out.extend(b.get(i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    /// The game of the UCI moves, each one of the reference generator's legal moves, and its last position.
    fn play(moves: &str) -> (Vec<Move>, Setup) {
        let mut pos = Setup::startpos();
        let mut game = Vec::new();
        for uci in moves.split_whitespace() {
            let m = reference::legal_moves(&pos)
                .into_iter()
                .find(|m| m.to_uci(false) == uci)
                .unwrap_or_else(|| panic!("{uci} is not legal in {}", pos.to_fen()));
            pos = reference::play(&pos, m);
            game.push(m);
        }
        (game, pos)
    }

    /// Each king walks a triangle (e2-f3-e3-e2, e7-f6-e6-e7): three moves a side, removed as one cycle. The
    /// four plies left (1. e4 e5 2. Ke2 Ke7) reach the same placement, White to move (checked by the replay);
    /// the pairwise edits alone (out-and-back, detour) overlap here and save at most two moves a side.
    #[test]
    fn a_triangle_is_removed_as_one_cycle() {
        let (long, end) = play("e2e4 e7e5 e1e2 e8e7 e2f3 e7f6 f3e3 f6e6 e3e2 e6e7");
        let p = Problem {
            diagram: end,
            plies: 4,
            castling: None,
            ep: None,
        };
        let (short, _) = play("e2e4 e7e5 e1e2 e8e7");
        assert_eq!(trimmed(&p, &long, None), Some(short));
    }

    /// White's knight way g1-h3-g5-f3 is no cycle, but one knight move joins its ends: it becomes g1-f3 (two
    /// moves saved, as the trim of pairs cannot: h3-f3 and g1-g5 are no knight moves); Black's b8-c6-b8-c6
    /// holds a cycle of two moves. The game left, 1. Nf3 Nc6, reaches the same placement (the replay checks).
    #[test]
    fn a_longer_way_is_cut_to_one_move() {
        let (long, end) = play("g1h3 b8c6 h3g5 c6b8 g5f3 b8c6");
        let p = Problem {
            diagram: end,
            plies: 2,
            castling: None,
            ep: None,
        };
        let (short, _) = play("g1f3 b8c6");
        assert_eq!(trimmed(&p, &long, None), Some(short));
    }
}
