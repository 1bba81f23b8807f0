//! Criterion bench of the last ply's bulk counts: the same positions (every node of small trees below the CPW
//! positions that the lanes can count, i.e. without castling or e.p. moves, split by side to move) counted by
//! the scalar PEXT generator and by the eight-lane counter of each vector build this CPU runs. The totals are
//! asserted equal to the scalar generator's.

use criterion::{criterion_group, criterion_main, Criterion};
use perftlab::fast::board::Board;
use perftlab::fast::simd::{count_positions, needs_scalar};
use perftlab::fast::Simd;
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

criterion_group!(benches, bench);
criterion_main!(benches);
