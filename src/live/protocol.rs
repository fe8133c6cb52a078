//! The live protocol's messages (version 2) and their framing: UTF-8 JSON, one message per
//! line, lines capped at [`MAX_LINE`] bytes so that a peer can never make us buffer without
//! bound. Every connection opens with a handshake in which the scheduler and the peer each
//! prove that they hold the peer's key ([`Connection::handshake`], [`Connection::accept`]);
//! every message after it is sealed ([`auth::Seal`]).

use super::auth::{self, Direction, Key, Seal, Transcript};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The protocol version this blox speaks; a hello with another one is refused.
pub const VERSION: u32 = 2;

/// The longest line (without its `\n`) a peer may send: 1 MiB.
pub const MAX_LINE: usize = 1 << 20;

/// The longest hello: an agent's 4,096 slots fit four times over. A peer not yet authenticated
/// can make the scheduler hold no more than this.
pub const MAX_HELLO_LINE: usize = 256 << 10;

/// The most slots one node may offer.
pub const MAX_SLOTS: usize = 4096;

/// The longest node name, and the longest slot id.
pub const MAX_NODE_NAME: usize = 255;
pub const MAX_SLOT_ID: usize = 64;

/// The shortest token accepted: the handshake's proofs let anyone who can connect test guesses
/// offline, so the token must be too long to guess.
pub const MIN_TOKEN_BYTES: usize = 16;

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
    /// First message of every connection, from the side that connected: who it says it is and
    /// its nonce (64 hex digits). It carries no secret.
    Hello {
        version: u32,
        role: Role,
        nonce: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        slots: Option<Vec<Slot>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        job: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        attempt: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        run: Option<String>,
    },
    /// The scheduler's answer to a hello: its nonce, and its proof that it holds the key of the
    /// peer the hello claims to be.
    Challenge {
        nonce: String,
        proof: String,
    },
    /// The peer's proof that it holds its key, sent only once the scheduler's proof checked out.
    Auth {
        proof: String,
    },
    /// The first sealed message: the peer is accepted.
    Welcome {},
    /// The scheduler does not accept the peer, and why; it closes the connection after it.
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
            Message::Challenge { .. } => "challenge",
            Message::Auth { .. } => "auth",
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

/// Who a peer says it is in its hello; once the handshake is through, who it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Peer {
    Agent { node: String, slots: Vec<Slot> },
    Job { job: u64, attempt: u32, run: Option<String> },
}

impl Peer {
    /// The key this peer must hold: the agents' key, or the credential of this job attempt.
    pub fn key(&self, token: &str) -> Key {
        match self {
            Peer::Agent { .. } => Key::agent(token),
            Peer::Job { job, attempt, run } => Key::job(token, *job, *attempt, run.as_deref()),
        }
    }

    fn hello(&self, nonce: &[u8; 32]) -> Message {
        let nonce = auth::hex(nonce);
        match self.clone() {
            Peer::Agent { node, slots } => Message::Hello {
                version: VERSION,
                role: Role::Agent,
                nonce,
                node: Some(node),
                slots: Some(slots),
                job: None,
                attempt: None,
                run: None,
            },
            Peer::Job { job, attempt, run } => Message::Hello {
                version: VERSION,
                role: Role::Job,
                nonce,
                node: None,
                slots: None,
                job: Some(job),
                attempt: Some(attempt),
                run,
            },
        }
    }
}

/// Why a node name cannot be used: empty, too long, or with control characters.
pub fn check_node_name(node: &str) -> Result<(), String> {
    if node.is_empty() {
        return Err("the node name is empty".into());
    }
    if node.len() > MAX_NODE_NAME {
        return Err(format!("the node name is {} bytes long; at most {MAX_NODE_NAME}", node.len()));
    }
    if node.chars().any(char::is_control) {
        return Err("the node name holds control characters".into());
    }
    Ok(())
}

/// Why a node's slots cannot be offered: none, more than [`MAX_SLOTS`], an id empty, too long,
/// with control characters or commas (`BLOX_SLOTS` joins them with commas), or twice.
pub fn check_slots(slots: &[Slot]) -> Result<(), String> {
    if slots.is_empty() {
        return Err("it offers no slot: start it with --gpus 0,1,... or --cpu-slots N".into());
    }
    if slots.len() > MAX_SLOTS {
        return Err(format!("it offers {} slots; a node offers at most {MAX_SLOTS}", slots.len()));
    }
    let mut seen = HashSet::new();
    for slot in slots {
        let id = &slot.id;
        if id.is_empty() || id.len() > MAX_SLOT_ID || id.chars().any(|c| c.is_control() || c == ',') {
            return Err(format!(
                "slot id `{}` is not 1 to {MAX_SLOT_ID} bytes without commas or control characters",
                crate::text::escape_control(id)
            ));
        }
        if !seen.insert(id) {
            return Err(format!("it announces slot {id} twice"));
        }
    }
    Ok(())
}

/// The checks a scheduler makes on a hello before it proves anything: the version, the nonce,
/// and claims that make sense for the role. The error is the `refused` reason, written for the
/// person who started the peer.
pub fn check_hello(message: &Message) -> Result<(Peer, [u8; 32]), String> {
    let Message::Hello { version, role, nonce, node, slots, job, attempt, run } = message else {
        return Err(format!("the first message must be a hello, not {}", message.kind()));
    };
    if *version != VERSION {
        return Err(version_mismatch(u64::from(*version)));
    }
    let nonce: [u8; 32] = auth::decode_hex(nonce)
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or("the hello's nonce is not 64 hexadecimal digits")?;
    let peer = match role {
        Role::Agent => {
            if job.is_some() || attempt.is_some() || run.is_some() {
                return Err("an agent's hello has no job, attempt or run".into());
            }
            let node = node.clone().ok_or("an agent's hello must name its node")?;
            check_node_name(&node)?;
            let slots = slots.clone().unwrap_or_default();
            check_slots(&slots).map_err(|e| format!("node {node}: {e}"))?;
            Peer::Agent { node, slots }
        }
        Role::Job => {
            if node.is_some() || slots.is_some() {
                return Err("a job's hello has no node or slots".into());
            }
            if let Some(run) = run.as_deref().filter(|run| !is_valid_run_name(run)) {
                return Err(format!(
                    "the run name `{}` is not a plain directory name",
                    crate::text::escape_control(run)
                ));
            }
            match (job, attempt) {
                (Some(job), Some(attempt)) => Peer::Job { job: *job, attempt: *attempt, run: run.clone() },
                _ => return Err("a job's hello must give its job and attempt (BLOX_JOB_ID, BLOX_ATTEMPT)".into()),
            }
        }
    };
    Ok((peer, nonce))
}

fn version_mismatch(version: u64) -> String {
    format!(
        "this peer speaks protocol version {version}; the scheduler speaks {VERSION} (run the same blox on the scheduler and the nodes)"
    )
}

/// A hello line: its version is looked at before anything else, so that a peer of another
/// version learns that rather than which field this version does not know.
fn parse_hello(line: &[u8]) -> Result<(Peer, [u8; 32]), String> {
    let value: serde_json::Value = serde_json::from_slice(line)
        .map_err(|_| "the first message is not JSON: not a blox agent or job".to_string())?;
    if value.get("type").and_then(serde_json::Value::as_str) == Some("hello")
        && let Some(version) = value.get("version").and_then(serde_json::Value::as_u64)
        && version != u64::from(VERSION)
    {
        return Err(version_mismatch(version));
    }
    let message: Message = serde_json::from_value(value).map_err(|e| format!("a malformed hello: {e}"))?;
    check_hello(&message)
}

/// The shared secret: the content of `file` (trailing newline removed), else `$BLOX_TOKEN`;
/// at least [`MIN_TOKEN_BYTES`] bytes. Never a command-line argument, which any user of the
/// machine can read in `ps`.
pub fn read_token(file: Option<&std::path::Path>) -> Result<String, String> {
    let (token, source) = match file {
        Some(path) => (
            std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?
                .trim_end_matches(['\n', '\r'])
                .to_string(),
            format!("the token file {}", path.display()),
        ),
        None => (
            std::env::var("BLOX_TOKEN")
                .map_err(|_| "no token: give --token-file FILE or set BLOX_TOKEN (the same on scheduler and nodes)")?,
            "BLOX_TOKEN".to_string(),
        ),
    };
    if token.len() < MIN_TOKEN_BYTES {
        return Err(format!(
            "{source} holds a token of {} bytes; at least {MIN_TOKEN_BYTES} are needed, as anyone who can reach the \
             scheduler may test guesses of it (make one: head -c 32 /dev/urandom | base64 > token)",
            token.len()
        ));
    }
    Ok(token)
}

/// Why a message could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// A line longer than the limit: the peer is not speaking this protocol (or is hostile).
    TooLong(usize),
    /// A line that is not a message of this protocol.
    Malformed(String),
    /// A sealed line whose seal does not check out: forged, changed, replayed or out of order.
    Forged,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                write!(f, "timed out")
            }
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLong(limit) => write!(f, "protocol error: a line longer than {limit} bytes"),
            ReadError::Malformed(why) => write!(f, "protocol error: {why}"),
            ReadError::Forged => write!(
                f,
                "protocol error: a message whose seal does not check out (forged, changed, replayed or out of order)"
            ),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Reads the next line (without its `\n`); `None` at a clean end of the stream. Blank lines
/// are skipped. Reads at most `limit + 1` bytes of a line before giving up on it.
pub fn read_line(reader: &mut impl BufRead, limit: usize) -> Result<Option<Vec<u8>>, ReadError> {
    loop {
        let mut line = Vec::new();
        let n = reader.by_ref().take(limit as u64 + 1).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(None);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > limit {
            return Err(ReadError::TooLong(limit));
        } else {
            return Err(ReadError::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed mid-message")));
        }
        if !line.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(line));
        }
    }
}

/// One message from its JSON.
pub fn parse_message(json: &[u8]) -> Result<Message, ReadError> {
    let text = std::str::from_utf8(json).map_err(|_| ReadError::Malformed("a line that is not UTF-8".into()))?;
    serde_json::from_str(text).map_err(|e| {
        let start: String = text.chars().take(120).collect();
        ReadError::Malformed(format!("{e} in `{}`", crate::text::escape_control(&start)))
    })
}

/// Reads the next unsealed message; `None` at a clean end of the stream.
pub fn read_message(reader: &mut impl BufRead) -> Result<Option<Message>, ReadError> {
    read_line(reader, MAX_LINE)?.map(|line| parse_message(&line)).transpose()
}

/// Writes one unsealed message as one line.
pub fn write_message(writer: &mut impl Write, message: &Message) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    writer.flush()
}

/// A socket read under an optional deadline for the whole exchange: each read may wait only
/// for what is left of it, so that a peer trickling a byte at a time cannot hold the reader past
/// it (a per-read timeout would restart at every byte).
struct Socket {
    stream: TcpStream,
    deadline: Option<Instant>,
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "the deadline passed"));
            }
            self.stream.set_read_timeout(Some(left))?;
        }
        self.stream.read(buf)
    }
}

/// The reading half of a connection: messages unsealed during the handshake, sealed after it.
pub struct MessageReader {
    reader: BufReader<Socket>,
    seal: Option<Seal>,
}

impl MessageReader {
    /// The next message; `None` at a clean end of the stream.
    pub fn recv(&mut self) -> Result<Option<Message>, ReadError> {
        self.recv_within(MAX_LINE)
    }

    fn recv_within(&mut self, limit: usize) -> Result<Option<Message>, ReadError> {
        let Some(line) = read_line(&mut self.reader, limit)? else { return Ok(None) };
        let json = match &mut self.seal {
            Some(seal) => seal.open(&line).map_err(|auth::Forged| ReadError::Forged)?,
            None => &line[..],
        };
        parse_message(json).map(Some)
    }
}

/// The writing half of a connection.
pub struct MessageWriter {
    stream: TcpStream,
    seal: Option<Seal>,
}

impl MessageWriter {
    pub fn send(&mut self, message: &Message) -> io::Result<()> {
        let json = serde_json::to_vec(message).map_err(io::Error::other)?;
        self.send_json(&json)
    }

    fn send_json(&mut self, json: &[u8]) -> io::Result<()> {
        let mut line = match &mut self.seal {
            Some(seal) => seal.seal(json),
            None => json.to_vec(),
        };
        line.push(b'\n');
        (&self.stream).write_all(&line)
    }

    /// The socket, for its options (shared with the reading half).
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Ends the connection both ways (the reading half sees its end).
    pub fn shutdown(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// A TCP connection carrying messages.
pub struct Connection {
    pub reader: MessageReader,
    pub writer: MessageWriter,
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
        let reader = BufReader::new(Socket { stream: stream.try_clone()?, deadline: None });
        Ok(Connection { reader: MessageReader { reader, seal: None }, writer: MessageWriter { stream, seal: None } })
    }

    pub fn send(&mut self, message: &Message) -> io::Result<()> {
        self.writer.send(message)
    }

    pub fn recv(&mut self) -> Result<Option<Message>, ReadError> {
        self.reader.recv()
    }

    /// The address of the other end, for logs.
    pub fn peer_address(&self) -> String {
        self.writer.stream.peer_addr().map_or_else(|_| "?".into(), |a| a.to_string())
    }

    /// Reads of the handshake wait at most until `deadline` in all; `None` lifts it (and the
    /// socket's read timeout with it).
    fn set_deadline(&mut self, deadline: Option<Instant>) -> io::Result<()> {
        self.reader.reader.get_mut().deadline = deadline;
        match deadline {
            Some(_) => Ok(()),
            None => self.writer.stream.set_read_timeout(None),
        }
    }

    fn seal(&mut self, session: Key, sending: Direction, receiving: Direction) {
        self.writer.seal = Some(Seal::new(session.clone(), sending));
        self.reader.seal = Some(Seal::new(session, receiving));
    }

    /// The connecting side's handshake, within `timeout` in all: says hello as `peer`, checks
    /// the scheduler's proof that it holds `key` before proving anything itself, then waits
    /// for the sealed `welcome`. Afterwards every message is sealed.
    pub fn handshake(&mut self, peer: &Peer, key: &Key, timeout: Duration) -> Result<(), Handshake> {
        self.set_deadline(Some(Instant::now() + timeout)).map_err(|e| Handshake::Failed(e.to_string()))?;
        let outcome = self.client_handshake(peer, key);
        self.set_deadline(None).map_err(|e| Handshake::Failed(e.to_string()))?;
        outcome
    }

    fn client_handshake(&mut self, peer: &Peer, key: &Key) -> Result<(), Handshake> {
        let client_nonce = auth::nonce().map_err(Handshake::Failed)?;
        let hello = serde_json::to_vec(&peer.hello(&client_nonce)).map_err(|e| Handshake::Failed(e.to_string()))?;
        self.writer.send_json(&hello).map_err(|e| Handshake::Failed(format!("cannot send hello: {e}")))?;
        let (nonce, proof) = match self.recv() {
            Ok(Some(Message::Challenge { nonce, proof })) => (nonce, proof),
            Ok(Some(Message::Refused { reason })) => return Err(Handshake::Refused(reason)),
            Ok(Some(other)) => {
                return Err(Handshake::Refused(format!(
                    "it answered hello with {}, not a challenge: not a blox scheduler of protocol version {VERSION}",
                    other.kind()
                )));
            }
            Ok(None) => return Err(Handshake::Failed("closed the connection after hello".into())),
            Err(e) => return Err(Handshake::Failed(format!("no answer to hello: {e}"))),
        };
        let server_nonce: [u8; 32] = auth::decode_hex(&nonce)
            .and_then(|bytes| bytes.try_into().ok())
            .ok_or_else(|| Handshake::Refused("its challenge's nonce is not 64 hexadecimal digits".into()))?;
        let transcript = Transcript::new(client_nonce, server_nonce, &hello);
        let proven = auth::decode_hex(&proof).is_some_and(|p| auth::same_bytes(&p, &transcript.scheduler_proof(key)));
        if !proven {
            return Err(Handshake::Refused(
                "it could not prove that it holds the same token: a wrong token on one side (check --token-file or \
                 BLOX_TOKEN on both), or what answers at this address is not your blox scheduler"
                    .into(),
            ));
        }
        self.send(&Message::Auth { proof: auth::hex(&transcript.client_proof(key)) })
            .map_err(|e| Handshake::Failed(format!("cannot send the proof: {e}")))?;
        self.seal(transcript.session_key(key), Direction::ToScheduler, Direction::FromScheduler);
        match self.recv() {
            Ok(Some(Message::Welcome {})) => Ok(()),
            Ok(Some(Message::Refused { reason })) => Err(Handshake::Refused(reason)),
            Ok(Some(other)) => Err(Handshake::Failed(format!("answered the proof with {}", other.kind()))),
            Ok(None) => Err(Handshake::Failed("closed the connection after the proof".into())),
            Err(e) => Err(Handshake::Failed(format!("no welcome: {e}"))),
        }
    }

    /// The scheduler's side of the handshake, within `timeout` in all: reads the hello, proves
    /// that it holds the key of the peer the hello claims to be (derived from `token`), and
    /// checks the peer's proof. Afterwards every message is sealed, and the caller answers
    /// `welcome`, or `refused` for reasons of its own.
    pub fn accept(&mut self, token: &str, timeout: Duration) -> Result<Peer, Rejected> {
        self.set_deadline(Some(Instant::now() + timeout)).map_err(|e| Rejected::Gone(e.to_string()))?;
        let outcome = self.server_handshake(token);
        self.set_deadline(None).map_err(|e| Rejected::Gone(e.to_string()))?;
        outcome
    }

    fn server_handshake(&mut self, token: &str) -> Result<Peer, Rejected> {
        let hello = match read_line(&mut self.reader.reader, MAX_HELLO_LINE) {
            Ok(Some(line)) => line,
            Ok(None) => return Err(Rejected::Gone("closed before its hello".into())),
            Err(e) => return Err(Rejected::Gone(format!("no hello: {e}"))),
        };
        let (peer, client_nonce) = parse_hello(&hello).map_err(|reason| self.refuse(reason))?;
        let key = peer.key(token);
        let server_nonce = auth::nonce().map_err(Rejected::Gone)?;
        let transcript = Transcript::new(client_nonce, server_nonce, &hello);
        let challenge =
            Message::Challenge { nonce: auth::hex(&server_nonce), proof: auth::hex(&transcript.scheduler_proof(&key)) };
        self.send(&challenge).map_err(|e| Rejected::Gone(format!("cannot send the challenge: {e}")))?;
        let proof = match self.reader.recv_within(MAX_HELLO_LINE) {
            Ok(Some(Message::Auth { proof })) => proof,
            Ok(Some(other)) => return Err(self.refuse(format!("expected its proof (auth), got {}", other.kind()))),
            Ok(None) => {
                return Err(Rejected::Gone(
                    "it closed the connection at the challenge (a peer with another token?)".into(),
                ));
            }
            Err(e) => return Err(Rejected::Gone(format!("no proof: {e}"))),
        };
        if !auth::decode_hex(&proof).is_some_and(|p| auth::same_bytes(&p, &transcript.client_proof(&key))) {
            return Err(self.refuse("wrong token: its proof does not check out".into()));
        }
        self.seal(transcript.session_key(&key), Direction::FromScheduler, Direction::ToScheduler);
        Ok(peer)
    }

    fn refuse(&mut self, reason: String) -> Rejected {
        let _ = self.send(&Message::Refused { reason: reason.clone() });
        Rejected::Refused(reason)
    }
}

/// How a client's handshake went wrong: refused, or the scheduler could not prove itself
/// (retrying will not help), or failed (it may).
#[derive(Debug)]
pub enum Handshake {
    Refused(String),
    Failed(String),
}

/// Why the scheduler's side of a handshake did not accept a peer: refused (it was told why), or
/// gone (the connection ended, timed out or broke).
#[derive(Debug)]
pub enum Rejected {
    Refused(String),
    Gone(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    const TOKEN: &str = "a-token-long-enough-to-use";

    fn parse(line: &str) -> Result<Option<Message>, ReadError> {
        read_message(&mut io::Cursor::new(line.as_bytes()))
    }

    fn parse_line(json: &str) -> Result<Option<Message>, ReadError> {
        parse(&format!("{json}\n"))
    }

    fn agent_hello(version: u32, slots: Vec<Slot>) -> Message {
        Message::Hello {
            version,
            role: Role::Agent,
            nonce: "ab".repeat(32),
            node: Some("n1".into()),
            slots: Some(slots),
            job: None,
            attempt: None,
            run: None,
        }
    }

    fn gpu(id: &str) -> Slot {
        Slot { id: id.into(), kind: SlotKind::Gpu }
    }

    #[test]
    fn messages_read_back_as_written() {
        let messages = [
            agent_hello(VERSION, vec![gpu("0")]),
            Message::Challenge { nonce: "cd".repeat(32), proof: "ef".repeat(32) },
            Message::Auth { proof: "01".repeat(32) },
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
        let hello = Peer::Job { job: 4, attempt: 1, run: Some("r1".into()) }.hello(&[0xab; 32]);
        assert_eq!(
            serde_json::to_string(&hello).unwrap(),
            format!(
                r#"{{"type":"hello","version":2,"role":"job","nonce":"{}","job":4,"attempt":1,"run":"r1"}}"#,
                "ab".repeat(32)
            )
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
        assert!(matches!(e, ReadError::TooLong(MAX_LINE)));
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
        assert_eq!(check_hello(&agent_hello(VERSION, vec![gpu("0")])).unwrap().1, [0xab; 32]);
        assert!(check_hello(&agent_hello(VERSION, vec![])).unwrap_err().contains("offers no slot"));
        assert!(check_hello(&agent_hello(VERSION, vec![gpu("0"), gpu("0")])).unwrap_err().contains("twice"));
        assert!(check_hello(&agent_hello(VERSION, vec![gpu("0,1")])).unwrap_err().contains("without commas"));
        let many: Vec<Slot> = (0..=MAX_SLOTS).map(|i| gpu(&i.to_string())).collect();
        assert!(check_hello(&agent_hello(VERSION, many)).unwrap_err().contains("at most 4096"));
        assert!(check_hello(&agent_hello(1, vec![gpu("0")])).unwrap_err().contains("version 1"));
        let mut short = agent_hello(VERSION, vec![gpu("0")]);
        if let Message::Hello { nonce, .. } = &mut short {
            *nonce = "ab".into();
        }
        assert!(check_hello(&short).unwrap_err().contains("nonce"));
        let job = Peer::Job { job: 1, attempt: 0, run: Some("../x".into()) }.hello(&[0; 32]);
        assert!(check_hello(&job).unwrap_err().contains("not a plain directory name"));
        assert!(check_hello(&Message::Heartbeat {}).unwrap_err().contains("must be a hello"));
    }

    #[test]
    fn a_hello_of_another_version_is_told_the_version_not_a_field() {
        let v1 = br#"{"type":"hello","version":1,"role":"agent","token":"secret","node":"n","slots":[]}"#;
        let e = parse_hello(v1).unwrap_err();
        assert!(e.contains("protocol version 1; the scheduler speaks 2"), "{e}");
        assert!(parse_hello(b"GET / HTTP/1.1").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn short_tokens_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "guessable\n").unwrap();
        let e = read_token(Some(&file)).unwrap_err();
        assert!(e.contains("a token of 9 bytes; at least 16"), "{e}");
        std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
        assert_eq!(read_token(Some(&file)).unwrap(), TOKEN);
        assert!(read_token(Some(&dir.path().join("missing"))).unwrap_err().contains("cannot read the token file"));
    }

    /// A connected pair of connections on loopback: (client, server).
    fn pair() -> (Connection, Connection) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = Connection::connect(&listener.local_addr().unwrap().to_string(), Duration::from_secs(5)).unwrap();
        let server = Connection::new(listener.accept().unwrap().0).unwrap();
        (client, server)
    }

    const PATIENCE: Duration = Duration::from_secs(10);

    /// Runs the scheduler's side on a thread; (its outcome, the server connection) by join.
    fn serve(
        mut server: Connection,
        token: &'static str,
    ) -> std::thread::JoinHandle<(Result<Peer, Rejected>, Connection)> {
        std::thread::spawn(move || {
            let outcome = server.accept(token, PATIENCE);
            if outcome.is_ok() {
                server.send(&Message::Welcome {}).unwrap();
            }
            (outcome, server)
        })
    }

    #[test]
    fn both_sides_prove_the_key_and_every_later_message_is_sealed() {
        let (mut client, server) = pair();
        let scheduler = serve(server, TOKEN);
        let peer = Peer::Agent { node: "n1".into(), slots: vec![gpu("0")] };
        client.handshake(&peer, &Key::agent(TOKEN), PATIENCE).unwrap();
        let (accepted, mut server) = scheduler.join().unwrap();
        assert_eq!(accepted.unwrap(), peer);
        client.send(&Message::Heartbeat {}).unwrap();
        assert_eq!(server.recv().unwrap(), Some(Message::Heartbeat {}));
        server.send(&Message::Shutdown {}).unwrap();
        assert_eq!(client.recv().unwrap(), Some(Message::Shutdown {}));
        // An unsealed message after the handshake is refused as forged.
        write_message(&mut server.writer.stream(), &Message::Shutdown {}).unwrap();
        assert!(matches!(client.recv(), Err(ReadError::Forged)));
    }

    #[test]
    fn a_wrong_token_fails_on_the_side_that_checks_first() {
        // The client checks the scheduler's proof first: it refuses to go on, proving nothing.
        let (mut client, server) = pair();
        let scheduler = serve(server, "another-token-of-enough-bytes");
        let peer = Peer::Agent { node: "n1".into(), slots: vec![gpu("0")] };
        let Err(Handshake::Refused(why)) = client.handshake(&peer, &Key::agent(TOKEN), PATIENCE) else { panic!() };
        assert!(why.contains("could not prove that it holds the same token"), "{why}");
        drop(client);
        let (accepted, _) = scheduler.join().unwrap();
        assert!(matches!(accepted, Err(Rejected::Gone(why)) if why.contains("another token")));
    }

    #[test]
    fn a_job_credential_proves_only_its_own_attempt() {
        let credential = Key::job(TOKEN, 4, 1, Some("r1"));
        let attempts = [
            (Peer::Job { job: 4, attempt: 1, run: Some("r1".into()) }, true),
            (Peer::Job { job: 4, attempt: 2, run: Some("r1".into()) }, false),
            (Peer::Job { job: 5, attempt: 1, run: Some("r1".into()) }, false),
            (Peer::Job { job: 4, attempt: 1, run: Some("r2".into()) }, false),
            (Peer::Agent { node: "n1".into(), slots: vec![gpu("0")] }, false),
        ];
        for (peer, welcome) in attempts {
            let (mut client, server) = pair();
            let scheduler = serve(server, TOKEN);
            let outcome = client.handshake(&peer, &credential, PATIENCE);
            assert_eq!(outcome.is_ok(), welcome, "{peer:?}: {outcome:?}");
            drop(client);
            assert_eq!(scheduler.join().unwrap().0.is_ok(), welcome, "{peer:?}");
        }
    }

    #[test]
    fn the_handshake_has_one_deadline_however_slowly_bytes_come() {
        let (client, mut server) = pair();
        // A byte every 50 ms, never a newline: each read gets something well within any
        // per-read timeout. It stops once the scheduler has closed the connection (or after
        // 30 s, which only a deadline that restarts at every byte would let it reach).
        let trickler = std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(30) {
                if (&client.writer.stream).write_all(b"{").is_err() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            false
        });
        let outcome = server.accept(TOKEN, Duration::from_millis(500));
        assert!(matches!(&outcome, Err(Rejected::Gone(why)) if why.contains("timed out")), "{outcome:?}");
        drop(server);
        assert!(trickler.join().unwrap(), "the trickling peer was cut off");
    }
}
