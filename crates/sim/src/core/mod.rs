//! The simulation core: cluster state, jobs, the clock and the policy traits.
//!
//! Nothing in here reads or writes files, parses YAML or knows about Parquet: a run is a pure
//! function of its [`engine::RunConfig`], its policies and its job source, so the same run gives
//! the same numbers on any thread of any machine.

pub mod cluster;
pub mod engine;
pub mod events;
pub mod executor;
pub mod go_random;
pub mod input;
pub mod job;
pub mod metrics;
pub mod placements;
pub mod policy;
pub mod python_random;
pub mod stop;

pub use cluster::{Cluster, ClusterSpec, GpuId, GpuType, HostShare, MILLI_PER_GPU, NodeGroup, NodeSpec, WholeNodes};
pub use engine::{Engine, RunConfig, RunError, Tracking};
pub use executor::{Executor, NodeChange, Observation, Simulated};
pub use job::{ActiveJob, JobId, JobLife, JobSlot, JobSpec, JobTable};
pub use metrics::{
    DeadlineStats, JobRecord, RecordSink, RunOutput, RunSummary, RunTables, SummaryBuilder, TimelineRow,
};
pub use policy::{
    Admission, AdmissionContext, Launch, OrderThenPlace, OverheadModel, Placement, PlacementDecisions, PolicyError,
    Quantum, RoundPolicy, RoundTiming, Scheduler,
};
pub use stop::StopFlag;

/// Simulated time in seconds since the start of the run.
///
/// `f64` holds every integer second of any realistic experiment exactly, and leaves room for the
/// fractional times of event-driven engines and throughput-scaled progress.
pub type SimTime = f64;
