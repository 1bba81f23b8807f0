//! Criterion bench of legal move generation: all legal moves of a fixed batch of positions (the CPW positions
//! and the standard suite's roots), with the total number of moves asserted against the reference generator.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::backend::{Backend, ReferenceBackend};
use perftlab::fast::CpuBackend;
use perftlab::suite;
use perftlab::Checked;

fn movegen(c: &mut Criterion) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/standard.epd");
    let setups: Vec<_> = suite::load(std::path::Path::new(path))
        .unwrap()
        .into_iter()
        .map(|e| Checked::new(e.setup).unwrap())
        .collect();
    let expected: usize = ReferenceBackend
        .legal_moves(&setups)
        .unwrap()
        .iter()
        .map(Vec::len)
        .sum();
    let b = CpuBackend::new(0, Some(1), false).unwrap();
    c.bench_function("legal_moves standard.epd roots", |bench| {
        bench.iter(|| {
            let n: usize = b.legal_moves(&setups).unwrap().iter().map(Vec::len).sum();
            assert_eq!(n, expected);
        })
    });
}

criterion_group!(benches, movegen);
criterion_main!(benches);
