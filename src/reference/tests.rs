//! Unit tests of the reference generator, named after the article of FIDE 3 each one checks.
use super::*;

fn moves(fen: &str) -> Vec<String> {
    let setup = Setup::from_fen(fen).unwrap();
    let chess960 = setup.needs_chess960_notation();
    let mut v: Vec<String> = legal_moves(&setup)
        .iter()
        .map(|m| m.to_uci(chess960))
        .collect();
    v.sort();
    v
}

fn has(fen: &str, uci: &str) -> bool {
    moves(fen).iter().any(|m| m == uci)
}

#[test]
fn startpos_has_twenty_moves() {
    assert_eq!(moves(Setup::STARTPOS_FEN).len(), 20);
}

#[test]
fn fide_3_1_no_capture_of_own_piece_and_capture_removes_the_opponent() {
    // Rook a1 blocked by its own pawn on a2 and knight on b1.
    assert!(!has("4k3/8/8/8/8/8/P7/RN2K3 w - - 0 1", "a1a2"));
    // Capture of a black knight on a5.
    let s = Setup::from_fen("4k3/8/8/n7/8/8/8/R3K3 w - - 0 1").unwrap();
    let m = Move::find_uci(&legal_moves(&s), "a1a5").unwrap();
    assert_eq!(
        play(&s, m).piece_at(Square::parse("a5").unwrap()),
        Some(Piece::new(Color::White, Role::Rook))
    );
}

#[test]
fn fide_3_2_to_3_5_sliders_stop_at_pieces() {
    // Bishop on c1 with a pawn on e3: reaches d2 but not e3 or beyond.
    let m = moves("4k3/8/8/8/8/4P3/8/2B1K3 w - - 0 1");
    assert!(
        m.contains(&"c1d2".into()) && !m.contains(&"c1e3".into()) && !m.contains(&"c1f4".into())
    );
    // A lone queen in the centre of an otherwise empty board has 27 squares.
    let q = moves("k7/8/8/8/3Q4/8/8/7K w - - 0 1");
    assert_eq!(q.iter().filter(|m| m.starts_with("d4")).count(), 27);
}

#[test]
fn fide_3_6_knight_jumps_over_pieces() {
    assert!(has(Setup::STARTPOS_FEN, "g1f3"));
    assert_eq!(
        moves("k7/8/8/8/8/8/8/N6K w - - 0 1")
            .iter()
            .filter(|m| m.starts_with("a1"))
            .count(),
        2
    );
}

#[test]
fn fide_3_7_1_and_3_7_2_pawn_pushes() {
    // Blocked pawn cannot push; double step only from the start rank and only over an empty square.
    assert!(!has("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", "e2e3"));
    assert!(!has("4k3/8/8/8/4n3/8/4P3/4K3 w - - 0 1", "e2e4"));
    assert!(has("4k3/8/8/8/4n3/8/4P3/4K3 w - - 0 1", "e2e3"));
    assert!(has("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e4"));
    assert!(!has("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1", "e3e5"));
}

#[test]
fn fide_3_7_3_pawn_captures_diagonally_only() {
    let m = moves("4k3/8/8/3p1p2/4P3/8/8/4K3 w - - 0 1");
    assert!(m.contains(&"e4d5".into()) && m.contains(&"e4f5".into()));
    assert!(!has("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1", "e4e5"));
}

#[test]
fn fide_3_7_4_en_passant_only_right_after_the_double_step() {
    let s = Setup::from_fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1").unwrap();
    let after = play(&s, Move::find_uci(&legal_moves(&s), "d7d5").unwrap());
    assert_eq!(after.ep_square, Square::parse("d6"));
    assert!(legal_moves(&after)
        .iter()
        .any(|m| m.to_uci(false) == "e5d6" && m.kind() == MoveKind::EnPassant));
    // One move later the right is gone.
    let w = play(
        &after,
        Move::find_uci(&legal_moves(&after), "e1d1").unwrap(),
    );
    let b = play(&w, Move::find_uci(&legal_moves(&w), "e8d8").unwrap());
    assert!(!legal_moves(&b)
        .iter()
        .any(|m| m.kind() == MoveKind::EnPassant));
}

#[test]
fn fide_3_7_4_en_passant_that_exposes_the_king_along_the_rank_is_illegal() {
    // White king a5, pawns b5 (white) and c5 (black, just double-stepped), black rook h5.
    assert!(!has("4k3/8/8/KPp4r/8/8/8/8 w - c6 0 1", "b5c6"));
    // Without the rook it is legal.
    assert!(has("4k3/8/8/KPp5/8/8/8/8 w - c6 0 1", "b5c6"));
}

#[test]
fn fide_3_7_5_promotion_to_all_four_pieces() {
    let m = moves("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    for p in ["a7a8q", "a7a8r", "a7a8b", "a7a8n"] {
        assert!(m.contains(&p.to_string()), "{p}");
    }
    assert!(!m.contains(&"a7a8".to_string()));
    // Promotion by capture, four ways too.
    assert_eq!(
        moves("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1")
            .iter()
            .filter(|m| m.starts_with("a7b8"))
            .count(),
        4
    );
}

#[test]
fn fide_3_8_1_king_steps_to_adjacent_unattacked_squares() {
    let m = moves("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    // The rook on a1 attacks the whole first rank.
    assert!(!m.contains(&"e1d1".into()) && !m.contains(&"e1f1".into()));
    assert!(m.contains(&"e1e2".into()));
}

#[test]
fn fide_3_8_2_castling_both_sides() {
    let m = moves("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(m.contains(&"e1g1".into()) && m.contains(&"e1c1".into()));
}

#[test]
fn fide_3_8_2_1_rights_are_lost_by_king_or_rook_moves() {
    let s = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let after_rook = play(&s, Move::find_uci(&legal_moves(&s), "h1h2").unwrap());
    assert_eq!(
        after_rook
            .castling
            .rook(Color::White, CastlingSide::KingSide),
        None
    );
    assert!(after_rook
        .castling
        .rook(Color::White, CastlingSide::QueenSide)
        .is_some());
    let after_king = play(&s, Move::find_uci(&legal_moves(&s), "e1f1").unwrap());
    assert!(after_king
        .castling
        .rook(Color::White, CastlingSide::QueenSide)
        .is_none());
    // Capturing a rook on its corner removes the opponent's right.
    let s2 = Setup::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    let cap = play(&s2, Move::find_uci(&legal_moves(&s2), "a1a8").unwrap());
    assert!(cap
        .castling
        .rook(Color::Black, CastlingSide::QueenSide)
        .is_none());
    // No right, no castling.
    assert!(!has("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", "e1g1"));
}

#[test]
fn fide_3_8_2_2_1_no_castling_out_of_through_or_into_check() {
    // Out of check: rook on e8 checks the king.
    assert!(!has("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    // Through check: f1 attacked by a rook on f8.
    assert!(!has("5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    assert!(has("5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
    // Into check: g1 attacked.
    assert!(!has("6rk/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1g1"));
    // b1 attacked does not stop queen-side castling: the king does not cross b1.
    assert!(has("1r4k1/8/8/8/8/8/8/R3K2R w KQ - 0 1", "e1c1"));
}

#[test]
fn fide_3_8_2_2_2_no_castling_with_a_piece_between() {
    assert!(!has("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", "e1c1"));
    assert!(has("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1", "e1g1"));
}

#[test]
fn chess960_castling_king_and_rook_end_on_standard_squares() {
    // King b1, rook a1 (queen side) and rook h1: king to c1, rook to d1.
    let s = Setup::from_fen("1k6/8/8/8/8/8/8/RK5R w HA - 0 1").unwrap();
    let m = Move::find_uci(&legal_moves(&s), "b1a1").unwrap();
    assert_eq!(m.kind(), MoveKind::Castling);
    let after = play(&s, m);
    assert_eq!(
        after.piece_at(Square::parse("c1").unwrap()),
        Some(Piece::new(Color::White, Role::King))
    );
    assert_eq!(
        after.piece_at(Square::parse("d1").unwrap()),
        Some(Piece::new(Color::White, Role::Rook))
    );
    // King g1 with rook h1: the king stays, the rook jumps to f1.
    let s = Setup::from_fen("6k1/8/8/8/8/8/8/6KR w H - 0 1").unwrap();
    let after = play(&s, Move::find_uci(&legal_moves(&s), "g1h1").unwrap());
    assert_eq!(
        after.piece_at(Square::parse("f1").unwrap()),
        Some(Piece::new(Color::White, Role::Rook))
    );
    assert_eq!(
        after.piece_at(Square::parse("g1").unwrap()),
        Some(Piece::new(Color::White, Role::King))
    );
    // A rook hidden behind the castling rook attacks c1 once b1 is vacated: illegal.
    assert!(!has("1k6/8/8/8/8/8/8/rR2K3 w B - 0 1", "e1b1"));
    assert!(has("1k6/8/8/8/8/8/8/1R2K3 w B - 0 1", "e1b1"));
}

#[test]
fn fide_3_9_pins_and_double_check() {
    // The knight on e2 is pinned by the rook on e8.
    assert!(!moves("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1")
        .iter()
        .any(|m| m.starts_with("e2")));
    // Double check (rook e8 and bishop b4): only king moves.
    let m = moves("4r1k1/8/8/8/1b6/8/3N4/4K3 w - - 0 1");
    assert!(m.iter().all(|m| m.starts_with("e1")), "{m:?}");
    // Single check can be blocked or the checker captured.
    assert!(has("4r1k1/8/8/8/8/8/3N4/4K3 w - - 0 1", "d2e4"));
}

#[test]
fn fide_1_5_stalemate_versus_mate() {
    // Stalemate: black king a8, white queen b6, no legal move, not in check.
    let stale = reference_pos("k7/8/1Q6/8/8/8/8/7K b - - 0 1");
    assert!(stale.legal_moves().is_empty() && !stale.in_check());
    // Mate: back-rank mate.
    let mate = reference_pos("6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1");
    assert!(!mate.legal_moves().is_empty());
    let mate = reference_pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    assert!(mate.legal_moves().is_empty() && mate.in_check());
}

fn reference_pos(fen: &str) -> Mailbox {
    Mailbox::from_setup(&Setup::from_fen(fen).unwrap())
}

#[test]
fn fide_3_10_1_is_legal_agrees_with_the_legal_move_list() {
    // Every from/to pair (promotions to all four roles on the last ranks, castling as king takes rook, en
    // passant) on positions with pins, checks, e.p. and castling: `is_legal` says yes exactly for the listed
    // moves.
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
        "4r1k1/8/8/8/8/8/3N4/4K3 w - - 0 1",
        "1k6/1P4P1/8/8/8/8/1p4p1/1K6 b - - 0 1",
    ] {
        let pos = reference_pos(fen);
        let legal = pos.legal_moves();
        let mut candidates = Vec::new();
        for from in Square::all() {
            for to in Square::all() {
                candidates.push(Move::normal(from, to));
                candidates.push(Move::en_passant(from, to));
                candidates.push(Move::castling(from, to));
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    candidates.push(Move::promotion(from, to, role));
                }
            }
        }
        let yes: Vec<Move> = candidates
            .iter()
            .copied()
            .filter(|&m| pos.is_legal(m))
            .collect();
        // `play_legal_in_place` says the same for every candidate, plays the legal ones as `play` does and
        // leaves the position as it was for the others.
        let mut buf = Vec::new();
        for &m in &candidates {
            let mut here = pos.clone();
            let legal_here = here.play_legal_in_place(m, &mut buf);
            assert_eq!(legal_here, yes.contains(&m), "{fen}: {m:?}");
            let expected = if legal_here { pos.play(m) } else { pos.clone() };
            assert_eq!(here.to_setup(), expected.to_setup(), "{fen}: {m:?}");
        }
        assert_eq!(yes.len(), legal.len(), "{fen}");
        assert!(yes.iter().all(|m| legal.contains(m)), "{fen}");
        // `play_legal` makes the position `play` makes, for each legal move.
        let mut buf = Vec::new();
        for &m in &legal {
            let made = pos.play_legal(m, &mut buf).expect("a listed move is legal");
            assert_eq!(made.to_setup(), pos.play(m).to_setup(), "{fen}: {m:?}");
        }
    }
}

/// [`Mailbox::has_legal_move`] (the king-safety test on one board, stopping at the first legal move) says yes
/// exactly where [`Mailbox::legal_moves`] is not empty: on the positions of pseudo-random games and on
/// two checkmates, a stalemate, an en passant capture that would leave the king attacked along the rank and a
/// king in check beside a castling right.
#[test]
fn fide_5_1_1_has_legal_move_agrees_with_the_legal_move_list() {
    let mut none = 0;
    let mut check = |pos: &Mailbox| {
        let listed = !pos.legal_moves().is_empty();
        assert_eq!(pos.has_legal_move(), listed, "{:?}", pos.to_setup());
        none += usize::from(!listed);
    };
    let positions = random_game_positions(0x9E37_79B9_7F4A_7C15, 6, 60, &mut check);
    for fen in [
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - - 0 1",
        "4k3/8/8/8/8/8/3q4/r3K2R w K - 0 1",
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
    ] {
        check(&reference_pos(fen));
    }
    assert!(positions > 1_000 && none >= 3, "{positions} {none}");
}

/// [`Mailbox::has_piece_move`] (a step or a line looked at, without the list) says yes exactly for the moves
/// [`Mailbox::piece_moves`] lists: every from/to pair of every piece of the side to move, as a normal move, en
/// passant, castling and the four promotions, on the positions of pseudo-random games from positions with every
/// piece kind, pins, e.p., castling and promotions near.
#[test]
fn fide_3_2_to_3_8_one_move_looked_at_is_the_listed_move() {
    let (mut yes, mut buf) = (0, Vec::new());
    let positions = random_game_positions(0x2545_F491_4F6C_DD1D, 6, 60, |pos| {
        for from in Square::all() {
            let Some(p) = pos.piece_at(from).filter(|p| p.color == pos.turn()) else {
                continue;
            };
            let mut listed = Vec::new();
            pos.piece_moves(mailbox(from), p.role, &mut listed);
            for to in Square::all() {
                let mut candidates = vec![
                    Move::normal(from, to),
                    Move::en_passant(from, to),
                    Move::castling(from, to),
                ];
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    candidates.push(Move::promotion(from, to, role));
                }
                for m in candidates {
                    let looked = pos.has_piece_move(mailbox(from), p.role, m, &mut buf);
                    assert_eq!(looked, listed.contains(&m), "{:?} {m:?}", pos.to_setup());
                    yes += usize::from(looked);
                }
            }
        }
    });
    assert!(
        positions > 1_000 && yes > 20_000,
        "{positions} positions, {yes} moves"
    );
}

#[test]
fn fide_3_1_attacked_agrees_with_the_attacker_list() {
    // The stop-at-first test `attacked` against the list `attackers_mb` (the same rules, two walks): every
    // square, both colours, on the positions of pseudo-random games from positions with every piece kind,
    // e.p., castling and promotions near.
    let positions = random_game_positions(0x9E37_79B9_7F4A_7C15, 12, 80, |pos| {
        for target in Square::all() {
            for by in [Color::White, Color::Black] {
                let mb = mailbox(target);
                let listed = !pos.attackers_mb(mb, by).is_empty();
                assert_eq!(
                    pos.attacked(mb, by),
                    listed,
                    "{:?} {target:?} {by:?}",
                    pos.to_setup()
                );
            }
        }
    });
    assert!(positions > 2_000, "{positions} positions");
}

/// Calls `visit` on the positions of pseudo-random games (`games` from each start, at most `plies` plies each;
/// the draws from `seed`) from positions with every piece kind, pins, e.p., castling and promotions near; how
/// many positions it visited.
fn random_game_positions(
    mut seed: u64,
    games: usize,
    plies: usize,
    mut visit: impl FnMut(&Mailbox),
) -> usize {
    let mut positions = 0;
    for fen in [
        Setup::STARTPOS_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ] {
        for _game in 0..games {
            let mut pos = reference_pos(fen);
            for _ply in 0..plies {
                visit(&pos);
                positions += 1;
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                pos = pos.play(legal[(seed >> 33) as usize % legal.len()]);
            }
        }
    }
    positions
}

/// The mailbox index of each square (a1 = 21, h8 = 98, ten to a rank) and the table back are inverses, the
/// table's square is the arithmetic one (rank = index / 10 − 2, file = index % 10 − 1), and the 56 border
/// indices map to no square.
#[test]
fn mailbox_indices_and_squares_are_inverses() {
    for sq in Square::all() {
        let mb = mailbox(sq);
        assert_eq!(square_of(mb), sq);
        assert_eq!(
            (mb / 10 - 2, mb % 10 - 1),
            (sq.rank() as usize, sq.file() as usize)
        );
    }
    assert_eq!(SQUARE_OF.iter().filter(|&&s| s >= 64).count(), 120 - 64);
}

/// [`Line::play`] (the king-safety test along the lines a move can open, the kings' squares kept, the check
/// state carried from move to move) plays exactly the moves [`Mailbox::legal_moves`] lists, to the same
/// position, and knows whether the side to move is in check afterwards (FIDE 3.9): every pseudo-legal move
/// (those that leave the king attacked included) and every normal move of every own piece to every square, on
/// the positions of pseudo-random games that a `Line` follows move by move from positions with pins, checks,
/// e.p., castling (Chess960 too) and promotions near; and on positions where it must take the whole test (a
/// side with two kings, the side not to move in check).
#[test]
fn fide_3_9_a_line_plays_exactly_the_legal_moves() {
    let (mut seed, mut positions, mut checks, mut refused) = (0x1234_5678_9ABC_DEF1_u64, 0, 0, 0);
    for fen in [
        Setup::STARTPOS_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "r1b1k2r/ppp2ppp/2n5/1B1qp3/1b6/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/2KK3q w - - 0 1",
        "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",
        // In check at the start: a checking pawn taken en passant, a double check a knight could half answer,
        // a check a pinned piece could block, and three checkmates (back rank, smothered, double check).
        "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        "k3r3/8/8/8/7b/8/3N2N1/4K3 w - - 0 1",
        "4k3/8/8/6b1/8/8/3R4/2K1r3 w - - 0 1",
        "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
        "4k3/8/8/8/8/3n4/3PPP2/r3KB2 w - - 0 1",
    ] {
        for _game in 0..10 {
            let setup = Setup::from_fen(fen).unwrap();
            let mut pos = Mailbox::from_setup(&setup);
            let mut line = Line::new(&setup);
            for _ply in 0..80 {
                positions += 1;
                assert_eq!(line.in_check(), pos.in_check(), "{:?}", pos.to_setup());
                checks += usize::from(pos.in_check());
                let legal = pos.legal_moves();
                let mut candidates = pos.pseudo_legal();
                for from in Square::all() {
                    if pos.piece_at(from).is_some_and(|p| p.color == pos.turn()) {
                        candidates.extend(Square::all().map(|to| Move::normal(from, to)));
                    }
                }
                for m in candidates {
                    let mut tried = line.clone();
                    let played = tried.play(m);
                    assert_eq!(played, legal.contains(&m), "{:?} {m:?}", pos.to_setup());
                    if played {
                        let next = pos.play(m);
                        assert_eq!(tried.position().to_setup(), next.to_setup(), "{m:?}");
                        assert_eq!(
                            tried.in_check(),
                            next.in_check(),
                            "{:?} {m:?}",
                            pos.to_setup()
                        );
                    } else {
                        refused += 1;
                        assert_eq!(tried.position().to_setup(), pos.to_setup(), "{m:?}");
                    }
                }
                if pos.in_check() {
                    let mut answers = line.check_answers();
                    answers.sort_by_key(|m| m.to_uci(true));
                    let mut expected = legal.clone();
                    expected.sort_by_key(|m| m.to_uci(true));
                    assert_eq!(answers, expected, "{:?}", pos.to_setup());
                }
                assert_eq!(line.is_checkmate(), pos.in_check() && legal.is_empty());
                if legal.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let m = legal[(seed >> 33) as usize % legal.len()];
                assert!(line.play(m));
                pos = pos.play(m);
            }
        }
    }
    assert!(
        positions > 3_000 && checks > 100 && refused > 100_000,
        "{positions} positions, {checks} in check, {refused} refused"
    );
}
