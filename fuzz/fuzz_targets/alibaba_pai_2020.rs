#![no_main]

//! The task table; a NUL byte splits the input into job table and task table (see `read_pai`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| blox_fuzz::read_pai(data));
