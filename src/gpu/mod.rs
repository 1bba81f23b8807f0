//! The GPU backend: WGSL compute kernels (`shaders/*.wgsl`) on wgpu, for any vendor (Vulkan, Metal, DX12, GL).
//!
//! - [`adapter`]: adapter listing and choice;
//! - [`context`]: the long-lived device context: device, errors, pipelines, buffers, upload / dispatch /
//!   read-back, work counters;
//! - [`kernels`]: the kernels, their WGSL sources, binding names and trusted builds;
//! - [`buffers`]: the Rust mirrors of the WGSL structs;
//! - [`attack_tables`]: the attack and slider-magic tables uploaded to the GPU;
//! - [`driver`]: level-by-level expansion, merging, the transposition tables, fused leaves and the planned,
//!   memory-bounded slicing;
//! - [`report`]: the work report (`gpu` object of `perft --json`);
//! - `options`: [`GpuOptions`].
//!
//! Bitboards are `vec2<u32>` pairs on the GPU. Counts are exact u64 per run, summed in u128. Several adapters
//! (`--adapter all` or a list) share each count's host-level positions, one thread each
//! ([`driver::pool_counts`]); the report lists each adapter's runs and positions.
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
//!   built that way ([`context::Kernel::trusted`], each with its argument), `--checked-shaders` keeps the checks.
//! - **lavapipe** (`apt-get install mesa-vulkan-drivers libvulkan1`, "llvmpipe … (Vulkan, Cpu)"): 128 MiB
//!   largest storage binding, 2 GiB − 1 largest buffer, 65,535 workgroups per dimension (larger dispatches use a
//!   2D grid), no watchdog; it spreads a dispatch over the cores and runs move-generation code about 5× slower
//!   per core than plain Rust, so timings there track instruction counts and passes, not GPU memory speed.
//!   Mesa's GL adapter is also found; when the Vulkan loader is missing, the GL one is all there is.
//! - Loaders print `error: XDG_RUNTIME_DIR is invalid or not set` (Mesa's device-select layer; harmless;
//!   `NODEVICE_SELECT=1` silences it).

pub mod adapter;
pub mod attack_tables;
pub mod buffers;
pub mod context;
pub mod driver;
pub mod kernels;
mod options;
pub mod report;

pub use context::{list_adapters, AdapterSummary, GpuContext, ADAPTER_ENV};
pub use options::GpuOptions;

use crate::backend::{Backend, Detail, Stats, WorkReport};
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::reference;
use crate::types::Move;
use crate::validate::Checked;
use driver::Settings;
use std::sync::Mutex;

/// Refuse a `--gpu-mem` budget the adapter cannot use: above what the deepest run could ever allocate (every
/// level at the largest size one storage binding allows), or, on a software adapter, above the host's
/// available memory.
fn check_budget(ctx: &GpuContext, mb: u64) -> Result<()> {
    let levels = u64::from(driver::MAX_RUN_DEPTH) + 1;
    let max_mb = levels
        .saturating_mul(ctx.max_level_positions())
        .saturating_mul(context::SLOT_BYTES)
        >> 20;
    if mb > max_mb {
        return Err(crate::Error::Usage(format!(
            "--gpu-mem: '{mb}' MiB is more than adapter '{}' can use (at most {max_mb} MiB: the {levels} levels \
             of the deepest run, each limited by its {} MiB largest storage binding)",
            ctx.info.name,
            ctx.limits.max_storage_buffer_binding_size >> 20
        )));
    }
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        crate::limits::check_host_memory("--gpu-mem", mb)?;
    }
    Ok(())
}

/// Refuse a level budget and tables that together exceed what the adapter has: the device memory of a
/// discrete GPU whose driver reports it, or the host's available memory (a software adapter). Levels come
/// first: the default `--hash` on a discrete GPU is what the level budget leaves
/// ([`GpuContext::default_hash_mb`]).
fn check_together(ctx: &GpuContext, budget_mb: u64, hash_mb: u64, opts: &GpuOptions) -> Result<()> {
    let flags = format!(
        "--gpu-mem + --hash ({budget_mb} MiB{} + {hash_mb} MiB{})",
        if opts.gpu_mem_mb.is_none() {
            " (default)"
        } else {
            ""
        },
        if opts.hash_mb.is_none() {
            " (default)"
        } else {
            ""
        }
    );
    let together = budget_mb.saturating_add(hash_mb);
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        return crate::limits::check_host_memory(&flags, together);
    }
    // Only a discrete GPU's device-local heap is its memory (an integrated GPU may report a small carve-out).
    match ctx.device_memory {
        Some(bytes)
            if ctx.info.device_type == wgpu::DeviceType::DiscreteGpu && together > bytes >> 20 =>
        {
            Err(crate::Error::Usage(format!(
                "{flags} is more than adapter '{}' has ({} MiB of device memory)",
                ctx.info.name,
                bytes >> 20
            )))
        }
        _ => Ok(()),
    }
}

/// Perft on the GPU: one adapter, or several (`--adapter all` or a list) that share each count's host-level
/// positions, one thread each ([`driver::pool_counts`]).
pub struct GpuBackend {
    /// The adapters, the first holding the host table; each with its settings (its own level budget).
    devices: Vec<driver::Device>,
}

impl GpuBackend {
    /// Open the adapters chosen by `opts.adapter` (or `PERFTLAB_ADAPTER`, or the preferred one); `--gpu-mem`
    /// and `--hash` apply to each.
    ///
    /// # Errors
    /// [`crate::Error::Backend`] naming a missing adapter, capability or limit.
    pub fn new(opts: &GpuOptions) -> Result<GpuBackend> {
        let contexts = GpuContext::open_all(opts.adapter.as_deref(), opts.checked_shaders)?;
        let devices = contexts
            .into_iter()
            .map(|ctx| GpuBackend::prepare(ctx, opts))
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuBackend { devices })
    }

    /// Check the budget and tables of one adapter's context, make its tables and settings.
    fn prepare(mut ctx: GpuContext, opts: &GpuOptions) -> Result<driver::Device> {
        ctx.table_buffer_bytes = opts.table_buffer_bytes;
        if let Some(mb) = opts.gpu_mem_mb {
            check_budget(&ctx, mb)?;
        }
        let budget_mb = opts.gpu_mem_mb.unwrap_or_else(|| ctx.default_budget_mb());
        let hash_mb = opts
            .hash_mb
            .unwrap_or_else(|| ctx.default_hash_mb(budget_mb));
        check_together(&ctx, budget_mb, hash_mb as u64, opts)?;
        // `--hash` covers both tables: the host table takes its share, the GPU tables the rest.
        let host_mb = context::host_table_mb(hash_mb as u64);
        ctx.set_host_table_mb(host_mb);
        ctx.ensure_cache(hash_mb - host_mb as usize)?;
        let settings = Settings {
            merge: opts.merge,
            cache: hash_mb > 0,
            budget_bytes: budget_mb << 20,
            max_run_depth: driver::MAX_RUN_DEPTH,
            host_plies: 0,
        };
        if opts.verbose {
            eprintln!("gpu: adapter {}", ctx.describe());
            eprintln!(
                "gpu: device memory {}",
                ctx.device_memory
                    .map_or("not reported by the driver".into(), |b| format!(
                        "{} MiB (largest device-local heap)",
                        b >> 20
                    ))
            );
            eprintln!(
                "gpu: memory budget {budget_mb} MiB{} (max storage binding {} MiB, max buffer {} MiB)",
                if opts.gpu_mem_mb.is_none() {
                    " (default)"
                } else {
                    ""
                },
                ctx.limits.max_storage_buffer_binding_size >> 20,
                ctx.limits.max_buffer_size >> 20
            );
            eprintln!(
                "gpu: transposition merging {}, transposition tables{} {}",
                if opts.merge { "on" } else { "off" },
                if opts.hash_mb.is_none() {
                    " (default)"
                } else {
                    ""
                },
                match &ctx.cache {
                    Some(c) => format!(
                        "{} entries ({} MiB) per remaining depth (buffers × entries each, MiB): {}",
                        c.entries(),
                        c.bytes() >> 20,
                        context::CACHE_DEPTHS
                            .zip(&c.tables)
                            .filter_map(|(r, t)| t.as_ref().map(|t| format!(
                                "{r}: {} × {} ({:.1})",
                                t.parts.len(),
                                t.len,
                                t.bytes() as f64 / f64::from(1 << 20)
                            )))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    None => "off".into(),
                }
            );
            eprintln!(
                "gpu: host table at most {} entries ({host_mb} MiB of --hash {hash_mb}: an eighth, at most {} \
                 MiB; the GPU tables get the rest)",
                ctx.host_table_max(),
                context::HOST_TABLE_MAX_MB
            );
        }
        Ok(driver::Device {
            ctx: Mutex::new(ctx),
            settings,
        })
    }

    fn ctx(&self) -> std::sync::MutexGuard<'_, GpuContext> {
        self.devices[0].lock()
    }

    /// The adapters used, as text (joined by " + ").
    pub fn adapter(&self) -> String {
        self.devices
            .iter()
            .map(|d| d.lock().describe())
            .collect::<Vec<_>>()
            .join(" + ")
    }

    /// The (first) adapter's description.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.ctx().info.clone()
    }

    /// Every adapter's description, in `--adapter` order.
    pub fn adapter_infos(&self) -> Vec<wgpu::AdapterInfo> {
        self.devices.iter().map(|d| d.lock().info.clone()).collect()
    }

    /// The work report so far (the `gpu` object of `perft --json`), all adapters together.
    ///
    /// # Errors
    /// A GPU failure while reading the counters back.
    pub fn work_report(&self) -> Result<report::GpuReport> {
        if self.devices.len() == 1 {
            return self.ctx().report();
        }
        let reports = self
            .devices
            .iter()
            .map(|d| d.lock().report())
            .collect::<Result<Vec<_>>>()?;
        Ok(report::GpuReport::merged(reports))
    }

    /// Subtree counts of `roots` on the adapters.
    fn counts(&self, roots: &[Setup], depth: u32) -> Result<Vec<u128>> {
        if self.devices.len() == 1 {
            let d = &self.devices[0];
            return driver::subtree_counts(&mut d.lock(), roots, depth, &d.settings);
        }
        driver::pool_counts(&mut driver::Gpus::Many(&self.devices), roots, depth)
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
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
        driver::legal_moves(&mut self.ctx(), &setups)
    }

    /// All root moves in one batch, so their subtrees share merging and the cache (and, with several
    /// adapters, are spread over them).
    fn divide(&self, pos: &Checked, depth: u32) -> Result<Vec<(Move, u128)>> {
        let setup = pos.setup();
        let moves = driver::legal_moves(&mut self.ctx(), std::slice::from_ref(setup))?
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
            return Err(Error::Usage(
                "--stats full: the gpu backend computes only the CPW columns (use --stats, or --backend cpu)"
                    .into(),
            ));
        }
        let d = &self.devices[0];
        driver::tree_stats(
            &mut d.lock(),
            std::slice::from_ref(pos.setup()),
            depth,
            &d.settings,
        )
    }
}
