//! The capture plan of the guided search ([`super::guided`]): which of a side's pawns changed file, and so on
//! which squares the enemy's units are to be captured by them (the pawn part of a proof kernel, in the sense of
//! Texel's `doc/proofgame.md`: the captures, which unit takes which, and where).
//!
//! A pawn changes file only by capturing, one file per capture (FIDE 3.7.4 with 3.7.1–3.7.3), and moves only
//! forward. So each of the target's pawns comes from a pawn of the start (its *origin*) on a square it can
//! reach, with at least as many captures as files between them. Per side, the target's pawns are matched to
//! the start's pawns by a minimum-capture assignment (Hungarian method); a pawn whose file differs from its
//! origin's gets one planned capture per file, on the squares of the *late path*: straight up its origin's
//! file, then one diagonal step per file to its target square (for a White pawn from b2 to d5: captures on c4
//! and d5). Each planned capture square is where an enemy unit must stand when the pawn takes it; the guide
//! ([`super::guide`]) routes the enemy's units that are to be lost to these squares, and counts the rest as
//! captured by pieces wherever they meet one.
//!
//! The plan is a heuristic only: the search may realise the captures elsewhere, in another order, or by
//! other units, and every game it returns is replayed by the reference generator and compared with the target
//! ([`super::matches`]). No verdict "impossible" comes from a plan; a target with no plan (a pawn no start
//! pawn can reach, or more pawns than the start has) only leaves the guide without planned squares.

use super::assign::assignment;
use crate::position::Setup;
use crate::types::{Color, Role, Square};

/// A cost meaning "this origin cannot become that pawn".
const INF: i32 = 1 << 14;

/// One planned pawn capture: the pawn lands on `square`, coming from the neighbouring file `from_file`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlannedCapture {
    /// The square the capturing pawn lands on (where the enemy unit stands).
    pub square: Square,
    /// The file the pawn captures from.
    pub from_file: u8,
}

/// One target pawn's plan: its origin in the start, its square in the target, its captures on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PawnPath {
    /// The start pawn's square.
    pub origin: Square,
    /// The target pawn's square.
    pub target: Square,
    /// The captures of the late path, in order.
    pub captures: Vec<PlannedCapture>,
}

/// The capture plan of a target from a start (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CapturePlan {
    /// Per colour (White first), the paths of its target pawns (empty when there is no plan).
    pub paths: [Vec<PawnPath>; 2],
}

/// Rank of `sq` counted from `c`'s side (0 = its back rank).
fn rel_rank(c: Color, sq: Square) -> i32 {
    match c {
        Color::White => i32::from(sq.rank()),
        Color::Black => 7 - i32::from(sq.rank()),
    }
}

/// The square on `file` at rank `rel` counted from `c`'s side.
fn square_at(c: Color, file: i32, rel: i32) -> Square {
    let rank = match c {
        Color::White => rel,
        Color::Black => 7 - rel,
    };
    Square::new((rank * 8 + file) as u8)
}

/// Captures a pawn of `c` needs from `from` to `to` (one per file), or [`INF`] when it cannot get there.
fn captures(c: Color, from: Square, to: Square) -> i32 {
    let dr = rel_rank(c, to) - rel_rank(c, from);
    let df = (i32::from(from.file()) - i32::from(to.file())).abs();
    if dr < df || (dr == 0 && from != to) {
        INF
    } else {
        df
    }
}

/// The late path's captures of a pawn of `c` from `origin` to `target` (see the module docs).
fn late_path(c: Color, origin: Square, target: Square) -> Vec<PlannedCapture> {
    let (f0, f1) = (i32::from(origin.file()), i32::from(target.file()));
    let k = (f1 - f0).abs();
    let dir = (f1 - f0).signum();
    let r1 = rel_rank(c, target);
    (1..=k)
        .map(|i| PlannedCapture {
            square: square_at(c, f0 + dir * i, r1 - k + i),
            from_file: (f0 + dir * (i - 1)) as u8,
        })
        .collect()
}

/// The pawns of `c` on `setup`.
fn pawns(setup: &Setup, c: Color) -> Vec<Square> {
    Square::all()
        .filter(|&sq| {
            setup
                .piece_at(sq)
                .is_some_and(|p| p.color == c && p.role == Role::Pawn)
        })
        .collect()
}

impl CapturePlan {
    /// The plan of `target` from `start` (see the module docs).
    pub fn new(start: &Setup, target: &Setup) -> CapturePlan {
        let mut plan = CapturePlan::default();
        for c in Color::ALL {
            let (origins, goals) = (pawns(start, c), pawns(target, c));
            if goals.is_empty() || goals.len() > origins.len() {
                continue;
            }
            let cost: Vec<Vec<i32>> = goals
                .iter()
                .map(|&t| origins.iter().map(|&o| captures(c, o, t)).collect())
                .collect();
            let (total, rows) = assignment(&cost);
            if total >= INF {
                continue;
            }
            plan.paths[c.index()] = goals
                .iter()
                .zip(rows)
                .map(|(&t, o)| PawnPath {
                    origin: origins[o],
                    target: t,
                    captures: late_path(c, origins[o], t),
                })
                .collect();
        }
        plan
    }

    /// The planned captures of `c`'s pawns (squares where the enemy's units are to be taken).
    pub fn captures_by(&self, c: Color) -> impl Iterator<Item = PlannedCapture> + '_ {
        self.paths[c.index()]
            .iter()
            .flat_map(|p| p.captures.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pawn_that_changed_two_files_captures_on_its_late_path() {
        // After 1. e4 d5 2. exd5 c6 3. dxc6: White's e-pawn is on c6, two captures (d5, c6).
        let target =
            Setup::from_fen("rnbqkbnr/pp2pppp/2P5/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3").unwrap();
        let plan = CapturePlan::new(&Setup::startpos(), &target);
        let moved: Vec<&PawnPath> = plan.paths[0]
            .iter()
            .filter(|p| p.origin != p.target)
            .collect();
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].origin, Square::parse("e2").unwrap());
        let squares: Vec<String> = moved[0]
            .captures
            .iter()
            .map(|c| c.square.to_string())
            .collect();
        assert_eq!(squares, ["d5", "c6"]);
        assert_eq!(moved[0].captures[0].from_file, 4);
        assert!(plan.captures_by(Color::Black).next().is_none());
    }
}
