//! Steps of ElasticFlow's simulator that several of its policies take as they are, named so that
//! each policy says which it takes ([`EventPolicy`] has no defaults for them): the EDF family
//! (`edf`, `edf-admission`, `edf-elastic`) and ElasticFlow step this way, Gandiva finishes its
//! jobs this way (`docs/elasticflow-semantics.md` §2.3, §2.8).
//!
//! [`EventPolicy`]: crate::core::events::EventPolicy

use super::overhead::ElasticflowOverhead;
use crate::core::events::{EventSim, JobIdx};
use crate::core::{RunError, SimTime};

/// Finishes the jobs the current event ends, in its order: late iff the planned end is after
/// the deadline (§2.8). On a real cluster, a job whose process has not finished is not ended
/// ([`EventSim::completes`]).
pub fn finish_late_after_deadline(sim: &mut EventSim, ends: &[JobIdx]) {
    for &j in ends {
        if !sim.completes(j) {
            continue;
        }
        let job = sim.job(j);
        let (end, late) = (job.end_time, job.end_time > job.deadline());
        sim.finish(j, end, late);
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

/// Every job in `jobs` holding GPUs pays ElasticFlow's reconfiguration overhead, less for a
/// placement the buddy placement's rank cache held (its next step loses it and its planned end
/// moves on by it, §2.5: edf-accessctrl, ef, ef-accessctrl); the others pay none. `restart` is
/// the round's restart flag.
pub fn charge_overheads(sim: &mut EventSim, jobs: impl Fn(&EventSim) -> &[JobIdx], restart: bool) {
    let model = ElasticflowOverhead::of(sim);
    for k in 0..jobs(sim).len() {
        let j = jobs(sim)[k];
        let job = sim.job(j);
        if job.gpus == 0 {
            sim.set_overhead(j, 0.0);
            continue;
        }
        let overhead = model.estimate(job.gpus, restart, job.in_cache);
        let end = job.end_time + overhead;
        sim.set_overhead(j, overhead);
        sim.move_end(j, end);
    }
}
