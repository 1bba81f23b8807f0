//! The GPU backend: WGSL compute kernels (`shaders/*.wgsl`) on wgpu, for any vendor (Vulkan, Metal, DX12, GL).
//!
//! - [`context`]: the long-lived device context, adapter choice, pipelines, buffers;
//! - [`buffers`]: the Rust mirrors of the WGSL structs;
//! - [`tables`]: the attack tables uploaded to the GPU;
//! - [`driver`]: level-by-level expansion, merging, the subtree cache and the memory-bounded split.
//!
//! Bitboards are `vec2<u32>` pairs on the GPU (no optional feature needed; naga 30's 64-bit builtins are broken,
//! see `docs/gpu-notes.md`). Counts are exact u64 per run, summed in u128.

pub mod buffers;
pub mod context;
pub mod driver;
mod options;
pub mod tables;

pub use context::{list_adapters, AdapterSummary, GpuContext, ADAPTER_ENV};
pub use options::GpuOptions;

use crate::backend::{Backend, Detail, Stats};
use crate::error::{Error, Result};
use crate::position::Setup;
use crate::reference;
use crate::types::Move;
use crate::validate::Checked;
use driver::Settings;
use std::sync::Mutex;

/// Perft on the GPU.
pub struct GpuBackend {
    ctx: Mutex<GpuContext>,
    settings: Settings,
}

impl GpuBackend {
    /// Open the adapter chosen by `opts.adapter` (or `PERFTLAB_ADAPTER`, or the preferred one).
    ///
    /// # Errors
    /// [`crate::Error::Backend`] naming a missing adapter, capability or limit.
    pub fn new(opts: &GpuOptions) -> Result<GpuBackend> {
        let mut ctx = GpuContext::new(opts.adapter.as_deref())?;
        let budget_mb = opts.gpu_mem_mb.unwrap_or_else(|| ctx.default_budget_mb());
        ctx.ensure_cache(opts.hash_mb);
        let settings = Settings {
            merge: opts.merge,
            cache: opts.hash_mb > 0,
            budget_bytes: budget_mb << 20,
            max_run_depth: driver::MAX_RUN_DEPTH,
        };
        if opts.verbose {
            eprintln!("gpu: adapter {}", ctx.describe());
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
                "gpu: transposition merging {}, subtree cache {}",
                if opts.merge { "on" } else { "off" },
                match &ctx.cache {
                    Some(c) => format!("{} entries ({} MiB)", c.len, (c.len as u64 * 84) >> 20),
                    None => "off".into(),
                }
            );
        }
        Ok(GpuBackend {
            ctx: Mutex::new(ctx),
            settings,
        })
    }

    fn ctx(&self) -> std::sync::MutexGuard<'_, GpuContext> {
        self.ctx.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The adapter in use, as text.
    pub fn adapter(&self) -> String {
        self.ctx().describe()
    }

    /// The adapter's description.
    pub fn adapter_info(&self) -> wgpu::AdapterInfo {
        self.ctx().info.clone()
    }
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn perft(&self, pos: &Checked, depth: u32) -> Result<u128> {
        let counts = driver::subtree_counts(
            &mut self.ctx(),
            std::slice::from_ref(pos.setup()),
            depth,
            &self.settings,
        )?;
        Ok(counts.first().copied().unwrap_or(0))
    }

    fn legal_moves(&self, positions: &[Checked]) -> Result<Vec<Vec<Move>>> {
        let setups: Vec<Setup> = positions.iter().map(|p| p.setup().clone()).collect();
        driver::legal_moves(&mut self.ctx(), &setups)
    }

    /// All root moves in one batch, so their subtrees share merging and the cache.
    fn divide(&self, pos: &Checked, depth: u32) -> Result<Vec<(Move, u128)>> {
        let setup = pos.setup();
        let mut ctx = self.ctx();
        let moves = driver::legal_moves(&mut ctx, std::slice::from_ref(setup))?
            .pop()
            .unwrap_or_default();
        let kids: Vec<Setup> = moves.iter().map(|&m| reference::play(setup, m)).collect();
        let counts =
            driver::subtree_counts(&mut ctx, &kids, depth.saturating_sub(1), &self.settings)?;
        Ok(moves.into_iter().zip(counts).collect())
    }

    /// Statistics on the GPU: the leaves are written and classified (merging and the cache are not used).
    /// Only the CPW columns ([`Detail::Cpw`]); `Detail::Full` is refused.
    fn stats(&self, pos: &Checked, depth: u32, detail: Detail) -> Result<(u128, Stats)> {
        if detail == Detail::Full {
            return Err(Error::Usage(
                "--stats full: the gpu backend computes only the CPW columns (use --stats, or --backend cpu)"
                    .into(),
            ));
        }
        driver::tree_stats(
            &mut self.ctx(),
            std::slice::from_ref(pos.setup()),
            depth,
            &self.settings,
        )
    }
}
