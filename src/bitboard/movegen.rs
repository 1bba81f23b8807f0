//! Fully legal move generation from the check mask and pin masks (no make-and-test), written once and
//! consumed through a [`Sink`]: [`Counter`] adds popcounts (bulk counting at the last ply: no move is built);
//! every [`Consumer`] ([`MoveList`], and the perft walk's buffer and recursion) takes packed moves one at a time,
//! expanded from the target sets in one place.
//!
//! Per node: checkers of our king; the squares the enemy attacks with our king lifted off the board ("danger",
//! for king moves and castling; a full map only when castling is possible or it costs fewer slider lookups than
//! testing each king square alone); pinned pieces (an enemy slider's x-ray through exactly one of our pieces), each
//! restricted to the line through king and pinner; the check mask (checker plus the squares between it and the
//! king, or everything when not in check). Double check: king moves only. En passant is checked by
//! recomputing slider attacks on the king with both pawns moved (covers the rank "pin" of two pawns).
//! Castling (Chess960 rules, standard chess as a special case): the right, the empty squares between king,
//! rook and their destinations, no attacked square on the king's path with the king lifted, and no rook or
//! queen hitting the king's destination once the castling rook has left (the rook may shield it on the rank).

use super::attacks::{between, line, Sliders, KING, KNIGHT, PAWN};
use super::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, NO_EP, PAWN_I, QUEEN_I, ROOK_I,
};
use crate::types::Move;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = 0x8080_8080_8080_8080;
const RANK_1: u64 = 0xff;
const RANK_3: u64 = 0xff << 16;
const RANK_6: u64 = 0xff << 40;
const RANK_8: u64 = 0xff << 56;

/// Pack a normal move of `role` (bits as in [`MoveList`]).
#[inline(always)]
pub fn pack(role: usize, from: usize, to: u32) -> u32 {
    (role as u32) << 16 | (from as u32) << 6 | to
}

/// Pack the pawn moves to `to` from `to - delta` and hand each to `c` (four when promoting).
#[inline(always)]
pub fn pawn_moves_to<C: Consumer + ?Sized>(to: u32, delta: i32, promo: u64, c: &mut C) {
    let from = (to as i32 - delta) as u32;
    let base = from << 6 | to;
    if promo & (1 << to) != 0 {
        for p in [3u32, 2, 1, 0] {
            c.take(1 << 14 | p << 12 | base);
        }
    } else {
        c.take(base);
    }
}

/// Pack an en-passant capture.
#[inline(always)]
pub fn pack_ep(from: usize, to: usize) -> u32 {
    2 << 14 | (from as u32) << 6 | to as u32
}

/// Pack castling (king takes own rook).
#[inline(always)]
pub fn pack_castle(king: usize, rook: usize) -> u32 {
    (KING_I as u32) << 16 | 3 << 14 | (king as u32) << 6 | rook as u32
}

/// Receives generated moves as target sets.
pub trait Sink {
    /// A piece of role `role` on `from` may move (or capture) to each square of `targets`.
    fn piece(&mut self, role: usize, from: usize, targets: u64);
    /// Pawns may move to each square of `targets` from `to - delta`; those on `promo` promote (four moves).
    fn pawns(&mut self, targets: u64, delta: i32, promo: u64);
    /// One en-passant capture.
    fn en_passant(&mut self, from: usize, to: usize);
    /// One castling move (king takes own rook).
    fn castle(&mut self, king: usize, rook: usize);
    /// Whether the sink needs no more moves: the generator may then stop after the group of moves it has just
    /// offered (the king's, or one role's). Only a count with a cap ([`count_up_to`]) says so; every other
    /// sink takes every move (the default, which the compiler folds away).
    #[inline(always)]
    fn enough(&self) -> bool {
        false
    }
}

/// Takes generated moves one at a time, packed. Every consumer is a [`Sink`] (the impl below is the one place
/// target sets are expanded into packed moves): the move list, the perft walk's last-two-plies buffer and its
/// recursion.
pub trait Consumer {
    /// One packed move.
    fn take(&mut self, m: u32);
}

impl<C: Consumer> Sink for C {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, mut targets: u64) {
        while targets != 0 {
            self.take(pack(role, from, targets.trailing_zeros()));
            targets &= targets - 1;
        }
    }
    #[inline(always)]
    fn pawns(&mut self, mut targets: u64, delta: i32, promo: u64) {
        while targets != 0 {
            pawn_moves_to(targets.trailing_zeros(), delta, promo, self);
            targets &= targets - 1;
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.take(pack_ep(from, to));
    }
    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.take(pack_castle(king, rook));
    }
}

/// Counts moves without building them.
#[derive(Default)]
pub struct Counter(pub u64);

impl Sink for Counter {
    #[inline(always)]
    fn piece(&mut self, _role: usize, _from: usize, targets: u64) {
        self.0 += targets.count_ones() as u64;
    }
    #[inline(always)]
    fn pawns(&mut self, targets: u64, _delta: i32, promo: u64) {
        // Promotions are rare: count every target once, then three more per promotion.
        self.0 += targets.count_ones() as u64;
        let promotions = targets & promo;
        if promotions != 0 {
            self.0 += 3 * promotions.count_ones() as u64;
        }
    }
    #[inline(always)]
    fn en_passant(&mut self, _from: usize, _to: usize) {
        self.0 += 1;
    }
    #[inline(always)]
    fn castle(&mut self, _king: usize, _rook: usize) {
        self.0 += 1;
    }
}

/// Moves as `u32`: a [`Move`] in the low 16 bits, the moving role in bits 16–18. A growable list: positions
/// with impossible material (allowed with a warning) can exceed the 218 moves of legal chess; the hot perft walk
/// does not build lists at all (it recurses straight from the sink, see `crate::fast`'s `perft`).
#[derive(Default)]
pub struct MoveList(Vec<u32>);

impl MoveList {
    /// The moves.
    #[inline(always)]
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }
}

impl Consumer for MoveList {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.0.push(m);
    }
}

/// The plain [`Move`] of a generated `u32`.
#[inline(always)]
pub fn to_move(m: u32) -> Move {
    Move(m as u16)
}

/// Pieces of the side not to move that attack square `sq` of the side to move's king, given occupancy `occ`.
#[inline(always)]
pub fn attackers_of<S: Sliders>(b: &Board, sq: usize, occ: u64) -> u64 {
    let us = b.turn as usize;
    let opp = b.colors[us ^ 1];
    let r = &b.roles;
    ((KNIGHT[sq] & r[KNIGHT_I])
        | (PAWN[us][sq] & r[PAWN_I])
        | (KING[sq] & r[KING_I])
        | (S::bishop(sq, occ) & (r[BISHOP_I] | r[QUEEN_I]))
        | (S::rook(sq, occ) & (r[ROOK_I] | r[QUEEN_I])))
        & opp
}

/// The pieces giving check to the side to move.
#[inline(always)]
pub fn checkers<S: Sliders>(b: &Board) -> u64 {
    let us = b.turn as usize;
    let ksq = (b.roles[KING_I] & b.colors[us]).trailing_zeros() as usize;
    attackers_of::<S>(b, ksq, b.colors[0] | b.colors[1])
}

/// Run `$body` with `$s` bound to each square of `$bb`, lowest first. A macro, not a closure: closures are
/// separate functions that need not be inlined, and outside the BMI2-compiled walk they lose its features.
macro_rules! each_square {
    ($bb:expr, $s:ident => $body:block) => {{
        let mut bits: u64 = $bb;
        while bits != 0 {
            let $s = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            $body
        }
    }};
}

/// Pawn moves of `pawns` (all of one colour) to `push_ok`/`capture_ok` squares; `white` selects direction.
#[inline(always)]
fn pawn_moves<K: Sink>(
    sink: &mut K,
    white: bool,
    pawns: u64,
    empty: u64,
    push_ok: u64,
    capture_ok: u64,
) {
    if white {
        let single = (pawns << 8) & empty;
        let double = ((single & RANK_3) << 8) & empty & push_ok;
        sink.pawns(single & push_ok, 8, RANK_8);
        sink.pawns(double, 16, 0);
        sink.pawns(((pawns & !FILE_A) << 7) & capture_ok, 7, RANK_8);
        sink.pawns(((pawns & !FILE_H) << 9) & capture_ok, 9, RANK_8);
    } else {
        let single = (pawns >> 8) & empty;
        let double = ((single & RANK_6) >> 8) & empty & push_ok;
        sink.pawns(single & push_ok, -8, RANK_1);
        sink.pawns(double, -16, 0);
        sink.pawns(((pawns & !FILE_A) >> 9) & capture_ok, -9, RANK_1);
        sink.pawns(((pawns & !FILE_H) >> 7) & capture_ok, -7, RANK_1);
    }
}

/// Generate every legal move of `b` into `sink`.
#[inline(always)]
pub fn generate<S: Sliders, K: Sink>(b: &Board, cd: &CastlingData, sink: &mut K) {
    let us = b.turn as usize;
    let them = us ^ 1;
    let white = us == 0;
    let own = b.colors[us];
    let opp = b.colors[them];
    let occ = own | opp;
    let r = &b.roles;
    let king_bb = r[KING_I] & own;
    let ksq = king_bb.trailing_zeros() as usize;
    let diag_opp = (r[BISHOP_I] | r[QUEEN_I]) & opp;
    let orth_opp = (r[ROOK_I] | r[QUEEN_I]) & opp;
    let pawns_opp = r[PAWN_I] & opp;

    // Enemy sliders that see our king through our own pieces (x-ray): checkers when nothing stands between,
    // pinners when exactly one of ours does (a pinned piece stays on the line through king and pinner).
    let mut checkers = ((KNIGHT[ksq] & r[KNIGHT_I]) | (PAWN[us][ksq] & r[PAWN_I])) & opp;
    let mut pinned = 0u64;
    let snipers = (S::bishop(ksq, opp) & diag_opp) | (S::rook(ksq, opp) & orth_opp);
    each_square!(snipers, s => {
        let bt = between(ksq, s) & occ;
        if bt == 0 {
            checkers |= 1 << s;
        } else if bt & (bt - 1) == 0 {
            pinned |= bt;
        }
    });

    // Castling rights whose squares between king, rook and destinations are empty (usually none: then the
    // king's path need not be checked).
    let occ_nk = occ ^ king_bb;
    let king_squares = KING[ksq] & !own;
    let mut castle_rights = 0u8;
    if checkers == 0 {
        let mut rights = (b.castling >> (2 * us)) & 3;
        while rights != 0 {
            let right = 2 * us + rights.trailing_zeros() as usize;
            rights &= rights - 1;
            if cd.empty[right] & occ == 0 {
                castle_rights |= 1 << right;
            }
        }
    }

    // Squares the enemy attacks with our king lifted off the board ("danger"): all of them when castling is
    // possible or when that is cheaper; otherwise each king square is tested on its own.
    // Costs in slider lookups: two per king square, one per enemy slider (queens twice).
    let per_square = 2 * king_squares.count_ones();
    let full_map = diag_opp.count_ones() + orth_opp.count_ones();
    let (king_targets, danger) = if castle_rights != 0 || per_square > full_map {
        let mut danger = if white {
            ((pawns_opp & !FILE_A) >> 9) | ((pawns_opp & !FILE_H) >> 7)
        } else {
            ((pawns_opp & !FILE_A) << 7) | ((pawns_opp & !FILE_H) << 9)
        };
        danger |= KING[(r[KING_I] & opp).trailing_zeros() as usize & 63];
        each_square!(r[KNIGHT_I] & opp, s => { danger |= KNIGHT[s]; });
        each_square!(diag_opp, s => { danger |= S::bishop(s, occ_nk); });
        each_square!(orth_opp, s => { danger |= S::rook(s, occ_nk); });
        (king_squares & !danger, danger)
    } else {
        let mut safe = 0u64;
        each_square!(king_squares, s => {
            let attackers = ((KNIGHT[s] & r[KNIGHT_I])
                | (PAWN[us][s] & r[PAWN_I])
                | (KING[s] & r[KING_I])
                | (S::bishop(s, occ_nk) & (r[BISHOP_I] | r[QUEEN_I]))
                | (S::rook(s, occ_nk) & (r[ROOK_I] | r[QUEEN_I])))
                & opp;
            if attackers == 0 {
                safe |= 1 << s;
            }
        });
        (safe, !0)
    };

    sink.piece(KING_I, ksq, king_targets);
    if checkers & checkers.wrapping_sub(1) != 0 || sink.enough() {
        return;
    }
    let checkmask = if checkers == 0 {
        !0
    } else {
        between(ksq, checkers.trailing_zeros() as usize) | checkers
    };

    let target = !own & checkmask;
    let free = !pinned;
    each_square!(r[KNIGHT_I] & own & free, s => {
        sink.piece(KNIGHT_I, s, KNIGHT[s] & target)
    });
    if sink.enough() {
        return;
    }
    each_square!(r[BISHOP_I] & own & free, s => {
        sink.piece(BISHOP_I, s, S::bishop(s, occ) & target)
    });
    if sink.enough() {
        return;
    }
    each_square!(r[ROOK_I] & own & free, s => {
        sink.piece(ROOK_I, s, S::rook(s, occ) & target)
    });
    if sink.enough() {
        return;
    }
    each_square!(r[QUEEN_I] & own & free, s => {
        sink.piece(QUEEN_I, s, (S::bishop(s, occ) | S::rook(s, occ)) & target)
    });
    if sink.enough() {
        return;
    }
    let empty = !occ;
    let pawns = r[PAWN_I] & own;
    pawn_moves(sink, white, pawns & free, empty, checkmask, opp & checkmask);

    // A pinned piece cannot help against a check, so pinned pieces move only when not in check.
    if checkers == 0 && pinned != 0 {
        let diag_pinned = (r[BISHOP_I] | r[QUEEN_I]) & own & pinned;
        each_square!(diag_pinned, s => {
            let role = if r[BISHOP_I] & (1 << s) != 0 {
                BISHOP_I
            } else {
                QUEEN_I
            };
            sink.piece(role, s, S::bishop(s, occ) & target & line(ksq, s))
        });
        let orth_pinned = (r[ROOK_I] | r[QUEEN_I]) & own & pinned;
        each_square!(orth_pinned, s => {
            let role = if r[ROOK_I] & (1 << s) != 0 {
                ROOK_I
            } else {
                QUEEN_I
            };
            sink.piece(role, s, S::rook(s, occ) & target & line(ksq, s))
        });
        each_square!(pawns & pinned, s => {
            let l = line(ksq, s);
            pawn_moves(sink, white, 1 << s, empty, l, opp & l);
        });
    }

    if b.ep != NO_EP {
        let ep = b.ep as usize;
        let cap = ep ^ 8;
        each_square!(PAWN[them][ep] & pawns, from => {
            let occ2 = (occ ^ (1 << from) ^ (1 << cap)) | (1 << ep);
            let sliders = (S::bishop(ksq, occ2) & diag_opp) | (S::rook(ksq, occ2) & orth_opp);
            let others = checkers & !(1 << cap) & (r[KNIGHT_I] | r[PAWN_I]);
            if sliders == 0 && others == 0 {
                sink.en_passant(from, ep);
            }
        });
    }

    if castle_rights != 0 {
        let mut rights = castle_rights;
        while rights != 0 {
            let right = rights.trailing_zeros() as usize;
            rights &= rights - 1;
            let rook = cd.rook[right] as usize;
            if cd.path[right] & danger == 0
                && S::rook(cd.king_to[right] as usize, occ_nk ^ (1 << rook)) & orth_opp == 0
            {
                sink.castle(ksq, rook);
            }
        }
    }
}

/// The number of legal moves (bulk count).
#[inline(always)]
pub fn count<S: Sliders>(b: &Board, cd: &CastlingData) -> u64 {
    let mut c = Counter(0);
    generate::<S, _>(b, cd, &mut c);
    c.0
}

/// The number of legal moves where it is below `cap`; at least `cap` otherwise (the generator stops after the
/// group of moves that reaches it: a position's first ten moves are mostly its king's and knights').
#[inline(always)]
pub fn count_up_to<S: Sliders>(b: &Board, cd: &CastlingData, cap: u64) -> u64 {
    let mut c = Capped {
        counter: Counter(0),
        cap,
    };
    generate::<S, _>(b, cd, &mut c);
    c.counter.0
}

/// [`count_up_to`]'s sink: a [`Counter`] that has enough at `cap`.
struct Capped {
    counter: Counter,
    cap: u64,
}

impl Sink for Capped {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, targets: u64) {
        self.counter.piece(role, from, targets);
    }
    #[inline(always)]
    fn pawns(&mut self, targets: u64, delta: i32, promo: u64) {
        self.counter.pawns(targets, delta, promo);
    }
    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.counter.en_passant(from, to);
    }
    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.counter.castle(king, rook);
    }
    #[inline(always)]
    fn enough(&self) -> bool {
        self.counter.0 >= self.cap
    }
}

/// The legal moves as a list.
#[inline(always)]
pub fn moves<S: Sliders>(b: &Board, cd: &CastlingData) -> MoveList {
    let mut l = MoveList(Vec::with_capacity(64));
    generate::<S, _>(b, cd, &mut l);
    l
}
