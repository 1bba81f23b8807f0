//! Helpers shared by the integration tests: locating test data, reading the CPW detail table, running the
//! binary, finding Stockfish.
#![allow(dead_code)]

use perftlab::backend::{Column, Stats};
use perftlab::Checked;
use std::path::PathBuf;

/// Path of a file under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Write `text` to `name` in a scratch directory of this test process; returns its path.
pub fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perftlab-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// One row of `tests/data/cpw-detail.csv` (Chess Programming Wiki "Perft Results").
#[derive(Debug, Clone)]
pub struct CpwRow {
    pub position: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u128,
    /// The statistics columns of the file, named by its header (the CPW columns).
    pub columns: Vec<(Column, u128)>,
}

/// All rows of the CPW detail table.
pub fn cpw_rows() -> Vec<CpwRow> {
    let text = std::fs::read_to_string(data("cpw-detail.csv")).expect("tests/data/cpw-detail.csv");
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    assert_eq!(header[..4], ["position", "fen", "depth", "nodes"]);
    let columns: Vec<Column> = header[4..]
        .iter()
        .map(|k| Column::from_key(k).unwrap_or_else(|| panic!("unknown column {k}")))
        .collect();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "{l}");
            CpwRow {
                position: f[0].into(),
                fen: f[1].into(),
                depth: f[2].parse().unwrap(),
                nodes: f[3].parse().unwrap(),
                columns: columns
                    .iter()
                    .zip(&f[4..])
                    .map(|(&c, v)| (c, v.parse().expect("number")))
                    .collect(),
            }
        })
        .collect()
}

/// The perftlab binary built for these tests.
pub fn perftlab() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_perftlab"))
}

/// Run the binary with `args`: (exit code, standard output, standard error). A death by a signal fails the
/// test.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = perftlab().args(args).output().expect("run perftlab");
    output(out)
}

/// [`run`] with `input` on standard input.
pub fn run_stdin(args: &[&str], input: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = perftlab()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run perftlab");
    child.stdin.take().unwrap().write_all(input).unwrap();
    output(child.wait_with_output().unwrap())
}

fn output(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Stockfish for the tests that need it (on `PATH`, in `/usr/games` or `/usr/bin`): `None`, said on stderr,
/// when it is missing outside CI; with `CI=true` a missing Stockfish fails the test.
pub fn stockfish() -> Option<String> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain(["/usr/games".into(), "/usr/bin".into()])
        .map(|d: PathBuf| d.join("stockfish"))
        .find(|p| p.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but Stockfish is not installed (on PATH, in /usr/games or /usr/bin)"
        );
        eprintln!("skipped: Stockfish is not installed");
    }
    found.map(|p| p.display().to_string())
}

/// Check a backend's detail statistics against every CPW row whose node count lies in `nodes` (a range of
/// leaf counts); returns the number of rows checked.
pub fn assert_cpw_stats(
    nodes: std::ops::RangeInclusive<u128>,
    stats: impl Fn(&Checked, u32) -> (u128, Stats),
) -> usize {
    let mut checked = 0;
    for row in cpw_rows().into_iter().filter(|r| nodes.contains(&r.nodes)) {
        let (n, s) = stats(&Checked::from_fen(&row.fen).unwrap(), row.depth);
        let got: Vec<(Column, u128)> = row.columns.iter().map(|&(c, _)| (c, s[c])).collect();
        assert_eq!(
            (n, got),
            (row.nodes, row.columns),
            "{} depth {}",
            row.position,
            row.depth
        );
        checked += 1;
    }
    checked
}
