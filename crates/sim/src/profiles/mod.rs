//! Measured model profiles: how fast a training job runs at each allocation.
//!
//! Elastic schedulers (ElasticFlow, Pollux, ...) decide how many GPUs a job gets from measured
//! scaling curves rather than from a fixed duration, so their simulations need the published
//! tables. [`throughput`] holds ElasticFlow's A100 and T4 tables, embedded in the binary, and
//! reads user-supplied tables in the same long CSV format. [`gpu_time`] reads job-size
//! distributions (Tiresias' Gittins index). [`gavel`] reads Gavel's throughput oracle (steps per
//! second per job type, scale factor and GPU type, alone and space-shared). [`synergy`] holds Synergy's
//! model zoo (ideal CPUs and memory per GPU, speedup, iteration time per profile set).

pub mod gavel;
pub mod gpu_time;
pub mod synergy;
pub mod throughput;

pub use gpu_time::GpuTimeDistribution;
pub use throughput::{ProfileError, ScalingCurve, ThroughputTable};
