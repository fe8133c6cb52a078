//! Where the engine's verbs ([`super::EventSim::place`], [`super::EventSim::place_widest_first`],
//! ...) put jobs: a policy brings a [`GpuPlacement`] ([`super::EventPolicy::placement`]) or none,
//! and a spec may give another ([`super::EventEngine::with_placement`]). The engine keeps each
//! job's GPUs and the cluster; a placement only chooses GPUs, and may remember its choices
//! between decisions (a configuration used before can be cheaper to start again).

use super::JobIdx;
use crate::core::{Cluster, GpuId};

/// A way of choosing GPUs for jobs on the engine's cluster of identical nodes.
pub trait GpuPlacement: Send {
    /// Places `job` on `gpus` GPUs: assigns them to it in `cluster` and writes them to `held`
    /// (empty before). False, with nothing taken, when the placement refuses.
    fn place(&mut self, cluster: &mut Cluster, job: JobIdx, gpus: u32, held: &mut Vec<GpuId>) -> bool;

    /// Gives back every GPU `job` holds (`held`, not empty; emptied).
    fn release(&mut self, cluster: &mut Cluster, job: JobIdx, held: &mut Vec<GpuId>);

    /// Whether a job that a widest-first pass cannot place waits for a later decision, where
    /// refusals are part of the rule (MS-YARN), rather than failing the run, where the original
    /// simulator asserts that placement succeeds (the buddy placement).
    fn refused_job_waits(&self) -> bool;

    /// After each decision: reports for every placed job (`gpus_of` gives its GPU count)
    /// whether its exact placement was already used since the last restart, then remembers the
    /// placements (ElasticFlow's rank cache). Default: nothing is remembered.
    fn recall(&mut self, _gpus_of: &dyn Fn(JobIdx) -> u32, _used_before: &mut dyn FnMut(JobIdx, bool)) {}

    /// The cluster restarts ([`super::EventSim::next_round`]): what was remembered is forgotten.
    fn restart(&mut self) {}
}

/// Makes a run's placement for a cluster of `nodes` nodes of `gpus_per_node` GPUs each.
pub type MakePlacement = fn(nodes: u32, gpus_per_node: u32) -> Box<dyn GpuPlacement>;
