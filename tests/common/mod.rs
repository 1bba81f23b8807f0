//! Helpers shared by the integration tests: locating test data, reading the CPW detail table, running the
//! binary (with deadlines, signals and misbehaving engines), finding Stockfish.
#![allow(dead_code)]

use perftlab::backend::{Column, Stats};
use perftlab::Checked;
use std::path::PathBuf;

/// The suites the crate itself embeds (`compare::kinds`, `stress --kinds suite`): they live in the crate's
/// `data/` folder, the one copy the tests read too (sources in `data/README.md`).
pub const CRATE_SUITES: [&str; 3] = ["standard.epd", "chess960.epd", "tricky.perft"];

/// Path of a data file: one of [`CRATE_SUITES`] under `data/`, any other file under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    let dir = if CRATE_SUITES.contains(&name) {
        "data"
    } else {
        "tests/data"
    };
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
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

// ---------------------------------------------------------------------------------------------------------
// Running perftlab with deadlines and signals, and engines that misbehave (issues 11 and 23).
// ---------------------------------------------------------------------------------------------------------

/// Exit 2, a message naming `needle`, no panic.
pub fn assert_usage(args: &[&str], needle: &str) {
    let (code, _, err) = run(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: '{err}' lacks '{needle}'");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

/// The initial position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A position with one legal move per ply at any depth (`prison` of `data/tricky.perft`).
pub const PRISON: &str = "2b5/kpPp4/1p1P4/1P6/6p1/4p1P1/4PpPK/5B2 w - - 0 1";

/// Whether a GPU adapter is there; with `CI=true` its absence fails the test (CI installs lavapipe).
pub fn gpu_available() -> bool {
    let (code, _, err) = run(&["devices"]);
    if code == 0 {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but no GPU adapter: {err}"
    );
    eprintln!("skipped: no GPU adapter ({err})");
    false
}

/// A UCI engine in Python that completes the handshake and then answers `go` with `on_go` (Python code).
pub fn python_uci_engine(name: &str, on_go: &str) -> String {
    let script = format!(
        "import sys\n\
         for line in sys.stdin:\n\
         \x20   l = line.strip()\n\
         \x20   if l == 'uci': print('uciok', flush=True)\n\
         \x20   elif l == 'isready': print('readyok', flush=True)\n\
         \x20   elif l.startswith('go'):\n\
         \x20       {on_go}\n\
         \x20   elif l == 'quit': break\n"
    );
    let p = temp_file(name, &script);
    format!("python3 {}", p.display())
}

/// `python3 tests/fixtures/hung_engine.py MODE [ARG]` (see the fixture's header for the modes).
pub fn hung_engine(mode: &str, arg: Option<&std::path::Path>) -> String {
    let script = format!(
        "{}/tests/fixtures/hung_engine.py",
        env!("CARGO_MANIFEST_DIR")
    );
    match arg {
        Some(a) => format!("python3 {script} {mode} {}", a.display()),
        None => format!("python3 {script} {mode}"),
    }
}

/// A fresh path in the test's scratch directory (nothing written there).
pub fn scratch(name: &str) -> std::path::PathBuf {
    let p = temp_file(name, "");
    std::fs::remove_file(&p).unwrap();
    p
}

/// Wait up to `secs` for `path` to exist.
pub fn wait_for_file(path: &std::path::Path, secs: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if path.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// Whether process `pid` still runs (a zombie waiting for its reaper counts as dead: it was killed).
pub fn alive(pid: &str) -> bool {
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    state
        .rsplit(')')
        .next()
        .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.trim().is_empty())
}

/// Send `signal` (`INT`, `TERM`) to a process.
pub fn send_signal(pid: u32, signal: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Wait for `child` at most `secs` seconds (killed and the test failed after that); (code, stdout, stderr).
pub fn finish(mut child: std::process::Child, secs: u64) -> (i32, String, String) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "perftlab did not finish within {secs} s; it printed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Start perftlab with `args`, standard input empty, its output piped.
pub fn spawn(args: &[&str]) -> std::process::Child {
    perftlab()
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run perftlab")
}

/// Run with a deadline (for inputs that once made perftlab read without end).
pub fn run_within(args: &[&str], secs: u64) -> (i32, String, String) {
    finish(spawn(args), secs)
}

/// The part of `text` between `before` and `after` (both must be there): a machine-dependent figure of a
/// message whose other words are checked exactly.
pub fn between<'a>(text: &'a str, before: &str, after: &str) -> &'a str {
    let rest = text
        .strip_prefix(before)
        .unwrap_or_else(|| panic!("{text:?} does not start with {before:?}"));
    rest.strip_suffix(after)
        .unwrap_or_else(|| panic!("{text:?} does not end with {after:?}"))
}

/// xorshift64*: a small seeded generator, so a test's random inputs (games, mutations) are the same on every
/// run and a failure is found again by the same test.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
