//! The tables of exact subtree counts: the GPU transposition tables ([`Cache`]: one table per remaining
//! depth, each of as many buffers as its share of `--hash` needs, probed and filled by
//! `shaders/cache_*.wgsl`) and the host table ([`HostTable`]: counts of the host levels by whole position and
//! remaining depth). Their sizes come from [`super::memory`]; the context ([`super::context`]) owns them.

use super::memory::{HostKey, CACHE_DEPTHS};

/// Table buffers bound by one dispatch of the probe and store kernels (`cache0` … `cache3` in
/// `shaders/cache_*.wgsl`: with positions, flags, subtree counts and the tally, 8 storage buffers, WebGPU's
/// default per-stage limit). A table of more buffers is probed and filled by one dispatch per group of
/// [`CACHE_GROUP`] buffers, so a depth's table may have any number of buffers.
pub const CACHE_GROUP: usize = 4;

/// One transposition table: `parts` buffers of `len` entries of `GpuCacheEntry` (16 bytes) each, each buffer
/// at most one storage binding; an entry's buffer and index in it are chosen by hashes of the position
/// independent of its key (`tt_buffer`, `tt_entry` in `shaders/common.wgsl`).
pub struct CacheTable {
    /// The buffers, all of `len` entries.
    pub parts: Vec<wgpu::Buffer>,
    /// Entries of each buffer (any size: the kernels index by a hash modulo `len`).
    pub len: u32,
}

impl CacheTable {
    /// Entries of all its buffers.
    pub fn entries(&self) -> u64 {
        self.parts.len() as u64 * u64::from(self.len)
    }

    /// Bytes of all its buffers.
    pub fn bytes(&self) -> u64 {
        self.parts.iter().map(wgpu::Buffer::size).sum()
    }

    /// Groups of up to [`CACHE_GROUP`] buffers: one probe and one store dispatch each.
    pub fn groups(&self) -> usize {
        self.parts.len().div_ceil(CACHE_GROUP)
    }
}

/// The transposition tables of subtree counts: one table per remaining depth in [`CACHE_DEPTHS`], each of as
/// many buffers (storage bindings) as its share needs. The probe and store kernels bind one group of
/// [`CACHE_GROUP`] buffers per dispatch, the slots of a short last group bound to `spare`.
pub struct Cache {
    /// The table of remaining depth `r` is `tables[r - 2]`; `None` where its share was below 64 entries.
    pub tables: Vec<Option<CacheTable>>,
    /// Tiny (16-byte) buffers bound to the slots a group of fewer than [`CACHE_GROUP`] buffers leaves unused:
    /// never indexed (the kernels pick a buffer below the table's count), distinct so that no buffer is bound
    /// writable twice in one dispatch.
    pub spare: Vec<wgpu::Buffer>,
}

impl Cache {
    /// The table of remaining depth `remaining`, if it has one.
    pub fn table(&self, remaining: u32) -> Option<&CacheTable> {
        let i = remaining.checked_sub(*CACHE_DEPTHS.start())? as usize;
        self.tables.get(i)?.as_ref()
    }

    /// The [`CACHE_GROUP`] buffers the kernels bind for group `group` of `table` (its buffers
    /// `CACHE_GROUP * group ..`), then spares.
    pub fn bound<'a>(
        &'a self,
        table: &'a CacheTable,
        group: usize,
    ) -> [&'a wgpu::Buffer; CACHE_GROUP] {
        let own = table.parts.get(CACHE_GROUP * group..).unwrap_or_default();
        std::array::from_fn(|k| own.get(k).unwrap_or_else(|| &self.spare[k - own.len()]))
    }

    /// Entries of all tables together.
    pub fn entries(&self) -> u64 {
        self.tables.iter().flatten().map(CacheTable::entries).sum()
    }

    /// Bytes of all tables together (the spares included).
    pub fn bytes(&self) -> u64 {
        let tables: u64 = self.tables.iter().flatten().map(CacheTable::bytes).sum();
        tables + self.spare.iter().map(wgpu::Buffer::size).sum::<u64>()
    }

    /// One line per depth with a table: `remaining: buffers × entries each (MiB)`, joined by ", ".
    pub fn layout(&self) -> String {
        CACHE_DEPTHS
            .zip(&self.tables)
            .filter_map(|(r, t)| {
                t.as_ref().map(|t| {
                    format!(
                        "{r}: {} × {} ({:.1})",
                        t.parts.len(),
                        t.len,
                        t.bytes() as f64 / f64::from(1 << 20)
                    )
                })
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The host table: exact subtree counts by whole position and remaining depth, of the roots of every batch
/// and of the positions expanded on the host (the planner's host levels); lives as long as the backend, at
/// most [`HostTable::max`] entries (emptied when full).
#[derive(Default)]
pub struct HostTable {
    map: hashbrown::HashMap<HostKey, u128>,
    /// Most entries ([`super::memory::host_table_entries`] of its share of `--hash`).
    max: usize,
    /// Lookups answered.
    hits: u64,
}

impl HostTable {
    /// An empty table of at most `max` entries.
    pub fn new(max: usize) -> HostTable {
        HostTable {
            max,
            ..HostTable::default()
        }
    }

    /// The count of `key`, if known (a hit is counted).
    pub fn get(&mut self, key: &HostKey) -> Option<u128> {
        let c = self.map.get(key).copied();
        self.hits += c.is_some() as u64;
        c
    }

    /// Keep `count` for `key` (emptied first when full; nothing when the table may hold no entry).
    pub fn insert(&mut self, key: HostKey, count: u128) {
        if self.max == 0 {
            return;
        }
        if self.map.len() >= self.max {
            self.map.clear();
        }
        self.map.insert(key, count);
    }

    /// Most entries.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Bound the table to `max` entries (emptied now if it holds more).
    pub fn set_max(&mut self, max: usize) {
        self.max = max;
        if self.map.len() > max {
            self.map = Default::default();
        }
    }

    /// Entries held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Forget every entry.
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.map.clear();
    }

    /// Lookups answered so far.
    pub fn hits(&self) -> u64 {
        self.hits
    }
}
