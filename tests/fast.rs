//! The fast CPU backend (`--backend cpu`) against outside numbers and against the reference generator: the
//! three shared suites under CI budgets, the per-node legal-move-set cross-check to depth 3 on every suite
//! position, CPW start-position and Kiwipete counts, CPW detail statistics, and equal counts with the hash
//! table on/off, merging on/off and 1/2 threads, start perft 8 and Kiwipete 6 with a 256 MiB table (a few
//! seconds since the vector lanes). The full Chess960 suite to D6 is `#[ignore]`d: run it with
//! `cargo test --release --test fast -- --ignored` (its attribute says how long it takes).

mod common;

use perftlab::backend::{Backend, Detail, ReferenceBackend};
use perftlab::fast::{bmi2_available, CpuBackend, Flavor};
use perftlab::suite::{self, Budget};
use perftlab::verify::verify;
use perftlab::Checked;

const KIWIPETE: &str = perftlab::cpw::KIWIPETE.fen;

fn cpu() -> CpuBackend {
    CpuBackend::new(64, None, true).unwrap()
}

fn run_suite(file: &str, budget: Budget) -> suite::Report {
    let entries = suite::load(&common::data(file)).unwrap();
    let report = suite::run(&entries, &cpu(), budget, true);
    for f in &report.failures {
        eprintln!("{f:?}");
    }
    report
}

fn nodes(max_nodes: u128) -> Budget {
    Budget {
        max_depth: u32::MAX,
        max_nodes,
    }
}

#[test]
fn standard_suite_in_full() {
    // All 127 positions to depth 6 (4.8 billion nodes; about 5 s on 2 cores with hash and merging).
    let r = run_suite("standard.epd", nodes(u128::MAX));
    assert_eq!(r.failed, 0);
    assert_eq!(r.skipped, 0);
}

#[test]
fn chess960_suite_within_ci_budget() {
    // Depths 1–4 of all 960 positions plus depth 5 where it is under 10 M nodes.
    let r = run_suite("chess960.epd", nodes(10_000_000));
    assert_eq!(r.failed, 0);
    assert!(r.passed >= 960 * 4, "{} passed", r.passed);
}

#[test]
fn tricky_suite_in_full() {
    let r = run_suite("tricky.perft", nodes(u128::MAX));
    assert_eq!(r.failed, 0);
    assert_eq!(r.skipped, 0);
}

#[test]
#[ignore = "local: chess960 to D6, about 75 s on 2 quiet cores (minutes when shared)"]
fn chess960_suite_in_full() {
    let r = run_suite("chess960.epd", nodes(u128::MAX));
    assert_eq!(r.failed, 0);
    assert_eq!(r.skipped, 0);
}

/// Per-node cross-check of legal move sets, cpu against reference, to depth 3 below every root of `file`.
fn verify_suite(file: &str) {
    let entries = suite::load(&common::data(file)).unwrap();
    let backend = cpu();
    let mut checked = 0;
    for e in &entries {
        let Ok(pos) = Checked::new(e.setup.clone()) else {
            continue;
        };
        let out = verify(&pos, 3, &backend, &ReferenceBackend, true).unwrap();
        assert!(
            out.difference.is_none(),
            "{file}:{} {}: {:?}",
            e.line,
            e.fen,
            out.difference
        );
        checked += out.nodes_checked;
    }
    assert!(checked > entries.len() as u64 * 3, "{checked} nodes");
}

#[test]
fn verify_against_reference_standard_depth_3() {
    verify_suite("standard.epd");
}

#[test]
fn verify_against_reference_chess960_depth_3() {
    // All 960 positions (about 720,000 nodes; a few seconds).
    verify_suite("chess960.epd");
}

#[test]
fn verify_against_reference_tricky_depth_3() {
    verify_suite("tricky.perft");
}

/// CPW "Perft Results": initial position, depths 1–8.
const STARTPOS: [u128; 8] = [
    20,
    400,
    8_902,
    197_281,
    4_865_609,
    119_060_324,
    3_195_901_860,
    84_998_978_956,
];
/// CPW "Perft Results": Kiwipete, depths 1–6.
const KIWIPETE_COUNTS: [u128; 6] = [48, 2_039, 97_862, 4_085_603, 193_690_690, 8_031_647_685];

#[test]
fn startpos_perft_1_to_7() {
    let b = cpu();
    let s = Checked::startpos();
    for depth in 1..=7 {
        assert_eq!(
            b.perft(&s, depth).unwrap(),
            STARTPOS[depth as usize - 1],
            "depth {depth}"
        );
    }
}

#[test]
fn startpos_perft_8() {
    let b = CpuBackend::new(256, None, true).unwrap();
    assert_eq!(b.perft(&Checked::startpos(), 8).unwrap(), STARTPOS[7]);
}

#[test]
fn kiwipete_perft_1_to_5() {
    let b = cpu();
    let s = Checked::from_fen(KIWIPETE).unwrap();
    for depth in 1..=5 {
        assert_eq!(
            b.perft(&s, depth).unwrap(),
            KIWIPETE_COUNTS[depth as usize - 1],
            "depth {depth}"
        );
    }
}

#[test]
fn kiwipete_perft_6() {
    let b = CpuBackend::new(256, None, true).unwrap();
    let s = Checked::from_fen(KIWIPETE).unwrap();
    assert_eq!(b.perft(&s, 6).unwrap(), KIWIPETE_COUNTS[5]);
}

#[test]
fn detail_statistics_equal_cpw() {
    let checked = common::assert_cpw_stats(0..=5_000_000, |s, d| {
        cpu().stats(s, d, Detail::Cpw).unwrap()
    });
    assert_eq!(checked, 9);
}

/// Start depth 6 and Kiwipete depth 5 (a few seconds with the fast statistics; Kiwipete 5 has the 8
/// double-check mates that CPW's double checks leave out).
#[test]
fn detail_statistics_equal_cpw_deep() {
    let checked = common::assert_cpw_stats(5_000_001..=200_000_000, |s, d| {
        cpu().stats(s, d, Detail::Cpw).unwrap()
    });
    assert_eq!(checked, 2);
}

#[test]
fn stats_equal_reference_stats_on_tricky_positions() {
    let entries = suite::load(&common::data("tricky.perft")).unwrap();
    for (e, pos) in entries
        .iter()
        .filter_map(|e| Some((e, Checked::new(e.setup.clone()).ok()?)))
    {
        let depth = if e.expected.iter().any(|&(d, n)| d == 3 && n < 200_000) {
            3
        } else {
            2
        };
        assert_eq!(
            cpu().stats(&pos, depth, Detail::Full).unwrap(),
            ReferenceBackend.stats(&pos, depth, Detail::Full).unwrap(),
            "{}",
            e.fen
        );
    }
}

#[test]
fn divide_equals_reference_divide() {
    let s = Checked::from_fen(KIWIPETE).unwrap();
    let mut ours = cpu().divide(&s, 3).unwrap();
    let mut theirs = ReferenceBackend.divide(&s, 3).unwrap();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
}

#[test]
fn hash_merge_and_threads_do_not_change_counts() {
    let positions = [
        (Checked::startpos(), 6),
        (Checked::from_fen(KIWIPETE).unwrap(), 4),
        (
            Checked::from_fen(perftlab::cpw::POSITIONS[2].fen).unwrap(),
            6,
        ),
        (
            Checked::from_fen("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9")
                .unwrap(),
            5,
        ),
    ];
    for (s, depth) in &positions {
        let plain = CpuBackend::new(0, Some(1), false).unwrap();
        let expected = plain.perft(s, *depth).unwrap();
        for (hash, threads, merge) in [
            (1, Some(1), false),
            (16, Some(2), true),
            (0, Some(2), true),
            (16, Some(1), true),
        ] {
            let b = CpuBackend::new(hash, threads, merge).unwrap();
            // Twice: the second run is served from the table.
            for _ in 0..2 {
                assert_eq!(
                    b.perft(s, *depth).unwrap(),
                    expected,
                    "{} hash {hash} threads {threads:?} merge {merge}",
                    s.to_fen()
                );
            }
        }
    }
}

#[test]
fn every_compiled_variant_counts_the_same() {
    let s = Checked::from_fen(KIWIPETE).unwrap();
    for f in [Flavor::Portable, Flavor::Magic, Flavor::Pext] {
        let b = CpuBackend::new(0, Some(1), false).unwrap().with_flavor(f);
        if f != Flavor::Portable && !bmi2_available() {
            assert_eq!(b.flavor(), Flavor::Portable);
        }
        assert_eq!(b.perft(&s, 4).unwrap(), 4_085_603, "{f:?}");
    }
}

#[test]
fn hash_table_never_exceeds_its_budget() {
    assert_eq!(CpuBackend::new(0, Some(1), true).unwrap().hash_bytes(), 0);
    for mb in [1usize, 5, 64, 100] {
        let bytes = CpuBackend::new(mb, Some(1), true).unwrap().hash_bytes();
        assert!(bytes <= mb << 20, "--hash {mb}: {bytes} bytes");
        assert!(
            bytes + 64 > mb << 20,
            "--hash {mb}: only {bytes} bytes used"
        );
    }
}

#[test]
fn bench_quick_checks_its_counts_and_prints_totals() {
    let out = common::perftlab()
        .args(["bench", "--quick", "--json", "--hash", "16"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["positions"].as_array().unwrap().len(), 6);
    assert_eq!(v["ok"], true);
    // Sum of the six CPW counts at the quick depths.
    assert_eq!(
        v["total"]["nodes"],
        4_865_609u64 + 4_085_603 + 11_030_083 + 422_333 + 2_103_487 + 3_894_594
    );
}

#[test]
fn cpu_is_the_default_backend() {
    let out = common::perftlab()
        .args(["perft", "--depth", "2", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["backend"], "cpu");
    assert_eq!(v["nodes"], 400);
}

/// The hashed, merged, parallel statistics walk (a 1 MiB table, so entries are replaced) equals the plain walk
/// (no table, no merging, one thread) in every column, at depths that take the parallel split; the plain walk
/// equals the reference backend on the tricky suite (above) and here at depth 1–2. The positions have
/// castling, e.p., promotions, discovered and double checks, discovered mates, stalemates, and (the last) an
/// en-passant capture giving a double discovered check.
#[test]
fn hashed_merged_stats_equal_the_plain_walk() {
    for (fen, depth) in [
        (KIWIPETE, 4),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
        ),
        ("8/8/8/4B2b/6nN/8/5P2/2R1K2k w Q - 0 1", 5),
        ("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 4),
        ("8/8/4k3/3pP3/8/1B6/8/4R2K w - d6 0 1", 5),
    ] {
        let s = Checked::from_fen(fen).unwrap();
        let plain = CpuBackend::new(0, Some(1), false).unwrap();
        let hashed = CpuBackend::new(1, None, true).unwrap();
        let want = plain.stats(&s, depth, Detail::Full).unwrap();
        assert_eq!(
            hashed.stats(&s, depth, Detail::Full).unwrap(),
            want,
            "{fen}"
        );
        assert_eq!(want.0, plain.perft(&s, depth).unwrap(), "{fen}");
        for d in 1..=2 {
            assert_eq!(
                plain.stats(&s, d, Detail::Full).unwrap(),
                ReferenceBackend.stats(&s, d, Detail::Full).unwrap(),
                "{fen} depth {d}"
            );
        }
    }
    let s = Checked::from_fen("8/8/4k3/3pP3/8/1B6/8/4R2K w - d6 0 1").unwrap();
    let (_, st) = cpu().stats(&s, 1, Detail::Full).unwrap();
    assert_eq!(st[perftlab::backend::Column::DoubleDiscoveredChecks], 1);
}
