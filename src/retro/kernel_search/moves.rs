//! The moves of the proof-kernel search: every capture from a state (see [`super`] for why these are all the
//! ways a real capture can show in the abstraction).

use super::state::{promotion_shade, Goal, KernelMove, State};
use crate::types::Color;
use std::collections::HashSet;

/// Captures `c` still has to make: the enemy's units in `s` less those in the target (negative: too few).
pub(super) fn remaining(s: &State, goal: &Goal, c: Color) -> i32 {
    let e = !c;
    i32::from(s.units(e)) - i32::from(goal.units[e.index()])
}

/// The ways to take a piece of `e` from `s`: one of its pieces, or, when it has none in the state, a piece
/// promoted without capture on a file whose far-end pawn is `e`'s (that pawn leaves, its promotion counts).
fn piece_victims(s: &State, goal: &Goal, e: Color) -> Vec<(Option<u8>, State)> {
    if s.pieces[e.index()] > 0 {
        let mut t = *s;
        t.pieces[e.index()] -= 1;
        return vec![(None, t)];
    }
    (0..8u8)
        .filter_map(|h| {
            let col = s.cols[h as usize];
            let i = col.far_end(e).filter(|&i| !goal.fixed(h, i, col.len))?;
            let mut t = *s;
            t.cols[h as usize] = t.cols[h as usize].remove(i);
            t.promos[e.index()][promotion_shade(e, h)] += 1;
            Some((Some(h), t))
        })
        .collect()
}

/// Every child of `s` (each once, with one move that makes it).
pub(super) fn children(s: &State, goal: &Goal) -> Vec<(KernelMove, State)> {
    let mut out = Vec::new();
    for c in Color::ALL {
        if remaining(s, goal, c) <= 0 {
            continue;
        }
        piece_captures(s, goal, c, &mut out);
        pawn_captures(s, goal, c, &mut out);
    }
    let mut seen = HashSet::new();
    out.retain(|(_, k)| seen.insert(*k));
    out
}

fn piece_captures(s: &State, goal: &Goal, c: Color, out: &mut Vec<(KernelMove, State)>) {
    let e = !c;
    for g in 0..8u8 {
        let col = s.cols[g as usize];
        for j in 0..col.len {
            if col.get(j) == e && !goal.fixed(g, j, col.len) {
                let mut t = *s;
                t.cols[g as usize] = col.remove(j);
                out.push((
                    KernelMove::PieceTakesPawn {
                        by: c,
                        file: g,
                        at: j,
                    },
                    t,
                ));
            }
        }
    }
    for (promoted_on, t) in piece_victims(s, goal, e) {
        out.push((KernelMove::PieceTakesPiece { by: c, promoted_on }, t));
    }
}

fn pawn_captures(s: &State, goal: &Goal, c: Color, out: &mut Vec<(KernelMove, State)>) {
    let e = !c;
    let victims = piece_victims(s, goal, e);
    for f in 0..8u8 {
        let col = s.cols[f as usize];
        for i in (0..col.len).filter(|&i| col.get(i) == c && !goal.fixed(f, i, col.len)) {
            for g in [f.wrapping_sub(1), f + 1].into_iter().filter(|&g| g < 8) {
                takes_pawn(s, goal, c, (f, i), g, out);
                let promotes = col.far_end(c) == Some(i);
                for &(promoted_on, v) in &victims {
                    // The victim may have been the enemy's pawn at the bottom of this file (a Black pawn left
                    // to promote), below ours: our pawn's place moves down by one then.
                    let at = if promoted_on == Some(f) && e == Color::Black {
                        i - 1
                    } else {
                        i
                    };
                    let mut t = v;
                    t.cols[f as usize] = t.cols[f as usize].remove(at);
                    let by = c;
                    for k in goal.joins(g, t.cols[g as usize].len) {
                        let mut u = t;
                        u.cols[g as usize] = u.cols[g as usize].insert(k, c);
                        let m = KernelMove::PawnTakesPiece {
                            by,
                            from: f,
                            at: i,
                            to: g,
                            to_at: Some(k),
                            promoted_on,
                        };
                        out.push((m, u));
                    }
                    if promotes {
                        t.pieces[c.index()] += 1;
                        t.promos[c.index()][promotion_shade(c, g)] += 1;
                        let m = KernelMove::PawnTakesPiece {
                            by,
                            from: f,
                            at: i,
                            to: g,
                            to_at: None,
                            promoted_on,
                        };
                        out.push((m, t));
                    }
                }
            }
        }
    }
}

/// A pawn of `c` at place `at.1` of file `at.0` takes each pawn of the enemy on file `g`.
fn takes_pawn(
    s: &State,
    goal: &Goal,
    c: Color,
    at: (u8, u8),
    g: u8,
    out: &mut Vec<(KernelMove, State)>,
) {
    let (f, i) = at;
    let other = s.cols[g as usize];
    for j in (0..other.len).filter(|&j| other.get(j) == !c && !goal.fixed(g, j, other.len)) {
        let mut t = *s;
        t.cols[f as usize] = t.cols[f as usize].remove(i);
        t.cols[g as usize] = other.set(j, c);
        let m = KernelMove::PawnTakesPawn {
            by: c,
            from: f,
            at: i,
            to: g,
            to_at: j,
        };
        out.push((m, t));
    }
}
