//! Dead positions (FIDE 1.5, 5.2.2, 6.9; issue 18): the `dead` and `analyze` commands end to end (JSON in input
//! order, bad and invalid lines, text output, `analyze`'s report and picture).

mod dead_common;

use dead_common::*;
use perftlab::types::{Color, Move};
use perftlab::Checked;
use serde_json::Value;
use std::process::Command;

#[test]
fn dead_command_json_in_input_order() {
    let input = "# a comment\n\n\
                 8/8/8/4k3/8/8/8/3QK3 w - - 0 1 white\n\
                 4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1\n\
                 k7/1Q6/1K6/8/8/8/8/8 b - - 0 1 black\n";
    let (code, out, err) = run(&["dead", "-", "--json", "--threads", "2"], input);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    let results: Vec<(&str, &str)> = lines
        .iter()
        .map(|v| (v["side"].as_str().unwrap(), v["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        results,
        [
            ("white", "winnable"),
            ("white", "unwinnable"),
            ("black", "unwinnable"),
            ("black", "unwinnable"),
        ]
    );
    for key in ["fen", "helpmate", "reason", "nodes", "microseconds"] {
        assert!(lines[0].get(key).is_some(), "{key}: {}", lines[0]);
    }
    // The helpmate is UCI, and replays.
    let pos = Checked::from_fen("8/8/8/4k3/8/8/8/3QK3 w - - 0 1").unwrap();
    let mut line = Vec::new();
    let mut cur = pos.clone();
    for m in lines[0]["helpmate"].as_array().unwrap() {
        let m = Move::find_uci(&cur.legal_moves(), m.as_str().unwrap()).unwrap();
        line.push(m);
        cur = cur.play(m).unwrap();
    }
    assert_helpmate(&pos, Color::White, &line);
}

#[test]
fn dead_command_refuses_bad_lines() {
    let (code, _, err) = run(
        &["dead", "-"],
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1\nnot a fen white\n",
    );
    assert_eq!(code, 2);
    assert!(err.contains(":2:") && err.contains("not a fen"), "{err}");
    let (code, _, err) = run(&["dead", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"], "");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["dead", "-", "--time-limit=-1"], "");
    assert_eq!(code, 2);
    assert!(err.contains("--time-limit"), "{err}");
    let (code, _, err) = run(&["dead", "-"], "# only a comment\n");
    assert_eq!(code, 2);
    assert!(err.contains("no positions"), "{err}");
}

/// The scan streams its file a run of 256 lines at a time, on two threads and on one (without a pool, each run
/// decided and printed in turn on the main thread): a line that cannot be read, 600 lines in, ends it
/// with exit 2 and the line named, after the answers of the lines before it (bare kings: unwinnable for both,
/// FIDE 1.5, the insufficient-material proof), and nothing after it is answered; the full mode refuses the same
/// file before any answer. A file of only comments is refused by the scan too.
#[test]
fn the_scan_streams_and_stops_at_a_line_that_cannot_be_read() {
    let bare = "8/8/8/4k3/8/8/8/4K3 w - - 0 1";
    let mut input: String = (0..600).map(|_| format!("{bare} white\n")).collect();
    input += "not a fen white\n";
    input += &format!("{bare} black\n");
    // Two threads (a pool, the runs printed as they arrive) and one (the runs decided and printed in turn).
    for threads in ["2", "1"] {
        let args = ["dead", "-", "--scan", "--json", "--threads", threads];
        let (code, out, err) = run(&args, &input);
        assert_eq!(code, 2, "{threads}: {err}");
        assert!(err.contains(":601:") && err.contains("not a fen"), "{err}");
        let answers: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), 600, "{threads}: {out}");
        assert!(answers
            .iter()
            .all(|v| v["result"] == "unwinnable" && v["side"] == "white" && v["fen"] == bare));
    }
    let (code, out, err) = run(&["dead", "-", "--json"], &input);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    let (code, _, err) = run(&["dead", "-", "--scan"], "# only a comment\n");
    assert_eq!(code, 2);
    assert!(err.contains("no positions"), "{err}");
}

/// Positions that read but are not valid (FIDE 3.10.3) are answered `invalid` with the message of
/// `Checked::new` (the library's check, the oracle), word for word, in the full mode and the scan alike, and the
/// run ends with exit 2: no king, two kings, a pawn on a back rank, the side not to move in check by each kind
/// of unit, a bad castling right and a bad en-passant square (the checks `dead`'s cheaper screen makes and those
/// it leaves to the full check); the valid lines among them are answered as usual.
#[test]
fn dead_command_answers_invalid_positions_with_the_checks_message() {
    let invalid = [
        "8/8/8/4k3/8/8/8/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/3KK3 b - - 0 1",
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/p3K3 b - - 0 1",
        "4k3/3P4/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/3N4/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/B7/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        "4k3/8/8/8/Q7/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/3n4/8/4K3 b - - 0 1",
        "4k3/8/8/8/8/8/3p4/4K3 b - - 0 1",
        "8/8/8/8/8/8/3k4/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
    ];
    let valid = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let input: String = invalid
        .iter()
        .chain([&valid])
        .map(|f| format!("{f} white\n"))
        .collect();
    for mode in [None, Some("--scan")] {
        let args: Vec<&str> = ["dead", "-", "--json"].into_iter().chain(mode).collect();
        let (code, out, err) = run(&args, &input);
        assert_eq!(code, 2, "{mode:?}: {err}");
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for fen in invalid {
            let expected = Checked::from_fen(fen).unwrap_err().to_string();
            let line = lines.iter().find(|v| v["fen"] == fen).expect(fen);
            assert_eq!(line["result"], "invalid", "{mode:?} {fen}");
            assert_eq!(line["reason"], expected.as_str(), "{mode:?} {fen}");
        }
        let answered = lines.iter().any(|v| v["fen"] == valid);
        assert_eq!(answered, mode.is_none(), "{mode:?}: {out}");
    }
}

#[test]
fn dead_command_text_and_quick() {
    let (code, out, err) = run(
        &[
            "dead",
            "--fen",
            "3bk3/8/8/p1p1p1p1/P1P1P1P1/8/8/4KB2 w - - 0 1",
            "--quick",
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("white unwinnable: blocked structure"), "{out}");
    assert!(
        out.contains("0 winnable, 2 unwinnable, 0 undetermined"),
        "{out}"
    );
}

#[test]
fn analyze_reports_both_sides_and_the_dead_position() {
    let analyze = |fen: &str| -> Value {
        let out = Command::new(BIN)
            .args(["analyze", "--json", "--fen", fen])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let v = analyze("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1");
    assert_eq!(v["dead"], true);
    assert_eq!(v["outcome"], "dead_position");
    assert_eq!(v["winnable"]["white"]["result"], "unwinnable");
    assert!(v["dead_reason"]
        .as_str()
        .unwrap()
        .contains("blocked structure"));
    let v = analyze("8/8/8/4k3/8/8/8/3QK3 w - - 0 1");
    assert_eq!(v["dead"], false);
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(v["winnable"]["white"]["result"], "winnable");
    assert!(!v["winnable"]["white"]["helpmate"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(v["winnable"]["black"]["result"], "unwinnable");
    // Insufficient material keeps its own outcome, and is dead too.
    let v = analyze("8/8/8/4k3/8/8/8/4KN2 w - - 0 1");
    assert_eq!(v["outcome"], "insufficient_material");
    assert_eq!(v["dead"], true);
    let text = Command::new(BIN)
        .args([
            "analyze",
            "--fen",
            "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("white can mate: unwinnable"), "{text}");
    assert!(text.contains("dead position: yes"), "{text}");
}

#[test]
fn analyze_svg_shades_the_fortress() {
    // The locked wall: White's king can never get above its pawns (the blocked-structure proof lists its region:
    // ranks 1 to 3), so the picture shades for White the 32 squares that are neither in that region nor pawns.
    let svg = analyze_svg("4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1");
    assert_eq!(
        svg.matches(r#"class="unreachable" data-side="white""#)
            .count(),
        32,
        "{svg}"
    );
    for sq in ["e8", "b4", "h6"] {
        assert!(svg.contains(&format!(
            r#"class="unreachable" data-side="white" data-square="{sq}""#
        )));
    }
    for sq in ["e1", "h3", "a4", "a5"] {
        assert!(!svg.contains(&format!(r#"data-side="white" data-square="{sq}""#)));
    }
    assert!(svg.contains("shaded: squares white's pieces can never reach"));
    // A position with no blocked structure shades nothing.
    let svg = analyze_svg("8/8/8/4k3/8/8/8/3QK3 w - - 0 1");
    assert!(!svg.contains("unreachable"));
}

/// Lines that repeat the FEN of the line before (a file asking for each side on a line of its own) are read as
/// one position with a query per line: each line's answer is the one `--fen` gives for that position and side
/// alone, for a valid position (three lines), an invalid one (a line without a side word asks both), and a
/// position repeated over 300 lines, across the reader's runs of 256 lines (the scan on two threads and on one).
#[test]
fn dead_command_answers_each_line_of_a_repeated_fen_as_alone() {
    let won = "8/8/8/4k3/8/8/8/3QK3 w - - 0 1";
    let bad = "4k3/8/8/8/8/8/8/3KK3 b - - 0 1";
    let locked = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1";
    let mut asked = vec![
        (won, "white"),
        (won, "black"),
        (won, "white"),
        (bad, "white"),
    ];
    let mut input = String::new();
    for (fen, side) in &asked {
        input += &format!("{fen} {side}\n");
    }
    input += &format!("{bad}\n");
    asked.extend([(bad, "white"), (bad, "black")]);
    for i in 0..300 {
        let side = ["white", "black"][i % 2];
        input += &format!("{locked} {side}\n");
        asked.push((locked, side));
    }
    let answer = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("microseconds");
        v
    };
    for (mode, threads) in [(None, "2"), (Some("--scan"), "2"), (Some("--scan"), "1")] {
        let args: Vec<&str> = ["dead", "-", "--json", "--threads", threads]
            .into_iter()
            .chain(mode)
            .collect();
        let (code, out, err) = run(&args, &input);
        assert_eq!(code, 2, "{mode:?}: {err}"); // the invalid position
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut printed = lines.iter();
        let mut alone_of = std::collections::HashMap::new();
        for (fen, side) in &asked {
            let alone = alone_of.entry((fen, side)).or_insert_with(|| {
                let args: Vec<&str> = ["dead", "--fen", fen, "--side", side, "--json"]
                    .into_iter()
                    .chain(mode)
                    .collect();
                run(&args, "").1
            });
            let Some(alone) = alone.lines().next() else {
                continue; // the scan prints only the unwinnable
            };
            let alone: Value = serde_json::from_str(alone).unwrap();
            let line = printed
                .next()
                .unwrap_or_else(|| panic!("{mode:?}: no line for {fen} {side}"));
            assert_eq!(answer(line), answer(&alone), "{mode:?}: {fen} {side}");
        }
        assert!(printed.next().is_none(), "{mode:?}: {out}");
    }
}
