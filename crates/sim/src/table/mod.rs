//! Tables read from text: the CSV reader behind every trace format and policy input, and the
//! error that names the file, line and column in the input's own words. Parsing only: callers
//! hand in the bytes (a trace file, a downloaded dataset member, a policy input).

pub mod error;
pub mod input;

pub use error::TraceError;
