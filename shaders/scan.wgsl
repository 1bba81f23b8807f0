// scan.wgsl: exclusive prefix sum of u32 counts, one block of 256 per workgroup (the host recurses on the block
// sums and adds them back with scan_add.wgsl), over `params.n` values from `params.first` on (the driver scans
// a large level in chunks whose sums fit u32; block sums are scanned from 0). It turns the child counts of a level into the offsets where
// expand.wgsl writes each position's children, without a round trip through the host.

@group(0) @binding(2) var<storage, read> input: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;
@group(0) @binding(4) var<storage, read_write> block_sums: array<u32>;

var<workgroup> tmp: array<u32, 256>;

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let block = wid.y * nwg.x + wid.x;
    let i = block * 256u + lid;
    var v = 0u;
    if i < params.n {
        v = input[params.first + i];
    }
    tmp[lid] = v;
    workgroupBarrier();
    for (var offset = 1u; offset < 256u; offset *= 2u) {
        var t = tmp[lid];
        if lid >= offset {
            t += tmp[lid - offset];
        }
        workgroupBarrier();
        tmp[lid] = t;
        workgroupBarrier();
    }
    let inclusive = tmp[lid];
    if i < params.n {
        output[params.first + i] = inclusive - v;
    }
    // Only real blocks: above 65,535 blocks the host lays the workgroups out as a 2D grid whose last row may
    // hold workgroups past the end, and `block_sums` has exactly one entry per real block (an unguarded
    // write there could be clamped onto the last real block's sum by a backend without robust buffer access).
    if lid == 255u && block * 256u < params.n {
        block_sums[block] = inclusive;
    }
}
