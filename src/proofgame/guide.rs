//! The guide of the fast proof-game search ([`super::guided`]): an estimate (not a bound) of the moves still
//! needed from a position to the target, built once per target.
//!
//! - **Fixed pawns**: a White pawn the target has on its second rank (a Black one on its seventh) has never
//!   moved (pawns only move forward, FIDE 3.7), so no piece ever passes through its square; the pieces'
//!   distances are computed around these squares (a bishop on c1 behind b2 and d2 never leaves c1).
//! - **Distances**: per role, the fewest moves between two squares on a board holding only the fixed pawns
//!   (breadth-first search over the role's moves, FIDE 3.2–3.6); a pawn needs its ranks to go (one less for
//!   a double step, FIDE 3.7.2) and one capture per file it changes, counted as one more move (the capture
//!   needs an enemy unit on that square); a promoted piece needs its pawn's moves to the last rank, then the
//!   piece's distance from the promotion square (FIDE 3.7.5).
//! - **Assignment**: per side, the units now on the board are matched to the target's units of that side by a
//!   minimum-cost assignment (Hungarian method); the units left over must be captured, one capture move of the
//!   opponent each. The costs of becoming each target unit are tabulated once per target (role × square).
//! - **Capture plan** ([`super::plan`]): the captures the enemy's pawns must still make to change file (an
//!   enemy pawn still on the file it captures from, behind the planned square) each take one of the units
//!   left over, at that square or wherever an enemy unit meets it: a row of the assignment whose cost is the
//!   capture plus the fewer of the unit's moves to the square (capped at [`PLANNED_CAP`]) and the nearest
//!   enemy unit's moves to the unit (capped). The other units left over are taken wherever the nearest enemy
//!   unit meets them, or, when the search asks for it, where a capturer's detour is cheapest
//!   ([`Guide::capture_costs`]: the victim's moves to a square, an enemy unit's moves there and its extra cost
//!   to its own target from there, so a piece capture charges both sides).
//!
//! - **Boxed-in pieces** ([`Guide::boxed_in`]): the distances ignore the units on the board, so a piece whose
//!   every way out is held by its own units, all on their target squares (a rook on h8 behind its king on g8
//!   and pawn on h7), looks close to its target while one of them must first step away and come back: two
//!   moves more.
//! - **Blocked ways** ([`Guide::blocked`]): likewise a rook, bishop or queen one move from its target square
//!   with its own settled unit in between (a rook on h1, its king already on g1, the target castled `…RK1`),
//!   and a pawn whose target square on its file lies beyond another pawn (either colour): two moves more; a
//!   pawn to promote with an enemy pawn ahead on its file: the cheaper of another file's promotion and two
//!   moves more (session 51).
//!
//! The estimate is the sum over both sides of the assignment's cost and the captures still to make; a lost
//! castling right the target keeps, or a target unit nothing can reach, is "never".

use super::assign::{assign_flat, assign_warm, Warm};
use super::plan::{CapturePlan, PlannedCapture};
use crate::bitboard::attacks::{between, bishop_walk, rook_walk};
use crate::bitboard::board::{Board, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I};
use crate::position::Setup;
use crate::types::{Color, Role, Square, KING_STEPS, KNIGHT_STEPS};
use hashbrown::HashMap;

/// An estimate meaning "never".
pub const NEVER: u32 = 1 << 20;
/// A cost meaning "this unit cannot become that one".
const INF: i32 = 1 << 14;
/// Sides' parts of the estimate memoised at most (the memo is cleared when full).
const MEMO_CAP: usize = 1 << 20;

/// Moves counted at most for a unit to reach a planned capture square (another unit may be taken there).
const PLANNED_CAP: i32 = 6;

/// Per side, the last assignment a search's estimate solved: the start of the next ([`Guide::estimate_warm`]).
#[derive(Clone, Debug, Default)]
pub struct WarmStart([Warm; 2]);

/// The guide for one target (see the module docs).
pub struct Guide {
    /// Per role (knight to king), the distance between two squares around the fixed pawns.
    dist: Box<[[[u8; 64]; 64]; 6]>,
    /// Per colour, the target's units: (square, role index).
    wanted: [Vec<(usize, usize)>; 2],
    /// Per colour, per target unit (in `wanted`'s order), per role and square: the moves a unit there needs to
    /// become it ([`Guide::cost`], computed once per target).
    table: [Vec<[[i32; 64]; 6]>; 2],
    /// Per colour `c`: the captures of `c`'s units the capture plan gives the enemy's pawns.
    taken_at: [Vec<PlannedCapture>; 2],
    /// Per colour, role and square: the fewest moves a unit there needs to become any of the target's units
    /// (the cheapest row of `table`; [`INF`] when none), for the capturers' detours.
    best: [[[i32; 64]; 6]; 2],
    /// Per colour and role, the target's squares of such units ([`Guide::boxed_in`]).
    at: [[u64; 6]; 2],
    /// Per colour, per target unit (in `wanted`'s order) and pawn square: the pawn's moves to promote on its
    /// own file and become that unit ([`Guide::blocked`]; [`INF`] for a pawn or king target).
    straight: [Vec<[i32; 64]>; 2],
    /// The same through a promotion on another file at most `spare` (0-7) files away, per `spare`.
    round: [Vec<[[i32; 64]; 8]>; 2],
    /// Per colour and role, the target units (indices in `wanted`) a unit of that role can become: its own
    /// role, and for a pawn every role but the king's (FIDE 3.7.5); every other entry of `table` is [`INF`],
    /// so the cost matrix is built from these pairs only ([`Guide::matrix`]).
    fits: [[Vec<usize>; 6]; 2],
    /// Whether a piece standing on a target square of its kind ahead of a pawn to promote on its file is
    /// charged ([`Guide::blocked`], [`Guide::charging_settled`]; off by default).
    charge_settled: bool,
}

/// Whether a unit of role `r` can become a target unit of role `tr` (FIDE 3.7.5: a pawn promotes to any piece
/// but a king; no other unit changes its role).
fn fits(r: usize, tr: usize) -> bool {
    r == tr || (r == PAWN_I && tr != KING_I)
}

/// What [`Guide::blocked`] reads of the board for side `c`, computed once per cost matrix.
struct Blocking {
    /// `c`'s units standing on a target square of their kind, and enemy pawns on theirs.
    settled: u64,
    /// Every pawn on the board.
    pawns: u64,
    /// The enemy's pawns.
    enemy_pawns: u64,
    /// Both sides' pieces (not pawns) standing on a target square of their kind: on a pawn's way to its
    /// promotion square, one must step away and come back ([`Guide::blocked`]).
    settled_pieces: u64,
    /// The enemy's units beyond the target's: the captures, so the file changes, left to `c`'s pawns.
    spare: usize,
}

/// Squares of a bitboard.
fn squares(mut bb: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bb != 0).then(|| {
            let s = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            s
        })
    })
}

/// The squares a piece of `role` (knight … king) on `sq` moves to on a board whose only units are `occ` (never
/// onto them; FIDE 3.2–3.6 without castling). Also the problem solver's distance tables ([`super::problem`]).
pub(super) fn steps(role: usize, sq: usize, occ: u64) -> u64 {
    lines(role, sq, occ) & !occ
}

/// The squares a piece of `role` (knight … king) on `sq` attacks on a board whose only units are `occ` (the
/// first unit in each direction included).
fn lines(role: usize, sq: usize, occ: u64) -> u64 {
    let leap = |table: &[(i32, i32); 8]| {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        table
            .iter()
            .filter(|(df, dr)| (0..8).contains(&(f + df)) && (0..8).contains(&(r + dr)))
            .fold(0u64, |m, (df, dr)| m | 1 << ((r + dr) * 8 + f + df))
    };
    match role {
        KNIGHT_I => leap(&KNIGHT_STEPS),
        BISHOP_I => bishop_walk(sq, occ),
        ROOK_I => rook_walk(sq, occ),
        QUEEN_I => bishop_walk(sq, occ) | rook_walk(sq, occ),
        _ => leap(&KING_STEPS),
    }
}

/// Breadth-first distances from every square for `role` around `occ`.
fn distances(role: usize, occ: u64) -> [[u8; 64]; 64] {
    let mut t = [[u8::MAX; 64]; 64];
    for (from, row) in t.iter_mut().enumerate() {
        if occ >> from & 1 != 0 {
            continue;
        }
        row[from] = 0;
        let mut frontier = 1u64 << from;
        let mut seen = frontier;
        let mut d = 0u8;
        while frontier != 0 {
            d += 1;
            let mut next = 0u64;
            for s in squares(frontier) {
                next |= steps(role, s, occ);
            }
            next &= !seen;
            seen |= next;
            for s in squares(next) {
                row[s] = d;
            }
            frontier = next;
        }
    }
    t
}

/// The squares ahead of a pawn of colour `c` on `s` on its file (FIDE 3.7.1: where it walks straight).
fn ahead(c: usize, s: usize) -> u64 {
    let file = 0x0101_0101_0101_0101u64 << (s % 8);
    if c == 0 {
        file & !((2u64 << s) - 1)
    } else {
        file & ((1u64 << s) - 1)
    }
}

/// Rank of `s` counted from colour `c`'s side (0 = its back rank).
fn rel_rank(c: usize, s: usize) -> i32 {
    let r = (s / 8) as i32;
    if c == 0 {
        r
    } else {
        7 - r
    }
}

/// Moves of a pawn of colour `c` from `from` to `to` (a file change costs a capture, counted as a move more),
/// or [`INF`].
fn pawn_cost(c: usize, from: usize, to: usize) -> i32 {
    let dr = rel_rank(c, to) - rel_rank(c, from);
    let df = ((from % 8) as i32 - (to % 8) as i32).abs();
    if dr < df || (dr == 0 && from != to) {
        return INF;
    }
    let double = i32::from(rel_rank(c, from) == 1 && dr >= 2 && df < dr);
    dr - double + 2 * df
}

impl Guide {
    /// The guide for `target`, reached from `start` (the capture plan's origins).
    pub fn new(start: &Setup, target: &Setup) -> Guide {
        let mut fixed = 0u64;
        let mut wanted = [Vec::new(), Vec::new()];
        let mut at = [[0u64; 6]; 2];
        for sq in Square::all() {
            if let Some(p) = target.piece_at(sq) {
                let (c, s) = (p.color.index(), sq.index());
                if p.role == Role::Pawn && rel_rank(c, s) == 1 {
                    fixed |= 1 << s;
                }
                wanted[c].push((s, p.role.index()));
                at[c][p.role.index()] |= 1 << s;
            }
        }
        let mut dist = Box::new([[[u8::MAX; 64]; 64]; 6]);
        for role in [KNIGHT_I, BISHOP_I, ROOK_I, QUEEN_I, KING_I] {
            dist[role] = distances(role, fixed);
        }
        let plan = CapturePlan::new(start, target);
        let taken_at = [
            plan.captures_by(Color::Black).collect(),
            plan.captures_by(Color::White).collect(),
        ];
        let mut g = Guide {
            dist,
            wanted,
            table: [Vec::new(), Vec::new()],
            taken_at,
            best: [[[INF; 64]; 6]; 2],
            at,
            straight: [Vec::new(), Vec::new()],
            round: [Vec::new(), Vec::new()],
            fits: Default::default(),
            charge_settled: false,
        };
        for c in 0..2 {
            g.table[c] = g.wanted[c]
                .iter()
                .map(|&(to, trole)| {
                    let mut t = [[INF; 64]; 6];
                    for (role, row) in t.iter_mut().enumerate() {
                        for (from, v) in row.iter_mut().enumerate() {
                            *v = g.cost(c, role, from, trole, to);
                        }
                    }
                    t
                })
                .collect();
            // The promotions [`Guide::blocked`] weighs depend only on the square and the target unit (and
            // the files the captures left allow): computed once here, not on every estimate.
            for &(to, trole) in &g.wanted[c] {
                let mut straight = [INF; 64];
                let mut round = [[INF; 64]; 8];
                if trole != PAWN_I {
                    for s in 0..64 {
                        let f = s % 8;
                        straight[s] = g.promotion(c, s, trole, to, std::iter::once(f));
                        for (spare, r) in round.iter_mut().enumerate() {
                            let files = (0..8).filter(|&h| h != f && h.abs_diff(f) <= spare);
                            r[s] = g.promotion(c, s, trole, to, files);
                        }
                    }
                }
                g.straight[c].push(straight);
                g.round[c].push(round);
            }
            for (role, f) in g.fits[c].iter_mut().enumerate() {
                *f = (0..g.wanted[c].len())
                    .filter(|&i| fits(role, g.wanted[c][i].1))
                    .collect();
            }
            for t in &g.table[c] {
                for (role, row) in t.iter().enumerate() {
                    for (sq, &v) in row.iter().enumerate() {
                        g.best[c][role][sq] = g.best[c][role][sq].min(v);
                    }
                }
            }
        }
        g
    }

    /// Moves of a unit of colour `c` and role `role` on `from` to become the target's `trole` on `to`.
    fn cost(&self, c: usize, role: usize, from: usize, trole: usize, to: usize) -> i32 {
        if role == PAWN_I && trole != PAWN_I {
            return self.promotion(c, from, trole, to, 0..8);
        }
        if role != trole {
            return INF;
        }
        if role == PAWN_I {
            return pawn_cost(c, from, to);
        }
        match self.dist[role][from][to] {
            u8::MAX => INF,
            d => i32::from(d),
        }
    }

    /// Moves of a pawn of colour `c` on `from` to promote on one of `files` and become the target's `trole` on
    /// `to` (FIDE 3.7.5): the pawn's moves to the last rank, then the piece's from the promotion square.
    fn promotion(
        &self,
        c: usize,
        from: usize,
        trole: usize,
        to: usize,
        files: impl Iterator<Item = usize>,
    ) -> i32 {
        if trole == KING_I {
            return INF;
        }
        let last = if c == 0 { 56 } else { 0 };
        files
            .map(|f| {
                let p = pawn_cost(c, from, last + f);
                let d = self.dist[trole][last + f][to];
                if p >= INF || d == u8::MAX {
                    INF
                } else {
                    p + i32::from(d)
                }
            })
            .min()
            .unwrap_or(INF)
    }

    /// Units on `b` beyond the target's, both sides: the captures still to make.
    pub fn surplus(&self, b: &Board) -> u32 {
        (0..2)
            .map(|c| {
                (b.colors[c].count_ones() as usize).saturating_sub(self.wanted[c].len()) as u32
            })
            .sum()
    }

    /// The estimate for `b` (see the module docs); `mask`: the castling bits the target keeps; `detour`:
    /// units left over are charged their capturer's detour ([`Guide::capture_costs`]) rather than the nearest
    /// enemy unit's distance. `memo` keeps each side's part by its units (a move changes one side, a capture
    /// two); one memo serves one `detour` only.
    pub fn estimate(&self, b: &Board, mask: u8, detour: bool, memo: &mut HashMap<u64, u32>) -> u32 {
        self.estimate_in(b, mask, detour, memo, None)
    }

    /// [`Guide::estimate`] with each side's assignment started from the one `warm` keeps (the last this search
    /// solved for that side: a position a move or two away) and left there: the same value, fewer
    /// augmentations ([`assign_warm`]).
    pub fn estimate_warm(
        &self,
        b: &Board,
        mask: u8,
        detour: bool,
        memo: &mut HashMap<u64, u32>,
        warm: &mut WarmStart,
    ) -> u32 {
        self.estimate_in(b, mask, detour, memo, Some(warm))
    }

    fn estimate_in(
        &self,
        b: &Board,
        mask: u8,
        detour: bool,
        memo: &mut HashMap<u64, u32>,
        mut warm: Option<&mut WarmStart>,
    ) -> u32 {
        if b.castling & mask != mask {
            return NEVER;
        }
        let mut total = 0u32;
        for c in 0..2 {
            // With units left over the part depends on the opponent's units too (who captures them).
            // Enemy pawns always, and the enemy's pieces on their target squares: they block this side's
            // pawns ([`Guide::blocked`]).
            let seen = if b.colors[c].count_ones() as usize > self.wanted[c].len() {
                b.colors[0] | b.colors[1]
            } else {
                b.colors[c] | (b.roles[PAWN_I] & b.colors[c ^ 1]) | self.charged_pieces(b, c ^ 1)
            };
            // The enemy's count too: it bounds this side's pawns' file changes ([`Guide::blocked`]).
            let count = u64::from(b.colors[c ^ 1].count_ones()) << 1;
            let mut key = seen.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ c as u64 ^ count;
            for r in 0..6 {
                key = (key ^ (b.roles[r] & seen)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                key ^= key >> 29;
            }
            key = (key ^ (b.colors[0] & seen)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let part = match memo.get(&key) {
                Some(&p) => p,
                None => {
                    let p = self.side(b, c, detour, warm.as_deref_mut().map(|w| &mut w.0[c]));
                    if memo.len() >= MEMO_CAP {
                        memo.clear();
                    }
                    memo.insert(key, p);
                    p
                }
            };
            if part >= NEVER {
                return NEVER;
            }
            total += part;
            // A castling right the target has lost costs a king or rook move.
            if b.castling >> (2 * c) & 3 & !mask != 0 {
                total += 1;
            }
        }
        total
    }

    /// Side `c`'s part of the estimate: the assignment's cost and the units it leaves over (each captured: a
    /// move of the opponent).
    fn side(&self, b: &Board, c: usize, detour: bool, warm: Option<&mut Warm>) -> u32 {
        // The side's units (at most 64: one per square) in square order, without allocating.
        let mut all = [(0usize, 0usize); 64];
        let mut n = 0;
        for s in squares(b.colors[c]) {
            all[n] = (s, b.role_on(1 << s));
            n += 1;
        }
        let units = &all[..n];
        let wanted = self.wanted[c].len();
        if n < wanted {
            return NEVER;
        }
        if n == 0 {
            return 0;
        }
        // One row per target unit, then one per unit left over, each of `n` columns (one per unit): on the
        // stack up to 16 units a side (a game from the initial position never has more).
        let mut small = [0i32; 256];
        let mut large = Vec::new();
        let cost: &mut [i32] = if n * n <= small.len() {
            &mut small[..n * n]
        } else {
            large.resize(n * n, 0);
            &mut large
        };
        self.matrix(b, c, units, &mut cost[..wanted * n]);
        // Each unit left over is captured: one row per capture, its cost the capture move and the moves the
        // nearest enemy unit needs to reach the unit; for the capture plan's captures the enemy's pawns still
        // have to make, the unit may instead go to the planned square (its moves there, capped).
        if n > wanted {
            let mut taken = [0i32; 64];
            let taken = &mut taken[..n];
            if detour {
                self.capture_costs(b, c, units, taken);
            } else {
                for (t, &(s, _)) in taken.iter_mut().zip(units) {
                    *t = self.capture_cost(b, c, s);
                }
            }
            let mut planned = self.pending(b, c);
            for row in cost[wanted * n..].chunks_exact_mut(n) {
                match planned.next() {
                    Some(q) => {
                        for ((v, &(s, r)), &t) in row.iter_mut().zip(units).zip(taken.iter()) {
                            *v = t.min(1 + self.reach(c, r, s, q).min(PLANNED_CAP));
                        }
                    }
                    None => row.copy_from_slice(taken),
                }
            }
        }
        let rows = &mut [0; 64][..n];
        let a = match warm {
            Some(w) => assign_warm(cost, n, rows, w),
            None => assign_flat(cost, n, rows),
        };
        if a >= INF {
            return NEVER;
        }
        (a + self.boxed_in(b, c) + self.crossed(b, c)) as u32
    }

    /// Two moves more per rook of `c` that must pass its king on the king's target rank: the king stands on
    /// that rank next to its target square, no castling right is left (castling passes them in one move, FIDE
    /// 3.8.1), and every target rook square of that rank free of rooks lies on the other side of the king's
    /// target square than the rook is of the king. A rook and a king pass each other on a rank only if one
    /// leaves it and comes back (FIDE 3.3, 3.8: neither jumps), which the distances, ignoring the units on the
    /// board, do not see (`r4k1r` towards `r4rk1`: the rook on h8 is one move from f8 on an empty board). A
    /// king two or more squares from its target goes round by the next rank at no cost (a king on e1, a rook on
    /// h1, towards `5RK1`: Rf1, Kf2, Kg1), hence only when its own units hold the next rank's squares between
    /// the king and its target (none between when it stands next to it).
    fn crossed(&self, b: &Board, c: usize) -> i32 {
        let own = b.colors[c];
        let (k, kt) = (b.roles[KING_I] & own, self.at[c][KING_I]);
        if k == 0 || kt == 0 || k == kt || b.castling >> (2 * c) & 3 != 0 {
            return 0;
        }
        let (k, kt) = (k.trailing_zeros() as usize, kt.trailing_zeros() as usize);
        let (lo, hi, step) = (k.min(kt), k.max(kt), if c == 0 { 8 } else { -8 });
        let walled = (lo + 1..hi).all(|s| {
            let q = s as i32 + step;
            !(0..64).contains(&q) || own >> q & 1 != 0
        });
        if k / 8 != kt / 8 || !walled {
            return 0;
        }
        let rank = 0xFFu64 << (8 * (k / 8));
        let rooks = b.roles[ROOK_I] & own;
        let free = self.at[c][ROOK_I] & rank & !rooks;
        if free == 0 {
            return 0;
        }
        let crossing = squares(rooks & rank & !self.at[c][ROOK_I])
            .filter(|&s| squares(free).all(|t| (t < kt) != (s < k)))
            .count();
        2 * crossing as i32
    }

    /// Two moves per piece of `c` (knight, bishop, rook, queen) that stands where the target has none of its
    /// kind and cannot move at all because its own units hold every square it could go to, each of them on a
    /// target square of its own kind: one of them must step away and come back (e.g. a rook on h8 behind its
    /// king on g8 and pawn on h7, where the target wants the king and the pawn but the rook elsewhere; the
    /// distances ignore the units on the board, so without this the king walking to g8 before the rook has
    /// left looks one move from a castled target).
    fn boxed_in(&self, b: &Board, c: usize) -> i32 {
        let own = b.colors[c];
        let mut extra = 0;
        for role in [KNIGHT_I, BISHOP_I, ROOK_I, QUEEN_I] {
            for s in squares(b.roles[role] & own & !self.at[c][role]) {
                let around = lines(role, s, own);
                if around & !own == 0
                    && squares(around).all(|q| self.at[c][b.role_on(1 << q)] >> q & 1 != 0)
                {
                    extra += 2;
                }
            }
        }
        extra
    }

    /// Two moves more for a way the distances count as open but the board blocks (the distances ignore the
    /// units on the board): a rook, bishop or queen one move from a target square of its kind whose line
    /// there is held by its own unit, or an enemy pawn, standing on a target square of that unit's kind (a
    /// rook on h1 with its king on g1 and the target `…RK1`: the king steps away and back, or the rook goes
    /// round; FIDE 3.2–3.4), and a pawn whose target square on its own file lies beyond another pawn on that
    /// file, of either colour, or on an enemy pawn (pawns move straight only onto an empty square and never
    /// back, FIDE 3.7.1: the other pawn must leave by a capture, or this pawn goes round by two; doubled pawns
    /// keep their order unless one captures). A pawn to promote with an enemy pawn ahead on its file (pawns
    /// never pass each other without a capture, FIDE 3.7.1) promotes on another file (its captures counted) or
    /// on its own after a detour of two moves (a capture that takes it off the file and back, or the
    /// blocker's capture), whichever is cheaper: the climb otherwise walks the two pawns head to head. The
    /// same, where the guide charges it ([`Guide::charging_settled`]), for a piece of either side standing on
    /// a target square of its kind ahead on the file, its promotion square included (a pawn moves only onto an
    /// empty square, FIDE 3.7.1: the piece steps away and back, two moves; session 59: position 8's climb
    /// settled Black's knight on b8 and then had White's b-pawn to promote there last, a trap no search left
    /// within a million positions).
    /// A pawn changes file only by capturing (FIDE 3.7.4), and a unit captured never comes back: with `spare`
    /// enemy units beyond the target's, no pawn of `c` changes more than `spare` files from here (none when
    /// the enemy has the target's count: the climb otherwise keeps a capture the pawn still needs for last,
    /// when nothing is left to take). `v`: the cost of `c`'s unit `(s, r)` (square, role) to become target
    /// unit `i` (index in `wanted`), charged in place; an [`INF`] entry is left as it is.
    fn blocked(&self, c: usize, k: &Blocking, i: usize, (s, r): (usize, usize), v: &mut i32) {
        let (t, tr) = self.wanted[c][i];
        if *v >= INF {
            return;
        }
        if r == PAWN_I && tr != PAWN_I {
            let detour = if ahead(c, s) & (k.enemy_pawns | k.settled_pieces) != 0 {
                2
            } else {
                0
            };
            let straight = self.straight[c][i][s];
            if detour == 0 && straight == *v {
                return;
            }
            let round = self.round[c][i][k.spare.min(7)][s];
            *v = round.min(straight.saturating_add(detour)).min(INF);
            return;
        }
        if r == PAWN_I && (s % 8).abs_diff(t % 8) > k.spare {
            *v = INF;
            return;
        }
        let held = match r {
            BISHOP_I | ROOK_I | QUEEN_I => *v == 1 && between(s, t) & k.settled != 0,
            PAWN_I => {
                s % 8 == t % 8
                    && rel_rank(c, t) > rel_rank(c, s)
                    && ((between(s, t) & k.pawns) | ((1 << t) & k.enemy_pawns)) != 0
            }
            _ => false,
        };
        if held {
            *v += 2;
        }
    }

    /// Side `c`'s pieces (not pawns) on `b` standing on a target square of their kind.
    fn settled_pieces(&self, b: &Board, c: usize) -> u64 {
        (KNIGHT_I..=KING_I).fold(0u64, |m, r| m | (b.roles[r] & b.colors[c] & self.at[c][r]))
    }

    /// [`Guide::settled_pieces`] where the guide charges them ([`Guide::charging_settled`]), else none.
    fn charged_pieces(&self, b: &Board, c: usize) -> u64 {
        if self.charge_settled {
            self.settled_pieces(b, c)
        } else {
            0
        }
    }

    /// The guide with the charge for settled pieces ahead of a pawn to promote ([`Guide::blocked`]) on or
    /// off. The fast search runs a short pass with it first ([`super::guided::FastLimits`]).
    pub fn charging_settled(mut self, on: bool) -> Guide {
        self.charge_settled = on;
        self
    }

    /// What [`Guide::blocked`] reads of `b` for side `c`.
    fn blocking(&self, b: &Board, c: usize) -> Blocking {
        let own = b.colors[c];
        let enemy_pawns = b.roles[PAWN_I] & b.colors[c ^ 1];
        Blocking {
            settled_pieces: self.charged_pieces(b, 0) | self.charged_pieces(b, 1),
            settled: (0..6).fold(0u64, |m, r| m | (b.roles[r] & own & self.at[c][r]))
                | (enemy_pawns & self.at[c ^ 1][PAWN_I]),
            pawns: b.roles[PAWN_I],
            enemy_pawns,
            spare: (b.colors[c ^ 1].count_ones() as usize).saturating_sub(self.wanted[c ^ 1].len()),
        }
    }

    /// Side `c`'s cost matrix towards its target units: per target unit (in `wanted`'s order) a row of
    /// `units.len()` entries, each the unit's moves to become it ([`Guide::cost`], tabulated) with the
    /// blocked-way charges ([`Guide::blocked`]). Only the pairs [`fits`] allows are looked up and charged; the
    /// rest are [`INF`], as the table has them (the charges leave an [`INF`] entry as it is).
    fn matrix(&self, b: &Board, c: usize, units: &[(usize, usize)], cost: &mut [i32]) {
        let n = units.len();
        let k = self.blocking(b, c);
        cost.fill(INF);
        for (j, &(s, r)) in units.iter().enumerate() {
            for &i in &self.fits[c][r] {
                let v = &mut cost[i * n + j];
                *v = self.table[c][i][r][s];
                self.blocked(c, &k, i, (s, r), v);
            }
        }
    }

    /// The squares of the capture plan's captures of `c`'s units still to come: an enemy pawn still stands on
    /// the file it captures from, behind the square.
    fn pending(&self, b: &Board, c: usize) -> impl Iterator<Item = usize> + '_ {
        let e = c ^ 1;
        let pawns = b.roles[PAWN_I] & b.colors[e];
        self.taken_at[c]
            .iter()
            .filter(move |pc| {
                let q = pc.square.index();
                squares(pawns)
                    .any(|p| p % 8 == usize::from(pc.from_file) && rel_rank(e, p) < rel_rank(e, q))
            })
            .map(|pc| pc.square.index())
    }

    /// Moves a unit of colour `c` and role `role` on `from` needs to stand on `to` (capped at [`INF`]).
    fn reach(&self, c: usize, role: usize, from: usize, to: usize) -> i32 {
        if role == PAWN_I {
            return pawn_cost(c, from, to);
        }
        match self.dist[role][from][to] {
            u8::MAX => INF,
            d => i32::from(d),
        }
    }

    /// Moves the opponent of `c` needs to capture a unit on `sq`: the capture, and the nearest enemy unit's
    /// distance to the square (capped: another unit may come).
    fn capture_cost(&self, b: &Board, c: usize, sq: usize) -> i32 {
        let e = c ^ 1;
        let best = squares(b.colors[e])
            .map(|s| match b.role_on(1 << s) {
                PAWN_I if s % 8 != sq % 8 => pawn_cost(e, s, sq) - 1,
                PAWN_I => INF,
                r => match self.dist[r][s][sq] {
                    u8::MAX => INF,
                    d => i32::from(d) - 1,
                },
            })
            .min()
            .unwrap_or(INF);
        1 + best.clamp(0, 4)
    }
}

impl Guide {
    /// Per unit of `c` in `units`, the moves its capture costs both sides (FIDE 3.1: a unit is captured by an
    /// enemy unit moving onto its square): the fewest, over the squares `q`, of the unit's moves to `q`, plus
    /// an enemy unit's moves to `q` (the last one the capture) and that unit's detour (its cost to become a
    /// target unit from `q`, less its cost from where it stands, at least 0), capped at [`DETOUR_CAP`]. A pawn
    /// captures diagonally only (FIDE 3.7.4): onto another file, its moves counted without the enemy unit its
    /// last file change needs (the unit taken). Written into `out`, one per unit.
    fn capture_costs(&self, b: &Board, c: usize, units: &[(usize, usize)], out: &mut [i32]) {
        let e = c ^ 1;
        let mut meet = [INF; 64];
        for s in squares(b.colors[e]) {
            let r = b.role_on(1 << s);
            let here = self.best[e][r][s];
            for (q, m) in meet.iter_mut().enumerate() {
                let to = match r {
                    PAWN_I if q % 8 == s % 8 => continue,
                    PAWN_I => pawn_cost(e, s, q) - 2,
                    _ if q == s => continue,
                    _ => match self.dist[r][s][q] {
                        u8::MAX => continue,
                        d => i32::from(d),
                    },
                };
                if to >= INF {
                    continue;
                }
                let after = self.best[e][r][q];
                let detour = if here >= INF {
                    0
                } else {
                    (after - here).clamp(0, DETOUR_CAP)
                };
                *m = (*m).min(to + detour);
            }
        }
        for (o, &(s, r)) in out.iter_mut().zip(units) {
            *o = (0..64)
                .filter(|&q| meet[q] < INF)
                .map(|q| self.reach(c, r, s, q).min(INF) + meet[q])
                .min()
                .unwrap_or(INF)
                .clamp(1, DETOUR_CAP);
        }
    }
}

/// Moves counted at most for one capture of a leftover unit ([`Guide::capture_costs`]).
const DETOUR_CAP: i32 = 12;

#[cfg(test)]
mod tests {
    use super::super::assign::assignment;
    use super::*;

    #[test]
    fn hungarian_finds_the_cheapest_assignment() {
        // Brute force over the 4·3·2 injections of 3 rows into 4 columns.
        let cost = vec![vec![4, 1, 3, 9], vec![2, 0, 5, 9], vec![3, 2, 2, 1]];
        let mut best = i32::MAX;
        for a in 0..4 {
            for b in 0..4 {
                for c in 0..4 {
                    if a != b && b != c && a != c {
                        best = best.min(cost[0][a] + cost[1][b] + cost[2][c]);
                    }
                }
            }
        }
        assert_eq!(assignment(&cost).0, best);
    }

    /// Side `c`'s part of the estimate for `fen` towards `target`.
    fn part(target: &str, fen: &str, c: usize) -> u32 {
        part_with(target, fen, c, false)
    }

    /// [`part`] with the charge for settled pieces on or off ([`Guide::charging_settled`]).
    fn part_with(target: &str, fen: &str, c: usize, charge: bool) -> u32 {
        let g = Guide::new(&Setup::startpos(), &Setup::from_fen(target).unwrap())
            .charging_settled(charge);
        let (b, _) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        g.side(&b, c, false, None)
    }

    #[test]
    fn a_king_on_its_square_blocks_the_rook_behind_it() {
        // The rook on h1 is one move from f1 on an empty board, but the king already stands on g1: it must
        // step away and back, or the rook goes round by h2 and f2 (three moves).
        let target = "4k3/8/8/8/8/8/8/5RK1 w - - 0 1";
        assert_eq!(part(target, "4k3/8/8/8/8/8/8/6KR w - - 0 1", 0), 3);
        // With the king still on e1 the way is open: the rook's move and the king's two.
        assert_eq!(part(target, "4k3/8/8/8/8/8/8/4K2R w - - 0 1", 0), 3);
        // A rook on h2 is two moves from f1 whatever stands on g1.
        assert_eq!(part(target, "4k3/8/8/8/8/8/7R/6K1 w - - 0 1", 0), 2);
    }

    #[test]
    fn a_pawn_cannot_pass_an_enemy_pawn_on_its_file() {
        // White's pawn on f3 must reach f5, but Black's pawn stands on f4 (FIDE 3.7.1): two moves more.
        let target = "4k3/8/8/5P2/8/8/8/4K3 w - - 0 1";
        assert_eq!(part(target, "4k3/8/8/8/8/5P2/8/4K3 w - - 0 1", 0), 2);
        assert_eq!(part(target, "4k3/8/8/8/5p2/5P2/8/4K3 w - - 0 1", 0), 4);
    }

    #[test]
    fn a_settled_piece_on_the_promotion_square_steps_away_and_back() {
        // White's b6 pawn must become the queen on a8; Black's knight already stands on its target square b8,
        // the pawn's promotion square. Any game needs White's three moves (b7, b8=Q: no other file, Black has
        // no unit to spare for a capture; Qa8) and Black's two (the knight leaves b8 before the promotion,
        // FIDE 3.7.1, and comes back): five. Without the charge (the default guide) the estimate says three.
        let target = "Qn5k/8/8/8/8/8/8/7K w - - 0 1";
        let both = |fen: &str, charge: bool| {
            part_with(target, fen, 0, charge) + part_with(target, fen, 1, charge)
        };
        assert_eq!(both("1n5k/8/1P6/8/8/8/8/7K w - - 0 1", true), 5);
        assert_eq!(both("1n5k/8/1P6/8/8/8/8/7K w - - 0 1", false), 3);
        // The knight already off b8 (on c6): the pawn's two, the queen's one, the knight's one back: four.
        assert_eq!(both("7k/8/1Pn5/8/8/8/8/7K w - - 0 1", true), 4);
        // Not settled (the target has no knight on b8): it leaves b8 for its own target, charged there only.
        let free = "Q6k/8/8/8/8/8/8/1n5K w - - 0 1";
        assert_eq!(
            part_with(free, "1n5k/8/1P6/8/8/8/8/7K w - - 0 1", 0, true),
            3
        );
    }

    #[test]
    fn doubled_pawns_keep_their_order() {
        // Target f3 and f5; on the board f2 and f3. Matching f2 to f5 (a double step and a step: 2) and f3 to
        // f3 (0) is cheapest on an empty file, but f2 cannot pass f3: f3 goes on to f5 (2) and f2 to f3 (1).
        let target = "4k3/8/8/5P2/8/5P2/8/4K3 w - - 0 1";
        assert_eq!(part(target, "4k3/8/8/8/8/5P2/5P2/4K3 w - - 0 1", 0), 3);
    }

    #[test]
    fn a_rook_must_pass_its_king() {
        // Black's king on f8 and rook on h8 towards the castled r4rk1 with no right left: they pass each other
        // only off the back rank (f7, g7, h7 fixed): two moves more than the king's and the rook's one each.
        let target = "5rk1/5ppp/8/8/8/8/8/4K3 w - - 0 1";
        assert_eq!(part(target, "5k1r/5ppp/8/8/8/8/8/4K3 w - - 0 1", 1), 4);
        // The king on e8 behind f7: the same; the rook already on the king's far side: no charge.
        assert_eq!(part(target, "4k2r/5ppp/8/8/8/8/8/4K3 w - - 0 1", 1), 5);
        assert_eq!(part(target, "4rk2/5ppp/8/8/8/8/8/4K3 w - - 0 1", 1), 2);
    }

    #[test]
    fn a_pawn_changes_no_file_when_nothing_is_left_to_take() {
        // Black's g-pawn must reach f4, a capture: with White at the target's count (king and rook) it never
        // can; with a White knight to spare, the pawn's usual cost.
        let target = "4k3/8/8/8/5p2/8/8/R3K3 w - - 0 1";
        assert_eq!(part(target, "4k3/8/8/6p1/8/8/8/R3K3 w - - 0 1", 1), NEVER);
        let (g5, f4) = (Square::parse("g5").unwrap(), Square::parse("f4").unwrap());
        let usual = pawn_cost(1, g5.index(), f4.index()) as u32;
        assert_eq!(part(target, "4k3/8/8/6p1/8/8/8/RN2K3 w - - 0 1", 1), usual);
    }

    #[test]
    fn a_caged_bishop_never_leaves_c1() {
        let target = Setup::from_fen("rnbqkbnr/pppppppp/8/8/8/8/1P1P4/4K3 w - - 0 1").unwrap();
        let g = Guide::new(&Setup::startpos(), &target);
        assert_eq!(g.dist[BISHOP_I][2][20], u8::MAX);
        assert_eq!(g.dist[BISHOP_I][5][12], 1);
    }

    #[test]
    fn the_sparse_matrix_equals_the_full_one() {
        // Random games (seeded xorshift64) towards held-out positions 7, 8 and 9 (tests/data/
        // hard-random-texel.txt) and a quiet one: at every ply, each side's cost matrix built from the pairs
        // `fits` allows equals the one built from every pair (every table entry looked up and charged).
        let targets = [
            "qQ5r/N5p1/1n1b4/1nBn1rBr/B2R1N2/5bkq/rp1NN3/3K1Qbb b - - 0 1",
            "1nkNQ3/n1B1Q3/rbR4K/1r2p1pq/2Q1Nqp1/p1QQR3/p1B2b2/2R4b w - - 0 1",
            "BNR2q2/3RQ1k1/1pb1q2n/6N1/1QB4P/1Pn1B1K1/q1nnb1N1/Q1Q4R b - - 0 1",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
        ];
        let mut next = crate::random::xorshift(0x9E37_79B9_7F4A_7C15);
        let (mut compared, mut finite) = (0, 0);
        for target in targets {
            let g = Guide::new(&Setup::startpos(), &Setup::from_fen(target).unwrap());
            for _ in 0..10 {
                let (mut b, cd) = Board::from_setup(&Setup::startpos());
                for _ in 0..150 {
                    let Some(next) = crate::random::random_child(&b, &cd, &mut next) else {
                        break;
                    };
                    b = next;
                    for c in 0..2 {
                        let units: Vec<_> = squares(b.colors[c])
                            .map(|s| (s, b.role_on(1 << s)))
                            .collect();
                        let n = units.len();
                        let mut sparse = vec![0; g.wanted[c].len() * n];
                        g.matrix(&b, c, &units, &mut sparse);
                        let k = g.blocking(&b, c);
                        let mut full = sparse.clone();
                        for (i, row) in full.chunks_exact_mut(n).enumerate() {
                            for (v, &(s, r)) in row.iter_mut().zip(&units) {
                                *v = g.table[c][i][r][s];
                                g.blocked(c, &k, i, (s, r), v);
                            }
                        }
                        assert_eq!(sparse, full, "{target}: side {c}");
                        compared += 1;
                        finite += sparse.iter().filter(|&&v| v < INF).count();
                    }
                }
            }
        }
        assert!(
            compared > 8000 && finite > 100_000,
            "{compared} matrices, {finite} finite entries"
        );
    }

    #[test]
    fn the_warm_estimate_equals_the_cold_one() {
        // Random games (seeded xorshift64) towards held-out legal positions (tests/data/hard-random-texel.txt,
        // positions 8 and 9) and a quiet one: at every ply the estimate with a warm start carried along (the
        // last assignment of each side) equals the estimate from scratch, each with a fresh memo so that
        // every side's assignment is solved, for both `detour` charges.
        let targets = [
            "1nkNQ3/n1B1Q3/rbR4K/1r2p1pq/2Q1Nqp1/p1QQR3/p1B2b2/2R4b w - - 0 1",
            "BNR2q2/3RQ1k1/1pb1q2n/6N1/1QB4P/1Pn1B1K1/q1nnb1N1/Q1Q4R b - - 0 1",
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
        ];
        let mut next = crate::random::xorshift(0x2545_F491_4F6C_DD1D);
        let mut compared = 0;
        for target in targets {
            let g = Guide::new(&Setup::startpos(), &Setup::from_fen(target).unwrap());
            for game in 0..12 {
                let detour = game % 2 == 1;
                let (mut b, cd) = Board::from_setup(&Setup::startpos());
                let mut warm = WarmStart::default();
                for _ in 0..120 {
                    let Some(next) = crate::random::random_child(&b, &cd, &mut next) else {
                        break;
                    };
                    b = next;
                    let cold = g.estimate(&b, 0, detour, &mut HashMap::new());
                    let hot = g.estimate_warm(&b, 0, detour, &mut HashMap::new(), &mut warm);
                    assert_eq!(hot, cold, "{target} after a random game, detour {detour}");
                    compared += usize::from(cold < NEVER);
                }
            }
        }
        assert!(compared > 400, "only {compared} finite estimates compared");
    }
}
