//! `engine.live`: how the scheduler of a live run listens and what a job's process is, with
//! the checks that refuse at `blox validate` what would otherwise make every job fail to start
//! (an empty command, a placeholder that is never filled, an environment no process can get)
//! or the scheduler fail to listen.

use super::{Spec, SpecError, SpecSource, bounded, shorten};
use crate::policies::Positive;
use crate::text::escape_control;
use serde::{Deserialize, Deserializer, de};
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

/// The placeholders a job's command may hold, filled in per attempt.
pub const PLACEHOLDERS: [&str; 5] = ["job", "attempt", "gpus", "iterations", "work_s"];

/// Variables blox sets for each job, which `env` cannot give (its value would be overridden,
/// or, for `BLOX_TOKEN`, jobs never get the cluster's token): the agent's, and the
/// `torch.distributed` ones of a job placed on several nodes.
pub const JOB_VARIABLES: [&str; 16] = [
    "CUDA_VISIBLE_DEVICES",
    "BLOX_SLOTS",
    "BLOX_SCHEDULER",
    "BLOX_JOB_CREDENTIAL",
    "BLOX_JOB_ID",
    "BLOX_ATTEMPT",
    "BLOX_CHECKPOINT_DIR",
    "BLOX_RUN",
    "BLOX_TOKEN",
    "MASTER_ADDR",
    "MASTER_PORT",
    "WORLD_SIZE",
    "NNODES",
    "NODE_RANK",
    "RANK",
    "LOCAL_RANK",
];

/// `engine.live`: how the scheduler of a live run listens and what a job's process is.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LiveSpec {
    /// `HOST:PORT` the scheduler listens on for agents and jobs (port 0: any free port, written
    /// to `<experiment>/live-address`). Loopback unless given: other machines need an address.
    #[serde(default = "default_listen", deserialize_with = "listen_address")]
    pub listen: String,
    /// File holding the shared token (relative to the spec's directory); else `BLOX_TOKEN`.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
    /// A job's command: a shell string or an argv list, with `{job}`, `{attempt}`, `{gpus}`,
    /// `{iterations}` and `{work_s}` replaced by the job's values.
    #[serde(deserialize_with = "job_command")]
    pub command: LiveCommand,
    /// Iterations the command runs per second of a job's work (its `{iterations}` is
    /// `ceil(work_s * iterations_per_s)`); reported iterations measure its progress.
    #[serde(default = "one")]
    pub iterations_per_s: Positive,
    /// Seconds a preempted job has to checkpoint and exit before SIGKILL.
    #[serde(default = "default_grace", deserialize_with = "grace_seconds")]
    pub grace_s: f64,
    /// Seconds to wait for enough agents before a run fails.
    #[serde(default = "default_wait_for_nodes", deserialize_with = "wait_seconds")]
    pub wait_for_nodes_s: f64,
    /// Extra environment for every job.
    #[serde(default, deserialize_with = "job_env")]
    pub env: BTreeMap<String, String>,
    /// With `engine.executor: kubernetes`: the cluster to talk to and what its pods are.
    #[serde(default)]
    pub kubernetes: Option<KubernetesSpec>,
}

/// `engine.live.kubernetes`: the API server a `kubernetes` executor talks to and what each
/// job's pod is. The grace period of a preempted pod is `engine.live.grace_s`.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct KubernetesSpec {
    /// The kubeconfig file (relative to the spec's directory). Without it: the service account
    /// of the pod blox runs in, if it runs in one, else `KUBECONFIG`, else `~/.kube/config`.
    #[serde(default)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig's context to use; its `current-context` when not given.
    #[serde(default, deserialize_with = "optional_name")]
    pub context: Option<String>,
    /// Where the pods go: the context's namespace when not given, else `default`.
    #[serde(default, deserialize_with = "optional_dns_label")]
    pub namespace: Option<String>,
    /// The container image every job's command runs in.
    #[serde(deserialize_with = "image_name")]
    pub image: String,
    /// The extended resource a node's GPUs are (`nvidia.com/gpu`, `amd.com/gpu`, ...).
    #[serde(default = "default_gpu_resource", deserialize_with = "resource_name")]
    pub gpu_resource: String,
    /// A label selector (`gpu=a100,pool!=spot`) choosing the nodes blox may use; all when not given.
    #[serde(default, deserialize_with = "optional_name")]
    pub node_selector: Option<String>,
    /// `HOST:PORT` the pods reach the scheduler at; `listen`'s address when not given (which
    /// must then be one the pods can reach, not `0.0.0.0`).
    #[serde(default, deserialize_with = "optional_listen_address")]
    pub scheduler_address: Option<String>,
    /// A PersistentVolumeClaim mounted in every pod at `/blox-work`, where a job's checkpoints
    /// go (`BLOX_CHECKPOINT_DIR`); without it a preempted job resumes from its start.
    #[serde(default, deserialize_with = "optional_dns_label")]
    pub checkpoint_claim: Option<String>,
}

impl KubernetesSpec {
    /// With its kubeconfig's path relative to `base_dir` (the spec's directory).
    pub fn relative_to(mut self, base_dir: &Path) -> KubernetesSpec {
        self.kubeconfig = self.kubeconfig.map(|k| base_dir.join(k));
        self
    }
}

fn default_gpu_resource() -> String {
    "nvidia.com/gpu".into()
}

fn optional_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(d)?;
    if text.trim().is_empty() || text.contains(|c: char| c.is_control()) {
        return Err(de::Error::custom(format!(
            "`{}` is empty or holds control characters",
            escape_control(&shorten(&text))
        )));
    }
    Ok(Some(text))
}

fn optional_listen_address<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(d)?;
    check_listen(&text).map_err(|e| de::Error::custom(e.replacen("listen", "scheduler_address", 1)))?;
    Ok(Some(text))
}

/// A Kubernetes object name of one DNS label: lowercase letters, digits and `-`, at most 63.
fn is_dns_label(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 63
        && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !text.starts_with('-')
        && !text.ends_with('-')
}

fn optional_dns_label<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let text = String::deserialize(d)?;
    if !is_dns_label(&text) {
        return Err(de::Error::custom(format!(
            "`{}` is not a Kubernetes name (lowercase letters, digits and `-`, at most 63, not at either end)",
            escape_control(&shorten(&text))
        )));
    }
    Ok(Some(text))
}

fn image_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    if text.is_empty() || text.len() > 512 || text.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return Err(de::Error::custom(format!(
            "image `{}` is not a container image reference (e.g. `python:3.12-slim`, `registry.example.org/team/train:v3`)",
            escape_control(&shorten(&text))
        )));
    }
    Ok(text)
}

/// An extended resource name such as `nvidia.com/gpu`: a domain, `/`, a name.
fn resource_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    let part_ok = |p: &str| {
        !p.is_empty()
            && p.len() <= 63
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
    };
    match text.split_once('/') {
        Some((domain, name)) if part_ok(domain) && part_ok(name) && domain.contains('.') => Ok(text),
        _ => Err(de::Error::custom(format!(
            "gpu_resource `{}` is not an extended resource name such as `nvidia.com/gpu` or `amd.com/gpu`",
            escape_control(&shorten(&text))
        ))),
    }
}

/// `engine.executor`: what carries out a live run's launches and preemptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LiveExecutor {
    /// blox's own node agents (`blox node`), connected to the scheduler.
    #[default]
    Agents,
    /// Slurm: each part of an attempt is an `srun` job pinned to its node; no agent runs.
    Slurm,
    /// Kubernetes: each part of an attempt is a pod on its node (`engine.live.kubernetes`).
    Kubernetes,
}

/// A live job's command, before its placeholders are filled in.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum LiveCommand {
    /// Run with `sh -c`.
    Shell(String),
    /// Run directly, `argv[0]` looked up in `PATH`.
    Argv(Vec<String>),
}

fn default_listen() -> String {
    "127.0.0.1:7077".into()
}
fn one() -> Positive {
    Positive(1.0)
}
fn default_grace() -> f64 {
    30.0
}
fn default_wait_for_nodes() -> f64 {
    300.0
}
fn grace_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    bounded(d, "grace_s (seconds)", 0.0, 3600.0)
}
fn wait_seconds<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    bounded(d, "wait_for_nodes_s (seconds)", 1.0, 86_400.0)
}

fn listen_address<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = String::deserialize(d)?;
    check_listen(&text).map_err(de::Error::custom)?;
    Ok(text)
}

/// `HOST:PORT` with a port number and a host that is an IPv4 address, an IPv6 address in
/// brackets, or a host name (resolved when the scheduler starts).
fn check_listen(text: &str) -> Result<(), String> {
    let bad = |why: &str| {
        Err(format!(
            "listen `{}` {why}: give HOST:PORT, e.g. 127.0.0.1:7077 (this machine only), 0.0.0.0:7077 (every \
             interface), [::1]:7077, or port 0 for any free port",
            escape_control(&shorten(text))
        ))
    };
    let Some((host, port)) = text.rsplit_once(':') else { return bad("has no port") };
    if port.parse::<u16>().is_err() {
        return bad("has no port number from 0 to 65535 after its last `:`");
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return if v6.parse::<Ipv6Addr>().is_ok() { Ok(()) } else { bad("is not an IPv6 address in brackets") };
    }
    if host.contains(':') {
        return bad("holds an IPv6 address without brackets");
    }
    let labels: Vec<&str> = host.split('.').collect();
    let numeric = labels.iter().all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()));
    if numeric {
        return if host.parse::<Ipv4Addr>().is_ok() { Ok(()) } else { bad("is not an IPv4 address") };
    }
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if host.len() > 253 || !labels.iter().all(label_ok) {
        return bad("has no host name or address before its port");
    }
    Ok(())
}

fn job_command<'de, D: Deserializer<'de>>(d: D) -> Result<LiveCommand, D::Error> {
    let command = LiveCommand::deserialize(d)?;
    check_command(&command).map_err(de::Error::custom)?;
    Ok(command)
}

/// A command that can start: not empty, no NUL (no process can be given one), and every
/// `{name}` one of [`PLACEHOLDERS`] (a shell's own `${name}` is left alone).
fn check_command(command: &LiveCommand) -> Result<(), String> {
    let empty = "command is empty: every job would fail to start; give a shell string \
                 (`python3 train.py --iterations {iterations}`) or an argv list";
    let parts = match command {
        LiveCommand::Shell(script) if script.trim().is_empty() => return Err(empty.into()),
        LiveCommand::Shell(script) => std::slice::from_ref(script),
        LiveCommand::Argv(argv) if argv.is_empty() => return Err(empty.into()),
        LiveCommand::Argv(argv) if argv[0].trim().is_empty() => {
            return Err("command's first item (the program to run) is empty: every job would fail to start".into());
        }
        LiveCommand::Argv(argv) => argv.as_slice(),
    };
    for part in parts {
        if part.contains('\0') {
            return Err(format!(
                "command `{}` holds a NUL character, which no process can be given",
                escape_control(&shorten(part))
            ));
        }
        if let Some(unknown) = unknown_placeholder(part) {
            return Err(format!(
                "command holds `{{{unknown}}}`, which is not a placeholder: the placeholders are {} (a shell's \
                 own variables are written `${{name}}`)",
                PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
            ));
        }
    }
    Ok(())
}

/// The first `{name}` in `text` (a name of letters, digits and `_`, not after a `$`) that is not
/// a placeholder.
fn unknown_placeholder(text: &str) -> Option<&str> {
    let mut rest = text;
    let mut previous = None;
    while let Some(open) = rest.find('{') {
        let before = rest[..open].chars().next_back().or(previous);
        let after = &rest[open + 1..];
        let name_len = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
        let name = &after[..name_len];
        if !name.is_empty()
            && after[name_len..].starts_with('}')
            && before != Some('$')
            && !PLACEHOLDERS.contains(&name)
        {
            return Some(name);
        }
        previous = Some('{');
        rest = after;
    }
    None
}

fn job_env<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    let env = BTreeMap::<String, String>::deserialize(d)?;
    for (name, value) in &env {
        check_env(name, value).map_err(de::Error::custom)?;
    }
    Ok(env)
}

/// An environment variable a process can be given, and that blox does not set itself.
fn check_env(name: &str, value: &str) -> Result<(), String> {
    let shown = escape_control(&shorten(name)).into_owned();
    if name.is_empty() {
        return Err("env has a variable with an empty name".into());
    }
    if name.contains('=') {
        return Err(format!("env variable `{shown}` has `=` in its name, which ends a name in an environment"));
    }
    if name.contains('\0') || value.contains('\0') {
        return Err(format!("env variable `{shown}` holds a NUL character, which no process can be given"));
    }
    if JOB_VARIABLES.contains(&name) {
        return Err(format!(
            "env variable `{name}` is set by blox for each job (so are {}); choose another name",
            JOB_VARIABLES.iter().filter(|v| **v != name).copied().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(())
}

impl LiveSpec {
    /// Whether `engine.live.kubernetes` goes with the executor: it configures the `kubernetes`
    /// executor, which cannot run without it, and nothing else.
    pub fn check_executor(&self, executor: LiveExecutor) -> Result<(), String> {
        match (executor, &self.kubernetes) {
            (LiveExecutor::Kubernetes, None) => Err("`engine.executor: kubernetes` needs `engine.live.kubernetes` \
                                                    with at least the pods' `image`"
                .into()),
            (LiveExecutor::Agents | LiveExecutor::Slurm, Some(_)) => {
                Err("`engine.live.kubernetes` is for `engine.executor: kubernetes`".into())
            }
            _ => Ok(()),
        }
    }

    /// The shared token, from `token_file` (relative to `base_dir`) or `BLOX_TOKEN`.
    pub fn token(&self, base_dir: &Path) -> Result<String, String> {
        let file = self.token_file.as_ref().map(|f| base_dir.join(f));
        crate::live::protocol::read_token(file.as_deref())
    }
}

impl Spec {
    /// What `blox validate` checks of `engine.live` beyond the spec's text: that its
    /// `token_file` holds a usable token. (`BLOX_TOKEN` is the environment's of the run.)
    pub fn check_live_token(&self, source: &SpecSource) -> Result<(), SpecError> {
        let Some(live) = self.engine.live.as_ref().filter(|live| live.value.token_file.is_some()) else {
            return Ok(());
        };
        live.value.token(&source.base_dir).map(drop).map_err(|e| SpecError {
            file: source.file.clone(),
            position: (live.referenced.line() > 0).then(|| (live.referenced.line(), live.referenced.column())),
            message: format!("engine.live.token_file: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_are_checked() {
        for good in
            ["127.0.0.1:7077", "0.0.0.0:0", "[::1]:7077", "[::]:65535", "head-node.example.org:7077", "localhost:1"]
        {
            assert_eq!(check_listen(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("7077", "has no port"),
            ("127.0.0.1", "has no port"),
            ("127.0.0.1:70777", "has no port number"),
            ("127.0.0.1:", "has no port number"),
            ("999.0.0.1:7077", "not an IPv4 address"),
            ("::1:7077", "without brackets"),
            ("[zz]:7077", "not an IPv6 address"),
            (":7077", "no host name"),
            ("my host:7077", "no host name"),
        ] {
            let e = check_listen(bad).unwrap_err();
            assert!(e.contains(why) && e.contains("give HOST:PORT"), "{bad}: {e}");
        }
    }

    #[test]
    fn commands_are_checked() {
        let shell = |s: &str| check_command(&LiveCommand::Shell(s.into()));
        let argv = |a: &[&str]| check_command(&LiveCommand::Argv(a.iter().map(|s| s.to_string()).collect()));
        assert_eq!(shell("python3 train.py --iterations {iterations} --job {job} {attempt} {gpus} {work_s}"), Ok(()));
        assert_eq!(shell("awk '{print $1}' ${HOME}/x; f() { :; }"), Ok(()));
        assert_eq!(argv(&["python3", "{iterations}"]), Ok(()));
        assert!(shell("").unwrap_err().contains("command is empty"));
        assert!(shell("  \n").unwrap_err().contains("command is empty"));
        assert!(argv(&[]).unwrap_err().contains("command is empty"));
        assert!(argv(&["", "x"]).unwrap_err().contains("first item"));
        let e = shell("train.py --steps {iteration}").unwrap_err();
        assert!(e.contains("`{iteration}`, which is not a placeholder") && e.contains("{work_s}"), "{e}");
        assert!(argv(&["x", "--gpu={gpu_id}"]).unwrap_err().contains("`{gpu_id}`"));
        assert!(argv(&["x", "a\0b"]).unwrap_err().contains("NUL"));
    }

    #[test]
    fn env_names_are_checked() {
        assert_eq!(check_env("LR", "0.1"), Ok(()));
        assert!(check_env("", "x").unwrap_err().contains("empty name"));
        assert!(check_env("A=B", "x").unwrap_err().contains("`=` in its name"));
        assert!(check_env("A", "x\0").unwrap_err().contains("NUL"));
        assert!(check_env("BLOX_TOKEN", "x").unwrap_err().contains("set by blox for each job"));
        assert!(check_env("CUDA_VISIBLE_DEVICES", "0").unwrap_err().contains("set by blox"));
    }
}
