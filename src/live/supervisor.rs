//! The job processes of one node: start them in their own process groups, signal the groups,
//! reap every child, and say how each one ended.

use super::protocol::{Argv, ExitReason, Message, RunningJob};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The longest grace period honoured (a week): longer ones would overflow the clock.
const MAX_GRACE: Duration = Duration::from_secs(7 * 24 * 3600);

/// How much of a job's stderr an `exited` message carries.
const STDERR_TAIL: u64 = 4096;

/// A job process that has ended and been reaped.
pub struct Reaped {
    pub job: u64,
    pub attempt: u32,
    pub status: io::Result<ExitStatus>,
}

/// Called on a waiter thread when a job's process is reaped.
pub type Notify = Arc<dyn Fn(Reaped) + Send + Sync>;

struct Process {
    pid: u32,
    /// False once the process has exited: from then on its pid may be reused, so nothing may
    /// signal it. Set by the waiter thread while the exited process is still an unreaped zombie.
    alive: Arc<Mutex<bool>>,
    /// We sent SIGTERM.
    preempted: bool,
    /// We sent (or will send at this time) SIGKILL.
    kill_at: Option<Instant>,
    killed: bool,
    stderr: PathBuf,
}

impl Process {
    fn signal(&self, signal: libc::c_int) {
        let alive = self.alive.lock().unwrap_or_else(PoisonError::into_inner);
        if *alive {
            // SAFETY: kill has no memory effects; a negative pid addresses the job's process group.
            unsafe { libc::kill(-(self.pid as libc::pid_t), signal) };
        }
    }
}

/// The node's running job processes, keyed by (job, attempt).
pub struct Supervisor {
    work_dir: PathBuf,
    processes: HashMap<(u64, u32), Process>,
    notify: Notify,
}

impl Supervisor {
    pub fn new(work_dir: PathBuf, notify: Notify) -> Supervisor {
        Supervisor { work_dir, processes: HashMap::new(), notify }
    }

    /// Where a job keeps its checkpoints on this node; the same for all its attempts in a run.
    pub fn checkpoint_dir(&self, run: Option<&str>, job: u64) -> PathBuf {
        self.job_dir(run, job).join("checkpoint")
    }

    /// `<work-dir>/jobs/<job>`, or `<work-dir>/runs/<run>/jobs/<job>` for a run's attempt (the
    /// caller checked the name with `protocol::is_valid_run_name`).
    fn job_dir(&self, run: Option<&str>, job: u64) -> PathBuf {
        let base = match run {
            Some(run) => self.work_dir.join("runs").join(run),
            None => self.work_dir.clone(),
        };
        base.join("jobs").join(job.to_string())
    }

    /// Starts an attempt with `env` added to the agent's environment (less `BLOX_TOKEN`), stdout
    /// and stderr going to `attempt-<n>.{out,err}` in its job directory. Returns its pid, or why
    /// it could not start.
    pub fn launch(
        &mut self,
        job: u64,
        attempt: u32,
        run: Option<&str>,
        argv: &Argv,
        env: &[(String, String)],
    ) -> Result<u32, String> {
        let mut command = match argv {
            Argv::Exec(argv) => {
                let (program, args) = argv.split_first().ok_or("the launch's argv is empty")?;
                let mut command = Command::new(program);
                command.args(args);
                command
            }
            Argv::Shell(script) => {
                let mut command = Command::new("sh");
                command.arg("-c").arg(script);
                command
            }
        };
        let program = command.get_program().to_string_lossy().into_owned();
        let dir = self.job_dir(run, job);
        let checkpoint = self.checkpoint_dir(run, job);
        std::fs::create_dir_all(&checkpoint).map_err(|e| format!("cannot create {}: {e}", checkpoint.display()))?;
        let create = |ext: &str| {
            let path = dir.join(format!("attempt-{attempt}.{ext}"));
            File::create(&path).map(|f| (f, path.clone())).map_err(|e| format!("cannot create {}: {e}", path.display()))
        };
        let (stdout, _) = create("out")?;
        let (stderr, stderr_path) = create("err")?;
        // Its own process group, so that preemption reaches the children it starts (a shell, a
        // launcher's workers) and a Ctrl-C meant for the agent does not reach the job directly.
        // The agent's token (if it came from the environment) is not the job's: the job gets its
        // attempt's credential in `env`.
        command
            .env_remove("BLOX_TOKEN")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0);
        let mut child = command.spawn().map_err(|e| format!("cannot start `{program}`: {e}"))?;
        let pid = child.id();
        let alive = Arc::new(Mutex::new(true));
        let (waiter_alive, notify) = (alive.clone(), self.notify.clone());
        let spawned = std::thread::Builder::new().name(format!("job-{job}-{attempt}")).spawn(move || {
            wait_without_reaping(pid);
            {
                let mut alive = waiter_alive.lock().unwrap_or_else(PoisonError::into_inner);
                // The leader is a zombie, so its group id cannot be reused yet: kill whatever it
                // left behind in its group, which would otherwise hold the job's GPUs.
                // SAFETY: kill has no memory effects.
                unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
                *alive = false;
            }
            notify(Reaped { job, attempt, status: child.wait() });
        });
        if let Err(e) = spawned {
            // No waiter: stop the process now rather than leave it unsupervised.
            // SAFETY: kill has no memory effects; the child is not reaped, so the pid is its own.
            unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
            return Err(format!("cannot start a thread to wait for `{program}`: {e}"));
        }
        let process = Process { pid, alive, preempted: false, kill_at: None, killed: false, stderr: stderr_path };
        self.processes.insert((job, attempt), process);
        Ok(pid)
    }

    /// SIGTERM to the attempt's process group now, SIGKILL after `grace` unless it is gone by
    /// then. False if the attempt does not run here.
    pub fn preempt(&mut self, job: u64, attempt: u32, grace: Duration) -> bool {
        let Some(process) = self.processes.get_mut(&(job, attempt)) else { return false };
        if !process.preempted {
            process.preempted = true;
            process.signal(libc::SIGTERM);
        }
        let kill_at = Instant::now() + grace.min(MAX_GRACE);
        process.kill_at = Some(process.kill_at.map_or(kill_at, |at| at.min(kill_at)));
        self.kill_overdue(Instant::now());
        true
    }

    /// Preempts every job with the same grace (the agent's shutdown).
    pub fn preempt_all(&mut self, grace: Duration) {
        let keys: Vec<_> = self.processes.keys().copied().collect();
        for (job, attempt) in keys {
            self.preempt(job, attempt, grace);
        }
    }

    /// SIGKILL to every job at once.
    pub fn kill_all(&mut self) {
        self.preempt_all(Duration::ZERO);
    }

    /// Sends the SIGKILLs that are due.
    pub fn kill_overdue(&mut self, now: Instant) {
        for process in self.processes.values_mut() {
            if !process.killed && process.kill_at.is_some_and(|at| at <= now) {
                process.killed = true;
                process.signal(libc::SIGKILL);
            }
        }
    }

    /// When [`Supervisor::kill_overdue`] has something to do next.
    pub fn next_kill(&self) -> Option<Instant> {
        self.processes.values().filter(|p| !p.killed).filter_map(|p| p.kill_at).min()
    }

    /// Forgets a reaped attempt; its `exited` message.
    pub fn reaped(&mut self, reaped: Reaped) -> Message {
        let Reaped { job, attempt, status } = reaped;
        let process = self.processes.remove(&(job, attempt));
        let reason = match &process {
            Some(p) if p.killed => ExitReason::Killed,
            Some(p) if p.preempted => ExitReason::Preempted,
            _ => ExitReason::Exited,
        };
        let mut stderr_tail = process.map(|p| tail(&p.stderr)).unwrap_or_default();
        let (code, signal) = match status {
            Ok(status) => (status.code(), status.signal()),
            Err(e) => {
                stderr_tail += &format!("\n[blox node: cannot learn how the process ended: {e}]");
                (None, None)
            }
        };
        Message::Exited { job, attempt, code, signal, reason, stderr_tail }
    }

    /// The pid of an attempt running here.
    pub fn pid(&self, job: u64, attempt: u32) -> Option<u32> {
        self.processes.get(&(job, attempt)).map(|p| p.pid)
    }

    pub fn running(&self) -> Vec<RunningJob> {
        let mut jobs: Vec<_> =
            self.processes.iter().map(|(&(job, attempt), p)| RunningJob { job, attempt, pid: p.pid }).collect();
        jobs.sort_by_key(|j| (j.job, j.attempt));
        jobs
    }

    pub fn is_empty(&self) -> bool {
        self.processes.is_empty()
    }
}

/// Blocks until process `pid` (our child) has exited, leaving it a zombie (not reaped).
fn wait_without_reaping(pid: u32) {
    loop {
        // SAFETY: siginfo_t is plain data that waitid fills in.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: `info` is a valid siginfo_t for the call's duration.
        let done = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if done == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// The last [`STDERR_TAIL`] bytes of a file, as lossy UTF-8.
fn tail(path: &Path) -> String {
    let read = || -> io::Result<Vec<u8>> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(STDERR_TAIL)))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    match read() {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("[blox node: cannot read {}: {e}]", path.display()),
    }
}
