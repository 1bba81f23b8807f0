//! Fuzz target `suite`: arbitrary bytes into [`perftlab::fuzzing::suite`], which must never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| perftlab::fuzzing::suite(data));
