//! Fuzz target `fen`: arbitrary bytes into [`perftlab::fuzzing::fen`], which must never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| perftlab::fuzzing::fen(data));
