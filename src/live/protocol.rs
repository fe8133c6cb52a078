//! The live protocol's messages (version 1) and their framing: UTF-8 JSON, one message per
//! line, lines capped at [`MAX_LINE`] bytes so that a peer can never make us buffer without bound.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The protocol version this blox speaks; a hello with another one is refused.
pub const VERSION: u32 = 1;

/// The longest line (without its `\n`) a peer may send: 1 MiB.
pub const MAX_LINE: usize = 1 << 20;

/// Who opened a connection to the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Agent,
    Job,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotKind {
    Gpu,
    Cpu,
}

/// One unit a node offers: a GPU (its CUDA index) or, on a machine without GPUs, a CPU slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slot {
    pub id: String,
    pub kind: SlotKind,
}

/// What to run: an argv (no shell involved) or a shell string run with `sh -c`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Argv {
    Exec(Vec<String>),
    Shell(String),
}

/// Why a job's process is gone, as the agent saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitReason {
    /// It exited on its own (any code), or was killed by a signal the agent did not send.
    Exited,
    /// It exited after the agent's SIGTERM, within the grace period.
    Preempted,
    /// The grace period ran out (or the agent was told to stop at once) and it got SIGKILL.
    Killed,
    /// It never ran: the command does not exist, the slots are wrong, ...
    FailedToStart,
}

/// A job process an agent supervises, in its `running` inventory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunningJob {
    pub job: u64,
    pub attempt: u32,
    pub pid: u32,
}

/// Every message of the protocol, tagged by `"type"`; unknown fields are errors so that a typo
/// (`"grace"` for `"grace_s"`) fails loudly instead of falling back to a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Message {
    /// First message of every connection, from the side that connected.
    Hello {
        version: u32,
        role: Role,
        token: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slots: Option<Vec<Slot>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
    },
    Welcome {},
    /// The scheduler's answer to a hello it does not accept; it closes the connection after it.
    Refused {
        reason: String,
    },
    /// Scheduler -> agent: start attempt `attempt` of job `job` on `slots` (ids of the node's slots).
    Launch {
        job: u64,
        attempt: u32,
        argv: Argv,
        #[serde(default)]
        slots: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
        /// The experiment run the attempt belongs to: its files and checkpoints go under
        /// `<work-dir>/runs/<run>/`, so that runs of a sweep (and a redone run) never share
        /// checkpoints. Letters, digits, `-`, `_` and `.` only, not starting with `.`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run: Option<String>,
    },
    /// Scheduler -> agent: SIGTERM the attempt's process group, SIGKILL it after `grace_s`.
    Preempt {
        job: u64,
        attempt: u32,
        grace_s: f64,
    },
    /// Scheduler -> agent: stop every job (as on SIGTERM) and exit.
    Shutdown {},
    /// Agent -> scheduler, every few seconds while connected.
    Heartbeat {},
    Started {
        job: u64,
        attempt: u32,
        pid: u32,
    },
    Exited {
        job: u64,
        attempt: u32,
        /// `null` when a signal ended the process.
        code: Option<i32>,
        signal: Option<i32>,
        reason: ExitReason,
        /// The last 4 KiB of the attempt's stderr (lossy UTF-8), or why it failed to start.
        stderr_tail: String,
    },
    /// Agent -> scheduler after each (re)connection: the job processes still alive on the node.
    Running {
        jobs: Vec<RunningJob>,
    },
    /// Job -> scheduler: iterations done so far by this job (cumulative over its attempts).
    Progress {
        iterations: u64,
    },
    /// Scheduler -> job, answering each `progress`: `stop` asks it to checkpoint and exit 0 now.
    Ack {
        stop: bool,
    },
}

impl Message {
    /// The message's `"type"`, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Hello { .. } => "hello",
            Message::Welcome {} => "welcome",
            Message::Refused { .. } => "refused",
            Message::Launch { .. } => "launch",
            Message::Preempt { .. } => "preempt",
            Message::Shutdown {} => "shutdown",
            Message::Heartbeat {} => "heartbeat",
            Message::Started { .. } => "started",
            Message::Exited { .. } => "exited",
            Message::Running { .. } => "running",
            Message::Progress { .. } => "progress",
            Message::Ack { .. } => "ack",
        }
    }
}

/// Whether `run` can name a directory of its own: no separator, no `..`, nothing hidden.
pub fn is_valid_run_name(run: &str) -> bool {
    !run.is_empty()
        && run.len() <= 200
        && !run.starts_with('.')
        && run.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Who a scheduler accepted, from its hello.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Peer {
    Agent { node: String, slots: Vec<Slot> },
    Job { job: u64, attempt: u32 },
}

/// The checks a scheduler makes on a connection's first message before answering `welcome`;
/// the error is the `refused` reason, written for the person who started the peer.
pub fn check_hello(message: &Message, token: &str) -> Result<Peer, String> {
    let Message::Hello { version, role, token: given, node, slots, job, attempt } = message else {
        return Err(format!("the first message must be a hello, not {}", message.kind()));
    };
    if *version != VERSION {
        return Err(format!("this peer speaks protocol version {version}; the scheduler speaks {VERSION}"));
    }
    if !tokens_match(given, token) {
        return Err("wrong token (check --token-file or BLOX_TOKEN on both sides)".into());
    }
    match role {
        Role::Agent => {
            if job.is_some() || attempt.is_some() {
                return Err("an agent's hello has no job or attempt".into());
            }
            let node = node.clone().filter(|n| !n.is_empty()).ok_or("an agent's hello must name its node")?;
            let slots = slots.clone().unwrap_or_default();
            if slots.is_empty() {
                return Err(format!("node {node} offers no slot: start it with --gpus 0,1,... or --cpu-slots N"));
            }
            for (i, slot) in slots.iter().enumerate() {
                if slots[..i].iter().any(|s| s.id == slot.id) {
                    return Err(format!("node {node} announces slot {} twice", slot.id));
                }
            }
            Ok(Peer::Agent { node, slots })
        }
        Role::Job => {
            if node.is_some() || slots.is_some() {
                return Err("a job's hello has no node or slots".into());
            }
            match (job, attempt) {
                (Some(job), Some(attempt)) => Ok(Peer::Job { job: *job, attempt: *attempt }),
                _ => Err("a job's hello must give its job and attempt (BLOX_JOB_ID, BLOX_ATTEMPT)".into()),
            }
        }
    }
}

/// Compares tokens in time independent of where they differ, so that timing does not reveal a
/// correct prefix (the length may show, which guessing does not profit from).
pub fn tokens_match(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// The shared secret: the content of `file` (trailing newline removed), else `$BLOX_TOKEN`.
/// Never a command-line argument, which any user of the machine can read in `ps`.
pub fn read_token(file: Option<&std::path::Path>) -> Result<String, String> {
    let token = match file {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?
            .trim_end_matches(['\n', '\r'])
            .to_string(),
        None => std::env::var("BLOX_TOKEN")
            .map_err(|_| "no token: give --token-file FILE or set BLOX_TOKEN (the same on scheduler and nodes)")?,
    };
    if token.is_empty() {
        return Err("the token is empty".into());
    }
    Ok(token)
}

/// Why a message could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// A line longer than [`MAX_LINE`]: the peer is not speaking this protocol (or is hostile).
    TooLong,
    /// A line that is not a message of this protocol.
    Malformed(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLong => write!(f, "protocol error: a line longer than {MAX_LINE} bytes"),
            ReadError::Malformed(why) => write!(f, "protocol error: {why}"),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Reads the next message; `None` at a clean end of the stream (between messages). Blank lines
/// are skipped. Reads at most `MAX_LINE + 1` bytes of a line before giving up on it.
pub fn read_message(reader: &mut impl BufRead) -> Result<Option<Message>, ReadError> {
    loop {
        let mut line = Vec::new();
        let n = reader.by_ref().take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > MAX_LINE {
            return Err(ReadError::TooLong);
        } else {
            return Err(ReadError::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed mid-message")));
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = std::str::from_utf8(&line).map_err(|_| ReadError::Malformed("a line that is not UTF-8".into()))?;
        return serde_json::from_str(text).map(Some).map_err(|e| {
            let start: String = text.chars().take(120).collect();
            ReadError::Malformed(format!("{e} in `{start}`"))
        });
    }
}

/// Writes one message as one line.
pub fn write_message(writer: &mut impl Write, message: &Message) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    writer.flush()
}

/// A TCP connection carrying messages: a buffered reader and a writer on the same socket.
pub struct Connection {
    pub reader: BufReader<TcpStream>,
    pub writer: TcpStream,
}

impl Connection {
    /// Connects to `address` (`host:port`), trying each of its addresses for up to `timeout`.
    pub fn connect(address: &str, timeout: Duration) -> io::Result<Connection> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("{address} resolves to no address"));
        for addr in address.to_socket_addrs()? {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(stream) => return Connection::new(stream),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    pub fn new(stream: TcpStream) -> io::Result<Connection> {
        stream.set_nodelay(true)?;
        Ok(Connection { reader: BufReader::new(stream.try_clone()?), writer: stream })
    }

    pub fn send(&mut self, message: &Message) -> io::Result<()> {
        write_message(&mut self.writer, message)
    }

    pub fn recv(&mut self) -> Result<Option<Message>, ReadError> {
        read_message(&mut self.reader)
    }

    /// Sends `hello` and waits up to `timeout` for the answer: `Ok` on welcome, the scheduler's
    /// reason on refused, and an error for anything else.
    pub fn handshake(&mut self, hello: &Message, timeout: Duration) -> Result<(), Handshake> {
        self.writer.set_read_timeout(Some(timeout)).map_err(|e| Handshake::Failed(e.to_string()))?;
        self.send(hello).map_err(|e| Handshake::Failed(format!("cannot send hello: {e}")))?;
        let answer = self.recv();
        self.writer.set_read_timeout(None).map_err(|e| Handshake::Failed(e.to_string()))?;
        match answer {
            Ok(Some(Message::Welcome {})) => Ok(()),
            Ok(Some(Message::Refused { reason })) => Err(Handshake::Refused(reason)),
            Ok(Some(other)) => Err(Handshake::Failed(format!("answered hello with {}", other.kind()))),
            Ok(None) => Err(Handshake::Failed("closed the connection after hello".into())),
            Err(e) => Err(Handshake::Failed(format!("no answer to hello: {e}"))),
        }
    }
}

/// How a hello went wrong: refused (retrying will not help) or failed (it may).
#[derive(Debug)]
pub enum Handshake {
    Refused(String),
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Message>, ReadError> {
        read_message(&mut io::Cursor::new(line.as_bytes()))
    }

    fn parse_line(json: &str) -> Result<Option<Message>, ReadError> {
        parse(&format!("{json}\n"))
    }

    #[test]
    fn messages_read_back_as_written() {
        let messages = [
            Message::Hello {
                version: 1,
                role: Role::Agent,
                token: "t".into(),
                node: Some("n1".into()),
                slots: Some(vec![Slot { id: "0".into(), kind: SlotKind::Gpu }]),
                job: None,
                attempt: None,
            },
            Message::Launch {
                job: 3,
                attempt: 2,
                argv: Argv::Shell("echo hi".into()),
                slots: vec!["0".into()],
                env: [("A".to_string(), "b".to_string())].into(),
                run: Some("fifo_x-1".into()),
            },
            Message::Launch {
                job: 3,
                attempt: 2,
                argv: Argv::Exec(vec!["x".into()]),
                slots: vec![],
                env: [].into(),
                run: None,
            },
            Message::Exited {
                job: 1,
                attempt: 0,
                code: None,
                signal: Some(9),
                reason: ExitReason::Killed,
                stderr_tail: String::new(),
            },
            Message::Running { jobs: vec![RunningJob { job: 1, attempt: 0, pid: 42 }] },
            Message::Welcome {},
            Message::Ack { stop: true },
        ];
        let mut wire = Vec::new();
        for m in &messages {
            write_message(&mut wire, m).unwrap();
        }
        let mut reader = io::Cursor::new(wire);
        for m in &messages {
            assert_eq!(read_message(&mut reader).unwrap().as_ref(), Some(m));
        }
        assert!(read_message(&mut reader).unwrap().is_none());
    }

    #[test]
    fn the_wire_form_is_the_documented_one() {
        let exited = Message::Exited {
            job: 7,
            attempt: 1,
            code: Some(0),
            signal: None,
            reason: ExitReason::FailedToStart,
            stderr_tail: "x".into(),
        };
        assert_eq!(
            serde_json::to_string(&exited).unwrap(),
            r#"{"type":"exited","job":7,"attempt":1,"code":0,"signal":null,"reason":"failed_to_start","stderr_tail":"x"}"#
        );
        let m = parse_line(r#"{"type":"launch","job":1,"attempt":0,"argv":["sleep","1"]}"#).unwrap().unwrap();
        assert!(matches!(m, Message::Launch { argv: Argv::Exec(_), .. }));
    }

    #[test]
    fn unknown_fields_and_types_are_errors() {
        let typo = parse_line(r#"{"type":"preempt","job":1,"attempt":0,"grace":5}"#).unwrap_err();
        assert!(typo.to_string().contains("grace"), "{typo}");
        assert!(matches!(parse_line(r#"{"type":"reboot"}"#), Err(ReadError::Malformed(_))));
        assert!(matches!(parse("not json\n"), Err(ReadError::Malformed(_))));
    }

    #[test]
    fn an_over_long_line_is_a_protocol_error() {
        let long = format!("{{\"type\":\"refused\",\"reason\":\"{}\"}}\n", "x".repeat(MAX_LINE));
        let e = parse(&long).unwrap_err();
        assert!(matches!(e, ReadError::TooLong));
        assert!(e.to_string().contains("longer than 1048576 bytes"), "{e}");
        // Exactly MAX_LINE bytes is still a line.
        let reason = "y".repeat(MAX_LINE - r#"{"type":"refused","reason":""}"#.len());
        let fits = format!("{{\"type\":\"refused\",\"reason\":\"{reason}\"}}\n");
        assert!(matches!(parse(&fits), Ok(Some(Message::Refused { .. }))));
    }

    #[test]
    fn a_line_cut_short_is_an_error_and_blank_lines_are_skipped() {
        assert!(matches!(parse(r#"{"type":"welcome"}"#), Err(ReadError::Io(_))));
        assert_eq!(parse("\n \n{\"type\":\"welcome\"}\n").unwrap(), Some(Message::Welcome {}));
    }

    #[test]
    fn hellos_are_checked() {
        let agent = |token: &str, slots: Vec<Slot>| Message::Hello {
            version: 1,
            role: Role::Agent,
            token: token.into(),
            node: Some("n1".into()),
            slots: Some(slots),
            job: None,
            attempt: None,
        };
        let gpu = |id: &str| Slot { id: id.into(), kind: SlotKind::Gpu };
        assert!(check_hello(&agent("secret", vec![gpu("0")]), "secret").is_ok());
        assert!(check_hello(&agent("secreT", vec![gpu("0")]), "secret").unwrap_err().contains("wrong token"));
        assert!(check_hello(&agent("secret", vec![]), "secret").unwrap_err().contains("offers no slot"));
        assert!(check_hello(&agent("secret", vec![gpu("0"), gpu("0")]), "secret").unwrap_err().contains("twice"));
        let job = Message::Hello {
            version: 2,
            role: Role::Job,
            token: "secret".into(),
            node: None,
            slots: None,
            job: Some(1),
            attempt: Some(0),
        };
        assert!(check_hello(&job, "secret").unwrap_err().contains("version 2"));
        assert!(check_hello(&Message::Heartbeat {}, "secret").unwrap_err().contains("must be a hello"));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(tokens_match("abc", "abc"));
        assert!(!tokens_match("abd", "abc"));
        assert!(!tokens_match("ab", "abc"));
        assert!(!tokens_match("", "abc"));
    }
}
