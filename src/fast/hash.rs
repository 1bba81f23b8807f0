//! The lock-free shared table of subtree counts, keyed by two independent 64-bit hashes of the position (the
//! Zobrist key [`crate::bitboard::board::Board::key`] picks the bucket, the check hash [`crate::bitboard::board::Board::check`]
//! identifies the position) and the remaining depth.
//!
//! Layout: buckets of four 16-byte entries (one 64-byte cache line). An entry is two `AtomicU64`s,
//! `data = count << 8 | depth` and `check = check hash ^ data` (Hyatt's lockless XOR trick): a reader accepts
//! an entry only when `check ^ data` equals its full 64-bit check hash and the depth matches, so a torn write
//! (another thread storing between the two loads) reads as a miss. Relaxed ordering suffices: a stale entry is
//! still exact. Replacement: the entry with the same check hash, else an empty one, else the shallowest.
//!
//! **False hits.** The entries met in a bucket were stored by positions whose Zobrist keys chose the same
//! bucket. Had the Zobrist key also been the check (as before), those entries would already agree with ours in
//! the ~log2(buckets) key bits that chose it, leaving 64 − log2(buckets) bits to tell them apart:
//! ≈ 4 · buckets · 2^-64 per probe, about one wrong count per 10^11 probes with `--hash 4096`. The check hash
//! is a second Zobrist hash (the XOR of a second, independent key per feature, updated in `make` beside the
//! first), so for two different positions the check hashes are equal with probability 2^-64, whatever their
//! Zobrist keys and buckets: a probe compares with at most 4 entries, so **a false hit has probability at
//! most 4 · 2^-64 ≈ 2.2 · 10^-19 per probe, whatever the table's size**. Expected false hits over a run =
//! probes × 2.2 · 10^-19. A run probes at most once per node at remaining depth ≥ 2, so start-position perft
//! 8 probes at most 1.24 · 10^8 times (≤ 3 · 10^-11 expected false hits), perft 10 8.8 · 10^10 (≤ 2 · 10^-8),
//! perft 11 2.5 · 10^12 (≤ 6 · 10^-7); see the README. The check keys come from the `--zobrist-seed` seed
//! too, so another seed changes both hashes.
//!
//! **Memory.** `HashTable::new(mb)` allocates `floor(mb · 2^20 / 64)` buckets, never more than `mb` MiB; the
//! bucket index is `(key · buckets) >> 64` (Lemire's multiply-shift), so any size is usable, not only powers of
//! two.
//! Counts of 2^56 or more are not stored (never reached below depth 11).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// One entry of a bucket, as the shared probe and replacement code ([`Ways`]) sees it; each table says how
/// its entry is read and what it holds.
pub(super) trait Way {
    /// What a hit gives.
    type Value;
    /// The stored value when the entry holds the subtree of depth `depth` below the position with check hash
    /// `check` and was read whole (else `None`).
    fn read(&self, check: u64, depth: u32) -> Option<Self::Value>;
    /// The depth stored (0 when empty) and whether the entry holds the position with check hash `check`.
    fn occupant(&self, check: u64) -> (u64, bool);
}

/// A bucket: `N` entries in one or more whole cache lines. The one probe and replacement code of both CPU
/// tables: a probe takes the first entry that reads as a hit; a store goes to the entry already holding the
/// position or an empty one, else replaces the shallowest subtree of the bucket.
#[repr(align(64))]
pub(super) struct Ways<W, const N: usize>(pub(super) [W; N]);

impl<W: Default, const N: usize> Default for Ways<W, N> {
    fn default() -> Self {
        Ways(std::array::from_fn(|_| W::default()))
    }
}

impl<W: Way, const N: usize> Ways<W, N> {
    /// The first hit in the bucket.
    #[inline(always)]
    pub(super) fn probe(&self, check: u64, depth: u32) -> Option<W::Value> {
        for e in &self.0 {
            if let Some(v) = e.read(check, depth) {
                return Some(v);
            }
        }
        None
    }

    /// The entry a store of the position with check hash `check` goes to.
    #[inline(always)]
    pub(super) fn victim(&self, check: u64) -> &W {
        let mut victim = &self.0[0];
        let mut victim_depth = u64::MAX;
        for e in &self.0 {
            let (d, holds) = e.occupant(check);
            if d == 0 || holds {
                return e;
            }
            if d < victim_depth {
                victim_depth = d;
                victim = e;
            }
        }
        victim
    }
}

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

impl Way for Entry {
    type Value = u64;

    #[inline(always)]
    fn read(&self, check: u64, depth: u32) -> Option<u64> {
        let data = self.data.load(Relaxed);
        (data & 0xff == depth as u64 && self.check.load(Relaxed) ^ data == check)
            .then_some(data >> 8)
    }

    #[inline(always)]
    fn occupant(&self, check: u64) -> (u64, bool) {
        let d = self.data.load(Relaxed);
        // An empty entry is all zero; a stored one has a depth of 1 or more in its low byte.
        (d & 0xff, d != 0 && self.check.load(Relaxed) ^ d == check)
    }
}

/// Entries per bucket.
pub const WAYS: usize = 4;

/// Four 16-byte entries: one 64-byte cache line.
type Bucket = Ways<Entry, WAYS>;

/// A one-byte digest of an entry (its check hash and data word), never 0 (the mark of "nothing seen"): what
/// [`HashTable::export_changed`] remembers of the entries it exported.
#[inline(always)]
fn tag(check: u64, data: u64) -> u8 {
    let x = (check ^ data.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((x >> 56) as u8).max(1)
}

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
        let mut v: Vec<B> = Vec::new();
        v.try_reserve_exact(n)?;
        // Huge pages before the first write: 32 page faults for 64 MiB, not 16,384.
        crate::bitboard::memory::advise_spare(&mut v);
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

    /// The stored count of the subtree of depth `depth` below the position with Zobrist key `index` and check
    /// hash `check` ([`crate::bitboard::board::Board::check`]).
    #[inline(always)]
    pub fn probe(&self, index: u64, check: u64, depth: u32) -> Option<u64> {
        self.buckets.get(index).probe(check, depth)
    }

    /// Store a subtree count.
    #[inline(always)]
    pub fn store(&self, index: u64, check: u64, depth: u32, count: u64) {
        if count >> 56 != 0 {
            return;
        }
        let data = count << 8 | depth as u64;
        let victim = self.buckets.get(index).victim(check);
        victim.data.store(data, Relaxed);
        victim.check.store(check ^ data, Relaxed);
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

/// Bytes of one entry in [`HashTable::export`]'s stream: the bucket (u64), the check hash (u64) and the data
/// word `count << 8 | depth` (u64), little-endian.
pub const EXPORT_RECORD_BYTES: usize = 24;

impl HashTable {
    /// Number of buckets (entries are placed by bucket, so a table is imported only into one of as many).
    pub fn buckets(&self) -> usize {
        self.buckets.0.len()
    }

    /// Stream the entries whose depth is in `depths` to `sink`, in [`EXPORT_RECORD_BYTES`]-byte records, some
    /// sixteen thousand records per call (no copy of the table is made); returns the number of records. Entries
    /// stored while the export runs may be read torn: such a record holds a check hash of no position, so it
    /// reads as a miss once imported (the lockless XOR scheme of the module header).
    ///
    /// # Errors
    /// What `sink` returns.
    pub fn export(
        &self,
        depths: std::ops::Range<u32>,
        sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<u64> {
        self.export_changed(depths, None, sink)
    }

    /// As [`HashTable::export`]; with `seen` (one byte per entry of the table, [`HashTable::entries`]; resized
    /// with zeros when it is not that long), only the entries whose [`tag`] differs from their byte there, which
    /// is then set to it: with a fresh (zero) `seen` every entry of `depths`, and from then on only those
    /// stored since (an incremental snapshot). A changed entry whose tag happens to equal the old one (one in
    /// 255) is left out: a snapshot without it is still exact, it only holds one entry fewer.
    ///
    /// # Errors
    /// What `sink` returns.
    pub fn export_changed(
        &self,
        depths: std::ops::Range<u32>,
        mut seen: Option<&mut Vec<u8>>,
        sink: &mut dyn FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<u64> {
        const CHUNK: usize = 16384;
        let (low, end) = (u64::from(depths.start.max(1)), u64::from(depths.end));
        if let Some(seen) = seen.as_deref_mut() {
            if seen.len() != self.entries() {
                seen.clear();
                seen.resize(self.entries(), 0);
            }
        }
        let mut buf = Vec::with_capacity(CHUNK * EXPORT_RECORD_BYTES);
        let mut n = 0u64;
        for (i, b) in self.buckets.iter().enumerate() {
            for (w, e) in b.0.iter().enumerate() {
                let data = e.data.load(Relaxed);
                let depth = data & 0xff;
                if depth < low || depth >= end {
                    continue;
                }
                let check = e.check.load(Relaxed) ^ data;
                if let Some(seen) = seen.as_deref_mut() {
                    let (slot, t) = (i * WAYS + w, tag(check, data));
                    if seen[slot] == t {
                        continue;
                    }
                    seen[slot] = t;
                }
                buf.extend_from_slice(&(i as u64).to_le_bytes());
                buf.extend_from_slice(&check.to_le_bytes());
                buf.extend_from_slice(&data.to_le_bytes());
                n += 1;
                if buf.len() >= CHUNK * EXPORT_RECORD_BYTES {
                    sink(&buf)?;
                    buf.clear();
                }
            }
        }
        if !buf.is_empty() {
            sink(&buf)?;
        }
        Ok(n)
    }

    /// Number of entries (buckets × [`WAYS`]): the length of [`HashTable::export_changed`]'s `seen`.
    pub fn entries(&self) -> usize {
        self.buckets.0.len() * WAYS
    }

    /// Store the records of [`HashTable::export`] (whole records only) back into their buckets, as
    /// [`HashTable::store`] would; returns false, storing nothing more, at the first record that no export of
    /// a table of this size writes (a bucket out of range, depth 0). The caller checks the stream's checksum
    /// and [`HashTable::clear`]s the table when it does not match.
    pub fn import(&self, records: &[u8]) -> bool {
        let word = |r: &[u8], k: usize| {
            u64::from_le_bytes(r[8 * k..8 * k + 8].try_into().unwrap_or_default())
        };
        for r in records.chunks_exact(EXPORT_RECORD_BYTES) {
            let (bucket, check, data) = (word(r, 0), word(r, 1), word(r, 2));
            if bucket >= self.buckets.0.len() as u64 || data & 0xff == 0 {
                return false;
            }
            let victim = self.buckets.0[bucket as usize].victim(check);
            victim.data.store(data, Relaxed);
            victim.check.store(check ^ data, Relaxed);
        }
        records.len().is_multiple_of(EXPORT_RECORD_BYTES)
    }
}

impl super::CpuBackend {
    /// Run `f` with the count table when it is the table in use (`None` when hashing is off or the statistics
    /// table is held), without swapping tables: the export and import of a deep run's table snapshot.
    pub fn with_count_table<R>(&self, f: impl FnOnce(Option<&HashTable>) -> R) -> R {
        match &*self.tables.read().unwrap_or_else(|e| e.into_inner()) {
            super::Tables::Counts(t) => f(Some(t)),
            _ => f(None),
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
    fn stores_and_finds_by_check_and_depth() {
        let t = HashTable::new(1).unwrap();
        let (index, check) = (0xdead_beef_1234_5678, 0x0123_4567_89ab_cdef);
        t.store(index, check, 5, 4_865_609);
        assert_eq!(t.probe(index, check, 5), Some(4_865_609));
        assert_eq!(t.probe(index, check, 4), None);
        // Same bucket (same index), other check hash: a miss, also when the check differs in one low bit or
        // equals the index (the old scheme's check).
        assert_eq!(t.probe(index, check ^ 1, 5), None);
        assert_eq!(t.probe(index, index, 5), None);
        // Same check hash, but an index that picks another bucket: a miss.
        assert_eq!(t.probe(!index, check, 5), None);
        // The index only picks the bucket: another index into the same bucket finds the entry.
        assert_eq!(t.probe(index ^ 1, check, 5), Some(4_865_609));
        t.store(1, 1, 3, 1 << 56);
        assert_eq!(t.probe(1, 1, 3), None);
    }

    #[test]
    fn the_check_hash_is_independent_of_the_bucket() {
        // Every distinct position 4 plies below the start, Kiwipete and a Chess960 position: the check hash
        // that identifies an entry must not follow from the Zobrist key that picked its bucket. With the key as
        // its own check (the old scheme) the check's bucket is the entry's bucket for every position; with an
        // independent hash about one position in `buckets` agrees by chance.
        use crate::bitboard::attacks::MagicSliders;
        use crate::bitboard::board::{Board, CastlingData};
        use crate::bitboard::movegen::moves;
        use crate::position::Setup;
        use std::collections::HashMap;
        fn walk(b: &Board, cd: &CastlingData, depth: u32, seen: &mut HashMap<u64, Board>) {
            let check = b.check;
            if let Some(other) = seen.insert(check, *b) {
                assert_eq!(other, *b, "two positions with check hash {check:#x}");
            }
            if depth > 0 {
                for &m in moves::<MagicSliders>(b, cd).as_slice() {
                    walk(&b.make::<true>(cd, m), cd, depth - 1, seen);
                }
            }
        }
        let t = HashTable::new(1).unwrap();
        let buckets = t.buckets.0.len();
        let (mut positions, mut same_bucket) = (0, 0);
        for (fen, depth) in [
            (Setup::STARTPOS_FEN, 4),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                3,
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                3,
            ),
        ] {
            let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
            let mut seen = HashMap::new();
            walk(&b, &cd, depth, &mut seen);
            for (check, p) in &seen {
                let (bucket, check_bucket) = (
                    t.buckets.get(p.key) as *const Bucket,
                    t.buckets.get(*check) as *const Bucket,
                );
                same_bucket += (bucket == check_bucket) as usize;
            }
            positions += seen.len();
        }
        assert!(positions > 100_000, "{positions} positions");
        // Expected: positions / buckets ≈ 9 here; 64 is far above chance, far below "all".
        assert!(
            same_bucket < 64,
            "{same_bucket} of {positions} positions: the check hash picks the entry's bucket ({buckets} buckets)"
        );
    }
    #[test]
    fn export_changed_gives_only_the_entries_stored_since() {
        let t = HashTable::new(1).unwrap();
        let key = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for i in 0..500u64 {
            t.store(key(i), key(i) ^ 0x77, 3, i + 1);
        }
        let records = |seen: &mut Vec<u8>| {
            let mut out = Vec::new();
            t.export_changed(2..u32::MAX, Some(seen), &mut |b: &[u8]| {
                out.extend(b.chunks_exact(EXPORT_RECORD_BYTES).map(|r| r.to_vec()));
                Ok(())
            })
            .unwrap();
            out
        };
        let mut seen = Vec::new();
        let first = records(&mut seen);
        assert_eq!(seen.len(), t.entries());
        let mut all = Vec::new();
        t.export(2..u32::MAX, &mut |b: &[u8]| {
            all.extend(b.chunks_exact(EXPORT_RECORD_BYTES).map(|r| r.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(first, all, "a fresh `seen` exports every entry");
        assert!(records(&mut seen).is_empty(), "nothing stored since");
        // Two new entries and one overwritten count: those three records, no other.
        t.store(key(1000), key(1000) ^ 0x77, 4, 9);
        t.store(key(1001), key(1001) ^ 0x77, 5, 10);
        t.store(key(7), key(7) ^ 0x77, 3, 12_345);
        let since = records(&mut seen);
        let data = |r: &Vec<u8>| u64::from_le_bytes(r[16..24].try_into().unwrap());
        let mut got: Vec<u64> = since.iter().map(data).collect();
        got.sort_unstable();
        assert_eq!(got, [9 << 8 | 4, 10 << 8 | 5, 12_345 << 8 | 3]);
        // Imported after the first export, they give the table as it is now.
        let u = HashTable::new(1).unwrap();
        assert!(u.import(&first.concat()) && u.import(&since.concat()));
        assert_eq!(u.probe(key(7), key(7) ^ 0x77, 3), Some(12_345));
        assert_eq!(u.probe(key(1001), key(1001) ^ 0x77, 5), Some(10));
        assert_eq!(
            u.probe(key(8), key(8) ^ 0x77, 3),
            t.probe(key(8), key(8) ^ 0x77, 3)
        );
    }

    #[test]
    fn export_and_import_round_trip() {
        let t = HashTable::new(1).unwrap();
        for i in 0..1000u64 {
            let key = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            t.store(key, key ^ 0x5555, 1 + (i % 4) as u32, i * 7);
        }
        let mut bytes = Vec::new();
        let n = t
            .export(3..u32::MAX, &mut |b: &[u8]| {
                bytes.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
        assert_eq!(n as usize * EXPORT_RECORD_BYTES, bytes.len());
        let u = HashTable::new(1).unwrap();
        assert!(u.import(&bytes));
        for i in 0..1000u64 {
            let key = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let depth = 1 + (i % 4) as u32;
            let want = (depth >= 3)
                .then_some(i * 7)
                .filter(|_| t.probe(key, key ^ 0x5555, depth).is_some());
            assert_eq!(u.probe(key, key ^ 0x5555, depth), want, "entry {i}");
        }
        // A record of a bucket the table lacks, or of depth 0, is refused.
        let mut bad = bytes[..EXPORT_RECORD_BYTES].to_vec();
        bad[..8].copy_from_slice(&(u.buckets() as u64).to_le_bytes());
        assert!(!u.import(&bad));
        assert!(!u.import(&bytes[..EXPORT_RECORD_BYTES - 1]));
        // A bounded range exports exactly the entries of those depths (2 and 3 here, not 1 nor 4).
        let mut depths = Vec::new();
        let m = t
            .export(2..4, &mut |b: &[u8]| {
                depths.extend(b.chunks_exact(EXPORT_RECORD_BYTES).map(|r| r[16]));
                Ok(())
            })
            .unwrap();
        let held = (0..1000u64)
            .filter(|i| {
                let key = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let depth = 1 + (i % 4) as u32;
                (2..4).contains(&depth) && t.probe(key, key ^ 0x5555, depth).is_some()
            })
            .count();
        assert_eq!((m as usize, depths.len()), (held, held));
        assert!(held > 0 && depths.iter().all(|&d| d == 2 || d == 3));
    }
}
