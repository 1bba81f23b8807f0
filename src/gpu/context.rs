//! The long-lived GPU context: device and queue with their errors, the compute pipelines (indexed by
//! [`Kernel`], built once), the attack tables, the parameter buffer, the reusable level and cache buffers,
//! upload / clear / dispatch / read-back, and the work counters. Adapter choice is in [`super::adapter`], the
//! kernels in [`super::kernels`].

pub use super::adapter::{list_adapters, AdapterSummary, ADAPTER_ENV};
#[cfg(not(target_arch = "wasm32"))]
use super::adapter::{pick_adapter, pick_adapters};
use super::attack_tables;
use super::buffers::GpuParams;
use super::kernels::trusted_module;
pub use super::kernels::{Kernel, WORKGROUP};
use super::report::{GpuReport, LevelReport};
use crate::error::{Error, Result};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

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

/// Bytes per position slot of a level, all its buffers together, plus its share of the merge table.
pub const SLOT_BYTES: u64 = 64 + 4 * 6 + 8 + 8;

/// Remaining depths with a transposition table of their own: 2 (the fused level) up to
/// [`super::driver::MAX_RUN_DEPTH`] (the root of the deepest run).
pub const CACHE_DEPTHS: std::ops::RangeInclusive<u32> = 2..=super::driver::MAX_RUN_DEPTH;

/// Share of the `--hash` budget of each remaining depth in [`CACHE_DEPTHS`], in parts of the sum: remaining 2
/// gets half, each deeper depth half of the one above it, and the deepest as much as the one above it (so the
/// parts add up to the whole). Measured on lavapipe (README, "Transposition tables"): a level at remaining `r`
/// holds several times the distinct positions of the level at `r + 1`, while a hit there saves a whole
/// subtree of `r` plies; halving keeps the shallow tables from evicting the deep, valuable entries and gave the
/// most hits per byte of the splits tried ([`split_cache`]).
pub const CACHE_WEIGHTS: [u64; 10] = [256, 128, 64, 32, 16, 8, 4, 2, 1, 1];

/// Table buffers bound by one dispatch of the probe and store kernels (`cache0` … `cache3` in
/// `shaders/cache_*.wgsl`: with positions, flags, subtree counts and the tally, 8 storage buffers, WebGPU's
/// default per-stage limit). A table of more buffers is probed and filled by one dispatch per group of
/// [`CACHE_GROUP`] buffers, so a depth's table may have any number of buffers.
pub const CACHE_GROUP: usize = 4;

/// Entries of each depth's table for a budget of `total` entries: shares by [`CACHE_WEIGHTS`] (halving from
/// remaining depth 2 down). The sum never exceeds `total`.
pub fn split_cache(total: u64) -> Vec<u64> {
    let weight: u64 = CACHE_WEIGHTS.iter().sum();
    CACHE_WEIGHTS
        .iter()
        .map(|&w| (u128::from(total) * u128::from(w) / u128::from(weight)) as u64)
        .collect()
}

/// The buffers of one table of `share` entries, each at most `buffer` entries: `(parts, len)`, `parts`
/// buffers of `len` entries each (`parts * len <= share`): the fewest that hold the share (at least 1), of
/// equal size.
pub fn cache_parts(share: u64, buffer: u64) -> (u64, u64) {
    let parts = share.div_ceil(buffer.max(1)).max(1);
    (parts, (share / parts).min(buffer))
}

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
}

/// Work counters since the context was made (the `gpu` object of `perft --json`, see `super::report`).
#[derive(Default, Debug)]
pub struct Counters {
    /// Command buffers submitted.
    pub submits: Cell<u64>,
    /// Blocking read-backs (buffer maps waited for).
    pub readbacks: Cell<u64>,
    /// Bytes written to device memory: by kernels (per-thread upper bounds times dispatched threads), clears
    /// and uploads.
    pub bytes_written: Cell<u64>,
    /// Largest total of buffers held at once, bytes.
    pub peak_bytes: Cell<u64>,
}

impl Counters {
    fn add(c: &Cell<u64>, v: u64) {
        c.set(c.get() + v);
    }
}

/// The long-lived GPU state.
pub struct GpuContext {
    /// The adapter's description.
    pub info: wgpu::AdapterInfo,
    /// The device's limits (the adapter's, requested in full).
    pub limits: wgpu::Limits,
    /// The largest device-local memory heap in bytes, where the driver reports it (Vulkan).
    pub device_memory: Option<u64>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: Vec<wgpu::ComputePipeline>,
    tables: wgpu::Buffer,
    params: wgpu::Buffer,
    /// Level buffers, reused between runs.
    pub levels: Vec<LevelBufs>,
    /// The merge hash table (u32 per slot).
    pub table: Option<(wgpu::Buffer, u64)>,
    /// Generation of the merge table's current level (1–255, stored in the top 8 bits of every slot it
    /// claims; 0 = none since the table was created or cleared): slots of older generations count as empty,
    /// so a level needs no clear.
    table_gen: Cell<u32>,
    /// The transposition tables, if on.
    pub cache: Option<Cache>,
    /// Most bytes of one transposition-table buffer when smaller than one storage binding (tests force many
    /// buffers per depth with it; [`super::GpuOptions::table_buffer_bytes`]); `None`: one maximal binding.
    pub table_buffer_bytes: Option<u64>,
    /// A small buffer bound where a kernel needs a binding it does not use in this mode.
    pub dummy: wgpu::Buffer,
    /// The 96-bit accumulator (three u32 words, low first) of the fused kernel's one-total mode
    /// (`leaf2.wgsl`).
    pub total: wgpu::Buffer,
    /// Positions per prefix-sum chunk of a level (`super::driver::SCAN_CHUNK`; tests force smaller chunks, as
    /// lavapipe's levels never reach one).
    pub scan_chunk: u64,
    errors: Arc<Mutex<Option<String>>>,
    allocated: u64,
    /// Work counters.
    pub counters: Counters,
    /// GPU-side per-level counters (see `super::report`): 128 u32 words.
    pub tally: wgpu::Buffer,
    /// Host-side per-level counts by remaining depth: positions written, distinct positions counted on the
    /// host (levels not merged on the GPU).
    pub level_counts: std::collections::BTreeMap<u32, (u64, u64)>,
    /// GPU runs executed.
    pub runs: u64,
    /// Roots of those runs (host-level positions, suite positions or root moves counted here).
    pub run_roots: u64,
    /// The host table: exact subtree counts by whole position and remaining depth, of the roots of every
    /// batch and of the positions the driver expanded on the host (`super::driver`); lives as long as the
    /// backend, at most [`GpuContext::host_table_max`] entries (emptied when full).
    pub host_table: hashbrown::HashMap<HostKey, u128>,
    /// Most entries of the host table ([`host_table_entries`] of its share of `--hash`).
    host_table_max: usize,
    /// Lookups answered by the host table.
    pub host_hits: u64,
    /// Distinct positions expanded on the host (levels above the GPU runs).
    pub host_positions: u64,
    /// Timestamp queries around every dispatch, when the adapter has them.
    timing: Option<Timing>,
    /// Remaining depth the next dispatches work for (their time is added to that level).
    level: Cell<u32>,
    /// Scratch buffers by slot (prefix-sum block sums), kept and grown, never made per call.
    scratch: Vec<Option<wgpu::Buffer>>,
    /// The command buffer being recorded: dispatches and clears are appended and submitted together at the
    /// next read-back or upload (one submit per level rather than one per dispatch).
    pending: std::cell::RefCell<Option<wgpu::CommandEncoder>>,
    /// Next free parameter slot of the `params` ring (one slot per dispatch of the pending command buffer).
    param_slot: Cell<u64>,
    /// Bind groups made so far, by kernel, parameter offset and bound buffers: the same slice pattern after
    /// each read-back reuses them. Emptied whenever a buffer is created (a replaced buffer must not be kept
    /// alive by a cached group) and when it grows past [`BIND_CACHE_MAX`].
    bind_cache: RefCell<HashMap<BindKey, wgpu::BindGroup>>,
    /// Bytes between parameter slots (the adapter's uniform offset alignment).
    param_stride: u64,
}

/// Largest level an adapter with `limits` allows, in positions ([`GpuContext::max_level_positions`]).
pub fn level_positions(limits: &wgpu::Limits) -> u64 {
    (limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
        / 64)
        .min(u64::from(u32::MAX) / 2)
}

/// The default level budget in MiB of an adapter with `limits`, of type `kind`, with `memory` bytes of
/// device-local memory where known ([`GpuContext::default_budget_mb`]).
pub fn default_level_budget_mb(
    limits: &wgpu::Limits,
    kind: wgpu::DeviceType,
    memory: Option<u64>,
) -> u64 {
    let cap = if kind == wgpu::DeviceType::Cpu {
        512
    } else {
        4096
    };
    let by_limits = ((limits.max_buffer_size / 2).min(8 * limits.max_storage_buffer_binding_size)
        >> 20)
        .clamp(16, cap);
    match (kind, memory) {
        (wgpu::DeviceType::DiscreteGpu, Some(bytes)) => {
            let two_levels = (9 * level_positions(limits) * SLOT_BYTES / 4) >> 20;
            by_limits.max(two_levels).min((bytes >> 20) / 4).max(16)
        }
        _ => by_limits,
    }
}

/// The host table's key: the whole position and the remaining depth.
pub type HostKey = (super::buffers::GpuPos, u32);

/// Most MiB of the host table (its share of `--hash` is [`host_table_mb`]): 2^18 buckets, 229,376 entries; the
/// top levels of the deepest runs hold far fewer distinct positions.
pub const HOST_TABLE_MAX_MB: u64 = 32;

/// Bytes of one bucket of the host table: the entry (key and u128 count, 96 bytes) and hashbrown's control byte.
pub const HOST_BUCKET_BYTES: u64 = std::mem::size_of::<(HostKey, u128)>() as u64 + 1;

/// The host table's share of a `--hash` of `hash_mb` MiB: an eighth, at most [`HOST_TABLE_MAX_MB`]; the GPU
/// tables get the rest.
pub fn host_table_mb(hash_mb: u64) -> u64 {
    (hash_mb / 8).min(HOST_TABLE_MAX_MB)
}

/// Most entries of a host table within `mb` MiB: hashbrown keeps a power-of-two number of buckets, at most
/// 7/8 of them full, so the largest power of two whose buckets fit, times 7/8 (0 below 16 buckets: no table).
pub fn host_table_entries(mb: u64) -> usize {
    let fit = (mb << 20) / HOST_BUCKET_BYTES;
    if fit < 16 {
        return 0;
    }
    let buckets = 1u64 << (63 - fit.leading_zeros());
    (buckets / 8 * 7) as usize
}

/// Parameter slots in the `params` ring: a pending command buffer is submitted when they run out.
const PARAM_SLOTS: u64 = 256;
/// Most bind groups kept in the cache.
const BIND_CACHE_MAX: usize = 4096;
/// A bind group's identity: kernel index, parameter offset, bound buffers.
type BindKey = (usize, u64, Vec<wgpu::Buffer>);

/// Pairs of timestamp queries per query set (resolved and read back when full and after each run).
const TIMING_PAIRS: u32 = 1024;

/// GPU time per level from timestamp queries written at the start and end of each compute pass.
struct Timing {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// The remaining depth of each pair written so far.
    owners: std::cell::RefCell<Vec<u32>>,
    /// Nanoseconds per timestamp tick.
    period: f64,
    /// Milliseconds per remaining depth.
    ms: std::cell::RefCell<std::collections::BTreeMap<u32, f64>>,
    /// Query sets resolved when full and copied to a mappable buffer, not yet read back (read by
    /// [`GpuContext::flush_timing`]: a dispatch never waits for the device).
    unread: std::cell::RefCell<Vec<(wgpu::Buffer, Vec<u32>)>>,
}

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

impl GpuContext {
    /// Open the adapter named by `choice` (or [`ADAPTER_ENV`], or the preferred one) and build the pipelines.
    ///
    /// # Errors
    /// [`Error::Backend`] naming a missing adapter, capability or limit, or a device that cannot be opened.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(choice: Option<&str>) -> Result<GpuContext> {
        GpuContext::with_checks(choice, false)
    }

    /// As [`GpuContext::new`]; `checked` keeps naga's runtime checks in every kernel (`--checked-shaders`).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    #[cfg(not(target_arch = "wasm32"))]
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

    /// Open `adapter` (the device is requested asynchronously, with the adapter's own limits: natively and
    /// in the browser alike) and build the pipelines (`checked`: keep naga's runtime checks in every kernel).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub async fn open_adapter(adapter: wgpu::Adapter, checked: bool) -> Result<GpuContext> {
        let info = adapter.get_info();
        let limits = adapter.limits();
        let device_memory = super::adapter::device_local_memory(&adapter);
        let name = format!("adapter '{}' ({:?})", info.name, info.backend);
        if !adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        {
            return Err(Error::Backend(format!(
                "{name} lacks compute shaders (downlevel flag COMPUTE_SHADERS)"
            )));
        }
        for (what, have, need) in [
            (
                "max_storage_buffers_per_shader_stage",
                limits.max_storage_buffers_per_shader_stage,
                // cache_probe.wgsl: positions, flags, sub, four table buffers, tally.
                8,
            ),
            (
                "max_compute_invocations_per_workgroup",
                limits.max_compute_invocations_per_workgroup,
                WORKGROUP,
            ),
            (
                "max_compute_workgroup_size_x",
                limits.max_compute_workgroup_size_x,
                WORKGROUP,
            ),
            (
                "max_compute_workgroups_per_dimension",
                limits.max_compute_workgroups_per_dimension,
                1024,
            ),
        ] {
            if have < need {
                return Err(Error::Backend(format!(
                    "{name}: limit {what} is {have}, perftlab needs at least {need}"
                )));
            }
        }
        if limits.max_storage_buffer_binding_size < 1 << 20 {
            return Err(Error::Backend(format!(
                "{name}: limit max_storage_buffer_binding_size is {}, perftlab needs at least 1 MiB",
                limits.max_storage_buffer_binding_size
            )));
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("perftlab"),
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                required_limits: limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::Backend(format!("{name}: cannot open the device: {e}")))?;
        let errors: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| e.to_string());
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, msg| {
            let mut slot = sink.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert_with(|| format!("device lost ({reason:?}): {msg}"));
        });
        let pipelines = Kernel::ALL
            .iter()
            .map(|k| {
                let label = k.label();
                let source = k.wgsl();
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                };
                let module = if k.trusted() && !checked {
                    trusted_module(&device, desc)
                } else {
                    device.create_shader_module(desc)
                };
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: None,
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: k.constants(),
                        // leaf2.wgsl's one-total mode relies on zero-initialised workgroup memory (the default).
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
            })
            .collect();
        let tables = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("attack tables"),
            contents: bytemuck::cast_slice(&attack_tables::build_words()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let param_stride = u64::from(limits.min_uniform_buffer_offset_alignment)
            .max(std::mem::size_of::<GpuParams>() as u64);
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: param_stride * PARAM_SLOTS,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dummy"),
            size: 256,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        let total = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("leaf total"),
            size: 16,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        let tally = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("tally"),
            contents: &[0u8; TALLY_WORDS * 4],
            usage: STORAGE,
        });
        let timing = device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| Timing {
                set: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2 * TIMING_PAIRS,
                }),
                resolve: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("timestamps resolved"),
                    size: 16 * TIMING_PAIRS as u64,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                owners: Default::default(),
                unread: Default::default(),
                period: f64::from(queue.get_timestamp_period()),
                ms: Default::default(),
            });
        let ctx = GpuContext {
            info,
            limits,
            device_memory,
            device,
            queue,
            pipelines,
            tables,
            params,
            levels: Vec::new(),
            table: None,
            table_gen: Cell::new(0),
            cache: None,
            table_buffer_bytes: None,
            dummy,
            total,
            scan_chunk: super::driver::SCAN_CHUNK,
            errors,
            allocated: 0,
            counters: Counters::default(),
            tally,
            level_counts: Default::default(),
            timing,
            level: Cell::new(0),
            scratch: Vec::new(),
            pending: Default::default(),
            param_slot: Cell::new(0),
            bind_cache: RefCell::new(HashMap::new()),
            param_stride,
            runs: 0,
            run_roots: 0,
            host_table: Default::default(),
            host_table_max: host_table_entries(HOST_TABLE_MAX_MB),
            host_hits: 0,
            host_positions: 0,
        };
        ctx.check(&format!("{name}: building the kernels"))?;
        Ok(ctx)
    }

    /// A short description: adapter name, backend, type.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// The default level budget (`--gpu-mem`) in MiB: a safe share of the adapter's limits (half the largest
    /// buffer, at most 8 maximal storage bindings, 512 MiB on software adapters, 4 GiB otherwise); on a discrete
    /// GPU whose driver reports its memory, levels come first: room for two maximal levels and a quarter more
    /// for the levels above them (2.25 × [`GpuContext::max_level_positions`] × [`SLOT_BYTES`]: the two
    /// deepest written levels of a sliced run are the large ones; ≈ 15 GB where a binding holds 4 GiB), if
    /// more than that share, and at most a quarter of the device memory. The transposition tables get what
    /// is left of three quarters of it ([`GpuContext::default_hash_mb`]).
    pub fn default_budget_mb(&self) -> u64 {
        default_level_budget_mb(&self.limits, self.info.device_type, self.device_memory)
    }

    /// The default `--hash` of the GPU backend in MiB: on a discrete GPU whose driver reports its memory
    /// ([`GpuContext::device_memory`]), three quarters of it less the level budget `budget_mb` (not limited
    /// by bindings: a depth's table takes as many buffers as it needs); elsewhere 64, like the CPU backend (a
    /// software adapter's memory is the host's, and an integrated GPU shares it).
    pub fn default_hash_mb(&self, budget_mb: u64) -> usize {
        match (self.info.device_type, self.device_memory) {
            (wgpu::DeviceType::DiscreteGpu, Some(bytes)) => {
                ((bytes >> 20) * 3 / 4).saturating_sub(budget_mb).max(64) as usize
            }
            _ => 64,
        }
    }

    /// Largest level a single binding (and buffer) allows, in 64-byte positions, below 2^31 (so `2 * i`
    /// indexes its u32 pairs). Its children's u32 offsets are prefix sums over chunks small enough not to
    /// overflow, and a merged level is further capped by the merge table's slots (`super::driver`).
    pub fn max_level_positions(&self) -> u64 {
        level_positions(&self.limits)
    }

    /// Fail with the first error the device reported, if any.
    ///
    /// # Errors
    /// [`Error::Backend`] with the device's message.
    pub fn check(&self, doing: &str) -> Result<()> {
        let mut slot = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        match slot.take() {
            Some(e) => Err(Error::Backend(format!("GPU error while {doing}: {e}"))),
            None => Ok(()),
        }
    }

    /// Create a storage buffer of `size` bytes (at least 16).
    pub fn buffer(&mut self, label: &str, size: u64) -> wgpu::Buffer {
        let size = size.max(16).next_multiple_of(16);
        self.bind_cache.get_mut().clear();
        self.allocated += size;
        let held = self.held_bytes() + size;
        if held > self.counters.peak_bytes.get() {
            self.counters.peak_bytes.set(held);
        }
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        })
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
                self.clear(t, slots * 4);
            }
            g = 1;
        }
        self.table_gen.set(g);
        g
    }

    /// Largest buffer of a transposition table, in entries: one storage binding (and one buffer), or less
    /// where [`GpuContext::table_buffer_bytes`] says so (at least 64 entries).
    pub fn max_cache_table_entries(&self) -> u64 {
        let entry = std::mem::size_of::<super::buffers::GpuCacheEntry>() as u64;
        let bytes = self
            .limits
            .max_storage_buffer_binding_size
            .min(self.limits.max_buffer_size)
            .min(self.table_buffer_bytes.unwrap_or(u64::MAX));
        (bytes / entry).clamp(64, u64::from(u32::MAX))
    }

    /// Largest `--hash` the adapter can give, in MiB, where known: on a discrete GPU, its device memory (the
    /// largest device-local heap, [`GpuContext::device_memory`]); `None` elsewhere: on a software adapter,
    /// whose memory is the host's, [`GpuContext::ensure_cache`] checks the host's available memory instead,
    /// and an integrated GPU's device-local heap may be a small carve-out of the memory it can use. The tables
    /// are not limited by bindings (a depth may have any number of buffers).
    pub fn max_hash_mb(&self) -> Option<u64> {
        if self.info.device_type != wgpu::DeviceType::DiscreteGpu {
            return None;
        }
        self.device_memory.map(|b| b >> 20)
    }

    /// Create the transposition tables of `mb` MiB in all (0 = none), split over the depths by
    /// [`split_cache`]; never more than asked.
    ///
    /// # Errors
    /// [`Error::Usage`] naming `--hash` when the adapter cannot give that much (more than a discrete GPU's
    /// device memory where the driver reports it, or, on a software adapter, more than the host's available
    /// memory);
    /// [`Error::Backend`] when the device fails to create them.
    pub fn ensure_cache(&mut self, mb: usize) -> Result<()> {
        if mb == 0 {
            return Ok(());
        }
        if let Some(max) = self.max_hash_mb().filter(|&max| mb as u64 > max) {
            return Err(Error::Usage(format!(
                "--hash: '{mb}' MiB is more than adapter '{}' can give the GPU transposition tables (its \
                 device memory is {max} MiB)",
                self.info.name,
            )));
        }
        if self.info.device_type == wgpu::DeviceType::Cpu {
            crate::limits::check_host_memory("--hash", mb as u64)?;
        }
        let Some(bytes) = (mb as u64).checked_mul(1 << 20) else {
            return Err(Error::Usage(format!(
                "--hash: '{mb}' MiB is more memory than can exist"
            )));
        };
        let entry = std::mem::size_of::<super::buffers::GpuCacheEntry>() as u64;
        self.ensure_cache_entries(bytes >> entry.trailing_zeros());
        self.check("creating the transposition tables")
    }

    /// Create the transposition tables with `len` entries in all, split over the depths by [`split_cache`]
    /// (each split into the fewest equal buffers of at most [`GpuContext::max_cache_table_entries`] by
    /// [`cache_parts`]), unless they exist.
    pub fn ensure_cache_entries(&mut self, len: u64) {
        if self.cache.is_some() {
            return;
        }
        let entry = std::mem::size_of::<super::buffers::GpuCacheEntry>() as u64;
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

    /// Write `data` to the start of `buf`.
    ///
    /// # Errors
    /// A GPU failure of the commands recorded before (submitted first, so the write lands after them).
    pub fn upload(&self, buf: &wgpu::Buffer, data: &[u8]) -> Result<()> {
        self.flush()?;
        if !data.is_empty() {
            self.queue.write_buffer(buf, 0, data);
            Counters::add(&self.counters.bytes_written, data.len() as u64);
        }
        Ok(())
    }

    /// Zero the first `size` bytes of `buf`.
    pub fn clear(&self, buf: &wgpu::Buffer, size: u64) {
        self.record(|enc| enc.clear_buffer(buf, 0, Some(size.next_multiple_of(4))));
        Counters::add(&self.counters.bytes_written, size.next_multiple_of(4));
    }

    /// Append commands to the pending command buffer.
    fn record(&self, f: impl FnOnce(&mut wgpu::CommandEncoder)) {
        let mut pending = self.pending.borrow_mut();
        let enc = pending.get_or_insert_with(|| {
            self.device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("level"),
                })
        });
        f(enc);
    }

    /// Submit the pending command buffer, if any.
    ///
    /// # Errors
    /// [`Error::Backend`] if the device reports an error.
    pub fn flush(&self) -> Result<()> {
        let enc = self.pending.borrow_mut().take();
        if let Some(enc) = enc {
            self.queue.submit(Some(enc.finish()));
            Counters::add(&self.counters.submits, 1);
        }
        self.param_slot.set(0);
        self.check("running the kernels")
    }

    /// Run `kernel` over `params.n` threads with the given buffers at bindings 2, 3, … (binding 0 is the
    /// attack tables, binding 1 the parameters). `writes` is an upper bound of the bytes the kernel writes
    /// (counted in [`Counters::bytes_written`]).
    ///
    /// # Errors
    /// [`Error::Backend`] if the device reports an error.
    pub fn dispatch(
        &self,
        kernel: Kernel,
        params: GpuParams,
        buffers: &[&wgpu::Buffer],
        writes: u64,
    ) -> Result<()> {
        if params.n == 0 {
            return Ok(());
        }
        if buffers.len() != kernel.bindings().len() {
            return Err(Error::Backend(format!(
                "internal: kernel {} binds {} buffers ({}), {} given",
                kernel.name(),
                kernel.bindings().len(),
                kernel.bindings().join(", "),
                buffers.len()
            )));
        }
        Counters::add(&self.counters.bytes_written, writes);
        let pipeline = &self.pipelines[kernel.index()];
        if self.param_slot.get() == PARAM_SLOTS {
            self.flush()?;
        }
        let offset = self.param_slot.get() * self.param_stride;
        self.param_slot.set(self.param_slot.get() + 1);
        self.queue
            .write_buffer(&self.params, offset, bytemuck::bytes_of(&params));
        let key: BindKey = (
            kernel.index(),
            offset,
            buffers.iter().map(|&b| b.clone()).collect(),
        );
        let mut cache = self.bind_cache.borrow_mut();
        if cache.len() >= BIND_CACHE_MAX {
            cache.clear();
        }
        let bind = cache
            .entry(key)
            .or_insert_with(|| {
                let mut entries = Vec::with_capacity(buffers.len() + 2);
                if kernel.uses_tables() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 0,
                        resource: self.tables.as_entire_binding(),
                    });
                }
                entries.push(wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &self.params,
                        offset,
                        size: std::num::NonZeroU64::new(std::mem::size_of::<GpuParams>() as u64),
                    }),
                });
                for (i, b) in buffers.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: 2 + i as u32,
                        resource: b.as_entire_binding(),
                    });
                }
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("bindings"),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &entries,
                })
            })
            .clone();
        drop(cache);
        let groups = params.n.div_ceil(kernel.workgroup());
        let max = self.limits.max_compute_workgroups_per_dimension;
        let (x, y) = if groups <= max {
            (groups, 1)
        } else {
            (max, groups.div_ceil(max))
        };
        self.record(|enc| {
            let timestamp_writes = self.timing.as_ref().map(|t| {
                let mut owners = t.owners.borrow_mut();
                let k = owners.len() as u32;
                owners.push(self.level.get());
                wgpu::ComputePassTimestampWrites {
                    query_set: &t.set,
                    beginning_of_pass_write_index: Some(2 * k),
                    end_of_pass_write_index: Some(2 * k + 1),
                }
            });
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("kernel"),
                timestamp_writes,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        });
        self.check("running a kernel")?;
        if self
            .timing
            .as_ref()
            .is_some_and(|t| t.owners.borrow().len() as u32 >= TIMING_PAIRS)
        {
            self.resolve_timing();
        }
        Ok(())
    }

    /// Resolve the timestamps written so far into a mappable buffer (recorded; read back later by
    /// [`GpuContext::flush_timing`]), so the query set can be written again.
    fn resolve_timing(&self) {
        let Some(t) = &self.timing else {
            return;
        };
        let owners = std::mem::take(&mut *t.owners.borrow_mut());
        if owners.is_empty() {
            return;
        }
        let n = 2 * owners.len() as u32;
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("timestamps read-back"),
            size: 8 * u64::from(n),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.record(|enc| {
            enc.resolve_query_set(&t.set, 0..n, &t.resolve, 0);
            enc.copy_buffer_to_buffer(&t.resolve, 0, &staging, 0, 8 * u64::from(n));
        });
        t.unread.borrow_mut().push((staging, owners));
    }

    /// Set the remaining depth the next dispatches' GPU time is counted for.
    pub fn set_level(&self, remaining: u32) {
        self.level.set(remaining);
    }

    /// Resolve the timestamps written so far, read them back and add each pass's time to its level.
    ///
    /// # Errors
    /// A GPU failure.
    pub async fn flush_timing(&self) -> Result<()> {
        let Some(t) = &self.timing else {
            return Ok(());
        };
        self.resolve_timing();
        let unread = std::mem::take(&mut *t.unread.borrow_mut());
        if unread.is_empty() {
            return Ok(());
        }
        self.flush()?;
        for (staging, owners) in unread {
            let bytes = self.map_read(&staging).await?;
            let ticks: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
            let mut ms = t.ms.borrow_mut();
            for (pair, level) in ticks.chunks(2).zip(owners) {
                let dt = pair[1].saturating_sub(pair[0]) as f64 * t.period / 1e6;
                *ms.entry(level).or_default() += dt;
            }
        }
        Ok(())
    }

    /// Read `size` bytes from byte `offset` (a multiple of 4) of `buf` back to the host: the pending commands
    /// and a copy into a mappable buffer are submitted, and the map is awaited (`map_async` and a future: no
    /// blocking wait here; natively [`block_on`] polls the device while the future is pending, in the browser
    /// the event loop does).
    ///
    /// # Errors
    /// [`Error::Backend`] if the device fails or is lost.
    pub async fn read_back(&self, buf: &wgpu::Buffer, offset: u64, size: u64) -> Result<Vec<u8>> {
        if size == 0 {
            return Ok(Vec::new());
        }
        let size = size.next_multiple_of(4);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("download"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.record(|enc| enc.copy_buffer_to_buffer(buf, offset, &staging, 0, size));
        self.flush()?;
        Counters::add(&self.counters.readbacks, 1);
        self.map_read(&staging).await
    }

    /// Map `staging` (a `MAP_READ` buffer whose copy was submitted), copy its contents out and unmap it.
    async fn map_read(&self, staging: &wgpu::Buffer) -> Result<Vec<u8>> {
        let mapped = MapFuture::default();
        let done = mapped.0.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let mut slot = done.lock().unwrap_or_else(|p| p.into_inner());
            slot.0 = Some(r);
            if let Some(w) = slot.1.take() {
                w.wake();
            }
        });
        let state = mapped.await;
        self.check("reading results")?;
        if let Err(e) = state {
            return Err(Error::Backend(format!(
                "GPU error while reading results: {e}"
            )));
        }
        let out = staging
            .get_mapped_range(..)
            .map_err(|e| Error::Backend(format!("GPU error while reading results: {e}")))?
            .to_vec();
        staging.unmap();
        Ok(out)
    }

    /// Read `n` u32 words from word `first` on ([`GpuContext::read_back`]).
    ///
    /// # Errors
    /// As [`GpuContext::read_back`].
    pub async fn read_u32(&self, buf: &wgpu::Buffer, first: u64, n: u64) -> Result<Vec<u32>> {
        let bytes = self.read_back(buf, first * 4, n * 4).await?;
        Ok(bytemuck::pod_collect_to_vec(&bytes[..(n * 4) as usize]))
    }

    /// Read `n` u32 words, blocking ([`GpuContext::read_u32`] under [`block_on`]).
    ///
    /// # Errors
    /// As [`GpuContext::read_back`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn download_u32(&self, buf: &wgpu::Buffer, n: u64) -> Result<Vec<u32>> {
        block_on(&self.device, self.read_u32(buf, 0, n))
    }

    /// Read `size` bytes, blocking ([`GpuContext::read_back`] under [`block_on`]).
    ///
    /// # Errors
    /// As [`GpuContext::read_back`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn download(&self, buf: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
        block_on(&self.device, self.read_back(buf, 0, size))
    }

    /// The device, for [`block_on`] (a handle: the device lives as long as any).
    pub fn device_handle(&self) -> wgpu::Device {
        self.device.clone()
    }

    /// Most entries of the host table.
    pub fn host_table_max(&self) -> usize {
        self.host_table_max
    }

    /// Bound the host table to `mb` MiB ([`host_table_entries`]; emptied now if it holds more).
    pub fn set_host_table_mb(&mut self, mb: u64) {
        self.host_table_max = host_table_entries(mb);
        if self.host_table.len() > self.host_table_max {
            self.host_table = Default::default();
        }
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
    #[cfg(not(target_arch = "wasm32"))]
    pub fn report(&self) -> Result<GpuReport> {
        block_on(&self.device, self.report_async())
    }

    /// The work report so far (reads the GPU tally back once).
    ///
    /// # Errors
    /// A GPU failure while reading the tally.
    pub async fn report_async(&self) -> Result<GpuReport> {
        self.flush_timing().await?;
        let words = self.read_u32(&self.tally, 0, TALLY_WORDS as u64).await?;
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
                    ms: self
                        .timing
                        .as_ref()
                        .map(|t| t.ms.borrow().get(&remaining).copied().unwrap_or(0.0)),
                }
            })
            .collect();
        Ok(GpuReport {
            adapter: self.describe(),
            adapters: vec![super::report::AdapterWork {
                name: self.info.name.clone(),
                backend: format!("{:?}", self.info.backend).to_lowercase(),
                runs: self.runs,
                positions: self.run_roots,
            }],
            runs: self.runs,
            host_hits: self.host_hits,
            host_positions: self.host_positions,
            retries: 0,
            submits: self.counters.submits.get(),
            readbacks: self.counters.readbacks.get(),
            bytes_written: self.counters.bytes_written.get(),
            peak_bytes: self.counters.peak_bytes.get(),
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
        levels + table + cache + scratch + self.tables.size()
    }

    /// Raise `peak_bytes` to the bytes held now.
    fn note_peak(&self) {
        let held = self.held_bytes();
        if held > self.counters.peak_bytes.get() {
            self.counters.peak_bytes.set(held);
        }
    }

    /// Bytes of buffers created so far.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated
    }
}

/// The state a buffer map's callback shares with its future: the result once the map is done, and the waker
/// of the task awaiting it.
type MapSlot = (
    Option<std::result::Result<(), wgpu::BufferAsyncError>>,
    Option<std::task::Waker>,
);

/// A future that is ready when `map_async`'s callback has run ([`GpuContext::read_back`]).
#[derive(Default)]
struct MapFuture(Arc<Mutex<MapSlot>>);

impl std::future::Future for MapFuture {
    type Output = std::result::Result<(), wgpu::BufferAsyncError>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match slot.0.take() {
            Some(r) => std::task::Poll::Ready(r),
            None => {
                slot.1 = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

/// Run a future of this module to completion on the calling thread (the native, blocking form of the async
/// executor): poll it, and while it is pending wait for `device`'s submitted work, whose completion runs the
/// map callbacks it waits for. The futures here wait on nothing but buffer maps of `device`.
///
/// # Errors
/// The future's error, or [`Error::Backend`] when waiting for the device fails.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<T>(
    device: &wgpu::Device,
    fut: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Backend(format!("GPU error while waiting for results: {e}")))?;
    }
}
