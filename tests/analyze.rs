//! `perftlab analyze` end to end: each game state of FIDE 5.1.1, 5.2.1, 5.2.2, 9.2, 9.3 and 9.6, positions one
//! move away from each draw rule, checkmate's precedence, check and checkers, pins, SAN in and out, validity.

use serde_json::Value;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_perftlab");

fn analyze(fen: Option<&str>, moves: &str) -> (i32, Value) {
    let mut args = vec!["analyze", "--json"];
    if let Some(f) = fen {
        args.extend(["--fen", f]);
    }
    if !moves.is_empty() {
        args.extend(["--moves", moves]);
    }
    let out = Command::new(BIN).args(&args).output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), v)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn outcome(fen: Option<&str>, moves: &str) -> Value {
    analyze(fen, moves).1["outcome"].clone()
}

fn claims(fen: Option<&str>, moves: &str) -> Vec<String> {
    strings(&analyze(fen, moves).1["claimable"])
}

#[test]
fn start_position_report_has_every_key() {
    let (code, v) = analyze(None, "");
    assert_eq!(code, 0);
    for key in [
        "fen",
        "valid",
        "errors",
        "warnings",
        "side_to_move",
        "in_check",
        "checkers",
        "pinned",
        "legal_moves",
        "san",
        "outcome",
        "claimable",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}: {v}");
    }
    assert_eq!(v["valid"], true);
    assert_eq!(v["side_to_move"], "white");
    assert_eq!(v["in_check"], false);
    assert_eq!(strings(&v["legal_moves"]).len(), 20);
    let uci = strings(&v["legal_moves"]);
    let san = strings(&v["san"]);
    let i = uci.iter().position(|m| m == "g1f3").unwrap();
    assert_eq!(san[i], "Nf3");
    let i = uci.iter().position(|m| m == "e2e4").unwrap();
    assert_eq!(san[i], "e4");
    assert_eq!(v["outcome"], Value::Null);
    assert!(strings(&v["claimable"]).is_empty());
}

#[test]
fn checkmate_by_san_and_uci_moves() {
    // Fool's mate, SAN and UCI mixed.
    let (code, v) = analyze(None, "f3 e7e5 g4 Qh4#");
    assert_eq!(code, 0);
    assert_eq!(v["outcome"], "checkmate");
    assert_eq!(v["in_check"], true);
    assert_eq!(strings(&v["checkers"]), ["h4"]);
    assert_eq!(v["side_to_move"], "white");
    assert!(strings(&v["legal_moves"]).is_empty());
    // One move before: the mate is there to be played, and SAN marks it.
    let (_, v) = analyze(None, "f3 e5 g4");
    assert_eq!(v["outcome"], Value::Null);
    assert!(strings(&v["san"]).contains(&"Qh4#".to_string()));
}

#[test]
fn stalemate_and_one_move_before() {
    let fen = "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1";
    assert_eq!(outcome(Some(fen), ""), Value::Null);
    assert_eq!(outcome(Some(fen), "Qf7"), "stalemate");
    assert_eq!(outcome(Some(fen), "Qf8#"), "checkmate");
}

#[test]
fn insufficient_material_cases() {
    for fen in [
        "8/8/8/4k3/8/8/8/4K3 w - - 0 1",     // K v K
        "8/8/8/4k3/8/8/8/4KN2 w - - 0 1",    // K+N v K
        "8/8/8/4k3/8/8/8/4KB2 b - - 0 1",    // K+B v K
        "5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1", // K+B v K+B, both bishops on dark squares
    ] {
        assert_eq!(outcome(Some(fen), ""), "insufficient_material", "{fen}");
    }
    for fen in [
        "2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1", // bishops on opposite colours: mate is possible
        "8/8/8/4k3/8/8/8/3NKN2 w - - 0 1",   // two knights
        "8/8/8/4k3/8/8/3n4/4KN2 w - - 0 1",  // K+N v K+N
        "8/8/8/4k3/8/8/8/4KR2 w - - 0 1",    // a rook
        "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",   // a pawn
    ] {
        assert_eq!(outcome(Some(fen), ""), Value::Null, "{fen}");
    }
    // One move away: capturing the last pawn leaves K v K.
    let fen = "8/8/8/4k3/8/8/3p4/4K3 w - - 0 1";
    assert_eq!(outcome(Some(fen), ""), Value::Null);
    assert_eq!(outcome(Some(fen), "Kxd2"), "insufficient_material");
}

#[test]
fn fifty_and_seventyfive_move_rules() {
    // FIDE 9.3: 99 half-moves, one quiet move from a claim; a pawn move resets the count.
    let fen = "4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80";
    assert!(claims(Some(fen), "").is_empty());
    assert_eq!(claims(Some(fen), "Ra2"), ["fifty_moves"]);
    assert!(claims(Some(fen), "e4").is_empty());
    // FIDE 9.6.2: 149 half-moves, one quiet move from the automatic draw.
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 100";
    let (_, v) = analyze(Some(fen), "");
    assert_eq!(v["outcome"], Value::Null);
    assert_eq!(strings(&v["claimable"]), ["fifty_moves"]);
    assert_eq!(outcome(Some(fen), "Kf1"), "seventyfive_moves");
    // ... unless that move mates: checkmate takes precedence.
    assert_eq!(outcome(Some(fen), "Ra8#"), "checkmate");
}

#[test]
fn threefold_and_fivefold_repetition() {
    let cycle = "Nf3 Nf6 Ng1 Ng8";
    let times = |n: usize| vec![cycle; n].join(" ");
    // The start position again after one cycle (2 times), after two (3 times: claimable).
    assert!(claims(None, &times(1)).is_empty());
    assert_eq!(analyze(None, &times(1)).1["repetitions"], 2);
    assert_eq!(claims(None, &times(2)), ["threefold_repetition"]);
    // One move short of the third time.
    assert!(claims(None, &format!("{} Nf3 Nf6 Ng1", times(1))).is_empty());
    // Fourth time: still a claim; fifth time: drawn automatically (FIDE 9.6.1).
    assert_eq!(claims(None, &times(3)), ["threefold_repetition"]);
    assert_eq!(outcome(None, &times(3)), Value::Null);
    assert_eq!(
        outcome(None, &format!("{} Nf3 Nf6 Ng1", times(3))),
        Value::Null
    );
    assert_eq!(outcome(None, &times(4)), "fivefold_repetition");
    // FIDE 9.2.3: the same pieces on the same squares but lost castling rights is not the same position.
    let (_, v) = analyze(None, "Nf3 Nf6 Rg1 Rg8 Rh1 Rh8 Ng1 Ng8");
    assert_eq!(v["repetitions"], 1);
    // ... nor is a position with an en-passant capture possible the same as one without.
    let (_, v) = analyze(
        Some("4k3/8/8/8/3p4/8/4P3/4K2N w - - 0 1"),
        "e4 Ke7 Ng3 Ke8 Nh1 Ke7 Ng3 Ke8 Nh1",
    );
    // After e4 (e.p. possible) and after each Nh1 (not): the latter twice.
    assert_eq!(v["repetitions"], 2);
}

#[test]
fn check_checkers_and_pins() {
    // Double check by bishop and rook.
    let (_, v) = analyze(Some("4k3/8/8/8/1b6/8/4r3/4K3 w - - 0 1"), "");
    assert_eq!(v["in_check"], true);
    assert_eq!(
        strings(&v["checkers"]),
        ["e2", "b4"],
        "squares in a1..h8 order"
    );
    // Pinned: the side to move's pieces standing alone between their king and an enemy slider on that line.
    let (_, v) = analyze(Some("b3k3/4r3/8/8/8/8/4N3/4K1B1 w - - 0 1"), "");
    assert_eq!(strings(&v["pinned"]), ["e2"]);
    assert_eq!(v["in_check"], false);
    let (_, v) = analyze(Some("4k3/8/8/8/1q6/8/3B4/4K2r w - - 0 1"), "");
    assert_eq!(strings(&v["pinned"]), ["d2"]);
    assert_eq!(strings(&v["checkers"]), ["h1"]);
}

#[test]
fn validity_errors_and_warnings() {
    let (code, v) = analyze(Some("8/8/8/8/8/8/8/4K3 w - - 0 1"), "");
    assert_eq!(code, 1);
    assert_eq!(v["valid"], false);
    assert!(strings(&v["errors"])[0].starts_with("missing_king"));
    // Impossible but playable: ten queens.
    let (code, v) = analyze(
        Some("4k3/pppppppp/8/8/8/QQQQQQQQ/PPPPPPPP/QQ2K3 w - - 0 1"),
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(v["valid"], true);
    assert!(strings(&v["warnings"])[0].starts_with("too_much_material"));
    // An illegal move in --moves: exit 2, naming the move.
    let out = Command::new(BIN)
        .args(["analyze", "--moves", "e4 e5 Ke3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("move 3 'Ke3'"), "{err}");
}

#[test]
fn text_output() {
    let out = Command::new(BIN)
        .args(["analyze", "--moves", "f3 e5 g4 Qh4"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("outcome:      checkmate"), "{text}");
    assert!(text.contains("in check:     yes, by h4"), "{text}");
}
