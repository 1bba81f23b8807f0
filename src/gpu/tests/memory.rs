//! The memory policy: the device-memory query and the default tables, the split of `--hash` over the depths and
//! buffers, the host table's share of `--hash`, the level cap and the default level budget.

use super::{gpu, settings, Settings};
use crate::gpu::context::GpuContext;
use crate::position::Setup;

/// The device-memory query (Vulkan's device-local heaps) answers on a Vulkan adapter, and only a discrete GPU
/// gets the large default tables (3/4 of its memory less the level budget, within what `--hash` may take): a
/// software adapter (lavapipe, whose "device" memory is the host's) keeps 64 MiB.
#[test]
fn device_memory_and_default_tables() {
    if gpu("device_memory").is_none() {
        return;
    }
    let ctx = GpuContext::new(None).unwrap();
    if ctx.device().info().backend == wgpu::Backend::Vulkan {
        assert!(
            ctx.device().device_memory().is_some_and(|b| b >= 1 << 20),
            "{:?}",
            ctx.device().device_memory()
        );
    }
    let hash = ctx.device().facts().default_hash_mb(512);
    if ctx.device().info().device_type == wgpu::DeviceType::DiscreteGpu
        && ctx.device().device_memory().is_some()
    {
        assert!(hash as u64 <= ctx.device().facts().max_hash_mb().unwrap());
    } else {
        assert_eq!(hash, 64);
    }
    if ctx.device().info().device_type == wgpu::DeviceType::Cpu {
        // A software adapter's limit is the host's available memory, checked when the tables are made.
        assert_eq!(ctx.device().facts().max_hash_mb(), None);
    }
}

/// The split of `--hash` over the depths (halving, no cap per depth), and of a depth's share over its buffers
/// (the fewest equal buffers within the per-buffer limit, any number of them) (no GPU needed).
#[test]
fn cache_split_halves_and_never_exceeds_the_budget() {
    use crate::gpu::memory::{cache_parts, split_cache, CACHE_DEPTHS, CACHE_WEIGHTS};
    assert_eq!(CACHE_WEIGHTS.len(), CACHE_DEPTHS.count());
    // Remaining 2 gets half, 3 a quarter, …, the deepest two the same.
    let s = split_cache(512 << 10);
    assert_eq!(s[0], 256 << 10);
    assert_eq!(s[1], 128 << 10);
    assert_eq!(s[8], s[9]);
    assert_eq!(s.iter().sum::<u64>(), 512 << 10);
    // ≈ 100 GB of 16-byte entries (an H200's default): remaining 2 takes half, in 12 buffers of 4 GiB
    // bindings (2^28 entries), remaining 3 a quarter in 6: no cap on the buffers of a depth.
    let total = 100_000_000_000u64 / 16;
    let s = split_cache(total);
    let binding = 1u64 << 28;
    assert_eq!(cache_parts(s[0], binding), (12, s[0] / 12));
    assert_eq!(cache_parts(s[1], binding), (6, s[1] / 6));
    assert_eq!(cache_parts(s[2], binding).0, 3);
    // A share split into buffers: the fewest that hold it, equal, each within the limit, never more than
    // the share and nothing lost beyond rounding.
    let cap = 1000;
    assert_eq!(cache_parts(2500, cap), (3, 833));
    assert_eq!(cache_parts(1250, cap), (2, 625));
    assert_eq!(cache_parts(625, cap), (1, 625));
    for share in [0, 1, 999, 1000, 1001, 4000, 4001, 9999, 123_456, 1 << 40] {
        let (parts, len) = cache_parts(share, cap);
        assert!(
            parts >= 1 && len <= cap && parts * len <= share.max(len),
            "{share}: {parts} × {len}"
        );
        assert!(
            parts == 1 || (parts - 1) * cap < share,
            "{share}: {parts} × {len}: not the fewest"
        );
        assert!(parts * len + parts > share, "{share}: {parts} × {len}");
    }
    for total in [0, 1, 63, 1024, 12_345, 1 << 40, u64::MAX] {
        assert!(split_cache(total).iter().sum::<u64>() <= total);
    }
}

/// The host table is counted within `--hash`: an eighth of it, at most 32 MiB (2^18 buckets of 97 bytes,
/// 229,376 entries), the GPU tables the rest; a small `--hash` gives a smaller host table (none below 8 MiB:
/// 8 MiB hold 2^16 buckets of 97 bytes, not 2^17, so 57,344 entries), and counts stay exact with a host
/// table that is emptied again and again. (`--verbose` shows it: `cli_host_table_within_hash` in
/// `tests/gpu.rs`.)
#[test]
fn host_table_within_hash() {
    use crate::gpu::memory::{host_table_entries, host_table_mb, HOST_BUCKET_BYTES};
    assert_eq!(HOST_BUCKET_BYTES, 97);
    assert_eq!(
        [0, 7, 8, 64, 256, 100_000].map(host_table_mb),
        [0, 0, 1, 8, 32, 32]
    );
    assert_eq!(host_table_entries(32), 229_376);
    assert_eq!(host_table_entries(0), 0);
    assert_eq!(host_table_entries(8), 57_344);
    for mb in 1..=64 {
        let n = host_table_entries(mb) as u64;
        // 7/8 of a power of two of buckets, all within the share.
        assert!(n == 0 || (n * 8 / 7).is_power_of_two());
        assert!(n * 8 / 7 * HOST_BUCKET_BYTES <= mb << 20);
        assert!(host_table_entries(mb + 1) as u64 >= n);
    }
    if gpu("host_table_within_hash").is_none() {
        return;
    }
    // A host table of 1 MiB (7,168 entries) under host levels of 1 + 20 + 400 + 8,902 positions per run
    // (merging off, so none is merged): emptied when full, counts exact (CPW "Perft Results": startpos
    // perft 5 and 6), never above its bound.
    let mut ctx = GpuContext::new(None).unwrap();
    ctx.ensure_cache(4).unwrap();
    ctx.set_host_table_mb(1);
    assert_eq!(ctx.host_table_max(), 7_168);
    let s = Settings {
        host_plies: 3,
        ..settings(false, true, 64 << 20)
    };
    let start = [Setup::startpos()];
    for (depth, want) in [(5, 4_865_609u128), (6, 119_060_324)] {
        let got = crate::gpu::pool::subtree_counts(&mut ctx, &start, depth, &s).unwrap();
        assert_eq!(got, [want]);
        assert!(ctx.host_table().len() <= 7_168);
    }
}

/// The level cap and the default level budget (no GPU needed): lavapipe's limits (128 MiB bindings, 2 GiB
/// buffers, a CPU device) keep 2,097,152 positions and 512 MiB. wgpu-hal 30 caps every Vulkan storage binding
/// at 2^31 − 1 bytes (`MAX_I32_BINDING_SIZE`, wgpu issue #8105) even where the device reports 4 GiB (an H100
/// or H200), so a discrete GPU gets 33,554,431 positions per level (not 67 M) and, with 141 GB (an H200), two
/// such levels plus a quarter (7,487 MiB); a 24 GB one a quarter of its memory (6 GiB), one whose
/// memory is unknown 4 GiB. The 4 GiB binding a backend without that cap could give is kept as the second
/// case.
#[test]
fn level_cap_and_default_budget() {
    use crate::gpu::memory::{default_level_budget_mb, level_positions};
    use wgpu::DeviceType::{Cpu, DiscreteGpu};
    let lavapipe = wgpu::Limits {
        max_storage_buffer_binding_size: 128 << 20,
        max_buffer_size: (2 << 30) - 1,
        ..wgpu::Limits::default()
    };
    assert_eq!(level_positions(&lavapipe), 2_097_152);
    assert_eq!(default_level_budget_mb(&lavapipe, Cpu, Some(2 << 30)), 512);
    let h200 = 141_000_000_000u64;
    // What wgpu 30 reports for an H200 on Vulkan: the binding capped at i32::MAX, a large buffer.
    let vulkan = wgpu::Limits {
        max_storage_buffer_binding_size: i32::MAX as u64,
        max_buffer_size: 1 << 40,
        ..wgpu::Limits::default()
    };
    let cap = level_positions(&vulkan);
    assert_eq!(cap, 33_554_431);
    let budget = default_level_budget_mb(&vulkan, DiscreteGpu, Some(h200));
    assert_eq!(budget, (9 * cap * 104 / 4) >> 20);
    assert_eq!(budget, 7_487);
    assert_eq!(
        default_level_budget_mb(&vulkan, DiscreteGpu, Some(24 << 30)),
        6 << 10
    );
    assert_eq!(default_level_budget_mb(&vulkan, DiscreteGpu, None), 4096);
    // A 4 GiB binding (no such cap): ≈ 67 M positions, 14,975 MiB, a 24 GB card a quarter of its memory.
    let big = wgpu::Limits {
        max_storage_buffer_binding_size: u64::from(u32::MAX),
        max_buffer_size: 1 << 40,
        ..wgpu::Limits::default()
    };
    assert_eq!(level_positions(&big), 67_108_863);
    assert_eq!(
        default_level_budget_mb(&big, DiscreteGpu, Some(h200)),
        14_975
    );
    assert_eq!(
        default_level_budget_mb(&big, DiscreteGpu, Some(24 << 30)),
        6 << 10
    );
}
