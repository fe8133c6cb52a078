//! `blox node` as a real process against a scheduler stand-in (a TcpListener in the test that
//! speaks the live protocol): handshakes, real job processes, signals, reconnection, and what
//! a fake scheduler or a man in the middle can make an agent do (nothing).

use blox::live::auth::Key;
use blox::live::protocol::{Argv, Connection, ExitReason, MAX_LINE, Message, Peer, Rejected, check_hello};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "s3cret-token-of-the-agent-tests";
const PATIENCE: Duration = Duration::from_secs(10);

struct Scheduler {
    listener: TcpListener,
    address: String,
}

impl Scheduler {
    fn new() -> Scheduler {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let address = listener.local_addr().unwrap().to_string();
        Scheduler { listener, address }
    }

    /// The next connection, raw.
    fn connection(&self) -> TcpStream {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false).unwrap();
                    stream.set_read_timeout(Some(PATIENCE)).unwrap();
                    return stream;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => panic!("no connection within {PATIENCE:?}: {e}"),
            }
        }
    }

    /// The next connection, through the scheduler's side of the handshake with the tests' token.
    fn accept(&self) -> (Connection, Result<Peer, Rejected>) {
        let mut connection = Connection::new(self.connection()).unwrap();
        let peer = connection.accept(TOKEN, PATIENCE);
        (connection, peer)
    }

    /// Accepts an agent, welcomes it and returns the connection, past its (empty) inventory.
    fn welcome_agent(&self) -> Connection {
        let (mut connection, peer) = self.accept();
        assert!(matches!(peer, Ok(Peer::Agent { .. })), "{peer:?}");
        connection.send(&Message::Welcome {}).unwrap();
        assert_eq!(next(&mut connection), Message::Running { jobs: vec![] });
        connection
    }
}

/// The next message other than a heartbeat.
fn next(connection: &mut Connection) -> Message {
    loop {
        match connection.recv() {
            Ok(Some(Message::Heartbeat {})) => {}
            Ok(Some(message)) => return message,
            other => panic!("expected a message, got {other:?}"),
        }
    }
}

fn launch(connection: &mut Connection, job: u64, attempt: u32, argv: Argv, slots: &[&str]) {
    let slots = slots.iter().map(|s| s.to_string()).collect();
    let env = [("MY_VAR".to_string(), "from the launch".to_string())].into();
    connection.send(&Message::Launch { job, attempt, argv, slots, env, run: None }).unwrap();
}

fn shell(script: &str) -> Argv {
    Argv::Shell(script.into())
}

/// Expects `started` for the attempt; its pid.
fn started(connection: &mut Connection, job: u64, attempt: u32) -> u32 {
    match next(connection) {
        Message::Started { job: j, attempt: a, pid } if (j, a) == (job, attempt) => pid,
        other => panic!("expected started for job {job} attempt {attempt}, got {other:?}"),
    }
}

/// Expects `exited` for the attempt: (code, signal, reason, stderr_tail).
fn exited(connection: &mut Connection, job: u64, attempt: u32) -> (Option<i32>, Option<i32>, ExitReason, String) {
    match next(connection) {
        Message::Exited { job: j, attempt: a, code, signal, reason, stderr_tail } if (j, a) == (job, attempt) => {
            (code, signal, reason, stderr_tail)
        }
        other => panic!("expected exited for job {job} attempt {attempt}, got {other:?}"),
    }
}

/// A `blox node` process with its own work directory; its stderr goes to a file there.
struct Node {
    child: Child,
    dir: tempfile::TempDir,
}

impl Node {
    /// An agent given `token` in a token file.
    fn start(address: &str, token: &str, slots: &[&str]) -> Node {
        Node::start_with(address, token, slots, false)
    }

    /// An agent given `token` in a token file, or in `BLOX_TOKEN` when `in_environment`.
    fn start_with(address: &str, token: &str, slots: &[&str], in_environment: bool) -> Node {
        let dir = tempfile::tempdir().unwrap();
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, format!("{token}\n")).unwrap();
        let stderr = std::fs::File::create(dir.path().join("agent.err")).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_blox"));
        command.args(["node", "--scheduler", address, "--name", "test-node", "--heartbeat-s", "0.5"]);
        match in_environment {
            true => command.env("BLOX_TOKEN", token),
            false => command.arg("--token-file").arg(&token_file).env_remove("BLOX_TOKEN"),
        };
        let child = command
            .arg("--work-dir")
            .arg(dir.path().join("work"))
            .args(slots)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .unwrap();
        Node { child, dir }
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn stderr(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("agent.err")).unwrap_or_default()
    }

    fn wait(&mut self) -> ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the agent did not exit; its stderr:\n{}", self.stderr());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Node {
    /// SIGTERM first, so that the agent stops its jobs rather than leave them running.
    fn drop(&mut self) {
        if self.child.try_wait().is_ok_and(|status| status.is_some()) {
            return;
        }
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.child.try_wait().is_ok_and(|status| status.is_none()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether the process group `pgid` is empty within two seconds (its orphans are killed by the
/// agent but reaped by init, shortly after).
fn group_gone(pgid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let alive = Command::new("kill").args(["-0", "--", &format!("-{pgid}")]).stderr(Stdio::null()).status();
        if !alive.unwrap().success() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + PATIENCE;
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_right_token_is_welcomed_and_a_wrong_one_refused() {
    let scheduler = Scheduler::new();
    let mut node = Node::start(&scheduler.address, TOKEN, &["--gpus", "0,1"]);
    let (mut connection, peer) = scheduler.accept();
    let Ok(Peer::Agent { node: name, slots }) = &peer else { panic!("{peer:?}") };
    assert_eq!(name, "test-node");
    assert_eq!(slots.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["0", "1"]);
    connection.send(&Message::Welcome {}).unwrap();
    assert_eq!(next(&mut connection), Message::Running { jobs: vec![] });
    // Nothing else to say: a heartbeat comes (every 0.5 s here).
    assert_eq!(connection.recv().unwrap(), Some(Message::Heartbeat {}));
    connection.send(&Message::Shutdown {}).unwrap();
    assert!(node.wait().success(), "{}", node.stderr());

    // An agent with another token finds that the scheduler cannot prove it holds its token,
    // proves nothing itself and exits.
    let mut intruder = Node::start(&scheduler.address, "a-guessed-token-of-16+", &["--cpu-slots", "2"]);
    let (_connection, peer) = scheduler.accept();
    assert!(matches!(&peer, Err(Rejected::Gone(why)) if why.contains("another token")), "{peer:?}");
    assert_eq!(intruder.wait().code(), Some(2));
    let stderr = intruder.stderr();
    assert!(stderr.contains("as node test-node: it could not prove that it holds the same token"), "{stderr}");
    assert!(stderr.contains("a wrong token on one side"), "{stderr}");
}

/// A job gets its attempt's credential, and not the token, even when the agent got the token
/// from its own environment.
#[test]
fn a_shell_job_starts_and_exits_with_its_environment() {
    let scheduler = Scheduler::new();
    let node = Node::start_with(&scheduler.address, TOKEN, &["--gpus", "0,1,2"], true);
    let mut connection = scheduler.welcome_agent();
    let out = node.dir.path().join("env.txt");
    let script = format!(
        "env | grep -E '^(BLOX_(ATTEMPT|CHECKPOINT_DIR|JOB_CREDENTIAL|JOB_ID|SCHEDULER|SLOTS|TOKEN)|CUDA_VISIBLE_DEVICES|MY_VAR)=' | sort > {}; echo a warning >&2",
        out.display()
    );
    launch(&mut connection, 1, 0, Argv::Exec(vec!["sh".into(), "-c".into(), script]), &["2", "0"]);
    assert!(started(&mut connection, 1, 0) > 0);
    let (code, signal, reason, stderr_tail) = exited(&mut connection, 1, 0);
    assert_eq!((code, signal, reason, stderr_tail.as_str()), (Some(0), None, ExitReason::Exited, "a warning\n"));
    let env = std::fs::read_to_string(&out).unwrap();
    let checkpoint = node.work().join("jobs/1/checkpoint");
    let expected = format!(
        "BLOX_ATTEMPT=0\nBLOX_CHECKPOINT_DIR={}\nBLOX_JOB_CREDENTIAL={}\nBLOX_JOB_ID=1\nBLOX_SCHEDULER={}\nBLOX_SLOTS=2,0\n\
         CUDA_VISIBLE_DEVICES=2,0\nMY_VAR=from the launch\n",
        checkpoint.display(),
        Key::job(TOKEN, 1, 0, None).to_hex(),
        scheduler.address
    );
    assert_eq!(env, expected);
    assert!(checkpoint.is_dir());
    assert_eq!(std::fs::read_to_string(node.work().join("jobs/1/attempt-0.err")).unwrap(), "a warning\n");

    // CPU slots: no GPU is visible.
    let cpu_node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "2"]);
    let mut connection = scheduler.welcome_agent();
    let out = cpu_node.dir.path().join("cuda.txt");
    launch(
        &mut connection,
        2,
        0,
        shell(&format!("echo \"[$CUDA_VISIBLE_DEVICES] $BLOX_SLOTS\" > {}", out.display())),
        &["1"],
    );
    started(&mut connection, 2, 0);
    assert_eq!(exited(&mut connection, 2, 0).0, Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "[] 1\n");
}

#[test]
fn preemption_terminates_and_a_job_ignoring_sigterm_is_killed_after_the_grace() {
    let scheduler = Scheduler::new();
    let node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "2"]);
    let mut connection = scheduler.welcome_agent();

    // A job that ends on SIGTERM, with a child in its group.
    launch(&mut connection, 1, 0, shell("sleep 30 & wait"), &["0"]);
    let pid = started(&mut connection, 1, 0);
    connection.send(&Message::Preempt { job: 1, attempt: 0, grace_s: 5.0 }).unwrap();
    let (code, signal, reason, _) = exited(&mut connection, 1, 0);
    assert_eq!((code, signal, reason), (None, Some(15), ExitReason::Preempted));
    assert!(group_gone(pid), "the job's sleep survived");

    // A job that ignores SIGTERM (and so do its children).
    let ready = node.dir.path().join("ready");
    launch(
        &mut connection,
        2,
        0,
        shell(&format!("trap '' TERM; touch {}; while :; do sleep 0.1; done", ready.display())),
        &["1"],
    );
    let pid = started(&mut connection, 2, 0);
    wait_for_file(&ready);
    let preempted = Instant::now();
    connection.send(&Message::Preempt { job: 2, attempt: 0, grace_s: 0.5 }).unwrap();
    let (code, signal, reason, _) = exited(&mut connection, 2, 0);
    assert_eq!((code, signal, reason), (None, Some(9), ExitReason::Killed));
    let waited = preempted.elapsed();
    assert!(waited >= Duration::from_millis(450) && waited < Duration::from_secs(3), "killed after {waited:?}");
    assert!(group_gone(pid), "the job's children survived");
}

fn python3() -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no python3 on this machine");
    }
    found
}

/// Accepts job `job`'s connection for `attempt` and welcomes it.
fn welcome_job(scheduler: &Scheduler, job: u64, attempt: u32) -> Connection {
    let (mut connection, peer) = scheduler.accept();
    assert_eq!(peer.unwrap(), Peer::Job { job, attempt, run: None });
    connection.send(&Message::Welcome {}).unwrap();
    connection
}

fn progress(connection: &mut Connection) -> u64 {
    match next(connection) {
        Message::Progress { iterations } => iterations,
        other => panic!("expected progress, got {other:?}"),
    }
}

#[test]
fn a_cooperative_job_checkpoints_on_stop_and_a_relaunch_resumes() {
    if !python3() {
        return;
    }
    let scheduler = Scheduler::new();
    let node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "1"]);
    let mut agent = scheduler.welcome_agent();
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    let argv = Argv::Exec(
        [
            "python3",
            train.to_str().unwrap(),
            "--iterations",
            "100000",
            "--report-every",
            "5",
            "--ms-per-iteration",
            "1",
        ]
        .map(String::from)
        .to_vec(),
    );
    launch(&mut agent, 7, 0, argv.clone(), &["0"]);
    started(&mut agent, 7, 0);
    let mut job = welcome_job(&scheduler, 7, 0);
    let first = progress(&mut job);
    job.send(&Message::Ack { stop: false }).unwrap();
    // The scheduler decides to preempt: the next report is told to stop.
    let last = progress(&mut job);
    assert_eq!((first % 5, last, last > first), (0, first + 5, true));
    job.send(&Message::Ack { stop: true }).unwrap();
    assert_eq!(exited(&mut agent, 7, 0).0, Some(0));
    let checkpoint = node.work().join("jobs/7/checkpoint/iteration");
    assert_eq!(std::fs::read_to_string(&checkpoint).unwrap(), last.to_string());

    launch(&mut agent, 7, 1, argv, &["0"]);
    started(&mut agent, 7, 1);
    let mut job = welcome_job(&scheduler, 7, 1);
    assert_eq!(progress(&mut job), last + 5, "the relaunch did not resume");
    job.send(&Message::Ack { stop: true }).unwrap();
    assert_eq!(exited(&mut agent, 7, 1).0, Some(0));
    let stdout = std::fs::read_to_string(node.work().join("jobs/7/attempt-1.out")).unwrap();
    assert!(stdout.contains(&format!("resumed from iteration {last}")), "{stdout}");
}

#[test]
fn a_command_that_does_not_exist_fails_to_start_with_the_reason() {
    let scheduler = Scheduler::new();
    let _node = Node::start(&scheduler.address, TOKEN, &["--gpus", "0"]);
    let mut connection = scheduler.welcome_agent();
    launch(&mut connection, 3, 0, Argv::Exec(vec!["blox-no-such-command".into(), "x".into()]), &["0"]);
    let (code, signal, reason, why) = exited(&mut connection, 3, 0);
    assert_eq!((code, signal, reason), (None, None, ExitReason::FailedToStart));
    assert!(why.contains("cannot start `blox-no-such-command`: No such file or directory"), "{why}");
    launch(&mut connection, 4, 0, shell("true"), &["5"]);
    let why = exited(&mut connection, 4, 0).3;
    assert!(why.contains("slot 5 is not one of node test-node's"), "{why}");
    launch(&mut connection, 5, 0, Argv::Exec(vec![]), &["0"]);
    assert!(exited(&mut connection, 5, 0).3.contains("argv is empty"));
    // The agent is still there.
    launch(&mut connection, 6, 0, shell("exit 3"), &["0"]);
    started(&mut connection, 6, 0);
    assert_eq!(exited(&mut connection, 6, 0).0, Some(3));
    // A launch repeated while its attempt runs starts nothing new.
    launch(&mut connection, 8, 0, shell("sleep 30"), &["0"]);
    let pid = started(&mut connection, 8, 0);
    launch(&mut connection, 8, 0, shell("sleep 30"), &["0"]);
    assert_eq!(started(&mut connection, 8, 0), pid);
    // A grace too long for the clock is no crash.
    connection.send(&Message::Preempt { job: 8, attempt: 0, grace_s: 1e300 }).unwrap();
    assert_eq!(exited(&mut connection, 8, 0).2, ExitReason::Preempted);
}

#[test]
fn the_agent_reconnects_and_delivers_what_the_scheduler_missed() {
    let scheduler = Scheduler::new();
    let mut node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "2"]);
    let mut connection = scheduler.welcome_agent();
    launch(&mut connection, 1, 0, shell("sleep 0.3"), &["0"]);
    started(&mut connection, 1, 0);
    launch(&mut connection, 2, 0, shell("sleep 30"), &["1"]);
    let pid = started(&mut connection, 2, 0);
    // The scheduler goes away mid-job; job 1 ends while nobody listens.
    drop(connection);
    std::thread::sleep(Duration::from_millis(1500));
    let (mut connection, peer) = scheduler.accept();
    assert!(matches!(peer, Ok(Peer::Agent { .. })), "{peer:?}");
    connection.send(&Message::Welcome {}).unwrap();
    assert_eq!(exited(&mut connection, 1, 0).0, Some(0));
    assert_eq!(
        next(&mut connection),
        Message::Running { jobs: vec![blox::live::protocol::RunningJob { job: 2, attempt: 0, pid }] }
    );
    assert!(node.stderr().contains("lost the scheduler"), "{}", node.stderr());

    // Shutdown stops what still runs, reports it and exits.
    connection.send(&Message::Shutdown {}).unwrap();
    assert_eq!(exited(&mut connection, 2, 0).2, ExitReason::Preempted);
    assert!(node.wait().success(), "{}", node.stderr());
    assert!(group_gone(pid));
}

#[test]
fn sigterm_stops_the_agent_and_its_jobs() {
    let scheduler = Scheduler::new();
    let mut node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "1"]);
    let mut connection = scheduler.welcome_agent();
    launch(&mut connection, 1, 0, shell("sleep 30"), &["0"]);
    let pid = started(&mut connection, 1, 0);
    assert!(Command::new("kill").args(["-TERM", &node.child.id().to_string()]).status().unwrap().success());
    assert_eq!(exited(&mut connection, 1, 0).2, ExitReason::Preempted);
    assert!(node.wait().success(), "{}", node.stderr());
    assert!(group_gone(pid));
}

#[test]
fn an_agent_without_slots_is_refused() {
    // Locally, before it connects anywhere.
    for slots in [&[][..], &["--gpus", ""]] {
        let out = Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(["node", "--scheduler", "127.0.0.1:9"])
            .args(slots)
            .env("BLOX_TOKEN", TOKEN)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("offers no slot: give --gpus 0,1,... (its GPUs) or --cpu-slots N"), "{stderr}");
    }
    // And by the scheduler, whose checks a hello with no slot fails.
    let hello =
        format!(r#"{{"type":"hello","version":2,"role":"agent","nonce":"{}","node":"n","slots":[]}}"#, "0".repeat(64));
    let hello: Message = serde_json::from_str(&hello).unwrap();
    assert!(check_hello(&hello).unwrap_err().contains("node n: it offers no slot"));
}

#[test]
fn an_agent_offering_too_many_slots_or_a_bad_name_is_refused_locally() {
    for (args, message) in [
        (&["--cpu-slots", "4000000000"][..], "--cpu-slots 4000000000: a node offers at most 4096 slots"),
        (&["--gpus", "0,0"], "this node cannot be offered: it announces slot 0 twice"),
        (&["--gpus", "0", "--name", ""], "the node name is empty: give the node a name with --name"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_blox"))
            .args(["node", "--scheduler", "127.0.0.1:9"])
            .args(args)
            .env("BLOX_TOKEN", TOKEN)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

#[test]
fn an_over_long_line_from_the_scheduler_is_a_protocol_error() {
    let scheduler = Scheduler::new();
    let node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "1"]);
    let connection = scheduler.welcome_agent();
    let mut line = vec![b'x'; MAX_LINE + 100];
    line.push(b'\n');
    // The agent stops reading at the limit and closes, so the rest of the write may fail.
    let _ = connection.writer.stream().write_all(&line);
    // It drops that connection and comes back with a fresh hello.
    let (_connection, peer) = scheduler.accept();
    assert!(peer.is_ok(), "{peer:?}");
    let stderr = node.stderr();
    assert!(stderr.contains("protocol error: a line longer than 1048576 bytes"), "{stderr}");
}

#[test]
fn the_python_client_is_a_no_op_outside_blox() {
    if !python3() {
        return;
    }
    let out = Command::new("python3")
        .args(["-m", "unittest", "-q", "test_blox_client"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A fake scheduler (something answering at `--scheduler` without the token): one answering
/// as a version-1 scheduler did (welcome, then a launch), one sending a challenge with a
/// made-up proof (it cannot make the real one), each followed by a launch. The agent's hello
/// holds no secret, it proves nothing to either, runs nothing and exits saying why.
#[test]
fn a_fake_scheduler_learns_no_secret_and_cannot_make_the_agent_run_anything() {
    let challenge = Message::Challenge { nonce: "00".repeat(32), proof: "11".repeat(32) };
    for (answer, why) in [
        (Message::Welcome {}, "answered hello with welcome, not a challenge"),
        (challenge, "could not prove that it holds the same token"),
    ] {
        let scheduler = Scheduler::new();
        let mut node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "1"]);
        let mut stream = scheduler.connection();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut hello = String::new();
        reader.read_line(&mut hello).unwrap();
        assert!(hello.starts_with(r#"{"type":"hello","version":2,"role":"agent""#), "{hello}");
        assert!(!hello.contains(TOKEN) && !hello.contains(&Key::agent(TOKEN).to_hex()), "{hello}");
        let marker = node.dir.path().join("ran");
        let order = Message::Launch {
            job: 1,
            attempt: 0,
            argv: shell(&format!("touch {}", marker.display())),
            slots: vec!["0".into()],
            env: Default::default(),
            run: None,
        };
        let lines = [&answer, &order].map(|m| serde_json::to_string(m).unwrap() + "\n").concat();
        let _ = stream.write_all(lines.as_bytes());
        assert_eq!(node.wait().code(), Some(2));
        let mut after_hello = String::new();
        let _ = std::io::Read::read_to_string(&mut reader, &mut after_hello);
        assert_eq!(after_hello, "", "the agent sent nothing after its hello");
        assert!(!marker.exists(), "the fake scheduler's launch ran");
        let stderr = node.stderr();
        assert!(stderr.contains(&format!("cannot serve the scheduler at {}", scheduler.address)), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
    }
}

/// An agent that a scheduler once welcomed keeps its jobs when an impostor answers its
/// reconnection (a port taken while the scheduler restarts), and comes back to the real one.
#[test]
fn an_agent_once_welcomed_keeps_its_jobs_when_an_impostor_answers() {
    let scheduler = Scheduler::new();
    let node = Node::start(&scheduler.address, TOKEN, &["--cpu-slots", "1"]);
    let mut connection = scheduler.welcome_agent();
    launch(&mut connection, 1, 0, shell("sleep 30"), &["0"]);
    let pid = started(&mut connection, 1, 0);
    drop(connection);
    let mut impostor = Connection::new(scheduler.connection()).unwrap();
    let outcome = impostor.accept("an-impostor-without-the-token", PATIENCE);
    assert!(matches!(outcome, Err(Rejected::Gone(_))), "{outcome:?}");
    let (mut connection, peer) = scheduler.accept();
    assert!(peer.is_ok(), "{peer:?}");
    connection.send(&Message::Welcome {}).unwrap();
    let running = blox::live::protocol::RunningJob { job: 1, attempt: 0, pid };
    assert_eq!(next(&mut connection), Message::Running { jobs: vec![running] });
    let stderr = node.stderr();
    assert!(stderr.contains("could not prove that it holds the same token: a wrong token on one side"), "{stderr}");
}

/// Forwards connections to `upstream` and back, except the scheduler's `launch` lines, which
/// it replaces by what `tamper` makes of them. Returns its address.
fn man_in_the_middle(upstream: String, tamper: fn(&str) -> Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for agent in listener.incoming() {
            let (Ok(agent), Ok(scheduler)) = (agent, TcpStream::connect(&upstream)) else { return };
            let (mut from_agent, mut to_scheduler) = (agent.try_clone().unwrap(), scheduler.try_clone().unwrap());
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut from_agent, &mut to_scheduler);
                let _ = to_scheduler.shutdown(std::net::Shutdown::Both);
            });
            std::thread::spawn(move || {
                let mut to_agent = agent;
                for line in BufReader::new(scheduler).lines().map_while(Result::ok) {
                    let lines = if line.contains(r#""type":"launch""#) { tamper(&line) } else { vec![line] };
                    if lines.iter().any(|l| to_agent.write_all(format!("{l}\n").as_bytes()).is_err()) {
                        return;
                    }
                }
                let _ = to_agent.shutdown(std::net::Shutdown::Both);
            });
        }
    });
    address
}

/// The messages of `connection` until it ends.
fn drain(connection: &mut Connection) -> Vec<Message> {
    std::iter::from_fn(|| connection.recv().ok().flatten()).collect()
}

/// Between a real scheduler and its agent, a man in the middle changes a launch (another
/// command), or replays one (a launch of a finished attempt would run it again): the agent
/// does neither, drops the connection and comes back with a new one.
#[test]
fn a_man_in_the_middle_can_neither_change_nor_replay_a_launch() {
    let changed: fn(&str) -> Vec<String> = |line| vec![line.replace("echo ran", "echo pwn")];
    let replayed: fn(&str) -> Vec<String> = |line| vec![line.to_string(), line.to_string()];
    for (tamper, runs) in [(changed, 0), (replayed, 1)] {
        let scheduler = Scheduler::new();
        let relay = man_in_the_middle(scheduler.address.clone(), tamper);
        let node = Node::start(&relay, TOKEN, &["--cpu-slots", "1"]);
        let mut connection = scheduler.welcome_agent();
        let log = node.dir.path().join("log");
        launch(&mut connection, 1, 0, shell(&format!("echo ran >> {}", log.display())), &["0"]);
        let mut seen = drain(&mut connection);
        let (mut connection, peer) = scheduler.accept();
        assert!(peer.is_ok(), "{peer:?}");
        connection.send(&Message::Welcome {}).unwrap();
        loop {
            match next(&mut connection) {
                Message::Running { jobs } => break assert!(jobs.is_empty(), "{jobs:?}"),
                other => seen.push(other),
            }
        }
        let started = seen.iter().filter(|m| matches!(m, Message::Started { job: 1, .. })).count();
        let exited = seen.iter().filter(|m| matches!(m, Message::Exited { job: 1, code: Some(0), .. })).count();
        assert_eq!((started, exited), (runs, runs), "{seen:?}");
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        assert_eq!(log, "ran\n".repeat(runs));
        let stderr = node.stderr();
        assert!(stderr.contains("a message whose seal does not check out"), "{stderr}");
    }
}
