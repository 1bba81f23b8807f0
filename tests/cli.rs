//! The command line from the outside: output formats and every documented exit code
//! (0 success, 1 mismatch or failed check, 2 bad input or usage); the documented limits (depth, hash, GPU
//! budget, timeout, threads), a property test that feeds every subcommand's flags extreme values (0, negative,
//! huge, non-numeric, above the limit) and expects exit 2 naming the flag, never a panic; the help's wording.

mod common;

use common::{
    assert_usage, between, data, gpu_available, perftlab, scratch, temp_file, PRISON, START,
};
use proptest::prelude::*;

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

// ---------------------------------------------------------------------------------------------------------
// Limits and flags (issue 11): depth, hash, GPU budget, timeout and threads; every flag refuses extreme
// values (a property test); the help and the warnings of options that do nothing.
// ---------------------------------------------------------------------------------------------------------

// Defect 1: deep depths overflowed the stack (exit 134) or ran forever.
#[test]
fn depth_above_the_maximum_is_refused_everywhere() {
    let max = "maximum of 64 plies";
    for depth in ["65", "1250", "10000", "4294967295"] {
        assert_usage(&["perft", "--depth", depth], max);
        assert_usage(&["perft", "--depth", depth, "--stats"], max);
        assert_usage(&["perft", "--depth", depth, "--backend", "reference"], max);
        assert_usage(&["perft", "--depth", depth, "--backend", "gpu"], max);
        assert_usage(&["perftree", depth, START], max);
        assert_usage(&["table", "--depth", depth], max);
        assert_usage(&["verify", "--depth", depth], max);
        for cmd in ["compare", "stress"] {
            assert_usage(
                &[cmd, "--engine", "perftlab-no-such-engine", "--depth", depth],
                max,
            );
        }
    }
    let suite = temp_file("deep.epd", &format!("{START} ;D10000 5\n"));
    assert_usage(
        &["suite", suite.to_str().unwrap()],
        "deeper than the maximum",
    );
    assert_usage(&["suite", suite.to_str().unwrap()], "deep.epd:1:");
    let blocks = temp_file("deep.perft", &format!("epd {START}\nperft 65 1\n"));
    assert_usage(&["suite", blocks.to_str().unwrap()], "deep.perft:2:");
}

/// The maximum itself runs on every CPU backend and command: `prison` (tricky.perft) has one legal move per
/// ply, and its count of 1 at depth 32 (shakmaty's test data) stays 1 as the line goes on.
#[test]
fn the_maximum_depth_runs_everywhere() {
    for backend in ["cpu", "reference"] {
        let (code, out, err) = run(&[
            "perft",
            "--fen",
            PRISON,
            "--depth",
            "64",
            "--backend",
            backend,
        ]);
        assert_eq!(
            (code, out.as_str()),
            (0, "Nodes searched: 1\n"),
            "{backend}: {err}"
        );
        let (code, out, err) = run(&[
            "perft",
            "--fen",
            PRISON,
            "--depth",
            "64",
            "--backend",
            backend,
            "--stats",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.ends_with("Nodes searched: 1\n"), "{out}");
        let (code, out, err) = run(&["perftree", "64", PRISON, "--backend", backend]);
        assert_eq!(code, 0, "{err}");
        assert!(out.ends_with("\n\n1\n"), "{out}");
    }
    let (code, out, err) = run(&["table", "--fen", PRISON, "--depth", "64", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.ends_with("64,1,0,0,0,0,0,0,0,0,0\n"), "{out}");
    let (code, out, err) = run(&["verify", "--fen", PRISON, "--depth", "64"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("all legal move sets agree"), "{out}");
    let suite = temp_file(
        "prison.perft",
        &format!("epd {PRISON}\nperft 32 1\nperft 64 1\n"),
    );
    let (code, out, _) = run(&["suite", suite.to_str().unwrap(), "--backend", "reference"]);
    assert_eq!(code, 0);
    assert!(out.ends_with("2 passed, 0 failed, 0 skipped\n"), "{out}");
}

// Defect 2: `--hash 30000` aborted in the allocator (134), `--hash 18446744073709551615` panicked (101).
#[test]
fn hash_larger_than_available_memory_is_refused_before_allocating() {
    assert_usage(
        &["perft", "--depth", "1", "--hash", "18446744073709551615"],
        "--hash",
    );
    // A terabyte is more than any test machine has available.
    let (code, _, err) = run(&["perft", "--depth", "1", "--hash", "1048576"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--hash: '1048576' MiB is more than the"),
        "{err}"
    );
    assert!(err.contains("MiB of memory available"), "{err}");
    assert_usage(
        &["table", "--depth", "1", "--hash", "1048576", "--quiet"],
        "available",
    );
}

// Defect 2, GPU side: `--gpu-mem 1000000000000` was echoed as a budget.
#[test]
fn gpu_budget_beyond_the_adapter_is_refused() {
    if !gpu_available() {
        return;
    }
    let (code, _, err) = run(&[
        "perft",
        "--depth",
        "1",
        "--backend",
        "gpu",
        "--gpu-mem",
        "1000000000000",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--gpu-mem: '1000000000000' MiB is more than adapter"),
        "{err}"
    );
    let (code, out, err) = run(&[
        "perft",
        "--depth",
        "2",
        "--backend",
        "gpu",
        "--gpu-mem",
        "64",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 400\n");
}

// Defect 3: `--timeout 1e20` panicked converting to a Duration.
#[test]
fn timeout_out_of_range_is_refused() {
    for t in ["1e20", "0", "-1", "inf", "NaN", "0.0000001"] {
        for cmd in ["compare", "stress"] {
            let flag = format!("--timeout={t}");
            assert_usage(
                &[
                    cmd,
                    "--engine",
                    "perftlab-no-such-engine",
                    "--depth",
                    "1",
                    &flag,
                ],
                "from 0.001 to 1000000",
            );
        }
    }
}

// Defect 6: `--threads 100000` spawned threads for minutes.
#[test]
fn threads_are_bounded_and_oversubscription_warned() {
    assert_usage(
        &["perft", "--depth", "1", "--threads", "100000"],
        "--threads: '100000' is more than the maximum of 1024 threads",
    );
    assert_usage(&["perft", "--depth", "1", "--threads", "0"], "--threads");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 1024 {
        let n = (cores + 1).to_string();
        let (code, out, err) = run(&["perft", "--depth", "2", "--threads", &n, "--hash", "0"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("Nodes searched: 400"));
        assert!(
            err.contains(&format!(
                "warning: --threads {n} is more than the {cores} cores"
            )),
            "{err}"
        );
    }
}

// Friction: options that do nothing, an empty adapter name.
#[test]
fn ignored_options_warn_and_empty_adapter_is_refused() {
    let (code, _, err) = run(&[
        "perft",
        "--depth",
        "1",
        "--gpu-mem",
        "100",
        "--adapter",
        "x",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: --gpu-mem does nothing on the cpu backend"),
        "{err}"
    );
    assert!(
        err.contains("warning: --adapter does nothing on the cpu backend"),
        "{err}"
    );
    assert_usage(
        &["perft", "--depth", "1", "--backend", "gpu", "--adapter", ""],
        "--adapter: ''",
    );
}

// Friction: Mesa's `XDG_RUNTIME_DIR` message was printed twice on every GPU run (lavapipe's device-select
// layer prints it when the variable is unset; perftlab sets NODEVICE_SELECT=1 unless the user set it).
#[test]
fn mesa_device_select_message_is_silenced() {
    if !gpu_available() {
        return;
    }
    let out = perftlab()
        .args(["perft", "--backend", "gpu", "--depth", "1"])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("XDG_RUNTIME_DIR"), "{err}");
}

// Friction: the help shows "no limit", not raw type limits.
#[test]
fn help_says_no_limit() {
    let (code, out, _) = run(&["suite", "--help"]);
    assert_eq!(code, 0);
    assert!(
        !out.contains("4294967295") && !out.contains("340282366920938463463374607431768211455"),
        "{out}"
    );
    assert!(out.contains("no limit"), "{out}");
}

/// The kinds of numeric flag, by what their values may be.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A depth: 0..=64.
    Depth,
    /// `--threads`: 1..=1024.
    Threads,
    /// `--hash` MiB: at most the available memory.
    HashMb,
    /// `--gpu-mem` MiB: at least 1 (on the CPU backend any larger value is merely ignored).
    GpuMem,
    /// `--split-mem` MiB: at least 1, at most the available memory.
    SplitMem,
    /// `--timeout` seconds: 0.001..=1e6.
    Timeout,
    /// `--max-plies`: 0..=10000.
    Plies,
    /// A plain u64 (`--positions`, `--seed`).
    U64,
    /// A plain u32 (`--max-depth`).
    U32,
    /// A plain u128 (`--max-nodes`).
    U128,
    /// An output file (`--report`, `--svg`, `--plot`): not a directory, not in a missing directory, not empty.
    OutputPath,
    /// `--checkpoint`: a regular file (or none yet), not a device or a directory.
    Checkpoint,
    /// `--perft-command`: one line holding `{depth}`.
    PerftCommand,
    /// `--slurm-time`: a Slurm time limit.
    SlurmTime,
    /// `run-unit --tag`: 1 to 32 letters, digits, `-`, `_`.
    Tag,
    /// `plan --out`: a new or empty directory.
    PlanOut,
}

/// The fixed bad values of the kinds that are not numbers (also drawn from by the property test).
fn bad_words(kind: Kind) -> Vec<String> {
    let v: &[&str] = match kind {
        Kind::OutputPath => &["", "/", "/proc", "/nonexistent-perftlab-dir/out.html"],
        Kind::Checkpoint => &[
            "",
            "/",
            "/dev/full",
            "/dev/zero",
            "/nonexistent-perftlab-dir/j",
        ],
        Kind::PerftCommand => &["", "perft", "perft 3", "{DEPTH}", "perft {depth}\nquit"],
        Kind::SlurmTime => &[
            "",
            "abc",
            "1:00 x",
            "1:00\n#SBATCH --wrap=x",
            "-5",
            "1:2:3:4",
            "1;2",
        ],
        Kind::Tag => &[
            "",
            "a b",
            "../x",
            "x/y",
            "é",
            "123456789012345678901234567890123",
        ],
        Kind::PlanOut => &["", "/", "/dev/null", "/proc"],
        _ => &[],
    };
    v.iter().map(|s| s.to_string()).collect()
}

/// (base arguments, flag, kind); the base arguments alone would run quickly or fail only later.
fn flag_table() -> Vec<(Vec<String>, &'static str, Kind)> {
    let suite = temp_file("props.epd", &format!("{START} ;D1 20\n"));
    let suite = suite.to_str().unwrap().to_string();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let engine = ["--engine", "perftlab-no-such-engine", "--quiet"];
    let mut t = Vec::new();
    for (base, flags) in [
        (
            v(&["perft", "--depth", "1"]),
            &[
                ("--zobrist-seed", Kind::U64),
                ("--depth", Kind::Depth),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
                ("--gpu-mem", Kind::GpuMem),
            ][..],
        ),
        (
            v(&["perft", "--depth", "1", "--stats"]),
            &[("--depth", Kind::Depth), ("--threads", Kind::Threads)][..],
        ),
        (
            v(&["table", "--depth", "1", "--quiet"]),
            &[
                ("--depth", Kind::Depth),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            v(&["verify", "--depth", "1"]),
            &[
                ("--depth", Kind::Depth),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            v(&["suite", &suite, "--quiet"]),
            &[
                ("--report", Kind::OutputPath),
                ("--svg", Kind::OutputPath),
                ("--max-depth", Kind::U32),
                ("--max-nodes", Kind::U128),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            [v(&["compare", "--depth", "1"]), v(&engine)].concat(),
            &[
                ("--report", Kind::OutputPath),
                ("--svg", Kind::OutputPath),
                ("--perft-command", Kind::PerftCommand),
                ("--depth", Kind::Depth),
                ("--timeout", Kind::Timeout),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            [v(&["stress"]), v(&engine)].concat(),
            &[
                ("--report", Kind::OutputPath),
                ("--svg", Kind::OutputPath),
                ("--perft-command", Kind::PerftCommand),
                ("--depth", Kind::Depth),
                ("--timeout", Kind::Timeout),
                ("--max-plies", Kind::Plies),
                ("--positions", Kind::U64),
                ("--seed", Kind::U64),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            v(&["bench", "--quick"]),
            &[
                ("--plot", Kind::OutputPath),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
                ("--gpu-mem", Kind::GpuMem),
            ][..],
        ),
        (
            v(&[
                "plan",
                "--depth",
                "3",
                "--split-depth",
                "1",
                "--shards",
                "2",
                "--out",
                "/nonexistent-perftlab-dir/plan",
            ]),
            &[
                ("--depth", Kind::Depth),
                ("--split-depth", Kind::Depth),
                ("--split-mem", Kind::SplitMem),
                ("--shards", Kind::U64),
                ("--cpus-per-unit", Kind::Threads),
                ("--slurm-time", Kind::SlurmTime),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
            ][..],
        ),
        (
            v(&[
                "plan",
                "--depth",
                "3",
                "--split-depth",
                "1",
                "--shards",
                "2",
            ]),
            &[("--out", Kind::PlanOut)][..],
        ),
        (
            v(&["perft", "--depth", "2", "--quiet"]),
            &[("--checkpoint", Kind::Checkpoint)][..],
        ),
        (
            v(&["perft", "--depth", "2", "--split-depth", "1", "--quiet"]),
            &[("--split-mem", Kind::SplitMem)][..],
        ),
        (v(&["analyze"]), &[("--svg", Kind::OutputPath)][..]),
        (
            v(&["run-unit", "/nonexistent-perftlab-dir/plan"]),
            &[
                ("--tag", Kind::Tag),
                ("--shard", Kind::U64),
                ("--zobrist-seed", Kind::U64),
                ("--threads", Kind::Threads),
                ("--hash", Kind::HashMb),
                ("--gpu-mem", Kind::GpuMem),
            ][..],
        ),
        (
            v(&["perftree", "1", START]),
            &[("--threads", Kind::Threads), ("--hash", Kind::HashMb)][..],
        ),
    ] {
        for &(flag, kind) in flags {
            t.push((base.clone(), flag, kind));
        }
    }
    t
}

/// Values of `kind` that must be refused: zero where zero means nothing, negative, beyond the type,
/// above the documented limit, non-numeric, empty.
fn bad_value(kind: Kind) -> BoxedStrategy<String> {
    let negative = "-[1-9][0-9]{0,20}".boxed();
    let beyond_u64 = (18_446_744_073_709_551_616u128..=u128::MAX)
        .prop_map(|n| n.to_string())
        .boxed();
    let beyond_u128 = "[1-9][0-9]{39,45}".boxed();
    let words = "[a-zA-Z_][a-zA-Z0-9_.]{0,8}"
        .prop_filter("f64 words", |s| {
            !matches!(s.to_lowercase().as_str(), "inf" | "infinity" | "nan")
        })
        .boxed();
    let empty = Just(String::new()).boxed();
    let float = "[0-9]{1,3}\\.[0-9]{1,3}|[1-9]e[0-9]{1,3}".boxed();
    let common = prop_oneof![negative, words, empty];
    match kind {
        Kind::Depth => prop_oneof![
            common,
            float,
            (65u64..=u32::MAX as u64 + 10).prop_map(|n| n.to_string()),
            beyond_u64,
        ]
        .boxed(),
        Kind::Threads => prop_oneof![
            common,
            float,
            Just("0".to_string()),
            (1025u64..=u64::MAX).prop_map(|n| n.to_string()),
            beyond_u64,
        ]
        .boxed(),
        Kind::HashMb => prop_oneof![
            common,
            float,
            // 2^40 MiB = 1 EiB: more than any machine has.
            ((1u64 << 40)..=u64::MAX).prop_map(|n| n.to_string()),
            beyond_u64,
        ]
        .boxed(),
        Kind::GpuMem => prop_oneof![common, float, Just("0".to_string()), beyond_u64].boxed(),
        Kind::SplitMem => prop_oneof![
            common,
            float,
            Just("0".to_string()),
            ((1u64 << 40)..=u64::MAX).prop_map(|n| n.to_string()),
            beyond_u64,
        ]
        .boxed(),
        Kind::Timeout => prop_oneof![
            common,
            Just("0".to_string()),
            Just("inf".to_string()),
            Just("NaN".to_string()),
            (1_000_001f64..1e300).prop_map(|x| x.to_string()),
            (1e-12f64..0.0009).prop_map(|x| x.to_string()),
        ]
        .boxed(),
        Kind::Plies => prop_oneof![
            common,
            float,
            (10_001u64..=u32::MAX as u64 + 10).prop_map(|n| n.to_string()),
            beyond_u64,
        ]
        .boxed(),
        Kind::U64 => prop_oneof![common, float, beyond_u64].boxed(),
        Kind::U32 => prop_oneof![
            common,
            float,
            (u32::MAX as u64 + 1..=u64::MAX).prop_map(|n| n.to_string()),
        ]
        .boxed(),
        Kind::U128 => prop_oneof![common, float, beyond_u128].boxed(),
        Kind::OutputPath => prop_oneof![
            proptest::sample::select(bad_words(kind)),
            "/nonexistent-perftlab-dir/[a-z]{1,8}(\\.html|\\.svg)?",
        ]
        .boxed(),
        Kind::Tag => prop_oneof![
            proptest::sample::select(bad_words(kind)),
            "[a-z]{0,3}[ ./:;é][a-z]{0,3}",
            "[a-z]{33,40}",
        ]
        .boxed(),
        Kind::SlurmTime => prop_oneof![
            proptest::sample::select(bad_words(kind)),
            "[0-9]{1,2}:[0-9]{2}[ ;\\n$`][a-z]{1,5}",
        ]
        .boxed(),
        Kind::Checkpoint | Kind::PerftCommand | Kind::PlanOut => {
            proptest::sample::select(bad_words(kind)).boxed()
        }
    }
}

fn assert_refused(base: &[String], flag: &str, value: &str) -> Result<(), TestCaseError> {
    let arg = format!("{flag}={value}");
    let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
    args.push(&arg);
    let out = perftlab().args(&args).output().expect("run perftlab");
    let err = String::from_utf8_lossy(&out.stderr);
    prop_assert_eq!(out.status.code(), Some(2), "{:?}: {}", args, err);
    prop_assert!(!err.contains("panicked"), "{:?}: {}", args, err);
    prop_assert!(
        err.contains(flag),
        "{:?}: '{}' does not name {}",
        args,
        err,
        flag
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_flag_refuses_extreme_values(
        (base, flag, value) in proptest::sample::select(flag_table())
            .prop_flat_map(|(base, flag, kind)| (Just(base), Just(flag), bad_value(kind)))
    ) {
        assert_refused(&base, flag, &value)?;
    }
}

/// The same for every (flag, family) pair once, so no pair depends on the random draw.
#[test]
fn every_flag_refuses_each_kind_of_extreme_value() {
    for (base, flag, kind) in flag_table() {
        let mut values = vec![
            "-1",
            "abc",
            "",
            "1.5",
            "340282366920938463463374607431768211456",
        ];
        match kind {
            Kind::Depth => values.extend(["65", "4294967295"]),
            Kind::Threads => values.extend(["0", "1025", "18446744073709551615"]),
            Kind::HashMb => values.extend(["18446744073709551615"]),
            Kind::GpuMem => values.push("0"),
            Kind::SplitMem => values.extend(["0", "18446744073709551615"]),
            Kind::Timeout => values.extend(["0", "1e20", "inf", "NaN"]),
            Kind::Plies => values.extend(["10001", "4294967295"]),
            Kind::U64 | Kind::U32 | Kind::U128 => {}
            Kind::OutputPath
            | Kind::Checkpoint
            | Kind::PerftCommand
            | Kind::SlurmTime
            | Kind::Tag
            | Kind::PlanOut => {
                for value in bad_words(kind) {
                    assert_refused(&base, flag, &value).unwrap();
                }
                continue;
            }
        }
        if matches!(kind, Kind::Timeout) {
            values.retain(|v| *v != "1.5");
        }
        for value in values {
            assert_refused(&base, flag, value).unwrap();
        }
    }
}

// Item 14: small things a new user tripped over.
#[test]
fn polish() {
    // `table --stats` takes its value optionally, as `perft --stats` does.
    let (code, out, err) = run(&["table", "--depth", "1", "--stats", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("depth,nodes,"), "{out}");
    // The help says the exit codes and `cpw`.
    let (_, help, _) = run(&["--help"]);
    assert!(help.contains("130") && help.contains("143"), "{help}");
    let (_, help, _) = run(&["perft", "--help"]);
    assert!(help.contains("<cpw|full>"), "{help}");
    let (_, help, _) = run(&["plan", "--help"]);
    assert!(help.contains("UCI or SAN"), "{help}");
    // A resumed run's speed is of the nodes it counted, not of those read from the journal.
    let journal = scratch("resume.jsonl");
    let j = journal.to_str().unwrap();
    let (code, _, err) = run(&["perft", "--depth", "4", "--checkpoint", j, "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["perft", "--depth", "4", "--checkpoint", j, "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 197281\n");
    assert!(err.contains("0.0 M nodes/s"), "{err}");
    assert!(
        err.contains("197281 of the nodes came from the checkpoint journal"),
        "{err}"
    );
    // --slurm-time goes into a shell script: only a Slurm time is taken.
    assert_usage(
        &[
            "plan",
            "--depth",
            "3",
            "--split-depth",
            "1",
            "--shards",
            "1",
            "--out",
            "/nonexistent-x/p",
            "--slurm-time",
            "1:00\n#SBATCH --wrap=x",
        ],
        "--slurm-time",
    );
}

// Item 14, what the first round left: exit codes in every subcommand's help, and file value names.
#[test]
fn help_says_exit_codes_and_names_files_alike() {
    let subcommands = [
        "perft",
        "suite",
        "verify",
        "compare",
        "stress",
        "perftree",
        "analyze",
        "table",
        "bench",
        "devices",
        "plan",
        "run-unit",
        "status",
        "merge",
        "reachable",
        "dead",
    ];
    for sub in subcommands {
        let (code, help, err) = run(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub}: {err}");
        for exit in ["Exit codes: 0 success", "130", "141", "143"] {
            assert!(help.contains(exit), "{sub} --help lacks '{exit}': {help}");
        }
        // Files are FILE (FILE.svg, FILE.html for pictures and reports), directories DIR.
        for (flag, name) in [
            ("--svg", "--svg <FILE.svg>"),
            ("--report", "--report <FILE.html>"),
            ("--plot", "--plot <FILE.svg>"),
            ("--suite", "--suite <FILE>"),
            ("--checkpoint", "--checkpoint <FILE>"),
            ("--out", "--out <DIR>"),
        ] {
            if help.contains(&format!("{flag} <")) {
                assert!(
                    help.contains(name),
                    "{sub} --help: {flag} is not '{name}': {help}"
                );
            }
        }
    }
    for (sub, name) in [
        ("suite", "<FILE>"),
        ("dead", "[FILE]"),
        ("reachable", "[FILE]"),
        ("run-unit", "<DIR>"),
        ("status", "<DIR>"),
        ("merge", "<DIR>"),
    ] {
        let (_, help, _) = run(&[sub, "--help"]);
        assert!(help.contains(name), "{sub} --help lacks {name}: {help}");
    }
}

// Item 14: `stress --positions 0` compared nothing and said success; now a usage error naming the flag.
#[test]
fn stress_refuses_zero_positions() {
    assert_usage(
        &[
            "stress",
            "--engine",
            "/nonexistent-engine",
            "--positions",
            "0",
        ],
        "--positions: '0'",
    );
}

// Issue 31 item 4: the library's errors about settings became kinds with the offending values (no flag in
// the library); the CLI names the flags. Each message below is the one perftlab printed before the change,
// word for word (the figures that depend on the machine checked as numbers), with exit code 2.
#[test]
fn setting_errors_keep_their_cli_messages() {
    let usage = |args: &[&str]| {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        err
    };
    let err = usage(&["perft", "--depth", "1", "--hash", "18446744073709551615"]);
    let avail = between(
        &err,
        "error: --hash: '18446744073709551615' MiB is more memory than can exist (",
        " MiB available)\n",
    );
    assert!(avail.parse::<u64>().is_ok(), "{err}");
    let err = usage(&["perft", "--depth", "1", "--hash", "1048576"]);
    let avail = between(
        &err,
        "error: --hash: '1048576' MiB is more than the ",
        " MiB of memory available on this machine\n",
    );
    assert!(avail.parse::<u64>().is_ok(), "{err}");
    for (args, message) in [
        (
            &["perft", "--depth", "5", "--split-depth", "2", "--split-mem", "0"][..],
            "error: --split-mem: '0' MiB cannot hold a split frontier (use 1 or more)\n",
        ),
        (
            &["perft", "--depth", "3", "--split-depth", "3"],
            "error: --split-depth: '3' must be at least 1 and below --depth (3)\n",
        ),
        (
            &["perft", "--depth", "9", "--split-depth", "7"],
            "error: --split-depth: '7' is deeper than 6 plies; the frontier would not fit in memory\n",
        ),
    ] {
        assert_eq!(usage(args), message, "{args:?}");
    }
    // A split frontier over its budget: the figures are the frontier's, the words are fixed.
    let err = usage(&[
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "4",
        "--split-mem",
        "2",
    ]);
    let figures = between(
        &err,
        "error: --split-mem: the split frontier at ply 4 needs about ",
        " or more, or a smaller --split-depth\n",
    );
    let (needed, rest) = figures
        .split_once(" MiB, more than the 2 MiB allowed (")
        .unwrap();
    let (_, again) = rest
        .split_once(" distinct positions already took ")
        .and_then(|(_, r)| r.split_once(" MiB); use --split-mem "))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(needed, again, "{err}");
    // A count's journal of other arguments names --checkpoint twice.
    let journal = scratch("setting-errors.jsonl");
    let j = journal.to_str().unwrap();
    let (code, _, err) = run(&["perft", "--depth", "3", "--checkpoint", j, "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let err = usage(&["perft", "--depth", "4", "--checkpoint", j]);
    assert!(
        err.starts_with(&format!(
            "error: --checkpoint: {j}: this checkpoint journal is for other arguments ("
        )),
        "{err}"
    );
    assert!(
        err.ends_with("); delete it to start over or use another --checkpoint file\n"),
        "{err}"
    );
    let _ = std::fs::remove_file(&journal);
}

// Issue 31 item 4 for external engines: `engines/` returns kinds (`perftlab::error::EngineError`, a
// `Setting::Engine`/`PerftCommand` error) and names no flag; the CLI's messages, below, are the ones perftlab
// printed before the change (main at 92f68df), word for word, each with exit code 2.
#[test]
fn engine_errors_keep_their_cli_messages() {
    let hung = common::hung_engine("unknown", None);
    let sleeper = "sh -c 'sleep 5' s";
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--engine", "sf 'a b"],
            "--engine: unclosed quote in 'sf 'a b'".into(),
        ),
        (vec!["--engine", "   "], "--engine: the command is empty".into()),
        (
            vec!["--engine", "/nonexistent/engine"],
            "--engine: cannot start '/nonexistent/engine': No such file or directory (os error 2)".into(),
        ),
        (
            vec!["--protocol", "script", "--engine", "/nonexistent/engine"],
            "--engine: cannot start '/nonexistent/engine': No such file or directory (os error 2)".into(),
        ),
        (
            vec!["--protocol", "script", "--engine", sleeper, "--timeout", "0.2"],
            format!("script '{sleeper} 1 '{start}' ''' did not finish within 0.2 s (--timeout)"),
        ),
        (
            vec!["--engine", sleeper, "--timeout", "0.2"],
            format!("engine '{sleeper}' gave no answer to 'uci' within 0.2 s (--timeout); last it said: nothing"),
        ),
        (
            vec!["--protocol", "script", "--perft-command", "perft {depth}", "--engine", "/nonexistent/engine"],
            "--perft-command: only for UCI engines (--protocol uci)".into(),
        ),
        (
            vec!["--perft-command", "perft", "--engine", "/nonexistent/engine"],
            "--perft-command: 'perft' must be one line holding {depth}, e.g. 'perft {depth}'".into(),
        ),
        (
            vec!["--perft-command", "perft {depth}", "--engine", &hung],
            format!(
                "engine '{hung}' answered 'position fen {start}; perft 1' with an unreadable line 'Unknown \
                 command: 'perft 1'. Type help for more information.' (it does not know the command: \
                 --perft-command must be the engine's own perft command); it said: 'id name hung_engine', \
                 'uciok', 'readyok', 'Unknown command: 'perft 1'. Type help for more information.' (the \
                 engine's perft command must print the node count, alone on a line or as the last number of a \
                 line such as 'Nodes searched: 8902', and the engine must answer 'isready' with 'readyok')"
            ),
        ),
    ];
    for (args, message) in cases {
        let args = [&["compare", "--depth", "1"][..], &args].concat();
        let (code, out, err) = common::run_within(&args, 60);
        assert_eq!(
            (code, err),
            (2, format!("error: {message}\n")),
            "{args:?}: {out}"
        );
    }
    // Stockfish's Debian path, named with the flag (where /usr/games/stockfish exists and PATH lacks it).
    if std::path::Path::new("/usr/games/stockfish").exists() {
        let out = perftlab()
            .args(["compare", "--depth", "1", "--engine", "stockfish"])
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "error: --engine: cannot start 'stockfish': No such file or directory (os error 2) (Debian \
             installs it as /usr/games/stockfish: add /usr/games to PATH or pass --engine \
             /usr/games/stockfish)\n"
        );
    }
    // A stress run reports a script's timeout on its position and goes on (the kind is an engine failure).
    let (code, _, err) = common::run_within(
        &[
            "stress",
            "--positions",
            "1",
            "--depth",
            "1",
            "--protocol",
            "script",
            "--engine",
            sleeper,
            "--timeout",
            "0.2",
        ],
        60,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with(&format!("position 1 of seed 1: script '{sleeper} 1 '")),
        "{err}"
    );
    assert!(
        err.contains("' did not finish within 0.2 s (--timeout) (ep position "),
        "{err}"
    );
}

/// The `--flag`s in `text` (`--max-nodes`, not the `--` of a range).
fn long_flags(text: &str) -> std::collections::BTreeSet<String> {
    let mut flags = std::collections::BTreeSet::new();
    for (i, _) in text.match_indices("--") {
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            flags.insert(format!("--{name}"));
        }
    }
    flags
}

// docs/commands.md's `reachable` synopsis lacked `--max-nodes` and `--shortest` (issue 37 item 14), and
// `dead`'s lacked `--chess960` and `--quiet`: the synopsis of each analysis command lists every flag its
// `--help` lists.
#[test]
fn the_analysis_commands_synopses_list_every_flag_of_their_help() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/commands.md")).unwrap();
    for cmd in ["dead", "reachable", "analyze"] {
        let head = format!("## `perftlab {cmd}`");
        let at = page
            .find(&head)
            .unwrap_or_else(|| panic!("no section '{head}' in docs/commands.md"));
        let section = &page[at..];
        let synopsis = section
            .split("```")
            .nth(1)
            .unwrap_or_else(|| panic!("no synopsis block under '{head}'"));
        assert!(
            synopsis
                .trim_start()
                .starts_with(&format!("perftlab {cmd} ")),
            "{synopsis}"
        );
        let (code, help, err) = run(&[cmd, "--help"]);
        assert_eq!(code, 0, "{err}");
        // The options of the help: lines `  -x, --flag …` or `      --flag …`.
        let options: String = help
            .lines()
            .filter_map(|l| {
                let t = l.trim_start();
                let t = t.split_once(", ").map_or(t, |(short, rest)| {
                    if short.len() == 2 && short.starts_with('-') {
                        rest
                    } else {
                        t
                    }
                });
                t.starts_with("--")
                    .then(|| t.split_whitespace().next().unwrap().to_string())
            })
            .collect::<Vec<_>>()
            .join(" ");
        let mut missing: Vec<String> = long_flags(&options)
            .difference(&long_flags(synopsis))
            .filter(|f| !matches!(f.as_str(), "--help" | "--version"))
            .cloned()
            .collect();
        missing.sort();
        assert!(
            missing.is_empty(),
            "docs/commands.md's synopsis of `{cmd}` lacks {missing:?}:\n{synopsis}"
        );
    }
}
