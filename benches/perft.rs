//! Criterion benches of the fast CPU backend's perft: each CPW position at a bench depth (node counts asserted),
//! the hash table on and off, and one thread against all threads.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::fast::CpuBackend;
use perftlab::perft::Backend;
use perftlab::position::Setup;

/// (name, FEN, depth, CPW count).
const POSITIONS: [(&str, &str, u32, u128); 6] = [
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        5,
        4_865_609,
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
        "pos4",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        4,
        422_333,
    ),
    (
        "pos5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        4,
        2_103_487,
    ),
    (
        "pos6",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        4,
        3_894_594,
    ),
];

fn per_position(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft single thread no hash");
    g.sample_size(10);
    let b = CpuBackend::new(0, Some(1), false).unwrap();
    for (name, fen, depth, expected) in POSITIONS {
        let s = Setup::from_fen(fen).unwrap();
        g.bench_function(format!("{name} d{depth}"), |bench| {
            bench.iter(|| assert_eq!(b.perft(&s, depth).unwrap(), expected))
        });
    }
    g.finish();
}

fn hash_and_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft start d6");
    g.sample_size(10);
    let s = Setup::startpos();
    for (label, hash, threads) in [
        ("1 thread, no hash", 0, Some(1)),
        ("1 thread, hash 64", 64, Some(1)),
        ("all threads, no hash", 0, None),
        ("all threads, hash 64", 64, None),
    ] {
        let b = CpuBackend::new(hash, threads, hash > 0).unwrap();
        g.bench_function(label, |bench| {
            bench.iter(|| {
                // Each run starts from an empty table, so the hash helps only within the tree.
                b.clear_hash();
                assert_eq!(b.perft(&s, 6).unwrap(), 119_060_324)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, per_position, hash_and_threads);
criterion_main!(benches);
