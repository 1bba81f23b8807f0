//! [`ReferenceBackend`]: the mailbox reference generator ([`crate::reference`]) as a [`Backend`], the oracle
//! the other backends are checked against; perft, divide and every detail statistics column by plain recursion.

use super::{Backend, Detail, Stats};
use crate::error::Result;
use crate::reference::Mailbox;
use crate::types::Move;
use crate::validate::Checked;
use rayon::prelude::*;

/// The reference generator as a backend: the oracle.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReferenceBackend;

impl Backend for ReferenceBackend {
    fn name(&self) -> &'static str {
        "reference"
    }

    fn perft(&self, pos: &Checked, depth: u32) -> Result<u128> {
        let pos = Mailbox::from_setup(pos);
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

    fn legal_moves(&self, positions: &[Checked]) -> Result<Vec<Vec<Move>>> {
        Ok(positions.iter().map(|p| p.legal_moves()).collect())
    }

    fn stats(&self, pos: &Checked, depth: u32, detail: Detail) -> Result<(u128, Stats)> {
        let (n, s) = reference_stats(pos, depth);
        Ok((n, s.with_totals().only(detail)))
    }
}

/// Plain recursive perft on the reference generator.
fn reference_perft(pos: &Mailbox, depth: u32) -> u64 {
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

/// Perft with detail statistics on the reference generator, counted at the leaves: the base columns only
/// ([`Stats::with_totals`] derives the others).
fn reference_stats(pos: &Checked, depth: u32) -> (u128, Stats) {
    fn walk(pos: &Mailbox, depth: u32, stats: &mut Stats) -> u64 {
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
    let pos = Mailbox::from_setup(pos);
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
