//! blox's inputs, the layer above the simulation core (see `ARCHITECTURE.md`):
//! - [`trace`]: trace formats, their detection and canonical form, inspection and writing.
//! - [`workload`]: generators and trace readers producing [`core::JobSpec`] streams.
//! - [`data`]: the public datasets blox knows, fetched, verified and cached.
//! - [`digest`]: SHA-256 of specs, inputs and downloads.
//!
//! The core's modules are re-exported, so that paths read the same in every layer.

pub use blox_sim::{core, policies, profiles, table, text};

pub mod data;
pub mod digest;
pub mod trace;
pub mod workload;
