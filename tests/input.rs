//! Position input, by area: the one position-file reader (issue 31 item 2, issue 37 items 2, 10, 11, 16) that
//! every command reading positions shares: bounded reading of files and standard input (`/dev/zero`,
//! `/dev/full`, a FIFO, a 300 MB file), one grammar for position lines (FEN or EPD, CHA's labels, a side word in
//! any case), trailing garbage refused, FEN errors that name the field, `--moves` as PGN movetext, and the
//! suite's messages about its own lines. Every check is of an exit code and its messages; none is timed (a
//! run that does not end within a generous bound is the failure: "never reads without end").

mod common;

use common::{data, perftlab, run, run_stdin, temp_file};
use std::process::Stdio;
use std::time::{Duration, Instant};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Run with `stdin`, killed (and failed) after `secs`: (exit code, stderr).
fn bounded(args: &[&str], stdin: Stdio, secs: u64) -> (i32, String) {
    let mut child = perftlab()
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start perftlab");
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
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s (reads without bound)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The commands that read a file of positions, with the file as `{}`.
fn readers(file: &str) -> Vec<Vec<String>> {
    let cmds: [&[&str]; 4] = [
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
    // Standard input: endless zeros and the 300 MB file, each refused at the first over-long line.
    for source in ["/dev/zero", huge.to_str().unwrap()] {
        for args in [&["dead", "-"][..], &["reachable", "-"], &["suite", "-"]] {
            let stdin = Stdio::from(std::fs::File::open(source).unwrap());
            let (code, err) = bounded(args, stdin, 60);
            assert_eq!(code, 2, "{args:?} < {source}: {err}");
            assert!(err.contains("longer than the limit"), "{args:?}: {err}");
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
}

// Stockfish 15.1 `position startpos moves e2e4 e7e5 g1f3` / `go perft 2` printed 779 (as in
// tests/hardening.rs); the numbered PGN form of the same line must give the same count.
#[test]
fn moves_read_pgn_movetext() {
    let (code, out, err) = run(&["perft", "--moves", "1. e4 e5 2. Nf3+! 1-0", "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched: 779"), "{out}");
    let (code, out, err) = run(&["perft", "--moves", "1.e4 e5 2.Nf3 *", "--depth", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Nodes searched: 779"), "{out}");
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
// the one of tests/hardening.rs's e.p. warning: c2c4 cannot have given the bishop's check on e6.
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
}
