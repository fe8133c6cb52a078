//! blox's simulation core, the innermost layer (see `ARCHITECTURE.md`): everything that decides a
//! result row from a run's jobs, cluster and policies, and nothing that reads files, the network or
//! YAML documents from disk.
//! - [`core`]: cluster, jobs, clock, policy traits and the engines.
//! - [`policies`]: one file per admission / scheduling / placement policy, plus the registry.
//! - [`profiles`]: the measured tables policies read (throughputs, scaling curves, job sizes).
//! - [`table`]: the CSV table reader of traces and policy inputs, with file:line:column errors.
//! - [`text`]: escaping of file content echoed to the terminal.

pub mod core;
pub mod policies;
pub mod profiles;
pub mod table;
pub mod text;
