//! The round engine's policies ([`crate::core::engine`]), by the decision they make. A run
//! composes one of each: [`admission`] (which arrivals enter), [`scheduling`] (the priority order
//! of the active jobs), [`placement`] (which jobs hold which GPUs, walking that order) and
//! [`overhead`] (dead time at each launch).

pub mod admission;
pub mod overhead;
pub mod placement;
pub mod scheduling;
