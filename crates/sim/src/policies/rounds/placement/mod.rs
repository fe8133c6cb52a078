//! Placements: which jobs hold which GPUs each round ([`crate::core::Placement`]). All walk the
//! priority order with [`priority_walk`] and differ only in how they pick one job's GPUs.

pub mod consolidated;
pub mod priority_walk;
pub mod scattered;
pub mod shares;
