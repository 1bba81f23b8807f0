//! The long-lived GPU state of one adapter: its [`GpuDevice`] (I/O), the reusable level buffers, the merge
//! table, the transposition tables and the host table ([`super::tables`], sized by [`super::memory`]), the
//! scratch buffers, and the work counters of the report. All fields are private: the executor
//! ([`super::executor`]) works through the methods. Adapter choice is in [`super::adapter`].

#[cfg(test)]
use super::adapter::pick_adapter;
#[cfg(not(target_arch = "wasm32"))]
use super::adapter::{pick_adapters, ADAPTER_ENV};
#[cfg(test)]
use super::device::block_on;
use super::device::GpuDevice;
use super::memory::{
    cache_parts, host_table_entries, split_cache, CACHE_DEPTHS, CACHE_ENTRY_BYTES, CACHE_WEIGHTS,
    HOST_TABLE_MAX_MB, SCAN_CHUNK,
};
use super::report::{GpuReport, LevelReport};
use super::tables::{Cache, CacheTable, HostTable, CACHE_GROUP};
use crate::error::Result;
use std::cell::Cell;

/// Words of the GPU tally buffer (cache hits and distinct positions per remaining depth < 32, see
/// `super::report`).
const TALLY_WORDS: usize = 128;

/// Reusable buffers of one tree level.
pub struct LevelBufs {
    /// Capacity in positions.
    pub cap: u32,
    /// Positions (`GpuPos`).
    pub pos: wgpu::Buffer,
    /// Expand flags (u32).
    pub flags: wgpu::Buffer,
    /// Representatives after merging (u32).
    pub rep: wgpu::Buffer,
    /// Parent index (u32).
    pub parents: wgpu::Buffer,
    /// Legal move counts (u32).
    pub counts: wgpu::Buffer,
    /// Exclusive prefix sums of the counts (u32).
    pub offsets: wgpu::Buffer,
    /// Subtree counts (u32 pairs).
    pub sub: wgpu::Buffer,
    /// Leaf statistics bits (u32).
    pub info: wgpu::Buffer,
}

/// The long-lived GPU state of one adapter.
pub struct GpuContext {
    /// The device and its I/O.
    dev: GpuDevice,
    /// Level buffers, reused between runs.
    levels: Vec<LevelBufs>,
    /// The merge hash table (u32 per slot) and its slots.
    table: Option<(wgpu::Buffer, u64)>,
    /// Generation of the merge table's current level (1–255, stored in the top 8 bits of every slot it
    /// claims; 0 = none since the table was created or cleared): slots of older generations count as empty,
    /// so a level needs no clear.
    table_gen: Cell<u32>,
    /// The transposition tables, if on.
    cache: Option<Cache>,
    /// Most bytes of one transposition-table buffer when smaller than one storage binding (tests force many
    /// buffers per depth with it; [`super::GpuOptions::table_buffer_bytes`]); `None`: one maximal binding.
    table_buffer_bytes: Option<u64>,
    /// A small buffer bound where a kernel needs a binding it does not use in this mode.
    dummy: wgpu::Buffer,
    /// The 96-bit accumulator (three u32 words, low first) of the fused kernel's one-total mode
    /// (`leaf2.wgsl`).
    total: wgpu::Buffer,
    /// GPU-side per-level counters (see `super::report`): 128 u32 words.
    tally: wgpu::Buffer,
    /// Positions per prefix-sum chunk of a level ([`SCAN_CHUNK`]; tests force smaller chunks, as lavapipe's
    /// levels never reach one).
    scan_chunk: u64,
    /// Host-side per-level counts by remaining depth: positions written, distinct positions counted on the
    /// host (levels not merged on the GPU).
    level_counts: std::collections::BTreeMap<u32, (u64, u64)>,
    /// GPU runs executed.
    runs: u64,
    /// Roots of those runs (host-level positions, suite positions or root moves counted here).
    run_roots: u64,
    /// The host table (exact counts of host-level positions and batch roots).
    host: HostTable,
    /// Distinct positions expanded on the host (levels above the GPU runs).
    host_positions: u64,
    /// Scratch buffers by slot (prefix-sum block sums), kept and grown, never made per call.
    scratch: Vec<Option<wgpu::Buffer>>,
}

impl GpuContext {
    /// Open the adapter named by `choice` (or [`ADAPTER_ENV`], or the preferred one) and build the pipelines.
    ///
    /// # Errors
    /// [`Error::Backend`] naming a missing adapter, capability or limit, or a device that cannot be opened.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn new(choice: Option<&str>) -> Result<GpuContext> {
        GpuContext::with_checks(choice, false)
    }

    /// As [`GpuContext::new`]; `checked` keeps naga's runtime checks in every kernel (`--checked-shaders`).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn with_checks(choice: Option<&str>, checked: bool) -> Result<GpuContext> {
        let env = std::env::var(ADAPTER_ENV).ok();
        GpuContext::from_adapter(pick_adapter(choice.or(env.as_deref()))?, checked)
    }

    /// A context on every adapter `choice` (or [`ADAPTER_ENV`]) names: one for a name, an index or nothing,
    /// several for `all` or a comma-separated list, one for `env:VAR` (see [`super::adapter`]).
    ///
    /// # Errors
    /// As [`GpuContext::new`], for any of them; [`Error::Usage`] for a list naming one adapter twice or an
    /// `env:VAR` without an index.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_all(choice: Option<&str>, checked: bool) -> Result<Vec<GpuContext>> {
        let env = std::env::var(ADAPTER_ENV).ok();
        pick_adapters(choice.or(env.as_deref()))?
            .into_iter()
            .map(|a| GpuContext::from_adapter(a, checked))
            .collect()
    }

    /// Open `adapter` and build the pipelines (`checked`: keep naga's runtime checks in every kernel),
    /// blocking ([`GpuContext::open_adapter`] under pollster).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_adapter(adapter: wgpu::Adapter, checked: bool) -> Result<GpuContext> {
        pollster::block_on(GpuContext::open_adapter(adapter, checked))
    }

    /// The contexts [`GpuBackend::open`](super::GpuBackend::open) works on: natively those of
    /// [`GpuContext::open_all`] (adapters chosen as there, each device requested asynchronously); in the
    /// browser the one adapter WebGPU offers (high-performance preference; `choice` must be empty).
    ///
    /// # Errors
    /// As [`GpuContext::open_all`]; in the browser [`Error::Backend`] when WebGPU offers no adapter.
    pub async fn open_async(choice: Option<&str>, checked: bool) -> Result<Vec<GpuContext>> {
        #[cfg(not(target_arch = "wasm32"))]
        let adapters = {
            let env = std::env::var(ADAPTER_ENV).ok();
            pick_adapters(choice.or(env.as_deref()))?
        };
        #[cfg(target_arch = "wasm32")]
        let adapters = vec![super::adapter::request_adapter(choice).await?];
        let mut out = Vec::with_capacity(adapters.len());
        for a in adapters {
            out.push(GpuContext::open_adapter(a, checked).await?);
        }
        Ok(out)
    }

    /// Open `adapter` ([`GpuDevice::open`]) and make the context's small buffers.
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub async fn open_adapter(adapter: wgpu::Adapter, checked: bool) -> Result<GpuContext> {
        let mut dev = GpuDevice::open(adapter, checked).await?;
        let dummy = dev.create_buffer("dummy", 256);
        let total = dev.create_buffer("leaf total", 16);
        let tally = dev.buffer_init("tally", &[0u8; TALLY_WORDS * 4]);
        let ctx = GpuContext {
            dev,
            levels: Vec::new(),
            table: None,
            table_gen: Cell::new(0),
            cache: None,
            table_buffer_bytes: None,
            dummy,
            total,
            tally,
            scan_chunk: SCAN_CHUNK,
            level_counts: Default::default(),
            runs: 0,
            run_roots: 0,
            host: HostTable::new(host_table_entries(HOST_TABLE_MAX_MB)),
            host_positions: 0,
            scratch: Vec::new(),
        };
        ctx.dev.check("making the context's buffers")?;
        Ok(ctx)
    }

    /// The opened adapter: its description, limits, memory facts, pipelines, upload, dispatch and read-back
    /// ([`GpuDevice`]); the executor and the backend reach the device through it.
    pub fn device(&self) -> &GpuDevice {
        &self.dev
    }

    /// The device, to drop its pipelines ([`GpuDevice::forget_pipelines`]).
    pub fn device_mut(&mut self) -> &mut GpuDevice {
        &mut self.dev
    }

    /// Largest level a single binding (and buffer) allows, in 64-byte positions
    /// ([`super::memory::level_positions`]).
    pub fn max_level_positions(&self) -> u64 {
        super::memory::level_positions(self.dev.limits())
    }

    /// Largest buffer of a transposition table, in entries
    /// ([`super::memory::AdapterFacts::max_cache_table_entries`]).
    pub fn max_cache_table_entries(&self) -> u64 {
        self.dev
            .facts()
            .max_cache_table_entries(self.table_buffer_bytes)
    }

    /// Most bytes of one transposition-table buffer (`None`: one maximal binding); before
    /// [`GpuContext::ensure_cache`].
    pub fn set_table_buffer_bytes(&mut self, bytes: Option<u64>) {
        self.table_buffer_bytes = bytes;
    }

    /// Positions per prefix-sum chunk of a level.
    pub fn scan_chunk(&self) -> u64 {
        self.scan_chunk
    }

    /// Scan levels in chunks of `n` positions (at most [`SCAN_CHUNK`]; tests force small chunks).
    #[cfg(test)]
    pub fn set_scan_chunk(&mut self, n: u64) {
        self.scan_chunk = n.clamp(1, SCAN_CHUNK);
    }

    /// Create a storage buffer of `size` bytes (at least 16), counted in the peak.
    pub fn buffer(&mut self, label: &str, size: u64) -> wgpu::Buffer {
        let held = self.held_bytes() + size.max(16).next_multiple_of(16);
        self.dev.note_held(held);
        self.dev.create_buffer(label, size)
    }

    /// The scratch buffer of `slot` with at least `size` bytes (made once, grown when too small).
    pub fn scratch(&mut self, slot: usize, size: u64) -> wgpu::Buffer {
        if self.scratch.len() <= slot {
            self.scratch.resize(slot + 1, None);
        }
        if let Some(b) = &self.scratch[slot] {
            if b.size() >= size {
                return b.clone();
            }
        }
        self.scratch[slot] = None;
        let b = self.buffer("scratch", size.max(1024));
        self.scratch[slot] = Some(b.clone());
        b
    }

    /// Make sure level `l` can hold `n` positions; levels above `l` are dropped first when they are too small
    /// to reuse, so memory held stays near what the current run uses.
    pub fn ensure_level(&mut self, l: usize, n: u64) {
        if self.levels.len() > l && self.levels[l].cap as u64 >= n {
            return;
        }
        self.levels.truncate(l);
        let cap = (n.max(64) * 5 / 4).min(self.max_level_positions()).max(n);
        let c = cap;
        let bufs = LevelBufs {
            cap: cap as u32,
            pos: self.buffer("positions", c * 64),
            flags: self.buffer("flags", c * 4),
            rep: self.buffer("rep", c * 4),
            parents: self.buffer("parents", c * 4),
            counts: self.buffer("counts", c * 4),
            offsets: self.buffer("offsets", c * 4),
            sub: self.buffer("subtree counts", c * 8),
            info: self.buffer("leaf info", c * 4),
        };
        self.levels.push(bufs);
    }

    /// Make sure the merge table has at least `slots` u32 slots (a power of two); returns its mask.
    pub fn ensure_table(&mut self, slots: u64) -> u32 {
        let slots = slots.next_power_of_two().max(64);
        match &self.table {
            Some((_, have)) if *have >= slots => {}
            _ => {
                self.table = None;
                let b = self.buffer("merge table", slots * 4);
                self.table = Some((b, slots));
                self.table_gen.set(0);
            }
        }
        (self.table.as_ref().map_or(64, |t| t.1) - 1) as u32
    }

    /// The generation tag for the next merged level (1–255). Slots of earlier generations read as empty; after
    /// 255 generations the table is cleared once (recorded before the next dispatch) and tagging restarts at 1.
    pub fn next_table_generation(&self) -> u32 {
        let mut g = self.table_gen.get() + 1;
        if g > 255 {
            if let Some((t, slots)) = &self.table {
                self.dev.clear(t, slots * 4);
            }
            g = 1;
        }
        self.table_gen.set(g);
        g
    }

    /// The buffers of level `l` (made by [`GpuContext::ensure_level`]).
    pub fn level(&self, l: usize) -> &LevelBufs {
        &self.levels[l]
    }

    /// The merge table (made by [`GpuContext::ensure_table`]).
    pub fn merge_table(&self) -> &wgpu::Buffer {
        &self
            .table
            .as_ref()
            .expect("merge table made by ensure_table")
            .0
    }

    /// The transposition tables, if made.
    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// The small buffer bound where a kernel needs a binding it does not use.
    pub fn dummy(&self) -> &wgpu::Buffer {
        &self.dummy
    }

    /// The fused kernel's 96-bit accumulator.
    pub fn total(&self) -> &wgpu::Buffer {
        &self.total
    }

    /// The GPU tally buffer.
    pub fn tally(&self) -> &wgpu::Buffer {
        &self.tally
    }

    /// Create the transposition tables of `mb` MiB in all (0 = none), split over the depths by
    /// [`split_cache`]; never more than asked.
    ///
    /// # Errors
    /// [`crate::Error::Usage`] naming `--hash` when the adapter cannot give that much
    /// ([`super::memory::AdapterFacts::check_hash`]); [`crate::Error::Backend`] when the device fails to
    /// create them.
    pub fn ensure_cache(&mut self, mb: usize) -> Result<()> {
        if mb == 0 {
            return Ok(());
        }
        let entries = self.dev.facts().check_hash(mb)?;
        self.ensure_cache_entries(entries);
        self.dev.check("creating the transposition tables")
    }

    /// Create the transposition tables with `len` entries in all, split over the depths by [`split_cache`]
    /// (each split into the fewest equal buffers of at most [`GpuContext::max_cache_table_entries`] by
    /// [`cache_parts`]), unless they exist.
    pub fn ensure_cache_entries(&mut self, len: u64) {
        if self.cache.is_some() {
            return;
        }
        let entry = CACHE_ENTRY_BYTES;
        let buffer = self.max_cache_table_entries();
        let mut tables = Vec::with_capacity(CACHE_WEIGHTS.len());
        for (r, share) in CACHE_DEPTHS.zip(split_cache(len)) {
            let (parts, n) = cache_parts(share, buffer);
            tables.push((parts * n >= 64).then(|| {
                CacheTable {
                    parts: (0..parts)
                        .map(|k| {
                            self.buffer(
                                &format!("transposition table, remaining {r}, buffer {k}"),
                                n * entry,
                            )
                        })
                        .collect(),
                    len: n as u32,
                }
            }));
        }
        let spare = (1..CACHE_GROUP)
            .map(|k| self.buffer(&format!("transposition table spare {k}"), entry))
            .collect();
        self.cache = Some(Cache { tables, spare });
        // `buffer` counted each table alone with what was held before: count them all together.
        self.note_peak();
    }

    /// Read `n` u32 words, blocking.
    ///
    /// # Errors
    /// A GPU failure.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn download_u32(&self, buf: &wgpu::Buffer, n: u64) -> Result<Vec<u32>> {
        block_on(&self.dev.handle(), self.dev.read_u32(buf, 0, n))
    }

    /// Read `size` bytes, blocking.
    ///
    /// # Errors
    /// A GPU failure.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn download(&self, buf: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        block_on(&self.dev.handle(), self.dev.read_back(buf, 0, size))
    }

    /// The host table.
    #[cfg(test)]
    pub fn host_table(&self) -> &HostTable {
        &self.host
    }

    /// The host table, to look up and keep counts.
    pub fn host_table_mut(&mut self) -> &mut HostTable {
        &mut self.host
    }

    /// Most entries of the host table.
    pub fn host_table_max(&self) -> usize {
        self.host.max()
    }

    /// Bound the host table to `mb` MiB ([`host_table_entries`]; emptied now if it holds more).
    pub fn set_host_table_mb(&mut self, mb: u64) {
        self.host.set_max(host_table_entries(mb));
    }

    /// Count `n` distinct positions expanded on the host.
    pub fn note_host_positions(&mut self, n: u64) {
        self.host_positions += n;
    }

    /// Count a GPU run over `roots` roots.
    pub fn note_run(&mut self, roots: usize) {
        self.runs += 1;
        self.run_roots += roots as u64;
    }

    /// Record a written level of `positions` at `remaining`; `host_distinct`: the level was not merged, so
    /// all its positions count as distinct.
    pub fn record_level(&mut self, remaining: u32, positions: u64, host_distinct: bool) {
        let e = self.level_counts.entry(remaining).or_default();
        e.0 += positions;
        if host_distinct {
            e.1 += positions;
        }
    }

    /// The work report so far, blocking ([`GpuContext::report_async`] under [`block_on`]).
    ///
    /// # Errors
    /// A GPU failure while reading the tally.
    #[cfg(all(test, not(target_arch = "wasm32")))]
    pub fn report(&self) -> Result<GpuReport> {
        block_on(&self.dev.handle(), self.report_async())
    }

    /// The work report so far (reads the GPU tally back once).
    ///
    /// # Errors
    /// A GPU failure while reading the tally.
    pub async fn report_async(&self) -> Result<GpuReport> {
        self.dev.flush_timing().await?;
        let words = self
            .dev
            .read_u32(&self.tally, 0, TALLY_WORDS as u64)
            .await?;
        let pair = |i: usize| words[i] as u64 | (words[i + 1] as u64) << 32;
        let levels = self
            .level_counts
            .iter()
            .rev()
            .map(|(&remaining, &(positions, distinct))| {
                let r = remaining as usize;
                LevelReport {
                    remaining,
                    positions,
                    distinct: distinct + if r < 32 { pair(64 + 2 * r) } else { 0 },
                    cache_hits: if r < 32 { pair(2 * r) } else { 0 },
                    ms: self.dev.level_ms(remaining),
                }
            })
            .collect();
        Ok(GpuReport {
            adapter: self.dev.describe(),
            adapters: vec![super::report::AdapterWork {
                name: self.dev.info().name.clone(),
                backend: format!("{:?}", self.dev.info().backend).to_lowercase(),
                runs: self.runs,
                positions: self.run_roots,
            }],
            runs: self.runs,
            host_hits: self.host.hits(),
            host_positions: self.host_positions,
            retries: 0,
            submits: self.dev.counters().submits.get(),
            readbacks: self.dev.counters().readbacks.get(),
            bytes_written: self.dev.counters().bytes_written.get(),
            peak_bytes: self.dev.counters().peak_bytes.get(),
            levels,
        })
    }

    /// Bytes of the long-lived buffers held now (levels, merge table, transposition tables, scratch, attack
    /// tables).
    pub fn held_bytes(&self) -> u64 {
        let levels: u64 = self
            .levels
            .iter()
            .map(|l| {
                [
                    &l.pos, &l.flags, &l.rep, &l.parents, &l.counts, &l.offsets, &l.sub, &l.info,
                ]
                .iter()
                .map(|b| b.size())
                .sum::<u64>()
            })
            .sum();
        let table = self.table.as_ref().map_or(0, |t| t.0.size());
        let cache = self.cache.as_ref().map_or(0, Cache::bytes);
        let scratch: u64 = self.scratch.iter().flatten().map(|b| b.size()).sum();
        levels + table + cache + scratch + self.dev.attack_table_bytes()
    }

    /// Raise `peak_bytes` to the bytes held now.
    fn note_peak(&self) {
        self.dev.note_held(self.held_bytes());
    }
}
