//! The exhaustive cross-check: walk the legal move tree and compare, at every node, the *set* of legal moves
//! of a candidate generator with the oracle's (not only counts).
//!
//! Generic over [`Backend::legal_moves`], which takes a batch of positions, so the GPU kernel is checked by the
//! same walker. The tree is walked in batches (depth-first over batches of at most [`BATCH`] positions), so
//! memory stays bounded at any depth.

use crate::backend::Backend;
use crate::error::Result;
use crate::types::Move;
use crate::validate::Checked;
use std::collections::BTreeSet;

/// Positions sent to the generators at once.
pub const BATCH: usize = 4096;

/// The first node where the two generators disagree.
#[derive(Clone, Debug)]
pub struct Difference {
    /// The position, as FEN.
    pub fen: String,
    /// Moves from the root to it (UCI).
    pub path: Vec<String>,
    /// Moves the oracle has and the candidate lacks (UCI).
    pub missing: Vec<String>,
    /// Moves the candidate has and the oracle does not (UCI).
    pub extra: Vec<String>,
}

/// The result of a walk (not to be confused with [`crate::analyze::Outcome`], the end of a game).
#[derive(Clone, Debug, Default)]
pub struct Verification {
    /// Nodes whose move sets were compared.
    pub nodes_checked: u64,
    /// The first difference, if any.
    pub difference: Option<Difference>,
}

struct Node {
    pos: Checked,
    path: Vec<Move>,
}

/// Compare `candidate` with `oracle` at every node of the tree of depth `depth` below `root` (nodes at plies
/// `0..depth` have their move lists compared). `chess960` selects the notation of the reported moves.
///
/// # Errors
/// A backend failure.
pub fn verify(
    root: &Checked,
    depth: u32,
    candidate: &dyn Backend,
    oracle: &dyn Backend,
    chess960: bool,
) -> Result<Verification> {
    let mut verification = Verification::default();
    if depth > 0 {
        walk(
            vec![Node {
                pos: root.clone(),
                path: Vec::new(),
            }],
            depth,
            candidate,
            oracle,
            chess960,
            &mut verification,
        )?;
    }
    Ok(verification)
}

fn walk(
    batch: Vec<Node>,
    remaining: u32,
    candidate: &dyn Backend,
    oracle: &dyn Backend,
    chess960: bool,
    verification: &mut Verification,
) -> Result<()> {
    let positions: Vec<Checked> = batch.iter().map(|n| n.pos.clone()).collect();
    let theirs = candidate.legal_moves(&positions)?;
    let ours = oracle.legal_moves(&positions)?;
    verification.nodes_checked += batch.len() as u64;
    for ((node, c), o) in batch.iter().zip(&theirs).zip(&ours) {
        let cs: BTreeSet<Move> = c.iter().copied().collect();
        let os: BTreeSet<Move> = o.iter().copied().collect();
        if cs != os || c.len() != o.len() {
            let uci = |m: &Move| m.to_uci(chess960);
            let mut extra: Vec<String> = cs.difference(&os).map(uci).collect();
            if c.len() != cs.len() {
                extra.push(format!(
                    "(duplicates: {} moves listed, {} distinct)",
                    c.len(),
                    cs.len()
                ));
            }
            verification.difference = Some(Difference {
                fen: node.pos.to_fen(),
                path: node.path.iter().map(uci).collect(),
                missing: os.difference(&cs).map(uci).collect(),
                extra,
            });
            return Ok(());
        }
    }
    if remaining <= 1 {
        return Ok(());
    }
    let mut next = Vec::with_capacity(BATCH);
    for (node, moves) in batch.iter().zip(&ours) {
        for &m in moves {
            let mut path = node.path.clone();
            path.push(m);
            next.push(Node {
                pos: node.pos.play(m)?,
                path,
            });
            if next.len() == BATCH {
                walk(
                    std::mem::take(&mut next),
                    remaining - 1,
                    candidate,
                    oracle,
                    chess960,
                    verification,
                )?;
                if verification.difference.is_some() {
                    return Ok(());
                }
            }
        }
    }
    if !next.is_empty() {
        walk(
            next,
            remaining - 1,
            candidate,
            oracle,
            chess960,
            verification,
        )?;
    }
    Ok(())
}
