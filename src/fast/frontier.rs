//! The public frontier of a root position ([`Frontier`]): the bitboard core's frontier expansion
//! ([`crate::bitboard::frontier`]) behind a validated root ([`Checked`]) and plain positions ([`Setup`]), for
//! callers outside the CPU backend (the GPU host levels, tools).

use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::frontier::{entry_bytes, next_ply, usable_ep};
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::validate::Checked;

/// The frontier of a root position: the distinct positions some plies below it, each with the number of move
/// paths from the root that reach it. For callers outside the CPU backend (the GPU host levels, tools): plain
/// positions ([`Setup`]) and `u128` multiplicities in, out the same.
///
/// ```
/// use perftlab::fast::Frontier;
/// use perftlab::Checked;
///
/// let mut f = Frontier::new(&Checked::startpos());
/// for _ in 0..3 {
///     f.next_ply(true, 64 << 20)?;
/// }
/// // 5,362 distinct positions after three plies (OEIS A083276), reached by perft(3) = 8,902 move paths.
/// assert_eq!(f.len(), 5362);
/// assert_eq!(f.paths(), 8902);
/// let (setup, mult) = f.get(0);
/// assert!(mult >= 1 && setup.to_fen().ends_with(" 0 1"));
/// # Ok::<(), perftlab::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Frontier {
    cd: CastlingData,
    level: Vec<(Board, u128)>,
    plies: u32,
}

impl Frontier {
    /// The root alone (ply 0, multiplicity 1).
    pub fn new(root: &Checked) -> Frontier {
        let (mut b, cd) = Board::from_setup(root.setup());
        usable_ep(&mut b, &cd);
        Frontier {
            cd,
            level: vec![(b, 1)],
            plies: 0,
        }
    }

    /// Go one ply deeper; with `merge`, transpositions are combined. At most `budget` bytes are held for the
    /// new level (about [`Frontier::bytes_per_position`] per position).
    ///
    /// # Errors
    /// [`Error::Usage`] when the new level does not fit, naming the memory it needs; the frontier is then
    /// unchanged.
    pub fn next_ply(&mut self, merge: bool, budget: u64) -> Result<()> {
        self.level = next_ply(&self.level, &self.cd, merge, budget).map_err(|e| {
            Error::Usage(format!(
                "the frontier at ply {} does not fit in {} MiB: it needs about {} MiB ({} positions took {} MiB \
                 before the budget ran out)",
                self.plies + 1,
                e.budget >> 20,
                e.needed.div_ceil(1 << 20),
                e.positions,
                e.bytes >> 20
            ))
        })?;
        self.plies += 1;
        Ok(())
    }

    /// Bytes a position takes while a level is merged.
    pub fn bytes_per_position() -> u64 {
        entry_bytes::<u128>()
    }

    /// Plies below the root.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.level.len()
    }

    /// Whether there is no position (the root was mate or stalemate within the plies).
    pub fn is_empty(&self) -> bool {
        self.level.is_empty()
    }

    /// Sum of multiplicities: perft(plies) of the root.
    pub fn paths(&self) -> u128 {
        self.level.iter().map(|(_, w)| *w).sum()
    }

    /// Position `i` (move clocks `0 1`) and its multiplicity.
    pub fn get(&self, i: usize) -> (Setup, u128) {
        let (b, w) = &self.level[i];
        (b.to_setup(&self.cd), *w)
    }

    /// Every position with its multiplicity.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Setup, u128)> + '_ {
        self.level.iter().map(|(b, w)| (b.to_setup(&self.cd), *w))
    }
}
