//! Live mode's status page, fetched over HTTP from a running experiment (`blox run` as the
//! scheduler, a `blox node` agent, jobs that sleep) as a browser would: refused without the
//! token, with it the nodes, the jobs on their slots, the queue in the policy's order and the
//! decisions, as HTML and JSON; malformed, oversized and slow requests refused while the agent
//! stays connected; the admission caps hold for HTTP as for the protocol; and the page opened
//! in headless Chromium.

// One live cluster at a time, shared with the comparison of tests/live/live_cluster.rs, whose
// wall-clock JCTs a concurrent cluster (or a browser) would slow down.
use crate::common::browser::{body_rows, check_screenshot, chromium, element, open_url, start_tags};
use crate::live_cluster::{Guard, exclusive};
use blox::live::scheduler::{Coordinator, HANDSHAKE_TIMEOUT, MAX_UNAUTHENTICATED, Settings};
use blox::live::status::{MAX_HEAD, MAX_HEADERS};
use blox::spec::LiveCommand;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BLOX: &str = env!("CARGO_BIN_EXE_blox");
const TOKEN: &str = "live-status-test-token";
const PATIENCE: Duration = Duration::from_secs(60);

/// A running experiment: one node of two slots, FIFO, jobs 0 and 1 (one slot each) running,
/// job 2 (two slots) and job 3 waiting behind them.
struct Cluster {
    // Fields drop in this order: the processes before their directory.
    _scheduler: Guard,
    _agent: Guard,
    dir: tempfile::TempDir,
    address: String,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        std::fs::write(path.join("token"), format!("{TOKEN}\n")).unwrap();
        std::fs::write(
            path.join("trace.csv"),
            "job_id,arrival_s,gpus,duration_s\n0,0,1,20\n1,0,1,20\n2,0,2,20\n3,0,1,20\n",
        )
        .unwrap();
        let spec = "name: live
engine:
  mode: live
  round_s: 1
  live:
    listen: 127.0.0.1:0
    token_file: token
    command: 'sleep 20'
    wait_for_nodes_s: 60
policies:
  - {label: FIFO, scheduler: fifo, placement: consolidated}
clusters:
  - {nodes: 1, gpus_per_node: 2}
workloads:
  - csv: {path: trace.csv}
";
        std::fs::write(path.join("live.yaml"), spec).unwrap();
        let scheduler = Guard(
            Command::new(BLOX)
                .args(["run", "live.yaml", "--out", "out", "--quiet"])
                .current_dir(path)
                .env_remove("BLOX_TOKEN")
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(path.join("scheduler.err")).unwrap())
                .spawn()
                .unwrap(),
        );
        let address_file = path.join("out/live/live-address");
        let deadline = Instant::now() + PATIENCE;
        let address = loop {
            if let Some(address) = std::fs::read_to_string(&address_file).ok().filter(|a| a.ends_with('\n')) {
                break address.trim().to_string();
            }
            assert!(Instant::now() < deadline, "no live-address:\n{}", log(path, "scheduler.err"));
            std::thread::sleep(Duration::from_millis(50));
        };
        let agent = Guard(
            Command::new(BLOX)
                .args(["node", "--scheduler", &address, "--cpu-slots", "2", "--name", "n0", "--token-file", "token"])
                .args(["--work-dir", "work", "--heartbeat-s", "0.5"])
                .current_dir(path)
                .env_remove("BLOX_TOKEN")
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(path.join("n0.err")).unwrap())
                .spawn()
                .unwrap(),
        );
        let cluster = Cluster { _scheduler: scheduler, _agent: agent, dir, address };
        let deadline = Instant::now() + PATIENCE;
        loop {
            let snapshot = cluster.json();
            let running = snapshot["queue"].as_array().map_or(0, |q| q.iter().filter(|j| j["running"] == true).count());
            if running == 2 && snapshot["decisions"].as_array().is_some_and(|d| d.len() >= 2) {
                return cluster;
            }
            let scheduler_log = log(cluster.dir.path(), "scheduler.err");
            assert!(Instant::now() < deadline, "the jobs never ran: {snapshot}\n{scheduler_log}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn get(&self, target: &str, password: &str) -> Answer {
        get_with_digest(&self.address, target, password)
    }

    fn json(&self) -> Value {
        let answer = self.get("/status.json", TOKEN);
        assert_eq!(answer.status, 200, "{}", answer.body);
        serde_json::from_str(&answer.body).unwrap()
    }
}

fn log(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

/// An HTTP answer: status, head and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.eq_ignore_ascii_case(name).then_some(v.trim())
        })
    }
}

/// Sends `request` as raw bytes and reads the answer to its end; `None` when the connection was
/// closed without one.
fn exchange(address: &str, request: &[u8]) -> Option<Answer> {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let _ = stream.write_all(request);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split(' ').nth(1)?.parse().ok()?;
    Some(Answer { status, head: head.to_string(), body: body.to_string() })
}

fn get(address: &str, target: &str, authorization: Option<&str>) -> Answer {
    let authorization = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    let request = format!("GET {target} HTTP/1.1\r\nHost: {address}\r\n{authorization}\r\n");
    exchange(address, request.as_bytes()).expect("an answer")
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// GET `target` as a browser does: without credentials, then answering the Digest challenge
/// (RFC 7616, SHA-256, qop=auth) with `password`.
fn get_with_digest(address: &str, target: &str, password: &str) -> Answer {
    let challenge = get(address, target, None);
    assert_eq!(challenge.status, 401, "{challenge:?}");
    let offered = challenge.header("WWW-Authenticate").expect("a challenge");
    assert!(offered.starts_with("Digest ") && offered.contains("algorithm=SHA-256"), "{offered}");
    let nonce = offered.split("nonce=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap();
    let realm = offered.split("realm=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap();
    let (cnonce, nc) = ("0a4f113b", "00000001");
    let ha1 = sha256_hex(&format!("operator:{realm}:{password}"));
    let ha2 = sha256_hex(&format!("GET:{target}"));
    let response = sha256_hex(&format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"));
    let authorization = format!(
        "Digest username=\"operator\", realm=\"{realm}\", nonce=\"{nonce}\", uri=\"{target}\", algorithm=SHA-256, \
         qop=auth, nc={nc}, cnonce=\"{cnonce}\", response=\"{response}\""
    );
    get(address, target, Some(&authorization))
}

/// With the token, the JSON and the page show the node, the jobs on its slots, the queue in
/// FIFO's order and the launches; without it (or with another, or with the token sent in clear
/// as Basic) the answer is 401 and says nothing. Nothing served holds the token.
#[test]
fn the_status_page_shows_the_running_experiment_to_the_token_holder_only() {
    let _cluster = exclusive();
    let cluster = Cluster::start();
    let snapshot = cluster.json();
    let run = &snapshot["run"];
    assert!(run["name"].as_str().unwrap().starts_with("FIFO_"), "{run}");
    assert_eq!(run["ended"], false);
    let nodes = snapshot["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1);
    let node = &nodes[0];
    assert_eq!((node["name"].as_str(), node["cluster_node"].as_u64()), (Some("n0"), Some(0)));
    assert_eq!(node["health"], "connected");
    assert!(node["last_heard_s"].as_f64().unwrap() < 5.0, "{node}");
    assert_eq!(node["slots"], serde_json::json!(["0", "1"]));
    let placed: Vec<(u64, String, &str)> = node["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["job"].as_u64().unwrap(), j["slots"].to_string(), j["phase"].as_str().unwrap()))
        .collect();
    assert_eq!(placed, [(0, r#"["0"]"#.into(), "running"), (1, r#"["1"]"#.into(), "running")]);
    let queue: Vec<(u64, bool)> = snapshot["queue"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["job"].as_u64().unwrap(), j["running"].as_bool().unwrap()))
        .collect();
    assert_eq!(queue, [(0, true), (1, true), (2, false), (3, false)]);
    let launches: Vec<u64> = snapshot["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["event"] == "launch")
        .map(|d| d["job"].as_u64().unwrap())
        .collect();
    assert_eq!(launches.len(), 2, "{}", snapshot["decisions"]);

    let page = cluster.get("/", TOKEN);
    assert_eq!(page.status, 200);
    assert_eq!(page.header("Content-Type"), Some("text/html; charset=utf-8"));
    let policy = page.header("Content-Security-Policy").unwrap();
    assert!(policy.starts_with("default-src 'none'; script-src 'sha256-") && policy.contains("connect-src 'self'"));
    assert!(
        page.body.contains("<table id=\"nodes\">") && page.body.contains("<td>n0</td><td>0</td><td>connected</td>")
    );
    assert!(page.body.contains("job 0 attempt 0 on 0 (running)"), "{}", page.body);
    assert!(page.body.contains("<table id=\"queue\">"));

    // Refused: no credentials, another password, the token as Basic, an unknown path.
    let bare = get(&cluster.address, "/status.json", None);
    assert_eq!(bare.status, 401);
    assert!(!bare.body.contains("n0"));
    assert_eq!(cluster.get("/status.json", "not-the-token-at-all").status, 401);
    let basic = format!("Basic {}", base64(format!("operator:{TOKEN}").as_bytes()));
    assert_eq!(get(&cluster.address, "/", Some(&basic)).status, 401);
    assert_eq!(cluster.get("/elsewhere", TOKEN).status, 404);
    // Read-only: HEAD has no body, POST is refused.
    let head = exchange(&cluster.address, b"HEAD / HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!((head.status, head.body.as_str()), (401, ""));
    let post = exchange(&cluster.address, b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").unwrap();
    assert_eq!(post.status, 405);
    for served in [&page.body, &cluster.json().to_string(), &bare.body, &bare.head] {
        assert!(!served.contains(TOKEN), "the token was served");
    }
}

/// Standard base64, for the Basic header the page must refuse.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// Oversized heads, too many headers, garbage, a body, a peer that sends part of a request and
/// then nothing, one that sends nothing: each refused or cut off at the handshake's deadline,
/// while the agent stays connected and its jobs keep running.
#[test]
fn bad_and_slow_requests_are_refused_without_disturbing_the_agents() {
    let _cluster = exclusive();
    let cluster = Cluster::start();
    let address = cluster.address.clone();
    let slow = |first: &'static [u8]| {
        let address = address.clone();
        std::thread::spawn(move || {
            let mut stream = TcpStream::connect(&address).unwrap();
            stream.write_all(first).unwrap();
            let started = Instant::now();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            (started.elapsed(), bytes)
        })
    };
    let partial = slow(b"GET / HTTP/1.1\r\nHost: x\r\n");
    let silent = slow(b"");

    let huge = format!("GET / HTTP/1.1\r\nX-Filler: {}\r\n\r\n", "a".repeat(MAX_HEAD));
    assert_eq!(exchange(&address, huge.as_bytes()).unwrap().status, 431);
    let endless = format!("GET / HTTP/1.1\r\nX-Filler: {}", "a".repeat(4 * MAX_HEAD));
    assert_eq!(exchange(&address, endless.as_bytes()).unwrap().status, 431);
    let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X-A: b\r\n".repeat(MAX_HEADERS + 1));
    assert_eq!(exchange(&address, many.as_bytes()).unwrap().status, 431);
    assert_eq!(exchange(&address, b"GARBAGE IN\r\n\r\n").unwrap().status, 400);
    assert_eq!(exchange(&address, b"GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").unwrap().status, 400);
    assert_eq!(exchange(&address, b"GET / SPDY/3\r\n\r\n").unwrap().status, 400);
    // Bytes that are neither HTTP nor a hello go to the protocol, which refuses them.
    let garbage = exchange(&address, b"\xff\xfe\x00garbage\n");
    assert!(garbage.is_none(), "{garbage:?}");

    for (name, waiter) in [("partial request", partial), ("silent peer", silent)] {
        let (waited, bytes) = waiter.join().unwrap();
        assert!(bytes.is_empty(), "{name}: answered {}", String::from_utf8_lossy(&bytes));
        assert!(
            waited >= HANDSHAKE_TIMEOUT - Duration::from_secs(2)
                && waited < HANDSHAKE_TIMEOUT + Duration::from_secs(10),
            "{name}: cut off after {waited:?}"
        );
    }
    let snapshot = cluster.json();
    let node = &snapshot["nodes"][0];
    assert_eq!(node["health"], "connected", "{snapshot}");
    assert!(node["last_heard_s"].as_f64().unwrap() < 2.0, "the agent's heartbeats still arrive: {node}");
    assert_eq!(node["jobs"].as_array().unwrap().len(), 2, "{node}");
    let scheduler_log = log(cluster.dir.path(), "scheduler.err");
    assert!(!scheduler_log.contains("is gone"), "{scheduler_log}");
    assert_eq!(log(cluster.dir.path(), "n0.err").matches("connected to the scheduler").count(), 1);
}

/// Requests count among the connections in their handshake: with as many idle ones open as
/// allowed, the next request is closed unanswered; once they are gone, it is served. Between
/// runs the page says no run has begun.
#[test]
fn status_requests_are_capped_like_handshakes() {
    let scheduler = Coordinator::start(Settings {
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
    .unwrap();
    let address = scheduler.address().to_string();
    let idle: Vec<TcpStream> = (0..MAX_UNAUTHENTICATED)
        .map(|_| {
            let mut stream = TcpStream::connect(&address).unwrap();
            stream.write_all(b"G").unwrap();
            stream
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert!(exchange(&address, b"GET / HTTP/1.1\r\n\r\n").is_none(), "a request past the cap was served");
    drop(idle);
    let deadline = Instant::now() + PATIENCE;
    let answer = loop {
        if let Some(answer) = exchange(&address, b"GET /status.json HTTP/1.1\r\n\r\n") {
            break answer;
        }
        assert!(Instant::now() < deadline, "no place freed");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(answer.status, 401);
    let snapshot: Value = serde_json::from_str(&get_with_digest(&address, "/status.json", TOKEN).body).unwrap();
    assert_eq!(snapshot["run"], Value::Null);
    assert!(get_with_digest(&address, "/", TOKEN).body.contains("No run has begun."));
}

/// Headless Chromium opens the page with the token (answering the Digest challenge from the
/// URL's credentials, as it would from its password dialog): the tables drawn, headers with
/// scopes and tables with captions, a `lang`, nothing referred to outside the page, the script's
/// poll of the JSON done (virtual time runs its timer) and no console message at all (a refused
/// script or style, a failed fetch or an exception would be one).
#[test]
fn the_status_page_renders_in_chromium() {
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium on PATH (CI installs the Debian package `chromium`)");
        return;
    };
    let _cluster = exclusive();
    let cluster = Cluster::start();
    let scratch = cluster.dir.path();
    let url = format!("http://operator:{TOKEN}@{}/", cluster.address);
    let opened = open_url(&browser, &url, "status", scratch, &["--virtual-time-budget=5000".into()]);
    let dom = &opened.dom;
    assert!(dom.contains("</html>"), "chromium dumped no page: {dom}");
    assert!(opened.console.is_empty(), "the console says\n{}", opened.console.join("\n"));
    let tags = start_tags(dom);
    assert_eq!(tags.iter().find(|t| t.name == "html").unwrap().attribute("lang"), Some("en"));
    let table = |id: &str| element(dom, tags.iter().find(|t| t.attribute("id") == Some(id)).expect(id));
    let nodes = table("nodes");
    assert_eq!(body_rows(nodes), 1);
    assert!(nodes.contains("<td>n0</td>") && nodes.contains("connected"), "{nodes}");
    assert_eq!(body_rows(table("queue")), 4);
    assert!(body_rows(table("decisions")) >= 2);
    let refreshed = element(dom, tags.iter().find(|t| t.attribute("id") == Some("refreshed")).unwrap());
    assert!(refreshed.contains("Refreshed at"), "the script's poll did not redraw the page: {refreshed}");
    for header in tags.iter().filter(|t| t.name == "th") {
        assert_eq!(header.attribute("scope"), Some("col"), "{}", element(dom, header));
    }
    let tables = tags.iter().filter(|t| t.name == "table").count();
    assert_eq!(tags.iter().filter(|t| t.name == "caption").count(), tables, "every table has a caption");
    for tag in &tags {
        for (name, value) in &tag.attributes {
            assert!(
                !matches!(name.as_str(), "src" | "href" | "action" | "srcset" | "poster"),
                "<{} {name}=\"{value}\"> refers to something to fetch",
                tag.name
            );
        }
    }
    assert!(!dom.contains(TOKEN), "the page shows the token");
    check_screenshot(&opened.screenshot, "status page");
}
