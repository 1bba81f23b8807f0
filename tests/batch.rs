//! Batch analysis, by area: `dead` over files (issue 37 items 1, 3, 12, 13, 17): answers streamed in input
//! order as they finish and flushed per line, an interruption that keeps what was printed and says how many
//! queries were answered, an invalid position answered `invalid` while the others are answered, the
//! per-position `dead:` line of `--side both`, and `--shortest`. Expected verdicts come from the proofs the
//! library prints (replayed helpmates) or, for `--shortest`, from the bounded exhaustive search
//! `mate_within`, which shares nothing with the closure that finds the line.

mod common;

use common::{data, perftlab, run, temp_file};
use perftlab::types::Color;
use perftlab::Checked;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

/// The project's labelled positions (CHA's format) repeated `n` times, as a file.
fn many_positions(n: usize) -> std::path::PathBuf {
    let one = std::fs::read_to_string(data("dead-positions.txt")).unwrap();
    temp_file("dead-many.txt", &one.repeat(n))
}

#[test]
fn dead_streams_answers_and_an_interrupt_keeps_them() {
    let file = many_positions(400); // 29,600 queries: many seconds on one thread
    let mut child = perftlab()
        .args(["dead", file.to_str().unwrap(), "--threads", "1", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // The first answer arrives while the run goes on (it used to come with the last one).
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(
        first.starts_with("8/8/8/4k3/8/8/8/4K3 w - - 0 1 white unwinnable"),
        "{first}"
    );
    let pid = child.id().to_string();
    std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let printed = 1 + rest.lines().filter(|l| !l.contains(" dead: ")).count();
    let said = format!("{printed} of 29600 queries answered");
    assert!(
        err.contains(&said),
        "printed {printed} answers; stderr: {err}"
    );
    assert!(printed < 29600, "{err}");
}

#[test]
fn an_invalid_position_is_answered_and_the_others_too() {
    let file = temp_file(
        "dead-invalid.txt",
        "4k3/8/8/8/8/8/8/4K2K w - - 0 1\n8/8/8/4k3/8/8/8/4K3 w - - 0 1 white\n",
    );
    let (code, out, err) = run(&["dead", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 2, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].contains("\"result\":\"invalid\"") && lines[0].contains("too_many_kings"),
        "{out}"
    );
    assert!(lines[2].contains("\"result\":\"unwinnable\""), "{out}");
    assert!(!err.contains("malformed"), "{err}");
}

#[test]
fn side_both_says_whether_the_position_is_dead() {
    let (code, out, err) = run(&["dead", "--fen", "8/8/8/4k3/8/8/8/4KB2 b - - 0 1"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("8/8/8/4k3/8/8/8/4KB2 b - - 0 1 dead: yes"),
        "{out}"
    );
    let (_, out, _) = run(&["dead", "--fen", "8/8/8/4k3/8/8/8/3QK3 b - - 0 1"]);
    assert!(out.contains("dead: no"), "{out}");
    // An already-mated position says so, not an empty helpmate.
    let (_, out, _) = run(&[
        "dead",
        "--fen",
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "--side",
        "white",
    ]);
    assert!(
        out.contains("winnable: already checkmate on the board"),
        "{out}"
    );
    assert!(!out.contains("helpmate  ("), "{out}");
}

#[test]
fn shortest_prints_a_shortest_helpmate() {
    let fen = "8/8/8/4k3/8/8/8/3RK3 w - - 0 1";
    let (code, out, err) = run(&[
        "dead",
        "--fen",
        fen,
        "--side",
        "white",
        "--shortest",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["shortest"], true, "{out}");
    let moves: Vec<String> = v["helpmate"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    // The line mates (replayed here by the reference generator) ...
    let mut pos = Checked::from_fen(fen).unwrap();
    for m in &moves {
        let mv = perftlab::types::Move::find_uci(&pos.legal_moves(), m).expect("legal");
        pos = pos.play(mv).unwrap();
    }
    assert!(
        pos.legal_moves().is_empty() && pos.turn == Color::Black,
        "{out}"
    );
    // ... and no shorter one exists (every line of one ply less, exhaustively).
    let root = Checked::from_fen(fen).unwrap();
    let n = moves.len() as u32;
    assert!(
        !perftlab::analyze::dead::mate_within(&root, Color::White, n - 1),
        "{n}"
    );
    assert!(perftlab::analyze::dead::mate_within(&root, Color::White, n));
    // The text form says so in one parenthesis, the node count's (it printed "(shortest) (496 nodes)").
    let (code, out, err) = run(&["dead", "--fen", fen, "--side", "white", "--shortest"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("helpmate {}, shortest (", moves.join(" "))),
        "{out}"
    );
    assert!(!out.contains(") ("), "{out}");
}

// `analyze` printed a blocked structure's square lists three times (white, black, dead) and the initial
// position's reachability as "reachable by " with nothing after it (issue 37 item 12).
#[test]
fn analyze_prints_each_proof_once() {
    let (code, out, err) = run(&[
        "analyze",
        "--fen",
        "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("Ke1 reaches only").count(), 1, "{out}");
    assert!(
        out.contains("black can mate: unwinnable (the same proof as for white"),
        "{out}"
    );
    assert!(out.contains("dead position: yes"), "{out}");
    let (_, out, _) = run(&["analyze"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("reachability:"))
        .unwrap();
    assert!(!line.trim_end().ends_with("by"), "{line}");
    assert!(
        !line.contains("(no game") || !line.contains("(not a proof"),
        "{line}"
    );
}
