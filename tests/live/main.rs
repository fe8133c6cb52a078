//! Live mode's integration tests: `blox node` agents, `blox run` as the scheduler and job
//! processes on localhost. A binary of their own, run after the others by `cargo test`, because
//! they compare wall-clock runs with their simulation and must not share the cores with the
//! CPU-heavy reproduction tests.

#[path = "../common/mod.rs"]
mod common;
mod live_agent;
mod live_cluster;
mod live_elastic;
mod live_families;
mod live_kubernetes;
mod live_security;
mod live_status;
