//! Admission policies: which arrivals join the active jobs each round ([`crate::core::Admission`]).

pub mod accept_all;
pub mod load_based;
