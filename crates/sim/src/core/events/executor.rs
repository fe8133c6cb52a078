//! Where an event engine's decisions take effect: the event engine's counterpart of the round
//! engine's [`Executor`](crate::core::Executor).
//!
//! An event policy decides at times it chooses (arrivals, planned ends, its own jumps) and
//! accounts progress with its model (throughput curves, seconds against duration). In simulation
//! ([`Simulated`]) that model is the run. On a real cluster (live mode) the engine waits for the
//! wall clock to reach each decision, replaces the model's progress by what the jobs measured
//! before the policy looks at it, ends a job exactly when its process finished, and hands every
//! decision to the executor, which turns the change of each job's GPUs into process starts and
//! checkpointed stops (a resize is a stop and a start at the new GPU count). The policies are
//! the simulator's, unchanged: a planned end a real job has not reached is not an end
//! ([`EventSim::completes`]), and the policy plans it again from its measured progress.

use super::{EventJob, EventSim};
use crate::core::{SimTime, Simulated};

/// What a job holding GPUs has done, as measured on the cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    /// The share of the job's whole work done so far, in `[0, 1]`, if the job reports progress;
    /// `None` leaves the policy's own accounting in place.
    pub done: Option<f64>,
    /// The time its process exited having done its work: the job's end.
    pub finished_at: Option<SimTime>,
}

/// Carries out an event engine's decisions: in simulation ([`Simulated`]) or on real nodes.
pub trait EventExecutor {
    /// Waits until the decision at `now` may be taken.
    fn begin_decision(&mut self, now: SimTime) -> Result<(), String>;

    /// Whether jobs' progress and ends are measured ([`EventExecutor::observe`]); in simulation
    /// they are the policy's model and the engine never asks.
    fn measures(&self) -> bool;

    /// What `job`, which holds GPUs, has done. An error (its process failed, its node was lost)
    /// ends the run: event policies plan every job to its end and have no way to drop one.
    fn observe(&mut self, job: &EventJob) -> Result<Measured, String>;

    /// Carries out the decision at `now`: `sim` shows every job on the GPUs it holds from now.
    fn carry_out(&mut self, now: SimTime, sim: &EventSim) -> Result<(), String>;

    /// The run ended at `now`: stop what still runs.
    fn end(&mut self, now: SimTime, sim: &EventSim) -> Result<(), String>;
}

impl EventExecutor for Simulated {
    #[inline]
    fn begin_decision(&mut self, _now: SimTime) -> Result<(), String> {
        Ok(())
    }

    #[inline]
    fn measures(&self) -> bool {
        false
    }

    fn observe(&mut self, _job: &EventJob) -> Result<Measured, String> {
        Ok(Measured { done: None, finished_at: None })
    }

    #[inline]
    fn carry_out(&mut self, _now: SimTime, _sim: &EventSim) -> Result<(), String> {
        Ok(())
    }

    #[inline]
    fn end(&mut self, _now: SimTime, _sim: &EventSim) -> Result<(), String> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::events::{EventConfig, EventEngine, EventPolicy};
    use crate::core::{ClusterSpec, JobSpec};
    use crate::policies::events::edf::Edf;
    use crate::policies::events::tiresias::Tiresias;
    use crate::profiles::ThroughputTable;
    use std::sync::Arc;

    /// A cluster on which every job's process takes `finish_at` seconds from time 0, however
    /// many GPUs the policy gives it, reporting its share of that time as progress.
    struct Slow {
        finish_at: f64,
        now: f64,
        decisions: Vec<f64>,
        gpus_seen: Vec<u32>,
    }

    impl EventExecutor for Slow {
        fn begin_decision(&mut self, now: SimTime) -> Result<(), String> {
            self.now = now;
            self.decisions.push(now);
            Ok(())
        }

        fn measures(&self) -> bool {
            true
        }

        fn observe(&mut self, job: &EventJob) -> Result<Measured, String> {
            self.gpus_seen.push(job.gpus);
            let finished = self.now >= self.finish_at;
            Ok(Measured {
                done: Some((self.now / self.finish_at).min(0.99)),
                finished_at: finished.then_some(self.finish_at),
            })
        }

        fn carry_out(&mut self, _now: SimTime, _sim: &EventSim) -> Result<(), String> {
            Ok(())
        }

        fn end(&mut self, _now: SimTime, _sim: &EventSim) -> Result<(), String> {
            Ok(())
        }
    }

    /// A job slower than its policy planned is not ended at its planned end: the policy plans
    /// it again from its reported progress until its process finishes, and its record ends at
    /// the process's exit, for an elastic policy (EDF) and for Tiresias' own end events alike.
    #[test]
    fn a_job_ends_when_its_process_finishes_not_at_its_planned_end() {
        let policies: [Box<dyn EventPolicy>; 2] = [Box::new(Edf::default()), Box::new(Tiresias::default())];
        for policy in policies {
            let config = EventConfig {
                cluster: ClusterSpec::uniform(1, 4),
                slot: 10.0,
                throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
                record_timeline: false,
            };
            let job = JobSpec {
                id: 0,
                gpus: 1,
                work: 40.0,
                model: Some("resnet50".into()),
                batch_size: Some(64),
                iterations: Some(274.0),
                deadline: Some(1000.0),
                ..JobSpec::default()
            };
            let mut slow = Slow { finish_at: 123.5, now: 0.0, decisions: Vec::new(), gpus_seen: Vec::new() };
            let out =
                EventEngine::new(config.clone(), policy, [job.clone()].into_iter()).unwrap().run_on(&mut slow).unwrap();
            assert_eq!(out.jobs[0].finish, Some(123.5), "decisions at {:?}", slow.decisions);
            assert!(slow.decisions.iter().filter(|&&t| t < 123.5).count() > 2, "re-planned: {:?}", slow.decisions);
            assert!(slow.gpus_seen.iter().all(|&g| g > 0));
        }
    }
}
