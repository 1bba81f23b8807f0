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
//! 1. the kernel's captures are placed on concrete squares in its order ([`placement`]): a pawn takes a pawn
//!    (the victim advances on its file to the capture square, the capturer to the square diagonally behind
//!    it, and takes; a Black pawn takes on the fourth rank first, a White one on the fifth, the other ranks
//!    from the third to the sixth and the two files swapped are variants), a piece takes a pawn (the pawn
//!    removed where it stands, the piece at home again). The intermediate position is the start with those
//!    pawns moved or taken, the side to move set by the parity of the pawn moves (the pieces at home again
//!    after an even number of moves each);
//! 2. variants are ranked by the guide's estimate of the intermediate position against the target (the lowest
//!    first; "never" dropped), and for each in turn the first leg (start to the intermediate position) is
//!    built when only pawns moved ([`built_leg`]: the placed pawn moves in order, a knight out and back while
//!    a side waits), else found by the staged search ([`staged`]: a few pawn moves, knights out and back for
//!    the tempo), and the staged search finds the second leg (the intermediate position to the target), each
//!    variant within [`VARIANT_SHARE`] of the time left, until one gives a game or the deadline passes.
//!
//! Nothing here is a proof: a variant that fails only means another is tried, or `undetermined`. The whole
//! game is replayed by the reference generator from the start and compared with the target
//! ([`super::matches`]) before it is returned. Tried only where the target needs at least [`MIN_PROMOTIONS`]
//! promoted pieces (positions of real games rarely do, so their searches are not slowed) and from a start
//! whose pawns stand on their initial squares.

use super::guide::{Guide, NEVER};
use super::guided::{confirmed, FastLimits, FastResult};
use super::placement::{self, Placing};
use super::{castle_mask, staged, Game};
use crate::bitboard::board::Board;
use crate::position::Setup;
use crate::reference;
use crate::retro::kernel_search::{self, state::KernelMove, KernelCell, KernelResult};
use crate::retro::proofs;
use crate::types::{Color, Move, Role, Square};
use hashbrown::HashMap;
use std::time::Instant;

/// Promoted pieces the target needs (beyond the initial set) from which the initial path is tried.
pub const MIN_PROMOTIONS: u32 = 2;
/// Positions the first leg (start to the intermediate position) expands at most.
const FIRST_LEG_NODES: u64 = 20_000;
/// Estimates at most per capture of the kernel when the variants are ranked ([`variants`]).
const MAX_VARIANTS: usize = 4096;
/// The share of the time left each intermediate position's legs get (the first one most: the ranking holds).
const VARIANT_SHARE: f64 = 0.75;
/// Intermediate positions whose legs are searched at most (the first leg expands at most [`FIRST_LEG_NODES`]
/// positions, the second `--max-nodes`: the node budget of the whole initial path is this many times both).
const VARIANT_CAP: usize = 6;
/// Pawn-takes-piece captures in the kernel from which they are placed as a chain of stages
/// ([`Placing::chain`]); with fewer, they are left to the second leg as before (session 58: of the held-out
/// set's legal positions only position 9 has two or more, and position 10's one is shown without).
const MIN_CHAIN: usize = 2;

/// The promoted pieces `target` holds, both sides ([`proofs::promotions_at_least`]).
pub fn promotions_needed(target: &Setup) -> u32 {
    Color::ALL
        .into_iter()
        .map(|c| proofs::promotions_at_least(target, c))
        .sum()
}

/// The intermediate positions for `kernel` (as placed: their pawn moves, [`built_leg`]), the lowest estimate
/// first, and the captures placed in the first one. The kernel's captures are placed in order ([`placement`]),
/// a beam of the partial positions with the lowest estimates kept after each (at most [`MAX_VARIANTS`]
/// estimates a capture: with eight options a capture, every combination of four pawn-takes-pawn captures is
/// ranked); ties go to the lower option of the latest capture.
fn variants(
    start: &Setup,
    target: &Setup,
    kernel: &[KernelMove],
    chain: bool,
    charge: bool,
) -> (Vec<Placing>, u32) {
    let guide = Guide::new(start, target).charging_settled(charge);
    let mut memo = HashMap::new();
    let mut estimate = |p: &Placing| {
        let t1 = p.position();
        let (board, cd) = Board::from_setup(&t1);
        match castle_mask(&board, &cd, &target.castling) {
            Some(mask) => guide.estimate(&board, mask, false, &mut memo),
            None => NEVER,
        }
    };
    let mut beam = vec![if chain {
        Placing::chain(start, target)
    } else {
        Placing::new(start)
    }];
    for m in kernel {
        let n = placement::options(m, chain);
        if n == 0 {
            beam = beam.iter().map(|p| p.skip(m)).collect();
            continue;
        }
        beam.truncate((MAX_VARIANTS / n).max(1));
        let mut next = Vec::new();
        for p in &beam {
            let kids: Vec<Placing> = (0..n).filter_map(|o| p.place(m, o)).collect();
            if kids.is_empty() {
                next.push((0, p.skip(m)));
            }
            next.extend(kids.into_iter().map(|k| (0, k)));
        }
        for (h, p) in &mut next {
            *h = estimate(p);
        }
        next.retain(|(h, _)| *h < NEVER);
        // Ties: the lower option of the latest capture first (the key read from its end).
        next.sort_by(|(h1, p1), (h2, p2)| {
            h1.cmp(h2)
                .then_with(|| p1.key.iter().rev().cmp(p2.key.iter().rev()))
        });
        beam = next.into_iter().map(|(_, p)| p).collect();
    }
    let placed = beam.first().map_or(0, |p| p.placed);
    beam.retain(|p| p.placed > 0);
    (beam, placed)
}

/// A game from `start` to `target` through the intermediate positions of the kernel's captures (see the
/// module docs), within `limits`; the proof kernel is read from `kernel` (searched there first if it is not
/// yet: [`kernel_search::kernel_in`]).
pub fn search_from(
    start: &Setup,
    target: &Setup,
    limits: FastLimits,
    kernel: &KernelCell,
) -> FastResult {
    if promotions_needed(target) < MIN_PROMOTIONS || target.ep_square.is_some() {
        return FastResult::NotFound("the initial path: not tried (few promotions)".into());
    }
    let kernel = match kernel_search::kernel_in(target, kernel) {
        KernelResult::Found(k) => k,
        _ => return FastResult::NotFound("the initial path: no kernel".into()),
    };
    let chain = pieces_taken_by_pawns(kernel) >= MIN_CHAIN;
    let (ranked, placed) = variants(start, target, kernel, chain, limits.charge_settled);
    if ranked.is_empty() {
        return FastResult::NotFound("the initial path: no capture of the kernel to place".into());
    }
    let mut tried = 0;
    for p in ranked.iter().take(VARIANT_CAP) {
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
            ..limits
        };
        let second = FastLimits { deadline, ..limits };
        let t1 = p.position();
        let Some(g1) = built_leg(start, p, &t1).or_else(|| chain_legs(start, p, &t1, first)) else {
            continue;
        };
        if let FastResult::Found(g2) = staged::search_from(&t1, target, second) {
            let moves: Vec<_> = g1.into_iter().chain(g2.moves).collect();
            if confirmed(start, &moves, target) {
                return FastResult::Found(Game {
                    start: start.clone(),
                    moves,
                });
            }
        }
    }
    FastResult::NotFound(format!(
        "the initial path ({placed} captures of the kernel placed first) found no game from the {tried} \
         intermediate positions it tried"
    ))
}

/// Pawn-takes-piece captures (of an initial piece, not promoting) in `kernel`.
fn pieces_taken_by_pawns(kernel: &[KernelMove]) -> usize {
    kernel
        .iter()
        .filter(|m| {
            matches!(
                m,
                KernelMove::PawnTakesPiece {
                    to_at: Some(_),
                    promoted_on: None,
                    ..
                }
            )
        })
        .count()
}

/// The first leg searched through `p`'s stages ([`Placing::stages`]: one intermediate position after each
/// pawn-takes-piece capture) and then `t1`, each leg by the staged search within `limits`' nodes and an
/// equal share of the time left (the legs still to search); `None` when a leg is not found.
fn chain_legs(start: &Setup, p: &Placing, t1: &Setup, limits: FastLimits) -> Option<Vec<Move>> {
    let mut stops: Vec<&Setup> = p.stages.iter().filter(|s| !same(s, t1)).collect();
    stops.push(t1);
    let mut from = start.clone();
    let mut moves = Vec::new();
    for (i, to) in stops.iter().enumerate() {
        let deadline = limits.deadline.map(|d| {
            let now = Instant::now();
            now + d.saturating_duration_since(now) / (stops.len() - i) as u32
        });
        let leg = FastLimits { deadline, ..limits };
        match staged::search_from(&from, to, leg) {
            FastResult::Found(g) => moves.extend(g.moves),
            FastResult::NotFound(_) => return None,
        }
        from = (*to).clone();
    }
    Some(moves)
}

/// Whether `a` and `b` have the same placement, side to move and castling rights.
fn same(a: &Setup, b: &Setup) -> bool {
    a.board == b.board && a.turn == b.turn && a.castling == b.castling
}

/// The first leg built without a search: each side plays its placed pawn moves in order
/// ([`Placing::steps`]); a side whose next one is not legal yet (the enemy pawn it takes has not arrived) or
/// that has none left loses a tempo with a knight, out and back (FIDE 3.6); at the end both knights are home
/// and the side to move is the intermediate position's (the pawn moves' parity). `None` when a piece's
/// capture was placed, a move does not fit or the position reached is not `t1` (then the first leg is
/// searched). The whole game is replayed before it is returned ([`search_from`], by `confirmed`).
fn built_leg(start: &Setup, p: &Placing, t1: &Setup) -> Option<Vec<Move>> {
    if !p.direct {
        return None;
    }
    let mut pos = start.clone();
    let mut next = [0usize; 2];
    let mut out: [Option<(Square, Square)>; 2] = [None; 2];
    let mut moves = Vec::new();
    let cap = 2 * (p.steps[0].len() + p.steps[1].len()) + 8;
    while next[0] < p.steps[0].len() || next[1] < p.steps[1].len() || out != [None, None] {
        if moves.len() >= cap {
            return None;
        }
        let c = pos.turn.index();
        let legal = reference::legal_moves(&pos);
        let find = |from: Square, to: Square| {
            legal
                .iter()
                .copied()
                .find(|m| m.from() == from && m.to() == to && m.promotion_role().is_none())
        };
        let pawn = p.steps[c].get(next[c]).and_then(|&(f, t)| find(f, t));
        let m = if let Some(m) = pawn {
            next[c] += 1;
            m
        } else if let Some((home, at)) = out[c].take() {
            find(at, home)?
        } else {
            let m = legal.iter().copied().find(|m| {
                pos.piece_at(m.from())
                    .is_some_and(|q| q.role == Role::Knight)
                    && pos.piece_at(m.to()).is_none()
            })?;
            out[c] = Some((m.from(), m.to()));
            m
        };
        moves.push(m);
        pos = reference::play(&pos, m);
    }
    (pos.board == t1.board && pos.turn == t1.turn && pos.castling == t1.castling).then_some(moves)
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
    fn builds_the_first_leg_of_pawn_captures() {
        // Position 8's natural placement (session 55): Black's b-, h- and f-pawns take White's a-, g- and
        // e-pawns on the fourth rank, White's c-pawn takes Black's d-pawn on the fifth.
        let start = Setup::startpos();
        let ptp = |by, from, at, to, to_at| KernelMove::PawnTakesPawn {
            by,
            from,
            at,
            to,
            to_at,
        };
        let (w, b) = (Color::White, Color::Black);
        let kernel = [
            ptp(b, 1, 1, 0, 0),
            ptp(b, 7, 1, 6, 0),
            ptp(w, 2, 0, 3, 1),
            ptp(b, 5, 1, 4, 0),
        ];
        let mut p = Placing::new(&start);
        for m in &kernel {
            p = p.place(m, 0).expect("fits");
        }
        let t1 = p.position();
        let want =
            Setup::from_fen("rnbqkbnr/p1p1p1p1/8/3P4/p3p1p1/8/1P1P1P1P/RNBQKBNR w KQkq - 0 1")
                .expect("valid");
        assert_eq!((t1.board, t1.turn), (want.board, want.turn));
        let moves = built_leg(&start, &p, &t1).expect("built");
        // The reference generator replays it: 12 pawn moves and a knight out and back.
        let end = super::super::replay(&start, &moves).expect("legal moves");
        let last = end.last().expect("nonempty");
        assert_eq!((last.board, last.turn), (want.board, want.turn));
        assert_eq!(moves.len(), 14);
        // A piece's capture of a pawn placed: not built (the first leg is searched).
        let m = KernelMove::PieceTakesPawn {
            by: w,
            file: 2,
            at: 1,
        };
        let q = Placing::new(&start).place(&m, 0).expect("fits");
        assert!(built_leg(&start, &q, &q.position()).is_none());
    }

    #[test]
    fn chains_the_pawn_captures_of_pieces() {
        // Position 9 of the held-out set: White's a-pawn takes a piece on the b-file above Black's b-pawn, the
        // g-pawn one on the h-file above Black's h-pawn, the h-pawn one on the g-file above Black's g-pawn
        // (and c takes d, e takes f between). One stage per capture of a piece.
        let start = Setup::startpos();
        let target =
            Setup::from_fen("BNR2q2/3RQ1k1/1pb1q2n/6N1/1QB4P/1Pn1B1K1/q1nnb1N1/Q1Q4R b - - 0 1")
                .expect("valid");
        let w = Color::White;
        let ptpiece = |from, at, to, to_at| KernelMove::PawnTakesPiece {
            by: w,
            from,
            at,
            to,
            to_at: Some(to_at),
            promoted_on: None,
        };
        let ptp = |from, to| KernelMove::PawnTakesPawn {
            by: w,
            from,
            at: 0,
            to,
            to_at: 1,
        };
        assert_eq!(placement::options(&ptpiece(0, 0, 1, 2), false), 0);
        // Options: b7 (the fourth rank tried), d5 and f5 (the first), h4 (the third), g3 (the fifth).
        let kernel = [
            (ptpiece(0, 0, 1, 2), 3),
            (ptp(2, 3), 0),
            (ptp(4, 5), 0),
            (ptpiece(6, 0, 7, 2), 2),
            (ptpiece(7, 0, 6, 1), 4),
        ];
        let mut p = Placing::chain(&start, &target);
        for (m, o) in &kernel {
            p = p.place(m, *o).expect("fits");
        }
        let want = [
            "1nbqkbnr/pPpppppp/1p6/8/8/8/1PPPPPPP/RNBQKBNR",
            "1nbqk1nr/pPp1p1p1/1p6/3P1P2/7P/7p/1P1P1P1P/RNBQKBNR",
            "1nbqk1n1/pPp1p3/1p6/3P1P2/7P/6Pp/1P1P1Pp1/RNBQKBNR",
        ];
        assert_eq!(p.stages.len(), 3);
        // Each stage: one capture after the victim (what Black has more of than the target: the a8 rook, the
        // nearest; on h4 the dark-squared bishop, as near as the h8 rook and first in square order; on g3 the
        // h8 rook, no dark-squared bishop left) stood on the capture square, the capturer diagonally behind.
        let captures = [
            ("a6", "b7", Role::Rook),
            ("g3", "h4", Role::Bishop),
            ("h2", "g3", Role::Rook),
        ];
        let black = |s: &Setup, r: Role| {
            let piece = Some(crate::types::Piece::new(Color::Black, r));
            s.board.iter().filter(|&&x| x == piece).count()
        };
        let mut prev = &start;
        for ((stage, fen), (from, to, role)) in p.stages.iter().zip(want).zip(captures) {
            let want = Setup::from_fen(&format!("{fen} w - - 0 1")).expect("valid");
            assert_eq!(stage.board, want.board, "{fen}");
            // The victim is the one Black piece this stage has fewer of than the one before.
            for r in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                let lost = usize::from(r == role);
                assert_eq!(black(prev, r), black(stage, r) + lost, "{fen}: {r:?}");
            }
            prev = stage;
            let (from, to) = (Square::parse(from).unwrap(), Square::parse(to).unwrap());
            let mut before = stage.clone();
            before.board[from.index()] = before.board[to.index()];
            before.board[to.index()] = Some(crate::types::Piece::new(Color::Black, role));
            before.turn = w;
            let m = reference::legal_moves(&before)
                .into_iter()
                .find(|m| m.from() == from && m.to() == to)
                .expect("the capture is legal");
            let after = reference::play(&before, m);
            assert_eq!(after.board, stage.board);
            assert!(!reference::legal_moves(&after).is_empty());
        }
        assert!(same(&p.stages[2], &p.position()));
    }
}
