//! Helpers shared by the dead-position tests (tests/dead.rs, tests/dead_cli.rs, tests/dead_proofs.rs): the
//! test limits, the proofs each verdict is checked against (a helpmate replayed by the reference generator, a
//! bounded exhaustive search), the labelled positions and running the binary.
#![allow(dead_code)]

use perftlab::analyze::dead::{self, Limits, Verdict};
use perftlab::reference::Mailbox;
use perftlab::types::{Color, Move};
use perftlab::Checked;
use std::process::Command;

pub const BIN: &str = env!("CARGO_BIN_EXE_perftlab");

/// The lines of `tests/data/NAME` that are neither comments (`#`) nor blank.
pub fn data_lines(name: &str) -> Vec<String> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Limits for the tests: node-bounded only, so that the verdicts do not depend on the machine's speed.
pub fn limits(nodes: u64) -> Limits {
    Limits {
        nodes,
        time: None,
        quick: false,
        scan: false,
    }
}

/// Replay `line` from `pos` with the reference generator; it must end in checkmate of the side not `winner`.
pub fn assert_helpmate(pos: &Checked, winner: Color, line: &[Move]) {
    let mut cur = Mailbox::from_setup(pos.setup());
    for &m in line {
        assert!(
            cur.legal_moves().contains(&m),
            "{}: {} illegal in the helpmate {line:?}",
            pos.to_fen(),
            m.to_uci(true)
        );
        cur = cur.play(m);
    }
    assert!(
        cur.turn() != winner && cur.in_check() && cur.legal_moves().is_empty(),
        "{}: helpmate {line:?} does not mate",
        pos.to_fen()
    );
}

/// Check one side's verdict against a proof: a replayed helpmate, or (unwinnable) no mate within `plies`.
pub fn check_verdict(pos: &Checked, winner: Color, verdict: &Verdict, plies: u32) {
    match verdict {
        Verdict::Winnable { helpmate } => assert_helpmate(pos, winner, helpmate),
        Verdict::Unwinnable { .. } => assert!(
            !dead::mate_within(pos, winner, plies),
            "{}: called unwinnable for {winner:?}, but a mate exists within {plies} plies",
            pos.to_fen()
        ),
        Verdict::Undetermined { .. } => {}
    }
}

pub fn data() -> Vec<(String, String)> {
    let text = include_str!("../data/dead-positions.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (label, fen) = l.split_once(' ').expect("LABEL FEN");
            (label.to_string(), fen.to_string())
        })
        .collect()
}

pub fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `perftlab analyze --fen FEN --svg FILE` in a fresh temporary folder (removed after): exit 0 and the picture.
pub fn analyze_svg(fen: &str) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("perftlab-dead-svg-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("board.svg");
    let (code, _, err) = run(
        &["analyze", "--fen", fen, "--svg", path.to_str().unwrap()],
        "",
    );
    assert_eq!(code, 0, "{fen}: {err}");
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    svg
}

/// Whether the picture of [`analyze_svg`] shades square `sq` (e.g. `"h3"`) as never reachable for White.
pub fn shaded_for_white(svg: &str, sq: &str) -> bool {
    svg.contains(&format!(
        r#"class="unreachable" data-side="white" data-square="{sq}""#
    ))
}

/// How many squares the picture of [`analyze_svg`] shades as never reachable for White.
pub fn shaded_for_white_count(svg: &str) -> usize {
    svg.matches(r#"class="unreachable" data-side="white""#)
        .count()
}
