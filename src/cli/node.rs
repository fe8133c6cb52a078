//! `blox node`: the agent that runs on every node of a live cluster.

use crate::live::agent::{self, Config, Event};
use crate::live::protocol::{MAX_SLOTS, Slot, SlotKind, check_node_name, check_slots, read_token};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub(super) struct NodeArgs {
    /// The scheduler's address, HOST:PORT (jobs are told it too, as BLOX_SCHEDULER).
    #[arg(long, value_name = "HOST:PORT")]
    scheduler: String,
    /// The GPUs this node offers (CUDA indices), e.g. 0,1,2,3.
    #[arg(long, value_delimiter = ',', conflicts_with = "cpu_slots")]
    gpus: Vec<String>,
    /// On a machine without GPUs: offer N CPU slots instead (at most 4096).
    #[arg(long, value_name = "N")]
    cpu_slots: Option<u32>,
    /// File holding the shared token (default: $BLOX_TOKEN); never on the command line.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The node's name for the scheduler (default: the host name); unique among the agents
    /// connected (machines cloned from one image share their host name: give each a name).
    #[arg(long)]
    name: Option<String>,
    /// Jobs' output and checkpoints go under DIR/jobs/<job>/.
    #[arg(long, value_name = "DIR", default_value = "blox-node")]
    work_dir: PathBuf,
    /// Seconds a job gets between SIGTERM and SIGKILL when the node stops.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    shutdown_grace_s: f64,
    /// Seconds between heartbeats to the scheduler.
    #[arg(long, value_name = "S", default_value_t = 5.0, hide = true)]
    heartbeat_s: f64,
}

pub(super) fn node(args: NodeArgs) -> Result<ExitCode, String> {
    hide_secrets_from_jobs();
    let slots: Vec<Slot> = match args.cpu_slots {
        Some(n) if n as usize > MAX_SLOTS => {
            return Err(format!("--cpu-slots {n}: a node offers at most {MAX_SLOTS} slots"));
        }
        Some(n) => (0..n).map(|i| Slot { id: i.to_string(), kind: SlotKind::Cpu }).collect(),
        None => (args.gpus.iter().map(|id| id.trim()).filter(|id| !id.is_empty()))
            .map(|id| Slot { id: id.to_string(), kind: SlotKind::Gpu })
            .collect(),
    };
    if slots.is_empty() {
        return Err("this node offers no slot: give --gpus 0,1,... (its GPUs) or --cpu-slots N".into());
    }
    check_slots(&slots).map_err(|e| format!("this node cannot be offered: {e}"))?;
    let seconds = |value: f64, flag: &str| {
        Duration::try_from_secs_f64(value)
            .map_err(|_| format!("--{flag} must be a number of seconds >= 0, not {value}"))
    };
    let node = args.name.map_or_else(hostname, Ok)?;
    check_node_name(&node).map_err(|e| format!("{e}: give the node a name with --name"))?;
    let config = Config {
        token: read_token(args.token_file.as_deref())?,
        node,
        scheduler: args.scheduler,
        slots,
        work_dir: std::path::absolute(&args.work_dir).map_err(|e| format!("{}: {e}", args.work_dir.display()))?,
        heartbeat: seconds(args.heartbeat_s, "heartbeat-s")?.max(Duration::from_millis(100)),
        shutdown_grace: seconds(args.shutdown_grace_s, "shutdown-grace-s")?,
    };
    std::fs::create_dir_all(&config.work_dir)
        .map_err(|e| format!("cannot create the work directory {}: {e}", config.work_dir.display()))?;
    let (sender, events) = std::sync::mpsc::channel();
    let signals = sender.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = signals.send(Event::Stop);
    }) {
        eprintln!("warning: Ctrl-C and SIGTERM will not stop the jobs cleanly: {e}");
    }
    agent::run(config, sender, events)?;
    Ok(ExitCode::SUCCESS)
}

/// Jobs run as the agent's user: on Linux, the agent makes itself non-dumpable, so that they
/// cannot read its memory or its environment (where `BLOX_TOKEN` may be) through `/proc`. Its
/// jobs are dumpable again (exec resets it). A token file they can read is the operator's to
/// protect (docs/live-protocol.md, "Threat model").
fn hide_secrets_from_jobs() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_DUMPABLE takes a plain integer and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
    }
}

fn hostname() -> Result<String, String> {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname writes at most that much.
    if unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } != 0 {
        return Err(format!("cannot read the host name ({}): give --name", std::io::Error::last_os_error()));
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    Ok(String::from_utf8_lossy(&buffer[..end]).into_owned())
}
