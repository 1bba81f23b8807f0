// movegen.wgsl: legal move generation with the same semantics as the reference generator (Chess960
// castling included). Moves are packed like `crate::types::Move` (Stockfish's layout: to 0-5, from 6-11,
// promotion - knight 12-13, kind 14-15 with 0 normal, 1 promotion, 2 en passant, 3 castling as king takes own
// rook). `gen` calls `emit(m)` once per legal move; each kernel file defines `emit`, and `g_count` holds the
// number of moves emitted so far.
//
// Code size matters: lavapipe (and most drivers) inline every call, and compile time grows fast with size. So
// the candidate moves of one piece go to a small list and a single loop (`flush`) checks and emits them, and
// slider attacks loop over directions: `make`, `attackers` and `emit` each appear at one call site.
//
// Legality: moves of pieces that are neither the king nor pinned are legal when not in check; every other
// move (king moves, pinned pieces, any move in check, en passant, castling) is played and the mover's king is
// tested for attack.

var<private> g_count: u32;
// Set by kernels that only count (count.wgsl): moves known to be legal are then counted by popcount instead of
// being emitted one by one.
var<private> g_bulk: bool;
// Set when only "is there any legal move?" matters (mate and stalemate detection): generation stops after the
// first piece with a legal move.
var<private> g_first_only: bool;

fn found(m: u32) {
    emit(m);
    g_count += 1u;
}

fn ray_att(dir: u32, s: u32, occ: BB) -> BB {
    let r = tables[T_RAY + dir * 64u + s];
    let b = r & occ;
    if !bb_any(b) {
        return r;
    }
    var f: u32;
    if dir < 4u {
        f = bb_lsb(b);
    } else {
        f = bb_msb(b);
    }
    return r ^ tables[T_RAY + dir * 64u + f];
}

// Slider attacks from `s` along the directions whose bits are set in `dirs` (bit d = direction d).
fn slider_att(s: u32, occ: BB, dirs: u32) -> BB {
    var a = BB(0u, 0u);
    for (var d = 0u; d < 8u; d++) {
        if ((dirs >> d) & 1u) != 0u {
            a |= ray_att(d, s, occ);
        }
    }
    return a;
}

const ORTHO: u32 = 0x33u; // N, E, S, W
const DIAG: u32 = 0xCCu; // NE, NW, SW, SE

// Pieces of colour `by` attacking square `s` when the occupancy is `occ`.
fn attackers(p: Pos, s: u32, by: u32, occ: BB) -> BB {
    var a = tables[T_KNIGHT + s] & p.bb[KNIGHT];
    a |= tables[T_KING + s] & p.bb[KING];
    a |= tables[T_PAWN + 64u * (by ^ 1u) + s] & p.bb[PAWN];
    let rq = p.bb[ROOK] | p.bb[QUEEN];
    let bq = p.bb[BISHOP] | p.bb[QUEEN];
    for (var d = 0u; d < 8u; d++) {
        var sliders = bq;
        if ((ORTHO >> d) & 1u) != 0u {
            sliders = rq;
        }
        a |= ray_att(d, s, occ) & sliders;
    }
    return a & color_bb(p, by) & occ;
}

fn king_square(p: Pos, c: u32) -> u32 {
    return bb_lsb(p.bb[KING] & color_bb(p, c));
}

// Whether the side that just moved in `c` left its king safe.
fn mover_king_safe(c: Pos) -> bool {
    let mover = turn(c) ^ 1u;
    return !bb_any(attackers(c, king_square(c, mover), turn(c), occupied(c)));
}

// Candidate moves of the current piece; bit 16 marks a move that must be played to test legality.
const CAREFUL: u32 = 0x10000u;
var<private> g_list: array<u32, 32>;
var<private> g_len: u32;

fn push(m: u32, careful: bool) {
    g_list[g_len] = m | select(0u, CAREFUL, careful);
    g_len += 1u;
}

// Check and emit the candidates of the list, then empty it.
fn flush(p: Pos) {
    for (var i = 0u; i < g_len; i++) {
        let m = g_list[i];
        if (m & CAREFUL) != 0u && !mover_king_safe(make(p, m & 0xFFFFu)) {
            continue;
        }
        found(m & 0xFFFFu);
    }
    g_len = 0u;
}

fn first_on_ray(dir: u32, b: BB) -> u32 {
    if dir < 4u {
        return bb_lsb(b);
    }
    return bb_msb(b);
}

// Own pieces pinned to the king on `ksq`.
fn pinned_mask(p: Pos, ksq: u32, us: u32, occ: BB) -> BB {
    var pinned = BB(0u, 0u);
    let own = color_bb(p, us);
    let them = color_bb(p, us ^ 1u);
    for (var dir = 0u; dir < 8u; dir++) {
        let b = tables[T_RAY + dir * 64u + ksq] & occ;
        if !bb_any(b) {
            continue;
        }
        let f = first_on_ray(dir, b);
        if !bb_has(own, f) {
            continue;
        }
        let b2 = tables[T_RAY + dir * 64u + f] & occ;
        if !bb_any(b2) {
            continue;
        }
        let g = first_on_ray(dir, b2);
        var sliders = p.bb[BISHOP] | p.bb[QUEEN];
        if dir == 0u || dir == 1u || dir == 4u || dir == 5u {
            sliders = p.bb[ROOK] | p.bb[QUEEN];
        }
        if bb_has(sliders & them, g) {
            pinned |= bb_sq(f);
        }
    }
    return pinned;
}

// A pawn move from `s` to `t`, as four promotions when it reaches the last rank (FIDE 3.7.5).
fn pawn_to(s: u32, t: u32, promo: bool, careful: bool) {
    if promo {
        let base = (1u << 14u) | (s << 6u) | t;
        for (var k = 0u; k < 4u; k++) {
            push(base | (k << 12u), careful);
        }
    } else {
        push((s << 6u) | t, careful);
    }
}

fn gen_pawn(p: Pos, s: u32, us: u32, occ: BB, opp: BB, careful: bool) {
    let rank = s >> 3u;
    var fwd = s - 8u;
    var fwd2 = s - 16u;
    var promo_rank = 1u;
    var start_rank = 6u;
    if us == 0u {
        fwd = s + 8u;
        fwd2 = s + 16u;
        promo_rank = 6u;
        start_rank = 1u;
    }
    let promo = rank == promo_rank;
    // FIDE 3.7.1 / 3.7.2: one step forward, or two from the starting rank, onto empty squares.
    if !bb_has(occ, fwd) {
        pawn_to(s, fwd, promo, careful);
        if rank == start_rank && !bb_has(occ, fwd2) {
            push((s << 6u) | fwd2, careful);
        }
    }
    // FIDE 3.7.3: diagonal captures.
    var caps = tables[T_PAWN + 64u * us + s] & opp;
    while bb_any(caps) {
        let t = bb_lsb(caps);
        caps = bb_clear_lsb(caps);
        pawn_to(s, t, promo, careful);
    }
    // FIDE 3.7.4: en passant.
    let ep = ep_square(p);
    if ep < 64u && bb_has(tables[T_PAWN + 64u * us + s], ep) {
        push((2u << 14u) | (s << 6u) | ep, true);
    }
}

// FIDE 3.8.2: castling (Chess960 rules, standard castling being their special case; the candidates and their
// masks are common.wgsl's): the right and the pieces, the squares the king and rook pass or reach empty
// (3.8.2.2.2), and none of the king's squares attacked (3.8.2.2.1; the destination is checked again after
// the move, by flush, with the rook gone from its square).
fn gen_castling(p: Pos, ksq: u32, us: u32, own: BB, occ: BB) {
    for (var side = 0u; side < 2u; side++) {
        let rsq = castle_rook_for(p, us, side, ksq, own);
        if rsq >= 64u || !castle_path_empty(ksq, rsq, occ) {
            continue;
        }
        var path = castle_king_path(ksq, rsq);
        var attacked = false;
        while bb_any(path) && !attacked {
            attacked = bb_any(attackers(p, bb_lsb(path), us ^ 1u, occ));
            path = bb_clear_lsb(path);
        }
        if !attacked {
            push((3u << 14u) | (ksq << 6u) | rsq, true);
        }
    }
}

// Emit every legal move of `p`.
fn gen(p: Pos) {
    let us = turn(p);
    let own = color_bb(p, us);
    let opp = color_bb(p, us ^ 1u);
    let occ = own | opp;
    let ksq = king_square(p, us);
    let in_check = bb_any(attackers(p, ksq, us ^ 1u, occ));
    let pinned = pinned_mask(p, ksq, us, occ);
    var pieces = own;
    g_len = 0u;
    // One piece per iteration, then castling in a last iteration; flush has a single call site.
    loop {
        let last = !bb_any(pieces);
        if !last {
            let s = bb_lsb(pieces);
            pieces = bb_clear_lsb(pieces);
            let role = role_at(p, s);
            let careful = in_check || role == KING || bb_has(pinned, s);
            if role == PAWN {
                gen_pawn(p, s, us, occ, opp, careful);
            } else {
                var targets = tables[T_KING + s];
                if role == KNIGHT {
                    targets = tables[T_KNIGHT + s];
                } else if role != KING {
                    var dirs = 0xFFu;
                    if role == BISHOP {
                        dirs = DIAG;
                    } else if role == ROOK {
                        dirs = ORTHO;
                    }
                    targets = slider_att(s, occ, dirs);
                }
                targets &= ~own;
                if g_bulk && !careful {
                    g_count += bb_popcnt(targets);
                } else {
                    while bb_any(targets) {
                        push((s << 6u) | bb_lsb(targets), careful);
                        targets = bb_clear_lsb(targets);
                    }
                }
            }
        } else if !in_check {
            gen_castling(p, ksq, us, own, occ);
        }
        flush(p);
        if last || (g_first_only && g_count > 0u) {
            break;
        }
    }
}
