//! Live mode's status page: what the scheduler runs right now, for a browser, served on the
//! scheduler's own listener. A connection whose first byte is an ASCII capital letter is an HTTP
//! request (`GET /`); a protocol peer's first byte is the `{` of its hello.
//!
//! - `GET /` is the page: the nodes (their agents' health and the jobs on their slots), the run
//!   and its round, the queue in the policy's order and the recent decisions (launches,
//!   preemptions, ends with their reason). A small inline script, pinned by its hash in the
//!   Content-Security-Policy, polls `GET /status.json` (the same snapshot as JSON) and redraws
//!   the tables; nothing else may load.
//! - Read-only: `GET` and `HEAD` only, no request body, one request per connection. The
//!   request's head is bounded ([`MAX_HEAD`] bytes, [`MAX_HEADERS`] lines) and must arrive
//!   within the handshake's deadline, as a protocol peer's hello must.
//! - Authentication is HTTP Digest (RFC 7616, SHA-256, `qop=auth`) with the live token as the
//!   password and any user name: a browser asks for it and the token never crosses the wire,
//!   as in the protocol's handshake. Nonces carry their time and an HMAC under a key derived
//!   from the token, so they need no state and expire after [`NONCE_LIFETIME`]. The threat
//!   model is in `docs/live-protocol.md` ("Status page").
//! - The page holds no secret: no token, no job credential, no command line or environment.
//!   It is built from a [`StatusSnapshot`] the scheduler copies under its lock, so a slow
//!   browser never holds the lock.

use super::auth;
use crate::core::{JobSlot, JobTable, SimTime};
use crate::results::AttemptRow;
use crate::text::escape_markup;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The largest request head (request line and headers) read: a browser's is well under 2 KiB.
pub const MAX_HEAD: usize = 8 << 10;

/// The most header lines a request may have.
pub const MAX_HEADERS: usize = 48;

/// How long a nonce answers a challenge; a browser given `stale=true` retries with a fresh one.
pub const NONCE_LIFETIME: Duration = Duration::from_secs(300);

/// How long writing the answer to a slow reader may block.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// The most queue rows and decisions the page shows (the JSON says how many were left out).
const MAX_ROWS: usize = 200;

/// The realm browsers show in their password dialog.
const REALM: &str = "blox live";

/// How often the page asks for a new snapshot.
const REFRESH_MS: u32 = 2000;

/// What the scheduler keeps of the current run for the page, under its lock: the run's name,
/// its nodes, and the round engine's last booked round (its time and the policy's order).
#[derive(Debug, Default)]
pub struct RunBoard {
    run: Option<String>,
    /// Agent name of each cluster node.
    cluster_nodes: Vec<String>,
    round: u64,
    time_s: SimTime,
    ended: bool,
    queue: Vec<QueuedJob>,
}

impl RunBoard {
    /// Run `run` begins on the agents `cluster_nodes` (cluster node `i` is the `i`-th).
    pub fn begin(&mut self, run: &str, cluster_nodes: Vec<String>) {
        *self = RunBoard { run: Some(run.to_string()), cluster_nodes, ..RunBoard::default() };
    }

    /// The round engine booked round `round` at `time_s`: `order` is the policy's order of every
    /// active job.
    pub fn booked(&mut self, round: u64, time_s: SimTime, jobs: &JobTable, order: &[JobSlot]) {
        self.decided(
            round,
            time_s,
            order.iter().map(|&slot| {
                let job = &jobs[slot];
                QueuedJob {
                    job: job.spec.id,
                    gpus: job.spec.gpus,
                    running: job.is_running(),
                    done: done_share(job.life.executed_work, job.spec.work),
                }
            }),
        );
    }

    /// Decision `round` (a round, or an event engine's decision) at `time_s`: `queue` is every
    /// active job in the policy's order.
    pub fn decided(&mut self, round: u64, time_s: SimTime, queue: impl IntoIterator<Item = QueuedJob>) {
        self.round = round;
        self.time_s = time_s;
        self.queue.clear();
        self.queue.extend(queue);
    }

    pub fn end(&mut self) {
        self.ended = true;
    }

    pub fn run(&self) -> Option<&str> {
        self.run.as_deref()
    }
}

/// The share of `work` that `executed` is, for the queue's progress column.
pub fn done_share(executed: f64, work: f64) -> f64 {
    if work > 0.0 { (executed / work).clamp(0.0, 1.0) } else { 0.0 }
}

/// An agent as the scheduler sees it.
#[derive(Debug, Clone)]
pub struct AgentState {
    pub name: String,
    pub slots: Vec<String>,
    pub connected: bool,
    /// Whether its inventory arrived since it connected.
    pub inventory: bool,
    /// Processes of unwanted attempts still running there.
    pub leftovers: usize,
    pub last_heard: Instant,
}

/// Where an attempt of the current run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptPhase {
    /// Decided; waits for its slots.
    Waiting,
    Running,
    /// Asked to stop (preempted, or the run ends).
    Stopping,
    Ended,
}

/// An attempt of the current run, as the scheduler holds it.
#[derive(Debug, Clone)]
pub struct AttemptState {
    pub row: AttemptRow,
    pub phase: AttemptPhase,
    pub iterations: Option<u64>,
    pub total_iterations: u64,
}

/// Everything the page shows, copied from the scheduler's state at one instant.
#[derive(Debug, Clone, Serialize)]
pub struct StatusSnapshot {
    pub run: Option<RunStatus>,
    pub nodes: Vec<NodeStatus>,
    /// Active jobs in the policy's order (running ones included), at most [`MAX_ROWS`].
    pub queue: Vec<QueuedJob>,
    pub queue_left_out: usize,
    /// The most recent decisions first, at most [`MAX_ROWS`].
    pub decisions: Vec<Decision>,
    pub decisions_left_out: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunStatus {
    pub name: String,
    /// The last round the engine booked, and its time in the run's seconds.
    pub round: u64,
    pub round_time_s: f64,
    /// Seconds since the run began.
    pub clock_s: f64,
    pub ended: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeStatus {
    pub name: String,
    /// Which node of the run's cluster the agent is, if the run uses it.
    pub cluster_node: Option<usize>,
    pub health: Health,
    /// Seconds since the agent's last message (it sends a heartbeat every 5 s).
    pub last_heard_s: f64,
    pub slots: Vec<String>,
    /// The current run's attempts on its slots, waiting or running.
    pub jobs: Vec<PlacedJob>,
}

/// An agent's health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// Connected and usable.
    Connected,
    /// Connected; its inventory has not arrived yet.
    Syncing,
    /// Connected; attempts it should no longer run are still ending there.
    Draining,
    /// Its connection ended or it fell silent (an agent), or its cluster manager no longer offers
    /// it (a Slurm node drained, down or not responding): its node is out of the cluster.
    Lost,
}

impl Health {
    fn label(self) -> &'static str {
        match self {
            Health::Connected => "connected",
            Health::Syncing => "syncing",
            Health::Draining => "draining",
            Health::Lost => "lost",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PlacedJob {
    pub job: u64,
    pub attempt: u32,
    pub slots: Vec<String>,
    pub phase: AttemptPhase,
    pub iterations: Option<u64>,
    pub total_iterations: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct QueuedJob {
    pub job: u64,
    pub gpus: u32,
    pub running: bool,
    /// Share of its work done, 0 to 1.
    pub done: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// Seconds since the run began.
    pub at_s: f64,
    pub event: String,
    pub job: u64,
    pub attempt: u32,
    pub node: String,
    pub slots: String,
    /// Why it ended, for an end: exit status and the last line of its stderr.
    pub reason: String,
}

impl StatusSnapshot {
    /// The snapshot of `board`'s run at `clock_s` seconds, from the agents and the run's
    /// attempts.
    pub fn new(board: &RunBoard, clock_s: f64, agents: Vec<AgentState>, attempts: Vec<AttemptState>) -> StatusSnapshot {
        let now = Instant::now();
        let nodes = agents
            .into_iter()
            .map(|agent| {
                let mut jobs: Vec<PlacedJob> = attempts
                    .iter()
                    .filter(|a| a.row.node == agent.name && a.phase != AttemptPhase::Ended)
                    .map(|a| PlacedJob {
                        job: a.row.job_id,
                        attempt: a.row.attempt,
                        slots: a.row.slots.split(',').map(str::to_string).collect(),
                        phase: a.phase,
                        iterations: a.iterations,
                        total_iterations: a.total_iterations,
                    })
                    .collect();
                jobs.sort_by_key(|j| (j.job, j.attempt));
                let health = match agent {
                    AgentState { connected: false, .. } => Health::Lost,
                    AgentState { inventory: false, .. } => Health::Syncing,
                    AgentState { leftovers: 1.., .. } => Health::Draining,
                    _ => Health::Connected,
                };
                NodeStatus {
                    cluster_node: board.cluster_nodes.iter().position(|n| *n == agent.name),
                    health,
                    last_heard_s: now.saturating_duration_since(agent.last_heard).as_secs_f64(),
                    slots: agent.slots,
                    name: agent.name,
                    jobs,
                }
            })
            .collect();
        let mut decisions: Vec<Decision> = attempts.iter().flat_map(decisions_of).collect();
        decisions.sort_by(|a, b| b.at_s.total_cmp(&a.at_s).then(b.job.cmp(&a.job)));
        let decisions_left_out = decisions.len().saturating_sub(MAX_ROWS);
        decisions.truncate(MAX_ROWS);
        let queue_left_out = board.queue.len().saturating_sub(MAX_ROWS);
        StatusSnapshot {
            run: board.run.as_ref().map(|name| RunStatus {
                name: name.clone(),
                round: board.round,
                round_time_s: board.time_s,
                clock_s,
                ended: board.ended,
            }),
            nodes,
            queue: board.queue.iter().take(MAX_ROWS).cloned().collect(),
            queue_left_out,
            decisions,
            decisions_left_out,
        }
    }
}

/// An attempt's launch, its preemption and its end, as far as they happened.
fn decisions_of(attempt: &AttemptState) -> Vec<Decision> {
    let row = &attempt.row;
    let decision = |at_s: f64, event: &str, reason: String| Decision {
        at_s,
        event: event.to_string(),
        job: row.job_id,
        attempt: row.attempt,
        node: row.node.clone(),
        slots: row.slots.clone(),
        reason,
    };
    let mut out = vec![decision(row.launched, "launch", String::new())];
    if let Some(at) = row.preempted.filter(|_| row.end != "stopped_at_end") {
        out.push(decision(at, "preempt", String::new()));
    }
    if let (Some(at), AttemptPhase::Ended) = (row.ended, attempt.phase) {
        let event = if row.end.is_empty() { "exited" } else { row.end.as_str() };
        let mut reason = match (row.exit_code, row.signal) {
            (Some(code), _) => format!("exit status {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => String::new(),
        };
        if let Some(line) = row.stderr_tail.lines().rev().find(|l| !l.trim().is_empty()) {
            let line: String = line.chars().take(200).collect();
            reason = if reason.is_empty() { line } else { format!("{reason}: {line}") };
        }
        out.push(decision(at, &event.replace('_', " "), reason));
    }
    out
}

/// Whether the connection carries HTTP: waits until `deadline` for its first byte, without
/// consuming it. `Ok(false)` for a protocol peer and for a connection closed before a byte.
pub fn is_http(stream: &TcpStream, deadline: Instant) -> io::Result<bool> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::new(io::ErrorKind::TimedOut, "the deadline passed"));
    }
    stream.set_read_timeout(Some(left))?;
    let mut first = [0u8; 1];
    let n = stream.peek(&mut first)?;
    Ok(n == 1 && first[0].is_ascii_uppercase())
}

/// A request's head as far as the page needs it.
#[derive(Debug, PartialEq)]
struct Request {
    method: String,
    target: String,
    authorization: Option<String>,
}

/// Why a request is not answered with the page.
#[derive(Debug, PartialEq)]
enum Refusal {
    BadRequest(&'static str),
    HeadTooLarge,
    MethodNotAllowed,
    /// Read timed out or the peer went away: nothing is answered.
    Gone,
}

/// Serves one HTTP request on `stream`, whose head must arrive by `deadline`; `snapshot` is
/// called only for an authenticated request.
pub fn serve(mut stream: TcpStream, token: &str, deadline: Instant, snapshot: impl FnOnce() -> StatusSnapshot) {
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let request = read_head(&mut stream, deadline).and_then(|head| parse_head(&head));
    let head_only = request.as_ref().is_ok_and(|r| r.method == "HEAD");
    let mut response = match request {
        Err(Refusal::Gone) => return,
        Err(Refusal::BadRequest(why)) => Response::text(400, "Bad Request", why),
        Err(Refusal::HeadTooLarge) => Response::text(431, "Request Header Fields Too Large", "request head too large"),
        Err(Refusal::MethodNotAllowed) => {
            let mut response = Response::text(405, "Method Not Allowed", "the status page is read-only: GET or HEAD");
            response.headers.push(("Allow".into(), "GET, HEAD".into()));
            response
        }
        Ok(request) => match check_authorization(&request, token, unix_seconds()) {
            Err(stale) => {
                let mut response = Response::text(401, "Unauthorized", "the live token is the password");
                response.headers.push(("WWW-Authenticate".into(), challenge(token, unix_seconds(), stale)));
                response
            }
            Ok(()) => route(&request, snapshot),
        },
    };
    if head_only {
        response.headers.push(("Content-Length".into(), response.body.len().to_string()));
        response.body.clear();
    }
    let _ = response.write(&mut stream);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    drain(&mut stream);
}

/// Reads and drops what the client still sends (a body, the rest of an oversized head), for a
/// moment and up to a bound: closing with unread input resets the connection, and the client
/// could lose the answer.
fn drain(stream: &mut TcpStream) {
    let until = Instant::now() + Duration::from_millis(500);
    let mut buf = [0u8; 4096];
    let mut left = 4 * MAX_HEAD;
    while left > 0 {
        let wait = until.saturating_duration_since(Instant::now());
        if wait.is_zero() || stream.set_read_timeout(Some(wait)).is_err() {
            return;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => left = left.saturating_sub(n),
        }
    }
}

fn route(request: &Request, snapshot: impl FnOnce() -> StatusSnapshot) -> Response {
    let path = request.target.split('?').next().unwrap_or("");
    match path {
        "/" => Response::html(page(&snapshot())),
        "/status.json" => match serde_json::to_vec(&snapshot()) {
            Ok(json) => Response {
                status: 200,
                reason: "OK",
                headers: Vec::new(),
                content_type: "application/json",
                body: json,
            },
            Err(e) => Response::text(500, "Internal Server Error", &e.to_string()),
        },
        _ => Response::text(404, "Not Found", "no such page: the status page is / and its data /status.json"),
    }
}

/// Reads up to the blank line ending the head, within `deadline` and [`MAX_HEAD`] bytes.
fn read_head(stream: &mut TcpStream, deadline: Instant) -> Result<Vec<u8>, Refusal> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return Err(Refusal::Gone);
        }
        // Peek, then consume only up to the end of the head: a body is never read.
        let n = match stream.peek(&mut buf) {
            Ok(0) | Err(_) => return Err(Refusal::Gone),
            Ok(n) => n,
        };
        let before = head.len();
        head.extend_from_slice(&buf[..n]);
        let end = find_end_of_head(&head, before);
        let take = end.map_or(n, |end| end - before);
        if stream.read_exact(&mut buf[..take]).is_err() {
            return Err(Refusal::Gone);
        }
        if let Some(end) = end {
            head.truncate(end);
            return if end > MAX_HEAD { Err(Refusal::HeadTooLarge) } else { Ok(head) };
        }
        if head.len() > MAX_HEAD {
            return Err(Refusal::HeadTooLarge);
        }
    }
}

/// Where the head ends (just after its blank line), looking from a little before `from`.
fn find_end_of_head(head: &[u8], from: usize) -> Option<usize> {
    let start = from.saturating_sub(3);
    (start..head.len()).find_map(|i| {
        if head[i..].starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else if head[i..].starts_with(b"\n\n") {
            Some(i + 2)
        } else {
            None
        }
    })
}

fn parse_head(head: &[u8]) -> Result<Request, Refusal> {
    let text = std::str::from_utf8(head).map_err(|_| Refusal::BadRequest("the request head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).filter(|l| !l.is_empty());
    let request_line = lines.next().ok_or(Refusal::BadRequest("no request line"))?;
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Refusal::BadRequest("a request line is METHOD TARGET HTTP/1.1"));
    };
    if !matches!(version, "HTTP/1.0" | "HTTP/1.1") {
        return Err(Refusal::BadRequest("only HTTP/1.0 and HTTP/1.1"));
    }
    if !target.starts_with('/') {
        return Err(Refusal::BadRequest("the target must be a path"));
    }
    let mut authorization = None;
    for (count, line) in lines.enumerate() {
        if count >= MAX_HEADERS {
            return Err(Refusal::HeadTooLarge);
        }
        let (name, value) = line.split_once(':').ok_or(Refusal::BadRequest("a header line without a colon"))?;
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "authorization" if authorization.is_some() => return Err(Refusal::BadRequest("two Authorization headers")),
            "authorization" => authorization = Some(value.to_string()),
            "content-length" if value != "0" => return Err(Refusal::BadRequest("the status page takes no body")),
            "transfer-encoding" => return Err(Refusal::BadRequest("the status page takes no body")),
            _ => {}
        }
    }
    if !matches!(method, "GET" | "HEAD") {
        return Err(Refusal::MethodNotAllowed);
    }
    Ok(Request { method: method.to_string(), target: target.to_string(), authorization })
}

fn unix_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// A nonce issued at `time`: the time and its MAC, so that it can be checked without state.
fn nonce(token: &str, time: u64) -> String {
    let stamp = format!("{time:016x}");
    // The MAC's key is the token under a label of its own, so it stands for nothing else.
    format!("{stamp}{}", auth::hex(&auth::hmac(token.as_bytes(), &[b"blox-live-2 status nonce\0", stamp.as_bytes()])))
}

/// The `WWW-Authenticate` value of a Digest challenge.
fn challenge(token: &str, time: u64, stale: bool) -> String {
    let stale = if stale { ", stale=true" } else { "" };
    format!(
        "Digest realm=\"{REALM}\", qop=\"auth\", algorithm=SHA-256, nonce=\"{}\", charset=UTF-8{stale}",
        nonce(token, time)
    )
}

/// Whether `request` carries a Digest answer made with the token; `Err(true)` for a right answer
/// to an expired nonce (the browser retries with a fresh one without asking).
fn check_authorization(request: &Request, token: &str, now: u64) -> Result<(), bool> {
    let header = request.authorization.as_deref().ok_or(false)?;
    let params = header.strip_prefix("Digest ").map(digest_params).ok_or(false)?;
    let get = |name: &str| params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    let (Some(user), Some(nonce_text), Some(uri), Some(response), Some(nc), Some(cnonce)) =
        (get("username"), get("nonce"), get("uri"), get("response"), get("nc"), get("cnonce"))
    else {
        return Err(false);
    };
    if get("realm") != Some(REALM)
        || get("qop") != Some("auth")
        || !get("algorithm").is_some_and(|a| a.eq_ignore_ascii_case("SHA-256"))
        || uri != request.target
    {
        return Err(false);
    }
    let issued = nonce_text.get(..16).and_then(|t| u64::from_str_radix(t, 16).ok()).ok_or(false)?;
    if !auth::same_bytes(nonce_text.as_bytes(), nonce(token, issued).as_bytes()) {
        return Err(false);
    }
    let ha1 = sha256_hex(&format!("{user}:{REALM}:{token}"));
    let expected = digest_response(&ha1, &request.method, uri, nonce_text, nc, cnonce);
    if !auth::same_bytes(response.as_bytes(), expected.as_bytes()) {
        return Err(false);
    }
    if now.saturating_sub(issued) > NONCE_LIFETIME.as_secs() || issued > now + 60 {
        return Err(true);
    }
    Ok(())
}

fn sha256_hex(text: &str) -> String {
    crate::digest::hex(&Sha256::digest(text.as_bytes()))
}

/// RFC 7616's `response` for `qop=auth` and SHA-256, from `ha1` = SHA-256 of
/// `user:realm:password`.
fn digest_response(ha1: &str, method: &str, uri: &str, nonce: &str, nc: &str, cnonce: &str) -> String {
    let ha2 = sha256_hex(&format!("{method}:{uri}"));
    sha256_hex(&format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"))
}

/// The `name=value` pairs of a Digest header, values quoted or bare.
fn digest_params(text: &str) -> Vec<(String, String)> {
    let mut params = Vec::new();
    let mut rest = text.trim_start();
    while let Some((name, after)) = rest.split_once('=') {
        let name = name.trim().trim_start_matches(',').trim().to_string();
        let after = after.trim_start();
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = quoted.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => value.push(c),
                }
            }
            (value, &quoted[end..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim().to_string(), &after[end..])
        };
        params.push((name, value));
        rest = tail.trim_start().trim_start_matches(',').trim_start();
    }
    params
}

struct Response {
    status: u16,
    reason: &'static str,
    headers: Vec<(String, String)>,
    content_type: &'static str,
    body: Vec<u8>,
}

impl Response {
    fn text(status: u16, reason: &'static str, text: &str) -> Response {
        Response {
            status,
            reason,
            headers: Vec::new(),
            content_type: "text/plain; charset=utf-8",
            body: format!("{text}\n").into_bytes(),
        }
    }

    fn html(page: String) -> Response {
        let headers = vec![("Content-Security-Policy".into(), content_security_policy())];
        Response {
            status: 200,
            reason: "OK",
            headers,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
        }
    }

    fn write(&self, stream: &mut TcpStream) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\nContent-Type: {}\r\n", self.status, self.reason, self.content_type);
        if !self.headers.iter().any(|(n, _)| n == "Content-Length") {
            let _ = write!(head, "Content-Length: {}\r\n", self.body.len());
        }
        for (name, value) in &self.headers {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        head.push_str(
            "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n\
             X-Frame-Options: DENY\r\nConnection: close\r\n\r\n",
        );
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.body);
        stream.write_all(&bytes)?;
        stream.flush()
    }
}

const STYLE: &str = "\
body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem;color:#1b1b1b;background:#fff}\
h1{font-size:1.4rem;margin:0 0 .3rem}h2{font-size:1.1rem;margin:1.5rem 0 .4rem}\
table{border-collapse:collapse;min-width:40%}caption{text-align:left;color:#444;padding:.2rem 0}\
th,td{border-bottom:1px solid #ccc;padding:.25rem .6rem;text-align:left;vertical-align:top}\
th{background:#f0f0f0}\
p.meta{color:#444;margin:.2rem 0}";

/// Redraws the tables from `/status.json` every [`REFRESH_MS`]; the URL is the page's origin
/// (never its credentials), and the browser answers the Digest challenge from its cache.
const SCRIPT: &str = include_str!("status.js");

fn script() -> String {
    SCRIPT.replace("REFRESH", &REFRESH_MS.to_string())
}

fn content_security_policy() -> String {
    let hash = |text: &str| crate::report::base64(&Sha256::digest(text.as_bytes()));
    format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; connect-src 'self'; base-uri 'none'; \
         form-action 'none'; frame-ancestors 'none'",
        hash(&script()),
        hash(STYLE)
    )
}

fn run_line(run: Option<&RunStatus>) -> String {
    match run {
        None => "No run has begun.".into(),
        Some(r) => format!(
            "Run {}, round {} ({:.1} s), {:.1} s since it began{}",
            r.name,
            r.round,
            r.round_time_s,
            r.clock_s,
            if r.ended { "; ended." } else { "." }
        ),
    }
}

/// One table: its id, caption, column headers and rows of cell text (escaped here).
fn table(out: &mut String, id: &str, caption: &str, headers: &[&str], rows: impl Iterator<Item = Vec<String>>) {
    let _ = write!(out, "<table id=\"{id}\"><caption>{}</caption><thead><tr>", escape_markup(caption));
    for header in headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape_markup(header));
    }
    out.push_str("</tr></thead><tbody>");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{}</td>", escape_markup(&cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
}

/// The page, drawn from `snapshot` (the script redraws the same tables from the JSON).
pub fn page(snapshot: &StatusSnapshot) -> String {
    let mut out = String::with_capacity(16 << 10);
    let title = match &snapshot.run {
        Some(run) => format!("blox live: {}", run.name),
        None => "blox live".into(),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n\
         <p class=\"meta\" id=\"run\">{}</p>\n<p class=\"meta\" id=\"refreshed\" aria-live=\"polite\">As loaded; \
         refreshed every {} s.</p>\n</header>\n<main>\n<h2>Nodes</h2>\n",
        escape_markup(&title),
        escape_markup(&title),
        escape_markup(&run_line(snapshot.run.as_ref())),
        REFRESH_MS / 1000
    );
    table(
        &mut out,
        "nodes",
        "Each agent, the cluster node it is in this run, its health and the jobs on its slots",
        &["Node", "Cluster node", "Health", "Last heard", "Slots", "Jobs"],
        snapshot.nodes.iter().map(|n| {
            vec![
                n.name.clone(),
                n.cluster_node.map_or("not used".into(), |i| i.to_string()),
                n.health.label().into(),
                format!("{:.1} s ago", n.last_heard_s),
                n.slots.join(", "),
                n.jobs
                    .iter()
                    .map(|j| {
                        let phase = serde_json::to_value(j.phase).ok().and_then(|v| v.as_str().map(str::to_string));
                        format!(
                            "job {} attempt {} on {} ({})",
                            j.job,
                            j.attempt,
                            j.slots.join(","),
                            phase.unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        }),
    );
    out.push_str("<h2>Queue</h2>\n");
    table(
        &mut out,
        "queue",
        "Active jobs in the policy's order at the last round",
        &["Position", "Job", "GPUs", "State", "Done"],
        snapshot.queue.iter().enumerate().map(|(i, q)| {
            vec![
                (i + 1).to_string(),
                q.job.to_string(),
                q.gpus.to_string(),
                if q.running { "running" } else { "waiting" }.into(),
                format!("{} %", (q.done * 100.0).round()),
            ]
        }),
    );
    out.push_str("<h2>Recent decisions</h2>\n");
    table(
        &mut out,
        "decisions",
        "Launches, preemptions and ends of this run's attempts, the latest first (times in seconds since the run began)",
        &["Time (s)", "Event", "Job", "Attempt", "Node", "Slots", "Reason"],
        snapshot.decisions.iter().map(|d| {
            vec![
                format!("{:.1}", d.at_s),
                d.event.clone(),
                d.job.to_string(),
                d.attempt.to_string(),
                d.node.clone(),
                d.slots.clone(),
                d.reason.clone(),
            ]
        }),
    );
    let _ = write!(out, "</main>\n<script>{}</script>\n</body>\n</html>\n", script());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "a-token-long-enough-to-use";

    /// RFC 7616 section 3.9.1's example, SHA-256.
    #[test]
    fn digest_responses_match_rfc_7616() {
        let ha1 = sha256_hex("Mufasa:http-auth@example.org:Circle of Life");
        let response = digest_response(
            &ha1,
            "GET",
            "/dir/index.html",
            "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
            "00000001",
            "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
        );
        assert_eq!(response, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1");
    }

    #[test]
    fn digest_parameters_are_read_quoted_or_bare() {
        let params = digest_params(r#"username="a \"b\", c", realm="blox live",nc=00000001 , qop=auth, uri="/""#);
        let get = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        assert_eq!(get("username"), Some(r#"a "b", c"#));
        assert_eq!(get("realm"), Some("blox live"));
        assert_eq!(get("nc"), Some("00000001"));
        assert_eq!(get("qop"), Some("auth"));
        assert_eq!(get("uri"), Some("/"));
        assert!(digest_params("").is_empty());
        assert_eq!(digest_params(r#"x=""#), [("x".to_string(), String::new())]);
    }

    fn answered(issued: u64, user: &str, password: &str, uri: &str, target: &str) -> Request {
        let nonce = nonce(TOKEN, issued);
        let ha1 = sha256_hex(&format!("{user}:{REALM}:{password}"));
        let response = digest_response(&ha1, "GET", uri, &nonce, "00000001", "abc");
        Request {
            method: "GET".into(),
            target: target.into(),
            authorization: Some(format!(
                "Digest username=\"{user}\", realm=\"{REALM}\", nonce=\"{nonce}\", uri=\"{uri}\", algorithm=SHA-256, \
                 response=\"{response}\", qop=auth, nc=00000001, cnonce=\"abc\""
            )),
        }
    }

    #[test]
    fn only_an_answer_made_with_the_token_to_a_fresh_nonce_of_ours_passes() {
        let now = 1_800_000_000;
        assert_eq!(check_authorization(&answered(now, "anyone", TOKEN, "/", "/"), TOKEN, now), Ok(()));
        assert_eq!(check_authorization(&answered(now - 10, "blox", TOKEN, "/x", "/x"), TOKEN, now), Ok(()));
        // Another password, another target than the one answered for, no header at all.
        assert_eq!(check_authorization(&answered(now, "blox", "guess", "/", "/"), TOKEN, now), Err(false));
        assert_eq!(check_authorization(&answered(now, "blox", TOKEN, "/", "/status.json"), TOKEN, now), Err(false));
        let mut bare = answered(now, "blox", TOKEN, "/", "/");
        bare.authorization = None;
        assert_eq!(check_authorization(&bare, TOKEN, now), Err(false));
        // The token itself, as Basic would send it, is not accepted.
        bare.authorization = Some(format!("Basic {}", crate::report::base64(format!("blox:{TOKEN}").as_bytes())));
        assert_eq!(check_authorization(&bare, TOKEN, now), Err(false));
        // A nonce not ours (its MAC made with another token), and an expired one: stale.
        let foreign = answered(now, "blox", TOKEN, "/", "/");
        assert_eq!(check_authorization(&foreign, "another-token-long-enough", now), Err(false));
        let old = now - NONCE_LIFETIME.as_secs() - 1;
        assert_eq!(check_authorization(&answered(old, "blox", TOKEN, "/", "/"), TOKEN, now), Err(true));
    }

    fn head(text: &str) -> Result<Request, Refusal> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn request_heads_are_parsed_strictly() {
        let request = head("GET /status.json HTTP/1.1\r\nHost: x\r\nAuthorization: Digest a=b\r\n\r\n").unwrap();
        assert_eq!(request.target, "/status.json");
        assert_eq!(request.authorization.as_deref(), Some("Digest a=b"));
        assert_eq!(head("HEAD / HTTP/1.0\n\n").unwrap().method, "HEAD");
        assert_eq!(head("POST / HTTP/1.1\r\n\r\n"), Err(Refusal::MethodNotAllowed));
        assert!(matches!(head("GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GET / HTTP/2\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GET http://elsewhere/ HTTP/1.1\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GET  / HTTP/1.1\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GARBAGE\r\n\r\n"), Err(Refusal::BadRequest(_))));
        assert!(matches!(head("GET / HTTP/1.1\r\nno colon\r\n\r\n"), Err(Refusal::BadRequest(_))));
        let two = "GET / HTTP/1.1\r\nAuthorization: a\r\nauthorization: b\r\n\r\n";
        assert!(matches!(head(two), Err(Refusal::BadRequest(_))));
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X: y\r\n".repeat(MAX_HEADERS + 1));
        assert_eq!(head(&many), Err(Refusal::HeadTooLarge));
        assert!(parse_head(b"GET / HTTP/1.1\r\nX: \xff\r\n\r\n").is_err());
    }

    #[test]
    fn the_end_of_a_head_is_found_across_reads() {
        assert_eq!(find_end_of_head(b"GET / HTTP/1.1\r\n\r\nbody", 0), Some(18));
        assert_eq!(find_end_of_head(b"GET / HTTP/1.1\r\n\r\n", 16), Some(18));
        assert_eq!(find_end_of_head(b"GET / HTTP/1.1\n\n", 15), Some(16));
        assert_eq!(find_end_of_head(b"GET / HTTP/1.1\r\n", 0), None);
    }

    /// The page escapes what agents and jobs chose (node names, stderr), and its script is the
    /// one the policy pins.
    #[test]
    fn the_page_escapes_what_peers_chose_and_pins_its_script() {
        let mut board = RunBoard::default();
        board.begin("run-1", vec!["<b>n</b>".into()]);
        let agent = AgentState {
            name: "<b>n</b>".into(),
            slots: vec!["0".into()],
            connected: true,
            inventory: true,
            leftovers: 0,
            last_heard: Instant::now(),
        };
        let row = AttemptRow {
            job_id: 4,
            attempt: 1,
            node: "<b>n</b>".into(),
            slots: "0".into(),
            launched: 1.0,
            ended: Some(2.0),
            end: "failed".into(),
            exit_code: Some(3),
            stderr_tail: "Traceback\n<script>alert(1)</script>\n".into(),
            ..AttemptRow::default()
        };
        let attempt = AttemptState { row, phase: AttemptPhase::Ended, iterations: None, total_iterations: 10 };
        let snapshot = StatusSnapshot::new(&board, 2.5, vec![agent], vec![attempt]);
        assert_eq!(snapshot.nodes[0].cluster_node, Some(0));
        assert_eq!(snapshot.nodes[0].health, Health::Connected);
        assert_eq!(snapshot.decisions.len(), 2);
        assert_eq!(snapshot.decisions[0].event, "failed");
        assert_eq!(snapshot.decisions[0].reason, "exit status 3: <script>alert(1)</script>");
        let html = page(&snapshot);
        assert!(!html.contains("<b>n</b>") && html.contains("&lt;b&gt;n&lt;/b&gt;"));
        assert!(!html.contains("<script>alert") && html.contains("&lt;script&gt;alert(1)"));
        assert_eq!(html.matches("<script>").count(), 1);
        let script_start = html.find("<script>").unwrap() + "<script>".len();
        let script_end = html[script_start..].find("</script>").unwrap() + script_start;
        let hash = crate::report::base64(&Sha256::digest(&html.as_bytes()[script_start..script_end]));
        assert!(content_security_policy().contains(&format!("script-src 'sha256-{hash}'")));
        let style_start = html.find("<style>").unwrap() + "<style>".len();
        let style_end = html.find("</style>").unwrap();
        let hash = crate::report::base64(&Sha256::digest(&html.as_bytes()[style_start..style_end]));
        assert!(content_security_policy().contains(&format!("style-src 'sha256-{hash}'")));
    }
}
