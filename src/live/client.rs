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

use super::auth::Key;
use super::protocol::{Connection, Handshake, Message, Peer};
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(10);

/// Where and who: read from the environment the agent gives a job.
struct Endpoint {
    scheduler: String,
    /// The attempt's credential: the key it proves itself with (never the cluster's token).
    credential: Key,
    /// Who the credential says the job is: job, attempt and run.
    peer: Peer,
}

/// A connection to the scheduler, opened at the first report; without `BLOX_SCHEDULER` (a
/// script run outside blox) every call is a no-op.
pub struct Client {
    endpoint: Option<Endpoint>,
    checkpoint_dir: Option<PathBuf>,
    connection: Option<Connection>,
}

impl Client {
    /// Reads `BLOX_SCHEDULER`, `BLOX_JOB_CREDENTIAL`, `BLOX_JOB_ID`, `BLOX_ATTEMPT`, `BLOX_RUN`
    /// and `BLOX_CHECKPOINT_DIR`. An error when `BLOX_SCHEDULER` is set but the credential, the
    /// job or the attempt is not. In a job placed on several nodes only `NODE_RANK` 0 reports
    /// (the others' reports are no-ops: they stop when their gang is stopped).
    pub fn from_env() -> Result<Client, String> {
        Client::from_vars(|name| std::env::var(name).ok())
    }

    /// As [`Client::from_env`], with the variables from `lookup` (a job that starts its own
    /// workers, a test).
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Result<Client, String> {
        let var = |name: &str| lookup(name).ok_or_else(|| format!("BLOX_SCHEDULER is set but {name} is not"));
        let number = |name: &str| var(name)?.parse().map_err(|e| format!("{name}: {e}"));
        let leader = lookup("NODE_RANK").is_none_or(|rank| rank.trim() == "0");
        let endpoint = match lookup("BLOX_SCHEDULER").filter(|_| leader) {
            Some(scheduler) => Some(Endpoint {
                scheduler,
                credential: Key::from_hex(&var("BLOX_JOB_CREDENTIAL")?)
                    .ok_or("BLOX_JOB_CREDENTIAL is not 64 hexadecimal digits")?,
                peer: Peer::Job {
                    job: number("BLOX_JOB_ID")?,
                    attempt: u32::try_from(number("BLOX_ATTEMPT")?).map_err(|e| format!("BLOX_ATTEMPT: {e}"))?,
                    run: lookup("BLOX_RUN"),
                },
            }),
            None => None,
        };
        Ok(Client { endpoint, checkpoint_dir: lookup("BLOX_CHECKPOINT_DIR").map(PathBuf::from), connection: None })
    }

    /// The job's checkpoint directory on this node (kept across its attempts); `None` outside blox.
    pub fn checkpoint_dir(&self) -> Option<&Path> {
        self.checkpoint_dir.as_deref()
    }

    /// Reports `iterations` done so far (cumulative over attempts) and returns whether the
    /// scheduler asks the job to checkpoint and exit 0 now. An unreachable scheduler is no
    /// error (a warning, `false`, and a new connection at the next report): training goes on,
    /// and signals still reach the job. A refusal, a scheduler that cannot prove that it knows
    /// the credential, or a confused answer is.
    pub fn report(&mut self, iterations: u64) -> Result<bool, String> {
        let Some(endpoint) = &self.endpoint else { return Ok(false) };
        let connection = match &mut self.connection {
            Some(connection) => connection,
            None => {
                let connected = Connection::connect(&endpoint.scheduler, TIMEOUT)
                    .map_err(|e| Handshake::Failed(format!("cannot connect: {e}")))
                    .and_then(|mut connection| {
                        connection
                            .writer
                            .stream()
                            .set_write_timeout(Some(TIMEOUT))
                            .map_err(|e| Handshake::Failed(e.to_string()))?;
                        connection.handshake(&endpoint.peer, &endpoint.credential, TIMEOUT).map(|()| connection)
                    });
                match connected {
                    Ok(connection) => self.connection.insert(connection),
                    Err(Handshake::Refused(reason)) => {
                        return Err(format!("cannot report to the scheduler at {}: {reason}", endpoint.scheduler));
                    }
                    Err(Handshake::Failed(why)) => return Ok(self.unreachable(&why)),
                }
            }
        };
        let answer = connection
            .writer
            .stream()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::net::TcpListener;

    const TOKEN: &str = "a-token-long-enough-to-use";

    fn client(vars: &[(&str, &str)]) -> Result<Client, String> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Client::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn outside_blox_every_call_is_a_no_op() {
        let mut client = client(&[]).unwrap();
        assert_eq!(client.report(5), Ok(false));
        assert_eq!(client.checkpoint_dir(), None);
        let missing = self::client(&[("BLOX_SCHEDULER", "127.0.0.1:1")]).err().unwrap();
        assert!(missing.contains("BLOX_JOB_CREDENTIAL"), "{missing}");
        let vars = [("BLOX_SCHEDULER", "127.0.0.1:1"), ("BLOX_JOB_CREDENTIAL", "zz"), ("BLOX_JOB_ID", "1")];
        let malformed = self::client(&[&vars[..], &[("BLOX_ATTEMPT", "0")]].concat()).err().unwrap();
        assert!(malformed.contains("not 64 hexadecimal digits"), "{malformed}");
    }

    /// The parts of a gang other than `NODE_RANK` 0 neither connect nor report.
    #[test]
    fn only_node_rank_0_of_a_gang_reports() {
        let vars = [("BLOX_SCHEDULER", "127.0.0.1:1"), ("BLOX_JOB_CREDENTIAL", "zz"), ("BLOX_JOB_ID", "1")];
        let mut other = client(&[&vars[..], &[("NODE_RANK", "1")]].concat()).unwrap();
        assert_eq!(other.report(5), Ok(false));
        let leader = client(&[&vars[..], &[("NODE_RANK", "0"), ("BLOX_ATTEMPT", "0")]].concat()).err().unwrap();
        assert!(leader.contains("not 64 hexadecimal digits"), "{leader}");
    }

    /// Who the stand-in accepted, and the reports it saw.
    type Seen = (Option<Peer>, Vec<u64>);

    /// A scheduler stand-in with `token`: accepts one job connection, then acks its progress
    /// reports, the second one with stop; (who it accepted, the reports) by join.
    fn scheduler(token: &'static str) -> (String, std::thread::JoinHandle<Seen>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let handle = std::thread::spawn(move || {
            let mut connection = Connection::new(listener.accept().unwrap().0).unwrap();
            let Ok(peer) = connection.accept(token, TIMEOUT) else { return (None, vec![]) };
            connection.send(&Message::Welcome {}).unwrap();
            let mut seen = Vec::new();
            while let Ok(Some(Message::Progress { iterations })) = connection.recv() {
                seen.push(iterations);
                connection.send(&Message::Ack { stop: seen.len() == 2 }).unwrap();
            }
            (Some(peer), seen)
        });
        (address, handle)
    }

    fn job_vars(address: &str, credential: &Key) -> Vec<(String, String)> {
        [
            ("BLOX_SCHEDULER", address),
            ("BLOX_JOB_CREDENTIAL", &credential.to_hex()),
            ("BLOX_JOB_ID", "4"),
            ("BLOX_ATTEMPT", "1"),
            ("BLOX_RUN", "r1"),
            ("BLOX_CHECKPOINT_DIR", "/c"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .to_vec()
    }

    fn client_of(vars: &[(String, String)]) -> Client {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        client(&vars).unwrap()
    }

    #[test]
    fn reports_are_acked_and_stop_comes_through() {
        let (address, scheduler) = scheduler(TOKEN);
        let mut client = client_of(&job_vars(&address, &Key::job(TOKEN, 4, 1, Some("r1"))));
        assert_eq!(client.checkpoint_dir(), Some(Path::new("/c")));
        assert_eq!(client.report(10), Ok(false));
        assert_eq!(client.report(20), Ok(true));
        drop(client);
        let (peer, seen) = scheduler.join().unwrap();
        assert_eq!(peer, Some(Peer::Job { job: 4, attempt: 1, run: Some("r1".into()) }));
        assert_eq!(seen, [10, 20]);
    }

    #[test]
    fn a_scheduler_without_the_token_is_an_error() {
        let (address, scheduler) = scheduler("another-token-of-enough-bytes");
        let mut client = client_of(&job_vars(&address, &Key::job(TOKEN, 4, 1, Some("r1"))));
        let e = client.report(1).unwrap_err();
        assert!(e.contains("could not prove that it holds the same token"), "{e}");
        assert_eq!(scheduler.join().unwrap(), (None, vec![]));
    }
}
