//! FGD's family (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
//! Fragmentation Gradient Descent", USENIX ATC'23; simulator github.com/hkust-adsl/
//! kubernetes-scheduler-simulator @ 8f3d641): the paper's six score policies for the placement
//! engine (`engine: {mode: placements}`, [`crate::core::placements`]), one file each:
//! [`fgd`], [`best_fit`], [`dot_product`], [`gpu_packing`], [`gpu_clustering`], [`random`]. The
//! rules are those of `docs/fgd-semantics.md`, cited by section in each file.

pub mod best_fit;
pub mod dot_product;
// The family is named after its own policy.
#[allow(clippy::module_inception)]
pub mod fgd;
pub mod gpu_clustering;
pub mod gpu_packing;
pub mod random;

/// `PolicyInfo::source` of the family's policies.
const SOURCE: &str = "FGD's simulator (hkust-adsl/kubernetes-scheduler-simulator @ 8f3d641), USENIX ATC'23";
