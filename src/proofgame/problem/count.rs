//! The count as the problem's phases run it: one worker for the whole tree, or the first ply's moves shared
//! among several, each worker's transposition table kept between runs (the probe's table goes on to the
//! final count, so a stopped run's complete subtrees are not counted again).

use super::bound::Diagram;
use super::memo::NeedMemo;
use super::search::{Budget, Finish, Worker};
use super::Options;
use crate::bitboard::board::{Board, CastlingData};
use std::sync::atomic::Ordering;

/// One worker's transposition table: solutions per (position key, check, plies left).
pub(super) type Table = hashbrown::HashMap<(u64, u64, u32), u64>;
/// The workers' tables, kept from the probe to the final count (one, or one per first move).
pub(super) type Tables = Vec<Table>;

/// What a run of the count returns.
pub(super) struct Counted {
    /// Games counted: exact when `complete`, else a lower bound.
    pub games: u64,
    /// Whether the count is exhaustive.
    pub complete: bool,
    /// Games listed (at most `max(max_solutions, 2)`), in the fast generator's encoding.
    pub found: Vec<Vec<u32>>,
}

/// The problem as the count reads it.
pub(super) struct Count<'a> {
    pub diagram: &'a Diagram,
    pub cd: &'a CastlingData,
    pub finish: Finish,
    /// The initial position.
    pub root: &'a Board,
    /// The number of plies N.
    pub plies: u32,
    pub options: &'a Options,
}

impl Count<'_> {
    /// Count (and list) within `budget` with `options.threads` workers, reading and filling `tables`.
    pub fn run(&self, budget: &Budget, tables: &mut Tables) -> Counted {
        let o = self.options;
        if o.threads <= 1 || self.plies < 3 {
            tables.resize_with(1, Table::new);
            return self.part(None, budget, &mut tables[0]);
        }
        use rayon::prelude::*;
        let firsts = crate::bitboard::movegen::moves::<crate::bitboard::attacks::MagicSliders>(
            self.root, self.cd,
        );
        tables.resize_with(firsts.as_slice().len(), Table::new);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(o.threads)
            .build();
        let parts: Vec<Counted> = match pool {
            Ok(pool) => pool.install(|| {
                firsts
                    .as_slice()
                    .par_iter()
                    .zip(tables.par_iter_mut())
                    .map(|(&m, tt)| self.part(Some(m), budget, tt))
                    .collect()
            }),
            Err(_) => firsts
                .as_slice()
                .iter()
                .zip(tables.iter_mut())
                .map(|(&m, tt)| self.part(Some(m), budget, tt))
                .collect(),
        };
        let mut out = Counted {
            games: 0,
            complete: true,
            found: Vec::new(),
        };
        for part in parts {
            out.games = out.games.saturating_add(part.games);
            out.complete &= part.complete;
            out.found.extend(part.found);
        }
        out.found.truncate(o.max_solutions.max(2));
        out
    }

    /// The count from the root (`first` none) or after the first move `first`, with table `tt`.
    fn part(&self, first: Option<u32>, budget: &Budget, tt: &mut Table) -> Counted {
        let o = self.options;
        let keep = o.max_solutions.max(2);
        let mut w = Worker {
            diagram: self.diagram,
            cd: self.cd,
            finish: self.finish,
            budget,
            tt: std::mem::take(tt),
            local: 0,
            path: Vec::new(),
            found: Vec::new(),
            // Two games at least are kept: a stopped search's one game may give a second by an exchange.
            keep,
            stop_at: if o.stop_at_cook { 2 } else { 0 },
            so_far: 0,
            kids: Vec::new(),
            memo: NeedMemo::default(),
        };
        let (b, rem) = match first {
            Some(m) => {
                w.path.push(m);
                (self.root.make::<true>(self.cd, m), self.plies - 1)
            }
            None => (*self.root, self.plies),
        };
        // Split only from 3 plies on: `rem` is at least 2 here.
        let (n, done) = w.count(&b, rem);
        budget
            .nodes
            .fetch_add(std::mem::take(&mut w.local), Ordering::Relaxed);
        let mut found = std::mem::take(&mut w.found);
        if done && (found.len() as u64) < n.min(keep as u64) {
            // The listing walk re-counts from the table: it must not stop at a cook.
            w.stop_at = 0;
            found.clear();
            w.collect(&b, rem, keep, &mut found);
        }
        *tt = std::mem::take(&mut w.tt);
        Counted {
            games: n,
            complete: done,
            found,
        }
    }
}
