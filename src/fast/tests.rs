//! Unit tests of the fast generator's parts: incremental keys, board round trip, small perfts.

use super::*;
use crate::bitboard::attacks::MagicSliders;
use crate::bitboard::board::{self, Board};
use crate::bitboard::movegen::moves;
use crate::position::Setup;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn walk_keys(b: &Board, cd: &board::CastlingData, depth: u32) -> u64 {
    assert_eq!(
        [b.key, b.check],
        b.compute_key(cd),
        "{}",
        b.to_setup(cd).to_fen()
    );
    if depth == 0 {
        return 1;
    }
    moves::<MagicSliders>(b, cd)
        .as_slice()
        .iter()
        .map(|&m| walk_keys(&b.make::<true>(cd, m), cd, depth - 1))
        .sum()
}

#[test]
fn incremental_keys_equal_recomputed_keys() {
    for fen in [
        KIWIPETE,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    ] {
        let (b, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        assert!(walk_keys(&b, &cd, 3) > 0);
    }
}

#[test]
fn board_round_trips_through_setup() {
    // The size the docs give (board.rs, README): 6 + 2 bitboards, the key and the check hash, 3 bytes, padding.
    assert_eq!(std::mem::size_of::<Board>(), 88);
    let s = Setup::from_fen(KIWIPETE).unwrap();
    let (b, cd) = Board::from_setup(&s);
    assert_eq!(
        b.to_setup(&cd).to_fen(),
        Setup::from_fen(KIWIPETE).unwrap().to_fen()
    );
}

#[test]
fn every_flavor_counts_kiwipete_depth_3() {
    let s = Setup::from_fen(KIWIPETE).unwrap();
    let (b, cd) = Board::from_setup(&s);
    for f in [Flavor::Portable, Flavor::Magic, Flavor::Pext] {
        if f != Flavor::Portable && !bmi2_available() {
            continue;
        }
        assert_eq!(f.walk(&b, &cd, 3, None), 97_862, "{f:?}");
    }
}

#[test]
fn the_check_hash_tells_apart_positions_that_differ_only_in_side_ep_or_castling() {
    let check = |fen: &str| {
        let (b, _) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        b.check
    };
    let mut checks = vec![
        // Side to move.
        check("4k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        check("4k3/8/8/8/8/8/8/4K3 b - - 0 1"),
        // The e.p. square (kept: the d4 pawn can take on e3), or none.
        check("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1"),
        check("4k3/8/8/8/3pP3/8/8/4K3 b - - 0 1"),
    ];
    // Every set of castling rights.
    for rights in [
        "-", "K", "Q", "k", "q", "KQ", "Kk", "Kq", "Qk", "Qq", "kq", "KQk", "KQq", "Kkq", "Qkq",
        "KQkq",
    ] {
        checks.push(check(&format!("r3k2r/8/8/8/8/8/8/R3K2R w {rights} - 0 1")));
    }
    // Chess960: the same pieces and the same right (White's queen side), with the a- or the b-rook.
    checks.push(check("1r4k1/8/8/8/8/8/8/RRK5 w A - 0 1"));
    checks.push(check("1r4k1/8/8/8/8/8/8/RRK5 w B - 0 1"));
    let mut distinct = checks.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), checks.len(), "{checks:x?}");
    // A transposition: the same position by two move orders has the same check hash.
    let (b, cd) = Board::from_setup(&Setup::from_fen(Setup::STARTPOS_FEN).unwrap());
    let play = |b: &Board, uci: &str| {
        let m = *moves::<MagicSliders>(b, &cd)
            .as_slice()
            .iter()
            .find(|&&m| movegen::to_move(m).to_string() == uci)
            .unwrap();
        b.make::<true>(&cd, m)
    };
    let one = ["g1f3", "g8f6", "b1c3"].iter().fold(b, |b, m| play(&b, m));
    let two = ["b1c3", "g8f6", "g1f3"].iter().fold(b, |b, m| play(&b, m));
    assert_eq!(one, two);
    assert_eq!(one.check, two.check);
    assert_ne!(one.check, b.check);
}

#[test]
fn zobrist_keys_are_values_and_seeds_run_side_by_side() {
    use crate::backend::Backend;
    use crate::bitboard::zobrist::Keys;
    use crate::validate::Checked;
    // Boards hashed with seed 7: incremental keys equal recomputed ones, and the keys are not the default's.
    let setup = Setup::from_fen(KIWIPETE).unwrap();
    let (plain, _) = Board::from_setup(&setup);
    let (seeded, cd) = Board::with_keys(&setup, Keys::of(7));
    assert_ne!(plain.key, seeded.key);
    assert!(walk_keys(&seeded, &cd, 3) > 0);
    // Two backends with different seeds in one process (no seed fixed for the process): same counts, with
    // the hash table and merging on, twice each (the second from the tables). Kiwipete perft 4 = 4,085,603
    // (CPW "Perft Results").
    let pos = Checked::from_fen(KIWIPETE).unwrap();
    let a = CpuBackend::new(1, Some(1), true).unwrap();
    let b = CpuBackend::new(1, Some(1), true)
        .unwrap()
        .with_zobrist_seed(7);
    assert_eq!(
        (a.zobrist_seed(), b.zobrist_seed()),
        (DEFAULT_ZOBRIST_SEED, 7)
    );
    for _ in 0..2 {
        assert_eq!(a.perft(&pos, 4).unwrap(), 4_085_603);
        assert_eq!(b.perft(&pos, 4).unwrap(), 4_085_603);
    }
}

#[cfg(feature = "deep")]
#[test]
fn boards_below_a_root_count_as_their_checked_positions_and_sum_to_the_published_perft() {
    // `perft_boards` (the split frontier's path, issue 36): the boards two plies below each CPW "Perft
    // Results" position and CPW "Chess960 Perft Results" #2, merged with their multiplicities and sharing the
    // root's castling data, counted two plies on. Each board's count equals `perft_many`'s of the same
    // position made a checked position (default and seeded keys; one batch wide enough for a board per
    // thread, and three boards alone, each split over the threads), and the CPW positions' sums of
    // multiplicity × count are the page's perft 4.
    let chess960 = "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9";
    let roots = crate::cpw::POSITIONS
        .iter()
        .map(|p| (p.fen, Some(p.nodes_by_depth[3])))
        .chain([(chess960, None)]);
    for (fen, perft4) in roots {
        let (b0, cd) = Board::from_setup(&Setup::from_fen(fen).unwrap());
        let mut level = vec![(b0, 1u64)];
        for _ in 0..2 {
            level = crate::bitboard::frontier::next_ply(&level, &cd, true, u64::MAX).unwrap();
        }
        let boards: Vec<Board> = level.iter().map(|&(b, _)| b).collect();
        let checked: Vec<Checked> = boards
            .iter()
            .map(|b| Checked::reached(b.to_setup(&cd)).unwrap())
            .collect();
        for cpu in [
            CpuBackend::new(16, Some(2), true).unwrap(),
            CpuBackend::new(16, Some(2), true)
                .unwrap()
                .with_zobrist_seed(7),
        ] {
            let wide = cpu.perft_boards(&boards, &cd, 2).unwrap();
            cpu.clear_hash();
            assert_eq!(wide, cpu.perft_many(&checked, 2).unwrap(), "{fen}");
            assert_eq!(
                cpu.perft_boards(&boards[..3], &cd, 2).unwrap(),
                wide[..3],
                "{fen}"
            );
            if let Some(n) = perft4 {
                let sum: u128 = level
                    .iter()
                    .zip(&wide)
                    .map(|(&(_, w), c)| w as u128 * c)
                    .sum();
                assert_eq!(sum, n, "{fen}");
            }
        }
    }
}
