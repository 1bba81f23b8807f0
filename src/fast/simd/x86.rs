//! The lanes as explicit AVX-512 vectors: [`V512`], one `__m512i` per bitboard, for the AVX-512 build of the walk.
//!
//! The portable [`super::lanes::V`] (`[u64; 8]` and loops) leaves the vectorising to LLVM, which in the AVX-512
//! build vectorised some loops the wrong way round (across the six roles, with scatters) and split others into
//! 128- and 256-bit pieces with spills. Here every operation is one intrinsic (`vpandq`, `vpsllq` with a constant
//! count, `vpopcntq`, compares into mask registers), so the lane code maps onto the instructions as written.
//!
//! Safety: the intrinsics need AVX-512 F (and VPOPCNTDQ for the popcount). A [`V512`] is only ever created inside
//! functions compiled with `#[target_feature(enable = "…,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]`, which
//! run only after `super::avx512_available()` confirmed those features; every method is `#[inline(always)]` and
//! so is compiled into such a function. The type and its constructors are private to `super` (`pub(super)`).

#![allow(unsafe_code)]

use super::lanes::{Lane, LANES};
use std::arch::x86_64::*;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not};

/// Eight 64-bit lanes in one AVX-512 register.
#[derive(Clone, Copy)]
pub(super) struct V512(__m512i);

impl V512 {
    /// All ones where `k` has a bit.
    #[inline(always)]
    fn from_mask(k: __mmask8) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_maskz_set1_epi64(k, -1) })
    }
}

impl Lane for V512 {
    #[inline(always)]
    fn splat(x: u64) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_set1_epi64(x as i64) })
    }
    #[inline(always)]
    fn from_array(a: [u64; LANES]) -> V512 {
        // Safety: see the module header (AVX-512 F); the pointer reads the 64 bytes of `a`.
        V512(unsafe { _mm512_loadu_si512(a.as_ptr().cast()) })
    }
    #[inline(always)]
    fn to_array(self) -> [u64; LANES] {
        let mut a = [0u64; LANES];
        // Safety: see the module header (AVX-512 F); the pointer writes the 64 bytes of `a`.
        unsafe { _mm512_storeu_si512(a.as_mut_ptr().cast(), self.0) };
        a
    }
    #[inline(always)]
    fn from_u32(a: &[u32; LANES]) -> V512 {
        // Safety: see the module header (AVX-512 F); the pointer reads the 32 bytes of `a`.
        V512(unsafe { _mm512_cvtepu32_epi64(_mm256_loadu_si256(a.as_ptr().cast())) })
    }
    #[inline(always)]
    fn shl(self, k: u32) -> V512 {
        // Safety: see the module header (AVX-512 F). A constant count becomes an immediate shift.
        V512(unsafe { _mm512_sllv_epi64(self.0, _mm512_set1_epi64(k as i64)) })
    }
    #[inline(always)]
    fn shr(self, k: u32) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_srlv_epi64(self.0, _mm512_set1_epi64(k as i64)) })
    }
    #[inline(always)]
    fn popcnt(self) -> V512 {
        // Safety: see the module header (AVX-512 VPOPCNTDQ).
        V512(unsafe { _mm512_popcnt_epi64(self.0) })
    }
    #[inline(always)]
    fn nonzero(self) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512::from_mask(unsafe { _mm512_test_epi64_mask(self.0, self.0) })
    }
    #[inline(always)]
    fn is_zero(self) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512::from_mask(unsafe { _mm512_testn_epi64_mask(self.0, self.0) })
    }
    #[inline(always)]
    fn any(self) -> bool {
        // Safety: see the module header (AVX-512 F).
        unsafe { _mm512_test_epi64_mask(self.0, self.0) != 0 }
    }
    #[inline(always)]
    fn eq(self, k: u64) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512::from_mask(unsafe { _mm512_cmpeq_epi64_mask(self.0, _mm512_set1_epi64(k as i64)) })
    }
    #[inline(always)]
    fn bit(self) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe {
            _mm512_sllv_epi64(
                _mm512_set1_epi64(1),
                _mm512_and_si512(self.0, _mm512_set1_epi64(63)),
            )
        })
    }
    #[inline(always)]
    fn at_most(self, k: u64) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512::from_mask(unsafe { _mm512_cmple_epu64_mask(self.0, _mm512_set1_epi64(k as i64)) })
    }
    #[inline(always)]
    fn below(self, k: u64) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512::from_mask(unsafe { _mm512_cmplt_epu64_mask(self.0, _mm512_set1_epi64(k as i64)) })
    }
    #[inline(always)]
    fn sum(self) -> u64 {
        // Safety: see the module header (AVX-512 F).
        unsafe { _mm512_reduce_add_epi64(self.0) as u64 }
    }
}

impl BitAnd for V512 {
    type Output = V512;
    #[inline(always)]
    fn bitand(self, o: V512) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_and_si512(self.0, o.0) })
    }
}

impl BitAnd<u64> for V512 {
    type Output = V512;
    #[inline(always)]
    fn bitand(self, o: u64) -> V512 {
        self & V512::splat(o)
    }
}

impl BitOr for V512 {
    type Output = V512;
    #[inline(always)]
    fn bitor(self, o: V512) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_or_si512(self.0, o.0) })
    }
}

impl BitXor for V512 {
    type Output = V512;
    #[inline(always)]
    fn bitxor(self, o: V512) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_xor_si512(self.0, o.0) })
    }
}

impl Not for V512 {
    type Output = V512;
    #[inline(always)]
    fn not(self) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_xor_si512(self.0, _mm512_set1_epi64(-1)) })
    }
}

impl Add for V512 {
    type Output = V512;
    #[inline(always)]
    fn add(self, o: V512) -> V512 {
        // Safety: see the module header (AVX-512 F).
        V512(unsafe { _mm512_add_epi64(self.0, o.0) })
    }
}

/// Eight 64-bit lanes in two AVX2 registers (lanes 0–3, 4–7), for the AVX2 build of the walk. Same safety
/// argument as [`V512`], with the AVX2 build's features (`avx2`) and `super::avx2_available()`.
#[derive(Clone, Copy)]
pub(super) struct V256([__m256i; 2]);

/// `$body` on each half of the [`V256`]s `$v` (bound to `$x`), and of `$o` (bound to `$y`): a macro, not a
/// closure, so the intrinsics are always inlined into the caller compiled with AVX2.
macro_rules! halves {
    ($v:expr, |$x:ident| $body:expr) => {{
        let v: V256 = $v;
        V256([
            {
                let $x = v.0[0];
                $body
            },
            {
                let $x = v.0[1];
                $body
            },
        ])
    }};
    ($v:expr, $o:expr, |$x:ident, $y:ident| $body:expr) => {{
        let (v, o): (V256, V256) = ($v, $o);
        V256([
            {
                let ($x, $y) = (v.0[0], o.0[0]);
                $body
            },
            {
                let ($x, $y) = (v.0[1], o.0[1]);
                $body
            },
        ])
    }};
}

impl V256 {
    /// All lanes `x` in one half.
    #[inline(always)]
    fn half(x: u64) -> __m256i {
        // Safety: see [`V256`] (AVX).
        unsafe { _mm256_set1_epi64x(x as i64) }
    }

    /// All ones where `a > b`, both read as unsigned.
    #[inline(always)]
    fn gt_unsigned(a: __m256i, b: __m256i) -> __m256i {
        let flip = V256::half(1 << 63);
        // Safety: see [`V256`] (AVX2).
        unsafe { _mm256_cmpgt_epi64(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip)) }
    }
}

impl Lane for V256 {
    #[inline(always)]
    fn splat(x: u64) -> V256 {
        V256([V256::half(x); 2])
    }
    #[inline(always)]
    fn from_array(a: [u64; LANES]) -> V256 {
        // Safety: see [`V256`] (AVX); the pointers read the 64 bytes of `a`.
        unsafe {
            V256([
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(a.as_ptr().add(4).cast()),
            ])
        }
    }
    #[inline(always)]
    fn to_array(self) -> [u64; LANES] {
        let mut a = [0u64; LANES];
        // Safety: see [`V256`] (AVX); the pointers write the 64 bytes of `a`.
        unsafe {
            _mm256_storeu_si256(a.as_mut_ptr().cast(), self.0[0]);
            _mm256_storeu_si256(a.as_mut_ptr().add(4).cast(), self.0[1]);
        }
        a
    }
    #[inline(always)]
    fn from_u32(a: &[u32; LANES]) -> V256 {
        // Safety: see [`V256`] (AVX2); the pointers read the 32 bytes of `a`.
        unsafe {
            V256([
                _mm256_cvtepu32_epi64(_mm_loadu_si128(a.as_ptr().cast())),
                _mm256_cvtepu32_epi64(_mm_loadu_si128(a.as_ptr().add(4).cast())),
            ])
        }
    }
    #[inline(always)]
    fn shl(self, k: u32) -> V256 {
        // Safety: see [`V256`] (AVX2). A constant count becomes an immediate shift.
        halves!(self, |x| unsafe {
            _mm256_sllv_epi64(x, V256::half(k as u64))
        })
    }
    #[inline(always)]
    fn shr(self, k: u32) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, |x| unsafe {
            _mm256_srlv_epi64(x, V256::half(k as u64))
        })
    }
    #[inline(always)]
    fn popcnt(self) -> V256 {
        // Per byte by a nibble table (`vpshufb`), then the bytes of each lane summed (`vpsadbw`).
        // Safety: see [`V256`] (AVX2).
        halves!(self, |x| unsafe {
            let table = _mm256_setr_epi8(
                0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3,
                2, 3, 3, 4,
            );
            let nibble = _mm256_set1_epi8(0x0f);
            let lo = _mm256_and_si256(x, nibble);
            let hi = _mm256_and_si256(_mm256_srli_epi64::<4>(x), nibble);
            let bytes = _mm256_add_epi8(
                _mm256_shuffle_epi8(table, lo),
                _mm256_shuffle_epi8(table, hi),
            );
            _mm256_sad_epu8(bytes, _mm256_setzero_si256())
        })
    }
    #[inline(always)]
    fn nonzero(self) -> V256 {
        !self.is_zero()
    }
    #[inline(always)]
    fn is_zero(self) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, |x| unsafe {
            _mm256_cmpeq_epi64(x, _mm256_setzero_si256())
        })
    }
    #[inline(always)]
    fn any(self) -> bool {
        // Safety: see [`V256`] (AVX).
        unsafe {
            let x = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(x, x) == 0
        }
    }
    #[inline(always)]
    fn eq(self, k: u64) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, |x| unsafe { _mm256_cmpeq_epi64(x, V256::half(k)) })
    }
    #[inline(always)]
    fn bit(self) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, |x| unsafe {
            _mm256_sllv_epi64(V256::half(1), _mm256_and_si256(x, V256::half(63)))
        })
    }
    #[inline(always)]
    fn at_most(self, k: u64) -> V256 {
        !halves!(self, |x| V256::gt_unsigned(x, V256::half(k)))
    }
    #[inline(always)]
    fn below(self, k: u64) -> V256 {
        halves!(self, |x| V256::gt_unsigned(V256::half(k), x))
    }
}

impl BitAnd for V256 {
    type Output = V256;
    #[inline(always)]
    fn bitand(self, o: V256) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, o, |a, b| unsafe { _mm256_and_si256(a, b) })
    }
}

impl BitAnd<u64> for V256 {
    type Output = V256;
    #[inline(always)]
    fn bitand(self, o: u64) -> V256 {
        self & V256::splat(o)
    }
}

impl BitOr for V256 {
    type Output = V256;
    #[inline(always)]
    fn bitor(self, o: V256) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, o, |a, b| unsafe { _mm256_or_si256(a, b) })
    }
}

impl BitXor for V256 {
    type Output = V256;
    #[inline(always)]
    fn bitxor(self, o: V256) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, o, |a, b| unsafe { _mm256_xor_si256(a, b) })
    }
}

impl Not for V256 {
    type Output = V256;
    #[inline(always)]
    fn not(self) -> V256 {
        self ^ V256::splat(!0)
    }
}

impl Add for V256 {
    type Output = V256;
    #[inline(always)]
    fn add(self, o: V256) -> V256 {
        // Safety: see [`V256`] (AVX2).
        halves!(self, o, |a, b| unsafe { _mm256_add_epi64(a, b) })
    }
}
