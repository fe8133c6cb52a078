//! The scheduler side of live mode: the round engine's decisions carried out by `blox node`
//! agents, progress measured instead of simulated.
//!
//! One [`Scheduler`] listens for a whole sweep (agents stay connected from run to run); each run
//! gets a [`LiveRun`], the [`Executor`] the round engine calls. The policies are the simulator's,
//! unchanged: what differs is where a round's [`Quantum`] comes from.
//!
//! - **Time** is the wall clock since the run began; round `k` starts at `k * round_s` seconds
//!   (the engine's time), so a live run's times mean what a simulated run's do. A job that ends
//!   mid-round is seen at the next round, as in the simulator.
//! - **Nodes**: node `i` of the spec's cluster is the `i`-th connected agent by node name, using
//!   its first slots. A run waits up to `wait_for_nodes_s` for enough agents.
//! - **Launch**: a new attempt (numbered per job across the sweep, so no two attempts of a sweep
//!   share a number) with the command template filled in; it is sent only once the previous
//!   attempts on its slots have exited (a preempted job may take its grace period), and that wait
//!   is part of its measured launch overhead.
//! - **Preempt**: `preempt` to the agent (SIGTERM, SIGKILL after `grace_s`) and `stop: true` in
//!   the answer to the job's next progress report (checkpoint and exit 0).
//! - **Progress**: a job that reports iterations advances by the share of its iterations done
//!   (in the job's seconds of work, the unit its policy ranks by); one that does not report
//!   advances by the seconds it ran. It completes when its process exits with status 0.
//! - **Failures**: a nonzero exit, a signal blox did not send, or a command that cannot start
//!   ends the job unfinished (its record has no finish) and the attempts table says why. An agent
//!   that goes away (connection closed, no heartbeat for [`SILENCE`]) takes its node out of the
//!   cluster; its jobs are interrupted and wait to be placed again. When it comes back, what it
//!   still runs of older attempts is killed before its node is used again.

use super::protocol::{self, Argv, Connection, ExitReason, Message, Peer, RunningJob, Slot};
use crate::core::{
    ActiveJob, ClusterSpec, Executor, JobTable, NodeChange, Observation, PlacementDecisions, Quantum, SimTime, StopFlag,
};
use crate::results::AttemptRow;
use crate::spec::LiveCommand;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// An agent silent this long (it sends a heartbeat every 5 s) is taken for gone.
pub const SILENCE: Duration = Duration::from_secs(20);

/// How long a write to an agent may block (its socket buffer full) before it is taken for gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a peer has to say hello after connecting.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// How often a waiting scheduler looks at what the agents reported.
const POLL: Duration = Duration::from_millis(10);

/// What a live sweep needs besides the runs' plans (from the spec's `engine.live`).
#[derive(Debug, Clone)]
pub struct Settings {
    pub listen: String,
    pub token: String,
    pub command: LiveCommand,
    pub iterations_per_s: f64,
    pub grace_s: f64,
    pub wait_for_nodes: Duration,
    pub env: BTreeMap<String, String>,
}

/// The listening scheduler of a live sweep.
pub struct Scheduler {
    shared: Arc<Shared>,
    address: SocketAddr,
    settings: Settings,
}

struct Shared {
    state: Mutex<State>,
    token: String,
    closing: AtomicBool,
    next_connection: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Default)]
struct State {
    /// The current run's clock; attempts' times are seconds since it.
    clock: Option<Instant>,
    agents: BTreeMap<String, Agent>,
    /// Attempts by (job, attempt): the current run's, and earlier runs' still ending.
    attempts: HashMap<(u64, u32), Attempt>,
    /// Each job's next attempt number: attempts count on across the sweep, so that no two
    /// attempts of a sweep (and no late report of an earlier run's) share a number.
    next_attempt: HashMap<u64, u32>,
}

impl State {
    fn seconds(&self) -> f64 {
        self.clock.map_or(0.0, |c| c.elapsed().as_secs_f64())
    }
}

struct Agent {
    /// Which connection is the agent's current one (an older connection's end is no news).
    connection: u64,
    /// `None` while the agent is away.
    writer: Option<TcpStream>,
    slots: Vec<Slot>,
    /// Whether its inventory (`running`) arrived since it connected.
    inventory: bool,
    /// Processes of attempts blox no longer wants that still run there; the node is not used
    /// until they have exited.
    leftovers: HashSet<(u64, u32)>,
}

impl Agent {
    fn usable(&self) -> bool {
        self.writer.is_some() && self.inventory && self.leftovers.is_empty()
    }

    fn send(&mut self, message: &Message) {
        if let Some(writer) = &mut self.writer
            && protocol::write_message(writer, message).is_err()
        {
            // Its reader sees the broken connection and reports the agent gone.
            let _ = writer.shutdown(std::net::Shutdown::Both);
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Decided; waits for its slots to be free.
    Waiting,
    /// Sent to the agent.
    Sent,
    Ended,
}

struct Attempt {
    node: String,
    slots: Vec<String>,
    launch: Message,
    phase: Phase,
    /// Whether blox asked it to stop (a preemption or the run's end).
    stopping: bool,
    row: AttemptRow,
    /// Cumulative iterations reported by the job (any attempt's reports count on).
    iterations: Option<u64>,
    exit: Option<ExitReason>,
    /// The node's agent went away while it ran (or before it was sent).
    lost: bool,
}

impl Attempt {
    fn occupies(&self, node: &str, slot: &str) -> bool {
        self.phase == Phase::Sent && self.node == node && self.slots.iter().any(|s| s == slot)
    }
}

impl Scheduler {
    /// Listens on `settings.listen` and accepts agents and jobs on background threads.
    pub fn start(settings: Settings) -> Result<Scheduler, String> {
        let listener = TcpListener::bind(&settings.listen)
            .map_err(|e| format!("live: cannot listen on {}: {e}", settings.listen))?;
        let address = listener.local_addr().map_err(|e| format!("live: {e}"))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            token: settings.token.clone(),
            closing: AtomicBool::new(false),
            next_connection: AtomicU64::new(0),
        });
        let acceptor = shared.clone();
        std::thread::Builder::new()
            .name("live-accept".into())
            .spawn(move || accept(listener, acceptor))
            .map_err(|e| format!("live: cannot start the listener thread: {e}"))?;
        Ok(Scheduler { shared, address, settings })
    }

    /// The address agents and jobs connect to (with the port the system chose for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Starts run `run` (a plain directory name, unique per run of the sweep) on `cluster`:
    /// waits for enough agents and binds them to the cluster's nodes.
    pub fn begin_run(
        &self,
        run: &str,
        cluster: &ClusterSpec,
        round_seconds: f64,
        stop: StopFlag,
    ) -> Result<LiveRun<'_>, String> {
        if !protocol::is_valid_run_name(run) {
            return Err(format!("live: the run name `{run}` is not a plain directory name"));
        }
        let deadline = Instant::now() + self.settings.wait_for_nodes;
        let nodes = loop {
            if let Some(nodes) = self.bind(cluster)? {
                break nodes;
            }
            if stop.is_stopped() {
                return Err("stopped while waiting for agents".into());
            }
            if Instant::now() >= deadline {
                return Err(self.missing_nodes(cluster));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        self.shared.lock().clock = Some(Instant::now());
        let mut gpu_slot = Vec::new();
        for (n, node) in cluster.nodes.iter().enumerate() {
            gpu_slot.extend((0..node.gpus as usize).map(|i| (n, i)));
        }
        Ok(LiveRun {
            scheduler: self,
            run: run.to_string(),
            online: vec![true; nodes.len()],
            nodes,
            gpu_slot,
            round_seconds,
            current: HashMap::new(),
            counted_iterations: HashMap::new(),
            counted_seconds: HashMap::new(),
            holding: HashMap::new(),
            stop,
            ended: false,
        })
    }

    /// Node `i` of `cluster` -> (agent name, its slot ids used), once enough usable agents are
    /// connected; an error when one can never fit.
    fn bind(&self, cluster: &ClusterSpec) -> Result<Option<Vec<BoundNode>>, String> {
        let state = self.shared.lock();
        let usable: Vec<(&String, &Agent)> = state.agents.iter().filter(|(_, a)| a.usable()).collect();
        if usable.len() < cluster.nodes.len() {
            return Ok(None);
        }
        let mut nodes = Vec::new();
        for (i, (node, (name, agent))) in cluster.nodes.iter().zip(usable).enumerate() {
            if (agent.slots.len() as u32) < node.gpus {
                return Err(format!(
                    "live: node {i} of the cluster has {} GPUs but agent `{name}` (node {i} by name) offers {} slots",
                    node.gpus,
                    agent.slots.len()
                ));
            }
            nodes.push((name.clone(), agent.slots[..node.gpus as usize].iter().map(|s| s.id.clone()).collect()));
        }
        Ok(Some(nodes))
    }

    fn missing_nodes(&self, cluster: &ClusterSpec) -> String {
        let state = self.shared.lock();
        let connected: Vec<String> = state
            .agents
            .iter()
            .filter(|(_, a)| a.writer.is_some())
            .map(|(name, a)| format!("{name} ({} slots)", a.slots.len()))
            .collect();
        format!(
            "live: the cluster has {} nodes but {} agents are connected after {:.0} s{}{}; start `blox node --scheduler {}` on each node",
            cluster.nodes.len(),
            connected.len(),
            self.settings.wait_for_nodes.as_secs_f64(),
            if connected.is_empty() { "" } else { ": " },
            connected.join(", "),
            self.address
        )
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        // Wakes the acceptor so that it sees `closing`.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_millis(200));
    }
}

fn accept(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.closing.load(Ordering::SeqCst) {
            return;
        }
        let Ok(stream) = stream else { continue };
        let shared = shared.clone();
        let _ = std::thread::Builder::new().name("live-peer".into()).spawn(move || serve(stream, &shared));
    }
}

/// One connection: the hello, then the agent's or the job's messages until it ends.
fn serve(stream: TcpStream, shared: &Shared) {
    let Ok(mut connection) = Connection::new(stream) else { return };
    let _ = connection.writer.set_read_timeout(Some(HELLO_TIMEOUT));
    let peer = match connection.recv() {
        Ok(Some(hello)) => protocol::check_hello(&hello, &shared.token),
        _ => return,
    };
    let peer = match peer {
        Ok(peer) => peer,
        Err(reason) => {
            eprintln!("live: refused a connection from {}: {reason}", peer_address(&connection));
            let _ = connection.send(&Message::Refused { reason });
            return;
        }
    };
    if connection.send(&Message::Welcome {}).is_err() {
        return;
    }
    match peer {
        Peer::Agent { node, slots } => serve_agent(connection, shared, node, slots),
        Peer::Job { job, attempt } => serve_job(connection, shared, job, attempt),
    }
}

fn peer_address(connection: &Connection) -> String {
    connection.writer.peer_addr().map_or_else(|_| "?".into(), |a| a.to_string())
}

fn serve_agent(mut connection: Connection, shared: &Shared, node: String, slots: Vec<Slot>) {
    let id = shared.next_connection.fetch_add(1, Ordering::SeqCst);
    let Ok(writer) = connection.writer.try_clone() else { return };
    // Socket options are shared by the clones: silence ends the reader, and a writer blocked
    // by an agent that stopped reading gives up instead of holding the scheduler's lock.
    let _ = connection.writer.set_read_timeout(Some(SILENCE));
    let _ = connection.writer.set_write_timeout(Some(WRITE_TIMEOUT));
    {
        let mut state = shared.lock();
        if let Some(w) = state.agents.get(&node).and_then(|a| a.writer.as_ref()) {
            // A restarted agent whose old connection is not noticed yet: the new one wins.
            let _ = w.shutdown(std::net::Shutdown::Both);
        }
        let agent = Agent { connection: id, writer: Some(writer), slots, inventory: false, leftovers: HashSet::new() };
        eprintln!("live: node {node} connected ({} slots)", agent.slots.len());
        state.agents.insert(node.clone(), agent);
    }
    let reader = &mut connection.reader;
    loop {
        let message = match protocol::read_message(reader) {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(e) => {
                eprintln!("live: node {node}: {e}");
                break;
            }
        };
        let mut state = shared.lock();
        if state.agents.get(&node).is_none_or(|a| a.connection != id) {
            return;
        }
        on_agent_message(&mut state, &node, message);
    }
    let mut state = shared.lock();
    if state.agents.get(&node).is_some_and(|a| a.connection == id) {
        agent_gone(&mut state, &node);
    }
}

/// The agent of `node` went away: its node leaves the cluster and its attempts are lost.
fn agent_gone(state: &mut State, node: &str) {
    let now = state.seconds();
    if let Some(agent) = state.agents.get_mut(node) {
        agent.writer = None;
        agent.inventory = false;
    }
    eprintln!("live: node {node} is gone");
    for attempt in state.attempts.values_mut().filter(|a| a.node == node && a.phase != Phase::Ended) {
        attempt.phase = Phase::Ended;
        attempt.lost = true;
        attempt.row.ended = Some(now);
    }
}

fn on_agent_message(state: &mut State, node: &str, message: Message) {
    let now = state.seconds();
    match message {
        Message::Started { job, attempt, .. } => {
            if let Some(a) = state.attempts.get_mut(&(job, attempt)) {
                a.row.started.get_or_insert(now);
            }
        }
        Message::Exited { job, attempt, code, signal, reason, stderr_tail } => {
            if let Some(agent) = state.agents.get_mut(node) {
                agent.leftovers.remove(&(job, attempt));
            }
            if let Some(a) = state.attempts.get_mut(&(job, attempt)).filter(|a| a.node == node) {
                if a.phase != Phase::Ended {
                    a.phase = Phase::Ended;
                    a.row.ended = Some(now);
                }
                a.exit = Some(reason);
                a.row.exit_code = code.and_then(|c| u32::try_from(c).ok());
                a.row.signal = signal.and_then(|s| u32::try_from(s).ok());
                a.row.stderr_tail = stderr_tail;
            }
        }
        Message::Running { jobs } => {
            // What the agent no longer runs and never reported ended (its `exited` came before
            // `running`) was lost with an earlier connection: a replaced agent process, a
            // message lost in a broken connection.
            for (key, a) in state.attempts.iter_mut() {
                if a.node == node && a.phase == Phase::Sent && !jobs.iter().any(|j| (j.job, j.attempt) == *key) {
                    a.phase = Phase::Ended;
                    a.lost = true;
                    a.row.ended = Some(now);
                }
            }
            let Some(agent) = state.agents.get_mut(node) else { return };
            agent.inventory = true;
            for RunningJob { job, attempt, .. } in jobs {
                let wanted =
                    state.attempts.get(&(job, attempt)).is_some_and(|a| a.node == node && a.phase == Phase::Sent);
                if !wanted {
                    // An attempt of before the agent went away, or of an earlier scheduler.
                    eprintln!(
                        "live: node {node} still runs job {job} attempt {attempt}, no longer wanted: stopping it"
                    );
                    agent.leftovers.insert((job, attempt));
                    agent.send(&Message::Preempt { job, attempt, grace_s: 0.0 });
                }
            }
        }
        Message::Heartbeat {} => {}
        other => eprintln!("live: node {node} sent an unexpected {} message", other.kind()),
    }
}

fn serve_job(mut connection: Connection, shared: &Shared, job: u64, attempt: u32) {
    let _ = connection.writer.set_read_timeout(None);
    while let Ok(Some(message)) = connection.recv() {
        let Message::Progress { iterations } = message else {
            eprintln!("live: job {job} attempt {attempt} sent an unexpected {} message", message.kind());
            return;
        };
        let stop = {
            let mut state = shared.lock();
            let now = state.seconds();
            match state.attempts.get_mut(&(job, attempt)) {
                // A report may be read after the agent's news of the exit that followed it.
                Some(a) => {
                    a.iterations = Some(a.iterations.unwrap_or(0).max(iterations));
                    a.row.first_progress.get_or_insert(now);
                    a.stopping || a.phase != Phase::Sent
                }
                // Not an attempt of this sweep (a process of an earlier scheduler): it should stop.
                None => true,
            }
        };
        if connection.send(&Message::Ack { stop }).is_err() {
            return;
        }
    }
}

/// A cluster node as a live run uses it: its agent's name and the slot ids of its GPUs.
type BoundNode = (String, Vec<String>);

/// One live run: the round engine's [`Executor`] on the scheduler's agents.
pub struct LiveRun<'a> {
    scheduler: &'a Scheduler,
    run: String,
    /// Cluster node -> its agent.
    nodes: Vec<BoundNode>,
    online: Vec<bool>,
    /// Cluster GPU id -> (node, index into its slot ids).
    gpu_slot: Vec<(usize, usize)>,
    round_seconds: f64,
    /// Each job's current attempt.
    current: HashMap<u64, u32>,
    /// Iterations of each job (cumulative over its attempts) already counted as progress.
    counted_iterations: HashMap<u64, u64>,
    /// Seconds each attempt that does not report iterations ran, already counted as progress.
    counted_seconds: HashMap<(u64, u32), f64>,
    /// Jobs the engine has running, by the cluster node they run on: a node leaves the cluster
    /// only once none is left there (the engine releases their GPUs as it sees them interrupted).
    holding: HashMap<u64, usize>,
    stop: StopFlag,
    /// Whether every attempt was stopped (the run ended, or is dropped).
    ended: bool,
}

impl LiveRun<'_> {
    /// The attempts of this run, by job and attempt.
    pub fn attempts(&self) -> Vec<AttemptRow> {
        let state = self.scheduler.shared.lock();
        let mut rows: Vec<AttemptRow> = state
            .attempts
            .values()
            .filter(|a| a.launch_run() == Some(self.run.as_str()))
            .map(|a| {
                let mut row = a.row.clone();
                row.iterations_after = a.iterations.map_or(row.iterations_before, |i| i.max(row.iterations_before));
                row
            })
            .collect();
        rows.sort_by_key(|r| (r.job_id, r.attempt));
        rows
    }

    /// Sends the waiting launches whose slots are free on a usable node.
    fn send_ready(&self, state: &mut State) {
        let waiting: Vec<(u64, u32)> =
            state.attempts.iter().filter(|(_, a)| a.phase == Phase::Waiting).map(|(&key, _)| key).collect();
        for key in waiting {
            let attempt = &state.attempts[&key];
            let busy =
                attempt.slots.iter().any(|slot| state.attempts.values().any(|o| o.occupies(&attempt.node, slot)));
            let node = attempt.node.clone();
            if busy || !state.agents.get(&node).is_some_and(Agent::usable) {
                continue;
            }
            let launch = attempt.launch.clone();
            state.agents.get_mut(&node).expect("usable above").send(&launch);
            state.attempts.get_mut(&key).expect("listed above").phase = Phase::Sent;
        }
    }

    fn command(&self, job: &ActiveJob, attempt: u32, iterations: u64) -> Argv {
        let settings = &self.scheduler.settings;
        let fill = |text: &str| {
            text.replace("{job}", &job.spec.id.to_string())
                .replace("{attempt}", &attempt.to_string())
                .replace("{gpus}", &job.spec.gpus.to_string())
                .replace("{iterations}", &iterations.to_string())
                .replace("{work_s}", &job.spec.work.to_string())
        };
        match &settings.command {
            LiveCommand::Shell(script) => Argv::Shell(fill(script)),
            LiveCommand::Argv(argv) => Argv::Exec(argv.iter().map(|a| fill(a)).collect()),
        }
    }

    /// Iterations a job's command runs in all.
    fn iterations(&self, job: &ActiveJob) -> u64 {
        (job.spec.work * self.scheduler.settings.iterations_per_s).ceil().max(1.0) as u64
    }

    /// Stops every attempt still running and waits (at most the grace period and a little) for
    /// them to end.
    fn stop_all(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let grace = self.scheduler.settings.grace_s;
        {
            let mut state = self.scheduler.shared.lock();
            let now = state.seconds();
            let mut preempts = Vec::new();
            for (&job, &attempt) in &self.current {
                if let Some(a) = state.attempts.get_mut(&(job, attempt)) {
                    match a.phase {
                        Phase::Waiting => {
                            a.phase = Phase::Ended;
                            a.row.end = "stopped_at_end".into();
                        }
                        Phase::Sent => {
                            a.stopping = true;
                            a.row.preempted.get_or_insert(now);
                            a.row.end = "stopped_at_end".into();
                            preempts.push((a.node.clone(), job, attempt));
                        }
                        Phase::Ended => {}
                    }
                }
            }
            for (node, job, attempt) in preempts {
                if let Some(agent) = state.agents.get_mut(&node) {
                    agent.send(&Message::Preempt { job, attempt, grace_s: grace });
                }
            }
        }
        let deadline = Instant::now() + Duration::from_secs_f64(grace + 5.0);
        while Instant::now() < deadline {
            let state = self.scheduler.shared.lock();
            let running = self
                .current
                .iter()
                .any(|(&job, &attempt)| state.attempts.get(&(job, attempt)).is_some_and(|a| a.phase == Phase::Sent));
            drop(state);
            if !running {
                break;
            }
            std::thread::sleep(POLL);
        }
    }
}

impl Attempt {
    fn launch_run(&self) -> Option<&str> {
        match &self.launch {
            Message::Launch { run, .. } => run.as_deref(),
            _ => None,
        }
    }
}

impl Executor for LiveRun<'_> {
    fn begin_round(&mut self, now: SimTime) -> Result<(), String> {
        let clock = self.scheduler.shared.lock().clock.expect("a live run has a clock");
        loop {
            {
                let mut state = self.scheduler.shared.lock();
                self.send_ready(&mut state);
            }
            let elapsed = clock.elapsed().as_secs_f64();
            if elapsed >= now {
                return Ok(());
            }
            if self.stop.is_stopped() {
                return Err("stopped before the end".into());
            }
            std::thread::sleep(POLL.min(Duration::from_secs_f64(now - elapsed)));
        }
    }

    fn observe(&mut self, job: &ActiveJob) -> Observation {
        let id = job.spec.id;
        let total = self.iterations(job);
        let mut state = self.scheduler.shared.lock();
        let now = state.seconds();
        let Some(&number) = self.current.get(&id) else {
            return Observation { quantum: job.quantum, interrupted: false };
        };
        let Some(attempt) = state.attempts.get_mut(&(id, number)) else {
            return Observation { quantum: job.quantum, interrupted: false };
        };
        // Progress: the share of the job's iterations reported, in its seconds of work; without
        // reports, the seconds its process ran.
        let work = match attempt.iterations {
            Some(iterations) => {
                // A job resumed without its checkpoint (another node, no shared file system)
                // reports from 0 again: only iterations beyond the most counted are progress.
                let counted = self.counted_iterations.entry(id).or_insert(0);
                let done = iterations.min(total);
                let new = done.saturating_sub(*counted);
                *counted = (*counted).max(done);
                new as f64 / total as f64 * job.spec.work
            }
            None => {
                let ran = attempt.row.started.map_or(0.0, |s| (attempt.row.ended.unwrap_or(now) - s).max(0.0));
                let counted = self.counted_seconds.insert((id, number), ran).unwrap_or(0.0);
                (ran - counted).max(0.0)
            }
        };
        let mut quantum =
            Quantum { work, seconds: self.round_seconds, overhead: 0.0, completes: false, abandons: false };
        let mut interrupted = false;
        if attempt.phase == Phase::Ended {
            match (attempt.lost, attempt.exit, attempt.row.exit_code) {
                (true, _, _) => {
                    attempt.row.end = "lost".into();
                    interrupted = true;
                }
                (false, Some(ExitReason::Exited), Some(0)) => {
                    attempt.row.end = "finished".into();
                    quantum.completes = true;
                    quantum.work = quantum.work.max(job.spec.work - job.life.executed_work);
                }
                (false, Some(ExitReason::FailedToStart), _) => {
                    attempt.row.end = "failed_to_start".into();
                    quantum.abandons = true;
                }
                // The agent stopped it unasked (its node shuts down): the job waits again.
                (false, Some(ExitReason::Preempted | ExitReason::Killed), _) => {
                    attempt.row.end = "preempted".into();
                    interrupted = true;
                }
                _ => {
                    attempt.row.end = "failed".into();
                    quantum.abandons = true;
                }
            }
            if quantum.abandons {
                eprintln!(
                    "live: job {id} attempt {number} {}: {}",
                    attempt.row.end.replace('_', " "),
                    attempt.row.stderr_tail.lines().last().unwrap_or("")
                );
            }
            self.holding.remove(&id);
        }
        Observation { quantum, interrupted }
    }

    fn node_changes(&mut self, changes: &mut Vec<NodeChange>) {
        let state = self.scheduler.shared.lock();
        for (node, (name, _)) in self.nodes.iter().enumerate() {
            let online = state.agents.get(name).is_some_and(Agent::usable);
            let still_held = self.holding.values().any(|&n| n == node);
            if online != self.online[node] && (online || !still_held) {
                self.online[node] = online;
                changes.push(NodeChange { node, online });
                eprintln!("live: node {name} {}", if online { "is back" } else { "left the cluster" });
            }
        }
    }

    fn carry_out(&mut self, _now: SimTime, jobs: &JobTable, decisions: &PlacementDecisions) -> Result<(), String> {
        if let Some(resized) = decisions.resize.first() {
            return Err(format!(
                "live: the policy resized running job {}, which live mode cannot carry out yet (a job's process \
                 keeps the GPUs it was started on)",
                jobs[resized.job].spec.id
            ));
        }
        let settings = &self.scheduler.settings;
        let mut state = self.scheduler.shared.lock();
        let wall = state.seconds();
        for launch in &decisions.launch {
            let node = self.gpu_slot[launch.gpus[0] as usize].0;
            if launch.gpus.iter().any(|&g| self.gpu_slot[g as usize].0 != node) {
                return Err(format!(
                    "live: job {} was placed across nodes, but live mode runs each job on one node; \
                     use `placement: consolidated` or jobs no larger than a node",
                    jobs[launch.job].spec.id
                ));
            }
        }
        for &slot in &decisions.preempt {
            let id = jobs[slot].spec.id;
            self.holding.remove(&id);
            let Some(&n) = self.current.get(&id) else { continue };
            let Some(attempt) = state.attempts.get_mut(&(id, n)) else { continue };
            attempt.stopping = true;
            attempt.row.preempted = Some(wall);
            attempt.row.end = "preempted".into();
            match attempt.phase {
                Phase::Waiting => {
                    attempt.phase = Phase::Ended;
                    attempt.row.ended = Some(wall);
                }
                Phase::Sent => {
                    let node = attempt.node.clone();
                    if let Some(agent) = state.agents.get_mut(&node) {
                        agent.send(&Message::Preempt { job: id, attempt: n, grace_s: settings.grace_s });
                    }
                }
                Phase::Ended => {}
            }
        }
        for launch in &decisions.launch {
            let job = &jobs[launch.job];
            let id = job.spec.id;
            let next = state.next_attempt.entry(id).or_insert(0);
            let attempt_number = *next;
            *next += 1;
            let node = self.gpu_slot[launch.gpus[0] as usize].0;
            let (name, slot_ids) = &self.nodes[node];
            let slots: Vec<String> =
                launch.gpus.iter().map(|&g| slot_ids[self.gpu_slot[g as usize].1].clone()).collect();
            let iterations_before = self.counted_iterations.get(&id).copied().unwrap_or(0);
            let iterations = self.iterations(job);
            let message = Message::Launch {
                job: id,
                attempt: attempt_number,
                argv: self.command(job, attempt_number, iterations),
                slots: slots.clone(),
                env: settings.env.clone(),
                run: Some(self.run.clone()),
            };
            let row = AttemptRow {
                job_id: id,
                attempt: attempt_number,
                node: name.clone(),
                slots: slots.join(","),
                launched: wall,
                iterations_before,
                iterations_after: iterations_before,
                ..AttemptRow::default()
            };
            state.attempts.insert(
                (id, attempt_number),
                Attempt {
                    node: name.clone(),
                    slots,
                    launch: message,
                    phase: Phase::Waiting,
                    stopping: false,
                    row,
                    iterations: None,
                    exit: None,
                    lost: false,
                },
            );
            self.current.insert(id, attempt_number);
            self.holding.insert(id, node);
        }
        self.send_ready(&mut state);
        Ok(())
    }

    fn end(&mut self, _now: SimTime, _jobs: &JobTable) -> Result<(), String> {
        self.stop_all();
        Ok(())
    }
}

/// A run that fails or is stopped leaves no job running; the run's ended attempts are forgotten
/// (its attempts table was read), so a sweep holds only what may still be running.
impl Drop for LiveRun<'_> {
    fn drop(&mut self) {
        self.stop_all();
        let run = Some(self.run.as_str());
        self.scheduler.shared.lock().attempts.retain(|_, a| a.phase != Phase::Ended || a.launch_run() != run);
    }
}
