//! Live mode: blox driving a real cluster instead of simulating one.
//!
//! A scheduler listens on TCP; on every node `blox node --scheduler HOST:PORT` runs an agent
//! ([`agent`]) that starts, signals and reaps the job processes ([`supervisor`]); jobs may talk
//! to the scheduler themselves ([`client`], `clients/python/blox_client.py`). The protocol
//! (version 1, [`protocol`]; `docs/live-protocol.md` message by message):
//!
//! - UTF-8 JSON, one message per line, lines at most 1 MiB; each message an object tagged by
//!   `"type"`, unknown fields refused.
//! - Every connection opens with `hello {version, role: agent|job, token, ...}` (agents add
//!   `node` and `slots`, jobs `job` and `attempt`); the scheduler answers `welcome`, or
//!   `refused {reason}` and closes. The token is a shared secret from a file or `BLOX_TOKEN`.
//! - Scheduler -> agent: `launch {job, attempt, argv, slots, env}`, `preempt {job, attempt,
//!   grace_s}` (SIGTERM to the job's process group, SIGKILL after the grace), `shutdown {}`.
//! - Agent -> scheduler: `started {job, attempt, pid}`, `exited {job, attempt, code, signal,
//!   reason, stderr_tail}`, `heartbeat {}`, and after each (re)connection the `exited` it could
//!   not deliver then `running {jobs}`, so that a restarted scheduler can resume.
//! - Job -> scheduler: `progress {iterations}`, answered `ack {stop}`; `stop: true` asks the
//!   job to checkpoint and exit 0 (cooperative preemption).
//!
//! Nothing here is used by the simulator; [`crate::core`] stays free of I/O.

pub mod agent;
pub mod client;
pub mod protocol;
pub mod scheduler;
pub mod supervisor;
