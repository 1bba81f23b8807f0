//! Fuzz target `moves`: arbitrary bytes into [`perftlab::fuzzing::moves`], which must never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| perftlab::fuzzing::moves(data));
