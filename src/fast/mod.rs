//! The fast CPU backend (`--backend cpu`): a bitboard legal move generator with bulk counting, a lock-free
//! shared hash table of subtree counts, rayon parallelism and transposition merging.
//!
//! Independent of the reference generator on purpose: it shares only [`crate::types`] and
//! [`crate::position::Setup`] with it, so a bug cannot hide in shared code.
//!
//! The bitboards, attacks, Zobrist keys, the move generator and the frontier are the crate's bitboard core
//! ([`crate::bitboard`]); this module is the backend on top of it. Modules:
//! - `hash`: the lock-free `HashTable` of subtree counts (false-hit probability in its docs);
//! - `perft`: the walk (compiled variants chosen at run time), the parallel split with merging;
//! - `simd`: the last ply's bulk counts eight positions at a time in vector lanes (AVX2, AVX-512 builds);
//! - `stats`: detail statistics at counting speed (last ply classified in bulk, hashed in `stats_table`).
//!
//! One `--hash` budget: the count table and the statistics table are never held at once (the backend swaps
//! one for the other when a run needs the other kind).
//!
//! PEXT vs magic: both are compiled; on CPUs with BMI2 the PEXT variant is the default (measured faster here,
//! see the README), `PERFTLAB_SLIDERS=magic` selects magics, `portable` the build without POPCNT/BMI2.

mod frontier;
pub(crate) mod hash;
mod perft;
pub(crate) mod simd;
mod stats;
mod stats_table;

pub use crate::bitboard::zobrist::DEFAULT_SEED as DEFAULT_ZOBRIST_SEED;
pub use frontier::Frontier;
pub use perft::{bmi2_available, Flavor};
pub use simd::Simd;

use crate::backend::{Backend, Detail, Stats};
use crate::bitboard::board::Board;
use crate::bitboard::zobrist::{Keys, ZobristKeys};
use crate::bitboard::{attacks, movegen};
use crate::error::{Error, Result};
use crate::types::Move;
use crate::validate::Checked;
use hash::HashTable;
use rayon::prelude::*;
use stats_table::StatsTable;
use std::sync::RwLock;

/// Positions per worker from which a [`Backend::perft_many`] batch walks each position on one thread.
const WIDE_BATCH_PER_THREAD: usize = 8;

/// The hash table in use: counts and statistics share the `--hash` budget, so only one is held.
enum Tables {
    Off,
    Counts(HashTable),
    Stats(StatsTable),
}

/// The fast CPU backend (`--backend cpu`).
pub struct CpuBackend {
    flavor: Flavor,
    hash_mb: usize,
    tables: RwLock<Tables>,
    /// The Zobrist keys the positions are hashed with, and so the tables filled ([`CpuBackend::with_zobrist_seed`]).
    keys: ZobristKeys,
    pool: Option<rayon::ThreadPool>,
    merge: bool,
}

impl CpuBackend {
    /// A backend with a `hash_mb` MiB table (0 = none), `threads` workers (None = rayon's global pool, all
    /// cores unless configured) and transposition merging on or off.
    ///
    /// # Errors
    /// [`Error::Backend`] when the thread pool cannot be built.
    pub fn new(hash_mb: usize, threads: Option<usize>, merge: bool) -> Result<CpuBackend> {
        let pool = match threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| Error::Backend(format!("cpu: cannot start {n} threads: {e}")))?,
            ),
            None => None,
        };
        let table = HashTable::try_new(hash_mb).map_err(|e| {
            Error::Backend(format!(
                "cpu: cannot allocate the {hash_mb} MiB hash table: {e}"
            ))
        })?;
        Ok(CpuBackend {
            flavor: Flavor::from_env()?,
            hash_mb,
            tables: RwLock::new(table.map_or(Tables::Off, Tables::Counts)),
            keys: Keys::default_keys(),
            pool,
            merge,
        })
    }

    /// Force a compiled variant (ignored, falling back to portable, when the CPU lacks BMI2; a vector variant the
    /// CPU lacks falls back to scalar PEXT).
    pub fn with_flavor(mut self, flavor: Flavor) -> CpuBackend {
        self.flavor = match flavor {
            Flavor::Avx2 => Flavor::with_simd(Simd::Avx2),
            Flavor::Avx512 => Flavor::with_simd(Simd::Avx512),
            f if bmi2_available() => f,
            _ => Flavor::Portable,
        };
        self
    }

    /// Hash with the Zobrist keys of `seed` (`--zobrist-seed`; default [`DEFAULT_ZOBRIST_SEED`]) from now on,
    /// so that a second run of the same work hashes independently. The tables are emptied (their entries were
    /// keyed by the keys before).
    pub fn with_zobrist_seed(mut self, seed: u64) -> CpuBackend {
        if seed != self.keys.seed {
            self.keys = Keys::of(seed);
            self.clear_hash();
        }
        self
    }

    /// The seed of the Zobrist keys in use.
    pub fn zobrist_seed(&self) -> u64 {
        self.keys.seed
    }

    /// The variant in use.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// Bytes held by the hash table (0 when off).
    pub fn hash_bytes(&self) -> usize {
        match &*self.tables.read().unwrap_or_else(|e| e.into_inner()) {
            Tables::Off => 0,
            Tables::Counts(t) => t.bytes(),
            Tables::Stats(t) => t.bytes(),
        }
    }

    /// Empty the hash table (benchmarks use this so runs do not feed each other).
    pub fn clear_hash(&self) {
        match &*self.tables.read().unwrap_or_else(|e| e.into_inner()) {
            Tables::Off => {}
            Tables::Counts(t) => t.clear(),
            Tables::Stats(t) => t.clear(),
        }
    }

    /// Run `f` with the table of the kind `stats` asks for (swapping the other kind out first, so that at most
    /// `--hash` MiB are held), or with none when hashing is off.
    fn with_table<R>(&self, stats: bool, f: impl FnOnce(&Tables) -> R) -> R {
        if self.hash_mb == 0 {
            return f(&Tables::Off);
        }
        loop {
            {
                let g = self.tables.read().unwrap_or_else(|e| e.into_inner());
                match (&*g, stats) {
                    (Tables::Counts(_), false) | (Tables::Stats(_), true) => return f(&g),
                    _ => {}
                }
            }
            let mut g = self.tables.write().unwrap_or_else(|e| e.into_inner());
            match (&*g, stats) {
                (Tables::Counts(_), false) | (Tables::Stats(_), true) => {}
                _ => {
                    *g = Tables::Off;
                    *g = if stats {
                        StatsTable::new(self.hash_mb).map_or(Tables::Off, Tables::Stats)
                    } else {
                        HashTable::new(self.hash_mb).map_or(Tables::Off, Tables::Counts)
                    };
                    if matches!(*g, Tables::Off) {
                        return f(&Tables::Off);
                    }
                }
            }
        }
    }

    /// The count table, when hashing is on.
    fn counts<R>(&self, f: impl FnOnce(Option<&HashTable>) -> R) -> R {
        self.with_table(false, |t| match t {
            Tables::Counts(t) => f(Some(t)),
            _ => f(None),
        })
    }

    /// Whether a batch of `n` positions keeps every worker busy with one position each (then each is walked
    /// on one thread, without the split of a parallel walk; a smaller batch splits each position).
    fn batch_is_wide(&self, n: usize) -> bool {
        n >= WIDE_BATCH_PER_THREAD * self.install(rayon::current_num_threads)
    }

    /// Runs `f` in this backend's pool. Called from a worker of another rayon pool (a suite's entries in
    /// parallel on the global pool), the call waits on a plain scoped thread: rayon's own cross-pool wait
    /// keeps the waiting worker busy with the other pool's jobs, each of which calls here again and waits
    /// in turn, nesting one entry's stack in another's until the thread's stack overflows (CI, stop 49).
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p)
                if p.current_thread_index().is_none()
                    && rayon::current_thread_index().is_some() =>
            {
                std::thread::scope(|s| match s.spawn(|| p.install(f)).join() {
                    Ok(r) => r,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
            }
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn perft(&self, pos: &Checked, depth: u32) -> Result<u128> {
        let (b, cd) = Board::with_keys(pos, self.keys.clone());
        Ok(self.counts(|tt| {
            self.install(|| perft::perft_parallel(self.flavor, &b, &cd, depth, tt, self.merge))
        }))
    }

    fn perft_many(&self, positions: &[Checked], depth: u32) -> Result<Vec<u128>> {
        let serial = self.batch_is_wide(positions.len());
        Ok(self.counts(|tt| {
            self.install(|| {
                positions
                    .par_iter()
                    .map(|p| {
                        let (b, cd) = Board::with_keys(p, self.keys.clone());
                        if serial {
                            self.flavor.walk(&b, &cd, depth, tt) as u128
                        } else {
                            perft::perft_parallel(self.flavor, &b, &cd, depth, tt, self.merge)
                        }
                    })
                    .collect()
            })
        }))
    }

    /// The boards as they are (no [`crate::position::Setup`] made): the frontier's boards share the root's
    /// castling data, as the children of a plain count's walk do. Boards hashed with `cd`'s keys (as the
    /// frontier's are, made move by move from a hashed root) keep their hashes when this backend's keys are
    /// of the same seed; else each is rehashed with this backend's keys (`--zobrist-seed`).
    #[cfg(feature = "deep")]
    fn perft_boards(
        &self,
        boards: &[Board],
        cd: &crate::bitboard::board::CastlingData,
        depth: u32,
    ) -> Result<Vec<u128>> {
        let rehash = cd.keys.seed != self.keys.seed;
        let cd = crate::bitboard::board::CastlingData {
            keys: self.keys.clone(),
            ..cd.clone()
        };
        let serial = self.batch_is_wide(boards.len());
        Ok(self.counts(|tt| {
            self.install(|| {
                boards
                    .par_iter()
                    .map(|b| {
                        let mut b = *b;
                        if rehash {
                            [b.key, b.check] = b.compute_key(&cd);
                        }
                        if serial {
                            self.flavor.walk(&b, &cd, depth, tt) as u128
                        } else {
                            perft::perft_parallel(self.flavor, &b, &cd, depth, tt, self.merge)
                        }
                    })
                    .collect()
            })
        }))
    }

    fn stats_many(
        &self,
        positions: &[Checked],
        depth: u32,
        detail: Detail,
    ) -> Result<Vec<(u128, Stats)>> {
        let serial = self.batch_is_wide(positions.len());
        Ok(self.with_table(true, |t| {
            let tt = match t {
                Tables::Stats(t) => Some(t),
                _ => None,
            };
            self.install(|| {
                positions
                    .par_iter()
                    .map(|p| {
                        let (b, cd) = Board::with_keys(p, self.keys.clone());
                        let (n, s) = if serial {
                            let t = stats::walk(self.flavor, &b, &cd, depth, tt);
                            (t.nodes as u128, t.stats())
                        } else {
                            stats::stats_parallel(self.flavor, &b, &cd, depth, tt, self.merge)
                        };
                        (n, s.only(detail))
                    })
                    .collect()
            })
        }))
    }

    fn legal_moves(&self, positions: &[Checked]) -> Result<Vec<Vec<Move>>> {
        // On a vector path each position is also counted in the lanes and checked against the list.
        let simd = self.flavor.simd();
        self.install(|| {
            positions
                .par_iter()
                .with_min_len(64)
                .map(|s| {
                    let (b, cd) = Board::from_setup(s);
                    let list = movegen::moves::<attacks::MagicSliders>(&b, &cd);
                    simd::check_lanes(simd, &b, &cd, list.as_slice().len())?;
                    Ok(list
                        .as_slice()
                        .iter()
                        .map(|&m| movegen::to_move(m))
                        .collect())
                })
                .collect()
        })
    }

    fn divide(&self, pos: &Checked, depth: u32) -> Result<Vec<(Move, u128)>> {
        let (b, cd) = Board::with_keys(pos, self.keys.clone());
        Ok(self.counts(|tt| {
            self.install(|| perft::divide(self.flavor, &b, &cd, depth, tt, self.merge))
        }))
    }

    fn stats(&self, pos: &Checked, depth: u32, detail: Detail) -> Result<(u128, Stats)> {
        let (b, cd) = Board::with_keys(pos, self.keys.clone());
        let (n, s) = self.with_table(true, |t| {
            let tt = match t {
                Tables::Stats(t) => Some(t),
                _ => None,
            };
            self.install(|| stats::stats_parallel(self.flavor, &b, &cd, depth, tt, self.merge))
        });
        Ok((n, s.only(detail)))
    }
}

#[cfg(test)]
mod tests;
