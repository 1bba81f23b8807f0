//! The fast CPU backend (`--backend cpu`): a bitboard legal move generator with bulk counting, a lock-free
//! shared hash table of subtree counts, rayon parallelism and transposition merging.
//!
//! Independent of the reference generator on purpose: it shares only [`crate::types`] and
//! [`crate::position::Setup`] with it, so a bug cannot hide in shared code.
//!
//! Modules:
//! - `attacks`: leaper tables, `between`/`line`, slider attacks by magic bitboards and by PEXT (`const` built);
//! - `magics`: the magic multipliers;
//! - `zobrist`: the keys; `board`: `Board` and copy-make with incremental keys;
//! - `movegen`: legal generation from check and pin masks into a counting sink or a move consumer;
//! - `hash`: the lock-free `HashTable` of subtree counts (false-hit probability in its docs);
//! - `perft`: the walk (compiled variants chosen at run time), the parallel split with merging, stats;
//! - `simd`: the last ply's bulk counts eight positions at a time in vector lanes (AVX2, AVX-512 builds).
//!
//! PEXT vs magic: both are compiled; on CPUs with BMI2 the PEXT variant is the default (measured faster here,
//! see the README), `PERFTLAB_SLIDERS=magic` selects magics, `portable` the build without POPCNT/BMI2.

pub(crate) mod attacks;
pub(crate) mod board;
pub(crate) mod hash;
mod magics;
mod movegen;
mod perft;
pub(crate) mod simd;
mod zobrist;

pub use perft::{bmi2_available, Flavor};
pub use simd::Simd;

use crate::backend::{Backend, Stats};
use crate::error::{Error, Result};
use crate::types::Move;
use crate::validate::Checked;
use board::Board;
use hash::HashTable;
use rayon::prelude::*;

/// The fast CPU backend (`--backend cpu`).
pub struct CpuBackend {
    flavor: Flavor,
    table: Option<HashTable>,
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
            table,
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

    /// The variant in use.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// Bytes held by the hash table (0 when off).
    pub fn hash_bytes(&self) -> usize {
        self.table.as_ref().map_or(0, HashTable::bytes)
    }

    /// Empty the hash table (benchmarks use this so runs do not feed each other).
    pub fn clear_hash(&self) {
        if let Some(t) = &self.table {
            t.clear();
        }
    }

    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
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
        let (b, cd) = Board::from_setup(pos);
        Ok(self.install(|| {
            perft::perft_parallel(self.flavor, &b, &cd, depth, self.table.as_ref(), self.merge)
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
        let (b, cd) = Board::from_setup(pos);
        Ok(self.install(|| {
            perft::divide(self.flavor, &b, &cd, depth, self.table.as_ref(), self.merge)
        }))
    }

    fn stats(&self, pos: &Checked, depth: u32) -> Result<(u128, Stats)> {
        let (b, cd) = Board::from_setup(pos);
        Ok(self.install(|| perft::stats(self.flavor, &b, &cd, depth)))
    }
}

#[cfg(test)]
mod tests;
