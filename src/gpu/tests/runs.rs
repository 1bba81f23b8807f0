//! Counts through the driver (`pool::subtree_counts` on one context): host splitting and host levels, the
//! host table, levels sliced within a tiny budget, the merge table's generations, the fused leaves per side,
//! the one-total mode, levels scanned in chunks.

use super::{gpu, settings, Settings};
use crate::cpw::{KIWIPETE, POSITIONS};
use crate::gpu::context::GpuContext;
use crate::position::Setup;

/// Trees deeper than one run may count are split on the host by root move (u128 sums); with the limit set to
/// 2 plies, perft 5 goes through three levels of host splitting.
#[test]
fn host_split_above_run_depth_stays_exact() {
    if gpu("host_split").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.ensure_cache(4).unwrap();
    for (merge, cache) in [(true, true), (false, false)] {
        let s = Settings {
            max_run_depth: 2,
            ..settings(merge, cache, 64 << 20)
        };
        let roots = [
            Setup::startpos(),
            Setup::from_fen(POSITIONS[2].fen).unwrap(),
        ];
        let counts = crate::gpu::pool::subtree_counts(&mut ctx, &roots, 5, &s).unwrap();
        assert_eq!(counts, vec![4_865_609, 674_624]);
    }
}

/// Host levels with the host table: startpos perft 6 with the top 3 plies expanded on the host (transpositions
/// merged: 8,902 positions at ply 3, 5,362 distinct) and counted in GPU runs; then the 20 root moves to depth 5
/// (as `--divide` asks) and Kiwipete perft 4 twice: the root moves and the repeated root come from the host
/// table. Counts from CPW ("Perft Results"; startpos perft 5 after each root move sums to perft 6).
#[test]
fn host_levels_and_host_table_stay_exact() {
    if gpu("host_table").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.ensure_cache(4).unwrap();
    let s = Settings {
        host_plies: 3,
        ..settings(true, true, 64 << 20)
    };
    let start = Setup::startpos();
    let six =
        crate::gpu::pool::subtree_counts(&mut ctx, std::slice::from_ref(&start), 6, &s).unwrap();
    assert_eq!(six, vec![119_060_324]);
    let r = ctx.report().unwrap();
    // Host levels: 1 + 20 + 400 positions expanded on the host; 5,362 distinct ply-3 positions in one GPU run.
    assert_eq!(
        (r.host_positions, r.host_hits, r.runs),
        (421, 0, 1),
        "{r:?}"
    );
    let kids: Vec<Setup> = crate::reference::legal_moves(&start)
        .into_iter()
        .map(|m| crate::reference::play(&start, m))
        .collect();
    let five = crate::gpu::pool::subtree_counts(&mut ctx, &kids, 5, &s).unwrap();
    assert_eq!(five.iter().sum::<u128>(), 119_060_324);
    let r = ctx.report().unwrap();
    assert_eq!(
        (r.host_hits, r.runs),
        (20, 1),
        "the root moves come from the host table: {r:?}"
    );
    let kiwipete = Setup::from_fen(KIWIPETE.fen).unwrap();
    for _ in 0..2 {
        let four =
            crate::gpu::pool::subtree_counts(&mut ctx, std::slice::from_ref(&kiwipete), 4, &s)
                .unwrap();
        assert_eq!(four, vec![4_085_603]);
    }
    let r = ctx.report().unwrap();
    assert!(r.host_hits > 20, "{r:?}");
    assert_eq!(r.retries, 0);
}

/// Inside a run, a level larger than the budget is expanded in slices: with a 256 KiB budget, perft 5 (8902
/// positions at remaining depth 2, 104 bytes each) cannot hold its last level at once; counts stay exact, the
/// run is not abandoned (one run per batch, no retries) and the buffers held stay below what the unsliced level
/// would need.
#[test]
fn levels_are_sliced_within_a_tiny_budget() {
    if gpu("levels_are_sliced").is_none() {
        return;
    }
    for merge in [true, false] {
        let mut ctx = GpuContext::new(None).unwrap();
        let s = settings(merge, false, 256 << 10);
        let roots = [
            Setup::startpos(),
            Setup::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
                .unwrap(),
        ];
        let counts = crate::gpu::pool::subtree_counts(&mut ctx, &roots, 4, &s).unwrap();
        // CPW "Perft Results": startpos perft 4, Kiwipete perft 4.
        assert_eq!(counts, vec![197_281, 4_085_603]);
        let counts = crate::gpu::pool::subtree_counts(&mut ctx, &roots[..1], 5, &s).unwrap();
        assert_eq!(counts, vec![4_865_609]);
        let r = ctx.report().unwrap();
        // One run per batch; without merging (and tables) each root is a run of its own (one-total mode).
        let runs = if merge { 2 } else { 3 };
        assert_eq!((r.runs, r.retries), (runs, 0), "{r:?}");
        let level2 = r.levels.iter().find(|l| l.remaining == 2).unwrap();
        // Remaining 2 of the perft-4 run: perft 2 of each root (400 + 2039); of the perft-5 run: perft 3 (8902).
        assert_eq!(level2.positions, 8902 + 400 + 2039, "{r:?}");
        // Sliced: the level buffers held at once stay below what the whole remaining-2 level would take
        // (the attack tables, a fixed 0.9 MiB outside the budget, are part of `peak_bytes`).
        let tables = (crate::gpu::attack_tables::LEN * 8) as u64;
        assert!(r.peak_bytes < 8902 * 104 + tables, "{r:?}");
    }
}

/// The merge table is not cleared per level: slots carry a generation tag (1–255) and the table is cleared
/// once when the tags wrap. 130 merged perft-4 runs on one context use 260 generations (the wrap), then perft 5
/// runs must still merge (ply 3 has transpositions) over the stale slots and stay exact.
#[test]
fn merge_table_generations_wrap_and_stay_exact() {
    if gpu("merge_table_generations").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    let s = settings(true, false, 64 << 20);
    let roots = [Setup::startpos()];
    for run in 0..130 {
        let counts = crate::gpu::pool::subtree_counts(&mut ctx, &roots, 4, &s).unwrap();
        // CPW "Perft Results": startpos perft 4.
        assert_eq!(counts, vec![197_281], "run {run}");
    }
    for run in 0..3 {
        let counts = crate::gpu::pool::subtree_counts(&mut ctx, &roots, 5, &s).unwrap();
        // CPW "Perft Results": startpos perft 5.
        assert_eq!(counts, vec![4_865_609], "run {run}");
    }
    let r = ctx.report().unwrap();
    let level2 = r.levels.iter().find(|l| l.remaining == 2).unwrap();
    // Remaining 2: 130 × perft 2 (400, all distinct) + 3 × perft 3 (8902 slots, fewer distinct).
    assert_eq!(level2.positions, 130 * 400 + 3 * 8902, "{r:?}");
    assert!(level2.distinct < level2.positions, "{r:?}");
}

/// The fused leaves run the kernel specialised for the side to move at remaining depth 2 (pipeline constant
/// `SIDE`) when all roots of a run share their side, else the generic one: each side alone (depth parity
/// selects the white or the black kernel) and a batch mixing sides give the published counts, with the
/// trusted and the checked builds. Counts: CPW "Perft Results" (start position; Position 4 mirrored, as in
/// data/tricky.perft, pos-4).
#[test]
fn fused_leaf_kernels_per_side_and_generic() {
    use crate::gpu::pool::subtree_counts;
    if gpu("fused_leaf_kernels_per_side_and_generic").is_none() {
        return;
    }
    let start = [Setup::startpos()];
    let mirrored =
        [
            Setup::from_fen("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1")
                .unwrap(),
        ];
    let both = [start[0].clone(), mirrored[0].clone()];
    for checked in [false, true] {
        let mut ctx = GpuContext::with_checks(None, checked).unwrap();
        for merge in [false, true] {
            let s = settings(merge, false, 64 << 20);
            let mut run =
                |roots: &[Setup], depth| subtree_counts(&mut ctx, roots, depth, &s).unwrap();
            assert_eq!(run(&start, 3), [8_902]); // black at remaining 2
            assert_eq!(run(&start, 4), [197_281]); // white
            assert_eq!(run(&mirrored, 2), [264]); // black
            assert_eq!(run(&mirrored, 3), [9_467]); // white
            assert_eq!(run(&both, 3), [8_902, 9_467]); // mixed: the generic kernel
            assert_eq!(run(&both, 2), [400, 264]);
        }
    }
}

// ---- leaf (issue 9): the fused kernel's one-total mode ----

/// Without merging and tables (`--no-merge --hash 0`) a run needs only its total: the fused kernel sums each
/// workgroup's counts and adds them to one accumulator, and no level keeps per-position counts. Through the
/// driver, a roomy and a tiny level budget (slices adding to the same accumulator) and the host split (a
/// root's total summed over its host-level positions) stay exact, with the trusted and the checked builds;
/// the bytes written drop below what per-position counts cost. (The suite and the divides in this mode, through
/// the backend: `one_total_mode_stays_exact_trusted_and_checked` in `tests/gpu.rs`.)
#[test]
fn one_total_mode_through_the_driver_trusted_and_checked() {
    use crate::gpu::memory::MAX_RUN_DEPTH;
    use crate::gpu::planner::Settings;
    use crate::gpu::pool::subtree_counts;
    if gpu("one_total_mode_through_the_driver").is_none() {
        return;
    }
    for checked in [false, true] {
        let mut ctx = GpuContext::with_checks(None, checked).unwrap();
        for (budget, max_run_depth) in [
            (64 << 20, MAX_RUN_DEPTH),
            (256 << 10, MAX_RUN_DEPTH),
            (64 << 20, 3),
        ] {
            let s = Settings {
                max_run_depth,
                ..settings(false, false, budget)
            };
            assert_start5_kiwi4(&mut ctx, &s);
        }
    }
    // Bytes: startpos perft 5 writes levels of 1, 20, 400 and 8,902 positions. Each written position costs 64
    // bytes (expand: the position; no parent index), 4 (merge pass: its flag; no representative) and, above
    // remaining 2, 4 + 4 (move count, prefix sum) plus the scan's block sums; the fused kernel at most 12 bytes
    // per workgroup. With per-position counts each position also cost 8 bytes more (parent, representative)
    // and each remaining-2 position 24 more (clear, count, back-propagation).
    let mut ctx = GpuContext::new(None).unwrap();
    let s = settings(false, false, 64 << 20);
    assert_eq!(
        subtree_counts(&mut ctx, &[Setup::startpos()], 5, &s).unwrap(),
        [4_865_609]
    );
    let r = ctx.report().unwrap();
    let written: u64 = r.levels.iter().map(|l| l.positions).sum();
    assert_eq!(written, 1 + 20 + 400 + 8902, "{r:?}");
    assert!(r.bytes_written <= 76 * written + 1024, "{r:?}");
    assert!(r.bytes_written > 68 * 8902, "{r:?}");
}

/// A level is prefix-summed and sliced in chunks (2^23 positions, so its u32 offsets cannot overflow however
/// large a binding lets the level be): with chunks forced down to 64 positions (lavapipe's levels never reach
/// one), merged or not, in a roomy and a tiny budget (slices inside chunks), and in statistics mode (every
/// level written), counts stay exact (CPW "Perft Results": startpos perft 5, Kiwipete perft 4; statistics of
/// startpos perft 4: 1,576 captures, 469 checks).
#[test]
fn levels_are_scanned_in_chunks() {
    use crate::gpu::pool::tree_stats;
    if gpu("levels_are_scanned_in_chunks").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.set_scan_chunk(64);
    let roots = [Setup::startpos(), Setup::from_fen(KIWIPETE.fen).unwrap()];
    for merge in [false, true] {
        for budget in [64 << 20, 256 << 10] {
            let s = settings(merge, false, budget);
            assert_start5_kiwi4(&mut ctx, &s);
        }
    }
    let s = settings(false, false, 64 << 20);
    let (leaves, stats) = tree_stats(&mut ctx, &roots[..1], 4, &s).unwrap();
    assert_eq!(leaves, 197_281);
    use crate::backend::Column;
    assert_eq!(
        (stats[Column::Captures], stats[Column::Checks]),
        (1_576, 469),
        "{stats:?}"
    );
    assert_eq!(ctx.report().unwrap().retries, 0);
}

/// Startpos perft 5 alone, then startpos and Kiwipete perft 4 as one batch of roots, through the driver with
/// settings `s` (CPW "Perft Results": 4,865,609; 197,281 and 4,085,603).
fn assert_start5_kiwi4(ctx: &mut GpuContext, s: &crate::gpu::planner::Settings) {
    use crate::gpu::pool::subtree_counts;
    let roots = [Setup::startpos(), Setup::from_fen(KIWIPETE.fen).unwrap()];
    assert_eq!(
        subtree_counts(ctx, &roots[..1], 5, s).unwrap(),
        [4_865_609],
        "{s:?}"
    );
    assert_eq!(
        subtree_counts(ctx, &roots, 4, s).unwrap(),
        [197_281, 4_085_603],
        "{s:?}"
    );
}
