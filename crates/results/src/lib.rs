//! blox's outputs, the layer above the inputs (see `ARCHITECTURE.md`):
//! - [`results`]: Parquet tables of runs, jobs and timelines, and their readers.
//! - [`figures`]: paper-style figures (PNG, SVG, PDF) declared in a spec.
//!
//! The lower layers' modules are re-exported, so that paths read the same in every layer.

pub use blox_io::{core, data, digest, policies, profiles, table, text, trace, workload};

pub mod figures;
pub mod results;
