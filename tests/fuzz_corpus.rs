//! The fuzz targets' committed corpus (`fuzz/corpus/<target>/`, grown by `cargo +nightly fuzz run <target>`,
//! see docs/contributing.md) replayed through the same entry points (`perftlab::fuzzing`): every input must
//! be read or refused without a panic, and the invariants each entry point checks (FEN written back parses to
//! the same position, every legal move's UCI and SAN text names it again, the position-file reader gives back
//! what it accepts, a valid position stays valid through its FEN) must hold. Each corpus is also mutated with a
//! fixed seed (bytes flipped, inserted, dropped, lines spliced) and replayed, a bounded fuzz run on every
//! `cargo test` for machines without cargo-fuzz.

mod common;

use common::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Replay every file of `fuzz/corpus/<target>` through `entry`; names each input that panicked.
fn replay(target: &str, entry: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "{}: the corpus has {} inputs; it must not be empty",
        dir.display(),
        files.len()
    );
    let mut failed = Vec::new();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        if catch_unwind(AssertUnwindSafe(|| entry(&data))).is_err() {
            failed.push(f.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: inputs that panicked: {failed:?}"
    );
}

#[test]
fn fen_corpus_reads_and_round_trips() {
    replay("fen", perftlab::fuzzing::fen);
}

#[test]
fn suite_corpus_is_read_or_refused() {
    replay("suite", perftlab::fuzzing::suite);
}

#[test]
fn moves_corpus_is_played_or_refused() {
    replay("moves", perftlab::fuzzing::moves);
}

#[test]
fn positions_corpus_is_read_or_refused() {
    replay("positions", perftlab::fuzzing::positions);
}

#[test]
fn checked_corpus_is_decided() {
    replay("checked", perftlab::fuzzing::checked);
}

/// `count` mutations of the corpus of `target` (seeded by the target's name) through `entry`; the mutated
/// inputs that panicked are named by their bytes.
fn mutate(target: &str, entry: fn(&[u8]), count: usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut corpus: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    corpus.sort();
    let seed = target.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = Rng(seed);
    let interesting = b" /;\"\n\r#-0123456789KQRBNPkqrbnpwWB";
    let mut failed = Vec::new();
    for _ in 0..count {
        let mut data = corpus[rng.below(corpus.len())].clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(data.len() + 1);
            match rng.below(5) {
                0 if at < data.len() => data[at] ^= 1 << rng.below(8),
                1 => data.insert(at, interesting[rng.below(interesting.len())]),
                2 if at < data.len() => {
                    data.remove(at);
                }
                3 => data.insert(at, rng.next() as u8),
                _ => {
                    // Splice a piece of another input.
                    let other = &corpus[rng.below(corpus.len())];
                    let from = rng.below(other.len());
                    let to = (from + rng.below(40)).min(other.len());
                    data.splice(at..at, other[from..to].iter().copied());
                }
            }
        }
        if catch_unwind(AssertUnwindSafe(|| entry(&data))).is_err() {
            failed.push(String::from_utf8_lossy(&data).into_owned());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: mutated inputs that panicked: {failed:?}"
    );
}

#[test]
fn mutated_corpora_are_read_or_refused() {
    mutate("fen", perftlab::fuzzing::fen, 20_000);
    mutate("suite", perftlab::fuzzing::suite, 20_000);
    mutate("moves", perftlab::fuzzing::moves, 5_000);
    mutate("positions", perftlab::fuzzing::positions, 20_000);
    mutate("checked", perftlab::fuzzing::checked, 20_000);
}

#[test]
fn well_formed_inputs_pass_every_check() {
    // Kiwipete (castling both ways, e.p. after d5e6-style lines, promotions two plies away) and a numbered
    // SAN line: every step of the entry points runs on them, the move round trips included.
    perftlab::fuzzing::fen(b"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    perftlab::fuzzing::moves(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n1. e4 e5 2. Nf3",
    );
}
