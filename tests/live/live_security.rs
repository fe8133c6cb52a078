//! Live mode under attack, on localhost: what a job that forges progress, a second agent with a
//! taken node name, a peer trickling its handshake, a flood of connections at the descriptor
//! limit and a spec that cannot start a job can do to the scheduler (`blox run`) and its run.
//! The adversarial cases of issue 32; the agent's side (a fake scheduler, a man in the middle)
//! is in tests/live_agent.rs.

use crate::live_cluster::{Guard, exclusive};
use blox::live::auth::{self, Key, Transcript};
use blox::live::client::Client;
use blox::live::protocol::{Connection, Handshake, Message, Peer, Slot, SlotKind};
use blox::live::scheduler::{Coordinator, HANDSHAKE_TIMEOUT, MAX_UNAUTHENTICATED, Settings};
use blox::results::{read_attempts, read_runs};
use blox::spec::LiveCommand;
use std::collections::HashMap;
use std::io::Write;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BLOX: &str = env!("CARGO_BIN_EXE_blox");
const TOKEN: &str = "live-security-test-token";
const PATIENCE: Duration = Duration::from_secs(60);

/// A live spec: `nodes` nodes of 2 slots, the jobs of `trace.csv`, 10 iterations per second of
/// work, rounds of 1 s, jobs running `command` (YAML).
fn spec(nodes: u32, command: &str) -> String {
    format!(
        "name: live
engine:
  mode: live
  round_s: 1
  live:
    listen: 127.0.0.1:0
    token_file: token
    command: {command}
    iterations_per_s: 10
    grace_s: 2
    wait_for_nodes_s: 60
policies:
  - {{label: FIFO, scheduler: fifo, placement: consolidated}}
clusters:
  - {{nodes: {nodes}, gpus_per_node: 2}}
workloads:
  - csv: {{path: trace.csv}}
measure:
  track: all
"
    )
}

/// A test directory with the token, a trace of `jobs` jobs of `duration_s` seconds and the spec.
fn setup(nodes: u32, jobs: usize, duration_s: u32, command: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    let mut trace = String::from("job_id,arrival_s,gpus,duration_s\n");
    for i in 0..jobs {
        trace += &format!("{i},0,1,{duration_s}\n");
    }
    std::fs::write(dir.path().join("trace.csv"), trace).unwrap();
    std::fs::write(dir.path().join("live.yaml"), spec(nodes, command)).unwrap();
    dir
}

/// `blox run live.yaml`, its stderr in `scheduler.err`; with at most `descriptors` open files.
fn start_scheduler(dir: &Path, descriptors: Option<u64>) -> Guard {
    let mut command = Command::new(BLOX);
    command
        .args(["run", "live.yaml", "--out", "out", "--quiet"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join("scheduler.err")).unwrap());
    if let Some(limit) = descriptors {
        let limit = libc::rlimit { rlim_cur: limit as libc::rlim_t, rlim_max: limit as libc::rlim_t };
        // SAFETY: setrlimit is async-signal-safe and reads a struct copied into the closure.
        unsafe {
            command.pre_exec(move || match libc::setrlimit(libc::RLIMIT_NOFILE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            });
        }
    }
    Guard(command.spawn().unwrap())
}

fn log(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// Waits until `file` in `dir` contains `text`.
fn wait_for_log(dir: &Path, file: &str, text: &str) {
    let deadline = Instant::now() + PATIENCE;
    while !log(dir, file).contains(text) {
        assert!(Instant::now() < deadline, "{file} never said `{text}`:\n{}", log(dir, file));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for the scheduler to say where it listens.
fn scheduler_address(dir: &Path) -> String {
    wait_for_log(dir, "out/live/live-address", ":");
    log(dir, "out/live/live-address").trim().to_string()
}

fn start_agent(dir: &Path, address: &str, name: &str) -> Guard {
    Guard(
        Command::new(BLOX)
            .args(["node", "--scheduler", address, "--cpu-slots", "2", "--name", name, "--token-file", "token"])
            .args(["--work-dir", "work", "--heartbeat-s", "0.5"])
            .current_dir(dir)
            .env_remove("BLOX_TOKEN")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join(format!("{name}.err"))).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// Waits for the sweep to end and checks that it succeeded.
fn assert_sweep_succeeds(scheduler: &mut Guard, dir: &Path) {
    let code = scheduler.wait(Duration::from_secs(120));
    assert_eq!(code, Some(0), "blox run failed:\n{}", log(dir, "scheduler.err"));
}

/// A job's environment, as its command wrote it with `env`.
fn job_env(dir: &Path, job: u64) -> HashMap<String, String> {
    let file = dir.join(format!("env-{job}"));
    let deadline = Instant::now() + PATIENCE;
    while !file.exists() {
        assert!(Instant::now() < deadline, "job {job} never started:\n{}", log(dir, "scheduler.err"));
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = std::fs::read_to_string(file).unwrap();
    assert!(!text.contains(TOKEN), "a job's environment holds the token:\n{text}");
    text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// What the scheduler answers a peer that claims `claim` (a hello without its nonce) and,
/// not checking the scheduler's proof, sends the proof `key` makes: as a forger would.
fn forge(address: &str, claim: &str, key: &Key) -> Message {
    let mut connection = Connection::new(TcpStream::connect(address).unwrap()).unwrap();
    let nonce = [7u8; 32];
    let hello = format!(r#"{{"type":"hello","version":2,"nonce":"{}",{claim}}}"#, auth::hex(&nonce));
    connection.writer.stream().write_all(format!("{hello}\n").as_bytes()).unwrap();
    let Some(Message::Challenge { nonce: theirs, .. }) = connection.recv().unwrap() else { panic!("no challenge") };
    let theirs: [u8; 32] = auth::decode_hex(&theirs).unwrap().try_into().unwrap();
    let proof = Transcript::new(nonce, theirs, hello.as_bytes()).client_proof(key);
    connection.send(&Message::Auth { proof: auth::hex(&proof) }).unwrap();
    connection.recv().unwrap().expect("an answer")
}

/// A job holding its own attempt's credential cannot say hello as another job or as an agent;
/// its reports count for its own attempt only, and one of 10^18 iterations counts as the job's
/// 20. No job's environment holds the token.
#[test]
fn a_job_reports_its_own_progress_only_and_no_more_than_its_work() {
    let _cluster = exclusive();
    let dir = setup(1, 2, 2, "'true'");
    let env_file = dir.path().join("env-{job}");
    let command = format!("'env > {0}.tmp && mv {0}.tmp {0}; sleep 4'", env_file.display());
    std::fs::write(dir.path().join("live.yaml"), spec(1, &command)).unwrap();
    let mut scheduler = start_scheduler(dir.path(), None);
    let address = scheduler_address(dir.path());
    let _agent = start_agent(dir.path(), &address, "n0");
    let env = job_env(dir.path(), 0);
    job_env(dir.path(), 1);
    let credential = Key::from_hex(&env["BLOX_JOB_CREDENTIAL"]).unwrap();
    let run = &env["BLOX_RUN"];
    assert_eq!((env["BLOX_JOB_ID"].as_str(), env["BLOX_ATTEMPT"].as_str()), ("0", "0"));

    // Job 0's credential, claiming job 1, another attempt of job 0, or an agent: refused.
    for claim in [
        format!(r#""role":"job","job":1,"attempt":0,"run":"{run}""#),
        format!(r#""role":"job","job":0,"attempt":1,"run":"{run}""#),
        r#""role":"agent","node":"n0","slots":[{"id":"0","kind":"cpu"}]"#.to_string(),
        r#""role":"agent","node":"n9","slots":[{"id":"0","kind":"cpu"}]"#.to_string(),
    ] {
        let answer = forge(&address, &claim, &credential);
        assert!(
            matches!(&answer, Message::Refused { reason } if reason.contains("wrong token")),
            "{claim}: {answer:?}"
        );
    }
    // The client library, told it is job 1: the scheduler cannot prove job 1's credential to
    // job 0's, and the client stops there.
    let mut as_job_1 = env.clone();
    as_job_1.insert("BLOX_JOB_ID".into(), "1".into());
    let e = Client::from_vars(|name| as_job_1.get(name).cloned()).unwrap().report(5).unwrap_err();
    assert!(e.contains("could not prove"), "{e}");
    // Its own attempt: welcomed; an absurd report is clamped to the job's 20 iterations.
    let mut own = Client::from_vars(|name| env.get(name).cloned()).unwrap();
    own.report(1_000_000_000_000_000_000).unwrap();

    assert_sweep_succeeds(&mut scheduler, dir.path());
    let scheduler_log = log(dir.path(), "scheduler.err");
    assert!(
        scheduler_log.contains(
            "job 0 attempt 0 reported 1000000000000000000 iterations, more than the 20 it runs in all: counted as 20"
        ),
        "{scheduler_log}"
    );
    let experiment = dir.path().join("out/live");
    let key = read_runs(&experiment).unwrap()[0].info.run_key.clone();
    let attempts = read_attempts(&experiment, &key).unwrap();
    let job = |id| attempts.iter().find(|a| a.job_id == id).unwrap();
    assert_eq!(job(0).iterations_after, 20, "{attempts:?}");
    assert_eq!((job(1).iterations_after, job(1).first_progress), (0, None), "job 1 took no forged report");
    assert!(attempts.iter().all(|a| a.end == "finished"), "{attempts:?}");
}

/// Two agents with one node name (machines cloned from one image): the second is refused and
/// exits saying how to fix it, the scheduler says so too, and the first is not disturbed.
#[test]
fn a_second_agent_with_a_taken_node_name_is_refused_on_both_sides() {
    let _cluster = exclusive();
    let dir = setup(2, 2, 1, "'sleep 1'");
    let mut scheduler = start_scheduler(dir.path(), None);
    let address = scheduler_address(dir.path());
    let first = start_agent(dir.path(), &address, "twin");
    wait_for_log(dir.path(), "scheduler.err", "node twin connected");
    let second_dir = dir.path().join("second");
    std::fs::create_dir(&second_dir).unwrap();
    std::fs::copy(dir.path().join("token"), second_dir.join("token")).unwrap();
    let mut second = start_agent(&second_dir, &address, "twin");
    assert_eq!(second.wait(PATIENCE), Some(2));
    let second_log = log(&second_dir, "twin.err");
    assert!(second_log.contains("node name `twin` is taken"), "{second_log}");
    assert!(second_log.contains("blox node --name NAME"), "{second_log}");
    let scheduler_log = log(dir.path(), "scheduler.err");
    assert!(scheduler_log.contains("refused a second agent named `twin`"), "{scheduler_log}");
    assert!(scheduler_log.contains("give each node its own name with `blox node --name`"), "{scheduler_log}");

    let _other = start_agent(dir.path(), &address, "other");
    assert_sweep_succeeds(&mut scheduler, dir.path());
    let scheduler_log = log(dir.path(), "scheduler.err");
    assert!(!scheduler_log.contains("node twin is gone"), "{scheduler_log}");
    // Connected once for the whole sweep: never dropped for the newcomer, never flapping.
    let first_log = log(dir.path(), "twin.err");
    assert_eq!(first_log.matches("connected to the scheduler").count(), 1, "{first_log}");
    assert_eq!(scheduler_log.matches("node twin connected").count(), 1, "{scheduler_log}");
    drop(first);
}

/// The scheduler of these tests, in this process, without a run.
fn scheduler_here() -> Coordinator {
    Coordinator::start(Settings {
        listen: "127.0.0.1:0".into(),
        token: TOKEN.into(),
        command: LiveCommand::Shell("true".into()),
        iterations_per_s: 1.0,
        grace_s: 1.0,
        wait_for_nodes: Duration::from_secs(1),
        env: Default::default(),
        executor: Default::default(),
        kubernetes: None,
        work_dir: std::env::temp_dir(),
    })
    .unwrap()
}

fn agent_handshake(address: &str, node: &str) -> Result<Connection, Handshake> {
    let mut connection = Connection::connect(address, Duration::from_secs(5)).unwrap();
    let peer = Peer::Agent { node: node.into(), slots: vec![Slot { id: "0".into(), kind: SlotKind::Cpu }] };
    connection.handshake(&peer, &Key::agent(TOKEN), PATIENCE).map(|()| connection)
}

/// A peer that sends its hello a byte at a time, each well within any per-read timeout, is
/// cut off at the handshake's one deadline; the scheduler still serves others.
#[test]
fn a_trickling_connection_is_closed_at_the_handshake_deadline() {
    let scheduler = scheduler_here();
    let address = scheduler.address().to_string();
    let mut trickler = TcpStream::connect(&address).unwrap();
    let started = Instant::now();
    let mut cut_off = false;
    // Up to six deadlines' worth of bytes, one every 200 ms.
    while started.elapsed() < HANDSHAKE_TIMEOUT * 6 {
        if trickler.write_all(b" ").is_err() {
            cut_off = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(cut_off, "the trickling connection was never closed");
    assert!(agent_handshake(&address, "n0").is_ok());
}

/// At most [`MAX_UNAUTHENTICATED`] connections may be in their handshake: with that many idle
/// ones open, the next is closed before any challenge, even one that would prove its key;
/// once they are gone, it is served.
#[test]
fn connections_in_their_handshake_are_capped() {
    let scheduler = scheduler_here();
    let address = scheduler.address().to_string();
    let idle: Vec<TcpStream> = (0..MAX_UNAUTHENTICATED).map(|_| TcpStream::connect(&address).unwrap()).collect();
    let refused = agent_handshake(&address, "n0");
    assert!(matches!(&refused, Err(Handshake::Failed(_))), "{:?}", refused.as_ref().err());
    drop(idle);
    let deadline = Instant::now() + PATIENCE;
    while agent_handshake(&address, "n0").is_err() {
        assert!(Instant::now() < deadline, "no place freed");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A `blox run` scheduler limited to 64 descriptors, flooded with 200 connections held open
/// while its run goes: connections beyond its share of descriptors are closed at once, so the
/// run still writes its tables, completes, and nothing is set aside. (Without the caps, the
/// acceptor took every descriptor, spun on EMFILE, and the run could not write its files.)
#[test]
fn a_flood_of_connections_at_the_descriptor_limit_does_no_harm() {
    let _cluster = exclusive();
    let dir = setup(1, 2, 3, "'sleep 3'");
    let mut scheduler = start_scheduler(dir.path(), Some(64));
    let address = scheduler_address(dir.path());
    let _agent = start_agent(dir.path(), &address, "n0");
    wait_for_log(dir.path(), "scheduler.err", "node n0 connected");
    let socket: std::net::SocketAddr = address.parse().unwrap();
    let flood: Vec<TcpStream> =
        (0..200).filter_map(|_| TcpStream::connect_timeout(&socket, Duration::from_millis(200)).ok()).collect();
    assert_sweep_succeeds(&mut scheduler, dir.path());
    drop(flood);
    let experiment = dir.path().join("out/live");
    assert_eq!(read_runs(&experiment).unwrap().len(), 1);
    assert!(!experiment.join("set-aside").exists(), "{}", log(dir.path(), "scheduler.err"));
    let scheduler_log = log(dir.path(), "scheduler.err");
    assert!(scheduler_log.contains("in their handshake already"), "{scheduler_log}");
}

/// A run none of whose jobs could start (a program missing on the nodes) measured nothing: it
/// fails with the reason instead of passing for a complete run with every GPU busy.
#[test]
fn a_run_whose_jobs_all_fail_to_start_fails() {
    let _cluster = exclusive();
    let dir = setup(1, 2, 1, "[/nonexistent/program]");
    let mut scheduler = start_scheduler(dir.path(), None);
    let address = scheduler_address(dir.path());
    let _agent = start_agent(dir.path(), &address, "n0");
    assert_eq!(scheduler.wait(Duration::from_secs(120)), Some(1), "{}", log(dir.path(), "scheduler.err"));
    let scheduler_log = log(dir.path(), "scheduler.err");
    assert!(scheduler_log.contains("all 2 attempts of the run failed, so it measured nothing"), "{scheduler_log}");
    assert!(scheduler_log.contains("cannot start `/nonexistent/program`"), "{scheduler_log}");
    assert!(read_runs(&dir.path().join("out/live")).unwrap().is_empty());
}

/// `base` on the `kubernetes` executor, with `options` as `engine.live.kubernetes` (none when empty).
fn k8s(base: &str, options: &str) -> String {
    let spec = base.replace("mode: live", "mode: live\n  executor: kubernetes");
    if options.is_empty() {
        return spec;
    }
    spec.replace("command: 'true'", &format!("command: 'true'\n    kubernetes: {options}"))
}

/// Every spec that would start a scheduler no job can use is refused by `blox validate`, at
/// the value's line and column, with the reason.
#[test]
fn live_settings_that_cannot_work_are_refused_at_validate() {
    let dir = setup(1, 1, 1, "'true'");
    let base = std::fs::read_to_string(dir.path().join("live.yaml")).unwrap();
    let with = |from: &str, to: &str| {
        assert!(base.contains(from), "{from}");
        base.replace(from, to)
    };
    let cases = [
        (with("command: 'true'", "command: []"), "8:14", "command is empty"),
        (with("command: 'true'", "command: ''"), "8:14", "command is empty"),
        (with("command: 'true'", "command: ['', x]"), "8:14", "first item (the program to run) is empty"),
        (
            with("command: 'true'", "command: 'train.py {iteration}'"),
            "8:14",
            "`{iteration}`, which is not a placeholder",
        ),
        (with("listen: 127.0.0.1:0", "listen: 127.0.0.1"), "6:13", "listen `127.0.0.1` has no port"),
        (with("listen: 127.0.0.1:0", "listen: 0.0.0.0:99999"), "6:13", "no port number from 0 to 65535"),
        (with("listen: 127.0.0.1:0", "listen: 'my host:7077'"), "6:13", "has no host name or address"),
        (
            with("token_file: token", "token_file: missing-token"),
            "6:5",
            "engine.live.token_file: cannot read the token file",
        ),
        (with("command: 'true'", "command: 'true'\n    env: {'': x}"), "9:10", "env has a variable with an empty name"),
        (with("command: 'true'", "command: 'true'\n    env: {'A=B': x}"), "9:10", "`A=B` has `=` in its name"),
        (with("command: 'true'", "command: 'true'\n    env: {BLOX_TOKEN: x}"), "9:10", "is set by blox for each job"),
        (with("command: 'true'", "command: 'true'\n    env: {NODE_RANK: '1'}"), "9:10", "is set by blox for each job"),
        (with("mode: live", "mode: live\n  executor: nomad"), "4:13", "unknown variant `nomad`"),
        (with("mode: live", "mode: rounds\n  executor: slurm"), "4:13", "`engine.executor` is for `engine.mode: live`"),
        (k8s(&base, ""), "7:5", "`engine.executor: kubernetes` needs `engine.live.kubernetes`"),
        (
            with("command: 'true'", "command: 'true'\n    kubernetes: {image: train}"),
            "6:5",
            "`engine.live.kubernetes` is for `engine.executor: kubernetes`",
        ),
        (k8s(&base, "{image: train, namespace: Team_A}"), "10:43", "`Team_A` is not a Kubernetes name"),
        (k8s(&base, "{image: 'my image'}"), "10:25", "image `my image` is not a container image reference"),
        (
            k8s(&base, "{image: train, gpu_resource: gpu}"),
            "10:46",
            "gpu_resource `gpu` is not an extended resource name",
        ),
        (k8s(&base, "{namespace: jobs}"), "10:18", "missing field `image`"),
        (
            k8s(&base, "{image: train, scheduler_address: 10.0.0.5}"),
            "10:51",
            "scheduler_address `10.0.0.5` has no port",
        ),
    ];
    for (spec, at, reason) in cases {
        std::fs::write(dir.path().join("case.yaml"), &spec).unwrap();
        let out = Command::new(BLOX).args(["validate", "case.yaml"]).current_dir(dir.path()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{reason}: {stderr}");
        assert!(stderr.contains(&format!("case.yaml:{at}: ")) && stderr.contains(reason), "{reason}: {stderr}");
    }
    // A token too short to resist guessing.
    std::fs::write(dir.path().join("token"), "short\n").unwrap();
    let out = Command::new(BLOX).args(["validate", "live.yaml"]).current_dir(dir.path()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("holds a token of 5 bytes; at least 16 are needed"), "{stderr}");
}

/// The Python client speaks the handshake and the seals with the real scheduler: with its
/// credential it is answered (an attempt this scheduler never launched is told to stop), with
/// another it is refused before proving anything. Needs python3 (skipped without).
#[test]
fn the_python_client_authenticates_with_its_credential() {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no python3 on this machine");
        return;
    }
    let scheduler = scheduler_here();
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python");
    let script = "import blox_client\ntry:\n    print(blox_client.report(3))\nexcept blox_client.BloxError as e:\n    print('refused:', e)\n";
    for (credential, expected) in
        [(Key::job(TOKEN, 5, 0, Some("r")), "True\n"), (Key::job(TOKEN, 5, 1, Some("r")), "refused: the scheduler at")]
    {
        let out = Command::new("python3")
            .args(["-c", script])
            .current_dir(&client)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("BLOX_SCHEDULER", scheduler.address().to_string())
            .env("BLOX_JOB_CREDENTIAL", credential.to_hex())
            .env("BLOX_JOB_ID", "5")
            .env("BLOX_ATTEMPT", "0")
            .env("BLOX_RUN", "r")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.starts_with(expected),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
