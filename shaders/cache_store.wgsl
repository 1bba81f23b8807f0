// cache_store.wgsl: store the subtree count of every expanded position (flag set) of a level in the cache
// (direct-mapped, always replace). `locks` is cleared before each dispatch; the first writer of a slot wins, so
// no entry is ever torn.

struct CacheEntry {
    pos: Pos,
    depth: u32,
    pad: u32,
    lo: u32,
    hi: u32,
}

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> sub: array<u32>;
@group(0) @binding(5) var<storage, read_write> cache: array<CacheEntry>;
@group(0) @binding(6) var<storage, read_write> locks: array<atomic<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    let p = positions[i];
    let s = pos_hash(p, 0x6C8E9CF5u + params.remaining * 0x9E3779B9u) & params.mask;
    let r = atomicCompareExchangeWeak(&locks[s], 0u, 1u);
    if !r.exchanged {
        return;
    }
    cache[s] = CacheEntry(p, params.remaining, 0u, sub[2u * i], sub[2u * i + 1u]);
}
