// scan_add.wgsl: add the scanned block sums back to each block of a prefix sum (see scan.wgsl; the values
// from `params.first` on).

@group(0) @binding(2) var<storage, read> block_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n {
        return;
    }
    output[params.first + i] += block_offsets[i / 256u];
}
