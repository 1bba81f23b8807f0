// common.wgsl: the position layout, `vec2<u32>` bitboards and the lookup tables, shared by every kernel.
//
// Bitboards are `vec2<u32>` (x = squares a1..h4, bits 0-31; y = squares a5..h8, bits 32-63): no optional
// feature is needed (naga 30's u64 builtins are broken: see the facts in src/gpu/mod.rs) and the kernels stay
// portable to every WebGPU implementation. Rust mirrors of the structs: src/gpu/buffers.rs.

alias BB = vec2<u32>;

// A position: 64 bytes. Rust mirror: `GpuPos`.
//   bb[0..6]: pawns, knights, bishops, rooks, queens, kings (both colours); bb[6]: white pieces.
//   castle: four bytes, the rook square of each right (white king side, white queen side, black king side,
//           black queen side), 64 = no right.
//   info: bit 0 the side to move (0 white, 1 black); bits 8-15 the en-passant square (64 = none).
struct Pos {
    bb: array<BB, 7>,
    castle: u32,
    info: u32,
}

// One 16-byte entry of the transposition tables (cache_probe.wgsl, cache_store.wgsl). Rust mirror:
// `GpuCacheEntry`. `check` is the 64-bit key XOR the count, so a torn entry fails the key check.
struct CacheEntry {
    check: vec2<u32>,
    count: vec2<u32>,
}

// Per-dispatch parameters (uniform). Rust mirror: `GpuParams`.

struct Params {
    n: u32,          // positions (threads) in this dispatch
    remaining: u32,  // remaining depth of the positions of this level
    mode: u32,       // kernel-specific switch (expand: 1 = also write leaf statistics info; cache kernels: buffers of the table)
    mask: u32,       // hash table (region) size - 1 (power of two)
    extra: u32,      // kernel-specific (cache kernels: entries of each buffer of the bound table)
    first: u32,      // expand, scan, scan_add: first position of the level slice or chunk (thread t: first + t);
                     // cache kernels: first buffer of the bound group of four
    base: u32,       // expand.wgsl: the slice's first child index, subtracted from the prefix sums
    pad0: u32,
}

// Table layout (Rust: src/gpu/attack_tables.rs): knight attacks [0,64), king attacks [64,128), pawn attacks
// [128 + 64 * colour + sq], rays [256 + 64 * dir + sq] for directions N, E, NE, NW (lsb side) and S, W, SW, SE
// (msb side), then the squares strictly between two squares [768 + 64 * a + b] and the whole line through
// them [4864 + 64 * a + b] (both empty when a and b share no line), then three magic entries per square (mask,
// 32-bit split multiplier, (first index, 32 - bits)) for rooks [8960 + 3 * sq] and bishops [9152 + 3 * sq],
// then the attack blocks they index (rooks [9344, 111744), bishops [111744, 116992)), then the castling masks
// by king square and rook file: the squares to be empty [116992 + 8 * king + file], the king's path
// [117504 + 8 * king + file]. A test checks these offsets against the Rust side's.
const T_KNIGHT: u32 = 0u;
const T_KING: u32 = 64u;
const T_PAWN: u32 = 128u;
const T_RAY: u32 = 256u;
const T_BETWEEN: u32 = 768u;
const T_LINE: u32 = 4864u;
const T_MAGIC_ROOK: u32 = 8960u;
const T_MAGIC_BISHOP: u32 = 9152u;
const T_CASTLE_EMPTY: u32 = 116992u;
const T_CASTLE_PATH: u32 = 117504u;

const PAWN: u32 = 0u;
const KNIGHT: u32 = 1u;
const BISHOP: u32 = 2u;
const ROOK: u32 = 3u;
const QUEEN: u32 = 4u;
const KING: u32 = 5u;
const NO_SQ: u32 = 64u;

@group(0) @binding(0) var<storage, read> tables: array<BB>;
@group(0) @binding(1) var<uniform> params: Params;

fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.y * nwg.x * 64u + gid.x;
}

fn bb_sq(s: u32) -> BB {
    if s < 32u {
        return BB(1u << s, 0u);
    }
    return BB(0u, 1u << (s - 32u));
}

fn bb_any(b: BB) -> bool {
    return (b.x | b.y) != 0u;
}

fn bb_has(b: BB, s: u32) -> bool {
    if s < 32u {
        return ((b.x >> s) & 1u) != 0u;
    }
    return ((b.y >> (s - 32u)) & 1u) != 0u;
}

fn bb_lsb(b: BB) -> u32 {
    if b.x != 0u {
        return firstTrailingBit(b.x);
    }
    return 32u + firstTrailingBit(b.y);
}

fn bb_msb(b: BB) -> u32 {
    if b.y != 0u {
        return 32u + firstLeadingBit(b.y);
    }
    return firstLeadingBit(b.x);
}

fn bb_popcnt(b: BB) -> u32 {
    return countOneBits(b.x) + countOneBits(b.y);
}

// b without its lowest bit.
fn bb_clear_lsb(b: BB) -> BB {
    if b.x != 0u {
        return BB(b.x & (b.x - 1u), b.y);
    }
    return BB(0u, b.y & (b.y - 1u));
}

fn turn(p: Pos) -> u32 {
    return p.info & 1u;
}

fn ep_square(p: Pos) -> u32 {
    return (p.info >> 8u) & 255u;
}

fn occupied(p: Pos) -> BB {
    return p.bb[0] | p.bb[1] | p.bb[2] | p.bb[3] | p.bb[4] | p.bb[5];
}

fn color_bb(p: Pos, c: u32) -> BB {
    if c == 0u {
        return p.bb[6];
    }
    return occupied(p) & ~p.bb[6];
}

// Constant indices only: a dynamic index into an array held by value makes naga copy the whole array.
fn role_at(p: Pos, s: u32) -> u32 {
    if bb_has(p.bb[0], s) {
        return PAWN;
    }
    if bb_has(p.bb[1], s) {
        return KNIGHT;
    }
    if bb_has(p.bb[2], s) {
        return BISHOP;
    }
    if bb_has(p.bb[3], s) {
        return ROOK;
    }
    if bb_has(p.bb[4], s) {
        return QUEEN;
    }
    if bb_has(p.bb[5], s) {
        return KING;
    }
    return 6u;
}

fn castle_rook(p: Pos, i: u32) -> u32 {
    return (p.castle >> (8u * i)) & 255u;
}

// Castling (FIDE 3.8.2; Chess960 rules, standard chess as their special case; the move is written "king takes
// own rook"), one definition for both generators (movegen.wgsl, lean.wgsl). The rook square of castling
// right `side` (0 king side, 1 queen side) of `us` with the king on `ksq`, or NO_SQ when that right cannot
// give a move for want of the right or the pieces: the right is held (3.8.2.1: neither king nor that rook
// has moved), king and rook stand on `us`'s first rank, and an own rook stands there.
fn castle_rook_for(p: Pos, us: u32, side: u32, ksq: u32, own: BB) -> u32 {
    let rsq = castle_rook(p, us * 2u + side);
    let rank = 56u * us;
    if rsq >= 64u || (ksq & 56u) != rank || (rsq & 56u) != rank || !bb_has(p.bb[ROOK] & own, rsq) {
        return NO_SQ;
    }
    return rsq;
}

// FIDE 3.8.2.2.2: every square the king or the rook passes or reaches (their destinations included) is
// empty but for these two (src/gpu/attack_tables.rs, `castle_masks`).
fn castle_path_empty(ksq: u32, rsq: u32, occ: BB) -> bool {
    return !bb_any(tables[T_CASTLE_EMPTY + 8u * ksq + (rsq & 7u)] & occ);
}

// FIDE 3.8.2.2.1: the squares none of which may be attacked: the king's own, those it crosses and its
// destination.
fn castle_king_path(ksq: u32, rsq: u32) -> BB {
    return tables[T_CASTLE_PATH + 8u * ksq + (rsq & 7u)];
}

// The king's destination: the g-file towards a rook on a higher file, else the c-file (the rook goes to the
// f- or d-file: `place_pieces`).
fn castle_king_to(ksq: u32, rsq: u32) -> u32 {
    return (ksq & 56u) + select(2u, 6u, rsq > ksq);
}

// The position after the pseudo-legal move `m` (copy-make). The en-passant square is kept only when an enemy
// pawn attacks it, so that equal positions compare equal for merging.
fn make(p: Pos, m: u32) -> Pos {
    return make_role(p, m, role_at(p, (m >> 6u) & 63u));
}

// `make` when the moving piece's role is known.
fn make_role(p: Pos, m: u32, role: u32) -> Pos {
    let us = turn(p);
    let to = m & 63u;
    let orig = (m >> 6u) & 63u;
    var c = place_pieces(p, m, role, us);
    var ep = NO_SQ;
    if role == PAWN && max(orig, to) - min(orig, to) == 16u {
        let mid = (orig + to) / 2u;
        if bb_any(tables[T_PAWN + 64u * us + mid] & p.bb[PAWN] & color_bb(p, us ^ 1u)) {
            ep = mid;
        }
    }
    c.castle = castle_after(p, orig, to, role, us);
    c.info = (us ^ 1u) | (ep << 8u);
    return c;
}

// The bitboards after move `m` (bits 0-15 in the Stockfish layout; higher bits ignored) of side `us`, moving
// a piece of role `role`: the mover leaves its square and anything on the target is captured; castling puts
// king and rook on their squares (FIDE 3.8.2, Chess960 alike: the move is "king takes own rook"); a promotion
// places the new piece (3.7.5); en passant removes the passed pawn (3.7.4.1). Castling rights and the
// en-passant square are the caller's.
fn place_pieces(p: Pos, m: u32, role: u32, us: u32) -> Pos {
    var c = p;
    let to = m & 63u;
    let orig = (m >> 6u) & 63u;
    let kind = (m >> 14u) & 3u;
    let clear = ~(bb_sq(orig) | bb_sq(to));
    c.bb[0] &= clear;
    c.bb[1] &= clear;
    c.bb[2] &= clear;
    c.bb[3] &= clear;
    c.bb[4] &= clear;
    c.bb[5] &= clear;
    c.bb[6] &= clear;
    if kind == 3u {
        let base = orig & 56u;
        var kt = base + 2u;
        var rt = base + 3u;
        if to > orig {
            kt = base + 6u;
            rt = base + 5u;
        }
        c.bb[KING] |= bb_sq(kt);
        c.bb[ROOK] |= bb_sq(rt);
        if us == 0u {
            c.bb[6] |= bb_sq(kt) | bb_sq(rt);
        }
    } else {
        var placed = role;
        if kind == 1u {
            placed = ((m >> 12u) & 3u) + 1u;
        }
        c.bb[placed] |= bb_sq(to);
        if us == 0u {
            c.bb[6] |= bb_sq(to);
        }
        if kind == 2u {
            var victim = to + 8u;
            if us == 0u {
                victim = to - 8u;
            }
            let keep = ~bb_sq(victim);
            c.bb[PAWN] &= keep;
            c.bb[6] &= keep;
        }
    }
    return c;
}

// The castling rook squares after a move from `orig` to `to` by a piece of role `role` of side `us`.
// FIDE 3.8.2.1: a king move loses both rights; a rook that moves or is captured loses its own.
fn castle_after(p: Pos, orig: u32, to: u32, role: u32, us: u32) -> u32 {
    var castle = 0u;
    for (var i = 0u; i < 4u; i++) {
        var r = castle_rook(p, i);
        if r == orig || r == to || (role == KING && (i >> 1u) == us) {
            r = NO_SQ;
        }
        castle |= r << (8u * i);
    }
    return castle;
}

fn pos_eq(a: Pos, b: Pos) -> bool {
    return a.castle == b.castle && a.info == b.info && all(a.bb[0] == b.bb[0]) && all(a.bb[1] == b.bb[1])
        && all(a.bb[2] == b.bb[2]) && all(a.bb[3] == b.bb[3]) && all(a.bb[4] == b.bb[4])
        && all(a.bb[5] == b.bb[5]) && all(a.bb[6] == b.bb[6]);
}

// One step of `pos_hash`: a multiply–xorshift finaliser of `h ^ w` (multiply by the odd constants 0x9E3779B1
// and 0x85EBCA77, xorshifts by 15 and 13: a bijection of u32, so a chain of steps over equal words never merges
// two different states). Rust twin: `mix` in src/gpu/buffers.rs.
fn mix(h: u32, w: u32) -> u32 {
    var x = (h ^ w) * 0x9E3779B1u;
    x = x ^ (x >> 15u);
    x = x * 0x85EBCA77u;
    return x ^ (x >> 13u);
}

// The 64-bit check of a transposition-table entry for a position at remaining depth `remaining`: two 32-bit
// hashes of the whole position (two seeds of `pos_hash`, each mixed with the depth), the low bit forced to 1
// (an all-zero entry never matches). Where the entry lives is chosen by two further seeds (`tt_buffer`,
// `tt_entry`), so a stored entry met in the probed slot agrees with the probe in none of the check's bits by
// construction: a false hit needs all 63 bits equal (≈ 2^-63 per probe meeting another position's entry,
// taking the seeds as independent hashes). Rust twin: `tt_key` in src/gpu/buffers.rs.
fn tt_key(p: Pos, remaining: u32) -> vec2<u32> {
    let d = remaining * 0x9E3779B9u;
    return vec2<u32>(pos_hash(p, 0x6C8E9CF5u + d) | 1u, pos_hash(p, 0x2F3A1B97u ^ d));
}

// Where the entry of a position at `remaining` lives in a table of `parts` buffers of `len` entries each: the
// buffer (`tt_buffer`) and the entry in it (`tt_entry`), from two hashes independent of the check words of
// `tt_key` (two other seeds, mixed with the depth): the buffer one hash modulo `parts` (computed only when the
// table has more than one buffer), the entry another modulo `len`, so the slot has 64 bits to choose from
// however many buffers a depth has. Separate functions so that a thread of another group's dispatch returns
// after the first. Rust twin: `tt_slot` in src/gpu/buffers.rs.
fn tt_buffer(p: Pos, remaining: u32, parts: u32) -> u32 {
    if parts <= 1u {
        return 0u;
    }
    return pos_hash(p, 0xB5297A4Du ^ (remaining * 0x9E3779B9u)) % parts;
}

fn tt_entry(p: Pos, remaining: u32, len: u32) -> u32 {
    return pos_hash(p, 0x68E31DA4u + remaining * 0x9E3779B9u) % max(len, 1u);
}

// The slot of a position's entry for the table kernels (cache_probe.wgsl, cache_store.wgsl), which bind one
// group of up to four of the table's buffers per dispatch: the table of the level's remaining depth has
// `params.mode` buffers of `params.extra` entries, the group starts at buffer `params.first`. Returns (k, j):
// buffer k (0–3) of the group and entry j in it, or k = 4 when the entry lives in another group's buffer
// (that group's dispatch handles it; its entry hash is then not computed).
fn tt_slot(p: Pos) -> vec2<u32> {
    let b = tt_buffer(p, params.remaining, params.mode);
    if b < params.first || b - params.first >= 4u {
        return vec2<u32>(4u, 0u);
    }
    return vec2<u32>(b - params.first, tt_entry(p, params.remaining, params.extra));
}

// A 32-bit hash of the whole position; `seed` gives independent hashes.
fn pos_hash(p: Pos, seed: u32) -> u32 {
    var h = mix(seed, p.bb[0].x);
    h = mix(h, p.bb[0].y);
    h = mix(h, p.bb[1].x);
    h = mix(h, p.bb[1].y);
    h = mix(h, p.bb[2].x);
    h = mix(h, p.bb[2].y);
    h = mix(h, p.bb[3].x);
    h = mix(h, p.bb[3].y);
    h = mix(h, p.bb[4].x);
    h = mix(h, p.bb[4].y);
    h = mix(h, p.bb[5].x);
    h = mix(h, p.bb[5].y);
    h = mix(h, p.bb[6].x);
    h = mix(h, p.bb[6].y);
    h = mix(h, p.castle);
    return mix(h, p.info);
}
