//! The command line from the outside: output formats and every documented exit code
//! (0 success, 1 mismatch or failed check, 2 bad input or usage).

mod common;

use common::{data, perftlab, temp_file};

fn run(args: &[&str]) -> (i32, String, String) {
    let out = perftlab().args(args).output().expect("run perftlab");
    (
        out.status.code().expect("exit code, not a signal"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_prints_nodes_searched() {
    let (code, out, _) = run(&["perft", "--depth", "3", "--backend", "reference"]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "Nodes searched: 8902");
}

#[test]
fn divide_uses_stockfish_format() {
    let (code, out, _) = run(&[
        "perft",
        "--startpos",
        "--depth",
        "2",
        "--divide",
        "--backend",
        "reference",
    ]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 22);
    assert!(lines[..20].iter().all(|l| l.ends_with(": 20")));
    assert!(lines.contains(&"e2e4: 20"));
    assert_eq!(lines[20], "");
    assert_eq!(lines[21], "Nodes searched: 400");
}

#[test]
fn chess960_flag_shows_king_takes_rook() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let (_, std_out, _) = run(&[
        "perft",
        "--fen",
        fen,
        "--depth",
        "1",
        "--divide",
        "--backend",
        "reference",
    ]);
    assert!(std_out.contains("e1g1: 1") && std_out.contains("e1c1: 1"));
    let (_, out960, _) = run(&[
        "perft",
        "--fen",
        fen,
        "--depth",
        "1",
        "--divide",
        "--chess960",
        "--backend",
        "reference",
    ]);
    assert!(out960.contains("e1h1: 1") && out960.contains("e1a1: 1"));
}

#[test]
fn json_has_exactly_the_documented_keys() {
    let (code, out, _) = run(&[
        "perft",
        "--depth",
        "2",
        "--divide",
        "--stats",
        "--json",
        "--backend",
        "reference",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "backend",
            "depth",
            "divide",
            "fen",
            "nodes",
            "nps",
            "seconds",
            "setup_seconds",
            "stats"
        ]
    );
    assert_eq!(v["nodes"], 400);
    assert_eq!(v["divide"]["e2e4"], 20);
    let mut stat_keys: Vec<&str> = v["stats"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    stat_keys.sort();
    assert_eq!(
        stat_keys,
        [
            "captures",
            "castles",
            "checkmates",
            "checks",
            "discovered_checks",
            "double_checks",
            "en_passant",
            "promotions",
            "stalemates"
        ]
    );
    let (_, plain, _) = run(&["perft", "--depth", "1", "--json", "--backend", "reference"]);
    let v: serde_json::Value = serde_json::from_str(plain.trim()).unwrap();
    assert!(v["divide"].is_null() && v["stats"].is_null());
}

/// `--stats full`: the CPW keys and the check and mate categories, equal between the fast and reference
/// backends; the text output lists the same columns; a bad level is a usage error naming `--stats`.
#[test]
fn stats_full_has_the_categories() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let mut outs = Vec::new();
    for backend in ["cpu", "reference"] {
        let (code, out, err) = run(&[
            "perft",
            "--fen",
            kiwipete,
            "--depth",
            "3",
            "--stats",
            "full",
            "--json",
            "--backend",
            backend,
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        outs.push(v["stats"].clone());
    }
    assert_eq!(outs[0], outs[1]);
    let stats = outs[0].as_object().unwrap();
    let mut keys: Vec<&str> = stats.keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "captures",
            "castles",
            "checkmates",
            "checks",
            "direct_checks",
            "direct_discovered_checks",
            "direct_discovered_mates",
            "direct_mates",
            "discovered_checks",
            "double_checks",
            "double_discovered_checks",
            "double_discovered_mates",
            "en_passant",
            "promotions",
            "single_discovered_checks",
            "single_discovered_mates",
            "stalemates"
        ]
    );
    // CPW, Kiwipete depth 3: 97,862 leaves, 17,102 captures, 993 checks, 1 mate.
    assert_eq!(stats["captures"], 17102);
    assert_eq!(stats["checks"], 993);
    assert_eq!(stats["checkmates"], 1);
    let (code, text, _) = run(&[
        "perft", "--fen", kiwipete, "--depth", "3", "--stats", "full",
    ]);
    assert_eq!(code, 0);
    assert!(text.contains("\ndirect discovered checks "), "{text}");
    assert_eq!(text.lines().count(), 18, "{text}");
    let (code, _, err) = run(&["perft", "--depth", "1", "--stats", "most"]);
    assert_eq!(code, 2);
    assert!(err.contains("--stats") && err.contains("most"), "{err}");
    let (code, _, err) = run(&["table", "--depth", "1", "--stats", "most"]);
    assert_eq!(code, 2);
    assert!(err.contains("--stats") && err.contains("most"), "{err}");
}

#[test]
fn bad_fen_is_exit_2_naming_the_field() {
    let (code, _, err) = run(&["perft", "--fen", "8/8/8/8/8/8/8/8 x - -", "--depth", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("side to move") && err.contains("'x'"), "{err}");
}

#[test]
fn invalid_position_is_exit_2_naming_the_error() {
    let (code, _, err) = run(&["perft", "--fen", "8/8/8/8/8/8/8/4K3 w - -", "--depth", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("missing_king"), "{err}");
    let (code, _, err) = run(&[
        "perft",
        "--fen",
        "4k3/8/8/8/8/8/8/4K2R w Q -",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid_castling_right"), "{err}");
}

#[test]
fn impossible_but_playable_position_warns_and_counts() {
    let (code, out, err) = run(&[
        "perft",
        "--fen",
        "2b5/1nbn4/n3n3/1kn5/n3n3/1n1n4/5RQ1/2KQ1R2 w K -",
        "--depth",
        "2",
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("warning: impossible_check"), "{err}");
    assert_eq!(out.trim(), "Nodes searched: 104");
}

#[test]
fn usage_errors_are_exit_2() {
    for args in [
        vec!["perft"],
        vec!["perft", "--depth", "x"],
        vec!["perft", "--depth", "1", "--backend", "nope"],
        vec!["perft", "--depth", "1", "--threads", "0"],
        vec!["frobnicate"],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.is_empty());
    }
    let (code, _, _) = run(&["--help"]);
    assert_eq!(code, 0);
}

#[test]
fn suite_passes_and_prints_the_summary_line() {
    let (code, out, _) = run(&[
        "suite",
        data("tricky.perft").to_str().unwrap(),
        "--max-nodes",
        "100000",
    ]);
    assert_eq!(code, 0);
    let last = out.lines().last().unwrap();
    assert!(
        last.ends_with(" failed, 0 skipped") || last.contains(" 0 failed, "),
        "{last}"
    );
    assert!(last.contains(" 0 failed, "), "{last}");
}

#[test]
fn suite_mismatch_is_exit_1_with_details() {
    let f = temp_file(
        "wrong.epd",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 67 ;D3 1197\n",
    );
    let (code, out, _) = run(&["suite", f.to_str().unwrap(), "--backend", "reference"]);
    assert_eq!(code, 1);
    assert!(out.contains("depth 2: expected 67, got 66"), "{out}");
    assert_eq!(out.lines().last().unwrap(), "2 passed, 1 failed, 0 skipped");
}

#[test]
fn suite_budget_skips() {
    let f = temp_file(
        "budget.epd",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66 ;D3 1197 ;D4 7059\n",
    );
    let (code, out, _) = run(&[
        "suite",
        f.to_str().unwrap(),
        "--max-depth",
        "3",
        "--max-nodes",
        "1000",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last().unwrap(), "2 passed, 0 failed, 2 skipped");
}

#[test]
fn suite_missing_file_and_malformed_line_are_exit_2() {
    let (code, _, err) = run(&["suite", "/nonexistent/x.epd"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/x.epd"), "{err}");
    let f = temp_file(
        "bad.epd",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\nthis is not a suite line\n",
    );
    let (code, _, err) = run(&["suite", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.epd:2"), "{err}");
}

#[test]
fn verify_agrees_with_itself_and_json_suite_reports_counts() {
    let (code, out, _) = run(&["verify", "--depth", "2", "--backend", "reference"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = run(&[
        "suite",
        data("tricky.perft").to_str().unwrap(),
        "--max-nodes",
        "1000",
        "--json",
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["failed"], 0);
    assert!(v["passed"].as_u64().unwrap() > 20);
}

#[test]
fn closed_stdout_is_not_a_panic() {
    // The reader goes away before perftlab writes (like `perftlab perft --divide | head -0`): exit 141, as a
    // process killed by SIGPIPE, so that a `pipefail` script never takes an unread result for success.
    let mut child = perftlab()
        .args([
            "perft",
            "--depth",
            "5",
            "--divide",
            "--backend",
            "reference",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(141), "{err}");
}

/// `bench --quick --threads 1 --stockfish`'s table: every time (perftlab's and Stockfish's, wall and CPU, per
/// count) is above zero (short counts are repeated until 0.2 s has passed; before, CPU times rounded to
/// 0.00/0.01 s gave "20.00x by CPU time"), and the headline ratio names the flags both sides ran with,
/// saying that this default hashed, merged perftlab is not like for like with Stockfish's `go perft`.
#[test]
fn bench_ratios_name_both_sides_flags_and_time_short_counts() {
    let Some(sf) = common::stockfish() else {
        return;
    };
    let (code, out, err) = run(&["bench", "--quick", "--threads", "1", "--stockfish", &sf]);
    assert_eq!(code, 0, "{out}{err}");
    let rows: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|f| f.len() == 13 && f[2].parse::<u64>().is_ok())
        .collect();
    assert_eq!(rows.len(), 6, "six position rows:\n{out}");
    for f in &rows {
        // seconds, cpu s (perftlab); sf s, sf cpu s (Stockfish): per count, all measured.
        for i in [3, 4, 7, 8] {
            let t: f64 = f[i]
                .parse()
                .unwrap_or_else(|_| panic!("a time in {f:?}:\n{out}"));
            assert!(t > 0.0, "a zero time in {f:?}:\n{out}");
        }
        // Repetitions: at least one count each side, and a short count more than once.
        let (ours, theirs): (u32, u32) = (f[6].parse().unwrap(), f[10].parse().unwrap());
        assert!(ours >= 1 && theirs >= 1, "{f:?}");
    }
    assert!(!out.contains(" 0.00 "), "a time rounded to 0.00:\n{out}");
    // The start position at depth 5 (4,865,609 nodes) takes well under 0.2 s: it must have been repeated.
    assert!(rows[0][6].parse::<u32>().unwrap() > 1, "{out}");
    let headline = out
        .lines()
        .find(|l| l.contains("Stockfish's aggregate nodes/s"))
        .unwrap_or_else(|| panic!("no ratio line:\n{out}"));
    for flag in [
        "--backend cpu",
        "threads 1",
        "hash table 64 MiB",
        "merging on",
        "go perft",
        "one thread",
        "no hash table",
    ] {
        assert!(
            headline.contains(flag),
            "'{flag}' missing from the ratio line: {headline}"
        );
    }
    assert!(
        out.contains("not like for like") && out.contains("--threads 1 --hash 0 --no-merge"),
        "{out}"
    );
    // Like for like: no such note, and the flags say so.
    let (code, out, err) = run(&[
        "bench",
        "--quick",
        "--threads",
        "1",
        "--hash",
        "0",
        "--no-merge",
        "--stockfish",
        &sf,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("not like for like"), "{out}");
    assert!(
        out.contains("hash table off (--hash 0)") && out.contains("merging off (--no-merge)"),
        "{out}"
    );
}
