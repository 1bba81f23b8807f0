//! Criterion benches of the vector paths against the scalar one (`Simd::Off`, PEXT):
//! - "perft by path": the walk (one thread, no hash, no merging) on four CPW positions, node counts asserted;
//! - "bulk counts": the lane counter alone on positions read from memory (every node of small trees below the
//!   CPW positions that the lanes count, split by side to move), totals asserted equal to the scalar
//!   generator's.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::fast::board::Board;
use perftlab::fast::simd::{count_positions, needs_scalar};
use perftlab::fast::{CpuBackend, Flavor, Simd};
use perftlab::perft::Backend;
use perftlab::position::Setup;

fn nodes(fen: &str, depth: u32) -> (Vec<Vec<Board>>, perftlab::fast::board::CastlingData) {
    let (root, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
    let mut level = vec![root];
    let mut out = vec![Vec::new(), Vec::new()];
    for _ in 0..depth {
        let mut next = Vec::new();
        for b in &level {
            for m in perftlab::fast::simd::legal_children(b, &cd) {
                next.push(m);
            }
        }
        level = next;
    }
    for b in level {
        if !needs_scalar(&b, &cd) {
            out[b.turn as usize].push(b);
        }
    }
    (out, cd)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("bulk counts");
    for (name, fen, depth) in [
        (
            "start",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            4,
        ),
        (
            "kiwipete",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
        ),
        ("pos3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    ] {
        let (sides, cd) = nodes(fen, depth);
        let total = |s: Simd| -> u64 { sides.iter().map(|v| count_positions(s, v, &cd)).sum() };
        let expected = total(Simd::Off);
        let n: usize = sides.iter().map(Vec::len).sum();
        for s in Simd::ALL {
            if !s.available() {
                eprintln!("{}: not on this CPU, skipped", s.name());
                continue;
            }
            assert_eq!(total(s), expected, "{}", s.name());
            g.bench_function(format!("{name} ({n} positions) {}", s.name()), |b| {
                b.iter(|| assert_eq!(total(s), expected))
            });
        }
    }
    g.finish();
}

fn perft_by_path(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft by path");
    g.sample_size(10);
    // Counts from https://www.chessprogramming.org/Perft_Results.
    for (name, fen, depth, nodes) in [
        (
            "start",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            5,
            4_865_609u128,
        ),
        (
            "kiwipete",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            4,
            4_085_603,
        ),
        (
            "pos3",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            6,
            11_030_083,
        ),
        (
            "pos6",
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            4,
            3_894_594,
        ),
    ] {
        let setup = Setup::from_fen(fen).unwrap();
        for s in Simd::ALL {
            if !s.available() {
                continue;
            }
            let b = CpuBackend::new(0, Some(1), false)
                .unwrap()
                .with_flavor(Flavor::with_simd(s));
            g.bench_function(format!("{name} d{depth} {}", s.name()), |bench| {
                bench.iter(|| assert_eq!(b.perft(&setup, depth).unwrap(), nodes))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, perft_by_path, bench);
criterion_main!(benches);
