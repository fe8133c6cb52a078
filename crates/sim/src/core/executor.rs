//! Where a round engine's decisions take effect.
//!
//! The round engine decides the same way whether it simulates or drives a real cluster; what
//! differs is where time comes from and how a running job's round is learnt. [`Simulated`] lets
//! each planned [`Quantum`] happen at once; live mode (`crate::live::scheduler`) waits for the wall
//! clock, launches and preempts real processes, and reports what they measured. The engine calls
//! an executor at three points of a round: before step 1 (`begin_round`, then `observe` per
//! running job and `node_changes`), and between the decision and its booking (`carry_out`).

use super::{ActiveJob, JobSlot, JobTable, PlacementDecisions, Quantum, SimTime};

/// What a running job did in the round that just ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    pub quantum: Quantum,
    /// The job stopped without its policy deciding it (its node was lost): it keeps the work it
    /// did, counts a preemption and waits to be placed again.
    pub interrupted: bool,
}

/// A node that left the cluster (its GPUs are unusable until it comes back) or came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeChange {
    pub node: usize,
    pub online: bool,
}

/// Carries out a round engine's decisions: in simulation ([`Simulated`]) or on real nodes.
pub trait Executor {
    /// Waits until the round that starts at `now` may begin.
    fn begin_round(&mut self, now: SimTime) -> Result<(), String>;

    /// What `job`, which held GPUs through the round that ends now, did in it; `job.quantum` is
    /// what its policy planned, and `whole_work` the job's whole work in its quanta's units
    /// (`RoundPolicy::whole_work`).
    fn observe(&mut self, job: &ActiveJob, whole_work: f64) -> Observation;

    /// Nodes that left or came back since the last call. A node leaves only after every job on
    /// it was observed interrupted.
    fn node_changes(&mut self, _changes: &mut Vec<NodeChange>) {}

    /// Carries out the round's decisions at `now`, before the engine books them (`jobs` still
    /// shows preempted jobs on their GPUs and launched jobs waiting).
    fn carry_out(&mut self, now: SimTime, jobs: &JobTable, decisions: &PlacementDecisions) -> Result<(), String>;

    /// Round `round` at `now` is booked: `jobs` hold their new GPUs and `order` is the policy's
    /// order of every active job. For an executor that shows the run (live mode's status page).
    fn booked(&mut self, _round: u64, _now: SimTime, _jobs: &JobTable, _order: &[JobSlot]) {}

    /// The run ended at `now` with `jobs` still active: stop what still runs.
    fn end(&mut self, _now: SimTime, _jobs: &JobTable) -> Result<(), String> {
        Ok(())
    }
}

/// Simulation: every planned quantum happens, at once and exactly.
#[derive(Debug, Clone, Copy, Default)]
pub struct Simulated;

impl Executor for Simulated {
    #[inline]
    fn begin_round(&mut self, _now: SimTime) -> Result<(), String> {
        Ok(())
    }

    #[inline]
    fn observe(&mut self, job: &ActiveJob, _whole_work: f64) -> Observation {
        Observation { quantum: job.quantum, interrupted: false }
    }

    #[inline]
    fn carry_out(&mut self, _now: SimTime, _jobs: &JobTable, _decisions: &PlacementDecisions) -> Result<(), String> {
        Ok(())
    }
}

impl<E: Executor + ?Sized> Executor for &mut E {
    fn begin_round(&mut self, now: SimTime) -> Result<(), String> {
        (**self).begin_round(now)
    }

    fn observe(&mut self, job: &ActiveJob, whole_work: f64) -> Observation {
        (**self).observe(job, whole_work)
    }

    fn node_changes(&mut self, changes: &mut Vec<NodeChange>) {
        (**self).node_changes(changes)
    }

    fn carry_out(&mut self, now: SimTime, jobs: &JobTable, decisions: &PlacementDecisions) -> Result<(), String> {
        (**self).carry_out(now, jobs, decisions)
    }

    fn booked(&mut self, round: u64, now: SimTime, jobs: &JobTable, order: &[JobSlot]) {
        (**self).booked(round, now, jobs, order)
    }

    fn end(&mut self, now: SimTime, jobs: &JobTable) -> Result<(), String> {
        (**self).end(now, jobs)
    }
}
