//! The vector paths of the fast CPU backend (`PERFTLAB_SIMD=off|avx2|avx512`), each forced in turn: the per-node
//! cross-check against `reference` (`verify`, whose `legal_moves` on a vector path also counts every position in
//! the lanes), suite counts from outside sources (data/), and refusal of unknown or unavailable paths. A path
//! this CPU lacks is skipped with a note on stderr (CI's machine, AMD Zen 4, has both).

mod common;

use perftlab::backend::Backend;
use perftlab::fast::{CpuBackend, Flavor, Simd};
use perftlab::suite::{self, Budget};
use perftlab::Checked;

/// The paths this CPU runs, the others named on stderr.
fn paths() -> Vec<Simd> {
    Simd::ALL
        .into_iter()
        .filter(|s| {
            let ok = s.available();
            if !ok {
                eprintln!("PERFTLAB_SIMD={}: not on this CPU, not tested", s.name());
            }
            ok
        })
        .collect()
}

#[test]
fn verify_against_reference_on_every_vector_path() {
    // About 200,000 nodes per path; every node's move set compared with the reference's and counted in lanes.
    for s in paths() {
        for (file, depth) in [
            ("tricky.perft", "3"),
            ("standard.epd", "2"),
            ("chess960.epd", "1"),
        ] {
            let out = common::perftlab()
                .env("PERFTLAB_SIMD", s.name())
                .args(["verify", "--depth", depth, "--suite"])
                .arg(common::data(file))
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "PERFTLAB_SIMD={} verify {file}: {}{}",
                s.name(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn run(backend: &CpuBackend, file: &str, max_nodes: u128) -> suite::Report {
    let entries = suite::load(&common::data(file)).unwrap();
    let budget = Budget {
        max_depth: u32::MAX,
        max_nodes,
    };
    let r = suite::run(&entries, backend, budget, true);
    for f in &r.failures {
        eprintln!("{file}: {f:?}");
    }
    r
}

#[test]
fn suites_count_right_on_every_vector_path() {
    for s in paths() {
        for (hash, threads, merge) in [(0, 1, false), (16, 2, true)] {
            let b = CpuBackend::new(hash, Some(threads), merge)
                .unwrap()
                .with_flavor(Flavor::with_simd(s));
            assert_eq!(b.flavor().simd(), s);
            // Standard and tricky suites (counts from their sources, see data/README.md), Chess960 for castling
            // with rooks off the corners.
            for (file, max_nodes) in [
                ("tricky.perft", u128::MAX),
                ("standard.epd", 2_000_000),
                ("chess960.epd", 200_000),
            ] {
                let r = run(&b, file, max_nodes);
                assert_eq!(r.failed, 0, "{} {file}", s.name());
                assert!(r.passed > 80, "{} {file}: {} passed", s.name(), r.passed);
            }
        }
    }
}

#[test]
fn cpw_start_and_kiwipete_on_every_vector_path() {
    // https://www.chessprogramming.org/Perft_Results
    let start = Checked::startpos();
    let kiwipete =
        Checked::from_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
    for s in paths() {
        let b = CpuBackend::new(0, Some(1), false)
            .unwrap()
            .with_flavor(Flavor::with_simd(s));
        assert_eq!(b.perft(&start, 6).unwrap(), 119_060_324, "{}", s.name());
        assert_eq!(b.perft(&kiwipete, 4).unwrap(), 4_085_603, "{}", s.name());
    }
}

#[test]
fn unknown_vector_path_is_refused_with_exit_2() {
    let out = common::perftlab()
        .env("PERFTLAB_SIMD", "sse9")
        .args(["perft", "--depth", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PERFTLAB_SIMD") && err.contains("sse9"),
        "{err}"
    );
}

#[test]
fn a_path_the_cpu_lacks_is_refused() {
    for s in Simd::ALL {
        let out = common::perftlab()
            .env("PERFTLAB_SIMD", s.name())
            .args(["perft", "--depth", "2"])
            .output()
            .unwrap();
        let want = if s.available() { 0 } else { 2 };
        assert_eq!(out.status.code(), Some(want), "{}", s.name());
    }
}
