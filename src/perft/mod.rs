//! Perft: counting the leaves of the legal move tree, with divide and CPW detail statistics, behind one
//! [`Backend`] trait that every generator (reference, fast CPU, GPU) implements.

mod stats;

pub use stats::{CheckKind, Column, Detail, Stats, BASE_COLUMNS, COLUMNS};

use crate::error::{Error, Result};
use crate::position::{validate, Setup};
use crate::reference;
use crate::types::Move;
use rayon::prelude::*;

/// A perft engine. Only [`Backend::perft`] and [`Backend::legal_moves`] are required; the rest have generic
/// defaults built on them and on the reference generator's `play`.
pub trait Backend: Sync {
    /// Name used in output (`reference`, `cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// Leaf count of the legal move tree of depth `depth` (perft(0) = 1).
    ///
    /// # Errors
    /// A backend failure ([`Error::Backend`]).
    fn perft(&self, setup: &Setup, depth: u32) -> Result<u128>;

    /// The legal moves of each position, in any order (used by the per-node cross-check).
    ///
    /// # Errors
    /// A backend failure.
    fn legal_moves(&self, setups: &[Setup]) -> Result<Vec<Vec<Move>>>;

    /// Per root move counts of depth `depth - 1` subtrees. `depth` must be at least 1.
    ///
    /// # Errors
    /// A backend failure.
    fn divide(&self, setup: &Setup, depth: u32) -> Result<Vec<(Move, u128)>> {
        let moves = self
            .legal_moves(std::slice::from_ref(setup))?
            .pop()
            .unwrap_or_default();
        moves
            .par_iter()
            .map(|&m| {
                Ok((
                    m,
                    self.perft(&reference::play(setup, m), depth.saturating_sub(1))?,
                ))
            })
            .collect()
    }

    /// Leaf count with detail statistics: the columns of `detail` (the others zero).
    ///
    /// # Errors
    /// A backend failure; [`Error::Usage`] when the backend cannot compute the columns of `detail`.
    fn stats(&self, setup: &Setup, depth: u32, detail: Detail) -> Result<(u128, Stats)> {
        let (n, s) = reference_stats(setup, depth);
        Ok((n, s.only(detail)))
    }
}

/// The reference generator as a backend: the oracle.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReferenceBackend;

impl Backend for ReferenceBackend {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn perft(&self, setup: &Setup, depth: u32) -> Result<u128> {
        let pos = reference::Position::from_setup(setup);
        if depth <= 2 {
            return Ok(reference_perft(&pos, depth) as u128);
        }
        let total: u64 = pos
            .legal_moves()
            .par_iter()
            .map(|&m| reference_perft(&pos.play(m), depth - 1))
            .sum();
        Ok(total as u128)
    }

    fn legal_moves(&self, setups: &[Setup]) -> Result<Vec<Vec<Move>>> {
        Ok(setups.iter().map(reference::legal_moves).collect())
    }
}

/// Plain recursive perft on the reference generator.
pub fn reference_perft(pos: &reference::Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .into_iter()
            .map(|m| reference_perft(&pos.play(m), depth - 1))
            .sum(),
    }
}

/// Perft with every detail statistics column on the reference generator (counted at the leaves).
pub fn reference_stats(setup: &Setup, depth: u32) -> (u128, Stats) {
    let (n, s) = reference_base_stats(setup, depth);
    (n, s.with_totals())
}

fn reference_base_stats(setup: &Setup, depth: u32) -> (u128, Stats) {
    fn walk(pos: &reference::Position, depth: u32, stats: &mut Stats) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = pos.legal_moves();
        if depth == 1 {
            for &m in &moves {
                stats.add_leaf(pos, m);
            }
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| walk(&pos.play(m), depth - 1, stats))
            .sum()
    }
    let pos = reference::Position::from_setup(setup);
    if depth < 2 {
        let mut stats = Stats::default();
        return (walk(&pos, depth, &mut stats) as u128, stats);
    }
    pos.legal_moves()
        .par_iter()
        .map(|&m| {
            let mut stats = Stats::default();
            let n = walk(&pos.play(m), depth - 1, &mut stats);
            (n as u128, stats)
        })
        .reduce(
            || (0, Stats::default()),
            |(a, sa), (b, sb)| (a + b, sa + sb),
        )
}

/// Check a position before perft: validity errors are a usage error (exit 2); warnings are returned.
///
/// # Errors
/// [`Error::Usage`] listing every validity error.
pub fn check_position(setup: &Setup) -> Result<Vec<validate::ValidityWarning>> {
    let v = validate::check(setup);
    if !v.is_ok() {
        return Err(Error::Usage(format!(
            "invalid position '{}': {}",
            setup.to_fen(),
            v
        )));
    }
    Ok(v.warnings)
}
