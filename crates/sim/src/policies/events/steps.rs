//! Steps of ElasticFlow's simulator that several of its policies take as they are, named so that
//! each policy says which it takes ([`EventPolicy`] has no defaults for them): the EDF family
//! (`edf`, `edf-admission`, `edf-elastic`) and ElasticFlow step this way, Gandiva finishes its
//! jobs this way (`docs/elasticflow-semantics.md` §2.3, §2.8).
//!
//! [`EventPolicy`]: crate::core::events::EventPolicy

use crate::core::events::{EventSim, JobIdx};
use crate::core::{RunError, SimTime};

/// Finishes the jobs the current event ends, in its order: late iff the planned end is after
/// the deadline (§2.8).
pub fn finish_late_after_deadline(sim: &mut EventSim, ends: &[JobIdx]) {
    for &j in ends {
        let job = sim.job(j);
        let late = job.end_time > job.deadline();
        sim.finish(j, late);
    }
}

/// The next decision as the EDF family takes it (§2.3): none when no event remains; else the
/// scheduling-round counter (whose restart flag `charge` gets, to charge the policy's
/// reconfiguration overheads), then slot coalescing of arrivals and ends.
pub fn next_round_then_coalesce(
    sim: &mut EventSim,
    now: SimTime,
    charge: impl FnOnce(&mut EventSim, bool),
) -> Result<Option<SimTime>, RunError> {
    if !sim.has_events() {
        return Ok(None);
    }
    let restart = sim.next_round();
    charge(sim, restart);
    Ok(sim.coalesce_events(now, true))
}

/// Every job in `jobs` holding GPUs pays its reconfiguration overhead (its next step loses it
/// and its end event moves on by it, §2.5); `restart` is the round's restart flag.
pub fn charge_overheads(sim: &mut EventSim, jobs: impl Fn(&EventSim) -> &[JobIdx], restart: bool) {
    for k in 0..jobs(sim).len() {
        sim.charge_overhead(jobs(sim)[k], restart);
    }
}
