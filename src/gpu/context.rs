//! The long-lived GPU context: instance, adapter, device, queue, the compute pipelines (one per kernel file,
//! built once), the attack tables, the parameter buffer and the reusable level and cache buffers.
//!
//! Adapter choice: `--adapter NAME|INDEX` (or the environment variable `PERFTLAB_ADAPTER`) names an adapter by
//! its index in `perftlab devices` or by a case-insensitive substring of its name or backend (`vulkan`, `gl`);
//! without one, the first discrete GPU, then integrated, virtual, CPU (software) adapter is taken, preferring
//! Vulkan/Metal/DX12 over GL. wgpu's own `WGPU_BACKEND` (e.g. `vulkan`, `gl`) narrows the search.

use super::buffers::GpuParams;
use super::report::{GpuReport, LevelReport};
use super::tables;
use crate::error::{Error, Result};
use std::cell::Cell;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

/// Words of the GPU tally buffer (cache hits and distinct positions per remaining depth < 32, see
/// `super::report`).
const TALLY_WORDS: usize = 128;

/// The environment variable that picks an adapter when `--adapter` is not given.
pub const ADAPTER_ENV: &str = "PERFTLAB_ADAPTER";

/// Threads per workgroup of every kernel (`@workgroup_size(64)`).
pub const WORKGROUP: u32 = 64;

/// The compute kernels, one per file in `shaders/`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kernel {
    /// `moves.wgsl`: list legal moves.
    Moves,
    /// `count.wgsl`: count legal moves.
    Count,
    /// `expand.wgsl`: write child positions.
    Expand,
    /// `merge.wgsl`: transposition merging.
    Merge,
    /// `backprop.wgsl`: subtree counts one level up.
    Backprop,
    /// `cache_probe.wgsl`: subtree cache lookup.
    CacheProbe,
    /// `cache_store.wgsl`: subtree cache store.
    CacheStore,
    /// `stats.wgsl`: leaf statistics.
    Stats,
    /// `scan.wgsl`: block prefix sums (workgroups of 256).
    Scan,
    /// `scan_add.wgsl`: add scanned block sums back.
    ScanAdd,
    /// `leaf2.wgsl`: fused last two plies (lean generator, bulk counts).
    Leaf2,
    /// `compact.wgsl`: indices of the flagged positions, packed.
    Compact,
}

impl Kernel {
    /// Every kernel, in pipeline order.
    pub const ALL: [Kernel; 12] = [
        Kernel::Moves,
        Kernel::Count,
        Kernel::Expand,
        Kernel::Merge,
        Kernel::Backprop,
        Kernel::CacheProbe,
        Kernel::CacheStore,
        Kernel::Stats,
        Kernel::Scan,
        Kernel::ScanAdd,
        Kernel::Leaf2,
        Kernel::Compact,
    ];

    fn source(self) -> (&'static str, &'static str) {
        match self {
            Kernel::Moves => ("moves", include_str!("../../shaders/moves.wgsl")),
            Kernel::Count => ("count", include_str!("../../shaders/count.wgsl")),
            Kernel::Expand => ("expand", include_str!("../../shaders/expand.wgsl")),
            Kernel::Merge => ("merge", include_str!("../../shaders/merge.wgsl")),
            Kernel::Backprop => ("backprop", include_str!("../../shaders/backprop.wgsl")),
            Kernel::CacheProbe => (
                "cache_probe",
                include_str!("../../shaders/cache_probe.wgsl"),
            ),
            Kernel::CacheStore => (
                "cache_store",
                include_str!("../../shaders/cache_store.wgsl"),
            ),
            Kernel::Stats => ("stats", include_str!("../../shaders/stats.wgsl")),
            Kernel::Scan => ("scan", include_str!("../../shaders/scan.wgsl")),
            Kernel::ScanAdd => ("scan_add", include_str!("../../shaders/scan_add.wgsl")),
            Kernel::Leaf2 => ("leaf2", include_str!("../../shaders/leaf2.wgsl")),
            Kernel::Compact => ("compact", include_str!("../../shaders/compact.wgsl")),
        }
    }

    /// Position in [`Kernel::ALL`] and in the pipeline list (checked by a test).
    pub fn index(self) -> usize {
        self as usize
    }

    /// Threads per workgroup.
    pub fn workgroup(self) -> u32 {
        match self {
            Kernel::Scan => 256,
            _ => WORKGROUP,
        }
    }

    /// Whether the kernel generates moves (and so reads the attack tables).
    pub fn uses_tables(self) -> bool {
        matches!(
            self,
            Kernel::Moves | Kernel::Count | Kernel::Expand | Kernel::Leaf2
        )
    }

    /// The kernel's WGSL module: the shared files it includes, then its own file.
    pub fn wgsl(self) -> String {
        let (_, body) = self.source();
        let mut source = self.includes().join("\n");
        source.push('\n');
        source.push_str(body);
        source
    }

    /// The kernel's file name without `.wgsl`.
    pub fn name(self) -> &'static str {
        self.source().0
    }

    /// The names of the storage buffers the kernel binds at 2, 3, … in the order [`GpuContext::dispatch`]
    /// takes them (binding 0 is the attack tables, 1 the parameters); a test checks them against the
    /// `@binding(n) var<…> name` lines of the WGSL.
    pub fn bindings(self) -> &'static [&'static str] {
        match self {
            Kernel::Moves => &["positions", "offsets", "moves"],
            Kernel::Count => &["positions", "flags", "counts"],
            Kernel::Expand => &[
                "positions",
                "flags",
                "offsets",
                "children",
                "parents",
                "info",
            ],
            Kernel::Merge => &["positions", "table", "rep", "flags", "tally"],
            Kernel::Backprop => &["parents", "rep", "child_counts", "parent_counts"],
            Kernel::CacheProbe => &["positions", "flags", "sub", "cache", "tally"],
            Kernel::CacheStore => &["positions", "flags", "sub", "cache", "locks"],
            Kernel::Stats => &["info", "counts", "totals"],
            Kernel::Scan => &["input", "output", "block_sums"],
            Kernel::ScanAdd => &["block_offsets", "output"],
            Kernel::Leaf2 => &["positions", "flags", "sub", "ids"],
            Kernel::Compact => &["flags", "offsets", "ids"],
        }
    }

    /// Whether the kernel is built without naga's runtime checks (bounds checks, loop bounding) unless
    /// `--checked-shaders` is given: only kernels whose every index is proven in range (see
    /// [`trusted_module`]).
    pub fn trusted(self) -> bool {
        matches!(self, Kernel::Leaf2)
    }

    /// The shared files prepended to the kernel's own (`common.wgsl` always).
    fn includes(self) -> &'static [&'static str] {
        match self {
            Kernel::Moves | Kernel::Count | Kernel::Expand => &[COMMON, MOVEGEN],
            Kernel::Leaf2 => &[COMMON, LEAN],
            _ => &[COMMON],
        }
    }
}

const COMMON: &str = include_str!("../../shaders/common.wgsl");
const MOVEGEN: &str = include_str!("../../shaders/movegen.wgsl");
const LEAN: &str = include_str!("../../shaders/lean.wgsl");

/// Build a shader module without runtime checks.
///
/// # Safety (the argument for each kernel that [`Kernel::trusted`] names)
/// `leaf2.wgsl` with `common.wgsl` and `lean.wgsl`:
/// - `positions[i]`, `flags[i]`, `sub[2i]`, `sub[2i + 1]`: the kernel returns unless `i < params.n`, and the
///   host dispatches `n` no larger than the level buffers bound (`LevelBufs::cap`, sized for `n` by
///   `ensure_level` before every dispatch);
/// - `tables[…]`: every square index is `< 64`: it comes from `bb_lsb` (also of an empty set: `32 +
///   firstTrailingBit(0)` wraps to 31), from `bb_msb` of a set tested non-empty, from a move's 6-bit fields, or
///   from a castling/en-passant byte tested `< 64`; the largest index is `T_LINE + 64 * 63 + 63 < tables::LEN`,
///   and `T_RAY + 64 * dir + s` has `dir < 8`;
/// - private arrays: `l_moves[l_count - l_skip]` is guarded by `< LIST_LEN`, `l_moves[k]` has `k < listed ≤
///   LIST_LEN`; `Pos::bb[role]` has `role ≤ 5` (a promotion piece is 1–4, a listed move's role 0–5);
/// - loops: every `while` pops one bit of a 64-bit set per iteration, `for` loops have constant bounds, and the
///   outer loop of `leaf2` advances `k` up to `listed` or `l_skip` by `LIST_LEN` towards the move count.
///
/// So no access leaves its binding and no loop runs unbounded; `--checked-shaders` builds it checked anyway.
#[allow(unsafe_code)]
fn trusted_module(
    device: &wgpu::Device,
    desc: wgpu::ShaderModuleDescriptor<'_>,
) -> wgpu::ShaderModule {
    // SAFETY: see the argument above; only kernels listed by `Kernel::trusted` come here.
    unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
}

/// One adapter as `perftlab devices` lists it.
#[derive(Clone, Debug)]
pub struct AdapterSummary {
    /// Index for `--adapter`.
    pub index: usize,
    /// Adapter name.
    pub name: String,
    /// Graphics API.
    pub backend: String,
    /// Discrete, integrated, virtual, CPU or other.
    pub device_type: String,
    /// Driver name and version.
    pub driver: String,
    /// Largest storage buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer: u64,
    /// Storage buffers per shader stage.
    pub max_storage_buffers: u32,
    /// Workgroups per dispatch dimension.
    pub max_workgroups_per_dim: u32,
    /// Invocations per workgroup.
    pub max_invocations: u32,
    /// Whether compute shaders are supported.
    pub compute: bool,
}

fn instance() -> wgpu::Instance {
    wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
}

fn all_adapters(instance: &wgpu::Instance) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()))
}

fn summary(index: usize, a: &wgpu::Adapter) -> AdapterSummary {
    let info = a.get_info();
    let l = a.limits();
    AdapterSummary {
        index,
        name: info.name,
        backend: format!("{:?}", info.backend).to_lowercase(),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        max_storage_binding: l.max_storage_buffer_binding_size,
        max_buffer: l.max_buffer_size,
        max_storage_buffers: l.max_storage_buffers_per_shader_stage,
        max_workgroups_per_dim: l.max_compute_workgroups_per_dimension,
        max_invocations: l.max_compute_invocations_per_workgroup,
        compute: a
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS),
    }
}

/// Every adapter wgpu finds, in the order `--adapter INDEX` uses.
pub fn list_adapters() -> Vec<AdapterSummary> {
    all_adapters(&instance())
        .iter()
        .enumerate()
        .map(|(i, a)| summary(i, a))
        .collect()
}

fn preference(a: &wgpu::Adapter) -> (u8, u8) {
    let info = a.get_info();
    let kind = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    (kind, (info.backend == wgpu::Backend::Gl) as u8)
}

/// Pick the adapter named by `choice` (index or name substring), or the preferred one.
fn pick_adapter(choice: Option<&str>) -> Result<wgpu::Adapter> {
    let adapters = all_adapters(&instance());
    if adapters.is_empty() {
        return Err(Error::Backend(
            "no GPU adapter found (install a Vulkan, Metal, DX12 or GL driver; on a machine without a GPU, \
             Mesa's lavapipe: apt-get install mesa-vulkan-drivers libvulkan1)"
                .into(),
        ));
    }
    let names = adapters
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{i}: {} ({:?})", a.get_info().name, a.get_info().backend))
        .collect::<Vec<_>>()
        .join(", ");
    match choice.map(str::trim) {
        None | Some("") => adapters
            .into_iter()
            .min_by_key(preference)
            .ok_or_else(|| Error::Backend("no GPU adapter found".into())),
        Some(text) => {
            if let Ok(i) = text.parse::<usize>() {
                let n = adapters.len();
                return adapters.into_iter().nth(i).ok_or_else(|| {
                    Error::Backend(format!(
                        "--adapter: no adapter with index '{i}' ({n} found: {names})"
                    ))
                });
            }
            let want = text.to_lowercase();
            let found = adapters
                .iter()
                .filter(|a| {
                    let info = a.get_info();
                    format!("{} {:?}", info.name, info.backend)
                        .to_lowercase()
                        .contains(&want)
                })
                .min_by_key(|a| preference(a))
                .cloned();
            found.ok_or_else(|| {
                Error::Backend(format!(
                    "--adapter: no adapter whose name or backend contains '{text}' (found: {names})"
                ))
            })
        }
    }
}

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

/// The subtree-count cache buffers.
pub struct Cache {
    /// Entries (`GpuCacheEntry`), a power of two.
    pub entries: wgpu::Buffer,
    /// One lock word per entry, cleared before each store.
    pub locks: wgpu::Buffer,
    /// Number of entries.
    pub len: u32,
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
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: Vec<wgpu::ComputePipeline>,
    tables: wgpu::Buffer,
    params: wgpu::Buffer,
    /// Level buffers, reused between runs.
    pub levels: Vec<LevelBufs>,
    /// The merge hash table (u32 per slot).
    pub table: Option<(wgpu::Buffer, u64)>,
    /// The subtree cache, if on.
    pub cache: Option<Cache>,
    /// A small buffer bound where a kernel needs a binding it does not use in this mode.
    pub dummy: wgpu::Buffer,
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
}

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

impl GpuContext {
    /// Open the adapter named by `choice` (or [`ADAPTER_ENV`], or the preferred one) and build the pipelines.
    ///
    /// # Errors
    /// [`Error::Backend`] naming a missing adapter, capability or limit, or a device that cannot be opened.
    pub fn new(choice: Option<&str>) -> Result<GpuContext> {
        GpuContext::with_checks(choice, false)
    }

    /// As [`GpuContext::new`]; `checked` keeps naga's runtime checks in every kernel (`--checked-shaders`).
    ///
    /// # Errors
    /// As [`GpuContext::new`].
    pub fn with_checks(choice: Option<&str>, checked: bool) -> Result<GpuContext> {
        let env = std::env::var(ADAPTER_ENV).ok();
        let adapter = pick_adapter(choice.or(env.as_deref()))?;
        let info = adapter.get_info();
        let limits = adapter.limits();
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
                7,
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
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("perftlab"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
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
                let (label, _) = k.source();
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
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        let tables = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("attack tables"),
            contents: bytemuck::cast_slice(&tables::build_words()),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("params"),
            size: std::mem::size_of::<GpuParams>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("dummy"),
            size: 256,
            usage: STORAGE,
            mapped_at_creation: false,
        });
        let tally = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("tally"),
            contents: &[0u8; TALLY_WORDS * 4],
            usage: STORAGE,
        });
        let ctx = GpuContext {
            info,
            limits,
            device,
            queue,
            pipelines,
            tables,
            params,
            levels: Vec::new(),
            table: None,
            cache: None,
            dummy,
            errors,
            allocated: 0,
            counters: Counters::default(),
            tally,
            level_counts: Default::default(),
            runs: 0,
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

    /// The default memory budget: a safe share of the adapter's limits (half the largest buffer, at most 8
    /// maximal storage bindings, 512 MiB on software adapters, 4 GiB otherwise).
    pub fn default_budget_mb(&self) -> u64 {
        let cap = if self.info.device_type == wgpu::DeviceType::Cpu {
            512
        } else {
            4096
        };
        let by_limits = (self.limits.max_buffer_size / 2)
            .min(8 * self.limits.max_storage_buffer_binding_size)
            >> 20;
        by_limits.clamp(16, cap)
    }

    /// Largest level a single binding allows, in positions (also small enough that the u32 offsets of the
    /// next level cannot overflow at up to 512 moves per position).
    pub fn max_level_positions(&self) -> u64 {
        (self.limits.max_storage_buffer_binding_size / 64).min(u32::MAX as u64 / 512)
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
            }
        }
        (self.table.as_ref().map_or(64, |t| t.1) - 1) as u32
    }

    /// Create the subtree cache of about `mb` MiB (0 = none).
    pub fn ensure_cache(&mut self, mb: usize) {
        if mb == 0 || self.cache.is_some() {
            return;
        }
        let bytes = ((mb as u64) << 20).min(self.limits.max_storage_buffer_binding_size);
        let len = (bytes / 80).max(64);
        let len = if len.is_power_of_two() {
            len
        } else {
            len.next_power_of_two() / 2
        };
        let entries = self.buffer("cache entries", len * 80);
        let locks = self.buffer("cache locks", len * 4);
        self.cache = Some(Cache {
            entries,
            locks,
            len: len as u32,
        });
    }

    /// Write `data` to the start of `buf`.
    pub fn upload(&self, buf: &wgpu::Buffer, data: &[u8]) {
        if !data.is_empty() {
            self.queue.write_buffer(buf, 0, data);
            Counters::add(&self.counters.bytes_written, data.len() as u64);
        }
    }

    /// Zero the first `size` bytes of `buf`.
    pub fn clear(&self, buf: &wgpu::Buffer, size: u64) {
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("clear"),
            });
        enc.clear_buffer(buf, 0, Some(size.next_multiple_of(4)));
        self.submit(enc);
        Counters::add(&self.counters.bytes_written, size.next_multiple_of(4));
    }

    fn submit(&self, enc: wgpu::CommandEncoder) {
        self.queue.submit(Some(enc.finish()));
        Counters::add(&self.counters.submits, 1);
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
        self.queue
            .write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let mut entries = Vec::with_capacity(buffers.len() + 2);
        if kernel.uses_tables() {
            entries.push(wgpu::BindGroupEntry {
                binding: 0,
                resource: self.tables.as_entire_binding(),
            });
        }
        entries.push(wgpu::BindGroupEntry {
            binding: 1,
            resource: self.params.as_entire_binding(),
        });
        for (i, b) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: 2 + i as u32,
                resource: b.as_entire_binding(),
            });
        }
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("bindings"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let groups = params.n.div_ceil(kernel.workgroup());
        let max = self.limits.max_compute_workgroups_per_dimension;
        let (x, y) = if groups <= max {
            (groups, 1)
        } else {
            (max, groups.div_ceil(max))
        };
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("dispatch"),
            });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("kernel"),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        self.submit(enc);
        self.check("running a kernel")
    }

    /// Read `size` bytes from the start of `buf` back to the host.
    ///
    /// # Errors
    /// [`Error::Backend`] if the device fails or is lost.
    pub fn download(&self, buf: &wgpu::Buffer, size: u64) -> Result<Vec<u8>> {
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
        let mut enc = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("download"),
            });
        enc.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
        self.submit(enc);
        Counters::add(&self.counters.readbacks, 1);
        let done: Arc<Mutex<Option<std::result::Result<(), wgpu::BufferAsyncError>>>> =
            Arc::new(Mutex::new(None));
        let flag = done.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            *flag.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        });
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| Error::Backend(format!("GPU error while waiting for results: {e}")))?;
        self.check("reading results")?;
        let state = done.lock().unwrap_or_else(|p| p.into_inner()).take();
        match state {
            Some(Ok(())) => {}
            Some(Err(e)) => {
                return Err(Error::Backend(format!(
                    "GPU error while reading results: {e}"
                )))
            }
            None => {
                return Err(Error::Backend(
                    "GPU error: results were not ready after waiting".into(),
                ))
            }
        }
        let out = staging
            .get_mapped_range(..)
            .map_err(|e| Error::Backend(format!("GPU error while reading results: {e}")))?
            .to_vec();
        staging.unmap();
        Ok(out)
    }

    /// Read `n` u32 words.
    ///
    /// # Errors
    /// As [`GpuContext::download`].
    pub fn download_u32(&self, buf: &wgpu::Buffer, n: u64) -> Result<Vec<u32>> {
        let bytes = self.download(buf, n * 4)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes[..(n * 4) as usize]))
    }

    /// Count a GPU run.
    pub fn note_run(&mut self) {
        self.runs += 1;
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

    /// The work report so far (reads the GPU tally back once).
    ///
    /// # Errors
    /// A GPU failure while reading the tally.
    pub fn report(&self) -> Result<GpuReport> {
        let words = self.download_u32(&self.tally, TALLY_WORDS as u64)?;
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
                    ms: None,
                }
            })
            .collect();
        Ok(GpuReport {
            adapter: self.describe(),
            runs: self.runs,
            retries: 0,
            submits: self.counters.submits.get(),
            readbacks: self.counters.readbacks.get(),
            bytes_written: self.counters.bytes_written.get(),
            peak_bytes: self.counters.peak_bytes.get(),
            levels,
        })
    }

    /// Bytes of the long-lived buffers held now (levels, merge table, cache, attack tables).
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
        let cache = self
            .cache
            .as_ref()
            .map_or(0, |c| c.entries.size() + c.locks.size());
        levels + table + cache + self.tables.size()
    }

    /// Bytes of buffers created so far.
    pub fn allocated_bytes(&self) -> u64 {
        self.allocated
    }
}
