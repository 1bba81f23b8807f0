//! The lock-free shared table of subtree counts, keyed by Zobrist key and remaining depth.
//!
//! Layout: buckets of four 16-byte entries (one 64-byte cache line). An entry is two `AtomicU64`s,
//! `data = count << 8 | depth` and `check = key ^ data` (Hyatt's lockless XOR trick): a reader accepts an entry
//! only when `check ^ data` equals its full 64-bit key and the depth matches, so a torn write (another thread
//! storing between the two loads) reads as a miss. Relaxed ordering suffices: a stale entry is still exact.
//! Replacement: the entry with the same key and depth, else an empty one, else the shallowest.
//!
//! **False hits.** A hit needs all 64 key bits and the depth to match. Two different positions share a key
//! with probability 2^-64 (the keys are independent random 64-bit values XORed), and a probe compares with at
//! most 4 stored entries, so one probe is a false hit with probability at most 4 · 2^-64 ≈ 2.2 · 10^-19.
//! Perft(8) of the start position probes about 3 · 10^9 times: at most ≈ 6.5 · 10^-10 for a wrong total.
//!
//! **Memory.** `HashTable::new(mb)` allocates `floor(mb · 2^20 / 64)` buckets, never more than `mb` MiB; the
//! bucket index is `(key · buckets) >> 64` (Lemire's multiply-shift), so any size is usable, not only powers of
//! two.
//! Counts of 2^56 or more are not stored (never reached below depth 11).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

#[derive(Default)]
#[repr(align(64))]
struct Bucket([Entry; 4]);

/// A fixed array of buckets indexed by a 64-bit key (Lemire's multiply-shift: any size is usable), sized from
/// a MiB budget: the storage of the count table and of the statistics table (`stats_table.rs`).
pub(super) struct Buckets<B>(Vec<B>);

impl<B: Default> Buckets<B> {
    /// `floor(mb · 2^20 / size_of::<B>())` buckets, never more than `mb` MiB; `None` when that is none.
    ///
    /// # Errors
    /// The allocator could not give the memory.
    pub(super) fn with_mb(mb: usize) -> Result<Option<Self>, std::collections::TryReserveError> {
        let n = mb.saturating_mul(1 << 20) / std::mem::size_of::<B>();
        if n == 0 {
            return Ok(None);
        }
        let mut v = Vec::new();
        v.try_reserve_exact(n)?;
        v.resize_with(n, B::default);
        Ok(Some(Buckets(v)))
    }
}

impl<B> Buckets<B> {
    /// Bytes allocated.
    pub(super) fn bytes(&self) -> usize {
        self.0.capacity() * std::mem::size_of::<B>()
    }

    /// The bucket of `key`.
    #[inline(always)]
    pub(super) fn get(&self, key: u64) -> &B {
        let i = ((key as u128 * self.0.len() as u128) >> 64) as usize;
        &self.0[i]
    }

    /// Every bucket.
    pub(super) fn iter(&self) -> std::slice::Iter<'_, B> {
        self.0.iter()
    }
}

/// The CPU backend's hash table of subtree counts (`--hash`), shared by all threads. `Sync`: every access is
/// atomic.
pub struct HashTable {
    buckets: Buckets<Bucket>,
}

impl HashTable {
    /// A table of at most `mb` MiB; `None` when `mb` is 0 (hashing off).
    pub fn new(mb: usize) -> Option<HashTable> {
        HashTable::try_new(mb).expect("memory for the hash table")
    }

    /// As [`HashTable::new`], but a failed allocation is an error instead of an abort.
    ///
    /// # Errors
    /// The allocator could not give the memory.
    pub fn try_new(mb: usize) -> Result<Option<HashTable>, std::collections::TryReserveError> {
        Ok(Buckets::with_mb(mb)?.map(|buckets| HashTable { buckets }))
    }

    /// Bytes allocated.
    pub fn bytes(&self) -> usize {
        self.buckets.bytes()
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &Bucket {
        self.buckets.get(key)
    }

    /// The stored count of the subtree of depth `depth` below the position with key `key`.
    #[inline(always)]
    pub fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        for e in &self.bucket(key).0 {
            let data = e.data.load(Relaxed);
            if data & 0xff == depth as u64 && e.check.load(Relaxed) ^ data == key {
                return Some(data >> 8);
            }
        }
        None
    }

    /// Store a subtree count.
    #[inline(always)]
    pub fn store(&self, key: u64, depth: u32, count: u64) {
        if count >> 56 != 0 {
            return;
        }
        let data = count << 8 | depth as u64;
        let bucket = self.bucket(key);
        let mut victim = &bucket.0[0];
        let mut victim_depth = u64::MAX;
        for e in &bucket.0 {
            let d = e.data.load(Relaxed);
            if d == 0 || e.check.load(Relaxed) ^ d == key {
                victim = e;
                break;
            }
            if d & 0xff < victim_depth {
                victim_depth = d & 0xff;
                victim = e;
            }
        }
        victim.data.store(data, Relaxed);
        victim.check.store(key ^ data, Relaxed);
    }

    /// Forget everything.
    pub fn clear(&self) {
        for b in self.buckets.iter() {
            for e in &b.0 {
                e.data.store(0, Relaxed);
                e.check.store(0, Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_allocates_more_than_asked() {
        assert!(HashTable::new(0).is_none());
        for mb in [1, 3, 7, 64] {
            let t = HashTable::new(mb).unwrap();
            assert!(t.bytes() <= mb << 20, "{mb} MiB: {} bytes", t.bytes());
            assert!(t.bytes() > (mb << 20) - 64);
        }
    }

    #[test]
    fn stores_and_finds_by_key_and_depth() {
        let t = HashTable::new(1).unwrap();
        t.store(0xdead_beef_1234_5678, 5, 4_865_609);
        assert_eq!(t.probe(0xdead_beef_1234_5678, 5), Some(4_865_609));
        assert_eq!(t.probe(0xdead_beef_1234_5678, 4), None);
        assert_eq!(t.probe(0xdead_beef_1234_5679, 5), None);
        t.store(1, 3, 1 << 56);
        assert_eq!(t.probe(1, 3), None);
    }
}
