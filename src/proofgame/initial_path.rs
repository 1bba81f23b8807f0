//! The initial path: a game in two legs through an intermediate position where the proof kernel's first pawn
//! captures are already made (FIDE 3.10.3: any series of legal moves that reaches the position proves it
//! legal). After the "initial path" of Texel's `doc/proofgame.md` (Peter Österlund's idea; none of his code).
//!
//! The hard random legal positions (issue 32's held-out set) have a dozen promoted pieces and few captures: in
//! their kernels ([`kernel_search`]) pawns of neighbouring files take each other (`bPa1xPb0`: Black's a-pawn
//! takes White's b-pawn), which empties a file of one colour's pawns so that the other colour's pawns there
//! promote by marching straight (FIDE 3.7.1). The staged search alone walks those pawns head to head: its guide
//! counts each pawn's way to its promotion square as free. So the captures come first here:
//!
//! 1. the kernel's pawn-takes-pawn captures between two pawns that have not moved yet (each file in at most one
//!    of them) are placed on concrete squares: the victim advances on its file to the capture square, the
//!    capturer to the square diagonally behind it, and takes (a Black pawn takes on the fourth rank first, a
//!    White one on the fifth; the other ranks from the third to the sixth are variants). The intermediate
//!    position is the start with those pawns moved, the side to move set by the parity of the pawn moves
//!    (the pieces at home again after an even number of moves each);
//!    Each capture may also be made with the files swapped (see [`variants`]);
//! 2. variants are ranked by the guide's estimate of the intermediate position against the target (the lowest
//!    first; "never" dropped), and for each in turn the staged search ([`staged`]) finds the first leg (start to
//!    the intermediate position: a few pawn moves, knights out and back for the tempo) and then the second leg
//!    (the intermediate position to the target), each variant within [`VARIANT_SHARE`] of the time left, until
//!    one gives a game or the deadline passes.
//!
//! Nothing here is a proof: a variant that fails only means another is tried, or `undetermined`. The whole
//! game is replayed by the reference generator from the start and compared with the target
//! ([`super::matches`]) before it is returned. Tried only where the target needs at least [`MIN_PROMOTIONS`]
//! promoted pieces (positions of real games rarely do, so their searches are not slowed) and from a start
//! whose pawns stand on their initial squares.

use super::guide::{Guide, NEVER};
use super::guided::{confirmed, FastLimits, FastResult};
use super::{castle_mask, staged, Game};
use crate::bitboard::board::Board;
use crate::position::Setup;
use crate::retro::kernel_search::{self, state::KernelMove, KernelResult};
use crate::retro::proofs;
use crate::types::{Color, Piece, Role, Square};
use hashbrown::HashMap;
use std::time::Instant;

/// Promoted pieces the target needs (beyond the initial set) from which the initial path is tried.
pub const MIN_PROMOTIONS: u32 = 2;
/// Positions the first leg (start to the intermediate position) expands at most.
const FIRST_LEG_NODES: u64 = 20_000;
/// Variants of capture ranks ranked at most (each one estimate).
const MAX_VARIANTS: usize = 4096;
/// The share of the time left each intermediate position's legs get (the first one most: the ranking holds).
const VARIANT_SHARE: f64 = 0.75;
/// Intermediate positions whose legs are searched at most (the first leg expands at most [`FIRST_LEG_NODES`]
/// positions, the second `--max-nodes`: the node budget of the whole initial path is this many times both).
const VARIANT_CAP: usize = 6;

/// One pawn-takes-pawn capture of the kernel between two pawns on their initial squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Capture {
    by: Color,
    from: u8,
    to: u8,
}

/// The capture ranks tried (0-based, from White's side), in order: a Black pawn takes on the fourth rank first
/// (the White victim's double step), a White one on the fifth.
fn ranks_for(by: Color) -> [u8; 4] {
    match by {
        Color::White => [4, 3, 5, 2],
        Color::Black => [3, 4, 2, 5],
    }
}

/// The promoted pieces `target` holds, both sides ([`proofs::promotions_at_least`]).
pub fn promotions_needed(target: &Setup) -> u32 {
    Color::ALL
        .into_iter()
        .map(|c| proofs::promotions_at_least(target, c))
        .sum()
}

/// The kernel's pawn-takes-pawn captures between pawns on their initial squares whose files no earlier
/// capture of the kernel touched.
fn clean_captures(kernel: &[KernelMove]) -> Vec<Capture> {
    let mut touched = [false; 8];
    let mut out = Vec::new();
    for m in kernel {
        match *m {
            KernelMove::PawnTakesPawn {
                by,
                from,
                at,
                to,
                to_at,
            } => {
                let (f, t) = (usize::from(from), usize::from(to));
                let initial = match by {
                    Color::White => at == 0 && to_at == 1,
                    Color::Black => at == 1 && to_at == 0,
                };
                if initial && !touched[f] && !touched[t] {
                    out.push(Capture { by, from, to });
                }
                touched[f] = true;
                touched[t] = true;
            }
            KernelMove::PawnTakesPiece { from, to, .. } => {
                touched[usize::from(from)] = true;
                touched[usize::from(to)] = true;
            }
            KernelMove::PieceTakesPawn { file, .. } => touched[usize::from(file)] = true,
            KernelMove::PieceTakesPiece { .. } => {}
        }
    }
    out
}

/// Moves of a pawn from its initial rank `from` to rank `to` on its file (a double step first, FIDE 3.7.2).
fn pawn_moves(from: u8, to: u8) -> u32 {
    let d = u32::from(from.abs_diff(to));
    if d >= 2 {
        d - 1
    } else {
        d
    }
}

/// The start with the captures made on the given ranks (see the module docs); `None` when a pawn is not on
/// its initial square.
fn intermediate(start: &Setup, caps: &[Capture], ranks: &[u8]) -> Option<Setup> {
    let mut s = start.clone();
    let mut plies = 0;
    for (c, &r) in caps.iter().zip(ranks) {
        let enemy = !c.by;
        // The second rank of each side (FIDE 2.3).
        let pawn_rank = |c: Color| if c == Color::White { 1 } else { 6 };
        let (own_rank, enemy_rank) = (pawn_rank(c.by), pawn_rank(enemy));
        let behind = match c.by {
            Color::White => r - 1,
            Color::Black => r + 1,
        };
        let sq = |f: u8, r: u8| Square::from_coords(i32::from(f), i32::from(r));
        let (own, victim, land) = (sq(c.from, own_rank)?, sq(c.to, enemy_rank)?, sq(c.to, r)?);
        if s.piece_at(own) != Some(Piece::new(c.by, Role::Pawn))
            || s.piece_at(victim) != Some(Piece::new(enemy, Role::Pawn))
        {
            return None;
        }
        s.board[own.index()] = None;
        s.board[victim.index()] = None;
        s.board[land.index()] = Some(Piece::new(c.by, Role::Pawn));
        plies += pawn_moves(own_rank, behind) + 1 + pawn_moves(enemy_rank, r);
    }
    // Each side's pieces are home again, after an even number of moves each: White is to move when the
    // pawn moves of both sides together are even.
    s.turn = if plies % 2 == 0 {
        Color::White
    } else {
        Color::Black
    };
    s.ep_square = None;
    Some(s)
}

/// The intermediate positions for `caps`, the lowest estimate first (at most [`MAX_VARIANTS`] ranked). Each
/// capture has eight variants: its four ranks ([`ranks_for`]), then the same with the two files swapped (the
/// same side's pawn of the other file takes: the kernel ignores, e.g., a bishop promoted on h8 walled in by an
/// unmoved g7 pawn, so the file a pawn of the kernel leaves free to promote may be the wrong one of the two).
fn variants(start: &Setup, target: &Setup, caps: &[Capture]) -> Vec<Setup> {
    let guide = Guide::new(start, target);
    let mut memo = HashMap::new();
    let mut ranked = Vec::new();
    let total = 8usize.saturating_pow(caps.len() as u32).min(MAX_VARIANTS);
    for code in 0..total {
        // Digit i (base 8) picks capture i's direction and rank.
        let digit = |i: usize| (code / 8usize.pow(i as u32)) % 8;
        let placed: Vec<Capture> = caps
            .iter()
            .enumerate()
            .map(|(i, &c)| match digit(i) < 4 {
                true => c,
                false => Capture {
                    from: c.to,
                    to: c.from,
                    ..c
                },
            })
            .collect();
        let ranks: Vec<u8> = caps
            .iter()
            .enumerate()
            .map(|(i, c)| ranks_for(c.by)[digit(i) % 4])
            .collect();
        let Some(t1) = intermediate(start, &placed, &ranks) else {
            continue;
        };
        let (board, cd) = Board::from_setup(&t1);
        let Some(mask) = castle_mask(&board, &cd, &target.castling) else {
            continue;
        };
        let h = guide.estimate(&board, mask, false, &mut memo);
        if h < NEVER {
            ranked.push((h, code, t1));
        }
    }
    ranked.sort_by_key(|&(h, code, _)| (h, code));
    ranked.into_iter().map(|(_, _, t1)| t1).collect()
}

/// A game from `start` to `target` through the intermediate positions of the kernel's pawn captures (see the
/// module docs), within `limits`.
pub fn search_from(start: &Setup, target: &Setup, limits: FastLimits) -> FastResult {
    if promotions_needed(target) < MIN_PROMOTIONS || target.ep_square.is_some() {
        return FastResult::NotFound("the initial path: not tried (few promotions)".into());
    }
    let kernel = match kernel_search::search(target, kernel_search::NODE_BUDGET) {
        KernelResult::Found(k) => k,
        _ => return FastResult::NotFound("the initial path: no kernel".into()),
    };
    let caps = clean_captures(&kernel);
    if caps.is_empty() {
        return FastResult::NotFound("the initial path: no pawn capture to place".into());
    }
    let mut tried = 0;
    for t1 in variants(start, target, &caps).into_iter().take(VARIANT_CAP) {
        if limits.deadline.is_some_and(|d| Instant::now() >= d) || crate::interrupt::stopping() {
            break;
        }
        tried += 1;
        let deadline = limits.deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now).mul_f64(VARIANT_SHARE)
        });
        let first = FastLimits {
            max_nodes: limits.max_nodes.min(FIRST_LEG_NODES),
            deadline,
        };
        let second = FastLimits {
            max_nodes: limits.max_nodes,
            deadline,
        };
        let FastResult::Found(g1) = staged::search_from(start, &t1, first) else {
            continue;
        };
        if let FastResult::Found(g2) = staged::search_from(&t1, target, second) {
            let moves: Vec<_> = g1.moves.into_iter().chain(g2.moves).collect();
            if confirmed(start, &moves, target) {
                return FastResult::Found(Game {
                    start: start.clone(),
                    moves,
                });
            }
        }
    }
    FastResult::NotFound(format!(
        "the initial path ({} pawn captures of the kernel placed first) found no game from the {tried} \
         intermediate positions it tried",
        caps.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_promoted_pieces() {
        // Three White queens (two promoted), two light-squared Black bishops on f1 and h1 (one promoted).
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/QQQ1Kb1b w - - 0 1").expect("valid");
        assert_eq!(promotions_needed(&s), 3);
        // A light and a dark one: none promoted.
        let s = Setup::from_fen("4k3/8/8/8/8/8/8/4Kbb1 w - - 0 1").expect("valid");
        assert_eq!(promotions_needed(&s), 0);
        assert_eq!(promotions_needed(&Setup::startpos()), 0);
    }

    #[test]
    fn places_a_black_pawn_capture_on_the_fourth_rank() {
        let caps = [Capture {
            by: Color::Black,
            from: 0,
            to: 1,
        }];
        let t1 = intermediate(&Setup::startpos(), &caps, &[3]).expect("pawns at home");
        // b2-b4, a7-a5, a5xb4: one White pawn move, two Black ones; White's knight out and back makes it
        // Black's turn (White one move ahead).
        let want = Setup::from_fen("rnbqkbnr/1ppppppp/8/8/1p6/8/P1PPPPPP/RNBQKBNR b KQkq - 0 1")
            .expect("valid");
        assert_eq!(t1.board, want.board);
        assert_eq!(t1.turn, Color::Black);
    }
}
