// cache_probe.wgsl: look each position to be expanded up in the transposition table of its remaining depth.
// The table is `params.mode` buffers of `params.extra` entries each; a dispatch binds one GROUP of up to four
// of them (cache0 … cache3 are buffers `params.first` … `params.first + 3`), and the driver dispatches once
// per group, so a depth may have any number of buffers while the kernel binds 8 storage buffers (WebGPU's
// default per-stage limit). A position's buffer and entry come from `tt_slot` (common.wgsl: hashes
// independent of the key); a thread whose buffer is outside the bound group returns before hashing further
// or reading the table. Slots of the last group beyond the table's buffers are bound to tiny spare buffers
// and never read. A hit (stored check XOR count equal to the 64-bit key of `tt_key`: a torn entry fails it)
// presets the position's count and clears its flag, so its subtree is not expanded again (nor probed by the
// later groups' dispatches).

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> sub: array<u32>;
@group(0) @binding(5) var<storage, read> cache0: array<CacheEntry>;
@group(0) @binding(6) var<storage, read> cache1: array<CacheEntry>;
@group(0) @binding(7) var<storage, read> cache2: array<CacheEntry>;
@group(0) @binding(8) var<storage, read> cache3: array<CacheEntry>;
// Cache hits per remaining depth: 64-bit counters as (lo, hi) at [2 * remaining] (src/gpu/report.rs).
@group(0) @binding(9) var<storage, read_write> tally: array<atomic<u32>>;

// Entry `j` of buffer `k` (0–3) of the bound group (WGSL has no dynamic binding arrays without a feature).
fn cache_load(k: u32, j: u32) -> CacheEntry {
    switch k {
        case 1u: { return cache1[j]; }
        case 2u: { return cache2[j]; }
        case 3u: { return cache3[j]; }
        default: { return cache0[j]; }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    let p = positions[i];
    let slot = tt_slot(p);
    // Another group's buffer: that group's dispatch probes it.
    if slot.x >= 4u {
        return;
    }
    let key = tt_key(p, params.remaining);
    let e = cache_load(slot.x, slot.y);
    if all((e.check ^ e.count) == key) {
        sub[2u * i] = e.count.x;
        sub[2u * i + 1u] = e.count.y;
        flags[i] = 0u;
        if atomicAdd(&tally[2u * params.remaining], 1u) == 0xFFFFFFFFu {
            atomicAdd(&tally[2u * params.remaining + 1u], 1u);
        }
    }
}
