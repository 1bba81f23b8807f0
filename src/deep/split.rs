//! The split frontier: the distinct positions `S` plies below the root, each with its multiplicity (how many
//! move paths reach it) and its multiplicity per root move, so that totals, statistics and divides can all be
//! summed back as multiplicity × result.
//!
//! Two positions are the same when pieces, side to move, castling rights (as rook squares) and a *usable*
//! en-passant square agree (FIDE 3.7.d: the square counts only when a legal en-passant capture exists); the
//! move clocks do not change perft and are reset to `0 1`.
//!
//! The positions are made by the one frontier expansion of the core ([`crate::bitboard::frontier`], the fast
//! generator; `plan` checks the frontier's paths against the backend's own perft of the split ply). Each root
//! move's subtree is expanded and merged on its own (giving the per-root-move multiplicities as flat
//! `(position, root move, multiplicity)` records, no list per position), then merged into the whole frontier.
//!
//! **Memory** is bounded by a budget (`--split-mem`, [`DEFAULT_BUDGET_MIB`] MiB by default): while the
//! frontier is made, about 102 bytes per distinct position and 16 per (position, root move) pair, plus the
//! current root move's subtree; once made, its FEN text (about 60 bytes), multiplicity, offsets and the pairs:
//! about 100 bytes per position in all for the start position's ply 5 (822,518 positions), and, while a split
//! count runs, the positions' boards (88 bytes each, [`Boards`]; the backend positions are made from them one
//! batch at a time). A frontier that does not fit, boards included, is refused with the memory it needs
//! (estimated from the share of root moves done).

use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{Board, CastlingData, KING_I};
use crate::bitboard::frontier::{self, Merger, TooBig};
use crate::bitboard::movegen;
use crate::error::{Error, MemoryError, Result, Setting, SettingError};
use crate::position::Setup;
use crate::validate::Checked;
use rayon::prelude::*;

/// The frontier's memory budget when `--split-mem` is not given, MiB (capped at three quarters of the memory
/// available).
pub const DEFAULT_BUDGET_MIB: u64 = 1024;

/// The split frontier's budget in MiB: `--split-mem`'s value when given (checked against the memory
/// available), else [`DEFAULT_BUDGET_MIB`], at most three quarters of the memory available.
///
/// # Errors
/// [`Error::Setting`] of [`Setting::SplitMem`] for 0; [`Error::Memory`] for more than the memory available.
pub fn budget_mib(given: Option<u64>) -> Result<u64> {
    match given {
        Some(0) => Err(SettingError::new(
            Setting::SplitMem,
            Some("0".into()),
            "MiB cannot hold a split frontier (use 1 or more)",
        )
        .into()),
        Some(mb) => {
            crate::limits::check_host_memory(Setting::SplitMem, mb)?;
            Ok(mb)
        }
        None => Ok(
            crate::limits::available_memory().map_or(DEFAULT_BUDGET_MIB, |b| {
                DEFAULT_BUDGET_MIB.min((b / 4 * 3) >> 20).max(1)
            }),
        ),
    }
}

/// One record of the per-root-move multiplicities: (position index, root move index, paths).
type Pair = (u32, u16, u64);

/// The distinct positions at a ply, in a fixed order (sorted by FEN; in the order they were found when made
/// without their FEN text, see [`frontier_with_boards`]), with the root moves in UCI.
#[derive(Clone, Debug)]
pub struct Frontier {
    /// Root moves in UCI notation (Chess960 notation where the position needs it), sorted.
    pub root_moves: Vec<String>,
    /// Every position's FEN, one after another (in the order the positions were found).
    fens: String,
    /// End of each FEN in `fens`.
    ends: Vec<usize>,
    /// Multiplicity of each position.
    mult: Vec<u64>,
    /// The per-root-move records, by position, then root move.
    pairs: Vec<Pair>,
    /// First record of each position (and one past the last).
    starts: Vec<u32>,
    /// The positions in FEN order: `order[i]` is the index of the `i`-th.
    order: Vec<u32>,
}

/// One position of the frontier (a view into it).
#[derive(Clone, Copy, Debug)]
pub struct Piece<'a> {
    /// The position's FEN (clocks `0 1`, unusable e.p. square dropped).
    pub fen: &'a str,
    /// Number of move paths from the root that reach it.
    pub mult: u128,
    pairs: &'a [Pair],
}

impl<'a> Piece<'a> {
    /// The position.
    pub fn setup(&self) -> Setup {
        Setup::from_fen(self.fen).expect("a frontier position's own FEN")
    }

    /// Multiplicity per root move (index into [`Frontier::root_moves`]), by index.
    pub fn by_move(&self) -> impl ExactSizeIterator<Item = (u16, u128)> + 'a {
        let pairs: &'a [Pair] = self.pairs;
        pairs.iter().map(|&(_, m, n)| (m, n as u128))
    }
}

impl Frontier {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there is none (every line ends in mate or stalemate before the ply).
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The `i`-th position in FEN order.
    pub fn piece(&self, i: usize) -> Piece<'_> {
        let j = self.order[i] as usize;
        let start = if j == 0 { 0 } else { self.ends[j - 1] };
        // A frontier made without its per-root-move records ([`frontier_bare`]) has no starts either.
        let pairs = match self.starts.get(j..j + 2) {
            Some(&[a, b]) => &self.pairs[a as usize..b as usize],
            _ => &[],
        };
        Piece {
            fen: &self.fens[start..self.ends[j]],
            mult: self.mult[j] as u128,
            pairs,
        }
    }

    /// The multiplicity of the `i`-th position in FEN order ([`Piece::mult`] without the rest of the view).
    pub fn mult(&self, i: usize) -> u128 {
        self.mult[self.order[i] as usize] as u128
    }

    /// The positions in FEN order.
    pub fn pieces(&self) -> impl ExactSizeIterator<Item = Piece<'_>> + '_ {
        (0..self.len()).map(|i| self.piece(i))
    }

    /// The positions' indices (FEN order) in the order the expansion first reached them: root move by root
    /// move, and the children of one position of the ply above next to each other, as a plain count walks
    /// them. Counting in this order keeps the subtrees that share transpositions close together in time, so a
    /// bounded hash table still holds the shared ones when they are met again; in FEN order it mostly does
    /// not (start position perft 8 split at ply 4, `--hash 64`: 1.4× the CPU time of the plain count in FEN
    /// order; see docs/deep-runs.md).
    pub fn count_order(&self) -> Vec<usize> {
        let mut by_found = vec![0; self.order.len()];
        for (i, &j) in self.order.iter().enumerate() {
            by_found[j as usize] = i;
        }
        by_found
    }

    /// Sum of multiplicities: the number of move paths of length `plies`, i.e. perft(plies).
    pub fn paths(&self) -> u128 {
        self.mult.iter().map(|&m| m as u128).sum()
    }

    /// Bytes held (about).
    pub fn bytes(&self) -> u64 {
        (self.fens.capacity()
            + self.ends.capacity() * 8
            + self.mult.capacity() * 8
            + self.pairs.capacity() * std::mem::size_of::<Pair>()
            + self.starts.capacity() * 4
            + self.order.capacity() * 4) as u64
    }
}

/// The refusal of a frontier that does not fit.
fn too_big(plies: u32, budget_mib: u64, positions: usize, bytes: u64, needed: u64) -> Error {
    let needed_mib = needed.div_ceil(1 << 20).max(budget_mib + 1);
    MemoryError::SplitFrontier {
        budget_mib,
        plies,
        needed_mib,
        positions,
        taken_mib: bytes >> 20,
    }
    .into()
}

/// The distinct positions `plies` plies below `root` (a valid position), in at most `budget_mib` MiB.
/// `chess960`: root moves in king-takes-rook notation.
///
/// Distinct positions of the start position by ply: 5,362 at ply 3, 72,078 at ply 4, 822,518 at ply 5,
/// 9,417,681 at ply 6 (OEIS A083276).
///
/// # Errors
/// [`MemoryError::SplitFrontier`] with the memory needed for a frontier that does not fit.
pub fn frontier(root: &Checked, plies: u32, chess960: bool, budget_mib: u64) -> Result<Frontier> {
    Ok(frontier_with_boards(root, plies, chess960, budget_mib, true)?.0)
}

/// The frontier's positions as boards of the bitboard core, in the order the expansion found them (the
/// order of [`Frontier::count_order`]): a split count makes its backend positions from these, without a
/// round trip through FEN text.
pub struct Boards {
    boards: Vec<Board>,
    cd: CastlingData,
}

impl Boards {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.boards.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.boards.is_empty()
    }

    /// Bytes held (counted against the frontier's budget).
    pub fn bytes(&self) -> u64 {
        (self.boards.capacity() * std::mem::size_of::<Board>()) as u64
    }

    /// The boards, in the order the expansion found them.
    pub(super) fn boards(&self) -> &[Board] {
        &self.boards
    }

    /// The castling data below the root (the same for every board).
    #[cfg(test)]
    pub(super) fn castling_data(&self) -> &CastlingData {
        &self.cd
    }

    /// The `j`-th position found, checked as a position reached by legal moves from the checked root
    /// ([`Checked::reached`]: the king checks only).
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] when a king check fails (a bug of the generator).
    pub fn checked(&self, j: usize) -> Result<Checked> {
        Checked::reached(self.boards[j].to_setup(&self.cd))
    }

    /// The `j`-th position found, with the king checks of [`Boards::checked`] made on the board itself
    /// (one king of each colour; the side not to move not in check, FIDE 3.9.2), without making a
    /// [`Setup`]; a board that fails them gets [`Boards::checked`]'s error.
    ///
    /// # Errors
    /// As [`Boards::checked`].
    pub fn board(&self, j: usize) -> Result<Board> {
        let b = self.boards[j];
        let kings = |c: usize| b.roles[KING_I] & b.colors[c];
        let ok = kings(0).count_ones() == 1 && kings(1).count_ones() == 1 && {
            // The side not to move's king, attacked by the side to move: `attackers_of` with the turn
            // flipped.
            let mut them = b;
            them.turn ^= 1;
            let sq = kings(them.turn as usize).trailing_zeros() as usize;
            movegen::attackers_of::<MagicSliders>(&them, sq, b.colors[0] | b.colors[1]) == 0
        };
        if ok {
            return Ok(b);
        }
        Err(self.checked(j).err().unwrap_or_else(|| {
            Error::Backend(format!(
                "frontier board {j} fails the king checks on its bitboards but not as a position"
            ))
        }))
    }

    /// The boards `js`, each with the king checks of [`Boards::board`] (made in parallel).
    ///
    /// # Errors
    /// As [`Boards::board`], for one of the boards failing them.
    pub fn run(&self, js: std::ops::Range<usize>) -> Result<&[Board]> {
        js.clone()
            .into_par_iter()
            .try_for_each(|j| self.board(j).map(drop))?;
        Ok(&self.boards[js])
    }

    /// The castling data below the root (every board's).
    pub(super) fn shared_castling_data(&self) -> &CastlingData {
        &self.cd
    }
}

/// The per-root-move records grouped by position, each position's in root-move order (they were pushed in
/// root-move order, and (position, root move) pairs are unique: a stable counting sort by position keeps
/// that order), and the first record of each position (and one past the last).
fn by_position(pairs: Vec<Pair>, positions: usize) -> (Vec<Pair>, Vec<u32>) {
    let mut starts = vec![0u32; positions + 1];
    for &(p, _, _) in &pairs {
        starts[p as usize + 1] += 1;
    }
    for j in 0..positions {
        starts[j + 1] += starts[j];
    }
    let mut next = starts.clone();
    let mut sorted = vec![(0, 0, 0); pairs.len()];
    for pair in pairs {
        let at = &mut next[pair.0 as usize];
        sorted[*at as usize] = pair;
        *at += 1;
    }
    (sorted, starts)
}

/// [`frontier`], and its positions as boards in the order they were found ([`Boards`]; about 88 bytes per
/// position more, held by the caller while it counts, and counted against the budget). `named`: make each
/// position's FEN text and order the positions by it, as plans and journals need; without, the positions
/// keep the order they were found in and have no text (a count that names no position saves that work:
/// about 30 % of the frontier's cost).
///
/// # Errors
/// As [`frontier`].
pub fn frontier_with_boards(
    root: &Checked,
    plies: u32,
    chess960: bool,
    budget_mib: u64,
    named: bool,
) -> Result<(Frontier, Boards)> {
    let budget = budget_mib.saturating_mul(1 << 20);
    let (mut b0, cd) = Board::from_setup(root.setup());
    frontier::usable_ep(&mut b0, &cd);
    let mut root_moves: Vec<(String, u32)> = movegen::moves::<MagicSliders>(&b0, &cd)
        .as_slice()
        .iter()
        .map(|&m| (movegen::to_move(m).to_uci(chess960), m))
        .collect();
    root_moves.sort();
    let mut all: Merger<u64> = Merger::new(budget);
    let mut pairs: Vec<Pair> = Vec::new();
    let pair_bytes = std::mem::size_of::<Pair>() as u64;
    // What the finished frontier holds per distinct position beyond the merger's board and count (which
    // become its boards and multiplicities): the FEN text (about 60 bytes), its end offset and the start and
    // order indices; counted while the frontier is made, so that a budget it fits in while being made also
    // holds the finished frontier.
    const AFTER: u64 = 80;
    let used = |all: &Merger<u64>, pairs: &Vec<Pair>| {
        all.bytes() + all.len() as u64 * AFTER + pairs.capacity() as u64 * pair_bytes
    };
    // The estimate of the whole from the root moves done so far.
    let scale = |bytes: u64, done: usize| {
        (bytes as u128 * root_moves.len().max(1) as u128 / done.max(1) as u128)
            .min(u64::MAX as u128) as u64
    };
    if plies == 0 {
        all.add(b0, 1)
            .map_err(|e| too_big(0, budget_mib, 0, e.bytes, e.needed))?;
    }
    // The levels below a root move, the one expanded and the one made, and the expansion's buffers: kept
    // from level to level and root move to root move, so that nothing is allocated per level once they grew.
    let (mut level, mut next) = (Merger::<u64>::new(budget), Merger::<u64>::new(budget));
    let mut scratch = frontier::Scratch::default();
    for (k, &(_, m)) in root_moves.iter().enumerate().filter(|_| plies > 0) {
        let mut child = b0.make::<true>(&cd, m);
        frontier::usable_ep(&mut child, &cd);
        level.clear(budget);
        level
            .add(child, 1)
            .map_err(|e| too_big(plies, budget_mib, 0, e.bytes, e.needed))?;
        for _ in 1..plies {
            let left = budget.saturating_sub(used(&all, &pairs));
            frontier::next_ply_merged(level.positions(), &cd, left, &mut scratch, &mut next)
                .map_err(|e: TooBig| {
                    let bytes = used(&all, &pairs) + e.bytes;
                    too_big(
                        plies,
                        budget_mib,
                        all.len() + e.positions,
                        bytes,
                        scale(used(&all, &pairs) + e.needed, k + 1),
                    )
                })?;
            std::mem::swap(&mut level, &mut next);
        }
        for &(b, w) in level.positions() {
            let at = all.add(b, w).map_err(|e| {
                let bytes = e.bytes + pairs.capacity() as u64 * pair_bytes;
                too_big(
                    plies,
                    budget_mib,
                    e.positions,
                    bytes,
                    scale(
                        e.needed + e.positions as u64 * AFTER + pairs.len() as u64 * pair_bytes,
                        k + 1,
                    ),
                )
            })?;
            if pairs.len() == pairs.capacity() {
                let more = (pairs.len() / 2).max(1024);
                if used(&all, &pairs) + more as u64 * pair_bytes > budget {
                    let bytes = used(&all, &pairs);
                    return Err(too_big(
                        plies,
                        budget_mib,
                        all.len(),
                        bytes,
                        scale(bytes + more as u64 * pair_bytes, k + 1),
                    ));
                }
                pairs.reserve_exact(more);
            }
            pairs.push((at as u32, k as u16, w));
        }
    }
    let root_moves = root_moves.into_iter().map(|(u, _)| u).collect();
    finish(
        all.into_vec(),
        cd,
        root_moves,
        pairs,
        named,
        (plies, budget_mib),
    )
}

/// [`frontier_with_boards`] for a count that names no position and divides by no root move (a split `perft`
/// without `--checkpoint` or `--divide`): no FEN text and no per-root-move records ([`Piece::by_move`] is
/// empty). Each ply is expanded whole (each distinct position of a ply once, where the per-root-move
/// expansion expands it once per root move reaching it, and merges each root move's last ply into the whole
/// frontier again): at start ply 4, 5,362 positions expanded instead of 8,902, and one merger instead of
/// two. The positions come in the order found, ply by ply: a position's children next to each other, as a
/// plain count walks them. Where a ply does not fit the budget (the one expanded and the one made are held
/// together), [`frontier_with_boards`] is tried instead: it refuses a frontier that does not fit with its
/// estimate of the memory needed.
///
/// # Errors
/// As [`frontier`].
pub fn frontier_bare(
    root: &Checked,
    plies: u32,
    chess960: bool,
    budget_mib: u64,
) -> Result<(Frontier, Boards)> {
    let budget = budget_mib.saturating_mul(1 << 20);
    let (mut b0, cd) = Board::from_setup(root.setup());
    frontier::usable_ep(&mut b0, &cd);
    let mut root_moves: Vec<String> = movegen::moves::<MagicSliders>(&b0, &cd)
        .as_slice()
        .iter()
        .map(|&m| movegen::to_move(m).to_uci(chess960))
        .collect();
    root_moves.sort();
    let (mut level, mut next) = (Merger::<u64>::new(budget), Merger::<u64>::new(budget));
    let mut scratch = frontier::Scratch::default();
    let mut fits = level.add(b0, 1).is_ok();
    for _ in 0..plies {
        if !fits {
            break;
        }
        let left = budget.saturating_sub(level.bytes());
        fits = frontier::next_ply_merged(level.positions(), &cd, left, &mut scratch, &mut next)
            .is_ok();
        std::mem::swap(&mut level, &mut next);
    }
    drop((next, scratch));
    let made = fits.then(|| {
        finish(
            level.into_vec(),
            cd,
            root_moves,
            Vec::new(),
            false,
            (plies, budget_mib),
        )
    });
    match made {
        Some(Ok(made)) => Ok(made),
        _ => frontier_with_boards(root, plies, chess960, budget_mib, false),
    }
}

/// The frontier and its boards from the merged positions of the last ply (in the order found) and the
/// per-root-move records (none for [`frontier_bare`]), with each position's FEN text when `named`; refused
/// when the whole does not fit the budget (`(plies, budget_mib)`, for the refusal).
fn finish(
    boards: Vec<(Board, u64)>,
    cd: CastlingData,
    root_moves: Vec<String>,
    pairs: Vec<Pair>,
    named: bool,
    (plies, budget_mib): (u32, u64),
) -> Result<(Frontier, Boards)> {
    let budget = budget_mib.saturating_mul(1 << 20);
    let (pairs, starts) = if pairs.is_empty() {
        (pairs, Vec::new())
    } else {
        by_position(pairs, boards.len())
    };
    let mult: Vec<u64> = boards.iter().map(|&(_, w)| w).collect();
    let mut fens = String::new();
    let mut ends = Vec::with_capacity(boards.len());
    for (b, _) in &boards {
        if named {
            fens.push_str(&b.to_setup(&cd).to_fen());
        }
        ends.push(fens.len());
    }
    let held = boards.capacity() as u64 * std::mem::size_of::<(Board, u64)>() as u64;
    let mut boards: Vec<Board> = boards.into_iter().map(|(b, _)| b).collect();
    // Room the merger made and did not use (never written) is given back, so that the budget counts the
    // boards only (in place: nothing is copied).
    boards.shrink_to_fit();
    let boards = Boards { boards, cd };
    let mut f = Frontier {
        root_moves,
        fens,
        ends,
        mult,
        pairs,
        starts,
        order: Vec::new(),
    };
    let mut order: Vec<u32> = (0..f.ends.len() as u32).collect();
    {
        let fen = |j: u32| {
            let j = j as usize;
            let start = if j == 0 { 0 } else { f.ends[j - 1] };
            &f.fens[start..f.ends[j]]
        };
        if named {
            order.par_sort_unstable_by(|&a, &b| fen(a).cmp(fen(b)));
        }
    }
    f.order = order;
    // The boards are held beside the frontier until the count is done: both count against the budget.
    let whole = f.bytes() + boards.bytes();
    if whole > budget {
        return Err(too_big(plies, budget_mib, f.len(), whole.max(held), whole));
    }
    Ok((f, boards))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_distinct_counts_match_the_published_ones() {
        // Distinct positions of the start position by ply: 20, 400, 5,362 (OEIS A083276).
        for (plies, distinct, paths) in [(1, 20, 20), (2, 400, 400), (3, 5362, 8902)] {
            let f = frontier(&Checked::startpos(), plies, false, DEFAULT_BUDGET_MIB).unwrap();
            assert_eq!(f.len(), distinct, "ply {plies}");
            assert_eq!(f.paths(), paths, "ply {plies}");
            let by_move: u128 = f.pieces().flat_map(|p| p.by_move().map(|x| x.1)).sum();
            assert_eq!(by_move, paths);
            // Sorted by FEN, each position once.
            let fens: Vec<&str> = f.pieces().map(|p| p.fen).collect();
            assert!(fens.windows(2).all(|w| w[0] < w[1]));
            // The counting order is a permutation of the positions.
            let mut order = f.count_order();
            order.sort_unstable();
            assert_eq!(order, (0..f.len()).collect::<Vec<_>>(), "ply {plies}");
        }
    }

    /// The frontier made independently: the reference generator, positions keyed by FEN (clocks `0 1`, e.p.
    /// square kept only when a legal en-passant capture exists), per root move by UCI.
    fn by_reference(
        root: &Setup,
        plies: u32,
        chess960: bool,
    ) -> std::collections::BTreeMap<String, (u128, std::collections::BTreeMap<String, u128>)> {
        use crate::reference;
        use crate::types::MoveKind;
        use std::collections::BTreeMap;
        let norm = |mut s: Setup| {
            s.halfmoves = 0;
            s.fullmoves = 1;
            if s.ep_square.is_some()
                && !reference::legal_moves(&s)
                    .iter()
                    .any(|m| m.kind() == MoveKind::EnPassant)
            {
                s.ep_square = None;
            }
            s
        };
        // FEN → (position, paths, paths per root move).
        let mut level: BTreeMap<String, (Setup, u128, BTreeMap<String, u128>)> = BTreeMap::new();
        for m in reference::legal_moves(root) {
            let c = norm(reference::play(root, m));
            let by = BTreeMap::from([(m.to_uci(chess960), 1)]);
            level.insert(c.to_fen(), (c, 1, by));
        }
        for _ in 1..plies {
            let mut next: BTreeMap<String, (Setup, u128, BTreeMap<String, u128>)> = BTreeMap::new();
            for (s, mult, by) in level.values() {
                for m in reference::legal_moves(s) {
                    let c = norm(reference::play(s, m));
                    let e = next
                        .entry(c.to_fen())
                        .or_insert_with(|| (c, 0, BTreeMap::new()));
                    e.1 += mult;
                    for (k, v) in by {
                        *e.2.entry(k.clone()).or_insert(0) += v;
                    }
                }
            }
            level = next;
        }
        level
            .into_iter()
            .map(|(f, (_, m, by))| (f, (m, by)))
            .collect()
    }

    #[test]
    fn the_frontier_is_the_reference_generators() {
        // CPW "Perft Results" positions 2 (Kiwipete), 3 (e.p. captures that expose the king) and 5, and a
        // Chess960 position (CPW "Chess960 Perft Results" #2): every position, multiplicity and per-root-move
        // multiplicity as the reference generator finds them.
        for (fen, plies, chess960) in [
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                2,
                false,
            ),
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, false),
            (
                "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
                2,
                false,
            ),
            (
                "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
                2,
                true,
            ),
        ] {
            let root = Checked::from_fen(fen).unwrap();
            let f = frontier(&root, plies, chess960, DEFAULT_BUDGET_MIB).unwrap();
            let want = by_reference(root.setup(), plies, chess960);
            let got: std::collections::BTreeMap<
                String,
                (u128, std::collections::BTreeMap<String, u128>),
            > = f
                .pieces()
                .map(|p| {
                    let by = p
                        .by_move()
                        .map(|(k, n)| (f.root_moves[k as usize].clone(), n))
                        .collect();
                    (p.fen.to_string(), (p.mult, by))
                })
                .collect();
            assert_eq!(got.len(), f.len(), "{fen}: a FEN twice");
            assert_eq!(got, want, "{fen} at ply {plies}");
        }
    }

    #[test]
    fn the_bare_frontier_holds_the_named_ones_positions_and_multiplicities() {
        // The six CPW "Perft Results" positions at ply 2 and the start position at ply 4 (72,078 distinct
        // positions, OEIS A083276; perft 4 = 197,281): `frontier_bare` holds the positions and multiplicities
        // of `frontier` (checked against the reference generator above) and its root moves, without
        // per-root-move records; each board carries the hashes its position has with the root's keys (the CPU
        // backend counts the boards with them when its keys are of the same seed).
        use std::collections::BTreeMap;
        let cases = crate::cpw::POSITIONS
            .iter()
            .map(|p| (Checked::from_fen(p.fen).unwrap(), 2))
            .chain([(Checked::startpos(), 4)]);
        for (root, plies) in cases {
            let named = frontier(&root, plies, false, DEFAULT_BUDGET_MIB).unwrap();
            let (bare, boards) = frontier_bare(&root, plies, false, DEFAULT_BUDGET_MIB).unwrap();
            let cd = boards.shared_castling_data();
            let order = bare.count_order();
            let got: BTreeMap<String, u128> = boards
                .boards()
                .iter()
                .zip(&order)
                .map(|(b, &i)| {
                    assert_eq!([b.key, b.check], b.compute_key(cd));
                    assert_eq!(bare.piece(i).by_move().len(), 0);
                    (b.to_setup(cd).to_fen(), bare.mult(i))
                })
                .collect();
            let want: BTreeMap<String, u128> = named
                .pieces()
                .map(|p| (p.fen.to_string(), p.mult))
                .collect();
            assert_eq!((got.len(), bare.len()), (want.len(), named.len()));
            assert!(got == want, "{}", root.to_fen());
            assert_eq!(bare.root_moves, named.root_moves);
            if plies == 4 {
                assert_eq!((bare.len(), bare.paths()), (72_078, 197_281));
            }
        }
        // A budget it does not fit in is refused as `frontier` refuses it (with its estimate).
        let Err(e) = frontier_bare(&Checked::startpos(), 4, false, 2) else {
            panic!("start ply 4 fits in 2 MiB")
        };
        let want = frontier(&Checked::startpos(), 4, false, 2).unwrap_err();
        assert_eq!(e.to_string(), want.to_string());
    }

    #[test]
    fn frontier_boards_counted_through_the_default_give_the_published_counts() {
        // The six CPW "Perft Results" positions: the boards of the frontier at ply 2, counted one ply on by
        // the reference generator through `Backend::perft_boards`' default (each board made a checked
        // position), sum as multiplicity × count to the page's perft 3. (The CPU backend's own
        // `perft_boards` is tested beside it, in `src/fast/tests.rs`.)
        use crate::backend::{Backend, ReferenceBackend};
        for pos in crate::cpw::POSITIONS {
            let root = Checked::from_fen(pos.fen).unwrap();
            let (f, boards) =
                frontier_with_boards(&root, 2, false, DEFAULT_BUDGET_MIB, false).unwrap();
            let (bs, cd) = (boards.boards(), boards.shared_castling_data());
            let counts = ReferenceBackend.perft_boards(bs, cd, 1).unwrap();
            assert_eq!(counts.len(), f.len(), "{}", pos.name);
            let sum: u128 = counts
                .iter()
                .enumerate()
                .map(|(j, n)| f.piece(j).mult * n)
                .sum();
            assert_eq!(sum, pos.nodes_by_depth[2], "{}", pos.name);
        }
    }

    #[test]
    fn a_board_without_its_king_checks_gets_the_checked_positions_error() {
        // Boards made by hand, as a generator bug would leave them: a side without a king, and the side not
        // to move in check (FIDE 3.9.2). Each gets the error `Checked::reached` gives its position; a good
        // board is handed back as it is.
        let made = |fen: &str| {
            let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            Boards {
                boards: vec![b],
                cd,
            }
        };
        for fen in [
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1",
        ] {
            let b = made(fen);
            let Err(Error::InvalidPosition(..)) = b.board(0) else {
                panic!("{fen}: {:?}", b.board(0))
            };
            assert_eq!(
                b.board(0).unwrap_err().to_string(),
                b.checked(0).unwrap_err().to_string(),
                "{fen}"
            );
        }
        let good = made("4k3/4R3/8/8/8/8/8/4K3 b - - 0 1");
        assert_eq!(good.board(0).unwrap(), good.boards[0]);
    }

    #[test]
    fn a_budget_too_small_is_refused_naming_the_memory_needed() {
        // Ply 4 of the start position: 72,078 positions, about 7 MiB while being made.
        let e = frontier(&Checked::startpos(), 4, false, 2).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("split memory: the split frontier at ply 4 needs about "),
            "{text}"
        );
        let Error::Memory(m) = e else { panic!("{e:?}") };
        let MemoryError::SplitFrontier {
            budget_mib: 2,
            plies: 4,
            needed_mib: needed,
            ..
        } = *m
        else {
            panic!("{m:?}")
        };
        assert!((4..=40).contains(&needed), "{text}");
        // And with that much it fits.
        let f = frontier(&Checked::startpos(), 4, false, needed).unwrap();
        assert_eq!((f.len(), f.paths()), (72_078, 197_281));
        assert!(f.bytes() <= needed << 20);
    }
}
