// lean.wgsl: fully legal move generation without make-and-test, the WGSL twin of the fast CPU generator
// (src/fast/movegen.rs): checkers and pinned pieces from the enemy sliders that see our king through our own
// pieces, king moves against the squares the enemy attacks with our king lifted, a check mask, pinned pieces
// restricted to the line through king and pinner, pawns moved set-wise by shifts, one loop per piece type.
// En passant is tested by recomputing slider attacks on the king with both pawns moved. Castling (Chess960
// rules, standard chess as a special case, FIDE 3.8.2): the right, the squares between king, rook and their
// destinations empty, no attacked square on the king's path, and no rook or queen hitting the king's
// destination once the castling rook has left.
//
// One generator, two sinks, chosen by the `listing` argument: false only counts (popcounts of allowed sets:
// no move is built), true also stores the moves with index in [l_skip, l_skip + LIST_LEN) into `l_moves`,
// packed like `crate::types::Move` plus the moving role in bits 16-18. The side to move `us` is an argument
// too: leaf2.wgsl calls the generator at two sites (listing for the position's side, counting for the other),
// and every driver inlines the calls, so with `SIDE` fixed at pipeline creation both arguments are constants
// there and the colour selects, pawn directions and castling ranks fold away.

// The side to move of the positions leaf2.wgsl is dispatched over, set when the pipeline is created
// (`Kernel::constants`): 0 white, 1 black, 2 (the generic kernel) read from each position.
override SIDE: u32 = 2u;

const LIST_LEN: u32 = 256u;
const FILE_A: BB = BB(0x01010101u, 0x01010101u);
const FILE_H: BB = BB(0x80808080u, 0x80808080u);
const ALL: BB = BB(0xFFFFFFFFu, 0xFFFFFFFFu);

var<private> l_skip: u32;
var<private> l_count: u32;
var<private> l_moves: array<u32, LIST_LEN>;

// b shifted towards higher squares by n (0 < n < 32).
fn bb_shl(b: BB, n: u32) -> BB {
    return BB(b.x << n, (b.y << n) | (b.x >> (32u - n)));
}

// b shifted towards lower squares by n (0 < n < 32).
fn bb_shr(b: BB, n: u32) -> BB {
    return BB((b.x >> n) | (b.y << (32u - n)), b.y >> n);
}

// Slider attacks by magic lookup with 32-bit "split" magics (Stockfish's 32-bit scheme): entry `e` holds the
// relevant mask, the multiplier (one 32-bit word per half of the occupancy) and (first index, 32 - bits); the
// index is (lo * m.x ^ hi * m.y) >> (32 - bits) of the masked occupancy: two 32-bit multiplies, where the
// 64-bit product of "fancy" magics cost four plus a dozen more operations (WGSL has no widening multiply).
// src/gpu/attack_tables.rs, `magic_index`, is the Rust twin, and its tests check every subset of every mask.
fn magic_att(e: u32, occ: BB) -> BB {
    let x = occ & tables[e];
    let m = tables[e + 1u];
    let info = tables[e + 2u];
    return tables[info.x + (((x.x * m.x) ^ (x.y * m.y)) >> info.y)];
}

fn rook_att(s: u32, occ: BB) -> BB {
    return magic_att(T_MAGIC_ROOK + 3u * s, occ);
}

fn bishop_att(s: u32, occ: BB) -> BB {
    return magic_att(T_MAGIC_BISHOP + 3u * s, occ);
}

fn between(a: u32, b: u32) -> BB {
    return tables[T_BETWEEN + 64u * a + b];
}

fn line_through(a: u32, b: u32) -> BB {
    return tables[T_LINE + 64u * a + b];
}

fn l_push(listing: bool, m: u32) {
    if listing && l_count >= l_skip && l_count - l_skip < LIST_LEN {
        l_moves[l_count - l_skip] = m;
    }
    l_count += 1u;
}

// Sink: a piece of `role` on `orig` moves to each square of `targets`.
fn l_piece(listing: bool, role: u32, orig: u32, targets: BB) {
    if !listing {
        l_count += bb_popcnt(targets);
        return;
    }
    var t = targets;
    while bb_any(t) {
        l_push(true, (role << 16u) | (orig << 6u) | bb_lsb(t));
        t = bb_clear_lsb(t);
    }
}

// Sink: pawns move to each square of `targets` from `to - delta`; those on the last rank promote (FIDE 3.7.5:
// four moves each).
fn l_pawns(listing: bool, targets: BB, delta: i32, promo: BB) {
    if !listing {
        l_count += bb_popcnt(targets) + 3u * bb_popcnt(targets & promo);
        return;
    }
    var t = targets;
    while bb_any(t) {
        let to = bb_lsb(t);
        t = bb_clear_lsb(t);
        let base = (u32(i32(to) - delta) << 6u) | to;
        if bb_has(promo, to) {
            for (var k = 0u; k < 4u; k++) {
                l_push(true, (1u << 14u) | (k << 12u) | base);
            }
        } else {
            l_push(true, base);
        }
    }
}

// Pawn moves of `pawns` (all of the side to move) to `push_ok` / `capture_ok` squares (FIDE 3.7.1-3.7.3).
fn l_pawn_moves(listing: bool, white: bool, pawns: BB, empty: BB, push_ok: BB, capture_ok: BB) {
    if white {
        let promo = BB(0u, 0xFF000000u);
        let single = bb_shl(pawns, 8u) & empty;
        let double = bb_shl(single & BB(0x00FF0000u, 0u), 8u) & empty & push_ok;
        l_pawns(listing, single & push_ok, 8, promo);
        l_pawns(listing, double, 16, BB(0u, 0u));
        l_pawns(listing, bb_shl(pawns & ~FILE_A, 7u) & capture_ok, 7, promo);
        l_pawns(listing, bb_shl(pawns & ~FILE_H, 9u) & capture_ok, 9, promo);
    } else {
        let promo = BB(0xFFu, 0u);
        let single = bb_shr(pawns, 8u) & empty;
        let double = bb_shr(single & BB(0u, 0x0000FF00u), 8u) & empty & push_ok;
        l_pawns(listing, single & push_ok, -8, promo);
        l_pawns(listing, double, -16, BB(0u, 0u));
        l_pawns(listing, bb_shr(pawns & ~FILE_A, 9u) & capture_ok, -9, promo);
        l_pawns(listing, bb_shr(pawns & ~FILE_H, 7u) & capture_ok, -7, promo);
    }
}

// Generate the legal moves of `p` for side `us` (0 white, 1 black) into the sink (`listing`: list, else
// count); returns how many there are.
fn lean(p: Pos, us: u32, listing: bool) -> u32 {
    l_count = 0u;
    let white = us == 0u;
    let occ = occupied(p);
    var own = p.bb[6];
    if !white {
        own = occ & ~p.bb[6];
    }
    let opp = occ ^ own;
    let kbb = p.bb[KING] & own;
    let ksq = bb_lsb(kbb);
    let diag_opp = (p.bb[BISHOP] | p.bb[QUEEN]) & opp;
    let orth_opp = (p.bb[ROOK] | p.bb[QUEEN]) & opp;

    // Enemy sliders that see our king through our own pieces: checkers when nothing stands between, pinners
    // when exactly one of ours does.
    var checkers = ((tables[T_KNIGHT + ksq] & p.bb[KNIGHT]) | (tables[T_PAWN + 64u * us + ksq] & p.bb[PAWN]))
        & opp;
    var pinned = BB(0u, 0u);
    var snipers = (bishop_att(ksq, opp) & diag_opp) | (rook_att(ksq, opp) & orth_opp);
    while bb_any(snipers) {
        let s = bb_lsb(snipers);
        snipers = bb_clear_lsb(snipers);
        let bt = between(ksq, s) & occ;
        if !bb_any(bt) {
            checkers |= bb_sq(s);
        } else if !bb_any(bb_clear_lsb(bt)) {
            pinned |= bt;
        }
    }
    let in_check = bb_any(checkers);

    // Castling candidates (common.wgsl, FIDE 3.8.2: the right, the pieces, and the squares the king and rook
    // pass or reach empty but for these two); their king paths join the squares tested for attack.
    let occ_nk = occ ^ kbb;
    let king_squares = tables[T_KING + ksq] & ~own;
    var test = king_squares;
    var rights = 0u;
    if !in_check {
        for (var side = 0u; side < 2u; side++) {
            let rsq = castle_rook_for(p, us, side, ksq, own);
            if rsq >= 64u {
                continue;
            }
            if castle_path_empty(ksq, rsq, occ) {
                rights |= 1u << side;
                test |= castle_king_path(ksq, rsq);
            }
        }
    }

    // Squares attacked by the enemy with our king lifted off the board, among those that matter.
    var danger = BB(0u, 0u);
    var todo = test;
    while bb_any(todo) {
        let s = bb_lsb(todo);
        todo = bb_clear_lsb(todo);
        let a = (((tables[T_KNIGHT + s] & p.bb[KNIGHT]) | (tables[T_PAWN + 64u * us + s] & p.bb[PAWN])
            | (tables[T_KING + s] & p.bb[KING])) & opp) | (bishop_att(s, occ_nk) & diag_opp)
            | (rook_att(s, occ_nk) & orth_opp);
        if bb_any(a) {
            danger |= bb_sq(s);
        }
    }

    l_piece(listing, KING, ksq, king_squares & ~danger);
    if bb_any(bb_clear_lsb(checkers)) {
        return l_count; // double check: king moves only
    }
    var checkmask = ALL;
    if in_check {
        let c = bb_lsb(checkers);
        checkmask = between(ksq, c) | checkers;
    }
    let allowed = ~own & checkmask;
    let free = ~pinned;

    var knights = p.bb[KNIGHT] & own & free;
    while bb_any(knights) {
        let s = bb_lsb(knights);
        knights = bb_clear_lsb(knights);
        l_piece(listing, KNIGHT, s, tables[T_KNIGHT + s] & allowed);
    }
    // Pinned sliders move along the pin line, and only when not in check (a pinned piece cannot block or
    // capture a checker).
    var diag = (p.bb[BISHOP] | p.bb[QUEEN]) & own;
    while bb_any(diag) {
        let s = bb_lsb(diag);
        diag = bb_clear_lsb(diag);
        var t = bishop_att(s, occ) & allowed;
        if bb_has(pinned, s) {
            t &= select(BB(0u, 0u), line_through(ksq, s), !in_check);
        }
        l_piece(listing, select(BISHOP, QUEEN, bb_has(p.bb[QUEEN], s)), s, t);
    }
    var orth = (p.bb[ROOK] | p.bb[QUEEN]) & own;
    while bb_any(orth) {
        let s = bb_lsb(orth);
        orth = bb_clear_lsb(orth);
        var t = rook_att(s, occ) & allowed;
        if bb_has(pinned, s) {
            t &= select(BB(0u, 0u), line_through(ksq, s), !in_check);
        }
        l_piece(listing, select(ROOK, QUEEN, bb_has(p.bb[QUEEN], s)), s, t);
    }
    // Free pawns set-wise, then each pinned pawn along its pin line (one call site for both).
    let pawns = p.bb[PAWN] & own;
    let empty = ~occ;
    var group = pawns & free;
    var pinned_pawns = BB(0u, 0u);
    if !in_check {
        pinned_pawns = pawns & pinned;
    }
    var lim = checkmask;
    loop {
        l_pawn_moves(listing, white, group, empty, lim, opp & lim);
        if !bb_any(pinned_pawns) {
            break;
        }
        let s = bb_lsb(pinned_pawns);
        pinned_pawns = bb_clear_lsb(pinned_pawns);
        group = bb_sq(s);
        lim = line_through(ksq, s);
    }

    // FIDE 3.7.4: en passant, tested by recomputing the sliders that reach our king with both pawns moved.
    let ep = ep_square(p);
    if ep < 64u {
        let cap = ep ^ 8u;
        var orig_set = tables[T_PAWN + 64u * (us ^ 1u) + ep] & pawns;
        while bb_any(orig_set) {
            let orig = bb_lsb(orig_set);
            orig_set = bb_clear_lsb(orig_set);
            let occ2 = (occ ^ bb_sq(orig) ^ bb_sq(cap)) | bb_sq(ep);
            let sliders = (bishop_att(ksq, occ2) & diag_opp) | (rook_att(ksq, occ2) & orth_opp);
            let others = checkers & ~bb_sq(cap) & (p.bb[KNIGHT] | p.bb[PAWN]);
            if !bb_any(sliders | others) {
                l_push(listing, (PAWN << 16u) | (2u << 14u) | (orig << 6u) | ep);
            }
        }
    }

    // FIDE 3.8.2.2.1: castling out of, through or into check is illegal; the destination is tested with the
    // castling rook gone (it may have shielded the square on the rank).
    for (var side = 0u; side < 2u; side++) {
        if ((rights >> side) & 1u) == 0u {
            continue;
        }
        let rsq = castle_rook(p, us * 2u + side);
        let kt = castle_king_to(ksq, rsq);
        if !bb_any(castle_king_path(ksq, rsq) & danger)
            && !bb_any(rook_att(kt, occ_nk ^ bb_sq(rsq)) & orth_opp) {
            l_push(listing, (KING << 16u) | (3u << 14u) | (ksq << 6u) | rsq);
        }
    }
    return l_count;
}

// The position after the legal move `m` of side `us` (packed by the listing sink: moving role in bits 16-18),
// for counting its replies only: the side-to-move bit is not kept (the caller knows it), and the en-passant
// square is set after every double step (the generator looks for a capturing pawn itself).
fn lean_make(p: Pos, m: u32, us: u32) -> Pos {
    let role = m >> 16u;
    let to = m & 63u;
    let orig = (m >> 6u) & 63u;
    var c = place_pieces(p, m, role, us);
    var ep = NO_SQ;
    if role == PAWN && (orig ^ to) == 16u {
        ep = (orig + to) >> 1u;
    }
    // No castling right left (all four rook squares NO_SQ = 0x40): nothing to update.
    if p.castle != 0x40404040u {
        c.castle = castle_after(p, orig, to, role, us);
    }
    c.info = ep << 8u;
    return c;
}
