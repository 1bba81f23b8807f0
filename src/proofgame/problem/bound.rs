//! The deductions of a proof-game problem: for a position reached so far and the diagram, a lower bound of the
//! moves each side must still make, or a reason why the diagram cannot be reached at all. Each bound is proved
//! in docs/proofgames.md ("The deductions"); the numbers below (D1 … D12) are that page's.
//!
//! The laws used: pieces move as FIDE 3.2–3.6 say (a knight by knight steps, sliders on lines); a pawn only
//! forward, one file sideways per capture, two squares only from its starting rank without capturing (3.7); it
//! becomes a piece only on the last rank (3.7.5); castling moves the king and a rook in one move, at most once
//! per game (3.8.2); a capture removes exactly one unit (3.1, 3.7.4 e.p. included).

use crate::bitboard::attacks::{bishop_walk, rook_walk};
use crate::bitboard::board::{Board, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I};
use crate::position::Setup;
use crate::proofgame::guide::steps;
use crate::proofgame::{rel_rank, squares};
use crate::types::{Color, Square};

/// D13 is tried for a side with at most this slack ([`Diagram::capture_squares`]; its tables hold 0 and 1).
const MAX_SLACK: i32 = 1;

/// A bound meaning "never".
pub(super) const NEVER: u32 = 1 << 16;

/// Why no game reaches the diagram from a position (the deduction that failed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// D1: a side has fewer units than the diagram shows (units are never added, FIDE 3.1).
    TooFewUnits(Color),
    /// D2: a diagram pawn that no pawn of its colour can still reach (FIDE 3.7).
    PawnOutOfReach(Color, Square),
    /// D3: more promoted pieces than pawns left to promote (FIDE 3.7.5).
    TooManyPromotions(Color),
    /// D4: the pawns need more captures than the other side has units to lose.
    TooFewCaptures(Color),
    /// D8–D9: no unit of the colour (nor a promotion) can still reach the diagram's piece on the square.
    PieceOutOfReach(Color, Square),
    /// D5–D7, D10–D11: a side needs more moves than the plies leave it.
    TooManyMoves(Color, u32, u32),
    /// A castling right the stipulation fixes is already lost (rights never come back, FIDE 3.8.2.1).
    CastlingLost,
    /// D10: more units of the colour can reach no diagram square of their role than it has units to lose
    /// (the square is one of them).
    Stranded(Color, Square),
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = |c: &Color| match c {
            Color::White => "White",
            Color::Black => "Black",
        };
        match self {
            Why::TooFewUnits(c) => write!(f, "{} has fewer units than the diagram (D1)", name(c)),
            Why::PawnOutOfReach(c, s) => {
                write!(
                    f,
                    "no {} pawn can reach the diagram's pawn on {s} (D2)",
                    name(c)
                )
            }
            Why::TooManyPromotions(c) => write!(
                f,
                "{} has more pieces than its pawns could promote to (D3)",
                name(c)
            ),
            Why::TooFewCaptures(c) => write!(
                f,
                "{}'s pawns need more captures than the other side has units to lose (D4)",
                name(c)
            ),
            Why::PieceOutOfReach(c, s) => write!(
                f,
                "no {} unit can reach the diagram's piece on {s} (D8-D9)",
                name(c)
            ),
            Why::TooManyMoves(c, need, have) => write!(
                f,
                "{} needs at least {need} moves and has {have} (D5-D7, D10-D11)",
                name(c)
            ),
            Why::CastlingLost => write!(f, "a castling right of the stipulation is lost"),
            Why::Stranded(c, s) => write!(
                f,
                "{}'s units that can reach no diagram square of their role (one on {s}) outnumber \
                 its units to be captured (D10)",
                name(c)
            ),
        }
    }
}

/// Moves a pawn of colour `c` on `from` needs at least to reach `to` (FIDE 3.7: one rank per move, two from
/// the starting rank without capturing, one file per capture), with the captures it needs; `None` when it
/// cannot.
pub(super) fn pawn_path(c: usize, from: usize, to: usize) -> Option<(i32, i32)> {
    let (r0, r1) = (rel_rank(c, from), rel_rank(c, to));
    let dr = r1 - r0;
    let df = ((from % 8) as i32 - (to % 8) as i32).abs();
    if r0 == 0 || dr < df || dr < 0 {
        return None;
    }
    if dr == 0 {
        return Some((0, 0));
    }
    let double = r0 == 1 && dr >= 2 && dr - 2 >= df;
    Some((dr - i32::from(double), df))
}

/// The diagram as the deductions read it.
pub(super) struct Diagram {
    roles: [u64; 6],
    colors: [u64; 2],
    counts: [[i32; 6]; 2],
    /// Per colour: each diagram unit (square, role index).
    units: [Vec<(usize, usize)>; 2],
    /// D8: the squares whose diagram unit stood there, unmoved, through the whole game.
    pub(super) fixed: u64,
    /// D9: per piece role (knight … king, index `role - 1`) and target square, the moves a unit of that role
    /// needs from each square to the target around the `fixed` units (`u8::MAX`: never).
    dist: Box<[[[u8; 64]; 64]; 5]>,
    /// D10: per colour, role and square, the moves a unit of that colour and role standing there needs at
    /// least to end on a diagram square of its colour holding its role (a pawn: a diagram pawn, or its last
    /// rank; the king without castling), `u8::MAX`: never. Index 6 is the pawn without promotion.
    near: Box<[[[u8; 64]; 7]; 2]>,
    /// D11: per piece role (knight … king, index `role - 1`) and square, the squares a first move of that role
    /// from the square passes first (a knight's or king's steps, a slider's first square in each direction).
    exits: Box<[[u64; 64]; 5]>,
    /// D12: per colour c, when every unit c loses in the game is taken by a pawn capture of the other side on
    /// a known set of squares, the moves a unit of c (per role and square) needs at least to stand where it
    /// can be taken (`u8::MAX`: never); `None` when the captures are not so fixed.
    lost_at: [Option<Box<[[u8; 64]; 6]>>; 2],
    /// D13: per colour, role (index 6: the pawn without promotion), square `s` and slack `k` (0 or 1), the
    /// squares `x != s` a unit there may arrive on with `d(s, x) + near(x) <= near(s) + k`.
    ways: Box<[[[[u64; 2]; 64]; 7]; 2]>,
    /// D13: per piece role (knight … king, index `role - 1`) and square, the squares at D9 distance 1.
    ball: Box<[[u64; 64]; 5]>,
    /// Per colour and castling rights (its two bits), [`Diagram::castled`] for the diagram's king square of
    /// that colour, computed once (the need reads it at every node).
    castle_cost: [[i32; 4]; 2],
}

/// D8: the diagram squares whose unit never moved. A pawn on its starting rank (rank 2 for White, 7 for Black)
/// never moved: pawns only move forward (FIDE 3.7), so none ever came there, and it was never captured. Then,
/// to a fixpoint: a piece standing in the diagram on its own square of the initial position (same colour and
/// role) whose every move in or out (the squares next to it in its role's pattern, FIDE 3.2–3.6) is onto a
/// square of an unmoved unit never moved either: no unit of its role could have left or entered the square
/// (castling moves a king or rook onto other squares only, FIDE 3.8.2; promotion happens on the far rank only).
fn fixed_units(setup: &Setup) -> u64 {
    let start = Setup::startpos();
    let mut fixed = 0u64;
    for sq in Square::all() {
        if let Some(p) = setup.piece_at(sq) {
            let home = if p.color == Color::White { 1 } else { 6 };
            if p.role == crate::types::Role::Pawn && sq.index() / 8 == home {
                fixed |= 1 << sq.index();
            }
        }
    }
    loop {
        let before = fixed;
        for sq in Square::all() {
            let (Some(p), Some(q)) = (setup.piece_at(sq), start.piece_at(sq)) else {
                continue;
            };
            let s = sq.index();
            if p != q || p.role == crate::types::Role::Pawn || fixed >> s & 1 != 0 {
                continue;
            }
            // The squares next to `s` in the role's pattern (a slider's first step in each direction).
            let near = match p.role.index() {
                BISHOP_I => bishop_walk(s, !0),
                ROOK_I => rook_walk(s, !0),
                QUEEN_I => bishop_walk(s, !0) | rook_walk(s, !0),
                role => steps(role, s, 0),
            };
            if near & !fixed == 0 {
                fixed |= 1 << s;
            }
        }
        if fixed == before {
            return fixed;
        }
    }
}

/// D9: for each piece role and target square, breadth-first distances from every square around `fixed`.
fn distances(fixed: u64) -> Box<[[[u8; 64]; 64]; 5]> {
    let mut t = Box::new([[[u8::MAX; 64]; 64]; 5]);
    for role in KNIGHT_I..=KING_I {
        for target in 0..64usize {
            if fixed >> target & 1 != 0 {
                continue;
            }
            let row = &mut t[role - 1][target];
            row[target] = 0;
            let mut queue = std::collections::VecDeque::from([target]);
            while let Some(s) = queue.pop_front() {
                // Piece moves are reversible on a fixed board: the squares reaching `s` are those `s` reaches.
                for n in squares(steps(role, s, fixed)) {
                    if row[n] == u8::MAX {
                        row[n] = row[s] + 1;
                        queue.push_back(n);
                    }
                }
            }
        }
    }
    t
}

impl Diagram {
    pub(super) fn new(setup: &Setup) -> Diagram {
        let mut d = Diagram {
            roles: [0; 6],
            colors: [0; 2],
            counts: [[0; 6]; 2],
            units: [Vec::new(), Vec::new()],
            fixed: fixed_units(setup),
            dist: Box::new([[[u8::MAX; 64]; 64]; 5]),
            near: Box::new([[[u8::MAX; 64]; 7]; 2]),
            exits: Box::new([[0; 64]; 5]),
            lost_at: [None, None],
            castle_cost: [[NEVER as i32; 4]; 2],
            ways: Box::new([[[[0; 2]; 64]; 7]; 2]),
            ball: Box::new([[0; 64]; 5]),
        };
        for role in KNIGHT_I..=KING_I {
            for s in 0..64usize {
                d.exits[role - 1][s] = match role {
                    BISHOP_I => bishop_walk(s, !0),
                    ROOK_I => rook_walk(s, !0),
                    QUEEN_I => bishop_walk(s, !0) | rook_walk(s, !0),
                    _ => steps(role, s, 0),
                };
            }
        }
        d.dist = distances(d.fixed);
        for sq in Square::all() {
            if let Some(p) = setup.piece_at(sq) {
                let (c, r, s) = (p.color.index(), p.role.index(), sq.index());
                d.roles[r] |= 1 << s;
                d.colors[c] |= 1 << s;
                d.counts[c][r] += 1;
                d.units[c].push((s, r));
            }
        }
        for c in 0..2 {
            if let Some(home) = squares(d.roles[KING_I] & d.colors[c]).next() {
                for rights in 0..4u8 {
                    d.castle_cost[c][rights as usize] = d.castled(c, rights, home);
                }
            }
        }
        d.near = d.nearest();
        d.lost_at = [d.taken_at(0), d.taken_at(1)];
        d.arrivals();
        d
    }

    /// D13's tables ([`Diagram::ways`], [`Diagram::ball`]) from the D9 distances and D10's table.
    fn arrivals(&mut self) {
        for role in KNIGHT_I..=KING_I {
            for s in 0..64usize {
                self.ball[role - 1][s] =
                    squares(steps(role, s, self.fixed)).fold(0, |m, x| m | 1 << x);
            }
        }
        for o in 0..2 {
            for row in KNIGHT_I..=6 {
                let near = &self.near[o][row];
                for s in 0..64usize {
                    for x in (0..64usize).filter(|&x| x != s) {
                        let a = if row == 6 {
                            pawn_path(o, s, x).map_or(NEVER as i32, |(m, _)| m)
                        } else {
                            match self.dist[row - 1][x][s] {
                                u8::MAX => NEVER as i32,
                                d => i32::from(d),
                            }
                        };
                        let over = a + i32::from(near[x]) - i32::from(near[s]);
                        for k in 0..2 {
                            if over <= k as i32 {
                                self.ways[o][row][s][k] |= 1 << x;
                            }
                        }
                    }
                }
            }
        }
    }

    /// D12 for the units of colour `c`: the squares where the other side's pawns capture, when all of c's
    /// losses over the game are such captures. Each diagram pawn T of the other side o is the final unit of an
    /// original pawn of o (D8's pawns excluded but for their own square) that changed file at least `m_T` times
    /// (the fewest over the candidates, FIDE 3.7); each change is a capture. When the sum of `m_T` equals the
    /// units c loses in the game (16 less its diagram's units), every capture of o is such a pawn capture, each
    /// T's pawn makes exactly `m_T` (so it is one of the candidates that need `m_T`, moving to T's file without
    /// turning back), and no other unit of o captures. Those captures land on the squares between the
    /// candidate's file (excluded) and T's file, above the candidate's rank and up to T's; a pawn of c taken e.p.
    /// stands one rank behind the landing square (FIDE 3.7.3). Then (table) a unit of c that is taken from a
    /// position on needs at least its moves to one of those squares: a piece its D9 distance, a pawn its D2
    /// moves or its moves to the last rank (a promoted piece).
    fn taken_at(&self, c: usize) -> Option<Box<[[u8; 64]; 6]>> {
        let o = c ^ 1;
        let start = if o == 0 {
            0xff00u64
        } else {
            0x00ff_0000_0000_0000
        };
        let lost = 16 - self.colors[c].count_ones() as i32;
        if lost <= 0 {
            return None;
        }
        let (mut sum, mut at) = (0, 0u64);
        for t in squares(self.roles[PAWN_I] & self.colors[o]) {
            if self.fixed >> t & 1 != 0 {
                continue;
            }
            let paths: Vec<(usize, i32)> = squares(start & !self.fixed)
                .filter_map(|p| pawn_path(o, p, t).map(|(_, x)| (p, x)))
                .collect();
            let m = paths.iter().map(|&(_, x)| x).min()?;
            sum += m;
            for &(p, _) in paths.iter().filter(|&&(_, x)| x == m && m > 0) {
                let (lo, hi) = (rel_rank(o, p), rel_rank(o, t));
                let (pf, tf) = ((p % 8) as i32, (t % 8) as i32);
                for x in 0..64usize {
                    let (r, f) = (rel_rank(o, x), (x % 8) as i32);
                    let between = if tf > pf {
                        f > pf && f <= tf
                    } else {
                        f < pf && f >= tf
                    };
                    if r > lo && r <= hi && between {
                        at |= 1 << x;
                    }
                }
            }
        }
        if sum != lost {
            return None;
        }
        // A pawn of c taken e.p. stands on o's fifth rank, behind a landing square of o's sixth.
        let sixth = if o == 0 {
            0x0000_ff00_0000_0000u64
        } else {
            0x00ff_0000
        };
        let ep = if o == 0 {
            (at & sixth) >> 8
        } else {
            (at & sixth) << 8
        };
        let mut t = Box::new([[u8::MAX; 64]; 6]);
        for s in 0..64usize {
            for role in KNIGHT_I..KING_I {
                t[role][s] = squares(at)
                    .map(|x| if x == s { 0 } else { self.dist[role - 1][x][s] })
                    .min()
                    .unwrap_or(u8::MAX);
            }
            let r = rel_rank(c, s);
            if r == 0 || r == 7 {
                continue;
            }
            let walk = squares(at | ep)
                .filter_map(|x| pawn_path(c, s, x).map(|(m, _)| m))
                .min()
                .unwrap_or(NEVER as i32);
            let promote = 7 - r - i32::from(r == 1);
            t[PAWN_I][s] = walk.min(promote).min(i32::from(u8::MAX)) as u8;
        }
        Some(t)
    }

    /// D10's table ([`Diagram::near`]) from the diagram's units and the D9 distances.
    fn nearest(&self) -> Box<[[[u8; 64]; 7]; 2]> {
        let mut t = Box::new([[[u8::MAX; 64]; 7]; 2]);
        for c in 0..2 {
            let last = if c == 0 {
                0xff00_0000_0000_0000u64
            } else {
                0xff
            };
            let pieces = self.colors[c] & !self.roles[PAWN_I] & !self.roles[KING_I];
            // A promoted pawn stands on its last rank (FIDE 3.7.5): one move more unless a diagram piece of
            // its colour stands there.
            let after = i32::from(pieces & last == 0);
            for s in 0..64usize {
                for role in KNIGHT_I..=KING_I {
                    let mine = self.roles[role] & self.colors[c];
                    // D9's rows of a D8 square are empty: its unit stands there already.
                    let best = squares(mine)
                        .map(|t| if t == s { 0 } else { self.dist[role - 1][t][s] })
                        .min();
                    t[c][role][s] = best.unwrap_or(u8::MAX);
                }
                let r = rel_rank(c, s);
                if r == 0 || r == 7 {
                    continue;
                }
                let mine = self.roles[PAWN_I] & self.colors[c];
                let walk = squares(mine)
                    .filter_map(|t| pawn_path(c, s, t))
                    .map(|(m, _)| m)
                    .min()
                    .unwrap_or(NEVER as i32);
                let promote = 7 - r - i32::from(r == 1) + after;
                let clamp = |x: i32| x.min(i32::from(u8::MAX)) as u8;
                t[c][6][s] = clamp(walk);
                t[c][PAWN_I][s] = clamp(walk.min(promote));
            }
        }
        t
    }

    /// D10: the unit-moves side `c` needs at least for every unit of it to end on a diagram square of its
    /// colour holding its role (or be captured: the `lost` costliest units other than the king are left out;
    /// a pawn may promote only when `c` has pawns to spare), castling moves left out (the caller subtracts
    /// one unit-move for a castling right); `Err` when a unit that cannot get there is not among them.
    fn units_home(&self, b: &Board, c: usize, lost: i32, spare: i32) -> Result<i32, Why> {
        self.units_home_at(b, c, lost, spare, 0)
    }

    /// [`Diagram::units_home`] where, besides D12, every unit of `c` captured from `b` on is taken on a square
    /// of `at` (D13; 0: no such set): a taken unit makes at least its moves to one of them
    /// ([`Diagram::moves_to_set`]).
    fn units_home_at(
        &self,
        b: &Board,
        c: usize,
        lost: i32,
        spare: i32,
        at: u64,
    ) -> Result<i32, Why> {
        let own = b.colors[c];
        let never = |x: u8| {
            if x == u8::MAX {
                NEVER as i32
            } else {
                i32::from(x)
            }
        };
        // Per non-king unit: (moves saved when it is one of the `lost` taken, moves when it stays, square).
        // Without D12 a taken unit makes 0 moves at least; with it, its moves to where it can be taken.
        let taken = self.lost_at[c].as_deref();
        let mut costs = [(0i32, 0i32, 0usize); 16];
        let mut len = 0;
        for role in PAWN_I..KING_I {
            let row = if role == PAWN_I && spare <= 0 {
                6
            } else {
                role
            };
            for s in squares(b.roles[role] & own) {
                let keep = never(self.near[c][row][s]);
                let mut take = taken.map_or(0, |t| never(t[role][s]));
                if at != 0 && keep > take {
                    take = take.max(self.moves_to_set(c, role, s, at));
                }
                if (keep != 0 || take != 0) && len < 16 {
                    costs[len] = (keep - take, keep, s);
                    len += 1;
                }
            }
        }
        let costs = &mut costs[..len];
        let cut = (lost.max(0) as usize).min(len);
        // The `cut` units that save the most first (the same set as a full sort's first `cut`: the order is
        // total); without losses no order is needed.
        if cut > 0 && cut < len {
            costs.select_nth_unstable_by(cut - 1, |a, b| b.cmp(a));
        }
        let color = Color::ALL[c];
        let mut total = 0;
        for (i, &(save, keep, s)) in costs.iter().enumerate() {
            let x = if i < cut { keep - save } else { keep };
            if x >= NEVER as i32 {
                return Err(Why::Stranded(color, Square::new(s as u8)));
            }
            total += x;
        }
        let castle = b.castling >> (2 * c) & 3;
        let (Some(k), Some(home)) = (
            squares(b.roles[KING_I] & own).next(),
            squares(self.roles[KING_I] & self.colors[c]).next(),
        ) else {
            return Ok(total - i32::from(castle != 0));
        };
        let (walk, castled) = (
            never(self.near[c][KING_I][k]),
            self.castle_cost[c][usize::from(castle)],
        );
        if walk.min(castled) >= NEVER as i32 {
            return Err(Why::PieceOutOfReach(color, Square::new(home as u8)));
        }
        Ok((total + walk).min(total + castled - 1))
    }

    /// D13: the fewest moves a unit of colour `c` and `role` (not the king) on `s` makes to stand on a square
    /// of `at`: a piece its D9 distance, a pawn its D2 moves, or its moves to the last rank (promoted there,
    /// it may be taken as a piece).
    fn moves_to_set(&self, c: usize, role: usize, s: usize, at: u64) -> i32 {
        if at >> s & 1 != 0 {
            return 0;
        }
        if role != PAWN_I {
            let row = &self.dist[role - 1];
            return squares(at)
                .map(|x| row[x][s])
                .filter(|&d| d != u8::MAX)
                .map(i32::from)
                .min()
                .unwrap_or(NEVER as i32);
        }
        let r = rel_rank(c, s);
        let promote = 7 - r - i32::from(r == 1);
        squares(at)
            .filter_map(|x| pawn_path(c, s, x).map(|(m, _)| m))
            .fold(promote, i32::min)
    }

    /// D13 (capture squares of a side with little slack): when side `o` has `have` moves left, D10 counts
    /// `home` for it, `k = have - home`, and `o` does not castle (no right, or castling costs more than `k`)
    /// and has no pawn to spare (none promotes,
    /// none is captured), each of its units makes at most its D10 moves plus `k` (the others make at least
    /// theirs): a survivor on `s` ends on a diagram square of its role, so a square `x` it arrives on has
    /// `d(s, x) + near(x) <= near(s) + k` (D9 for a piece, D2 for a pawn, FIDE 3.2–3.7); a unit o loses makes
    /// at most `k` moves (without D12 for o: with it, `None`), `d(s, x) <= k`. Every capture o still makes lands on
    /// such a square (a pawn of the other side taken e.p. stands one rank behind a landing square on o's
    /// sixth rank, FIDE 3.7.3). `None` when `k` exceeds [`MAX_SLACK`] or a condition fails.
    fn capture_squares(&self, b: &Board, o: usize, have: u32) -> Option<u64> {
        let own = b.colors[o];
        let pawns = (b.roles[PAWN_I] & own).count_ones() as i32;
        let lost = own.count_ones() as i32 - self.colors[o].count_ones() as i32;
        if pawns != self.counts[o][PAWN_I] {
            return None;
        }
        let k = have as i32 - self.units_home(b, o, lost, 0).ok()?;
        if !(0..=MAX_SLACK).contains(&k) {
            return None;
        }
        // A castling right left: a game that castles makes at least `castled - 1` moves where D10's walking
        // king counts `walk`; when that exceeds the slack, o does not castle (else: `None`).
        let rights = usize::from(b.castling >> (2 * o) & 3);
        if rights != 0 {
            let king = squares(b.roles[KING_I] & own).next()?;
            let walk = i32::from(self.near[o][KING_I][king]);
            if self.castle_cost[o][rights] - 1 <= walk + k {
                return None;
            }
        }
        if lost > 0 && self.lost_at[o].is_some() {
            return None;
        }
        let k = k as usize;
        let mut at = 0u64;
        for role in KNIGHT_I..=KING_I {
            let (ways, ball) = (&self.ways[o][role], &self.ball[role - 1]);
            for s in squares(b.roles[role] & own) {
                at |= ways[s][k];
                if lost > 0 && role != KING_I && k > 0 {
                    at |= ball[s];
                }
            }
        }
        for s in squares(b.roles[PAWN_I] & own) {
            at |= self.ways[o][6][s][k];
        }
        let sixth = if o == 0 { 0xff_u64 << 40 } else { 0xff << 16 };
        let ep = if o == 0 {
            (at & sixth) >> 8
        } else {
            (at & sixth) << 8
        };
        Some(at | ep)
    }

    /// D13 at a node whose needs `n` fit into `remaining` plies: for each side `o` without slack
    /// ([`Diagram::capture_squares`]), the other side's units still to be captured are taken on those squares,
    /// which D10 for it then counts ([`Diagram::units_home_at`]).
    fn tight(&self, b: &Board, n: [u32; 2], remaining: u32) -> Result<(), Why> {
        let turn = b.turn as usize;
        let mut have = [0u32; 2];
        have[turn] = remaining.div_ceil(2);
        have[turn ^ 1] = remaining / 2;
        for o in 0..2 {
            let c = o ^ 1;
            let lost = b.colors[c].count_ones() as i32 - self.colors[c].count_ones() as i32;
            if have[o] - n[o] > MAX_SLACK as u32 || lost <= 0 {
                continue;
            }
            let Some(at) = self.capture_squares(b, o, have[o]) else {
                continue;
            };
            let spare =
                (b.roles[PAWN_I] & b.colors[c]).count_ones() as i32 - self.counts[c][PAWN_I];
            let home = self.units_home_at(b, c, lost, spare, at)?;
            if home > have[c] as i32 {
                return Err(Why::TooManyMoves(Color::ALL[c], home as u32, have[c]));
            }
        }
        Ok(())
    }

    /// The king's unit-moves to its diagram square `home` in a game where side `c` castles (rights `castle`):
    /// castling takes it to the g- or c-file of its back rank (FIDE 3.8.2), then it walks (D9); [`NEVER`]
    /// without a right. Castling is one move for two unit-moves (king and rook): a game that castles makes
    /// one move fewer than its unit-moves, one that does not makes as many, so a side's moves are at least
    /// the smaller of (units' sum with the king walking) and (units' sum with the king castling, less one).
    fn castled(&self, c: usize, castle: u8, home: usize) -> i32 {
        let back = if c == 0 { 0 } else { 56 };
        [(1, back + 6), (2, back + 2)]
            .into_iter()
            .filter(|&(bit, _)| castle & bit != 0)
            .map(|(_, to)| match self.dist[KING_I - 1][home][to] {
                u8::MAX => NEVER as i32,
                d => 1 + i32::from(d),
            })
            .min()
            .unwrap_or(NEVER as i32)
    }

    /// D11 (obstruction), for a side `c` that loses no more units: the unit-moves that D10 does not count
    /// and that units standing on a diagram square of their role (D10 counts 0 for them) must make to let out
    /// a unit that has to move but whose every first step is onto a unit of its own side (its pawn's square
    /// ahead, for a pawn when `c` makes no more captures). A blocker that moves makes one move at least (a
    /// piece two to come back, or its D9 distance to another diagram square of its role); units blocked by
    /// disjoint sets of blockers add up, each set counted at its cheapest blocker.
    fn obstruction(&self, b: &Board, c: usize, captures: bool) -> i32 {
        let own = b.colors[c];
        let mine = self.colors[c];
        // The units standing on a diagram square of their role: D10 counts 0 for them.
        // A king with a castling right is left out: D10 already counts its moves in a game that castles.
        let king = if b.castling >> (2 * c) & 3 != 0 {
            b.roles[KING_I] & own
        } else {
            0
        };
        let settled = (0..6).fold(0u64, |m, r| m | (b.roles[r] & own & self.roles[r] & mine));
        let blocking = settled & !king;
        // The fewest moves a settled unit on `s` makes once it moves (it ends on a square of its role).
        let leave = |s: usize| -> i32 {
            let role = (0..6).find(|&r| b.roles[r] >> s & 1 != 0).unwrap_or(PAWN_I);
            if role == PAWN_I {
                return 1;
            }
            squares(self.roles[role] & mine & !(1 << s))
                .map(|t| i32::from(self.dist[role - 1][t][s]))
                .fold(2, i32::min)
        };
        let (mut used, mut extra) = (0u64, 0);
        for role in PAWN_I..=KING_I {
            if role == PAWN_I && captures {
                continue;
            }
            for s in squares(b.roles[role] & own & !settled & !self.fixed) {
                let exits = if role == PAWN_I {
                    match if c == 0 { s + 8 } else { s.wrapping_sub(8) } {
                        ahead if ahead < 64 => 1u64 << ahead,
                        _ => continue,
                    }
                } else {
                    self.exits[role - 1][s]
                };
                // Every first step onto a unit of its own side; the D8 units never move (D9 covers a unit
                // they enclose), the others must all stand on a square of their role.
                let blockers = exits & !self.fixed;
                if exits & !own != 0 || blockers == 0 || blockers & (used | !blocking) != 0 {
                    continue;
                }
                extra += squares(blockers).map(leave).min().unwrap_or(0);
                used |= blockers;
            }
        }
        extra
    }

    /// D9: the fewest moves a unit of `role` (knight … king) of `own` needs to stand on `sq`, or `none`.
    #[inline]
    fn moves_to(&self, b: &Board, own: u64, role: usize, sq: usize, none: i32) -> i32 {
        let row = &self.dist[role - 1][sq];
        squares(b.roles[role] & own)
            .map(|p| row[p])
            .filter(|&d| d != u8::MAX)
            .map(i32::from)
            .min()
            .unwrap_or(none)
    }

    /// Whether one move of the side to move in `b` can still give the diagram's placement (a necessary
    /// condition, exact bit tests; the count checks it on positions with one ply left instead of the needs).
    /// The other side makes no more move: its units stand as in the diagram but for at most one more, which
    /// the last move may capture (a capture removes one unit, e.p. included, FIDE 3.1 and 3.7.4; no move of
    /// one side moves the other's units). The mover's units differ from the diagram's on at most four
    /// squares: a move changes its from and to squares (a promotion included, FIDE 3.7.5), castling its
    /// king's and rook's (FIDE 3.8.2).
    #[inline]
    pub(super) fn one_move_away(&self, b: &Board) -> bool {
        let (m, o) = (b.turn as usize, b.turn as usize ^ 1);
        let mut moved = 0u64;
        for r in 0..6 {
            if self.roles[r] & self.colors[o] & !(b.roles[r] & b.colors[o]) != 0 {
                return false;
            }
            moved |= (b.roles[r] & b.colors[m]) ^ (self.roles[r] & self.colors[m]);
        }
        (b.colors[o] & !self.colors[o]).count_ones() <= 1 && moved.count_ones() <= 4
    }

    /// The diagram's squares holding a unit of colour `c` (`None`: of either colour).
    #[inline]
    pub(super) fn occupied(&self, c: Option<usize>) -> u64 {
        c.map_or(self.colors[0] | self.colors[1], |c| self.colors[c])
    }

    /// Whether `b` stands as the diagram (placement only).
    #[inline]
    pub(super) fn same_placement(&self, b: &Board) -> bool {
        b.roles == self.roles && b.colors == self.colors
    }

    /// D5: the moves side `c` needs at least to bring a unit onto each diagram square of its own that does not
    /// hold it yet (each square's final unit is a different one; the sum of each square's cheapest candidate),
    /// and D4's captures its pawns need on the way.
    fn fill(&self, b: &Board, c: usize) -> Result<(i32, i32), Why> {
        let own = b.colors[c];
        // D8's pawns never move: they are no candidates for another square, nor promote.
        let pawns = b.roles[PAWN_I] & own & !self.fixed;
        let color = crate::types::Color::ALL[c];
        // A promoted piece: its pawn's moves to the last rank (FIDE 3.7.5).
        let promote = squares(pawns)
            .map(|p| {
                let r = rel_rank(c, p);
                7 - r - i32::from(r == 1)
            })
            .min()
            .unwrap_or(NEVER as i32);
        let castle = b.castling >> (2 * c) & 3;
        let (mut total, mut captures) = (0, 0);
        // The king's square: (moves walking, moves castling), its own king standing there walking none.
        let mut king = None;
        for &(sq, role) in &self.units[c] {
            let there = (b.roles[role] & own) >> sq & 1 != 0;
            if role == KING_I {
                let walk = if there {
                    0
                } else {
                    self.moves_to(b, own, KING_I, sq, NEVER as i32)
                };
                let castled = self.castle_cost[c][usize::from(castle)];
                if walk.min(castled) >= NEVER as i32 {
                    return Err(Why::PieceOutOfReach(color, Square::new(sq as u8)));
                }
                king = Some((walk, castled));
                continue;
            }
            if there {
                continue;
            }
            let promoted = promote + i32::from(rel_rank(c, sq) != 7);
            let d = match role {
                PAWN_I => {
                    // One pass: the fewest moves, and apart the fewest captures, over the candidates.
                    let (mut best, mut fewest) = (None, i32::MAX);
                    for path in squares(pawns).filter_map(|p| pawn_path(c, p, sq)) {
                        best = Some(best.map_or(path, |b: (i32, i32)| b.min(path)));
                        fewest = fewest.min(path.1);
                    }
                    let best = best.ok_or(Why::PawnOutOfReach(color, Square::new(sq as u8)))?;
                    captures += fewest;
                    best.0
                }
                _ => self.moves_to(b, own, role, sq, NEVER as i32).min(promoted),
            };
            if d >= NEVER as i32 {
                return Err(Why::PieceOutOfReach(color, Square::new(sq as u8)));
            }
            total += d;
        }
        // As D10 counts castling ([`Diagram::castled`]).
        let moves = match king {
            Some((walk, castled)) => (total + walk).min(total + castled - 1),
            None => total - i32::from(castle != 0),
        };
        Ok((moves, captures))
    }

    /// The moves side `c` must still make from `b` (D1–D7), or why the diagram is out of reach.
    pub(super) fn need(&self, b: &Board, c: usize) -> Result<u32, Why> {
        let color = crate::types::Color::ALL[c];
        let o = c ^ 1;
        let units = |x: usize| b.colors[x].count_ones() as i32;
        let target = |x: usize| self.colors[x].count_ones() as i32;
        if units(c) < target(c) {
            return Err(Why::TooFewUnits(color));
        }
        // D1 for the other side too: its losses are this side's captures.
        let to_capture = units(o) - target(o);
        if to_capture < 0 {
            return Err(Why::TooFewUnits(crate::types::Color::ALL[o]));
        }
        let lost = units(c) - target(c);
        let pawns = (b.roles[PAWN_I] & b.colors[c]).count_ones() as i32;
        let spare = pawns - self.counts[c][PAWN_I];
        let mut promos = 0;
        let mut misplaced = 0;
        for r in 0..6 {
            let cur = b.roles[r] & b.colors[c];
            let tgt = self.roles[r] & self.colors[c];
            misplaced += (cur & !tgt).count_ones() as i32;
            if (KNIGHT_I..=QUEEN_I).contains(&r) {
                promos += (self.counts[c][r] - cur.count_ones() as i32).max(0);
            }
        }
        if spare < 0 || promos > spare {
            return Err(Why::TooManyPromotions(color));
        }
        let (fill, captures) = self.fill(b, c)?;
        if captures > to_capture {
            return Err(Why::TooFewCaptures(color));
        }
        let castle = i32::from(b.castling >> (2 * c) & 3 != 0);
        let mut home = self.units_home(b, c, lost, spare)?;
        if lost == 0 {
            home += self.obstruction(b, c, to_capture > 0);
        }
        // D5 (fill, less one for a castling that moves two units), D6 (every capture is a move of the
        // capturing side), D7 (each misplaced unit moves or is captured), D10 (each unit goes to a square of
        // its role or is captured).
        let n = fill
            .max(to_capture)
            .max(misplaced - lost - castle)
            .max(home)
            .max(0);
        Ok(n as u32)
    }

    /// Whether both sides fit their moves into `remaining` plies with side `b.turn` to move (the side to move
    /// makes the odd plies); when they do, the moves both need together.
    #[inline]
    pub(super) fn feasible(&self, b: &Board, remaining: u32) -> Result<u32, Why> {
        let s = b.turn as usize;
        let have = [remaining.div_ceil(2), remaining / 2];
        let mut total = 0;
        for (i, c) in [s, s ^ 1].into_iter().enumerate() {
            let n = self.need(b, c)?;
            if n > have[i] {
                return Err(Why::TooManyMoves(Color::ALL[c], n, have[i]));
            }
            total += n;
        }
        Ok(total)
    }

    /// The moves each colour needs in `b` (indexed by colour) when both fit into `remaining` plies, as
    /// [`Diagram::feasible`] decides.
    #[inline]
    pub(super) fn needs(
        &self,
        memo: &mut impl NeedOf,
        b: &Board,
        remaining: u32,
    ) -> Result<[u32; 2], Why> {
        let n = [memo.need(self, b, 0)?, memo.need(self, b, 1)?];
        fits(b.turn as usize, n, remaining)?;
        self.tight(b, n, remaining)?;
        Ok(n)
    }

    /// [`Diagram::needs`] for `next`, the position after a move from `prev`, whose needs were `prev_need`:
    /// the side that did not move keeps its need when its units and castling rights are those of `prev` (the
    /// need of a colour reads only its own units, its castling rights and the number of the other side's
    /// units, which a move never raises: so a move that captures nothing leaves it as it was). Through
    /// `memo` (the count's memo, memo.rs: the same bound).
    #[inline]
    pub(super) fn needs_after(
        &self,
        memo: &mut impl NeedOf,
        prev: &Board,
        prev_need: [u32; 2],
        next: &Board,
        remaining: u32,
    ) -> Result<[u32; 2], Why> {
        let (s, o) = (prev.turn as usize, next.turn as usize);
        let mut n = prev_need;
        n[s] = memo.need(self, next, s)?;
        let quiet =
            next.colors[o] == prev.colors[o] && (next.castling ^ prev.castling) >> (2 * o) & 3 == 0;
        if !quiet {
            n[o] = memo.need(self, next, o)?;
        }
        fits(o, n, remaining)?;
        self.tight(next, n, remaining)?;
        Ok(n)
    }
}

/// Whether needs `n` (per colour) fit into `remaining` plies with `turn` to move (it makes the odd plies).
#[inline]
fn fits(turn: usize, n: [u32; 2], remaining: u32) -> Result<(), Why> {
    let have = [remaining.div_ceil(2), remaining / 2];
    for (i, c) in [turn, turn ^ 1].into_iter().enumerate() {
        if n[c] > have[i] {
            return Err(Why::TooManyMoves(Color::ALL[c], n[c], have[i]));
        }
    }
    Ok(())
}

/// Where [`Diagram::needs`] and [`Diagram::needs_after`] take each colour's bound from: the count's memo
/// (memo.rs) answers [`Diagram::need`] from its slots, exactly as computed afresh. A trait here, so that this
/// file does not name the memo that names it.
pub(super) trait NeedOf {
    /// [`Diagram::need`] of colour `c` in `b`.
    fn need(&mut self, diagram: &Diagram, b: &Board, c: usize) -> Result<u32, Why>;
}
