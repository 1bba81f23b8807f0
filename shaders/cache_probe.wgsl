// cache_probe.wgsl: look each position to be expanded up in the transposition table of its remaining depth
// (the table bound here, one buffer per depth, `params.extra` entries, indexed by the key's second word modulo
// that; 64-bit key from two hashes of the whole position and the depth). A hit (stored check XOR count equal to the key: a torn entry fails it) presets the position's
// count and clears its flag, so its subtree is not expanded again.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read_write> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> sub: array<u32>;
@group(0) @binding(5) var<storage, read> cache: array<CacheEntry>;
// Cache hits per remaining depth: 64-bit counters as (lo, hi) at [2 * remaining] (src/gpu/report.rs).
@group(0) @binding(6) var<storage, read_write> tally: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    let key = tt_key(positions[i], params.remaining);
    let e = cache[key.y % params.extra];
    if all((e.check ^ e.count) == key) {
        sub[2u * i] = e.count.x;
        sub[2u * i + 1u] = e.count.y;
        flags[i] = 0u;
        if atomicAdd(&tally[2u * params.remaining], 1u) == 0xFFFFFFFFu {
            atomicAdd(&tally[2u * params.remaining + 1u], 1u);
        }
    }
}
