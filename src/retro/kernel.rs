//! The capture kernel, both sides at once: which pawns provably never left their file, and what that costs
//! the other side's pawns (FIDE 3.7, 3.10.3).
//!
//! **A pawn that never left its file.** Every pawn capture removes one enemy unit, so a side's pawns make at
//! most as many captures as the enemy has lost units ([`super::proofs`]: the minimum-cost assignment of the
//! pawns and promoted pieces to starting files is a lower bound). A pawn now on file g that ever left g made at
//! least one capture if it started on another file and at least two if it started on g (out and back). When
//! the assignment with that pawn charged so needs more captures than the enemy has lost, the pawn has been on
//! file g since the start of the game.
//!
//! **Pawns cannot pass on a file.** A pawn moves straight only onto an empty square (FIDE 3.7.1, 3.7.2), so two
//! pawns of opposite colours on one file never cross while both stay on it. Let B be an enemy pawn that has
//! never left file g, now on rank b. A pawn of ours that ends on file g beyond B (or promotes on g) has been on
//! g since it last entered g; had it entered g behind B it would have had to cross B, so it entered g by a
//! capture (or started there) beyond B's rank of that moment, which is at least as far as b (B only advances).
//! Our pawns' assignment is recomputed with that rule (a dynamic programme over the ranks with "entered g
//! beyond its fixed enemy pawn or not"); when it needs more captures than the enemy has lost, the position is
//! impossible. This is the "promotion past a blocking pawn" family: a promoted piece (or a pawn) whose pawn had
//! to pass an enemy pawn that never moved off its file.
//!
//! Nothing here depends on the back-rank arrangement, so it holds for the standard start and for Chess960.

use super::proofs::{self, abs_rank, assign, Goal, INF};
use super::{Proof, ProofKind};
use crate::position::Setup;
use crate::types::{Color, Role, Square};

fn name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The pawns of `color` on the board (not on their starting rank) that provably never left their file.
pub fn fixed_pawns(setup: &Setup, color: Color) -> Vec<Square> {
    let Some((plain, bishops)) = proofs::promoted(setup, color) else {
        return Vec::new();
    };
    let (goals, blocked) = proofs::pawn_goals(setup, color, plain, bishops);
    if goals.is_empty() || goals.len() > 8 {
        return Vec::new();
    }
    let budget = proofs::lost(setup, !color);
    let cost: Vec<[i32; 8]> = goals
        .iter()
        .map(|&g| std::array::from_fn(|f0| proofs::goal_cost(color, f0 as u8, g, blocked).0))
        .collect();
    let mut out = Vec::new();
    for (i, g) in goals.iter().enumerate() {
        let Goal::On(sq) = *g else { continue };
        let rel = abs_rank(color, sq.rank());
        if rel <= 1 {
            continue; // unmoved: a wall, handled by the blocked squares already
        }
        let mut c = cost.clone();
        let f = sq.file() as usize;
        // Out and back needs two captures and two moves forward at least.
        c[i][f] = if rel >= 3 { c[i][f].max(2) } else { INF };
        if assign(&c).0 > budget {
            out.push(sq);
        }
    }
    out
}

/// Fewest captures for a pawn of `color` from file `f0` to each file of relative rank `rel` (0 = the back
/// rank), with the enemy's unmoved pawns `blocked` and `fixed[g]` the relative rank (counted from `color`'s
/// side) of an enemy pawn that never left file g: the pawn may end on g beyond it, or promote on g, only when
/// it last entered g by a capture beyond it (see the module docs).
fn captures_past(color: Color, f0: u8, rel: u8, blocked: u64, fixed: [Option<u8>; 8]) -> [i32; 8] {
    // below[f]: on file f, entered behind its fixed pawn; above[f]: entered beyond it (or no fixed pawn).
    let mut below = [INF; 8];
    let mut above = [INF; 8];
    if fixed[f0 as usize].is_some() {
        below[f0 as usize] = 0;
    } else {
        above[f0 as usize] = 0;
    }
    for rr in 2..=rel {
        let mut nb = [INF; 8];
        let mut na = [INF; 8];
        for g in 0..8usize {
            let sq = Square::from_coords(g as i32, abs_rank(color, rr) as i32).expect("on board");
            if blocked >> sq.index() & 1 != 0 {
                continue;
            }
            // Behind the fixed pawn B means B is further on at that moment, and B started on the enemy's
            // second rank (relative rank 6): behind it, a pawn of ours never reaches rank 6 on that file.
            nb[g] = if rr >= 6 { INF } else { below[g] };
            na[g] = above[g];
            let mut cap = INF;
            if g > 0 {
                cap = cap.min(below[g - 1].min(above[g - 1]) + 1);
            }
            if g < 7 {
                cap = cap.min(below[g + 1].min(above[g + 1]) + 1);
            }
            match fixed[g] {
                Some(b) if rr <= b => nb[g] = nb[g].min(cap),
                _ => na[g] = na[g].min(cap),
            }
        }
        below = nb;
        above = na;
    }
    std::array::from_fn(|g| match fixed[g] {
        Some(b) if rel > b => above[g],
        _ => below[g].min(above[g]),
    })
}

/// The cost of a goal from starting file `f0` under [`captures_past`].
fn goal_past(color: Color, f0: u8, goal: Goal, blocked: u64, fixed: [Option<u8>; 8]) -> i32 {
    match goal {
        Goal::On(sq) => {
            let rel = abs_rank(color, sq.rank());
            if rel < 1 {
                return INF;
            }
            captures_past(color, f0, rel, blocked, fixed)[sq.file() as usize]
        }
        Goal::Promotion(shade_wanted) => {
            let costs = captures_past(color, f0, 7, blocked, fixed);
            let rank = abs_rank(color, 7);
            (0..8u8)
                .filter(|&f| {
                    shade_wanted.is_none_or(|s| s == proofs::shade(Square::new(rank * 8 + f)))
                })
                .map(|f| costs[f as usize])
                .min()
                .unwrap_or(INF)
        }
    }
}

/// The blocking-pawn proof for `color`'s pawns, given the enemy's pawns that never left their files.
fn blocked_by(setup: &Setup, color: Color, fixed_enemy: &[Square]) -> Option<Proof> {
    if fixed_enemy.is_empty() {
        return None;
    }
    let (plain, bishops) = proofs::promoted(setup, color)?;
    let (goals, blocked) = proofs::pawn_goals(setup, color, plain, bishops);
    if goals.is_empty() || goals.len() > 8 {
        return None;
    }
    let mut fixed = [None; 8];
    for sq in fixed_enemy {
        let rel = abs_rank(color, sq.rank());
        // Two fixed pawns on one file: the nearer one to our side blocks first; keep the nearest.
        let f = sq.file() as usize;
        fixed[f] = Some(fixed[f].map_or(rel, |r: u8| r.min(rel)));
    }
    let cost: Vec<[i32; 8]> = goals
        .iter()
        .map(|&g| std::array::from_fn(|f0| goal_past(color, f0 as u8, g, blocked, fixed)))
        .collect();
    let (best, files) = assign(&cost);
    let budget = proofs::lost(setup, !color);
    if best <= budget {
        return None;
    }
    let n = name(color);
    let t = name(!color);
    let fixed_list: Vec<String> = fixed_enemy.iter().map(|s| s.to_string()).collect();
    let pawns: Vec<String> = goals
        .iter()
        .filter_map(|g| match g {
            Goal::On(sq) => Some(sq.to_string()),
            Goal::Promotion(_) => None,
        })
        .collect();
    let promoted = goals.len() - pawns.len();
    let what = match promoted {
        0 => format!("{n}'s pawns on {}", pawns.join(", ")),
        k => format!(
            "{n}'s pawns on {} and its {k} promoted {}",
            pawns.join(", "),
            if k == 1 { "piece" } else { "pieces" }
        ),
    };
    let why = format!(
        "{t}'s {} on {} never left {}: {t}'s pawns would otherwise need more captures than the {} units {n} has \
         lost (a pawn changes file only by capturing, FIDE 3.7.3); a {n} pawn cannot pass an enemy pawn on its \
         file (FIDE 3.7.1, 3.7.2), so to stand beyond one, or promote on its file, it entered that file by a \
         capture beyond it",
        if fixed_enemy.len() == 1 { "pawn" } else { "pawns" },
        fixed_list.join(", "),
        if fixed_enemy.len() == 1 { "its file" } else { "their files" },
        proofs::lost(setup, color),
    );
    let sentence = if best >= INF {
        format!("{what} cannot all come from different starting squares: {why}")
    } else {
        let start = abs_rank(color, 1);
        let steps: Vec<String> = files
            .iter()
            .zip(&goals)
            .map(|(&f0, g)| {
                let from = Square::new(start * 8 + f0);
                match g {
                    Goal::On(sq) => format!("{from}-{sq}"),
                    Goal::Promotion(_) => format!("{from} promoting"),
                }
            })
            .collect();
        format!(
            "{what} need at least {best} captures by {n} pawns (cheapest: {}), but {t} has lost only {budget} \
             units: {why}",
            steps.join(", ")
        )
    };
    Some(Proof {
        kind: ProofKind::BlockedPawns,
        sentence,
    })
}

/// The kernel proof (see the module docs): `None` when the pawns of both sides fit.
pub fn kernel(setup: &Setup) -> Option<Proof> {
    let has_pawns = |c: Color| {
        Square::all().any(|sq| {
            setup
                .piece_at(sq)
                .is_some_and(|p| p.color == c && p.role == Role::Pawn)
        })
    };
    if !has_pawns(Color::White) || !has_pawns(Color::Black) {
        return None;
    }
    Color::ALL.iter().find_map(|&c| {
        let fixed = fixed_pawns(setup, !c);
        blocked_by(setup, c, &fixed)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(fen: &str) -> Option<Proof> {
        kernel(&Setup::from_fen(fen).unwrap())
    }

    #[test]
    fn start_and_ordinary_positions_pass() {
        assert!(proof(Setup::STARTPOS_FEN).is_none());
        // 1.e4 e5: the pawns face each other, nothing passed.
        assert!(proof("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2").is_none());
    }

    #[test]
    fn white_pawn_beyond_a_black_pawn_on_its_file() {
        // White's e-pawn on e6 beyond Black's e-pawn on e5; White lost nothing, so Black's pawns never
        // captured; Black lost one unit (the d7 pawn), so one White capture: the e-pawn cannot have gone round.
        let fen = "rnbqkbnr/ppp2ppp/4P3/4p3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
        let p = proof(fen).expect("impossible");
        assert_eq!(p.kind, ProofKind::BlockedPawns);
        assert!(p.sentence.contains("e5"), "{p}");
        // The twin: the White pawn below the Black one.
        let twin = "rnbqkbnr/ppp2ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
        assert!(proof(twin).is_none());
    }

    #[test]
    fn fixed_pawns_need_a_tight_budget() {
        // White lost nothing: every Black pawn off its starting rank is fixed.
        let s = Setup::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2")
            .unwrap();
        assert_eq!(
            fixed_pawns(&s, Color::Black),
            vec![Square::parse("e5").unwrap()]
        );
    }
}
