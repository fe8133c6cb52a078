//! blox: declarative, parallel simulation of deep-learning GPU-cluster scheduling experiments.
//!
//! A workspace of four crates, inside out (see `ARCHITECTURE.md`); this one re-exports the
//! lower layers' modules, so `blox::core`, `blox::trace`, `blox::results` ... name them all:
//! - `blox-sim`: [`core`] (cluster, jobs, clock, policy traits, engines; no I/O), [`policies`],
//!   [`profiles`], [`table`] (the CSV reader of traces and policy inputs), [`text`].
//! - `blox-io`: [`trace`] formats, [`workload`] generators, [`data`] (datasets), [`digest`].
//! - `blox-results`: [`results`] (Parquet tables) and [`figures`].
//! - `blox` (here): [`spec`] (the YAML experiment spec and its grid), [`runner`] (a grid in
//!   parallel, skipping finished runs), [`cli`] (the binary is one call to [`cli::main`]),
//!   [`live`] (real-cluster mode), [`plugin`] (policies a program registers,
//!   [`cli::main_with`]), [`report`] (`blox report`), [`paper`] (published values and their
//!   checks), [`version`].

pub use blox_results::{core, data, digest, figures, policies, profiles, results, table, text, trace, workload};

pub mod cli;
pub mod live;
pub mod paper;
pub mod plugin;
pub mod report;
pub mod runner;
pub mod spec;
pub mod version;
