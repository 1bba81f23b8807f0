//! `perftlab::crosscheck` against two real third-party move generators, shakmaty and cozy-chess (each
//! adapter a few lines): both must be clean on the shared suites (data/) and on 10,000 random
//! reachable positions, standard and Chess960; a wrapper that drops underpromotions must be caught at the
//! exact position where one is legal.

use perftlab::crosscheck::{
    check_tree, stress, FailureKind, MoveGenerator, Options, Report, RootError, StressOptions,
};
use std::path::Path;

/// shakmaty (niklasf): FEN in, `Position::legal_moves`, UCI out in the mode asked for.
struct Shakmaty;

impl MoveGenerator for Shakmaty {
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String> {
        use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let fen: Fen = fen.parse().map_err(|e| format!("{e}"))?;
        // perftlab checks positions that are impossible but playable (FIDE 3.10.3 warnings) too.
        let pos: Chess = fen
            .into_position(mode)
            .or_else(|e| e.ignore_impossible_check().map_err(|e| e.to_string()))?;
        Ok(pos
            .legal_moves()
            .iter()
            .map(|m| m.to_uci(mode).to_string())
            .collect())
    }
}

/// cozy-chess (analog-hors): it reads Shredder-FEN castling for Chess960, so X-FEN letters are turned into
/// rook files first; its moves castle king-takes-rook, `display_uci_move` writes the standard form.
struct Cozy;

fn shredder(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let rows: Vec<&str> = fields[0].split('/').collect();
    let back_rank = |white: bool| -> Vec<char> {
        let row = if white { rows[7] } else { rows[0] };
        let mut squares = Vec::new();
        for c in row.chars() {
            match c.to_digit(10) {
                Some(n) => squares.extend(std::iter::repeat_n('.', n as usize)),
                None => squares.push(c),
            }
        }
        squares
    };
    let castling: String = fields[2]
        .chars()
        .map(|c| {
            let white = c.is_ascii_uppercase();
            let rank = back_rank(white);
            let (king, rook) = if white { ('K', 'R') } else { ('k', 'r') };
            let k = rank.iter().position(|&p| p == king).unwrap_or(4);
            let file = match c.to_ascii_lowercase() {
                'k' => (k..8).rev().find(|&f| rank[f] == rook),
                'q' => (0..k).find(|&f| rank[f] == rook),
                _ => return c,
            };
            let letter = (b'a' + file.unwrap_or(0) as u8) as char;
            if white {
                letter.to_ascii_uppercase()
            } else {
                letter
            }
        })
        .collect();
    let mut out: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
    out[2] = castling;
    out.join(" ")
}

impl MoveGenerator for Cozy {
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String> {
        use cozy_chess::Board;
        let board = if chess960 {
            Board::from_fen(&shredder(fen), true)
        } else {
            Board::from_fen(fen, false)
        }
        .map_err(|e| format!("{e:?}"))?;
        let mut out = Vec::new();
        board.generate_moves(|moves| {
            for m in moves {
                out.push(if chess960 {
                    m.to_string()
                } else {
                    cozy_chess::util::display_uci_move(&board, m).to_string()
                });
            }
            false
        });
        Ok(out)
    }
}

/// A generator that forgets underpromotions: the planted bug.
struct NoUnderpromotions<G>(G);

impl<G: MoveGenerator> MoveGenerator for NoUnderpromotions<G> {
    fn legal_moves(&mut self, fen: &str, chess960: bool) -> Result<Vec<String>, String> {
        let mut moves = self.0.legal_moves(fen, chess960)?;
        moves.retain(|m| m.len() == 4 || m.ends_with('q'));
        Ok(moves)
    }
}

/// A suite of the crate's `data/` folder (sources in `data/README.md`).
fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// Check every position of a suite file to `depth`. Roots the generator refuses to read (its error at the
/// root itself: some tricky.perft positions are outside what it accepts) are returned apart, so each test
/// can name exactly which ones it expects.
fn suite(
    g: &mut impl MoveGenerator,
    file: &str,
    depth: u32,
    chess960: bool,
) -> (Report, Vec<String>) {
    let mut total = Report::default();
    let mut refused = Vec::new();
    for e in perftlab::suite::load(&data(file)).expect("suite loads") {
        // The root as data; Chess960 notation is turned on by its castling rights where needed.
        let r = check_tree(g, &e.setup, &Options { depth, chess960 });
        total.nodes += r.nodes;
        total.positions += r.positions;
        for f in r.failures {
            if f.path.is_empty() && f.error.is_some() && f.missing.is_empty() {
                eprintln!("{file}: the generator refuses {}: {:?}", f.fen, f.error);
                refused.push(f.fen);
            } else {
                total.failures.push(f);
            }
        }
    }
    (total, refused)
}

fn assert_clean(name: &str, r: &Report, min_positions: usize) {
    assert!(r.is_ok(), "{name}:\n{r}");
    assert!(
        r.positions >= min_positions,
        "{name}: only {} positions",
        r.positions
    );
    eprintln!("{name}: {r}");
}

/// tricky.perft's position with 29 queens and bishops, which both libraries refuse (too much material).
const MANY_QUEENS: &str = "kBQQQQQQ/BR5Q/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1";

#[test]
fn shakmaty_is_clean_on_the_suites() {
    let g = &mut Shakmaty;
    let (r, refused) = suite(g, "standard.epd", 2, false);
    assert_clean("standard.epd", &r, 120);
    assert!(refused.is_empty());
    let (r, refused) = suite(g, "tricky.perft", 3, false);
    assert_clean("tricky.perft", &r, 20);
    assert_eq!(refused, [MANY_QUEENS]);
    let (r, refused) = suite(g, "chess960.epd", 2, true);
    assert_clean("chess960.epd", &r, 960);
    assert!(refused.is_empty());
}

#[test]
fn cozy_chess_is_clean_on_the_suites() {
    let g = &mut Cozy;
    let (r, refused) = suite(g, "standard.epd", 2, false);
    assert_clean("standard.epd", &r, 120);
    assert!(refused.is_empty());
    let (r, refused) = suite(g, "tricky.perft", 3, false);
    assert_clean("tricky.perft", &r, 20);
    // cozy-chess also refuses e.p. squares it judges invalid (a capture that evades a check, or one that
    // would expose the king).
    assert_eq!(
        refused,
        [
            "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
            "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
            "rnbqk1nr/bb3p1p/1q2r3/2pPp3/3P4/7P/1PP1NpPP/R1BQKBNR w KQkq c6 0 1",
            MANY_QUEENS
        ]
    );
    let (r, refused) = suite(g, "chess960.epd", 2, true);
    assert_clean("chess960.epd", &r, 960);
    assert!(refused.is_empty());
}

#[test]
fn both_are_clean_on_10000_random_positions() {
    for chess960 in [false, true] {
        let options = StressOptions {
            positions: 10_000,
            seed: 12,
            depth: 1,
            chess960,
            ..StressOptions::default()
        };
        let r = stress(&mut Shakmaty, &options);
        assert_clean(&format!("shakmaty chess960={chess960}"), &r, 10_000);
        let r = stress(&mut Cozy, &options);
        assert_clean(&format!("cozy-chess chess960={chess960}"), &r, 10_000);
    }
}

#[test]
fn dropped_underpromotions_are_caught_at_the_exact_position() {
    // Black moves first (a1a2 is the first move in UCI order), then White may promote on a8.
    let root = "8/P7/8/8/8/8/8/k6K b - - 0 1";
    let options = Options {
        depth: 3,
        ..Options::default()
    };
    for r in [
        check_tree(&mut NoUnderpromotions(Shakmaty), root, &options),
        check_tree(&mut NoUnderpromotions(Cozy), root, &options),
    ] {
        assert_eq!(r.failures.len(), 1, "{r}");
        let f = &r.failures[0];
        assert_eq!(f.path, ["a1a2"]);
        assert_eq!(f.fen, "8/P7/8/8/8/8/k7/7K w - - 1 2");
        assert_eq!(f.missing, ["a7a8b", "a7a8n", "a7a8r"]);
        assert!(f.extra.is_empty());
        assert_eq!(f.kinds, [FailureKind::Promotion]);
        let text = r.to_string();
        assert!(
            text.contains("missing: a7a8b a7a8n a7a8r") && text.contains("path:    a1a2"),
            "{text}"
        );
    }
    // On random positions, every failure is a position where an underpromotion is legal (by shakmaty's
    // own list) and names exactly those moves; positions without one pass.
    for chess960 in [false, true] {
        let options = StressOptions {
            positions: 2_000,
            seed: 5,
            depth: 2,
            chess960,
            ..StressOptions::default()
        };
        let r = stress(&mut NoUnderpromotions(Cozy), &options);
        assert!(!r.is_ok(), "some random trees reach a promotion");
        for f in &r.failures {
            let all = Shakmaty.legal_moves(&f.fen, chess960).unwrap();
            let mut under: Vec<String> = all
                .into_iter()
                .filter(|m| m.len() == 5 && !m.ends_with('q'))
                .collect();
            under.sort();
            assert_eq!(f.missing, under, "{f}");
            assert!(f.extra.is_empty() && f.error.is_none(), "{f}");
        }
    }
}

#[test]
fn a_bad_fen_is_a_failure_not_a_panic() {
    let r = check_tree(&mut Shakmaty, "not a fen", &Options::default());
    assert!(!r.is_ok());
    let f = &r.failures[0];
    assert!(f.error.as_deref().unwrap().contains("FEN"), "{f}");
    // The cause as data (the FEN parser's own error): the first word is no board of 8 ranks, and the
    // error names that field (not a later one that happens to be missing).
    assert!(
        matches!(
            &f.root_error,
            Some(RootError::Fen(perftlab::FenError::Invalid {
                field: perftlab::FenField::Board,
                text,
                ..
            })) if text == "not"
        ),
        "{:?}",
        f.root_error
    );
    // A field that is wrong: the field and its text.
    let r = check_tree(
        &mut Shakmaty,
        "8/8/8/8/8/8/8/4K2k w KX - 0 1",
        &Options::default(),
    );
    match &r.failures[0].root_error {
        Some(RootError::Fen(perftlab::FenError::Invalid { field, text, .. })) => {
            assert_eq!(
                (*field, text.as_str()),
                (perftlab::FenField::Castling, "KX")
            )
        }
        other => panic!("{other:?}"),
    }
    // An invalid position: every validity error, as data.
    let r = check_tree(
        &mut Shakmaty,
        "8/8/8/8/8/8/8/4K3 w - - 0 1",
        &Options::default(),
    );
    assert_eq!(
        r.failures[0].root_error,
        Some(RootError::Invalid(vec![
            perftlab::ValidityError::MissingKing(perftlab::types::Color::Black)
        ]))
    );
    assert_eq!(r.nodes, 0);
}

#[test]
fn a_root_is_a_setup_a_checked_position_or_either_fen_flavour() {
    // CPW "Perft Results" position 2 (Kiwipete) as text, Setup and Checked; and a Chess960 position with its
    // castling written as X-FEN (KQkq) and as Shredder-FEN (rook files): the same trees, node for node.
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let setup = perftlab::Setup::from_fen(kiwipete).unwrap();
    let checked = perftlab::Checked::from_fen(kiwipete).unwrap();
    let options = Options::default();
    let by_text = check_tree(&mut Cozy, kiwipete, &options);
    assert_clean("kiwipete as text", &by_text, 1);
    // 1 root + its 48 children (CPW: 48 moves at depth 1).
    assert_eq!(by_text.nodes, 1 + 48);
    for r in [
        check_tree(&mut Cozy, kiwipete.to_string(), &options),
        check_tree(&mut Cozy, &setup, &options),
        check_tree(&mut Cozy, setup.clone(), &options),
        check_tree(&mut Cozy, &checked, &options),
        check_tree(&mut Cozy, checked.clone(), &options),
    ] {
        assert_eq!(r, by_text);
    }
    let xfen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9";
    let shredder = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let deep = Options {
        depth: 3,
        ..Options::default()
    };
    // Chess960 notation is turned on by the root's castling rights (chess960: false here).
    let a = check_tree(&mut Shakmaty, xfen, &deep);
    let b = check_tree(&mut Shakmaty, shredder, &deep);
    assert_clean("chess960 X-FEN", &a, 1);
    assert_eq!(a, b);
}
