// compact.wgsl: the indices of the positions whose flag is set (distinct positions not found in the cache),
// packed in order: `ids[offsets[i]] = i`, where `offsets` is the exclusive prefix sum of the flags (scan.wgsl).
// The fused leaf kernel then runs one thread per position to count, not per slot of the merged level.

@group(0) @binding(2) var<storage, read> flags: array<u32>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> ids: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n || flags[i] == 0u {
        return;
    }
    ids[offsets[i]] = i;
}
