//! Rust mirrors of the WGSL structs (`#[repr(C)]`, bytemuck `Pod`), one per struct, next to their twins in
//! `shaders/common.wgsl` (`Pos`, `CacheEntry`, `Params`), and the conversion of a
//! [`Setup`] into the GPU position layout.

use crate::position::Setup;
#[cfg(test)]
use crate::types::Role;
use crate::types::{CastlingSide, Color};
use bytemuck::{Pod, Zeroable};

/// WGSL `Pos`: six role bitboards and the white pieces as (low, high) word pairs, castling rook squares (one
/// byte per right, 64 = none) and `info` (bit 0 side to move, bits 8-15 en-passant square, 64 = none).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Pod, Zeroable)]
pub struct GpuPos {
    /// Pawns, knights, bishops, rooks, queens, kings, white pieces.
    pub bb: [[u32; 2]; 7],
    /// Rook squares of the rights: white king side, white queen side, black king side, black queen side.
    pub castle: u32,
    /// Side to move and en-passant square.
    pub info: u32,
}

/// WGSL `Params`: per-dispatch parameters (see the field comments in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct GpuParams {
    /// Positions (threads) in the dispatch.
    pub n: u32,
    /// Remaining depth of the level.
    pub remaining: u32,
    /// Kernel-specific switch (cache kernels: buffers of the table).
    pub mode: u32,
    /// Hash table size minus one.
    pub mask: u32,
    /// Kernel-specific (cache kernels: entries of each buffer of the bound table).
    pub extra: u32,
    /// First position of the slice (expand) or chunk (scan, scan_add) of a level this dispatch covers (thread
    /// `t` handles position `first + t`); cache kernels: the first buffer of the group of (up to four) table
    /// buffers bound.
    pub first: u32,
    /// Offset subtracted from the prefix sums of a slice (expand.wgsl: the slice's first child).
    pub base: u32,
    /// Padding to 32 bytes.
    pub pad: u32,
}

/// WGSL `CacheEntry`: one 16-byte entry of the transposition tables: a subtree count and its 64-bit key
/// ([`tt_key`]: two 32-bit hashes of the whole position and the remaining depth, low bit forced to 1) stored
/// XOR the count, so an entry torn by concurrent writers (words of two stores) fails the key check.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct GpuCacheEntry {
    /// Key XOR count, low and high words.
    pub check: [u32; 2],
    /// Count, low and high words.
    pub count: [u32; 2],
}

const NONE: u32 = 64;

/// Twin of `mix` in `shaders/common.wgsl`: one step of [`pos_hash`], a multiply–xorshift finaliser of `h ^ w`
/// (a bijection of u32).
#[cfg(test)]
pub fn mix(h: u32, w: u32) -> u32 {
    let mut x = (h ^ w).wrapping_mul(0x9E37_79B1);
    x ^= x >> 15;
    x = x.wrapping_mul(0x85EB_CA77);
    x ^ (x >> 13)
}

/// Twin of `pos_hash` in `shaders/common.wgsl`: a 32-bit hash of the whole position, `mix` chained over its 16
/// words from `seed`.
#[cfg(test)]
pub fn pos_hash(p: &GpuPos, seed: u32) -> u32 {
    let words = p.bb.iter().flatten().chain([&p.castle, &p.info]);
    words.fold(seed, |h, &w| mix(h, w))
}

/// Twin of `tt_key` in `shaders/common.wgsl`: the 64-bit check of a position's transposition-table entry at
/// remaining depth `remaining` (two seeds of [`pos_hash`] mixed with the depth; low bit forced to 1).
#[cfg(test)]
pub fn tt_key(p: &GpuPos, remaining: u32) -> [u32; 2] {
    let [s0, s1, ..] = tt_seeds(remaining);
    [pos_hash(p, s0) | 1, pos_hash(p, s1)]
}

/// Twin of `tt_buffer` and `tt_entry` in `shaders/common.wgsl`: `(buffer, entry)` of a position's entry at
/// remaining depth `remaining` in a table of `parts` buffers of `len` entries each, from two more seeds of
/// [`pos_hash`] (independent of [`tt_key`]'s check words).
#[cfg(test)]
pub fn tt_slot(p: &GpuPos, remaining: u32, parts: u32, len: u32) -> (u32, u32) {
    let [.., entry, buffer] = tt_seeds(remaining);
    let buffer = if parts > 1 {
        pos_hash(p, buffer) % parts
    } else {
        0
    };
    (buffer, pos_hash(p, entry) % len.max(1))
}

/// The four seeds of [`tt_key`] and [`tt_slot`] at remaining depth `remaining`: the check's two words, then
/// the entry's and the buffer's (the literals of `tt_key`, `tt_entry` and `tt_buffer` in
/// `shaders/common.wgsl`).
#[cfg(test)]
pub fn tt_seeds(remaining: u32) -> [u32; 4] {
    let d = remaining.wrapping_mul(0x9E37_79B9);
    [
        0x6C8E_9CF5u32.wrapping_add(d),
        0x2F3A_1B97 ^ d,
        0x68E3_1DA4u32.wrapping_add(d),
        0xB529_7A4D ^ d,
    ]
}

impl GpuPos {
    /// The GPU layout of `setup` (clocks are dropped: perft does not depend on them).
    pub fn from_setup(setup: &Setup) -> GpuPos {
        let mut bb = [0u64; 7];
        for (i, piece) in setup.board.iter().enumerate() {
            if let Some(p) = piece {
                bb[p.role as usize] |= 1 << i;
                if p.color == Color::White {
                    bb[6] |= 1 << i;
                }
            }
        }
        let mut castle = 0;
        for (i, (color, side)) in [
            (Color::White, CastlingSide::KingSide),
            (Color::White, CastlingSide::QueenSide),
            (Color::Black, CastlingSide::KingSide),
            (Color::Black, CastlingSide::QueenSide),
        ]
        .into_iter()
        .enumerate()
        {
            let sq = setup
                .castling
                .rook(color, side)
                .map_or(NONE, |s| s.index() as u32);
            castle |= sq << (8 * i);
        }
        let ep = setup.ep_square.map_or(NONE, |s| s.index() as u32);
        GpuPos {
            bb: bb.map(|b| [b as u32, (b >> 32) as u32]),
            castle,
            info: setup.turn as u32 | ep << 8,
        }
    }

    /// Number of pieces of `role` (both colours).
    #[cfg(test)]
    pub fn count(&self, role: Role) -> u32 {
        let [lo, hi] = self.bb[role as usize];
        lo.count_ones() + hi.count_ones()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_sizes_match_wgsl() {
        assert_eq!(std::mem::size_of::<GpuPos>(), 64);
        assert_eq!(std::mem::size_of::<GpuParams>(), 32);
        assert_eq!(std::mem::size_of::<GpuCacheEntry>(), 16);
    }

    #[test]
    fn startpos_layout() {
        let p = GpuPos::from_setup(&Setup::startpos());
        assert_eq!(p.bb[0], [0x0000_FF00, 0x00FF_0000]);
        assert_eq!(p.bb[6], [0x0000_FFFF, 0]);
        assert_eq!(p.count(Role::King), 2);
        assert_eq!(p.castle, 7 | 63 << 16 | 56 << 24);
        assert_eq!(p.info, 64 << 8);
    }
}
