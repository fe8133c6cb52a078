//! Pollux (OSDI'21) as its trace simulator runs it, with the simulator's own baselines
//! (`docs/pollux-semantics.md`): decisions every interval, jobs that progress in steps at their
//! application's initial batch size through measured step times and gradient statistics
//! ([`profile`], [`job`]), restarts on every change of allocation, and the policies as
//! allocators of node-id lists over the shared [`frame`]: [`scheduler`] (Pollux: each job's
//! [`agent`] picks its batch, a seeded [`nsga2`] search picks the GPUs), [`tiresias`]
//! (Tiresias+TunedJobs), [`optimus`] (Optimus+Oracle+TunedJobs) and [`afs`] (AFS as DeepBoot's
//! simulator runs it), registered as specs name them in [`registered`].

pub mod afs;
pub mod agent;
pub mod frame;
pub mod job;
pub mod lbfgsb;
pub mod mesh;
pub mod nsga2;
pub mod optimus;
pub mod profile;
pub mod registered;
pub mod scheduler;
pub mod tiresias;
