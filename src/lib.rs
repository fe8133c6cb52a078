//! blox: declarative, parallel simulation of deep-learning GPU-cluster scheduling experiments.
//!
//! Layers, inside out (see `ARCHITECTURE.md`):
//! - [`core`]: cluster, jobs, clock, policy traits and the engine; no I/O.
//! - [`policies`]: one file per admission / scheduling / placement policy, plus the registry.
//! - [`workload`]: generators and trace readers producing [`core::JobSpec`] streams.
//! - [`spec`]: the YAML experiment spec and its expansion into a grid of runs.
//! - [`results`]: Parquet tables of runs, jobs and timelines.
//! - [`runner`]: runs a grid in parallel with progress, skipping finished runs.
//! - [`cli`]: the `blox` command line (the binary is one call to [`cli::main`]).
//! - [`live`]: real-cluster mode: the wire protocol, the node agent (`blox node`), job clients.
//! - [`plugin`]: policies a program registers to run blox with its own ([`cli::main_with`]).
//! - [`report`]: `blox report`, one self-contained HTML page of a results directory.
//! - [`paper`]: published values a paper spec reproduces, and their checks.
//! - [`text`]: escaping of file content echoed to the terminal.

pub mod cli;
pub mod core;
pub mod data;
pub mod digest;
pub mod figures;
pub mod live;
pub mod paper;
pub mod plugin;
pub mod policies;
pub mod profiles;
pub mod report;
pub mod results;
pub mod runner;
pub mod spec;
pub mod text;
pub mod trace;
pub mod version;
pub mod workload;
