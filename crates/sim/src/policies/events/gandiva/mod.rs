//! `gandiva`: Gandiva's (OSDI'18) node sets with over-subscription and time slicing, as the
//! ElasticFlow (ASPLOS'23) simulator runs it as a baseline: `scheduler.py` `gandiva_sim_jobs`
//! with scheme `gandiva` @ b3f5ea4 (`docs/elasticflow-semantics.md` §9; placement in
//! [`node_sets`]).
//!
//! Rule: non-elastic: every job runs on the GPUs its trace asks for and progresses in seconds
//! against its duration. An arriving job joins a node set of its size class, a new set on free
//! nodes, or over-subscribes an existing set of its class; if none exists and no nodes are free it
//! waits, and waiting jobs are retried (in order) only after a set was released. In each set the
//! first `capacity` jobs run; at steps whose time is a multiple of 60 s the running jobs of an
//! over-subscribed set go to its back (time slicing). Each step first re-balances nodes between
//! classes by GPU demand. Steps are the arrivals, coalesced to at least a slot apart (§2.3), then
//! one every slot after the last arrival. At every step with arrivals still to come, every running
//! job loses `estimate(g, restart)` seconds (§2.5, no rank cache) of its next progress step.
//! Accepted when first placed; declined if it finishes after its deadline.
//!
//! Quirks kept for fidelity (§9.3, §12 item 10): completions are discovered only at steps and the
//! end is back-computed (`now - (executed - duration)`), the job holding its set until then;
//! "every 60 s" rotation happens only at steps whose time is a multiple of 60 s (with coalesced
//! arrivals, many steps are not); the retry of waiting jobs skips the job after each one that
//! starts (the original removes from the list it iterates); the overhead left to a job that did
//! not run is cleared only for jobs that once waited (the original clears it over its `runnable`
//! list, which jobs placed on arrival never join), so a job placed on arrival that sits behind
//! others keeps its stale overhead until it runs. Dropping the stale overhead, the skip, or the
//! expansion rule of [`node_sets`] each changes 12 to 165 rows of the Figure 10
//! or Figure 8a logs, which all match with them.

pub mod node_sets;

use crate::core::events::{EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{RunError, SimTime};
use crate::policies::events::buddy::CLASSES;
use crate::policies::events::overhead::ElasticflowOverhead;
use crate::policies::events::steps;
use crate::policies::{Built, Engine, Kind, OwnPlacement, PolicyInfo, without_options};
use node_sets::GandivaNodeSets;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gandiva",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "node sets per job size, over-subscription with 60 s time slicing, non-elastic",
    options: &[],
    source: "ElasticFlow's gandiva (Gandiva, OSDI'18; scheduler.py gandiva_sim_jobs)",
    placement: Some(OwnPlacement { name: "gandiva", alternatives: &[] }),
    parse: &|node| without_options(node, || Built::Event(Box::new(Gandiva::default()))),
};

/// Time-slicing period: over-subscribed sets rotate at steps whose time is a multiple of it.
const ROTATION_S: f64 = 60.0;

#[derive(Debug, Default)]
pub struct Gandiva {
    /// Built at the first step, when the cluster's shape is known.
    sets: Option<GandivaNodeSets>,
    /// Whether the last time-slicing step released a set (waiting jobs are then retried).
    released: bool,
    /// Unfinished jobs that once waited (the original's `runnable` list).
    waited: Vec<JobIdx>,
    /// Jobs found finished in the current step, in discovery order, with their back-computed
    /// ends.
    finished: Vec<(JobIdx, SimTime)>,
    /// By job: whether it is among the jobs its set runs now (the original's `node_set` marks,
    /// which its scheduling log counts as busy).
    occupying: Vec<bool>,
}

impl Gandiva {
    /// `try_get_job_res`: places `j` on its requested GPUs; whether it got a set. A size that
    /// is not a class is an error (the original exits).
    fn place(&mut self, sim: &mut EventSim, j: JobIdx) -> Result<bool, RunError> {
        let sets = self.sets.as_mut().expect("node sets exist from the first step");
        let (id, gpus) = (sim.job(j).spec.id, sim.job(j).spec.gpus);
        sets.place(sim.whole_nodes(), j, gpus).ok_or_else(|| RunError::InvalidJob {
            id,
            reason: format!("asks for {gpus} GPUs, which is not one of Gandiva's node-set sizes {CLASSES:?}"),
        })
    }

    fn start(sim: &mut EventSim, j: JobIdx, now: SimTime) {
        sim.start(j, now);
        sim.set_gpus(j, sim.job(j).spec.gpus);
    }
}

/// No engine placement: jobs take turns on Gandiva's own node sets, which set whole nodes aside in
/// the engine's cluster ([`EventSim::whole_nodes`]).
impl EventPolicy for Gandiva {
    fn complete(&mut self, sim: &mut EventSim, _now: SimTime, ends: &[JobIdx]) {
        steps::finish_late_after_deadline(sim, ends);
    }

    /// `gandiva_node_set_adjust` then `time_slicing_execute` (§9.2, §9.3): the running jobs of
    /// each set progress by the step less their overhead; finished ones complete at their
    /// back-computed end, sets left empty release their nodes.
    fn advance(&mut self, sim: &mut EventSim, delta: f64, now: SimTime) -> Result<(), RunError> {
        let gpn = sim.gpus_per_node();
        let Self { sets, released, waited, finished, .. } = self;
        let sets = sets.get_or_insert_with(|| GandivaNodeSets::new(sim.total_gpus() / gpn, gpn));
        sets.adjust(sim.whole_nodes());
        let rotate = (now % ROTATION_S).trunc() == 0.0;
        finished.clear();
        for list in sets.classes_mut() {
            for set in list.iter_mut() {
                let running = set.running();
                let first = finished.len();
                for &j in &set.jobs[..running] {
                    let job = sim.job(j);
                    let executed = job.life.executed_work + (delta - job.overhead).max(0.0);
                    let duration = job.spec.work;
                    sim.set_executed(j, executed);
                    sim.set_overhead(j, 0.0);
                    if executed >= duration {
                        finished.push((j, now - (executed - duration)));
                    }
                }
                if rotate && set.jobs.len() > running {
                    set.jobs.rotate_left(running);
                }
                let ended = &finished[first..];
                set.jobs.retain(|j| !ended.iter().any(|(e, _)| e == j));
            }
        }
        *released = sets.release_empty(sim.whole_nodes());
        for &(j, end) in finished.iter() {
            let late = end > sim.job(j).deadline();
            sim.finish(j, end, late);
        }
        waited.retain(|&j| sim.job(j).status != JobStatus::Finished);
        for &j in waited.iter() {
            sim.set_overhead(j, 0.0);
        }
        Ok(())
    }

    /// Arrivals are placed or wait; after a release, waiting jobs are retried in order (§9.3).
    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        for &a in arrivals {
            if self.place(sim, a)? {
                Self::start(sim, a, now);
            } else {
                sim.enqueue(a);
                self.waited.push(a);
            }
        }
        if std::mem::take(&mut self.released) {
            let mut k = 0;
            while k < sim.pending().len() {
                let p = sim.pending()[k];
                if self.place(sim, p)? {
                    // Leaves `pending` at `k`; the next one moves into `k` and is skipped.
                    Self::start(sim, p, now);
                }
                k += 1;
            }
        }
        self.occupying.resize(sim.jobs().len(), false);
        for set in self.sets.iter().flat_map(GandivaNodeSets::sets) {
            for (k, &j) in set.jobs.iter().enumerate() {
                self.occupying[j] = k < set.running();
            }
        }
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.occupying.get(j).copied().unwrap_or(false)
    }

    /// While arrivals remain: the round counter, every running job's overhead, slot coalescing
    /// of the arrivals. Afterwards one step per slot while jobs run (a waiting job with nothing
    /// running can never start: the run ends there).
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        if !sim.has_events() {
            return Ok((!sim.running().is_empty()).then_some(now + sim.slot()));
        }
        let restart = sim.next_round();
        let model = ElasticflowOverhead::of(sim);
        for k in 0..sim.running().len() {
            let j = sim.running()[k];
            let overhead = model.estimate(sim.job(j).gpus, restart, false);
            sim.set_overhead(j, overhead);
        }
        Ok(sim.coalesce_events(now, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::{EventConfig, EventEngine};
    use crate::core::{ClusterSpec, JobSpec};
    use crate::profiles::ThroughputTable;
    use std::sync::Arc;

    fn job(id: u64, arrival: f64, work: f64, deadline: f64) -> JobSpec {
        JobSpec {
            id,
            arrival,
            submitted: arrival,
            gpus: 1,
            work,
            model: Some("bert".into()),
            batch_size: Some(64),
            iterations: Some(work),
            deadline: Some(deadline),
            ..JobSpec::default()
        }
    }

    fn config(nodes: u32, gpus_per_node: u32) -> EventConfig {
        EventConfig {
            cluster: ClusterSpec::uniform(nodes, gpus_per_node),
            slot: 60.0,
            throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
            record_timeline: true,
        }
    }

    /// One GPU, two jobs arriving together: the second over-subscribes the set, the two take
    /// turns at steps on the 60 s grid, completions are found at steps and back-dated.
    #[test]
    fn over_subscribed_jobs_take_turns_and_ends_are_back_computed() {
        let jobs = [job(0, 0.0, 100.0, 150.0), job(1, 0.0, 30.0, 100.0)];
        let out =
            EventEngine::new(config(1, 1), Box::new(Gandiva::default()), jobs.into_iter()).unwrap().run().unwrap();
        // 0-60 job 0 runs (then rotates behind job 1); 60-120 job 1 runs and is done 30 s in;
        // 120-180 job 0 runs its last 40 s.
        let ends: Vec<_> = out.jobs.iter().map(|r| (r.first_start, r.finish, r.met_deadline)).collect();
        assert_eq!(ends, [(Some(0.0), Some(160.0), Some(false)), (Some(0.0), Some(90.0), Some(true))]);
        assert_eq!(out.summary.rounds, 4);
        // Only the job a set runs occupies the GPU; the last step finds none left.
        let free: Vec<_> = out.timeline.iter().map(|r| (r.time, r.free_gpus)).collect();
        assert_eq!(free, [(0.0, 0), (60.0, 0), (120.0, 0), (180.0, 1)]);
    }

    /// Gandiva's node sets are its own: it brings the engine no placement (whose verbs would
    /// fail the run without one); the engine counts the GPUs of the jobs its sets run. Two
    /// 1-GPU jobs share a 2-GPU node's set side by side (no decision with events left after
    /// the first charges an overhead).
    #[test]
    fn the_engine_runs_gandiva_without_a_placement() {
        assert!(Gandiva::default().placement().is_none());
        let jobs = [job(0, 0.0, 100.0, 1000.0), job(1, 0.0, 100.0, 1000.0)];
        let out =
            EventEngine::new(config(1, 2), Box::new(Gandiva::default()), jobs.into_iter()).unwrap().run().unwrap();
        let rows: Vec<_> = out.jobs.iter().map(|r| (r.first_start, r.finish)).collect();
        assert_eq!(rows, [(Some(0.0), Some(100.0)), (Some(0.0), Some(100.0))]);
        assert_eq!(out.timeline[0].free_gpus, 0, "each job runs on a GPU of the node set");
    }

    #[test]
    fn a_size_without_node_sets_is_an_error_naming_the_job() {
        let mut wide = job(4, 0.0, 10.0, 100.0);
        wide.gpus = 3;
        let engine = EventEngine::new(config(1, 4), Box::new(Gandiva::default()), [wide].into_iter()).unwrap();
        let error = engine.run().err().unwrap().to_string();
        assert!(
            error.starts_with("job 4: asks for 3 GPUs, which is not one of Gandiva's node-set sizes [1, 2, 4"),
            "{error}"
        );
    }
}
