// backprop.wgsl: subtree counts flow one level up. For every child slot c, the count of its representative
// (itself, or the equal position it was merged into) is added to its parent's 64-bit count, so a merged
// position counted once is multiplied back by its multiplicity. With `params.mode == 1` the child values are
// the u32 move counts of the bulk-counted last level, otherwise 64-bit counts as (lo, hi) pairs.

@group(0) @binding(2) var<storage, read> parents: array<u32>;
@group(0) @binding(3) var<storage, read> rep: array<u32>;
@group(0) @binding(4) var<storage, read> child_counts: array<u32>;
@group(0) @binding(5) var<storage, read_write> parent_counts: array<atomic<u32>>;

// 64-bit atomic add from two u32 atomics; the carry of the low word is added to the high word separately,
// so concurrent adds stay exact.
fn add64(idx: u32, v: vec2<u32>) {
    if v.x != 0u {
        let old = atomicAdd(&parent_counts[2u * idx], v.x);
        if old + v.x < old {
            atomicAdd(&parent_counts[2u * idx + 1u], 1u);
        }
    }
    if v.y != 0u {
        atomicAdd(&parent_counts[2u * idx + 1u], v.y);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let c = thread_index(gid, nwg);
    if c >= params.n {
        return;
    }
    let r = rep[c];
    var v: vec2<u32>;
    if params.mode == 1u {
        v = vec2<u32>(child_counts[r], 0u);
    } else {
        v = vec2<u32>(child_counts[2u * r], child_counts[2u * r + 1u]);
    }
    add64(parents[c], v);
}
