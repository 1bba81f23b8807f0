//! Trimming a game that reaches the diagram in more than N plies: each side's wasted moves are taken out, and
//! the two sides' remaining moves are interleaved again (White, Black, White, …). Wasted moves of a unit (its
//! consecutive moves, the first not a capture, none castling):
//!
//! - **out and back**: X→Y then Y→X, neither a capture — both removed (two moves fewer);
//! - **a detour**: X→Y then Y→Z where X→Z is one move of the unit's role (a knight's or king's step, a
//!   slider's line, a pawn's double step from its starting rank) — replaced by X→Z (one move fewer).
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

/// One edit of a side's moves: the plies it removes, the ply whose move it replaces (and by what), and the
/// moves it saves.
#[derive(Clone, Copy, Debug)]
struct Edit {
    remove: [Option<usize>; 2],
    set: Option<(usize, Move)>,
    saves: usize,
}

impl Edit {
    fn plies(&self) -> impl Iterator<Item = usize> + '_ {
        self.remove
            .iter()
            .flatten()
            .copied()
            .chain(self.set.map(|(k, _)| k))
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
        for pair in plies.windows(2) {
            let (k1, k2) = (pair[0], pair[1]);
            let (m1, m2) = (game[k1], game[k2]);
            let pos = &setups[k1];
            let Some(piece) = pos.piece_at(m1.from()) else {
                continue;
            };
            let quiet = |k: usize, m: Move| {
                m.kind() == MoveKind::Normal && setups[k].piece_at(m.to()).is_none()
            };
            if !quiet(k1, m1) || m2.kind() == MoveKind::Castling || m2.kind() == MoveKind::EnPassant
            {
                continue;
            }
            let side = piece.color.index();
            if m2.to() == m1.from() && quiet(k2, m2) {
                out[side].push(Edit {
                    remove: [Some(k1), Some(k2)],
                    set: None,
                    saves: 2,
                });
            } else if m2.kind() == MoveKind::Normal
                && one_move(piece.role, piece.color, m1.from(), m2.to())
            {
                out[side].push(Edit {
                    remove: [Some(k1), None],
                    set: Some((k2, Move::normal(m1.from(), m2.to()))),
                    saves: 1,
                });
            }
        }
    }
    out
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
            let e = list[i];
            if e.saves > need
                || cur
                    .iter()
                    .any(|c| c.plies().any(|k| e.plies().any(|j| j == k)))
            {
                continue;
            }
            cur.push(e);
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
        for k in e.remove.iter().flatten() {
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
