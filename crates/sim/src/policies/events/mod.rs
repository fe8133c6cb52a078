//! The event engine's schedulers ([`crate::core::events`]), by family. Each decides everything
//! (admission, GPU counts, placement) at arrivals and planned ends, and brings the placement the
//! engine places its jobs with, if any; a family shares a planner or a placement, which sits
//! beside its policies:
//! - [`edf`]: `edf` and `edf-admission` ([`edf::edf_admission`]) on the EDF planner
//!   ([`edf::planner`]);
//! - [`elasticflow`]: `elasticflow` and `edf-elastic` ([`elasticflow::edf_elastic`]) on the
//!   minimum-satisfactory-share planner ([`elasticflow::planner`]);
//! - [`gandiva`]: `gandiva` on its time-sliced node sets ([`gandiva::node_sets`]);
//! - [`tiresias`] and [`themis`], one file each;
//! - [`muri`]: Muri and its baselines, on their own nodes and overheads;
//! - shared by the policies of ElasticFlow's simulator: [`buddy`], its buddy placement with the
//!   rank cache (all but Gandiva's), [`overhead`], its reconfiguration overheads, [`steps`],
//!   steps several of them take, and [`yarn`], the placement a spec may give `tiresias` and
//!   `themis` instead of the buddy placement.

pub mod buddy;
pub mod edf;
pub mod elasticflow;
pub mod gandiva;
pub mod muri;
pub mod overhead;
pub mod steps;
pub mod themis;
pub mod tiresias;
pub mod yarn;

use crate::policies::OwnPlacement;

/// ElasticFlow's buddy placement ([`buddy::BuddyPlacement`]), for the policies that bring it;
/// runs record it as `elastic`.
pub const BUDDY: OwnPlacement = OwnPlacement { name: "elastic", alternatives: &[] };

/// The buddy placement, or `placement: yarn`: for policies that place whole jobs picked by GPU
/// count, which MS-YARN can place instead.
pub const BUDDY_OR_YARN: OwnPlacement = OwnPlacement { alternatives: &[&yarn::INFO], ..BUDDY };
