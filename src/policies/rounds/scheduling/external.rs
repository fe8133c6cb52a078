//! `external`: a scheduler written in any language, run as a separate program.
//!
//! Rule: whatever order the program answers. blox starts `command` once per run (in the spec
//! file's directory), tells it the run's parameters, then at every round sends the active jobs in
//! one line and reads the order back in one line; the placement, admission and overheads stay
//! blox's. The messages (JSON lines, versioned) are specified in `docs/external-policy.md`; a
//! program that crashes, hangs past `timeout_s`, answers something that is not JSON or not a
//! permutation of the active jobs fails its run with what was wrong and the program's last
//! stderr lines, and the sweep's other runs go on.
//! Source: blox's own protocol; `examples/python/las.py` reproduces the built-in `las` with it.

use crate::core::{ClusterSpec, JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use crate::policies::{
    BuildContext, Built, Engine, InputSource, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, PolicyInput, Positive,
    parse_options,
};
use serde::Deserialize;
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The protocol version this blox speaks; a program must answer the greeting with it.
pub const PROTOCOL_VERSION: u32 = 1;

/// The job fields of a decision message, in the order each job's array lists them.
pub const JOB_FIELDS: [&str; 9] =
    ["id", "gpus", "submitted", "work", "executed_work", "attained_service", "running", "promoted", "preemptions"];

/// Lines of the program's stderr kept for error messages.
const STDERR_LINES: usize = 20;

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
            meaning: "longest wait for one answer before the run fails (default 30)",
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
        let Options { command, timeout_s } = self;
        Params::from([("command", command.0.clone().into()), ("timeout_s", timeout_s.0.into())])
    }

    /// Every argument of the command that names a file (the program's script): their contents
    /// decide the run, so run keys hash them. blox never reads them itself.
    fn inputs(&self) -> Vec<PolicyInput> {
        let file =
            |arg: &String| PolicyInput { what: "program file", source: InputSource::Path(arg.into()), parse: None };
        self.command.0.iter().map(file).collect()
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Order(Box::new(External {
            command: self.command.0.clone(),
            // A spec named without a directory has an empty base, which is the working directory.
            dir: if ctx.base_dir.as_os_str().is_empty() { PathBuf::from(".") } else { ctx.base_dir.to_path_buf() },
            greeting: greeting(ctx.round_seconds, ctx.cluster),
            timeout: Duration::from_secs_f64(self.timeout_s.0.min(1e6)),
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
    /// Started at the first decision, so that building a run's policies starts no process.
    program: Option<Program>,
    /// The decision message, reused between rounds.
    line: Vec<u8>,
    /// Job id to slot, and the ids the answer listed, for the answer's check (reused).
    slots: HashMap<u64, JobSlot>,
    listed: HashSet<u64>,
}

/// The running program: its stdin, its stdout lines (read by a thread, so that a wait can time
/// out) and the tail of its stderr.
struct Program {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    answers: Receiver<std::io::Result<String>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
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
            let answer = self.exchange(&greeting, "the greeting");
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

    /// Sends `message` (one line) and waits for one line back.
    fn exchange(&mut self, message: &[u8], what: &str) -> Result<String, PolicyError> {
        let timeout = self.timeout;
        let program = self.program.as_mut().expect("a started program");
        let sent = program.stdin.as_mut().map(|stdin| stdin.write_all(message).and_then(|()| stdin.flush()));
        if let Some(Err(e)) = sent {
            return Err(self.fault(&format!("stopped reading its input ({e})")));
        }
        match program.answers.recv_timeout(timeout) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(e)) => Err(self.fault(&format!("its output could not be read ({e})"))),
            Err(RecvTimeoutError::Timeout) => {
                Err(self.fault(&format!("did not answer {what} within {} s (`timeout_s`)", timeout.as_secs_f64())))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.fault(&format!("ended without answering {what}"))),
        }
    }

    /// An error naming the program, what went wrong, how it ended and its last stderr lines.
    fn fault(&mut self, what: &str) -> PolicyError {
        let mut message = format!("external policy `{}` {what}", self.command.join(" "));
        if let Some(program) = &mut self.program {
            if let Some(status) = program.exit_status() {
                message += &format!("; it exited with {status}");
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

impl Program {
    fn spawn(command: &[String], dir: &Path) -> Result<Self, PolicyError> {
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                PolicyError(format!(
                    "external policy `{}` could not start in {}: {e}",
                    command.join(" "),
                    dir.display()
                ))
            })?;
        let stdout = child.stdout.take().expect("piped");
        let stderr_pipe = child.stderr.take().expect("piped");
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr_pipe).lines().map_while(Result::ok) {
                if let Ok(mut tail) = tail.lock() {
                    if tail.len() == STDERR_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            }
        });
        let stdin = child.stdin.take().map(BufWriter::new);
        Ok(Program { child, stdin, answers, stderr })
    }

    /// How the program ended, waiting briefly for a program that is exiting.
    fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }
}

impl Drop for Program {
    /// End of input tells the program the run is over; one that does not exit soon is killed.
    fn drop(&mut self) {
        self.stdin.take();
        if self.exit_status().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
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
        let answer = self.exchange(&line, "a decision");
        self.line = line;
        let answer = answer?;
        let answer: Answer = serde_json::from_str(&answer)
            .map_err(|e| self.fault(&format!("answered `{}`, which is not an order: {e}", shorten(&answer))))?;
        self.apply(&answer.order, jobs, order)
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
