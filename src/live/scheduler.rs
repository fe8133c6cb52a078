//! The scheduler side of live mode: the round engine's decisions carried out on a real cluster,
//! by `blox node` agents or by a cluster manager (the [`ClusterExecutor`] seam; Slurm in
//! [`super::slurm`], Kubernetes in [`super::kubernetes`]), progress measured instead of simulated.
//!
//! One [`Coordinator`] listens for a whole sweep (agents stay connected from run to run); each run
//! gets a [`LiveRun`], the [`Executor`] the round engine calls. The policies are the simulator's,
//! unchanged: what differs is where a round's [`Quantum`] comes from.
//!
//! - **Time** is the wall clock since the run began; round `k` starts at `k * round_s` seconds
//!   (the engine's time), so a live run's times mean what a simulated run's do. A job that ends
//!   mid-round is seen at the next round, as in the simulator.
//! - **Nodes**: node `i` of the spec's cluster is the executor's `i`-th usable node by name (an
//!   agent, a Slurm node), using its first slots. A run waits up to `wait_for_nodes_s` for
//!   enough. A job placed on several nodes is an attempt of one part per node, a gang: started
//!   together with the `torch.distributed` variables, stopped whole.
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
//!   still runs of older attempts is killed before its node is used again. A second agent with
//!   the name of one connected is refused (cloned hosts share their host name).
//! - **Trust**: every connection proves its key in the handshake ([`protocol`]); a job's key is
//!   its attempt's credential, so it reports that attempt's progress and no other's, clamped to
//!   the job's iterations. Connections not yet authenticated get one deadline for the whole
//!   handshake and are capped in number, as are all connections (by the descriptors the
//!   process may open), and accept errors back off instead of spinning.

use super::protocol::{self, Argv, Connection, ExitReason, Message, MessageWriter, Peer, Rejected, RunningJob, Slot};
use super::status::{self, StatusSnapshot};
use crate::core::events::{EventExecutor, EventJob, EventSim, JobStatus, Measured};
use crate::core::{
    ActiveJob, ClusterSpec, Executor, GpuId, GpuType, HostShare, JobSlot, JobSpec, JobTable, NodeChange, Observation,
    PlacementDecisions, Quantum, SimTime, StopFlag,
};
use crate::results::AttemptRow;
use crate::spec::{LiveCommand, LiveExecutor};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// An agent silent this long (it sends a heartbeat every 5 s) is taken for gone.
pub const SILENCE: Duration = Duration::from_secs(20);

/// How long a write to an agent may block (its socket buffer full) before it is taken for gone.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a peer has for its whole handshake after connecting.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this many connections may be in their handshake at once; more are closed at once.
pub const MAX_UNAUTHENTICATED: usize = 64;

/// Descriptors one connection holds: its socket and the clone its reader or writer keeps.
const DESCRIPTORS_PER_CONNECTION: usize = 3;

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
    /// Where attempts run: blox's agents or a cluster manager.
    pub executor: LiveExecutor,
    /// Where an executor without agents keeps the jobs' checkpoints and output (a file system
    /// the compute nodes share, as the experiment's directory usually is).
    pub work_dir: std::path::PathBuf,
    /// The `kubernetes` executor's cluster and pods (`engine.live.kubernetes`, its kubeconfig's
    /// path resolved).
    pub kubernetes: Option<crate::spec::KubernetesSpec>,
}

/// Live mode's coordinator: the listening scheduler process of a sweep, to which node agents and
/// jobs connect. (A round policy's order is [`crate::core::Scheduler`], a different thing.)
pub struct Coordinator {
    shared: Arc<Shared>,
    address: SocketAddr,
    settings: Settings,
    executor: Box<dyn ClusterExecutor>,
}

pub(super) struct Shared {
    state: Mutex<State>,
    /// How long a gang's other parts have to stop when one of them ended.
    grace_s: f64,
    token: String,
    closing: AtomicBool,
    next_connection: AtomicU64,
    limits: Limits,
    /// Connections open, and those of them not yet authenticated.
    open: Arc<AtomicUsize>,
    unauthenticated: Arc<AtomicUsize>,
    /// What unauthenticated peers make the scheduler say: anyone can, so it is rate-limited.
    noise: Throttle,
}

impl Shared {
    pub(super) fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    pub(super) fn grace_s(&self) -> f64 {
        self.grace_s
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Default)]
pub(super) struct State {
    /// The current run's clock; attempts' times are seconds since it.
    clock: Option<Instant>,
    agents: BTreeMap<String, Agent>,
    /// The connection of each job attempt that said hello (a new one replaces the old).
    job_links: HashMap<(u64, u32), JobLink>,
    /// Attempts by (job, attempt): the current run's, and earlier runs' still ending.
    attempts: HashMap<(u64, u32), Attempt>,
    /// Each job's next attempt number: attempts count on across the sweep, so that no two
    /// attempts of a sweep (and no late report of an earlier run's) share a number.
    next_attempt: HashMap<u64, u32>,
    /// The current run as the status page shows it.
    board: status::RunBoard,
    /// The nodes a cluster manager offers (Slurm's, at its executor's last look), for the status
    /// page; none under agents, which the page shows themselves.
    pub(super) managed_nodes: Vec<ManagedNode>,
}

/// A node of a cluster manager as its executor last saw it.
pub(super) struct ManagedNode {
    pub name: String,
    pub slots: Vec<String>,
    /// Whether it may run parts now (not drained, down or unresponsive).
    pub usable: bool,
    pub seen: Instant,
}

impl State {
    fn seconds(&self) -> f64 {
        self.clock.map_or(0.0, |c| c.elapsed().as_secs_f64())
    }

    /// Part `node` of attempt `key` is running (its process started).
    pub(super) fn part_started(&mut self, key: (u64, u32), node: &str) {
        let now = self.seconds();
        let Some(attempt) = self.attempts.get_mut(&key) else { return };
        if let Some(index) = attempt.part_on(node) {
            attempt.parts[index].started = true;
        }
        if attempt.parts.iter().all(|p| p.started) {
            attempt.row.started.get_or_insert(now);
        }
    }

    /// The attempts with a part running on `node`.
    pub(super) fn running_on(&self, node: &str) -> Vec<(u64, u32)> {
        self.attempts.iter().filter(|(_, a)| a.running_on(node)).map(|(&key, _)| key).collect()
    }
}

struct Agent {
    /// Which connection is the agent's current one (an older connection's end is no news).
    connection: u64,
    /// `None` while the agent is away.
    writer: Option<MessageWriter>,
    /// Where it connected from, for the message that refuses a second agent of its name.
    address: String,
    slots: Vec<Slot>,
    /// Whether its inventory (`running`) arrived since it connected.
    inventory: bool,
    /// Processes of attempts blox no longer wants that still run there; the node is not used
    /// until they have exited.
    leftovers: HashSet<(u64, u32)>,
    /// When its last message arrived, for the status page.
    last_heard: Instant,
}

impl Agent {
    fn usable(&self) -> bool {
        self.writer.is_some() && self.inventory && self.leftovers.is_empty()
    }

    fn send(&mut self, message: &Message) {
        if let Some(writer) = &mut self.writer
            && writer.send(message).is_err()
        {
            // Its reader sees the broken connection and reports the agent gone.
            writer.shutdown();
        }
    }
}

/// A job attempt's connection, ended when another connection of the same attempt replaces it:
/// an attempt holds one connection at a time, whatever its process does.
struct JobLink {
    connection: u64,
    stream: TcpStream,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Decided; waits for its slots to be free.
    Waiting,
    /// Sent to the agent.
    Sent,
    Ended,
}

/// What an executor starts: one part of an attempt, on one node. A job placed on several nodes
/// runs as a gang of parts, one per node, the first (`NODE_RANK` 0) reporting its progress.
#[derive(Debug, Clone)]
pub struct PartLaunch {
    pub job: u64,
    pub attempt: u32,
    pub run: String,
    pub argv: Argv,
    /// The spec's `env` and, for a gang, the variables `torch.distributed` reads.
    pub env: BTreeMap<String, String>,
    pub node: String,
    /// The node's slot ids it gets (an agent's slots; on Slurm, how many GPUs it asks for).
    pub slots: Vec<String>,
    /// CPUs and memory the policy allocated it on its node (0 when it allocates none).
    pub cpus: f64,
    pub memory_gb: f64,
}

struct Part {
    launch: PartLaunch,
    /// Started and not seen to end.
    running: bool,
    started: bool,
}

pub(super) struct Attempt {
    run: String,
    /// One per node, `NODE_RANK` order.
    parts: Vec<Part>,
    phase: Phase,
    /// Whether blox asked it to stop (a preemption or the run's end).
    stopping: bool,
    row: AttemptRow,
    /// Iterations the job runs in all: reports above it are counted as it.
    total_iterations: u64,
    /// Whether a report above `total_iterations` was logged already.
    over_reported: bool,
    /// Cumulative iterations reported by the job (any attempt's reports count on).
    iterations: Option<u64>,
    /// How the attempt ended: its first part's end, unless another part failed before blox
    /// asked the gang to stop (that failure is the attempt's).
    exit: Option<ExitReason>,
    /// A part other than the first failed on its own, deciding the attempt's end.
    failed_part: bool,
    /// A node it ran on left the cluster while it ran.
    lost: bool,
    /// A gang's `MASTER_PORT`, taken until the attempt ends.
    master_port: Option<u16>,
}

/// How one part of an attempt ended.
pub(super) struct PartEnd {
    pub reason: ExitReason,
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub stderr_tail: String,
    /// Its node left the cluster (the part's end is not the job's doing).
    pub lost: bool,
}

impl Attempt {
    fn occupies(&self, node: &str, slot: &str) -> bool {
        self.phase == Phase::Sent
            && self.parts.iter().any(|p| p.running && p.launch.node == node && p.launch.slots.iter().any(|s| s == slot))
    }

    fn part_on(&self, node: &str) -> Option<usize> {
        self.parts.iter().position(|p| p.launch.node == node)
    }

    fn running_on(&self, node: &str) -> bool {
        self.parts.iter().any(|p| p.running && p.launch.node == node)
    }

    /// Part `index` ended at `now`. Returns the nodes of the gang's parts still running that
    /// must now be stopped: a gang runs whole or not at all (its other processes would wait for
    /// the missing one forever), so the end of its first part (`NODE_RANK` 0, whose end is the
    /// job's), or of any part that failed or was lost, stops the rest. Another part that
    /// exited 0 only ran its iterations first: the first part decides.
    fn part_ended(&mut self, index: usize, now: f64, end: PartEnd) -> Vec<String> {
        let Some(part) = self.parts.get_mut(index).filter(|p| p.running) else { return Vec::new() };
        part.running = false;
        let failed = !(end.reason == ExitReason::Exited && end.code == Some(0));
        let decides = if index == 0 {
            !self.failed_part
        } else if failed && !self.stopping && self.exit.is_none() {
            self.failed_part = true;
            true
        } else {
            false
        };
        if decides {
            self.exit = Some(end.reason);
            self.row.exit_code = end.code.and_then(|c| u32::try_from(c).ok());
            self.row.signal = end.signal.and_then(|s| u32::try_from(s).ok());
            self.row.stderr_tail = end.stderr_tail;
        }
        self.lost |= end.lost;
        if self.parts.iter().all(|p| !p.running) {
            self.phase = Phase::Ended;
            self.row.ended = Some(now);
            return Vec::new();
        }
        if (index != 0 && !failed && !end.lost) || std::mem::replace(&mut self.stopping, true) {
            return Vec::new();
        }
        self.parts.iter().filter(|p| p.running).map(|p| p.launch.node.clone()).collect()
    }
}

/// A node of the cluster as an executor offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterNode {
    pub name: String,
    /// Its GPU slot ids, in order.
    pub slots: Vec<String>,
    /// The host name or address its processes reach it at (a gang's `MASTER_ADDR`).
    pub address: String,
}

/// The seam between a live run and the cluster that runs its attempts: blox's own agents
/// ([`Agents`]) or a cluster manager ([`super::slurm::Slurm`], [`super::kubernetes::Kubernetes`]). An executor learns of starts
/// and ends on its own and records them in the [`State`] (with [`end_part`]); the run only
/// launches, preempts and asks which nodes are usable.
pub(super) trait ClusterExecutor: Send + Sync {
    /// The nodes usable now, by name.
    fn usable_nodes(&self, state: &State) -> Vec<ClusterNode>;
    /// Starts one part; an error is why it cannot start.
    fn launch(&self, state: &mut State, part: &PartLaunch) -> Result<(), String>;
    /// Asks a running part to stop: a signal now, killed after `grace_s`.
    fn preempt(&self, state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64);
    /// Why a run that needs `wanted` nodes cannot start after waiting `waited`.
    fn missing_nodes(&self, state: &State, wanted: usize, waited: Duration) -> String;
}

/// Part `node` of attempt `key` ended: recorded, and the rest of its gang stopped.
pub(super) fn end_part(
    state: &mut State,
    executor: &dyn ClusterExecutor,
    key: (u64, u32),
    node: &str,
    end: PartEnd,
    grace_s: f64,
) {
    let now = state.seconds();
    let Some(attempt) = state.attempts.get_mut(&key) else { return };
    let Some(index) = attempt.part_on(node) else { return };
    for other in attempt.part_ended(index, now, end) {
        executor.preempt(state, key.0, key.1, &other, grace_s);
    }
}

/// Stops an attempt the policy preempted: one still waiting for its slots ends at once (it
/// holds none), one running is asked to stop, every part of it.
fn preempt_attempt(state: &mut State, executor: &dyn ClusterExecutor, key: (u64, u32), wall: f64, grace_s: f64) {
    let Some(attempt) = state.attempts.get_mut(&key) else { return };
    attempt.stopping = true;
    attempt.row.preempted = Some(wall);
    attempt.row.end = "preempted".into();
    match attempt.phase {
        Phase::Waiting => {
            attempt.phase = Phase::Ended;
            attempt.row.ended = Some(wall);
        }
        Phase::Sent => {
            let nodes: Vec<String> =
                attempt.parts.iter().filter(|p| p.running).map(|p| p.launch.node.clone()).collect();
            for node in nodes {
                executor.preempt(state, key.0, key.1, &node, grace_s);
            }
        }
        Phase::Ended => {}
    }
}

/// Sends the waiting attempts whose every part's slots are free on a usable node: a gang
/// starts whole.
fn send_ready(state: &mut State, executor: &dyn ClusterExecutor) {
    let mut waiting: Vec<(u64, u32)> =
        state.attempts.iter().filter(|(_, a)| a.phase == Phase::Waiting).map(|(&key, _)| key).collect();
    if waiting.is_empty() {
        return;
    }
    waiting.sort_unstable();
    let usable: HashSet<String> = executor.usable_nodes(state).into_iter().map(|n| n.name).collect();
    for key in waiting {
        let attempt = &state.attempts[&key];
        let ready = attempt.parts.iter().all(|part| {
            let node = &part.launch.node;
            usable.contains(node)
                && !part.launch.slots.iter().any(|slot| state.attempts.values().any(|o| o.occupies(node, slot)))
        });
        if !ready {
            continue;
        }
        let parts: Vec<PartLaunch> = attempt.parts.iter().map(|p| p.launch.clone()).collect();
        let attempt = state.attempts.get_mut(&key).expect("listed above");
        attempt.phase = Phase::Sent;
        for part in &mut attempt.parts {
            part.running = true;
        }
        for part in parts {
            if let Err(why) = executor.launch(state, &part) {
                let end = PartEnd {
                    reason: ExitReason::FailedToStart,
                    code: None,
                    signal: None,
                    stderr_tail: why,
                    lost: false,
                };
                end_part(state, executor, key, &part.node, end, 0.0);
            }
        }
    }
}

/// blox's own node agents (`blox node`) as the executor: launches and preemptions are messages
/// on their connections; their starts, exits and departures arrive on them.
pub(super) struct Agents;

impl ClusterExecutor for Agents {
    fn usable_nodes(&self, state: &State) -> Vec<ClusterNode> {
        let host =
            |address: &str| address.parse::<SocketAddr>().map_or_else(|_| address.to_string(), |a| a.ip().to_string());
        state
            .agents
            .iter()
            .filter(|(_, a)| a.usable())
            .map(|(name, a)| ClusterNode {
                name: name.clone(),
                slots: a.slots.iter().map(|s| s.id.clone()).collect(),
                address: host(&a.address),
            })
            .collect()
    }

    fn launch(&self, state: &mut State, part: &PartLaunch) -> Result<(), String> {
        let agent = state.agents.get_mut(&part.node).ok_or_else(|| format!("node {} has no agent", part.node))?;
        agent.send(&Message::Launch {
            job: part.job,
            attempt: part.attempt,
            argv: part.argv.clone(),
            slots: part.slots.clone(),
            env: part.env.clone(),
            run: Some(part.run.clone()),
        });
        Ok(())
    }

    fn preempt(&self, state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64) {
        if let Some(agent) = state.agents.get_mut(node) {
            agent.send(&Message::Preempt { job, attempt, grace_s });
        }
    }

    fn missing_nodes(&self, state: &State, wanted: usize, waited: Duration) -> String {
        let connected: Vec<String> = state
            .agents
            .iter()
            .filter(|(_, a)| a.writer.is_some())
            .map(|(name, a)| format!("{name} ({} slots)", a.slots.len()))
            .collect();
        format!(
            "live: the cluster has {wanted} nodes but {} agents are connected after {:.0} s{}{}",
            connected.len(),
            waited.as_secs_f64(),
            if connected.is_empty() { "" } else { ": " },
            connected.join(", "),
        )
    }
}

impl Coordinator {
    /// Listens on `settings.listen` and accepts agents and jobs on background threads; the
    /// attempts run on `settings.executor`.
    pub fn start(settings: Settings) -> Result<Coordinator, String> {
        match settings.executor {
            LiveExecutor::Agents => Coordinator::start_on(settings, |_, _| Ok(Box::new(Agents))),
            LiveExecutor::Slurm => Coordinator::start_on(settings, |shared, settings| {
                Ok(Box::new(super::slurm::Slurm::start(shared, settings)?))
            }),
            LiveExecutor::Kubernetes => {
                let spec = settings.kubernetes.clone().ok_or(
                    "live: `engine.executor: kubernetes` needs `engine.live.kubernetes` with at least the pods' `image`",
                )?;
                let grace_s = settings.grace_s;
                Coordinator::start_on(settings, move |shared, settings| {
                    Ok(Box::new(super::kubernetes::Kubernetes::start(shared, &spec, settings, grace_s)?))
                })
            }
        }
    }

    /// [`Coordinator::start`] with the executor `make` builds once the scheduler listens.
    fn start_on(
        settings: Settings,
        make: impl FnOnce(Arc<Shared>, super::slurm::JobSettings) -> Result<Box<dyn ClusterExecutor>, String>,
    ) -> Result<Coordinator, String> {
        let listener = TcpListener::bind(&settings.listen)
            .map_err(|e| format!("live: cannot listen on {}: {e}", settings.listen))?;
        let address = listener.local_addr().map_err(|e| format!("live: {e}"))?;
        if address.ip().is_loopback() {
            eprintln!(
                "live: {address} is a loopback address: only agents on this machine can connect (for other \
                 machines, set engine.live.listen to this machine's address, or 0.0.0.0:{} for every interface)",
                address.port()
            );
        }
        // Nonces come from a file opened once: open it before descriptors can run short.
        super::auth::nonce().map_err(|e| format!("live: {e}"))?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            grace_s: settings.grace_s,
            token: settings.token.clone(),
            closing: AtomicBool::new(false),
            next_connection: AtomicU64::new(0),
            limits: Limits::from_descriptor_limit(),
            open: Arc::default(),
            unauthenticated: Arc::default(),
            noise: Throttle::default(),
        });
        let acceptor = shared.clone();
        std::thread::Builder::new()
            .name("live-accept".into())
            .spawn(move || accept(listener, acceptor))
            .map_err(|e| format!("live: cannot start the listener thread: {e}"))?;
        let job_settings = super::slurm::JobSettings {
            scheduler: address.to_string(),
            token: settings.token.clone(),
            work_dir: settings.work_dir.clone(),
        };
        let executor = make(shared.clone(), job_settings)?;
        Ok(Coordinator { shared, address, settings, executor })
    }

    /// The address agents and jobs connect to (with the port the system chose for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Starts run `run` (a plain directory name, unique per run of the sweep) on `cluster`:
    /// waits for enough agents and binds them to the cluster's nodes.
    pub fn begin_run(&self, run: &str, cluster: &ClusterSpec, stop: StopFlag) -> Result<LiveRun<'_>, String> {
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
        {
            let mut state = self.shared.lock();
            state.clock = Some(Instant::now());
            state.board.begin(run, nodes.iter().map(|node| node.name.clone()).collect());
        }
        let mut gpu_slot = Vec::new();
        for (n, node) in cluster.nodes.iter().enumerate() {
            gpu_slot.extend((0..node.gpus as usize).map(|i| (n, i)));
        }
        Ok(LiveRun {
            coordinator: self,
            executor: self.executor.as_ref(),
            run: run.to_string(),
            online: vec![true; nodes.len()],
            nodes,
            gpu_types: cluster.nodes.iter().map(|node| node.gpu_type.clone()).collect(),
            gpu_slot,
            round_start: 0.0,
            current: HashMap::new(),
            counted_iterations: HashMap::new(),
            counted_seconds: HashMap::new(),
            holding: HashMap::new(),
            launched_on: HashMap::new(),
            decisions: 0,
            stop,
            ended: false,
        })
    }

    /// Node `i` of `cluster` -> the `i`-th usable node by name, with the slot ids used, once
    /// enough are usable; an error when one can never fit.
    fn bind(&self, cluster: &ClusterSpec) -> Result<Option<Vec<ClusterNode>>, String> {
        let mut usable = self.executor.usable_nodes(&self.shared.lock());
        usable.sort_by(|a, b| a.name.cmp(&b.name));
        if usable.len() < cluster.nodes.len() {
            return Ok(None);
        }
        let mut nodes = Vec::new();
        for (i, (node, mut offered)) in cluster.nodes.iter().zip(usable).enumerate() {
            if (offered.slots.len() as u32) < node.gpus {
                return Err(format!(
                    "live: node {i} of the cluster has {} GPUs but `{}` (node {i} by name) offers {}",
                    node.gpus,
                    offered.name,
                    offered.slots.len()
                ));
            }
            offered.slots.truncate(node.gpus as usize);
            nodes.push(offered);
        }
        Ok(Some(nodes))
    }

    fn missing_nodes(&self, cluster: &ClusterSpec) -> String {
        let state = self.shared.lock();
        let why = self.executor.missing_nodes(&state, cluster.nodes.len(), self.settings.wait_for_nodes);
        match self.settings.executor {
            LiveExecutor::Agents => format!("{why}; start `blox node --scheduler {}` on each node", self.address),
            LiveExecutor::Slurm | LiveExecutor::Kubernetes => why,
        }
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        // Wakes the acceptor so that it sees `closing`.
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_millis(200));
    }
}

/// How many connections the scheduler holds at most: connections may take half the
/// descriptors the process may open (its soft limit, raised to the hard one), so that the
/// runner always has descriptors left for its files however many peers connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Limits {
    connections: usize,
    unauthenticated: usize,
}

impl Limits {
    fn from_descriptor_limit() -> Limits {
        Limits::for_descriptors(raise_descriptor_limit())
    }

    fn for_descriptors(descriptors: usize) -> Limits {
        let connections = (descriptors / 2 / DESCRIPTORS_PER_CONNECTION).max(1);
        Limits { connections, unauthenticated: MAX_UNAUTHENTICATED.min(connections / 2).max(1) }
    }
}

/// Raises the soft limit on open descriptors to the hard one (at most 2^20); the soft limit.
fn raise_descriptor_limit() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes into the struct it is given, which lives for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return 1024;
    }
    let wanted = limit.rlim_max.min(1 << 20);
    if limit.rlim_cur < wanted {
        let raised = libc::rlimit { rlim_cur: wanted, rlim_max: limit.rlim_max };
        // SAFETY: setrlimit reads the struct it is given, which lives for the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit.rlim_cur = wanted;
        }
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

/// One of at most `limit` holders of a count, given back when dropped.
struct Ticket(Arc<AtomicUsize>);

impl Ticket {
    fn take(count: &Arc<AtomicUsize>, limit: usize) -> Option<Ticket> {
        count.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < limit).then_some(n + 1)).ok()?;
        Some(Ticket(count.clone()))
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// At most one line a second, then how many were left out: for what peers that have not
/// proven anything make the scheduler log.
#[derive(Default)]
struct Throttle(Mutex<(Option<Instant>, u64)>);

impl Throttle {
    fn log(&self, line: impl FnOnce() -> String) {
        let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, left_out) = &mut *state;
        if last.is_some_and(|at| at.elapsed() < Duration::from_secs(1)) {
            *left_out += 1;
            return;
        }
        let more = match std::mem::take(left_out) {
            0 => String::new(),
            n => format!(" ({n} more like it since the last)"),
        };
        eprintln!("{}{more}", line());
        *last = Some(Instant::now());
    }
}

/// The wait after each failed accept: 10 ms, doubling to 1 s while accepts keep failing, so
/// that an acceptor at the descriptor limit (EMFILE: the connection waits in the backlog and
/// every accept fails again at once) does not spin.
#[derive(Debug)]
struct AcceptBackoff {
    next: Duration,
    failures: u64,
}

impl AcceptBackoff {
    const FIRST: Duration = Duration::from_millis(10);
    const MAX: Duration = Duration::from_secs(1);

    fn new() -> AcceptBackoff {
        AcceptBackoff { next: Self::FIRST, failures: 0 }
    }

    /// An accept failed: how long to wait before the next.
    fn failed(&mut self) -> Duration {
        self.failures += 1;
        let wait = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        wait
    }

    /// An accept succeeded: how many had failed in a row before it.
    fn succeeded(&mut self) -> u64 {
        self.next = Self::FIRST;
        std::mem::take(&mut self.failures)
    }
}

/// Accepts connections until `closing`, handing each to `admit` and waiting with
/// [`AcceptBackoff`] after each failure (through `sleep`, so that the waits can be tested).
fn accept_loop<S>(
    mut accept: impl FnMut() -> io::Result<S>,
    mut admit: impl FnMut(S),
    mut sleep: impl FnMut(Duration),
    closing: impl Fn() -> bool,
) {
    let mut backoff = AcceptBackoff::new();
    loop {
        let accepted = accept();
        if closing() {
            return;
        }
        match accepted {
            Ok(stream) => {
                let failures = backoff.succeeded();
                if failures > 0 {
                    eprintln!("live: accepting connections again after {failures} failed tries");
                }
                admit(stream);
            }
            Err(e) => {
                if backoff.failures == 0 {
                    eprintln!(
                        "live: cannot accept a connection: {e}; trying again with waits growing to {} s",
                        AcceptBackoff::MAX.as_secs()
                    );
                }
                sleep(backoff.failed());
            }
        }
    }
}

fn accept(listener: TcpListener, shared: Arc<Shared>) {
    accept_loop(
        || listener.accept().map(|(stream, _)| stream),
        |stream| admit(stream, &shared),
        std::thread::sleep,
        || shared.closing.load(Ordering::SeqCst),
    );
}

/// Serves a new connection on a thread of its own, or closes it at once when the scheduler
/// holds as many connections, or unauthenticated ones, as it may.
fn admit(stream: TcpStream, shared: &Arc<Shared>) {
    let limits = shared.limits;
    let address = || stream.peer_addr().map_or_else(|_| "?".into(), |a| a.to_string());
    let Some(open) = Ticket::take(&shared.open, limits.connections) else {
        shared.noise.log(|| {
            format!(
                "live: closed a connection from {}: {} connections are open, as many as the descriptor limit allows",
                address(),
                limits.connections
            )
        });
        return;
    };
    let Some(unauthenticated) = Ticket::take(&shared.unauthenticated, limits.unauthenticated) else {
        shared.noise.log(|| {
            format!(
                "live: closed a connection from {}: {} connections are in their handshake already",
                address(),
                limits.unauthenticated
            )
        });
        return;
    };
    let shared = shared.clone();
    let spawned = std::thread::Builder::new()
        .name("live-peer".into())
        .spawn(move || serve(stream, &shared, open, unauthenticated));
    if let Err(e) = spawned {
        eprintln!("live: cannot start a thread for a connection: {e}");
    }
}

/// One connection: the handshake, then the agent's or the job's messages until it ends; or one
/// request for the status page, under the same deadline and still counted unauthenticated.
fn serve(stream: TcpStream, shared: &Shared, _open: Ticket, unauthenticated: Ticket) {
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    match status::is_http(&stream, deadline) {
        Ok(true) => return status::serve(stream, &shared.token, deadline, || status_snapshot(&shared.lock())),
        Ok(false) => {}
        Err(e) => {
            let address = stream.peer_addr().map_or_else(|_| "?".into(), |a| a.to_string());
            return shared.noise.log(|| format!("live: a connection from {address} sent nothing: {e}"));
        }
    }
    let Ok(mut connection) = Connection::new(stream) else { return };
    let address = connection.peer_address();
    let timeout = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
    let peer = match connection.accept(&shared.token, timeout) {
        Ok(peer) => peer,
        Err(Rejected::Refused(reason)) => {
            return shared.noise.log(|| format!("live: refused a connection from {address}: {reason}"));
        }
        Err(Rejected::Gone(why)) => {
            return shared.noise.log(|| format!("live: a connection from {address} ended in its handshake: {why}"));
        }
    };
    drop(unauthenticated);
    match peer {
        Peer::Agent { node, slots } => serve_agent(connection, shared, address, node, slots),
        Peer::Job { job, attempt, run } => serve_job(connection, shared, job, attempt, run),
    }
}

/// Whether the other end has closed `stream` (its end of file is waiting to be read), without
/// reading anything or changing the socket's blocking mode, which its reader thread shares.
fn closed_by_peer(stream: &TcpStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut byte = 0u8;
    // SAFETY: recv writes at most one byte into `byte`, which lives for the call.
    let n = unsafe { libc::recv(stream.as_raw_fd(), (&raw mut byte).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
    n == 0 || (n < 0 && io::Error::last_os_error().kind() != io::ErrorKind::WouldBlock)
}

fn serve_agent(connection: Connection, shared: &Shared, address: String, node: String, slots: Vec<Slot>) {
    let id = shared.next_connection.fetch_add(1, Ordering::SeqCst);
    let Connection { mut reader, mut writer } = connection;
    // Socket options are shared by the halves: silence ends the reader, and a writer blocked
    // by an agent that stopped reading gives up instead of holding the scheduler's lock.
    let _ = writer.stream().set_read_timeout(Some(SILENCE));
    let _ = writer.stream().set_write_timeout(Some(WRITE_TIMEOUT));
    {
        let mut state = shared.lock();
        if let Some(first) = state.agents.get(&node).filter(|a| a.writer.is_some()) {
            if first.writer.as_ref().is_some_and(|w| closed_by_peer(w.stream())) {
                // A restarted agent whose old connection's end is not read yet.
                agent_gone(&mut state, &node, shared.grace_s);
            } else {
                eprintln!(
                    "live: refused a second agent named `{node}` (from {address}; the first is connected from {}): \
                     give each node its own name with `blox node --name`",
                    first.address
                );
                let reason = format!(
                    "node name `{node}` is taken: an agent of that name is connected from {}. Is this a second \
                     machine with the same host name (a cloned image)? Give each agent its own name with \
                     `blox node --name NAME`. (A restarted agent is accepted once the scheduler has seen its old \
                     connection end: at once when its process died, at most {} s after its network went away.)",
                    first.address,
                    SILENCE.as_secs()
                );
                let _ = writer.send(&Message::Refused { reason });
                return;
            }
        }
        if writer.send(&Message::Welcome {}).is_err() {
            return;
        }
        eprintln!("live: node {node} connected ({} slots) from {address}", slots.len());
        let agent = Agent {
            connection: id,
            writer: Some(writer),
            address,
            slots,
            inventory: false,
            leftovers: HashSet::new(),
            last_heard: Instant::now(),
        };
        state.agents.insert(node.clone(), agent);
    }
    loop {
        let message = match reader.recv() {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(e) => {
                eprintln!("live: node {node}: {e}");
                break;
            }
        };
        let mut state = shared.lock();
        match state.agents.get_mut(&node) {
            Some(agent) if agent.connection == id => agent.last_heard = Instant::now(),
            _ => return,
        }
        on_agent_message(&mut state, &node, message, shared.grace_s);
    }
    let mut state = shared.lock();
    if state.agents.get(&node).is_some_and(|a| a.connection == id) {
        agent_gone(&mut state, &node, shared.grace_s);
    }
}

/// A part whose node left the cluster: its process is gone or out of reach.
pub(super) fn lost_part() -> PartEnd {
    PartEnd { reason: ExitReason::Killed, code: None, signal: None, stderr_tail: String::new(), lost: true }
}

/// The agent of `node` went away: its node leaves the cluster and its attempts' parts there are
/// lost (their gangs' other parts are stopped).
fn agent_gone(state: &mut State, node: &str, grace_s: f64) {
    if let Some(agent) = state.agents.get_mut(node) {
        if let Some(writer) = agent.writer.take() {
            writer.shutdown();
        }
        agent.inventory = false;
    }
    eprintln!("live: node {node} is gone");
    for key in state.running_on(node) {
        end_part(state, &Agents, key, node, lost_part(), grace_s);
    }
}

fn on_agent_message(state: &mut State, node: &str, message: Message, grace_s: f64) {
    match message {
        Message::Started { job, attempt, .. } => state.part_started((job, attempt), node),
        Message::Exited { job, attempt, code, signal, reason, stderr_tail } => {
            if let Some(agent) = state.agents.get_mut(node) {
                agent.leftovers.remove(&(job, attempt));
            }
            let end = PartEnd { reason, code, signal, stderr_tail, lost: false };
            end_part(state, &Agents, (job, attempt), node, end, grace_s);
        }
        Message::Running { jobs } => {
            // What the agent no longer runs and never reported ended (its `exited` came before
            // `running`) was lost with an earlier connection: a replaced agent process, a
            // message lost in a broken connection.
            for key in state.running_on(node) {
                if !jobs.iter().any(|j| (j.job, j.attempt) == key) {
                    end_part(state, &Agents, key, node, lost_part(), grace_s);
                }
            }
            let Some(agent) = state.agents.get_mut(node) else { return };
            agent.inventory = true;
            for RunningJob { job, attempt, .. } in jobs {
                let wanted = state.attempts.get(&(job, attempt)).is_some_and(|a| a.running_on(node));
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

/// What the status page shows, copied under the lock so that the page is written without it.
fn status_snapshot(state: &State) -> StatusSnapshot {
    let agents = state.agents.iter().map(|(name, a)| status::AgentState {
        name: name.clone(),
        slots: a.slots.iter().map(|s| s.id.clone()).collect(),
        connected: a.writer.is_some(),
        inventory: a.inventory,
        leftovers: a.leftovers.len(),
        last_heard: a.last_heard,
    });
    // A managed node is "connected" while its manager offers it and "lost" once it does not.
    let managed = state.managed_nodes.iter().map(|node| status::AgentState {
        name: node.name.clone(),
        slots: node.slots.clone(),
        connected: node.usable,
        inventory: true,
        leftovers: 0,
        last_heard: node.seen,
    });
    let agents = agents.chain(managed);
    let run = state.board.run();
    let attempts = state.attempts.values().filter(|a| run.is_some() && a.launch_run() == run).map(|a| {
        let phase = match a.phase {
            Phase::Waiting => status::AttemptPhase::Waiting,
            Phase::Sent if a.stopping => status::AttemptPhase::Stopping,
            Phase::Sent => status::AttemptPhase::Running,
            Phase::Ended => status::AttemptPhase::Ended,
        };
        status::AttemptState {
            row: a.row.clone(),
            phase,
            iterations: a.iterations,
            total_iterations: a.total_iterations,
        }
    });
    StatusSnapshot::new(&state.board, state.seconds(), agents.collect(), attempts.collect())
}

/// A job attempt's connection: its progress reports, each answered with whether to stop. The
/// handshake proved the attempt's credential, so the reports are this attempt's; a report of
/// more iterations than the job runs in all is counted as that many (the job may still finish:
/// it completes when it exits 0), and one of an attempt this scheduler did not launch in that
/// run (a process of an earlier scheduler) is told to stop and counts for nothing.
fn serve_job(mut connection: Connection, shared: &Shared, job: u64, attempt: u32, run: Option<String>) {
    let id = shared.next_connection.fetch_add(1, Ordering::SeqCst);
    let Ok(stream) = connection.writer.stream().try_clone() else { return };
    if let Some(old) = shared.lock().job_links.insert((job, attempt), JobLink { connection: id, stream }) {
        let _ = old.stream.shutdown(std::net::Shutdown::Both);
    }
    if connection.send(&Message::Welcome {}).is_ok() {
        report_progress(&mut connection, shared, job, attempt, run.as_deref());
    }
    let mut state = shared.lock();
    if state.job_links.get(&(job, attempt)).is_some_and(|link| link.connection == id) {
        state.job_links.remove(&(job, attempt));
    }
}

fn report_progress(connection: &mut Connection, shared: &Shared, job: u64, attempt: u32, run: Option<&str>) {
    while let Ok(Some(message)) = connection.recv() {
        let Message::Progress { iterations } = message else {
            eprintln!("live: job {job} attempt {attempt} sent an unexpected {} message", message.kind());
            return;
        };
        let stop = {
            let mut state = shared.lock();
            let now = state.seconds();
            match state.attempts.get_mut(&(job, attempt)).filter(|a| a.launch_run() == run) {
                // A report may be read after the agent's news of the exit that followed it.
                Some(a) => {
                    if iterations > a.total_iterations && !std::mem::replace(&mut a.over_reported, true) {
                        eprintln!(
                            "live: job {job} attempt {attempt} reported {iterations} iterations, more than the {} it \
                             runs in all: counted as {}",
                            a.total_iterations, a.total_iterations
                        );
                    }
                    let counted = iterations.min(a.total_iterations);
                    a.iterations = Some(a.iterations.unwrap_or(0).max(counted));
                    a.row.first_progress.get_or_insert(now);
                    a.stopping || a.phase != Phase::Sent
                }
                None => true,
            }
        };
        if connection.send(&Message::Ack { stop }).is_err() {
            return;
        }
    }
}

/// The ports a gang's `MASTER_PORT` is chosen from (torch.distributed's default is the first).
const MASTER_PORTS: std::ops::RangeInclusive<u16> = 29500..=30499;

/// One live run: the round engine's [`Executor`] on the scheduler's cluster.
pub struct LiveRun<'a> {
    coordinator: &'a Coordinator,
    executor: &'a dyn ClusterExecutor,
    run: String,
    /// Cluster node -> the executor's node (its first slots).
    nodes: Vec<ClusterNode>,
    online: Vec<bool>,
    /// Each cluster node's GPU type, as the spec's node groups give it: what a job placed there
    /// is told it runs on.
    gpu_types: Vec<GpuType>,
    /// Cluster GPU id -> (node, index into its slot ids).
    gpu_slot: Vec<(usize, usize)>,
    /// The time of the round that began last: a running job held its GPUs from its quantum's
    /// start until then (a fixed round, or under Gavel's timing until the round's last quantum).
    round_start: SimTime,
    /// Each job's current attempt.
    current: HashMap<u64, u32>,
    /// Iterations of each job (cumulative over its attempts) already counted as progress.
    counted_iterations: HashMap<u64, u64>,
    /// Seconds each attempt that does not report iterations ran, already counted as progress.
    counted_seconds: HashMap<(u64, u32), f64>,
    /// Jobs the engine has running, by the cluster node they run on: a node leaves the cluster
    /// only once none is left there (the engine releases their GPUs as it sees them interrupted).
    holding: HashMap<u64, Vec<usize>>,
    /// Under the event engine: the cluster GPUs each job's current attempt was launched on (a
    /// decision that gives it others, or another count, stops it and launches it there).
    launched_on: HashMap<u64, Vec<GpuId>>,
    /// Under the event engine: decisions carried out, for the status page.
    decisions: u64,
    stop: StopFlag,
    /// Whether every attempt was stopped (the run ended, or is dropped).
    ended: bool,
}

impl LiveRun<'_> {
    /// The attempts of this run, by job and attempt.
    pub fn attempts(&self) -> Vec<AttemptRow> {
        let state = self.coordinator.shared.lock();
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

    /// The command of attempt `attempt` of `job` on `gpus` GPUs.
    fn command(&self, job: &JobSpec, gpus: usize, attempt: u32, iterations: u64) -> Argv {
        let settings = &self.coordinator.settings;
        let fill = |text: &str| {
            text.replace("{job}", &job.id.to_string())
                .replace("{attempt}", &attempt.to_string())
                .replace("{gpus}", &gpus.to_string())
                .replace("{iterations}", &iterations.to_string())
                .replace("{work_s}", &job.work.to_string())
        };
        match &settings.command {
            LiveCommand::Shell(script) => Argv::Shell(fill(script)),
            LiveCommand::Argv(argv) => Argv::Exec(argv.iter().map(|a| fill(a)).collect()),
        }
    }

    /// Iterations a job's command runs in all.
    fn iterations(&self, job: &JobSpec) -> u64 {
        (job.work * self.coordinator.settings.iterations_per_s).ceil().max(1.0) as u64
    }

    /// Stops every attempt still running and waits (at most the grace period and a little) for
    /// them to end.
    fn stop_all(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let grace = self.coordinator.settings.grace_s;
        {
            let mut state = self.coordinator.shared.lock();
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
                            preempts.extend(
                                a.parts.iter().filter(|p| p.running).map(|p| (p.launch.node.clone(), job, attempt)),
                            );
                        }
                        Phase::Ended => {}
                    }
                }
            }
            for (node, job, attempt) in preempts {
                self.executor.preempt(&mut state, job, attempt, &node, grace);
            }
        }
        let deadline = Instant::now() + Duration::from_secs_f64(grace + 5.0);
        while Instant::now() < deadline {
            let state = self.coordinator.shared.lock();
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

impl LiveRun<'_> {
    /// Decides attempt of `job` on the cluster GPUs `gpus` with `host` CPUs and memory (none when
    /// the policy allocates none), the job asking for `gpus_asked` GPUs in its command: one part
    /// per node, sent once their slots are free ([`send_ready`]).
    fn launch(
        &mut self,
        state: &mut State,
        job: &JobSpec,
        gpus: &[GpuId],
        gpus_asked: usize,
        host: &[HostShare],
    ) -> Result<(), String> {
        let coordinator = self.coordinator;
        let settings = &coordinator.settings;
        let wall = state.seconds();
        let id = job.id;
        // One part per node, in node order: the first node's part is NODE_RANK 0.
        let mut by_node: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for &g in gpus {
            let (node, index) = self.gpu_slot[g as usize];
            by_node.entry(node).or_default().push(self.nodes[node].slots[index].clone());
        }
        let master_port = if by_node.len() > 1 {
            let taken: HashSet<u16> =
                state.attempts.values().filter(|a| a.phase != Phase::Ended).filter_map(|a| a.master_port).collect();
            let port = MASTER_PORTS.clone().find(|p| !taken.contains(p)).ok_or_else(|| {
                format!(
                    "live: job {id} spans nodes but every MASTER_PORT of {}-{} is taken by a running gang",
                    MASTER_PORTS.start(),
                    MASTER_PORTS.end()
                )
            })?;
            Some(port)
        } else {
            None
        };
        let next = state.next_attempt.entry(id).or_insert(0);
        let attempt_number = *next;
        *next += 1;
        let iterations_before = self.counted_iterations.get(&id).copied().unwrap_or(0);
        let iterations = self.iterations(job);
        let argv = self.command(job, gpus_asked, attempt_number, iterations);
        let master = by_node.keys().next().map(|&n| self.nodes[n].address.clone()).unwrap_or_default();
        let nnodes = by_node.len();
        let parts: Vec<Part> = by_node
            .iter()
            .enumerate()
            .map(|(rank, (&node, slots))| {
                let mut env = settings.env.clone();
                if let Some(port) = master_port {
                    // One process per node (a launcher such as torchrun starts its workers
                    // from NNODES and NODE_RANK); WORLD_SIZE and RANK count those processes.
                    for (name, value) in [
                        ("MASTER_ADDR", master.clone()),
                        ("MASTER_PORT", port.to_string()),
                        ("WORLD_SIZE", nnodes.to_string()),
                        ("NNODES", nnodes.to_string()),
                        ("NODE_RANK", rank.to_string()),
                        ("RANK", rank.to_string()),
                        ("LOCAL_RANK", "0".to_string()),
                    ] {
                        env.insert(name.to_string(), value);
                    }
                }
                let host = host.iter().find(|h| h.node as usize == node);
                // What the policy chose, for the job to see: its node's GPU type and, for a
                // policy that allocates them, its CPUs and memory there.
                env.insert("BLOX_GPU_TYPE".into(), self.gpu_types[node].name().to_string());
                env.insert("BLOX_GPUS".into(), gpus.len().to_string());
                if let Some(host) = host.filter(|h| h.cpus > 0.0 || h.memory_gb > 0.0) {
                    env.insert("BLOX_CPUS".into(), host.cpus.to_string());
                    env.insert("BLOX_MEMORY_GB".into(), host.memory_gb.to_string());
                }
                Part {
                    launch: PartLaunch {
                        job: id,
                        attempt: attempt_number,
                        run: self.run.clone(),
                        argv: argv.clone(),
                        env,
                        node: self.nodes[node].name.clone(),
                        slots: slots.clone(),
                        cpus: host.map_or(0.0, |h| h.cpus),
                        memory_gb: host.map_or(0.0, |h| h.memory_gb),
                    },
                    running: false,
                    started: false,
                }
            })
            .collect();
        let names: Vec<&str> = parts.iter().map(|p| p.launch.node.as_str()).collect();
        let slots: Vec<String> = parts.iter().map(|p| p.launch.slots.join(",")).collect();
        let row = AttemptRow {
            job_id: id,
            attempt: attempt_number,
            node: names.join(","),
            slots: slots.join(";"),
            launched: wall,
            iterations_before,
            iterations_after: iterations_before,
            ..AttemptRow::default()
        };
        state.attempts.insert(
            (id, attempt_number),
            Attempt {
                run: self.run.clone(),
                parts,
                phase: Phase::Waiting,
                stopping: false,
                row,
                total_iterations: iterations,
                over_reported: false,
                iterations: None,
                exit: None,
                failed_part: false,
                lost: false,
                master_port,
            },
        );
        self.current.insert(id, attempt_number);
        self.holding.insert(id, by_node.keys().copied().collect());
        Ok(())
    }

    /// A run every attempt of which failed (or failed to start) measured nothing: its command
    /// or its nodes are broken, and a complete run with every job unfinished (and the GPUs its
    /// attempts held counted as busy) would pass for a result. It fails with the first reason.
    fn check_something_ran(&self) -> Result<(), String> {
        let state = self.coordinator.shared.lock();
        let mut ours: Vec<&Attempt> =
            state.attempts.values().filter(|a| a.launch_run() == Some(self.run.as_str())).collect();
        let failed = |a: &&Attempt| matches!(a.row.end.as_str(), "failed" | "failed_to_start");
        if ours.is_empty() || !ours.iter().all(failed) {
            return Ok(());
        }
        ours.sort_by_key(|a| (a.row.job_id, a.row.attempt));
        let first = &ours[0].row;
        Err(format!(
            "live: all {} attempts of the run failed, so it measured nothing (check engine.live.command and the \
             nodes); the first, job {} attempt {} on node {}, {}: {}",
            ours.len(),
            first.job_id,
            first.attempt,
            first.node,
            first.end.replace('_', " "),
            first.stderr_tail.trim_end().lines().last().unwrap_or("no message")
        ))
    }
}

impl Attempt {
    fn launch_run(&self) -> Option<&str> {
        Some(&self.run)
    }
}

/// Live mode runs one job's process per GPU: a decision that puts a job on a GPU another job
/// keeps (Gavel's packed policies and Gandiva pair jobs on one GPU; the `shares` placement splits
/// one) cannot be carried out, as a launch waits for its slots' previous attempts to exit.
fn one_job_per_gpu(jobs: &JobTable, decisions: &PlacementDecisions) -> Result<(), String> {
    let preempted: HashSet<JobSlot> = decisions.preempt.iter().copied().collect();
    let mut holder: HashMap<u32, u64> = HashMap::new();
    for (slot, job) in jobs.iter() {
        if job.is_running() && !preempted.contains(&slot) {
            holder.extend(job.gpus.iter().map(|&gpu| (gpu, job.spec.id)));
        }
    }
    for launch in &decisions.launch {
        let id = jobs[launch.job].spec.id;
        for &gpu in &launch.gpus {
            if let Some(other) = holder.insert(gpu, id) {
                return Err(format!(
                    "live: the policy put job {id} on GPU {gpu} beside job {other}; live mode runs one job's \
                     process per GPU and cannot share one"
                ));
            }
        }
    }
    Ok(())
}

impl LiveRun<'_> {
    /// Sends what became ready until the wall clock reaches `now`.
    fn wait_until(&self, now: SimTime) -> Result<(), String> {
        let clock = self.coordinator.shared.lock().clock.expect("a live run has a clock");
        loop {
            {
                let mut state = self.coordinator.shared.lock();
                send_ready(&mut state, self.executor);
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
}

impl Executor for LiveRun<'_> {
    fn begin_round(&mut self, now: SimTime) -> Result<(), String> {
        self.round_start = now;
        self.wait_until(now)
    }

    fn observe(&mut self, job: &ActiveJob, whole_work: f64) -> Observation {
        let id = job.spec.id;
        let total = self.iterations(&job.spec);
        let mut state = self.coordinator.shared.lock();
        let now = state.seconds();
        let Some(&number) = self.current.get(&id) else {
            return Observation { quantum: job.quantum, interrupted: false };
        };
        let Some(attempt) = state.attempts.get_mut(&(id, number)) else {
            return Observation { quantum: job.quantum, interrupted: false };
        };
        // Progress: the share of the job's iterations reported, of its whole work in the policy's
        // units; without reports, the seconds its process ran.
        let work = match attempt.iterations {
            Some(iterations) => {
                // A job resumed without its checkpoint (another node, no shared file system)
                // reports from 0 again: only iterations beyond the most counted are progress.
                let counted = self.counted_iterations.entry(id).or_insert(0);
                let done = iterations.min(total);
                let new = done.saturating_sub(*counted);
                *counted = (*counted).max(done);
                new as f64 / total as f64 * whole_work
            }
            None => {
                let ran = attempt.row.started.map_or(0.0, |s| (attempt.row.ended.unwrap_or(now) - s).max(0.0));
                let counted = self.counted_seconds.insert((id, number), ran).unwrap_or(0.0);
                // Seconds at the profiled speed are `JobSpec::work`'s units; the policy's may
                // be others (Gavel's steps).
                let per_second = if job.spec.work > 0.0 { whole_work / job.spec.work } else { 1.0 };
                (ran - counted).max(0.0) * per_second
            }
        };
        let seconds = self.round_start - job.quantum_start;
        let mut quantum = Quantum { work, seconds, overhead: 0.0, completes: false, abandons: false };
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
                    quantum.work = quantum.work.max(whole_work - job.life.executed_work);
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
        let usable: HashSet<String> =
            self.executor.usable_nodes(&self.coordinator.shared.lock()).into_iter().map(|n| n.name).collect();
        for (node, ClusterNode { name, .. }) in self.nodes.iter().enumerate() {
            let online = usable.contains(name);
            let still_held = self.holding.values().any(|nodes| nodes.contains(&node));
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
        one_job_per_gpu(jobs, decisions)?;
        let coordinator = self.coordinator;
        let mut state = coordinator.shared.lock();
        let wall = state.seconds();
        for &slot in &decisions.preempt {
            let id = jobs[slot].spec.id;
            self.holding.remove(&id);
            if let Some(&n) = self.current.get(&id) {
                preempt_attempt(&mut state, self.executor, (id, n), wall, coordinator.settings.grace_s);
            }
        }
        for launch in &decisions.launch {
            let job = &jobs[launch.job].spec;
            self.launch(&mut state, job, &launch.gpus, job.gpus as usize, &launch.host)?;
        }
        send_ready(&mut state, self.executor);
        Ok(())
    }

    fn booked(&mut self, round: u64, now: SimTime, jobs: &JobTable, order: &[JobSlot]) {
        self.coordinator.shared.lock().board.booked(round, now, jobs, order);
    }

    fn end(&mut self, _now: SimTime, _jobs: &JobTable) -> Result<(), String> {
        self.stop_all();
        self.check_something_ran()
    }
}

/// The event engine's decisions on the cluster. Decisions happen when the policy asks for them,
/// on the wall clock; at each, every job holding GPUs reports the share of its iterations done
/// (its iterations left and work done for the policy) and a job whose process exited 0 ends at
/// its exit. A decision that changes a job's GPUs (another count: a resize; other GPUs; none: a
/// preemption) stops its attempt, which checkpoints, and launches a new one on its new GPUs,
/// which resumes from the checkpoint once the old one has exited.
impl EventExecutor for LiveRun<'_> {
    fn begin_decision(&mut self, now: SimTime) -> Result<(), String> {
        self.wait_until(now)
    }

    fn measures(&self) -> bool {
        true
    }

    fn observe(&mut self, job: &EventJob) -> Result<Measured, String> {
        let id = job.spec.id;
        let total = self.iterations(&job.spec);
        let mut state = self.coordinator.shared.lock();
        let unmeasured = Measured { done: None, finished_at: None };
        let Some(&number) = self.current.get(&id) else { return Ok(unmeasured) };
        let Some(attempt) = state.attempts.get_mut(&(id, number)) else { return Ok(unmeasured) };
        // Reports count on across attempts (a resumed job starts from its checkpoint).
        let counted = self.counted_iterations.entry(id).or_insert(0);
        if let Some(iterations) = attempt.iterations {
            *counted = (*counted).max(iterations.min(total));
        }
        let reported = attempt.iterations.is_some() || *counted > 0;
        // Until its process finishes, a job has work left, however much it reported.
        let done = reported.then(|| (*counted).min(total - 1) as f64 / total as f64);
        if attempt.phase != Phase::Ended {
            return Ok(Measured { done, finished_at: None });
        }
        let why = match (attempt.lost, attempt.exit, attempt.row.exit_code) {
            (false, Some(ExitReason::Exited), Some(0)) => {
                attempt.row.end = "finished".into();
                return Ok(Measured { done: reported.then_some(1.0), finished_at: attempt.row.ended });
            }
            (true, _, _) => "lost",
            (false, Some(ExitReason::FailedToStart), _) => "failed_to_start",
            (false, Some(ExitReason::Preempted | ExitReason::Killed), _) => "preempted",
            _ => "failed",
        };
        attempt.row.end = why.into();
        Err(format!(
            "live: job {id} attempt {number} {} on node {}{}; the event engine's policies plan every job to its end \
             on a fixed cluster and can neither drop nor re-queue it, so the run stops (the round engine's families \
             re-queue such a job)",
            why.replace('_', " "),
            attempt.row.node,
            attempt.row.stderr_tail.lines().last().map(|l| format!(": {l}")).unwrap_or_default()
        ))
    }

    fn carry_out(&mut self, now: SimTime, sim: &EventSim) -> Result<(), String> {
        let coordinator = self.coordinator;
        let mut state = coordinator.shared.lock();
        let wall = state.seconds();
        let mut starts = Vec::new();
        for (j, job) in sim.jobs().iter().enumerate() {
            let id = job.spec.id;
            let wanted = (job.status == JobStatus::Running && job.gpus > 0).then(|| {
                let mut gpus = job.held.clone();
                gpus.sort_unstable();
                gpus
            });
            if wanted.as_ref().is_some_and(Vec::is_empty) {
                return Err(format!(
                    "live: the policy runs job {id} on {} GPUs without placing it on GPUs of its own (it time-slices \
                     or packs jobs on shared GPUs), which live mode cannot carry out: a job's process runs on the \
                     GPUs it holds alone",
                    job.gpus
                ));
            }
            if self.launched_on.get(&id) == wanted.as_ref() {
                continue;
            }
            if self.launched_on.remove(&id).is_some()
                && let Some(&number) = self.current.get(&id)
            {
                let still_runs = state.attempts.get(&(id, number)).is_some_and(|a| a.phase != Phase::Ended);
                if job.status != JobStatus::Finished {
                    preempt_attempt(&mut state, self.executor, (id, number), wall, coordinator.settings.grace_s);
                    if wanted.is_some()
                        && let Some(attempt) = state.attempts.get_mut(&(id, number))
                    {
                        attempt.row.end = "resized".into();
                    }
                } else if still_runs {
                    return Err(format!(
                        "live: the policy ended job {id} at its planned end while its process still runs (attempt \
                         {number}); a live policy must end a job only once `EventSim::completes` says so"
                    ));
                }
            }
            if let Some(gpus) = wanted {
                starts.push((j, gpus));
            }
        }
        // Launched after every stop, so that each waits only for the attempts it replaces.
        for (j, gpus) in starts {
            let spec = &sim.job(j).spec;
            self.launch(&mut state, spec, &gpus, gpus.len(), &[])?;
            self.launched_on.insert(spec.id, gpus);
        }
        send_ready(&mut state, self.executor);
        self.decisions += 1;
        let queue = sim.runnable().iter().map(|&j| {
            let job = sim.job(j);
            status::QueuedJob {
                job: job.spec.id,
                gpus: job.gpus,
                running: job.status == JobStatus::Running && job.gpus > 0,
                done: status::done_share(job.life.executed_work, job.spec.work),
            }
        });
        state.board.decided(self.decisions, now, queue);
        Ok(())
    }

    fn end(&mut self, _now: SimTime, _sim: &EventSim) -> Result<(), String> {
        self.stop_all();
        self.check_something_ran()
    }
}

/// A run that fails or is stopped leaves no job running; the run's ended attempts are forgotten
/// (its attempts table was read), so a sweep holds only what may still be running.
impl Drop for LiveRun<'_> {
    fn drop(&mut self) {
        self.stop_all();
        let run = Some(self.run.as_str());
        let mut state = self.coordinator.shared.lock();
        state.attempts.retain(|_, a| a.phase != Phase::Ended || a.launch_run() != run);
        state.board.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executor that records what it is asked to do; every node is usable.
    #[derive(Default)]
    struct Recorder(Mutex<Vec<String>>);

    impl Recorder {
        fn take(&self) -> Vec<String> {
            std::mem::take(&mut *self.0.lock().unwrap())
        }
    }

    impl ClusterExecutor for Recorder {
        fn usable_nodes(&self, _state: &State) -> Vec<ClusterNode> {
            ["a", "b"]
                .map(|name| ClusterNode {
                    name: name.into(),
                    slots: vec!["0".into(), "1".into()],
                    address: name.into(),
                })
                .into()
        }
        fn launch(&self, _state: &mut State, part: &PartLaunch) -> Result<(), String> {
            self.0.lock().unwrap().push(format!("launch {}/{} on {}", part.job, part.attempt, part.node));
            Ok(())
        }
        fn preempt(&self, _state: &mut State, job: u64, attempt: u32, node: &str, _grace_s: f64) {
            self.0.lock().unwrap().push(format!("preempt {job}/{attempt} on {node}"));
        }
        fn missing_nodes(&self, _state: &State, _wanted: usize, _waited: Duration) -> String {
            String::new()
        }
    }

    /// A decided attempt of `job`, one part per `(node, slots)`, waiting for its slots.
    fn decided(state: &mut State, job: u64, parts: &[(&str, &[&str])]) {
        let parts = parts
            .iter()
            .map(|(node, slots)| Part {
                launch: PartLaunch {
                    job,
                    attempt: 0,
                    run: "r".into(),
                    argv: Argv::Exec(vec!["true".into()]),
                    env: BTreeMap::new(),
                    node: node.to_string(),
                    slots: slots.iter().map(|s| s.to_string()).collect(),
                    cpus: 0.0,
                    memory_gb: 0.0,
                },
                running: false,
                started: false,
            })
            .collect();
        let attempt = Attempt {
            run: "r".into(),
            parts,
            phase: Phase::Waiting,
            stopping: false,
            row: AttemptRow::default(),
            total_iterations: 10,
            over_reported: false,
            iterations: None,
            exit: None,
            failed_part: false,
            lost: false,
            master_port: None,
        };
        state.attempts.insert((job, 0), attempt);
    }

    fn exited(code: i32) -> PartEnd {
        PartEnd { reason: ExitReason::Exited, code: Some(code), signal: None, stderr_tail: String::new(), lost: false }
    }

    /// A job's process per GPU: a launch onto a GPU that a running job keeps is refused, naming
    /// both jobs, while one onto a GPU whose job is preempted in the same decision is not.
    #[test]
    fn a_launch_onto_a_gpu_another_job_keeps_is_refused() {
        use crate::core::{JobSpec, Launch};
        let mut jobs = JobTable::default();
        let running =
            jobs.insert(ActiveJob::admitted(JobSpec { id: 7, gpus: 1, work: 10.0, ..JobSpec::default() }, 0.0, 1.0));
        jobs[running].gpus = vec![2];
        let waiting =
            jobs.insert(ActiveJob::admitted(JobSpec { id: 8, gpus: 1, work: 10.0, ..JobSpec::default() }, 0.0, 1.0));
        let mut decisions = PlacementDecisions::default();
        decisions.launch.push(Launch::gpus(waiting, vec![2]));
        let refused = one_job_per_gpu(&jobs, &decisions).unwrap_err();
        assert!(refused.contains("put job 8 on GPU 2 beside job 7"), "{refused}");
        // The same GPU once its job is preempted, or another one, is fine.
        decisions.preempt.push(running);
        assert_eq!(one_job_per_gpu(&jobs, &decisions), Ok(()));
        decisions.preempt.clear();
        decisions.launch[0].gpus = vec![3];
        assert_eq!(one_job_per_gpu(&jobs, &decisions), Ok(()));
        // Two launches onto one GPU in the same decision.
        let third =
            jobs.insert(ActiveJob::admitted(JobSpec { id: 9, gpus: 1, work: 10.0, ..JobSpec::default() }, 0.0, 1.0));
        decisions.launch.push(Launch::gpus(third, vec![3]));
        assert!(one_job_per_gpu(&jobs, &decisions).unwrap_err().contains("put job 9 on GPU 3 beside job 8"));
    }

    /// The status page shows a cluster manager's nodes with the health of the agents' words: a
    /// node Slurm offers is connected, one it drained is lost, and the jobs on each are listed.
    #[test]
    fn managed_nodes_appear_on_the_status_page_with_their_health() {
        let mut state = State::default();
        let node = |name: &str, usable| ManagedNode {
            name: name.into(),
            slots: vec!["0".into(), "1".into()],
            usable,
            seen: Instant::now(),
        };
        state.managed_nodes = vec![node("n1", true), node("n2", false)];
        let snapshot = status_snapshot(&state);
        let health: Vec<_> = snapshot.nodes.iter().map(|n| (n.name.as_str(), n.health)).collect();
        assert_eq!(health, [("n1", status::Health::Connected), ("n2", status::Health::Lost)]);
        assert_eq!(snapshot.nodes[0].slots, ["0", "1"]);
    }

    /// A launch preempted while it waited for its slots (an earlier attempt there still in its
    /// grace period) ends at once, is never sent, and holds nothing: the next launch on those
    /// slots starts as soon as the earlier attempt is gone.
    #[test]
    fn a_launch_preempted_before_it_was_sent_holds_no_slots() {
        let executor = Recorder::default();
        let mut state = State::default();
        decided(&mut state, 1, &[("a", &["0"])]);
        send_ready(&mut state, &executor);
        assert_eq!(executor.take(), ["launch 1/0 on a"]);
        decided(&mut state, 2, &[("a", &["0"])]);
        send_ready(&mut state, &executor);
        assert!(executor.take().is_empty(), "slot 0 of a is busy");
        preempt_attempt(&mut state, &executor, (2, 0), 3.0, 5.0);
        assert!(executor.take().is_empty(), "nothing to signal: it never ran");
        assert_eq!(state.attempts[&(2, 0)].phase, Phase::Ended);
        assert_eq!(state.attempts[&(2, 0)].row.end, "preempted");
        decided(&mut state, 3, &[("a", &["0"])]);
        end_part(&mut state, &executor, (1, 0), "a", exited(0), 5.0);
        send_ready(&mut state, &executor);
        assert_eq!(executor.take(), ["launch 3/0 on a"]);
    }

    /// A gang starts whole (one part's busy slot holds back all its parts), a failed part stops
    /// the others and is the attempt's end, and a part other than the first that exits 0 waits
    /// for the first, whose end is the job's.
    #[test]
    fn a_gang_starts_whole_and_stops_whole() {
        let executor = Recorder::default();
        let mut state = State::default();
        decided(&mut state, 4, &[("b", &["0"])]);
        send_ready(&mut state, &executor);
        decided(&mut state, 5, &[("a", &["0", "1"]), ("b", &["0"])]);
        send_ready(&mut state, &executor);
        assert_eq!(executor.take(), ["launch 4/0 on b"]);
        end_part(&mut state, &executor, (4, 0), "b", exited(0), 5.0);
        send_ready(&mut state, &executor);
        assert_eq!(executor.take(), ["launch 5/0 on a", "launch 5/0 on b"]);
        assert!(state.attempts[&(5, 0)].occupies("a", "1") && state.attempts[&(5, 0)].occupies("b", "0"));
        end_part(&mut state, &executor, (5, 0), "b", exited(1), 5.0);
        assert_eq!(executor.take(), ["preempt 5/0 on a"]);
        assert_eq!(state.attempts[&(5, 0)].phase, Phase::Sent, "its first part is still stopping");
        let stopped = PartEnd { reason: ExitReason::Preempted, ..exited(0) };
        end_part(&mut state, &executor, (5, 0), "a", stopped, 5.0);
        let gang = &state.attempts[&(5, 0)];
        assert_eq!((gang.phase, gang.exit, gang.row.exit_code), (Phase::Ended, Some(ExitReason::Exited), Some(1)));

        decided(&mut state, 6, &[("a", &["0"]), ("b", &["1"])]);
        send_ready(&mut state, &executor);
        assert_eq!(executor.take(), ["launch 6/0 on a", "launch 6/0 on b"]);
        end_part(&mut state, &executor, (6, 0), "b", exited(0), 5.0);
        assert!(executor.take().is_empty(), "the first part goes on");
        end_part(&mut state, &executor, (6, 0), "a", exited(0), 5.0);
        let gang = &state.attempts[&(6, 0)];
        assert_eq!((gang.phase, gang.exit, gang.row.exit_code), (Phase::Ended, Some(ExitReason::Exited), Some(0)));
    }

    /// A node lost under one part of a gang stops the rest, and the attempt counts as lost.
    #[test]
    fn a_lost_node_stops_its_gangs_elsewhere() {
        let executor = Recorder::default();
        let mut state = State::default();
        decided(&mut state, 7, &[("a", &["0"]), ("b", &["0"])]);
        send_ready(&mut state, &executor);
        executor.take();
        for key in state.running_on("b") {
            end_part(&mut state, &executor, key, "b", lost_part(), 5.0);
        }
        assert_eq!(executor.take(), ["preempt 7/0 on a"]);
        assert!(state.attempts[&(7, 0)].lost);
        assert!(state.running_on("b").is_empty() && !state.running_on("a").is_empty());
    }

    /// The acceptor's error path, step by step: at the descriptor limit every accept fails at
    /// once (EMFILE), and the loop must wait between tries instead of spinning, then resume
    /// at full speed once an accept succeeds.
    #[test]
    fn accept_errors_back_off_instead_of_spinning() {
        let emfile = || io::Error::from_raw_os_error(libc::EMFILE);
        // 40 failures, one connection, 5 failures, then the scheduler closes.
        let mut script: Vec<io::Result<u32>> = (0..40).map(|_| Err(emfile())).collect();
        script.push(Ok(7));
        script.extend((0..5).map(|_| Err(emfile())));
        let calls = std::cell::Cell::new(0);
        let mut script = script.into_iter();
        let (mut admitted, mut waits) = (Vec::new(), Vec::new());
        accept_loop(
            || {
                calls.set(calls.get() + 1);
                script.next().unwrap_or(Ok(0))
            },
            |stream| admitted.push(stream),
            |wait| waits.push(wait),
            || calls.get() > 46,
        );
        assert_eq!(admitted, [7]);
        assert_eq!(waits.len(), 45, "one wait after every failed accept");
        let ms: Vec<u128> = waits.iter().map(Duration::as_millis).collect();
        assert_eq!(ms[..8], [10, 20, 40, 80, 160, 320, 640, 1000]);
        assert!(ms[8..40].iter().all(|&w| w == 1000), "{ms:?}");
        // 40 failures in a row cost the acceptor over half a minute of waiting, not a core.
        assert!(waits[..40].iter().sum::<Duration>() >= Duration::from_secs(30));
        // After a success the first wait is short again.
        assert_eq!(ms[40..], [10, 20, 40, 80, 160]);
    }

    #[test]
    fn connections_take_at_most_half_the_descriptors() {
        assert_eq!(Limits::for_descriptors(1024), Limits { connections: 170, unauthenticated: 64 });
        assert_eq!(Limits::for_descriptors(64), Limits { connections: 10, unauthenticated: 5 });
        assert_eq!(Limits::for_descriptors(3), Limits { connections: 1, unauthenticated: 1 });
        let count = Arc::new(AtomicUsize::new(0));
        let first = Ticket::take(&count, 2).unwrap();
        let second = Ticket::take(&count, 2).unwrap();
        assert!(Ticket::take(&count, 2).is_none());
        drop(first);
        let third = Ticket::take(&count, 2);
        assert!(third.is_some());
        drop((second, third));
        assert_eq!(count.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn the_descriptor_limit_is_raised_to_the_hard_one() {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        let soft = raise_descriptor_limit();
        // SAFETY: getrlimit writes into the struct it is given.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) }, 0);
        assert_eq!(Ok(soft), usize::try_from(limit.rlim_cur));
        assert_eq!(limit.rlim_cur, limit.rlim_max.min(1 << 20));
    }
}
