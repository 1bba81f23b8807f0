//! One frontier expansion with multiplicities: the positions one ply below a set of positions, each distinct
//! one kept once with the number of move paths that reach it (transpositions merged), in memory bounded by a
//! budget. It is the one place this is written: the parallel split of `perft` (`crate::fast`'s `perft::split`), the
//! deep runs' split frontier (`crate::deep::split`) and the GPU host levels (`crate::gpu::planner`, through
//! [`next_ply_linked`], which also says where each parent's children went, and [`Families`] for roots that do
//! not share their castling data) use it, and [`Frontier`] is its public face for any other caller (plain
//! positions and multiplicities, no tie to the CPU tables).
//!
//! Two positions are the same when pieces, side to move, castling rights (as rook squares) and a *usable*
//! en-passant square agree: an e.p. square is kept only when a legal en-passant capture exists (FIDE 3.7.d:
//! the capture is only possible immediately after the double step; where none is legal the square changes
//! nothing below the position, so such positions merge). Move clocks are not part of a [`Board`].
//!
//! **Memory.** A level being merged holds, per distinct position, the [`Board`] (88 bytes) and its
//! multiplicity in one vector, and a 4-byte index in a hash table keyed by the Zobrist key (about 5 bytes per
//! slot, 8/7 slots per entry): [`entry_bytes`]. The children of a level are made a chunk of [`CHUNK`] parents
//! at a time (in parallel) and merged before the next chunk is made, so they are never all held at once. When
//! the merged level would outgrow the budget, the expansion stops with [`TooBig`], which says how many
//! positions it held and estimates, from the share of parents expanded, the memory the whole level needs.

use super::attacks::MagicSliders;
use super::board::{Board, CastlingData, KING_I, NO_EP};
use super::movegen::{self, Consumer, Sink};
use crate::position::Setup;
use hashbrown::HashTable;
use rayon::prelude::*;

/// Parents expanded at a time: their children (about 35 each) are merged before the next chunk is made.
pub const CHUNK: usize = 4096;

/// A multiplicity: a count of move paths (`u64` is enough below 8 plies of any position: 218^8 < 2^63;
/// `u128` for sums over many roots).
pub trait Weight: Copy + Send + Sync + std::ops::AddAssign + 'static {}
impl Weight for u64 {}
impl Weight for u128 {}

/// Bytes one distinct position takes in a level being merged with weight `W`: the board and its weight in the
/// level's vector, and its slot in the merge table (a `u32` index and a control byte, at 7/8 load).
pub fn entry_bytes<W>() -> u64 {
    std::mem::size_of::<(Board, W)>() as u64 + (5u64 * 8).div_ceil(7)
}

/// A level that did not fit in its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooBig {
    /// Distinct positions held when the budget ran out.
    pub positions: usize,
    /// Bytes they took.
    pub bytes: u64,
    /// Estimated bytes of the whole level: what was held, scaled by the share of parents expanded (at
    /// least `bytes`).
    pub needed: u64,
    /// The budget, bytes.
    pub budget: u64,
}

/// Positions merged as they are added: each distinct one once, with the sum of its weights. The table holds
/// indices into `out`, not copies of the boards; it hashes by the Zobrist key (already uniform).
pub(crate) struct Merger<W> {
    table: HashTable<u32>,
    out: Vec<(Board, W)>,
    budget: u64,
}

impl<W: Weight> Merger<W> {
    /// An empty merger that may hold `budget` bytes.
    pub(crate) fn new(budget: u64) -> Merger<W> {
        Merger {
            table: HashTable::new(),
            out: Vec::new(),
            budget,
        }
    }

    /// Bytes held: the vector's capacity and the table's slots.
    pub(crate) fn bytes(&self) -> u64 {
        let slots = (self.table.capacity() as u64 * 8).div_ceil(7);
        self.out.capacity() as u64 * std::mem::size_of::<(Board, W)>() as u64 + slots * 5
    }

    /// Add `w` paths to `b`; its index in [`Merger::into_vec`]'s order. `Err` (nothing added) when the merged
    /// positions would outgrow the budget.
    #[inline]
    pub(crate) fn add(&mut self, b: Board, w: W) -> std::result::Result<usize, TooBig> {
        let Merger { table, out, budget } = self;
        if let Some(&k) = table.find(b.key, |&k| out[k as usize].0 == b) {
            out[k as usize].1 += w;
            return Ok(k as usize);
        }
        if out.len() == out.capacity() || table.len() == table.capacity() {
            // Grow both by half (not the default doubling) and only within the budget.
            let more = (out.len() / 2).max(1024);
            let after = (out.len() + more) as u64 * entry_bytes::<W>();
            if after > *budget || out.len() >= u32::MAX as usize {
                return Err(TooBig {
                    positions: out.len(),
                    bytes: self.bytes(),
                    needed: after,
                    budget: self.budget,
                });
            }
            Self::grow(table, out, more);
        }
        let k = out.len() as u32;
        table.insert_unique(b.key, k, |&k| out[k as usize].0.key);
        out.push((b, w));
        Ok(k as usize)
    }

    /// Make room for `more` positions beyond those held, at once, where that fits the budget (else nothing:
    /// [`Merger::add`] then grows by half, within the budget). An expansion calls it with the number of
    /// children of each chunk before merging them (at most that many are new), so that a level grows in one
    /// step where it fits, not by half about ten times (each a copy of the positions and a rehash); room not
    /// used is never written, so it costs no page of memory.
    pub(crate) fn make_room(&mut self, more: usize) {
        let Merger { table, out, budget } = self;
        let want = out.len().saturating_add(more);
        if want <= out.capacity() && want <= table.capacity() {
            return;
        }
        if want as u64 * entry_bytes::<W>() > *budget || want >= u32::MAX as usize {
            return;
        }
        Self::grow(table, out, want - out.len());
    }

    /// Room for `more` positions beyond those held, in the vector (its new room offered to huge pages before
    /// it is written) and in the table (which holds one index per position, so the same number).
    fn grow(table: &mut HashTable<u32>, out: &mut Vec<(Board, W)>, more: usize) {
        out.reserve_exact(more);
        super::memory::advise_spare(out);
        table.reserve(more, |&k| out[k as usize].0.key);
    }

    /// Number of distinct positions.
    #[cfg_attr(not(feature = "deep"), allow(dead_code))] // the deep split's
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// The positions in the order they were first added, with their weights.
    #[cfg_attr(not(feature = "deep"), allow(dead_code))] // the deep split's
    pub(crate) fn positions(&self) -> &[(Board, W)] {
        &self.out
    }

    /// Forget every position and hold at most `budget` bytes from now on; the memory is kept for the next
    /// positions where it fits the budget.
    #[cfg_attr(not(feature = "deep"), allow(dead_code))] // the deep split's
    pub(crate) fn clear(&mut self, budget: u64) {
        if self.bytes() > budget {
            // What it kept would not fit the new budget.
            *self = Merger::new(budget);
            return;
        }
        self.table.clear();
        self.out.clear();
        self.budget = budget;
    }

    /// The positions in the order they were first added, with their weights (the table is freed).
    pub(crate) fn into_vec(self) -> Vec<(Board, W)> {
        self.out
    }
}

/// Collects a position's children (the legal moves played), dropping e.p. squares no legal capture uses.
struct Children<'a> {
    b: &'a Board,
    cd: &'a CastlingData,
    out: &'a mut Vec<Board>,
}

impl Consumer for Children<'_> {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        let mut c = self.b.make::<true>(self.cd, m);
        usable_ep(&mut c, self.cd);
        self.out.push(c);
    }
}

/// Notes whether a legal en-passant capture exists.
#[derive(Default)]
struct EpProbe(bool);

impl Sink for EpProbe {
    #[inline(always)]
    fn piece(&mut self, _role: usize, _from: usize, _targets: u64) {}
    #[inline(always)]
    fn pawns(&mut self, _targets: u64, _delta: i32, _promo: u64) {}
    #[inline(always)]
    fn en_passant(&mut self, _from: usize, _to: usize) {
        self.0 = true;
    }
    #[inline(always)]
    fn castle(&mut self, _king: usize, _rook: usize) {}
}

/// Drop `b`'s e.p. square when no legal en-passant capture uses it (FIDE 3.7.d), keeping its hashes exact.
#[inline]
pub(crate) fn usable_ep(b: &mut Board, cd: &CastlingData) {
    if b.ep == NO_EP {
        return;
    }
    let mut probe = EpProbe::default();
    movegen::generate::<MagicSliders, _>(b, cd, &mut probe);
    if !probe.0 {
        b.drop_ep(cd);
    }
}

/// The children of `b`, one per legal move (so a transposition appears as often as moves lead to it).
#[cfg(test)]
pub(crate) fn children(b: &Board, cd: &CastlingData) -> Vec<Board> {
    let mut out = Vec::with_capacity(48);
    children_into(b, cd, &mut out);
    out
}

/// [`children`], appended to `out`.
fn children_into(b: &Board, cd: &CastlingData, out: &mut Vec<Board>) {
    let mut c = Children { b, cd, out };
    movegen::generate::<MagicSliders, _>(b, cd, &mut c);
}

/// Most parts a chunk of parents is cut into for the workers (enough to balance two to a few dozen threads).
const PARTS: usize = 64;

/// Buffers an expansion reuses from chunk to chunk, and from call to call when the caller keeps them
/// ([`next_ply_merged`]): per part of a chunk, the children its parents made, one after the other, and where
/// each parent's end. One growing list per part instead of one list per parent: the children of a chunk are
/// made without an allocation per parent (which a worker made and the main thread freed, and whose pages the
/// allocator gave back and faulted in again, issue 36).
#[derive(Default)]
pub(crate) struct Scratch {
    parts: Vec<(Vec<Board>, Vec<u32>)>,
}

/// Parents expanded at a time by [`next_ply_merged`]: fewer than [`CHUNK`], so that the children it holds at
/// once (about 22 × 88 bytes per parent at the start position's ply 4, one list per part kept from chunk to
/// chunk) stay about 1 MB, written once and reused, instead of 8 MB grown by doubling (issue 36).
const MERGED_CHUNK: usize = 512;

/// Calls `each(into, parent, child, weight)` for every child of every position of `level`, parents in order
/// and each parent's children in move order, the children made a chunk of `chunk` parents at a time in
/// parallel into `scratch`; before each chunk's children, `made(into, n, parents)`: their number, and the
/// number of parents expanded once they are handed over. Stops at `each`'s first error.
fn each_child<W: Weight, T, E>(
    (level, chunk): (&[(Board, W)], usize),
    cd: &CastlingData,
    scratch: &mut Scratch,
    into: &mut T,
    made: impl Fn(&mut T, usize, usize),
    mut each: impl FnMut(&mut T, usize, Board, W) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let size = chunk;
    for (done, chunk) in level.chunks(size).enumerate() {
        let per = chunk.len().div_ceil(PARTS);
        let n = chunk.len().div_ceil(per);
        if scratch.parts.len() < n {
            scratch.parts.resize_with(n, Default::default);
        }
        scratch.parts[..n]
            .par_iter_mut()
            .zip(chunk.par_chunks(per))
            .for_each(|((kids, ends), parents)| {
                kids.clear();
                ends.clear();
                for (b, _) in parents {
                    children_into(b, cd, kids);
                    ends.push(kids.len() as u32);
                }
            });
        let kids = scratch.parts[..n].iter().map(|(k, _)| k.len()).sum();
        made(into, kids, done * size + chunk.len());
        let mut parent = done * size;
        for (kids, ends) in &scratch.parts[..n] {
            let mut start = 0;
            for &end in ends {
                let w = level[parent].1;
                for &c in &kids[start..end as usize] {
                    each(into, parent, c, w)?;
                }
                start = end as usize;
                parent += 1;
            }
        }
    }
    Ok(())
}

/// The next ply of `level`: every child of every position, carrying its parent's weight; with `merge`, each
/// distinct child once with the sum of the weights of the paths reaching it (in the order first reached). At
/// most `budget` bytes are held for the new level (see the module docs).
///
/// # Errors
/// [`TooBig`] when the new level does not fit.
pub(crate) fn next_ply<W: Weight>(
    level: &[(Board, W)],
    cd: &CastlingData,
    merge: bool,
    budget: u64,
) -> std::result::Result<Vec<(Board, W)>, TooBig> {
    expand(level, cd, merge, budget, |_, _| {})
}

/// A level and, per parent of the level above, the indices of its children in it ([`next_ply_linked`]).
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // used by the GPU host levels only
pub(crate) type Linked<W> = (Vec<(Board, W)>, Vec<Vec<u32>>);

/// [`next_ply`], also telling where each parent's children went: `links[i]` holds, for parent `i`, the index
/// in the new level of each of its children, one per legal move (so a transposition within one parent's moves
/// appears twice). For callers that fold counts back up the levels (the GPU host levels).
///
/// # Errors
/// [`TooBig`] when the new level does not fit.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // used by the GPU host levels only
pub(crate) fn next_ply_linked<W: Weight>(
    level: &[(Board, W)],
    cd: &CastlingData,
    merge: bool,
    budget: u64,
) -> std::result::Result<Linked<W>, TooBig> {
    let mut links: Vec<Vec<u32>> = vec![Vec::new(); level.len()];
    let next = expand(level, cd, merge, budget, |parent, child| {
        links[parent].push(child as u32)
    })?;
    Ok((next, links))
}

/// [`next_ply`] with merging, into `next` (emptied first, its memory kept) with `scratch`'s buffers: a caller
/// that expands many levels (the deep split's frontier, root move by root move) keeps both and allocates
/// nothing per level once they have grown. At most `budget` bytes are held in `next`.
///
/// # Errors
/// [`TooBig`] when the new level does not fit.
#[cfg_attr(not(feature = "deep"), allow(dead_code))] // the deep split's
pub(crate) fn next_ply_merged<W: Weight>(
    level: &[(Board, W)],
    cd: &CastlingData,
    budget: u64,
    scratch: &mut Scratch,
    next: &mut Merger<W>,
) -> std::result::Result<(), TooBig> {
    next.clear(budget);
    // Room for the whole level at once where it fits: the positions so far and the chunk's children (some
    // of them transpositions) scaled to all parents, else for the chunk's children.
    let room = |next: &mut Merger<W>, kids: usize, parents: usize| {
        let so_far = next.len() + kids;
        let whole = (so_far as u128 * level.len() as u128 / parents.max(1) as u128) as usize;
        next.make_room(whole - next.len());
        next.make_room(kids);
    };
    each_child(
        (level, MERGED_CHUNK),
        cd,
        scratch,
        next,
        room,
        |next, parent, c, w| {
            next.add(c, w).map(|_| ()).map_err(|e| TooBig {
                needed: scaled(e.needed, parent, level.len()),
                ..e
            })
        },
    )
}

/// `held` bytes for the parents up to `parent` (from 0) scaled to a level of `parents` parents (at least
/// `held`): the estimate of a whole level from the share of its parents expanded so far.
fn scaled(held: u64, parent: usize, parents: usize) -> u64 {
    let whole = held as u128 * parents as u128 / (parent + 1) as u128;
    (whole.min(u64::MAX as u128) as u64).max(held)
}

/// The expansion behind [`next_ply`] and [`next_ply_linked`]: `link(parent, child)` is told the index of each
/// parent's each child in the new level.
fn expand<W: Weight>(
    level: &[(Board, W)],
    cd: &CastlingData,
    merge: bool,
    budget: u64,
    mut link: impl FnMut(usize, usize),
) -> std::result::Result<Vec<(Board, W)>, TooBig> {
    let mut merged = Merger::new(budget);
    let mut plain: Vec<(Board, W)> = Vec::new();
    let each = std::mem::size_of::<(Board, W)>() as u64;
    let none = |_: &mut (), _, _| {};
    each_child(
        (level, CHUNK),
        cd,
        &mut Scratch::default(),
        &mut (),
        none,
        |_, parent, c, w| {
            if merge {
                let at = merged.add(c, w).map_err(|e| TooBig {
                    needed: scaled(e.needed, parent, level.len()),
                    ..e
                })?;
                link(parent, at);
            } else {
                if (plain.len() as u64 + 1) * each > budget {
                    let bytes = plain.len() as u64 * each;
                    return Err(TooBig {
                        positions: plain.len(),
                        bytes,
                        needed: scaled(bytes + each, parent, level.len()),
                        budget,
                    });
                }
                link(parent, plain.len());
                plain.push((c, w));
            }
            Ok(())
        },
    )?;
    Ok(if merge { merged.into_vec() } else { plain })
}

/// Positions below several roots, which need not share their castling data (a root's moves with fewer rights
/// left, or Chess960 roots with other rook files): each root's board in the frontier's form (usable e.p.
/// squares only) and the index of its *family*, roots whose castling data agree on every right both have (the
/// same rook square, and per colour the same king square): one [`CastlingData`] made of all their rights serves
/// them all, so their positions merge as one root's would. Boards of different families are never merged
/// (their castling bits may name different rooks), so a caller expands each family's positions with its own
/// data ([`next_ply`], [`next_ply_linked`]). Used by the GPU host levels.
#[derive(Default)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // used by the GPU host levels only
pub(crate) struct Families {
    list: Vec<Family>,
}

/// One family of [`Families`]: the union of its roots' castling data, the rights it has data for, and per
/// colour the king's square where that colour has a right.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // used by the GPU host levels only
struct Family {
    cd: CastlingData,
    rights: u8,
    kings: [Option<u8>; 2],
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // used by the GPU host levels only
impl Families {
    /// The board of `root` and its family (a new one when no family's castling data agrees with its).
    pub(crate) fn root(&mut self, root: &Setup) -> (Board, usize) {
        let (mut b, cd) = Board::from_setup(root);
        usable_ep(&mut b, &cd);
        let rights = b.castling;
        let mut kings = [None; 2];
        for (c, king) in kings.iter_mut().enumerate() {
            if rights & (0b11 << (2 * c)) != 0 {
                *king = Some((b.roles[KING_I] & b.colors[c]).trailing_zeros() as u8);
            }
        }
        let agrees = |f: &Family| {
            (0..2).all(|c| match (f.kings[c], kings[c]) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }) && (0..4).all(|r| f.rights & rights & (1 << r) == 0 || f.cd.rook[r] == cd.rook[r])
        };
        let family = match self.list.iter().position(agrees) {
            Some(f) => f,
            None => {
                self.list.push(Family {
                    cd: cd.clone(),
                    rights: 0,
                    kings: [None; 2],
                });
                self.list.len() - 1
            }
        };
        // Add the root's rights the family has no data for (their squares' `keep` bits only clear those
        // rights, which the family's other boards do not have).
        let f = &mut self.list[family];
        for r in (0..4).filter(|&r| rights & !f.rights & (1 << r) != 0) {
            f.cd.rook[r] = cd.rook[r];
            f.cd.king_to[r] = cd.king_to[r];
            f.cd.empty[r] = cd.empty[r];
            f.cd.path[r] = cd.path[r];
            for (mine, theirs) in f.cd.keep.iter_mut().zip(cd.keep) {
                *mine &= theirs | !(1 << r);
            }
        }
        f.rights |= rights;
        for (mine, theirs) in f.kings.iter_mut().zip(kings) {
            *mine = mine.or(theirs);
        }
        (b, family)
    }

    /// Family `f`'s castling data.
    pub(crate) fn cd(&self, f: usize) -> &CastlingData {
        &self.list[f].cd
    }

    /// Number of families.
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(fen: &str, plies: u32, merge: bool) -> Vec<(Board, u64)> {
        let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        let mut l = vec![(b, 1u64)];
        for _ in 0..plies {
            l = next_ply(&l, &cd, merge, u64::MAX).unwrap();
        }
        l
    }

    #[test]
    fn merged_and_plain_levels_have_the_perft_paths() {
        // CPW "Perft Results" position 3 (e.p. and checks), perft 1..4 = 14, 191, 2812, 43238.
        let fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
        for (plies, paths) in [(1, 14u64), (2, 191), (3, 2812), (4, 43238)] {
            let merged = level(fen, plies, true);
            let plain = level(fen, plies, false);
            assert_eq!(merged.iter().map(|x| x.1).sum::<u64>(), paths);
            assert_eq!(plain.len() as u64, paths);
            // No transposition within two plies; from the third on, some.
            assert!(merged.len() < plain.len() || plies <= 2);
        }
    }

    #[test]
    fn a_budget_too_small_is_refused_with_an_estimate() {
        let (b, cd) = Board::from_setup(&Setup::startpos());
        let mut l = vec![(b, 1u64)];
        for _ in 0..3 {
            l = next_ply(&l, &cd, true, u64::MAX).unwrap();
        }
        // Ply 4 has 72,078 distinct positions: 1 MiB holds about 10,000.
        let e = next_ply(&l, &cd, true, 1 << 20).unwrap_err();
        assert!(e.bytes <= 1 << 20 && e.positions > 5000, "{e:?}");
        let real = 72_078 * entry_bytes::<u64>();
        assert!(
            e.needed > real / 2 && e.needed < real * 3,
            "{e:?} vs {real}"
        );
    }

    #[test]
    fn reused_buffers_and_levels_give_the_published_counts() {
        // One scratch and two mergers for every level of two roots, as the deep split keeps them: CPW
        // "Perft Results" position 3 (perft 1..4 = 14, 191, 2812, 43238), then the start position (perft 4 =
        // 197,281; 72,078 distinct positions at ply 4, OEIS A083276), whose ply 3 (5,362 positions) is more
        // than a chunk of parents and whose first plies are fewer parents than a chunk has parts.
        let mut scratch = Scratch::default();
        let (mut cur, mut next) = (Merger::<u64>::new(u64::MAX), Merger::new(u64::MAX));
        let roots = [
            ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 43238u64, None),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                197_281,
                Some(72_078),
            ),
        ];
        for (fen, paths, distinct) in roots {
            let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            cur.clear(u64::MAX);
            cur.add(b, 1).unwrap();
            for _ in 0..4 {
                let once = next_ply(cur.positions(), &cd, true, u64::MAX).unwrap();
                next_ply_merged(cur.positions(), &cd, u64::MAX, &mut scratch, &mut next).unwrap();
                // The same positions in the same order as a fresh expansion's.
                assert!(next.positions() == once.as_slice());
                std::mem::swap(&mut cur, &mut next);
            }
            assert_eq!(cur.positions().iter().map(|x| x.1).sum::<u64>(), paths);
            if let Some(d) = distinct {
                assert_eq!(cur.len(), d);
            }
        }
        // A merger that kept more memory than a new budget allows gives it back, and the budget holds.
        let (_, cd) = Board::from_setup(&Setup::startpos());
        let three = level(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            3,
            true,
        );
        assert!(cur.bytes() > 1 << 20);
        let e = next_ply_merged(&three, &cd, 1 << 20, &mut scratch, &mut cur).unwrap_err();
        assert!(e.bytes <= 1 << 20 && e.positions > 5000, "{e:?}");
    }

    #[test]
    fn room_is_made_at_once_and_only_within_the_budget() {
        // The start position's ply 3 (5,362 distinct positions, OEIS A083276): with room made for them
        // first, they are merged without the merger growing; room beyond the budget is not made.
        let three = level(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            3,
            true,
        );
        let mut m = Merger::<u64>::new(u64::MAX);
        m.make_room(three.len());
        let held = m.bytes();
        for &(b, w) in &three {
            m.add(b, w).unwrap();
        }
        assert_eq!((m.len(), m.bytes()), (5362, held));
        let mut small = Merger::<u64>::new(1000 * entry_bytes::<u64>());
        small.make_room(5362);
        assert_eq!(small.bytes(), 0);
        small.make_room(100);
        assert!(small.bytes() > 0 && small.bytes() <= 1000 * entry_bytes::<u64>());
    }

    #[test]
    fn linked_levels_say_where_each_parents_children_went() {
        // Kiwipete (CPW "Perft Results" position 2): perft 1..3 = 48, 2039, 97862.
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let top = level(fen, 1, true);
        let (_, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        for merge in [true, false] {
            let (next, links) = next_ply_linked(&top, &cd, merge, u64::MAX).unwrap();
            assert_eq!(next, next_ply(&top, &cd, merge, u64::MAX).unwrap());
            // One link per legal move, each to that move's position; a child's weight is the sum of its
            // parents' weights over the links reaching it.
            let mut weights = vec![0u64; next.len()];
            for ((parent, w), list) in top.iter().zip(&links) {
                let kids = children(parent, &cd);
                assert_eq!(list.len(), kids.len());
                for (&k, kid) in list.iter().zip(&kids) {
                    assert!(next[k as usize].0 == *kid);
                    weights[k as usize] += w;
                }
            }
            assert!(next.iter().zip(&weights).all(|((_, w), v)| w == v));
            assert_eq!(weights.iter().sum::<u64>(), 2039);
        }
    }

    #[test]
    fn families_share_castling_data_where_the_rights_agree() {
        let mut f = Families::default();
        // Kiwipete's moves as roots of their own (some lose castling rights, so their own castling data lack
        // those rights): one family, whose data has all four rights.
        let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        let kiwi = Setup::from_fen(fen).unwrap();
        let (root, cd) = Board::from_setup(&kiwi);
        let mut level: Vec<(Board, u64)> = Vec::new();
        for kid in children(&root, &cd) {
            let (b, family) = f.root(&kid.to_setup(&cd));
            assert_eq!(family, 0);
            level.push((b, 1));
        }
        assert_eq!(f.len(), 1);
        assert_eq!(f.cd(0).rook, cd.rook);
        assert_eq!(f.cd(0).keep, cd.keep);
        // Expanded with the family's data, the moves' positions are the root's children (perft 2 and 3 of
        // Kiwipete: 2039, 97862).
        let mut kids = children(&root, &cd);
        let mut moves: Vec<Board> = level.iter().map(|x| x.0).collect();
        kids.sort_by_key(|b| b.key);
        moves.sort_by_key(|b| b.key);
        assert!(kids == moves);
        let two = next_ply(&level, f.cd(0), true, u64::MAX).unwrap();
        assert_eq!(two.iter().map(|x| x.1).sum::<u64>(), 2039);
        let three = next_ply(&two, f.cd(0), true, u64::MAX).unwrap();
        assert_eq!(three.iter().map(|x| x.1).sum::<u64>(), 97862);
        // A Chess960 root whose white king stands elsewhere (CPW Chess960 position 1): a family of its own.
        let c960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
        assert_eq!(f.root(&Setup::from_fen(c960).unwrap()).1, 1);
        // A root without castling rights agrees with every family.
        let bare = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
        assert_eq!(f.root(&Setup::from_fen(bare).unwrap()).1, 0);
        assert_eq!(f.len(), 2);
    }
}
