//! Attack tables uploaded to the GPU (a read-only storage buffer: a WGSL `const` array indexed dynamically is
//! copied whole by naga on every access, about 15× slower than a storage buffer on lavapipe). The leaper tables
//! and the `between`/`line` masks are the fast CPU generator's own (one table, two users; the reference
//! generator stays independent and checks both); the rays are built here by a plain square walker. The layout
//! is described in `shaders/common.wgsl`: knight, king, pawn attacks, rays in eight directions, then
//! `between` and `line`, 64 × 64 each (used by the lean generator `shaders/lean.wgsl`), then the slider
//! magic entries (per square: mask, multiplier, and `(first index, shift)`) and the rook and bishop attack
//! blocks they index, then the castling masks (squares to be empty, king paths) by king square and rook file.
//! The masks and block offsets are the fast CPU generator's ("fancy" magics, `src/fast/magics.rs`); the
//! multipliers are this file's own 32-bit "split" magics ([`magic_index`]: two 32-bit multiplies, no 64-bit
//! product, as Stockfish does on 32-bit targets), found by `tests::search_magics`; the attack sets stored
//! here come from the plain square walker (`attacks::rook_walk`/`bishop_walk`), so a wrong multiplier shows
//! up as a collision when the table is built (an assertion) or a wrong count, never a silent table shared
//! with the CPU side.

use crate::bitboard::attacks::{self, Magic};

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
/// Start of the castling masks of the squares that must be empty (FIDE 3.8.2.2.2): at `CASTLE_EMPTY + 8 *
/// king square + rook file`, the squares the king and the rook pass or reach, less the king's and rook's own
/// (for a king and rook on the same rank; Chess960 rules, standard chess as their special case).
pub const CASTLE_EMPTY: usize = BISHOP_ATTACKS + 5_248;
/// Start of the castling king paths (FIDE 3.8.2.2.1): at `CASTLE_PATH + 8 * king square + rook file`, the
/// squares the king stands on, crosses and reaches, none of which may be attacked.
pub const CASTLE_PATH: usize = CASTLE_EMPTY + 8 * 64;
/// Number of `vec2<u32>` entries.
pub const LEN: usize = CASTLE_PATH + 8 * 64;

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

/// The 32-bit split magic multipliers of the rook lookups by square (low word for the low half of the
/// occupancy, high word for the high half): the first that `tests::search_magics` finds (Stockfish's
/// xorshift64* generator and its 32-bit seeds by rank, sparse candidates); with the fast generator's masks and
/// block sizes (`64 - shift` bits) every subset of every mask gets a collision-free index (asserted by
/// `fill_magic`, checked exhaustively against the walker by a test).
const ROOK_MAGICS_32: [u64; 64] = [
    0x1100400000808020,
    0x1100400000808020,
    0x00200a10e0800890,
    0x010a00c000800410,
    0x9080084080810404,
    0x04081a0481000201,
    0x48600480102008a1,
    0x8201228080801249,
    0x0100500000440204,
    0x1020031000200804,
    0x2010802000082008,
    0x2010802000082008,
    0x20500806801a0022,
    0x20500806801a0022,
    0x038421000a008022,
    0x0108442002200811,
    0x8002c02009010202,
    0x2041200441100040,
    0x2400300100004420,
    0x0400090210004042,
    0x0580100800080102,
    0x03100c0020020202,
    0x0005020048820101,
    0x2491040100000201,
    0x1080010200424021,
    0x3042050080908022,
    0x004820802c020212,
    0x1010006420000921,
    0x58cc050008229801,
    0x0014400200408901,
    0xc008104230680104,
    0x0d00048201380041,
    0x0040105040900823,
    0x0040105040900823,
    0x0080220600008610,
    0x0080502010008289,
    0x1640040011120008,
    0x0080048000a41102,
    0x0040010000028c4a,
    0x0081004000009601,
    0x0020800000049050,
    0x2020200802409009,
    0x0184202200080441,
    0x0821000800210010,
    0x0302040201006208,
    0x0400402220054302,
    0x004020808200e001,
    0x0400404030110081,
    0x0040302000900080,
    0x60108080c0086941,
    0x041010200c002106,
    0x801180800810400a,
    0x041010200c002106,
    0x0890c80401002004,
    0x11b0201000104082,
    0x0180028090800871,
    0x0280006104304013,
    0x00a1405140040221,
    0x2011482520086005,
    0x0404405290881822,
    0x12508c220a640482,
    0x0818211260000402,
    0x0012008104000a85,
    0x20009023018000c1,
];

/// The bishops' multipliers, as [`ROOK_MAGICS_32`].
const BISHOP_MAGICS_32: [u64; 64] = [
    0x31010a0044021521,
    0x0080200710301002,
    0x4221080080049122,
    0x1000124640080581,
    0x84084410001450c0,
    0x900808020a060104,
    0x0848401c04c0d808,
    0x01100a40c3808528,
    0x4801304440803027,
    0x024081202006901b,
    0x8606120002000401,
    0x0880102091a82404,
    0x1040002a20030a32,
    0x44201a0160021091,
    0x1008080104402244,
    0x0182203100450909,
    0x12100c4302280010,
    0x9a58410212580017,
    0x0142058800102009,
    0x0620a00400008104,
    0x0301148200010002,
    0x8900900800204026,
    0x0105200108024202,
    0x00420a0410804092,
    0x4802086023601201,
    0x1811040840b00600,
    0x0900c20004031000,
    0x2010201840004400,
    0x0080805008101440,
    0x0080a00c11006100,
    0x0424010600114904,
    0x0424010600114904,
    0x1220200802021804,
    0x0814040000015102,
    0x0006c10180040c04,
    0x401880a000000208,
    0x0812480883820042,
    0x0080808025149011,
    0x0006c10180040c04,
    0x0101c2007000812a,
    0x2402120200880202,
    0x0863244230004108,
    0x0120820000114108,
    0x2090110022400099,
    0x1410020240000202,
    0xb040822001411001,
    0x020031000204012a,
    0x81420500109001c1,
    0x0828000078040105,
    0x0402063624084424,
    0x40b0000124240049,
    0x504400000c040252,
    0x020a050102880092,
    0x100220000130a004,
    0x008108540051302b,
    0x708028a2008d1044,
    0x10940401000a0101,
    0x0118244024002821,
    0x8406062000441221,
    0x020a020000030108,
    0x10020225200102a0,
    0x02c6220020400120,
    0x080e910800104144,
    0x50c200800a982129,
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
        &ROOK_MAGICS_32,
        attacks::rook_walk,
    );
    fill_magic(
        &mut t,
        MAGIC_BISHOP,
        BISHOP_ATTACKS,
        &attacks::BISHOP_ENTRIES,
        &BISHOP_MAGICS_32,
        attacks::bishop_walk,
    );
    for ksq in 0..64 {
        for file in 0..8 {
            let (empty, path) = castle_masks(ksq, (ksq & 56) + file);
            t[CASTLE_EMPTY + 8 * ksq + file] = empty;
            t[CASTLE_PATH + 8 * ksq + file] = path;
        }
    }
    t
}

/// The castling masks for a king on `ksq` and its castling rook on `rsq` (same rank): the squares that must
/// be empty but for king and rook (FIDE 3.8.2.2.2: every square between the king's square and its
/// destination and between the rook's square and its destination, both destinations included), and the
/// king's path (3.8.2.2.1: its square, the squares it crosses and its destination). Chess960 rules, standard
/// chess as their special case: the king goes to the c-file (rook to the d-file) towards a rook on a lower
/// file, to the g-file (rook to f) otherwise. Zero when `rsq == ksq` (no castling).
fn castle_masks(ksq: usize, rsq: usize) -> (u64, u64) {
    if rsq == ksq {
        return (0, 0);
    }
    let base = ksq & 56;
    let (kt, rt) = if rsq > ksq {
        (base + 6, base + 5)
    } else {
        (base + 2, base + 3)
    };
    let span = |a: usize, b: usize| (a.min(b)..=a.max(b)).fold(0u64, |m, s| m | 1 << s);
    let path = span(ksq, kt);
    let empty = (path | span(rsq, rt)) & !(1 << ksq | 1 << rsq);
    (empty, path)
}

/// The index the shader computes for occupancy `occ` (already masked) with a 32-bit split magic: the low
/// half times the magic's low word XOR the high half times its high word (two wrapping 32-bit multiplies:
/// WGSL has no 64-bit or high-half multiply), shifted right by `shift` (`32 - bits`), so below `2^bits`.
/// The Rust twin of `magic_att` in `shaders/lean.wgsl`.
pub fn magic_index(occ: u64, magic: u64, shift: u32) -> u32 {
    let lo = (occ as u32).wrapping_mul(magic as u32);
    let hi = ((occ >> 32) as u32).wrapping_mul((magic >> 32) as u32);
    (lo ^ hi) >> shift
}

/// Write one slider's magic entries at `entries` (mask, 32-bit split multiplier, `(first index, 32 - bits)`)
/// and its attack blocks at `blocks` (every subset of every square's mask, by the carry-rippler walk; the
/// masks and block offsets of the fast generator's `entries`), asserting that no two subsets with different
/// attack sets share an index.
fn fill_magic(
    t: &mut [u64],
    entries: usize,
    blocks: usize,
    masks: &[Magic; 64],
    magics: &[u64; 64],
    walk: fn(usize, u64) -> u64,
) {
    for (sq, (e, &magic)) in masks.iter().zip(magics).enumerate() {
        let first = blocks + e.offset;
        let shift = 32 - (64 - e.shift);
        t[entries + 3 * sq] = e.mask;
        t[entries + 3 * sq + 1] = magic;
        t[entries + 3 * sq + 2] = first as u64 | (u64::from(shift) << 32);
        let mut subset = 0u64;
        loop {
            let i = first + magic_index(subset, magic, shift) as usize;
            assert!(
                i < first + (1 << (64 - e.shift)),
                "magic index out of block on square {sq}"
            );
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

    /// Stockfish's xorshift64* generator (`PRNG` in its misc.h).
    struct Prng(u64);

    impl Prng {
        fn rand(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(2_685_821_657_736_338_717)
        }
    }

    /// The search that found [`ROOK_MAGICS_32`] and [`BISHOP_MAGICS_32`], as Stockfish's `init_magics` does
    /// for its 32-bit build: per square a generator seeded by the square's rank (Stockfish's 32-bit seeds),
    /// sparse candidates (three draws ANDed) whose 64-bit product with the mask has at least 6 of its top 8
    /// bits set, the first candidate under which every subset of the mask gets an index whose other subsets
    /// (if any) have the same attack set.
    pub(super) fn search_magics(masks: &[Magic; 64], walk: fn(usize, u64) -> u64) -> [u64; 64] {
        const SEEDS: [u64; 8] = [8977, 44560, 54343, 38998, 5731, 95205, 104912, 17020];
        let mut out = [0u64; 64];
        for (sq, e) in masks.iter().enumerate() {
            let bits = 64 - e.shift;
            let mut subsets = Vec::new();
            let mut s = 0u64;
            loop {
                subsets.push((s, walk(sq, s)));
                s = s.wrapping_sub(e.mask) & e.mask;
                if s == 0 {
                    break;
                }
            }
            let mut rng = Prng(SEEDS[sq / 8]);
            out[sq] = loop {
                let magic = loop {
                    let m = rng.rand() & rng.rand() & rng.rand();
                    if (m.wrapping_mul(e.mask) >> 56).count_ones() >= 6 {
                        break m;
                    }
                };
                let mut seen = vec![0u64; 1 << bits];
                let ok = subsets.iter().all(|&(occ, att)| {
                    let i = magic_index(occ, magic, 32 - bits) as usize;
                    let fits = seen[i] == 0 || seen[i] == att;
                    seen[i] = att;
                    fits
                });
                if ok {
                    break magic;
                }
            };
        }
        out
    }

    #[test]
    fn magics_are_what_the_search_finds() {
        assert_eq!(
            search_magics(&attacks::ROOK_ENTRIES, attacks::rook_walk),
            ROOK_MAGICS_32
        );
        assert_eq!(
            search_magics(&attacks::BISHOP_ENTRIES, attacks::bishop_walk),
            BISHOP_MAGICS_32
        );
    }

    /// Every subset of every square's mask finds the walker's attack set in the uploaded table, through the
    /// entry the shader reads (mask, multiplier, first index and shift), and stays inside its square's block.
    #[test]
    fn every_subset_finds_its_attacks() {
        let t = build();
        for (entries, masks, walk, blocks) in [
            (
                MAGIC_ROOK,
                &attacks::ROOK_ENTRIES,
                attacks::rook_walk as fn(usize, u64) -> u64,
                ROOK_ATTACKS,
            ),
            (
                MAGIC_BISHOP,
                &attacks::BISHOP_ENTRIES,
                attacks::bishop_walk,
                BISHOP_ATTACKS,
            ),
        ] {
            for (sq, e) in masks.iter().enumerate() {
                let (mask, magic, meta) = (
                    t[entries + 3 * sq],
                    t[entries + 3 * sq + 1],
                    t[entries + 3 * sq + 2],
                );
                let (first, shift) = (meta as u32 as usize, (meta >> 32) as u32);
                assert_eq!(first, blocks + e.offset);
                let mut subset = 0u64;
                loop {
                    let i = magic_index(subset, magic, shift) as usize;
                    assert!(i < 1 << (64 - e.shift), "sq {sq}");
                    assert_eq!(t[first + i], walk(sq, subset), "sq {sq} occ {subset:#x}");
                    subset = subset.wrapping_sub(mask) & mask;
                    if subset == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// The offsets `shaders/common.wgsl` indexes the table with are this file's.
    #[test]
    fn wgsl_offsets_match() {
        let src = include_str!("../../shaders/common.wgsl");
        for (name, want) in [
            ("T_KNIGHT", 0),
            ("T_KING", 64),
            ("T_PAWN", 128),
            ("T_RAY", 256),
            ("T_BETWEEN", BETWEEN),
            ("T_LINE", LINE),
            ("T_MAGIC_ROOK", MAGIC_ROOK),
            ("T_MAGIC_BISHOP", MAGIC_BISHOP),
            ("T_CASTLE_EMPTY", CASTLE_EMPTY),
            ("T_CASTLE_PATH", CASTLE_PATH),
        ] {
            let prefix = format!("const {name}: u32 = ");
            let line = src.lines().find(|l| l.starts_with(&prefix)).expect(name);
            let got: usize = line[prefix.len()..].trim_end_matches("u;").parse().unwrap();
            assert_eq!(got, want, "{name}");
        }
    }

    /// The castling masks of the standard positions (FIDE 3.8.2) and of a Chess960 one.
    #[test]
    fn castling_masks() {
        let t = build();
        let sq = |s: &str| {
            let b = s.as_bytes();
            usize::from(b[0] - b'a') + 8 * usize::from(b[1] - b'1')
        };
        let set = |ss: &[&str]| ss.iter().fold(0u64, |m, s| m | 1 << sq(s));
        let at = |table: usize, k: &str, r: &str| t[table + 8 * sq(k) + sq(r) % 8];
        // White king side e1/h1: f1, g1 empty; the king's path e1, f1, g1.
        assert_eq!(at(CASTLE_EMPTY, "e1", "h1"), set(&["f1", "g1"]));
        assert_eq!(at(CASTLE_PATH, "e1", "h1"), set(&["e1", "f1", "g1"]));
        // Black queen side e8/a8: b8, c8, d8 empty; the king's path e8, d8, c8 (b8 may be attacked).
        assert_eq!(at(CASTLE_EMPTY, "e8", "a8"), set(&["b8", "c8", "d8"]));
        assert_eq!(at(CASTLE_PATH, "e8", "a8"), set(&["e8", "d8", "c8"]));
        // Chess960, king b1, rook a1, queen side: king to c1, rook to d1: c1, d1 empty; the path b1, c1.
        assert_eq!(at(CASTLE_EMPTY, "b1", "a1"), set(&["c1", "d1"]));
        assert_eq!(at(CASTLE_PATH, "b1", "a1"), set(&["b1", "c1"]));
        // Chess960, king g1, rook h1: the king stays, the rook goes to f1: only f1 must be empty.
        assert_eq!(at(CASTLE_EMPTY, "g1", "h1"), set(&["f1"]));
        assert_eq!(at(CASTLE_PATH, "g1", "h1"), set(&["g1"]));
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
