//! The round engine's policies ([`crate::core::engine`]), by the decision they make. A run
//! composes one of each: [`admission`] (which arrivals enter), [`scheduling`] (the priority order
//! of the active jobs), [`placement`] (which jobs hold which GPUs, walking that order) and
//! [`overhead`] (dead time at each launch). A family whose decision is not an order brings the
//! whole round decision instead of a scheduler and placement: [`gavel`] (time shares of GPU
//! types) and [`synergy`] (GPUs with CPUs and memory).

pub mod admission;
pub mod gavel;
pub mod overhead;
pub mod placement;
pub mod scheduling;
pub mod synergy;
