//! The [`Backend`] trait that every perft generator of ours implements (the reference oracle here, the fast
//! CPU backend in [`crate::fast`], the GPU backend in [`crate::gpu`]), the detail [`Stats`] they report (one column list, [`Column`]),
//! and [`ReferenceBackend`], the reference generator behind the same trait.
//!
//! Every method takes a [`Checked`] position: validity is settled once, by [`Checked::new`], before any
//! backend counts. Choosing and building a backend from command-line flags is the CLI's business
//! (`src/cli/common.rs`), not this module's.

mod reference;
mod stats;

pub use reference::ReferenceBackend;
pub use stats::{CheckKind, Column, Detail, Stats, BASE_COLUMNS, COLUMNS};

use crate::error::Result;
use crate::types::Move;
use crate::validate::Checked;
use rayon::prelude::*;

/// A perft generator. [`Backend::perft`], [`Backend::legal_moves`] and [`Backend::stats`] are required;
/// [`Backend::divide`] has a generic default built on `legal_moves`, [`Checked::play`] and `perft`.
pub trait Backend: Sync {
    /// Name used in output (`reference`, `cpu`, `gpu`).
    fn name(&self) -> &'static str;

    /// Whether this backend merges transpositions only among the positions of one call
    /// ([`Backend::perft_many`], [`Backend::stats_many`]) and finds few of them again across calls. True for
    /// the GPU: a batch is one planned run that merges each level's transpositions within the batch, and its
    /// tables, cleared per run, keep too little between runs to find the next batch's. False for the CPU
    /// backend, whose one hash table lasts the whole run and finds the transpositions of positions counted
    /// in different calls (and for the reference generator, which merges none).
    ///
    /// The deep runs order their frontier by it (`src/deep/group.rs`; docs/deep-runs.md, "GPU units"): where
    /// it is true, grouped by the placement of the side not to move, so that positions whose children
    /// transpose into each other fall in one batch and one shard; where false, in the expansion's order
    /// (siblings together), which the one hash table rewards and which the grouping would cost 1.5× the
    /// plain count's time on the CPU. A `--checkpoint` run also splits at ply 4 from a lower depth where it is
    /// true, so that a perft 7's batches merge ply 5. Counts do not depend on it.
    fn merges_only_within_batch(&self) -> bool {
        false
    }

    /// Leaf count of the legal move tree of depth `depth` (perft(0) = 1).
    ///
    /// # Errors
    /// A backend failure ([`crate::Error::Backend`]).
    fn perft(&self, pos: &Checked, depth: u32) -> Result<u128>;

    /// Leaf counts of several positions to the same depth, in their order. The default counts them one by
    /// one; a backend that gains by counting them together overrides it (the GPU backend counts a batch in
    /// one run, the CPU backend with all its workers and one hash table: split and checkpointed runs hand the
    /// frontier positions over in batches).
    ///
    /// # Errors
    /// A backend failure.
    fn perft_many(&self, positions: &[Checked], depth: u32) -> Result<Vec<u128>> {
        positions.iter().map(|p| self.perft(p, depth)).collect()
    }

    /// [`Backend::perft_many`] of positions held as boards of the fast generator below one root, all with the
    /// root's castling data `cd` (the split frontier's: `src/deep/split.rs`). The default makes each one's
    /// checked position ([`Checked::reached`] of [`Board::to_setup`]) and calls `perft_many`, so a backend
    /// that overrides nothing counts them as before; the CPU backend counts the boards as they are, without
    /// the round trip through a [`crate::position::Setup`] and back (issue 36: at start perft 7 split at
    /// ply 4, that round trip was about 200 M of the split run's 490 M instructions above the plain count's).
    ///
    /// # Errors
    /// A board that fails [`Checked::reached`]'s king checks (default), or a backend failure.
    #[cfg(feature = "deep")]
    fn perft_boards(
        &self,
        boards: &[crate::bitboard::board::Board],
        cd: &crate::bitboard::board::CastlingData,
        depth: u32,
    ) -> Result<Vec<u128>> {
        let positions = boards
            .iter()
            .map(|b| Checked::reached(b.to_setup(cd)))
            .collect::<Result<Vec<_>>>()?;
        self.perft_many(&positions, depth)
    }

    /// [`Backend::stats`] of several positions to the same depth, in their order. The default counts them
    /// one by one; the CPU backend counts a batch with all its workers and one table.
    ///
    /// # Errors
    /// As [`Backend::stats`].
    fn stats_many(
        &self,
        positions: &[Checked],
        depth: u32,
        detail: Detail,
    ) -> Result<Vec<(u128, Stats)>> {
        positions
            .iter()
            .map(|p| self.stats(p, depth, detail))
            .collect()
    }

    /// The legal moves of each position, in any order (used by the per-node cross-check).
    ///
    /// # Errors
    /// A backend failure.
    fn legal_moves(&self, positions: &[Checked]) -> Result<Vec<Vec<Move>>>;

    /// Per root move counts of depth `depth - 1` subtrees. `depth` must be at least 1.
    ///
    /// # Errors
    /// A backend failure, or [`crate::Error::Usage`] when a move this backend lists leads to an invalid
    /// position (it was not legal).
    fn divide(&self, pos: &Checked, depth: u32) -> Result<Vec<(Move, u128)>> {
        let moves = self
            .legal_moves(std::slice::from_ref(pos))?
            .pop()
            .unwrap_or_default();
        moves
            .par_iter()
            .map(|&m| Ok((m, self.perft(&pos.play(m)?, depth.saturating_sub(1))?)))
            .collect()
    }

    /// Leaf count with detail statistics: the columns of `detail` (the others zero). Required, so that no
    /// backend silently hands the work to another generator.
    ///
    /// # Errors
    /// A backend failure; [`crate::Error::Usage`] when the backend cannot compute the columns of `detail`.
    fn stats(&self, pos: &Checked, depth: u32, detail: Detail) -> Result<(u128, Stats)>;

    /// A backend-specific report of the work done so far: `perft --json` prints it under the backend's name
    /// (the GPU's `gpu` object), `perft --verbose` prints its text on stderr; `None` for backends without one.
    ///
    /// # Errors
    /// A backend failure while collecting it.
    fn report(&self) -> Result<Option<WorkReport>> {
        Ok(None)
    }
}

/// A backend's report of its work ([`Backend::report`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkReport {
    /// As JSON.
    pub json: serde_json::Value,
    /// As text (a table).
    pub text: String,
}
