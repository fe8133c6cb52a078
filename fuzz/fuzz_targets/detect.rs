#![no_main]

//! `TraceFormat::detect` and `read_trace` with auto-detection on a file holding the input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| blox_fuzz::detect_and_read(data));
