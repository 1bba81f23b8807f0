//! Vector lanes in the fast generator: the last ply's bulk counts of a depth-2 node's children, eight children
//! at once (one position per 64-bit lane, [`lanes`]), in builds compiled for AVX2 and for AVX-512 and chosen at
//! run time like the BMI2 build (`is_x86_feature_detected!`).
//!
//! `PERFTLAB_SIMD=off|avx2|avx512` forces a path (`off`: the scalar generator, the oracle); unset, the widest
//! path the CPU runs is taken (AVX-512 when it has AVX-512 F, BW, VL and VPOPCNTDQ, else AVX2, else scalar: both
//! vector paths measured faster than scalar, see the README's SIMD section). Forcing a path the CPU lacks is
//! refused.
//!
//! Children with a usable en-passant square (or, in Chess960, a castling whose rook could shield the king's
//! destination) are counted by the scalar generator; all others go through the lanes.

// Off x86-64 no vector build is compiled: the lanes are used by the tests and `count_positions` only.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

pub mod lanes;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::bitboard::attacks::Sliders;
use crate::bitboard::board::{Board, CastlingData, NO_EP};
use crate::bitboard::movegen::count;
use crate::error::{Error, Result};
use lanes::{Batch, Lane, LANES, V};

/// Which vector path counts the last ply.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Simd {
    /// Scalar only.
    Off,
    /// Eight lanes as two 256-bit halves (AVX2).
    Avx2,
    /// Eight lanes in one 512-bit register (AVX-512 F/BW/VL/VPOPCNTDQ).
    Avx512,
}

/// Whether this CPU runs the AVX2 build (AVX2 with the BMI2 build's POPCNT, BMI1, BMI2).
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        super::bmi2_available() && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether this CPU runs the AVX-512 build (AVX-512 F, BW, VL, VPOPCNTDQ, and everything of the AVX2 build).
pub fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx2_available()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Simd {
    /// Every path, scalar first.
    pub const ALL: [Simd; 3] = [Simd::Off, Simd::Avx2, Simd::Avx512];

    /// Name as accepted by `PERFTLAB_SIMD`.
    pub fn name(self) -> &'static str {
        match self {
            Simd::Off => "off",
            Simd::Avx2 => "avx2",
            Simd::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the path.
    pub fn available(self) -> bool {
        match self {
            Simd::Off => true,
            Simd::Avx2 => avx2_available(),
            Simd::Avx512 => avx512_available(),
        }
    }

    /// The default: the fastest measured path this CPU runs.
    pub fn best() -> Simd {
        if avx512_available() {
            Simd::Avx512
        } else if avx2_available() {
            Simd::Avx2
        } else {
            Simd::Off
        }
    }

    /// Parse a `PERFTLAB_SIMD` value and check that the CPU has the path.
    ///
    /// # Errors
    /// [`Error::Usage`] naming the variable and the value when it is unknown or the CPU lacks the features.
    pub fn parse(value: &str) -> Result<Simd> {
        let s = Simd::ALL
            .into_iter()
            .find(|s| s.name() == value)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "PERFTLAB_SIMD: unknown value '{value}' (expected off, avx2 or avx512)"
                ))
            })?;
        if !s.available() {
            return Err(Error::Usage(format!(
                "PERFTLAB_SIMD={value}: this CPU lacks the instructions of that path (avx2 needs AVX2 and \
                 BMI2, avx512 also AVX-512 F, BW, VL and VPOPCNTDQ)"
            )));
        }
        Ok(s)
    }

    /// `PERFTLAB_SIMD` if set (checked), else [`Simd::best`].
    ///
    /// # Errors
    /// As [`Simd::parse`].
    pub fn from_env() -> Result<Simd> {
        match std::env::var("PERFTLAB_SIMD") {
            Ok(v) => Simd::parse(&v),
            Err(std::env::VarError::NotPresent) => Ok(Simd::best()),
            Err(std::env::VarError::NotUnicode(v)) => Err(Error::Usage(format!(
                "PERFTLAB_SIMD: unknown value {v:?} (expected off, avx2 or avx512)"
            ))),
        }
    }
}

/// Whether the lanes cannot count `c`: a usable en-passant square, or a castling right of the side to move
/// whose squares between king, rook and destinations are empty and whose rook could shield the king's
/// destination ([`lanes::shield`]).
#[inline(always)]
pub fn needs_scalar(c: &Board, cd: &CastlingData) -> bool {
    if c.ep != NO_EP {
        return true;
    }
    let us = c.turn as usize;
    let mut rights = (c.castling >> (2 * us)) & 3;
    if rights == 0 {
        return false;
    }
    let occ = c.colors[0] | c.colors[1];
    while rights != 0 {
        let right = 2 * us + rights.trailing_zeros() as usize;
        rights &= rights - 1;
        if cd.empty[right] & occ == 0 && lanes::shield(cd, right) {
            return true;
        }
    }
    false
}

/// The sum of the bulk counts of `b`'s children by the first `len` moves of `moves`: eight at a time, each child
/// made and counted in the lanes ([`lanes::children`], [`lanes::count`]), the lanes that the lanes cannot count
/// then made and counted one by one by the scalar generator. `moves` must hold at least `len` rounded up to a
/// multiple of [`LANES`] entries: the lanes past `len` are loaded whatever they hold and not counted (a whole
/// batch of moves is one vector load). Inlined into the walk, so it is compiled with that walk's target features.
#[inline(always)]
pub fn lane_children<S: Sliders, L: Lane>(
    b: &Board,
    cd: &CastlingData,
    moves: &[u32],
    len: usize,
) -> u64 {
    let us = (b.turn ^ 1) as usize;
    let index = L::from_array([0, 1, 2, 3, 4, 5, 6, 7]);
    let mut acc = L::splat(0);
    let mut n = 0u64;
    let mut start = 0;
    while start < len {
        let chunk: &[u32; LANES] = moves[start..start + LANES].try_into().unwrap();
        let m = L::from_u32(chunk);
        let real = index.below((len - start) as u64);
        let (batch, scalar) = lanes::children(b, cd, m);
        acc = acc + (lanes::count(us, &batch, cd) & real & !scalar);
        let rare = scalar & real;
        if rare.any() {
            let rare = rare.to_array();
            for (i, &x) in chunk.iter().enumerate() {
                if rare[i] != 0 {
                    n += count::<S>(&b.make::<false>(cd, x), cd);
                }
            }
        }
        start += LANES;
    }
    n + acc.sum()
}

/// [`lane_children`] in pairs of AVX2 registers (`x86::V256`), for the AVX2 walk.
///
/// # Safety
/// The CPU must have the AVX2 build's features (AVX2, BMI2: `avx2_available()`); the caller is compiled with
/// them (see `x86`'s safety note).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline(always)]
pub unsafe fn lane_children_avx2<S: Sliders>(
    b: &Board,
    cd: &CastlingData,
    moves: &[u32],
    len: usize,
) -> u64 {
    lane_children::<S, x86::V256>(b, cd, moves, len)
}

/// [`lane_children`] in AVX-512 registers (`x86::V512`), for the AVX-512 walk.
///
/// # Safety
/// The CPU must have the AVX-512 build's features (`avx512_available()`); the caller is compiled with them (see
/// `x86`'s safety note).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline(always)]
pub unsafe fn lane_children_avx512<S: Sliders>(
    b: &Board,
    cd: &CastlingData,
    moves: &[u32],
    len: usize,
) -> u64 {
    lane_children::<S, x86::V512>(b, cd, moves, len)
}

/// The same sum by the scalar generator alone (the walk's default).
#[inline(always)]
pub fn scalar_children<S: Sliders>(b: &Board, cd: &CastlingData, moves: &[u32], len: usize) -> u64 {
    moves[..len]
        .iter()
        .map(|&m| count::<S>(&b.make::<false>(cd, m), cd))
        .sum()
}

/// Bulk counts of many positions (all with the same side to move, none of them [`needs_scalar`]) summed: the
/// lanes in the build of `simd`, or the scalar PEXT generator for [`Simd::Off`] (for [`check_lanes`] and the
/// tests; a path this CPU lacks runs the plain build of the lanes).
pub fn count_positions(simd: Simd, boards: &[Board], cd: &CastlingData) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // Safety (the three calls): each runs only after `available()` confirmed the features it enables.
        if simd == Simd::Off && super::bmi2_available() {
            #[allow(unsafe_code)]
            return unsafe { positions_scalar_bmi2(boards, cd) };
        }
        if simd == Simd::Avx2 && simd.available() {
            #[allow(unsafe_code)]
            return unsafe { positions_avx2(boards, cd) };
        }
        if simd == Simd::Avx512 && simd.available() {
            #[allow(unsafe_code)]
            return unsafe { positions_avx512(boards, cd) };
        }
    }
    if simd == Simd::Off {
        return boards
            .iter()
            .map(|b| count::<crate::bitboard::attacks::MagicSliders>(b, cd))
            .sum();
    }
    positions_lanes::<V>(boards, cd)
}

#[inline(always)]
fn positions_lanes<L: Lane>(boards: &[Board], cd: &CastlingData) -> u64 {
    let mut acc = L::splat(0);
    for chunk in boards.chunks(LANES) {
        let mut batch = Batch::new();
        for (i, b) in chunk.iter().enumerate() {
            batch.set(i, b);
        }
        let v = lanes::count(chunk[0].turn as usize, &batch.to::<L>(), cd);
        let keep = L::from_array([0, 1, 2, 3, 4, 5, 6, 7]).below(chunk.len() as u64);
        acc = acc + (v & keep);
    }
    acc.sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2")]
fn positions_scalar_bmi2(boards: &[Board], cd: &CastlingData) -> u64 {
    boards
        .iter()
        .map(|b| count::<crate::bitboard::attacks::PextSliders>(b, cd))
        .sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2")]
fn positions_avx2(boards: &[Board], cd: &CastlingData) -> u64 {
    positions_lanes::<x86::V256>(boards, cd)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]
fn positions_avx512(boards: &[Board], cd: &CastlingData) -> u64 {
    positions_lanes::<x86::V512>(boards, cd)
}

/// Check the lanes of `simd` against the scalar generator's `moves` legal moves of `b` (the per-node check under
/// `verify` and `legal_moves` on a vector path; positions the lanes leave to the scalar generator, and
/// [`Simd::Off`], pass unchecked).
///
/// # Errors
/// [`Error::Mismatch`] naming the position and both counts.
pub fn check_lanes(simd: Simd, b: &Board, cd: &CastlingData, moves: usize) -> Result<()> {
    if simd == Simd::Off || needs_scalar(b, cd) {
        return Ok(());
    }
    let lanes = count_positions(simd, std::slice::from_ref(b), cd);
    if lanes != moves as u64 {
        return Err(Error::Mismatch(format!(
            "cpu {}: the vector lanes count {lanes} legal moves, the scalar generator {moves}, in {}",
            simd.name(),
            b.to_setup(cd).to_fen()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
