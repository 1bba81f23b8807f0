//! Helpers shared by the integration tests: locating test data and reading the CPW detail table.
#![allow(dead_code)]

use perftlab::backend::Stats;
use perftlab::Checked;
use std::path::PathBuf;

/// Path of a file under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// One row of `tests/data/cpw-detail.csv` (Chess Programming Wiki "Perft Results").
#[derive(Debug, Clone)]
pub struct CpwRow {
    pub position: String,
    pub fen: String,
    pub depth: u32,
    /// nodes, captures, en_passant, castles, promotions, checks, discovered_checks, double_checks, checkmates
    pub values: [u64; 9],
}

/// All rows of the CPW detail table.
pub fn cpw_rows() -> Vec<CpwRow> {
    let text = std::fs::read_to_string(data("cpw-detail.csv")).expect("tests/data/cpw-detail.csv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("position,"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let mut values = [0u64; 9];
            for (i, v) in values.iter_mut().enumerate() {
                *v = f[3 + i].parse().expect("number");
            }
            CpwRow {
                position: f[0].into(),
                fen: f[1].into(),
                depth: f[2].parse().unwrap(),
                values,
            }
        })
        .collect()
}

/// The perftlab binary built for these tests.
pub fn perftlab() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_perftlab"))
}

/// Check a backend's detail statistics against every CPW row whose node count lies in `nodes` (a range of
/// leaf counts); returns the number of rows checked.
pub fn assert_cpw_stats(
    nodes: std::ops::RangeInclusive<u64>,
    stats: impl Fn(&Checked, u32) -> (u128, Stats),
) -> usize {
    let mut checked = 0;
    for row in cpw_rows()
        .into_iter()
        .filter(|r| nodes.contains(&r.values[0]))
    {
        let (n, s) = stats(&Checked::from_fen(&row.fen).unwrap(), row.depth);
        let got = [
            n as u64,
            s.captures,
            s.en_passant,
            s.castles,
            s.promotions,
            s.checks,
            s.discovered_checks,
            s.double_checks,
            s.checkmates,
        ];
        assert_eq!(got, row.values, "{} depth {}", row.position, row.depth);
        checked += 1;
    }
    checked
}
