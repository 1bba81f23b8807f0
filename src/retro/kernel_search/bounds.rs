//! The goal test and the pruning of the proof-kernel search: lower bounds on the captures a state still needs,
//! each a fact about every path from it (so a state they reject has no path to the goal).

use super::moves::remaining;
use super::state::{promotion_shade, Goal, State};
use crate::types::Color;
use std::fmt;

const INF: u32 = 1 << 20;

/// Why a state has no path to the goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Why {
    /// `c`'s pawns (by file) need at least `need` captures by `c`'s pawns to reach the target's files, but `c`
    /// has `have` captures left.
    Files { c: Color, need: u32, have: i32 },
    /// `c` needs `need` more promotions but has only `have` pawns beyond the target's.
    Promotions { c: Color, need: u32, have: i32 },
    /// `n` files differ from the target's (beyond promotions of their foremost pawns); each capture changes
    /// at most two neighbouring files, so at least `need` captures are left to make, but only `have` are.
    Columns { n: u32, need: u32, have: i32 },
}

fn name(c: Color) -> &'static str {
    if c == Color::White {
        "White"
    } else {
        "Black"
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::Files { c, need, have } => write!(
                f,
                "{n}'s pawns, counted by file, need at least {need} captures by {n} pawns to go from the initial \
                 files (one a file) to the position's (a pawn changes file only by capturing, one file per \
                 capture, FIDE 3.7.3), but {n} makes only {have} captures (the units {o} has lost)",
                n = name(c),
                o = name(!c),
            ),
            Why::Promotions { c, need, have } => write!(
                f,
                "{n}'s pieces beyond the initial set need {need} promotions (FIDE 3.7.5), but only {have} of its \
                 pawns are missing",
                n = name(c)
            ),
            Why::Columns { n, need, have } => write!(
                f,
                "{n} files hold pawns in another order than the initial ones could reach without captures; a \
                 capture changes at most two neighbouring files, so at least {need} captures are needed, but only \
                 {have} units are missing",
            ),
        }
    }
}

/// Fewest captures by `c`'s pawns that move pawns from the files of `s` to those of the target (pawns may
/// leave the board anywhere: captured or promoted): a transport on the line of files, `INF` if impossible.
fn file_flow(s: &State, goal: &Goal, c: Color) -> u32 {
    // dp[k + 8]: cost with k pawns carried from this file to the next (negative: from the next to this one).
    let mut dp = [INF; 17];
    dp[8] = 0;
    for f in 0..8 {
        let have = i32::from(s.cols[f].count(c));
        let want = i32::from(goal.cols[f].count(c));
        // Carry out `out` when carry in `k`: out <= have + k - want (the rest leave the board here).
        let mut best_from = [INF; 18]; // best_from[x]: min dp[k] over k >= x - 8
        for x in (0..17).rev() {
            best_from[x] = best_from[x + 1].min(dp[x]);
        }
        let mut next = [INF; 17];
        for (o, slot) in next.iter_mut().enumerate() {
            let out = o as i32 - 8;
            // need k >= out - have + want
            let kmin = (out - have + want).max(-8);
            if kmin > 8 {
                continue;
            }
            let b = best_from[(kmin + 8) as usize];
            if b < INF {
                *slot = b + out.unsigned_abs();
            }
        }
        dp = next;
    }
    dp[8]
}

/// Promotions `c` still needs beyond those made: in all, and of bishops on each square colour.
fn promotions_needed(s: &State, goal: &Goal, c: Color) -> u32 {
    let ex = goal.excess[c.index()];
    let p = s.promos[c.index()];
    let total = u32::from(ex.total).saturating_sub(u32::from(p[0] + p[1]));
    let dark = u32::from(ex.bishops[0]).saturating_sub(u32::from(p[0]));
    let light = u32::from(ex.bishops[1]).saturating_sub(u32::from(p[1]));
    total.max(dark).max(light)
}

/// Files whose pawns are not the target's after promotions of their foremost pawns, and the fewest captures
/// that can change them all (each capture changes one file or two neighbouring ones).
fn columns(s: &State, goal: &Goal) -> (u32, u32) {
    let mut n = 0;
    let mut need = 0;
    let mut f = 0;
    while f < 8 {
        if s.cols[f].reduces_to(goal.cols[f]).is_none() {
            n += 1;
            need += 1;
            if f + 1 < 8 && s.cols[f + 1].reduces_to(goal.cols[f + 1]).is_none() {
                n += 1;
                f += 1;
            }
        }
        f += 1;
    }
    (n, need)
}

/// The first reason `s` has no path to the goal, if one of the bounds shows it.
pub(super) fn hopeless(s: &State, goal: &Goal) -> Option<Why> {
    let rem = [Color::White, Color::Black].map(|c| remaining(s, goal, c));
    for c in Color::ALL {
        let have = rem[c.index()];
        let spare = i32::from(s.pawns(c)) - i32::from(goal.pawns(c));
        let need = promotions_needed(s, goal, c);
        if spare < 0 || need as i32 > spare {
            return Some(Why::Promotions {
                c,
                need,
                have: spare,
            });
        }
        let need = file_flow(s, goal, c);
        if need as i32 > have {
            return Some(Why::Files { c, need, have });
        }
    }
    let (n, need) = columns(s, goal);
    let have = rem[0] + rem[1];
    (need as i32 > have).then_some(Why::Columns { n, need, have })
}

/// An estimate of the captures still to make well (the move ordering: lower first).
pub(super) fn estimate(s: &State, goal: &Goal) -> u32 {
    file_flow(s, goal, Color::White) + file_flow(s, goal, Color::Black) + columns(s, goal).1
}

/// Whether `s` is the goal: no captures left, every file the target's after promotions of its foremost
/// pawns, and the promotions (those made and those of the foremost pawns) cover the pieces beyond the initial
/// set.
pub(super) fn is_goal(s: &State, goal: &Goal) -> bool {
    if remaining(s, goal, Color::White) != 0 || remaining(s, goal, Color::Black) != 0 {
        return false;
    }
    let mut promos = s.promos;
    let mut pieces = s.pieces;
    for f in 0..8u8 {
        let Some((black, white)) = s.cols[f as usize].reduces_to(goal.cols[f as usize]) else {
            return false;
        };
        promos[0][promotion_shade(Color::White, f)] += white;
        promos[1][promotion_shade(Color::Black, f)] += black;
        pieces[0] += white;
        pieces[1] += black;
    }
    if pieces != goal.pieces {
        return false; // cannot happen when the units and the pawns agree; checked all the same
    }
    Color::ALL.iter().all(|&c| {
        let t = State { promos, ..*s };
        promotions_needed(&t, goal, c) == 0
    })
}
