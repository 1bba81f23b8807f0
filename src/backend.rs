//! Choosing and building a perft backend from command-line options.

use crate::error::Result;
use crate::perft::{Backend, ReferenceBackend};
use clap::ValueEnum;

/// Which generator counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum BackendKind {
    /// The simple mailbox oracle (slow, obviously correct).
    Reference,
    /// The fast bitboard generator on all cores, with hash table and transposition merging.
    Cpu,
    /// WGSL compute kernels on wgpu (Vulkan, Metal, DX12, GL).
    Gpu,
}

impl BackendKind {
    /// The default backend of every command.
    pub const DEFAULT: BackendKind = BackendKind::Cpu;
}

/// Options every backend may use; each ignores what does not apply to it.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Worker threads (None = all cores).
    pub threads: Option<usize>,
    /// Hash table size in MiB (CPU: subtree-count table; GPU: subtree cache); 0 turns it off.
    pub hash_mb: usize,
    /// Merge transpositions (identical positions counted once with multiplicity).
    pub merge: bool,
    /// GPU memory budget in MiB (None = a safe share of the adapter's limits).
    pub gpu_mem_mb: Option<u64>,
    /// GPU adapter by name substring or index (None = `PERFTLAB_ADAPTER` or the default adapter).
    pub adapter: Option<String>,
    /// Print backend details (adapter, memory budget) on stderr.
    pub verbose: bool,
}

/// Build a backend.
///
/// # Errors
/// [`crate::Error::Backend`] when the backend cannot start (e.g. no GPU adapter).
pub fn create(kind: BackendKind, opts: &EngineOptions) -> Result<Box<dyn Backend>> {
    match kind {
        BackendKind::Reference => Ok(Box::new(ReferenceBackend)),
        BackendKind::Cpu => Ok(Box::new(crate::fast::CpuBackend::new(
            opts.hash_mb,
            opts.threads,
            opts.merge,
        )?)),
        BackendKind::Gpu => Ok(Box::new(crate::gpu::GpuBackend::new(opts)?)),
    }
}
