//! Fuzz target `detect`: see `harness::detect`.
#![no_main]

// Each target calls one harness function; the others are unused here.
#[allow(dead_code)]
#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::detect(data));
