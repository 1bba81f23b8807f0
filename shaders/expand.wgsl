// expand.wgsl: write the children of each position whose flag is set, from `offsets[i] - params.base` on
// (the exclusive prefix sum of the counts, relative to the slice of the level this dispatch covers: positions
// `params.first ..` `params.first + params.n`), with the parent's index unless bit 1 of `params.mode` is set
// (no back-propagation: the fused kernel's one-total mode); with bit 0 also the leaf-statistics bits of
// the move that leads to each child (bit 0 capture, 1 en passant, 2 castling, 3 promotion, 4 check,
// 5 discovered single check, 6 double check).

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> children: array<Pos>;
@group(0) @binding(6) var<storage, read_write> parents: array<u32>;
@group(0) @binding(7) var<storage, read_write> info: array<u32>;

var<private> g_pos: Pos;
var<private> g_parent: u32;
var<private> g_base: u32;

fn leaf_info(p: Pos, c: Pos, m: u32) -> u32 {
    let kind = m >> 14u;
    let to = m & 63u;
    let orig = (m >> 6u) & 63u;
    var f = 0u;
    if kind == 2u || (kind != 3u && bb_has(occupied(p), to)) {
        f |= 1u;
    }
    if kind == 2u {
        f |= 2u;
    }
    if kind == 3u {
        f |= 4u;
    }
    if kind == 1u {
        f |= 8u;
    }
    let checkers = attackers(c, king_square(c, turn(c)), turn(p), occupied(c));
    if bb_any(checkers) {
        f |= 16u;
        var mover = to;
        if kind == 3u {
            mover = (orig & 56u) + 3u;
            if to > orig {
                mover = (orig & 56u) + 5u;
            }
        }
        // CPW convention: a discovered check is a single check by a piece other than the one that moved; a
        // double check counts only as a double check.
        let n = bb_popcnt(checkers);
        if n == 1u && !bb_has(checkers, mover) {
            f |= 32u;
        }
        if n >= 2u {
            f |= 64u;
        }
    }
    return f;
}

fn emit(m: u32) {
    let c = make(g_pos, m);
    let k = g_base + g_count;
    children[k] = c;
    if (params.mode & 2u) == 0u {
        parents[k] = g_parent;
    }
    if (params.mode & 1u) == 1u {
        info[k] = leaf_info(g_pos, c, m);
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = thread_index(gid, nwg);
    if t >= params.n {
        return;
    }
    let i = params.first + t;
    if flags[i] == 0u {
        return;
    }
    g_pos = positions[i];
    g_parent = i;
    g_base = offsets[i] - params.base;
    g_count = 0u;
    g_first_only = false;
    g_bulk = false;
    gen(g_pos);
}
