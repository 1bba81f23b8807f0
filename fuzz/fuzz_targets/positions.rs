//! Fuzz target `positions`: arbitrary bytes into [`perftlab::fuzzing::positions`], which must never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| perftlab::fuzzing::positions(data));
