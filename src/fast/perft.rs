//! The perft walk: recursion with bulk counting at the last ply and the shared hash table, split into
//! parallel work at a shallow frontier where transpositions are merged (each distinct position counted once,
//! times its multiplicity; the statistics walk in `super::stats` splits the same way).
//!
//! The hot walk is compiled four times from one macro: plainly (portable x86-64 or any target), with
//! `#[target_feature(enable = "popcnt,bmi1,bmi2")]`, so that `count_ones` is one instruction and the PEXT
//! lookups are inlined, and twice more with AVX2 and AVX-512 added, where the last ply is counted in vector
//! lanes (`super::simd`). [`Flavor`] picks one at run time (`is_x86_feature_detected!`); the environment
//! variables `PERFTLAB_SLIDERS=magic|pext|portable` and `PERFTLAB_SIMD=off|avx2|avx512` override the choice.
//! Off x86-64 (wasm32, ARM) only the portable build is compiled.
// Off x86-64 the dispatch's `unsafe` blocks call the portable build, a safe function.
#![cfg_attr(not(target_arch = "x86_64"), allow(unused_unsafe))]

use super::hash::HashTable;
use super::simd::lanes::LANES;
use super::simd::{self, Simd};
use crate::bitboard::attacks::{MagicSliders, PextSliders, Sliders};
use crate::bitboard::board::{Board, CastlingData};
use crate::bitboard::frontier;
use crate::bitboard::movegen::{self, count, moves, to_move};
use rayon::prelude::*;

/// Shallowest remaining depth whose subtree counts are stored in the table.
const MIN_HASH_DEPTH: u32 = 2;

/// Capacity of [`Buffer`]: more than any legal position's moves (218); positions with impossible material
/// that exceed it fall back to the recursive walk.
const BUFFER_MOVES: usize = 256;

/// A fixed stack buffer of moves for the last two plies (no allocation); `full` when some did not fit. At most
/// [`BUFFER_MOVES`] are kept; [`LANES`] more entries let the lanes load every batch of eight whole.
struct Buffer {
    moves: [u32; BUFFER_MOVES + LANES],
    len: usize,
    full: bool,
}

impl Buffer {
    #[inline(always)]
    fn new() -> Buffer {
        Buffer {
            moves: [0; BUFFER_MOVES + LANES],
            len: 0,
            full: false,
        }
    }

    #[inline(always)]
    fn push(&mut self, m: u32) {
        if self.len < BUFFER_MOVES {
            self.moves[self.len] = m;
            self.len += 1;
        } else {
            self.full = true;
        }
    }
}

impl movegen::Consumer for Buffer {
    #[inline(always)]
    fn take(&mut self, m: u32) {
        self.push(m);
    }
}

macro_rules! walker {
    ($name:ident, $sink:ident, $children:ident $(, #[$attr:meta])*) => {
        /// Recurses into each child as the generator yields it (no move list).
        struct $sink<'a, S, const HASH: bool> {
            b: &'a Board,
            cd: &'a CastlingData,
            depth: u32,
            tt: Option<&'a HashTable>,
            n: u64,
            _s: std::marker::PhantomData<S>,
        }

        impl<S: Sliders, const HASH: bool> movegen::Consumer for $sink<'_, S, HASH> {
            #[inline(always)]
            fn take(&mut self, m: u32) {
                let child = self.b.make::<HASH>(self.cd, m);
                // Safety: only reached from `$name`, whose caller guaranteed its target features.
                #[allow(unused_unsafe, unsafe_code)]
                let n = unsafe { $name::<S, HASH>(&child, self.cd, self.depth - 1, self.tt) };
                self.n += n;
            }
        }

        $(#[$attr])*
        fn $name<S: Sliders, const HASH: bool>(
            b: &Board,
            cd: &CastlingData,
            depth: u32,
            tt: Option<&HashTable>,
        ) -> u64 {
            if depth == 1 {
                return count::<S>(b, cd);
            }
            if HASH && depth >= MIN_HASH_DEPTH {
                if let Some(t) = tt {
                    if let Some(n) = t.probe(b.key, b.check, depth) {
                        return n;
                    }
                }
            }
            let mut leaves = None;
            if depth == 2 {
                // The last two plies: the moves into a stack buffer, then one inlined bulk count per child.
                let mut buf = Buffer::new();
                movegen::generate::<S, _>(b, cd, &mut buf);
                if !buf.full {
                    // Safety: the lane builds' `$children` need this walk's target features, which `$name`'s
                    // caller guaranteed (the scalar ones are safe functions).
                    #[allow(unused_unsafe, unsafe_code)]
                    let n = unsafe { simd::$children::<S>(b, cd, &buf.moves, buf.len) };
                    leaves = Some(n);
                }
            }
            let n = match leaves {
                Some(n) => n,
                None => {
                    let mut sink = $sink::<S, HASH> {
                        b,
                        cd,
                        depth,
                        tt,
                        n: 0,
                        _s: std::marker::PhantomData,
                    };
                    movegen::generate::<S, _>(b, cd, &mut sink);
                    sink.n
                }
            };
            if HASH && depth >= MIN_HASH_DEPTH {
                if let Some(t) = tt {
                    t.store(b.key, b.check, depth, n);
                }
            }
            n
        }
    };
}

walker!(walk_portable, RecursePortable, scalar_children);
#[cfg(target_arch = "x86_64")]
walker!(walk_bmi2, RecurseBmi2, scalar_children, #[target_feature(enable = "popcnt,bmi1,bmi2")]);
// The vector builds: PEXT sliders, and the last ply counted in lanes (`super::simd`).
#[cfg(target_arch = "x86_64")]
walker!(walk_avx2, RecurseAvx2, lane_children_avx2,
    #[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2")]);
#[cfg(target_arch = "x86_64")]
walker!(walk_avx512, RecurseAvx512, lane_children_avx512,
    #[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]);
// Elsewhere (wasm32, ARM) only the portable build exists: `Flavor::available` is false for the others, so
// these names are never reached; they keep the dispatch below one piece of code.
#[cfg(not(target_arch = "x86_64"))]
use self::{walk_portable as walk_bmi2, walk_portable as walk_avx2, walk_portable as walk_avx512};

/// Which compiled variant of the walk runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Flavor {
    /// Magic bitboards, no special instructions (any CPU).
    Portable,
    /// Magic bitboards with POPCNT/BMI2 code generation.
    Magic,
    /// PEXT slider lookups with POPCNT/BMI2 code generation.
    Pext,
    /// [`Flavor::Pext`] with the last ply counted in vector lanes, AVX2 build (`super::simd`).
    Avx2,
    /// [`Flavor::Pext`] with the last ply counted in vector lanes, AVX-512 build (`super::simd`).
    Avx512,
}

pub use crate::bitboard::attacks::bmi2_available;

impl Flavor {
    /// The fastest variant this CPU runs, unless `PERFTLAB_SLIDERS` names another (ignored when the CPU
    /// lacks BMI2).
    pub fn detect() -> Flavor {
        Flavor::from_env().unwrap_or_else(|_| Flavor::with_simd(Simd::best()))
    }

    /// As [`Flavor::detect`], with `PERFTLAB_SIMD` (which applies to the PEXT variant) checked.
    ///
    /// # Errors
    /// [`crate::Error::Usage`] for an unknown `PERFTLAB_SIMD` value or a path this CPU lacks.
    pub fn from_env() -> crate::error::Result<Flavor> {
        let has = bmi2_available();
        let simd = Simd::from_env()?;
        Ok(match std::env::var("PERFTLAB_SLIDERS").as_deref() {
            Ok("portable") => Flavor::Portable,
            Ok("magic") if has => Flavor::Magic,
            _ => Flavor::with_simd(simd),
        })
    }

    /// The PEXT variant with the vector path `simd` (the portable one without BMI2; a vector path the CPU
    /// lacks falls back to scalar PEXT).
    pub fn with_simd(simd: Simd) -> Flavor {
        if !bmi2_available() {
            return Flavor::Portable;
        }
        match simd {
            Simd::Avx512 if simd.available() => Flavor::Avx512,
            Simd::Avx2 if simd.available() => Flavor::Avx2,
            _ => Flavor::Pext,
        }
    }

    /// The vector path of the variant ([`Simd::Off`] for the scalar ones).
    pub fn simd(self) -> Simd {
        match self {
            Flavor::Avx2 => Simd::Avx2,
            Flavor::Avx512 => Simd::Avx512,
            _ => Simd::Off,
        }
    }

    /// Whether this CPU runs the variant.
    pub fn available(self) -> bool {
        match self {
            Flavor::Portable => true,
            Flavor::Magic | Flavor::Pext => bmi2_available(),
            Flavor::Avx2 => Simd::Avx2.available(),
            Flavor::Avx512 => Simd::Avx512.available(),
        }
    }

    /// Name for output.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Portable => "portable",
            Flavor::Magic => "magic",
            Flavor::Pext => "pext",
            Flavor::Avx2 => "pext+avx2",
            Flavor::Avx512 => "pext+avx512",
        }
    }

    /// Perft of one position on the current thread.
    pub fn walk(self, b: &Board, cd: &CastlingData, depth: u32, tt: Option<&HashTable>) -> u64 {
        if depth == 0 {
            return 1;
        }
        // `Flavor` is public: a variant built by hand for a CPU without its features runs portably.
        let flavor = if self.available() {
            self
        } else {
            Flavor::Portable
        };
        match (flavor, tt.is_some()) {
            (Flavor::Portable, false) => walk_portable::<MagicSliders, false>(b, cd, depth, None),
            (Flavor::Portable, true) => walk_portable::<MagicSliders, true>(b, cd, depth, tt),
            // Safety (the four calls below): `flavor.available()` confirmed POPCNT, BMI1 and BMI2 for `Magic`
            // and `Pext`.
            #[allow(unsafe_code)]
            (Flavor::Magic, false) => unsafe {
                walk_bmi2::<MagicSliders, false>(b, cd, depth, None)
            },
            #[allow(unsafe_code)]
            (Flavor::Magic, true) => unsafe { walk_bmi2::<MagicSliders, true>(b, cd, depth, tt) },
            #[allow(unsafe_code)]
            (Flavor::Pext, false) => unsafe { walk_bmi2::<PextSliders, false>(b, cd, depth, None) },
            #[allow(unsafe_code)]
            (Flavor::Pext, true) => unsafe { walk_bmi2::<PextSliders, true>(b, cd, depth, tt) },
            // Safety (the four calls below): `flavor.available()` confirmed the features these builds enable
            // (`Simd::available`, see `super::simd`).
            #[allow(unsafe_code)]
            (Flavor::Avx2, false) => unsafe { walk_avx2::<PextSliders, false>(b, cd, depth, None) },
            #[allow(unsafe_code)]
            (Flavor::Avx2, true) => unsafe { walk_avx2::<PextSliders, true>(b, cd, depth, tt) },
            #[allow(unsafe_code)]
            (Flavor::Avx512, false) => unsafe {
                walk_avx512::<PextSliders, false>(b, cd, depth, None)
            },
            #[allow(unsafe_code)]
            (Flavor::Avx512, true) => unsafe { walk_avx512::<PextSliders, true>(b, cd, depth, tt) },
        }
    }
}

/// The split of a parallel walk of depth `depth` (at least 4): the frontier of at least ~`32 × threads`
/// positions (4096 when merging), at most 4 plies down, leaving at least 3 plies below it, and its ply. Made
/// by the one frontier expansion ([`crate::bitboard::frontier`]); its size needs no budget: the ply before it has fewer
/// than 4096 positions (≤ 218 children each, ≤ 96 bytes per child).
pub fn split(root: &Board, cd: &CastlingData, depth: u32, merge: bool) -> (Vec<(Board, u64)>, u32) {
    let want = if merge {
        4096
    } else {
        32 * rayon::current_num_threads()
    };
    let deeper = |level: &[(Board, u64)]| {
        frontier::next_ply(level, cd, merge, u64::MAX).expect("an unbounded budget")
    };
    let mut plies = 1;
    let mut front = deeper(&[(*root, 1)]);
    while front.len() < want && plies < 4 && depth - plies > 3 {
        plies += 1;
        front = deeper(&front);
    }
    (front, plies)
}

/// Parallel perft: split at a frontier of at least ~`32 × threads` positions (at most 4 plies down, leaving
/// at least 3 plies below it), count each frontier position on some worker, sum with multiplicities.
pub fn perft_parallel(
    flavor: Flavor,
    root: &Board,
    cd: &CastlingData,
    depth: u32,
    tt: Option<&HashTable>,
    merge: bool,
) -> u128 {
    let threads = rayon::current_num_threads();
    if depth < 4 || (threads == 1 && !merge) {
        return flavor.walk(root, cd, depth, tt) as u128;
    }
    let (front, plies) = split(root, cd, depth, merge);
    let rest = depth - plies;
    front
        .par_iter()
        .map(|(b, mult)| flavor.walk(b, cd, rest, tt) as u128 * *mult as u128)
        .sum()
}

/// Per root move counts (each subtree counted in parallel).
pub fn divide(
    flavor: Flavor,
    root: &Board,
    cd: &CastlingData,
    depth: u32,
    tt: Option<&HashTable>,
    merge: bool,
) -> Vec<(crate::types::Move, u128)> {
    let list = moves::<MagicSliders>(root, cd);
    list.as_slice()
        .par_iter()
        .map(|&m| {
            let child = root.make::<true>(cd, m);
            let n = if depth <= 1 {
                1
            } else {
                perft_parallel(flavor, &child, cd, depth - 1, tt, merge)
            };
            (to_move(m), n)
        })
        .collect()
}
