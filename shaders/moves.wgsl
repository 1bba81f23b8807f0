// moves.wgsl: list the legal moves of each position from `offsets[i]` on (the exclusive prefix sum of the
// counts from count.wgsl: artificial positions can have more than 256 moves), for `legal_moves` and the
// per-node cross-check.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read_write> moves: array<u32>;

var<private> g_base: u32;

fn emit(m: u32) {
    moves[g_base + g_count] = m;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n {
        return;
    }
    g_base = offsets[i];
    g_count = 0u;
    g_first_only = false;
    g_bulk = false;
    gen(positions[i]);
}
