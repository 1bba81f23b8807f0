//! Criterion bench of the vector paths (`PERFTLAB_SIMD`) against the scalar one (`Simd::Off`, PEXT): the walk
//! (one thread, no hash, no merging) on four CPW positions by each path this CPU runs, node counts asserted.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::backend::Backend;
use perftlab::fast::{CpuBackend, Flavor, Simd};
use perftlab::Checked;

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
        let pos = Checked::from_fen(fen).unwrap();
        for s in Simd::ALL {
            if !s.available() {
                continue;
            }
            let b = CpuBackend::new(0, Some(1), false)
                .unwrap()
                .with_flavor(Flavor::with_simd(s));
            g.bench_function(format!("{name} d{depth} {}", s.name()), |bench| {
                bench.iter(|| assert_eq!(b.perft(&pos, depth).unwrap(), nodes))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, perft_by_path);
criterion_main!(benches);
