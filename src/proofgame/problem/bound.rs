//! The deductions of a proof-game problem: for a position reached so far and the diagram, a lower bound of the
//! moves each side must still make, or a reason why the diagram cannot be reached at all. Each bound is proved
//! in docs/proofgames.md ("The deductions"); the numbers below (D1 … D7) are that page's.
//!
//! The laws used: pieces move as FIDE 3.2–3.6 say (a knight by knight steps, sliders on lines); a pawn only
//! forward, one file sideways per capture, two squares only from its starting rank without capturing (3.7); it
//! becomes a piece only on the last rank (3.7.5); castling moves the king and a rook in one move, at most once
//! per game (3.8.2); a capture removes exactly one unit (3.1, 3.7.4 e.p. included).

use crate::bitboard::board::{Board, BISHOP_I, KING_I, KNIGHT_I, PAWN_I, QUEEN_I, ROOK_I};
use crate::position::Setup;
use crate::proofgame::{knight_distance, piece_moves, rel_rank, squares};
use crate::types::{Color, Square};

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
    /// D5–D7: a side needs more moves than the plies leave it.
    TooManyMoves(Color, u32, u32),
    /// A castling right the stipulation fixes is already lost (rights never come back, FIDE 3.8.2.1).
    CastlingLost,
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
            Why::TooManyMoves(c, need, have) => write!(
                f,
                "{} needs at least {need} moves and has {have} (D5-D7)",
                name(c)
            ),
            Why::CastlingLost => write!(f, "a castling right of the stipulation is lost"),
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
}

impl Diagram {
    pub(super) fn new(setup: &Setup) -> Diagram {
        let mut d = Diagram {
            roles: [0; 6],
            colors: [0; 2],
            counts: [[0; 6]; 2],
            units: [Vec::new(), Vec::new()],
        };
        for sq in Square::all() {
            if let Some(p) = setup.piece_at(sq) {
                let (c, r, s) = (p.color.index(), p.role.index(), sq.index());
                d.roles[r] |= 1 << s;
                d.colors[c] |= 1 << s;
                d.counts[c][r] += 1;
                d.units[c].push((s, r));
            }
        }
        knight_distance();
        d
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
        let pawns = b.roles[PAWN_I] & own;
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
        for &(sq, role) in &self.units[c] {
            if (b.roles[role] & own) >> sq & 1 != 0 {
                continue;
            }
            let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
            let promoted = promote + i32::from(rel_rank(c, sq) != 7);
            let pieces = |i: usize| squares(b.roles[i] & own);
            let d = match role {
                PAWN_I => {
                    let best = squares(pawns)
                        .filter_map(|p| pawn_path(c, p, sq))
                        .min()
                        .ok_or(Why::PawnOutOfReach(color, Square::new(sq as u8)))?;
                    captures += squares(pawns)
                        .filter_map(|p| pawn_path(c, p, sq))
                        .map(|(_, x)| x)
                        .min()
                        .unwrap_or(0);
                    best.0
                }
                KNIGHT_I | BISHOP_I | ROOK_I | QUEEN_I => {
                    piece_moves(b, own, role, sq, promoted, NEVER as i32)
                }
                _ => {
                    let king = |p: usize| {
                        let (pf, pr) = ((p % 8) as i32, (p / 8) as i32);
                        (pf - f).abs().max((pr - r).abs())
                    };
                    let mut d = pieces(KING_I).map(king).min().unwrap_or(NEVER as i32);
                    // Castling takes the king to the g- or c-file of its back rank in one move (FIDE 3.8.2).
                    let back = if c == 0 { 0 } else { 56 };
                    if castle & 1 != 0 {
                        d = d.min(1 + king(back + 6));
                    }
                    if castle & 2 != 0 {
                        d = d.min(1 + king(back + 2));
                    }
                    d
                }
            };
            total += d;
        }
        Ok((total, captures))
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
        // D5 (fill, less one for a castling that moves two units), D6 (every capture is a move of the
        // capturing side), D7 (each misplaced unit moves or is captured).
        let n = (fill - castle)
            .max(to_capture)
            .max(misplaced - lost - castle)
            .max(0);
        Ok(n as u32)
    }

    /// Whether both sides fit their moves into `remaining` plies with side `b.turn` to move (the side to move
    /// makes the odd plies).
    #[inline]
    pub(super) fn feasible(&self, b: &Board, remaining: u32) -> Result<(), Why> {
        let s = b.turn as usize;
        let have = [remaining.div_ceil(2), remaining / 2];
        for (i, c) in [s, s ^ 1].into_iter().enumerate() {
            let n = self.need(b, c)?;
            if n > have[i] {
                return Err(Why::TooManyMoves(Color::ALL[c], n, have[i]));
            }
        }
        Ok(())
    }
}
