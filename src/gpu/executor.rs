//! The executor: runs a [`Plan`](super::planner::Plan) on the GPU, asynchronously (every read-back is
//! awaited; natively [`block_on`](super::device::block_on) drives it, in the browser the event loop).
//!
//! One run (`run_tree`) takes a batch of roots and a depth. For each level above remaining depth 2 it counts
//! the children of every position to expand (count.wgsl), prefix-sums the counts on the GPU (scan.wgsl; only
//! the total comes back, to size the next level), writes the children (expand.wgsl) and merges transpositions
//! (merge.wgsl); positions found in the cache are not expanded (cache_probe.wgsl). The deepest written level
//! is remaining depth 2: its distinct positions are compacted (compact.wgsl) and the last two plies are
//! generated and counted in registers (leaf2.wgsl), never written. Counts then flow back up (backprop.wgsl:
//! every copy of a merged position adds its representative's count to its own parent), expanded subtrees are
//! stored in the cache (cache_store.wgsl), and each root's exact u64 count is read back. Without merging and
//! tables a run's counts are only summed ([`RunKind::Total`]): the fused kernel adds each workgroup's sum into
//! one accumulator (one atomic add per workgroup), no level keeps per-position counts and nothing is
//! back-propagated; the total is read back.
//!
//! Inside a run a level whose children would exceed the budget (or one storage binding) is expanded in
//! consecutive slices ([`plan_slices`]), each slice's subtree finished before the next, with a reserve kept
//! for every level below so that one position's children always fit ([`super::memory`]). The entry points that plan
//! and count over one adapter or several are in [`super::pool`]. Totals are summed in u128.

use super::buffers::{GpuParams, GpuPos};
use super::context::GpuContext;
use super::kernels::Kernel;
use super::memory::{room_for_children, MERGE_MAX, SCAN_CHUNK};
use super::planner::{plan_slices, Settings, SHALLOW};
use super::tables::CACHE_GROUP;
use crate::backend::{Detail, Stats};
use crate::error::Result;

/// What a run computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RunKind {
    /// Each root's count.
    Counts,
    /// The sum of the roots' counts, from the fused kernel's accumulator (merging and tables off).
    Total,
    /// The leaves' CPW statistics (leaves written and classified; merging and tables off).
    Stats,
}

/// `merge.wgsl`'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MergeMode {
    /// Flags and representatives set, nothing merged.
    Flags = 0,
    /// Transpositions merged through the merge table.
    Merge = 1,
    /// The flags only (one total: no representatives are read).
    FlagsOnly = 2,
}

/// `leaf2.wgsl`'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeafMode {
    /// A count per position of the level.
    PerPosition = 0,
    /// A count per compacted distinct position (merging or the tables left gaps).
    Compacted = 1,
    /// One total: each workgroup's sum added to the accumulator.
    OneTotal = 2,
}

/// `expand.wgsl`'s mode bits: bit 0 writes the leaf statistics bits, bit 1 no parent indices (nothing is
/// back-propagated).
fn expand_mode(leaf_info: bool, no_parents: bool) -> u32 {
    leaf_info as u32 | (no_parents as u32) << 1
}

/// `count.wgsl`'s modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CountMode {
    /// Every legal move counted.
    All = 0,
    /// Only whether there is one (leaves in statistics mode: mate, stalemate).
    FirstOnly = 1,
}

pub(super) fn params(n: u64, remaining: u32, mode: u32, mask: u32) -> GpuParams {
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
    kind: RunKind,
    merge: bool,
    cache_on: bool,
    /// The roots' side to move when they all share it (0 white, 1 black), so each level's is known and the
    /// fused leaves run the kernel specialised for it; `None`: the generic kernel.
    side: Option<u32>,
    /// Statistics mode: leaves seen and their statistics.
    leaves: u64,
    leaf_stats: Stats,
}

impl Run<'_> {
    fn stats(&self) -> bool {
        self.kind == RunKind::Stats
    }

    fn total(&self) -> bool {
        self.kind == RunKind::Total
    }
}

/// One breadth-first run over `roots` to `depth` (≥ 1); the caller keeps `roots` within [`room_for_roots`](super::memory::room_for_roots).
/// With [`RunKind::Stats`] the leaves are written and their statistics summed (merging and the cache are off
/// there) and the single returned count is the number of leaves. With [`RunKind::Total`] (only when merging
/// and the tables are off; otherwise it counts per root) the single returned count is the sum of the roots'
/// counts, from the fused kernel's accumulator (96 bits: exact for any sum of u64 counts a run can have).
///
/// No run is ever abandoned: a level whose children would not fit the budget (or one binding) is expanded in
/// slices, each slice's subtree finished before the next (see [`descend`]).
pub(super) async fn run_tree(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    kind: RunKind,
    s: &Settings,
) -> Result<(Vec<u128>, Stats)> {
    let n0 = roots.len() as u64;
    let stats = kind == RunKind::Stats;
    let merge = s.merge && !stats;
    let cache_on = s.cache && !stats && ctx.cache().is_some();
    let kind = if kind == RunKind::Total && (merge || cache_on) {
        RunKind::Counts
    } else {
        kind
    };
    let mut run = Run {
        s,
        depth,
        kind,
        merge,
        cache_on,
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
    {
        let lv = ctx.level(0);
        ctx.device().upload(&lv.pos, bytemuck::cast_slice(roots))?;
        ctx.device().dispatch(
            Kernel::Merge,
            depth,
            params(n0, depth, MergeMode::Flags as u32, mask),
            &[&lv.pos, ctx.merge_table(), &lv.rep, &lv.flags, ctx.tally()],
            n0 * 8,
        )?;
    }
    ctx.record_level(depth, n0, true);
    if run.total() && depth >= 2 {
        ctx.device().clear(ctx.total(), 16);
    }
    descend(ctx, &mut run, 0, n0, n0).await?;
    if stats {
        return Ok((vec![run.leaves.into()], run.leaf_stats));
    }
    let root = ctx.level(0);
    let counts: Vec<u128> = if depth == 1 {
        ctx.device()
            .read_u32(&root.counts, 0, n0)
            .await?
            .into_iter()
            .map(u128::from)
            .collect()
    } else if run.total() {
        let w = ctx.device().read_u32(ctx.total(), 0, 3).await?;
        vec![w[0] as u128 | (w[1] as u128) << 32 | (w[2] as u128) << 64]
    } else {
        let w = ctx.device().read_u32(&root.sub, 0, 2 * n0).await?;
        w.chunks(2)
            .map(|p| p[0] as u128 | (p[1] as u128) << 32)
            .collect()
    };
    if run.total() && counts.len() > 1 {
        return Ok((vec![counts.iter().sum()], Stats::default()));
    }
    Ok((counts, Stats::default()))
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
    if !run.stats() && !run.total() {
        ctx.device().clear(&ctx.level(l).sub, n * 8);
    }
    cache_pass(ctx, run, l, n, Kernel::CacheProbe)?;
    // The last two plies are fused: counted without writing the children (leaf2.wgsl), over the compacted
    // distinct positions when merging or the cache left gaps.
    if !run.stats() && remaining == 2 {
        let leaf2 = Kernel::leaf2_for(run.side.map(|side| side ^ (l as u32 & 1)));
        if run.merge || run.cache_on {
            let (flags, offsets) = (ctx.level(l).flags.clone(), ctx.level(l).offsets.clone());
            let k = gpu_scan(ctx, remaining, &flags, &offsets, 0, n).await?;
            let lv = ctx.level(l);
            ctx.device().dispatch(
                Kernel::Compact,
                remaining,
                params(n, remaining, 0, 0),
                &[&lv.flags, &lv.offsets, &lv.counts],
                k * 4,
            )?;
            ctx.device().dispatch(
                leaf2,
                remaining,
                params(k, remaining, LeafMode::Compacted as u32, 0),
                &[&lv.pos, &lv.flags, &lv.sub, &lv.counts, ctx.total()],
                k * 8,
            )?;
        } else {
            // One total: at most 12 bytes (three words of the accumulator) per workgroup; else 8 per position.
            let (mode, writes) = if run.total() {
                (
                    LeafMode::OneTotal,
                    n.div_ceil(u64::from(leaf2.workgroup())) * 12,
                )
            } else {
                (LeafMode::PerPosition, n * 8)
            };
            let lv = ctx.level(l);
            ctx.device().dispatch(
                leaf2,
                remaining,
                params(n, remaining, mode as u32, 0),
                &[&lv.pos, &lv.flags, &lv.sub, ctx.dummy(), ctx.total()],
                writes,
            )?;
        }
        return cache_pass(ctx, run, l, n, Kernel::CacheStore);
    }
    // Leaves in statistics mode only need "any legal move?" (mate, stalemate).
    let count_mode = if run.stats() && remaining == 0 {
        CountMode::FirstOnly
    } else {
        CountMode::All
    };
    {
        let lv = ctx.level(l);
        ctx.device().dispatch(
            Kernel::Count,
            remaining,
            params(n, remaining, count_mode as u32, 0),
            &[&lv.pos, &lv.flags, &lv.counts],
            n * 4,
        )?;
    }
    if run.stats() && remaining == 0 {
        let lv = ctx.level(l);
        ctx.device().clear(ctx.dummy(), 64);
        ctx.device().dispatch(
            Kernel::Stats,
            remaining,
            params(n, 0, 0, 0),
            &[&lv.info, &lv.counts, ctx.dummy()],
            36,
        )?;
        let t = ctx.device().read_u32(ctx.dummy(), 0, 9).await?;
        let t: Vec<u64> = t.into_iter().map(u64::from).collect();
        run.leaves += n;
        // The kernel's nine totals are the CPW columns, in `Detail::Cpw` order.
        for (&c, v) in Detail::Cpw.columns().iter().zip(t) {
            run.leaf_stats[c] += v as u128;
        }
        return Ok(());
    }
    if !run.stats() && remaining == 1 {
        // A root of depth 1 (remaining 2 is fused): its count is the answer.
        return Ok(());
    }
    let (counts, offsets) = (ctx.level(l).counts.clone(), ctx.level(l).offsets.clone());
    // Written levels below the children: down to remaining 2, or to the leaves in statistics mode.
    let below = if run.stats() {
        remaining - 1
    } else {
        remaining.saturating_sub(3)
    };
    let room = room_for_children(
        ctx.device().limits(),
        run.s.budget_bytes,
        run.merge,
        used,
        below,
    );
    // Prefix sums and slices per chunk of SCAN_CHUNK positions (one chunk below 2^23 positions); offsets and
    // slice bases are relative to their chunk.
    let mut slices = Vec::new();
    let chunk_len = ctx.scan_chunk().clamp(1, SCAN_CHUNK);
    for start in (0..n).step_by(chunk_len as usize) {
        let len = chunk_len.min(n - start);
        let total = gpu_scan(ctx, remaining, &counts, &offsets, start, len).await?;
        if total <= room {
            slices.push(super::planner::Slice {
                first: start,
                end: start + len,
                base: 0,
                children: total,
            });
        } else {
            let chunk = ctx.device().read_u32(&counts, start, len).await?;
            slices.extend(
                plan_slices(&chunk, room)?
                    .into_iter()
                    .map(|sl| super::planner::Slice {
                        first: start + sl.first,
                        end: start + sl.end,
                        ..sl
                    }),
            );
        }
    }
    let child = remaining - 1;
    for sl in slices {
        let cnt = sl.children;
        if cnt == 0 {
            continue;
        }
        ctx.ensure_level(l + 1, cnt);
        // The merge table is only read when merging (it is bound either way).
        let mask = ctx.ensure_table(if run.merge { 2 * cnt } else { 64 });
        // Writing and merging the children, and later their back-propagation, count for the child level.
        {
            let (lv, next) = (ctx.level(l), ctx.level(l + 1));
            let with_info = run.stats() && remaining == 1;
            ctx.device().dispatch(
                Kernel::Expand,
                child,
                GpuParams {
                    first: sl.first as u32,
                    base: sl.base as u32,
                    ..params(
                        sl.end - sl.first,
                        remaining,
                        expand_mode(with_info, run.total()),
                        0,
                    )
                },
                &[
                    &lv.pos,
                    &lv.flags,
                    &lv.offsets,
                    &next.pos,
                    &next.parents,
                    &next.info,
                ],
                cnt * (64 + 4 * !run.total() as u64 + 4 * with_info as u64),
            )?;
            // Slots hold the generation in their top 8 bits and index + 1 below: a merged level has fewer than
            // 2^24 positions ([`super::memory::level_cap`]).
            debug_assert!(!run.merge || cnt <= MERGE_MAX);
            let generation = if run.merge {
                ctx.next_table_generation()
            } else {
                0
            };
            let merge_mode = if run.merge {
                MergeMode::Merge
            } else if run.total() {
                MergeMode::FlagsOnly
            } else {
                MergeMode::Flags
            };
            ctx.device().dispatch(
                Kernel::Merge,
                child,
                GpuParams {
                    extra: generation,
                    ..params(cnt, child, merge_mode as u32, mask)
                },
                &[
                    &next.pos,
                    ctx.merge_table(),
                    &next.rep,
                    &next.flags,
                    ctx.tally(),
                ],
                cnt * if run.total() { 4 } else { 8 } + if run.merge { cnt * 4 } else { 0 },
            )?;
        }
        ctx.record_level(child, cnt, !run.merge);
        Box::pin(descend(ctx, run, l + 1, cnt, used + cnt)).await?;
        if !run.stats() && !run.total() {
            let (next, parent) = (ctx.level(l + 1), ctx.level(l));
            ctx.device().dispatch(
                Kernel::Backprop,
                child,
                params(cnt, 0, 0, 0),
                &[&next.parents, &next.rep, &next.sub, &parent.sub],
                cnt * 8,
            )?;
        }
    }
    cache_pass(ctx, run, l, n, Kernel::CacheStore)
}

/// The kernels one GPU run ([`run_tree`]) of `depth` (≥ 1) may use, each once, in the order of their first
/// use: `merge` (transpositions merged) and `cache` (the transposition tables on) as the run's settings, `side`
/// the roots' side to move when they share it (the fused leaves' specialised kernel; `None`: the generic
/// one). `scan_add` is listed wherever a prefix sum is (it runs only over more than 256 positions). The
/// executor chooses its plans by which of them are built ([`deepening`]); a test checks that a run builds
/// no other.
pub fn run_kernels(depth: u32, merge: bool, cache: bool, side: Option<u32>) -> Vec<Kernel> {
    // Without merging and tables a run counts one total: nothing is back-propagated ([`RunKind::Total`]).
    let total = !merge && !cache;
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    out.push(Kernel::Merge);
    for remaining in (1..=depth).rev() {
        let table = cache && remaining >= 2;
        if table {
            out.push(Kernel::CacheProbe);
        }
        if remaining == 2 {
            if merge || cache {
                out.extend([Kernel::Scan, Kernel::ScanAdd, Kernel::Compact]);
            }
            out.push(Kernel::leaf2_for(side.map(|s| s ^ ((depth - 2) & 1))));
            if table {
                out.push(Kernel::CacheStore);
            }
            break;
        }
        out.push(Kernel::Count);
        if remaining == 1 {
            break;
        }
        out.extend([Kernel::Scan, Kernel::ScanAdd, Kernel::Expand, Kernel::Merge]);
    }
    if depth >= 3 && !total {
        out.push(Kernel::Backprop);
    }
    if cache && depth >= 3 {
        out.push(Kernel::CacheStore);
    }
    let mut seen = Vec::new();
    out.retain(|k| {
        let new = !seen.contains(k);
        seen.push(*k);
        new
    });
    out
}

/// The kernels of the runs of `depth` for roots of either side ([`run_kernels`] for both), with settings `s`
/// on `ctx`, in the order of their first use.
pub fn kernels_to(ctx: &GpuContext, s: &Settings, depth: u32) -> Vec<Kernel> {
    let cache = s.cache && ctx.cache().is_some();
    let mut out = run_kernels(depth, s.merge, cache, Some(0));
    for k in run_kernels(depth, s.merge, cache, Some(1)) {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The kernels of the runs that go below remaining depth 2 (the fused leaves for either side, expand,
/// backprop and those they need: [`kernels_to`] depth 3), in the order of their first use.
pub fn deep_kernels(ctx: &GpuContext, s: &Settings) -> Vec<Kernel> {
    kernels_to(ctx, s, 3)
}

/// How far the host expands a small tree, given the kernels built: not beyond the plan's needs when every
/// kernel of [`deep_kernels`] is built (natively always); down to remaining depth 2 when those of the runs
/// of depth 2 are (the fused leaves for either side: [`kernels_to`] depth 2); else down to remaining depth 1
/// ([`SHALLOW`]: the GPU runs only `merge` and `count`, the kernels cheapest to build). In the browser the
/// page compiles them in that order ([`super::GpuBackend::kernel_order`]).
pub fn deepening(ctx: &GpuContext, s: &Settings) -> Option<super::planner::Deepen> {
    let built = |ks: Vec<Kernel>| ks.into_iter().all(|k| ctx.device().built(k));
    if built(deep_kernels(ctx, s)) {
        None
    } else if built(kernels_to(ctx, s, 2)) {
        Some(super::planner::Deepen {
            remaining: 2,
            ..SHALLOW
        })
    } else {
        Some(SHALLOW)
    }
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
    let Some(cache) = ctx.cache() else {
        return Ok(());
    };
    let Some(table) = cache.table(remaining) else {
        return Ok(());
    };
    let lv = ctx.level(l);
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
            let buffers = [&lv.pos, &lv.flags, &lv.sub, c0, c1, c2, c3, ctx.tally()];
            ctx.device()
                .dispatch(kernel, remaining, p, &buffers, once * n * 12)?;
        } else {
            let buffers = [&lv.pos, &lv.flags, &lv.sub, c0, c1, c2, c3];
            ctx.device()
                .dispatch(kernel, remaining, p, &buffers, once * n * 16)?;
        }
    }
    Ok(())
}

/// Exclusive prefix sum of the `n` u32 values of `input` from index `first` on into `output` (same
/// indices), on the GPU (blocks of 256, recursing on the block sums), its time counted for remaining depth
/// `level`; returns the total (one 4-byte read-back). The caller keeps the total below 2^32 ([`SCAN_CHUNK`]).
async fn gpu_scan(
    ctx: &mut GpuContext,
    level: u32,
    input: &wgpu::Buffer,
    output: &wgpu::Buffer,
    first: u64,
    n: u64,
) -> Result<u64> {
    scan_at(ctx, level, input, output, first, n, 0).await
}

/// [`gpu_scan`] at recursion depth `r` (its block sums in scratch slots `2r` and `2r + 1`).
async fn scan_at(
    ctx: &mut GpuContext,
    level: u32,
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
    ctx.device().dispatch(
        Kernel::Scan,
        level,
        p,
        &[input, output, &sums],
        n * 4 + blocks * 4,
    )?;
    if blocks == 1 {
        return Ok(ctx.device().read_u32(&sums, 0, 1).await?[0] as u64);
    }
    let sum_offsets = ctx.scratch(2 * r + 1, blocks * 4);
    let total = Box::pin(scan_at(ctx, level, &sums, &sum_offsets, 0, blocks, r + 1)).await?;
    ctx.device()
        .dispatch(Kernel::ScanAdd, level, p, &[&sum_offsets, output], n * 4)?;
    Ok(total)
}
