//! Live mode on Kubernetes: the executor that carries out a live run's decisions through the
//! API server, with no service of blox's in the cluster.
//!
//! - **Nodes** are the API server's (`GET /api/v1/nodes`, optionally through a label
//!   selector), by name, with the GPUs of their allocatable GPU resource (`nvidia.com/gpu` by
//!   default). A node that is not Ready, cordoned (`spec.unschedulable`) or gone is not usable;
//!   one that becomes so takes its GPUs out of the cluster: its pods are deleted and counted
//!   lost, as an agent's loss.
//! - **Launch**: each part of an attempt is a pod bound to its node with `nodeName` (the policy
//!   chose the node: kube-scheduler is not asked again, and the kubelet still admits the pod
//!   against the node's allocatable resources, so GPUs taken by something else make it fail to
//!   start instead of waiting unseen), `restartPolicy: Never`, requesting (requests = limits)
//!   its GPUs and, when the policy allocates them, its CPUs and memory. It is named
//!   `blox-<sweep>-<job>-<attempt>-<rank>` and labelled with the sweep, job, attempt, rank and
//!   run. Its environment is the spec's `env`, what a job's client needs (the scheduler's
//!   address and the attempt's credential, never the cluster's token) and, with a
//!   `checkpoint_claim`, a checkpoint directory on that volume.
//! - **Gangs**: `MASTER_ADDR` is a headless Service per attempt that selects the attempt's
//!   rank-0 pod and publishes it before it is ready (`<service>.<namespace>.svc`). The pods'
//!   environment is fixed when they are created, before the rank-0 pod has an address, so its
//!   IP cannot be given without starting the gang one pod at a time; a name can, and resolves
//!   as soon as that pod has an IP. (A node's address would not do: pods do not listen on it.)
//! - **Start**: when the pod's phase is `Running`. **End**: `Succeeded` or `Failed`, with its
//!   container's exit code (or signal) and the tail of its log; then the pod is deleted. A pod
//!   that cannot start (an image that cannot be pulled, the kubelet refusing it) fails to start.
//! - **Preempt**: the pod is deleted with `gracePeriodSeconds` (`engine.live.grace_s`): its
//!   container gets SIGTERM, then SIGKILL.
//! - **Trust**: HTTPS only (plain HTTP only to a loopback address, such as `kubectl proxy`), the
//!   server's certificate checked against the kubeconfig's CA (or the service account's), a
//!   bearer token or client certificate; the token is never logged. Every request has a
//!   deadline and every answer a size limit: a silent or flooding API server is an error, not
//!   a hang.

use super::auth::Key;
use super::protocol::{Argv, ExitReason};
use super::scheduler::{
    ClusterExecutor, ClusterNode, ManagedNode, PartEnd, PartLaunch, Shared, State, end_part, lost_part,
};
use super::slurm::JobSettings;
use crate::spec::KubernetesSpec;
use crate::text::escape_control;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// How often the nodes and the sweep's pods are listed.
const POLL: Duration = Duration::from_millis(500);

/// How long one request to the API server may take, from connecting to its answer's last byte.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest answer read from the API server (a node list of a few thousand nodes fits).
const MAX_ANSWER: u64 = 64 << 20;

/// How much of a failed pod's log its attempt's row keeps.
const LOG_TAIL: u64 = 4096;

/// A pod created but not yet listed is given this long before it counts as gone.
const CREATION_LAG: Duration = Duration::from_secs(60);

/// A deleted pod still listed this long after its grace period is given up on.
const STUCK_TERMINATING: Duration = Duration::from_secs(60);

/// Where a `checkpoint_claim` is mounted in each pod.
const WORK_MOUNT: &str = "/blox-work";

/// Waiting reasons of a pod's container that mean it will not start without a change.
const CANNOT_START: [&str; 5] =
    ["InvalidImageName", "ErrImageNeverPull", "ImagePullBackOff", "CreateContainerConfigError", "CreateContainerError"];

/// The executor; dropping it (at the sweep's end) deletes whatever pods and Services of the
/// sweep are left.
pub(super) struct Kubernetes(Handle);

/// What the executor's threads share, as the executor they record starts and ends with.
struct Handle(Arc<Core>);

pub(super) struct Core {
    shared: Arc<Shared>,
    api: Api,
    pods: PodSettings,
    inner: Mutex<Inner>,
}

/// What every pod of the sweep gets.
struct PodSettings {
    namespace: String,
    image: String,
    gpu_resource: String,
    node_selector: Option<String>,
    checkpoint_claim: Option<String>,
    /// Names the sweep's pods and Services: two sweeps in one namespace never collide.
    sweep: String,
    job: JobSettings,
    grace_s: f64,
}

struct Inner {
    nodes: Vec<ClusterNode>,
    /// Every node listed with its state, or why listing failed.
    seen: Result<BTreeMap<String, String>, String>,
    /// Parts with a pod, by (job, attempt, node).
    parts: HashMap<(u64, u32, String), Pod>,
}

struct Pod {
    name: String,
    /// The attempt's Service, held by its rank-0 pod.
    service: Option<String>,
    launched: Instant,
    /// The API server accepted it.
    created: bool,
    /// It appeared in a pod list.
    listed: bool,
    started: bool,
    /// When blox deleted it, and with what grace period.
    deleting: Option<(Instant, f64)>,
}

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    inner.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Kubernetes {
    /// Connects to the API server, lists its nodes once (an error when it cannot) and keeps
    /// looking at them and at the sweep's pods.
    pub fn start(
        shared: Arc<Shared>,
        spec: &KubernetesSpec,
        mut job: JobSettings,
        grace_s: f64,
    ) -> Result<Kubernetes, String> {
        let context = |e: String| format!("live: executor kubernetes: {e}");
        let (api, context_namespace) = Api::from_spec(spec).map_err(context)?;
        match &spec.scheduler_address {
            Some(address) => job.scheduler = address.clone(),
            None if job.scheduler.parse::<SocketAddr>().is_ok_and(|a| a.ip().is_unspecified()) => {
                return Err(context(format!(
                    "the scheduler listens on {} (every interface), which is no address a pod can connect to: set \
                     engine.live.kubernetes.scheduler_address to HOST:PORT the pods reach this machine at",
                    job.scheduler
                )));
            }
            None => {}
        }
        let pods = PodSettings {
            namespace: spec.namespace.clone().or(context_namespace).unwrap_or_else(|| "default".into()),
            image: spec.image.clone(),
            gpu_resource: spec.gpu_resource.clone(),
            node_selector: spec.node_selector.clone(),
            checkpoint_claim: spec.checkpoint_claim.clone(),
            sweep: super::auth::nonce().map_err(context)?[..4].iter().map(|b| format!("{b:02x}")).collect(),
            job,
            grace_s,
        };
        let listed = api.list_nodes(&pods).map_err(|e| context(e.to_string()))?;
        let inner = Inner { nodes: usable(&listed), seen: Ok(states(&listed)), parts: HashMap::new() };
        let core = Arc::new(Core { shared, api, pods, inner: Mutex::new(inner) });
        let monitor = core.clone();
        std::thread::Builder::new()
            .name("live-kubernetes".into())
            .spawn(move || monitor.watch())
            .map_err(|e| format!("live: cannot start the Kubernetes monitor thread: {e}"))?;
        Ok(Kubernetes(Handle(core)))
    }
}

impl Drop for Kubernetes {
    fn drop(&mut self) {
        let core = &self.0.0;
        let selector = format!("blox-sweep={}", core.pods.sweep);
        for kind in ["pods", "services"] {
            let path = format!("/api/v1/namespaces/{}/{kind}", core.pods.namespace);
            let query = [("labelSelector", selector.as_str()), ("gracePeriodSeconds", "0")];
            if let Err(e) = core.api.call(Method::Delete, &path, &query, None) {
                eprintln!("live: cannot delete the sweep's {kind} ({selector}): {e}");
            }
        }
    }
}

impl ClusterExecutor for Kubernetes {
    fn usable_nodes(&self, state: &State) -> Vec<ClusterNode> {
        self.0.usable_nodes(state)
    }
    fn launch(&self, state: &mut State, part: &PartLaunch) -> Result<(), String> {
        self.0.launch(state, part)
    }
    fn preempt(&self, state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64) {
        self.0.preempt(state, job, attempt, node, grace_s);
    }
    fn missing_nodes(&self, state: &State, wanted: usize, waited: Duration) -> String {
        self.0.missing_nodes(state, wanted, waited)
    }
}

impl ClusterExecutor for Handle {
    fn usable_nodes(&self, _state: &State) -> Vec<ClusterNode> {
        lock(&self.0.inner).nodes.clone()
    }
    fn launch(&self, state: &mut State, part: &PartLaunch) -> Result<(), String> {
        self.0.launch(state, part)
    }
    fn preempt(&self, state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64) {
        self.0.preempt(state, job, attempt, node, grace_s);
    }
    fn missing_nodes(&self, state: &State, wanted: usize, waited: Duration) -> String {
        self.0.missing_nodes(state, wanted, waited)
    }
}

/// What a look at a tracked part's pod decided.
enum Verdict {
    Waiting,
    Started,
    Ended { end: PartEnd, ran: bool, log: bool },
}

impl Core {
    /// Follows the nodes (a node gone takes its pods with it) and the pods' phases.
    fn watch(self: Arc<Self>) {
        let mut last_error = String::new();
        while !self.shared.is_closing() {
            std::thread::sleep(POLL);
            let nodes = self.api.list_nodes(&self.pods);
            let pods = self.api.list_pods(&self.pods);
            let error = [nodes.as_ref().err(), pods.as_ref().err()].into_iter().flatten().next();
            let error = error.map(ToString::to_string).unwrap_or_default();
            if error != last_error && !error.is_empty() {
                eprintln!("live: Kubernetes API server: {error}");
            }
            last_error = error;
            self.follow_nodes(nodes);
            if let Ok(pods) = pods {
                self.follow_pods(&pods);
            }
        }
    }

    fn follow_nodes(self: &Arc<Self>, looked: Result<Vec<NodeInfo>, ApiError>) {
        let mut state = self.shared.lock();
        if let Ok(listed) = &looked {
            state.managed_nodes = managed(listed);
        }
        let gone: Vec<String> = {
            let mut inner = lock(&self.inner);
            match looked {
                Ok(listed) => {
                    let now = usable(&listed);
                    let gone = inner.nodes.iter().filter(|n| !now.iter().any(|m| m.name == n.name));
                    let gone = gone.map(|n| n.name.clone()).collect();
                    inner.nodes = now;
                    inner.seen = Ok(states(&listed));
                    gone
                }
                Err(e) => {
                    inner.seen = Err(e.to_string());
                    Vec::new()
                }
            }
        };
        for node in gone {
            eprintln!("live: Kubernetes node {node} left the cluster (not Ready, cordoned or deleted)");
            for key in state.running_on(&node) {
                self.preempt(&mut state, key.0, key.1, &node, 0.0);
                lock(&self.inner).parts.remove(&(key.0, key.1, node.clone()));
                end_part(&mut state, &Handle(self.clone()), key, &node, lost_part(), self.shared.grace_s());
            }
        }
    }

    fn follow_pods(self: &Arc<Self>, pods: &[PodInfo]) {
        let by_name: HashMap<&str, &PodInfo> = pods.iter().map(|p| (p.name.as_str(), p)).collect();
        let mut started = Vec::new();
        let mut ended = Vec::new();
        {
            let mut inner = lock(&self.inner);
            let now = Instant::now();
            inner.parts.retain(|key, pod| match judge(pod, by_name.get(pod.name.as_str()).copied(), now) {
                Verdict::Waiting => true,
                Verdict::Started => {
                    started.push(key.clone());
                    true
                }
                Verdict::Ended { end, ran, log } => {
                    ended.push((key.clone(), pod.name.clone(), pod.service.take(), end, ran, log));
                    false
                }
            });
        }
        // The logs and deletions talk to the API server: under no lock.
        for (_, name, _, end, _, log) in &mut ended {
            if *log && let Ok(tail) = self.api.log_tail(&self.pods.namespace, name) {
                end.stderr_tail = tail;
            }
        }
        let mut deletions = Vec::new();
        {
            let mut state = self.shared.lock();
            for (job, attempt, node) in started {
                state.part_started((job, attempt), &node);
            }
            for ((job, attempt, node), name, service, end, ran, _) in ended {
                if ran {
                    state.part_started((job, attempt), &node);
                }
                end_part(&mut state, &Handle(self.clone()), (job, attempt), &node, end, self.shared.grace_s());
                deletions.push((name, service));
            }
        }
        for (name, service) in deletions {
            self.delete(&name, service.as_deref(), 0.0);
        }
    }

    /// The pod (and Service) of a part, deleted with `grace_s`; a pod already gone is no error.
    fn delete(&self, pod: &str, service: Option<&str>, grace_s: f64) {
        let grace = (grace_s.ceil() as u64).to_string();
        let namespace = &self.pods.namespace;
        let mut objects = vec![format!("/api/v1/namespaces/{namespace}/pods/{pod}")];
        objects.extend(service.map(|s| format!("/api/v1/namespaces/{namespace}/services/{s}")));
        for path in objects {
            match self.api.call(Method::Delete, &path, &[("gracePeriodSeconds", &grace)], None) {
                Ok(_) => {}
                Err(e) if e.status == Some(404) => {}
                Err(e) => eprintln!("live: cannot delete {path}: {e}"),
            }
        }
    }

    fn launch(self: &Arc<Self>, _state: &mut State, part: &PartLaunch) -> Result<(), String> {
        let rank = part.env.get("NODE_RANK").map_or("0", String::as_str);
        let attempt_name = format!("blox-{}-{}-{}", self.pods.sweep, part.job, part.attempt);
        let name = format!("{attempt_name}-{rank}");
        let service = (part.env.contains_key("MASTER_ADDR") && rank == "0").then(|| attempt_name.clone());
        let manifest = self.pods.pod(part, &name, &attempt_name);
        let key = (part.job, part.attempt, part.node.clone());
        let pod = Pod {
            name: name.clone(),
            service: service.clone(),
            launched: Instant::now(),
            created: false,
            listed: false,
            started: false,
            deleting: None,
        };
        lock(&self.inner).parts.insert(key.clone(), pod);
        let service_manifest = service.as_ref().map(|s| self.pods.service(part, s, &attempt_name));
        let core = self.clone();
        let shown = name.clone();
        // The API server is another machine: not under the scheduler's lock.
        let spawned = std::thread::Builder::new().name("live-pod".into()).spawn(move || {
            let created = core.create(service_manifest.as_ref(), &manifest);
            let mut state = core.shared.lock();
            let mut inner = lock(&core.inner);
            match created {
                Ok(()) => {
                    let deleting = inner.parts.get_mut(&key).map(|pod| {
                        pod.created = true;
                        pod.deleting
                    });
                    drop(inner);
                    drop(state);
                    // Preempted (or its node lost) while it was being created.
                    match deleting {
                        Some(None) => {}
                        Some(Some((_, grace_s))) => core.delete(&name, service.as_deref(), grace_s),
                        None => core.delete(&name, service.as_deref(), 0.0),
                    }
                }
                Err(why) => {
                    if inner.parts.remove(&key).is_some() {
                        drop(inner);
                        let end = PartEnd {
                            reason: ExitReason::FailedToStart,
                            code: None,
                            signal: None,
                            stderr_tail: why,
                            lost: false,
                        };
                        end_part(&mut state, &Handle(core.clone()), (key.0, key.1), &key.2, end, 0.0);
                    }
                }
            }
        });
        spawned.map(drop).map_err(|e| format!("cannot start a thread to create pod {shown}: {e}"))
    }

    /// Creates the attempt's Service (a rank-0 pod of a gang) and the pod.
    fn create(&self, service: Option<&Value>, pod: &Value) -> Result<(), String> {
        let namespace = &self.pods.namespace;
        if let Some(service) = service {
            let path = format!("/api/v1/namespaces/{namespace}/services");
            match self.api.call(Method::Post, &path, &[], Some(service)) {
                Ok(_) => {}
                Err(e) if e.status == Some(409) => {}
                Err(e) => return Err(format!("cannot create the gang's Service: {e}")),
            }
        }
        let path = format!("/api/v1/namespaces/{namespace}/pods");
        self.api.call(Method::Post, &path, &[], Some(pod)).map(drop).map_err(|e| format!("cannot create the pod: {e}"))
    }

    fn preempt(self: &Arc<Self>, _state: &mut State, job: u64, attempt: u32, node: &str, grace_s: f64) {
        let key = (job, attempt, node.to_string());
        let (name, service) = {
            let mut inner = lock(&self.inner);
            let Some(pod) = inner.parts.get_mut(&key).filter(|p| p.deleting.is_none()) else { return };
            pod.deleting = Some((Instant::now(), grace_s));
            if !pod.created {
                // Its creating thread deletes it once created.
                return;
            }
            (pod.name.clone(), pod.service.clone())
        };
        let core = self.clone();
        let spawned = std::thread::Builder::new()
            .name("live-pod-delete".into())
            .spawn(move || core.delete(&name, service.as_deref(), grace_s));
        if let Err(e) = spawned {
            eprintln!("live: cannot start a thread to delete job {job} attempt {attempt}'s pod on {node}: {e}");
        }
    }

    fn missing_nodes(&self, _state: &State, wanted: usize, waited: Duration) -> String {
        let inner = lock(&self.inner);
        let seen = match &inner.seen {
            Ok(seen) => seen.iter().map(|(name, state)| format!("{name} ({state})")).collect::<Vec<_>>().join(", "),
            Err(e) => format!("listing them failed: {e}"),
        };
        format!(
            "live: the cluster has {wanted} nodes but Kubernetes offers {} usable after {:.0} s (nodes: {seen})",
            inner.nodes.len(),
            waited.as_secs_f64()
        )
    }
}

/// The part's pod as last listed, judged: still waiting, running, or ended (and how).
fn judge(pod: &mut Pod, listed: Option<&PodInfo>, now: Instant) -> Verdict {
    let ended = |reason, code, signal, stderr_tail: String, ran, log| Verdict::Ended {
        end: PartEnd { reason, code, signal, stderr_tail, lost: false },
        ran,
        log,
    };
    let deleted_for = |deleting: Option<(Instant, f64)>| deleting.map(|(at, grace)| (now - at).as_secs_f64() - grace);
    let Some(listed) = listed else {
        return match deleted_for(pod.deleting) {
            Some(past_grace) => {
                let reason = if past_grace > 0.0 { ExitReason::Killed } else { ExitReason::Preempted };
                ended(reason, None, None, String::new(), false, false)
            }
            None if pod.created && (pod.listed || now - pod.launched > CREATION_LAG) => ended(
                ExitReason::Killed,
                None,
                None,
                format!("pod {} was deleted by someone other than blox", pod.name),
                false,
                false,
            ),
            None => Verdict::Waiting,
        };
    };
    pod.listed = true;
    let preempted = pod.deleting.is_some();
    match listed.phase.as_str() {
        "Succeeded" | "Failed" => {
            let Some(t) = &listed.terminated else {
                // The kubelet refused it before its container ran (e.g. OutOfnvidia.com/gpu).
                let why = format!("the pod failed before its container ran: {}", listed.reason_text());
                return ended(ExitReason::FailedToStart, None, None, why, false, false);
            };
            if !preempted && matches!(t.reason.as_str(), "StartError" | "ContainerCannotRun") {
                let why = format!("the container could not start ({}): {}", t.reason, t.message);
                return ended(ExitReason::FailedToStart, None, None, why, false, false);
            }
            let killed = t.signal == Some(9) || t.code == 137;
            let reason = match (preempted, killed) {
                (true, true) => ExitReason::Killed,
                (true, false) => ExitReason::Preempted,
                (false, _) => ExitReason::Exited,
            };
            // A code above 128 is a signal's, as a shell reports it.
            let (code, signal) = match t.signal {
                Some(s) => (None, Some(s)),
                None if t.code > 128 && t.code < 160 => (None, Some(t.code - 128)),
                None => (Some(t.code), None),
            };
            let failed = t.code != 0 || t.signal.is_some();
            ended(reason, code, signal, t.message.clone(), true, failed && !preempted)
        }
        "Running" if !pod.started => {
            pod.started = true;
            Verdict::Started
        }
        "Pending" if !preempted => match &listed.waiting {
            Some((reason, message)) if CANNOT_START.contains(&reason.as_str()) => {
                let why = format!("the pod cannot start ({reason}): {message}");
                ended(ExitReason::FailedToStart, None, None, why, false, false)
            }
            _ => Verdict::Waiting,
        },
        _ if deleted_for(pod.deleting).is_some_and(|past| past > STUCK_TERMINATING.as_secs_f64()) => ended(
            ExitReason::Killed,
            None,
            None,
            format!("pod {} was still terminating {} s after its grace period", pod.name, STUCK_TERMINATING.as_secs()),
            false,
            false,
        ),
        _ => Verdict::Waiting,
    }
}

impl PodSettings {
    fn labels(&self, part: &PartLaunch) -> serde_json::Map<String, Value> {
        let rank = part.env.get("NODE_RANK").map_or("0", String::as_str);
        let mut labels = serde_json::Map::new();
        labels.insert("blox-sweep".into(), self.sweep.clone().into());
        labels.insert("blox-job".into(), part.job.to_string().into());
        labels.insert("blox-attempt".into(), part.attempt.to_string().into());
        labels.insert("blox-rank".into(), rank.into());
        labels.insert("blox-run".into(), label_value(&part.run).into());
        labels
    }

    /// The pod manifest of `part`.
    fn pod(&self, part: &PartLaunch, name: &str, attempt_name: &str) -> Value {
        let command: Vec<String> = match &part.argv {
            Argv::Exec(argv) => argv.clone(),
            Argv::Shell(script) => vec!["sh".into(), "-c".into(), script.clone()],
        };
        let credential = Key::job(&self.job.token, part.job, part.attempt, Some(&part.run));
        let mut env = part.env.clone();
        if env.contains_key("MASTER_ADDR") {
            env.insert("MASTER_ADDR".into(), format!("{attempt_name}.{}.svc", self.namespace));
        }
        env.insert("BLOX_SCHEDULER".into(), self.job.scheduler.clone());
        env.insert("BLOX_JOB_CREDENTIAL".into(), credential.to_hex());
        env.insert("BLOX_JOB_ID".into(), part.job.to_string());
        env.insert("BLOX_ATTEMPT".into(), part.attempt.to_string());
        env.insert("BLOX_RUN".into(), part.run.clone());
        if self.checkpoint_claim.is_some() {
            let dir = format!("{WORK_MOUNT}/runs/{}/jobs/{}/checkpoint", part.run, part.job);
            env.insert("BLOX_CHECKPOINT_DIR".into(), dir);
        }
        let env: Vec<Value> = env.into_iter().map(|(name, value)| json!({"name": name, "value": value})).collect();
        let mut resources = serde_json::Map::new();
        if !part.slots.is_empty() {
            resources.insert(self.gpu_resource.clone(), part.slots.len().to_string().into());
        }
        if part.cpus > 0.0 {
            resources.insert("cpu".into(), format!("{}m", (part.cpus * 1000.0).ceil() as u64).into());
        }
        if part.memory_gb > 0.0 {
            resources.insert("memory".into(), format!("{}Mi", (part.memory_gb * 1024.0).ceil() as u64).into());
        }
        let mut container = json!({
            "name": "job",
            "image": self.image,
            "command": command,
            "env": env,
            "resources": {"requests": resources, "limits": resources},
        });
        let mut spec = json!({
            "nodeName": part.node,
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": self.grace_s.ceil() as u64,
            // The job talks to blox, not to the API server.
            "automountServiceAccountToken": false,
            "enableServiceLinks": false,
            "containers": [],
        });
        if let Some(claim) = &self.checkpoint_claim {
            container["volumeMounts"] = json!([{"name": "blox-work", "mountPath": WORK_MOUNT}]);
            spec["volumes"] = json!([{"name": "blox-work", "persistentVolumeClaim": {"claimName": claim}}]);
        }
        spec["containers"] = json!([container]);
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": name,
                "namespace": self.namespace,
                "labels": self.labels(part),
                "annotations": {"blox-run": part.run},
            },
            "spec": spec,
        })
    }

    /// The headless Service that names a gang's rank-0 pod (its `MASTER_ADDR`).
    fn service(&self, part: &PartLaunch, name: &str, _attempt_name: &str) -> Value {
        let mut selector = self.labels(part);
        selector.remove("blox-run");
        let port: u16 = part.env.get("MASTER_PORT").and_then(|p| p.parse().ok()).unwrap_or(29500);
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": name, "namespace": self.namespace, "labels": {"blox-sweep": self.sweep}},
            "spec": {
                "clusterIP": "None",
                "publishNotReadyAddresses": true,
                "selector": selector,
                "ports": [{"name": "master", "port": port, "targetPort": port}],
            },
        })
    }
}

/// A label value for `text`: itself when it is one (at most 63 characters of letters, digits,
/// `-`, `_` and `.`, a letter or digit at each end), else a hash of it.
fn label_value(text: &str) -> String {
    let fits = !text.is_empty()
        && text.len() <= 63
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && text.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && text.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric());
    if fits { text.to_string() } else { crate::digest::sha256_hex(text.as_bytes())[..32].to_string() }
}

/// A node as listed.
#[derive(Debug, Clone, PartialEq)]
struct NodeInfo {
    name: String,
    ready: bool,
    cordoned: bool,
    gpus: usize,
    address: String,
}

fn parse_nodes(list: &Value, gpu_resource: &str) -> Result<Vec<NodeInfo>, String> {
    let items = list["items"].as_array().ok_or("the node list has no `items`")?;
    let mut nodes = Vec::new();
    for item in items {
        let Some(name) = item["metadata"]["name"].as_str() else { continue };
        let conditions = item["status"]["conditions"].as_array().map_or(&[][..], Vec::as_slice);
        let ready = conditions.iter().any(|c| c["type"] == "Ready" && c["status"] == "True");
        let gpus = item["status"]["allocatable"][gpu_resource].as_str().and_then(|q| q.parse().ok()).unwrap_or(0);
        let addresses = item["status"]["addresses"].as_array().map_or(&[][..], Vec::as_slice);
        let address_of = |kind: &str| addresses.iter().find(|a| a["type"] == kind).and_then(|a| a["address"].as_str());
        let address = address_of("InternalIP").or_else(|| address_of("Hostname")).unwrap_or(name);
        nodes.push(NodeInfo {
            name: name.to_string(),
            ready,
            cordoned: item["spec"]["unschedulable"].as_bool().unwrap_or(false),
            gpus,
            address: address.to_string(),
        });
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(nodes)
}

fn usable(nodes: &[NodeInfo]) -> Vec<ClusterNode> {
    nodes
        .iter()
        .filter(|n| n.ready && !n.cordoned)
        .map(|n| ClusterNode {
            name: n.name.clone(),
            slots: (0..n.gpus).map(|i| i.to_string()).collect(),
            address: n.address.clone(),
        })
        .collect()
}

fn managed(nodes: &[NodeInfo]) -> Vec<ManagedNode> {
    let seen = Instant::now();
    let node = |n: &NodeInfo| ManagedNode {
        name: n.name.clone(),
        slots: (0..n.gpus).map(|i| i.to_string()).collect(),
        usable: n.ready && !n.cordoned,
        seen,
    };
    nodes.iter().map(node).collect()
}

fn states(nodes: &[NodeInfo]) -> BTreeMap<String, String> {
    let state = |n: &NodeInfo| match (n.ready, n.cordoned) {
        (_, true) => "cordoned",
        (false, false) => "NotReady",
        (true, false) => "Ready",
    };
    nodes.iter().map(|n| (n.name.clone(), format!("{}, {} GPUs", state(n), n.gpus))).collect()
}

/// A pod as listed: its phase and its container's state.
#[derive(Debug, Clone, PartialEq)]
struct PodInfo {
    name: String,
    phase: String,
    /// The pod's own `reason` and `message` (set when the kubelet refused it).
    reason: String,
    message: String,
    waiting: Option<(String, String)>,
    terminated: Option<Terminated>,
}

#[derive(Debug, Clone, PartialEq)]
struct Terminated {
    code: i32,
    signal: Option<i32>,
    reason: String,
    message: String,
}

impl PodInfo {
    fn reason_text(&self) -> String {
        match (self.reason.as_str(), self.message.as_str()) {
            ("", "") => format!("phase {}", self.phase),
            (reason, "") => reason.to_string(),
            (reason, message) => format!("{reason}: {message}"),
        }
    }
}

fn parse_pods(list: &Value) -> Result<Vec<PodInfo>, String> {
    let items = list["items"].as_array().ok_or("the pod list has no `items`")?;
    let text = |v: &Value| v.as_str().map(|s| bounded_text(s, 1024)).unwrap_or_default();
    let mut pods = Vec::new();
    for item in items {
        let Some(name) = item["metadata"]["name"].as_str() else { continue };
        let status = &item["status"];
        let container = status["containerStatuses"].as_array().and_then(|c| c.first()).unwrap_or(&Value::Null);
        let state = &container["state"];
        let waiting = state["waiting"]
            .is_object()
            .then(|| (text(&state["waiting"]["reason"]), text(&state["waiting"]["message"])));
        let terminated = state["terminated"].is_object().then(|| {
            let t = &state["terminated"];
            Terminated {
                code: t["exitCode"].as_i64().and_then(|c| i32::try_from(c).ok()).unwrap_or(-1),
                signal: t["signal"].as_i64().and_then(|s| i32::try_from(s).ok()).filter(|&s| s != 0),
                reason: text(&t["reason"]),
                message: text(&t["message"]),
            }
        });
        pods.push(PodInfo {
            name: name.to_string(),
            phase: text(&status["phase"]),
            reason: text(&status["reason"]),
            message: text(&status["message"]),
            waiting,
            terminated,
        });
    }
    Ok(pods)
}

/// Text from the API server, shown to the user: control characters escaped, at most `max` bytes.
fn bounded_text(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = if end < text.len() { "..." } else { "" };
    format!("{}{cut}", escape_control(&text[..end]))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Get,
    Post,
    Delete,
}

/// Why a request to the API server failed: its HTTP status (none when there was no answer)
/// and what the server or the connection said.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ApiError {
    status: Option<u16>,
    message: String,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hint = match self.status {
            Some(401) => " (the API server does not accept the kubeconfig's credentials: are they expired?)",
            Some(403) => {
                " (the account may not do this: blox needs to list nodes, and to create, list and delete pods and \
                 services, in its namespace)"
            }
            _ => "",
        };
        match self.status {
            Some(status) => write!(f, "HTTP {status}: {}{hint}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// How blox proves itself to the API server.
enum Credential {
    None,
    /// `Bearer <token>`: never printed.
    Bearer(String),
    /// A kubeconfig's `exec` plugin, run again when the API server refuses its token.
    Exec {
        plugin: ExecPlugin,
        token: Mutex<Option<String>>,
    },
}

/// A client of the API server.
pub(super) struct Api {
    /// `https://host:port`, without a trailing `/`.
    base: String,
    agent: ureq::Agent,
    credential: Credential,
    /// Each request's deadline, and the largest answer read.
    timeout: Duration,
    max_answer: u64,
}

impl Api {
    /// The API server of the spec's kubeconfig (or of the service account blox runs under), and
    /// the namespace its context names.
    fn from_spec(spec: &KubernetesSpec) -> Result<(Api, Option<String>), String> {
        if spec.kubeconfig.is_none()
            && std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
            && Path::new(SERVICE_ACCOUNT).join("token").exists()
        {
            return in_cluster();
        }
        let path = match &spec.kubeconfig {
            Some(path) => path.clone(),
            None => default_kubeconfig()?,
        };
        from_kubeconfig(&path, spec.context.as_deref())
    }

    /// A client of `server` that trusts `roots` (the web's when none) and shows `client_cert`.
    fn new(
        server: &str,
        roots: Option<Vec<ureq::tls::Certificate<'static>>>,
        client_cert: Option<ureq::tls::ClientCert>,
        credential: Credential,
        timeout: Duration,
    ) -> Result<Api, String> {
        let base = match server.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{}", rest.trim_end_matches('/')),
            None => server.to_string(),
        };
        let authority = if let Some(rest) = base.strip_prefix("https://") {
            rest
        } else if let Some(rest) = base.strip_prefix("http://") {
            if !is_loopback(rest.split('/').next().unwrap_or("")) {
                return Err(format!(
                    "the API server `{}` is not HTTPS: blox speaks plain HTTP only to a loopback address (such as \
                     `kubectl proxy`'s), where no one else can listen in",
                    escape_control(&base)
                ));
            }
            rest
        } else {
            return Err(format!("the API server `{}` is not an https:// address", escape_control(&base)));
        };
        if authority.is_empty() || authority.starts_with('/') {
            return Err(format!("the API server `{}` has no host", escape_control(&base)));
        }
        let mut tls = ureq::tls::TlsConfig::builder().client_cert(client_cert);
        if let Some(roots) = roots {
            tls = tls.root_certs(ureq::tls::RootCerts::Specific(Arc::new(roots)));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .tls_config(tls.build())
            .user_agent(concat!("blox/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Api { base, agent, credential, timeout, max_answer: MAX_ANSWER })
    }

    /// `method` on `path` with `query`; the answer's JSON (`null` when empty).
    fn call(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Value, ApiError> {
        let answer = self.request(method, path, query, body)?;
        if answer.trim_ascii().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&answer).map_err(|e| ApiError {
            status: None,
            message: format!("the API server's answer to {path} is not JSON: {e}"),
        })
    }

    fn request(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Vec<u8>, ApiError> {
        let mut refreshed = false;
        loop {
            let authorization = self.authorization(refreshed)?;
            let url = format!("{}{path}", self.base);
            let sent = match method {
                Method::Get => {
                    with_auth(self.agent.get(&url), authorization.as_deref()).query_pairs(query.iter().copied()).call()
                }
                Method::Delete => with_auth(self.agent.delete(&url), authorization.as_deref())
                    .query_pairs(query.iter().copied())
                    .call(),
                Method::Post => {
                    let bytes = serde_json::to_vec(body.unwrap_or(&Value::Null)).unwrap_or_default();
                    with_auth(self.agent.post(&url), authorization.as_deref())
                        .query_pairs(query.iter().copied())
                        .content_type("application/json")
                        .send(&bytes[..])
                }
            };
            let mut response =
                sent.map_err(|e| ApiError { status: None, message: transport_error(&self.base, self.timeout, e) })?;
            let status = response.status().as_u16();
            let answer = response.body_mut().with_config().limit(self.max_answer).read_to_vec();
            let answer = answer.map_err(|e| ApiError {
                status: Some(status),
                message: transport_error(&self.base, self.timeout, e),
            })?;
            if (200..300).contains(&status) {
                return Ok(answer);
            }
            if status == 401 && !refreshed && matches!(self.credential, Credential::Exec { .. }) {
                refreshed = true;
                continue;
            }
            return Err(ApiError { status: Some(status), message: status_message(&answer) });
        }
    }

    /// The `Authorization` header's value; an exec plugin's token is fetched again when `renew`.
    fn authorization(&self, renew: bool) -> Result<Option<String>, ApiError> {
        match &self.credential {
            Credential::None => Ok(None),
            Credential::Bearer(token) => Ok(Some(format!("Bearer {token}"))),
            Credential::Exec { plugin, token } => {
                let mut token = token.lock().unwrap_or_else(PoisonError::into_inner);
                if renew || token.is_none() {
                    *token = Some(plugin.token().map_err(|message| ApiError { status: None, message })?);
                }
                Ok(token.as_ref().map(|t| format!("Bearer {t}")))
            }
        }
    }

    fn list_nodes(&self, pods: &PodSettings) -> Result<Vec<NodeInfo>, ApiError> {
        let query: Vec<(&str, &str)> = pods.node_selector.iter().map(|s| ("labelSelector", s.as_str())).collect();
        let list = self.call(Method::Get, "/api/v1/nodes", &query, None)?;
        parse_nodes(&list, &pods.gpu_resource).map_err(|message| ApiError { status: None, message })
    }

    fn list_pods(&self, pods: &PodSettings) -> Result<Vec<PodInfo>, ApiError> {
        let path = format!("/api/v1/namespaces/{}/pods", pods.namespace);
        let selector = format!("blox-sweep={}", pods.sweep);
        let list = self.call(Method::Get, &path, &[("labelSelector", &selector)], None)?;
        parse_pods(&list).map_err(|message| ApiError { status: None, message })
    }

    /// The end of a pod's log (its container's stdout and stderr).
    fn log_tail(&self, namespace: &str, pod: &str) -> Result<String, ApiError> {
        let path = format!("/api/v1/namespaces/{namespace}/pods/{pod}/log");
        let limit = LOG_TAIL.to_string();
        let log = self.request(Method::Get, &path, &[("tailLines", "50"), ("limitBytes", &limit)], None)?;
        Ok(String::from_utf8_lossy(&log).into_owned())
    }
}

fn with_auth<B>(request: ureq::RequestBuilder<B>, authorization: Option<&str>) -> ureq::RequestBuilder<B> {
    match authorization {
        Some(value) => request.header("Authorization", value),
        None => request,
    }
}

/// `host[:port]` of a loopback address (`localhost`, `127.x.x.x`, `[::1]`).
fn is_loopback(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(host, _)| host),
    };
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A failed request's reason in words (no header of it, so never the token).
fn transport_error(base: &str, timeout: Duration, e: ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => {
            format!("{base} did not answer within {:.0} s", timeout.as_secs_f64())
        }
        ureq::Error::BodyExceedsLimit(limit) => {
            format!("{base} sent an answer larger than {} MiB", limit >> 20)
        }
        e => format!("cannot reach {base}: {e}"),
    }
}

/// The `message` of a Kubernetes `Status` answer, or the start of the answer.
fn status_message(answer: &[u8]) -> String {
    let status: Option<Value> = serde_json::from_slice(answer).ok();
    match status.as_ref().and_then(|s| s["message"].as_str()) {
        Some(message) => bounded_text(message, 512),
        None => bounded_text(&String::from_utf8_lossy(&answer[..answer.len().min(512)]), 512),
    }
}

/// Where a pod's service account's credentials are.
const SERVICE_ACCOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// The API server of the service account blox runs under (in a pod).
fn in_cluster() -> Result<(Api, Option<String>), String> {
    let dir = Path::new(SERVICE_ACCOUNT);
    let host = std::env::var("KUBERNETES_SERVICE_HOST").unwrap_or_default();
    let port = std::env::var("KUBERNETES_SERVICE_PORT").unwrap_or_else(|_| "443".into());
    let host = if host.contains(':') { format!("[{host}]") } else { host };
    let token = read_small(&dir.join("token"))?;
    let roots = certificates(&read_small_bytes(&dir.join("ca.crt"))?, &dir.join("ca.crt").display().to_string())?;
    let namespace = read_small(&dir.join("namespace")).ok().map(|n| n.trim().to_string());
    let credential = Credential::Bearer(token.trim().to_string());
    let api = Api::new(&format!("https://{host}:{port}"), Some(roots), None, credential, REQUEST_TIMEOUT)?;
    Ok((api, namespace))
}

/// `KUBECONFIG`'s first file, else `~/.kube/config`.
fn default_kubeconfig() -> Result<PathBuf, String> {
    if let Some(first) =
        std::env::var_os("KUBECONFIG").and_then(|v| std::env::split_paths(&v).find(|p| !p.as_os_str().is_empty()))
    {
        return Ok(first);
    }
    let home = std::env::var_os("HOME").ok_or(
        "no engine.live.kubernetes.kubeconfig, no KUBECONFIG and no HOME: give the kubeconfig file in the spec",
    )?;
    Ok(Path::new(&home).join(".kube").join("config"))
}

#[derive(Deserialize, Default)]
struct Kubeconfig {
    #[serde(rename = "current-context", default)]
    current_context: Option<String>,
    #[serde(default)]
    clusters: Vec<Named<ClusterEntry>>,
    #[serde(default)]
    contexts: Vec<Named<ContextEntry>>,
    #[serde(default)]
    users: Vec<NamedUser>,
}

#[derive(Deserialize)]
struct Named<T> {
    name: String,
    #[serde(alias = "cluster", alias = "context")]
    value: T,
}

#[derive(Deserialize)]
struct NamedUser {
    name: String,
    #[serde(default)]
    user: UserEntry,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct ClusterEntry {
    server: String,
    #[serde(default)]
    certificate_authority: Option<PathBuf>,
    #[serde(default)]
    certificate_authority_data: Option<String>,
    #[serde(default)]
    insecure_skip_tls_verify: bool,
}

#[derive(Deserialize)]
struct ContextEntry {
    cluster: String,
    #[serde(default)]
    user: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
struct UserEntry {
    #[serde(default)]
    token: Option<String>,
    #[serde(rename = "tokenFile", default)]
    token_file: Option<PathBuf>,
    #[serde(default)]
    client_certificate: Option<PathBuf>,
    #[serde(default)]
    client_certificate_data: Option<String>,
    #[serde(default)]
    client_key: Option<PathBuf>,
    #[serde(default)]
    client_key_data: Option<String>,
    #[serde(default)]
    exec: Option<ExecPlugin>,
    #[serde(default)]
    auth_provider: Option<AuthProvider>,
}

#[derive(Deserialize)]
struct AuthProvider {
    name: String,
}

/// A kubeconfig's `exec` credential plugin (`aws eks get-token`, `gke-gcloud-auth-plugin`, ...).
#[derive(Deserialize, Clone)]
struct ExecPlugin {
    command: String,
    #[serde(default)]
    args: Option<Vec<String>>,
    #[serde(default)]
    env: Option<Vec<ExecEnv>>,
    #[serde(rename = "apiVersion", default)]
    api_version: Option<String>,
}

#[derive(Deserialize, Clone)]
struct ExecEnv {
    name: String,
    value: String,
}

/// How long an exec plugin may take to print its credential.
const EXEC_TIMEOUT: Duration = Duration::from_secs(60);

impl ExecPlugin {
    /// Runs the plugin; the token of the `ExecCredential` it prints.
    fn token(&self) -> Result<String, String> {
        let api_version = self.api_version.as_deref().unwrap_or("client.authentication.k8s.io/v1");
        let info = json!({"apiVersion": api_version, "kind": "ExecCredential", "spec": {"interactive": false}});
        let mut command = Command::new(&self.command);
        command.args(self.args.iter().flatten());
        command.envs(self.env.iter().flatten().map(|e| (&e.name, &e.value)));
        command
            .env("KUBERNETES_EXEC_INFO", info.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let what = format!("the kubeconfig's exec plugin `{}`", escape_control(&self.command));
        let mut child = command.spawn().map_err(|e| format!("cannot run {what}: {e}"))?;
        let mut stdout = child.stdout.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.by_ref().take(1 << 20).read_to_end(&mut out);
            out
        });
        let deadline = Instant::now() + EXEC_TIMEOUT;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!("{what} printed no credential within {} s", EXEC_TIMEOUT.as_secs()));
                }
                Err(e) => return Err(format!("cannot wait for {what}: {e}")),
            }
        };
        let out = reader.join().unwrap_or_default();
        if !status.success() {
            let mut err = Vec::new();
            if let Some(stderr) = child.stderr.as_mut() {
                let _ = stderr.take(2048).read_to_end(&mut err);
            }
            return Err(format!(
                "{what} failed ({status}): {}",
                bounded_text(String::from_utf8_lossy(&err).trim(), 512)
            ));
        }
        let credential: Value =
            serde_json::from_slice(&out).map_err(|e| format!("{what} printed no ExecCredential JSON: {e}"))?;
        match credential["status"]["token"].as_str() {
            Some(token) if !token.is_empty() => Ok(token.to_string()),
            _ => Err(format!(
                "{what} gave no token (blox uses a plugin's token; a client certificate from one is not supported)"
            )),
        }
    }
}

/// The API server of `context` (or the current one) in the kubeconfig at `path`.
fn from_kubeconfig(path: &Path, context: Option<&str>) -> Result<(Api, Option<String>), String> {
    let shown = path.display();
    let text = read_small(path).map_err(|e| format!("kubeconfig: {e}"))?;
    let config: Kubeconfig =
        serde_saphyr::from_str(&text).map_err(|e| format!("kubeconfig {shown} is not a kubeconfig: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let relative = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { dir.join(p) };
    let name = context
        .map(str::to_string)
        .or(config.current_context.clone())
        .ok_or_else(|| format!("kubeconfig {shown} has no current-context: set engine.live.kubernetes.context"))?;
    let context = config.contexts.iter().find(|c| c.name == name).map(|c| &c.value).ok_or_else(|| {
        let names: Vec<&str> = config.contexts.iter().map(|c| c.name.as_str()).collect();
        format!("kubeconfig {shown} has no context `{}` (it has: {})", escape_control(&name), names.join(", "))
    })?;
    let cluster = config.clusters.iter().find(|c| c.name == context.cluster).map(|c| &c.value).ok_or_else(|| {
        format!("kubeconfig {shown}: context `{}` names cluster `{}`, which it does not have", name, context.cluster)
    })?;
    if cluster.insecure_skip_tls_verify {
        return Err(format!(
            "kubeconfig {shown}: cluster `{}` sets insecure-skip-tls-verify; blox always verifies the API server's \
             certificate: give its certificate-authority instead",
            context.cluster
        ));
    }
    let user = match &context.user {
        Some(user) => config.users.iter().find(|u| &u.name == user).map(|u| &u.user).ok_or_else(|| {
            format!("kubeconfig {shown}: context `{name}` names user `{user}`, which it does not have")
        })?,
        None => &UserEntry::default(),
    };
    let pem = |data: &Option<String>, file: &Option<PathBuf>, what: &str| -> Result<Option<Vec<u8>>, String> {
        match (data, file) {
            (Some(data), _) => {
                base64_decode(data).map(Some).ok_or_else(|| format!("kubeconfig {shown}: {what}-data is not base64"))
            }
            (None, Some(file)) => {
                read_small_bytes(&relative(file)).map(Some).map_err(|e| format!("kubeconfig {shown}: {what}: {e}"))
            }
            (None, None) => Ok(None),
        }
    };
    let roots = match pem(&cluster.certificate_authority_data, &cluster.certificate_authority, "certificate-authority")?
    {
        Some(bytes) => Some(certificates(&bytes, &format!("kubeconfig {shown}: certificate-authority"))?),
        None => None,
    };
    let client_cert = match (
        pem(&user.client_certificate_data, &user.client_certificate, "client-certificate")?,
        pem(&user.client_key_data, &user.client_key, "client-key")?,
    ) {
        (Some(cert), Some(key)) => {
            let chain = certificates(&cert, &format!("kubeconfig {shown}: client-certificate"))?;
            let key = ureq::tls::PrivateKey::from_pem(&key)
                .map_err(|e| format!("kubeconfig {shown}: client-key is not a PEM private key: {e}"))?;
            Some(ureq::tls::ClientCert::new_with_certs(&chain, key))
        }
        (None, None) => None,
        _ => {
            return Err(format!(
                "kubeconfig {shown}: user `{}` has a client certificate or key without the other",
                context.user.as_deref().unwrap_or("")
            ));
        }
    };
    let credential = match (&user.token, &user.token_file, &user.exec, &user.auth_provider) {
        (Some(token), _, _, _) => Credential::Bearer(token.trim().to_string()),
        (None, Some(file), _, _) => Credential::Bearer(
            read_small(&relative(file)).map_err(|e| format!("kubeconfig {shown}: tokenFile: {e}"))?.trim().to_string(),
        ),
        (None, None, Some(plugin), _) => Credential::Exec { plugin: plugin.clone(), token: Mutex::new(None) },
        (None, None, None, Some(provider)) => {
            return Err(format!(
                "kubeconfig {shown}: auth-provider `{}` is not supported (Kubernetes removed them); use an exec \
                 plugin, a token or a client certificate",
                escape_control(&provider.name)
            ));
        }
        (None, None, None, None) => Credential::None,
    };
    let api = Api::new(&cluster.server, roots, client_cert, credential, REQUEST_TIMEOUT)
        .map_err(|e| format!("kubeconfig {shown}: {e}"))?;
    Ok((api, context.namespace.clone()))
}

/// The certificates of a PEM bundle (at least one).
fn certificates(pem: &[u8], what: &str) -> Result<Vec<ureq::tls::Certificate<'static>>, String> {
    let mut certs = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        if let ureq::tls::PemItem::Certificate(cert) = item.map_err(|e| format!("{what} is not PEM: {e}"))? {
            certs.push(cert);
        }
    }
    if certs.is_empty() {
        return Err(format!("{what} holds no PEM certificate"));
    }
    Ok(certs)
}

/// Files blox reads for credentials are small: anything over 1 MiB is not one.
fn read_small_bytes(path: &Path) -> Result<Vec<u8>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take((1 << 20) + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() > 1 << 20 {
        return Err(format!("{} is larger than 1 MiB", path.display()));
    }
    Ok(bytes)
}

fn read_small(path: &Path) -> Result<String, String> {
    String::from_utf8(read_small_bytes(path)?).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// Standard base64 (with or without padding, whitespace ignored), as kubeconfigs hold PEM data.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let digits = digits.strip_suffix(b"==").or_else(|| digits.strip_suffix(b"=")).unwrap_or(&digits);
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut bits = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            bits |= u32::from(value(c)?) << (18 - 6 * i);
        }
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Write};
    use std::net::TcpListener;

    fn settings(claim: Option<&str>) -> PodSettings {
        PodSettings {
            namespace: "research".into(),
            image: "python:3.12-slim".into(),
            gpu_resource: "nvidia.com/gpu".into(),
            node_selector: None,
            checkpoint_claim: claim.map(str::to_string),
            sweep: "0a1b2c3d".into(),
            job: JobSettings {
                scheduler: "10.0.0.5:7077".into(),
                token: "cluster-token".into(),
                work_dir: "/x".into(),
            },
            grace_s: 4.5,
        }
    }

    fn part(env: &[(&str, &str)], cpus: f64, memory_gb: f64) -> PartLaunch {
        PartLaunch {
            job: 7,
            attempt: 2,
            run: "FIFO.seed-0".into(),
            argv: Argv::Shell("python3 train.py --iterations 40".into()),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            node: "gpu-node-1".into(),
            slots: vec!["0".into(), "1".into()],
            cpus,
            memory_gb,
        }
    }

    fn env_of(pod: &Value) -> BTreeMap<String, String> {
        let env = pod["spec"]["containers"][0]["env"].as_array().unwrap();
        env.iter().map(|e| (e["name"].as_str().unwrap().into(), e["value"].as_str().unwrap().into())).collect()
    }

    #[test]
    fn a_part_is_a_pod_on_its_node_with_its_resources_labels_and_environment() {
        let pods = settings(None);
        let pod = pods.pod(&part(&[("LR", "0.1")], 3.5, 12.0), "blox-0a1b2c3d-7-2-0", "blox-0a1b2c3d-7-2");
        assert_eq!(pod["metadata"]["name"], "blox-0a1b2c3d-7-2-0");
        assert_eq!(pod["metadata"]["namespace"], "research");
        assert_eq!(
            pod["metadata"]["labels"],
            json!({"blox-sweep": "0a1b2c3d", "blox-job": "7", "blox-attempt": "2", "blox-rank": "0", "blox-run": "FIFO.seed-0"})
        );
        let spec = &pod["spec"];
        assert_eq!(spec["nodeName"], "gpu-node-1");
        assert_eq!(spec["restartPolicy"], "Never");
        assert_eq!(spec["terminationGracePeriodSeconds"], 5, "the grace rounds up");
        assert_eq!(spec["automountServiceAccountToken"], false);
        let container = &spec["containers"][0];
        assert_eq!(container["image"], "python:3.12-slim");
        assert_eq!(container["command"], json!(["sh", "-c", "python3 train.py --iterations 40"]));
        let resources = json!({"nvidia.com/gpu": "2", "cpu": "3500m", "memory": "12288Mi"});
        assert_eq!(container["resources"], json!({"requests": resources, "limits": resources}));
        let env = env_of(&pod);
        assert_eq!(env["LR"], "0.1");
        assert_eq!(env["BLOX_SCHEDULER"], "10.0.0.5:7077");
        assert_eq!(env["BLOX_JOB_CREDENTIAL"], Key::job("cluster-token", 7, 2, Some("FIFO.seed-0")).to_hex());
        assert_eq!((env["BLOX_JOB_ID"].as_str(), env["BLOX_ATTEMPT"].as_str()), ("7", "2"));
        assert!(!env.contains_key("BLOX_CHECKPOINT_DIR") && !env.contains_key("MASTER_ADDR"));
        assert!(!pod.to_string().contains("cluster-token"), "the cluster's token never goes into a pod");
    }

    #[test]
    fn a_policy_without_cpus_or_memory_requests_only_gpus_and_a_claim_holds_checkpoints() {
        let pods = settings(Some("blox-work"));
        let pod = pods.pod(&part(&[], 0.0, 0.0), "p", "a");
        let resources = json!({"nvidia.com/gpu": "2"});
        assert_eq!(pod["spec"]["containers"][0]["resources"], json!({"requests": resources, "limits": resources}));
        assert_eq!(env_of(&pod)["BLOX_CHECKPOINT_DIR"], "/blox-work/runs/FIFO.seed-0/jobs/7/checkpoint");
        assert_eq!(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "blox-work");
        assert_eq!(pod["spec"]["containers"][0]["volumeMounts"][0]["mountPath"], "/blox-work");
        let mut cpu_only = part(&[], 0.0, 0.0);
        cpu_only.slots.clear();
        cpu_only.argv = Argv::Exec(vec!["python3".into(), "train.py".into()]);
        let pod = pods.pod(&cpu_only, "p", "a");
        assert_eq!(pod["spec"]["containers"][0]["resources"]["limits"], json!({}));
        assert_eq!(pod["spec"]["containers"][0]["command"], json!(["python3", "train.py"]));
    }

    #[test]
    fn a_gangs_master_is_its_rank_0_pod_through_a_headless_service() {
        let pods = settings(None);
        let gang = [("MASTER_ADDR", "10.1.1.1"), ("MASTER_PORT", "29517"), ("NODE_RANK", "1"), ("WORLD_SIZE", "2")];
        let pod = pods.pod(&part(&gang, 0.0, 0.0), "blox-0a1b2c3d-7-2-1", "blox-0a1b2c3d-7-2");
        let env = env_of(&pod);
        assert_eq!(env["MASTER_ADDR"], "blox-0a1b2c3d-7-2.research.svc");
        assert_eq!((env["MASTER_PORT"].as_str(), env["NODE_RANK"].as_str()), ("29517", "1"));
        assert_eq!(pod["metadata"]["labels"]["blox-rank"], "1");
        let leader = part(&[("MASTER_ADDR", "x"), ("MASTER_PORT", "29517"), ("NODE_RANK", "0")], 0.0, 0.0);
        let service = pods.service(&leader, "blox-0a1b2c3d-7-2", "blox-0a1b2c3d-7-2");
        assert_eq!(service["spec"]["clusterIP"], "None");
        assert_eq!(service["spec"]["publishNotReadyAddresses"], true);
        assert_eq!(
            service["spec"]["selector"],
            json!({"blox-sweep": "0a1b2c3d", "blox-job": "7", "blox-attempt": "2", "blox-rank": "0"})
        );
        assert_eq!(service["spec"]["ports"][0]["port"], 29517);
    }

    #[test]
    fn run_names_that_are_no_label_value_are_hashed() {
        assert_eq!(label_value("LAS.seed-1"), "LAS.seed-1");
        let long = "a".repeat(64);
        for odd in [long.as_str(), "_x", "x-"] {
            let value = label_value(odd);
            assert_eq!(value.len(), 32, "{odd}");
            assert!(value.bytes().all(|b| b.is_ascii_hexdigit()));
        }
        assert_ne!(label_value("_x"), label_value("_y"));
    }

    fn node(name: &str, ready: &str, unschedulable: bool, gpus: Option<&str>) -> Value {
        let mut allocatable = json!({"cpu": "32", "memory": "256Gi"});
        if let Some(g) = gpus {
            allocatable["nvidia.com/gpu"] = g.into();
        }
        json!({
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "spec": {"unschedulable": unschedulable},
            "status": {
                "conditions": [{"type": "MemoryPressure", "status": "False"}, {"type": "Ready", "status": ready}],
                "allocatable": allocatable,
                "addresses": [{"type": "Hostname", "address": name}, {"type": "InternalIP", "address": format!("10.0.0.{}", name.len())}],
            },
        })
    }

    #[test]
    fn nodes_not_ready_or_cordoned_are_out_and_gpus_are_the_allocatable_resource() {
        let list = json!({"kind": "NodeList", "items": [
            node("c", "True", false, Some("4")),
            node("a", "True", false, Some("2")),
            node("bb", "False", false, Some("2")),
            node("d", "True", true, Some("8")),
            node("e", "Unknown", false, None),
            node("f", "True", false, None),
            {"metadata": {}},
        ]});
        let nodes = parse_nodes(&list, "nvidia.com/gpu").unwrap();
        let usable = usable(&nodes);
        let names: Vec<(&str, usize)> = usable.iter().map(|n| (n.name.as_str(), n.slots.len())).collect();
        assert_eq!(names, [("a", 2), ("c", 4), ("f", 0)]);
        assert_eq!(usable[0].address, "10.0.0.1", "the InternalIP");
        let states = states(&nodes);
        assert_eq!(states["bb"], "NotReady, 2 GPUs");
        assert_eq!(states["d"], "cordoned, 8 GPUs");
        assert_eq!(parse_nodes(&list, "amd.com/gpu").unwrap().iter().map(|n| n.gpus).sum::<usize>(), 0);
        assert!(parse_nodes(&json!({"kind": "Status"}), "nvidia.com/gpu").is_err());
    }

    fn listed(phase: &str, state: Value) -> PodInfo {
        let list = json!({"items": [{"metadata": {"name": "p"}, "status": {"phase": phase, "containerStatuses": [{"state": state}]}}]});
        parse_pods(&list).unwrap().remove(0)
    }

    fn tracked() -> Pod {
        Pod {
            name: "p".into(),
            service: None,
            launched: Instant::now(),
            created: true,
            listed: false,
            started: false,
            deleting: None,
        }
    }

    fn ended(verdict: Verdict) -> (ExitReason, Option<i32>, Option<i32>, String, bool) {
        match verdict {
            Verdict::Ended { end, ran, .. } => (end.reason, end.code, end.signal, end.stderr_tail, ran),
            Verdict::Waiting => panic!("waiting"),
            Verdict::Started => panic!("started"),
        }
    }

    #[test]
    fn pod_phases_become_starts_and_ends() {
        let now = Instant::now();
        let mut pod = tracked();
        let pending = listed("Pending", json!({"waiting": {"reason": "ContainerCreating"}}));
        assert!(matches!(judge(&mut pod, Some(&pending), now), Verdict::Waiting));
        let running = listed("Running", json!({"running": {}}));
        assert!(matches!(judge(&mut pod, Some(&running), now), Verdict::Started));
        assert!(matches!(judge(&mut pod, Some(&running), now), Verdict::Waiting), "a start is news once");
        let done = listed("Succeeded", json!({"terminated": {"exitCode": 0, "reason": "Completed"}}));
        let (reason, code, signal, _, ran) = ended(judge(&mut pod, Some(&done), now));
        assert_eq!((reason, code, signal, ran), (ExitReason::Exited, Some(0), None, true));
        let failed = listed("Failed", json!({"terminated": {"exitCode": 3, "reason": "Error", "message": "boom"}}));
        let (reason, code, _, tail, _) = ended(judge(&mut tracked(), Some(&failed), now));
        assert_eq!((reason, code, tail.as_str()), (ExitReason::Exited, Some(3), "boom"));
        let segv = listed("Failed", json!({"terminated": {"exitCode": 139, "reason": "Error"}}));
        let (_, code, signal, _, _) = ended(judge(&mut tracked(), Some(&segv), now));
        assert_eq!((code, signal), (None, Some(11)));
    }

    #[test]
    fn pods_that_cannot_start_fail_to_start() {
        let now = Instant::now();
        let pull = listed("Pending", json!({"waiting": {"reason": "ImagePullBackOff", "message": "no such image"}}));
        let (reason, _, _, why, _) = ended(judge(&mut tracked(), Some(&pull), now));
        assert_eq!(reason, ExitReason::FailedToStart);
        assert!(why.contains("ImagePullBackOff") && why.contains("no such image"), "{why}");
        let refused = parse_pods(&json!({"items": [{"metadata": {"name": "p"}, "status": {
            "phase": "Failed", "reason": "OutOfnvidia.com/gpu", "message": "Node didn't have enough resource"}}]}))
        .unwrap()
        .remove(0);
        let (reason, _, _, why, _) = ended(judge(&mut tracked(), Some(&refused), now));
        assert_eq!(reason, ExitReason::FailedToStart);
        assert!(why.contains("OutOfnvidia.com/gpu"), "{why}");
        let no_command = listed(
            "Failed",
            json!({"terminated": {"exitCode": 128, "reason": "StartError", "message": "exec: not found"}}),
        );
        assert_eq!(ended(judge(&mut tracked(), Some(&no_command), now)).0, ExitReason::FailedToStart);
    }

    #[test]
    fn deleted_pods_end_preempted_or_killed() {
        let now = Instant::now();
        let mut pod = tracked();
        pod.deleting = Some((now, 5.0));
        let running = listed("Running", json!({"running": {}}));
        assert!(matches!(judge(&mut pod, Some(&running), now), Verdict::Started));
        let exited = listed("Failed", json!({"terminated": {"exitCode": 143}}));
        assert_eq!(ended(judge(&mut pod, Some(&exited), now)).0, ExitReason::Preempted);
        let killed = listed("Failed", json!({"terminated": {"exitCode": 137}}));
        assert_eq!(ended(judge(&mut pod, Some(&killed), now)).0, ExitReason::Killed);
        assert_eq!(ended(judge(&mut pod, None, now)).0, ExitReason::Preempted, "gone within its grace");
        assert_eq!(ended(judge(&mut pod, None, now + Duration::from_secs(6))).0, ExitReason::Killed);
        let stuck = now + Duration::from_secs(5) + STUCK_TERMINATING + Duration::from_secs(1);
        assert!(matches!(judge(&mut pod, Some(&running), now), Verdict::Waiting));
        assert_eq!(ended(judge(&mut pod, Some(&running), stuck)).0, ExitReason::Killed);
        // Not yet listed after its creation: it may only be slow to appear.
        let mut fresh = tracked();
        assert!(matches!(judge(&mut fresh, None, now), Verdict::Waiting));
        let (reason, _, _, why, _) = ended(judge(&mut fresh, None, now + CREATION_LAG + Duration::from_secs(1)));
        assert_eq!(reason, ExitReason::Killed);
        assert!(why.contains("someone other than blox"), "{why}");
    }

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVsbG8").unwrap(), b"hello");
        assert_eq!(base64_decode("aGVs\nbG8h").unwrap(), b"hello!");
        assert_eq!(base64_decode("").unwrap(), b"");
        assert!(base64_decode("a").is_none());
        assert!(base64_decode("aGV*").is_none());
    }

    /// An API server that answers each request with the next of `answers` (raw HTTP), and
    /// records the requests' heads and bodies.
    fn canned(answers: Vec<Vec<u8>>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        std::thread::spawn(move || {
            for answer in answers {
                let Ok((stream, _)) = listener.accept() else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request = String::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap();
                    }
                    request.push_str(&line);
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                request.push_str(&String::from_utf8_lossy(&body));
                log.lock().unwrap().push(request);
                let mut stream = stream;
                if answer.is_empty() {
                    // Never answers (holds the connection open elsewhere).
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_secs(5));
                        drop(stream);
                    });
                } else {
                    let _ = stream.write_all(&answer);
                }
            }
        });
        (format!("http://{address}"), seen)
    }

    fn answer(status: &str, body: &str) -> Vec<u8> {
        format!("HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
            .into_bytes()
    }

    fn api(server: &str) -> Api {
        Api::new(server, None, None, Credential::Bearer("s3cret-token".into()), Duration::from_secs(1)).unwrap()
    }

    #[test]
    fn api_errors_say_what_the_server_said_and_never_the_token() {
        let status = |code: u16, reason: &str, message: &str| {
            answer(
                &format!("{code} {reason}"),
                &json!({"kind": "Status", "code": code, "message": message}).to_string(),
            )
        };
        let (server, seen) = canned(vec![
            status(401, "Unauthorized", "Unauthorized"),
            status(403, "Forbidden", "nodes is forbidden: User \"ci\" cannot list resource \"nodes\""),
            status(409, "Conflict", "pods \"blox-1\" already exists"),
            answer("500 Internal Server Error", "<html>\u{1b}[31mupstream down</html>"),
            answer("200 OK", "{\"items\": ["),
        ]);
        let api = api(&server);
        let mut errors = Vec::new();
        for _ in 0..5 {
            errors.push(api.call(Method::Get, "/api/v1/nodes", &[], None).unwrap_err());
        }
        assert_eq!(
            errors.iter().map(|e| e.status).collect::<Vec<_>>(),
            [Some(401), Some(403), Some(409), Some(500), None]
        );
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(text[0].contains("HTTP 401") && text[0].contains("credentials"), "{}", text[0]);
        assert!(
            text[1].contains("cannot list resource \"nodes\"") && text[1].contains("blox needs to list nodes"),
            "{}",
            text[1]
        );
        assert!(text[2].contains("already exists"), "{}", text[2]);
        assert!(text[3].contains("upstream down") && !text[3].contains('\u{1b}'), "{}", text[3]);
        assert!(text[4].contains("not JSON"), "{}", text[4]);
        for t in &text {
            assert!(!t.contains("s3cret"), "{t}");
        }
        let requests = seen.lock().unwrap();
        assert!(requests[0].starts_with("GET /api/v1/nodes HTTP/1.1"), "{}", requests[0]);
        assert!(requests[0].to_ascii_lowercase().contains("authorization: bearer s3cret-token"), "{}", requests[0]);
    }

    #[test]
    fn a_silent_or_flooding_server_is_an_error_not_a_hang() {
        let mut flood =
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n".to_vec();
        flood.extend(std::iter::repeat_n(b' ', 3_000_000));
        let (server, _) = canned(vec![Vec::new(), flood]);
        let mut api = api(&server);
        let started = Instant::now();
        let silent = api.call(Method::Get, "/api/v1/nodes", &[], None).unwrap_err();
        assert!(silent.to_string().contains("did not answer"), "{silent}");
        assert!(started.elapsed() < Duration::from_secs(4), "the request's deadline holds");
        api.max_answer = 1 << 20;
        let flooded = api.call(Method::Get, "/api/v1/nodes", &[], None).unwrap_err();
        assert!(flooded.to_string().contains("larger than 1 MiB"), "{flooded}");
    }

    #[test]
    fn pods_are_created_deleted_with_their_grace_and_listed_by_the_sweeps_label() {
        let (server, seen) = canned(vec![
            answer("201 Created", "{\"kind\": \"Pod\"}"),
            answer("200 OK", "{\"kind\": \"Pod\"}"),
            answer("200 OK", "{\"kind\": \"PodList\", \"items\": []}"),
        ]);
        let api = api(&server);
        let pods = settings(None);
        let manifest = pods.pod(&part(&[], 0.0, 0.0), "blox-0a1b2c3d-7-2-0", "a");
        api.call(Method::Post, "/api/v1/namespaces/research/pods", &[], Some(&manifest)).unwrap();
        api.call(
            Method::Delete,
            "/api/v1/namespaces/research/pods/blox-0a1b2c3d-7-2-0",
            &[("gracePeriodSeconds", "5")],
            None,
        )
        .unwrap();
        assert_eq!(api.list_pods(&pods).unwrap(), []);
        let requests = seen.lock().unwrap();
        assert!(requests[0].starts_with("POST /api/v1/namespaces/research/pods HTTP/1.1"));
        let body = &requests[0][requests[0].find('{').unwrap()..];
        assert_eq!(serde_json::from_str::<Value>(body).unwrap(), manifest);
        assert!(
            requests[1]
                .starts_with("DELETE /api/v1/namespaces/research/pods/blox-0a1b2c3d-7-2-0?gracePeriodSeconds=5 ")
        );
        assert!(
            requests[2].starts_with("GET /api/v1/namespaces/research/pods?labelSelector=blox-sweep%3D0a1b2c3d "),
            "{}",
            requests[2]
        );
    }

    #[test]
    fn plain_http_is_for_loopback_only_and_https_is_verified_against_the_kubeconfigs_ca() {
        let bearer = || Credential::Bearer("t".into());
        for ok in [
            "http://127.0.0.1:8001",
            "http://localhost:8001/",
            "http://[::1]:8001",
            "https://10.0.0.1:6443/k8s/clusters/c-1",
        ] {
            assert!(Api::new(ok, None, None, bearer(), REQUEST_TIMEOUT).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("http://10.0.0.1:8080", "not HTTPS"),
            ("http://localhost.evil.org:80", "not HTTPS"),
            ("ftp://x", "not an https://"),
            ("https://", "no host"),
        ] {
            let e = Api::new(bad, None, None, bearer(), REQUEST_TIMEOUT).err().unwrap();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn kubeconfigs_give_the_server_the_credential_and_the_namespace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("token"), "from-a-file\n").unwrap();
        let config = dir.path().join("config");
        let write = |text: &str| std::fs::write(&config, text).unwrap();
        write(
            "apiVersion: v1\nkind: Config\ncurrent-context: lab\npreferences: {}\nclusters:\n- name: lab-cluster\n  cluster:\n    server: http://127.0.0.1:8001\n\
             contexts:\n- name: lab\n  context: {cluster: lab-cluster, user: me, namespace: team-a}\n- name: other\n  context: {cluster: lab-cluster, user: me}\n\
             users:\n- name: me\n  user:\n    tokenFile: token\n",
        );
        let (api, namespace) = from_kubeconfig(&config, None).unwrap();
        assert_eq!(namespace.as_deref(), Some("team-a"));
        assert_eq!(api.base, "http://127.0.0.1:8001");
        assert!(matches!(&api.credential, Credential::Bearer(t) if t == "from-a-file"));
        assert_eq!(from_kubeconfig(&config, Some("other")).unwrap().1, None);
        let e = from_kubeconfig(&config, Some("prod")).err().unwrap();
        assert!(e.contains("no context `prod`") && e.contains("lab, other"), "{e}");
        write(
            "clusters:\n- name: c\n  cluster: {server: 'https://k:6443', insecure-skip-tls-verify: true}\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n",
        );
        assert!(from_kubeconfig(&config, None).err().unwrap().contains("always verifies"));
        write(
            "clusters:\n- name: c\n  cluster: {server: 'https://k:6443', certificate-authority-data: bm90IGEgY2VydA==}\ncontexts:\n- name: x\n  context: {cluster: c}\ncurrent-context: x\n",
        );
        assert!(from_kubeconfig(&config, None).err().unwrap().contains("holds no PEM certificate"));
        write(
            "clusters:\n- name: c\n  cluster: {server: 'https://k:6443'}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\nusers:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n",
        );
        assert!(from_kubeconfig(&config, None).err().unwrap().contains("auth-provider `gcp` is not supported"));
        write("clusters: [}");
        assert!(from_kubeconfig(&config, None).err().unwrap().contains("is not a kubeconfig"));
        let missing = from_kubeconfig(&dir.path().join("nope"), None).err().unwrap();
        assert!(missing.contains("cannot read"), "{missing}");
    }

    #[test]
    fn an_exec_plugins_token_is_used_and_fetched_again_when_refused() {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("plugin.sh");
        let count = dir.path().join("count");
        std::fs::write(
            &plugin,
            format!(
                "#!/bin/sh\necho x >> {}\nn=$(wc -l < {})\necho \"{{\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{{\\\"token\\\":\\\"t$n\\\"}}}}\"\n",
                count.display(),
                count.display()
            ),
        )
        .unwrap();
        let (server, seen) = canned(vec![answer("401 Unauthorized", "{}"), answer("200 OK", "{\"items\": []}")]);
        let exec = ExecPlugin {
            command: "sh".into(),
            args: Some(vec![plugin.display().to_string()]),
            env: None,
            api_version: None,
        };
        let api = Api::new(
            &server,
            None,
            None,
            Credential::Exec { plugin: exec, token: Mutex::new(None) },
            Duration::from_secs(2),
        )
        .unwrap();
        assert_eq!(api.call(Method::Get, "/api/v1/nodes", &[], None).unwrap(), json!({"items": []}));
        let requests = seen.lock().unwrap();
        assert!(requests[0].to_ascii_lowercase().contains("authorization: bearer t1"), "{}", requests[0]);
        assert!(requests[1].to_ascii_lowercase().contains("authorization: bearer t2"), "{}", requests[1]);
        let failing = ExecPlugin { command: "false".into(), args: None, env: None, api_version: None };
        assert!(failing.token().unwrap_err().contains("failed"));
    }
}
