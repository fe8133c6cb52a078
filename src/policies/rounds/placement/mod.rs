//! Placements: which jobs hold which GPUs each round ([`crate::core::Placement`]). All walk the
//! priority order in Blox's way: `scattered` and `consolidated` through [`priority_walk`],
//! differing only in how they pick one job's GPUs; `shares` with its own walk, as a share holds
//! part of a GPU that has no owner.

pub mod consolidated;
pub mod priority_walk;
pub mod scattered;
pub mod shares;
