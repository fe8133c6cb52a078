//! The event engine's schedulers ([`crate::core::events`]), by family. Each decides everything
//! (admission, GPU counts, placement) at arrivals and planned ends; a family shares a planner or
//! a placement, which sits beside its policies:
//! - [`edf`]: `edf` and `edf-admission` ([`edf::edf_admission`]) on the EDF planner
//!   ([`edf::planner`]);
//! - [`elasticflow`]: `elasticflow` and `edf-elastic` ([`elasticflow::edf_elastic`]) on the
//!   minimum-satisfactory-share planner ([`elasticflow::planner`]);
//! - [`gandiva`]: `gandiva` on its time-sliced node sets ([`gandiva::node_sets`]);
//! - [`tiresias`] and [`themis`], one file each;
//! - [`yarn`]: the placement a spec may give `tiresias` and `themis` instead of their own;
//! - [`steps`]: steps of ElasticFlow's simulator that several of these policies share.

pub mod edf;
pub mod elasticflow;
pub mod gandiva;
pub mod muri;
pub mod steps;
pub mod themis;
pub mod tiresias;
pub mod yarn;

use crate::policies::OwnPlacement;

/// ElasticFlow's buddy placement ([`crate::core::events::BuddyPlacement`]), which the event engine
/// runs for a policy that brings no other; runs record it as `elastic`.
pub const BUDDY: OwnPlacement = OwnPlacement { name: "elastic", alternatives: &[] };

/// The buddy placement, or `placement: yarn`: for policies that place whole jobs picked by GPU
/// count, which MS-YARN can place instead.
pub const BUDDY_OR_YARN: OwnPlacement = OwnPlacement { alternatives: &[&yarn::INFO], ..BUDDY };
