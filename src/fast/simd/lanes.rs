//! Eight positions at once: the bulk count (number of legal moves) of a batch of positions with the same side
//! to move, one position per 64-bit lane, by set-wise bitboard arithmetic only (no table lookups).
//!
//! [`children`] makes the eight children of a depth-2 node in the lanes from the parent and eight moves.
//!
//! Written once, generic over [`Lane`] (eight 64-bit lanes), so that one source serves every build: [`V`], plain
//! Rust on `[u64; 8]` (the portable build, and the oracle the tests compare the others with), and the explicit
//! AVX-512 and AVX2 vectors of `super::x86` (one intrinsic per operation: left to itself, LLVM vectorised the
//! `[u64; 8]` loops poorly, see the README's SIMD section). Everything is `#[inline(always)]`, and loops over
//! roles or axes are written out (macros, not closures, which need not be inlined).
//!
//! The method (legal moves without make-and-test, as in `crate::bitboard::movegen`, but for sets of pieces):
//! - slider attacks by Kogge–Stone occluded fills, one per direction (eight directions): in one direction the
//!   rays of different pieces of one side never overlap (a piece stops the ray of the piece behind it), so the
//!   popcount of a direction's fill is exactly the number of moves in that direction;
//! - knight moves likewise by the eight knight jumps (each jump moves different knights to different squares);
//! - checkers and the check mask from the king's rays in the eight directions (the ray up to and including the
//!   first blocker; when that blocker is an enemy slider of the direction's kind, the ray is the check mask);
//! - pins: our piece first on the king's ray in direction `d` that an enemy slider of `d`'s kind reaches in the
//!   opposite direction is pinned on `d`'s axis and moves only along that axis (fills of that axis only);
//! - "danger" (squares the enemy attacks with our king lifted off the board) from the enemy's fills with the king
//!   removed from the blockers, its knight jumps, pawn captures and king steps;
//! - double check: king moves only; a pinned piece never moves while in check (FIDE 3.9: it cannot resolve it);
//! - castling (FIDE 3.8, Chess960 rules as in `movegen`): the right, its squares empty, not in check, no square of
//!   the king's path in danger.
//!
//! Not counted here: en passant (FIDE 3.7 d: the horizontal discovered check needs both pawns lifted), and
//! castling where the castling rook could shield the king's destination on the rank from beyond (Chess960 only:
//! a square lies on the far side of the rook). The caller counts such positions with the scalar generator (see
//! [`shield`] and `super::needs_scalar`).

use crate::bitboard::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I,
};
use std::ops::{Add, BitAnd, BitOr, BitXor, Not};

/// Positions per batch.
pub const LANES: usize = 8;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_B: u64 = FILE_A << 1;
const FILE_G: u64 = FILE_A << 6;
const FILE_H: u64 = FILE_A << 7;
const RANK_1: u64 = 0xff;
const RANK_3: u64 = 0xff << 16;
const RANK_6: u64 = 0xff << 40;
const RANK_8: u64 = 0xff << 56;

/// The operations the lane code needs on eight 64-bit lanes. [`V`] is the portable implementation (plain Rust on
/// `[u64; 8]`, which LLVM vectorises as it sees fit; the tests' oracle build); `super::x86` has the explicit AVX-512
/// one. Every method is `#[inline(always)]`: shift amounts and comparison constants are constants after inlining.
pub trait Lane:
    Copy
    + BitAnd<Output = Self>
    + BitAnd<u64, Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Add<Output = Self>
{
    /// All lanes `x`.
    fn splat(x: u64) -> Self;
    /// From plain values, lane `i` = `a[i]`.
    fn from_array(a: [u64; LANES]) -> Self;
    /// To plain values.
    fn to_array(self) -> [u64; LANES];
    /// Lane `i` = `a[i]` (zero-extended).
    #[inline(always)]
    fn from_u32(a: &[u32; LANES]) -> Self {
        Self::from_array(a.map(u64::from))
    }
    /// Shift every lane left by `k` (< 64).
    fn shl(self, k: u32) -> Self;
    /// Shift every lane right by `k` (< 64).
    fn shr(self, k: u32) -> Self;
    /// Shift towards higher squares by `d` (lower when negative). `d` is a constant after inlining.
    #[inline(always)]
    fn sh(self, d: i32) -> Self {
        if d >= 0 {
            self.shl(d as u32)
        } else {
            self.shr((-d) as u32)
        }
    }
    /// Population count per lane.
    fn popcnt(self) -> Self;
    /// All ones where the lane is non-zero.
    fn nonzero(self) -> Self;
    /// All ones where the lane is zero.
    fn is_zero(self) -> Self;
    /// Whether any lane is non-zero.
    fn any(self) -> bool;
    /// All ones where the lane equals `k`.
    fn eq(self, k: u64) -> Self;
    /// `1 << x` per lane (`x` < 64).
    fn bit(self) -> Self;
    /// All ones where the lane is at most `k`.
    fn at_most(self, k: u64) -> Self;
    /// All ones where the lane is less than `k`.
    fn below(self, k: u64) -> Self;
    /// The sum of the lanes.
    #[inline(always)]
    fn sum(self) -> u64 {
        self.to_array().iter().sum()
    }
}

/// One 64-bit value per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct V(pub [u64; LANES]);

impl V {
    #[inline(always)]
    fn map(self, f: impl Fn(u64) -> u64) -> V {
        let mut r = [0u64; LANES];
        for (r, &x) in r.iter_mut().zip(&self.0) {
            *r = f(x);
        }
        V(r)
    }

    #[inline(always)]
    fn zip(self, o: V, f: impl Fn(u64, u64) -> u64) -> V {
        let mut r = [0u64; LANES];
        for ((r, &x), &y) in r.iter_mut().zip(&self.0).zip(&o.0) {
            *r = f(x, y);
        }
        V(r)
    }
}

impl Lane for V {
    #[inline(always)]
    fn splat(x: u64) -> V {
        V([x; LANES])
    }
    #[inline(always)]
    fn from_array(a: [u64; LANES]) -> V {
        V(a)
    }
    #[inline(always)]
    fn to_array(self) -> [u64; LANES] {
        self.0
    }
    #[inline(always)]
    fn shl(self, k: u32) -> V {
        self.map(|x| x << k)
    }
    #[inline(always)]
    fn shr(self, k: u32) -> V {
        self.map(|x| x >> k)
    }
    #[inline(always)]
    fn popcnt(self) -> V {
        self.map(|x| x.count_ones() as u64)
    }
    #[inline(always)]
    fn nonzero(self) -> V {
        self.map(|x| ((x != 0) as u64).wrapping_neg())
    }
    #[inline(always)]
    fn is_zero(self) -> V {
        self.map(|x| ((x == 0) as u64).wrapping_neg())
    }
    #[inline(always)]
    fn any(self) -> bool {
        self.0.iter().fold(0, |a, &x| a | x) != 0
    }
    #[inline(always)]
    fn eq(self, k: u64) -> V {
        self.map(|x| ((x == k) as u64).wrapping_neg())
    }
    #[inline(always)]
    fn bit(self) -> V {
        self.map(|x| 1u64 << (x & 63))
    }
    #[inline(always)]
    fn at_most(self, k: u64) -> V {
        self.map(|x| ((x <= k) as u64).wrapping_neg())
    }
    #[inline(always)]
    fn below(self, k: u64) -> V {
        self.map(|x| ((x < k) as u64).wrapping_neg())
    }
}

impl BitAnd for V {
    type Output = V;
    #[inline(always)]
    fn bitand(self, o: V) -> V {
        self.zip(o, |a, b| a & b)
    }
}

impl BitAnd<u64> for V {
    type Output = V;
    #[inline(always)]
    fn bitand(self, o: u64) -> V {
        self.map(|a| a & o)
    }
}

impl BitOr for V {
    type Output = V;
    #[inline(always)]
    fn bitor(self, o: V) -> V {
        self.zip(o, |a, b| a | b)
    }
}

impl BitXor for V {
    type Output = V;
    #[inline(always)]
    fn bitxor(self, o: V) -> V {
        self.zip(o, |a, b| a ^ b)
    }
}

impl Not for V {
    type Output = V;
    #[inline(always)]
    fn not(self) -> V {
        self.map(|a| !a)
    }
}

impl Add for V {
    type Output = V;
    #[inline(always)]
    fn add(self, o: V) -> V {
        self.zip(o, u64::wrapping_add)
    }
}

/// Run `$body` once per ray direction with `$d` (index), `$s` (shift), `$w` (mask of the squares a step may
/// land on: no wrap across the board's edge) and `$orth` bound to constants, so every shift is an immediate.
/// Direction `d ^ 1` is the opposite of `d`; `d / 2` is its axis (file, rank, a1–h8 diagonal, a8–h1 diagonal).
macro_rules! each_dir {
    (|$d:ident, $s:ident, $w:ident, $orth:ident| $body:block) => {{
        each_dir!(@ 0, 8, !0, true, $d, $s, $w, $orth, $body);
        each_dir!(@ 1, -8, !0, true, $d, $s, $w, $orth, $body);
        each_dir!(@ 2, 1, !FILE_A, true, $d, $s, $w, $orth, $body);
        each_dir!(@ 3, -1, !FILE_H, true, $d, $s, $w, $orth, $body);
        each_dir!(@ 4, 9, !FILE_A, false, $d, $s, $w, $orth, $body);
        each_dir!(@ 5, -9, !FILE_H, false, $d, $s, $w, $orth, $body);
        each_dir!(@ 6, 7, !FILE_H, false, $d, $s, $w, $orth, $body);
        each_dir!(@ 7, -7, !FILE_A, false, $d, $s, $w, $orth, $body);
    }};
    (@ $dv:expr, $sv:expr, $wv:expr, $ov:expr, $d:ident, $s:ident, $w:ident, $orth:ident, $body:block) => {{
        let ($d, $s, $w, $orth): (usize, i32, u64, bool) = ($dv, $sv, $wv, $ov);
        let _ = ($d, $s, $w, $orth);
        $body
    }};
}

/// Run `$body` once per knight jump with `$s` (shift) and `$w` (landing mask) bound to constants.
macro_rules! each_jump {
    (|$s:ident, $w:ident| $body:block) => {{
        each_jump!(@ 17, !FILE_A, $s, $w, $body);
        each_jump!(@ 15, !FILE_H, $s, $w, $body);
        each_jump!(@ 10, !(FILE_A | FILE_B), $s, $w, $body);
        each_jump!(@ 6, !(FILE_G | FILE_H), $s, $w, $body);
        each_jump!(@ -6, !(FILE_A | FILE_B), $s, $w, $body);
        each_jump!(@ -10, !(FILE_G | FILE_H), $s, $w, $body);
        each_jump!(@ -15, !FILE_A, $s, $w, $body);
        each_jump!(@ -17, !FILE_H, $s, $w, $body);
    }};
    (@ $sv:expr, $wv:expr, $s:ident, $w:ident, $body:block) => {{
        let ($s, $w): (i32, u64) = ($sv, $wv);
        $body
    }};
}

/// Propagators of a Kogge–Stone fill by shift `s` with landing mask `w`: the empty squares a ray may pass
/// (one, two and four steps at once).
#[inline(always)]
fn props<L: Lane>(empty: L, s: i32, w: u64) -> [L; 3] {
    let p1 = empty & w;
    let p2 = p1 & p1.sh(s);
    let p4 = p2 & p2.sh(2 * s);
    [p1, p2, p4]
}

/// Attacks by shift `s` (landing mask `w`) of the pieces `gen` through the propagators `p` (the first blocker
/// included).
#[inline(always)]
fn fill<L: Lane>(gen: L, p: &[L; 3], s: i32, w: u64) -> L {
    let mut g = gen;
    g = g | (p[0] & g.sh(s));
    g = g | (p[1] & g.sh(2 * s));
    g = g | (p[2] & g.sh(4 * s));
    g.sh(s) & w
}

/// Squares a king on `k` (a set) steps to.
#[inline(always)]
fn king_steps<L: Lane>(k: L) -> L {
    let side = (k & !FILE_A).sh(-1) | (k & !FILE_H).sh(1);
    let row = k | side;
    side | row.sh(8) | row.sh(-8)
}

/// Squares pawns of colour `white` capture on.
#[inline(always)]
fn pawn_captures<L: Lane>(white: bool, p: L) -> L {
    if white {
        (p & !FILE_A).sh(7) | (p & !FILE_H).sh(9)
    } else {
        (p & !FILE_A).sh(-9) | (p & !FILE_H).sh(-7)
    }
}

/// A batch of positions as structure of arrays: per role and per colour one [`V`], and the castling rights.
#[derive(Clone, Copy, Debug)]
pub struct Batch<L: Lane = V> {
    /// Pieces of each role, both colours.
    pub roles: [L; 6],
    /// Pieces of each colour.
    pub colors: [L; 2],
    /// Castling rights (bits as in [`Board::castling`]; only the side to move's are read).
    pub castling: L,
}

impl<L: Lane> Batch<L> {
    /// An empty batch.
    #[inline(always)]
    pub fn new() -> Batch<L> {
        Batch {
            roles: [L::splat(0); 6],
            colors: [L::splat(0); 2],
            castling: L::splat(0),
        }
    }

    /// The same positions in another implementation of the lanes.
    #[inline(always)]
    pub fn to<M: Lane>(&self) -> Batch<M> {
        let c = |v: L| M::from_array(v.to_array());
        Batch {
            roles: self.roles.map(c),
            colors: self.colors.map(c),
            castling: c(self.castling),
        }
    }
}

impl Batch {
    /// Put a position in lane `i`.
    #[inline(always)]
    pub fn set(&mut self, i: usize, b: &Board) {
        for r in 0..6 {
            self.roles[r].0[i] = b.roles[r];
        }
        self.colors[0].0[i] = b.colors[0];
        self.colors[1].0[i] = b.colors[1];
        self.castling.0[i] = b.castling as u64;
    }
}

/// Whether the castling rook of `right` could shield the king's destination from a rook or queen beyond it on
/// the rank (a square lies on the rook's far side from the destination): then the lanes leave that castling
/// to the scalar generator. Never in standard chess (rooks in the corners).
#[inline(always)]
pub fn shield(cd: &CastlingData, right: usize) -> bool {
    let (rook, to) = (cd.rook[right] % 8, cd.king_to[right] % 8);
    (rook > to && rook < 7) || (rook < to && rook > 0)
}

impl<L: Lane> Default for Batch<L> {
    fn default() -> Batch<L> {
        Batch::new()
    }
}

/// The children of `parent` by eight moves at once (packed as in `movegen`: a [`crate::types::Move`] in the low
/// 16 bits, the moving role in bits 16–18), and the lanes the caller must count with the scalar generator
/// instead (all ones): moves other than normal ones (promotion, en passant, castling: played by
/// [`Board::make`]), and children with a usable en-passant square or a castling right whose squares are empty
/// (as `super::needs_scalar`).
#[inline(always)]
pub fn children<L: Lane>(parent: &Board, cd: &CastlingData, m: L) -> (Batch<L>, L) {
    let mover = parent.turn as usize;
    let other = mover ^ 1;
    let from = m.shr(6) & 63;
    let to = m & 63;
    let role = m.shr(16);
    let (fb, tb) = (from.bit(), to.bit());
    let ft = fb | tb;
    let mut b = Batch::new();
    b.colors[mover] = L::splat(parent.colors[mover]) ^ ft;
    b.colors[other] = L::splat(parent.colors[other]) & !tb;
    // Written out role by role, not as a loop over roles: LLVM vectorised such a loop across the six roles
    // (one register per lane) and stored the result transposed with eight scatters, about 12% of the time.
    // A macro, not a closure: a closure need not be inlined, and then the intrinsics of the explicit vector
    // builds are called out of line (the AVX2 walk measured 1.8x slower so).
    let nt = !tb;
    macro_rules! child {
        ($r:expr) => {
            (L::splat(parent.roles[$r]) & nt) ^ (ft & role.eq($r as u64))
        };
    }
    b.roles = [
        child!(0),
        child!(1),
        child!(2),
        child!(3),
        child!(4),
        child!(5),
    ];
    let mut scalar = !(m.shr(14) & 3).eq(0);
    // A double step beside an enemy pawn leaves a usable e.p. square (as `Board::make` keeps it).
    let double = role.eq(PAWN_I as u64) & (from ^ to).eq(16);
    let beside = ((tb & !FILE_A).sh(-1) | (tb & !FILE_H).sh(1))
        & (parent.roles[PAWN_I] & parent.colors[other]);
    scalar = scalar | (double & beside.nonzero());
    // The reply side's castling rights: kept unless its rook is captured (the mover's are not read).
    let occ = b.colors[0] | b.colors[1];
    b.castling = L::splat(parent.castling as u64);
    for right in 2 * other..2 * other + 2 {
        if parent.castling & (1 << right) != 0 {
            let lost = tb.eq(1u64 << cd.rook[right]);
            b.castling = b.castling & !(lost & (1 << right));
            if shield(cd, right) {
                scalar = scalar | (!lost & (occ & cd.empty[right]).is_zero());
            }
        }
    }
    (b, scalar)
}

/// The number of legal moves, en passant and [`shield`]ed castling excluded, of each lane's position with side
/// `us` to move (0 White). Lanes must hold legal positions (one king each; anything else gives a meaningless
/// count but no error: the arithmetic has no indexing).
#[inline(always)]
pub fn count<L: Lane>(us: usize, b: &Batch<L>, cd: &CastlingData) -> L {
    // One copy per side, so that every shift amount is a constant.
    if us == 0 {
        count_side::<L, true>(b, cd)
    } else {
        count_side::<L, false>(b, cd)
    }
}

#[inline(always)]
fn count_side<L: Lane, const WHITE: bool>(b: &Batch<L>, cd: &CastlingData) -> L {
    let white = WHITE;
    let us = (!WHITE) as usize;
    let r = &b.roles;
    let own = b.colors[us];
    let opp = b.colors[us ^ 1];
    let occ = own | opp;
    let empty = !occ;
    let king = r[KING_I] & own;
    let empty_nk = empty | king;
    let diag = r[BISHOP_I] | r[QUEEN_I];
    let orth = r[ROOK_I] | r[QUEEN_I];
    let (diag_opp, orth_opp) = (diag & opp, orth & opp);
    let (diag_own, orth_own) = (diag & own, orth & own);
    // Directions whose fills are needed (no lane has such sliders: skipped, as in endgames).
    let (any_diag_opp, any_orth_opp) = (diag_opp.any(), orth_opp.any());
    let (any_diag_own, any_orth_own) = (diag_own.any(), orth_own.any());

    // Enemy leapers: danger, and the leapers checking our king.
    let knights_opp = r[KNIGHT_I] & opp;
    let mut danger = king_steps(r[KING_I] & opp) | pawn_captures(!white, r[PAWN_I] & opp);
    let mut king_jumps = L::splat(0);
    each_jump!(|s, w| {
        danger = danger | (knights_opp.sh(s) & w);
        king_jumps = king_jumps | (king.sh(s) & w);
    });
    let leaper_checks = (king_jumps & knights_opp) | (pawn_captures(white, king) & r[PAWN_I] & opp);
    let mut checks = leaper_checks.popcnt();
    let mut checkmask = leaper_checks;

    // Enemy slider fills with our king lifted: danger, and (seen from the far side) the pinners' rays.
    let mut enemy = [L::splat(0); 8];
    each_dir!(|d, s, w, orth| {
        if (orth && any_orth_opp) || (!orth && any_diag_opp) {
            let gen = if orth { orth_opp } else { diag_opp };
            enemy[d] = fill(gen, &props(empty_nk, s, w), s, w);
            danger = danger | enemy[d];
        }
    });

    // The king's rays: slider checks and pins (per axis).
    let mut pinned_on = [L::splat(0); 4];
    each_dir!(|d, s, w, orth| {
        if (orth && any_orth_opp) || (!orth && any_diag_opp) {
            let ray = fill(king, &props(empty, s, w), s, w);
            let checker = ray & if orth { orth_opp } else { diag_opp };
            checks = checks + checker.popcnt();
            checkmask = checkmask | (ray & checker.nonzero());
            pinned_on[d / 2] = pinned_on[d / 2] | (ray & own & enemy[d ^ 1]);
        }
    });

    let mut kings = (king_steps(king) & !own & !danger).popcnt();
    let not_check = checks.is_zero();
    for right in 2 * us..2 * us + 2 {
        if !shield(cd, right) {
            let has = (b.castling & (1 << right)).nonzero();
            let free = (occ & cd.empty[right]).is_zero() & (danger & cd.path[right]).is_zero();
            kings = kings + (has & free & not_check & 1);
        }
    }
    let single = checks.at_most(1);
    let checkmask = checkmask | not_check;
    let target = !own & checkmask;
    let pinned = pinned_on[0] | pinned_on[1] | pinned_on[2] | pinned_on[3];
    let free = !pinned;
    // Pieces that may move along each axis: the unpinned ones, and those pinned on it (not while in check).
    // Written out (a loop over the axes was vectorised across them, as in `children`).
    macro_rules! axis {
        ($a:expr) => {
            free | (pinned_on[$a] & not_check)
        };
    }
    let along = [axis!(0), axis!(1), axis!(2), axis!(3)];

    let mut n = L::splat(0);
    let knights = r[KNIGHT_I] & own & free;
    each_jump!(|s, w| {
        n = n + (knights.sh(s) & w & target).popcnt();
    });
    each_dir!(|d, s, w, orth| {
        if (orth && any_orth_own) || (!orth && any_diag_own) {
            let gen = if orth { orth_own } else { diag_own } & along[d / 2];
            n = n + (fill(gen, &props(empty, s, w), s, w) & target).popcnt();
        }
    });

    // Pawns: pushes along the file axis (0), captures along a diagonal axis (2: a1–h8, 3: a8–h1).
    let pawns = r[PAWN_I] & own;
    let (fwd, dbl_rank, last, cap_a, cap_h) = if white {
        (8, RANK_3, RANK_8, 7, 9)
    } else {
        (-8, RANK_6, RANK_1, -9, -7)
    };
    // Capturing towards the a-file runs along the anti-diagonal for White, the diagonal for Black.
    let (axis_a, axis_h) = if white { (3, 2) } else { (2, 3) };
    let one = (pawns & along[0]).sh(fwd) & empty;
    let push = one & checkmask;
    let two = (one & dbl_rank).sh(fwd) & empty & checkmask;
    let opp_check = opp & checkmask;
    let left = (pawns & along[axis_a] & !FILE_A).sh(cap_a) & opp_check;
    let right = (pawns & along[axis_h] & !FILE_H).sh(cap_h) & opp_check;
    let promos = (push & last).popcnt() + (left & last).popcnt() + (right & last).popcnt();
    n = n + push.popcnt() + two.popcnt() + left.popcnt() + right.popcnt();
    n = n + promos + promos + promos;

    kings + (n & single)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::needless_range_loop)] // lanes side by side read most plainly by index
    fn fills_equal_the_walker() {
        use crate::bitboard::attacks::{bishop_walk, rook_walk};
        // Pseudo-random occupancies; a single slider per lane.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..2000 {
            let mut sq = [0usize; LANES];
            let mut occ = V::splat(0);
            for i in 0..LANES {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                sq[i] = (x % 64) as usize;
                occ.0[i] = (x.rotate_left(round % 64) & x.rotate_left(29)) | 1 << sq[i];
            }
            let gen = V(sq.map(|s| 1u64 << s));
            let mut rook = V::splat(0);
            let mut bishop = V::splat(0);
            each_dir!(|d, s, w, orth| {
                let a = fill(gen, &props(!occ, s, w), s, w);
                if orth {
                    rook = rook | a;
                } else {
                    bishop = bishop | a;
                }
            });
            for i in 0..LANES {
                assert_eq!(rook.0[i], rook_walk(sq[i], occ.0[i]), "rook {}", sq[i]);
                assert_eq!(
                    bishop.0[i],
                    bishop_walk(sq[i], occ.0[i]),
                    "bishop {}",
                    sq[i]
                );
            }
        }
    }
}
