//! Property tests: random bytes and mutated FENs never make the parser, the validity check or the reference
//! generator panic; valid FENs round-trip.

use perftlab::position::Setup;
use perftlab::reference;
use perftlab::validate;
use proptest::prelude::*;

const SEEDS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3",
];

/// Parse, and if that works, validate and (for valid positions) generate moves: none of it may panic.
fn exercise(text: &str) {
    if let Ok(setup) = Setup::from_fen(text) {
        let v = validate::check(&setup);
        let _ = setup.to_fen();
        if v.is_ok() {
            for m in reference::legal_moves(&setup) {
                let _ = reference::play(&setup, m);
            }
        }
    }
}

fn mutate(seed: &str, ops: &[(u8, usize, u8)]) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    const ALPHABET: &[u8] = b"pnbrqkPNBRQK12345678/ -wabcdefghKQkqHA09x";
    for &(op, pos, ch) in ops {
        let c = ALPHABET[ch as usize % ALPHABET.len()];
        let i = if bytes.is_empty() {
            0
        } else {
            pos % (bytes.len() + 1)
        };
        match op % 3 {
            0 => bytes.insert(i, c),
            1 if i < bytes.len() => {
                bytes.remove(i);
            }
            _ if i < bytes.len() => bytes[i] = c,
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_fens_never_panic(seed in 0..SEEDS.len(), ops in proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6)) {
        exercise(&mutate(SEEDS[seed], &ops));
    }

    #[test]
    fn random_fen_like_text_never_panics(s in "[pnbrqkPNBRQK1-9/]{1,70} [wbx] [KQkqA-Ha-h-]{1,5} ([a-h][1-8]|-)( [0-9]{1,3} [0-9]{1,3})?") {
        exercise(&s);
    }
}

#[test]
fn every_seed_round_trips() {
    for fen in SEEDS {
        let s = Setup::from_fen(fen).unwrap();
        assert_eq!(Setup::from_fen(&s.to_fen()).unwrap(), s);
    }
}
