//! `muri-srtf`: shortest remaining time first as the Muri (SIGCOMM'22) simulator runs it, its
//! `--schedule shortest` baseline (`run_sim.py` `shortest_first_sim_jobs(gputime=False)`,
//! `docs/muri-semantics.md` §3); also the engine of `muri-srsf` ([`super::srsf`]).
//!
//! Rule: at every arrival and every completion, the runnable jobs are stably sorted by their
//! remaining time, `iterations left × solo iteration time` (for `muri-srsf`, times the GPU count),
//! and the cluster is refilled from empty in that order with MS-YARN's first fit: a job that does
//! not fit is skipped and later, smaller jobs may still start (no head-of-line blocking). Running
//! jobs outside the result are preempted; jobs run alone at their solo iteration time. Progress,
//! overheads, completions and the next decision are the family's ([`super::family`]), with an
//! end and an arrival merged only when exactly equal.
//!
//! Quirks kept: the remaining time of a pending job is the one computed when it last ran (or
//! arrived); ties keep the previous decision's order, arrivals behind in trace order; every
//! running job is charged its restart overhead in every event interval (§2.4).

use super::MURI_YARN;
use super::family::{Coincidence, Family, check_placed_job, job_overhead};
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-srtf",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri's SRTF: shortest remaining time first at every arrival and completion, skip what does not fit",
    options: &[],
    source: "Muri's shortest (Muri, SIGCOMM'22; run_sim.py shortest_first_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &|node| without_options(node, || Built::Event(Box::new(ShortestFirst::new(false)))),
};

/// `shortest_first_sim_jobs`: by remaining time, or by remaining GPU time (`by_gpu_time`).
#[derive(Debug)]
pub struct ShortestFirst {
    by_gpu_time: bool,
    family: Family,
    /// Per job index: the sort key (`remaining_time`, or `remaining_gputime`).
    key: Vec<f64>,
}

impl ShortestFirst {
    pub fn new(by_gpu_time: bool) -> Self {
        Self { by_gpu_time, family: Family::new(Coincidence::Exact), key: Vec::new() }
    }

    /// The key of `j` from its iterations left: `remaining_iteration × iteration_time`, times the
    /// GPU count for SRSF.
    fn key_of(&self, sim: &EventSim, j: JobIdx) -> f64 {
        let job = self.family.job(j);
        let remaining_time = job.remaining * job.solo;
        if self.by_gpu_time { remaining_time * f64::from(sim.job(j).spec.gpus) } else { remaining_time }
    }
}

impl EventPolicy for ShortestFirst {
    fn check_job(&self, job: &EventJob, cluster: &ClusterSpec) -> Result<(), String> {
        let spec = &job.spec;
        check_placed_job(spec, cluster, false)
    }

    /// Progress is accounted in [`EventPolicy::decide`], after the arrivals (§3 step 2).
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    fn complete(&mut self, sim: &mut EventSim, now: SimTime, _ends: &[JobIdx]) {
        self.family.complete(sim, now);
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        self.family.arrive(sim, arrivals);
        self.key.resize(sim.jobs().len(), 0.0);
        for &j in arrivals {
            let overhead = job_overhead(&sim.job(j).spec)
                .map_err(|e| RunError::InvalidJob { id: sim.job(j).spec.id, reason: e.to_string() })?;
            let solo = self.family.job(j).solo;
            self.family.set_speed(j, solo, overhead);
            self.key[j] = self.key_of(sim, j);
        }
        self.family.progress(sim, now);
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            if sim.job(j).status == JobStatus::Running {
                self.key[j] = self.key_of(sim, j);
            }
        }
        let key = &self.key;
        sim.reorder_runnable(|_, runnable| {
            runnable.sort_by(|&a, &b| key[a].partial_cmp(&key[b]).unwrap_or(std::cmp::Ordering::Equal))
        });
        self.family.clear_run_set(sim);
        self.family.empty_nodes();
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            if self.family.nodes().take(sim.job(j).spec.gpus) {
                self.family.run(j, true);
            }
        }
        self.family.apply(sim, now);
        self.family.plan_ends(sim, now);
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.family.occupies(j)
    }

    fn next_decision(&mut self, sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
        Ok(self.family.next_decision(sim))
    }
}
