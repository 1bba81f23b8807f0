//! The device: adapter, device and queue with their errors, the compute pipelines (indexed by [`Kernel`],
//! each built once, at its first use: a run builds only the kernels it dispatches), the attack tables and the parameter ring,
//! and the I/O: buffer creation, upload, clear, dispatch (recorded into one command buffer, submitted at the
//! next read-back), read-back (`map_async` and a future: [`GpuDevice::read_back`]), timestamps and work
//! counters. Natively [`block_on`] runs its futures; in the browser the event loop does. Nothing here knows
//! of levels, tables or plans.

use super::attack_tables;
use super::buffers::GpuParams;
use super::kernels::trusted_module;
pub use super::kernels::{Kernel, WORKGROUP};
use crate::error::{Error, Result};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use wgpu::util::DeviceExt;

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

/// One opened adapter: its device, queue, pipelines and I/O state.
pub struct GpuDevice {
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    device_memory: Option<u64>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// The compute pipelines by [`Kernel::index`], each built once, at its first use (or when the page
    /// has compiled it in the browser: [`GpuDevice::prepare`]).
    pipelines: Vec<OnceCell<wgpu::ComputePipeline>>,
    /// Natively every kernel counts as built ([`GpuDevice::built`]): one not built yet is built on the
    /// calling thread before its first dispatch, so the executor never plans around it. False in the browser
    /// (a kernel is planned with only once the page has compiled it) and after
    /// [`GpuDevice::forget_pipelines`] (the browser's plans, natively, for tests).
    on_demand: bool,
    /// Keep naga's runtime checks in every kernel (`--checked-shaders`).
    checked: bool,
    tables: wgpu::Buffer,
    params: wgpu::Buffer,
    errors: Arc<Mutex<Option<String>>>,
    counters: Counters,
    /// Timestamp queries around every dispatch, when the adapter has them.
    timing: Option<Timing>,
    /// The command buffer being recorded: dispatches and clears are appended and submitted together at the
    /// next read-back or upload (one submit per level rather than one per dispatch).
    pending: RefCell<Option<wgpu::CommandEncoder>>,
    /// Next free parameter slot of the `params` ring (one slot per dispatch of the pending command buffer).
    param_slot: Cell<u64>,
    /// Bind groups made so far, by kernel, parameter offset and bound buffers: the same slice pattern after
    /// each read-back reuses them. Emptied whenever a buffer is created (a replaced buffer must not be kept
    /// alive by a cached group) and when it grows past [`BIND_CACHE_MAX`].
    bind_cache: RefCell<HashMap<BindKey, wgpu::BindGroup>>,
    /// Bytes between parameter slots (the adapter's uniform offset alignment).
    param_stride: u64,
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
    /// [`GpuDevice::flush_timing`]: a dispatch never waits for the device).
    unread: std::cell::RefCell<Vec<(wgpu::Buffer, Vec<u32>)>>,
}

pub(super) const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

impl GpuDevice {
    /// Open `adapter` (the device is requested asynchronously, with the adapter's own limits: natively and
    /// in the browser alike) and build the pipelines (`checked`: keep naga's runtime checks in every kernel).
    ///
    /// # Errors
    /// [`Error::Backend`] naming a missing capability or limit, or a device that cannot be opened.
    pub async fn open(adapter: wgpu::Adapter, checked: bool) -> Result<GpuDevice> {
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
        let pipelines = Kernel::ALL.iter().map(|_| OnceCell::new()).collect();
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
        let dev = GpuDevice {
            info,
            limits,
            device_memory,
            device,
            queue,
            pipelines,
            on_demand: cfg!(not(target_arch = "wasm32")),
            checked,
            tables,
            params,
            errors,
            counters: Counters::default(),
            timing,
            pending: Default::default(),
            param_slot: Cell::new(0),
            bind_cache: RefCell::new(HashMap::new()),
            param_stride,
        };
        // Each pipeline is built at its first use, natively too: building all 14 here was 88 % of the CPU of a
        // `perft --depth 1` on lavapipe (SPIR-V to NIR and its passes, about 35 ms each), and a perft's runs
        // never use `moves`, `stats` or the generic `leaf2` (the roots of a run share a side). A kernel the
        // driver cannot build fails its first dispatch ([`GpuDevice::check`]); the first count of a process
        // includes the building of the kernels it uses (docs/deep-runs.md, "GPU start").
        dev.check(&format!("{name}: opening the device"))?;
        Ok(dev)
    }

    /// Build the pipelines of `kernels` not built yet, in the order given (natively each is otherwise built
    /// at its first dispatch). In the browser wgpu's `createComputePipeline` is WebGPU's
    /// synchronous one: the browser's GPU process compiles the kernel before it runs anything queued after
    /// it, so the page compiles kernels itself with `createComputePipelineAsync` and calls this once one is
    /// compiled (its page answers wgpu's call with that pipeline: web/app.js, docs/web.md); the executor
    /// plans around the kernels not built ([`super::executor::deepening`]).
    pub fn prepare(&self, kernels: &[Kernel]) {
        for &k in kernels {
            self.pipeline(k);
        }
    }

    /// Whether `kernel`'s pipeline is built or may be used as if it were: natively always (one not built yet
    /// is built at its first dispatch), unless [`GpuDevice::forget_pipelines`] dropped them; in the browser
    /// those used or prepared so far. The executor plans around the kernels not built yet (a small tree is
    /// counted by the cheap kernels while the big ones compile elsewhere: docs/web.md, "First result").
    pub fn built(&self, kernel: Kernel) -> bool {
        self.on_demand || self.pipelines[kernel.index()].get().is_some()
    }

    /// Whether `kernel`'s pipeline has been built (natively: dispatched or prepared so far).
    pub fn has_pipeline(&self, kernel: Kernel) -> bool {
        self.pipelines[kernel.index()].get().is_some()
    }

    /// Drop every pipeline, so each is built again at its first use, as in the browser (natively: for tests of
    /// the plans a page makes on a fresh device).
    pub fn forget_pipelines(&mut self) {
        self.on_demand = false;
        for p in &mut self.pipelines {
            p.take();
        }
        // A bind group made for an automatic layout fits only that pipeline's.
        self.bind_cache.get_mut().clear();
    }

    /// The pipeline of `kernel`, built at the first call (its shader module and compute pipeline; build
    /// errors reach the error scope [`GpuDevice::check`] reads).
    fn pipeline(&self, kernel: Kernel) -> &wgpu::ComputePipeline {
        self.pipelines[kernel.index()].get_or_init(|| {
            let label = kernel.label();
            let desc = wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(kernel.wgsl().into()),
            };
            let module = if kernel.trusted() && !self.checked {
                trusted_module(&self.device, desc)
            } else {
                self.device.create_shader_module(desc)
            };
            self.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: None,
                    module: &module,
                    entry_point: Some("main"),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: kernel.constants(),
                        // leaf2.wgsl's one-total mode relies on zero-initialised workgroup memory (the
                        // default).
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
        })
    }

    /// The adapter's description.
    pub fn info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The device's limits (the adapter's, requested in full).
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// The largest device-local memory heap in bytes, where the driver reports it (Vulkan).
    pub fn device_memory(&self) -> Option<u64> {
        self.device_memory
    }

    /// What the memory policy needs to know of this adapter.
    pub fn facts(&self) -> super::memory::AdapterFacts<'_> {
        super::memory::AdapterFacts {
            name: &self.info.name,
            kind: self.info.device_type,
            limits: &self.limits,
            memory: self.device_memory,
        }
    }

    /// A short description: adapter name, backend, type.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// The work counters so far.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// GPU milliseconds counted for remaining depth `level`; `None` without timestamps.
    pub fn level_ms(&self, level: u32) -> Option<f64> {
        self.timing
            .as_ref()
            .map(|t| t.ms.borrow().get(&level).copied().unwrap_or(0.0))
    }

    /// The device, for [`block_on`] (a handle: the device lives as long as any).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn handle(&self) -> wgpu::Device {
        self.device.clone()
    }

    /// Bytes of the attack tables' buffer.
    pub fn attack_table_bytes(&self) -> u64 {
        self.tables.size()
    }

    /// Raise the peak to `held` bytes if above it.
    pub fn note_held(&self, held: u64) {
        if held > self.counters.peak_bytes.get() {
            self.counters.peak_bytes.set(held);
        }
    }

    /// Create a storage buffer of `size` bytes (rounded up to 16, at least 16); the caller notes what is
    /// held ([`GpuDevice::note_held`]).
    pub fn create_buffer(&mut self, label: &str, size: u64) -> wgpu::Buffer {
        let size = size.max(16).next_multiple_of(16);
        self.bind_cache.get_mut().clear();
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        })
    }

    /// Create a storage buffer holding `contents`, outside the counted buffers (the tally).
    pub fn buffer_init(&self, label: &str, contents: &[u8]) -> wgpu::Buffer {
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: STORAGE,
            })
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
    /// attack tables, binding 1 the parameters); its GPU time (where the adapter has timestamps) counts for
    /// remaining depth `level` in the work report. `writes` is an upper bound of the bytes the kernel writes
    /// (counted in [`Counters::bytes_written`]).
    ///
    /// # Errors
    /// [`Error::Backend`] if the device reports an error.
    pub fn dispatch(
        &self,
        kernel: Kernel,
        level: u32,
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
        let pipeline = self.pipeline(kernel);
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
                owners.push(level);
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
    /// [`GpuDevice::flush_timing`]), so the query set can be written again.
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
            Counters::add(&self.counters.readbacks, 1);
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

    /// Read `n` u32 words from word `first` on ([`GpuDevice::read_back`]).
    ///
    /// # Errors
    /// As [`GpuDevice::read_back`].
    pub async fn read_u32(&self, buf: &wgpu::Buffer, first: u64, n: u64) -> Result<Vec<u32>> {
        let bytes = self.read_back(buf, first * 4, n * 4).await?;
        Ok(bytemuck::pod_collect_to_vec(&bytes[..(n * 4) as usize]))
    }
}

/// The state a buffer map's callback shares with its future: the result once the map is done, and the waker
/// of the task awaiting it.
type MapSlot = (
    Option<std::result::Result<(), wgpu::BufferAsyncError>>,
    Option<std::task::Waker>,
);

/// A future that is ready when `map_async`'s callback has run ([`GpuDevice::read_back`]).
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
