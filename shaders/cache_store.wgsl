// cache_store.wgsl: store the subtree count of every expanded position (flag set) of a level in the
// transposition table of its remaining depth (the table bound here, `params.extra` entries; always replace). Concurrent stores to one entry may interleave
// their words; the key is stored XOR the count, so such a torn entry fails the probe's key check (unless both
// stores carried the same count, in which case it is right anyway).

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> sub: array<u32>;
@group(0) @binding(5) var<storage, read_write> cache: array<CacheEntry>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    let key = tt_key(positions[i], params.remaining);
    let count = vec2<u32>(sub[2u * i], sub[2u * i + 1u]);
    cache[key.y % params.extra] = CacheEntry(key ^ count, count);
}
