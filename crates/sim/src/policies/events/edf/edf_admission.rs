//! `edf-admission`: earliest deadline first with elastic widths and admission control
//! (ElasticFlow ASPLOS'23 baseline "EDF + admission control"; `scheduler.py`
//! `one_queue_edf_sim_jobs_access_control` with `edf_sim_allocation` @ b3f5ea4,
//! `docs/elasticflow-semantics.md` §6.2, planner §4).
//!
//! Rule: arrivals are admitted one at a time, in event order: an arrival enters iff the EDF plan
//! ([`EdfPlanner`]) of every runnable job plus it, on an empty cluster from now, meets every
//! deadline (an admitted arrival counts for the next one); a refused arrival is declined and never
//! runs. Each admission applies the new plan to the running jobs (GPUs now, planned end) and to
//! the pending ones, which start if their plan gives them GPUs now. A decision without admissions
//! re-plans the runnable jobs in deadline order and starts or re-sizes them likewise. A job is
//! accepted when it first starts and declined at admission or when it completes after its
//! deadline. Every decision that leaves events charges each running job holding GPUs
//! `estimate(g, restart, cached)` seconds (§2.5), which delays its end.
//!
//! Quirks kept for fidelity: decisions and completions are coalesced to the slot (§2.3); when no
//! arrival is admitted, a job planned 0 GPUs keeps its old end event and so "completes" there
//! (§12); jobs are placed in runnable order, not widest first, so the buddy placement can
//! fragment (§2.6), which matters through the rank cache and its overheads. Deviation: where that
//! order leaves a job without room the original fails an assertion; blox places that decision
//! widest first instead (placement never changes speed).

use super::planner::EdfPlanner;
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus, MakePlacement};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::buddy::BuddyPlacement;
use crate::policies::events::{BUDDY, steps};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "edf-admission",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "EDF with admission control: an arrival enters iff the EDF plan meets every deadline",
    options: &[],
    source: "ElasticFlow's edf-accessctrl (ASPLOS'23 baseline, scheduler.py one_queue_edf_sim_jobs_access_control)",
    placement: Some(BUDDY),
    parse: &|node| without_options(node, || Built::Event(Box::new(EdfAdmission::default()))),
};

#[derive(Debug, Default)]
pub struct EdfAdmission {
    planner: EdfPlanner,
    candidates: Vec<JobIdx>,
    /// Pending jobs an admission starts, with their planned ends.
    started: Vec<(JobIdx, SimTime)>,
}

impl EdfAdmission {
    /// Applies `j`'s plan from the last estimate: its allocation and its GPUs now; returns the
    /// planned end.
    fn apply_plan(&self, sim: &mut EventSim, j: JobIdx) -> SimTime {
        let plan = self.planner.plan_of(j).expect("every runnable job was planned");
        sim.set_allocations(j, &plan.allocations);
        sim.set_gpus(j, plan.allocations.points().first().map_or(0, |p| p.1));
        plan.end
    }

    /// Admits `a` if the plan of the runnable jobs plus `a` meets every deadline; on admission
    /// the plan is applied to every runnable job. Returns whether `a` was admitted.
    fn admit(&mut self, sim: &mut EventSim, now: SimTime, a: JobIdx) -> Result<bool, RunError> {
        self.candidates.clear();
        self.candidates.extend_from_slice(sim.runnable());
        self.candidates.push(a);
        if !self.planner.estimate_all(sim.jobs(), &mut self.candidates, now, sim.total_gpus(), sim.slot())? {
            sim.decline(a);
            return Ok(false);
        }
        sim.enqueue(a);
        for k in 0..sim.running().len() {
            let j = sim.running()[k];
            let end = self.apply_plan(sim, j);
            sim.move_end(j, end);
        }
        self.started.clear();
        for k in 0..sim.pending().len() {
            let j = sim.pending()[k];
            let end = self.apply_plan(sim, j);
            if sim.job(j).gpus > 0 {
                self.started.push((j, end));
            }
        }
        for k in 0..self.started.len() {
            let (j, end) = self.started[k];
            sim.start(j, now);
            sim.add_end(j, end);
        }
        Ok(true)
    }

    /// A decision without admissions: re-plan the runnable jobs (re-sorting them by deadline);
    /// jobs planned GPUs now start or move their end, the others keep theirs.
    fn replan(&mut self, sim: &mut EventSim, now: SimTime) -> Result<(), RunError> {
        let (total, slot) = (sim.total_gpus(), sim.slot());
        let planner = &mut self.planner;
        sim.reorder_runnable(|jobs, runnable| planner.estimate_all(jobs, runnable, now, total, slot))?;
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let end = self.apply_plan(sim, j);
            if sim.job(j).gpus == 0 {
                continue;
            }
            if sim.job(j).status == JobStatus::Pending {
                sim.start(j, now);
                sim.add_end(j, end);
            } else {
                sim.move_end(j, end);
            }
        }
        Ok(())
    }
}

impl EventPolicy for EdfAdmission {
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
        sim.release_all();
        let mut admitted = false;
        for &a in arrivals {
            admitted |= self.admit(sim, now, a)?;
        }
        if !admitted {
            self.replan(sim, now)?;
        }
        if !sim.place_in_runnable_order()? {
            sim.place_widest_first()?;
        }
        Ok(())
    }

    /// Running jobs holding GPUs pay their reconfiguration overhead at the end of their plan.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        steps::next_round_then_coalesce(sim, now, |sim, restart| {
            steps::charge_overheads(sim, EventSim::running, restart)
        })
    }
}
