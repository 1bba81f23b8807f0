//! Reachability (issue 19, FIDE 3.10.3): impossibility proofs (retro-analysis) and proof games.
//!
//! - each kind of proof on positions this project constructs (tests/data/reachability.txt, with the reason
//!   each is impossible), and their reachable twins, given by games replayed here;
//! - soundness, a seeded property test: positions from random legal games rich in captures, promotions
//!   (underpromotions included), e.p. and castling kept late, standard and Chess960: none is called
//!   impossible (`PERFTLAB_REACH_GAMES` sets the number of games; the default keeps CI to seconds);
//! - power: positions constructed impossible by counting arguments (the test's own count says why): at
//!   least 95 % are proved impossible;
//! - proof games for positions after random games of at most 10 plies: found, no longer than the game played,
//!   and replayed by the reference generator;
//! - the `reachable` command's text, JSON lines and exit codes.

mod common;

use common::{data, perftlab, temp_file};
use perftlab::compare::random::Rng;
use perftlab::line::play_line;
use perftlab::position::Setup;
use perftlab::proofgame::plan::CapturePlan;
use perftlab::proofgame::{self, Limits, SearchResult};
use perftlab::reference;
use perftlab::retro::{self, ProofKind, RetroOptions};
use perftlab::types::{Color, Move, MoveKind, Piece, Role, Square};
use perftlab::validate;
use perftlab::Checked;

fn standard(plies: u32) -> RetroOptions {
    RetroOptions {
        plies,
        chess960: false,
    }
}

/// The position after `moves` (SAN or UCI, space separated) from the initial position.
fn after(moves: &str) -> Setup {
    let moves: Vec<String> = moves.split_whitespace().map(str::to_string).collect();
    play_line(&Checked::startpos(), &moves)
        .expect("a legal game")
        .end()
        .setup()
        .clone()
}

enum Row {
    Impossible { kind: String, fen: String },
    Reachable { moves: String },
}

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(data("reachability.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').collect();
            match f[0] {
                "impossible" => Row::Impossible {
                    kind: f[1].to_string(),
                    fen: f[2].to_string(),
                },
                "reachable" => Row::Reachable {
                    moves: f[1].to_string(),
                },
                other => panic!("bad row kind {other}"),
            }
        })
        .collect()
}

#[test]
fn each_kind_of_proof_and_its_reachable_twin() {
    let mut kinds = std::collections::BTreeSet::new();
    for row in rows() {
        match row {
            Row::Impossible { kind, fen } => {
                let setup = Setup::from_fen(&fen).unwrap();
                assert!(validate::check(&setup).is_ok(), "{fen} has validity errors");
                let proof = retro::prove_impossible(&setup, standard(2))
                    .unwrap_or_else(|| panic!("{fen}: not proved impossible"));
                assert_eq!(proof.kind.name(), kind, "{fen}: {proof}");
                assert!(proof.sentence.len() > 40, "{fen}: a sentence, not a word");
                // Chess960 rules prove it too (the arguments hold for every start).
                let p960 = retro::prove_impossible(
                    &setup,
                    RetroOptions {
                        plies: 2,
                        chess960: true,
                    },
                );
                assert!(p960.is_some(), "{fen}: not proved under Chess960 rules");
                kinds.insert(kind);
            }
            Row::Reachable { moves } => {
                let setup = after(&moves);
                let fen = setup.to_fen();
                assert!(
                    retro::prove_impossible(&setup, standard(3)).is_none(),
                    "{fen} (after {moves}) called impossible"
                );
                assert!(
                    validate::check(&setup).warnings.is_empty(),
                    "{fen}: {:?}",
                    validate::check(&setup).warnings
                );
                // And the proof-game search finds a game no longer than the one given.
                let n = moves.split_whitespace().count() as u32;
                let r = proofgame::search(
                    &proofgame::starts_for(&setup, false),
                    &setup,
                    Limits {
                        max_plies: n,
                        max_nodes: 50_000_000,
                    },
                );
                let SearchResult::Found(g) = r else {
                    panic!("{fen}: no game found: {r:?}")
                };
                assert!(g.moves.len() as u32 <= n);
                let end = proofgame::replay(&g.start, &g.moves).expect("legal");
                assert!(proofgame::matches(end.last().unwrap(), &setup));
            }
        }
    }
    for k in [
        ProofKind::Material,
        ProofKind::BishopColours,
        ProofKind::PawnCaptures,
        ProofKind::Retraction,
    ] {
        assert!(kinds.contains(k.name()), "no test row for {}", k.name());
    }
}

/// What a random game played (for the report of the soundness test).
#[derive(Default, Debug)]
struct Played {
    captures: u64,
    promotions: u64,
    underpromotions: u64,
    en_passant: u64,
    castling: u64,
}

/// A random legal game's positions, with moves drawn to favour captures, promotions (all four pieces),
/// e.p. and castling, and to keep castling rights late (king and rook moves other than castling are rare).
fn random_game(rng: &mut Rng, start: Setup, plies: u32) -> Vec<Setup> {
    random_game_counted(rng, start, plies, &mut Played::default())
}

fn random_game_counted(rng: &mut Rng, start: Setup, plies: u32, played: &mut Played) -> Vec<Setup> {
    let mut pos = start;
    let mut out = vec![pos.clone()];
    for _ in 0..plies {
        let legal = reference::legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        let weight = |m: &Move| -> u64 {
            let moving = pos.piece_at(m.from()).unwrap();
            match m.kind() {
                MoveKind::Castling | MoveKind::EnPassant => 60,
                MoveKind::Promotion => 30,
                MoveKind::Normal if pos.piece_at(m.to()).is_some() => 12,
                MoveKind::Normal if moving.role == Role::Pawn => 6,
                MoveKind::Normal if matches!(moving.role, Role::King | Role::Rook) => 1,
                MoveKind::Normal => 3,
            }
        };
        let total: u64 = legal.iter().map(weight).sum();
        let mut pick = rng.below(total);
        let m = *legal
            .iter()
            .find(|m| {
                let w = weight(m);
                if pick < w {
                    true
                } else {
                    pick -= w;
                    false
                }
            })
            .unwrap();
        match m.kind() {
            MoveKind::Promotion => {
                played.promotions += 1;
                if m.promotion_role() != Some(Role::Queen) {
                    played.underpromotions += 1;
                }
            }
            MoveKind::EnPassant => played.en_passant += 1,
            MoveKind::Castling => played.castling += 1,
            MoveKind::Normal => {}
        }
        if m.kind() == MoveKind::EnPassant
            || (m.kind() != MoveKind::Castling && pos.piece_at(m.to()).is_some())
        {
            played.captures += 1;
        }
        pos = reference::play(&pos, m);
        out.push(pos.clone());
    }
    out
}

fn env_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn positions_from_random_games_are_never_called_impossible() {
    let games = env_count("PERFTLAB_REACH_GAMES", 24);
    let mut rng = Rng::new(19);
    let starts960 = proofgame::chess960_starts();
    let mut checked = 0u64;
    let mut played = Played::default();
    for g in 0..games {
        let chess960 = g % 3 == 2;
        let start = if chess960 {
            starts960[rng.below(960) as usize].clone()
        } else {
            Setup::startpos()
        };
        for (i, pos) in random_game_counted(&mut rng, start, 160, &mut played)
            .iter()
            .enumerate()
        {
            // Retraction of two plies on every fourth position, one ply on the others.
            let plies = if i % 4 == 0 { 2 } else { 1 };
            let opts = RetroOptions { plies, chess960 };
            if let Some(p) = retro::prove_impossible(pos, opts) {
                panic!("game {g} ply {i}: {} called impossible: {p}", pos.to_fen());
            }
            let v = validate::check(pos);
            assert!(
                !v.warnings
                    .iter()
                    .any(|w| matches!(w, validate::ValidityWarning::Impossible(_))),
                "{}: {:?}",
                pos.to_fen(),
                v.warnings
            );
            checked += 1;
        }
    }
    eprintln!("{checked} positions from {games} random games checked, none called impossible; the games played {played:?}");
    assert!(
        played.promotions > 0
            && played.underpromotions > 0
            && played.en_passant > 0
            && played.castling > 0
    );
    assert!(checked > 1000 || games < 24);
}

/// Place `piece` on a random empty square of ranks 2-7.
fn place(rng: &mut Rng, pos: &mut Setup, piece: Piece) -> bool {
    for _ in 0..64 {
        let sq = Square::new((8 + rng.below(48)) as u8);
        if pos.piece_at(sq).is_none() {
            pos.board[sq.index()] = Some(piece);
            return true;
        }
    }
    false
}

fn count(pos: &Setup, c: Color, role: Role) -> usize {
    Square::all()
        .filter(|&s| pos.piece_at(s) == Some(Piece::new(c, role)))
        .count()
}

#[test]
fn at_least_95_percent_of_constructed_impossible_positions_are_proved() {
    let mut rng = Rng::new(1903);
    let (mut made, mut proved) = (0u64, 0u64);
    let mut failures = Vec::new();
    while made < 600 {
        let plies = 1 + rng.below(60) as u32;
        let game = random_game(&mut rng, Setup::startpos(), plies);
        let mut pos = game.last().unwrap().clone();
        let c = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let pawns = count(&pos, c, Role::Pawn);
        match made % 3 {
            // Material: knights beyond two, more than the missing pawns can have become.
            0 => {
                // Knights beyond two are promoted pawns: one more of them than pawns are missing.
                let wanted = 2 + (8 - pawns) + 1;
                let mut ok = true;
                while ok && count(&pos, c, Role::Knight) < wanted {
                    ok = place(&mut rng, &mut pos, Piece::new(c, Role::Knight));
                }
                if !ok || count(&pos, c, Role::Knight) - 2 <= 8 - pawns {
                    continue;
                }
            }
            // Doubled pawns while the opponent has lost nothing: no capture was made, every pawn is on its
            // own file.
            1 => {
                let them = !c;
                let their_units = Square::all()
                    .filter(|&s| pos.piece_at(s).is_some_and(|p| p.color == them))
                    .count();
                if their_units != 16 {
                    continue;
                }
                let pawn_sqs: Vec<Square> = Square::all()
                    .filter(|&s| pos.piece_at(s) == Some(Piece::new(c, Role::Pawn)))
                    .collect();
                let Some(&p) = pawn_sqs.get(rng.below(pawn_sqs.len().max(1) as u64) as usize)
                else {
                    continue;
                };
                let file = (p.file() as i32 + if rng.below(2) == 0 { 1 } else { -1 }).clamp(0, 7);
                let mut moved = false;
                for r in 2..6 {
                    let to = Square::from_coords(file, r).unwrap();
                    if pos.piece_at(to).is_none() && to.file() != p.file() {
                        pos.board[to.index()] = pos.board[p.index()].take();
                        moved = true;
                        break;
                    }
                }
                let files: Vec<u8> = Square::all()
                    .filter(|&s| pos.piece_at(s) == Some(Piece::new(c, Role::Pawn)))
                    .map(|s| s.file())
                    .collect();
                let mut uniq = files.clone();
                uniq.sort();
                uniq.dedup();
                if !moved || uniq.len() == files.len() {
                    continue;
                }
            }
            // A second bishop on a square colour beside eight pawns.
            _ => {
                if pawns != 8 {
                    continue;
                }
                let Some(b) =
                    Square::all().find(|&s| pos.piece_at(s) == Some(Piece::new(c, Role::Bishop)))
                else {
                    continue;
                };
                let shade = (b.file() + b.rank()) % 2;
                let free: Vec<Square> = Square::all()
                    .filter(|&s| {
                        (2..6).contains(&s.rank())
                            && (s.file() + s.rank()) % 2 == shade
                            && pos.piece_at(s).is_none()
                    })
                    .collect();
                if free.is_empty() {
                    continue;
                }
                let s = free[rng.below(free.len() as u64) as usize];
                pos.board[s.index()] = Some(Piece::new(c, Role::Bishop));
            }
        }
        pos.ep_square = None;
        if !validate::check(&pos).is_ok() {
            continue;
        }
        made += 1;
        if retro::prove_impossible(&pos, standard(1)).is_some() {
            proved += 1;
        } else {
            failures.push(pos.to_fen());
        }
    }
    let share = proved as f64 / made as f64;
    eprintln!(
        "{proved} of {made} constructed impossible positions proved impossible ({:.1} %)",
        100.0 * share
    );
    assert!(
        share >= 0.95,
        "not proved: {:?}",
        &failures[..failures.len().min(10)]
    );
}

#[test]
fn proof_games_after_random_games_of_at_most_10_plies() {
    let n = env_count("PERFTLAB_REACH_PROOF_GAMES", 12);
    let mut rng = Rng::new(10);
    for i in 0..n {
        let plies = 1 + rng.below(10) as u32;
        let game = random_game(&mut rng, Setup::startpos(), plies);
        let target = game.last().unwrap();
        let played = game.len() as u32 - 1;
        let r = proofgame::search(
            &[Setup::startpos()],
            target,
            Limits {
                max_plies: played,
                max_nodes: 100_000_000,
            },
        );
        let SearchResult::Found(g) = r else {
            panic!("game {i}: {}: {r:?}", target.to_fen())
        };
        assert!(g.moves.len() as u32 <= played);
        assert_eq!((played - g.moves.len() as u32) % 2, 0, "same side to move");
        let end = proofgame::replay(&g.start, &g.moves).expect("legal");
        assert!(proofgame::matches(end.last().unwrap(), target));
    }
}

/// The default verdict (short games exactly, then the fast search) with a node budget instead of a clock, so
/// that the outcome does not depend on the machine's speed.
fn decide_by_nodes(target: &Setup, max_nodes: u64) -> proofgame::Verdict {
    proofgame::decide(
        target,
        &proofgame::DecideOptions {
            limits: Limits {
                max_plies: 10,
                max_nodes,
            },
            retro_plies: 2,
            chess960: false,
            from: None,
            shortest: false,
            time_limit: std::time::Duration::from_secs(3600),
        },
    )
}

/// A uniformly random legal game (every legal move equally likely) of at most `plies` plies.
fn uniform_game(rng: &mut Rng, plies: u32) -> Setup {
    let mut pos = Setup::startpos();
    for _ in 0..plies {
        let legal = reference::legal_moves(&pos);
        if legal.is_empty() {
            break;
        }
        pos = reference::play(&pos, legal[rng.below(legal.len() as u64) as usize]);
    }
    pos
}

#[test]
fn long_games_are_found_by_the_fast_search_and_replayed() {
    // Positions after random games of 20 to 120 plies (capture-weighted, and uniform): legal by construction.
    // The default search (node budget, not clock) never says impossible, every game replays to the exact
    // target, and at least three in four are found.
    let n = env_count("PERFTLAB_REACH_LONG_GAMES", 8);
    let mut rng = Rng::new(32);
    let mut missed = Vec::new();
    for i in 0..n {
        let plies = 20 + rng.below(101) as u32;
        let target = if i % 2 == 0 {
            random_game(&mut rng, Setup::startpos(), plies)
                .pop()
                .unwrap()
        } else {
            uniform_game(&mut rng, plies)
        };
        match decide_by_nodes(&target, 300_000) {
            proofgame::Verdict::Reachable(g) => {
                let end = proofgame::replay(&g.start, &g.moves).expect("legal");
                assert!(
                    proofgame::matches(end.last().unwrap(), &target),
                    "{}",
                    target.to_fen()
                );
            }
            proofgame::Verdict::Impossible(p) => {
                panic!("{}: called impossible: {p}", target.to_fen())
            }
            proofgame::Verdict::Undetermined(r) => missed.push(format!("{}: {r}", target.to_fen())),
        }
    }
    eprintln!("long games: {} of {n} found", n as usize - missed.len());
    // The target is a game for each; today's guide misses some capture-heavy random games (the
    // 8-game default finds 7), so this checks the fraction while the checks above stay absolute.
    assert!(
        missed.len() * 4 <= n as usize,
        "{} of {n} not found: {missed:#?}",
        missed.len()
    );
}

/// The fraction (in tenths) of set (a)-style positions found at the test's seed and node budget, less a
/// margin (measured at seed 7, 6 games, 200,000 nodes: 11 of 12 found; 8 tenths allows two misses).
const FOUND_TENTHS: usize = 8;

/// Set (a) of the benchmarks: positions of random games with uniform legal moves and a 1 % chance of
/// stopping after each ply (so promotions and odd pawn structures come up): each game's final position and
/// one intermediate one drawn uniformly, every one legal by construction.
fn random_stop_positions(seed: u64, games: u64) -> Vec<Setup> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut line = vec![Setup::startpos()];
        loop {
            let pos = line.last().unwrap();
            let legal = reference::legal_moves(pos);
            if legal.is_empty() || line.len() > 600 {
                break;
            }
            let next = reference::play(pos, legal[rng.below(legal.len() as u64) as usize]);
            line.push(next);
            if rng.below(100) == 0 {
                break;
            }
        }
        let mid = rng.below(line.len() as u64) as usize;
        out.push(line[mid].clone());
        out.push(line.pop().unwrap());
    }
    out
}

#[test]
fn random_stop_games_are_never_impossible_and_mostly_found() {
    // PERFTLAB_WRITE_RANDOM_SET=FILE writes the set (seed 650, 50 games: 100 positions) for
    // benches/reachable-fast.py, and skips the search.
    if let Ok(path) = std::env::var("PERFTLAB_WRITE_RANDOM_SET") {
        let text: String = random_stop_positions(650, 50)
            .iter()
            .map(|p| p.to_fen() + "\n")
            .collect();
        std::fs::write(path, text).unwrap();
        return;
    }
    // A node budget, not a clock: the outcome does not depend on the machine.
    let n = env_count("PERFTLAB_REACH_STOP_GAMES", 6);
    let positions = random_stop_positions(7, n);
    let mut found = 0;
    for target in &positions {
        match decide_by_nodes(target, 200_000) {
            proofgame::Verdict::Reachable(g) => {
                let end = proofgame::replay(&g.start, &g.moves).expect("legal");
                assert!(
                    proofgame::matches(end.last().unwrap(), target),
                    "{}",
                    target.to_fen()
                );
                found += 1;
            }
            proofgame::Verdict::Impossible(p) => {
                panic!("{}: called impossible: {p}", target.to_fen())
            }
            proofgame::Verdict::Undetermined(_) => {}
        }
    }
    eprintln!(
        "random-stop games: {found} of {} positions found",
        positions.len()
    );
    assert!(
        found * 10 >= positions.len() * FOUND_TENTHS,
        "{found} of {}",
        positions.len()
    );
}

#[test]
fn chess960_start_from_castling_rights() {
    // A Chess960 start (rooks b1/g1, king e1...), one move each: the search picks the start from the rights.
    let starts = proofgame::chess960_starts();
    let start = starts
        .iter()
        .find(|s| s.to_fen().starts_with("nrbbqkrn/") || s.to_fen().starts_with("nrbbkqrn/"))
        .unwrap_or(&starts[7])
        .clone();
    let mut game = vec![start.clone()];
    for uci in ["b2b3", "g7g6"] {
        let cur = game.last().unwrap();
        let m = Move::find_uci(&reference::legal_moves(cur), uci).unwrap();
        game.push(reference::play(cur, m));
    }
    let target = game.last().unwrap();
    let v = proofgame::decide(
        target,
        &proofgame::DecideOptions {
            limits: Limits {
                max_plies: 4,
                max_nodes: 10_000_000,
            },
            retro_plies: 2,
            chess960: true,
            from: None,
            shortest: true,
            time_limit: std::time::Duration::from_secs(5),
        },
    );
    let proofgame::Verdict::Reachable(g) = v else {
        panic!("{v:?}")
    };
    assert_eq!(g.start.board, start.board);
    assert_eq!(g.moves.len(), 2);
}

#[test]
fn analyze_and_suite_show_the_verdict() {
    let run = |args: &[&str]| {
        let out = perftlab().args(args).output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, _) = run(&["analyze", "--moves", "e4", "e5", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["reachability"]["result"], "reachable");
    assert_eq!(
        v["reachability"]["game"],
        serde_json::json!(["e2e4", "e7e5"])
    );
    let impossible = "rnbqkbnr/pppppppp/8/5P2/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2";
    let (_, out, _) = run(&["analyze", "--fen", impossible, "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["reachability"]["result"], "impossible");
    assert!(v["reachability"]["proof"]
        .as_str()
        .unwrap()
        .contains("captures"));
    assert!(v["warnings"][0]
        .as_str()
        .unwrap()
        .starts_with("impossible_pawn_captures"));
    // A suite with one impossible entry: counted as usual, and warned about.
    let (_, nodes, _) = run(&[
        "perft",
        "--fen",
        impossible,
        "--depth",
        "1",
        "--backend",
        "reference",
    ]);
    let nodes = nodes
        .trim()
        .trim_start_matches("Nodes searched: ")
        .to_string();
    let suite = temp_file(
        "reach-suite.epd",
        &format!("{impossible} ;D1 {nodes}\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20\n"),
    );
    let (code, out, err) = run(&[
        "suite",
        suite.to_str().unwrap(),
        "--check-reachability",
        "--json",
        "--quiet",
        "--backend",
        "reference",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("impossible position"), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["passed"], 2);
    assert_eq!(v["impossible"].as_array().unwrap().len(), 1);
    assert_eq!(v["impossible"][0]["line"], 1);
}

#[test]
fn reachable_command_text_json_and_exit_codes() {
    let run = |args: &[&str]| {
        let out = perftlab().args(args).output().unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let (code, out, _) = run(&["reachable", "--fen", fen]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("result: reachable"), "{out}");
    assert!(out.contains("uci:    e2e4 e7e5"), "{out}");
    assert!(out.contains("san:    1. e4 e5"), "{out}");
    let impossible = "rnbqkbnr/pppppppp/8/5P2/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2";
    let (code, out, _) = run(&["reachable", "--fen", impossible]);
    assert_eq!(code, 1);
    assert!(out.contains("result: impossible"), "{out}");
    // Batch, JSON lines, input order, a bad line answered as invalid (exit 2).
    let file = temp_file(
        "reach.txt",
        &format!("{impossible}\n# comment\n{fen} ;D1 20\nnot a fen\n"),
    );
    let (code, out, _) = run(&[
        "reachable",
        file.to_str().unwrap(),
        "--json",
        "--max-plies",
        "4",
    ]);
    assert_eq!(code, 2, "{out}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["result"], "impossible");
    assert_eq!(lines[0]["method"], "static");
    assert_eq!(lines[1]["method"], "search");
    assert_eq!(lines[2]["method"], serde_json::Value::Null);
    assert!(lines[0]["proof"]
        .as_str()
        .unwrap()
        .starts_with("impossible_pawn_captures"));
    assert_eq!(lines[1]["result"], "reachable");
    assert_eq!(lines[1]["game"], serde_json::json!(["e2e4", "e7e5"]));
    assert_eq!(lines[2]["result"], "invalid");
    // The same file on two threads: the same answers, in input order (a game found by the node-bounded
    // searches does not depend on the thread that finds it).
    let (code2, out2, _) = run(&[
        "reachable",
        file.to_str().unwrap(),
        "--json",
        "--max-plies",
        "4",
        "--threads",
        "2",
    ]);
    assert_eq!((code2, &out2), (code, &out));
    // Retraction (tests/data/reachability.txt's row, the rook on e8 behind its knights): `retraction`.
    let caged = "k2NrN2/8/8/8/8/8/8/4K3 w - - 0 1";
    let (code, out, _) = run(&["reachable", "--fen", caged, "--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["method"], "retraction", "{out}");
    // A caged piece (tests/retro.rs's standard-chess case: a White bishop on a1, the c1 bishop shut in by the
    // unmoved b2 and d2 pawns, no pawn missing to have promoted): `kernel`.
    let bishop = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/BN1QKBNR w Kkq - 0 1";
    let (code, out, _) = run(&["reachable", "--fen", bishop, "--json"]);
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["method"], "kernel", "{out}");
    assert!(
        v["proof"].as_str().unwrap().contains("caged_pieces"),
        "{out}"
    );
    // No game within the bound is not a proof.
    let (code, out, _) = run(&[
        "reachable",
        "--fen",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "--max-plies",
        "2",
        "--shortest",
        "--json",
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("\"result\":\"undetermined\""), "{out}");
    // Usage errors name the flag.
    let (code, _, err) = run(&[
        "reachable",
        "--fen",
        "8/8/8/8/8/8/8/K6k w - -",
        "--time-limit",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--time-limit"), "{err}");
    let (code, _, err) = run(&["reachable"]);
    assert_eq!(code, 2);
    assert!(err.contains("--fen"), "{err}");
    let (code, _, err) = run(&["reachable", "--fen", "8/8/8/8 w - -"]);
    assert_eq!(code, 2);
    assert!(err.contains("--fen"), "{err}");
}

/// The rules a capture plan rests on (FIDE 3.7): each of the target's pawns has a distinct origin, a pawn of
/// its colour in the start; its planned captures step one file at a time from the origin's file to the
/// target's, each one rank forward of the last, on squares between the two; their number is the files it
/// changes; and a side's pawns plan no more captures than the other side has lost units (each capture takes
/// one, and the minimum-capture plan needs no more than the game played made).
fn check_plan(plan: &CapturePlan, start: &Setup, target: &Setup) {
    let fen = target.to_fen();
    for c in Color::ALL {
        let forward = |sq: Square| match c {
            Color::White => i32::from(sq.rank()),
            Color::Black => 7 - i32::from(sq.rank()),
        };
        let paths = &plan.paths[c.index()];
        assert_eq!(paths.len(), count(target, c, Role::Pawn), "{fen}");
        let mut origins: Vec<Square> = paths.iter().map(|p| p.origin).collect();
        origins.sort();
        origins.dedup();
        assert_eq!(origins.len(), paths.len(), "{fen}: distinct origins");
        for p in paths {
            assert_eq!(
                start.piece_at(p.origin),
                Some(Piece::new(c, Role::Pawn)),
                "{fen}"
            );
            assert_eq!(
                target.piece_at(p.target),
                Some(Piece::new(c, Role::Pawn)),
                "{fen}"
            );
            let files = (i32::from(p.origin.file()) - i32::from(p.target.file())).abs();
            assert_eq!(
                p.captures.len() as i32,
                files,
                "{fen}: one capture per file"
            );
            let (mut file, mut rank) = (i32::from(p.origin.file()), forward(p.origin));
            for q in &p.captures {
                assert_eq!(i32::from(q.from_file), file, "{fen}");
                assert_eq!((i32::from(q.square.file()) - file).abs(), 1, "{fen}");
                assert!(forward(q.square) > rank, "{fen}: forward");
                file = i32::from(q.square.file());
                rank = forward(q.square);
            }
            assert_eq!(file, i32::from(p.target.file()), "{fen}");
            assert!(rank <= forward(p.target), "{fen}");
        }
        let planned = plan.captures_by(c).count();
        let lost = 16
            - target
                .board
                .iter()
                .flatten()
                .filter(|p| p.color != c)
                .count();
        assert!(
            planned <= lost,
            "{fen}: {planned} captures planned, {lost} lost"
        );
    }
}

#[test]
fn capture_plans_are_realisable() {
    // Targets this test constructs by games (their replayed twins show them reachable): each plan keeps the
    // rules above, and the guided search, whose guide routes the units to be lost to the plan's squares,
    // finds a game (node budget, not clock), replayed to the exact target.
    // Each line with the captures its pawns need at least (White's, Black's): the files each target pawn
    // changed, with the cheapest origins.
    let lines = [
        // White's e-pawn takes on d5 and c6: from e2 (the other pawns stand on their files), 2 files.
        ("e4 d5 exd5 c6 dxc6 e5", 2, 0),
        // White's d-pawn to f6 (e2, f2 are still home: from d2, 2 files) and c-pawn to a6 (from c2, 2).
        ("d4 e5 dxe5 f6 exf6 Nc6 c4 b5 cxb5 a6 bxa6 Bb7", 4, 0),
        // Black's e-pawn takes twice and is taken on c3 by White's b-pawn (1 file).
        ("e4 e5 d4 exd4 Nc3 dxc3 bxc3 Nf6 Bc4 Nxe4", 1, 0),
        // Black's f-pawn takes a knight on e6 (e7's pawn is on e5: from f7, 1 file).
        ("e4 e5 Nf3 Nc6 Ng5 d6 Ne6 fxe6", 0, 1),
    ];
    for (line, white, black) in lines {
        let plan = CapturePlan::new(&Setup::startpos(), &after(line));
        let n = |c| plan.captures_by(c).count();
        assert_eq!((n(Color::White), n(Color::Black)), (white, black), "{line}");
    }
    let mut targets: Vec<Setup> = lines.iter().map(|l| after(l.0)).collect();
    // Positions of seeded capture-weighted random games of 16 to 40 plies.
    let mut rng = Rng::new(3210);
    for _ in 0..env_count("PERFTLAB_PLAN_GAMES", 6) {
        let plies = 16 + rng.below(25) as u32;
        targets.push(
            random_game(&mut rng, Setup::startpos(), plies)
                .pop()
                .unwrap(),
        );
    }
    for target in &targets {
        let plan = CapturePlan::new(&Setup::startpos(), target);
        check_plan(&plan, &Setup::startpos(), target);
        match decide_by_nodes(target, 300_000) {
            proofgame::Verdict::Reachable(g) => {
                let end = proofgame::replay(&g.start, &g.moves).expect("legal");
                assert!(proofgame::matches(end.last().unwrap(), target));
            }
            other => panic!("{}: {other:?}", target.to_fen()),
        }
    }
}

#[test]
fn a_lichess_position_with_piece_captures_is_found() {
    // CHA-Solver's tests/lichess.txt (MIT), line 63713: the final position of a real Lichess game, legal by
    // construction. White has lost 12 units, Black 10, most of them taken by pieces. Before the capturers'
    // detours and deferred evaluation (commit ded21e3) the default search missed it at 200,000 positions
    // expanded (and at the 5 s limit); the portfolio's second search now finds it.
    let target = Setup::from_fen("3k4/p2P2pp/1p6/4PKr1/3R4/8/8/8 w - - 1 47").unwrap();
    match decide_by_nodes(&target, 200_000) {
        proofgame::Verdict::Reachable(g) => {
            let end = proofgame::replay(&g.start, &g.moves).expect("legal");
            assert!(proofgame::matches(end.last().unwrap(), &target));
        }
        other => panic!("not found: {other:?}"),
    }
}

#[test]
fn a_lichess_position_with_a_castled_king_is_found() {
    // CHA-Solver's tests/lichess.txt (MIT), line 38688: the final position of a real Lichess game, legal by
    // construction, the Black king castled on g8 beside its rook on f8. The default search of commit 9bf0904
    // missed it at 100,000 positions expanded: its guide counted the king walking to g8 while the rook still
    // stood on h8 behind the h7 pawn as one move from the target, and searched around such positions. The guide
    // now charges a piece boxed in by its own units on their target squares two moves (one of them must step
    // away and back).
    let target = Setup::from_fen("5rk1/5ppp/p5q1/3p4/3P1P1Q/P5N1/1P3P1P/2R3K1 b - - 0 27").unwrap();
    match decide_by_nodes(&target, 100_000) {
        proofgame::Verdict::Reachable(g) => {
            let end = proofgame::replay(&g.start, &g.moves).expect("legal");
            assert!(proofgame::matches(end.last().unwrap(), &target));
        }
        other => panic!("not found: {other:?}"),
    }
}

/// Decides `fen` at the defaults but a 30 s limit and a 1,000,000-node budget (issue 32's held-out positions)
/// and checks that a game is found and replays to it.
fn assert_shown_within_30_s(fen: &str) {
    let target = Setup::from_fen(fen).unwrap();
    let v = proofgame::decide(
        &target,
        &proofgame::DecideOptions {
            limits: Limits {
                max_plies: 10,
                max_nodes: 1_000_000,
            },
            retro_plies: 2,
            chess960: false,
            from: None,
            shortest: false,
            time_limit: std::time::Duration::from_secs(30),
        },
    );
    match v {
        proofgame::Verdict::Reachable(g) => {
            let end = proofgame::replay(&g.start, &g.moves).expect("legal");
            assert!(proofgame::matches(end.last().unwrap(), &target), "{fen}");
        }
        other => panic!("{fen}: not found: {other:?}"),
    }
}

#[test]
fn hard_position_9_is_found_through_a_chain_of_pawn_captures_of_pieces() {
    // Issue 32's held-out set (tests/data/hard-random-texel.txt), legal position 9 (Texel's game). Its kernel
    // has three pawn-takes-piece captures (`wPa0xpieceb2`, `wPg0xpieceh2`, `wPh0xpieceg1`): before the chain
    // of stages (session 58) the default search found no game at 5 s nor at 20 s. Found here in about 2 s
    // (quick profile, loaded machine); the limit leaves a wide margin.
    assert_shown_within_30_s("BNR2q2/3RQ1k1/1pb1q2n/6N1/1QB4P/1Pn1B1K1/q1nnb1N1/Q1Q4R b - - 0 1");
}

#[test]
fn hard_positions_7_and_8_are_found_by_the_pass_charging_settled_pieces() {
    // Issue 32's held-out set (tests/data/hard-random-texel.txt), legal positions 7 and 8 (Texel's games).
    // Before the first pass whose guide charges a piece settled ahead of a pawn to promote (session 59), the
    // default search found neither at 5 s (position 7 not at 20 s from the kernel's intermediate positions
    // either); with it, about 0.1 and 0.4 s each (release, quiet). The limit leaves a wide margin; the pass
    // gets a tenth of it.
    assert_shown_within_30_s("qQ5r/N5p1/1n1b4/1nBn1rBr/B2R1N2/5bkq/rp1NN3/3K1Qbb b - - 0 1");
    assert_shown_within_30_s("1nkNQ3/n1B1Q3/rbR4K/1r2p1pq/2Q1Nqp1/p1QQR3/p1B2b2/2R4b w - - 0 1");
}
