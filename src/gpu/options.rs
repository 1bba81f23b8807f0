//! [`GpuOptions`]: what the GPU backend is built from (plain data; the CLI fills it from its flags).

/// Options of [`super::GpuBackend::new`].
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Transposition tables in MiB; 0 turns them off; None: the default (`memory::AdapterFacts::default_hash_mb`).
    pub hash_mb: Option<usize>,
    /// Merge transpositions (identical positions counted once with multiplicity).
    pub merge: bool,
    /// GPU memory budget in MiB (None = a safe share of the adapter's limits).
    pub gpu_mem_mb: Option<u64>,
    /// GPU adapter by name substring or index (None = `PERFTLAB_ADAPTER` or the default adapter).
    pub adapter: Option<String>,
    /// Most bytes of one transposition-table buffer (library only, no flag; None: one maximal storage
    /// binding). Smaller buffers give each depth more of them, probed and filled one group of four per
    /// dispatch: tests force many buffers per depth with a few MiB of tables.
    pub table_buffer_bytes: Option<u64>,
    /// Keep naga's runtime checks in the kernels built without them (`--checked-shaders`).
    pub checked_shaders: bool,
}
