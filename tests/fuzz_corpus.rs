//! The fuzz targets' committed corpus (`fuzz/corpus/<target>/`, grown by `cargo +nightly fuzz run <target>`,
//! see docs/contributing.md) replayed through the same entry points (`perftlab::fuzzing`): every input must
//! be read or refused without a panic, and the invariants each entry point checks (FEN written back parses to
//! the same position, every legal move's UCI and SAN text names it again) must hold.

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
fn well_formed_inputs_pass_every_check() {
    // Kiwipete (castling both ways, e.p. after d5e6-style lines, promotions two plies away) and a numbered
    // SAN line: every step of the entry points runs on them, the move round trips included.
    perftlab::fuzzing::fen(b"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    perftlab::fuzzing::moves(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n1. e4 e5 2. Nf3",
    );
}
