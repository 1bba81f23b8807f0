//! `perftlab compare`, `stress` and `perftree` end to end: against real Stockfish (CI installs Debian's
//! `stockfish`; with `CI=true` a missing Stockfish fails instead of skipping), against the deliberately buggy
//! fake engine `tests/fixtures/fake_engine.py` (each planted bug must be found at the exact position and
//! move), with the perftree script protocol, and with engines that die, hang, answer late or print garbage (killed with what they started, also
//! on SIGINT/SIGTERM).

mod common;

use common::{
    alive, assert_usage, finish, hung_engine, python_uci_engine, run, run_within, scratch,
    send_signal, spawn, stockfish, temp_file, wait_for_file, START,
};
use perftlab::cpw::POSITIONS;
use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_perftlab");
const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.py");
const KIWIPETE: &str = perftlab::cpw::KIWIPETE.fen;

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(args);
    let v = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out} / {err}"));
    (code, v)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().expect("string").to_string())
        .collect()
}

/// The first four FEN fields (the clocks depend on the path taken).
fn fen4(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

#[test]
fn compare_agrees_with_stockfish() {
    let Some(sf) = stockfish() else { return };
    for (fen, depth, moves) in [
        ("startpos", "5", None),
        (KIWIPETE, "4", None),
        (KIWIPETE, "4", Some("e1g1 h3g2")),
        (POSITIONS[2].fen, "5", None),
        (POSITIONS[3].fen, "4", None),
        (POSITIONS[4].fen, "4", None),
        // Chess960 (Shredder-FEN castling): castling is sent and compared as king takes rook.
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "4",
            None,
        ),
    ] {
        let mut args = vec!["compare", "--engine", &sf, "--depth", depth, "--json"];
        if fen == "startpos" {
            args.push("--startpos");
        } else {
            args.extend(["--fen", fen]);
        }
        if let Some(m) = moves {
            args.extend(["--moves", m]);
        }
        let (code, v) = json(&args);
        assert_eq!(code, 0, "{fen}: {v}");
        assert_eq!(v["agree"], true);
        assert_eq!(v["nodes"], v["engine_nodes"]);
        assert!(v["path"].as_array().unwrap().is_empty());
        assert!(v["missing"].as_array().unwrap().is_empty());
        assert!(v["extra"].as_array().unwrap().is_empty());
    }
    // Text mode, and the known total of the start position from outside (CPW): 197281.
    let (code, out, _) = run(&[
        "compare",
        "--engine",
        &sf,
        "--depth",
        "4",
        "--backend",
        "reference",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("agree: 197281 nodes"), "{out}");
}

#[test]
fn compare_suites_agree_with_stockfish() {
    let Some(sf) = stockfish() else { return };
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/data/");
    for (file, depth, positions) in [("standard.epd", "4", 128), ("chess960.epd", "3", 960)] {
        let suite = format!("{data}{file}");
        let (code, v) = json(&[
            "compare", "--engine", &sf, "--suite", &suite, "--depth", depth, "--json",
        ]);
        assert_eq!(code, 0, "{file}: {v}");
        assert_eq!(v["agree"], true);
        assert_eq!(v["positions"], positions);
        assert_eq!(v["failed"], 0);
    }
}

#[test]
fn stress_agrees_with_stockfish() {
    let Some(sf) = stockfish() else { return };
    for extra in [&[][..], &["--chess960"][..]] {
        let mut args = vec![
            "stress",
            "--engine",
            &sf,
            "--positions",
            "100",
            "--seed",
            "2026",
            "--depth",
            "4",
            "--json",
        ];
        args.extend_from_slice(extra);
        let (code, v) = json(&args);
        assert_eq!(code, 0, "{v}");
        assert_eq!(v["agree"], true);
        assert_eq!(v["positions"], 100);
        assert!(v["nodes"].as_u64().unwrap() > 10_000_000, "{v}");
    }
}

fn fake(bug: &str) -> String {
    if bug.is_empty() {
        format!("python3 {FAKE}")
    } else {
        format!("python3 {FAKE} --bug {bug}")
    }
}

#[test]
fn fake_engine_without_bugs_agrees() {
    // Keeps the planted-bug tests honest: the fixture's own generator is right when no bug is planted.
    for (fen, depth) in [
        (KIWIPETE, "3"),
        (POSITIONS[2].fen, "4"),
        (POSITIONS[3].fen, "3"),
        ("8/8/8/8/4p3/8/3PK3/k7 w - - 0 1", "3"),
        ("k7/5r2/8/8/8/8/8/R3K2R b KQ - 0 1", "3"),
        ("4k3/8/8/8/8/8/r7/4K3 b - - 0 1", "4"),
        ("4k3/4r3/8/8/8/8/4N3/4K3 b - - 0 1", "3"),
        ("8/P7/8/8/8/8/8/k1K5 b - - 0 1", "3"),
    ] {
        let (code, v) = json(&[
            "compare",
            "--engine",
            &fake(""),
            "--fen",
            fen,
            "--depth",
            depth,
            "--json",
        ]);
        assert_eq!(code, 0, "{fen}: {v}");
        assert_eq!(v["agree"], true);
    }
    // The same random positions the grouping test below uses, then every rule-directed kind (Chess960
    // included): no failure without planted bugs.
    for kinds in ["random", "all"] {
        let (code, v) = json(&[
            "stress",
            "--engine",
            &fake(""),
            "--kinds",
            kinds,
            "--positions",
            "30",
            "--seed",
            "1",
            "--depth",
            "2",
            "--json",
        ]);
        assert_eq!(code, 0, "{kinds}: {v}");
        assert_eq!(v["agree"], true);
    }
}

/// A planted bug and what `compare` must report: bug, root, path, failing FEN (4 fields), missing, extra,
/// kind.
type Planted = (
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
);

#[test]
fn compare_finds_each_planted_bug_at_the_exact_position_and_move() {
    let cases: [Planted; 5] = [
        (
            "ep-check",
            "8/8/8/8/4p3/8/3PK3/k7 w - - 0 1",
            &["d2d4"],
            "8/8/8/8/3Pp3/8/4K3/k7 b - d3",
            &["e4d3"],
            &[],
            "en_passant",
        ),
        (
            "castle-attacked",
            "k7/5r2/8/8/8/8/8/R3K2R b KQ - 0 1",
            // a8a7 is illegal (the a1 rook), so a8b7 is the first move whose count differs.
            &["a8b7"],
            "8/1k3r2/8/8/8/8/8/R3K2R w KQ -",
            &[],
            &["e1g1"],
            "castling",
        ),
        (
            "no-underpromotion",
            "8/P7/8/8/8/8/8/k1K5 b - - 0 1",
            &["a1a2"],
            "8/P7/8/8/8/8/k7/2K5 w - -",
            &["a7a8b", "a7a8n", "a7a8r"],
            &[],
            "promotion",
        ),
        (
            "pin",
            "4k3/4r3/8/8/8/8/4N3/4K3 b - - 0 1",
            &["e7e3"],
            "4k3/8/8/8/8/4r3/4N3/4K3 w - -",
            &[],
            &["e2c1", "e2c3", "e2d4", "e2f4", "e2g1", "e2g3"],
            "pin",
        ),
        (
            "evasion",
            "4k3/8/8/8/8/8/r7/4K3 b - - 0 1",
            &["a2a1"],
            "4k3/8/8/8/8/8/8/r3K3 w - -",
            &[],
            &["e1f1"],
            "check_evasion",
        ),
    ];
    for (bug, root, path, fen, missing, extra, kind) in cases {
        let (code, v) = json(&[
            "compare",
            "--engine",
            &fake(bug),
            "--fen",
            root,
            "--depth",
            "3",
            "--json",
        ]);
        assert_eq!(code, 1, "{bug}: {v}");
        assert_eq!(v["agree"], false, "{bug}");
        assert_eq!(strings(&v["path"]), path, "{bug}: {v}");
        assert_eq!(fen4(v["fen"].as_str().unwrap()), fen, "{bug}");
        assert_eq!(strings(&v["missing"]), missing, "{bug}");
        assert_eq!(strings(&v["extra"]), extra, "{bug}");
        assert_eq!(strings(&v["kinds"]), [kind], "{bug}");
        assert_ne!(v["nodes"], v["engine_nodes"], "{bug}");
    }
    // Text output names the position and the move too.
    let (code, out, _) = run(&[
        "compare",
        "--engine",
        &fake("ep-check"),
        "--fen",
        "8/8/8/8/4p3/8/3PK3/k7 w - - 0 1",
        "--depth",
        "3",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("MISMATCH"), "{out}");
    assert!(out.contains("path:    d2d4"), "{out}");
    assert!(out.contains("missing: e4d3"), "{out}");
}

#[test]
fn compare_drills_down_through_two_plies() {
    // A position found by `stress --seed 1` against the e.p. bug: the engine lacks an e.p. capture that gives
    // check two plies down; the drill-down must report that position and move, reached by the path shown.
    let root = "2b3n1/r6r/1p2k3/pBpp2B1/P2Pp3/N5P1/1PPK4/4R3 b - - 1 27";
    let (code, v) = json(&[
        "compare",
        "--engine",
        &fake("ep-check"),
        "--fen",
        root,
        "--depth",
        "3",
        "--json",
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(strings(&v["path"]), ["c5d4", "c2c4"]);
    assert_eq!(
        fen4(v["fen"].as_str().unwrap()),
        "2b3n1/r6r/1p2k3/pB1p2B1/P1Ppp3/N5P1/1P1K4/4R3 b - c3"
    );
    assert_eq!(strings(&v["missing"]), ["d4c3"]);
    assert_eq!(v["failing_depth"], 1);
    assert_eq!(strings(&v["kinds"]), ["en_passant"]);
    // Replaying the path from the root gives the reported FEN, where the missing move is legal and checks.
    let (_, a) = json(&["analyze", "--fen", root, "--moves", "c5d4 c2c4", "--json"]);
    assert_eq!(
        fen4(a["fen"].as_str().unwrap()),
        fen4(v["fen"].as_str().unwrap())
    );
    let i = strings(&a["legal_moves"])
        .iter()
        .position(|m| m == "d4c3")
        .expect("missing move is legal");
    assert_eq!(strings(&a["san"])[i], "dxc3+");
}

#[test]
fn stress_groups_failures_by_move_kind() {
    let engine = format!("python3 {FAKE} --bug no-underpromotion --bug pin --bug evasion");
    let (code, v) = json(&[
        "stress",
        "--engine",
        &engine,
        "--kinds",
        "random",
        "--positions",
        "30",
        "--seed",
        "1",
        "--depth",
        "2",
        "--json",
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["agree"], false);
    let kinds: Vec<&String> = v["by_kind"].as_object().unwrap().keys().collect();
    assert_eq!(kinds, ["check_evasion", "pin", "promotion"], "{v}");
    assert_eq!(
        v["failed"].as_u64().unwrap() as usize,
        v["failures"].as_array().unwrap().len()
    );
}

#[test]
fn script_protocol_finds_the_planted_bug_and_perftree_mode_agrees() {
    let script = format!("python3 {FAKE} --script --bug ep-check");
    let (code, v) = json(&[
        "compare",
        "--protocol",
        "script",
        "--engine",
        &script,
        "--fen",
        "8/8/8/8/4p3/8/3PK3/k7 w - - 0 1",
        "--depth",
        "3",
        "--json",
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(strings(&v["path"]), ["d2d4"]);
    assert_eq!(strings(&v["missing"]), ["e4d3"]);
    // perftlab itself as a perftree script.
    let me = format!("{BIN} perftree");
    let (code, v) = json(&[
        "compare",
        "--protocol",
        "script",
        "--engine",
        &me,
        "--fen",
        KIWIPETE,
        "--moves",
        "e1c1",
        "--depth",
        "3",
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["agree"], true);
    // And for stress, with Chess960 starts (castling as king takes rook on both sides).
    let (code, v) = json(&[
        "stress",
        "--protocol",
        "script",
        "--engine",
        &me,
        "--chess960",
        "--positions",
        "10",
        "--depth",
        "2",
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["positions"], 10);
}

#[test]
fn perftree_mode_prints_the_script_format_and_matches_stockfish() {
    let (code, out, _) = run(&[
        "perftree",
        "2",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "e2e4 e7e5",
    ]);
    assert_eq!(code, 0);
    let (moves, total) = out.split_once("\n\n").expect("blank line");
    assert_eq!(moves.lines().count(), 29);
    assert!(moves.lines().all(|l| l.split(' ').count() == 2));
    let total: u64 = total.trim().parse().unwrap();
    let sum: u64 = moves
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, sum);
    let Some(sf) = stockfish() else { return };
    // Stockfish's divide of the same position, parsed here independently.
    let mut child = Command::new(&sf)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("position fen {KIWIPETE} moves e1g1\ngo perft 3\nquit\n").as_bytes())
        .unwrap();
    let sf_out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let mut expected: Vec<String> = sf_out
        .lines()
        .filter_map(|l| {
            let (m, n) = l.split_once(": ")?;
            (m.len() <= 5 && n.parse::<u64>().is_ok()).then(|| format!("{m} {n}"))
        })
        .collect();
    expected.sort();
    let (_, out, _) = run(&["perftree", "3", KIWIPETE, "e1g1"]);
    let (moves, _) = out.split_once("\n\n").unwrap();
    let mut got: Vec<String> = moves.lines().map(str::to_string).collect();
    got.sort();
    assert_eq!(got, expected);
}

#[test]
fn engines_that_die_hang_or_print_garbage_get_clear_errors() {
    let garbage = format!("python3 {FAKE} --garbage");
    let (code, _, err) = run(&["compare", "--engine", &garbage, "--depth", "2"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unreadable line") && err.contains(": lots"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "compare",
        "--engine",
        "sleep 30",
        "--depth",
        "2",
        "--timeout",
        "0.5",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no answer to 'uci'") && err.contains("--timeout"),
        "{err}"
    );
    let (code, _, err) = run(&[
        "compare",
        "--engine",
        "echo this is not uci",
        "--depth",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("exited") && err.contains("'this is not uci'"),
        "{err}"
    );
    let (code, _, err) = run(&["compare", "--engine", "/nonexistent/engine", "--depth", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot start '/nonexistent/engine'"), "{err}");
    let (code, _, err) = run(&[
        "compare",
        "--protocol",
        "script",
        "--engine",
        "false",
        "--depth",
        "2",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("script 'false 2"), "{err}");
    let (code, _, err) = run(&[
        "compare", "--engine", "true", "--depth", "2", "--moves", "e2e5",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--moves") && err.contains("e2e5"), "{err}");
}

#[test]
fn a_suite_run_goes_on_after_an_engine_failure() {
    let dir = std::env::temp_dir().join(format!("perftlab-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let suite = dir.join("three.epd");
    std::fs::write(
        &suite,
        format!(
            "{KIWIPETE} ;D1 48\n8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 ;D1 14\n4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5\n"
        ),
    )
    .unwrap();
    let garbage = format!("python3 {FAKE} --garbage");
    let (code, out, err) = run(&[
        "compare",
        "--engine",
        &garbage,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--json",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 2, "{out} {err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let errors = strings(&v["engine_errors"]);
    assert_eq!(errors.len(), 3, "{v}");
    assert!(
        errors[2].contains("three.epd:3:") && errors[2].contains(": lots"),
        "{v}"
    );
}

#[test]
fn bench_times_stockfish_through_the_uci_client() {
    // `bench --stockfish` drives Stockfish with compare's UCI client; both sides' counts are checked against
    // the CPW table (`ok`).
    let Some(sf) = stockfish() else { return };
    let (code, v) = json(&[
        "bench",
        "--quick",
        "--threads",
        "1",
        "--stockfish",
        &sf,
        "--json",
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true, "{v}");
    assert!(v["ratio"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(v["positions"].as_array().unwrap().len(), 6);
    let (code, _, err) = run(&["bench", "--quick", "--stockfish", "/nonexistent/stockfish"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--stockfish") && err.contains("/nonexistent/stockfish"),
        "{err}"
    );
    let (code, _, err) = run(&["bench", "--quick", "--stockfish", &sf, "--timeout", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--timeout"), "{err}");
}

// ---------------------------------------------------------------------------------------------------------
// Engines that crash, hang, print garbage or answer late; signals reach the engine and what it started
// (issues 11 and 23).
// ---------------------------------------------------------------------------------------------------------

// Defect 7: `compare --suite --json` said `"agree": true` when the engine died on some positions.
#[test]
fn agree_is_false_when_a_position_was_not_compared() {
    let engine = python_uci_engine("crash.py", "sys.exit(3)");
    let suite = temp_file(
        "two.epd",
        &format!("{START} ;D1 20\n4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\n"),
    );
    let (code, out, err) = run(&[
        "compare",
        "--engine",
        &engine,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--json",
    ]);
    assert_eq!(code, 2, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agree"], false, "{out}");
    assert_eq!(v["engine_errors"].as_array().unwrap().len(), 2, "{out}");
}

// Stress goes on after an engine crash (a fresh engine per failure), counting the crashes.
#[test]
fn stress_restarts_a_crashed_engine_and_counts_it() {
    let engine = python_uci_engine("crash2.py", "sys.exit(3)");
    let (code, out, err) = run(&[
        "stress",
        "--engine",
        &engine,
        "--positions",
        "3",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    for i in 1..=3 {
        assert!(
            err.contains(&format!("position {i} of seed 1: engine")),
            "{err}"
        );
    }
    assert!(out.contains("3 positions where the engine failed"), "{out}");
}

// `stress --start INDEX` re-runs one position of a seed, named as the output names it.
#[test]
fn stress_start_reruns_a_position_of_the_seed() {
    let fake = format!(
        "python3 {}/tests/fixtures/fake_engine.py --bug no-underpromotion --bug pin",
        env!("CARGO_MANIFEST_DIR")
    );
    let args = [
        "stress",
        "--engine",
        &fake,
        "--positions",
        "30",
        "--depth",
        "2",
        "--seed",
        "1",
    ];
    let (code, out, _) = run(&args);
    assert_eq!(code, 1, "{out}");
    let header = out
        .lines()
        .filter(|l| l.starts_with("position "))
        .nth(1)
        .expect("two failures")
        .to_string();
    let index: String = header["position ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .into();
    let root = out
        .lines()
        .skip_while(|l| *l != header)
        .nth(2)
        .unwrap()
        .to_string();
    assert!(root.starts_with("root:"), "{root}");
    let (code, again, _) = run(&[
        "stress",
        "--engine",
        &fake,
        "--positions",
        "1",
        "--depth",
        "2",
        "--seed",
        "1",
        "--start",
        &index,
    ]);
    assert_eq!(code, 1, "{again}");
    assert!(again.starts_with(&format!("{header}\n")), "{again}");
    assert!(again.contains(&format!("{root}\n")), "{again}");
    assert!(again.contains("1 position compared ("), "{again}");
    assert_usage(&["stress", "--engine", &fake, "--start", "0"], "--start");
}

// Defect 8: a timed-out script engine was killed, but what it started kept running.
#[test]
fn timed_out_engine_is_killed_with_its_children() {
    let pid_file =
        std::env::temp_dir().join(format!("perftlab-hard-child-{}.pid", std::process::id()));
    let script = temp_file(
        "hang.sh",
        &format!("sleep 300 &\necho $! > {}\nwait\n", pid_file.display()),
    );
    let engine = format!("sh {}", script.display());
    let (code, _, err) = run(&[
        "compare",
        "--protocol",
        "script",
        "--engine",
        &engine,
        "--depth",
        "1",
        "--timeout",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did not finish within 1 s"), "{err}");
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_string();
    // Gone, or a zombie waiting for a reaper (killed either way).
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let alive = state
        .rsplit(')')
        .next()
        .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.trim().is_empty());
    if alive {
        let _ = Command::new("kill").arg(&pid).status();
    }
    assert!(!alive, "the engine's child {pid} still runs: {state}");
}

// An engine printing moves that are not UCI is told so, not that its total is wrong.
#[test]
fn unreadable_move_lines_are_named() {
    let engine = python_uci_engine(
        "upper.py",
        "print('G1F3: 20'); print(); print('Nodes searched: 20', flush=True)",
    );
    let (code, _, err) = run(&["compare", "--engine", &engine, "--depth", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("'G1F3: 20'") && err.contains("move lines are unreadable"),
        "{err}"
    );
}

// An engine that printed no move lines, only a (right) total, is told so: a UCI engine's answer is
// unreadable, a perftree script's mismatch carries a note.
#[test]
fn engine_that_lists_no_moves_is_told_so() {
    let engine = python_uci_engine("nomoves.py", "print('Nodes searched: 20', flush=True)");
    let (code, out, err) = run(&["compare", "--engine", &engine, "--depth", "1"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("it listed no moves, only a total"), "{err}");
    let script = temp_file("nomoves.sh", "printf '\\n20\\n'\n");
    let engine = format!("sh {}", script.display());
    let (code, out, err) = run(&[
        "compare",
        "--protocol",
        "script",
        "--engine",
        &engine,
        "--depth",
        "1",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("note:    the engine listed no moves here, only a total"),
        "{out}"
    );
}

// Item 2: SIGINT/SIGTERM left the engine (and what it started) running.
#[test]
fn signals_kill_the_engine_and_its_children() {
    for (signal, code, extra) in [
        ("TERM", 143, vec![]),
        ("INT", 130, vec!["--perft-command", "perft {depth}"]),
    ] {
        let pids = scratch(&format!("hung-{signal}.pids"));
        let engine = hung_engine("hang", Some(&pids));
        let mut args = vec!["compare", "--engine", &engine, "--depth", "3"];
        args.extend(extra.iter().copied());
        let child = spawn(&args);
        assert!(wait_for_file(&pids, 60), "the engine never hung");
        send_signal(child.id(), signal);
        let (got, _, err) = finish(child, 30);
        assert_eq!(got, code, "{err}");
        let text = std::fs::read_to_string(&pids).unwrap();
        // The kill is synchronous, but give the kernel a moment to tear the processes down.
        std::thread::sleep(std::time::Duration::from_millis(300));
        for pid in text.split_whitespace() {
            let running = alive(pid);
            if running {
                let _ = Command::new("kill").args(["-KILL", pid]).status();
            }
            assert!(
                !running,
                "SIG{signal}: process {pid} of the engine's group still runs"
            );
        }
    }
}

// Item 5: `--perft-command` read late answers as the next question's answer (false mismatches).
#[test]
fn perft_command_waits_for_the_total_and_resynchronises() {
    // An engine that answers `isready` at once and prints its total later: 8902 is the CPW count.
    let engine = hung_engine("async", None);
    for cmd in ["perft {depth}", "go perft {depth}"] {
        let (code, out, err) = run(&[
            "compare",
            "--engine",
            &engine,
            "--perft-command",
            cmd,
            "--depth",
            "3",
        ]);
        assert_eq!(code, 0, "{cmd}: {out}{err}");
        assert!(out.starts_with("agree: 8902 nodes at depth 3"), "{out}");
    }
    // An engine that does not know the command is told what the command must do.
    let engine = hung_engine("unknown", None);
    let (code, out, err) = run_within(
        &[
            "compare",
            "--engine",
            &engine,
            "--perft-command",
            "perft {depth}",
            "--depth",
            "2",
        ],
        60,
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("does not know the command"), "{err}");
    assert!(
        err.contains("perft command must print the node count"),
        "{err}"
    );
    // Stockfish 15.1 runs `go perft` on a search thread: `readyok` comes first. Several runs, as the race
    // showed in 2 of 6 before.
    let Some(sf) = stockfish() else { return };
    for depth in ["3", "4"] {
        for _ in 0..3 {
            let (code, out, err) = run(&[
                "compare",
                "--engine",
                &sf,
                "--perft-command",
                "go perft {depth}",
                "--depth",
                depth,
            ]);
            assert_eq!(code, 0, "{out}{err}");
            assert!(out.starts_with("agree:"), "{out}");
        }
    }
    // A real mismatch is still found through totals: Stockfish against perftlab from Kiwipete agrees at 2.
    let (code, out, err) = run(&[
        "compare",
        "--engine",
        &sf,
        "--perft-command",
        "go perft {depth}",
        "--fen",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "--depth",
        "2",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("agree: 2039 nodes"), "{out}");
}

// Item 11: the engine died during the drill-down after the root totals differed: exit 2 without them.
#[test]
fn drill_down_crash_keeps_the_mismatch() {
    let engine = hung_engine("crash-after-root", None);
    let (code, out, err) = run(&["compare", "--engine", &engine, "--depth", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("MISMATCH at depth 2: engine"), "{out}");
    assert!(out.contains("401 nodes, perftlab 400"), "{out}");
    assert!(out.contains("count:   e2e4 engine 21 perftlab 20"), "{out}");
    assert!(err.contains("exited"), "{err}");
    let (code, out, _) = run(&["compare", "--engine", &engine, "--depth", "2", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agree"], false);
    assert!(
        v["engine_error"]
            .as_str()
            .is_some_and(|e| e.contains("exited")),
        "{out}"
    );
}
