//! `edf-elastic`: ElasticFlow's "EDF + elastic scaling" baseline (ASPLOS'23 §6.4 / Figure 9),
//! `ef` of its simulator: `scheduler.py` `ef_sim_jobs` with the [`MssPlanner`] @ b3f5ea4
//! (`docs/elasticflow-semantics.md` §5, §5.1-5.3, §6.4).
//!
//! Rule: ElasticFlow without admission control. Every arrival joins; at every decision all
//! runnable jobs are re-planned in deadline order by their Minimum Satisfactory Share on an
//! empty cluster and get their plan's GPUs now; pending jobs whose plan starts now start, the
//! others get a decision at their plan's start; leftover GPUs go out by marginal GPU time
//! ([`MssPlanner::allocate_free_gpus`]); running jobs get a decision at their plan's next change
//! and are placed widest first. A job is accepted when it first starts and declined when its
//! logged end (the slot-aligned plan end plus the overheads charged since) is after its deadline,
//! which is stricter than ElasticFlow's test on the unaligned end. Running jobs holding GPUs pay
//! `ElasticflowOverhead::estimate(g, restart, cached)` after each decision, as in `elasticflow`.
//!
//! Quirks kept for fidelity (§12 items 1, 3-8): slot coalescing of arrivals, ends and scale
//! events; the early-finish rule of §2.4; planning and marginal quirks of the planner; the
//! placement walks `running` in start order, not re-sorted. An ending job without a placement
//! (one whose plan gives it no GPU now) would crash the original's release; blox leaves it
//! runnable, as `elasticflow` does. No original output exists to check this policy against
//! (its Figure 9 traces have unseeded deadlines, §13).

use super::place_by_class;
use super::planner::MssPlanner;
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, MakePlacement};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::buddy::BuddyPlacement;
use crate::policies::events::{BUDDY, steps};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "edf-elastic",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "EDF + elastic scaling: ElasticFlow's planner without admission control",
    options: &[],
    source: "ElasticFlow's ef (ASPLOS'23 Figure 9 baseline, scheduler.py ef_sim_jobs)",
    placement: Some(BUDDY),
    parse: &|node| without_options(node, || Built::Event(Box::new(EdfElastic::default()))),
};

#[derive(Debug, Default)]
pub struct EdfElastic {
    planner: MssPlanner,
    starting: Vec<JobIdx>,
    /// The runnable jobs in deadline order, then the running ones in start order to place.
    order: Vec<JobIdx>,
}

impl EventPolicy for EdfElastic {
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

    /// Ending jobs that hold a placement finish; late iff the logged end is after the deadline.
    fn complete(&mut self, sim: &mut EventSim, _now: SimTime, ends: &[JobIdx]) {
        for &j in ends {
            let job = sim.job(j);
            if sim.is_placed(j) && sim.completes(j) {
                let late = job.end_time > job.deadline();
                sim.finish(j, job.end_time, late);
            }
        }
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        if !sim.pop_event_at(now) {
            return Ok(());
        }
        for &a in arrivals {
            sim.enqueue(a);
        }
        sim.release_all();
        self.order.clear();
        self.order.extend_from_slice(sim.runnable());
        self.planner.estimate_all(sim, &mut self.order, now)?;
        let planned = &self.order;
        sim.reorder_runnable(|_, runnable| runnable.copy_from_slice(planned));
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let gpus = sim.job(j).allocations.get(now).unwrap_or(0);
            sim.set_gpus(j, gpus);
            sim.move_end(j, self.planner.planned_end(j));
        }
        // Every GPU is free here: a pending job starts unless its plan starts later, when it
        // gets a decision then.
        self.starting.clear();
        for k in 0..sim.pending().len() {
            let p = sim.pending()[k];
            match sim.job(p).allocations.points().iter().find(|x| x.1 != 0) {
                Some(&(t, _)) if t > now => sim.add_decision_at(t),
                _ => self.starting.push(p),
            }
        }
        for &p in &self.starting {
            sim.start(p, now);
            sim.add_end(p, sim.job(p).end_time);
        }
        self.planner.allocate_free_gpus(sim, now)?;
        for k in 0..sim.running().len() {
            let j = sim.running()[k];
            if let Some(t) = sim.job(j).allocations.points().iter().map(|p| p.0).find(|&t| t > now) {
                sim.add_decision_at(t);
            }
        }
        self.order.clear();
        self.order.extend_from_slice(sim.running());
        place_by_class(sim, &self.order)
    }

    /// The EDF family's step; every running job holding GPUs pays its reconfiguration overhead
    /// (§6.4).
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        steps::next_round_then_coalesce(sim, now, |sim, restart| {
            steps::charge_overheads(sim, EventSim::running, restart)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::events::elasticflow::tests::three_jobs;

    #[test]
    /// Without admission control the infeasible job 1 (earliest deadline) is admitted, holds the
    /// node and makes the two others late (`elasticflow` declines 0 and 1 and meets 2).
    fn an_infeasible_arrival_is_admitted_and_makes_the_others_late() {
        let out = three_jobs(Box::new(EdfElastic::default()));
        assert!(out.jobs.iter().all(|r| r.first_start.is_some() && r.finish.is_some()));
        assert!(out.jobs.iter().all(|r| r.met_deadline == Some(false)));
        let finish = |i: usize| out.jobs[i].finish.unwrap();
        assert!(finish(1) < finish(0) && finish(1) < finish(2));
    }
}
