//! `compare`/`stress --perft-command` for engines whose perft command prints only a total: against Debian's
//! `ethereal-chess` (CI installs it; with `CI=true` a missing Ethereal fails instead of skipping) and the
//! fake engine's Ethereal-style `perft N` (tests/fixtures/fake_engine.py), whose planted bugs must be found
//! at the same positions as through its divide.

mod common;

use common::perftlab;
use serde_json::Value;

const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.py");
const PERFT: &str = "perft {depth}";

fn ethereal() -> Option<String> {
    for c in ["ethereal-chess", "/usr/games/ethereal-chess"] {
        let ok = std::process::Command::new(c)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok();
        if ok {
            return Some(c.to_string());
        }
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("ethereal-chess not found on PATH or in /usr/games (CI installs it with apt)");
    }
    eprintln!("skipped: ethereal-chess not installed");
    None
}

/// Run perftlab; (exit code, stdout as JSON).
fn run_json(args: &[&str]) -> (i32, Value) {
    let out = perftlab().args(args).output().expect("run perftlab");
    let code = out.status.code().expect("exit code");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, v)
}

#[test]
fn ethereal_agrees_through_its_total_only_perft() {
    let Some(engine) = ethereal() else { return };
    // CPW counts: the initial position at depth 4 (197281) and Kiwipete at depth 3 (97862).
    let (code, v) = run_json(&[
        "compare",
        "--engine",
        &engine,
        "--perft-command",
        PERFT,
        "--depth",
        "4",
        "--json",
        "--quiet",
    ]);
    assert_eq!((code, v["agree"].as_bool()), (0, Some(true)), "{v}");
    assert_eq!(v["engine_nodes"], 197_281);
    let (code, v) = run_json(&[
        "compare",
        "--engine",
        &engine,
        "--perft-command",
        PERFT,
        "--fen",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "--depth",
        "3",
        "--json",
        "--quiet",
    ]);
    assert_eq!((code, v["engine_nodes"].as_u64()), (0, Some(97_862)), "{v}");
    // Random positions, standard and Chess960 (castling king-takes-rook with UCI_Chess960).
    for extra in [&[][..], &["--chess960"][..]] {
        let mut args = vec![
            "stress",
            "--engine",
            &engine,
            "--perft-command",
            PERFT,
            "--positions",
            "40",
            "--depth",
            "2",
            "--json",
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let (code, v) = run_json(&args);
        assert_eq!((code, v["failed"].as_u64()), (0, Some(0)), "{extra:?}: {v}");
        assert_eq!(v["positions"], 40);
    }
}

#[test]
fn a_missing_move_is_found_at_the_exact_position() {
    // No underpromotions: after a1a2 White's a7a8 knight, bishop and rook promotions are missing. The fake
    // engine cannot play a move it does not know, so those children show as missing.
    let (code, v) = run_json(&[
        "compare",
        "--engine",
        &format!("python3 {FAKE} --bug no-underpromotion"),
        "--perft-command",
        PERFT,
        "--fen",
        "8/P7/8/8/8/8/8/k6K b - - 0 1",
        "--depth",
        "3",
        "--json",
        "--quiet",
    ]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["path"], serde_json::json!(["a1a2"]));
    assert_eq!(v["fen"], "8/P7/8/8/8/8/k7/7K w - - 1 2");
    assert_eq!(v["missing"], serde_json::json!(["a7a8b", "a7a8n", "a7a8r"]));
    assert_eq!(v["engine_nodes"], 65);
    assert_eq!(v["nodes"], 112);
}

#[test]
fn planted_bugs_fail_at_the_same_positions_as_through_the_divide() {
    for bug in ["pin", "evasion", "castle-attacked"] {
        let engine = format!("python3 {FAKE} --bug {bug}");
        let base = [
            "stress",
            "--engine",
            &engine,
            // Random playouts: on a directed position whose bug is an extra root move (the `suite` kind's CPW
            // position 3 for `pin`), a total-only engine shows it one ply deeper, since its move list is unseen.
            "--kinds",
            "random",
            "--positions",
            "25",
            "--depth",
            "2",
            "--seed",
            "3",
            "--json",
            "--quiet",
        ];
        let (code_divide, divide) = run_json(&base);
        let mut args = base.to_vec();
        args.extend(["--perft-command", PERFT]);
        let (code_total, total) = run_json(&args);
        let fens = |v: &Value| -> Vec<String> {
            v["failures"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["fen"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(code_total, code_divide, "{bug}");
        assert_eq!(fens(&total), fens(&divide), "{bug}");
        if bug != "castle-attacked" {
            assert!(!fens(&total).is_empty(), "{bug}: 25 positions show it");
        }
    }
}

#[test]
fn perft_command_is_checked() {
    for (args, what) in [
        (vec!["--perft-command", "perft"], "{depth}"),
        (
            vec!["--perft-command", "perft {depth}", "--protocol", "script"],
            "UCI",
        ),
    ] {
        let mut all = vec!["compare", "--engine", "python3", "--depth", "1"];
        all.extend(args);
        let out = perftlab().args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--perft-command") && err.contains(what),
            "{err}"
        );
    }
}
