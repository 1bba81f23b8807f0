//! `perftlab stress` with rule-directed positions (`src/compare/kinds.rs`): each kind finds the planted bug it
//! targets in the fake engine (`tests/fixtures/fake_engine.py`), where random playouts alone miss it for the
//! same seed and budget; `--fail-fast`, the per-failure `index`/`seed`/`rerun` fields and
//! `time_to_first_failure`; `--kinds` errors; Chess960 over the script protocol (Shredder-FEN, which the fake
//! engine's script mode insists on); Stockfish clean on every kind (with `CI=true` a missing Stockfish fails).

mod common;

use common::{run, stockfish};
use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_perftlab");
const FAKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_engine.py");

fn json(args: &[&str]) -> (i32, Value) {
    let (code, out, err) = run(args);
    let v = serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {out} / {err}"));
    (code, v)
}

fn fake(bug: &str) -> String {
    if bug.is_empty() {
        format!("python3 {FAKE}")
    } else {
        format!("python3 {FAKE} --bug {bug}")
    }
}

/// `stress` with `extra` flags against `engine`, `--json --quiet`.
fn stress(engine: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["stress", "--engine", engine, "--json", "--quiet"];
    args.extend_from_slice(extra);
    json(&args)
}

// Each planted bug of the issue ("random playouts miss these") is found by the kind that targets it, at the
// first failure with --fail-fast; the failure's `rerun` flags reproduce it alone; random playouts alone with
// the same seed and a larger budget miss it.
#[test]
fn each_kind_finds_the_bug_it_targets_and_random_playouts_do_not() {
    for (bug, kind, random_extra) in [
        ("ep-rank-pin", "ep", &[][..]),
        ("ep-pinned", "ep", &[][..]),
        ("ep-evasion", "ep", &[][..]),
        ("960-shield", "chess960", &["--chess960"][..]),
        ("clock-100", "clock", &[][..]),
        ("dead", "material", &[][..]),
    ] {
        let engine = fake(bug);
        let (code, v) = stress(
            &engine,
            &[
                "--kinds",
                kind,
                "--positions",
                "40",
                "--depth",
                "2",
                "--seed",
                "1",
                "--fail-fast",
            ],
        );
        assert_eq!(code, 1, "{bug}: {v}");
        assert_eq!(v["failed"], 1, "{bug}: {v}");
        assert_eq!(v["stopped_early"], true);
        assert!(v["time_to_first_failure"].as_f64().is_some(), "{v}");
        let f = &v["failures"][0];
        assert_eq!(f["position_kind"], kind, "{bug}: {f}");
        assert_eq!(f["seed"], 1);
        let index = f["index"].as_u64().expect("index");
        // With --fail-fast the run stopped at that position.
        assert_eq!(v["positions"].as_u64(), Some(index), "{bug}: {v}");
        // The `rerun` flags give that failure alone.
        let rerun: Vec<&str> = f["rerun"].as_str().unwrap().split(' ').collect();
        let (code, again) = stress(&engine, &rerun);
        assert_eq!(code, 1, "{bug}: {again}");
        assert_eq!(again["positions"], 1);
        assert_eq!(again["failures"][0]["fen"], f["fen"], "{bug}");
        assert_eq!(again["failures"][0]["index"], index);
        // Random playouts alone, same seed, more positions: nothing found (the point).
        let mut args = vec!["--kinds", "random", "--positions", "60", "--depth", "2"];
        args.extend_from_slice(random_extra);
        args.extend(["--seed", "1"]);
        let (code, r) = stress(&engine, &args);
        assert_eq!((code, &r["failed"]), (0, &Value::from(0)), "{bug}: {r}");
    }
}

#[test]
fn default_run_deals_every_kind_in_rounds_and_a_correct_engine_agrees() {
    let (code, v) = stress(
        &fake(""),
        &["--positions", "22", "--depth", "2", "--seed", "4"],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["agree"], true);
    assert_eq!(v["time_to_first_failure"], Value::Null);
    assert_eq!(v["stopped_early"], false);
    let kinds: Vec<&str> = v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "ep",
            "castling",
            "chess960",
            "promotion",
            "check",
            "pin",
            "end",
            "clock",
            "material",
            "suite",
            "random"
        ]
    );
    for k in kinds {
        assert_eq!(v["positions_by_kind"][k], 2, "{k}: {v}");
    }
}

#[test]
fn fail_fast_stops_at_the_first_failure_and_text_names_the_kind() {
    let engine = fake("pin");
    let (code, out, _) = run(&[
        "stress",
        "--engine",
        &engine,
        "--kinds",
        "pin,random",
        "--positions",
        "30",
        "--depth",
        "2",
        "--fail-fast",
        "--quiet",
    ]);
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("MISMATCH").count(), 1, "{out}");
    let header = out.lines().next().unwrap();
    assert!(
        header.starts_with("position ") && header.ends_with(" (pin):"),
        "{out}"
    );
    assert!(out.contains("first failure after "), "{out}");
    // Without --fail-fast the same run goes on past it.
    let (code, v) = stress(
        &engine,
        &["--kinds", "pin,random", "--positions", "30", "--depth", "2"],
    );
    assert_eq!(code, 1);
    assert_eq!(v["positions"], 30);
    assert!(v["failed"].as_u64().unwrap() > 1, "{v}");
}

#[test]
fn bad_kinds_are_usage_errors() {
    for bad in ["ep,castle", "", "random,,ep"] {
        let (code, _, err) = run(&["stress", "--engine", "x", "--kinds", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--kinds"), "{err}");
    }
}

// Chess960 over perftree's script protocol: positions with Chess960 rights are sent as Shredder-FEN (the fake
// engine's script mode exits 3 on KQkq rights that are not the standard ones), castling as king takes rook;
// the correct engine agrees on every Chess960 kind position, and the shield bug is found the same way.
#[test]
fn chess960_positions_reach_a_script_engine_as_shredder_fen() {
    // The fake engine refuses ambiguous X-FEN in script mode (so the check below can fail).
    let out = Command::new("python3")
        .args([
            FAKE,
            "--script",
            "1",
            "1r3kr1/8/8/8/8/8/8/1R3KR1 w KQkq - 0 1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    // A correct script engine agrees on 16 Chess960 positions; one with the planted bug fails (fail-fast).
    for (bug, extra, exit) in [("", None, 0), (" --bug 960-shield", Some("--fail-fast"), 1)] {
        let script = format!("python3 {FAKE} --script{bug}");
        let mut args = vec![
            "--protocol",
            "script",
            "--kinds",
            "chess960",
            "--positions",
            "16",
            "--depth",
            "2",
        ];
        args.extend(extra);
        let (code, v) = stress(&script, &args);
        assert_eq!(code, exit, "{v}");
        if exit == 0 {
            assert_eq!(v["positions"], 16);
            assert_eq!(v["engine_errors"].as_array().unwrap().len(), 0);
        } else {
            assert_eq!(v["failures"][0]["kinds"][0], "castling", "{v}");
        }
    }
}

#[test]
fn stockfish_agrees_on_every_kind() {
    let Some(sf) = stockfish() else { return };
    let (code, v) = stress(&sf, &["--positions", "330", "--depth", "3", "--seed", "7"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["agree"], true);
    assert_eq!(v["positions"], 330);
    for k in ["ep", "chess960", "clock", "material", "end", "suite"] {
        assert_eq!(v["positions_by_kind"][k], 30, "{k}: {v}");
    }
}

/// `tools/mutation-score.py` on a fixed sample of mutants of the fake engine's generator (castling and e.p.
/// code), with `extra` flags.
fn mutation_sample(extra: &[&str]) -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/mutation-score.py");
    let out = Command::new("python3")
        .arg(script)
        .args(["--ids", "133,137,148,149,197", "--positions", "40"])
        .args(["--depth", "2", "--seed", "1", "--cap", "60", "--json"])
        .args(extra)
        .env("PERFTLAB", BIN)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

// The CI sample of the mutation score: every sampled mutant is found within 40 positions with the default
// kinds, where random playouts alone (same seed, same budget) miss most of them, so a regression in the
// position kinds shows here. The mutants are named by their change, so an edit of the fake engine that
// renumbers them fails loudly instead of testing something else.
#[test]
fn mutants_sample_is_all_detected() {
    let v = mutation_sample(&[]);
    let changes: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["change"].as_str().unwrap())
        .collect();
    assert_eq!(
        changes,
        [
            "line 192 int: 0 -> -1",
            "line 195 int: 112 -> 113",
            "line 200 arith: rank + 6 -> rank - 6",
            "line 200 int: 6 -> 7",
            "line 237 cmp: flag == 'ep' -> flag != 'ep'",
        ]
    );
    assert_eq!(
        (v["mutants"].as_u64(), v["detected"].as_u64()),
        (Some(5), Some(5)),
        "{v}"
    );
    let random = mutation_sample(&["--kinds", "random"]);
    assert!(random["detected"].as_u64().unwrap() <= 2, "{random}");
}
