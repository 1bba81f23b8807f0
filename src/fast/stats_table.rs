//! The shared table of subtree statistics ([`StatsTable`]), keyed like the count table ([`super::hash`]) by
//! Zobrist key and remaining depth, holding a leaf count and the [`crate::backend::Column::BASE`] counts.
//!
//! Layout: buckets of two 128-byte entries (key, depth, leaf count, thirteen `u32` counts). The first entry of
//! a bucket keeps the deeper subtree, the second takes whatever the first refused.
//!
//! **Consistency.** An entry spans several words, so the count table's XOR check cannot guard it; each entry
//! has a sequence number instead (a seqlock): a writer claims the entry by moving the number from even to odd
//! with a compare-and-swap (skipping the store when another writer holds it), writes, and makes it even again;
//! a reader accepts what it read only when the number was even and unchanged across the reads, and the full
//! 64-bit key and the depth match. Wrong hits then need a 64-bit key collision (see [`super::hash`]).
//!
//! **Memory.** `StatsTable::new(mb)` allocates `floor(mb · 2^20 / 256)` buckets, never more than `mb` MiB.
//! Subtrees with a column of 2^32 or more are not stored (they are above the frontier of any run this
//! machine finishes: a depth-6 subtree has at most a few 10^9 leaves).

use super::stats::Tally;
use crate::backend::BASE_COLUMNS;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

#[derive(Default)]
#[repr(align(128))]
struct Entry {
    seq: AtomicU32,
    depth: AtomicU32,
    key: AtomicU64,
    nodes: AtomicU64,
    base: [AtomicU32; BASE_COLUMNS],
}

impl Entry {
    /// The stored tally when it is for (`key`, `depth`) and was read whole.
    #[inline(always)]
    fn read(&self, key: u64, depth: u32) -> Option<Tally> {
        let s1 = self.seq.load(Ordering::Acquire);
        if s1 & 1 != 0 {
            return None;
        }
        if self.key.load(Ordering::Relaxed) != key || self.depth.load(Ordering::Relaxed) != depth {
            return None;
        }
        let mut t = Tally {
            nodes: self.nodes.load(Ordering::Relaxed),
            ..Tally::default()
        };
        for (v, a) in t.base.iter_mut().zip(&self.base) {
            *v = a.load(Ordering::Relaxed) as u64;
        }
        fence(Ordering::Acquire);
        if self.seq.load(Ordering::Relaxed) != s1 {
            return None;
        }
        Some(t)
    }

    /// Store `t` unless another writer holds the entry.
    #[inline(always)]
    fn write(&self, key: u64, depth: u32, t: &Tally, base: &[u32; BASE_COLUMNS]) {
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
        self.key.store(key, Ordering::Relaxed);
        self.depth.store(depth, Ordering::Relaxed);
        self.nodes.store(t.nodes, Ordering::Relaxed);
        for (a, &v) in self.base.iter().zip(base) {
            a.store(v, Ordering::Relaxed);
        }
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }
}

#[derive(Default)]
struct Bucket([Entry; 2]);

/// The shared statistics table. `Sync`: every access is atomic.
pub struct StatsTable {
    buckets: Vec<Bucket>,
}

const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();

impl StatsTable {
    /// A table of at most `mb` MiB; `None` when that holds no bucket (hashing off).
    pub fn new(mb: usize) -> Option<StatsTable> {
        let n = mb.saturating_mul(1 << 20) / BUCKET_BYTES;
        if n == 0 {
            return None;
        }
        let mut buckets = Vec::new();
        buckets.reserve_exact(n);
        buckets.resize_with(n, Bucket::default);
        Some(StatsTable { buckets })
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.buckets.capacity() * BUCKET_BYTES
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[i]
    }

    /// Add the stored statistics of (`key`, `depth`) to `t`; false (and `t` unchanged) when not stored.
    #[inline(always)]
    pub fn probe(&self, key: u64, depth: u32, t: &mut Tally) -> bool {
        for e in &self.bucket(key).0 {
            if let Some(found) = e.read(key, depth) {
                t.nodes += found.nodes;
                for (a, b) in t.base.iter_mut().zip(found.base) {
                    *a += b;
                }
                return true;
            }
        }
        false
    }

    /// Store the statistics of (`key`, `depth`) (skipped when a count does not fit in 32 bits).
    #[inline(always)]
    pub fn store(&self, key: u64, depth: u32, t: &Tally) {
        let mut base = [0u32; BASE_COLUMNS];
        for (b, &v) in base.iter_mut().zip(&t.base) {
            if v > u32::MAX as u64 {
                return;
            }
            *b = v as u32;
        }
        let [deep, any] = &self.bucket(key).0;
        if deep.depth.load(Ordering::Relaxed) <= depth {
            deep.write(key, depth, t, &base);
        } else {
            any.write(key, depth, t, &base);
        }
    }

    /// Forget everything.
    pub fn clear(&self) {
        for b in &self.buckets {
            for e in &b.0 {
                e.depth.store(0, Ordering::Relaxed);
                e.key.store(0, Ordering::Relaxed);
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
            assert!(t.bytes() > (mb << 20) - BUCKET_BYTES);
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
        t.store(0xdead_beef_1234_5678, 5, &tally);
        let mut got = Tally::default();
        assert!(t.probe(0xdead_beef_1234_5678, 5, &mut got));
        assert_eq!(got, tally);
        assert!(!t.probe(0xdead_beef_1234_5678, 4, &mut got));
        assert!(!t.probe(0xdead_beef_1234_5679, 5, &mut got));
        assert_eq!(got, tally);
        tally.base[3] = 1 << 32;
        t.store(1, 3, &tally);
        assert!(!t.probe(1, 3, &mut got));
    }
}
