// leaf2.wgsl: the last two plies fused ("fused leaves"). For each position at remaining depth 2 whose flag is
// set (or each listed in `ids`, the compacted distinct positions of a merged level), list its legal moves in a
// private list (lean.wgsl), play each and bulk-count the replies by popcount of legal target sets; the total is
// written as the position's 64-bit subtree count (lo, hi). Neither the children nor the grandchildren are ever
// written to memory: one 8-byte write per position, for the hundreds of leaves below it. Per-position counts
// (rather than one atomic total) are what the back-propagation to the roots, the merging multiplicities and
// the subtree cache need.
//
// Two call sites of the generator: the listing one for the position's side to move, the counting one (the hot
// one, once per move) for the other side. With the pipeline constant `SIDE` (lean.wgsl) set, both sides are
// constants there, so each inlined copy is specialised. Positions with more than LIST_LEN legal moves
// (impossible material only) are listed again for the next window of moves.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> sub: array<u32>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    if t >= params.n {
        return;
    }
    // mode 1: thread t counts position ids[t] (compact.wgsl); mode 0: position t if its flag is set.
    var i = t;
    if params.mode == 1u {
        i = ids[t];
    } else if flags[i] == 0u {
        return;
    }
    let p = positions[i];
    var us = turn(p);
    if SIDE < 2u {
        us = SIDE;
    }
    var total = 0u;
    l_skip = 0u;
    loop {
        let all_moves = lean(p, us, true);
        let listed = min(all_moves - l_skip, LIST_LEN);
        for (var k = 0u; k < listed; k++) {
            total += lean(lean_make(p, l_moves[k], us), us ^ 1u, false);
        }
        if l_skip + LIST_LEN >= all_moves {
            break;
        }
        l_skip += LIST_LEN;
    }
    sub[2u * i] = total;
    sub[2u * i + 1u] = 0u;
}
