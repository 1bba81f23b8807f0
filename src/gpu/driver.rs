//! The host side of the GPU perft: level-by-level (breadth-first) expansion of a batch of roots, merging,
//! the subtree cache, back-propagation of subtree counts, and the memory-bounded depth-first split into chunks.
//!
//! One run (`run_tree`) takes a batch of roots and a depth. For each level it counts the children of every
//! position to expand (count.wgsl), prefix-sums the counts on the GPU (scan.wgsl; only the total comes back,
//! to size the next level), writes the children (expand.wgsl) and merges transpositions (merge.wgsl);
//! positions found in the cache are not expanded (cache_probe.wgsl). The last level is bulk-counted without
//! writing children. Counts then flow back up (backprop.wgsl: every copy of a merged position adds its
//! representative's count to its own parent), expanded subtrees are stored in the cache (cache_store.wgsl),
//! and each root's exact u64 count is read back.
//!
//! When a level would not fit the memory budget the run stops and the host splits the work depth-first
//! ([`subtree_counts`]): a batch of roots into smaller batches, a single root into its children one ply
//! deeper. Totals are summed in u128.

use super::buffers::{GpuParams, GpuPos};
use super::context::{GpuContext, Kernel, SLOT_BYTES};
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
    /// Use the subtree cache (when the context has one).
    pub cache: bool,
    /// Memory budget in bytes for the level buffers of one run.
    pub budget_bytes: u64,
    /// Deepest tree one run counts ([`MAX_RUN_DEPTH`]; smaller in tests of the host split).
    pub max_run_depth: u32,
}

impl Settings {
    fn budget_slots(&self) -> u64 {
        (self.budget_bytes / SLOT_BYTES).max(1024)
    }
}

/// Outcome of one run.
enum Tree {
    /// Per-root counts, and in statistics mode the leaf statistics.
    Done(Vec<u64>, Option<Box<Stats>>),
    /// A level would exceed the budget: `needed` positions in all levels together.
    Split { needed: u64 },
}

fn params(n: u64, remaining: u32, mode: u32, mask: u32) -> GpuParams {
    GpuParams {
        n: n as u32,
        remaining,
        mode,
        mask,
        ..GpuParams::default()
    }
}

/// One breadth-first run over `roots` to `depth` (≥ 1). In statistics mode the leaves are written and their
/// statistics summed; merging and the cache are off there.
fn run_tree(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    stats: bool,
    s: &Settings,
) -> Result<Tree> {
    let n0 = roots.len() as u64;
    let cap = ctx.max_level_positions().min(s.budget_slots());
    if n0 > cap {
        return Ok(Tree::Split { needed: n0 });
    }
    let merge = s.merge && !stats;
    let cache_on = s.cache && !stats && ctx.cache.is_some();
    ctx.ensure_level(0, n0);
    let mask = ctx.ensure_table(64);
    {
        let lv = &ctx.levels[0];
        ctx.upload(&lv.pos, bytemuck::cast_slice(roots));
        let table = &ctx.table.as_ref().expect("table allocated").0;
        ctx.dispatch(
            Kernel::Merge,
            params(n0, depth, 0, mask),
            &[&lv.pos, table, &lv.rep, &lv.flags],
        )?;
    }
    let mut sizes = vec![n0];
    let mut used = n0;
    let mut bulk = false;
    let mut leaf_stats = None;
    let mut l = 0usize;
    loop {
        let n = sizes[l];
        let remaining = depth - l as u32;
        {
            let lv = &ctx.levels[l];
            ctx.clear(&lv.sub, n * 8);
            if cache_on && remaining >= 2 {
                let cache = ctx.cache.as_ref().expect("cache on");
                ctx.dispatch(
                    Kernel::CacheProbe,
                    params(n, remaining, 0, cache.len - 1),
                    &[&lv.pos, &lv.flags, &lv.sub, &cache.entries],
                )?;
            }
            // Leaves in statistics mode only need "any legal move?" (mate, stalemate).
            let first_only = stats && remaining == 0;
            ctx.dispatch(
                Kernel::Count,
                params(n, remaining, first_only as u32, 0),
                &[&lv.pos, &lv.flags, &lv.counts],
            )?;
            if stats && remaining == 0 {
                ctx.clear(&ctx.dummy, 64);
                ctx.dispatch(
                    Kernel::Stats,
                    params(n, 0, 0, 0),
                    &[&lv.info, &lv.counts, &ctx.dummy],
                )?;
                let t = ctx.download_u32(&ctx.dummy, 9)?;
                let t: Vec<u64> = t.into_iter().map(u64::from).collect();
                // The kernel's nine totals are the CPW columns, in `Detail::Cpw` order.
                let mut v = Stats::default();
                for (&c, n) in Detail::Cpw.columns().iter().zip(t) {
                    v[c] = n as u128;
                }
                leaf_stats = Some(Box::new(v));
                break;
            }
            if !stats && remaining == 1 {
                bulk = true;
                break;
            }
        }
        let (counts, offsets) = (ctx.levels[l].counts.clone(), ctx.levels[l].offsets.clone());
        let total = gpu_scan(ctx, &counts, &offsets, n)?;
        if total == 0 {
            break;
        }
        if total > cap || used + total > s.budget_slots() {
            return Ok(Tree::Split {
                needed: used + total,
            });
        }
        ctx.ensure_level(l + 1, total);
        let mask = ctx.ensure_table(2 * total);
        {
            let (lv, next) = (&ctx.levels[l], &ctx.levels[l + 1]);
            ctx.dispatch(
                Kernel::Expand,
                params(n, remaining, (stats && remaining == 1) as u32, 0),
                &[
                    &lv.pos,
                    &lv.flags,
                    &lv.offsets,
                    &next.pos,
                    &next.parents,
                    &next.info,
                ],
            )?;
            let table = &ctx.table.as_ref().expect("table allocated").0;
            if merge {
                ctx.clear(table, (mask as u64 + 1) * 4);
            }
            ctx.dispatch(
                Kernel::Merge,
                params(total, remaining - 1, merge as u32, mask),
                &[&next.pos, table, &next.rep, &next.flags],
            )?;
        }
        sizes.push(total);
        used += total;
        l += 1;
    }
    let last = l;
    if stats {
        let leaves = if depth as usize == last {
            sizes[last]
        } else {
            0
        };
        return Ok(Tree::Done(
            vec![leaves],
            leaf_stats.or_else(|| Some(Box::default())),
        ));
    }
    // Counts flow up, level by level.
    for c in (1..=last).rev() {
        let (child, parent) = (&ctx.levels[c], &ctx.levels[c - 1]);
        let leaf = c == last && bulk;
        let values = if leaf { &child.counts } else { &child.sub };
        ctx.dispatch(
            Kernel::Backprop,
            params(sizes[c], 0, leaf as u32, 0),
            &[&child.parents, &child.rep, values, &parent.sub],
        )?;
    }
    if cache_on {
        let cache = ctx.cache.as_ref().expect("cache on");
        for (l, &n) in sizes.iter().enumerate() {
            let remaining = depth - l as u32;
            if remaining < 2 {
                continue;
            }
            let lv = &ctx.levels[l];
            ctx.clear(&cache.locks, cache.len as u64 * 4);
            ctx.dispatch(
                Kernel::CacheStore,
                params(n, remaining, 0, cache.len - 1),
                &[&lv.pos, &lv.flags, &lv.sub, &cache.entries, &cache.locks],
            )?;
        }
    }
    let root = &ctx.levels[0];
    let counts = if last == 0 && bulk {
        ctx.download_u32(&root.counts, n0)?
            .into_iter()
            .map(u64::from)
            .collect()
    } else {
        let w = ctx.download_u32(&root.sub, 2 * n0)?;
        w.chunks(2)
            .map(|p| p[0] as u64 | (p[1] as u64) << 32)
            .collect()
    };
    Ok(Tree::Done(counts, None))
}

/// Exclusive prefix sum of the `n` u32 values of `input` into `output`, on the GPU (blocks of 256, recursing
/// on the block sums); returns the total. Level sizes are capped so that it fits u32.
fn gpu_scan(
    ctx: &mut GpuContext,
    input: &wgpu::Buffer,
    output: &wgpu::Buffer,
    n: u64,
) -> Result<u64> {
    let blocks = n.div_ceil(256);
    let sums = ctx.buffer("block sums", blocks * 4);
    ctx.dispatch(Kernel::Scan, params(n, 0, 0, 0), &[input, output, &sums])?;
    if blocks == 1 {
        return Ok(ctx.download_u32(&sums, 1)?[0] as u64);
    }
    let sum_offsets = ctx.buffer("block offsets", blocks * 4);
    let total = gpu_scan(ctx, &sums, &sum_offsets, blocks)?;
    ctx.dispatch(Kernel::ScanAdd, params(n, 0, 0, 0), &[&sum_offsets, output])?;
    Ok(total)
}

/// How many parts to split a batch of `n` roots into when a run needed `needed` slots.
fn parts(n: usize, needed: u64, ctx: &GpuContext, s: &Settings) -> usize {
    let cap = ctx.max_level_positions().min(s.budget_slots()).max(1);
    ((needed / cap) as usize + 1).clamp(2, n)
}

/// The children of `root` in the order of the GPU's move list.
fn children(ctx: &mut GpuContext, root: &Setup) -> Result<Vec<Setup>> {
    let moves = legal_moves(ctx, std::slice::from_ref(root))?
        .pop()
        .unwrap_or_default();
    Ok(moves.iter().map(|&m| reference::play(root, m)).collect())
}

/// Deepest tree one run counts: its per-root counts are u64 on the GPU, and perft 11 of any realistic position
/// is far below 2^64 (startpos: 2.1e15). Deeper trees are split on the host, with u128 sums.
pub const MAX_RUN_DEPTH: u32 = 11;

/// The perft count of each root to `depth`, splitting depth-first whenever a run does not fit the budget.
///
/// # Errors
/// A GPU failure ([`crate::Error::Backend`]).
pub fn subtree_counts(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<Vec<u128>> {
    if depth == 0 || roots.is_empty() {
        return Ok(vec![1; roots.len()]);
    }
    if depth > s.max_run_depth.clamp(1, MAX_RUN_DEPTH) {
        let mut out = Vec::with_capacity(roots.len());
        for root in roots {
            let kids = children(ctx, root)?;
            out.push(subtree_counts(ctx, &kids, depth - 1, s)?.iter().sum());
        }
        return Ok(out);
    }
    let gpu: Vec<GpuPos> = roots.iter().map(GpuPos::from_setup).collect();
    match run_tree(ctx, &gpu, depth, false, s)? {
        Tree::Done(counts, _) => Ok(counts.into_iter().map(u128::from).collect()),
        Tree::Split { needed } if roots.len() > 1 => {
            let size = roots.len().div_ceil(parts(roots.len(), needed, ctx, s));
            let mut out = Vec::with_capacity(roots.len());
            for chunk in roots.chunks(size) {
                out.extend(subtree_counts(ctx, chunk, depth, s)?);
            }
            Ok(out)
        }
        Tree::Split { .. } => {
            let kids = children(ctx, &roots[0])?;
            let counts = subtree_counts(ctx, &kids, depth - 1, s)?;
            Ok(vec![counts.iter().sum()])
        }
    }
}

/// Leaf count and CPW statistics of the trees below `roots` (summed), split like [`subtree_counts`].
///
/// # Errors
/// A GPU failure.
pub fn tree_stats(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<(u128, Stats)> {
    if depth == 0 || roots.is_empty() {
        return Ok((roots.len() as u128, Stats::default()));
    }
    let gpu: Vec<GpuPos> = roots.iter().map(GpuPos::from_setup).collect();
    match run_tree(ctx, &gpu, depth, true, s)? {
        Tree::Done(leaves, stats) => Ok((
            leaves.iter().map(|&n| n as u128).sum(),
            stats.map_or_else(Stats::default, |s| *s),
        )),
        Tree::Split { needed } if roots.len() > 1 => {
            let size = roots.len().div_ceil(parts(roots.len(), needed, ctx, s));
            let mut total = (0u128, Stats::default());
            for chunk in roots.chunks(size) {
                let (n, st) = tree_stats(ctx, chunk, depth, s)?;
                total = (total.0 + n, total.1 + st);
            }
            Ok(total)
        }
        Tree::Split { .. } => {
            let kids = children(ctx, &roots[0])?;
            tree_stats(ctx, &kids, depth - 1, s)
        }
    }
}

/// Positions per `moves.wgsl` dispatch.
const MOVE_BATCH: usize = 16384;

/// The legal moves of each position, from the GPU kernel.
///
/// # Errors
/// A GPU failure.
pub fn legal_moves(ctx: &mut GpuContext, setups: &[Setup]) -> Result<Vec<Vec<Move>>> {
    let mut out = Vec::with_capacity(setups.len());
    for chunk in setups.chunks(MOVE_BATCH) {
        let n = chunk.len() as u64;
        let gpu: Vec<GpuPos> = chunk.iter().map(GpuPos::from_setup).collect();
        ctx.ensure_level(0, n);
        let mask = ctx.ensure_table(64);
        let counts = {
            let lv = &ctx.levels[0];
            ctx.upload(&lv.pos, bytemuck::cast_slice(&gpu));
            let table = &ctx.table.as_ref().expect("table allocated").0;
            ctx.dispatch(
                Kernel::Merge,
                params(n, 1, 0, mask),
                &[&lv.pos, table, &lv.rep, &lv.flags],
            )?;
            ctx.dispatch(
                Kernel::Count,
                params(n, 1, 0, 0),
                &[&lv.pos, &lv.flags, &lv.counts],
            )?;
            ctx.download_u32(&lv.counts, n)?
        };
        let mut offsets = Vec::with_capacity(counts.len());
        let mut total = 0u32;
        for &c in &counts {
            offsets.push(total);
            total += c;
        }
        let moves = ctx.buffer("move lists", total as u64 * 4);
        let lv = &ctx.levels[0];
        ctx.upload(&lv.offsets, bytemuck::cast_slice(&offsets));
        ctx.dispatch(
            Kernel::Moves,
            params(n, 1, 0, 0),
            &[&lv.pos, &lv.offsets, &moves],
        )?;
        let lists = ctx.download_u32(&moves, total as u64)?;
        for (&o, &c) in offsets.iter().zip(&counts) {
            let (o, c) = (o as usize, c as usize);
            out.push(lists[o..o + c].iter().map(|&m| Move(m as u16)).collect());
        }
    }
    Ok(out)
}
