//! Unit tests of the reference generator, one or more per article of FIDE 3.
use super::*;

fn moves(fen: &str) -> Vec<String> {
    let mut v: Vec<String> = legal_moves(&Setup::from_fen(fen).unwrap())
        .iter()
        .map(|m| m.to_uci(false))
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
