//! The job side of the protocol in Rust: what a training program under `blox node` calls to
//! report progress and learn that it should checkpoint and stop. The same API as
//! `clients/python/blox_client.py`.
//!
//! ```no_run
//! let mut blox = blox::live::client::Client::from_env()?;
//! for iteration in 1..=1000u64 {
//!     // ... one training step ...
//!     if blox.report(iteration)? {
//!         // save a checkpoint under blox.checkpoint_dir(), then exit 0
//!         break;
//!     }
//! }
//! # Ok::<(), String>(())
//! ```

use super::protocol::{Connection, Handshake, Message, Role, VERSION};
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Where and who: read from the environment the agent gives a job.
struct Endpoint {
    scheduler: String,
    token: String,
    job: u64,
    attempt: u32,
}

/// A connection to the scheduler, opened at the first report; without `BLOX_SCHEDULER` (a
/// script run outside blox) every call is a no-op.
pub struct Client {
    endpoint: Option<Endpoint>,
    checkpoint_dir: Option<PathBuf>,
    connection: Option<Connection>,
}

impl Client {
    /// Reads `BLOX_SCHEDULER`, `BLOX_TOKEN`, `BLOX_JOB_ID`, `BLOX_ATTEMPT` and
    /// `BLOX_CHECKPOINT_DIR`. An error when `BLOX_SCHEDULER` is set but the others are not.
    pub fn from_env() -> Result<Client, String> {
        let var = |name: &str| std::env::var(name).map_err(|_| format!("BLOX_SCHEDULER is set but {name} is not"));
        let number = |name: &str| var(name)?.parse().map_err(|e| format!("{name}: {e}"));
        let endpoint = match std::env::var("BLOX_SCHEDULER") {
            Ok(scheduler) => Some(Endpoint {
                scheduler,
                token: var("BLOX_TOKEN")?,
                job: number("BLOX_JOB_ID")?,
                attempt: u32::try_from(number("BLOX_ATTEMPT")?).map_err(|e| format!("BLOX_ATTEMPT: {e}"))?,
            }),
            Err(_) => None,
        };
        Ok(Client {
            endpoint,
            checkpoint_dir: std::env::var_os("BLOX_CHECKPOINT_DIR").map(PathBuf::from),
            connection: None,
        })
    }

    /// The job's checkpoint directory on this node (kept across its attempts); `None` outside blox.
    pub fn checkpoint_dir(&self) -> Option<&Path> {
        self.checkpoint_dir.as_deref()
    }

    /// Reports `iterations` done so far (cumulative over attempts) and returns whether the
    /// scheduler asks the job to checkpoint and exit 0 now. An unreachable scheduler is no
    /// error (a warning, `false`, and a new connection at the next report): training goes on,
    /// and signals still reach the job. A refusal (wrong token) or a confused answer is.
    pub fn report(&mut self, iterations: u64) -> Result<bool, String> {
        let Some(endpoint) = &self.endpoint else { return Ok(false) };
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => {
                let hello = Message::Hello {
                    version: VERSION,
                    role: Role::Job,
                    token: endpoint.token.clone(),
                    node: None,
                    slots: None,
                    job: Some(endpoint.job),
                    attempt: Some(endpoint.attempt),
                };
                let connected = Connection::connect(&endpoint.scheduler, TIMEOUT)
                    .map_err(|e| Handshake::Failed(format!("cannot connect: {e}")))
                    .and_then(|mut connection| {
                        connection
                            .writer
                            .set_write_timeout(Some(TIMEOUT))
                            .map_err(|e| Handshake::Failed(e.to_string()))?;
                        connection.handshake(&hello, TIMEOUT).map(|()| connection)
                    });
                match connected {
                    Ok(connection) => self.connection.insert(connection),
                    Err(Handshake::Refused(reason)) => {
                        return Err(format!("the scheduler at {} refused this job: {reason}", endpoint.scheduler));
                    }
                    Err(Handshake::Failed(why)) => return Ok(self.unreachable(&why)),
                }
            }
        };
        let answer = connection
            .writer
            .set_read_timeout(Some(TIMEOUT))
            .and_then(|()| connection.send(&Message::Progress { iterations }))
            .map_err(|e| e.to_string())
            .and_then(|()| connection.recv().map_err(|e| e.to_string()));
        match answer {
            Ok(Some(Message::Ack { stop })) => Ok(stop),
            Ok(Some(other)) => {
                self.connection = None;
                Err(format!("the scheduler answered progress with {}", other.kind()))
            }
            Ok(None) => Ok(self.unreachable("it closed the connection")),
            Err(why) => Ok(self.unreachable(&why)),
        }
    }

    fn unreachable(&mut self, why: &str) -> bool {
        self.connection = None;
        if let Some(endpoint) = &self.endpoint {
            eprintln!("blox client: scheduler at {}: {why}; carrying on", endpoint.scheduler);
        }
        false
    }
}
