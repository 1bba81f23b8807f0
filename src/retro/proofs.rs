//! Counting arguments on the position alone (no search), for each side:
//!
//! - **material** (FIDE 2.3, 3.7.5.1): at most 16 units and 8 pawns; pieces beyond the initial one queen, two
//!   rooks and two knights are promoted pawns, and each promotion uses one of the pawns now missing;
//! - **bishops by square colour** (FIDE 2.3, 3.2): a side starts with one bishop on each square colour (in
//!   Chess960 too) and a bishop never changes square colour, so a second bishop on one colour is a promoted pawn,
//!   promoted on a square of that colour;
//! - **pawn captures** (FIDE 3.7.1–3.7.3, 3.7.5): a pawn changes file only by capturing, one file per
//!   capture, and advances one rank per move (two on its first), so a pawn now on file f, rank r came from a
//!   starting file within r − 2 files (for White) and made at least |f − f0| captures; a pawn never stands on
//!   a square an enemy pawn that has not moved (still on its starting rank) occupies. The pawns on the board
//!   and the promoted pieces (each a pawn that reached the last rank on its own path) are assigned to distinct
//!   starting files by a minimum-cost matching; the total is a lower bound on the captures by that side's
//!   pawns, and every capture removes one enemy unit, so it cannot exceed the units the enemy has lost.
//!
//! None of these uses the back-rank arrangement, so each holds for every Chess960 start as well.

use super::{Proof, ProofKind};
use crate::position::Setup;
use crate::types::{Color, Role, Square};

/// A side's material.
#[derive(Clone, Copy, Default, Debug)]
struct Material {
    units: i32,
    pawns: i32,
    knights: i32,
    rooks: i32,
    queens: i32,
    /// Bishops on light squares, on dark squares.
    bishops: [i32; 2],
}

/// 1 for a light square (h1 is light, a1 dark), 0 for a dark one.
pub(super) fn shade(sq: Square) -> usize {
    ((sq.file() + sq.rank()) % 2) as usize
}

fn material(setup: &Setup, color: Color) -> Material {
    let mut m = Material::default();
    for sq in Square::all() {
        let Some(p) = setup.piece_at(sq) else {
            continue;
        };
        if p.color != color {
            continue;
        }
        m.units += 1;
        match p.role {
            Role::Pawn => m.pawns += 1,
            Role::Knight => m.knights += 1,
            Role::Bishop => m.bishops[shade(sq)] += 1,
            Role::Rook => m.rooks += 1,
            Role::Queen => m.queens += 1,
            Role::King => {}
        }
    }
    m
}

/// Promoted pieces at least: (queens, rooks, knights beyond the initial set, bishops beyond one per colour
/// [light, dark]).
fn excess(m: &Material) -> (i32, [i32; 2]) {
    let plain = (m.queens - 1).max(0) + (m.rooks - 2).max(0) + (m.knights - 2).max(0);
    (
        plain,
        [(m.bishops[1] - 1).max(0), (m.bishops[0] - 1).max(0)],
    )
}

/// The pieces `color` has beyond the initial set (FIDE 2.3: one queen, two rooks, two knights, one bishop of
/// each square colour), each a promoted pawn (FIDE 3.7.5): the promotions it made at least ([`excess`]).
pub fn promotions_at_least(setup: &Setup, color: Color) -> u32 {
    let (plain, bishops) = excess(&material(setup, color));
    (plain + bishops[0] + bishops[1]) as u32
}

fn plural(n: i32, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

fn describe(m: &Material) -> String {
    [
        plural(m.queens, "queen", "queens"),
        plural(m.rooks, "rook", "rooks"),
        plural(m.knights, "knight", "knights"),
        plural(m.bishops[0] + m.bishops[1], "bishop", "bishops"),
        plural(m.pawns, "pawn", "pawns"),
    ]
    .join(", ")
}

fn name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Every static proof that `setup` is impossible (both sides), in a fixed order: material, bishops, pawn
/// captures (the last only for a side whose material passed).
pub fn static_proofs(setup: &Setup) -> Vec<Proof> {
    let mut out = Vec::new();
    for color in Color::ALL {
        let m = material(setup, color);
        let n = name(color);
        if m.units > 16 {
            out.push(Proof {
                kind: ProofKind::Material,
                sentence: format!(
                    "{n} has {} units, but a side starts with 16 (FIDE 2.3) and a promotion only replaces a pawn \
                     (FIDE 3.7.5.1)",
                    m.units
                ),
            });
            continue;
        }
        if m.pawns > 8 {
            out.push(Proof {
                kind: ProofKind::Material,
                sentence: format!(
                    "{n} has {} pawns, but a side starts with 8 (FIDE 2.3)",
                    m.pawns
                ),
            });
            continue;
        }
        let missing = 8 - m.pawns;
        let (plain, bishops) = excess(&m);
        let plain_with_bishops = plain + (m.bishops[0] + m.bishops[1] - 2).max(0);
        if plain_with_bishops > missing {
            out.push(Proof {
                kind: ProofKind::Material,
                sentence: format!(
                    "{n} has {}: at least {plain_with_bishops} of these pieces are promoted pawns (a side starts \
                     with one queen, two rooks, two knights and two bishops, FIDE 2.3, in Chess960 too), but only \
                     {missing} of {n}'s 8 pawns are missing and each promotion uses one (FIDE 3.7.5.1)",
                    describe(&m)
                ),
            });
            continue;
        }
        if plain + bishops[0] + bishops[1] > missing {
            out.push(Proof {
                kind: ProofKind::BishopColours,
                sentence: format!(
                    "{n} has {} bishops on light squares and {} on dark squares besides {}: a side starts with one \
                     bishop on each square colour (FIDE 2.3, in Chess960 too) and a bishop never leaves its square \
                     colour (FIDE 3.2), so at least {} pieces are promoted pawns, but only {missing} of {n}'s 8 \
                     pawns are missing (FIDE 3.7.5.1)",
                    m.bishops[1],
                    m.bishops[0],
                    describe(&Material {
                        bishops: [0, 0],
                        ..m
                    })
                    .replace(", 0 bishops", ""),
                    plain + bishops[0] + bishops[1]
                ),
            });
            continue;
        }
        if let Some(p) = pawn_captures(setup, color, plain, bishops) {
            out.push(p);
        }
    }
    out
}

pub(super) const INF: i32 = 1 << 20;

/// What a pawn of the matching must reach: a square on the board, or the last rank (a promoted piece), on a
/// square of any colour or of one colour (a promoted bishop: 1 light, 0 dark).
#[derive(Clone, Copy, Debug)]
pub(super) enum Goal {
    On(Square),
    Promotion(Option<usize>),
}

/// Board rank of a rank counted from `color`'s side (0 = its back rank).
pub(super) fn abs_rank(color: Color, rel: u8) -> u8 {
    match color {
        Color::White => rel,
        Color::Black => 7 - rel,
    }
}

/// Fewest captures for a pawn of `color` from file `f0` (its starting square on its second rank) to each file
/// of the relative rank `rel`, never entering a `blocked` square: one rank per move, a file change only by a
/// capture (FIDE 3.7.1–3.7.3).
pub(super) fn captures_to_rank(color: Color, f0: u8, rel: u8, blocked: u64) -> [i32; 8] {
    let mut reach = [INF; 8];
    reach[f0 as usize] = 0;
    for rr in 2..=rel {
        let mut next = [INF; 8];
        for f in 0..8usize {
            let sq = Square::from_coords(f as i32, abs_rank(color, rr) as i32).expect("on board");
            if blocked >> sq.index() & 1 != 0 {
                continue;
            }
            let mut best = reach[f];
            if f > 0 {
                best = best.min(reach[f - 1] + 1);
            }
            if f < 7 {
                best = best.min(reach[f + 1] + 1);
            }
            next[f] = best.min(INF);
        }
        reach = next;
    }
    reach
}

/// The cost of `goal` from starting file `f0`, and the square reached.
pub(super) fn goal_cost(color: Color, f0: u8, goal: Goal, blocked: u64) -> (i32, Square) {
    match goal {
        Goal::On(sq) => {
            let rel = abs_rank(color, sq.rank());
            if rel < 1 {
                return (INF, sq);
            }
            if rel <= 5 {
                // No blocked square below the enemy's pawn rank: the closed form of `captures_to_rank`.
                let df = (sq.file() as i32 - f0 as i32).abs();
                return (if df < rel as i32 { df } else { INF }, sq);
            }
            (
                captures_to_rank(color, f0, rel, blocked)[sq.file() as usize],
                sq,
            )
        }
        Goal::Promotion(shade_wanted) => {
            let costs = captures_to_rank(color, f0, 7, blocked);
            let rank = abs_rank(color, 7);
            let mut best = (INF, Square::new(rank * 8));
            for f in 0..8u8 {
                let sq = Square::new(rank * 8 + f);
                if shade_wanted.is_some_and(|s| s != shade(sq)) {
                    continue;
                }
                if costs[f as usize] < best.0 {
                    best = (costs[f as usize], sq);
                }
            }
            best
        }
    }
}

/// The goals of `color`'s pawn matching: its pawns on the board, then its promoted pieces (`plain` of any
/// kind, `bishops` promoted bishops [light, dark]); and the squares of the enemy's unmoved pawns.
pub(super) fn pawn_goals(
    setup: &Setup,
    color: Color,
    plain: i32,
    bishops: [i32; 2],
) -> (Vec<Goal>, u64) {
    let them = !color;
    // Enemy pawns still on their starting rank have never moved: no pawn of ours ever stood there.
    let their_start = abs_rank(them, 1);
    let mut blocked = 0u64;
    let mut goals = Vec::new();
    for sq in Square::all() {
        if let Some(p) = setup.piece_at(sq) {
            if p.role == Role::Pawn && p.color == them && sq.rank() == their_start {
                blocked |= 1 << sq.index();
            }
            if p.role == Role::Pawn && p.color == color {
                goals.push(Goal::On(sq));
            }
        }
    }
    goals.extend((0..plain).map(|_| Goal::Promotion(None)));
    goals.extend((0..bishops[0]).map(|_| Goal::Promotion(Some(1))));
    goals.extend((0..bishops[1]).map(|_| Goal::Promotion(Some(0))));
    (goals, blocked)
}

/// The promoted pieces `color` has at least: (of any kind, bishops [light, dark]); `None` when its material
/// is already impossible.
pub(super) fn promoted(setup: &Setup, color: Color) -> Option<(i32, [i32; 2])> {
    let m = material(setup, color);
    let (plain, bishops) = excess(&m);
    if m.units > 16 || m.pawns > 8 || plain + bishops[0] + bishops[1] > 8 - m.pawns {
        return None;
    }
    Some((plain, bishops))
}

/// Units `color` has lost (16 less those on the board).
pub(super) fn lost(setup: &Setup, color: Color) -> i32 {
    16 - material(setup, color).units
}

/// The minimum-cost assignment of goals (rows, at most 8) to distinct starting files: (total, file of each
/// goal); total `INF` when none exists. Exact, by dynamic programming over the 2^8 sets of files.
pub(super) fn assign(cost: &[[i32; 8]]) -> (i32, Vec<u8>) {
    let n = cost.len();
    let mut dp = [INF; 256];
    let mut parent = [0u8; 256];
    dp[0] = 0;
    for mask in 0..256usize {
        let i = mask.count_ones() as usize;
        if i >= n || dp[mask] >= INF {
            continue;
        }
        for (f0, &c) in cost[i].iter().enumerate() {
            if mask >> f0 & 1 != 0 || c >= INF {
                continue;
            }
            let next = mask | 1 << f0;
            if dp[mask] + c < dp[next] {
                dp[next] = dp[mask] + c;
                parent[next] = f0 as u8;
            }
        }
    }
    let (best_mask, best) = (0..256usize)
        .filter(|m| m.count_ones() as usize == n)
        .map(|m| (m, dp[m]))
        .min_by_key(|&(_, c)| c)
        .expect("some mask has n bits");
    let mut files = vec![0u8; n];
    if best < INF {
        let mut mask = best_mask;
        for i in (0..n).rev() {
            let f0 = parent[mask];
            files[i] = f0;
            mask &= !(1 << f0);
        }
    }
    (best, files)
}

/// The pawn-capture budget of `color` (see the module docs).
fn pawn_captures(setup: &Setup, color: Color, plain: i32, bishops: [i32; 2]) -> Option<Proof> {
    let them = !color;
    let (goals, blocked) = pawn_goals(setup, color, plain, bishops);
    let n = goals.len();
    if n == 0 || n > 8 {
        return None;
    }
    let cost: Vec<[(i32, Square); 8]> = goals
        .iter()
        .map(|&g| std::array::from_fn(|f0| goal_cost(color, f0 as u8, g, blocked)))
        .collect();
    let plain_cost: Vec<[i32; 8]> = cost.iter().map(|row| row.map(|(c, _)| c)).collect();
    let (best, files) = assign(&plain_cost);
    let available = 16 - material(setup, them).units;
    let n_ = name(color);
    let t_ = name(them);
    let pawn_squares: Vec<String> = goals
        .iter()
        .filter_map(|g| match g {
            Goal::On(sq) => Some(sq.to_string()),
            Goal::Promotion(_) => None,
        })
        .collect();
    let promoted = n - pawn_squares.len();
    let what = if promoted > 0 {
        format!(
            "{n_}'s pawns on {} and its {promoted} promoted {}",
            pawn_squares.join(", "),
            if promoted == 1 { "piece" } else { "pieces" }
        )
    } else {
        format!("{n_}'s pawns on {}", pawn_squares.join(", "))
    };
    if best >= INF {
        return Some(Proof {
            kind: ProofKind::PawnCaptures,
            sentence: format!(
                "{what} cannot all come from different starting squares: a pawn advances one rank a move (two on \
                 its first) and changes file only by capturing, one file per capture (FIDE 3.7.1-3.7.3), and never \
                 enters a square where an unmoved {t_} pawn still stands"
            ),
        });
    }
    if best <= available {
        return None;
    }
    let start_rank = abs_rank(color, 1);
    let steps: Vec<String> = (0..n)
        .map(|i| {
            let (c, sq) = cost[i][files[i] as usize];
            let from = Square::new(start_rank * 8 + files[i]);
            let tag = match goals[i] {
                Goal::On(_) => "",
                Goal::Promotion(None) => " promoting",
                Goal::Promotion(Some(1)) => " promoting to the light-squared bishop",
                Goal::Promotion(Some(_)) => " promoting to the dark-squared bishop",
            };
            format!("{from}-{sq}{tag} ({c})")
        })
        .collect();
    Some(Proof {
        kind: ProofKind::PawnCaptures,
        sentence: format!(
            "{what} need at least {} by {n_} pawns: a pawn changes file only by capturing, one file per capture \
             (FIDE 3.7.3), and the cheapest assignment to starting files is {}; but every capture removes one {t_} \
             unit and {t_} has lost only {available} (16 - {} on the board)",
            plural(best, "capture", "captures"),
            steps.join(", "),
            16 - available
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proofs(fen: &str) -> Vec<Proof> {
        static_proofs(&Setup::from_fen(fen).unwrap())
    }

    #[test]
    fn start_and_simple_captures_pass() {
        assert!(proofs(Setup::STARTPOS_FEN).is_empty());
        // 1.e4 d5 2.exd5: one White capture, Black lost one unit.
        assert!(proofs("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2").is_empty());
    }

    #[test]
    fn doubled_pawns_without_captures() {
        let p = proofs("rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBN1 w Qkq - 0 1");
        assert!(p.is_empty(), "{p:?}");
        let p = proofs("rnbqkbnr/pppppppp/8/8/3P4/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].kind, ProofKind::PawnCaptures);
        // The twin: Black has lost a unit, one capture explains the doubled pawns.
        assert!(proofs("rnbqkbnr/ppppppp1/8/8/3P4/3P4/PPP2PPP/RNBQKBNR w KQkq - 0 1").is_empty());
    }

    #[test]
    fn bishops_by_colour() {
        // Two light-squared bishops beside eight pawns.
        let p = proofs("rnbqkbnr/pppppppp/8/8/8/3B4/PPPPPPPP/RN1QKBNR w KQkq - 0 1");
        assert_eq!(p[0].kind, ProofKind::BishopColours, "{p:?}");
        // Beside seven pawns: one promotion is possible (but needs a capture).
        let p = proofs("rnbqkbnr/ppppppp1/8/8/8/3B4/PPPPPPP1/RN1QKBNR w KQkq - 0 1");
        assert!(p.is_empty(), "{p:?}");
    }
}
