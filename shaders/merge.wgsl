// merge.wgsl: transposition merging of a freshly written level. Each position claims a slot of an open-
// addressing hash table of position indices (hash of the whole position, linear probing); a position that
// finds an equal one (full 64-byte comparison) points `rep` at it and clears its flag, so that the next level
// expands each distinct position once. The representative's subtree count is later added to every parent of
// every copy (backprop.wgsl), which multiplies it back by its multiplicity. With `params.mode == 0` every
// position is its own representative (merging off); with `params.mode == 2` (merging off and no
// back-propagation: the fused kernel's one-total mode) only the flags are set.

@group(0) @binding(2) var<storage, read> positions: array<Pos>;
@group(0) @binding(3) var<storage, read_write> table: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> rep: array<u32>;
@group(0) @binding(5) var<storage, read_write> flags: array<u32>;
// Distinct positions per remaining depth: 64-bit counters as (lo, hi) at [64 + 2 * remaining]
// (src/gpu/report.rs).
@group(0) @binding(6) var<storage, read_write> tally: array<atomic<u32>>;

// A slot holds (generation << 24) | (index + 1), the generation (1–255) in `params.extra`: a slot of another
// generation (0 = never written) is free, so the host clears the table only once every 255 merged levels.
// Levels have fewer than 2^24 positions (GpuContext::max_level_positions).

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = thread_index(gid, nwg);
    if i >= params.n {
        return;
    }
    flags[i] = 1u;
    if params.mode == 2u {
        return;
    }
    rep[i] = i;
    if params.mode == 0u {
        return;
    }
    let p = positions[i];
    var s = pos_hash(p, 0x2545F491u) & params.mask;
    let gen = params.extra;
    let mine = (gen << 24u) | (i + 1u);
    // The table has more slots than positions, so a free slot is always found.
    loop {
        let cur = atomicLoad(&table[s]);
        if (cur >> 24u) != gen {
            let r = atomicCompareExchangeWeak(&table[s], cur, mine);
            if r.exchanged {
                if atomicAdd(&tally[64u + 2u * params.remaining], 1u) == 0xFFFFFFFFu {
                    atomicAdd(&tally[65u + 2u * params.remaining], 1u);
                }
                return;
            }
            continue; // taken meanwhile (or a spurious failure): look again
        }
        if pos_eq(positions[(cur & 0xFFFFFFu) - 1u], p) {
            rep[i] = (cur & 0xFFFFFFu) - 1u;
            flags[i] = 0u;
            return;
        }
        s = (s + 1u) & params.mask;
    }
}
