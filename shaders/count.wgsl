// count.wgsl: the number of legal moves of each position whose flag is set (0 for the others). Used both to
// size the next level (before the prefix sum) and to bulk-count the last level. With `params.mode == 1` the
// count is only 0 or not (it stops early): enough to tell mates and stalemates among leaves.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> counts: array<u32>;

fn emit(m: u32) {}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n {
        return;
    }
    if flags[i] == 0u {
        counts[i] = 0u;
        return;
    }
    g_count = 0u;
    g_first_only = params.mode == 1u;
    g_bulk = true;
    gen(positions[i]);
    counts[i] = g_count;
}
