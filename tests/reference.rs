//! The reference generator against outside numbers: the three shared suites (under node budgets that keep CI
//! fast), the CPW start-position counts and the CPW detail tables.

mod common;

use perftlab::backend::{Backend, Detail, ReferenceBackend};
use perftlab::suite::{self, Budget};
use perftlab::Checked;

fn run_suite(file: &str, max_nodes: u128) -> suite::Report {
    let entries = suite::load(&common::data(file)).unwrap();
    let report = suite::run(
        &entries,
        &ReferenceBackend,
        Budget {
            max_depth: u32::MAX,
            max_nodes,
        },
        true,
    );
    for f in &report.failures {
        eprintln!("{f:?}");
    }
    report
}

#[test]
fn standard_suite_within_budget() {
    let r = run_suite("standard.epd", 5_000_000);
    assert_eq!(r.failed, 0);
    assert!(r.passed > 600, "{} passed", r.passed);
}

#[test]
fn chess960_suite_within_budget() {
    let r = run_suite("chess960.epd", 200_000);
    assert_eq!(r.failed, 0);
    assert!(r.passed >= 960 * 3, "{} passed", r.passed);
}

#[test]
fn tricky_suite_in_full() {
    let r = run_suite("tricky.perft", u128::MAX);
    assert_eq!(r.failed, 0);
    assert_eq!(r.skipped, 0);
}

#[test]
fn startpos_perft_1_to_6_equals_cpw() {
    // CPW "Perft Results", initial position.
    let expected = [20u128, 400, 8902, 197281, 4865609, 119060324];
    let s = Checked::startpos();
    for (i, &n) in expected.iter().enumerate() {
        assert_eq!(
            ReferenceBackend.perft(&s, i as u32 + 1).unwrap(),
            n,
            "depth {}",
            i + 1
        );
    }
}

#[test]
fn detail_statistics_equal_cpw() {
    // Includes the Kiwipete depth 4 row: 4085603 nodes, 757163 captures, 1929 e.p., 128013 castles,
    // 15172 promotions, 25523 checks, 42 discovered, 6 double checks, 43 mates.
    let checked = common::assert_cpw_stats(0..=5_000_000, |s, d| {
        ReferenceBackend.stats(s, d, Detail::Cpw).unwrap()
    });
    assert_eq!(checked, 9);
}

#[test]
fn divide_sums_to_perft_and_lists_each_legal_move_once() {
    let s = Checked::from_fen(perftlab::cpw::KIWIPETE.fen).unwrap();
    let d = ReferenceBackend.divide(&s, 3).unwrap();
    assert_eq!(d.len(), 48);
    assert_eq!(d.iter().map(|(_, n)| n).sum::<u128>(), 97862);
}
