//! Position input, by area: the one position-file reader (issue 31 item 2, issue 37 items 2, 10, 11, 16) that
//! every command reading positions shares: bounded reading of files and standard input (`/dev/zero`,
//! `/dev/full`, a FIFO, a 300 MB file), one grammar for position lines (FEN or EPD, CHA's labels, a side word in
//! any case), trailing garbage refused, FEN errors that name the field, `--moves` as PGN movetext, and the
//! suite's messages about its own lines; FEN strictness, EPD operations and suite blocks, `--moves`, and
//! values quoted as typed (invisible characters shown). Every check is of an exit code and its messages; none is timed (a
//! run that does not end within a generous bound is the failure: "never reads without end").

mod common;

use common::{assert_usage, data, perftlab, run, run_stdin, run_within, scratch, temp_file};
use std::process::Stdio;
use std::time::{Duration, Instant};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Run with `stdin`, killed (and failed) after `secs`: (exit code, stderr). While it runs, its peak resident
/// memory (`VmHWM` of `/proc/PID/status`, Linux) is watched: above [`MAX_RSS_KIB`] fails the run (a reader
/// that buffers what it refuses).
fn bounded(args: &[&str], stdin: Stdio, secs: u64) -> (i32, String) {
    let mut child = perftlab()
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start perftlab");
    let status_file = format!("/proc/{}/status", child.id());
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status.code().unwrap_or(-1), err);
        }
        let peak = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .unwrap_or(0);
        if peak > MAX_RSS_KIB || start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{args:?} still running after {:.1} s with {peak} KiB resident (reads without bound)",
                start.elapsed().as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The most resident memory a command may take while refusing an endless or huge input: 96 MiB (the largest
/// input any command accepts is 256 MiB: a reader that buffered up to that limit before refusing fails here).
const MAX_RSS_KIB: u64 = 96 << 10;

/// The commands that read a file of positions, with the file as `{}` (`-`: standard input).
fn readers(file: &str) -> Vec<Vec<String>> {
    let cmds: [&[&str]; 6] = [
        &["dead", "{}"],
        &["reachable", "{}"],
        &["suite", "{}"],
        &[
            "compare",
            "--engine",
            "/nonexistent",
            "--depth",
            "1",
            "--suite",
            "{}",
        ],
        &["verify", "--suite", "{}", "--depth", "1"],
        &["proofgame", "{}"],
    ];
    cmds.iter()
        .map(|c| c.iter().map(|w| w.replace("{}", file)).collect())
        .collect()
}

#[test]
fn every_position_reader_refuses_endless_and_huge_inputs() {
    let dir = std::env::temp_dir().join(format!("perftlab-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // A sparse 300 MB file of zeros: no disk used, and read in bounded time only if refused by its size.
    let huge = dir.join("huge.txt");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(300_000_000)
        .unwrap();
    for file in [
        "/dev/zero",
        "/dev/full",
        fifo.to_str().unwrap(),
        huge.to_str().unwrap(),
    ] {
        for args in readers(file) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, err) = bounded(&args, Stdio::null(), 60);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                err.contains("not a regular file") || err.contains("longer than the limit"),
                "{args:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    // Standard input, for every command that reads it (`-`): endless zeros and the 300 MB file, each refused
    // at the first over-long line (or, for proofgame's small problem files, at 1 MiB).
    for source in ["/dev/zero", huge.to_str().unwrap()] {
        for args in readers("-") {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let stdin = Stdio::from(std::fs::File::open(source).unwrap());
            let (code, err) = bounded(&args, stdin, 60);
            assert_eq!(code, 2, "{args:?} < {source}: {err}");
            assert!(err.contains("longer than the limit"), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dead_reads_epd_cha_labels_and_side_words_in_any_case() {
    let epd = temp_file(
        "dead-epd.txt",
        "8/8/8/4k3/8/8/8/4K3 w - - ;D1 5\n8/8/8/4k3/8/8/8/4K3 w - - 0 1 WHITE\n",
    );
    let (code, out, err) = run(&["dead", epd.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("8/8/8/4k3/8/8/8/4K3 w - - 0 1 white unwinnable"),
        "{out}"
    );
    assert!(
        out.ends_with("0 winnable, 3 unwinnable, 0 undetermined\n"),
        "{out}"
    );
    // The project's own CHA-labelled file: every line is read (one answer per side of 37 positions).
    let labelled = data("dead-positions.txt");
    let (code, out, err) = run(&["dead", labelled.to_str().unwrap(), "--quiet", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with('{')).count(),
        74,
        "{out}"
    );
}

#[test]
fn trailing_garbage_is_refused_and_named() {
    let file = temp_file(
        "reachable-garbage.txt",
        &format!("{START} garbage words here\n{START}\n"),
    );
    let (code, out, err) = run(&["reachable", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 2, "{out}{err}");
    let first = out.lines().next().unwrap();
    assert!(first.contains("\"result\":\"invalid\""), "{first}");
    assert!(
        first.contains(":1: unexpected text 'garbage words here'"),
        "{first}"
    );
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .contains("\"result\":\"reachable\""),
        "{out}"
    );
    // The same line in `dead` refuses the file before any work, naming line and text.
    let (code, out, err) = run(&["dead", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains(":1: malformed line '") && err.contains("garbage words here"),
        "{err}"
    );
}

#[test]
fn a_garbage_fen_names_its_board_field() {
    for args in [
        &["perft", "--fen", "not a fen", "--depth", "1"][..],
        &["dead", "--fen", "not a fen"],
    ] {
        let (code, _, err) = run(args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("field 'board' is 'not'"), "{args:?}: {err}");
        assert!(!err.contains("en passant"), "{args:?}: {err}");
    }
    // `--fen`'s errors name the flag, not a line 1 of a file.
    let (_, _, err) = run(&["dead", "--fen", "not a fen"]);
    assert!(err.starts_with("error: --fen: 'not a fen': "), "{err}");
    // The library's error (what `RootError::Fen` of a cross-check carries) is the same.
    for e in [
        perftlab::Setup::from_fen("not a fen")
            .unwrap_err()
            .to_string(),
        perftlab::Checked::from_fen("not a fen")
            .unwrap_err()
            .to_string(),
    ] {
        assert!(e.contains("field 'board' is 'not'"), "{e}");
        assert!(!e.contains("en passant"), "{e}");
    }
}

// Stockfish 15.1 `position startpos moves e2e4 e7e5 g1f3` / `go perft 2` printed 779 (as in
// `moves_are_played_before_counting` below); the numbered PGN form of the same line must give the same count.
#[test]
fn moves_read_pgn_movetext() {
    let (code, out, err) = run(&["perft", "--moves", "1. e4 e5 2. Nf3+! 1-0", "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched: 779"), "{out}");
    let (code, out, err) = run(&["perft", "--moves", "1.e4 e5 2.Nf3 *", "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched: 779"), "{out}");
    // A game's PGN export: comments, numeric annotation glyphs and variations are skipped (they were read as
    // moves: "move 4 '{a' is not a legal move").
    let pgn = "1. e4 {[%clk 0:03:00]} e5 $1 (1... c5 2. Nf3 (2. c3)) 2. Nf3 1-0";
    let (code, out, err) = run(&["perft", "--moves", pgn, "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched: 779"), "{out}");
    // A move after the result is refused (it was played).
    let (code, _, err) = run(&["perft", "--moves", "1. e4 e5 0-1 2. Nf3", "--depth", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("move 3 '0-1': a result ends the movetext"),
        "{err}"
    );
    // A move after checkmate (fool's mate) is told the game is over.
    let (code, _, err) = run(&[
        "perft",
        "--moves",
        "1. f3 e5 2. g4 Qh4# 3. a3",
        "--depth",
        "1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("move 5 'a3': the game is over (checkmate)"),
        "{err}"
    );
}

// `reachable` prints its proof game as numbered SAN (`1. Nf3 d5 2. e4`); pasted into `--moves` it must reach
// the position `reachable` was asked about (board, side to move, castling rights compared: the clocks of the
// asked FEN are its own).
#[test]
fn reachables_numbered_san_reads_back_as_moves() {
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    let (code, out, err) = run(&["reachable", "--fen", fen, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let san = v["san"].as_str().unwrap().to_string();
    assert!(san.starts_with("1. "), "{san}");
    let (code, out, err) = run(&["analyze", "--moves", &san, "--json"]);
    assert_eq!(code, 0, "{san}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let reached: Vec<&str> = v["fen"].as_str().unwrap().split(' ').take(3).collect();
    let asked: Vec<&str> = fen.split(' ').take(3).collect();
    assert_eq!(reached, asked, "{san}");
}

#[test]
fn suite_names_its_own_lines() {
    // An invalid position is quoted as typed (`KQ`), not as rewritten (`HA`).
    let typed = "4k3/8/8/8/8/8/8/4K3 w KQ - 0 1";
    let file = temp_file("suite-typed.epd", &format!("{typed} ;D1 5\n"));
    let (code, out, err) = run(&["suite", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!("invalid position '{typed}'")),
        "{out}"
    );
    assert!(!out.contains("HA"), "{out}");
    // A wrong count on a valid position typed in Shredder-FEN (`HAha`) and as a 4-field EPD: the FAIL line
    // quotes it as typed, not as written back (`KQkq - 0 1`). Its 26 moves are data/standard.epd's line 13.
    let typed = "r3k2r/8/8/8/8/8/8/R3K2R w HAha -";
    let file = temp_file("suite-shredder.epd", &format!("{typed} ;D1 27\n"));
    let (code, out, err) = run(&["suite", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(&format!(
            "suite-shredder.epd:1 {typed} depth 1: expected 27, got 26"
        )),
        "{out}"
    );
    // A misplaced `id` is blamed on its own line (1), not on the correct line after it.
    let misplaced = temp_file(
        "suite-id.epd",
        &format!("id \"kiwi\"; {START} ;D1 20\n{START} ;D1 20\n"),
    );
    let (code, _, err) = run(&["suite", misplaced.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("suite-id.epd:1: malformed suite line 'id"),
        "{err}"
    );
    assert!(err.contains("'id' comes after it"), "{err}");
    // Standard input reads the same grammar.
    let (code, _, err) = run_stdin(&["suite", "-"], format!("{START} ;D1 20\n").as_bytes());
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_engine_not_on_path_is_told_where_debian_puts_it() {
    let out = perftlab()
        .args(["compare", "--engine", "stockfish", "--depth", "1"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/usr/games/stockfish"), "{err}");
    // `bench --stockfish` names its own flag and the path as typed (it said `''stockfish''` and `--engine`).
    let out = perftlab()
        .args(["bench", "--quick", "--stockfish", "stockfish"])
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--stockfish: cannot start 'stockfish': ")
            && err.contains("/usr/games/stockfish"),
        "{err}"
    );
    assert!(!err.contains("''") && !err.contains("--engine"), "{err}");
}

// The README command table is one table: a blank line inside it split the `dead` and `reachable` rows off
// into a paragraph of their own (Markdown ends a table at a blank line).
#[test]
fn readme_command_table_is_one_table() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("| `perft`") || l.contains("| Command"))
        .expect("the command table");
    let start = (0..=head)
        .rev()
        .find(|&i| !lines[i].starts_with('|'))
        .map_or(0, |i| i + 1);
    let rows: Vec<&str> = lines[start..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .copied()
        .collect();
    for cmd in ["`dead`", "`reachable`", "`analyze`"] {
        assert!(
            rows.iter().any(|r| r.starts_with(&format!("| {cmd}"))),
            "{cmd} is not a row of the command table starting at line {}",
            start + 1
        );
    }
}

// `verify --suite` named a validity warning without its file, line or FEN (issue 37 item 9). The position is
// the one of `ep_square_that_cannot_explain_the_check_warns`'s e.p. warning: c2c4 cannot have given the bishop's check on e6.
#[test]
fn verify_suite_warnings_name_file_line_and_fen() {
    let fen = "2B3n1/r6r/1p2k3/pB1p2B1/P1Ppp3/N5P1/1P1K4/4R3 b - c3 0 28";
    let file = temp_file("verify-warn.epd", &format!("{START} ;D1 20\n{fen} ;D1 1\n"));
    let (code, _, err) = run(&["verify", "--suite", file.to_str().unwrap(), "--depth", "1"]);
    assert_eq!(code, 0, "{err}");
    let line = err
        .lines()
        .find(|l| l.contains("impossible_check"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        line.contains("verify-warn.epd:2: ") && line.contains(fen),
        "{line}"
    );
    // An invalid position is skipped naming its file and line too (it named only the FEN), and the summary
    // counts the roots checked ("1 positions … (2 roots)" counted the skipped one).
    let invalid = "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1";
    let file = temp_file(
        "verify-skip.epd",
        &format!("{invalid} ;D1 5\n{START} ;D1 20\n"),
    );
    let (code, out, err) = run(&["verify", "--suite", file.to_str().unwrap(), "--depth", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "skipped {}:1: invalid position '{invalid}'",
            file.display()
        )),
        "{err}"
    );
    assert!(
        out.contains("1 position checked against reference to depth 1: all legal move sets agree (1 root, 1 skipped as invalid)"),
        "{out}"
    );
}

// ---------------------------------------------------------------------------------------------------------
// FEN strictness, suite and EPD reading, `--moves`, endless inputs, values quoted as typed (issues 11, 23).
// ---------------------------------------------------------------------------------------------------------

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
