//! Detail statistics at counting speed: the last ply classified in bulk, subtrees hashed, transpositions merged.
//!
//! **Additivity.** Every column counts last-ply moves (see [`crate::backend::Column`]), so the statistics of a
//! subtree depend on its root position and remaining depth only: they are stored in a [`StatsTable`] keyed like
//! the count table, and a frontier position reached by `k` move paths is walked once and counted `k` times.
//!
//! **The last ply in bulk.** At a position one ply above the leaves (side to move "us", enemy king on `ek`),
//! the generator's target sets are classified without playing the moves:
//! - captures: targets on enemy pieces; promotions, en passant and castling from the move kind;
//! - direct checks: targets in the check squares of the moving role (the squares from which that role attacks
//!   `ek` given the current occupancy; the square a slider leaves cannot be between its destination and `ek`,
//!   since the enemy king would then be in check with us to move);
//! - discovered checks: the "discoverers" are our pieces that stand alone between `ek` and one of our sliders
//!   (the blockers of the enemy king's lines); a discoverer discovers check by every move off that line;
//! - only a checking move is played, to see whether it mates. Promotions, en passant and castling (rare, and
//!   moving or removing two pieces) are played and classified in full.
//!
//! **Stalemates without playing.** After a non-checking move of ours the enemy has a legal move if one of its
//! non-king pieces that is not pinned now still has one. A knight move to a square not held by its own side, a
//! slider step to an adjacent square not held by its own side, and a pawn push to an empty square are
//! "robust": one move of ours can take such a piece's moves away only by capturing it, by occupying its push
//! square (both on the destination square, so at most one piece), or by pinning it (a new pin needs one of
//! our sliders on a line of `ek` that the move changed: the line through the destination and the line through
//! the vacated square, so at most two pieces). So with at least four such pieces no move of ours stalemates;
//! otherwise every non-checking move is played and the replies counted.

// Off x86-64 the dispatch's `unsafe` blocks call the portable build, a safe function.
#![cfg_attr(not(target_arch = "x86_64"), allow(unused_unsafe))]

use super::stats_table::StatsTable;
pub use super::stats_table::Tally;
use crate::backend::Stats;
use crate::bitboard::attacks::{between, line, Sliders, KING, KNIGHT, PAWN};
use crate::bitboard::board::{
    Board, CastlingData, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I,
};
use crate::bitboard::movegen::{self, count, moves, pack, pack_castle, pack_ep};

/// Indices into [`Tally::base`] (the order of [`crate::backend::Column::BASE`]).
const CAPTURES: usize = 0;
const EN_PASSANT: usize = 1;
const CASTLES: usize = 2;
const PROMOTIONS: usize = 3;
const STALEMATES: usize = 4;
/// First check category (direct, single discovered, direct + discovered, double discovered follow).
const CHECKS: usize = 5;
/// First mate category, same order.
const MATES: usize = 9;

/// Category index (0..4) of a check by `checkers` pieces, `direct` when the moved piece is one of them.
#[inline(always)]
fn kind(checkers: u32, direct: bool) -> usize {
    (if checkers >= 2 { 2 } else { 0 }) + !direct as usize
}

/// Classifies the moves of one position one ply above the leaves, as the generator yields their target sets.
struct Leaf<'a, S> {
    b: &'a Board,
    cd: &'a CastlingData,
    opp: u64,
    ek: usize,
    /// Per role: squares from which it attacks the enemy king.
    check_squares: [u64; 6],
    /// Our pieces alone between the enemy king and one of our sliders.
    discoverers: u64,
    /// No move of ours can stalemate (see the module docs); else quiet moves are played.
    robust: bool,
    t: &'a mut Tally,
    _s: std::marker::PhantomData<S>,
}

impl<S: Sliders> Leaf<'_, S> {
    /// A checking move of category `kind`: played only to see whether it mates.
    #[inline(always)]
    fn checking(&mut self, m: u32, kind: usize) {
        self.t.base[CHECKS + kind] += 1;
        if !has_reply::<S>(&self.b.make::<false>(self.cd, m), self.cd) {
            self.t.base[MATES + kind] += 1;
        }
    }

    /// A non-checking move when stalemates are possible: played, replies counted.
    #[inline(always)]
    fn quiet(&mut self, m: u32) {
        if count::<S>(&self.b.make::<false>(self.cd, m), self.cd) == 0 {
            self.t.base[STALEMATES] += 1;
        }
    }

    /// A move classified by playing it (promotion, en passant, castling); `mover`: the moved piece's square.
    #[inline(never)]
    fn played(&mut self, m: u32, mover: usize) {
        let next = self.b.make::<false>(self.cd, m);
        let checkers = movegen::checkers::<S>(&next);
        let none = count::<S>(&next, self.cd) == 0;
        if checkers != 0 {
            let k = kind(checkers.count_ones(), checkers & (1 << mover) != 0);
            self.t.base[CHECKS + k] += 1;
            self.t.base[MATES + k] += none as u64;
        } else {
            self.t.base[STALEMATES] += none as u64;
        }
    }

    /// Moves to `targets` (packed by `pack_at(to)`), of which `direct` and `disc` give check.
    #[inline(always)]
    fn checks_and_quiet(
        &mut self,
        targets: u64,
        direct: u64,
        disc: u64,
        pack_at: impl Fn(u32) -> u32,
    ) {
        let mut checks = direct | disc;
        while checks != 0 {
            let to = checks.trailing_zeros();
            checks &= checks - 1;
            let bit = 1u64 << to;
            let k = if direct & bit == 0 {
                1
            } else if disc & bit != 0 {
                2
            } else {
                0
            };
            self.checking(pack_at(to), k);
        }
        if !self.robust {
            let mut quiet = targets & !(direct | disc);
            while quiet != 0 {
                let to = quiet.trailing_zeros();
                quiet &= quiet - 1;
                self.quiet(pack_at(to));
            }
        }
    }
}

/// The four promotion moves to one square (encoded by `movegen::pawn_moves_to`).
struct Promotions([u32; 4], usize);

impl movegen::Consumer for Promotions {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.0[self.1 & 3] = m;
        self.1 += 1;
    }
}

impl<S: Sliders> movegen::Sink for Leaf<'_, S> {
    #[inline(always)]
    fn piece(&mut self, role: usize, from: usize, targets: u64) {
        if targets == 0 {
            return;
        }
        self.t.nodes += targets.count_ones() as u64;
        self.t.base[CAPTURES] += (targets & self.opp).count_ones() as u64;
        let direct = targets & self.check_squares[role];
        let disc = if self.discoverers & (1 << from) != 0 {
            targets & !line(self.ek, from)
        } else {
            0
        };
        if direct | disc != 0 || !self.robust {
            self.checks_and_quiet(targets, direct, disc, |to| pack(role, from, to));
        }
    }

    #[inline(always)]
    fn pawns(&mut self, targets: u64, delta: i32, promo: u64) {
        if targets == 0 {
            return;
        }
        let from_of = |to: u32| (to as i32 - delta) as u32;
        let promos = targets & promo;
        let plain = targets & !promo;
        self.t.nodes += plain.count_ones() as u64;
        self.t.base[CAPTURES] += (plain & self.opp).count_ones() as u64;
        let direct = plain & self.check_squares[PAWN_I];
        let froms = if delta > 0 {
            plain >> delta
        } else {
            plain << -delta
        };
        let mut disc = 0;
        let mut d = froms & self.discoverers;
        while d != 0 {
            let from = d.trailing_zeros() as usize;
            d &= d - 1;
            let to = (from as i32 + delta) as usize;
            if line(self.ek, from) & (1 << to) == 0 {
                disc |= 1 << to;
            }
        }
        if direct | disc != 0 || !self.robust {
            self.checks_and_quiet(plain, direct, disc, |to| {
                pack(PAWN_I, from_of(to) as usize, to)
            });
        }
        let mut p = promos;
        while p != 0 {
            let to = p.trailing_zeros();
            p &= p - 1;
            let capture = (self.opp >> to) & 1;
            let mut four = Promotions([0; 4], 0);
            movegen::pawn_moves_to(to, delta, promo, &mut four);
            for m in four.0 {
                self.t.nodes += 1;
                self.t.base[PROMOTIONS] += 1;
                self.t.base[CAPTURES] += capture;
                self.played(m, to as usize);
            }
        }
    }

    #[inline(always)]
    fn en_passant(&mut self, from: usize, to: usize) {
        self.t.nodes += 1;
        self.t.base[CAPTURES] += 1;
        self.t.base[EN_PASSANT] += 1;
        self.played(pack_ep(from, to), to);
    }

    #[inline(always)]
    fn castle(&mut self, king: usize, rook: usize) {
        self.t.nodes += 1;
        self.t.base[CASTLES] += 1;
        let rank = king / 8 * 8;
        let rook_to = if rook > king { rank + 5 } else { rank + 3 };
        self.played(pack_castle(king, rook), rook_to);
    }
}

/// Whether the side to move in `b` has a legal move: first a king step to a square not attacked with the king
/// lifted (most checks leave one), else the full count.
#[inline(always)]
fn has_reply<S: Sliders>(b: &Board, cd: &CastlingData) -> bool {
    let us = b.turn as usize;
    let king = b.roles[KING_I] & b.colors[us];
    let ksq = king.trailing_zeros() as usize & 63;
    let occ = (b.colors[0] | b.colors[1]) ^ king;
    let mut steps = KING[ksq] & !b.colors[us];
    while steps != 0 {
        let s = steps.trailing_zeros() as usize;
        steps &= steps - 1;
        if movegen::attackers_of::<S>(b, s, occ) == 0 {
            return true;
        }
    }
    count::<S>(b, cd) != 0
}

/// Whether the side not to move (`them`) keeps a legal move after any non-checking move of ours: at least
/// four of its non-king, unpinned pieces have a robust move (module docs).
#[inline(always)]
fn robust<S: Sliders>(b: &Board, them: usize, pinned: u64) -> bool {
    let own = b.colors[them];
    let occ = b.colors[0] | b.colors[1];
    let free = own & !pinned & !b.roles[KING_I];
    let pawns = b.roles[PAWN_I] & free;
    let pushers = if them == 0 {
        ((pawns << 8) & !occ) >> 8
    } else {
        ((pawns >> 8) & !occ) << 8
    };
    let mut units = pushers.count_ones();
    if units >= 4 {
        return true;
    }
    let r = &b.roles;
    let mut bits = r[KNIGHT_I] & free;
    while bits != 0 {
        let s = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        units += (KNIGHT[s] & !own != 0) as u32;
    }
    let mut bits = (r[BISHOP_I] | r[ROOK_I] | r[QUEEN_I]) & free;
    while bits != 0 && units < 4 {
        let s = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let bit = 1u64 << s;
        // With every square occupied a slider's attacks are its adjacent squares along its lines.
        let mut steps = 0;
        if (r[BISHOP_I] | r[QUEEN_I]) & bit != 0 {
            steps |= S::bishop(s, !0);
        }
        if (r[ROOK_I] | r[QUEEN_I]) & bit != 0 {
            steps |= S::rook(s, !0);
        }
        units += (steps & !own != 0) as u32;
    }
    units >= 4
}

/// Count and classify every move of `b` (one ply above the leaves) into `t`.
#[inline(always)]
pub fn leaf<S: Sliders>(b: &Board, cd: &CastlingData, t: &mut Tally) {
    let us = b.turn as usize;
    let them = us ^ 1;
    let own = b.colors[us];
    let opp = b.colors[them];
    let occ = own | opp;
    let r = &b.roles;
    let ek = (r[KING_I] & opp).trailing_zeros() as usize & 63;
    let diag = S::bishop(ek, occ);
    let orth = S::rook(ek, occ);
    let check_squares = [PAWN[them][ek], KNIGHT[ek], diag, orth, diag | orth, 0];
    // Our sliders on a line of the enemy king: one piece between makes it a discoverer (ours) or pinned
    // (theirs).
    let snipers = (S::bishop(ek, 0) & (r[BISHOP_I] | r[QUEEN_I]) & own)
        | (S::rook(ek, 0) & (r[ROOK_I] | r[QUEEN_I]) & own);
    let mut discoverers = 0;
    let mut pinned = 0;
    let mut bits = snipers;
    while bits != 0 {
        let s = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let bt = between(ek, s) & occ;
        if bt != 0 && bt & (bt - 1) == 0 {
            if bt & own != 0 {
                discoverers |= bt;
            } else {
                pinned |= bt;
            }
        }
    }
    let mut sink = Leaf::<S> {
        b,
        cd,
        opp,
        ek,
        check_squares,
        discoverers,
        robust: robust::<S>(b, them, pinned),
        t,
        _s: std::marker::PhantomData,
    };
    movegen::generate::<S, _>(b, cd, &mut sink);
}

macro_rules! stats_walker {
    ($name:ident, $leaf:ident $(, #[$attr:meta])*) => {
        /// [`leaf`] built once per walker (with its target features), not inlined: inlined into the
        /// walker at depth 1 and again in its loop at depth 2, for each `HASH`, the classification was half of
        /// the crate's compile time (LLVM's loop passes: minutes per build, every build of the library).
        $(#[$attr])*
        #[inline(never)]
        fn $leaf<S: Sliders>(b: &Board, cd: &CastlingData, t: &mut Tally) {
            leaf::<S>(b, cd, t);
        }

        /// The statistics walk below `b` (`depth` ≥ 1), hashed at depth 2 and more when `HASH`.
        $(#[$attr])*
        fn $name<S: Sliders, const HASH: bool>(
            b: &Board,
            cd: &CastlingData,
            depth: u32,
            tt: Option<&StatsTable>,
            t: &mut Tally,
        ) {
            // Safety (the calls of `$leaf` and `$name`): only reached from `$name`, whose caller guaranteed
            // its target features.
            if depth == 1 {
                #[allow(unused_unsafe, unsafe_code)]
                unsafe {
                    $leaf::<S>(b, cd, t)
                };
                return;
            }
            if HASH {
                if let Some(table) = tt {
                    if table.probe(b.key, b.check, depth, t) {
                        return;
                    }
                }
            }
            let mut sub = Tally::default();
            if depth == 2 {
                // The children are classified, not probed: their keys are not needed.
                for &m in moves::<S>(b, cd).as_slice() {
                    #[allow(unused_unsafe, unsafe_code)]
                    unsafe {
                        $leaf::<S>(&b.make::<false>(cd, m), cd, &mut sub)
                    };
                }
            } else {
                for &m in moves::<S>(b, cd).as_slice() {
                    let child = b.make::<HASH>(cd, m);
                    #[allow(unused_unsafe, unsafe_code)]
                    unsafe {
                        $name::<S, HASH>(&child, cd, depth - 1, tt, &mut sub)
                    };
                }
            }
            if HASH {
                if let Some(table) = tt {
                    table.store(b.key, b.check, depth, &sub);
                }
            }
            t.add(&sub);
        }
    };
}

stats_walker!(walk_portable, leaf_portable);
#[cfg(target_arch = "x86_64")]
stats_walker!(walk_bmi2, leaf_bmi2, #[target_feature(enable = "popcnt,bmi1,bmi2")]);
// Off x86-64 only the portable build exists (`Flavor::available` is false for the others).
#[cfg(not(target_arch = "x86_64"))]
use self::walk_portable as walk_bmi2;

/// The statistics of the subtree of depth `depth` below `b` on the current thread.
pub fn walk(
    flavor: super::Flavor,
    b: &Board,
    cd: &CastlingData,
    depth: u32,
    tt: Option<&StatsTable>,
) -> Tally {
    use super::Flavor;
    use crate::bitboard::attacks::{MagicSliders, PextSliders};
    let mut t = Tally::default();
    if depth == 0 {
        t.nodes = 1;
        return t;
    }
    // The vector builds count plain leaves only; their statistics come from the scalar walk with the same
    // sliders (PEXT: every AVX2/AVX-512 CPU perftlab knows has BMI2, checked again here).
    let flavor = match flavor {
        Flavor::Avx2 | Flavor::Avx512 if !super::bmi2_available() => Flavor::Portable,
        f => f,
    };
    match (flavor, tt.is_some()) {
        (Flavor::Portable, false) => {
            walk_portable::<MagicSliders, false>(b, cd, depth, None, &mut t)
        }
        (Flavor::Portable, true) => walk_portable::<MagicSliders, true>(b, cd, depth, tt, &mut t),
        // Safety (the four calls below): `Magic` and `Pext` exist only after `bmi2_available()` said yes, and a
        // vector flavor reaches them only when it did (mapped to `Portable` above otherwise).
        #[allow(unsafe_code)]
        (Flavor::Magic, false) => unsafe {
            walk_bmi2::<MagicSliders, false>(b, cd, depth, None, &mut t)
        },
        #[allow(unsafe_code)]
        (Flavor::Magic, true) => unsafe {
            walk_bmi2::<MagicSliders, true>(b, cd, depth, tt, &mut t)
        },
        #[allow(unsafe_code)]
        (Flavor::Pext | Flavor::Avx2 | Flavor::Avx512, false) => unsafe {
            walk_bmi2::<PextSliders, false>(b, cd, depth, None, &mut t)
        },
        #[allow(unsafe_code)]
        (Flavor::Pext | Flavor::Avx2 | Flavor::Avx512, true) => unsafe {
            walk_bmi2::<PextSliders, true>(b, cd, depth, tt, &mut t)
        },
    }
    t
}

/// Parallel statistics: split at a frontier as [`super::perft::perft_parallel`] does (merging transpositions
/// when `merge`), walk each frontier position on some worker, sum with multiplicities.
pub fn stats_parallel(
    flavor: super::Flavor,
    root: &Board,
    cd: &CastlingData,
    depth: u32,
    tt: Option<&StatsTable>,
    merge: bool,
) -> (u128, Stats) {
    use rayon::prelude::*;
    let threads = rayon::current_num_threads();
    if depth < 4 || (threads == 1 && !merge) {
        let t = walk(flavor, root, cd, depth, tt);
        return (t.nodes as u128, t.stats());
    }
    let front = super::perft::split(root, cd, depth, merge);
    let rest = depth - front.1;
    front
        .0
        .par_iter()
        .map(|(b, mult)| {
            let t = walk(flavor, b, cd, rest, tt);
            (t.nodes as u128 * *mult as u128, t.stats() * *mult as u128)
        })
        .reduce(
            || (0, Stats::default()),
            |(a, sa), (b, sb)| (a + b, sa + sb),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Column;

    #[test]
    fn tally_indices_follow_the_base_columns() {
        assert_eq!(Column::BASE[CAPTURES], Column::Captures);
        assert_eq!(Column::BASE[EN_PASSANT], Column::EnPassant);
        assert_eq!(Column::BASE[CASTLES], Column::Castles);
        assert_eq!(Column::BASE[PROMOTIONS], Column::Promotions);
        assert_eq!(Column::BASE[STALEMATES], Column::Stalemates);
        use crate::backend::CheckKind::*;
        for (i, k) in [Direct, SingleDiscovered, DirectDiscovered, DoubleDiscovered]
            .into_iter()
            .enumerate()
        {
            assert_eq!(Column::BASE[CHECKS + i], k.check_column());
            assert_eq!(Column::BASE[MATES + i], k.mate_column());
            let (n, direct) = [(1, true), (1, false), (2, true), (2, false)][i];
            assert_eq!(kind(n, direct), i);
            assert_eq!(crate::backend::CheckKind::of(n, direct), Some(k));
        }
    }
}
