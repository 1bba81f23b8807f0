//! Fuzz target `checked`: arbitrary bytes into [`perftlab::fuzzing::checked`], which must never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| perftlab::fuzzing::checked(data));
