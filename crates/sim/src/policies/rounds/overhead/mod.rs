//! Launch overhead models: seconds without progress after a job (re)starts
//! ([`crate::core::OverheadModel`]).

pub mod fixed;
pub mod none;
