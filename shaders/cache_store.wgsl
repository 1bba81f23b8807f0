// cache_store.wgsl: store the subtree count of every expanded position (flag set) of a level in the
// transposition table of its remaining depth: `params.mode` buffers of `params.extra` entries each, one group
// of up to four bound per dispatch (cache0 … cache3 are buffers `params.first` … `params.first + 3`; the
// driver dispatches once per group, as for cache_probe.wgsl), the buffer and entry chosen by `tt_slot`
// (common.wgsl); a thread whose buffer is outside the bound group returns at once. Slots of the last group
// beyond the table's buffers are bound to tiny spare buffers and never written. Always replace. Concurrent
// stores to one entry may interleave their words; the key is stored XOR the count, so such a torn entry
// fails the probe's key check (unless both stores carried the same count, in which case it is right anyway).

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> sub: array<u32>;
@group(0) @binding(5) var<storage, read_write> cache0: array<CacheEntry>;
@group(0) @binding(6) var<storage, read_write> cache1: array<CacheEntry>;
@group(0) @binding(7) var<storage, read_write> cache2: array<CacheEntry>;
@group(0) @binding(8) var<storage, read_write> cache3: array<CacheEntry>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    let p = positions[i];
    let slot = tt_slot(p);
    if slot.x >= 4u {
        return;
    }
    let key = tt_key(p, params.remaining);
    let count = vec2<u32>(sub[2u * i], sub[2u * i + 1u]);
    let e = CacheEntry(key ^ count, count);
    let j = slot.y;
    // WGSL has no dynamic binding arrays without a feature: one branch per buffer of the group.
    switch slot.x {
        case 1u: { cache1[j] = e; }
        case 2u: { cache2[j] = e; }
        case 3u: { cache3[j] = e; }
        default: { cache0[j] = e; }
    }
}
