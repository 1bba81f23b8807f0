//! The GPU backend: WGSL compute kernels (`shaders/*.wgsl`) on wgpu, for any vendor (Vulkan, Metal, DX12, GL).
//!
//! - [`adapter`]: adapter listing and choice;
//! - [`device`]: one opened adapter: device and queue with their errors, pipelines, upload / dispatch /
//!   read-back (`map_async` and a future), timestamps, work counters;
//! - [`memory`]: the memory policy in one place: level budget (`--gpu-mem`), level cap, reserve, the split of
//!   `--hash` between the host table and the GPU tables and over the depths, the budgets an adapter refuses;
//! - [`tables`]: the GPU transposition tables and the host table;
//! - [`context`]: the long-lived state of one adapter: its device, level buffers, merge table, tables,
//!   scratch, report counters (private fields, methods only);
//! - [`planner`]: a count as an explicit [`planner::Plan`] (host levels, units of work, counting mode) and a
//!   level's slices ([`planner::plan_slices`]); no GPU;
//! - [`executor`]: one GPU run of a plan (levels, merging, tables, fused leaves), asynchronously;
//! - [`pool`]: the counts' entry points, on one adapter or several (native: one thread each);
//! - [`kernels`]: the kernels, their WGSL sources, binding names and trusted builds;
//! - [`buffers`]: the Rust mirrors of the WGSL structs;
//! - [`attack_tables`]: the attack and slider-magic tables uploaded to the GPU;
//! - [`report`]: the work report (`gpu` object of `perft --json`);
//! - `options`: [`GpuOptions`];
//! - `tests`: the unit tests of the internals (those of the public surface are in `tests/gpu.rs`).
//!
//! The submodules are private: the public surface is what this file re-exports (below), checked by
//! `tests/layering.rs`.
//!
//! Bitboards are `vec2<u32>` pairs on the GPU. Counts are exact u64 per run, summed in u128. Several adapters
//! (`--adapter all` or a list) share each count's host-level positions, one thread each
//! ([`pool::pool_counts`]); the report lists each adapter's runs and positions.
//!
//! # Facts about wgpu/naga 30 and lavapipe this design rests on
//! (the measurements behind them: `docs/gpu-notes.md`;
//! measured on this project's CPU-only machines with wgpu 30.0.2, naga 30.0.2, Mesa 22.3.6; re-check them when
//! versions change)
//! - **64-bit builtins are broken in naga 30**: `countTrailingZeros`/`firstTrailingBit` on `u64` give wrong
//!   results, `firstLeadingBit`/`countLeadingZeros`/`reverseBits` panic (wgpu issue 5276), `extractBits`/
//!   `insertBits` are wrong, `countOneBits(u64)` emits SPIR-V that the Vulkan validation layers reject (64-bit
//!   OpBitCount). Hence `vec2<u32>` bitboards with two 32-bit builtins per operation: correct on Vulkan and GL,
//!   no optional feature, as fast as native u64 on lavapipe (real GPUs split 64-bit integer work anyway).
//! - **Lookup tables live in storage buffers**: a WGSL `const` array indexed dynamically is copied whole on every
//!   access (about 15× slower than a read-only storage buffer in a lookup loop), see [`attack_tables`].
//! - **Runtime checks cost**: a module built with `create_shader_module_trusted(…, unchecked())` ran a
//!   table-lookup loop 2.3× faster (7% on pure arithmetic); only kernels whose indices are proven in range are
//!   built that way ([`kernels::Kernel::trusted`], each with its argument), `--checked-shaders` keeps the checks.
//! - **lavapipe** (`apt-get install mesa-vulkan-drivers libvulkan1`, "llvmpipe … (Vulkan, Cpu)"): 128 MiB
//!   largest storage binding, 2 GiB − 1 largest buffer, 65,535 workgroups per dimension (larger dispatches use a
//!   2D grid), no watchdog; it spreads a dispatch over the cores and runs move-generation code about 5× slower
//!   per core than plain Rust, so timings there track instruction counts and passes, not GPU memory speed.
//!   Mesa's GL adapter is also found; when the Vulkan loader is missing, the GL one is all there is.
//! - Loaders print `error: XDG_RUNTIME_DIR is invalid or not set` (Mesa's device-select layer; harmless;
//!   `NODEVICE_SELECT=1` silences it).

mod adapter;
mod attack_tables;
mod buffers;
mod context;
mod device;
mod executor;
mod kernels;
mod memory;
mod options;
mod planner;
mod pool;
mod report;
mod tables;
#[cfg(test)]
mod tests;

// The public surface: what the CLI, the web page (`web/`) and a library user need. Everything else is private
// to this module; `tests/layering.rs` checks that these stay the only `pub` items here.

/// Adapters: [`list_adapters`] (what `perftlab devices` prints), the variable read when no adapter is named.
pub use adapter::{list_adapters, AdapterSummary, ADAPTER_ENV};
/// The kernels, for a page that builds their pipelines itself ([`GpuBackend::kernel_order`],
/// [`GpuBackend::prepare_kernels`]).
pub use kernels::Kernel;
/// The options of [`GpuBackend::new`] / [`GpuBackend::open`].
pub use options::GpuOptions;
/// The progress of an async count, and the most leaves a unit of work aims at (the page sizes its counts by it).
pub use planner::{GpuProgress, MAX_UNIT_LEAVES};
/// The work report ([`GpuBackend::work_report`], the `gpu` object of `perft --json`).
pub use report::{AdapterWork, GpuReport, LevelReport};

use context::GpuContext;

#[cfg(not(target_arch = "wasm32"))]
use crate::backend::{Backend, Detail, Stats, WorkReport};
use crate::error::Result;
use crate::position::Setup;
use crate::reference;
use crate::types::Move;
use crate::validate::Checked;
use planner::Settings;
use pool::Gpus;
use std::ops::ControlFlow;
use std::sync::Mutex;

/// Perft on the GPU: one adapter, or several (`--adapter all` or a list) that share each count's host-level
/// positions, one thread each ([`pool::pool_counts`]).
///
/// The work is asynchronous underneath ([`GpuBackend::perft_async`], [`GpuBackend::divide_async`]: read-backs
/// are awaited buffer maps); natively the [`Backend`] methods block on it ([`device::block_on`]), in the
/// browser (wasm32, WebGPU) only the async methods exist. One count at a time: a second one waits for the
/// first (each adapter's context is locked while it counts).
pub struct GpuBackend {
    /// The adapters, the first holding the host table; each with its settings (its own level budget).
    devices: Vec<pool::PoolDevice>,
    /// What each adapter was set up with, as lines ([`GpuBackend::setup_lines`]).
    setup: Vec<String>,
}

impl GpuBackend {
    /// The GPU backend's [`crate::backend::Backend::merges_only_within_batch`], known without opening an
    /// adapter: `plan --backend gpu` deals its shards by it but counts its check and estimate on the CPU (a
    /// GPU start is about 0.15 CPU s, its kernels 35 ms each: docs/deep-runs.md, "GPU units"). Each batch is
    /// one planned run that merges each level's transpositions within the batch only.
    pub const MERGES_ONLY_WITHIN_BATCH: bool = true;

    /// Open the adapters chosen by `opts.adapter` (or `PERFTLAB_ADAPTER`, or the preferred one); `--gpu-mem`
    /// and `--hash` apply to each.
    ///
    /// # Errors
    /// [`crate::Error::Backend`] naming a missing adapter, capability or limit.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(opts: &GpuOptions) -> Result<GpuBackend> {
        let contexts = GpuContext::open_all(opts.adapter.as_deref(), opts.checked_shaders)?;
        GpuBackend::prepare_all(contexts, opts)
    }

    /// [`GpuBackend::new`], asynchronous (the adapter and device requests are awaited): the way in from the
    /// browser, where WebGPU offers one adapter (`opts.adapter` must be `None` there).
    ///
    /// # Errors
    /// As [`GpuBackend::new`].
    pub async fn open(opts: &GpuOptions) -> Result<GpuBackend> {
        let contexts =
            GpuContext::open_async(opts.adapter.as_deref(), opts.checked_shaders).await?;
        GpuBackend::prepare_all(contexts, opts)
    }

    fn prepare_all(contexts: Vec<GpuContext>, opts: &GpuOptions) -> Result<GpuBackend> {
        let mut devices = Vec::with_capacity(contexts.len());
        let mut setup = Vec::new();
        for ctx in contexts {
            let (device, lines) = GpuBackend::prepare(ctx, opts)?;
            devices.push(device);
            setup.extend(lines);
        }
        Ok(GpuBackend { devices, setup })
    }

    /// Check the budget and tables of one adapter's context, make its tables and settings; the lines that
    /// describe them ([`GpuBackend::setup_lines`]).
    fn prepare(mut ctx: GpuContext, opts: &GpuOptions) -> Result<(pool::PoolDevice, Vec<String>)> {
        ctx.set_table_buffer_bytes(opts.table_buffer_bytes);
        if let Some(mb) = opts.gpu_mem_mb {
            ctx.device().facts().check_budget(mb)?;
        }
        let budget_mb = opts
            .gpu_mem_mb
            .unwrap_or_else(|| ctx.device().facts().default_budget_mb());
        let hash_mb = opts
            .hash_mb
            .unwrap_or_else(|| ctx.device().facts().default_hash_mb(budget_mb));
        ctx.device()
            .facts()
            .check_together(budget_mb, hash_mb as u64, opts)?;
        // `--hash` covers both tables: the host table takes its share, the GPU tables the rest.
        let host_mb = memory::host_table_mb(hash_mb as u64);
        ctx.set_host_table_mb(host_mb);
        ctx.ensure_cache(hash_mb - host_mb as usize)?;
        let settings = Settings {
            merge: opts.merge,
            cache: hash_mb > 0,
            budget_bytes: budget_mb << 20,
            max_run_depth: memory::MAX_RUN_DEPTH,
            host_plies: 0,
        };
        let default = |given: bool| if given { "" } else { " (default)" };
        let lines = vec![
            format!("adapter {}", ctx.device().describe()),
            format!(
                "device memory {}",
                ctx.device().device_memory()
                    .map_or("not reported by the driver".into(), |b| format!(
                        "{} MiB (largest device-local heap)",
                        b >> 20
                    ))
            ),
            format!(
                "memory budget {budget_mb} MiB{} (max storage binding {} MiB, max buffer {} MiB)",
                default(opts.gpu_mem_mb.is_some()),
                ctx.device().limits().max_storage_buffer_binding_size >> 20,
                ctx.device().limits().max_buffer_size >> 20
            ),
            format!(
                "transposition merging {}, transposition tables{} {}",
                if opts.merge { "on" } else { "off" },
                default(opts.hash_mb.is_some()),
                match ctx.cache() {
                    Some(c) => format!(
                        "{} entries ({} MiB) per remaining depth (buffers × entries each, MiB): {}",
                        c.entries(),
                        c.bytes() >> 20,
                        c.layout()
                    ),
                    None => "off".into(),
                }
            ),
            format!(
                "host table at most {} entries ({host_mb} MiB of {} {hash_mb}: an eighth, at most {} MiB; \
                 the GPU tables get the rest)",
                ctx.host_table_max(),
                crate::error::named(crate::error::Setting::Hash),
                memory::HOST_TABLE_MAX_MB
            ),
        ];
        Ok((
            pool::PoolDevice {
                ctx: Mutex::new(ctx),
                settings,
            },
            lines,
        ))
    }

    /// What each adapter was set up with (adapter, device memory, level budget, merging and tables, host
    /// table), one line each, in `--adapter` order: `--verbose` prints them with a `gpu: ` prefix.
    pub fn setup_lines(&self) -> &[String] {
        &self.setup
    }

    fn ctx(&self) -> std::sync::MutexGuard<'_, GpuContext> {
        self.devices[0].lock()
    }

    /// Build the pipelines of `kernels` on every adapter ahead of their first use, in the order given: in
    /// the browser the page calls it for each kernel it has compiled ([`device::GpuDevice::prepare`]);
    /// natively each kernel is otherwise built at its first dispatch. An adapter busy with a count is skipped (it builds what
    /// it needs itself): this never waits.
    pub fn prepare_kernels(&self, kernels: &[kernels::Kernel]) {
        for i in 0..self.devices.len() {
            if let Ok(ctx) = self.try_ctx(i) {
                ctx.device().prepare(kernels);
            }
        }
    }

    /// The kernels whose pipelines are built on the first adapter, in [`kernels::Kernel::ALL`] order
    /// ([`device::GpuDevice::has_pipeline`]: natively those dispatched or prepared so far, each built at its
    /// first use); none while a count holds the adapter.
    pub fn built_kernels(&self) -> Vec<kernels::Kernel> {
        self.try_ctx(0).map_or_else(
            |_| Vec::new(),
            |ctx| {
                kernels::Kernel::ALL
                    .into_iter()
                    .filter(|&k| ctx.device().has_pipeline(k))
                    .collect()
            },
        )
    }

    /// Drop every adapter's pipelines, so each is built again at its first use, as in the browser (for tests
    /// of the plans a fresh page makes, natively).
    pub fn forget_pipelines(&self) {
        for d in &self.devices {
            d.lock().device_mut().forget_pipelines();
        }
    }

    /// The kernels a page should build first and those to build next, in the order the executor can use
    /// them ([`executor::deepening`]): the runs of remaining depth 1 (`merge`, `count`: what a count runs
    /// while the others are not built), then the rest of the runs of depth 2 (the fused leaves for either
    /// side), then the rest of the deeper runs ([`executor::deep_kernels`]: expand, backprop), for the first
    /// adapter's settings.
    pub fn kernel_order(&self) -> (Vec<kernels::Kernel>, Vec<kernels::Kernel>) {
        let d = &self.devices[0];
        let ctx = d.lock();
        let cache = d.settings.cache && ctx.cache().is_some();
        let first = executor::run_kernels(1, d.settings.merge, cache, None);
        let mut next: Vec<kernels::Kernel> = Vec::new();
        for k in executor::kernels_to(&ctx, &d.settings, 2)
            .into_iter()
            .chain(executor::deep_kernels(&ctx, &d.settings))
        {
            if !first.contains(&k) && !next.contains(&k) {
                next.push(k);
            }
        }
        (first, next)
    }

    /// The adapters used, as text (joined by " + ").
    pub fn adapter(&self) -> String {
        self.devices
            .iter()
            .map(|d| d.lock().device().describe())
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// The (first) adapter's description.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.ctx().device().info().clone()
    }

    /// Every adapter's description, in `--adapter` order.
    pub fn adapter_infos(&self) -> Vec<wgpu::AdapterInfo> {
        self.devices
            .iter()
            .map(|d| d.lock().device().info().clone())
            .collect()
    }

    /// The work report so far (the `gpu` object of `perft --json`), all adapters together.
    ///
    /// # Errors
    /// A GPU failure while reading the counters back.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn work_report(&self) -> Result<report::GpuReport> {
        let device = self.ctx().device().handle();
        device::block_on(&device, self.work_report_async())
    }

    /// [`GpuBackend::work_report`], asynchronous.
    ///
    /// # Errors
    /// As [`GpuBackend::work_report`].
    // In the browser the guard held across the await comes from `try_ctx`, which never waits.
    #[allow(clippy::await_holding_lock)]
    pub async fn work_report_async(&self) -> Result<report::GpuReport> {
        let mut reports = Vec::with_capacity(self.devices.len());
        for i in 0..self.devices.len() {
            #[cfg(not(target_arch = "wasm32"))]
            let r = {
                let ctx = self.devices[i].lock();
                let device = ctx.device().handle();
                device::block_on(&device, ctx.report_async())?
            };
            #[cfg(target_arch = "wasm32")]
            let r = self.try_ctx(i)?.report_async().await?;
            reports.push(r);
        }
        if reports.len() == 1 {
            return Ok(reports.pop().expect("one report"));
        }
        Ok(report::GpuReport::merged(reports))
    }

    /// Run one of this backend's futures ([`GpuBackend::perft_async`], …) to completion on the calling
    /// thread. Natively a read-back completes only while the device is polled, which this does
    /// ([`device::block_on`] on the first adapter); a plain executor such as `pollster::block_on` would wait
    /// forever. In the browser the event loop drives them (`wasm_bindgen_futures`).
    ///
    /// # Errors
    /// The future's error, or a GPU failure while waiting.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn wait<T>(&self, fut: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        let device = self.ctx().device().handle();
        device::block_on(&device, fut)
    }

    /// Adapter `i`'s context for an async count, taken without waiting: a second async count while one is in
    /// flight on this backend is refused (in the browser both would run on one thread, where waiting for the
    /// lock would never end).
    ///
    /// # Errors
    /// [`crate::Error::Backend`] when the backend is busy.
    fn try_ctx(&self, i: usize) -> Result<std::sync::MutexGuard<'_, GpuContext>> {
        match self.devices[i].ctx.try_lock() {
            Ok(g) => Ok(g),
            // As `PoolDevice::lock`: a poisoned lock is taken over.
            Err(std::sync::TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => Err(crate::Error::Backend(
                "the GPU backend is busy with another count (one at a time per backend)".into(),
            )),
        }
    }

    /// Subtree counts of `roots` on the adapters, in `units` units of work with `progress` after each.
    // The guard held across the awaits comes from `try_ctx`, which never waits: a second count is refused, not
    // deadlocked.
    #[allow(clippy::await_holding_lock)]
    async fn counts_async(
        &self,
        roots: &[Setup],
        depth: u32,
        units: usize,
        progress: planner::Progress<'_>,
    ) -> Result<Vec<u128>> {
        #[cfg(not(target_arch = "wasm32"))]
        if self.devices.len() > 1 {
            let mut gpus = Gpus::Many(&self.devices);
            return pool::pool_counts(&mut gpus, roots, depth, units, progress).await;
        }
        let mut ctx = self.try_ctx(0)?;
        let mut gpus = Gpus::One(&mut ctx, self.devices[0].settings);
        pool::pool_counts(&mut gpus, roots, depth, units, progress).await
    }

    /// Subtree counts of `roots` on the adapters, blocking, in one unit (runs as large as the budget allows).
    #[cfg(not(target_arch = "wasm32"))]
    fn counts(&self, roots: &[Setup], depth: u32) -> Result<Vec<u128>> {
        let progress = &mut |_| ControlFlow::Continue(());
        if self.devices.len() > 1 {
            let device = self.ctx().device().handle();
            let mut gpus = Gpus::Many(&self.devices);
            return device::block_on(
                &device,
                pool::pool_counts(&mut gpus, roots, depth, 1, progress),
            );
        }
        // Blocking callers on several threads wait for each other here.
        let d = &self.devices[0];
        let mut ctx = d.lock();
        let device = ctx.device().handle();
        let mut gpus = Gpus::One(&mut ctx, d.settings);
        device::block_on(
            &device,
            pool::pool_counts(&mut gpus, roots, depth, 1, progress),
        )
    }

    /// Perft of `pos` to `depth`, asynchronous: the last host level is counted in
    /// [`planner::PROGRESS_UNITS`] units of work (more host plies where the tree allows), `progress` told
    /// after each (and once before the first) with the units done and the leaf nodes counted so far; a
    /// [`ControlFlow::Break`] stops the count after the unit in flight with [`crate::Error::Interrupted`].
    ///
    /// # Errors
    /// A GPU failure ([`crate::Error::Backend`]), a budget too small for one position's moves, or
    /// [`crate::Error::Interrupted`].
    pub async fn perft_async(
        &self,
        pos: &Checked,
        depth: u32,
        progress: &mut dyn FnMut(GpuProgress) -> ControlFlow<()>,
    ) -> Result<u128> {
        let counts = self
            .counts_async(
                std::slice::from_ref(pos.setup()),
                depth,
                planner::PROGRESS_UNITS,
                progress,
            )
            .await?;
        Ok(counts.first().copied().unwrap_or(0))
    }

    /// Per root move counts of `depth - 1` subtrees, asynchronous: all root moves in one batch (they share
    /// merging and the tables), in units of work with `progress` as [`GpuBackend::perft_async`]; the moves in
    /// the GPU's order.
    ///
    /// # Errors
    /// As [`GpuBackend::perft_async`].
    // The guard held across the await comes from `try_ctx`, which never waits.
    #[allow(clippy::await_holding_lock)]
    pub async fn divide_async(
        &self,
        pos: &Checked,
        depth: u32,
        progress: &mut dyn FnMut(GpuProgress) -> ControlFlow<()>,
    ) -> Result<Vec<(Move, u128)>> {
        self.divide_with_async(pos, depth, RootMoves::Gpu, progress)
            .await
    }

    /// [`GpuBackend::divide_async`] with the root moves from `root_moves`: the GPU's `moves` kernel (as
    /// `perftlab divide --backend gpu`, which so checks that kernel too) or the host's reference generator
    /// (the page: a fresh page then need not compile `moves`, docs/web.md).
    ///
    /// # Errors
    /// As [`GpuBackend::perft_async`].
    // The guard held across the await comes from `try_ctx`, which never waits.
    #[allow(clippy::await_holding_lock)]
    pub async fn divide_with_async(
        &self,
        pos: &Checked,
        depth: u32,
        root_moves: RootMoves,
        progress: &mut dyn FnMut(GpuProgress) -> ControlFlow<()>,
    ) -> Result<Vec<(Move, u128)>> {
        let setup = pos.setup();
        let moves = match root_moves {
            RootMoves::Host => reference::legal_moves(setup),
            RootMoves::Gpu => {
                let mut ctx = self.try_ctx(0)?;
                pool::legal_moves(&mut ctx, std::slice::from_ref(setup))
                    .await?
                    .pop()
                    .unwrap_or_default()
            }
        };
        let kids: Vec<Setup> = moves.iter().map(|&m| reference::play(setup, m)).collect();
        let counts = self
            .counts_async(
                &kids,
                depth.saturating_sub(1),
                planner::PROGRESS_UNITS,
                progress,
            )
            .await?;
        Ok(moves.into_iter().zip(counts).collect())
    }
}

/// Where a GPU divide takes its root moves from ([`GpuBackend::divide_with_async`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootMoves {
    /// The GPU's `moves` kernel (the `divide` command).
    Gpu,
    /// The host's reference generator (the page).
    Host,
}

#[cfg(not(target_arch = "wasm32"))]
impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    /// [`GpuBackend::MERGES_ONLY_WITHIN_BATCH`]: a batch is one planned run, merging within itself.
    fn merges_only_within_batch(&self) -> bool {
        GpuBackend::MERGES_ONLY_WITHIN_BATCH
    }

    fn perft(&self, pos: &Checked, depth: u32) -> Result<u128> {
        let counts = self.counts(std::slice::from_ref(pos.setup()), depth)?;
        Ok(counts.first().copied().unwrap_or(0))
    }

    /// All positions in one batch: one planned run (merging and the tables shared), not one run each.
    fn perft_many(&self, positions: &[Checked], depth: u32) -> Result<Vec<u128>> {
        let setups: Vec<Setup> = positions.iter().map(|p| p.setup().clone()).collect();
        self.counts(&setups, depth)
    }

    fn legal_moves(&self, positions: &[Checked]) -> Result<Vec<Vec<Move>>> {
        let setups: Vec<Setup> = positions.iter().map(|p| p.setup().clone()).collect();
        let mut ctx = self.ctx();
        let device = ctx.device().handle();
        device::block_on(&device, pool::legal_moves(&mut ctx, &setups))
    }

    /// All root moves in one batch, so their subtrees share merging and the cache (and, with several
    /// adapters, are spread over them).
    fn divide(&self, pos: &Checked, depth: u32) -> Result<Vec<(Move, u128)>> {
        let setup = pos.setup();
        let moves = self
            .legal_moves(std::slice::from_ref(pos))?
            .pop()
            .unwrap_or_default();
        let kids: Vec<Setup> = moves.iter().map(|&m| reference::play(setup, m)).collect();
        let counts = self.counts(&kids, depth.saturating_sub(1))?;
        Ok(moves.into_iter().zip(counts).collect())
    }

    /// The `gpu` object: adapter, runs, retries, submits, read-backs, bytes written, peak bytes, levels.
    fn report(&self) -> Result<Option<WorkReport>> {
        let r = self.work_report()?;
        let json = serde_json::to_value(&r)
            .map_err(|e| crate::Error::Backend(format!("GPU report: {e}")))?;
        Ok(Some(WorkReport {
            json,
            text: r.table(),
        }))
    }

    /// Statistics on the GPU: the leaves are written and classified (merging and the cache are not used).
    /// Only the CPW columns ([`Detail::Cpw`]); `Detail::Full` is refused. On the first adapter only.
    fn stats(&self, pos: &Checked, depth: u32, detail: Detail) -> Result<(u128, Stats)> {
        if detail == Detail::Full {
            use crate::error::{Part, Setting, SettingError};
            return Err(SettingError {
                setting: Setting::StatsFull,
                value: None,
                reason: vec![
                    Part::Text("the gpu backend computes only the CPW columns (use ".into()),
                    Part::Setting(Setting::Stats),
                    Part::Text(", or ".into()),
                    Part::Setting(Setting::CpuBackend),
                    Part::Text(")".into()),
                ],
            }
            .into());
        }
        let d = &self.devices[0];
        pool::tree_stats(
            &mut d.lock(),
            std::slice::from_ref(pos.setup()),
            depth,
            &d.settings,
        )
    }
}
