//! The host side of the GPU perft: level-by-level (breadth-first) expansion of a batch of roots, merging,
//! the transposition tables, fused leaves, back-propagation of subtree counts, and memory-bounded slicing.
//!
//! One run (`run_tree`) takes a batch of roots and a depth. For each level above remaining depth 2 it counts
//! the children of every position to expand (count.wgsl), prefix-sums the counts on the GPU (scan.wgsl; only
//! the total comes back, to size the next level), writes the children (expand.wgsl) and merges transpositions
//! (merge.wgsl); positions found in the cache are not expanded (cache_probe.wgsl). The deepest written level
//! is remaining depth 2: its distinct positions are compacted (compact.wgsl) and the last two plies are
//! generated and counted in registers (leaf2.wgsl), never written. Counts then flow back up (backprop.wgsl:
//! every copy of a merged position adds its representative's count to its own parent), expanded subtrees are
//! stored in the cache (cache_store.wgsl), and each root's exact u64 count is read back. Without merging and
//! tables a run's counts are only summed (each root is then a run of its own): the fused kernel adds each
//! workgroup's sum into one accumulator (one atomic add per workgroup), no level keeps per-position counts
//! and nothing is back-propagated; the total is read back.
//!
//! Splits are planned, never discovered by a failed run: the plies above [`MAX_RUN_DEPTH`] (at least
//! [`Settings::host_plies`]) are expanded on the host with transpositions merged and counted through the host
//! table (whole position + remaining depth: exact), batches of roots are cut to what one level may hold, and
//! inside a run a level whose children would exceed the budget (or one storage binding) is expanded in
//! consecutive slices, each slice's subtree finished before the next, with a reserve kept for every level
//! below so that one position's children always fit. Totals are summed in u128.

use super::buffers::{GpuParams, GpuPos};
use super::context::{GpuContext, Kernel, CACHE_GROUP, SLOT_BYTES};
use crate::backend::{Detail, Stats};
use crate::error::Result;
use crate::position::Setup;
use crate::reference;
use crate::types::Move;

/// What a run may use.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Merge transpositions.
    pub merge: bool,
    /// Use the transposition tables (when the context has one).
    pub cache: bool,
    /// Memory budget in bytes for the level buffers of one run.
    pub budget_bytes: u64,
    /// Deepest tree one run counts ([`MAX_RUN_DEPTH`]; smaller in tests of the host split).
    pub max_run_depth: u32,
    /// Plies always expanded on the host above the GPU runs (0: only those above `max_run_depth`); with the
    /// tables on, their counts go to the host table ([`subtree_counts`]).
    pub host_plies: u32,
}

impl Settings {
    fn budget_slots(&self) -> u64 {
        (self.budget_bytes / SLOT_BYTES).max(1024)
    }
}

/// Positions per prefix-sum chunk of a level: each position has fewer than 512 children, so a chunk's children
/// offsets fit u32 (2^23 × 511 < 2^32); a larger level (on adapters whose bindings hold more than 2^23
/// positions) is scanned and planned chunk by chunk, its slices never crossing a chunk.
pub const SCAN_CHUNK: u64 = 1 << 23;

/// Most positions of a merged level: `merge.wgsl` keeps index + 1 in the low 24 bits of a slot.
const MERGE_MAX: u64 = (1 << 24) - 1;

/// Most positions of a level: one binding ([`GpuContext::max_level_positions`]), and [`MERGE_MAX`] when the
/// level is merged.
fn level_cap(ctx: &GpuContext, merge: bool) -> u64 {
    let cap = ctx.max_level_positions();
    if merge {
        cap.min(MERGE_MAX)
    } else {
        cap
    }
}

/// Slots kept free for each written level below a slice, so that any one position's children fit there (a
/// legal position has at most 218 moves; artificial ones allowed with a warning stay far below 512).
const RESERVE: u64 = 512;

fn params(n: u64, remaining: u32, mode: u32, mask: u32) -> GpuParams {
    GpuParams {
        n: n as u32,
        remaining,
        mode,
        mask,
        ..GpuParams::default()
    }
}

/// What one run ([`run_tree`]) needs to know while it descends.
struct Run<'a> {
    s: &'a Settings,
    depth: u32,
    stats: bool,
    merge: bool,
    cache_on: bool,
    /// Only the sum of the roots' counts is wanted (no merging, no tables): the fused kernel adds its counts
    /// into one accumulator (`GpuContext::total`, one atomic add per workgroup), and no level needs its
    /// per-position counts, their clears or their back-propagation.
    total: bool,
    /// The roots' side to move when they all share it (0 white, 1 black), so each level's is known and the
    /// fused leaves run the kernel specialised for it; `None`: the generic kernel.
    side: Option<u32>,
    /// Statistics mode: leaves seen and their statistics.
    leaves: u64,
    leaf_stats: Stats,
}

/// One breadth-first run over `roots` to `depth` (≥ 1); the caller keeps `roots` within
/// [`room_for_roots`]. In statistics mode the leaves are written and their statistics summed (merging and the
/// cache are off there) and the single returned count is the number of leaves. With `total` (only when
/// merging and the tables are off) the single returned count is the sum of the roots' counts, from the fused
/// kernel's accumulator (96 bits: exact for any sum of u64 counts a run can have).
///
/// No run is ever abandoned: a level whose children would not fit the budget (or one binding) is expanded in
/// slices, each slice's subtree finished before the next (see [`descend`]).
async fn run_tree(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    stats: bool,
    total: bool,
    s: &Settings,
) -> Result<(Vec<u128>, Stats)> {
    let n0 = roots.len() as u64;
    let merge = s.merge && !stats;
    let cache_on = s.cache && !stats && ctx.cache.is_some();
    let total = total && !stats && !merge && !cache_on;
    let mut run = Run {
        s,
        depth,
        stats,
        merge,
        cache_on,
        total,
        side: roots
            .iter()
            .map(|r| r.info & 1)
            .reduce(|a, b| if a == b { a } else { 2 })
            .filter(|&side| side < 2),
        leaves: 0,
        leaf_stats: Stats::default(),
    };
    ctx.ensure_level(0, n0);
    let mask = ctx.ensure_table(64);
    ctx.set_level(depth);
    {
        let lv = &ctx.levels[0];
        ctx.upload(&lv.pos, bytemuck::cast_slice(roots))?;
        let table = &ctx.table.as_ref().expect("table allocated").0;
        ctx.dispatch(
            Kernel::Merge,
            params(n0, depth, 0, mask),
            &[&lv.pos, table, &lv.rep, &lv.flags, &ctx.tally],
            n0 * 8,
        )?;
    }
    ctx.record_level(depth, n0, true);
    if total && depth >= 2 {
        ctx.clear(&ctx.total, 16);
    }
    descend(ctx, &mut run, 0, n0, n0).await?;
    if stats {
        return Ok((vec![run.leaves.into()], run.leaf_stats));
    }
    let root = &ctx.levels[0];
    let counts: Vec<u128> = if depth == 1 {
        ctx.read_u32(&root.counts, 0, n0)
            .await?
            .into_iter()
            .map(u128::from)
            .collect()
    } else if total {
        let w = ctx.read_u32(&ctx.total, 0, 3).await?;
        vec![w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64]
    } else {
        let w = ctx.read_u32(&root.sub, 0, 2 * n0).await?;
        w.chunks(2)
            .map(|p| p[0] as u128 | (p[1] as u128) << 32)
            .collect()
    };
    if total && counts.len() > 1 {
        return Ok((vec![counts.iter().sum()], Stats::default()));
    }
    Ok((counts, Stats::default()))
}

/// Most roots one run takes: one level within the budget (less the reserve for the levels below) and one
/// binding.
fn room_for_roots(ctx: &GpuContext, s: &Settings, depth: u32) -> u64 {
    let below = RESERVE * u64::from(depth);
    ctx.max_level_positions()
        .min(s.budget_slots().saturating_sub(below))
        .max(1)
}

/// Level `l` holds `n` positions (written, merged, flags set), `used` slots in levels `0..=l`: finish their
/// subtree counts (`sub`), or in statistics mode their leaves.
async fn descend(
    ctx: &mut GpuContext,
    run: &mut Run<'_>,
    l: usize,
    n: u64,
    used: u64,
) -> Result<()> {
    let remaining = run.depth - l as u32;
    ctx.set_level(remaining);
    if !run.stats && !run.total {
        ctx.clear(&ctx.levels[l].sub, n * 8);
    }
    cache_pass(ctx, run, l, n, Kernel::CacheProbe)?;
    // The last two plies are fused: counted without writing the children (leaf2.wgsl), over the compacted
    // distinct positions when merging or the cache left gaps.
    if !run.stats && remaining == 2 {
        let leaf2 = Kernel::leaf2_for(run.side.map(|side| side ^ (l as u32 & 1)));
        if run.merge || run.cache_on {
            let (flags, offsets) = (ctx.levels[l].flags.clone(), ctx.levels[l].offsets.clone());
            let k = gpu_scan(ctx, &flags, &offsets, 0, n).await?;
            let lv = &ctx.levels[l];
            ctx.dispatch(
                Kernel::Compact,
                params(n, remaining, 0, 0),
                &[&lv.flags, &lv.offsets, &lv.counts],
                k * 4,
            )?;
            ctx.dispatch(
                leaf2,
                params(k, remaining, 1, 0),
                &[&lv.pos, &lv.flags, &lv.sub, &lv.counts, &ctx.total],
                k * 8,
            )?;
        } else {
            // One total: at most 12 bytes (three words of the accumulator) per workgroup; else 8 per position.
            let (mode, writes) = if run.total {
                (2, n.div_ceil(u64::from(leaf2.workgroup())) * 12)
            } else {
                (0, n * 8)
            };
            let lv = &ctx.levels[l];
            ctx.dispatch(
                leaf2,
                params(n, remaining, mode, 0),
                &[&lv.pos, &lv.flags, &lv.sub, &ctx.dummy, &ctx.total],
                writes,
            )?;
        }
        return cache_pass(ctx, run, l, n, Kernel::CacheStore);
    }
    // Leaves in statistics mode only need "any legal move?" (mate, stalemate).
    let first_only = run.stats && remaining == 0;
    {
        let lv = &ctx.levels[l];
        ctx.dispatch(
            Kernel::Count,
            params(n, remaining, first_only as u32, 0),
            &[&lv.pos, &lv.flags, &lv.counts],
            n * 4,
        )?;
    }
    if run.stats && remaining == 0 {
        let lv = &ctx.levels[l];
        ctx.clear(&ctx.dummy, 64);
        ctx.dispatch(
            Kernel::Stats,
            params(n, 0, 0, 0),
            &[&lv.info, &lv.counts, &ctx.dummy],
            36,
        )?;
        let t = ctx.read_u32(&ctx.dummy, 0, 9).await?;
        let t: Vec<u64> = t.into_iter().map(u64::from).collect();
        run.leaves += n;
        // The kernel's nine totals are the CPW columns, in `Detail::Cpw` order.
        for (&c, v) in Detail::Cpw.columns().iter().zip(t) {
            run.leaf_stats[c] += v as u128;
        }
        return Ok(());
    }
    if !run.stats && remaining == 1 {
        // A root of depth 1 (remaining 2 is fused): its count is the answer.
        return Ok(());
    }
    let (counts, offsets) = (ctx.levels[l].counts.clone(), ctx.levels[l].offsets.clone());
    // Written levels below the children: down to remaining 2, or to the leaves in statistics mode.
    let below = if run.stats {
        remaining - 1
    } else {
        remaining.saturating_sub(3)
    };
    let room = level_cap(ctx, run.merge).min(
        run.s
            .budget_slots()
            .saturating_sub(used + RESERVE * u64::from(below)),
    );
    // Prefix sums and slices per chunk of SCAN_CHUNK positions (one chunk below 2^23 positions); offsets and
    // slice bases are relative to their chunk.
    let mut slices = Vec::new();
    let chunk_len = ctx.scan_chunk.clamp(1, SCAN_CHUNK);
    for start in (0..n).step_by(chunk_len as usize) {
        let len = chunk_len.min(n - start);
        let total = gpu_scan(ctx, &counts, &offsets, start, len).await?;
        if total <= room {
            slices.push((start, start + len, 0, total));
        } else {
            let chunk = ctx.read_u32(&counts, start, len).await?;
            slices.extend(
                plan_slices(&chunk, room)?
                    .into_iter()
                    .map(|(first, end, base, cnt)| (start + first, start + end, base, cnt)),
            );
        }
    }
    for (first, end, base, cnt) in slices {
        if cnt == 0 {
            continue;
        }
        ctx.ensure_level(l + 1, cnt);
        // The merge table is only read when merging (it is bound either way).
        let mask = ctx.ensure_table(if run.merge { 2 * cnt } else { 64 });
        // Writing and merging the children, and later their back-propagation, count for the child level.
        ctx.set_level(remaining - 1);
        {
            let (lv, next) = (&ctx.levels[l], &ctx.levels[l + 1]);
            let with_info = run.stats && remaining == 1;
            // Bit 0: leaf statistics; bit 1: no parent indices (nothing is back-propagated).
            let mode = with_info as u32 | (run.total as u32) << 1;
            ctx.dispatch(
                Kernel::Expand,
                GpuParams {
                    first: first as u32,
                    base: base as u32,
                    ..params(end - first, remaining, mode, 0)
                },
                &[
                    &lv.pos,
                    &lv.flags,
                    &lv.offsets,
                    &next.pos,
                    &next.parents,
                    &next.info,
                ],
                cnt * (64 + 4 * !run.total as u64 + 4 * with_info as u64),
            )?;
            let table = &ctx.table.as_ref().expect("table allocated").0;
            // Slots hold the generation in their top 8 bits and index + 1 below: a merged level has fewer than
            // 2^24 positions ([`level_cap`]).
            debug_assert!(!run.merge || cnt <= MERGE_MAX);
            let generation = if run.merge {
                ctx.next_table_generation()
            } else {
                0
            };
            // merge.wgsl: 1 merges; 0 sets the flags and representatives; 2 the flags only (one total).
            let merge_mode = if run.merge {
                1
            } else if run.total {
                2
            } else {
                0
            };
            ctx.dispatch(
                Kernel::Merge,
                GpuParams {
                    extra: generation,
                    ..params(cnt, remaining - 1, merge_mode, mask)
                },
                &[&next.pos, table, &next.rep, &next.flags, &ctx.tally],
                cnt * if run.total { 4 } else { 8 } + if run.merge { cnt * 4 } else { 0 },
            )?;
        }
        ctx.record_level(remaining - 1, cnt, !run.merge);
        Box::pin(descend(ctx, run, l + 1, cnt, used + cnt)).await?;
        ctx.set_level(remaining - 1);
        if !run.stats && !run.total {
            let (child, parent) = (&ctx.levels[l + 1], &ctx.levels[l]);
            ctx.dispatch(
                Kernel::Backprop,
                params(cnt, 0, 0, 0),
                &[&child.parents, &child.rep, &child.sub, &parent.sub],
                cnt * 8,
            )?;
        }
    }
    cache_pass(ctx, run, l, n, Kernel::CacheStore)
}

/// Cut a level into consecutive slices whose children (from the per-position `counts`) fit `room` slots:
/// `(first, end, first child, children)` each.
///
/// # Errors
/// [`crate::Error::Backend`] when one position alone has more children than `room`: the memory budget is too
/// small for this depth.
fn plan_slices(counts: &[u32], room: u64) -> Result<Vec<(u64, u64, u64, u64)>> {
    let mut out = Vec::new();
    let (mut first, mut base, mut sum) = (0u64, 0u64, 0u64);
    for (i, &c) in counts.iter().enumerate() {
        let c = u64::from(c);
        if c > room {
            return Err(crate::Error::Backend(format!(
                "--gpu-mem: the GPU memory budget leaves room for {room} positions at a level, but a position \
                 has {c} moves; give a larger --gpu-mem"
            )));
        }
        if sum + c > room {
            out.push((first, i as u64, base, sum));
            first = i as u64;
            base += sum;
            sum = 0;
        }
        sum += c;
    }
    out.push((first, counts.len() as u64, base, sum));
    Ok(out)
}

/// Probe (`CacheProbe`: hits set `sub` and the flags) or fill (`CacheStore`: the subtree counts of the
/// expanded positions) the transposition table of level `l`'s remaining depth for its `n` positions; nothing
/// when the tables are off or the depth has none (remaining depth < 2).
fn cache_pass(ctx: &mut GpuContext, run: &Run, l: usize, n: u64, kernel: Kernel) -> Result<()> {
    let remaining = run.depth - l as u32;
    if !run.cache_on || remaining < 2 {
        return Ok(());
    }
    table_pass(ctx, l, n, remaining, kernel)
}

/// Run `kernel` (`CacheProbe` or `CacheStore`) over the first `n` positions of level buffers `l` against the
/// transposition table of remaining depth `remaining` (nothing when there is none): one dispatch per group of
/// [`CACHE_GROUP`] buffers of the table (a thread whose entry lies in another group's buffers returns at
/// once), so a table may have any number of buffers while each dispatch binds 8 storage buffers.
///
/// # Errors
/// A GPU failure.
pub fn table_pass(
    ctx: &GpuContext,
    l: usize,
    n: u64,
    remaining: u32,
    kernel: Kernel,
) -> Result<()> {
    let Some(cache) = ctx.cache.as_ref() else {
        return Ok(());
    };
    let Some(table) = cache.table(remaining) else {
        return Ok(());
    };
    ctx.set_level(remaining);
    let lv = &ctx.levels[l];
    for group in 0..table.groups() {
        let [c0, c1, c2, c3] = cache.bound(table, group);
        let p = GpuParams {
            extra: table.len,
            mode: table.parts.len() as u32,
            first: (CACHE_GROUP * group) as u32,
            ..params(n, remaining, 0, 0)
        };
        // Each thread writes in one group's dispatch at most: the bound is counted once, with the first.
        let once = u64::from(group == 0);
        if kernel == Kernel::CacheProbe {
            let buffers = [&lv.pos, &lv.flags, &lv.sub, c0, c1, c2, c3, &ctx.tally];
            ctx.dispatch(kernel, p, &buffers, once * n * 12)?;
        } else {
            let buffers = [&lv.pos, &lv.flags, &lv.sub, c0, c1, c2, c3];
            ctx.dispatch(kernel, p, &buffers, once * n * 16)?;
        }
    }
    Ok(())
}

/// Exclusive prefix sum of the `n` u32 values of `input` from index `first` on into `output` (same
/// indices), on the GPU (blocks of 256, recursing on the block sums); returns the total (one 4-byte
/// read-back). The caller keeps the total below 2^32 ([`SCAN_CHUNK`]).
async fn gpu_scan(
    ctx: &mut GpuContext,
    input: &wgpu::Buffer,
    output: &wgpu::Buffer,
    first: u64,
    n: u64,
) -> Result<u64> {
    scan_at(ctx, input, output, first, n, 0).await
}

/// [`gpu_scan`] at recursion depth `r` (its block sums in scratch slots `2r` and `2r + 1`).
async fn scan_at(
    ctx: &mut GpuContext,
    input: &wgpu::Buffer,
    output: &wgpu::Buffer,
    first: u64,
    n: u64,
    r: usize,
) -> Result<u64> {
    let blocks = n.div_ceil(256);
    let sums = ctx.scratch(2 * r, blocks * 4);
    let p = GpuParams {
        first: first as u32,
        ..params(n, 0, 0, 0)
    };
    ctx.dispatch(Kernel::Scan, p, &[input, output, &sums], n * 4 + blocks * 4)?;
    if blocks == 1 {
        return Ok(ctx.read_u32(&sums, 0, 1).await?[0] as u64);
    }
    let sum_offsets = ctx.scratch(2 * r + 1, blocks * 4);
    let total = Box::pin(scan_at(ctx, &sums, &sum_offsets, 0, blocks, r + 1)).await?;
    ctx.dispatch(Kernel::ScanAdd, p, &[&sum_offsets, output], n * 4)?;
    Ok(total)
}

/// Deepest tree one run counts: its per-root counts are u64 on the GPU, and perft 11 of any realistic position
/// is far below 2^64 (startpos: 2.1e15). Deeper trees are split on the host, with u128 sums.
pub const MAX_RUN_DEPTH: u32 = 11;

/// Progress of a count ([`super::GpuBackend::perft_async`]): units of its plan done so far, of how many, and
/// the leaf nodes counted by them (each finished piece's counts times the number of ways the roots reach its
/// positions, plus what the host table answered at once: `nodes` ends at the roots' total).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuProgress {
    /// Units done.
    pub done: u64,
    /// Units in all.
    pub total: u64,
    /// Leaf nodes counted so far.
    pub nodes: u128,
}

/// Where a count reports its progress and learns whether to go on ([`std::ops::ControlFlow::Break`] stops it
/// with [`crate::Error::Interrupted`] after the unit in flight).
pub type Progress<'a> = &'a mut dyn FnMut(GpuProgress) -> std::ops::ControlFlow<()>;

/// Units of work a count with progress is cut into ([`super::GpuBackend::perft_async`]): the last host
/// level's positions in this many pieces (one GPU run or more each), with enough host plies for that many
/// positions. Blocking counts use one unit, so their runs are as large as the budget allows.
pub const PROGRESS_UNITS: usize = 32;

/// The perft count of each root to `depth`. Planned before running: the top plies above what one run may
/// count (and at least [`Settings::host_plies`]) are expanded on the host (host levels, with the host table),
/// batches of roots
/// larger than one level may hold are cut into chunks; inside a run, levels too large for the budget are
/// expanded in slices, so no run is abandoned. Blocking ([`subtree_counts_async`] under
/// [`super::context::block_on`]).
///
/// # Errors
/// A GPU failure ([`crate::Error::Backend`]), or a budget too small for one position's moves.
#[cfg(not(target_arch = "wasm32"))]
pub fn subtree_counts(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<Vec<u128>> {
    let device = ctx.device_handle();
    super::context::block_on(
        &device,
        subtree_counts_async(ctx, roots, depth, s, 1, &mut |_| {
            std::ops::ControlFlow::Continue(())
        }),
    )
}

/// [`subtree_counts`], asynchronous, in `units` units of work with `progress` after each.
///
/// # Errors
/// As [`subtree_counts`]; [`crate::Error::Interrupted`] when `progress` breaks.
pub async fn subtree_counts_async(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
    units: usize,
    progress: Progress<'_>,
) -> Result<Vec<u128>> {
    pool_counts(&mut Gpus::One(ctx, *s), roots, depth, units, progress).await
}

/// One GPU of a [`Gpus::Many`] pool: its context and what its runs may use (the budget is per adapter).
pub struct Device {
    /// The adapter's context.
    pub ctx: std::sync::Mutex<GpuContext>,
    /// Its settings (merging and tables alike for all; its own level budget).
    pub settings: Settings,
}

impl Device {
    /// Lock the context (a poisoned lock is taken over: the context holds no invariant a panic breaks
    /// half-way that the next run relies on).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, GpuContext> {
        self.ctx.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The GPUs a count runs on: one context, or several devices that share the host levels' positions (the
/// host table and the host counters live on the first).
pub enum Gpus<'a> {
    /// One adapter.
    One(&'a mut GpuContext, Settings),
    /// Several adapters, one thread each (native only: the browser has one adapter and no threads).
    #[cfg(not(target_arch = "wasm32"))]
    Many(&'a [Device]),
}

impl Gpus<'_> {
    fn settings(&self) -> Settings {
        match self {
            Gpus::One(_, s) => *s,
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => d[0].settings,
        }
    }

    /// Run `f` on the context that holds the host table (the only one, or the first).
    fn host<R>(&mut self, f: impl FnOnce(&mut GpuContext) -> R) -> R {
        match self {
            Gpus::One(ctx, _) => f(ctx),
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => f(&mut d[0].lock()),
        }
    }

    /// Fewest positions the last host level should have: enough pieces of work for every adapter to take
    /// several (0 with one adapter: no extra host plies).
    fn min_frontier(&self) -> usize {
        match self {
            Gpus::One(..) => 0,
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => 16 * d.len(),
        }
    }

    /// [`gpu_counts`] over `roots`, spread over the adapters (several adapters: one blocking thread each).
    async fn counts(&mut self, roots: &[GpuPos], depth: u32) -> Result<Vec<u128>> {
        match self {
            Gpus::One(ctx, s) => gpu_counts(ctx, roots, depth, s).await,
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => Ok(spread(d, roots, |ctx, part, s| {
                let device = ctx.device_handle();
                super::context::block_on(&device, gpu_counts(ctx, part, depth, s))
            })?
            .into_iter()
            .flatten()
            .collect()),
        }
    }

    /// [`gpu_total`] over `roots`, spread over the adapters.
    async fn total(&mut self, roots: &[GpuPos], depth: u32) -> Result<u128> {
        match self {
            Gpus::One(ctx, s) => gpu_total(ctx, roots, depth, s).await,
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => Ok(spread(d, roots, |ctx, part, s| {
                let device = ctx.device_handle();
                super::context::block_on(&device, gpu_total(ctx, part, depth, s))
            })?
            .into_iter()
            .sum()),
        }
    }
}

/// Pieces of `roots` each adapter takes on average in [`spread`]: several, so a faster adapter takes more.
#[cfg(not(target_arch = "wasm32"))]
const PIECES_PER_DEVICE: usize = 4;

/// Run `f` over consecutive pieces of `roots` on every device, one thread per device, each taking the next
/// piece when done with its last (so faster adapters take more); the results in the order of the pieces.
/// The first error stops every thread after its current piece and is returned.
#[cfg(not(target_arch = "wasm32"))]
fn spread<T: Send>(
    devices: &[Device],
    roots: &[GpuPos],
    f: impl Fn(&mut GpuContext, &[GpuPos], &Settings) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Mutex;
    if roots.is_empty() {
        return Ok(Vec::new());
    }
    let pieces = (devices.len() * PIECES_PER_DEVICE).min(roots.len());
    let parts: Vec<&[GpuPos]> = roots.chunks(roots.len().div_ceil(pieces)).collect();
    // Device i takes piece i first (so each does some work when there are enough pieces), then the next
    // piece nobody has taken.
    let next = AtomicUsize::new(devices.len());
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<T>>> = Mutex::new(parts.iter().map(|_| None).collect());
    let error: Mutex<Option<crate::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for (i, d) in devices.iter().enumerate() {
            let (parts, next, failed, results, error, f) =
                (&parts, &next, &failed, &results, &error, &f);
            scope.spawn(move || {
                let mut ctx = d.lock();
                let mut k = i;
                while !failed.load(Ordering::Relaxed) {
                    let Some(part) = parts.get(k) else { break };
                    let this = k;
                    k = next.fetch_add(1, Ordering::Relaxed);
                    match f(&mut ctx, part, &d.settings) {
                        Ok(v) => results.lock().unwrap_or_else(|p| p.into_inner())[this] = Some(v),
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            error
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .get_or_insert(e);
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| {
            r.ok_or_else(|| crate::Error::Backend("internal: a piece of work was not done".into()))
        })
        .collect()
}

/// [`subtree_counts`] on the GPUs of `gpus`: with several, the last host level's positions are spread over
/// them (at least [`Gpus::min_frontier`] positions there, so each adapter takes several pieces). The last
/// host level is counted in `units` pieces, `progress` told after each.
///
/// # Errors
/// As [`subtree_counts`], from any adapter; [`crate::Error::Interrupted`] when `progress` breaks.
pub async fn pool_counts(
    gpus: &mut Gpus<'_>,
    roots: &[Setup],
    depth: u32,
    units: usize,
    progress: Progress<'_>,
) -> Result<Vec<u128>> {
    let s = gpus.settings();
    if depth == 0 || roots.is_empty() {
        return Ok(vec![1; roots.len()]);
    }
    let run_depth = depth.min(s.max_run_depth.clamp(1, MAX_RUN_DEPTH));
    let plies = (depth - run_depth).max(s.host_plies.min(depth - 1));
    if totals_only(&s) && roots.len() > 1 {
        // Without merging and tables nothing is shared between roots: each root alone, by its total (a
        // unit of progress is then a root).
        let mut out = Vec::with_capacity(roots.len());
        let all = roots.len() as u64;
        for (i, r) in roots.iter().enumerate() {
            let before: u128 = out.iter().sum();
            let mut inner = |p: GpuProgress| {
                progress(GpuProgress {
                    done: i as u64,
                    total: all,
                    nodes: before + p.nodes,
                })
            };
            let key = [GpuPos::from_setup(r)];
            let c = host_counts(
                gpus,
                std::slice::from_ref(r),
                &key,
                depth,
                plies,
                units,
                &mut inner,
            )
            .await?[0];
            out.push(c);
        }
        let nodes = out.iter().sum();
        stop_if_asked(progress(GpuProgress {
            done: all,
            total: all,
            nodes,
        }))?;
        return Ok(out);
    }
    let keys: Vec<GpuPos> = roots.iter().map(GpuPos::from_setup).collect();
    host_counts(gpus, roots, &keys, depth, plies, units, progress).await
}

/// [`crate::Error::Interrupted`] when a progress callback asked to stop.
fn stop_if_asked(flow: std::ops::ControlFlow<()>) -> Result<()> {
    match flow {
        std::ops::ControlFlow::Continue(()) => Ok(()),
        std::ops::ControlFlow::Break(()) => Err(crate::Error::Interrupted(
            "the GPU count was stopped by its caller".into(),
        )),
    }
}

/// Whether runs only need totals (the fused kernel's one-total mode, [`run_tree`]): without merging and
/// tables every root is counted alone ([`subtree_counts`]), and a root's count is the plain sum of the counts
/// of its host-level descendants.
fn totals_only(s: &Settings) -> bool {
    !s.merge && !s.cache
}

/// One position of a host level: its key, its setup, its children (indices into the next host level, one per
/// legal move: a transposition appears as the same index twice), its count once known, and the number of
/// ways the roots reach it (for progress).
struct HostNode {
    key: GpuPos,
    setup: Setup,
    kids: Vec<u32>,
    count: Option<u128>,
    ways: u128,
}

/// The index in `level` of the position `key`: with `merge`, the node already there for it (found through
/// `index`), else a new node made from `setup()` (recorded in `index` when merging).
fn place(
    level: &mut Vec<HostNode>,
    index: &mut hashbrown::HashMap<GpuPos, u32>,
    merge: bool,
    key: GpuPos,
    setup: impl FnOnce() -> Setup,
) -> u32 {
    if merge {
        if let Some(&at) = index.get(&key) {
            return at;
        }
    }
    level.push(HostNode {
        key,
        setup: setup(),
        kids: Vec::new(),
        count: None,
        ways: 0,
    });
    let at = level.len() as u32 - 1;
    if merge {
        index.insert(key, at);
    }
    at
}

/// The host levels: expand at least `plies` plies of `roots` on the host (more, up to `depth - 1`, while the
/// last level's positions left to count are fewer than [`Gpus::min_frontier`], or than `units` when there
/// are several), merging transpositions (with `s.merge`: each distinct position once per level, its
/// multiplicity carried by the parents' child lists), count the distinct positions of the last host level in
/// GPU runs ([`Gpus::counts`], spread over the adapters) in `units` pieces, then add the counts up level by
/// level. With the tables on (`s.cache`), every position's count is looked up in the host table first (whole
/// position and remaining depth: exact) and stored there once known, so later batches, `--divide` root moves
/// and suite positions reuse it. Counts are exact u128.
async fn host_counts(
    gpus: &mut Gpus<'_>,
    roots: &[Setup],
    keys: &[GpuPos],
    depth: u32,
    plies: u32,
    units: usize,
    progress: Progress<'_>,
) -> Result<Vec<u128>> {
    let s = gpus.settings();
    let units = units.max(1);
    let want = gpus.min_frontier().max(if units > 1 { units } else { 0 });
    let mut plies = plies;
    let mut levels: Vec<Vec<HostNode>> = Vec::with_capacity(plies as usize + 1);
    let mut index: hashbrown::HashMap<GpuPos, u32> = hashbrown::HashMap::new();
    // Each root's node in level 0.
    let mut root_nodes = Vec::with_capacity(roots.len());
    let mut top = Vec::new();
    for (setup, &key) in roots.iter().zip(keys) {
        let at = place(&mut top, &mut index, s.merge, key, || setup.clone());
        top[at as usize].ways += 1;
        root_nodes.push(at as usize);
    }
    levels.push(top);
    // Leaf nodes known so far: the counts found in the host table, times the ways the roots reach them.
    let mut nodes = 0u128;
    let mut ply = 0;
    loop {
        let remaining = depth - ply;
        let level = levels.last_mut().expect("a level");
        if s.cache {
            gpus.host(|ctx| {
                for node in level.iter_mut() {
                    if let Some(&c) = ctx.host_table.get(&(node.key, remaining)) {
                        node.count = Some(c);
                        ctx.host_hits += 1;
                    }
                }
            });
        }
        let open = level.iter().filter(|n| n.count.is_none()).count();
        if ply >= plies {
            if open == 0 || open >= want || ply + 1 >= depth {
                break;
            }
            plies = ply + 1;
        }
        nodes += level
            .iter()
            .filter_map(|n| n.count.map(|c| c * n.ways))
            .sum::<u128>();
        gpus.host(|ctx| ctx.host_positions += open as u64);
        index.clear();
        let mut next = Vec::new();
        for node in level.iter_mut().filter(|n| n.count.is_none()) {
            for m in reference::legal_moves(&node.setup) {
                let child = reference::play(&node.setup, m);
                let key = GpuPos::from_setup(&child);
                let at = place(&mut next, &mut index, s.merge, key, || child);
                next[at as usize].ways += node.ways;
                node.kids.push(at);
            }
        }
        levels.push(next);
        ply += 1;
    }
    // The last host level on the GPU: its positions not found in the host table, in `units` pieces.
    let remaining = depth - plies;
    let frontier = levels.last_mut().expect("a level");
    nodes += frontier
        .iter()
        .filter_map(|n| n.count.map(|c| c * n.ways))
        .sum::<u128>();
    let todo: Vec<usize> = (0..frontier.len())
        .filter(|&i| frontier[i].count.is_none())
        .collect();
    let piece = todo.len().div_ceil(units).max(1);
    let all = todo.len().div_ceil(piece) as u64;
    stop_if_asked(progress(GpuProgress {
        done: 0,
        total: all,
        nodes,
    }))?;
    if totals_only(&s) && roots.len() == 1 {
        // One root, nothing merged: its count is the sum of the last host level's (each reached once).
        let mut sum = 0u128;
        for (k, part) in todo.chunks(piece).enumerate() {
            let batch: Vec<GpuPos> = part.iter().map(|&i| frontier[i].key).collect();
            sum += gpus.total(&batch, remaining).await?;
            stop_if_asked(progress(GpuProgress {
                done: k as u64 + 1,
                total: all,
                nodes: nodes + sum,
            }))?;
        }
        return Ok(vec![sum]);
    }
    for (k, part) in todo.chunks(piece).enumerate() {
        let batch: Vec<GpuPos> = part.iter().map(|&i| frontier[i].key).collect();
        let counts = gpus.counts(&batch, remaining).await?;
        gpus.host(|ctx| {
            for (&i, c) in part.iter().zip(counts) {
                frontier[i].count = Some(c);
                nodes += c * frontier[i].ways;
                remember(ctx, &s, frontier[i].key, remaining, c);
            }
        });
        stop_if_asked(progress(GpuProgress {
            done: k as u64 + 1,
            total: all,
            nodes,
        }))?;
    }
    // Counts up the host levels: a position's count is the sum over its moves of its children's counts.
    gpus.host(|ctx| {
        for ply in (0..plies as usize).rev() {
            let (upper, lower) = levels.split_at_mut(ply + 1);
            let (upper, lower) = (&mut upper[ply], &lower[0]);
            for node in upper.iter_mut().filter(|n| n.count.is_none()) {
                let c: u128 = node
                    .kids
                    .iter()
                    .map(|&k| lower[k as usize].count.expect("counted"))
                    .sum();
                node.count = Some(c);
                remember(ctx, &s, node.key, depth - ply as u32, c);
            }
        }
    });
    Ok(root_nodes
        .into_iter()
        .map(|i| levels[0][i].count.expect("counted"))
        .collect())
}

/// Keep a finished subtree count in the host table (with the tables on), emptied when it is full.
fn remember(ctx: &mut GpuContext, s: &Settings, key: GpuPos, remaining: u32, count: u128) {
    if !s.cache {
        return;
    }
    if ctx.host_table_max() == 0 {
        return;
    }
    if ctx.host_table.len() >= ctx.host_table_max() {
        ctx.host_table.clear();
    }
    ctx.host_table.insert((key, remaining), count);
}

/// GPU runs over `roots` to `depth` (≤ [`MAX_RUN_DEPTH`]), in chunks that one level may hold.
async fn gpu_counts(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    s: &Settings,
) -> Result<Vec<u128>> {
    if depth == 0 || roots.is_empty() {
        return Ok(vec![1; roots.len()]);
    }
    let chunk = room_for_roots(ctx, s, depth) as usize;
    let mut out = Vec::with_capacity(roots.len());
    for part in roots.chunks(chunk) {
        ctx.note_run(part.len());
        let (counts, _) = run_tree(ctx, part, depth, false, false, s).await?;
        out.extend(counts);
    }
    Ok(out)
}

/// The sum of the counts of `roots` to `depth` (≤ [`MAX_RUN_DEPTH`]), from GPU runs in the one-total mode (no
/// per-position counts; merging and tables off), in chunks that one level may hold.
async fn gpu_total(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    s: &Settings,
) -> Result<u128> {
    if depth == 0 {
        return Ok(roots.len() as u128);
    }
    let chunk = room_for_roots(ctx, s, depth) as usize;
    let mut sum = 0u128;
    for part in roots.chunks(chunk) {
        ctx.note_run(part.len());
        let (counts, _) = run_tree(ctx, part, depth, false, true, s).await?;
        sum += counts.iter().sum::<u128>();
    }
    Ok(sum)
}

/// Leaf count and CPW statistics of the trees below `roots` (summed), planned like [`subtree_counts`];
/// blocking ([`tree_stats_async`] under [`super::context::block_on`]).
///
/// # Errors
/// A GPU failure.
#[cfg(not(target_arch = "wasm32"))]
pub fn tree_stats(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<(u128, Stats)> {
    let device = ctx.device_handle();
    super::context::block_on(&device, tree_stats_async(ctx, roots, depth, s))
}

/// [`tree_stats`], asynchronous.
///
/// # Errors
/// A GPU failure.
pub async fn tree_stats_async(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<(u128, Stats)> {
    if depth == 0 || roots.is_empty() {
        return Ok((roots.len() as u128, Stats::default()));
    }
    let chunk = room_for_roots(ctx, s, depth + 2) as usize;
    let mut total = (0u128, Stats::default());
    for part in roots.chunks(chunk) {
        let gpu: Vec<GpuPos> = part.iter().map(GpuPos::from_setup).collect();
        ctx.note_run(gpu.len());
        let (leaves, st) = run_tree(ctx, &gpu, depth, true, false, s).await?;
        total = (total.0 + leaves.iter().sum::<u128>(), total.1 + st);
    }
    Ok(total)
}

/// Positions per `moves.wgsl` dispatch.
const MOVE_BATCH: usize = 16384;

/// The legal moves of each position, from the GPU kernel.
///
/// # Errors
/// A GPU failure.
pub async fn legal_moves(ctx: &mut GpuContext, setups: &[Setup]) -> Result<Vec<Vec<Move>>> {
    let mut out = Vec::with_capacity(setups.len());
    for chunk in setups.chunks(MOVE_BATCH) {
        let n = chunk.len() as u64;
        let gpu: Vec<GpuPos> = chunk.iter().map(GpuPos::from_setup).collect();
        ctx.ensure_level(0, n);
        let mask = ctx.ensure_table(64);
        let counts = {
            let lv = &ctx.levels[0];
            ctx.upload(&lv.pos, bytemuck::cast_slice(&gpu))?;
            let table = &ctx.table.as_ref().expect("table allocated").0;
            ctx.dispatch(
                Kernel::Merge,
                params(n, 1, 0, mask),
                &[&lv.pos, table, &lv.rep, &lv.flags, &ctx.tally],
                n * 8,
            )?;
            ctx.dispatch(
                Kernel::Count,
                params(n, 1, 0, 0),
                &[&lv.pos, &lv.flags, &lv.counts],
                n * 4,
            )?;
            ctx.read_u32(&lv.counts, 0, n).await?
        };
        let mut offsets = Vec::with_capacity(counts.len());
        let mut total = 0u32;
        for &c in &counts {
            offsets.push(total);
            total += c;
        }
        let moves = ctx.buffer("move lists", total as u64 * 4);
        let lv = &ctx.levels[0];
        ctx.upload(&lv.offsets, bytemuck::cast_slice(&offsets))?;
        ctx.dispatch(
            Kernel::Moves,
            params(n, 1, 0, 0),
            &[&lv.pos, &lv.offsets, &moves],
            total as u64 * 4,
        )?;
        let lists = ctx.read_u32(&moves, 0, total as u64).await?;
        for (&o, &c) in offsets.iter().zip(&counts) {
            let (o, c) = (o as usize, c as usize);
            out.push(lists[o..o + c].iter().map(|&m| Move(m as u16)).collect());
        }
    }
    Ok(out)
}
