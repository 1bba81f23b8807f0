//! Counting over the GPUs: the entry points that plan a count ([`subtree_counts`], [`pool_counts`],
//! [`tree_stats`], [`legal_moves`]) and hand its GPU runs ([`super::executor`]) to one adapter or to several
//! ([`Gpus::Many`], native only), which take the units' positions in pieces, one thread each (faster adapters
//! take more). Totals are summed in u128.

use super::buffers::GpuPos;
use super::context::GpuContext;
use super::executor::{deepening, params, run_tree, CountMode, MergeMode, RunKind};
use super::kernels::Kernel;
use super::memory::room_for_roots;
use super::planner::{
    host_plies, plan_deeper as make_plan, stop_if_asked, Counting, GpuProgress, Progress, Settings,
    MAX_UNITS, MAX_UNIT_LEAVES, MIN_UNIT_LEAVES,
};
#[cfg(not(target_arch = "wasm32"))]
use crate::backend::Stats;
use crate::error::Result;
use crate::position::Setup;
use crate::types::Move;

/// The perft count of each root to `depth`. Planned before running: the top plies above what one run may
/// count (and at least [`Settings::host_plies`]) are expanded on the host (host levels, with the host table),
/// batches of roots
/// larger than one level may hold are cut into chunks; inside a run, levels too large for the budget are
/// expanded in slices, so no run is abandoned. Blocking ([`subtree_counts_async`] under
/// [`super::device::block_on`]).
///
/// # Errors
/// A GPU failure ([`crate::Error::Backend`]), or a budget too small for one position's moves.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub fn subtree_counts(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<Vec<u128>> {
    let device = ctx.device().handle();
    super::device::block_on(
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
#[cfg(test)]
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
pub struct PoolDevice {
    /// The adapter's context.
    pub ctx: std::sync::Mutex<GpuContext>,
    /// Its settings (merging and tables alike for all; its own level budget).
    pub settings: Settings,
}

impl PoolDevice {
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
    Many(&'a [PoolDevice]),
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

    /// [`gpu_runs`] over `roots`, spread over the adapters (several adapters: one blocking thread each; with
    /// [`RunKind::Total`], one total per piece).
    async fn runs(&mut self, roots: &[GpuPos], depth: u32, kind: RunKind) -> Result<Vec<u128>> {
        match self {
            Gpus::One(ctx, s) => gpu_runs(ctx, roots, depth, kind, s).await,
            #[cfg(not(target_arch = "wasm32"))]
            Gpus::Many(d) => Ok(spread(d, roots, |ctx, part, s| {
                let device = ctx.device().handle();
                super::device::block_on(&device, gpu_runs(ctx, part, depth, kind, s))
            })?
            .into_iter()
            .flatten()
            .collect()),
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
    devices: &[PoolDevice],
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
    let plies = host_plies(&s, depth);
    if s.totals_only() && roots.len() > 1 {
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
            let c = run_plan(
                gpus,
                std::slice::from_ref(r),
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
    run_plan(gpus, roots, depth, plies, units, progress).await
}

/// Count one [`Plan`](super::planner::Plan) of `roots` to `depth`: its units on the GPUs, `progress` told
/// before the first and after each, then the host levels folded; with the tables on every finished count
/// goes to the host table.
async fn run_plan(
    gpus: &mut Gpus<'_>,
    roots: &[Setup],
    depth: u32,
    plies: u32,
    units: usize,
    progress: Progress<'_>,
) -> Result<Vec<u128>> {
    let s = gpus.settings();
    let want = gpus.min_frontier();
    // While the big kernels are not built (in the browser, before the page has compiled them), the host
    // expands small trees down to remaining 1, so the GPU runs only the cheap kernels.
    let planned = |gpus: &mut Gpus<'_>, units: usize| {
        gpus.host(|ctx| {
            let deepen = deepening(ctx, &s);
            make_plan(
                roots,
                depth,
                plies,
                &s,
                want,
                units,
                ctx.host_table_mut(),
                deepen,
            )
        })
    };
    let mut plan = planned(gpus, units)?;
    if units > 1 {
        // Units of at most about MAX_UNIT_LEAVES leaves (progress, and so a cancel, comes between units):
        // when the last host level has fewer positions than that needs, the host expands deeper.
        let most = ((most_leaves(&plan) / MAX_UNIT_LEAVES).ceil() as usize).min(MAX_UNITS);
        if most > units && most > plan.gpu_positions() && plan.remaining() > 1 {
            plan = planned(gpus, most)?;
        }
        // And of at least about MIN_UNIT_LEAVES leaves: a small count needs few.
        let least = (plan.estimated_leaves() / MIN_UNIT_LEAVES).ceil() as usize;
        let big = (most_leaves(&plan) / MAX_UNIT_LEAVES).ceil() as usize;
        plan.set_units(least.min(units.max(big)).clamp(1, MAX_UNITS));
    }
    gpus.host(|ctx| ctx.note_host_positions(plan.expanded()));
    let remaining = plan.remaining();
    let all = plan.units() as u64;
    let mut nodes = plan.known_nodes();
    stop_if_asked(progress(GpuProgress {
        done: 0,
        total: all,
        nodes,
    }))?;
    if plan.counting() == Counting::Total {
        // One root, nothing merged: its count is the sum of the last host level's (each reached once).
        for k in 0..plan.units() {
            nodes += gpus
                .runs(&plan.unit_batch(k), remaining, RunKind::Total)
                .await?
                .iter()
                .sum::<u128>();
            stop_if_asked(progress(GpuProgress {
                done: k as u64 + 1,
                total: all,
                nodes,
            }))?;
        }
        return Ok(vec![nodes]);
    }
    for k in 0..plan.units() {
        let counts = gpus
            .runs(&plan.unit_batch(k), remaining, RunKind::Counts)
            .await?;
        nodes += gpus.host(|ctx| plan.finish_unit(k, &counts, &mut keeper(ctx, &s)));
        stop_if_asked(progress(GpuProgress {
            done: k as u64 + 1,
            total: all,
            nodes,
        }))?;
    }
    Ok(gpus.host(|ctx| plan.fold(&mut keeper(ctx, &s))))
}

/// [`Plan::estimated_leaves`](super::planner::Plan::estimated_leaves) with at least 30 moves a position: the
/// opening's first plies have fewer moves than the tree below them (the start position's perft 7 was
/// estimated at a quarter of its leaves), and the cap on a unit's leaves must not be met by underestimating.
fn most_leaves(plan: &super::planner::Plan) -> f64 {
    let n = plan.gpu_positions().max(1) as f64;
    let r = plan.remaining() as i32;
    let branching = (plan.estimated_leaves() / n).powf(1.0 / f64::from(r.max(1)));
    n * branching.max(30.0).powi(r)
}

/// Keep finished subtree counts in the host table (with the tables on; emptied when it is full).
fn keeper<'a>(
    ctx: &'a mut GpuContext,
    s: &Settings,
) -> impl FnMut(super::memory::HostKey, u128) + 'a {
    let on = s.cache;
    move |key, count| {
        if on {
            ctx.host_table_mut().insert(key, count);
        }
    }
}

/// GPU runs over `roots` to `depth` (≤ [`super::memory::MAX_RUN_DEPTH`]), in chunks that one level may hold:
/// each root's count ([`RunKind::Counts`]), or one total ([`RunKind::Total`]: the one-total mode, no
/// per-position counts; merging and tables off).
async fn gpu_runs(
    ctx: &mut GpuContext,
    roots: &[GpuPos],
    depth: u32,
    kind: RunKind,
    s: &Settings,
) -> Result<Vec<u128>> {
    let total = kind == RunKind::Total;
    if depth == 0 {
        return Ok(if total {
            vec![roots.len() as u128]
        } else {
            vec![1; roots.len()]
        });
    }
    let chunk = room_for_roots(ctx.device().limits(), s.budget_bytes, depth) as usize;
    let mut out = Vec::with_capacity(if total { 1 } else { roots.len() });
    let mut sum = 0u128;
    for part in roots.chunks(chunk) {
        ctx.note_run(part.len());
        let (counts, _) = run_tree(ctx, part, depth, kind, s).await?;
        if total {
            sum += counts.iter().sum::<u128>();
        } else {
            out.extend(counts);
        }
    }
    if total {
        out.push(sum);
    }
    Ok(out)
}

/// Leaf count and CPW statistics of the trees below `roots` (summed), planned like [`subtree_counts`];
/// blocking ([`tree_stats_async`] under [`super::device::block_on`]).
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
    let device = ctx.device().handle();
    super::device::block_on(&device, tree_stats_async(ctx, roots, depth, s))
}

/// [`tree_stats`], asynchronous.
///
/// # Errors
/// A GPU failure.
#[cfg(not(target_arch = "wasm32"))]
pub async fn tree_stats_async(
    ctx: &mut GpuContext,
    roots: &[Setup],
    depth: u32,
    s: &Settings,
) -> Result<(u128, Stats)> {
    if depth == 0 || roots.is_empty() {
        return Ok((roots.len() as u128, Stats::default()));
    }
    let chunk = room_for_roots(ctx.device().limits(), s.budget_bytes, depth + 2) as usize;
    let mut total = (0u128, Stats::default());
    for part in roots.chunks(chunk) {
        let gpu: Vec<GpuPos> = part.iter().map(GpuPos::from_setup).collect();
        ctx.note_run(gpu.len());
        let (leaves, st) = run_tree(ctx, &gpu, depth, RunKind::Stats, s).await?;
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
            let lv = ctx.level(0);
            ctx.device().upload(&lv.pos, bytemuck::cast_slice(&gpu))?;
            ctx.device().dispatch(
                Kernel::Merge,
                1,
                params(n, 1, MergeMode::Flags as u32, mask),
                &[&lv.pos, ctx.merge_table(), &lv.rep, &lv.flags, ctx.tally()],
                n * 8,
            )?;
            ctx.device().dispatch(
                Kernel::Count,
                1,
                params(n, 1, CountMode::All as u32, 0),
                &[&lv.pos, &lv.flags, &lv.counts],
                n * 4,
            )?;
            ctx.device().read_u32(&lv.counts, 0, n).await?
        };
        let mut offsets = Vec::with_capacity(counts.len());
        let mut total = 0u32;
        for &c in &counts {
            offsets.push(total);
            total += c;
        }
        let moves = ctx.buffer("move lists", total as u64 * 4);
        let lv = ctx.level(0);
        ctx.device()
            .upload(&lv.offsets, bytemuck::cast_slice(&offsets))?;
        ctx.device().dispatch(
            Kernel::Moves,
            1,
            params(n, 1, 0, 0),
            &[&lv.pos, &lv.offsets, &moves],
            total as u64 * 4,
        )?;
        let lists = ctx.device().read_u32(&moves, 0, total as u64).await?;
        for (&o, &c) in offsets.iter().zip(&counts) {
            let (o, c) = (o as usize, c as usize);
            out.push(lists[o..o + c].iter().map(|&m| Move(m as u16)).collect());
        }
    }
    Ok(out)
}
