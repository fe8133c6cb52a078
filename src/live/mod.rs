//! Live mode: blox driving a real cluster instead of simulating one.
//!
//! A scheduler listens on TCP; on every node `blox node --scheduler HOST:PORT` runs an agent
//! ([`agent`]) that starts, signals and reaps the job processes ([`supervisor`]); jobs may talk
//! to the scheduler themselves ([`client`], `clients/python/blox_client.py`). The protocol
//! (version 2, [`protocol`]; `docs/live-protocol.md` message by message, with the threat model):
//!
//! - UTF-8 JSON, one message per line, lines at most 1 MiB; each message an object tagged by
//!   `"type"`, unknown fields refused.
//! - Every connection opens with a handshake ([`auth`]) in which no secret crosses the wire:
//!   `hello {version, role: agent|job, nonce, ...}` (agents add `node` and `slots`, jobs `job`,
//!   `attempt` and `run`), the scheduler's `challenge {nonce, proof}`, the peer's `auth {proof}`:
//!   HMAC-SHA256 proofs over both nonces and the hello, the scheduler's first, each keyed by the
//!   peer's key (agents: derived from the shared token; jobs: their attempt's credential, derived
//!   from the token by both the agent and the scheduler). Then `welcome`, or `refused {reason}`.
//! - Every message after the proofs is sealed: an HMAC under a key fresh for the connection
//!   over its direction, its sequence number and its JSON, so that none can be forged, changed,
//!   replayed or reordered.
//! - Scheduler -> agent: `launch {job, attempt, argv, slots, env, run}`, `preempt {job, attempt,
//!   grace_s}` (SIGTERM to the job's process group, SIGKILL after the grace), `shutdown {}`.
//! - Agent -> scheduler: `started {job, attempt, pid}`, `exited {job, attempt, code, signal,
//!   reason, stderr_tail}`, `heartbeat {}`, and after each (re)connection the `exited` it could
//!   not deliver then `running {jobs}`, so that a restarted scheduler can resume.
//! - Job -> scheduler: `progress {iterations}` (of its own attempt only), answered `ack {stop}`;
//!   `stop: true` asks the job to checkpoint and exit 0 (cooperative preemption).
//!
//! - HTTP on the same port ([`status`]): a read-only status page of the current run and its JSON,
//!   for whoever proves the token with HTTP Digest.
//!
//! Nothing here is used by the simulator; [`crate::core`] stays free of I/O.

pub mod agent;
pub mod auth;
pub mod client;
pub mod kubernetes;
pub mod protocol;
pub mod scheduler;
pub mod slurm;
pub mod status;
pub mod supervisor;
