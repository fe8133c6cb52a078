//! `external`: a scheduler written in any language, run as a separate program.
//!
//! Rule: whatever order the program answers. blox starts `command` once per run (in the spec
//! file's directory), tells it the run's parameters, then at every round sends the active jobs in
//! one line and reads the order back in one line; the placement, admission and overheads stay
//! blox's. The messages (JSON lines, versioned) are specified in `docs/external-policy.md`; a
//! program that crashes, hangs past `timeout_s`, answers something that is not JSON or not a
//! permutation of the active jobs fails its run with what was wrong and the program's last
//! stderr lines, and the sweep's other runs go on.
//!
//! The program is untrusted in what it sends and how fast it reads: every wait (writing a
//! decision into its stdin, reading the answer) ends at `timeout_s` and when the run is stopped
//! (Ctrl-C, `--run-timeout`), lines are bounded on stdout and stderr, and the program runs in a
//! process group of its own that ends with the run (end of input, then SIGTERM, then SIGKILL), so
//! helpers it started cannot outlive it.
//! Source: blox's own protocol; `examples/python/las.py` reproduces the built-in `las` with it.

use crate::core::{ClusterSpec, JobSlot, JobTable, PolicyError, Scheduler, SimTime, StopFlag};
use crate::policies::{
    BuildContext, Built, Engine, InputSource, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, PolicyInput, Positive,
    parse_options,
};
use serde::Deserialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The protocol version this blox speaks; a program must answer the greeting with it.
pub const PROTOCOL_VERSION: u32 = 1;

/// The job fields of a decision message, in the order each job's array lists them.
pub const JOB_FIELDS: [&str; 9] =
    ["id", "gpus", "submitted", "work", "executed_work", "attained_service", "running", "promoted", "preemptions"];

/// The longest line a program may answer the greeting with, and the base of an order's bound:
/// 1 MiB, as live mode bounds its lines.
pub const MAX_LINE: usize = 1 << 20;
/// Bytes an order may spend per active job beyond [`MAX_LINE`]: an id has at most 20 digits,
/// then a comma and a space, with room to spare.
pub const LINE_BYTES_PER_JOB: usize = 24;
/// Lines of the program's stderr kept for error messages.
const STDERR_LINES: usize = 20;
/// The longest stderr line kept; the rest of a longer line is read and dropped.
pub const STDERR_LINE_BYTES: usize = 1000;
/// How often a wait for the program looks at the run's stop flag.
const STOP_CHECK: Duration = Duration::from_millis(50);
/// How long the program has to exit after its input ends, and its process group after SIGTERM.
const END_GRACE: Duration = Duration::from_secs(1);

pub const INFO: PolicyInfo = PolicyInfo {
    name: "external",
    kind: Kind::Scheduler,
    engine: Engine::Rounds,
    summary: "the order a program of your own answers, over blox's JSON-lines protocol (docs/external-policy.md)",
    options: &[
        OptionDoc {
            name: "command",
            example: "[python3, examples/python/las.py]",
            meaning: "the program and its arguments, run in the spec file's directory",
        },
        OptionDoc {
            name: "timeout_s",
            example: "30",
            meaning: "longest wait for one exchange (sending a decision, reading its answer) before the run fails \
                      (default 30)",
        },
        OptionDoc {
            name: "inputs",
            example: "[lib/, weights.json]",
            meaning: "files and directories the program reads besides the command's own files (modules it \
                      imports, data); their contents join the run key, so editing them reruns",
        },
    ],
    source: "blox (docs/external-policy.md)",
    placement: None,
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub command: ProgramCommand,
    #[serde(default = "default_timeout")]
    pub timeout_s: Positive,
    /// Files and directories (relative to the spec file's directory) the program reads besides
    /// the command's own files.
    #[serde(default)]
    pub inputs: Vec<PathBuf>,
}

/// A non-empty argument vector.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramCommand(pub Vec<String>);

impl<'de> Deserialize<'de> for ProgramCommand {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let args = Vec::<String>::deserialize(d)?;
        if args.first().is_none_or(|program| program.trim().is_empty()) {
            return Err(serde::de::Error::custom("`command` needs a program: e.g. [python3, my_policy.py]"));
        }
        Ok(ProgramCommand(args))
    }
}

fn default_timeout() -> Positive {
    Positive(30.0)
}

impl PolicyConfig for Options {
    fn params(&self) -> Params {
        let Options { command, timeout_s, inputs } = self;
        let inputs: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        Params::from([
            ("command", command.0.clone().into()),
            ("timeout_s", timeout_s.0.into()),
            ("inputs", inputs.into()),
        ])
    }

    /// What decides the program's answers besides its messages: the command's arguments that
    /// name files (the script) and the declared `inputs`. Run keys hash their contents; blox
    /// never reads them itself. A module the script imports is not among them unless declared.
    fn inputs(&self) -> Vec<PolicyInput> {
        let argument = |arg: &String| PolicyInput {
            what: "program file",
            source: InputSource::Path(arg.into()),
            parse: None,
            only_if_a_file: true,
        };
        let declared = self.inputs.iter().filter(|path| !self.command.0.iter().any(|arg| Path::new(arg) == *path));
        let declared = declared.map(|path| PolicyInput {
            what: "program input",
            source: InputSource::Path(path.clone()),
            parse: None,
            only_if_a_file: false,
        });
        self.command.0.iter().map(argument).chain(declared).collect()
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Order(Box::new(External {
            command: self.command.0.clone(),
            // A spec named without a directory has an empty base, which is the working directory.
            dir: if ctx.base_dir.as_os_str().is_empty() { PathBuf::from(".") } else { ctx.base_dir.to_path_buf() },
            greeting: greeting(ctx.round_seconds, ctx.cluster),
            timeout: Duration::from_secs_f64(self.timeout_s.0.min(1e6)),
            stop: StopFlag::new(),
            program: None,
            line: Vec::new(),
            slots: HashMap::new(),
            listed: HashSet::new(),
        })))
    }
}

/// The first line blox sends: the protocol, the job fields and the run's fixed parameters.
fn greeting(round_seconds: f64, cluster: &ClusterSpec) -> Vec<u8> {
    let gpus_per_node: Vec<u32> = cluster.nodes.iter().map(|n| n.gpus).collect();
    let message = serde_json::json!({
        "blox_policy": PROTOCOL_VERSION,
        "kind": "scheduler",
        "job_fields": JOB_FIELDS,
        "round_s": round_seconds,
        "total_gpus": cluster.total_gpus(),
        "gpus_per_node": gpus_per_node,
    });
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

pub struct External {
    command: Vec<String>,
    dir: PathBuf,
    greeting: Vec<u8>,
    timeout: Duration,
    /// The run's stop flag: a wait for the program ends when it is raised.
    stop: StopFlag,
    /// Started at the first decision, so that building a run's policies starts no process.
    program: Option<Program>,
    /// The decision message, reused between rounds.
    line: Vec<u8>,
    /// Job id to slot, and the ids the answer listed, for the answer's check (reused).
    slots: HashMap<u64, JobSlot>,
    listed: HashSet<u64>,
}

/// The running program: its stdin and stdout (non-blocking, so that every wait can end at the
/// deadline or the stop), what it wrote past its last answer, and the tail of its stderr (read
/// by a thread, so that a program logging a lot never blocks on it).
struct Program {
    child: Child,
    /// The program's process group: its own pid, as it leads a group of its own.
    group: libc::pid_t,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    /// Bytes read from stdout after the last answer's line.
    unread: Vec<u8>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    /// Disconnected when the stderr reader has read to the end.
    stderr_read: Receiver<()>,
}

/// Why an exchange with the program did not give a line.
enum ExchangeFault {
    /// Writing failed: it closed its input (or exited).
    Write(io::Error),
    /// The deadline passed before it read the whole message.
    NotRead,
    /// The deadline passed before a whole line came back.
    NoAnswer,
    /// Its stdout ended before a whole line.
    Ended,
    /// A line longer than the bound, which is given.
    TooLong(usize),
    Read(io::Error),
    NotUtf8,
    /// The run was stopped (Ctrl-C, `--run-timeout`).
    Stopped,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Hello {
    blox_policy: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    order: Vec<u64>,
}

impl External {
    fn start(&mut self) -> Result<&mut Program, PolicyError> {
        if self.program.is_none() {
            let program = Program::spawn(&self.command, &self.dir)?;
            self.program = Some(program);
            let greeting = std::mem::take(&mut self.greeting);
            let answer = self.exchange(&greeting, "the greeting", MAX_LINE);
            self.greeting = greeting;
            let answer = answer?;
            let hello: Hello = serde_json::from_str(&answer)
                .map_err(|e| self.fault(&format!("answered the greeting with `{}`: {e}", shorten(&answer))))?;
            if hello.blox_policy != PROTOCOL_VERSION {
                return Err(self.fault(&format!(
                    "speaks protocol version {}; this blox speaks {PROTOCOL_VERSION}",
                    hello.blox_policy
                )));
            }
        }
        Ok(self.program.as_mut().expect("started above"))
    }

    /// Sends `message` (one line) and waits for one line back of at most `limit` bytes, all
    /// within `timeout_s` and only while the run is not stopped.
    fn exchange(&mut self, message: &[u8], what: &str, limit: usize) -> Result<String, PolicyError> {
        let deadline = Instant::now() + self.timeout;
        let program = self.program.as_mut().expect("a started program");
        let fault = match program.exchange(message, limit, deadline, &self.stop) {
            Ok(line) => return Ok(line),
            Err(fault) => fault,
        };
        let seconds = self.timeout.as_secs_f64();
        Err(self.fault(&match fault {
            ExchangeFault::Write(e) => format!("stopped reading its input ({e})"),
            ExchangeFault::NotRead => format!("did not read {what} within {seconds} s (`timeout_s`)"),
            ExchangeFault::NoAnswer => format!("did not answer {what} within {seconds} s (`timeout_s`)"),
            ExchangeFault::Ended => format!("ended without answering {what}"),
            ExchangeFault::TooLong(limit) => {
                format!("answered {what} with a line longer than {limit} bytes, the most an answer may take")
            }
            ExchangeFault::Read(e) => format!("its output could not be read ({e})"),
            ExchangeFault::NotUtf8 => format!("answered {what} with a line that is not UTF-8"),
            ExchangeFault::Stopped => format!("was ended waiting for its answer to {what}: the run was stopped"),
        }))
    }

    /// An error naming the program, what went wrong, how it ended and its last stderr lines.
    fn fault(&mut self, what: &str) -> PolicyError {
        let mut message = format!("external policy `{}` {what}", self.command.join(" "));
        if let Some(program) = &mut self.program {
            if let Some(status) = program.exit_status(Duration::from_millis(200)) {
                message += &format!("; it exited with {status}");
                // What it wrote last may still be in the pipe.
                let _ = program.stderr_read.recv_timeout(Duration::from_millis(200));
            }
            let stderr =
                program.stderr.lock().map(|lines| lines.iter().cloned().collect::<Vec<_>>()).unwrap_or_default();
            if !stderr.is_empty() {
                message += &format!("; its stderr ends with:\n  {}", stderr.join("\n  "));
            }
        }
        PolicyError(message)
    }
}

/// The process groups of the programs running now, so that a sweep ended at once (a second
/// Ctrl-C) can end them too.
static RUNNING_GROUPS: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Kills the process group of every external policy program still running (SIGKILL): the
/// process is about to exit without ending its runs.
pub fn kill_all_programs() {
    let groups = RUNNING_GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &group in groups.iter() {
        signal_group(group, libc::SIGKILL);
    }
}

/// Sends `signal` to every process of `group`; false when none is left.
fn signal_group(group: libc::pid_t, signal: libc::c_int) -> bool {
    // SAFETY: killpg only sends a signal; `group` is the id of a group this process started.
    unsafe { libc::killpg(group, signal) == 0 }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor this process owns, changing only its status flags.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl Program {
    fn spawn(command: &[String], dir: &Path) -> Result<Self, PolicyError> {
        let could_not_start = |e: io::Error| {
            PolicyError(format!("external policy `{}` could not start in {}: {e}", command.join(" "), dir.display()))
        };
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A group of its own: ended as a whole with the run, and out of reach of the
            // terminal's Ctrl-C, which is blox's to handle.
            .process_group(0)
            .spawn()
            .map_err(could_not_start)?;
        let group = libc::pid_t::try_from(child.id()).expect("a process id fits pid_t");
        RUNNING_GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(group);
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        let (reading, stderr_read) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            keep_tail(stderr_pipe, &tail);
            drop(reading);
        });
        let program = Program { child, group, stdin: Some(stdin), stdout, unread: Vec::new(), stderr, stderr_read };
        let pipes = [program.stdin.as_ref().map(AsRawFd::as_raw_fd), Some(program.stdout.as_raw_fd())];
        if let Err(e) = pipes.into_iter().flatten().try_for_each(set_nonblocking) {
            return Err(could_not_start(e));
        }
        Ok(program)
    }

    /// Writes `message`, then reads one line of at most `limit` bytes (without its `\n`), until
    /// `deadline` or the stop.
    fn exchange(
        &mut self,
        message: &[u8],
        limit: usize,
        deadline: Instant,
        stop: &StopFlag,
    ) -> Result<String, ExchangeFault> {
        let mut sent = 0;
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            if sent == message.len()
                && let Some(line) = self.take_line(limit)?
            {
                return Ok(line);
            }
            if self.unread.len() > limit && !self.unread.contains(&b'\n') {
                return Err(ExchangeFault::TooLong(limit));
            }
            if stop.is_stopped() {
                return Err(ExchangeFault::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(if sent < message.len() { ExchangeFault::NotRead } else { ExchangeFault::NoAnswer });
            }
            let writing = sent < message.len();
            let stdin = self.stdin.as_ref().filter(|_| writing).map_or(-1, AsRawFd::as_raw_fd);
            let mut fds = [
                libc::pollfd { fd: stdin, events: libc::POLLOUT, revents: 0 },
                libc::pollfd { fd: self.stdout.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            ];
            let wait = (deadline - now).min(STOP_CHECK);
            // SAFETY: `fds` is a valid array of two pollfd; a negative fd is ignored by poll.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), 2, wait.as_millis() as libc::c_int) };
            if ready < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(ExchangeFault::Read(e));
            }
            if fds[0].revents != 0 {
                let stdin = self.stdin.as_mut().expect("polled only while open");
                match stdin.write(&message[sent..]) {
                    Ok(n) => sent += n,
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
                    Err(e) => return Err(ExchangeFault::Write(e)),
                }
            }
            if fds[1].revents != 0 {
                match self.stdout.read(&mut chunk) {
                    Ok(0) => return Err(ExchangeFault::Ended),
                    Ok(n) => self.unread.extend_from_slice(&chunk[..n]),
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {}
                    Err(e) => return Err(ExchangeFault::Read(e)),
                }
            }
        }
    }

    /// The first whole line of what the program wrote, without its `\n` (or `\r\n`).
    fn take_line(&mut self, limit: usize) -> Result<Option<String>, ExchangeFault> {
        let Some(end) = self.unread.iter().position(|&b| b == b'\n') else { return Ok(None) };
        if end > limit {
            return Err(ExchangeFault::TooLong(limit));
        }
        let mut line: Vec<u8> = self.unread.drain(..=end).collect();
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        String::from_utf8(line).map(Some).map_err(|_| ExchangeFault::NotUtf8)
    }

    /// How the program ended, waiting up to `wait` for a program that is exiting.
    fn exit_status(&mut self, wait: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + wait;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// Ends the program and whatever it started: end of input (a program of the protocol
    /// exits), then SIGTERM to its process group, then SIGKILL to what is left of it after a
    /// grace. A program that exits at the end of its input and left nothing running costs no
    /// wait.
    fn end(&mut self) {
        self.stdin.take();
        let mut exited = self.exit_status(END_GRACE).is_some();
        signal_group(self.group, libc::SIGTERM);
        let deadline = Instant::now() + END_GRACE;
        // The group is gone when its leader was reaped and no process answers for it.
        let group_left = |exited: bool| !exited || signal_group(self.group, 0);
        while group_left(exited) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
            exited = exited || matches!(self.child.try_wait(), Ok(Some(_)));
        }
        signal_group(self.group, libc::SIGKILL);
        if !exited {
            let _ = self.child.wait();
        }
        RUNNING_GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != self.group);
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        self.end();
    }
}

/// Reads the program's stderr to its end, keeping its last [`STDERR_LINES`] lines, each cut
/// to [`STDERR_LINE_BYTES`] and made inert for a terminal: memory stays bounded whatever it
/// writes, and a program that logs is never blocked on a full pipe.
fn keep_tail(mut pipe: impl Read, tail: &Mutex<VecDeque<String>>) {
    let mut chunk = vec![0u8; 64 * 1024];
    let mut line = Vec::new();
    let mut cut = false;
    loop {
        let n = match pipe.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        for piece in chunk[..n].split_inclusive(|&b| b == b'\n') {
            let (text, ends) = match piece.strip_suffix(b"\n") {
                Some(text) => (text, true),
                None => (piece, false),
            };
            let room = STDERR_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&text[..text.len().min(room)]);
            cut |= text.len() > room;
            if ends {
                keep_line(tail, &line, cut);
                line.clear();
                cut = false;
            }
        }
    }
    if !line.is_empty() {
        keep_line(tail, &line, cut);
    }
}

/// Appends one stderr line to the tail, dropping the oldest beyond [`STDERR_LINES`].
fn keep_line(tail: &Mutex<VecDeque<String>>, line: &[u8], cut: bool) {
    let mut text = crate::text::escape_control(&String::from_utf8_lossy(line)).into_owned();
    if cut {
        text += " [cut]";
    }
    if let Ok(mut tail) = tail.lock() {
        if tail.len() == STDERR_LINES {
            tail.pop_front();
        }
        tail.push_back(text);
    }
}

impl Scheduler for External {
    fn order(&mut self, now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        self.start()?;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        line.extend_from_slice(b"{\"time\":");
        number(&mut line, now);
        line.extend_from_slice(b",\"jobs\":[");
        for (i, &slot) in order.iter().enumerate() {
            let job = &jobs[slot];
            let separator = if i > 0 { "," } else { "" };
            write!(line, "{separator}[{},{},", job.spec.id, job.spec.gpus).expect("writing to memory");
            for value in [job.spec.submitted, job.spec.work, job.life.executed_work, job.life.attained_service] {
                number(&mut line, value);
                line.push(b',');
            }
            write!(line, "{},{},{}]", job.is_running(), job.life.promoted, job.life.preemptions)
                .expect("writing to memory");
        }
        line.extend_from_slice(b"]}\n");
        let answer = self.exchange(&line, "a decision", MAX_LINE + LINE_BYTES_PER_JOB * order.len());
        self.line = line;
        let answer = answer?;
        let answer: Answer = serde_json::from_str(&answer)
            .map_err(|e| self.fault(&format!("answered `{}`, which is not an order: {e}", shorten(&answer))))?;
        self.apply(&answer.order, jobs, order)
    }

    fn set_stop(&mut self, stop: &StopFlag) {
        self.stop = stop.clone();
    }
}

impl External {
    /// Checks that `ids` lists every active job once and writes their slots into `order`.
    fn apply(&mut self, ids: &[u64], jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        self.slots.clear();
        self.slots.extend(order.iter().map(|&slot| (jobs[slot].spec.id, slot)));
        self.listed.clear();
        for (position, id) in ids.iter().enumerate() {
            let Some(&slot) = self.slots.get(id) else {
                return Err(self.fault(&format!("named job {id}, which is not active")));
            };
            if !self.listed.insert(*id) {
                return Err(self.fault(&format!("listed job {id} twice; the order must list every active job once")));
            }
            if let Some(place) = order.get_mut(position) {
                *place = slot;
            }
        }
        if ids.len() != order.len() {
            let mut missing: Vec<u64> = self.slots.keys().copied().filter(|id| !self.listed.contains(id)).collect();
            missing.sort_unstable();
            missing.truncate(10);
            return Err(self.fault(&format!(
                "ordered {} of the {} active jobs (missing, first ten: {missing:?}); the order must list every active job once",
                ids.len(),
                order.len()
            )));
        }
        Ok(())
    }
}

/// Appends `x` as a JSON number (shortest form that reads back exactly), `null` if not finite.
fn number(line: &mut Vec<u8>, x: f64) {
    if x.is_finite() {
        serde_json::to_writer(&mut *line, &x).expect("writing to memory");
    } else {
        line.extend_from_slice(b"null");
    }
}

fn shorten(s: &str) -> String {
    let s = crate::text::escape_control(s);
    if s.chars().count() > 200 { format!("{}...", s.chars().take(200).collect::<String>()) } else { s.into_owned() }
}
