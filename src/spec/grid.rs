//! Expansion of a spec into its runs: policies x clusters x workloads x loads x seeds (clusters and
//! workloads paired by position instead when `zip_clusters_workloads`).
//!
//! The order is fixed (loads innermost, as in Blox's config lists) and every run gets a key that
//! is a readable prefix plus a hash of its label, its fully resolved configuration, the contents
//! of the files it reads ([`InputDigests`]) and the hash of blox's result-deciding sources
//! ([`crate::version::SOURCE_HASH`]). Reruns recognise finished runs even after the grid grows,
//! and a change to a run's config, to an input file or to the simulation code gives it a new key.
//! Two labels that read the same once made file-name safe (`A B`, `A-B`) still get distinct keys.

use super::inputs::InputDigests;
use super::{ClusterEntry, EngineMode, PolicyEntry, Spec, TrackSpec};
use crate::core::engine::Policies;
use crate::core::events::{EventConfig, EventPolicy, MakePlacement};
use crate::core::{RunConfig, Tracking};
use crate::policies::{BuildContext, InputReader, OverheadSpec, PlacementSpec};
use crate::profiles::ThroughputTable;
use crate::results::RunInfo;
use crate::workload::WorkloadSpec;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// One point of the grid, resolved.
#[derive(Debug, Clone)]
pub struct RunPlan {
    pub index: usize,
    pub policy: PolicyEntry,
    pub cluster: ClusterEntry,
    pub workload: WorkloadSpec,
    pub load: Option<f64>,
    pub seed: u64,
    pub overhead: OverheadSpec,
    pub mode: EngineMode,
    /// Events mode: the slot in seconds.
    pub slot_s: f64,
    pub config: RunConfig,
    pub info: RunInfo,
}

impl RunPlan {
    /// Whether the run is the event engine's: in events mode, and in live mode for an event
    /// scheduler.
    pub fn runs_on_events(&self) -> bool {
        match self.mode {
            EngineMode::Events => true,
            EngineMode::Live => self.policy.scheduler.value.info().engine == crate::policies::Engine::Events,
            EngineMode::Rounds | EngineMode::Placements => false,
        }
    }

    /// What the run's policies are built with; `inputs` reads the files they declared.
    pub fn build_context<'a>(&'a self, base_dir: &'a Path, inputs: &'a dyn InputReader) -> BuildContext<'a> {
        BuildContext {
            load: self.load,
            base_dir,
            round_seconds: self.config.round_seconds,
            cluster: &self.config.cluster,
            seed: self.seed,
            inputs,
        }
    }

    /// The round engine's policies (rounds and live mode).
    pub fn round_policies(&self, ctx: &BuildContext) -> Result<Policies, String> {
        let decision = self.policy.scheduler.value.build_round(ctx, &self.policy.placement.value)?;
        Ok(Policies {
            admission: self.policy.admission.build_admission(ctx)?,
            decision,
            overhead: self.overhead.build_overhead(ctx)?,
        })
    }

    /// The event engine's policy, and the placement the spec gives it instead of the policy's
    /// own when it names one for the event engine (yarn).
    pub fn event_policy(&self, ctx: &BuildContext) -> Result<(Box<dyn EventPolicy>, Option<MakePlacement>), String> {
        let policy = self.policy.scheduler.value.build_event(ctx)?;
        let placement = self.policy.placement.value.build_event_placement(ctx)?;
        Ok((policy, placement))
    }

    /// The event engine's configuration: the cluster, the slot and its GPU type's throughputs;
    /// an error for a cluster the event engine cannot run (spec validation rejects it first).
    pub fn event_config(&self) -> Result<EventConfig, String> {
        let gpu = self.cluster.gpu_type().map(|t| t.name()).unwrap_or("a mix of types");
        let table = ThroughputTable::for_gpu(gpu).ok_or_else(|| {
            format!("cluster `{}`: no throughput profile for `gpu: {gpu}` in the event engine", self.cluster.label())
        })?;
        Ok(EventConfig {
            cluster: self.config.cluster.clone(),
            slot: self.slot_s,
            throughput: Arc::new(table.clone()),
            record_timeline: self.config.record_timeline,
        })
    }
}

/// All runs of `spec`, in grid order; `inputs` are the digests of the files its runs read.
pub fn expand(spec: &Spec, inputs: &InputDigests) -> Vec<RunPlan> {
    let engine = &spec.engine;
    let tracking = match spec.measure.track.value {
        TrackSpec::All => Tracking::All,
        TrackSpec::Ids(w) => Tracking::Ids { first: w.first, last: w.last },
    };
    let mut plans = Vec::new();
    for policy in &spec.policies.value {
        for (ci, cluster) in spec.clusters.value.iter().enumerate() {
            for (wi, workload) in spec.workloads.value.iter().enumerate() {
                if spec.zip_clusters_workloads.value && ci != wi {
                    continue;
                }
                let workload = &workload.value;
                let loads: Vec<Option<f64>> =
                    if workload.needs_load() { spec.loads.iter().map(|l| Some(l.0)).collect() } else { vec![None] };
                for &load in &loads {
                    for &seed in &spec.seeds.value {
                        let config = RunConfig {
                            cluster: cluster.cluster_spec(),
                            round_seconds: engine.round_s.0,
                            tracking,
                            horizon: spec.measure.horizon_h.map(|h| h.0 * 3600.0),
                            starvation_guard: engine.starvation_guard_h.map(|h| h.0 * 3600.0),
                            record_timeline: spec.output.timeline,
                        };
                        // Round-mode keys stay as before the event engine existed.
                        let (engine_json, cluster_json) = match engine.mode {
                            EngineMode::Rounds => (
                                json!({
                                    "mode": "rounds",
                                    "round_s": engine.round_s.0,
                                    "starvation_guard_h": engine.starvation_guard_h.map(|h| h.0),
                                    "overhead": engine.overhead.canonical(),
                                }),
                                cluster.canonical(false),
                            ),
                            EngineMode::Events => {
                                (json!({"mode": "events", "slot_s": engine.slot_s.0}), cluster.canonical(true))
                            }
                            // Where the scheduler listens and its token do not change a run. An event
                            // scheduler's slot does (a round scheduler's keys stay as they were).
                            EngineMode::Live => {
                                let mut live = json!({
                                    "mode": "live",
                                    "round_s": engine.round_s.0,
                                    "starvation_guard_h": engine.starvation_guard_h.map(|h| h.0),
                                    "command": engine.live.as_ref().map(|l| &l.value.command),
                                    "iterations_per_s": engine.live.as_ref().map(|l| l.value.iterations_per_s.0),
                                    "grace_s": engine.live.as_ref().map(|l| l.value.grace_s),
                                    "env": engine.live.as_ref().map(|l| &l.value.env),
                                });
                                if spec.runs_on_events(policy) {
                                    live["slot_s"] = json!(engine.slot_s.0);
                                }
                                (live, cluster.canonical(spec.runs_on_events(policy)))
                            }
                            EngineMode::Placements => (json!({"mode": "placements"}), cluster.canonical(true)),
                        };
                        // Policies in their canonical form (name and sorted options), which the
                        // runs table records too. Events runs without `placement: yarn` keep the
                        // unused round-engine default, `scattered`.
                        let policy_params = json!({
                            "scheduler": policy.scheduler.value.canonical(),
                            "placement": policy.placement.value.canonical(),
                            "admission": policy.admission.canonical(),
                        });
                        let tracking_json = match tracking {
                            Tracking::All => json!("all"),
                            Tracking::Ids { first, last } => json!({ "ids": [first, last] }),
                        };
                        // A node list's digest is appended only where there is one, so that
                        // every other run keeps its key.
                        let mut run_inputs = vec![inputs.of_workload(workload), inputs.of_policy(policy)];
                        run_inputs.extend(inputs.of_cluster(cluster).map(Some));
                        let resolved = json!({
                            "blox_version": env!("CARGO_PKG_VERSION"),
                            "blox_source": crate::version::SOURCE_HASH,
                            "label": policy.label.value.0,
                            "inputs": run_inputs,
                            "engine": engine_json,
                            "policy": policy_params,
                            "cluster": cluster_json,
                            "workload": workload,
                            "load": load,
                            "seed": seed,
                            "tracking": tracking_json,
                            "horizon_s": config.horizon,
                            "timeline": config.record_timeline,
                        });
                        let load_part =
                            load.map(|l| format!("_load{}", crate::text::fmt_number(l))).unwrap_or_default();
                        let prefix = sanitize(&format!(
                            "{}_{}_{}{}_seed{}",
                            policy.label.value.0,
                            cluster.label(),
                            workload.label(),
                            load_part,
                            seed
                        ));
                        let hash = crate::digest::sha256_hex(resolved.to_string().as_bytes());
                        let run_key = format!("{}_{}", truncate(&prefix, KEY_PREFIX_CHARS), &hash[..KEY_HASH_CHARS]);
                        let info = RunInfo {
                            experiment: spec.name.value.0.clone(),
                            run_key,
                            label: policy.label.value.0.clone(),
                            scheduler: policy.scheduler.value.name().into(),
                            placement: placement_used(policy).into(),
                            admission: policy.admission.name().into(),
                            policy_params: policy_params.to_string(),
                            cluster: cluster.label(),
                            nodes: cluster.nodes(),
                            total_gpus: cluster.total_gpus(),
                            workload: workload.label(),
                            load,
                            seed,
                            round_seconds: match engine.mode {
                                EngineMode::Live if spec.runs_on_events(policy) => engine.slot_s.0,
                                EngineMode::Rounds | EngineMode::Live => engine.round_s.0,
                                EngineMode::Events => engine.slot_s.0,
                                // No clock: one step per offered request.
                                EngineMode::Placements => 0.0,
                            },
                        };
                        plans.push(RunPlan {
                            index: plans.len(),
                            policy: policy.clone(),
                            cluster: cluster.clone(),
                            workload: workload.clone(),
                            load,
                            seed,
                            overhead: engine.overhead.clone(),
                            mode: engine.mode,
                            slot_s: engine.slot_s.0,
                            config,
                            info,
                        });
                    }
                }
            }
        }
    }
    plans
}

/// The placement a run of `policy` uses, as the runs table names it: the spec's default stands
/// for the scheduler's own placement when it brings one.
fn placement_used(policy: &PolicyEntry) -> &'static str {
    match &policy.scheduler.value.info().placement {
        Some(own) if policy.placement.value == PlacementSpec::default() => own.name,
        _ => policy.placement.value.name(),
    }
}

/// Readable part of a run key: long enough to tell runs apart by eye, short enough that the
/// file name stays far below the 255-byte limit of common file systems.
const KEY_PREFIX_CHARS: usize = 120;
/// Hex digits of the config hash in a run key (48 bits).
const KEY_HASH_CHARS: usize = 12;

/// The first `max` characters of an ASCII string.
fn truncate(s: &str, max: usize) -> &str {
    &s[..s.len().min(max)]
}

/// Keeps letters, digits, `-`, `_` and `.` (not first: a key must not name a hidden file);
/// everything else becomes `-`.
fn sanitize(s: &str) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| if c.is_ascii_alphanumeric() || "-_".contains(c) || (c == '.' && i > 0) { c } else { '-' })
        .collect()
}
