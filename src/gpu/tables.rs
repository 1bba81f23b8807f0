//! Attack tables uploaded to the GPU (a read-only storage buffer: a WGSL `const` array indexed dynamically is
//! copied whole by naga on every access, about 15× slower than a storage buffer on lavapipe). The leaper tables
//! and the `between`/`line` masks are the fast CPU generator's own (one table, two users; the reference
//! generator stays independent and checks both); the rays are built here by a plain square walker. The layout
//! is described in `shaders/common.wgsl`: knight, king, pawn attacks, rays in eight directions, then
//! `between` and `line`, 64 × 64 each (used by the lean generator `shaders/lean.wgsl`).

use crate::fast::attacks;

/// Start of the `between` masks (`between(a, b)` at `BETWEEN + 64 * a + b`).
pub const BETWEEN: usize = 256 + 8 * 64;
/// Start of the `line` masks.
pub const LINE: usize = BETWEEN + 64 * 64;
/// Number of `vec2<u32>` entries.
pub const LEN: usize = LINE + 64 * 64;

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
    t
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
            for d in 0..8 {
                let r = t[256 + 64 * d + sq];
                let below = (1u64 << sq) - 1;
                assert_eq!(r & below == 0, d < 4 || r == 0, "dir {d} sq {sq}");
            }
        }
    }
}
