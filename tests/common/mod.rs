//! Helpers shared by the integration tests: locating test data and reading the CPW detail table.
#![allow(dead_code)]

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
