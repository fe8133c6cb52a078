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
use crate::core::{Executor, SimTime, Simulated};

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
    fn begin_decision(&mut self, now: SimTime) -> Result<(), String> {
        Executor::begin_round(self, now)
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

impl<E: EventExecutor + ?Sized> EventExecutor for &mut E {
    fn begin_decision(&mut self, now: SimTime) -> Result<(), String> {
        (**self).begin_decision(now)
    }

    fn measures(&self) -> bool {
        (**self).measures()
    }

    fn observe(&mut self, job: &EventJob) -> Result<Measured, String> {
        (**self).observe(job)
    }

    fn carry_out(&mut self, now: SimTime, sim: &EventSim) -> Result<(), String> {
        (**self).carry_out(now, sim)
    }

    fn end(&mut self, now: SimTime, sim: &EventSim) -> Result<(), String> {
        (**self).end(now, sim)
    }
}
