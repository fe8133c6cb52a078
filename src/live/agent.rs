//! The node agent (`blox node`): keeps a connection to the scheduler, starts and stops job
//! processes as it is told, and reports how they end, across lost connections.
//!
//! It takes orders only from a scheduler that proved, in the handshake, that it holds the
//! token, and only in sealed messages; each job gets its attempt's credential, never the token.

use super::auth::Key;
use super::protocol::{Connection, Handshake, Message, MessageReader, MessageWriter, Peer, Slot, SlotKind};
use super::supervisor::{Reaped, Supervisor};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Bounds a write to a scheduler that stopped reading, so the agent goes on supervising its jobs.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(10);

pub struct Config {
    /// `host:port` of the scheduler; also given to jobs as `BLOX_SCHEDULER`.
    pub scheduler: String,
    pub token: String,
    pub node: String,
    pub slots: Vec<Slot>,
    /// Job output and checkpoints: `<work_dir>/runs/<run>/jobs/<job>/` (`<work_dir>/jobs/<job>/`
    /// for a launch without a run).
    pub work_dir: PathBuf,
    pub heartbeat: Duration,
    /// SIGTERM-to-SIGKILL grace when the agent itself stops.
    pub shutdown_grace: Duration,
}

/// What wakes the agent's loop.
pub enum Event {
    /// A message on connection number `.0`.
    Received(u64, Message),
    /// Connection number `.0` is gone, and why.
    Lost(u64, String),
    Reaped(Reaped),
    /// SIGTERM or Ctrl-C: stop the jobs and exit (a second one: kill them now).
    Stop,
}

/// Runs the agent until it is told to stop (an [`Event::Stop`] on `events`, or `shutdown` from
/// the scheduler) and its jobs are gone. `sender` must feed `events`. An error is fatal: before
/// it was ever welcomed, the scheduler refused the node or could not prove that it holds the
/// token.
pub fn run(config: Config, sender: Sender<Event>, events: Receiver<Event>) -> Result<(), String> {
    let notify_sender = sender.clone();
    let notify = Arc::new(move |reaped| {
        let _ = notify_sender.send(Event::Reaped(reaped));
    });
    let mut agent = Agent {
        supervisor: Supervisor::new(config.work_dir.clone(), notify),
        config,
        sender,
        link: None,
        welcomed: false,
        generation: 0,
        undelivered: VecDeque::new(),
        backoff: FIRST_BACKOFF,
        next_connect: Instant::now(),
        next_heartbeat: Instant::now(),
        stopping: false,
        refused: None,
    };
    agent.run(events)
}

struct Agent {
    config: Config,
    supervisor: Supervisor,
    sender: Sender<Event>,
    /// The writing half of the current connection, once welcomed.
    link: Option<MessageWriter>,
    /// Whether a scheduler ever welcomed this agent: from then on a refusal may be a moment's
    /// (a scheduler that has not seen the old connection end, one restarted with another
    /// token, an impostor where it was), and the agent keeps its jobs and tries again.
    welcomed: bool,
    /// Numbers connections, so that the reader thread of a dropped one is not mistaken for the
    /// current one's.
    generation: u64,
    /// `exited` messages that could not be written; sent first after the next welcome.
    undelivered: VecDeque<Message>,
    backoff: Duration,
    next_connect: Instant,
    next_heartbeat: Instant,
    stopping: bool,
    /// Why the scheduler refused this node, once it has: the agent's error when it exits.
    refused: Option<String>,
}

impl Agent {
    fn run(&mut self, events: Receiver<Event>) -> Result<(), String> {
        loop {
            if self.stopping && self.supervisor.is_empty() {
                if !self.undelivered.is_empty() {
                    log(&format!("{} exit reports could not be delivered", self.undelivered.len()));
                }
                if let Some(link) = self.link.take() {
                    link.shutdown();
                }
                return self.refused.take().map_or(Ok(()), Err);
            }
            let now = Instant::now();
            if self.link.is_none() && !self.stopping && now >= self.next_connect {
                self.connect();
            }
            self.supervisor.kill_overdue(Instant::now());
            if self.link.is_some() && Instant::now() >= self.next_heartbeat {
                self.send(Message::Heartbeat {});
            }
            let timer = match &self.link {
                Some(_) => Some(self.next_heartbeat),
                None if !self.stopping => Some(self.next_connect),
                None => None,
            };
            let wake = [self.supervisor.next_kill(), timer].into_iter().flatten().min();
            let wake = wake.unwrap_or(now + self.config.heartbeat);
            let timeout = wake.saturating_duration_since(Instant::now()).max(Duration::from_millis(10));
            match events.recv_timeout(timeout) {
                Ok(Event::Received(generation, message)) if generation == self.generation => self.handle(message),
                Ok(Event::Lost(generation, why)) if generation == self.generation && self.link.is_some() => {
                    log(&format!("lost the scheduler at {}: {why}", self.config.scheduler));
                    self.drop_link();
                }
                Ok(Event::Received(..) | Event::Lost(..)) => {}
                Ok(Event::Reaped(reaped)) => {
                    let exited = self.supervisor.reaped(reaped);
                    self.send(exited);
                }
                Ok(Event::Stop) => self.stop(),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err("the agent's event channel closed".into()),
            }
        }
    }

    /// One attempt to connect and be welcomed; on failure the next is scheduled with backoff.
    /// A refusal (or a scheduler that cannot prove it holds the token) before the first welcome
    /// stops the agent: the node is misconfigured, or something else answers at the address,
    /// and no job runs yet. After a welcome, the agent keeps its jobs and tries again.
    fn connect(&mut self) {
        let address = &self.config.scheduler;
        let peer = Peer::Agent { node: self.config.node.clone(), slots: self.config.slots.clone() };
        let key = Key::agent(&self.config.token);
        let connected = Connection::connect(address, CONNECT_TIMEOUT)
            .map_err(|e| Handshake::Failed(format!("cannot connect: {e}")))
            .and_then(|mut connection| connection.handshake(&peer, &key, CONNECT_TIMEOUT * 2).map(|()| connection));
        let connection = match connected {
            Ok(connection) => connection,
            Err(Handshake::Refused(reason)) if !self.welcomed => {
                self.refused =
                    Some(format!("cannot serve the scheduler at {address} as node {}: {reason}", self.config.node));
                self.stop();
                return;
            }
            Err(Handshake::Refused(why) | Handshake::Failed(why)) => {
                log(&format!("scheduler at {address}: {why}; retrying in {} s", self.backoff.as_secs()));
                self.next_connect = Instant::now() + self.backoff;
                self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                return;
            }
        };
        self.welcomed = true;
        let Connection { reader, writer } = connection;
        if let Err(e) = writer.stream().set_write_timeout(Some(WRITE_TIMEOUT)) {
            log(&format!("cannot bound writes to the scheduler: {e}"));
        }
        self.generation += 1;
        let generation = self.generation;
        let sender = self.sender.clone();
        let spawned =
            std::thread::Builder::new().name("scheduler-reader".into()).spawn(move || read(reader, generation, sender));
        if let Err(e) = spawned {
            log(&format!("cannot start a thread to read from the scheduler: {e}"));
            self.next_connect = Instant::now() + self.backoff;
            return;
        }
        log(&format!("connected to the scheduler at {address} as node {}", self.config.node));
        self.link = Some(writer);
        self.backoff = FIRST_BACKOFF;
        self.next_heartbeat = Instant::now() + self.config.heartbeat;
        // Exits the scheduler missed, then what still runs: enough for a restarted scheduler
        // to rebuild its view of this node.
        let pending = std::mem::take(&mut self.undelivered);
        for exited in pending {
            self.send(exited);
        }
        self.send(Message::Running { jobs: self.supervisor.running() });
    }

    fn drop_link(&mut self) {
        if let Some(link) = self.link.take() {
            // Ends the reader thread too.
            link.shutdown();
        }
        self.next_connect = Instant::now() + self.backoff;
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }

    /// Writes a message; `exited` messages that cannot be written are kept for the next
    /// connection, others (heartbeats, `started`, `running`) are superseded by the inventory.
    fn send(&mut self, message: Message) {
        if let Some(link) = &mut self.link {
            match link.send(&message) {
                Ok(()) => {
                    self.next_heartbeat = Instant::now() + self.config.heartbeat;
                    return;
                }
                Err(e) => {
                    log(&format!("cannot write to the scheduler at {}: {e}", self.config.scheduler));
                    self.drop_link();
                }
            }
        }
        if matches!(message, Message::Exited { .. }) {
            self.undelivered.push_back(message);
        }
    }

    fn handle(&mut self, message: Message) {
        match message {
            Message::Launch { job, attempt, argv, slots, env, run } => {
                // A launch repeated (a scheduler resending after a reconnection) is no new process.
                if let Some(pid) = self.supervisor.pid(job, attempt) {
                    return self.send(Message::Started { job, attempt, pid });
                }
                let outcome = self.job_env(job, attempt, run.as_deref(), &slots, env).and_then(|env| {
                    if self.stopping {
                        return Err("the node is shutting down".into());
                    }
                    self.supervisor.launch(job, attempt, run.as_deref(), &argv, &env)
                });
                match outcome {
                    Ok(pid) => self.send(Message::Started { job, attempt, pid }),
                    Err(why) => self.send(Message::Exited {
                        job,
                        attempt,
                        code: None,
                        signal: None,
                        reason: super::protocol::ExitReason::FailedToStart,
                        stderr_tail: why,
                    }),
                }
            }
            Message::Preempt { job, attempt, grace_s } => {
                // Negative: at once; too large for a Duration: as long as the supervisor allows.
                let grace = Duration::try_from_secs_f64(grace_s).unwrap_or(if grace_s > 0.0 {
                    Duration::MAX
                } else {
                    Duration::ZERO
                });
                if !self.supervisor.preempt(job, attempt, grace) {
                    log(&format!("preempt: job {job} attempt {attempt} does not run here (it may have just ended)"));
                }
            }
            Message::Shutdown {} => {
                log("the scheduler asked this node to shut down");
                self.stop();
            }
            Message::Heartbeat {} => {}
            other => log(&format!("ignored a {} message from the scheduler", other.kind())),
        }
    }

    /// The environment blox gives a job, on top of (and overriding) the launch's `env`: among
    /// others its attempt's credential (`BLOX_JOB_CREDENTIAL`), derived here from the token, so
    /// that neither the token nor the credential crosses the wire.
    fn job_env(
        &self,
        job: u64,
        attempt: u32,
        run: Option<&str>,
        slots: &[String],
        env: std::collections::BTreeMap<String, String>,
    ) -> Result<Vec<(String, String)>, String> {
        if let Some(run) = run.filter(|run| !super::protocol::is_valid_run_name(run)) {
            return Err(format!("the run name `{run}` is not a plain directory name"));
        }
        let mut gpus = Vec::new();
        for id in slots {
            match self.config.slots.iter().find(|s| &s.id == id) {
                Some(slot) if slot.kind == SlotKind::Gpu => gpus.push(id.as_str()),
                Some(_) => {}
                None => return Err(format!("slot {id} is not one of node {}'s", self.config.node)),
            }
        }
        let mut env: Vec<_> = env.into_iter().collect();
        env.extend([
            ("CUDA_VISIBLE_DEVICES".to_string(), gpus.join(",")),
            ("BLOX_SLOTS".into(), slots.join(",")),
            ("BLOX_SCHEDULER".into(), self.config.scheduler.clone()),
            ("BLOX_JOB_CREDENTIAL".into(), Key::job(&self.config.token, job, attempt, run).to_hex()),
            ("BLOX_JOB_ID".into(), job.to_string()),
            ("BLOX_ATTEMPT".into(), attempt.to_string()),
            ("BLOX_CHECKPOINT_DIR".into(), self.supervisor.checkpoint_dir(run, job).display().to_string()),
        ]);
        if let Some(run) = run {
            env.push(("BLOX_RUN".into(), run.to_string()));
        }
        Ok(env)
    }

    fn stop(&mut self) {
        if self.stopping {
            log("stopping now: killing the jobs");
            self.supervisor.kill_all();
        } else {
            self.stopping = true;
            if !self.supervisor.is_empty() {
                log(&format!("stopping the jobs (SIGKILL after {} s)", self.config.shutdown_grace.as_secs_f64()));
            }
            self.supervisor.preempt_all(self.config.shutdown_grace);
        }
    }
}

/// The reader thread of connection `generation`: hands every message to the loop, then why it ended.
fn read(mut reader: MessageReader, generation: u64, sender: Sender<Event>) {
    let why = loop {
        match reader.recv() {
            Ok(Some(message)) => {
                if sender.send(Event::Received(generation, message)).is_err() {
                    return;
                }
            }
            Ok(None) => break "the scheduler closed the connection".to_string(),
            Err(e) => break e.to_string(),
        }
    };
    let _ = sender.send(Event::Lost(generation, why));
}

fn log(message: &str) {
    eprintln!("blox node: {}", crate::text::escape_control(message));
}
