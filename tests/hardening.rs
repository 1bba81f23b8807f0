//! Hardening (issue 11): documented limits (depth, threads, memory, timeouts), write errors and closed pipes,
//! suite report and input details, FEN strictness, and a property test that feeds every subcommand's flags
//! extreme values (0, negative, huge, non-numeric, above the limit) and expects exit 2 with a message naming
//! the flag, never a panic. Every check here is of a process exit code and its messages; no check is timed.

mod common;

use common::{perftlab, run, run_stdin, stockfish, temp_file};
use proptest::prelude::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Exit 2, a message naming `needle`, no panic.
fn assert_usage(args: &[&str], needle: &str) {
    let (code, _, err) = run(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: '{err}' lacks '{needle}'");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

const PRISON: &str = "2b5/kpPp4/1p1P4/1P6/6p1/4p1P1/4PpPK/5B2 w - - 0 1";

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

/// Whether a GPU adapter is there; with `CI=true` its absence fails the test (CI installs lavapipe).
fn gpu_available() -> bool {
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

// Defect 4: a full disk panicked (101).
#[test]
fn full_disk_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let out = perftlab()
        .args(["perft", "--depth", "2", "--divide"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

// Defect 5: `suite FILE | head -1` exited 0 although every line failed; `perft >&-` exited 0 printing nothing.
#[test]
fn closed_pipe_never_reports_success() {
    // 4000 failing lines: far more output than a pipe buffers.
    let text = format!("{START} ;D1 21\n").repeat(4000);
    let suite = temp_file("failing.epd", &text);
    let mut child = perftlab()
        .args(["suite", suite.to_str().unwrap(), "--backend", "reference"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("FAIL"), "{first}");
    // The reader is gone now (the pipe was dropped with the BufReader).
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(141), "{status:?}");
    // Without the pipe the same run exits 1.
    let (code, out, _) = run(&["suite", suite.to_str().unwrap(), "--backend", "reference"]);
    assert_eq!(code, 1);
    assert!(out.ends_with("0 passed, 4000 failed, 0 skipped\n"), "{out}");
}

#[test]
fn closed_stdout_is_refused() {
    let bin = env!("CARGO_BIN_EXE_perftlab");
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" perft --depth 3 >&-", bin])
        .output()
        .expect("sh");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("standard output is not open"), "{err}");
    // A redirection to /dev/null is the user's choice and still works.
    let out = Command::new("sh")
        .args(["-c", "exec \"$0\" perft --depth 3 >/dev/null", bin])
        .output()
        .expect("sh");
    assert_eq!(out.status.code(), Some(0));
    // So is /dev/null opened read-write, as Python's `subprocess.DEVNULL` does (on Linux the binary looks
    // at the descriptor before the standard library's set-up, so this is not taken for a closed one).
    if cfg!(target_os = "linux") {
        let null = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
            .expect("/dev/null");
        let out = Command::new(bin)
            .args(["perft", "--depth", "3"])
            .stdout(null)
            .output()
            .expect("perftlab");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
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

// Defect 9: a refused position's failure said `depth 0, expected 0`; `nodes` left out failed counts.
#[test]
fn suite_report_names_the_lines_depth_and_counts_failed_nodes() {
    let suite = temp_file(
        "report.epd",
        &format!("8/8/8/8/8/8/8/8 w - - 0 1 ;D1 0\n{START} ;D1 20 ;D2 401\n"),
    );
    let (code, out, _) = run(&["suite", suite.to_str().unwrap(), "--backend", "reference"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("report.epd:1 8/8/8/8/8/8/8/8 w - - 0 1 depth 1: invalid position"),
        "{out}"
    );
    assert!(out.contains("report.epd:2"), "{out}");
    assert!(out.contains("depth 2: expected 401, got 400"), "{out}");
    let (_, json, _) = run(&[
        "suite",
        suite.to_str().unwrap(),
        "--backend",
        "reference",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    // 20 (passed) + 400 (counted, failed): every node counted.
    assert_eq!(v["nodes"], 420);
    assert_eq!(v["failures"][0]["depth"], 1);
}

// Suite input: standard input, a byte-order mark, standard EPD opcodes, an empty suite.
#[test]
fn suite_reads_stdin_bom_and_epd_opcodes() {
    let text = format!(
        "\u{feff}# EPD opcodes after the four fields\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - D1 20; D2 400;\n\
         {START} ;d1 20 ;d2 400\n\
         4k3/8/8/8/8/8/8/4K2R w K - d1 15; d2 66\n"
    );
    let (code, out, err) = run_stdin(&["suite", "-", "--backend", "reference"], text.as_bytes());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.ends_with("6 passed, 0 failed, 0 skipped\n"), "{out}");
    for empty in ["", "# only a comment\n\n", "\u{feff}"] {
        let (code, _, err) = run_stdin(&["suite", "-"], empty.as_bytes());
        assert_eq!(code, 2, "{empty:?}: {err}");
        assert!(err.contains("no positions"), "{err}");
    }
}

// Defect 10: non-canonical FEN accepted silently.
#[test]
fn non_canonical_fen_is_refused_with_the_field_named() {
    for (fen, needle) in [
        (
            "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "two digits in a row",
        ),
        (
            "rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "two digits in a row",
        ),
        (
            "rnbqkbnr/pppppppp/11111111/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "two digits in a row",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7",
            "missing field 'fullmove number'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +5 1",
            "field 'halfmove clock' is '+5'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
            "field 'castling' is 'kqKQ'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w aA - 0 1",
            "field 'castling' is 'aA'",
        ),
    ] {
        assert_usage(&["perft", "--depth", "1", "--fen", fen], needle);
    }
}

#[test]
fn castling_read_as_chess960_is_warned() {
    // `Qk` with the black king on f8: the `k` right becomes Chess960 castling with the h8 rook.
    let fen = "r4k1r/8/8/8/8/8/8/R3K2R w Qk - 0 1";
    let (code, out, err) = run(&["perft", "--depth", "1", "--fen", fen]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched:"));
    assert!(
        err.contains("warning: castling rights read as Chess960"),
        "{err}"
    );
    let (_, _, quiet) = run(&["perft", "--depth", "1", "--fen", fen, "--chess960"]);
    assert!(!quiet.contains("warning"), "{quiet}");
    let (_, _, standard) = run(&["perft", "--depth", "1"]);
    assert!(!standard.contains("warning"), "{standard}");
}

#[test]
fn ep_square_that_cannot_explain_the_check_warns() {
    // From the issue: c2c4 cannot have given the bishop's check on e6.
    let fen = "2B3n1/r6r/1p2k3/pB1p2B1/P1Ppp3/N5P1/1P1K4/4R3 b - c3 0 28";
    let (code, _, err) = run(&["perft", "--depth", "1", "--fen", fen]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: impossible_check"), "{err}");
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

/// A UCI engine in Python that completes the handshake and then answers `go` with `on_go` (Python code).
fn python_uci_engine(name: &str, on_go: &str) -> String {
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

// `--moves` (UCI or SAN) on perft, table and verify, as Stockfish's `position … moves …`. Expected counts: the
// same run on the FEN of 1.e4 e5 2.Nf3 written out, and Stockfish 15.1 `position startpos moves e2e4 e7e5
// g1f3` / `go perft 2` printed 779 (`e2e4 e7e5`: 835).
#[test]
fn moves_are_played_before_counting() {
    let after = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    let (code, out, err) = run(&[
        "perft", "--depth", "2", "--moves", "e4", "e7e5", "Nf3", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["nodes"], 779);
    assert_eq!(v["fen"], after);
    let (_, direct, _) = run(&["perft", "--depth", "2", "--fen", after]);
    assert_eq!(direct, "Nodes searched: 779\n");
    let (code, out, _) = run(&[
        "table", "--depth", "2", "--moves", "e2e4 e5", "--format", "csv",
    ]);
    assert_eq!(code, 0);
    assert!(out.lines().nth(2).unwrap().starts_with("2,835,"), "{out}");
    let (code, out, _) = run(&["verify", "--depth", "2", "--moves", "e4", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agree"], true);
    assert_eq!(v["difference"], serde_json::Value::Null);
    // 1 root + its 20 children: the nodes of plies 0..2 whose move sets are compared.
    assert_eq!(v["positions_checked"], 21);
    assert_usage(
        &["perft", "--depth", "1", "--moves", "e5"],
        "--moves: move 1 'e5' is not a legal move",
    );
    assert_usage(
        &["table", "--depth", "1", "--moves", "e4", "e4"],
        "--moves: move 2 'e4'",
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

// ---------------------------------------------------------------------------------------------------------
// Issue 23: never destroy a user's file, never leave an engine running, never say "agree" for half a run.
// ---------------------------------------------------------------------------------------------------------

/// `python3 tests/fixtures/hung_engine.py MODE [ARG]` (see the fixture's header for the modes).
fn hung_engine(mode: &str, arg: Option<&std::path::Path>) -> String {
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
fn scratch(name: &str) -> std::path::PathBuf {
    let p = temp_file(name, "");
    std::fs::remove_file(&p).unwrap();
    p
}

/// Wait up to `secs` for `path` to exist.
fn wait_for_file(path: &std::path::Path, secs: u64) -> bool {
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
fn alive(pid: &str) -> bool {
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    state
        .rsplit(')')
        .next()
        .is_some_and(|rest| !rest.trim_start().starts_with('Z') && !rest.trim().is_empty())
}

/// Send `signal` (`INT`, `TERM`) to a process.
fn send_signal(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Wait for `child` at most `secs` seconds (killed and the test failed after that); (code, stdout, stderr).
fn finish(mut child: std::process::Child, secs: u64) -> (i32, String, String) {
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

fn spawn(args: &[&str]) -> std::process::Child {
    perftlab()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run perftlab")
}

/// Run with a deadline (for inputs that once made perftlab read without end).
fn run_within(args: &[&str], secs: u64) -> (i32, String, String) {
    finish(spawn(args), secs)
}

// Item 1: `--report`/`--svg` files were truncated before the run; a suite could be overwritten by its report.
#[test]
fn failed_runs_leave_output_files_as_they_were() {
    let old = "<html>an old report, kept byte for byte</html>\n";
    let report = temp_file("old.html", old);
    let svg = temp_file("old.svg", "<svg>old</svg>");
    let r = report.to_str().unwrap();
    let s = svg.to_str().unwrap();
    for args in [
        vec!["compare", "--engine", "/nonexistent", "--depth", "2"],
        vec!["compare", "--engine", "/nonexistent", "--depth", "0"],
        vec![
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "2",
            "--fen",
            "8/8 w - -",
        ],
        vec!["stress", "--engine", "/nonexistent"],
    ] {
        let mut all = args.clone();
        all.extend(["--report", r, "--svg", s]);
        let (code, _, err) = run(&all);
        assert_eq!(code, 2, "{all:?}: {err}");
        assert_eq!(std::fs::read_to_string(&report).unwrap(), old, "{all:?}");
        assert_eq!(
            std::fs::read_to_string(&svg).unwrap(),
            "<svg>old</svg>",
            "{all:?}"
        );
    }
    // A file that is an input of the run is refused before any work, and stays as it was.
    let text = format!("{START} ;D1 20 ;D2 400\n");
    let suite = temp_file("r2.epd", &text);
    let p = suite.to_str().unwrap();
    for args in [
        vec!["suite", p, "--report", p],
        vec!["suite", p, "--svg", p],
        vec![
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "1",
            "--suite",
            p,
            "--report",
            p,
        ],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("which this run reads"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&suite).unwrap(), text, "{args:?}");
    }
    // The same file through a symbolic link (same device and inode).
    let link = scratch("link.epd");
    std::os::unix::fs::symlink(&suite, &link).unwrap();
    let (code, _, err) = run(&["suite", p, "--report", link.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&suite).unwrap(), text);
    // A successful run replaces the file whole, and leaves no temporary file beside it.
    let (code, _, err) = run(&["suite", p, "--report", r]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.contains("2 passed"),
        "{page}"
    );
    let dir = report.parent().unwrap();
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".old.html.perftlab-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
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

// Item 3: Ctrl-C threw away finished table rows and suite failures.
#[test]
fn interrupted_runs_keep_finished_work() {
    // table: rows are printed as they finish; an interruption keeps them.
    let mut child = spawn(&[
        "table",
        "--depth",
        "9",
        "--backend",
        "reference",
        "--format",
        "csv",
        "--quiet",
    ]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for l in lines.by_ref().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    let mut seen = Vec::new();
    while seen.len() < 4 {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(l) => seen.push(l),
            Err(_) => {
                let _ = child.kill();
                panic!("no table rows printed while it ran: {seen:?}");
            }
        }
    }
    send_signal(child.id(), "INT");
    let (code, _, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    // CPW "Perft Results", initial position.
    assert!(seen[1].starts_with("1,20,0,0,0,0,0,0,0,0,0"), "{seen:?}");
    assert!(seen[2].starts_with("2,400,0,"), "{seen:?}");
    assert!(seen[3].starts_with("3,8902,34,"), "{seen:?}");
    assert!(err.contains("rows 1 to"), "{err}");
    // suite: a failing first line is printed before the slow second one finishes; with --json the summary so
    // far is printed on interruption, never "agree"-like totals of a whole run.
    let suite = temp_file(
        "slow.epd",
        &format!("{START} ;D1 21\n{START} ;D1 20 ;D9 2439530234167\n"),
    );
    let p = suite.to_str().unwrap();
    let mut child = spawn(&["suite", p, "--backend", "reference", "--quiet"]);
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.starts_with("FAIL") && first.contains(":1 "),
        "{first}"
    );
    send_signal(child.id(), "INT");
    let (code, _, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    assert!(err.contains("1 failed"), "{err}");
    let child = spawn(&["suite", p, "--backend", "reference", "--quiet", "--json"]);
    std::thread::sleep(std::time::Duration::from_secs(3));
    send_signal(child.id(), "INT");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("a partial JSON summary");
    assert_eq!(v["interrupted"], true, "{out}");
    assert_eq!(v["failed"], 1, "{out}");
    assert_eq!(v["failures"][0]["line"], 1, "{out}");
}

// Item 4: an interrupted JSON run said `"agree": true`.
#[test]
fn interrupted_json_never_agrees() {
    let suite = temp_file(
        "agree.epd",
        &format!(
            "{START} ;D1 20\nr3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48\n"
        ),
    );
    let pids = scratch("agree.pids");
    let engine = hung_engine("hang", Some(&pids));
    let child = spawn(&[
        "compare",
        "--engine",
        &engine,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--json",
    ]);
    assert!(wait_for_file(&pids, 60), "the engine never hung");
    send_signal(child.id(), "INT");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 130, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["positions"].as_u64(), v["failed"].as_u64()),
        (Some(1), Some(0)),
        "{out}"
    );
    assert_eq!(v["agree"], false, "1 of 2 positions compared: {out}");
    // stress, nothing compared yet.
    let pids = scratch("agree-stress.pids");
    let engine = hung_engine("hang", Some(&pids));
    let child = spawn(&["stress", "--engine", &engine, "--positions", "3", "--json"]);
    assert!(wait_for_file(&pids, 60), "the engine never hung");
    send_signal(child.id(), "TERM");
    let (code, out, err) = finish(child, 30);
    assert_eq!(code, 143, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["agree"], false, "{out}");
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

// Item 6: `/dev/full`, `/dev/zero` and other endless inputs were read without bound.
#[test]
fn endless_inputs_are_refused_in_bounded_time() {
    for args in [
        vec!["suite", "/dev/zero"],
        vec![
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "1",
            "--suite",
            "/dev/zero",
        ],
    ] {
        let (code, _, err) = run_within(&args, 30);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let (code, _, err) = run_within(&["perft", "--depth", "4", "--checkpoint", "/dev/full"], 30);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--checkpoint") && err.contains("not a regular file"),
        "{err}"
    );
    let dir = scratch("checkpoint-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let (code, _, err) = run_within(
        &[
            "perft",
            "--depth",
            "4",
            "--checkpoint",
            dir.to_str().unwrap(),
        ],
        30,
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--checkpoint") && err.contains("directory"),
        "{err}"
    );
    // Standard input is read up to the same cap, and over-long lines are named.
    let long = format!("{START} ;D1 20 ;c0 \"{}\"\n", "x".repeat(70_000));
    let (code, _, err) = run_stdin(&["suite", "-"], long.as_bytes());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 1 is longer than the limit"), "{err}");
    // A plan directory whose plan.json is a link to /dev/zero.
    let plan = scratch("zero-plan");
    std::fs::create_dir_all(&plan).unwrap();
    std::os::unix::fs::symlink("/dev/zero", plan.join("plan.json")).unwrap();
    for cmd in ["status", "merge", "run-unit"] {
        let (code, _, err) = run_within(
            &[cmd, plan.to_str().unwrap(), "--shard", "0"][..if cmd == "run-unit" { 4 } else { 2 }],
            30,
        );
        assert_eq!(code, 2, "{cmd}: {err}");
        assert!(err.contains("not a regular file"), "{cmd}: {err}");
    }
}

// Item 7: the split frontier held every child of a level at once (1.1 GB for `plan --split-depth 5`).
#[test]
fn split_frontier_memory_is_bounded() {
    let dir = scratch("split5");
    let out = Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kib %M"])
        .arg(env!("CARGO_BIN_EXE_perftlab"))
        .args([
            "plan",
            "--depth",
            "6",
            "--split-depth",
            "5",
            "--shards",
            "2",
            "--hash",
            "1",
            "--threads",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ])
        .output();
    let Ok(out) = out else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no /usr/bin/time"
        );
        eprintln!("skipped: no /usr/bin/time");
        return;
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let kib: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kib "))
        .and_then(|k| k.trim().parse().ok())
        .expect("GNU time's report");
    // 822,518 distinct positions at ply 5 (OEIS A083276); the children of ply 4 (4,865,609 move paths,
    // CPW) are no longer all held at once.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["positions"], 822_518);
    // Measured on the 2-core test machine: 1,868,524 KiB before (every child of ply 4 held at once, the units
    // built as one JSON value), 798,728 KiB after.
    assert!(kib < 1024 * 1024, "peak memory {kib} KiB");
}

// Item 8: a `perft` line of a block without its own `epd` was checked against the block before.
#[test]
fn suite_blocks_start_at_id() {
    let text = format!("id a\nepd {START}\nperft 1 20\nid b\nperft 2 401\n");
    let suite = temp_file("blocks.perft", &text);
    let (code, _, err) = run(&["suite", suite.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("blocks.perft:5:"), "{err}");
    assert!(
        err.contains("before the 'epd' line of its block 'b'"),
        "{err}"
    );
    // A failure names its block.
    let text = format!("id a\nepd {START}\nperft 1 20\nid b\nepd {START}\nperft 2 401\n");
    let suite = temp_file("blocks2.perft", &text);
    let (code, out, _) = run(&["suite", suite.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("blocks2.perft:5 [b] "), "{out}");
    assert!(out.contains("depth 2: expected 401, got 400"), "{out}");
}

// Item 9: standard EPD operations (quoted strings, any opcode, `;` terminators) were refused.
#[test]
fn standard_epd_operations_are_read() {
    let text = format!(
        "{fen} id \"start\"; D1 20; D2 400;\n\
         {START} ;D1 20 ;D2 400 ; comment here\n\
         {fen} bm e4; c0 \"a; quoted string\"; D1 20;\n",
        fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    );
    let suite = temp_file("standard.epd", &text);
    let (code, out, err) = run(&["suite", suite.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["passed"], 5, "{out}");
    // The id is shown with a failure.
    let suite = temp_file("named.epd", &format!("{START} id \"start\"; D1 21;\n"));
    let (code, out, _) = run(&["suite", suite.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("named.epd:1 [start] "), "{out}");
    // A line without any count is still an error.
    let suite = temp_file("nocount.epd", &format!("{START} id \"x\";\n"));
    assert_usage(&["suite", suite.to_str().unwrap()], "no perft count");
}

fn plan_dir(name: &str, fen: Option<&str>) -> std::path::PathBuf {
    let dir = scratch(name);
    let mut args = vec![
        "plan",
        "--depth",
        "3",
        "--split-depth",
        "1",
        "--shards",
        "2",
        "--out",
    ];
    let d = dir.to_str().unwrap().to_string();
    args.push(&d);
    if let Some(f) = fen {
        args.extend(["--fen", f]);
    }
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    dir
}

// Item 10: `plan --out` took any directory; plan.json was trusted; status said done where merge refused.
#[test]
fn work_units_check_their_plan() {
    let busy = scratch("busy");
    std::fs::create_dir_all(busy.join("journal")).unwrap();
    std::fs::write(busy.join("notes.txt"), "mine").unwrap();
    assert_usage(
        &[
            "plan",
            "--depth",
            "3",
            "--split-depth",
            "1",
            "--shards",
            "2",
            "--out",
            busy.to_str().unwrap(),
        ],
        "--out",
    );
    assert_eq!(
        std::fs::read_to_string(busy.join("notes.txt")).unwrap(),
        "mine"
    );
    // plan.json edited: its `fen` now says Kiwipete; every command refuses it, naming the field.
    let d = plan_dir("sealed", None);
    let ds = d.to_str().unwrap();
    let path = d.join("plan.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&path, &edited).unwrap();
    for args in [
        vec!["run-unit", ds, "--shard", "0", "--quiet"],
        vec!["status", ds],
        vec!["merge", ds],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("field 'fen' was edited"), "{args:?}: {err}");
    }
    std::fs::write(&path, &text).unwrap();
    // A result of another plan beside a good one: status and merge both say the shard is not done.
    let other = plan_dir(
        "other",
        Some("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    );
    for k in ["0", "1"] {
        for dir in [ds, other.to_str().unwrap()] {
            let (code, _, err) = run(&["run-unit", dir, "--shard", k, "--quiet"]);
            assert_eq!(code, 0, "{err}");
        }
    }
    std::fs::copy(
        other.join("results/shard-00001.json"),
        d.join("results/shard-00001.tag-foreign.json"),
    )
    .unwrap();
    let (status_code, out, _) = run(&["status", ds]);
    let (merge_code, _, err) = run(&["merge", ds]);
    assert_eq!(merge_code, 1, "{err}");
    assert_eq!(status_code, 1, "{out}");
    assert!(out.contains("1 of 2 shards done"), "{out}");
    assert!(out.contains("belongs to another plan"), "{out}");
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

// Item 12: the HTML report said "no failures" when the engine failed on every position.
#[test]
fn html_report_shows_engine_errors() {
    let engine = python_uci_engine("crash-report.py", "sys.exit(3)");
    let suite = temp_file(
        "report-errors.epd",
        &format!("{START} ;D1 20\n4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\n"),
    );
    let report = scratch("errors.html");
    let (code, _, err) = run(&[
        "compare",
        "--engine",
        &engine,
        "--suite",
        suite.to_str().unwrap(),
        "--depth",
        "1",
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let page = std::fs::read_to_string(&report).unwrap();
    assert!(!page.contains("no failures"), "{page}");
    assert!(page.contains("the engine failed on 2 positions"), "{page}");
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

// Item 13: `--checkpoint --backend gpu` counted one frontier position per GPU run (about 21 positions/s on
// lavapipe). The positions now go to the backend in batches (`Backend::perft_many`), each batch journalled
// when it finishes: the counts stay exact (CPW's), and a run stopped by SIGTERM after some batches resumes
// from its journal to the same count.
#[test]
fn gpu_checkpoint_counts_in_batches_and_resumes() {
    if !gpu_available() {
        return;
    }
    // Kiwipete perft 4 = 4,085,603 (CPW "Perft Results", position 2), split at ply 2.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let journal = scratch("gpu-kiwipete.jsonl");
    let j = journal.to_str().unwrap();
    let args = [
        "perft",
        "--fen",
        kiwipete,
        "--depth",
        "4",
        "--split-depth",
        "2",
        "--backend",
        "gpu",
        "--checkpoint",
        j,
        "--quiet",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 4085603\n", "{err}");
    // Every distinct position of ply 2 is in the journal, once (a header line and one record each).
    let text = std::fs::read_to_string(&journal).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let positions = header["identity"]["positions"].as_u64().unwrap() as usize;
    assert_eq!(text.lines().count(), positions + 1, "{text}");
    let mut seen: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["i"]
                .as_u64()
                .unwrap()
        })
        .collect();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), positions);
    // The same run again reads everything from the journal.
    let (code, out, err) = run(&args);
    assert_eq!(
        (code, out.as_str()),
        (0, "Nodes searched: 4085603\n"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{positions} of {positions} positions")),
        "{err}"
    );

    // Interrupted after its first batches, then resumed: perft 6 of the initial position, 119,060,324 (CPW),
    // split at ply 3 (5,362 distinct positions).
    let journal = scratch("gpu-start.jsonl");
    let j = journal.to_str().unwrap();
    let args = [
        "perft",
        "--depth",
        "6",
        "--split-depth",
        "3",
        "--backend",
        "gpu",
        "--checkpoint",
        j,
        "--quiet",
    ];
    let child = spawn(&args);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    // Wait for the header and two batches (positions 1 and 2–3).
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 4 {
        assert!(std::time::Instant::now() < deadline, "no batch journalled");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    send_signal(child.id(), "TERM");
    let (code, _, err) = finish(child, 120);
    assert_eq!(code, 143, "{err}");
    let kept = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!((3..5362).contains(&kept), "{kept} positions journalled");
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "Nodes searched: 119060324\n", "{err}");
    assert!(
        err.contains(&format!("resuming from {j}: {kept} of 5362 positions")),
        "{err}"
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

// Item 14: the FEN of an invalid position is quoted as typed: `KQ` (no rook on a1), not `KA`.
#[test]
fn invalid_fen_is_quoted_as_typed() {
    let typed = "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1";
    let (code, _, err) = run(&["perft", "--fen", typed, "--depth", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("--fen: invalid position '{typed}'")),
        "{err}"
    );
    assert!(!err.contains("KA"), "{err}");
}

// Item 14: Shredder-FEN rook files are Chess960 notation already: no warning that they were read as
// Chess960 (the X-FEN `KQkq` of the same position is still warned: it was read as the outermost rooks).
#[test]
fn shredder_fen_is_not_warned_as_a_chess960_reading() {
    let (code, out, err) = run(&[
        "perft",
        "--fen",
        "5rkr/8/8/8/8/8/8/5RKR w HFhf - 0 1",
        "--depth",
        "1",
    ]);
    assert_eq!((code, out.as_str()), (0, "Nodes searched: 20\n"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    let (code, _, err) = run(&[
        "perft",
        "--fen",
        "5rkr/8/8/8/8/8/8/5RKR w KQkq - 0 1",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: castling rights read as Chess960"),
        "{err}"
    );
}

// Item 14: a zero-width space (U+200B) pasted into a value is shown in the error, not printed invisibly.
#[test]
fn invisible_characters_are_shown_in_errors() {
    let (code, _, err) = run(&[
        "perft",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\u{200b} w KQkq - 0 1",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        !err.contains('\u{200b}') && err.contains("RNBQKBNR\\u{200b}"),
        "{err:?}"
    );
    let (code, _, err) = run(&["perft", "--depth", "1\u{200b}"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        !err.contains('\u{200b}') && err.contains("1\\u{200b}"),
        "{err:?}"
    );
}

// Item 14: a promotion without its piece gets a hint naming the move with one.
#[test]
fn promotion_without_its_piece_gets_a_hint() {
    let (code, _, err) = run(&[
        "perft",
        "--fen",
        "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        "--moves",
        "a7a8",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("move 1 'a7a8' is not a legal move"), "{err}");
    assert!(err.contains("add it, as in 'a7a8q'"), "{err}");
    // A move that is simply illegal gets no such hint.
    let (code, _, err) = run(&["perft", "--moves", "e2e5", "--depth", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("promotion"), "{err}");
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
