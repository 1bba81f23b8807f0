//! The split frontier: the distinct positions `S` plies below the root, each with its multiplicity (how many
//! move paths reach it) and its multiplicity per root move, so that totals, statistics and divides can all be
//! summed back as multiplicity × result.
//!
//! Two positions are the same when pieces, side to move, castling rights (as rook squares) and a *usable*
//! en-passant square agree (FIDE 3.7.d: the square counts only when a legal en-passant capture exists); the
//! move clocks do not change perft and are reset to `0 1`.

use crate::backend::Backend;
use crate::error::Error;
use crate::error::Result;
use crate::position::Setup;
use crate::reference;
use crate::types::{Move, MoveKind};
use crate::validate::Checked;
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;

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

/// Identical positions combined as they are added, each carrying a payload (the first one's is kept:
/// identical positions have identical moves). The table holds indices into `out`, not copies of the
/// positions.
struct Merger<T> {
    table: HashTable<usize>,
    hasher: DefaultHashBuilder,
    out: Vec<(Piece, T)>,
    /// Heap bytes of the kept positions' per-root-move lists.
    heap: usize,
}

impl<T> Merger<T> {
    fn new() -> Merger<T> {
        Merger {
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
            out: Vec::new(),
            heap: 0,
        }
    }

    fn add(&mut self, p: Piece, t: T) {
        let Merger {
            table,
            hasher,
            out,
            heap,
        } = self;
        let h = hasher.hash_one(&p.setup);
        match table.find(h, |&k| out[k].0.setup == p.setup) {
            Some(&k) => {
                let kept = &mut out[k].0;
                kept.mult += p.mult;
                let before = kept.by_move.capacity();
                add_into(&mut kept.by_move, &p.by_move);
                *heap += (kept.by_move.capacity() - before) * std::mem::size_of::<(u16, u128)>();
            }
            None => {
                *heap += p.by_move.capacity() * std::mem::size_of::<(u16, u128)>() + 16;
                table.insert_unique(h, out.len(), |&k| hasher.hash_one(&out[k].0.setup));
                out.push((p, t));
            }
        }
    }

    /// Bytes held, about: the positions, their lists, the table.
    fn bytes(&self) -> usize {
        self.out.capacity() * std::mem::size_of::<(Piece, T)>()
            + self.heap
            + self.table.capacity() * (std::mem::size_of::<usize>() + 1)
    }
}

/// Merge a level of positions (identical ones combined), each carrying a payload.
fn merge<T>(level: Vec<(Piece, T)>) -> Vec<(Piece, T)> {
    let mut m = Merger::new();
    for (p, t) in level {
        m.add(p, t);
    }
    m.out
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

/// Parents expanded at a time: their children (about 35 each) are merged before the next chunk is made.
const CHUNK: usize = 4096;

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
/// Memory grows with the number of distinct positions at that ply (start position: 5,362 at ply 3, 72,078
/// at ply 4, 822,518 at ply 5, 9,417,681 at ply 6) and with the number of root moves whose lines reach each
/// one; the children of a level are made and merged a chunk of parents at a time. A frontier that would
/// take more than three quarters of the memory available is refused, naming the memory it took so far.
///
/// # Errors
/// A backend failure; [`Error::Usage`] naming `--split-depth` for a frontier that does not fit.
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
    // Memory: the positions of one level and their merge table (about `bytes_per_position` each, measured as
    // it grows), while the next level is made a chunk of parents at a time, so the children of a level are
    // never all held at once. A level that would not fit in the memory available is refused.
    let budget = crate::limits::available_memory().map(|b| b / 4 * 3);
    for ply in 0..plies {
        let mut next: Merger<()> = Merger::new();
        for chunk in level.chunks(CHUNK) {
            let moves: Vec<Vec<Move>> = if ply == 0 {
                vec![root_moves.iter().map(|(_, m)| *m).collect()]
            } else {
                engine.legal_moves(&checked(&setups(chunk))?)?
            };
            // Now that these positions' moves are known, unusable e.p. squares can be dropped (this only
            // merges more positions).
            let with_moves = drop_unusable_ep(
                chunk
                    .iter()
                    .cloned()
                    .zip(moves.into_iter().map(Some))
                    .collect(),
            );
            for p in expand(&with_moves, ply == 0) {
                next.add(p, ());
            }
            if let Some(budget) = budget {
                let bytes = next.bytes() as u64;
                if bytes > budget {
                    let each = bytes / next.out.len().max(1) as u64;
                    return Err(Error::Usage(format!(
                        "--split-depth: the split frontier at ply {} does not fit in memory: {} distinct \
                         positions already take {} MiB (about {each} bytes each), more than the {} MiB \
                         perftlab may use of the memory available; use a smaller --split-depth",
                        ply + 1,
                        next.out.len(),
                        bytes >> 20,
                        budget >> 20
                    )));
                }
            }
        }
        level = next.out.into_iter().map(|(p, ())| p).collect();
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
