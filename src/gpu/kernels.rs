//! The compute kernels: one per file in `shaders/`, with the shared files each includes, the names of the
//! buffers each binds (in dispatch order, checked against the WGSL by a test), and which are built without
//! runtime checks (each with its Safety argument).

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
    /// `cache_probe.wgsl`: transposition table lookup.
    CacheProbe,
    /// `cache_store.wgsl`: transposition table store.
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
    /// `leaf2.wgsl` specialised for white to move at remaining depth 2 (pipeline constant `SIDE = 0`).
    Leaf2White,
    /// `leaf2.wgsl` specialised for black to move at remaining depth 2 (pipeline constant `SIDE = 1`).
    Leaf2Black,
}

impl Kernel {
    /// Every kernel, in pipeline order.
    pub const ALL: [Kernel; 14] = [
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
        Kernel::Leaf2White,
        Kernel::Leaf2Black,
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
            Kernel::Leaf2 | Kernel::Leaf2White | Kernel::Leaf2Black => {
                ("leaf2", include_str!("../../shaders/leaf2.wgsl"))
            }
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
            Kernel::Moves
                | Kernel::Count
                | Kernel::Expand
                | Kernel::Leaf2
                | Kernel::Leaf2White
                | Kernel::Leaf2Black
        )
    }

    /// The fused-leaf kernel for positions whose side to move is `side` (0 white, 1 black), or the generic
    /// one (side read from each position) when the positions of the level may differ (`None`).
    pub fn leaf2_for(side: Option<u32>) -> Kernel {
        match side {
            Some(0) => Kernel::Leaf2White,
            Some(_) => Kernel::Leaf2Black,
            None => Kernel::Leaf2,
        }
    }

    /// The values of the kernel's pipeline-overridable constants (WGSL `override`), set when its pipeline
    /// is created: `SIDE` of `lean.wgsl` (0 white, 1 black; 2, the default, reads it from each position).
    pub fn constants(self) -> &'static [(&'static str, f64)] {
        match self {
            Kernel::Leaf2White => &[("SIDE", 0.0)],
            Kernel::Leaf2Black => &[("SIDE", 1.0)],
            _ => &[],
        }
    }

    /// The kernel's WGSL module: the shared files it includes, then its own file.
    pub fn wgsl(self) -> String {
        let (_, body) = self.source();
        let mut source = self.includes().join("\n");
        source.push('\n');
        source.push_str(body);
        source
    }

    /// The kernel's file name without `.wgsl` (the specialised variants share their generic kernel's).
    pub fn name(self) -> &'static str {
        self.source().0
    }

    /// The kernel's label: its file name, with the side for the specialised variants.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Leaf2White => "leaf2 (white to move)",
            Kernel::Leaf2Black => "leaf2 (black to move)",
            k => k.name(),
        }
    }

    /// The names of the storage buffers the kernel binds at 2, 3, … in the order `GpuContext::dispatch`
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
            Kernel::CacheProbe => &[
                "positions",
                "flags",
                "sub",
                "cache0",
                "cache1",
                "cache2",
                "cache3",
                "tally",
            ],
            Kernel::CacheStore => &[
                "positions",
                "flags",
                "sub",
                "cache0",
                "cache1",
                "cache2",
                "cache3",
            ],
            Kernel::Stats => &["info", "counts", "totals"],
            Kernel::Scan => &["input", "output", "block_sums"],
            Kernel::ScanAdd => &["block_offsets", "output"],
            Kernel::Leaf2 | Kernel::Leaf2White | Kernel::Leaf2Black => {
                &["positions", "flags", "sub", "ids", "total"]
            }
            Kernel::Compact => &["flags", "offsets", "ids"],
        }
    }

    /// Whether the kernel is built without naga's runtime checks (bounds checks, loop bounding) unless
    /// `--checked-shaders` is given: only kernels whose every index is proven in range (see
    /// `trusted_module`).
    pub fn trusted(self) -> bool {
        matches!(
            self,
            Kernel::Leaf2 | Kernel::Leaf2White | Kernel::Leaf2Black
        )
    }

    /// The shared files prepended to the kernel's own (`common.wgsl` always).
    fn includes(self) -> &'static [&'static str] {
        match self {
            Kernel::Moves | Kernel::Count | Kernel::Expand => &[COMMON, MOVEGEN],
            Kernel::Leaf2 | Kernel::Leaf2White | Kernel::Leaf2Black => &[COMMON, LEAN],
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
/// `leaf2.wgsl` with `common.wgsl` and `lean.wgsl` (the generic kernel and the two specialised by the
/// pipeline constant `SIDE`, which only fixes the side to move `us` to 0 or 1: every index below holds for
/// either side):
/// - `positions[i]`, `flags[i]`, `sub[2i]`, `sub[2i + 1]`, `ids[t]`: `count_for` returns 0 unless `t <
///   params.n`, the host dispatches `n` no larger than the level buffers bound (`LevelBufs::cap`, sized by
///   `ensure_level` before every dispatch), and `i` is either `t` or (mode bit 0) `ids[t]`, an index below the
///   level's size written by `compact.wgsl` for the `n` flagged positions (the dummy buffer bound as `ids`
///   without bit 0 is never read);
/// - `total[0]`, `total[1]`, `total[2]`: constant indices into `GpuContext::total`, 16 bytes, always the
///   buffer bound there; `wg_sum` is a scalar;
/// - `tables[…]`: every square index is `< 64`: it comes from `bb_lsb` (also of an empty set: `32 +
///   firstTrailingBit(0)` wraps to 31), from `bb_msb` of a set tested non-empty, from a move's 6-bit fields, or
///   from a castling/en-passant byte tested `< 64`; the largest such index is `T_LINE + 64 * 63 + 63`; a magic
///   entry is read at `T_MAGIC_ROOK`/`T_MAGIC_BISHOP + 3 * s + 2` with `s < 64`, and the attack index
///   `first + (u32 >> shift)` is below `first + 2^bits` (`shift = 32 - bits`, `5 ≤ bits ≤ 12`), the end of
///   that square's block, built and range-checked by `attack_tables::build` (every index it writes is
///   `< attack_tables::LEN`); the castling masks are read at `T_CASTLE_EMPTY`/`T_CASTLE_PATH + 8 * ksq +
///   (rsq & 7)` with `ksq < 64`, at most `T_CASTLE_PATH + 511 = attack_tables::LEN - 1`;
/// - private arrays: `l_moves[l_count - l_skip]` is guarded by `< LIST_LEN`, `l_moves[k]` has `k < listed ≤
///   LIST_LEN`; `Pos::bb[role]` has `role ≤ 5` (a promotion piece is 1–4, a listed move's role 0–5, read
///   from bits 16-18 of a move the listing sink built);
/// - loops: every `while` pops one bit of a 64-bit set per iteration, `for` loops have constant bounds or run
///   `k` up to `listed ≤ LIST_LEN`, and the outer loop of `leaf2` advances `l_skip` by `LIST_LEN` until it
///   passes the move count (which the listing call returns, the same for every window); the one-total mode
///   has no barrier and no loop.
///
/// So no access leaves its binding and no loop runs unbounded; `--checked-shaders` builds it checked anyway.
#[allow(unsafe_code)]
pub(super) fn trusted_module(
    device: &wgpu::Device,
    desc: wgpu::ShaderModuleDescriptor<'_>,
) -> wgpu::ShaderModule {
    // SAFETY: see the argument above; only kernels listed by `Kernel::trusted` come here.
    unsafe { device.create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked()) }
}
