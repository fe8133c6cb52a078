//! Live mode on Slurm: the executor that carries out a live run's decisions with Slurm's own
//! commands, with no service of blox's on the compute nodes.
//!
//! - **Nodes** are Slurm's (`sinfo`), by name, with the GPUs of their `gpu` GRES; a node that is
//!   drained, down, failing or not responding is not usable, and one that becomes so takes its
//!   GPUs out of the cluster: its parts are cancelled and counted lost, as an agent's loss.
//! - **Launch**: each part of an attempt is an `srun` job of one task pinned to its node
//!   (`--nodelist`), asking for its GPUs (`--gres=gpu:N`; Slurm picks which and sets
//!   `CUDA_VISIBLE_DEVICES`) and, when the policy allocates them, its CPUs (`--cpus-per-task`)
//!   and memory (`--mem`). It is named `blox-<job>-<attempt>-<part>-<run>`. Its environment is
//!   the scheduler's less `BLOX_TOKEN`, with what a job's client needs (the scheduler's address
//!   and the attempt's credential, as an agent gives them) and a checkpoint directory under
//!   the work directory (shared by the nodes).
//! - **Start**: when `squeue` shows the job running. **End**: `srun`'s exit (its task's status).
//! - **Preempt**: `scancel --signal=TERM`, then after the grace period `scancel` (a job still
//!   waiting for its allocation is cancelled at once).

use super::auth::Key;
use super::protocol::{Argv, ExitReason};
use super::scheduler::{
    ClusterExecutor, ClusterNode, ManagedNode, PartEnd, PartLaunch, Shared, State, end_part, lost_part,
};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How often `sinfo` (and, while a part waits to start, `squeue`) is asked.
const POLL: Duration = Duration::from_millis(500);

/// How much of a part's stderr its attempt's row keeps.
const STDERR_TAIL: u64 = 4096;

/// What a job needs from the scheduler whatever runs it.
#[derive(Debug, Clone)]
pub struct JobSettings {
    /// `host:port` jobs report to.
    pub scheduler: String,
    pub token: String,
    /// Checkpoints and output, `<work_dir>/runs/<run>/jobs/<job>/`.
    pub work_dir: PathBuf,
}

pub(super) struct Slurm {
    shared: Arc<Shared>,
    inner: Arc<Mutex<Inner>>,
    job: JobSettings,
}

struct Inner {
    /// The usable nodes at the last look.
    nodes: Vec<ClusterNode>,
    /// Every node Slurm listed with its state, or why `sinfo` failed.
    seen: Result<BTreeMap<String, String>, String>,
    /// Parts whose `srun` runs, by (job, attempt, node).
    parts: HashMap<(u64, u32, String), Running>,
}

struct Running {
    name: String,
    started: bool,
    /// blox cancelled it (and after the grace, killed it).
    preempted: bool,
    killed: bool,
}

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    inner.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Slurm {
    /// Looks at Slurm's nodes once (an error when `sinfo` cannot run) and keeps looking.
    pub fn start(shared: Arc<Shared>, job: JobSettings) -> Result<Slurm, String> {
        let seen = sinfo().map_err(|e| format!("live: executor slurm: {e}"))?;
        let inner =
            Arc::new(Mutex::new(Inner { nodes: usable(&seen), seen: Ok(states(&seen)), parts: HashMap::new() }));
        let slurm = Slurm { shared, inner, job };
        let monitor = Slurm { shared: slurm.shared.clone(), inner: slurm.inner.clone(), job: slurm.job.clone() };
        std::thread::Builder::new()
            .name("live-slurm".into())
            .spawn(move || monitor.watch())
            .map_err(|e| format!("live: cannot start the Slurm monitor thread: {e}"))?;
        Ok(slurm)
    }

    /// Follows the nodes (a node gone takes its parts with it) and the parts' starts.
    fn watch(&self) {
        while !self.shared.is_closing() {
            std::thread::sleep(POLL);
            let looked = sinfo();
            let waiting = lock(&self.inner).parts.values().any(|p| !p.started);
            let running = if waiting { squeue().ok() } else { None };
            let mut state = self.shared.lock();
            if let Ok(seen) = &looked {
                state.managed_nodes = managed(seen);
            }
            let gone: Vec<String> = {
                let mut inner = lock(&self.inner);
                match looked {
                    Ok(seen) => {
                        let now = usable(&seen);
                        let gone = inner.nodes.iter().filter(|n| !now.iter().any(|m| m.name == n.name));
                        let gone = gone.map(|n| n.name.clone()).collect();
                        inner.nodes = now;
                        inner.seen = Ok(states(&seen));
                        gone
                    }
                    Err(e) => {
                        inner.seen = Err(e);
                        Vec::new()
                    }
                }
            };
            for node in gone {
                eprintln!("live: Slurm node {node} left the cluster (drained, down or not responding)");
                for key in state.running_on(&node) {
                    self.preempt(&mut state, key.0, key.1, &node, 0.0);
                    end_part(&mut state, self, key, &node, lost_part(), self.shared.grace_s());
                }
            }
            let Some(running) = running else { continue };
            let started: Vec<(u64, u32, String)> = {
                let mut inner = lock(&self.inner);
                let mut started = Vec::new();
                for (key, part) in inner.parts.iter_mut().filter(|(_, p)| !p.started) {
                    if running.iter().any(|name| name == &part.name) {
                        part.started = true;
                        started.push(key.clone());
                    }
                }
                started
            };
            for (job, attempt, node) in started {
                state.part_started((job, attempt), &node);
            }
        }
    }

    /// `srun`'s command line and environment for `part`.
    fn command(&self, part: &PartLaunch, name: &str, dir: &Path, output: &str) -> Result<Command, String> {
        let checkpoint = dir.join("checkpoint");
        std::fs::create_dir_all(&checkpoint).map_err(|e| format!("cannot create {}: {e}", checkpoint.display()))?;
        let file = |ext: &str| {
            let path = dir.join(format!("{output}.{ext}"));
            File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))
        };
        let mut command = Command::new("srun");
        command.args(["--quiet", "--nodes=1", "--ntasks=1", "--kill-on-bad-exit=1"]);
        command.arg(format!("--nodelist={}", part.node)).arg(format!("--job-name={name}"));
        if !part.slots.is_empty() {
            command.arg(format!("--gres=gpu:{}", part.slots.len()));
        }
        if part.cpus > 0.0 {
            command.arg(format!("--cpus-per-task={}", part.cpus.ceil() as u64));
        }
        if part.memory_gb > 0.0 {
            command.arg(format!("--mem={}M", (part.memory_gb * 1024.0).ceil() as u64));
        }
        command.arg("--");
        match &part.argv {
            Argv::Exec(argv) => command.args(argv),
            Argv::Shell(script) => command.args(["sh", "-c", script]),
        };
        let credential = Key::job(&self.job.token, part.job, part.attempt, Some(&part.run));
        command
            .env_remove("BLOX_TOKEN")
            .envs(&part.env)
            .env("BLOX_SCHEDULER", &self.job.scheduler)
            .env("BLOX_JOB_CREDENTIAL", credential.to_hex())
            .env("BLOX_JOB_ID", part.job.to_string())
            .env("BLOX_ATTEMPT", part.attempt.to_string())
            .env("BLOX_RUN", &part.run)
            .env("BLOX_CHECKPOINT_DIR", &checkpoint)
            .stdin(Stdio::null())
            .stdout(file("out")?)
            .stderr(file("err")?)
            // Its own process group: a Ctrl-C meant for blox does not cancel the job behind
            // blox's back (the run's end stops it).
            .process_group(0);
        Ok(command)
    }
}

impl ClusterExecutor for Slurm {
    fn usable_nodes(&self, _state: &State) -> Vec<ClusterNode> {
        lock(&self.inner).nodes.clone()
    }

    fn launch(&self, _state: &mut State, part: &PartLaunch) -> Result<(), String> {
        let rank = part.env.get("NODE_RANK").map_or("0", String::as_str);
        let name = format!("blox-{}-{}-{rank}-{}", part.job, part.attempt, part.run);
        let dir = self.job.work_dir.join("runs").join(&part.run).join("jobs").join(part.job.to_string());
        let output = match part.env.get("NODE_RANK") {
            Some(rank) => format!("attempt-{}.part-{rank}", part.attempt),
            None => format!("attempt-{}", part.attempt),
        };
        let mut child =
            self.command(part, &name, &dir, &output)?.spawn().map_err(|e| format!("cannot run srun: {e}"))?;
        let key = (part.job, part.attempt, part.node.clone());
        lock(&self.inner).parts.insert(key.clone(), Running { name, started: false, preempted: false, killed: false });
        let waiter = Slurm { shared: self.shared.clone(), inner: self.inner.clone(), job: self.job.clone() };
        let stderr = dir.join(format!("{output}.err"));
        let spawned = std::thread::Builder::new().name("live-srun".into()).spawn(move || {
            let status = child.wait();
            let mut state = waiter.shared.lock();
            let running = lock(&waiter.inner).parts.remove(&key);
            let (preempted, killed) = running.as_ref().map_or((false, false), |r| (r.preempted, r.killed));
            // A job shorter than a look at squeue still ran if it exited 0.
            if running.is_some_and(|r| !r.started) && status.as_ref().is_ok_and(|s| s.success()) {
                state.part_started((key.0, key.1), &key.2);
            }
            let stderr_tail = tail(&stderr);
            let end = match status {
                Ok(status) => PartEnd {
                    reason: if killed {
                        ExitReason::Killed
                    } else if preempted {
                        ExitReason::Preempted
                    } else {
                        ExitReason::Exited
                    },
                    code: status.code(),
                    signal: status.signal(),
                    stderr_tail,
                    lost: false,
                },
                Err(e) => PartEnd {
                    reason: ExitReason::Exited,
                    code: None,
                    signal: None,
                    stderr_tail: format!("cannot wait for srun: {e}"),
                    lost: false,
                },
            };
            let (job, attempt, node) = key;
            end_part(&mut state, &waiter, (job, attempt), &node, end, waiter.shared.grace_s());
        });
        spawned.map(drop).map_err(|e| format!("cannot start a thread for srun: {e}"))
    }

    fn preempt(&self, _state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64) {
        let key = (job, attempt, node.to_string());
        let (name, started) = {
            let mut inner = lock(&self.inner);
            let Some(part) = inner.parts.get_mut(&key).filter(|p| !p.preempted) else { return };
            part.preempted = true;
            (part.name.clone(), part.started)
        };
        let inner = self.inner.clone();
        // scancel talks to the controller: not under the scheduler's lock.
        let spawned = std::thread::Builder::new().name("live-scancel".into()).spawn(move || {
            if started && grace_s > 0.0 {
                scancel(&name, Some("TERM"));
                std::thread::sleep(Duration::from_secs_f64(grace_s));
                match lock(&inner).parts.get_mut(&key) {
                    Some(part) => part.killed = true,
                    None => return,
                }
            }
            scancel(&name, None);
        });
        if let Err(e) = spawned {
            eprintln!("live: cannot start a thread to cancel job {job} attempt {attempt} on {node}: {e}");
        }
    }

    fn missing_nodes(&self, _state: &State, wanted: usize, waited: Duration) -> String {
        let inner = lock(&self.inner);
        let seen = match &inner.seen {
            Ok(seen) => seen.iter().map(|(name, state)| format!("{name} ({state})")).collect::<Vec<_>>().join(", "),
            Err(e) => format!("sinfo failed: {e}"),
        };
        format!(
            "live: the cluster has {wanted} nodes but Slurm offers {} usable after {:.0} s (sinfo: {seen})",
            inner.nodes.len(),
            waited.as_secs_f64()
        )
    }
}

/// One line of `sinfo -N`: a node, its state, its GRES and its address.
#[derive(Debug, Clone, PartialEq)]
struct NodeLine {
    name: String,
    state: String,
    gpus: usize,
    address: String,
}

const SINFO_FORMAT: &str = "%N|%t|%G|%o";

fn sinfo() -> Result<Vec<NodeLine>, String> {
    let out = run(Command::new("sinfo").args(["--noheader", "--Node", "--format", SINFO_FORMAT]))?;
    Ok(parse_sinfo(&out))
}

/// `sinfo -N` lists a node once per partition: the first line of each counts.
fn parse_sinfo(out: &str) -> Vec<NodeLine> {
    let mut nodes: Vec<NodeLine> = Vec::new();
    for line in out.lines() {
        let fields: Vec<&str> = line.trim().split('|').collect();
        let [name, state, gres, address] = fields[..] else { continue };
        if name.is_empty() || nodes.iter().any(|n| n.name == name) {
            continue;
        }
        nodes.push(NodeLine { name: name.into(), state: state.into(), gpus: gpus_of(gres), address: address.into() });
    }
    nodes
}

/// The GPUs in a GRES list such as `gpu:2`, `gpu:a100:4(S:0-1),shard:8`.
fn gpus_of(gres: &str) -> usize {
    gres.split(',')
        .filter(|g| g.starts_with("gpu:") || *g == "gpu")
        .map(|g| {
            let count = g.split('(').next().unwrap_or(g).rsplit(':').next().unwrap_or("");
            count.parse::<usize>().unwrap_or(if g == "gpu" { 1 } else { 0 })
        })
        .sum()
}

/// Slurm's compact node states that can start jobs: idle, mixed, allocated, completing. A
/// suffix (`*` not responding, `~` powered off, `#` powering up, `!` powering down, `%`
/// powering off, `@` reboot pending, `$` maintenance) and every other state (`drain`, `drng`,
/// `down`, `fail`, ...) make it unusable.
fn is_usable(state: &str) -> bool {
    matches!(state, "idle" | "mix" | "alloc" | "comp")
}

fn usable(nodes: &[NodeLine]) -> Vec<ClusterNode> {
    nodes
        .iter()
        .filter(|n| is_usable(&n.state))
        .map(|n| ClusterNode {
            name: n.name.clone(),
            slots: (0..n.gpus).map(|i| i.to_string()).collect(),
            address: n.address.clone(),
        })
        .collect()
}

/// Every node Slurm lists, usable or not, as the status page shows it.
fn managed(nodes: &[NodeLine]) -> Vec<ManagedNode> {
    let seen = std::time::Instant::now();
    let node = |n: &NodeLine| ManagedNode {
        name: n.name.clone(),
        slots: (0..n.gpus).map(|i| i.to_string()).collect(),
        usable: is_usable(&n.state),
        seen,
    };
    nodes.iter().map(node).collect()
}

fn states(nodes: &[NodeLine]) -> BTreeMap<String, String> {
    nodes.iter().map(|n| (n.name.clone(), format!("{}, {} GPUs", n.state, n.gpus))).collect()
}

/// Names of the running jobs.
fn squeue() -> Result<Vec<String>, String> {
    let out = run(Command::new("squeue").args(["--noheader", "--states=RUNNING", "--format=%j"]))?;
    Ok(out.lines().map(|l| l.trim().to_string()).collect())
}

fn scancel(name: &str, signal: Option<&str>) {
    let mut command = Command::new("scancel");
    command.arg(format!("--name={name}"));
    if let Some(signal) = signal {
        command.arg(format!("--signal={signal}"));
    }
    if let Err(e) = run(&mut command) {
        eprintln!("live: scancel of {name}: {e}");
    }
}

/// A Slurm command's stdout, or what went wrong.
fn run(command: &mut Command) -> Result<String, String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command.stdin(Stdio::null()).output().map_err(|e| format!("cannot run {program}: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{program} failed ({}): {}", out.status, stderr.trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last [`STDERR_TAIL`] bytes of a file.
fn tail(path: &Path) -> String {
    let Ok(mut file) = File::open(path) else { return String::new() };
    let length = file.metadata().map_or(0, |m| m.len());
    let _ = file.seek(SeekFrom::Start(length.saturating_sub(STDERR_TAIL)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinfo_lines_give_nodes_their_gpus_and_state() {
        let out = "n1|idle|gpu:2|localhost\nn1|idle|gpu:2|localhost\nn2|drain|gpu:a100:4(S:0-1),shard:8|10.0.0.2\n\
                   n3|mix*|(null)|n3\ngarbage\nn4|alloc|gpu:1,gpu:t4:2|n4\n";
        let nodes = parse_sinfo(out);
        let summary: Vec<(&str, &str, usize)> =
            nodes.iter().map(|n| (n.name.as_str(), n.state.as_str(), n.gpus)).collect();
        assert_eq!(summary, [("n1", "idle", 2), ("n2", "drain", 4), ("n3", "mix*", 0), ("n4", "alloc", 3)]);
        let names: Vec<String> = usable(&nodes).into_iter().map(|n| n.name).collect();
        assert_eq!(names, ["n1", "n4"], "drained and unresponsive nodes are out");
        assert_eq!(usable(&nodes)[0].slots, ["0", "1"]);
        assert_eq!(usable(&nodes)[0].address, "localhost");
    }
}
