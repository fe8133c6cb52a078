//! `edf`: earliest deadline first with elastic widths, no admission control (ElasticFlow ASPLOS'23
//! baseline; `scheduler.py` `one_queue_edf_sim_jobs` with `edf_sim_allocation` @ b3f5ea4,
//! `docs/elasticflow-semantics.md` §6.1).
//!
//! At every decision all runnable jobs (plus the event's arrivals) are re-planned by the
//! [`EdfPlanner`] in deadline order on an empty cluster; each job gets its plan's GPUs now and
//! its planned end as end event. Planning stops once no running job is left in deadline order
//! and no GPU is free now: each later job is pending and gets no GPU now, and nothing reads a
//! pending job's plan unless it gives GPUs now. A job is accepted when it first gets GPUs and
//! declined when it completes after its deadline. Quirks kept for fidelity: decisions and completions are delayed
//! by slot coalescing (§2.3), a job completes when its (possibly coalesced) end event is
//! processed and is logged with its planned end (§2.8), progress uses the early-finish rule of
//! §2.4, the planner's stale free count at aligned ends (§4 (*)), and when an event brings
//! arrivals the runnable order is left as it was (only arrival-free decisions re-sort it by
//! deadline), which fixes the order of later completions. Running jobs may drop to 0 GPUs and
//! stay started; no overhead is ever charged.

pub mod edf_admission;
pub mod planner;

use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus, MakePlacement};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::buddy::BuddyPlacement;
use crate::policies::events::{BUDDY, steps};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};
use planner::EdfPlanner;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "edf",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "earliest deadline first, elastic widths, no admission control",
    options: &[],
    source: "ElasticFlow's edf (ASPLOS'23 baseline, scheduler.py one_queue_edf_sim_jobs)",
    placement: Some(BUDDY),
    parse: &|node| without_options(node, || Built::Event(Box::new(Edf::default()))),
};

#[derive(Debug, Default)]
pub struct Edf {
    planner: EdfPlanner,
    candidates: Vec<JobIdx>,
}

impl EventPolicy for Edf {
    /// ElasticFlow's buddy placement, as in its simulator.
    fn placement(&self) -> Option<MakePlacement> {
        Some(BuddyPlacement::for_cluster)
    }

    /// Jobs are resized along their throughput curves, so every job needs one.
    fn check_job(&self, job: &EventJob, _cluster: &ClusterSpec) -> Result<(), String> {
        job.require_curve()
    }

    fn advance(&mut self, sim: &mut EventSim, delta: f64, now: SimTime) -> Result<(), RunError> {
        sim.run_all_jobs(delta, now)
    }

    fn complete(&mut self, sim: &mut EventSim, _now: SimTime, ends: &[JobIdx]) {
        steps::finish_late_after_deadline(sim, ends);
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        let (total, slot) = (sim.total_gpus(), sim.slot());
        let planner = &mut self.planner;
        if arrivals.is_empty() {
            sim.reorder_runnable(|jobs, runnable| planner.estimate_now(jobs, runnable, now, total, slot))?;
        } else {
            self.candidates.clear();
            self.candidates.extend_from_slice(sim.runnable());
            self.candidates.extend_from_slice(arrivals);
            planner.estimate_now(sim.jobs(), &mut self.candidates, now, total, slot)?;
            for &a in arrivals {
                sim.enqueue(a);
            }
        }
        sim.release_all();
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            // Unplanned: pending, and no GPU now.
            let Some(plan) = self.planner.plan_of(j) else { continue };
            sim.set_allocations(j, &plan.allocations);
            sim.set_gpus(j, plan.allocations.points().first().map_or(0, |p| p.1));
            if sim.job(j).status == JobStatus::Running {
                sim.move_end(j, plan.end);
            } else if sim.job(j).gpus > 0 {
                sim.start(j, now);
                sim.add_end(j, plan.end);
            }
        }
        sim.place_widest_first()
    }

    /// Planned ends cost nothing to reconfigure (edf computes 0).
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        steps::next_round_then_coalesce(sim, now, |_, _| {})
    }
}
