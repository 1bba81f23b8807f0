//! The transposition tables and the host table: the Rust twins of the WGSL table hashes against the kernels,
//! slots independent of the check, eviction, buffer groups, tables beyond one storage binding.

use super::{gpu, gpu_with, options, settings};
use crate::backend::Backend;
use crate::cpw::KIWIPETE;
use crate::gpu::context::GpuContext;
use crate::gpu::GpuOptions;
use crate::position::Setup;
use crate::Checked;

/// Transposition tables of 1024 entries (512 for remaining depth 2) under startpos perft 5 and Kiwipete perft 4
/// (8,902 and 2,039 positions stored at remaining depth 2 alone): entries are evicted all the time, counts stay
/// exact, and the second run of each finds hits there.
#[test]
fn cache_forced_eviction_stays_exact() {
    if gpu("cache_forced_eviction").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.ensure_cache_entries(1024);
    let s = settings(true, true, 64 << 20);
    let roots = [
        Setup::startpos(),
        Setup::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap(),
    ];
    for _ in 0..2 {
        // The host table would answer the repeated roots: empty it, so the GPU tables are probed.
        ctx.host_table_mut().clear();
        let five = crate::gpu::pool::subtree_counts(&mut ctx, &roots[..1], 5, &s).unwrap();
        let four = crate::gpu::pool::subtree_counts(&mut ctx, &roots[1..], 4, &s).unwrap();
        // CPW "Perft Results": startpos perft 5, Kiwipete perft 4.
        assert_eq!((five[0], four[0]), (4_865_609, 4_085_603));
    }
    let r = ctx.report().unwrap();
    assert!(r.levels.iter().any(|l| l.cache_hits > 0), "{r:?}");
    assert_eq!(r.retries, 0);
}

/// Distinct positions: startpos to ply 3 and Kiwipete to ply 2 (reference generator), in a fixed order.
/// Level 0 holds the positions `set`, every one live (flag 1), with the subtree counts `sub`.
fn load_level(ctx: &GpuContext, set: &[crate::gpu::buffers::GpuPos], sub: &[u64]) {
    let lv = ctx.level(0);
    let ones = vec![1u32; set.len()];
    let device = ctx.device();
    device.upload(&lv.pos, bytemuck::cast_slice(set)).unwrap();
    device
        .upload(&lv.flags, bytemuck::cast_slice(&ones))
        .unwrap();
    device.upload(&lv.sub, bytemuck::cast_slice(sub)).unwrap();
}

fn some_positions() -> Vec<crate::gpu::buffers::GpuPos> {
    use crate::gpu::buffers::GpuPos;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut frontier = vec![
        (Setup::startpos(), 3),
        (Setup::from_fen(KIWIPETE.fen).unwrap(), 2),
    ];
    while let Some((p, plies)) = frontier.pop() {
        if seen.insert(GpuPos::from_setup(&p)) {
            out.push(GpuPos::from_setup(&p));
        }
        if plies > 0 {
            for m in crate::reference::legal_moves(&p) {
                frontier.push((crate::reference::play(&p, m), plies - 1));
            }
        }
    }
    out
}

/// The transposition-table slot (buffer and entry) is chosen by hashes independent of the 64-bit check: among
/// positions that share a slot, the check words agree in the bits that would have chosen it (the entry index
/// modulo the buffer's size, the buffer modulo the table's buffers) only as often as chance says. Before this
/// test the slot WAS those bits (entry = second check word mod size, buffer = first word's bits 1.. mod
/// buffers), so every position met in a slot agreed with the probe in them and the check had only
/// ≈ 63 − log2(entries) independent bits; here that fraction would be 1. Runs the Rust twins of the WGSL hash
/// functions (`tt_key`, `tt_slot`: `tt_mirror_matches_the_kernels` checks them against the kernels). Also:
/// the four seeds differ at every remaining depth. No GPU needed.
#[test]
fn tt_slot_is_independent_of_the_check() {
    use crate::gpu::buffers::{tt_key, tt_seeds, tt_slot};
    for r in crate::gpu::memory::CACHE_DEPTHS {
        let s = tt_seeds(r);
        for i in 0..4 {
            for j in 0..i {
                assert_ne!(s[i], s[j], "remaining {r}: seeds {j} and {i}");
            }
        }
    }
    let positions = some_positions();
    assert!(positions.len() > 5000, "{}", positions.len());
    for (r, parts, len) in [(2, 1, 64), (2, 3, 61), (3, 7, 128), (5, 2, 1000)] {
        let mut by_slot: std::collections::HashMap<(u32, u32), Vec<[u32; 2]>> = Default::default();
        for p in &positions {
            by_slot
                .entry(tt_slot(p, r, parts, len))
                .or_default()
                .push(tt_key(p, r));
        }
        let (mut pairs, mut agree) = (0u64, 0u64);
        for keys in by_slot.values() {
            for (i, a) in keys.iter().enumerate() {
                for b in &keys[..i] {
                    pairs += 1;
                    let old_slot = |k: &[u32; 2]| ((k[0] >> 1) % parts, k[1] % len);
                    agree += u64::from(old_slot(a) == old_slot(b));
                }
            }
        }
        // Chance: 1 / (parts × len) of the pairs; allow four times that (and a few pairs).
        let chance = pairs as f64 / f64::from(parts * len);
        assert!(
            pairs > 1000,
            "remaining {r}, {parts} × {len}: {pairs} pairs"
        );
        assert!(
            (agree as f64) < 4.0 * chance + 8.0,
            "remaining {r}, {parts} × {len}: {agree} of {pairs} same-slot pairs agree in the old slot bits \
             (chance ≈ {chance:.0})"
        );
        // The slots are spread: no entry holds more than a few times its share.
        let most = by_slot.values().map(Vec::len).max().unwrap();
        let share = positions.len() as f64 / f64::from(parts * len);
        assert!((most as f64) < 3.0 * share + 10.0, "{most} vs {share:.1}");
    }
}

/// The Rust twins of the WGSL table hashes (`tt_key`, `tt_slot` in `src/gpu/buffers.rs`) agree with the
/// kernels, and a table of several buffer groups is filled and probed group by group: 1,000 positions stored
/// (remaining depth 2, 64-bit counts) in a table of six buffers of 1,024 entries (two groups, the second short)
/// lie exactly at the slots the twins give, with the check the twins give XOR the count, and nowhere else; a
/// probe finds each of them (positions alone in their slot) with its count; the same positions probed at
/// remaining depth 3 and 1,000 other positions at depth 2 (many sharing a slot with a stored one) all miss.
#[test]
fn tt_mirror_matches_the_kernels() {
    use crate::gpu::buffers::{tt_key, tt_slot, GpuCacheEntry};
    use crate::gpu::executor::table_pass;
    use crate::gpu::kernels::Kernel;
    if gpu("tt_mirror").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.set_table_buffer_bytes(Some(16 * 1024));
    // split_cache: remaining 2 gets 6,144 entries (six buffers of 1,024), 3 gets 3,072 (three).
    ctx.ensure_cache_entries(12_288);
    let (parts, len) = {
        let t = ctx.cache().unwrap().table(2).unwrap();
        (t.parts.len() as u32, t.len)
    };
    assert_eq!((parts, len), (6, 1024));
    let all = some_positions();
    let (stored, others) = (&all[..1000], &all[1000..2000]);
    let n = stored.len() as u64;
    let counts: Vec<u64> = (0..n).map(|i| i * 0x1_0000_0003 + 7).collect();
    let slots: Vec<(u32, u32)> = stored.iter().map(|p| tt_slot(p, 2, parts, len)).collect();
    let alone = |i: usize| slots.iter().filter(|&&s| s == slots[i]).count() == 1;
    ctx.ensure_level(0, n);
    load_level(&ctx, stored, &counts);
    table_pass(&ctx, 0, n, 2, Kernel::CacheStore).unwrap();
    let table = ctx.cache().unwrap().table(2).unwrap();
    let mut filled = std::collections::HashSet::new();
    for (b, buf) in table.parts.iter().enumerate() {
        let bytes = ctx.download(buf, u64::from(len) * 16).unwrap();
        let entries: Vec<GpuCacheEntry> = bytemuck::pod_collect_to_vec(&bytes);
        for (j, e) in entries.iter().enumerate() {
            if *e != GpuCacheEntry::default() {
                filled.insert((b as u32, j as u32));
            }
        }
        for (i, p) in stored.iter().enumerate() {
            if slots[i].0 != b as u32 || !alone(i) {
                continue;
            }
            let e = entries[slots[i].1 as usize];
            let c = counts[i];
            assert_eq!(e.count, [c as u32, (c >> 32) as u32], "position {i}");
            let key = tt_key(p, 2);
            assert_eq!(
                [e.check[0] ^ e.count[0], e.check[1] ^ e.count[1]],
                key,
                "position {i}"
            );
        }
    }
    let want: std::collections::HashSet<(u32, u32)> = slots.iter().copied().collect();
    assert_eq!(filled, want, "entries written outside the positions' slots");
    assert!(want.iter().any(|s| s.0 >= 4), "the second group was used");
    // Probe: the stored positions hit (those alone in their slot surely), at depth 3 nothing.
    let zeros = vec![0u64; n as usize];
    for (r, set, hits_expected) in [(2, stored, true), (3, stored, false), (2, others, false)] {
        load_level(&ctx, set, &zeros);
        let lv = ctx.level(0);
        table_pass(&ctx, 0, n, r, Kernel::CacheProbe).unwrap();
        let flags = ctx.download_u32(&lv.flags, n).unwrap();
        let sub: Vec<u64> = bytemuck::pod_collect_to_vec(&ctx.download(&lv.sub, n * 8).unwrap());
        for i in 0..n as usize {
            if hits_expected {
                if alone(i) {
                    assert_eq!((flags[i], sub[i]), (0, counts[i]), "position {i}");
                } else {
                    assert!(flags[i] == 1 || sub[i] == counts[i], "position {i}");
                }
            } else {
                assert_eq!(
                    (flags[i], sub[i]),
                    (1, 0),
                    "remaining {r}: false hit, position {i}"
                );
            }
        }
    }
    let shared = others
        .iter()
        .filter(|p| want.contains(&tt_slot(p, 2, parts, len)))
        .count();
    assert!(shared > 50, "{shared} other positions share a slot");
}

/// Any number of buffers per depth: with buffers capped at 240 KiB (`GpuOptions::table_buffer_bytes`), 4 MiB
/// of tables give remaining depth 2 nine buffers (three dispatch groups) and remaining 3 five (two groups);
/// start position perft 6 in a 1 MiB level budget (remaining 2 sliced, so later slices hit entries of earlier
/// ones) and Kiwipete perft 4 stay exact, with table hits at remaining 2; 4 KiB buffers make 512 of them at
/// remaining 2. Then tiny tables of 64-entry buffers (2,048 entries at remaining 2: 32 buffers, 8 groups)
/// evicting all the time: exact too. Counts: CPW "Perft Results".
#[test]
fn cache_many_buffer_groups_stay_exact() {
    let opts = GpuOptions {
        table_buffer_bytes: Some(240 << 10),
        ..options(true, 4, Some(1))
    };
    let Some(g) = gpu_with(opts, "cache_many_groups") else {
        return;
    };
    let start = Checked::new(Setup::startpos()).unwrap();
    let kiwipete = Checked::new(Setup::from_fen(KIWIPETE.fen).unwrap()).unwrap();
    assert_eq!(g.perft(&start, 6).unwrap(), 119_060_324);
    assert_eq!(g.perft(&kiwipete, 4).unwrap(), 4_085_603);
    let r = g.work_report().unwrap();
    assert!(
        r.levels
            .iter()
            .any(|l| l.remaining == 2 && l.cache_hits > 0),
        "{r:?}"
    );
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.set_table_buffer_bytes(Some(240 << 10));
    ctx.ensure_cache(4).unwrap();
    let c = ctx.cache().unwrap();
    let groups: Vec<(usize, usize)> = (2..=4)
        .map(|r| {
            (
                c.table(r).unwrap().parts.len(),
                c.table(r).unwrap().groups(),
            )
        })
        .collect();
    assert_eq!(groups, vec![(9, 3), (5, 2), (3, 1)]);
    drop(ctx);
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.set_table_buffer_bytes(Some(4 << 10));
    ctx.ensure_cache(4).unwrap();
    let c = ctx.cache().unwrap();
    let parts: Vec<usize> = (2..=4).map(|r| c.table(r).unwrap().parts.len()).collect();
    assert_eq!(parts, vec![512, 256, 128]);
    drop(ctx);
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.set_table_buffer_bytes(Some(64 * 16));
    ctx.ensure_cache_entries(4096);
    let c = ctx.cache().unwrap();
    assert_eq!(c.table(2).unwrap().parts.len(), 32);
    assert_eq!(c.table(2).unwrap().groups(), 8);
    let s = settings(true, true, 256 << 10);
    let roots = [Setup::startpos(), Setup::from_fen(KIWIPETE.fen).unwrap()];
    let five = crate::gpu::pool::subtree_counts(&mut ctx, &roots[..1], 5, &s).unwrap();
    let four = crate::gpu::pool::subtree_counts(&mut ctx, &roots[1..], 4, &s).unwrap();
    assert_eq!((five[0], four[0]), (4_865_609, 4_085_603));
    assert_eq!(ctx.report().unwrap().retries, 0);
}

/// The transposition tables are separate buffers, so their total may exceed one storage binding, and a
/// depth's share above one binding is split over several buffers: 320 MiB on lavapipe (128 MiB largest
/// binding) gives remaining 2 two buffers of 80 MiB and every other depth one, all distinct and each within
/// one binding, halving from remaining depth 2 down, never more than asked in all; the counts stay exact
/// with them (the same tables from the CLI, and a `--hash` beyond the adapter refused:
/// `cli_hash_tables_beyond_one_binding` in `tests/gpu.rs`).
#[test]
fn cache_tables_are_separate_buffers_beyond_one_binding() {
    if gpu("cache_tables_separate").is_none() {
        return;
    }
    let mut ctx = GpuContext::new(None).unwrap();
    let binding = ctx.device().limits().max_storage_buffer_binding_size;
    let mb = 320;
    let asked = mb << 20;
    if binding >= asked / 2 {
        eprintln!(
            "cache_tables_separate: the largest binding holds {} MiB: remaining depth 2 needs one buffer here",
            mb / 2
        );
    }
    ctx.ensure_cache(mb as usize).unwrap();
    let cache = ctx.cache().unwrap();
    let tables: Vec<_> = cache.tables.iter().flatten().collect();
    assert_eq!(tables.len(), 10);
    let buffers: Vec<_> = tables.iter().flat_map(|t| &t.parts).collect();
    for (i, b) in buffers.iter().enumerate() {
        assert!(b.size() <= binding);
        for u in &buffers[..i] {
            assert!(b != u, "buffers {i} shared");
        }
    }
    for t in &tables {
        for b in &t.parts {
            assert_eq!(b.size(), 16 * u64::from(t.len));
        }
    }
    let want_parts = (asked / 2).div_ceil(binding) as usize;
    assert_eq!(tables[0].parts.len(), want_parts);
    assert!(tables[1..].iter().all(|t| t.parts.len() == 1));
    assert!(tables[0].entries().abs_diff(2 * tables[1].entries()) <= 4);
    let total = cache.bytes();
    assert!(total <= asked + 48 && total > asked - (1 << 20), "{total}");
    let s = settings(true, true, 256 << 10);
    let counts = crate::gpu::pool::subtree_counts(&mut ctx, &[Setup::startpos()], 5, &s).unwrap();
    // CPW "Perft Results": startpos perft 5.
    assert_eq!(counts, vec![4_865_609]);
    let r = ctx.report().unwrap();
    assert!(r.peak_bytes >= total, "{r:?}");
    // The small level budget cuts the levels into slices: later slices find transpositions stored by
    // earlier ones in the split table of remaining 2.
    assert!(
        r.levels
            .iter()
            .any(|l| l.remaining == 2 && l.cache_hits > 0),
        "{r:?}"
    );
}
