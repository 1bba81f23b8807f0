//! Attack tables uploaded to the GPU (a read-only storage buffer: a WGSL `const` array indexed dynamically is
//! copied whole by naga on every access, about 15× slower than a storage buffer on lavapipe). The leaper tables
//! and the `between`/`line` masks are the fast CPU generator's own (one table, two users; the reference
//! generator stays independent and checks both); the rays are built here by a plain square walker. The layout
//! is described in `shaders/common.wgsl`: knight, king, pawn attacks, rays in eight directions, then
//! `between` and `line`, 64 × 64 each (used by the lean generator `shaders/lean.wgsl`), then the slider
//! magic entries (per square: mask, multiplier, and `(first index, shift)`) and the rook and bishop attack
//! blocks they index. The multipliers, masks and block offsets are the fast CPU generator's ("fancy" magics,
//! `src/fast/magics.rs`); the attack sets stored here come from the plain square walker
//! (`attacks::rook_walk`/`bishop_walk`), so a wrong multiplier shows up as a wrong count, never a silent table
//! shared with the CPU side.

use crate::fast::attacks::{self, Magic};

/// Start of the `between` masks (`between(a, b)` at `BETWEEN + 64 * a + b`).
pub const BETWEEN: usize = 256 + 8 * 64;
/// Start of the `line` masks.
pub const LINE: usize = BETWEEN + 64 * 64;
/// Start of the rook magic entries (three per square: mask, multiplier, `(first index, shift)`).
pub const MAGIC_ROOK: usize = LINE + 64 * 64;
/// Start of the bishop magic entries.
pub const MAGIC_BISHOP: usize = MAGIC_ROOK + 3 * 64;
/// Start of the rook attack blocks (102,400 entries).
pub const ROOK_ATTACKS: usize = MAGIC_BISHOP + 3 * 64;
/// Start of the bishop attack blocks (5,248 entries).
pub const BISHOP_ATTACKS: usize = ROOK_ATTACKS + 102_400;
/// Number of `vec2<u32>` entries.
pub const LEN: usize = BISHOP_ATTACKS + 5_248;

/// Ray directions as (file step, rank step): N, E, NE, NW (increasing square index, first blocker is the
/// lowest bit), then S, W, SW, SE (decreasing, first blocker is the highest bit).
const DIRS: [(i32, i32); 8] = [
    (0, 1),
    (1, 0),
    (1, 1),
    (-1, 1),
    (0, -1),
    (-1, 0),
    (-1, -1),
    (1, -1),
];

fn bit(file: i32, rank: i32) -> u64 {
    if (0..8).contains(&file) && (0..8).contains(&rank) {
        1 << (rank * 8 + file)
    } else {
        0
    }
}

fn ray(sq: usize, (df, dr): (i32, i32)) -> u64 {
    let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
    let mut b = 0;
    while (0..8).contains(&f) && (0..8).contains(&r) {
        b |= bit(f, r);
        f += df;
        r += dr;
    }
    b
}

/// The tables as 64-bit bitboards, in the GPU layout.
pub fn build() -> Vec<u64> {
    let mut t = vec![0u64; LEN];
    for sq in 0..64 {
        t[sq] = attacks::KNIGHT[sq];
        t[64 + sq] = attacks::KING[sq];
        t[128 + sq] = attacks::PAWN[0][sq];
        t[192 + sq] = attacks::PAWN[1][sq];
        for (d, &dir) in DIRS.iter().enumerate() {
            t[256 + 64 * d + sq] = ray(sq, dir);
        }
        for other in 0..64 {
            t[BETWEEN + 64 * sq + other] = attacks::between(sq, other);
            t[LINE + 64 * sq + other] = attacks::line(sq, other);
        }
    }
    fill_magic(
        &mut t,
        MAGIC_ROOK,
        ROOK_ATTACKS,
        &attacks::ROOK_ENTRIES,
        attacks::rook_walk,
    );
    fill_magic(
        &mut t,
        MAGIC_BISHOP,
        BISHOP_ATTACKS,
        &attacks::BISHOP_ENTRIES,
        attacks::bishop_walk,
    );
    t
}

/// The index the shader computes for occupancy `occ` (already masked): the top 32 bits of the low 64 bits of
/// `occ * magic` from 32-bit halves (WGSL has no 64-bit or high-half multiply), shifted by `shift - 32`.
/// Equal to `(occ * magic) >> shift` for every `shift` in 32..64 (checked on every subset by a test).
pub fn magic_index(occ: u64, magic: u64, shift: u32) -> u32 {
    let (xl, xh) = (occ as u32, (occ >> 32) as u32);
    let (ml, mh) = (magic as u32, (magic >> 32) as u32);
    // mulhi(xl, ml) from 16-bit halves, as in `shaders/lean.wgsl`.
    let (a0, a1, b0, b1) = (xl & 0xffff, xl >> 16, ml & 0xffff, ml >> 16);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    let hi = p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
    let top = hi
        .wrapping_add(xl.wrapping_mul(mh))
        .wrapping_add(xh.wrapping_mul(ml));
    top >> (shift - 32)
}

/// Write one slider's magic entries at `entries` and its attack blocks at `blocks` (every subset of every
/// square's mask, by the carry-rippler walk), asserting that no two subsets with different attack sets share
/// an index.
fn fill_magic(
    t: &mut [u64],
    entries: usize,
    blocks: usize,
    magics: &[Magic; 64],
    walk: fn(usize, u64) -> u64,
) {
    for (sq, e) in magics.iter().enumerate() {
        let first = blocks + e.offset;
        t[entries + 3 * sq] = e.mask;
        t[entries + 3 * sq + 1] = e.magic;
        t[entries + 3 * sq + 2] = first as u64 | (u64::from(e.shift) << 32);
        let mut subset = 0u64;
        loop {
            let i = first + magic_index(subset, e.magic, e.shift) as usize;
            let att = walk(sq, subset);
            assert!(t[i] == 0 || t[i] == att, "magic collision on square {sq}");
            t[i] = att;
            subset = subset.wrapping_sub(e.mask) & e.mask;
            if subset == 0 {
                break;
            }
        }
    }
}

/// The tables as `vec2<u32>` (low word first), ready for upload.
pub fn build_words() -> Vec<[u32; 2]> {
    build()
        .into_iter()
        .map(|b| [b as u32, (b >> 32) as u32])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_index_matches_the_64_bit_multiply() {
        for e in attacks::ROOK_ENTRIES
            .iter()
            .chain(attacks::BISHOP_ENTRIES.iter())
        {
            let mut subset = 0u64;
            loop {
                let want = (subset.wrapping_mul(e.magic) >> e.shift) as u32;
                assert_eq!(magic_index(subset, e.magic, e.shift), want);
                subset = subset.wrapping_sub(e.mask) & e.mask;
                if subset == 0 {
                    break;
                }
            }
        }
    }

    #[test]
    fn spot_checks() {
        let t = build();
        assert_eq!(t[0].count_ones(), 2); // knight a1: b3, c2
        assert_eq!(t[64 + 27].count_ones(), 8); // king d4
        assert_eq!(t[128 + 12], 1 << 19 | 1 << 21); // white pawn e2 attacks d3, f3
        assert_eq!(t[192 + 52], 1 << 43 | 1 << 45); // black pawn e7 attacks d6, f6
        assert_eq!(t[256], 0x0101_0101_0101_0100); // north ray from a1
        assert_eq!(t[256 + 64 * 4 + 63], 0x0080_8080_8080_8080); // south ray from h8
        assert_eq!(t[BETWEEN + 3], 0b0110); // between a1 and d1: b1, c1
        assert_eq!(t[LINE + 64 * 9 + 18], 0x8040_2010_0804_0201); // line through b2, c3: the long diagonal
                                                                  // Increasing directions only reach higher squares, decreasing ones lower squares.
        for sq in 0..64 {
            // The sliders' tables agree with the walker on a few occupancies per square.
            for occ in [
                0u64,
                0x0000_0018_1800_0000,
                0xFFFF_0000_0000_FFFF,
                0x5555_AAAA_5555_AAAA,
            ] {
                let occ = occ & !(1 << sq);
                for (entries, walk) in [
                    (MAGIC_ROOK, attacks::rook_walk as fn(usize, u64) -> u64),
                    (MAGIC_BISHOP, attacks::bishop_walk),
                ] {
                    let (mask, magic, meta) = (
                        t[entries + 3 * sq],
                        t[entries + 3 * sq + 1],
                        t[entries + 3 * sq + 2],
                    );
                    let i = meta as u32 as usize
                        + magic_index(occ & mask, magic, (meta >> 32) as u32) as usize;
                    assert!(i < LEN);
                    assert_eq!(t[i], walk(sq, occ), "sq {sq} occ {occ:#x}");
                }
            }
            for d in 0..8 {
                let r = t[256 + 64 * d + sq];
                let below = (1u64 << sq) - 1;
                assert_eq!(r & below == 0, d < 4 || r == 0, "dir {d} sq {sq}");
            }
        }
    }
}
