//! Schedulers: the priority order of the active jobs each round ([`crate::core::Scheduler`]),
//! which the placement walks.

pub mod external;
pub mod fifo;
pub mod las;
pub mod optimus_oracle;
pub mod srtf;
