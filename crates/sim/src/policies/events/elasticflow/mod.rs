//! `elasticflow`: ElasticFlow (ASPLOS'23) itself, `ef-accessctrl` of its simulator:
//! `scheduler.py` `ef_sim_jobs_access_control` with the [`MssPlanner`] @ b3f5ea4
//! (`docs/elasticflow-semantics.md` §5, §5.1-5.3, §6.3).
//!
//! Rule: at every decision all runnable jobs are re-planned in deadline order by their Minimum
//! Satisfactory Share on an empty cluster. Arrivals are admitted all or nothing: the event's
//! arrivals join only if the plan of every runnable job plus all of them meets every deadline;
//! otherwise they are all declined (best-effort ones queue instead). Each job gets its plan's
//! GPUs now; pending jobs whose plan starts now start; leftover GPUs are handed out by marginal
//! GPU time ([`MssPlanner::allocate_free_gpus`]); jobs are placed widest first (buddy
//! placement). A decision also happens at the earliest later change of any plan (a "scale
//! event") if that comes before the next event. A job is accepted when it first starts and
//! declined at admission or when its unaligned planned end (`real_end_time`) is after its
//! deadline.
//!
//! Overheads (§2.5): after each decision every job holding GPUs pays
//! `ElasticflowOverhead::estimate(g, restart, cached)`: its next progress step loses that many
//! seconds and its planned end moves on by as much; the rank cache of the placement makes a
//! repeated configuration cheap.
//!
//! Quirks kept for fidelity (§12 items 1, 2, 4-8): the logged end is the slot-aligned plan end
//! plus the overheads charged since, while lateness is judged on `real_end_time`; an event's
//! ending job that holds no placement is not finished there (its next plan gives it a new end
//! event); slot coalescing delays decisions and completions; progress uses the early-finish rule
//! of §2.4. The original re-plans every job a second time on a fresh timeline after the admission
//! test; that gives the same plans and timeline, so blox keeps the first. An event that finds
//! nothing runnable and brings nothing is a no-op decision (the original skips it and then
//! decides at the same time without an event).
//!
//! [`ElasticFlow::paper_era`] reproduces the paper's own Figure 10 log: before ElasticFlow commit
//! a8c66e6 a job scaled up by the leftover allocation kept the `real_end_time` of its MSS plan
//! (§11). Only HEAD is in the spec registry.

pub mod edf_elastic;
pub mod planner;

use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, MakePlacement};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::buddy::{BuddyPlacement, CLASSES};
use crate::policies::events::{BUDDY, steps};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};
use planner::MssPlanner;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "elasticflow",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "minimum satisfactory shares, all-or-nothing admission, leftover GPUs by marginal GPU time",
    options: &[],
    source: "ElasticFlow (ASPLOS'23) itself: ef-accessctrl of its simulator (scheduler.py ef_sim_jobs_access_control)",
    placement: Some(BUDDY),
    parse: &|node| without_options(node, || Built::Event(Box::new(ElasticFlow::default()))),
};

#[derive(Debug, Default)]
pub struct ElasticFlow {
    planner: MssPlanner,
    candidates: Vec<JobIdx>,
    starting: Vec<JobIdx>,
    /// Whether the current event ended any job.
    ended: bool,
    /// The earliest later plan change of a runnable job (the scale event).
    scale_at: Option<SimTime>,
}

impl ElasticFlow {
    /// The variant before commit a8c66e6 (§11).
    pub fn paper_era() -> Self {
        Self { planner: MssPlanner::paper_era(), ..Self::default() }
    }
}

/// Places the jobs of `order` holding GPUs (§6.3): jobs of whole nodes or more in that order,
/// then each smaller class from the largest down, in that order within a class.
fn place_by_class(sim: &mut EventSim, order: &[JobIdx]) -> Result<(), RunError> {
    let gpn = sim.gpus_per_node();
    for &j in order {
        if sim.job(j).gpus >= gpn {
            sim.place(j)?;
        }
    }
    for &class in CLASSES.iter().rev().filter(|&&k| k < gpn) {
        for &j in order {
            if sim.job(j).gpus == class {
                sim.place(j)?;
            }
        }
    }
    Ok(())
}

impl EventPolicy for ElasticFlow {
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

    /// Ending jobs that hold a placement finish (on a real cluster, once their processes did);
    /// late iff the unaligned planned end is after the deadline (§6.3).
    fn complete(&mut self, sim: &mut EventSim, _now: SimTime, ends: &[JobIdx]) {
        self.ended = !ends.is_empty();
        for &j in ends {
            let job = sim.job(j);
            if !sim.is_placed(j) || !sim.completes(j) {
                continue;
            }
            let late = job.real_end_time.unwrap_or(job.end_time) > job.deadline();
            sim.finish(j, job.end_time, late);
        }
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        self.scale_at = None;
        // The original takes the event out of the list before handling it.
        if !sim.pop_event_at(now) {
            return Ok(());
        }
        if sim.pending().is_empty() && sim.running().is_empty() && arrivals.is_empty() && !self.ended {
            return Ok(());
        }
        sim.release_all();
        let mut admitted = false;
        if !arrivals.is_empty() {
            self.candidates.clear();
            self.candidates.extend_from_slice(sim.runnable());
            self.candidates.extend_from_slice(arrivals);
            admitted = self.planner.estimate_all(sim, &mut self.candidates, now)?;
            for &a in arrivals {
                if admitted || sim.job(a).spec.best_effort {
                    sim.enqueue(a);
                } else {
                    sim.decline(a);
                }
            }
        }
        if admitted {
            sim.reorder_runnable(|jobs, runnable| {
                runnable.sort_by(|&a, &b| jobs[a].deadline().total_cmp(&jobs[b].deadline()))
            });
        } else {
            self.candidates.clear();
            self.candidates.extend_from_slice(sim.runnable());
            self.planner.estimate_all(sim, &mut self.candidates, now)?;
            let planned = &self.candidates;
            sim.reorder_runnable(|_, runnable| runnable.copy_from_slice(planned));
        }
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let gpus = sim.job(j).allocations.get(now).unwrap_or(0);
            sim.set_gpus(j, gpus);
            sim.move_end(j, self.planner.planned_end(j));
        }
        // Every GPU is free here, so a pending job starts iff its plan does not start later.
        self.starting.clear();
        for &p in sim.pending() {
            let plan = sim.job(p).allocations.points();
            if plan.iter().find(|x| x.1 != 0).is_none_or(|x| x.0 <= now) {
                self.starting.push(p);
            }
        }
        for &p in &self.starting {
            sim.start(p, now);
            sim.add_end(p, sim.job(p).end_time);
        }
        self.planner.allocate_free_gpus(sim, now)?;
        sim.reorder_runnable(|jobs, runnable| runnable.sort_by_key(|&j| std::cmp::Reverse(jobs[j].gpus)));
        self.scale_at = sim
            .runnable()
            .iter()
            .filter_map(|&j| sim.job(j).allocations.points().iter().map(|p| p.0).find(|&t| t > now))
            .reduce(f64::min);
        self.candidates.clear();
        self.candidates.extend_from_slice(sim.runnable());
        place_by_class(sim, &self.candidates)
    }

    /// The scale event, if earlier than every event; then the EDF family's step: the round
    /// counter, every runnable job's overheads (§2.5) and slot coalescing.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        if let Some(t) = self.scale_at.take()
            && sim.next_event_time().is_none_or(|front| t < front)
        {
            sim.add_decision_at(t);
        }
        steps::next_round_then_coalesce(sim, now, |sim, restart| {
            steps::charge_overheads(sim, EventSim::runnable, restart)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::{EventConfig, EventEngine};
    use crate::core::{ClusterSpec, JobSpec, RunOutput};
    use crate::profiles::ThroughputTable;
    use std::sync::Arc;

    /// One 8-GPU A100 node, 240 s slot: jobs 0 (feasible alone) and 1 (no level meets its
    /// deadline) arrive together; job 2 arrives alone later.
    pub(super) fn three_jobs(policy: Box<dyn EventPolicy>) -> RunOutput {
        let job = |id: u64, arrival: f64, iterations: f64, deadline: f64| JobSpec {
            id,
            arrival,
            submitted: arrival,
            gpus: 1,
            work: 1.0,
            model: Some("resnet50".into()),
            batch_size: Some(256),
            iterations: Some(iterations),
            deadline: Some(deadline),
            ..JobSpec::default()
        };
        let jobs = [job(0, 0.0, 1000.0, 1000.0), job(1, 0.0, 1e6, 100.0), job(2, 5000.0, 1000.0, 7000.0)];
        let config = EventConfig {
            cluster: ClusterSpec::uniform(1, 8),
            slot: 240.0,
            throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
            record_timeline: false,
        };
        EventEngine::new(config, policy, jobs.into_iter()).unwrap().run().unwrap()
    }

    #[test]
    fn admission_is_all_or_nothing_per_event() {
        let out = three_jobs(Box::new(ElasticFlow::default()));
        let [a, b, c] = [0, 1, 2].map(|i| &out.jobs[i]);
        assert_eq!((a.first_start, a.met_deadline), (None, Some(false)), "declined with job 1");
        assert_eq!((b.first_start, b.met_deadline), (None, Some(false)));
        assert_eq!((c.first_start, c.met_deadline), (Some(5000.0), Some(true)));
        // Alone, job 2 scales to the whole node: 1000 / T(8) = 96.35 s, aligned to 240, plus
        // the uncached overhead 2 + 2 (3 + 1) = 10 s.
        assert_eq!((c.final_gpus, c.finish), (Some(8), Some(5250.0)));
    }
}
