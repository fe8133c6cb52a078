//! Live mode end to end on this machine: `blox run` as the scheduler and `blox node` agents as
//! separate processes on localhost (CPU slots), real training processes (the Python example,
//! which reports iterations through the client library and checkpoints when asked to stop),
//! under FIFO and LAS; then the same spec simulated, and the two compared.

use blox::results::{AttemptRow, read_attempts, read_jobs, read_runs};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub(crate) const BLOX: &str = env!("CARGO_BIN_EXE_blox");
pub(crate) const TOKEN: &str = "live-test-token-of-the-cluster";

/// The live tests run one at a time: each is a cluster of busy processes on a 2-core machine,
/// and the comparison with the simulation measures how long real processes take.
static ONE_CLUSTER_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub(crate) fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    ONE_CLUSTER_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The example job is Python; like tests/live_agent.rs, these tests say so and pass without it.
pub(crate) fn python3() -> bool {
    let found = Command::new("python3").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: no python3 on this machine");
    }
    found
}

/// Seconds of work per job, 1 or 2 GPUs, arrivals over the first seconds: enough contention on
/// 3 x 2 slots that LAS preempts.
fn trace(jobs: usize) -> String {
    let mut csv = String::from("job_id,arrival_s,gpus,duration_s\n");
    for i in 0..jobs {
        let arrival = (i as f64 * 0.45).floor();
        let gpus = if i % 5 == 2 { 2 } else { 1 };
        let duration = 2 + (i * 7) % 5;
        csv.push_str(&format!("{i},{arrival},{gpus},{duration}\n"));
    }
    csv
}

/// The live spec, or its simulation with `overhead` seconds lost at every (re)launch.
fn spec(name: &str, mode: &str, nodes: u32, overhead: f64) -> String {
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    let live = if mode == "live" {
        format!(
            "  live:
    listen: 127.0.0.1:0
    token_file: token
    command: [python3, {}, --iterations, '{{iterations}}', --report-every, '1', --ms-per-iteration, '100']
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
",
            train.display()
        )
    } else {
        format!("  overhead: {{fixed: {{first_launch_s: {overhead}, resume_s: {overhead}}}}}\n")
    };
    format!(
        "name: {name}
engine:
  mode: {mode}
  round_s: 1
{live}policies:
  - {{label: FIFO, scheduler: fifo, placement: consolidated}}
  - {{label: LAS, scheduler: las, placement: consolidated}}
clusters:
  - {{nodes: {nodes}, gpus_per_node: 2}}
workloads:
  - csv: {{path: trace.csv}}
measure:
  track: all
"
    )
}

/// A test directory with the token, the trace and the two specs.
fn setup(jobs: usize, nodes: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.path().join("trace.csv"), trace(jobs)).unwrap();
    std::fs::write(dir.path().join("live.yaml"), spec("live", "live", nodes, 0.0)).unwrap();
    dir
}

/// Kills a child process when dropped, so a failing test leaves nothing running.
pub(crate) struct Guard(pub(crate) Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Guard {
    /// Waits for the process to exit within `limit`; its status code.
    pub(crate) fn wait(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status.code();
            }
            assert!(Instant::now() < deadline, "a process did not exit within {limit:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

pub(crate) fn start_scheduler(dir: &Path) -> Guard {
    Guard(
        Command::new(BLOX)
            .args(["run", "live.yaml", "--out", "out", "--quiet"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("scheduler.err")).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// Waits for the scheduler to say where it listens.
pub(crate) fn scheduler_address(dir: &Path) -> String {
    let file = dir.join("out/live/live-address");
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(text) = std::fs::read_to_string(&file)
            && !text.trim().is_empty()
        {
            return text.trim().to_string();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no live-address: {}", std::fs::read_to_string(dir.join("scheduler.err")).unwrap_or_default());
}

pub(crate) fn start_agent(dir: &Path, address: &str, name: &str, work_dir: &str) -> Guard {
    start_agent_with_slots(dir, address, name, work_dir, 2)
}

/// [`start_agent`] with `slots` CPU slots.
pub(crate) fn start_agent_with_slots(dir: &Path, address: &str, name: &str, work_dir: &str, slots: u32) -> Guard {
    Guard(
        Command::new(BLOX)
            .args(["node", "--scheduler", address, "--cpu-slots", &slots.to_string(), "--name", name])
            .args(["--token-file", "token"])
            .args(["--work-dir", work_dir])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join(format!("{name}.err"))).unwrap())
            .spawn()
            .unwrap(),
    )
}

pub(crate) fn wait_for(scheduler: &mut Guard, dir: &Path, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = scheduler.0.try_wait().unwrap() {
            let log = std::fs::read_to_string(dir.join("scheduler.err")).unwrap_or_default();
            assert!(status.success(), "blox run failed: {status}\n{log}");
            return;
        }
        assert!(Instant::now() < deadline, "the live sweep did not end within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Simulates the live spec as `name`, losing `overhead` seconds at every (re)launch.
fn simulate(dir: &Path, name: &str, overhead: f64) -> BTreeMap<String, (f64, usize)> {
    std::fs::write(dir.join(format!("{name}.yaml")), spec(name, "rounds", 3, overhead)).unwrap();
    let out = Command::new(BLOX)
        .args(["run", &format!("{name}.yaml"), "--out", "out", "--quiet"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    average_jct(&dir.join("out").join(name))
}

/// Average JCT per policy label, over finished jobs.
pub(crate) fn average_jct(experiment: &Path) -> BTreeMap<String, (f64, usize)> {
    let mut averages = BTreeMap::new();
    for run in read_runs(experiment).unwrap() {
        let jobs = read_jobs(experiment, &run.info.run_key).unwrap();
        let jcts: Vec<f64> = jobs.iter().filter_map(|j| Some(j.finish? - j.arrival)).collect();
        averages.insert(run.info.label.clone(), (jcts.iter().sum::<f64>() / jcts.len() as f64, jcts.len()));
    }
    averages
}

/// No two attempts held a slot at the same time, by the scheduler's clock: an attempt is sent
/// only after the previous one on its slots has exited.
pub(crate) fn assert_no_slot_shared(attempts: &[AttemptRow]) {
    // (node, slot) -> (started, ended, job) of each attempt there.
    type Spans = BTreeMap<(String, String), Vec<(f64, f64, u64)>>;
    let mut by_slot = Spans::new();
    for a in attempts {
        let Some(started) = a.started else { continue };
        let ended = a.ended.unwrap_or(f64::INFINITY);
        for slot in a.slots.split(',') {
            by_slot.entry((a.node.clone(), slot.to_string())).or_default().push((started, ended, a.job_id));
        }
    }
    for ((node, slot), mut spans) in by_slot {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in spans.windows(2) {
            assert!(
                pair[0].1 <= pair[1].0,
                "slot {slot} of {node}: job {} ({:.2}-{:.2} s) overlaps job {} from {:.2} s",
                pair[0].2,
                pair[0].0,
                pair[0].1,
                pair[1].2,
                pair[1].0
            );
        }
    }
}

fn checkpoint_resumed(work_dir: &Path, attempt: &AttemptRow) -> bool {
    let Ok(runs) = std::fs::read_dir(work_dir.join("runs")) else { return false };
    runs.flatten().any(|run| {
        let out =
            run.path().join("jobs").join(attempt.job_id.to_string()).join(format!("attempt-{}.out", attempt.attempt));
        std::fs::read_to_string(out).is_ok_and(|text| text.contains("resumed from iteration"))
    })
}

#[test]
fn fifo_and_las_run_on_three_agents_and_agree_with_their_simulation() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let jobs = 24;
    let dir = setup(jobs, 3);
    let mut scheduler = start_scheduler(dir.path());
    let address = scheduler_address(dir.path());
    let _agents: Vec<Guard> = (0..3).map(|i| start_agent(dir.path(), &address, &format!("node{i}"), "work")).collect();
    wait_for(&mut scheduler, dir.path(), Duration::from_secs(240));

    let experiment = dir.path().join("out/live");
    let runs = read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 2);
    let mut preempted = 0;
    let mut launch_overheads = Vec::new();
    for run in &runs {
        let key = &run.info.run_key;
        let records = read_jobs(&experiment, key).unwrap();
        assert_eq!(records.len(), jobs, "{}", run.info.label);
        assert!(records.iter().all(|r| r.finish.is_some()), "{}: every job finished", run.info.label);
        let attempts = read_attempts(&experiment, key).unwrap();
        assert_no_slot_shared(&attempts);
        for record in &records {
            let own: Vec<&AttemptRow> = attempts.iter().filter(|a| a.job_id == record.id).collect();
            assert_eq!(own.last().map(|a| a.end.as_str()), Some("finished"), "job {}: {own:?}", record.id);
            assert_eq!(own.len() as u32, record.preemptions + 1, "job {}: one attempt per launch", record.id);
            assert_eq!(own.last().unwrap().iterations_after, (record.work * 10.0) as u64, "job {}: {own:?}", record.id);
        }
        // A preempted attempt that had reported progress is resumed from its checkpoint (the
        // agents share a work directory, as nodes on a shared file system do) by the next
        // attempt that got as far as reporting.
        let reported = attempts.iter().filter(|a| a.first_progress.is_some());
        let reported: Vec<&AttemptRow> = reported.collect();
        for pair in reported.windows(2).filter(|p| p[0].job_id == p[1].job_id && p[0].iterations_after > 0) {
            preempted += 1;
            assert!(checkpoint_resumed(&dir.path().join("work"), pair[1]), "{:?} resumed", pair[1]);
        }
        assert!(attempts.iter().all(|a| a.launch_overhead().is_none_or(|o| o >= 0.0)));
        // Launch to first report (waiting for the slots, process start, resume), less the one
        // iteration (0.1 s) the report follows.
        launch_overheads.extend(attempts.iter().filter_map(|a| Some(a.launch_overhead()? - 0.1)));
    }
    assert!(preempted > 0, "LAS preempted some job that had made progress");

    // Live against simulated. Uncalibrated, a live job ends later than its simulation by its
    // start-up (process and interpreter) and, since its end is seen at the next round, by up to
    // a round more; queued jobs inherit the delay. Calibrated with the measured median launch
    // overhead (the simulator's `fixed` overhead model, at every launch and resume: the mean,
    // as average JCTs are compared), the simulation must agree with the live run within 1.5
    // rounds plus 15 % of the average JCT.
    let overhead = (launch_overheads.iter().sum::<f64>() / launch_overheads.len() as f64).max(0.0);
    let live = average_jct(&experiment);
    let uncalibrated = simulate(dir.path(), "simulated", 0.0);
    let calibrated = simulate(dir.path(), "calibrated", (overhead * 100.0).round() / 100.0);
    for (label, (live_jct, finished)) in &live {
        let (sim_jct, sim_finished) = calibrated[label];
        assert_eq!(*finished, sim_finished, "{label}");
        eprintln!(
            "{label}: live average JCT {live_jct:.2} s; simulated {:.2} s, calibrated with {overhead:.2} s per launch {sim_jct:.2} s",
            uncalibrated[label].0
        );
        assert!(
            (live_jct - sim_jct).abs() <= 1.5 + 0.15 * sim_jct,
            "{label}: live average JCT {live_jct:.2} s vs calibrated simulation {sim_jct:.2} s"
        );
    }

    // The same comparison as a user makes it: the simulation beside the live run, job by job.
    let out =
        Command::new(BLOX).args(["compare", "out/calibrated", "out/live"]).current_dir(dir.path()).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(report.contains("2 pairs of runs of the same grid point"), "{report}");
    let summary = std::fs::read_to_string(dir.path().join("out/calibrated/compare-live/summary.csv")).unwrap();
    assert_eq!(summary.lines().count(), 3, "{summary}");
}

/// An agent killed with SIGKILL mid-run: its node leaves the cluster, its jobs are interrupted
/// and run elsewhere, and when an agent of that name comes back its node is used again; every
/// job still finishes and no slot is ever shared.
#[test]
fn a_killed_agent_takes_its_node_out_and_its_jobs_run_elsewhere() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let jobs = 10;
    let dir = setup(jobs, 2);
    let spec = std::fs::read_to_string(dir.path().join("live.yaml")).unwrap();
    // One policy is enough here.
    let spec = spec.replace("  - {label: LAS, scheduler: las, placement: consolidated}\n", "");
    std::fs::write(dir.path().join("live.yaml"), spec).unwrap();
    let mut scheduler = start_scheduler(dir.path());
    let address = scheduler_address(dir.path());
    let node0 = start_agent(dir.path(), &address, "node0", "work");
    let mut node1 = start_agent(dir.path(), &address, "node1", "work");
    // Jobs 0-3 start at once on the 2 x 2 slots; kill node1's agent while they run.
    std::thread::sleep(Duration::from_secs(3));
    node1.0.kill().unwrap();
    node1.0.wait().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let _node1_again = start_agent(dir.path(), &address, "node1", "work");
    wait_for(&mut scheduler, dir.path(), Duration::from_secs(180));
    drop(node0);

    let experiment = dir.path().join("out/live");
    let runs = read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 1);
    let key = &runs[0].info.run_key;
    let records = read_jobs(&experiment, key).unwrap();
    assert_eq!(records.len(), jobs);
    assert!(records.iter().all(|r| r.finish.is_some()), "{records:?}");
    let attempts = read_attempts(&experiment, key).unwrap();
    assert_no_slot_shared(&attempts);
    let lost: Vec<&AttemptRow> = attempts.iter().filter(|a| a.end == "lost").collect();
    assert!(!lost.is_empty() && lost.iter().all(|a| a.node == "node1"), "{attempts:?}");
    for a in &lost {
        let next = attempts.iter().find(|b| b.job_id == a.job_id && b.attempt > a.attempt);
        assert!(next.is_some_and(|b| b.end == "finished"), "job {} ran again after its node was lost", a.job_id);
        let record = records.iter().find(|r| r.id == a.job_id).unwrap();
        assert!(record.preemptions >= 1, "a lost attempt counts as a preemption");
    }
    assert!(
        attempts.iter().any(|a| a.node == "node1" && a.launched > lost[0].ended.unwrap()),
        "node1 was used again after its agent came back: {attempts:?}"
    );
}

/// A job that crashes and one whose program does not exist are recorded with why, and do not
/// stop the experiment; an agent with a wrong token finds that the scheduler cannot prove it
/// holds the agent's token, and exits with status 2.
#[test]
fn failing_jobs_are_recorded_and_a_wrong_token_is_refused() {
    let _cluster = exclusive();
    let dir = setup(4, 1);
    let spec = std::fs::read_to_string(dir.path().join("live.yaml")).unwrap();
    let start = spec.find("    command:").unwrap();
    let end = start + spec[start..].find('\n').unwrap() + 1;
    let command = "    command: 'if [ {job} = 1 ]; then echo boom >&2; exit 3; fi; if [ {job} = 2 ]; then exec /nonexistent/program; fi; sleep 1'\n";
    let spec = format!("{}{command}{}", &spec[..start], &spec[end..])
        .replace("  - {label: LAS, scheduler: las, placement: consolidated}\n", "");
    std::fs::write(dir.path().join("live.yaml"), spec).unwrap();
    std::fs::write(dir.path().join("wrong-token"), "not-the-token-of-the-cluster\n").unwrap();
    let mut scheduler = start_scheduler(dir.path());
    let address = scheduler_address(dir.path());

    let refused = Command::new(BLOX)
        .args([
            "node",
            "--scheduler",
            &address,
            "--cpu-slots",
            "2",
            "--name",
            "intruder",
            "--token-file",
            "wrong-token",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("could not prove that it holds the same token: a wrong token on one side"), "{stderr}");

    let _agent = start_agent(dir.path(), &address, "node0", "work");
    wait_for(&mut scheduler, dir.path(), Duration::from_secs(120));
    let experiment = dir.path().join("out/live");
    let key = read_runs(&experiment).unwrap()[0].info.run_key.clone();
    let records = read_jobs(&experiment, &key).unwrap();
    let finished: Vec<u64> = records.iter().filter(|r| r.finish.is_some()).map(|r| r.id).collect();
    assert_eq!(finished, [0, 3]);
    let attempts = read_attempts(&experiment, &key).unwrap();
    let crashed = attempts.iter().find(|a| a.job_id == 1).unwrap();
    assert_eq!((crashed.end.as_str(), crashed.exit_code), ("failed", Some(3)));
    assert!(crashed.stderr_tail.contains("boom"), "{crashed:?}");
    let missing = attempts.iter().find(|a| a.job_id == 2).unwrap();
    assert_eq!((missing.end.as_str(), missing.exit_code), ("failed", Some(127)));
    assert!(missing.stderr_tail.contains("/nonexistent/program"), "{missing:?}");
    let log = std::fs::read_to_string(dir.path().join("scheduler.err")).unwrap();
    assert!(log.contains("job 1 attempt 0 failed"), "{log}");
}

/// The scheduler killed with SIGKILL in the middle of a sweep and started again: the agents
/// connect again by themselves, what they still run of the dead scheduler's attempts is killed
/// before their nodes are used, the runs already complete are kept and the interrupted one is
/// done again from the start.
#[test]
fn a_restarted_scheduler_keeps_complete_runs_and_redoes_the_interrupted_one() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let jobs = 6;
    let dir = setup(jobs, 2);
    // A fixed port, so that the agents find the restarted scheduler where the first one was.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let spec = std::fs::read_to_string(dir.path().join("live.yaml")).unwrap();
    std::fs::write(dir.path().join("live.yaml"), spec.replace("127.0.0.1:0", &format!("127.0.0.1:{port}"))).unwrap();
    let mut scheduler = start_scheduler(dir.path());
    let address = scheduler_address(dir.path());
    let _agents: Vec<Guard> = (0..2).map(|i| start_agent(dir.path(), &address, &format!("node{i}"), "work")).collect();
    // The first run (FIFO: 6 jobs of 2-6 s on 4 slots) is complete after about 10 s; the LAS
    // run is under way a few seconds later.
    let experiment = dir.path().join("out/live");
    let deadline = Instant::now() + Duration::from_secs(120);
    while read_runs(&experiment).map_or(0, |runs| runs.len()) < 1 {
        assert!(Instant::now() < deadline, "the first run did not complete");
        std::thread::sleep(Duration::from_millis(100));
    }
    let first = read_runs(&experiment).unwrap().remove(0);
    std::thread::sleep(Duration::from_secs(3));
    scheduler.0.kill().unwrap();
    scheduler.0.wait().unwrap();
    std::fs::remove_file(experiment.join("live-address")).unwrap();

    let mut restarted = start_scheduler(dir.path());
    wait_for(&mut restarted, dir.path(), Duration::from_secs(180));
    let runs = read_runs(&experiment).unwrap();
    assert_eq!(runs.len(), 2);
    let kept = runs.iter().find(|r| r.info.run_key == first.info.run_key).unwrap();
    assert_eq!(kept.wall_time_s, first.wall_time_s, "the complete run was kept, not redone");
    let redone = runs.iter().find(|r| r.info.run_key != first.info.run_key).unwrap();
    let records = read_jobs(&experiment, &redone.info.run_key).unwrap();
    assert_eq!(records.len(), jobs);
    assert!(records.iter().all(|r| r.finish.is_some()), "{records:?}");
    let attempts = read_attempts(&experiment, &redone.info.run_key).unwrap();
    assert_no_slot_shared(&attempts);
    // Each job started afresh: its first attempt of the redone run did not resume.
    for record in &records {
        let first_attempt = attempts.iter().find(|a| a.job_id == record.id).unwrap();
        assert!(!checkpoint_resumed(&dir.path().join("work"), first_attempt), "{first_attempt:?}");
    }
}

/// A job wider than a node runs as a gang on the agents: one process per node, started
/// together with the variables torch.distributed reads, the first reporting for the job; the
/// job finishes as one attempt on both nodes.
#[test]
fn a_job_on_two_nodes_runs_as_a_gang_on_the_agents() {
    if !python3() {
        return;
    }
    let _cluster = exclusive();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), format!("{TOKEN}\n")).unwrap();
    std::fs::write(dir.path().join("trace.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,4,2\n1,0,1,1\n").unwrap();
    let train = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python/examples/train.py");
    let spec = format!(
        "name: live
engine:
  mode: live
  round_s: 1
  live:
    listen: 127.0.0.1:0
    token_file: token
    command: >-
      env | grep -E '^(MASTER_ADDR|MASTER_PORT|WORLD_SIZE|NNODES|NODE_RANK|RANK|LOCAL_RANK)=' | sort
      > job{{job}}-rank$NODE_RANK.env; exec python3 {} --iterations {{iterations}} --ms-per-iteration 100
    iterations_per_s: 10
    grace_s: 5
    wait_for_nodes_s: 60
policies:
  - {{label: FIFO, scheduler: fifo, placement: consolidated}}
clusters:
  - {{nodes: 3, gpus_per_node: 2}}
workloads:
  - csv: {{path: trace.csv}}
measure:
  track: all
",
        train.display()
    );
    std::fs::write(dir.path().join("live.yaml"), spec).unwrap();
    let mut scheduler = start_scheduler(dir.path());
    let address = scheduler_address(dir.path());
    let _agents: Vec<Guard> = (0..3).map(|i| start_agent(dir.path(), &address, &format!("node{i}"), "work")).collect();
    wait_for(&mut scheduler, dir.path(), Duration::from_secs(120));

    let experiment = dir.path().join("out/live");
    let run = &read_runs(&experiment).unwrap()[0];
    let records = read_jobs(&experiment, &run.info.run_key).unwrap();
    assert!(records.iter().all(|r| r.finish.is_some()), "{records:?}");
    let attempts = read_attempts(&experiment, &run.info.run_key).unwrap();
    let gang: Vec<&AttemptRow> = attempts.iter().filter(|a| a.job_id == 0).collect();
    assert_eq!(gang.len(), 1, "{attempts:?}");
    assert_eq!((gang[0].node.as_str(), gang[0].slots.as_str()), ("node0,node1", "0,1;0,1"), "{gang:?}");
    assert_eq!((gang[0].end.as_str(), gang[0].iterations_after), ("finished", 20), "{gang:?}");
    for rank in 0..2 {
        let env = std::fs::read_to_string(dir.path().join(format!("job0-rank{rank}.env"))).unwrap();
        let expected = format!(
            "LOCAL_RANK=0\nMASTER_ADDR=127.0.0.1\nMASTER_PORT=29500\nNNODES=2\nNODE_RANK={rank}\nRANK={rank}\nWORLD_SIZE=2\n"
        );
        assert_eq!(env, expected, "rank {rank}");
    }
    // A job on one node gets none of them.
    let single = std::fs::read_to_string(dir.path().join("job1-rank.env")).unwrap();
    assert_eq!(single, "", "{single}");
}
