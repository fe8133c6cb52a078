#![no_main]

use blox::trace::TraceFormat;

libfuzzer_sys::fuzz_target!(|data: &[u8]| blox_fuzz::read_as(TraceFormat::Alibaba2023, data));
