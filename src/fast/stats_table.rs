//! The shared table of subtree statistics ([`StatsTable`]), keyed like the count table ([`super::hash`]) by
//! the Zobrist key (which picks the bucket), the independent check hash ([`crate::bitboard::board::Board::check`], a
//! second Zobrist hash, which identifies the position) and the remaining depth, holding a leaf count and the
//! [`crate::backend::Column::BASE`] counts.
//!
//! The probe and replacement code is the count table's (`super::hash::Ways`); this file says how an entry is
//! read and written. It also defines [`Tally`], the counts the statistics walk adds up.
//!
//! Layout: buckets of four 64-byte entries, one cache line each (check hash, `u16` sequence number and depth, `u32`
//! leaf count, eleven `u32` counts and the two rarest, the double-discovered checks and mates, as `u16`). A
//! store goes to the entry already holding the position or an empty one, else replaces the shallowest subtree of
//! the bucket (the policy of the count table). Before, two 128-byte entries per bucket (every count `u32` or
//! wider; the first kept the deeper subtree, the second took the rest): the start position's perft 7 with
//! `--stats --threads 1` took 2.2 s of CPU time, now 1.4 s (twice the entries per MiB, and the many depth-2
//! subtrees no longer evict each other from a single slot).
//!
//! **Consistency.** An entry spans several words, so the count table's XOR check cannot guard it; each entry
//! has a sequence number instead (a seqlock): a writer claims the entry by moving the number from even to odd
//! with a compare-and-swap (skipping the store when another writer holds it), writes, and makes it even again;
//! a reader accepts what it read only when the number was even and unchanged across the reads, and the full
//! 64-bit check hash and the depth match. Wrong hits then need two different positions with equal 64-bit check
//! hashes: at most ≈ 4 · 2^-64 per probe whatever the table's size, the check being independent of the bucket
//! (see [`super::hash`]; before, the Zobrist key was both, and only its 64 − log2(buckets) bits that did not
//! pick the bucket could tell the entries of a bucket apart).
//!
//! **Memory.** `StatsTable::new(mb)` allocates `floor(mb · 2^20 / 256)` buckets, never more than `mb` MiB.
//! Subtrees whose leaf count or a column does not fit its field (2^32 leaves or counts, 2^16 double-discovered
//! checks or mates) are not stored, only walked (they lie near the top of a run: a depth-5 subtree has at
//! most a few 10^8 leaves). The `u16` sequence number wraps after 32768 stores to one entry, far more than
//! can happen during one read.

use super::hash::{Buckets, Way, Ways};
use crate::backend::{Stats, BASE_COLUMNS};
use std::sync::atomic::{fence, AtomicU16, AtomicU32, AtomicU64, Ordering};

/// Leaf count and [`crate::backend::Column::BASE`] counts of a subtree (the derived columns are computed once, at the end).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Tally {
    /// Leaves.
    pub nodes: u64,
    /// Counts in [`crate::backend::Column::BASE`] order.
    pub base: [u64; BASE_COLUMNS],
}

impl Tally {
    /// Add `o`'s counts.
    #[inline(always)]
    pub(super) fn add(&mut self, o: &Tally) {
        self.nodes += o.nodes;
        for (a, b) in self.base.iter_mut().zip(&o.base) {
            *a += b;
        }
    }

    /// The public statistics (derived columns computed).
    pub fn stats(&self) -> Stats {
        Stats::from_base(&self.base)
    }
}

/// Entries per bucket.
const WAYS: usize = 4;

/// Base columns stored as `u16` (the two double-discovered ones, the rarest); the others are `u32`.
const NARROW: [usize; 2] = [8, 12];
/// Base columns stored as `u32`.
const WIDE: usize = BASE_COLUMNS - NARROW.len();

#[derive(Default)]
#[repr(align(64))]
struct Entry {
    check: AtomicU64,
    seq: AtomicU16,
    depth: AtomicU16,
    nodes: AtomicU32,
    wide: [AtomicU32; WIDE],
    narrow: [AtomicU16; NARROW.len()],
}

/// The stored form of a tally: `None` when a count does not fit its field (such subtrees are not stored).
#[inline(always)]
fn pack(t: &Tally) -> Option<(u32, [u32; WIDE], [u16; NARROW.len()])> {
    let nodes = u32::try_from(t.nodes).ok()?;
    let mut wide = [0u32; WIDE];
    let mut narrow = [0u16; NARROW.len()];
    let (mut w, mut n) = (0, 0);
    for (i, &v) in t.base.iter().enumerate() {
        if NARROW.contains(&i) {
            narrow[n] = u16::try_from(v).ok()?;
            n += 1;
        } else {
            wide[w] = u32::try_from(v).ok()?;
            w += 1;
        }
    }
    Some((nodes, wide, narrow))
}

impl Way for Entry {
    type Value = Tally;

    /// The stored tally when it is for (`check`, `depth`) and was read whole.
    #[inline(always)]
    fn read(&self, check: u64, depth: u32) -> Option<Tally> {
        let s1 = self.seq.load(Ordering::Acquire);
        if s1 & 1 != 0 {
            return None;
        }
        if self.check.load(Ordering::Relaxed) != check
            || self.depth.load(Ordering::Relaxed) as u32 != depth
        {
            return None;
        }
        let mut t = Tally {
            nodes: self.nodes.load(Ordering::Relaxed) as u64,
            ..Tally::default()
        };
        let (mut w, mut n) = (0, 0);
        for (i, v) in t.base.iter_mut().enumerate() {
            if NARROW.contains(&i) {
                *v = self.narrow[n].load(Ordering::Relaxed) as u64;
                n += 1;
            } else {
                *v = self.wide[w].load(Ordering::Relaxed) as u64;
                w += 1;
            }
        }
        fence(Ordering::Acquire);
        if self.seq.load(Ordering::Relaxed) != s1 {
            return None;
        }
        Some(t)
    }

    #[inline(always)]
    fn occupant(&self, check: u64) -> (u64, bool) {
        let d = self.depth.load(Ordering::Relaxed);
        (
            d as u64,
            d != 0 && self.check.load(Ordering::Relaxed) == check,
        )
    }
}

impl Entry {
    /// Store the packed tally unless another writer holds the entry.
    #[inline(always)]
    fn write(&self, check: u64, depth: u32, p: &(u32, [u32; WIDE], [u16; NARROW.len()])) {
        let s = self.seq.load(Ordering::Relaxed);
        if s & 1 != 0
            || self
                .seq
                .compare_exchange(s, s.wrapping_add(1), Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        fence(Ordering::Release);
        self.check.store(check, Ordering::Relaxed);
        self.depth.store(depth as u16, Ordering::Relaxed);
        self.nodes.store(p.0, Ordering::Relaxed);
        for (a, &v) in self.wide.iter().zip(&p.1) {
            a.store(v, Ordering::Relaxed);
        }
        for (a, &v) in self.narrow.iter().zip(&p.2) {
            a.store(v, Ordering::Relaxed);
        }
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }
}

/// Four 64-byte entries.
type Bucket = Ways<Entry, WAYS>;

/// The shared statistics table. `Sync`: every access is atomic.
pub struct StatsTable {
    buckets: Buckets<Bucket>,
}

impl StatsTable {
    /// A table of at most `mb` MiB; `None` when that holds no bucket (hashing off).
    pub fn new(mb: usize) -> Option<StatsTable> {
        Buckets::with_mb(mb)
            .expect("memory for the statistics table")
            .map(|buckets| StatsTable { buckets })
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.buckets.bytes()
    }

    /// Add the stored statistics of the subtree of depth `depth` below the position with Zobrist key `index`
    /// and check hash `check` to `t`; false (and `t` unchanged) when not stored.
    #[inline(always)]
    pub fn probe(&self, index: u64, check: u64, depth: u32, t: &mut Tally) -> bool {
        match self.buckets.get(index).probe(check, depth) {
            Some(found) => {
                t.add(&found);
                true
            }
            None => false,
        }
    }

    /// Store the statistics of (`index`, `check`, `depth`) (skipped when a count does not fit its field).
    #[inline(always)]
    pub fn store(&self, index: u64, check: u64, depth: u32, t: &Tally) {
        let (Some(p), Ok(_)) = (pack(t), u16::try_from(depth)) else {
            return;
        };
        self.buckets
            .get(index)
            .victim(check)
            .write(check, depth, &p);
    }

    /// Forget everything.
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for e in &b.0 {
                e.depth.store(0, Ordering::Relaxed);
                e.check.store(0, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_allocates_more_than_asked() {
        assert!(StatsTable::new(0).is_none());
        for mb in [1, 3, 7] {
            let t = StatsTable::new(mb).unwrap();
            assert!(t.bytes() <= mb << 20, "{mb} MiB: {} bytes", t.bytes());
            assert!(t.bytes() > (mb << 20) - std::mem::size_of::<Bucket>());
        }
    }

    #[test]
    fn stores_and_finds_by_key_and_depth() {
        let t = StatsTable::new(1).unwrap();
        let mut tally = Tally {
            nodes: 4_865_609,
            ..Tally::default()
        };
        tally.base[0] = 82_719;
        t.store(0xdead_beef_1234_5678, 0xdead_beef_1234_5678, 5, &tally);
        let mut got = Tally::default();
        assert!(t.probe(0xdead_beef_1234_5678, 0xdead_beef_1234_5678, 5, &mut got));
        assert_eq!(got, tally);
        assert!(!t.probe(0xdead_beef_1234_5678, 0xdead_beef_1234_5678, 4, &mut got));
        assert!(!t.probe(0xdead_beef_1234_5679, 0xdead_beef_1234_5679, 5, &mut got));
        assert_eq!(got, tally);
        tally.base[3] = 1 << 32;
        t.store(1, 1, 3, &tally);
        assert!(!t.probe(1, 1, 3, &mut got));
        // The double-discovered columns are narrow: at most u16::MAX is stored.
        for i in NARROW {
            let mut narrow = Tally {
                nodes: 7,
                ..Tally::default()
            };
            narrow.base[i] = u16::MAX as u64;
            t.store(2 + i as u64, 2 + i as u64, 4, &narrow);
            let mut got = Tally::default();
            assert!(t.probe(2 + i as u64, 2 + i as u64, 4, &mut got));
            assert_eq!(got, narrow);
            narrow.base[i] += 1;
            t.store(100 + i as u64, 100 + i as u64, 4, &narrow);
            assert!(!t.probe(100 + i as u64, 100 + i as u64, 4, &mut got));
        }
        tally.base[3] = 0;
        tally.nodes = 1 << 32;
        t.store(5, 5, 6, &tally);
        assert!(!t.probe(5, 5, 6, &mut got));
    }

    #[test]
    fn the_check_hash_not_the_index_identifies_an_entry() {
        let t = StatsTable::new(1).unwrap();
        let tally = Tally {
            nodes: 97_862,
            ..Tally::default()
        };
        let (index, check) = (0xdead_beef_1234_5678, 0x0123_4567_89ab_cdef);
        t.store(index, check, 3, &tally);
        let mut got = Tally::default();
        // Same bucket, other check hash (one bit off, or the index itself as in the old scheme): a miss.
        assert!(!t.probe(index, check ^ 1, 3, &mut got));
        assert!(!t.probe(index, index, 3, &mut got));
        // Same check hash, an index that picks another bucket: a miss.
        assert!(!t.probe(!index, check, 3, &mut got));
        assert_eq!(got, Tally::default());
        // Another index into the same bucket with the same check hash: a hit.
        assert!(t.probe(index ^ 1, check, 3, &mut got));
        assert_eq!(got, tally);
    }

    #[test]
    fn a_full_bucket_gives_up_its_shallowest_subtree() {
        let t = StatsTable::new(1).unwrap();
        let tally = |n| Tally {
            nodes: n,
            ..Tally::default()
        };
        // Small indices all fall in bucket 0.
        for (key, depth) in [(1, 5), (2, 2), (3, 4), (4, 3)] {
            t.store(key, key, depth, &tally(key));
        }
        t.store(5, 5, 6, &tally(5));
        let mut got = Tally::default();
        assert!(
            !t.probe(2, 2, 2, &mut got),
            "the depth-2 subtree is replaced"
        );
        for (key, depth) in [(1, 5), (3, 4), (4, 3), (5, 6)] {
            let mut got = Tally::default();
            assert!(
                t.probe(key, key, depth, &mut got),
                "key {key} depth {depth}"
            );
            assert_eq!(got, tally(key));
        }
        // The same key again takes its own entry back, whatever its depth.
        t.store(4, 4, 2, &tally(40));
        assert!(!t.probe(4, 4, 3, &mut got));
        assert!(
            t.probe(1, 1, 5, &mut got) && t.probe(3, 3, 4, &mut got) && t.probe(5, 5, 6, &mut got)
        );
    }

    #[test]
    fn entries_fill_one_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 64);
        use crate::backend::Column;
        assert_eq!(Column::BASE[NARROW[0]], Column::DoubleDiscoveredChecks);
        assert_eq!(Column::BASE[NARROW[1]], Column::DoubleDiscoveredMates);
    }
}
