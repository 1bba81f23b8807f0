//! Attack tables: leapers (knight, king, pawn), `between`/`line` masks, and slider attacks by magic
//! bitboards and by PEXT (BMI2), all built in `const` context into `static`s, so start-up costs nothing.
//!
//! The slow ray walker [`slider_walk`] is the oracle: it builds both slider tables and the tests compare the
//! fast lookups with it on every occupancy subset of every square. Building the magic table asserts that no
//! two occupancies with different attack sets share an index, so a bad magic number fails compilation.
//!
//! Magic numbers (`magics.rs`) were found with a random search for sparse 64-bit numbers (AND of three
//! xorshift outputs) accepted when every subset of the relevant-occupancy mask maps without a destructive
//! collision; shift is `64 - popcount(mask)` ("fancy" magics, 102,400 rook and 5,248 bishop entries).
//!
//! Bitboards are plain `u64` (bit `i` = square `i`, a1 = 0): the generator's inner loops are shifts, masks
//! and popcounts, which read most directly on the primitive type.

use super::magics::{BISHOP_MAGICS, ROOK_MAGICS};

/// Rook directions (file step, rank step).
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// Bishop directions.
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Attacks of a slider on `sq` along `dirs`, stopping at (and including) the first occupied square.
pub const fn slider_walk(sq: usize, occ: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let mut attacks = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i32 + df;
        let mut r = (sq / 8) as i32 + dr;
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let s = (r * 8 + f) as u64;
            attacks |= 1 << s;
            if occ & (1 << s) != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    attacks
}

/// Rook attacks by the slow walker (oracle).
pub const fn rook_walk(sq: usize, occ: u64) -> u64 {
    slider_walk(sq, occ, &ROOK_DIRS)
}

/// Bishop attacks by the slow walker (oracle).
pub const fn bishop_walk(sq: usize, occ: u64) -> u64 {
    slider_walk(sq, occ, &BISHOP_DIRS)
}

/// Relevant occupancy: the squares along `dirs` whose occupancy changes the attack set (edges excluded).
const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    let mut mask = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut f = (sq % 8) as i32 + df;
        let mut r = (sq / 8) as i32 + dr;
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            mask |= 1 << (r * 8 + f);
            f += df;
            r += dr;
        }
        d += 1;
    }
    mask
}

/// One square's slider entry: relevant mask, magic multiplier, shift and offset into the shared table.
#[derive(Clone, Copy)]
pub struct Magic {
    /// Relevant occupancy mask.
    pub mask: u64,
    /// Multiplier.
    pub magic: u64,
    /// `64 - popcount(mask)`.
    pub shift: u32,
    /// First index of this square's block (same offsets serve the magic and the PEXT tables).
    pub offset: usize,
}

const fn build_entries(dirs: &[(i32, i32); 4], magics: &[u64; 64]) -> [Magic; 64] {
    let mut out = [Magic {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    }; 64];
    let mut offset = 0;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        out[sq] = Magic {
            mask,
            magic: magics[sq],
            shift: 64 - mask.count_ones(),
            offset,
        };
        offset += 1 << mask.count_ones();
        sq += 1;
    }
    out
}

/// Rook entries per square.
pub static ROOK_ENTRIES: [Magic; 64] = build_entries(&ROOK_DIRS, &ROOK_MAGICS);
/// Bishop entries per square.
pub static BISHOP_ENTRIES: [Magic; 64] = build_entries(&BISHOP_DIRS, &BISHOP_MAGICS);

const ROOK_TABLE_SIZE: usize = 102_400;
const BISHOP_TABLE_SIZE: usize = 5_248;

/// Software PEXT (parallel bit extract) for `const` table building: the bits of `x` selected by `mask`,
/// packed towards bit 0 (the fallback off x86-64).
#[cfg(any(test, not(target_arch = "x86_64")))]
pub const fn pext_soft(x: u64, mut mask: u64) -> u64 {
    let mut out = 0u64;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if x & low != 0 {
            out |= 1 << bit;
        }
        bit += 1;
        mask &= mask - 1;
    }
    out
}

/// Fill a slider table. `pext`: index by PEXT of the occupancy, else by the magic multiply; asserts (at
/// compile time) that no two subsets with different attacks share an index.
const fn build_table<const N: usize>(
    entries: &[Magic; 64],
    dirs: &[(i32, i32); 4],
    pext: bool,
) -> [u64; N] {
    let mut table = [0u64; N];
    let mut sq = 0;
    while sq < 64 {
        let e = entries[sq];
        // The carry-rippler visits the subsets in increasing order of their PEXT index.
        let mut subset = 0u64;
        let mut pext_index = 0usize;
        loop {
            let attacks = slider_walk(sq, subset, dirs);
            let index = if pext {
                pext_index
            } else {
                (subset.wrapping_mul(e.magic) >> e.shift) as usize
            };
            let slot = e.offset + index;
            // Attacks are never empty, so 0 marks a free slot.
            assert!(
                table[slot] == 0 || table[slot] == attacks,
                "destructive magic collision"
            );
            table[slot] = attacks;
            pext_index += 1;
            subset = subset.wrapping_sub(e.mask) & e.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
    table
}

/// Rook attacks indexed by magic multiply.
#[allow(long_running_const_eval)] // ~10^8 const-eval steps: a few seconds of compile time
static ROOK_MAGIC_TABLE: [u64; ROOK_TABLE_SIZE] = build_table(&ROOK_ENTRIES, &ROOK_DIRS, false);
/// Bishop attacks indexed by magic multiply.
#[allow(long_running_const_eval)] // ~10^8 const-eval steps: a few seconds of compile time
static BISHOP_MAGIC_TABLE: [u64; BISHOP_TABLE_SIZE] =
    build_table(&BISHOP_ENTRIES, &BISHOP_DIRS, false);
/// Rook attacks indexed by PEXT.
#[allow(long_running_const_eval)] // ~10^8 const-eval steps: a few seconds of compile time
static ROOK_PEXT_TABLE: [u64; ROOK_TABLE_SIZE] = build_table(&ROOK_ENTRIES, &ROOK_DIRS, true);
/// Bishop attacks indexed by PEXT.
#[allow(long_running_const_eval)] // ~10^8 const-eval steps: a few seconds of compile time
static BISHOP_PEXT_TABLE: [u64; BISHOP_TABLE_SIZE] =
    build_table(&BISHOP_ENTRIES, &BISHOP_DIRS, true);

/// How slider attacks are looked up. The move generator is generic over this, so each variant is compiled
/// (and measured) separately.
pub trait Sliders: Copy + Send + Sync + 'static {
    /// Rook attacks from `sq` with blockers `occ`.
    fn rook(sq: usize, occ: u64) -> u64;
    /// Bishop attacks from `sq` with blockers `occ`.
    fn bishop(sq: usize, occ: u64) -> u64;
}

/// Magic bitboards (portable).
#[derive(Clone, Copy, Debug)]
pub struct MagicSliders;

impl Sliders for MagicSliders {
    #[inline(always)]
    fn rook(sq: usize, occ: u64) -> u64 {
        let e = &ROOK_ENTRIES[sq];
        ROOK_MAGIC_TABLE[e.offset + ((occ & e.mask).wrapping_mul(e.magic) >> e.shift) as usize]
    }
    #[inline(always)]
    fn bishop(sq: usize, occ: u64) -> u64 {
        let e = &BISHOP_ENTRIES[sq];
        BISHOP_MAGIC_TABLE[e.offset + ((occ & e.mask).wrapping_mul(e.magic) >> e.shift) as usize]
    }
}

/// PEXT (BMI2) indexing.
///
/// Only named by the dispatch in `crate::fast`'s `perft` after `is_x86_feature_detected!("bmi2")` (and by tests behind
/// the same check): the lookup executes the `pext` instruction without checking again.
#[derive(Clone, Copy, Debug)]
pub struct PextSliders;

#[inline(always)]
fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // Safety: `PextSliders` is used only where BMI2 was detected at run time (see the type's docs).
        #[allow(unsafe_code)]
        unsafe {
            core::arch::x86_64::_pext_u64(x, mask)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    pext_soft(x, mask)
}

impl Sliders for PextSliders {
    #[inline(always)]
    fn rook(sq: usize, occ: u64) -> u64 {
        let e = &ROOK_ENTRIES[sq];
        ROOK_PEXT_TABLE[e.offset + pext(occ, e.mask) as usize]
    }
    #[inline(always)]
    fn bishop(sq: usize, occ: u64) -> u64 {
        let e = &BISHOP_ENTRIES[sq];
        BISHOP_PEXT_TABLE[e.offset + pext(occ, e.mask) as usize]
    }
}

const fn leaper_table(steps: &[(i32, i32); 8]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < 8 {
            let f = (sq % 8) as i32 + steps[i].0;
            let r = (sq / 8) as i32 + steps[i].1;
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

/// Knight attacks per square.
pub static KNIGHT: [u64; 64] = leaper_table(&crate::types::KNIGHT_STEPS);
/// King attacks per square.
pub static KING: [u64; 64] = leaper_table(&crate::types::KING_STEPS);

const fn pawn_table() -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let b = 1u64 << sq;
        let not_a = b & !0x0101_0101_0101_0101;
        let not_h = b & !0x8080_8080_8080_8080;
        t[0][sq] = (not_a << 7) | (not_h << 9);
        t[1][sq] = (not_a >> 9) | (not_h >> 7);
        sq += 1;
    }
    t
}

/// Pawn attacks per colour (0 = White) and square.
pub static PAWN: [[u64; 64]; 2] = pawn_table();

const fn between_line() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut between = [[0u64; 64]; 64];
    let mut line = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let bb = 1u64 << b;
                let ba = 1u64 << a;
                if rook_walk(a, 0) & bb != 0 {
                    between[a][b] = rook_walk(a, bb) & rook_walk(b, ba);
                    line[a][b] = (rook_walk(a, 0) & rook_walk(b, 0)) | ba | bb;
                } else if bishop_walk(a, 0) & bb != 0 {
                    between[a][b] = bishop_walk(a, bb) & bishop_walk(b, ba);
                    line[a][b] = (bishop_walk(a, 0) & bishop_walk(b, 0)) | ba | bb;
                }
            }
            b += 1;
        }
        a += 1;
    }
    (between, line)
}

#[allow(long_running_const_eval)] // ~10^8 const-eval steps: a few seconds of compile time
static BETWEEN_LINE: ([[u64; 64]; 64], [[u64; 64]; 64]) = between_line();

/// Squares strictly between `a` and `b` when they share a line, else empty.
#[inline(always)]
pub fn between(a: usize, b: usize) -> u64 {
    BETWEEN_LINE.0[a][b]
}

/// The whole line (edge to edge) through `a` and `b` when they share one, else empty.
#[inline(always)]
pub fn line(a: usize, b: usize) -> u64 {
    BETWEEN_LINE.1[a][b]
}

/// Whether this CPU has POPCNT and BMI2.
pub fn bmi2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_all<S: Sliders>() {
        for sq in 0..64 {
            for (entries, walk, fast) in [
                (
                    &ROOK_ENTRIES,
                    rook_walk as fn(usize, u64) -> u64,
                    S::rook as fn(usize, u64) -> u64,
                ),
                (&BISHOP_ENTRIES, bishop_walk, S::bishop),
            ] {
                let mask = entries[sq].mask;
                let mut subset = 0u64;
                loop {
                    // Extra blockers outside the mask must not change the answer.
                    let noise = subset.wrapping_mul(0x9E37_79B9_7F4A_7C15) & !mask;
                    assert_eq!(fast(sq, subset | noise), walk(sq, subset), "sq {sq}");
                    subset = subset.wrapping_sub(mask) & mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn magic_lookups_equal_the_walker_on_every_subset() {
        check_all::<MagicSliders>();
    }

    #[test]
    fn pext_lookups_equal_the_walker_on_every_subset() {
        if !bmi2_available() {
            eprintln!("no BMI2 on this CPU: PEXT lookups not tested");
            return;
        }
        check_all::<PextSliders>();
    }

    #[test]
    fn software_pext_packs_selected_bits() {
        assert_eq!(pext_soft(0b1011_0110, 0b1111_0000), 0b1011);
        assert_eq!(pext_soft(0b1011_0110, 0b0101_0101), 0b0110);
        assert_eq!(pext_soft(u64::MAX, 0x8000_0000_0000_0001), 0b11);
    }

    #[test]
    fn leapers_and_lines() {
        assert_eq!(KNIGHT[0], (1 << 10) | (1 << 17));
        assert_eq!(KING[0], (1 << 1) | (1 << 8) | (1 << 9));
        assert_eq!(PAWN[0][12], (1 << 19) | (1 << 21));
        assert_eq!(PAWN[1][12], (1 << 3) | (1 << 5));
        assert_eq!(between(0, 63).count_ones(), 6);
        assert_eq!(between(0, 7), 0x7e);
        assert_eq!(between(0, 10), 0);
        assert_eq!(line(0, 9), 0x8040_2010_0804_0201);
    }
}
