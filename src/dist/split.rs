//! The split frontier: the distinct positions `S` plies below the root, each with its multiplicity (how many
//! move paths reach it) and its multiplicity per root move, so that totals, statistics and divides can all be
//! summed back as multiplicity × result.
//!
//! Two positions are the same when pieces, side to move, castling rights (as rook squares) and a *usable*
//! en-passant square agree (FIDE 3.7.d: the square counts only when a legal en-passant capture exists); the
//! move clocks do not change perft and are reset to `0 1`.

use crate::backend::Backend;
use crate::error::Result;
use crate::position::Setup;
use crate::reference;
use crate::types::{Move, MoveKind};
use crate::validate::Checked;
use hashbrown::HashMap;

/// One position of the frontier.
#[derive(Clone, Debug)]
pub struct Piece {
    /// The position (clocks reset, unusable e.p. square dropped).
    pub setup: Setup,
    /// Number of move paths from the root that reach it.
    pub mult: u128,
    /// Multiplicity per root move (index into [`Frontier::root_moves`]), sorted by index.
    pub by_move: Vec<(u16, u128)>,
}

/// The distinct positions at a ply, in a fixed order (sorted by FEN), with the root moves in UCI.
#[derive(Clone, Debug)]
pub struct Frontier {
    /// Root moves in UCI notation (Chess960 notation where the position needs it), sorted.
    pub root_moves: Vec<String>,
    /// The positions, sorted by FEN.
    pub pieces: Vec<Piece>,
}

impl Frontier {
    /// Sum of multiplicities: the number of move paths of length `plies`, i.e. perft(plies).
    pub fn paths(&self) -> u128 {
        self.pieces.iter().map(|p| p.mult).sum()
    }
}

fn add_into(acc: &mut Vec<(u16, u128)>, other: &[(u16, u128)]) {
    for &(i, m) in other {
        match acc.binary_search_by_key(&i, |&(j, _)| j) {
            Ok(k) => acc[k].1 += m,
            Err(k) => acc.insert(k, (i, m)),
        }
    }
}

fn normalized(mut s: Setup) -> Setup {
    s.halfmoves = 0;
    s.fullmoves = 1;
    s
}

/// Merge a level of positions (identical ones combined), each carrying a payload (the first one's is kept:
/// identical positions have identical moves).
fn merge<T>(level: Vec<(Piece, T)>) -> Vec<(Piece, T)> {
    let mut map: HashMap<Setup, usize> = HashMap::with_capacity(level.len());
    let mut out: Vec<(Piece, T)> = Vec::with_capacity(level.len());
    for (p, t) in level {
        match map.get(&p.setup) {
            Some(&k) => {
                out[k].0.mult += p.mult;
                add_into(&mut out[k].0.by_move, &p.by_move);
            }
            None => {
                map.insert(p.setup.clone(), out.len());
                out.push((p, t));
            }
        }
    }
    out
}

/// Drop e.p. squares where no legal en-passant capture exists (given each position's legal moves, `None` when
/// not computed because the position has no e.p. square), and merge the positions that become identical.
fn drop_unusable_ep<T: AsRef<[Move]>>(level: Vec<(Piece, Option<T>)>) -> Vec<(Piece, Option<T>)> {
    let mut changed = false;
    let level: Vec<(Piece, Option<T>)> = level
        .into_iter()
        .map(|(mut p, ms)| {
            if let Some(ms) = &ms {
                if p.setup.ep_square.is_some()
                    && !ms.as_ref().iter().any(|m| m.kind() == MoveKind::EnPassant)
                {
                    p.setup.ep_square = None;
                    changed = true;
                }
            }
            (p, ms)
        })
        .collect();
    if changed {
        merge(level)
    } else {
        level
    }
}

/// The positions as [`Checked`] (each child of a legal move from a valid position is valid; checked anyway).
fn checked(setups: &[Setup]) -> Result<Vec<Checked>> {
    use rayon::prelude::*;
    setups.par_iter().map(|s| Checked::new(s.clone())).collect()
}

fn setups(level: &[Piece]) -> Vec<Setup> {
    level.iter().map(|p| p.setup.clone()).collect()
}

/// The distinct positions `plies` plies below `root` (which must be a valid position), generated with
/// `engine`'s legal moves. `chess960`: root moves in king-takes-rook notation.
///
/// Memory grows with the number of positions at that ply (start position: 5,362 at ply 3, 72,078 at ply 4,
/// 822,518 at ply 5, 9,417,681 at ply 6), about 200 bytes each.
///
/// # Errors
/// A backend failure.
pub fn frontier(
    engine: &dyn Backend,
    root: &Checked,
    plies: u32,
    chess960: bool,
) -> Result<Frontier> {
    let root = normalized(root.setup().clone());
    let root_legal = engine.legal_moves(&checked(std::slice::from_ref(&root))?)?;
    let mut root_moves: Vec<(String, Move)> = root_legal[0]
        .iter()
        .map(|&m| (m.to_uci(chess960), m))
        .collect();
    root_moves.sort();
    let mut level = vec![Piece {
        setup: root.clone(),
        mult: 1,
        by_move: Vec::new(),
    }];
    for ply in 0..plies {
        let moves: Vec<Vec<Move>> = if ply == 0 {
            vec![root_moves.iter().map(|(_, m)| *m).collect()]
        } else {
            engine.legal_moves(&checked(&setups(&level))?)?
        };
        // Now that these positions' moves are known, unusable e.p. squares can be dropped (this only merges
        // more positions).
        let with_moves =
            drop_unusable_ep(level.into_iter().zip(moves.into_iter().map(Some)).collect());
        level = merge(
            expand(&with_moves, ply == 0)
                .into_iter()
                .map(|p| (p, ()))
                .collect(),
        )
        .into_iter()
        .map(|(p, ())| p)
        .collect();
    }
    // The last level: drop unusable e.p. squares (only positions with one need their moves).
    let with_ep: Vec<Setup> = level
        .iter()
        .filter(|p| p.setup.ep_square.is_some())
        .map(|p| p.setup.clone())
        .collect();
    let mut ep_moves = engine.legal_moves(&checked(&with_ep)?)?.into_iter();
    let tagged: Vec<(Piece, Option<Vec<Move>>)> = level
        .into_iter()
        .map(|p| {
            let ms = if p.setup.ep_square.is_some() {
                ep_moves.next()
            } else {
                None
            };
            (p, ms)
        })
        .collect();
    let level = drop_unusable_ep(tagged);
    let mut keyed: Vec<(String, Piece)> = level
        .into_iter()
        .map(|(p, _)| (p.setup.to_fen(), p))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Frontier {
        root_moves: root_moves.into_iter().map(|(u, _)| u).collect(),
        pieces: keyed.into_iter().map(|(_, p)| p).collect(),
    })
}

/// The children of each position; at the root each child starts its own root-move entry.
fn expand(level: &[(Piece, Option<Vec<Move>>)], at_root: bool) -> Vec<Piece> {
    use rayon::prelude::*;
    level
        .par_iter()
        .flat_map_iter(|(p, ms)| {
            ms.iter().flatten().enumerate().map(move |(k, &m)| Piece {
                setup: normalized(reference::play(&p.setup, m)),
                mult: p.mult,
                by_move: if at_root {
                    vec![(k as u16, 1)]
                } else {
                    p.by_move.clone()
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::ReferenceBackend;

    #[test]
    fn start_position_distinct_counts_match_the_published_ones() {
        // Distinct positions of the start position by ply: 20, 400, 5,362 (OEIS A083276).
        for (plies, distinct, paths) in [(1, 20, 20), (2, 400, 400), (3, 5362, 8902)] {
            let f = frontier(&ReferenceBackend, &Checked::startpos(), plies, false).unwrap();
            assert_eq!(f.pieces.len(), distinct, "ply {plies}");
            assert_eq!(f.paths(), paths, "ply {plies}");
            let by_move: u128 = f
                .pieces
                .iter()
                .flat_map(|p| p.by_move.iter().map(|x| x.1))
                .sum();
            assert_eq!(by_move, paths);
        }
    }
}
