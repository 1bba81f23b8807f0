// stats.wgsl: sum the leaf statistics of a level of leaves: the move bits written by expand.wgsl, and mates
// and stalemates from each leaf's legal move count. Totals are u32 per dispatch (a level never holds 2^32
// positions); the host sums them in u64.

@group(0) @binding(2) var<storage, read> info: array<u32>;
@group(0) @binding(3) var<storage, read> counts: array<u32>;
@group(0) @binding(4) var<storage, read_write> totals: array<atomic<u32>, 9>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n {
        return;
    }
    let f = info[i];
    // Discovered (bit 5) and double (bit 6) checks count only when they do not mate (CPW's convention,
    // see src/backend/stats.rs).
    for (var b = 0u; b < 7u; b++) {
        if ((f >> b) & 1u) != 0u && (b < 5u || counts[i] != 0u) {
            atomicAdd(&totals[b], 1u);
        }
    }
    if counts[i] == 0u {
        if (f & 16u) != 0u {
            atomicAdd(&totals[7], 1u);
        } else {
            atomicAdd(&totals[8], 1u);
        }
    }
}
