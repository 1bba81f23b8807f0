//! `perftlab proofgame` against an independent brute force: every game of N plies from the initial position
//! enumerated with the reference generator (positions merged per ply, pruned only by "each move of a side puts
//! a unit of that side on at most two squares"), counting the games that end on the diagram. The diagrams are
//! those of random games the test plays (so at least one solution exists), plus constructed insoluble ones.

use perftlab::position::Setup;
use perftlab::reference;
use perftlab::types::Color;
use std::collections::HashMap;
use std::process::Command;

/// Squares where the diagram has a unit of `c` that `pos` does not have there.
fn missing(pos: &Setup, diagram: &Setup, c: Color) -> u32 {
    (0..64)
        .filter(|&s| {
            diagram.board[s].is_some_and(|p| p.color == c) && pos.board[s] != diagram.board[s]
        })
        .count() as u32
}

/// The number of games of `plies` plies from the initial position ending on `diagram`'s placement and side to
/// move (castling rights and e.p. free).
fn brute(diagram: &Setup, plies: u32) -> u64 {
    let mut layer: HashMap<Setup, u64> = HashMap::from([(Setup::startpos(), 1)]);
    for done in 0..plies {
        let left = plies - done - 1;
        let mut next: HashMap<Setup, u64> = HashMap::new();
        for (pos, n) in &layer {
            for m in reference::legal_moves(pos) {
                let mut child = reference::play(pos, m);
                child.halfmoves = 0;
                child.fullmoves = 1;
                // A side to move next makes ceil(left / 2) of the plies left, the other floor.
                let mover = child.turn;
                let ok = [
                    (mover, left.div_ceil(2)),
                    (
                        if mover == Color::White {
                            Color::Black
                        } else {
                            Color::White
                        },
                        left / 2,
                    ),
                ]
                .iter()
                .all(|&(c, k)| missing(&child, diagram, c) <= 2 * k);
                if ok {
                    *next.entry(child).or_insert(0) += n;
                }
            }
        }
        layer = next;
    }
    layer
        .iter()
        .filter(|(p, _)| p.board == diagram.board && p.turn == diagram.turn)
        .map(|(_, n)| n)
        .sum()
}

fn run(diagram: &str, plies: u32) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_perftlab"))
        .args([
            "proofgame",
            diagram,
            "--plies",
            &plies.to_string(),
            "--json",
            "--max-solutions",
            "3",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.code() == Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

fn check(diagram: &Setup, plies: u32) -> u64 {
    let fen = diagram.to_fen();
    let placement = fen.split_whitespace().next().unwrap();
    let text = format!(
        "{placement} {}",
        if diagram.turn == Color::White {
            "w"
        } else {
            "b"
        }
    );
    let v = run(&text, plies);
    let expected = brute(diagram, plies);
    assert_eq!(
        v["count"].as_u64(),
        Some(expected),
        "{text} in {plies}: {v}"
    );
    let verdict = match expected {
        0 => "no_solution",
        1 => "unique",
        _ => "cooked",
    };
    assert_eq!(v["verdict"], verdict, "{v}");
    assert_eq!(
        v["solutions"].as_array().unwrap().len() as u64,
        expected.min(3)
    );
    expected
}

#[test]
fn random_games_agree_with_brute_force() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut counts = Vec::new();
    for plies in 1..=8u32 {
        for _ in 0..3 {
            let mut pos = Setup::startpos();
            for _ in 0..plies {
                let moves = reference::legal_moves(&pos);
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos = reference::play(&pos, moves[(seed % moves.len() as u64) as usize]);
            }
            let n = check(&pos, plies);
            assert!(n >= 1, "the random game itself is a solution");
            counts.push(n);
        }
    }
    assert!(
        counts.contains(&1) && counts.iter().any(|&n| n > 1),
        "{counts:?}"
    );
}

#[test]
fn insoluble_and_cooked_agree_with_brute_force() {
    // 1. e4 then Black to move after 3 plies: White cannot lose its extra tempo and Black cannot come back.
    let e4 = Setup::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1").unwrap();
    assert_eq!(check(&e4, 3), 0);
    // The initial diagram after 4 plies: a knight out and back for each side (16 games).
    assert_eq!(check(&Setup::startpos(), 4), 16);
    assert_eq!(check(&e4, 5), brute(&e4, 5));
}

#[test]
fn bad_input_exits_2() {
    for args in [
        vec![
            "proofgame",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX",
            "--plies",
            "2",
        ],
        vec![
            "proofgame",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x",
            "--plies",
            "2",
        ],
        vec!["proofgame", "/nonexistent/problems.txt"],
        vec![
            "proofgame",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            "--plies",
            "2",
            "--ep",
            "e5",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_perftlab"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
