//! Criterion benches of the fast CPU backend's perft: each CPW position ([`perftlab::cpw`]) at its quick depth
//! (node counts asserted), the hash table on and off, and one thread against all threads.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::backend::Backend;
use perftlab::cpw::POSITIONS;
use perftlab::fast::CpuBackend;
use perftlab::Checked;

fn per_position(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft single thread no hash");
    g.sample_size(10);
    let b = CpuBackend::new(0, Some(1), false).unwrap();
    for p in POSITIONS {
        let (depth, expected) = p.quick;
        let s = Checked::from_fen(p.fen).unwrap();
        g.bench_function(format!("{} d{depth}", p.name), |bench| {
            bench.iter(|| assert_eq!(b.perft(&s, depth).unwrap(), expected))
        });
    }
    g.finish();
}

fn hash_and_threads(c: &mut Criterion) {
    let mut g = c.benchmark_group("perft start d6");
    g.sample_size(10);
    let s = Checked::startpos();
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
