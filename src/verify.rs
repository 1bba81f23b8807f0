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

/// A node of a cross-check walk: a position and the moves from the root to it.
pub(crate) struct Node<P> {
    /// The position.
    pub pos: P,
    /// Moves from the root.
    pub path: Vec<Move>,
}

/// What a check of a batch of nodes says: the moves to walk into from each node (the oracle's legal moves, in
/// the order its children are visited), or what stops the walk.
pub(crate) enum Step<F> {
    /// Go on, into these children of each node.
    Into(Vec<Vec<Move>>),
    /// Stop here with this finding.
    Stop(F),
}

/// The check of a batch of nodes in [`walk_tree`].
pub(crate) type Check<'a, P, F, E> = dyn FnMut(&[Node<P>]) -> std::result::Result<Step<F>, E> + 'a;

/// The one per-node cross-check walk ([`verify`] and [`crate::crosscheck`] use it): the nodes at plies
/// `0..depth` below `root` are handed to `check` in batches of at most `batch` positions, depth first over
/// batches (with batches of one, a plain depth-first walk in the order `check` gives), until `check` stops
/// it. Memory stays bounded at any depth: one batch per ply.
///
/// # Errors
/// What `play` or `check` return.
pub(crate) fn walk_tree<P, F, E>(
    root: P,
    depth: u32,
    batch: usize,
    play: &dyn Fn(&P, Move) -> std::result::Result<P, E>,
    check: &mut Check<'_, P, F, E>,
) -> std::result::Result<Option<F>, E> {
    if depth == 0 {
        return Ok(None);
    }
    let root = Node {
        pos: root,
        path: Vec::new(),
    };
    walk(vec![root], depth, batch.max(1), play, check)
}

fn walk<P, F, E>(
    nodes: Vec<Node<P>>,
    remaining: u32,
    batch: usize,
    play: &dyn Fn(&P, Move) -> std::result::Result<P, E>,
    check: &mut Check<'_, P, F, E>,
) -> std::result::Result<Option<F>, E> {
    let moves = match check(&nodes)? {
        Step::Stop(f) => return Ok(Some(f)),
        Step::Into(moves) => moves,
    };
    if remaining <= 1 {
        return Ok(None);
    }
    let mut next = Vec::with_capacity(batch);
    for (node, moves) in nodes.iter().zip(&moves) {
        for &m in moves {
            let mut path = node.path.clone();
            path.push(m);
            next.push(Node {
                pos: play(&node.pos, m)?,
                path,
            });
            if next.len() == batch {
                if let Some(f) = walk(std::mem::take(&mut next), remaining - 1, batch, play, check)?
                {
                    return Ok(Some(f));
                }
            }
        }
    }
    if next.is_empty() {
        return Ok(None);
    }
    walk(next, remaining - 1, batch, play, check)
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
    let mut nodes_checked = 0;
    let difference = walk_tree(
        root.clone(),
        depth,
        BATCH,
        &|p: &Checked, m| p.play(m),
        &mut |batch: &[Node<Checked>]| {
            let positions: Vec<Checked> = batch.iter().map(|n| n.pos.clone()).collect();
            let theirs = candidate.legal_moves(&positions)?;
            let ours = oracle.legal_moves(&positions)?;
            nodes_checked += batch.len() as u64;
            for ((node, c), o) in batch.iter().zip(&theirs).zip(&ours) {
                if let Some(d) = difference(node, c, o, chess960) {
                    return Ok(Step::Stop(d));
                }
            }
            Ok(Step::Into(ours))
        },
    )?;
    Ok(Verification {
        nodes_checked,
        difference,
    })
}

/// The difference of the candidate's moves `c` and the oracle's `o` at `node`, if any.
fn difference(node: &Node<Checked>, c: &[Move], o: &[Move], chess960: bool) -> Option<Difference> {
    let cs: BTreeSet<Move> = c.iter().copied().collect();
    let os: BTreeSet<Move> = o.iter().copied().collect();
    if cs == os && c.len() == o.len() {
        return None;
    }
    let uci = |m: &Move| m.to_uci(chess960);
    let mut extra: Vec<String> = cs.difference(&os).map(uci).collect();
    if c.len() != cs.len() {
        extra.push(format!(
            "(duplicates: {} moves listed, {} distinct)",
            c.len(),
            cs.len()
        ));
    }
    Some(Difference {
        fen: node.pos.to_fen(),
        path: node.path.iter().map(uci).collect(),
        missing: os.difference(&cs).map(uci).collect(),
        extra,
    })
}
