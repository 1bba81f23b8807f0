//! Dead positions (FIDE 1.5, 5.2.2, 6.9; issue 18): the proofs of unwinnability, each verdict confirmed by an
//! independent bounded exhaustive search or closure: the fortress over pawn configurations, the material rules,
//! the tempo argument, the reach proof and the kings' dance.

mod dead_common;

use dead_common::*;
use perftlab::analyze::dead::{self, Reason, Verdict};
use perftlab::reference::Mailbox;
use perftlab::types::Color;
use perftlab::Checked;

// ---------------------------------------------------------------------------------------------------------
// The fortress proof over pawn configurations (src/analyze/dead/saturate.rs): pawns that can still move a
// little before they lock.

/// `winner`'s verdict on `fen` must be `Unwinnable` by the fortress proof (and no mate within 4 plies, by the
/// independent exhaustive search); returns the number of pawn configurations and the reason's text.
fn fortress_proof(fen: &str, winner: Color) -> (u64, String) {
    let pos = Checked::from_fen(fen).unwrap();
    let d = dead::decide(&pos, winner, &limits(100_000)).unwrap();
    check_verdict(&pos, winner, &d.verdict, 4);
    match d.verdict {
        Verdict::Unwinnable {
            reason: reason @ Reason::Fortress { pawn_states, .. },
        } => (pawn_states, reason.to_string()),
        v => panic!("{fen}: {winner:?} decided {v:?}"),
    }
}

#[test]
fn fortress_pawns_that_advance_then_lock() {
    // The example of issue 18's brief (also one of CHA's test vectors): White's rank-2 pawns can only advance
    // to rank 4 and lock; each black king stays on rank 8 (rank 7 is held by Black's own pawns or attacked by
    // White's rank-6 pawns), where no white pawn can ever attack it (no promotion). Per file, the lower white
    // pawn stands on rank 2, 3 or 4 below the black pawn on rank 5, 4 or 3 (6 ways), or the black pawn was
    // taken by the white king and the white pawn stands on rank 2 to 5 (4 ways): 10 configurations a file,
    // 10^4 in all, none with a promotion.
    for winner in [Color::White, Color::Black] {
        let (states, text) = fortress_proof(
            "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1",
            winner,
        );
        assert_eq!(states, 10_000, "{text}");
        assert!(
            text.starts_with("fortress: the pawns can reach only 10000 configurations"),
            "{text}"
        );
        assert!(
            text.contains("kb8 reaches only a8 b8 c8 d8 e8 f8 g8 h8 while"),
            "{text}"
        );
    }
    // The same built on the b-, d-, f- and h-files (constructed here; the same count by the same argument).
    for winner in [Color::White, Color::Black] {
        let (states, text) = fortress_proof(
            "4k3/1p1p1p1p/1P1P1P1P/1p1p1p1p/8/8/1P1P1P1P/4K3 b - - 0 1",
            winner,
        );
        assert_eq!(states, 10_000, "{text}");
    }
    // A locked wall with bishops that can never break through (each runs on the colour of its own pawns), and
    // a white pawn behind it that can step once (a2-a3; a4 stops it): exactly two configurations.
    for winner in [Color::White, Color::Black] {
        let (states, text) =
            fortress_proof("3bk3/8/8/p1p1p1p1/P1P1P1P1/8/P7/4KB2 w - - 0 1", winner);
        assert_eq!(states, 2, "{text}");
    }
}

#[test]
fn fortress_with_pieces_that_can_never_move() {
    // Each knight is shut in by its own pawns (a4: b2 c3 c5 b6; a5: b3 c4 c6 b7) and no enemy piece can ever
    // reach it, so it stands there for good and guards those pawns: neither king can take one (FIDE 3.8.2), no
    // pawn can move, and White's two bishops both run on dark squares (CHA's test vectors label it unwinnable
    // for both sides; the proof is the fortress proof's, with sure pieces).
    let fen = "k7/1p6/1Pp5/n1P5/N1p5/1pP1B3/1P1B4/K7 w - - 0 1";
    for winner in [Color::White, Color::Black] {
        let (states, text) = fortress_proof(fen, winner);
        assert_eq!(states, 1, "{text}");
        assert!(text.contains("Na4 reaches only a4 while"), "{text}");
    }
}

#[test]
fn fortress_proof_fails_where_a_pawn_breaks_through() {
    // The locked wall with one more white pawn on b2: b2-b4 lets a5xb4 (or c5xb4) open the a- (or c-) file for
    // White, and Black's pawn then runs to b1: both sides can promote and mate. The fortress proof must fail (a
    // promotion is reachable), and the search finds both helpmates, replayed here by the reference generator.
    let fen = "4k3/8/8/p1p1p1p1/P1P1P1P1/8/1P6/4K3 w - - 0 1";
    let pos = Checked::from_fen(fen).unwrap();
    for winner in [Color::White, Color::Black] {
        let d = dead::decide(&pos, winner, &limits(2_000_000)).unwrap();
        match &d.verdict {
            Verdict::Winnable { helpmate } => assert_helpmate(&pos, winner, helpmate),
            v => panic!("{fen}: {winner:?} decided {v:?}"),
        }
    }
}

#[test]
fn analyze_svg_shades_a_fortress_whose_pawns_still_move() {
    // The example of fortress_pawns_that_advance_then_lock: Black can never mate, and White's pieces (its king)
    // can never reach rank 8, rank 7's empty squares (behind Black's rank-7 pawns, which never move) or rank 6's
    // (each attacked by two of those pawns): these 16 are shaded for White. The squares of the king's region now
    // (ranks 1 and 3, the empty squares of ranks 2, 4 and 5 that no black pawn attacks) are not.
    let svg = analyze_svg("1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1");
    let shaded = |sq: &str| shaded_for_white(&svg, sq);
    for file in "abcdefgh".chars() {
        assert!(shaded(&format!("{file}8")), "{file}8: {svg}");
    }
    for sq in ["b7", "d7", "f7", "h7", "b6", "d6", "f6", "h6"] {
        assert!(shaded(sq), "{sq}: {svg}");
    }
    for sq in [
        "a1", "e1", "h1", "b2", "h2", "a3", "d3", "h3", "a4", "g4", "b5", "h5",
    ] {
        assert!(!shaded(sq), "{sq}: {svg}");
    }
    let count = shaded_for_white_count(&svg);
    assert!((16..=20).contains(&count), "{count} shaded: {svg}");
}

#[test]
fn fortress_where_the_only_break_in_is_stalemate() {
    // White: Kh4, pawns f3 g2 h5; Black: Kf1, pawns f4 f5 g3 h6. No pawn can ever move (each is stopped by the
    // pawn in front, and no piece other than the kings exists to be captured), so only a king taking a pawn
    // could change anything. The white king has h3 and h4 only (g4, g5 attacked, g3 guarded by f4) and can never
    // take one. The black king can take g2 only while the white king is on h4 (never next to it on h3); then
    // White is to move with no legal move (h3 next to the black king, g3 guarded by f4 and the king, g4 and g5
    // attacked, h5 its own pawn, every pawn stopped), and not in check (no black piece but pawns and king):
    // stalemate, the game is over. So neither side can ever mate: a dead position (FIDE 1.5, 5.2.1).
    for fen in [
        "8/8/7p/5p1P/5p1K/5Pp1/6P1/5k2 b - - 0 1",
        "8/8/7p/5p1P/5p1K/5Pp1/6P1/5kb1 b - - 0 1",
    ] {
        let (states, text) = fortress_proof(fen, Color::White);
        assert_eq!(states, 1, "{text}");
    }
    let (states, text) = fortress_proof("8/8/7p/5p1P/5p1K/5Pp1/6P1/5k2 b - - 0 1", Color::Black);
    assert_eq!(states, 1, "{text}");
}

/// `fen`: White can never mate by the material rule whose text contains `rule` (the verdict), and a bounded
/// exhaustive cooperative search of 5 plies, independent of the rules, finds no mate either.
fn assert_material_rule(fen: &str, rule: &str) {
    let pos = Checked::from_fen(fen).unwrap();
    match dead::decide(&pos, Color::White, &limits(100_000))
        .unwrap()
        .verdict
    {
        Verdict::Unwinnable {
            reason: Reason::InsufficientMaterial(text),
        } => assert!(text.contains(rule), "{fen}: {text}"),
        v => panic!("{fen}: {v:?}"),
    }
    assert!(!dead::mate_within(&pos, Color::White, 5), "{fen}");
}

/// Rule 4 of the material rules (K+N against king and queens only, proved at `material_reason`): positions
/// where the knight already stands next to the mating squares, so a wrong rule would show a short mate.
#[test]
fn knight_against_queens_only_never_mates() {
    for fen in [
        "k7/q7/2K5/8/1N6/8/8/8 w - - 0 1",
        "k7/1q6/2K5/2N5/8/8/8/8 w - - 0 1",
    ] {
        assert_material_rule(fen, "only king and queens");
    }
}

/// Rule 5 of the material rules (bishops of one colour against king, rooks and queens, proved at
/// `material_reason`): the rooks stand where a wrong rule would show a short mate (Black's king in the corner,
/// the bishop one move from checking it).
#[test]
fn bishops_of_one_colour_against_rooks_and_queens_never_mate() {
    for fen in [
        "kr6/r7/2K5/8/8/7B/8/8 w - - 0 1",
        "k7/q7/1K6/8/8/7B/8/8 w - - 0 1",
    ] {
        assert_material_rule(fen, "rooks and queens can always block");
    }
}

// ---------------------------------------------------------------------------------------------------------
// The tempo argument (src/analyze/dead/tempo.rs): fortresses that hold only because the side that would be
// mated has nothing but king moves, so the winner would need a tempo it can never gain.

/// `winner`'s verdict on `fen` must be `Unwinnable` by the tempo argument, and the independent bounded
/// exhaustive search must find no mate within `plies`, and the closure of every reachable position (more than
/// 1,000, at most 100,000) must hold no mate of the loser; returns the reason's text.
fn tempo_proof(fen: &str, winner: Color, plies: u32) -> String {
    let pos = Checked::from_fen(fen).unwrap();
    let d = dead::decide(&pos, winner, &limits(100_000)).unwrap();
    check_verdict(&pos, winner, &d.verdict, plies);
    // The same verdict by exhaustion, independently: every reachable position, none a mate of the loser.
    let positions = no_mate_in_closure(fen, winner, 100_000);
    assert!(positions > 1_000, "{fen}: {positions}");
    match d.verdict {
        Verdict::Unwinnable {
            reason: reason @ Reason::Tempo { .. },
        } => reason.to_string(),
        v => panic!("{fen}: {winner:?} decided {v:?}"),
    }
}

/// Every position reachable from `fen` by legal moves, generated by the reference generator (independent of
/// `decide` and of the fast move generator), compared exactly (the FEN without its move counters): none may be a
/// checkmate of the side that is not `winner`, and there must be at most `cap` of them (the set closes).
/// Returns how many there are: a proof by exhaustion that `winner` can never mate.
fn no_mate_in_closure(fen: &str, winner: Color, cap: usize) -> usize {
    let key = |m: &Mailbox| {
        let fen = m.to_setup().to_fen();
        fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
    };
    let start = Mailbox::from_setup(Checked::from_fen(fen).unwrap().setup());
    let mut seen = std::collections::HashSet::from([key(&start)]);
    let mut queue = vec![start];
    while let Some(cur) = queue.pop() {
        let moves = cur.legal_moves();
        assert!(
            !(moves.is_empty() && cur.in_check() && cur.turn() != winner),
            "{fen}: {} is a checkmate of the loser",
            key(&cur)
        );
        for m in moves {
            let next = cur.play(m);
            if seen.insert(key(&next)) {
                assert!(seen.len() <= cap, "{fen}: more than {cap} positions");
                queue.push(next);
            }
        }
    }
    seen.len()
}

/// `winner` can mate in `fen`: a mate within `plies` by the independent exhaustive search, and `decide` finds a
/// helpmate that the reference generator replays to checkmate (it must never call the position unwinnable).
fn assert_winnable_twin(fen: &str, winner: Color, plies: Option<u32>) {
    let pos = Checked::from_fen(fen).unwrap();
    if let Some(plies) = plies {
        assert!(dead::mate_within(&pos, winner, plies), "{fen}");
    }
    match dead::decide(&pos, winner, &limits(500_000))
        .unwrap()
        .verdict
    {
        Verdict::Winnable { helpmate } => assert_helpmate(&pos, winner, &helpmate),
        v => panic!("{fen}: {winner:?} decided {v:?}"),
    }
}

#[test]
fn fortress_held_by_tempo_for_black() {
    // White: Kh3, pawns f3 g2 h5; Black: Kg1, Bc5, pawns f4 f5 g3 h6 (constructed here). Each pawn is stopped
    // by the pawn in front. White's pawns attack only light squares (e4 g4 f3 h3 g6), where the dark-squared
    // bishop never stands and the black king may not step; Black's pawns attack only squares the white king may
    // not step on. The white king has h3 and h4 only (g4, g5 and h2 attacked, g3 guarded by f4) and can take
    // nothing. The black king can take g2 or h5 only when that leaves White, to move, without a legal move and
    // not in check: stalemate (FIDE 5.2.1). A mate needs check, which only the bishop can give, so on h4 (h3
    // is light); then h3 (light, attacked by no black pawn) must be covered by the black king, from h2 or g2.
    // The black king steps onto h2, or takes g2, only while the white king stands on h4 (never next to it on
    // h3), and then White is to move with no legal move and not in check (a king move opens no line onto h4):
    // stalemate again. Black never mates.
    let fen = "8/8/7p/2b2p1P/5p2/5PpK/6P1/6k1 b - - 0 1";
    let text = tempo_proof(fen, Color::Black, 8);
    assert!(
        text.starts_with("fortress held by tempo: the pawns can reach only 1 configurations"),
        "{text}"
    );
    assert!(text.contains("Kh3 reaches only h3 h4 while"), "{text}");
    assert!(
        text.contains("in 1 of them the loser has only king moves"),
        "{text}"
    );
    // The near-miss twin: a white bishop on a2 lets White move without its king, and Black mates in 5 plies
    // (Kf1, Kh4, Kxg2, a bishop move, Be7#: the black king on g2 covers h3).
    assert_winnable_twin(
        "8/8/7p/2b2p1P/5p2/5PpK/B5P1/6k1 b - - 0 1",
        Color::Black,
        Some(5),
    );
}

#[test]
fn fortress_held_by_tempo_for_white() {
    // Black: Ka5, pawns a4 b7 c6; White: Kf2, Bf8, pawns a3 b6 c4 c5 (constructed here). Every black pawn stands
    // on a light square and is stopped, and the white bishop runs on dark squares: no pawn ever moves. Black's
    // king has a5 and a6 only (a7 attacked by b6, b4 by a3, b5 by c4, b6 guarded by c5). A mate needs the king
    // in check from the bishop, so on a5 (a6 is light), with a6 covered: only by the white king on a7 (b5 is
    // attacked by c6, b6 and b7 hold pawns). The white king steps onto a7 only while Black's king is on a5
    // (never next to it on a6), and then Black is to move with no legal move and not in check: stalemate. The
    // white king taking b7 or a4 stalemates Black at once as well.
    let fen = "5B2/1p6/1Pp5/k1P5/p1P5/P7/5K2/8 w - - 0 1";
    let text = tempo_proof(fen, Color::White, 6);
    assert!(text.contains("ka5 reaches only a5 a6 while"), "{text}");
    // The near-miss twin: a black knight on h8 can move instead of the king (and be taken), and White mates.
    assert_winnable_twin(
        "5B1n/1p6/1Pp5/k1P5/p1P5/P7/5K2/8 w - - 0 1",
        Color::White,
        None,
    );
}

#[test]
fn analyze_svg_shades_a_fortress_held_by_tempo() {
    // The position of fortress_held_by_tempo_for_black: the picture shades, for White (the defender, whose king
    // has h3 and h4 only), every square but those two and the seven pawns: 55 squares.
    let svg = analyze_svg("8/8/7p/2b2p1P/5p2/5PpK/6P1/6k1 b - - 0 1");
    let shaded = |sq: &str| shaded_for_white(&svg, sq);
    assert!(!shaded("h3") && !shaded("h4"), "{svg}");
    assert!(shaded("h2") && shaded("g4") && shaded("a8"), "{svg}");
    assert_eq!(shaded_for_white_count(&svg), 55, "{svg}");
}

// ---------------------------------------------------------------------------------------------------------
// The kings' dance (src/analyze/dead/dance.rs): the reach proof on the hypothesis that no king takes a piece
// that never moves, and a walk over the two kings' squares that shows the hypothesis breaks only in stalemate.

#[test]
fn kings_dance_decides_d3_chess_issue_48() {
    // Reported unwinnable for White in D3-Chess issue #48 (github.com/miguel-ambrona/D3-Chess/issues/48; CHA
    // needs 77-125 million nodes, CHA-Solver 3.0 leaves it undetermined). Why (the proof in dance.rs): White's
    // bishops are light-squared, Black's pawns and bishop stand and capture on dark squares, so neither side's
    // pawns nor Black's bishop ever move unless a king takes a pawn. Black's king has a7, a8, b8, c8, d8 and e8.
    // White's king can take only c7 (the others are defended), only from b7 or b8 with Black's king on e8, and
    // Black is then stalemated; it never gets past c8, where it could step only with Black's king on e8,
    // stalemate again. A mate on a8 or c8 needs two dark squares covered by White's king, on e8 it needs d8
    // covered by White's king on c8, where it cannot stand while Black's king steps from d8. Black never gives
    // check at all: only its king moves.
    let fen = "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/8 w - - 0 1";
    let pos = Checked::from_fen(fen).unwrap();
    for winner in Color::ALL {
        let d = dead::decide(&pos, winner, &limits(100_000)).unwrap();
        check_verdict(&pos, winner, &d.verdict, 4);
        match d.verdict {
            Verdict::Unwinnable {
                reason: reason @ Reason::Dance { .. },
            } => {
                let text = reason.to_string();
                assert!(
                    text.contains("could take a piece on c7, the side"),
                    "{text}"
                );
            }
            v => panic!("{fen}: {winner:?} decided {v:?}"),
        }
    }
    // The near-miss twin: a black knight on h1 moves instead of the king, White's king takes c7 and the c6 pawn
    // queens.
    assert_winnable_twin(
        "3k1b2/2p1pBp1/KpP1P1P1/1P3B2/4B1B1/5B2/8/7n w - - 0 1",
        Color::White,
        None,
    );
}

// ---------------------------------------------------------------------------------------------------------
// The reach proof (src/analyze/dead/reach.rs): every piece's region for the whole game, with case splits on
// pieces that have not moved but may be captured.

/// Each position of tests/data/dead-reach.txt (labels from CHA-Solver's community set, cited there): the sides
/// its label says cannot mate are decided unwinnable by the reach proof (the three marked there by the check-chain
/// proof), and the bounded exhaustive search finds no mate within 4 plies; the sides it says can mate get a
/// helpmate the reference generator replays. At least one proof needs a case split and one two levels of them.
#[test]
fn reach_proof_on_community_positions() {
    let text = include_str!("data/dead-reach.txt");
    let (mut proofs, mut split, mut deepest, mut chains) = (0, 0, 0, 0);
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (label, fen) = line.split_at(2);
        let pos = Checked::from_fen(fen.trim()).unwrap();
        for (winner, mark) in [(Color::White, &label[..1]), (Color::Black, &label[1..])] {
            // A lower-case mark: a helpmate beyond this test's limits (see the file's header).
            if mark == "w" || mark == "b" {
                continue;
            }
            let can = mark != "-";
            let d = dead::decide(&pos, winner, &limits(100_000)).unwrap();
            check_verdict(&pos, winner, &d.verdict, 4);
            match (&d.verdict, can) {
                (Verdict::Winnable { .. }, true) => {}
                (
                    Verdict::Unwinnable {
                        reason: Reason::Reach { cases, .. },
                    },
                    false,
                ) => {
                    proofs += 1;
                    split += usize::from(*cases > 1);
                    deepest = deepest.max(*cases);
                }
                (
                    Verdict::Unwinnable {
                        reason: Reason::CheckChain { proofs: made, .. },
                    },
                    false,
                ) => {
                    assert!(*made > 0);
                    chains += 1;
                }
                (v, _) => panic!("{fen}: {winner:?} decided {v:?}"),
            }
        }
    }
    assert_eq!((proofs, chains), (28, 6));
    assert!(split >= 4, "{split}");
    assert!(deepest >= 3, "{deepest}");
}
