//! Live mode on Kubernetes against a recorded API: no API server can be started on this machine
//! (none is packaged in the registries it reaches), so these tests run `blox run` with
//! `engine.executor: kubernetes` against a fake API server in the test. It answers as the real
//! one does (node lists, pod creation, pod lists with the phases Pending -> Running ->
//! Succeeded/Failed, deletion with a grace period, `Status` errors), checks the bearer token of
//! every request, records what blox sends, and runs each pod's container command as a local
//! process with the pod's environment: the jobs really start, report their progress to blox
//! through the client library, checkpoint when preempted and finish.

use crate::live_cluster::{Guard, exclusive};
use blox::results::{AttemptRow, read_attempts, read_jobs, read_runs};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BLOX: &str = env!("CARGO_BIN_EXE_blox");
const TOKEN: &str = "live-test-token-of-the-cluster";
const API_TOKEN: &str = "kubernetes-bearer-token-of-the-test";

/// One request blox sent.
#[derive(Debug, Clone)]
struct Request {
    method: String,
    path: String,
    query: String,
    body: Value,
}

struct FakePod {
    manifest: Value,
    phase: &'static str,
    child: Option<Child>,
    exit_code: Option<i32>,
    /// When it was deleted and its grace period.
    deleted: Option<(Instant, u64)>,
    log: PathBuf,
}

#[derive(Default)]
struct Cluster {
    /// name -> (ready, cordoned, GPUs)
    nodes: BTreeMap<String, (bool, bool, u32)>,
    pods: BTreeMap<String, FakePod>,
    services: BTreeMap<String, Value>,
    requests: Vec<Request>,
    /// Requests without the right bearer token.
    refused: usize,
}

/// The fake API server: HTTP on loopback (blox speaks plain HTTP only there, as to
/// `kubectl proxy`), one request per connection.
struct FakeApi {
    cluster: Arc<Mutex<Cluster>>,
    address: String,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl FakeApi {
    fn start(dir: &Path, nodes: &[&str]) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let mut cluster = Cluster::default();
        for node in nodes {
            cluster.nodes.insert(node.to_string(), (true, false, 2));
        }
        let cluster = Arc::new(Mutex::new(cluster));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (serving, workdir) = (cluster.clone(), dir.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (cluster, workdir) = (serving.clone(), workdir.clone());
                std::thread::spawn(move || serve(stream, &cluster, &workdir));
            }
        });
        let (kubelet, halt) = (cluster.clone(), stop.clone());
        std::thread::spawn(move || {
            while !halt.load(std::sync::atomic::Ordering::SeqCst) {
                run_kubelet(&mut kubelet.lock().unwrap());
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        FakeApi { cluster, address, stop }
    }

    fn requests(&self, method: &str, path_start: &str) -> Vec<Request> {
        let cluster = self.cluster.lock().unwrap();
        cluster.requests.iter().filter(|r| r.method == method && r.path.starts_with(path_start)).cloned().collect()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        for pod in self.cluster.lock().unwrap().pods.values_mut() {
            if let Some(child) = &mut pod.child {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// What a kubelet does: starts Pending pods' containers, reports their exits, signals the
/// deleted ones (SIGTERM, SIGKILL after the grace) and removes them once their process is gone.
fn run_kubelet(cluster: &mut Cluster) {
    let mut gone = Vec::new();
    for (name, pod) in cluster.pods.iter_mut() {
        if pod.phase == "Pending" && pod.deleted.is_none() {
            let container = &pod.manifest["spec"]["containers"][0];
            let argv: Vec<String> =
                container["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
            let mut command = Command::new(&argv[0]);
            command.args(&argv[1..]).env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
            // A claim's mount is a directory of the test's; the container's own file system is
            // a directory of the pod's, gone with it.
            let root = pod.log.with_extension("root");
            std::fs::create_dir_all(&root).unwrap();
            let volumes = root.parent().unwrap().join("volumes");
            let mount = container["volumeMounts"][0]["mountPath"].as_str();
            for var in container["env"].as_array().unwrap() {
                let value = var["value"].as_str().unwrap();
                let value = match mount.and_then(|m| value.strip_prefix(m)) {
                    Some(rest) => format!("{}{rest}", volumes.display()),
                    None => value.to_string(),
                };
                command.env(var["name"].as_str().unwrap(), value);
            }
            let log = std::fs::File::create(&pod.log).unwrap();
            command.stdin(Stdio::null()).stdout(log.try_clone().unwrap()).stderr(log).process_group(0);
            command.current_dir(&root);
            match command.spawn() {
                Ok(child) => {
                    pod.child = Some(child);
                    pod.phase = "Running";
                }
                Err(_) => {
                    pod.phase = "Failed";
                    pod.exit_code = Some(128);
                }
            }
        }
        if let Some(child) = &mut pod.child
            && let Ok(Some(status)) = child.try_wait()
        {
            let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
            pod.exit_code = Some(code);
            pod.phase = if code == 0 { "Succeeded" } else { "Failed" };
            pod.child = None;
        }
        if let Some((at, grace)) = pod.deleted {
            match &pod.child {
                Some(child) => {
                    let signal = if at.elapsed() >= Duration::from_secs(grace) { libc::SIGKILL } else { libc::SIGTERM };
                    unsafe { libc::kill(-(child.id() as i32), signal) };
                }
                None => gone.push(name.clone()),
            }
        }
    }
    for name in gone {
        cluster.pods.remove(&name);
    }
}

fn pod_status(pod: &FakePod) -> Value {
    let state = match (pod.phase, pod.exit_code) {
        ("Pending", _) => json!({"waiting": {"reason": "ContainerCreating"}}),
        ("Running", _) => json!({"running": {"startedAt": "2026-01-01T00:00:00Z"}}),
        (_, code) => json!({"terminated": {"exitCode": code.unwrap_or(-1), "reason": "Completed"}}),
    };
    let mut manifest = pod.manifest.clone();
    if pod.deleted.is_some() {
        manifest["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z".into();
    }
    manifest["status"] = json!({"phase": pod.phase, "containerStatuses": [{"name": "job", "state": state}]});
    manifest
}

fn selected(labels: &Value, selector: &str) -> bool {
    selector.split(',').filter(|s| !s.is_empty()).all(|term| match term.split_once('=') {
        Some((key, value)) => labels[key].as_str() == Some(value),
        None => false,
    })
}

fn decode(text: &str) -> String {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() + 1 {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn status(code: u16, reason: &str, message: &str) -> (u16, Value) {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason, "code": code}),
    )
}

fn serve(stream: TcpStream, cluster: &Mutex<Cluster>, workdir: &Path) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    let mut length = 0;
    let mut authorization = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(value) = lower.strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
        if lower.starts_with("authorization:") {
            authorization = line["authorization:".len()..].trim().to_string();
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let first = head.lines().next().unwrap_or("");
    let mut words = first.split(' ');
    let method = words.next().unwrap_or("").to_string();
    let target = words.next().unwrap_or("");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = decode(query);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (code, answer) = answer(cluster, &method, path, &query, &body, &authorization, workdir);
    let text = match &answer {
        Value::String(log) => log.clone(),
        other => other.to_string(),
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
}

fn answer(
    cluster: &Mutex<Cluster>,
    method: &str,
    path: &str,
    query: &str,
    body: &Value,
    authorization: &str,
    workdir: &Path,
) -> (u16, Value) {
    let mut cluster = cluster.lock().unwrap();
    if authorization != format!("Bearer {API_TOKEN}") {
        cluster.refused += 1;
        return status(401, "Unauthorized", "Unauthorized");
    }
    cluster.requests.push(Request {
        method: method.into(),
        path: path.into(),
        query: query.into(),
        body: body.clone(),
    });
    let param = |name: &str| {
        query.split('&').find_map(|p| p.strip_prefix(&format!("{name}="))).map(str::to_string).unwrap_or_default()
    };
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match (method, parts.as_slice()) {
        ("GET", ["api", "v1", "nodes"]) => {
            let items: Vec<Value> = cluster
                .nodes
                .iter()
                .map(|(name, &(ready, cordoned, gpus))| {
                    json!({
                        "metadata": {"name": name},
                        "spec": {"unschedulable": cordoned},
                        "status": {
                            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
                            "allocatable": {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": gpus.to_string()},
                            "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                        },
                    })
                })
                .collect();
            (200, json!({"kind": "NodeList", "apiVersion": "v1", "items": items}))
        }
        ("GET", ["api", "v1", "namespaces", _, "pods"]) => {
            let selector = param("labelSelector");
            let items: Vec<Value> = cluster
                .pods
                .values()
                .filter(|p| selected(&p.manifest["metadata"]["labels"], &selector))
                .map(pod_status)
                .collect();
            (200, json!({"kind": "PodList", "apiVersion": "v1", "items": items}))
        }
        ("GET", ["api", "v1", "namespaces", _, "pods", name, "log"]) => match cluster.pods.get(*name) {
            Some(pod) => (200, Value::String(std::fs::read_to_string(&pod.log).unwrap_or_default())),
            None => status(404, "NotFound", &format!("pods \"{name}\" not found")),
        },
        ("POST", ["api", "v1", "namespaces", _, "pods"]) => {
            let name = body["metadata"]["name"].as_str().unwrap_or("").to_string();
            let node = body["spec"]["nodeName"].as_str().unwrap_or("");
            if cluster.pods.contains_key(&name) {
                return status(409, "AlreadyExists", &format!("pods \"{name}\" already exists"));
            }
            if !cluster.nodes.contains_key(node) {
                return status(422, "Invalid", &format!("node {node} does not exist"));
            }
            let log = workdir.join(format!("{name}.log"));
            let pod =
                FakePod { manifest: body.clone(), phase: "Pending", child: None, exit_code: None, deleted: None, log };
            cluster.pods.insert(name, pod);
            (201, body.clone())
        }
        ("DELETE", ["api", "v1", "namespaces", _, "pods", name]) => {
            let grace: u64 = param("gracePeriodSeconds").parse().unwrap_or(30);
            match cluster.pods.get_mut(*name) {
                Some(pod) => {
                    pod.deleted.get_or_insert((Instant::now(), grace));
                    (200, pod.manifest.clone())
                }
                None => status(404, "NotFound", &format!("pods \"{name}\" not found")),
            }
        }
        ("DELETE", ["api", "v1", "namespaces", _, "pods"]) => {
            let selector = param("labelSelector");
            for pod in cluster.pods.values_mut().filter(|p| selected(&p.manifest["metadata"]["labels"], &selector)) {
                pod.deleted.get_or_insert((Instant::now(), 0));
            }
            (200, json!({"kind": "PodList", "items": []}))
        }
        ("POST", ["api", "v1", "namespaces", _, "services"]) => {
            let name = body["metadata"]["name"].as_str().unwrap_or("").to_string();
            cluster.services.insert(name, body.clone());
            (201, body.clone())
        }
        ("DELETE", ["api", "v1", "namespaces", _, "services", name]) => match cluster.services.remove(*name) {
            Some(service) => (200, service),
            None => status(404, "NotFound", &format!("services \"{name}\" not found")),
        },
        ("DELETE", ["api", "v1", "namespaces", _, "services"]) => {
            let selector = param("labelSelector");
            cluster.services.retain(|_, s| !selected(&s["metadata"]["labels"], &selector));
            (200, json!({"kind": "ServiceList", "items": []}))
        }
        _ => status(404, "NotFound", "the server could not find the requested resource"),
    }
}

fn python3() -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no python3 on this machine");
    }
    found
}

/// A test directory with the token, a kubeconfig for `api`, the trace and the spec.
fn setup(api: &FakeApi, dir: &Path, trace: &str, policies: &str, command: &str, claim: bool) {
    std::fs::write(dir.join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.join("api-token"), format!("{API_TOKEN}\n")).unwrap();
    let kubeconfig = format!(
        "apiVersion: v1
kind: Config
current-context: test
clusters:
- name: fake
  cluster: {{server: 'http://{}'}}
contexts:
- name: test
  context: {{cluster: fake, user: tester, namespace: jobs}}
users:
- name: tester
  user: {{tokenFile: api-token}}
",
        api.address
    );
    std::fs::write(dir.join("kubeconfig"), kubeconfig).unwrap();
    std::fs::write(dir.join("trace.csv"), trace).unwrap();
    let spec = format!(
        "name: live
engine:
  mode: live
  round_s: 1
  executor: kubernetes
  live:
    listen: 127.0.0.1:0
    token_file: token
    command: {command}
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
    kubernetes:
      kubeconfig: kubeconfig
      image: python:3.12-slim
{}policies:
{policies}
clusters:
  - {{nodes: 3, gpus_per_node: 2}}
workloads:
  - csv: {{path: trace.csv}}
measure:
  track: all
",
        if claim { "      checkpoint_claim: blox-work\n" } else { "" }
    );
    std::fs::write(dir.join("live.yaml"), spec).unwrap();
}

fn run_blox(dir: &Path, limit: Duration, during: impl FnOnce()) {
    let mut scheduler = Guard(
        Command::new(BLOX)
            .args(["run", "live.yaml", "--out", "out", "--quiet"])
            .current_dir(dir)
            .env("PYTHONPATH", Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("scheduler.err")).unwrap())
            .spawn()
            .unwrap(),
    );
    during();
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = scheduler.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join("scheduler.err")).unwrap_or_default();
            assert!(status.success(), "blox run failed: {status}\n{log}");
            return;
        }
        let log = std::fs::read_to_string(dir.join("scheduler.err")).unwrap_or_default();
        assert!(Instant::now() < deadline, "the live sweep did not end within {limit:?}\n{log}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn train() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py").display().to_string()
}

fn env_of(manifest: &Value) -> BTreeMap<String, String> {
    let env = manifest["spec"]["containers"][0]["env"].as_array().unwrap();
    env.iter().map(|e| (e["name"].as_str().unwrap().into(), e["value"].as_str().unwrap().into())).collect()
}

/// FIFO and LAS with preemption: every job's pod runs, reports and finishes; LAS's preemptions
/// are deletions with the grace period; blox sends the manifests the policy decided.
#[test]
fn fifo_and_las_run_on_a_recorded_kubernetes_api_with_pods_as_local_processes() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    let api = FakeApi::start(dir.path(), &["node-a", "node-b", "node-c"]);
    let mut trace = String::from("job_id,arrival_s,gpus,duration_s\n");
    for i in 0..10 {
        trace.push_str(&format!(
            "{i},{},{},{}\n",
            (i as f64 * 0.45).floor(),
            if i % 5 == 2 { 2 } else { 1 },
            2 + (i * 7) % 5
        ));
    }
    let policies = "  - {label: FIFO, scheduler: fifo, placement: consolidated}
  - {label: LAS, scheduler: las, placement: consolidated}";
    let command = format!(
        "[python3, {}, --iterations, '{{iterations}}', --report-every, '1', --ms-per-iteration, '100']",
        train()
    );
    setup(&api, dir.path(), &trace, policies, &command, true);
    run_blox(dir.path(), Duration::from_secs(240), || {});

    let experiment = dir.path().join("out/live");
    let runs = read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 2);
    let mut preempted = 0;
    for run in &runs {
        let records = read_jobs(&experiment, &run.info.run_key).unwrap();
        assert_eq!(records.len(), 10, "{}", run.info.label);
        assert!(records.iter().all(|r| r.finish.is_some()), "{}: every job finished: {records:?}", run.info.label);
        let attempts = read_attempts(&experiment, &run.info.run_key).unwrap();
        for record in &records {
            let own: Vec<&AttemptRow> = attempts.iter().filter(|a| a.job_id == record.id).collect();
            assert_eq!(own.last().map(|a| a.end.as_str()), Some("finished"), "job {}: {own:?}", record.id);
            assert_eq!(own.last().unwrap().iterations_after, (record.work * 10.0) as u64, "progress came from the job");
        }
        preempted += attempts.iter().filter(|a| a.end == "preempted").count();
    }
    assert!(preempted > 0, "LAS preempted");

    let created = api.requests("POST", "/api/v1/namespaces/jobs/pods");
    assert!(created.len() >= 20, "{} pods", created.len());
    for request in &created {
        let pod = &request.body;
        let name = pod["metadata"]["name"].as_str().unwrap();
        let labels = &pod["metadata"]["labels"];
        let (job, attempt) = (labels["blox-job"].as_str().unwrap(), labels["blox-attempt"].as_str().unwrap());
        assert!(name.ends_with(&format!("-{job}-{attempt}-0")), "{name}");
        assert_eq!(labels["blox-run"], pod["metadata"]["annotations"]["blox-run"]);
        assert!(["node-a", "node-b", "node-c"].contains(&pod["spec"]["nodeName"].as_str().unwrap()), "{pod}");
        assert_eq!(pod["spec"]["restartPolicy"], "Never");
        assert_eq!(pod["spec"]["terminationGracePeriodSeconds"], 5);
        let resources = &pod["spec"]["containers"][0]["resources"];
        assert_eq!(resources["requests"], resources["limits"]);
        let gpus: u64 = resources["limits"]["nvidia.com/gpu"].as_str().unwrap().parse().unwrap();
        assert!((1..=2).contains(&gpus), "{resources}");
        let env = env_of(pod);
        assert_eq!((env["BLOX_JOB_ID"].as_str(), env["BLOX_ATTEMPT"].as_str()), (job, attempt));
        assert!(env["BLOX_SCHEDULER"].starts_with("127.0.0.1:") && env["BLOX_JOB_CREDENTIAL"].len() == 64);
        assert!(!pod.to_string().contains(TOKEN) && !pod.to_string().contains(API_TOKEN));
    }
    let logs: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        logs.iter().any(|log| log.contains("resumed from iteration")),
        "a preempted job resumed from its checkpoint on the claim"
    );
    let deleted = api.requests("DELETE", "/api/v1/namespaces/jobs/pods/");
    assert!(
        deleted.iter().any(|d| d.query == "gracePeriodSeconds=5"),
        "preemptions have the grace period: {deleted:?}"
    );
    let cluster = api.cluster.lock().unwrap();
    assert_eq!(cluster.refused, 0, "every request had the bearer token");
    assert!(cluster.pods.is_empty(), "no pod left: {:?}", cluster.pods.keys().collect::<Vec<_>>());
}

/// A job wider than a node is a gang of pods whose MASTER_ADDR is the headless Service of its
/// rank-0 pod; a node cordoned under a running job takes it out: the job's pod is deleted, its
/// attempt counted lost, and the job finishes on the nodes left.
#[test]
fn a_gang_gets_its_service_and_a_cordoned_node_loses_its_job_on_a_recorded_kubernetes_api() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    let api = FakeApi::start(dir.path(), &["node-a", "node-b", "node-c"]);
    let trace = "job_id,arrival_s,gpus,duration_s\n0,0,4,2\n1,0,1,6\n";
    let command = format!(
        ">-
      env | grep -E '^(MASTER_ADDR|MASTER_PORT|WORLD_SIZE|NNODES|NODE_RANK|RANK|LOCAL_RANK)=' | sort
      > {}/job{{job}}-rank$NODE_RANK.env; exec python3 {} --iterations {{iterations}} --ms-per-iteration 100",
        dir.path().display(),
        train()
    );
    setup(&api, dir.path(), trace, "  - {label: FIFO, scheduler: fifo, placement: consolidated}", &command, false);
    let cordon = api.cluster.clone();
    run_blox(dir.path(), Duration::from_secs(120), move || {
        // Cordons node-c once job 1's pod runs there.
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let mut cluster = cordon.lock().unwrap();
            let running = cluster.pods.values().any(|p| {
                p.manifest["metadata"]["labels"]["blox-job"] == "1"
                    && p.phase == "Running"
                    && p.manifest["spec"]["nodeName"] == "node-c"
            });
            if running {
                cluster.nodes.get_mut("node-c").unwrap().1 = true;
                return;
            }
            drop(cluster);
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("job 1 never ran on node-c");
    });

    let experiment = dir.path().join("out/live");
    let run = &read_runs(&experiment).unwrap()[0];
    let records = read_jobs(&experiment, &run.info.run_key).unwrap();
    assert!(records.iter().all(|r| r.finish.is_some()), "{records:?}");
    let attempts = read_attempts(&experiment, &run.info.run_key).unwrap();
    let gang: Vec<&AttemptRow> = attempts.iter().filter(|a| a.job_id == 0).collect();
    assert_eq!(gang.len(), 1, "{attempts:?}");
    assert_eq!(
        (gang[0].node.as_str(), gang[0].end.as_str(), gang[0].iterations_after),
        ("node-a,node-b", "finished", 20)
    );
    let services = api.requests("POST", "/api/v1/namespaces/jobs/services");
    assert_eq!(services.len(), 1, "{services:?}");
    let service = &services[0].body;
    let name = service["metadata"]["name"].as_str().unwrap();
    assert_eq!(service["spec"]["clusterIP"], "None");
    assert_eq!(service["spec"]["selector"]["blox-rank"], "0");
    assert_eq!(service["spec"]["selector"]["blox-job"], "0");
    for rank in 0..2 {
        let env = std::fs::read_to_string(dir.path().join(format!("job0-rank{rank}.env"))).unwrap();
        let expected = format!(
            "LOCAL_RANK=0\nMASTER_ADDR={name}.jobs.svc\nMASTER_PORT=29500\nNNODES=2\nNODE_RANK={rank}\nRANK={rank}\nWORLD_SIZE=2\n"
        );
        assert_eq!(env, expected, "rank {rank}");
    }
    assert!(
        api.requests("DELETE", &format!("/api/v1/namespaces/jobs/services/{name}")).len() == 1,
        "the Service goes with the gang"
    );
    let single: Vec<&AttemptRow> = attempts.iter().filter(|a| a.job_id == 1).collect();
    assert_eq!(single[0].node, "node-c", "{single:?}");
    assert_eq!(single[0].end, "lost", "{single:?}");
    assert_eq!(single.last().unwrap().end, "finished", "{single:?}");
    assert_ne!(single.last().unwrap().node, "node-c", "{single:?}");
    let cluster = api.cluster.lock().unwrap();
    assert!(cluster.pods.is_empty() && cluster.services.is_empty(), "nothing left");
}
