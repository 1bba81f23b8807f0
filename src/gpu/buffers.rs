//! Rust mirrors of the WGSL structs (`#[repr(C)]`, bytemuck `Pod`), one per struct, next to their twins in
//! `shaders/common.wgsl` (`Pos`, `CacheEntry`, `Params`), and the conversion of a
//! [`Setup`] into the GPU position layout.

use crate::position::Setup;
use crate::types::{CastlingSide, Color, Role};
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
    /// Kernel-specific switch (cache kernels: buffers of the bound table).
    pub mode: u32,
    /// Hash table size minus one.
    pub mask: u32,
    /// Kernel-specific (cache kernels: entries of each buffer of the bound table).
    pub extra: u32,
    /// First position of the slice (expand) or chunk (scan, scan_add) of a level this dispatch covers (thread
    /// `t` handles position `first + t`).
    pub first: u32,
    /// Offset subtracted from the prefix sums of a slice (expand.wgsl: the slice's first child).
    pub base: u32,
    /// Padding to 32 bytes.
    pub pad: u32,
}

/// WGSL `CacheEntry`: one 16-byte entry of the transposition tables: a subtree count and its 64-bit key
/// (two 32-bit hashes of the whole position and the remaining depth, low bit forced to 1) stored XOR the
/// count, so an entry torn by concurrent writers (words of two stores) fails the key check.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Pod, Zeroable)]
pub struct GpuCacheEntry {
    /// Key XOR count, low and high words.
    pub check: [u32; 2],
    /// Count, low and high words.
    pub count: [u32; 2],
}

const NONE: u32 = 64;

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
