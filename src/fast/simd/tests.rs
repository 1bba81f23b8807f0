//! The lanes against the scalar generator: every node of small trees below the suites' positions, each lane
//! count equal to `movegen::count`, in every build this CPU runs (portable lanes, explicit AVX2 and AVX-512
//! vectors).

use super::lanes::{self, Batch, Lane, LANES};
use super::*;
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::movegen::moves;
use crate::position::Setup;

/// One compiled build of [`lanes::count`].
type Build = fn(usize, &Batch, &CastlingData) -> lanes::V;

/// Lane counts of `boards` (same side to move, none needing the scalar path), `LANES` at a time, by `f`.
fn lane_counts(boards: &[Board], cd: &CastlingData, f: Build) -> Vec<u64> {
    let mut out = Vec::new();
    for chunk in boards.chunks(LANES) {
        let mut batch = Batch::new();
        for (i, b) in chunk.iter().enumerate() {
            batch.set(i, b);
        }
        let v = f(chunk[0].turn as usize, &batch, cd);
        out.extend_from_slice(&v.0[..chunk.len()]);
    }
    out
}

fn plain(us: usize, b: &Batch, cd: &CastlingData) -> lanes::V {
    lanes::count(us, b, cd)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2")]
fn avx2_build(us: usize, b: &Batch, cd: &CastlingData) -> lanes::V {
    // The walk's AVX2 lanes: explicit pairs of 256-bit vectors.
    lanes::V(lanes::count(us, &b.to::<super::x86::V256>(), cd).to_array())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]
fn avx512_build(us: usize, b: &Batch, cd: &CastlingData) -> lanes::V {
    // The walk's AVX-512 lanes: explicit 512-bit vectors.
    lanes::V(lanes::count(us, &b.to::<super::x86::V512>(), cd).to_array())
}

/// One compiled build of [`lanes::children`], the result in portable lanes.
type ChildrenBuild = fn(&Board, &CastlingData, lanes::V) -> (Batch, lanes::V);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2")]
fn children_avx2_build(p: &Board, cd: &CastlingData, m: lanes::V) -> (Batch, lanes::V) {
    let (b, s) = lanes::children(p, cd, super::x86::V256::from_array(m.0));
    (b.to(), lanes::V(s.to_array()))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]
fn children_avx512_build(p: &Board, cd: &CastlingData, m: lanes::V) -> (Batch, lanes::V) {
    let (b, s) = lanes::children(p, cd, super::x86::V512::from_array(m.0));
    (b.to(), lanes::V(s.to_array()))
}

/// The explicit vector builds of [`lanes::children`] this CPU runs, by name.
fn children_builds() -> Vec<(&'static str, ChildrenBuild)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, ChildrenBuild)> = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        fn avx2(p: &Board, cd: &CastlingData, m: lanes::V) -> (Batch, lanes::V) {
            // Safety: listed only after `avx2_available()` (the features `children_avx2_build` enables).
            #[allow(unsafe_code)]
            unsafe {
                children_avx2_build(p, cd, m)
            }
        }
        fn avx512(p: &Board, cd: &CastlingData, m: lanes::V) -> (Batch, lanes::V) {
            // Safety: listed only after `avx512_available()` (the features `children_avx512_build` enables).
            #[allow(unsafe_code)]
            unsafe {
                children_avx512_build(p, cd, m)
            }
        }
        if avx2_available() {
            v.push(("avx2", avx2));
        }
        if avx512_available() {
            v.push(("avx512", avx512));
        }
    }
    v
}

/// The builds this CPU runs, by name.
fn builds() -> Vec<(&'static str, Build)> {
    let mut v: Vec<(&'static str, Build)> = vec![("plain", plain)];
    #[cfg(target_arch = "x86_64")]
    {
        fn avx2(us: usize, b: &Batch, cd: &CastlingData) -> lanes::V {
            // Safety: listed only after `avx2_available()` (the features `avx2_build` enables).
            #[allow(unsafe_code)]
            unsafe {
                avx2_build(us, b, cd)
            }
        }
        fn avx512(us: usize, b: &Batch, cd: &CastlingData) -> lanes::V {
            // Safety: listed only after `avx512_available()` (the features `avx512_build` enables).
            #[allow(unsafe_code)]
            unsafe {
                avx512_build(us, b, cd)
            }
        }
        if avx2_available() {
            v.push(("avx2", avx2));
        } else {
            eprintln!("no AVX2 on this CPU: the AVX2 build of the lanes is not tested");
        }
        if avx512_available() {
            v.push(("avx512", avx512));
        } else {
            eprintln!("no AVX-512 on this CPU: the AVX-512 build of the lanes is not tested");
        }
    }
    v
}

/// Every node of the tree of `depth` plies below `fen`, grouped by side to move.
fn tree(fen: &str, depth: u32) -> (Vec<Board>, CastlingData) {
    let (root, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
    let mut all = vec![root];
    let mut level = vec![root];
    for _ in 0..depth {
        level = level
            .iter()
            .flat_map(|b| {
                moves::<MagicSliders>(b, &cd)
                    .as_slice()
                    .iter()
                    .map(|&m| b.make::<false>(&cd, m))
                    .collect::<Vec<_>>()
            })
            .collect();
        all.extend_from_slice(&level);
    }
    (all, cd)
}

/// Lane counts equal scalar counts on every node of the tree (nodes with a castling or e.p. move excluded,
/// as in the walk); returns the number of nodes compared.
fn compare_tree(fen: &str, depth: u32) -> usize {
    let (all, cd) = tree(fen, depth);
    let mut compared = 0;
    for turn in 0..2 {
        let boards: Vec<Board> = all
            .iter()
            .filter(|b| b.turn == turn && !needs_scalar(b, &cd))
            .copied()
            .collect();
        let expected: Vec<u64> = boards
            .iter()
            .map(|b| count::<MagicSliders>(b, &cd))
            .collect();
        for (name, f) in builds() {
            let got = lane_counts(&boards, &cd, f);
            for i in 0..boards.len() {
                assert_eq!(
                    got[i],
                    expected[i],
                    "{name}: {}",
                    boards[i].to_setup(&cd).to_fen()
                );
            }
        }
        compared += boards.len();
    }
    compared
}

#[test]
fn lanes_equal_scalar_counts_on_every_node_of_the_cpw_positions() {
    // CPW perft positions 1–6 (https://www.chessprogramming.org/Perft_Results): checks, pins, promotions.
    let mut n = 0;
    for (fen, depth) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            4,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            3,
        ),
        (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            3,
        ),
    ] {
        n += compare_tree(fen, depth);
    }
    assert!(n > 100_000, "{n} nodes compared");
}

#[test]
fn lanes_equal_scalar_counts_on_the_tricky_positions() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/tricky.perft");
    let entries = crate::suite::load(std::path::Path::new(path)).unwrap();
    let mut n = 0;
    for e in &entries {
        if crate::validate::Checked::new(e.setup.clone()).is_err() {
            continue;
        }
        n += compare_tree(&e.setup.to_fen(), 2);
    }
    assert!(n > 1000, "{n} nodes compared");
}

#[test]
fn every_path_this_cpu_runs_counts_the_cpw_positions() {
    // Node counts from https://www.chessprogramming.org/Perft_Results (also in tests/data/cpw-detail.csv).
    for (fen, depth, nodes) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            5,
            4_865_609,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            4,
            4_085_603,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
            422_333,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            4,
            2_103_487,
        ),
        (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            4,
            3_894_594,
        ),
    ] {
        let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        for simd in Simd::ALL {
            if !simd.available() {
                eprintln!("{}: not on this CPU, not tested", simd.name());
                continue;
            }
            let f = crate::fast::Flavor::with_simd(simd);
            assert_eq!(f.walk(&b, &cd, depth, None), nodes, "{} {fen}", simd.name());
        }
    }
}

#[test]
fn perftlab_simd_values_are_checked() {
    assert_eq!(Simd::parse("off").unwrap(), Simd::Off);
    let e = Simd::parse("sse9").unwrap_err().to_string();
    assert!(e.contains("PERFTLAB_SIMD") && e.contains("sse9"), "{e}");
    for s in [Simd::Avx2, Simd::Avx512] {
        assert_eq!(Simd::parse(s.name()).is_ok(), s.available());
    }
}

#[test]
fn children_made_in_lanes_equal_copy_make() {
    // Every node to depth 3 below the CPW positions 1-6 (and Chess960 ones): each child of a normal move made
    // eight at a time equals `Board::make` (pieces and the reply side's castling rights), and exactly the
    // children the lanes cannot count are flagged for the scalar generator.
    use crate::types::MoveKind;
    // The explicit AVX2 and AVX-512 builds must make the same batches as the portable lanes.
    let explicit = children_builds();
    let mut checked = 0;
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",
    ] {
        let (all, cd) = tree(fen, 2);
        for parent in &all {
            let list = moves::<MagicSliders>(parent, &cd);
            for chunk in list.as_slice().chunks(LANES) {
                let mut m = lanes::V::splat(chunk[0] as u64);
                for (i, &x) in chunk.iter().enumerate() {
                    m.0[i] = x as u64;
                }
                let (batch, scalar) = lanes::children(parent, &cd, m);
                for (name, f) in &explicit {
                    let (b2, s2) = f(parent, &cd, m);
                    assert_eq!(s2, scalar, "{name}");
                    assert_eq!(b2.roles, batch.roles, "{name}");
                    assert_eq!(b2.colors, batch.colors, "{name}");
                    assert_eq!(b2.castling, batch.castling, "{name}");
                }
                for (i, &x) in chunk.iter().enumerate() {
                    let c = parent.make::<false>(&cd, x);
                    let normal = crate::bitboard::movegen::to_move(x).kind() == MoveKind::Normal;
                    assert_eq!(scalar.0[i] != 0, !normal || needs_scalar(&c, &cd), "{x:#x}");
                    if normal {
                        for r in 0..6 {
                            assert_eq!(batch.roles[r].0[i], c.roles[r]);
                        }
                        assert_eq!(batch.colors[0].0[i], c.colors[0]);
                        assert_eq!(batch.colors[1].0[i], c.colors[1]);
                        let theirs = 3 << (2 * c.turn);
                        assert_eq!(batch.castling.0[i] as u8 & theirs, c.castling & theirs);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked} children checked");
}

/// Every [`Lane`] operation on `a`, `b`, `k`, as plain values (the shift count `k % 64`).
#[inline(always)]
fn lane_ops<L: Lane>(a: [u64; LANES], b: [u64; LANES], k: u64) -> Vec<[u64; LANES]> {
    let (x, y) = (L::from_array(a), L::from_array(b));
    let s = (k % 64) as u32;
    let mut squares = a;
    for v in squares.iter_mut() {
        *v %= 64;
    }
    let mut low = [0u32; LANES];
    for (l, &v) in low.iter_mut().zip(&a) {
        *l = v as u32;
    }
    vec![
        (x & y).to_array(),
        (x | y).to_array(),
        (x ^ y).to_array(),
        (!x).to_array(),
        (x + y).to_array(),
        (x & k).to_array(),
        x.shl(s).to_array(),
        x.shr(s).to_array(),
        x.sh(-(s as i32)).to_array(),
        x.popcnt().to_array(),
        x.nonzero().to_array(),
        x.is_zero().to_array(),
        [x.any() as u64; LANES],
        x.eq(k).to_array(),
        L::from_array(squares).bit().to_array(),
        x.at_most(k).to_array(),
        x.below(k).to_array(),
        [x.sum(); LANES],
        L::from_u32(&low).to_array(),
        L::splat(k).to_array(),
    ]
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2")]
fn lane_ops_avx2(a: [u64; LANES], b: [u64; LANES], k: u64) -> Vec<[u64; LANES]> {
    lane_ops::<super::x86::V256>(a, b, k)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,avx,avx2,avx512f,avx512bw,avx512vl,avx512vpopcntdq")]
fn lane_ops_avx512(a: [u64; LANES], b: [u64; LANES], k: u64) -> Vec<[u64; LANES]> {
    lane_ops::<super::x86::V512>(a, b, k)
}

#[test]
fn explicit_vectors_equal_the_portable_lanes_in_every_operation() {
    // Pseudo-random lanes with the boundary cases placed in: equal to `k` and one either side (the unsigned
    // compares; the AVX2 ones flip the sign bit), zero (the masks, `any`), and all lanes zero now and then.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut compared = 0;
    for round in 0..4000u64 {
        let k = if round % 3 == 0 {
            next() >> (round % 64)
        } else {
            next()
        };
        let mut a = [0u64; LANES];
        let mut b = [0u64; LANES];
        if round % 17 != 0 {
            for i in 0..LANES {
                a[i] = next() >> (next() % 64);
                b[i] = next();
            }
            a[1] = k;
            a[2] = k.wrapping_add(1);
            a[3] = k.wrapping_sub(1);
            a[4] = 0;
        }
        let want = lane_ops::<lanes::V>(a, b, k);
        #[cfg(target_arch = "x86_64")]
        {
            if avx2_available() {
                // Safety: the CPU has the features `lane_ops_avx2` enables.
                #[allow(unsafe_code)]
                let got = unsafe { lane_ops_avx2(a, b, k) };
                assert_eq!(got, want, "avx2: a {a:x?} b {b:x?} k {k:#x}");
                compared += 1;
            }
            if avx512_available() {
                // Safety: the CPU has the features `lane_ops_avx512` enables.
                #[allow(unsafe_code)]
                let got = unsafe { lane_ops_avx512(a, b, k) };
                assert_eq!(got, want, "avx512: a {a:x?} b {b:x?} k {k:#x}");
                compared += 1;
            }
        }
    }
    if compared == 0 {
        eprintln!("no AVX2 or AVX-512 on this CPU: no explicit vectors to compare");
    }
}
