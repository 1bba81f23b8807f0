// leaf2.wgsl: the last two plies fused ("fused leaves"). For each position at remaining depth 2 whose flag is
// set (or each listed in `ids`, the compacted distinct positions of a merged level), list its legal moves in a
// private list (lean.wgsl), play each and bulk-count the replies by popcount of legal target sets. Neither the
// children nor the grandchildren are ever written to memory.
//
// Two sinks for the count, chosen by bit 1 of `params.mode`:
// - per position (bit 1 clear): the count is written as the position's 64-bit subtree count `sub[2i]`,
//   `sub[2i + 1]` (lo, hi): one 8-byte write per position, for the hundreds of leaves below it. The
//   back-propagation to the roots, the merging multiplicities and the transposition tables need these.
// - one total (bit 1 set; the driver uses it when a run's counts are only summed: no merging, no tables, one
//   root, or the positions of a host level whose counts are only summed): the workgroup's counts are summed in
//   workgroup memory (one workgroup atomic each, see `wg_sum`) and the last thread to add adds the sum to the
//   96-bit accumulator `total[0..3]` (low word first) with one global atomic (more only when a word carries):
//   4 bytes per workgroup of 64 positions, no per-position count.
// Bit 0 of `params.mode` picks the positions: 1, thread t counts position ids[t] (compact.wgsl); 0, position t
// if its flag is set.
//
// Two call sites of the generator: the listing one for the position's side to move, the counting one (the hot
// one, once per move) for the other side. With the pipeline constant `SIDE` (lean.wgsl) set, both sides are
// constants there, so each inlined copy is specialised. Positions with more than LIST_LEN legal moves
// (impossible material only) are listed again for the next window of moves.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read> flags: array<u32>;
@group(0) @binding(4) var<storage, read_write> sub: array<u32>;
@group(0) @binding(5) var<storage, read> ids: array<u32>;
@group(0) @binding(6) var<storage, read_write> total: array<atomic<u32>>;

// The one-total mode's workgroup sum, packed with a count of the threads that added to it: bits 0-6 count
// the threads, bits 7-31 sum their counts (each below 2^18, so 64 of them stay below 2^24 and the word below
// 2^31). Every one of the workgroup's 64 threads adds once (threads past `params.n` add a zero count); the
// thread that sees 63 earlier adds holds the whole sum: atomics on one word are totally ordered, so no barrier
// is needed (WGSL zero-initialises workgroup memory). A barrier cost 5-10% of the kernel's time on lavapipe.
// The workgroup's packed (sum << 7 | threads done) of the one-total mode. It starts at 0 because wgpu
// zero-initialises workgroup memory (`PipelineCompilationOptions::zero_initialize_workgroup_memory`, on by
// default and left on in src/gpu/context.rs).
var<workgroup> wg_sum: atomic<u32>;

// Add `v` to the 96-bit accumulator `total[0..3]` (low word first) with 32-bit atomics and carries.
fn add_total(v: u32) {
    let old = atomicAdd(&total[0], v);
    if old + v < old {
        let high = atomicAdd(&total[1], 1u);
        if high == 0xffffffffu {
            atomicAdd(&total[2], 1u);
        }
    }
}

// The count of the position thread `t` handles, 0 when it has none (past the end, or its flag clear).
fn count_for(t: u32) -> u32 {
    if t >= params.n {
        return 0u;
    }
    var i = t;
    if (params.mode & 1u) == 1u {
        i = ids[t];
    } else if flags[i] == 0u {
        return 0u;
    }
    let p = positions[i];
    var us = turn(p);
    if SIDE < 2u {
        us = SIDE;
    }
    var count = 0u;
    l_skip = 0u;
    loop {
        let all_moves = lean(p, us, true);
        let listed = min(all_moves - l_skip, LIST_LEN);
        for (var k = 0u; k < listed; k++) {
            count += lean(lean_make(p, l_moves[k], us), us ^ 1u, false);
        }
        if l_skip + LIST_LEN >= all_moves {
            break;
        }
        l_skip += LIST_LEN;
    }
    if (params.mode & 2u) == 0u {
        sub[2u * i] = count;
        sub[2u * i + 1u] = 0u;
    }
    return count;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let count = count_for(thread_index(gid, nwg));
    if (params.mode & 2u) == 2u {
        // A count of 2^18 or more (impossible: fewer than 512 moves per position) goes straight to the total.
        var packed = 1u;
        if count < 0x40000u {
            packed |= count << 7u;
        } else {
            add_total(count);
        }
        let old = atomicAdd(&wg_sum, packed);
        if (old & 127u) == 63u {
            add_total((old >> 7u) + (packed >> 7u));
        }
    }
}
