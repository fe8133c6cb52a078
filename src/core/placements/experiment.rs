//! One experiment (`docs/fgd-semantics.md` §2.6–2.7, §4.3): every pod in order is filtered
//! against all nodes; none feasible → it fails and leaves (never retried); exactly one → that
//! node without scoring; otherwise the policy scores every feasible node (integers, optionally
//! normalised over them) and the highest score wins, ties to the lowest rank. The pod then gets
//! its devices and stays. After every pod, placed or not, the cluster is reported: GPU milli
//! arrived so far (failures included), GPU milli allocated, fragment and fragmentation ratio,
//! the last two as the original prints them (two decimals), since its analysis reads the text.

use super::fragmentation::{Fragmentation, cluster_report, typical_pods};
use super::preparation::{Prepared, prepare};
use super::{GPU_MILLI, Node, NodeState, Pod, gpu_selection};
use crate::core::go_random::GoRandom;
use crate::core::metrics::{RunTables, RunTotals, SummaryBuilder, TimelineRow};
use crate::core::{RunError, StopFlag};

/// What a policy of the placement engine decides for one pod. `rng` is the run's random stream,
/// continued after the preparation's draws (`docs/fgd-semantics.md` §6.2), for policies that draw.
pub trait ScorePolicy: Send {
    /// The integer score of a feasible node for `pod`, on the state before the pod is placed.
    fn score(&mut self, pod: &Pod, node: &NodeState, frag: &mut Fragmentation) -> i64;

    /// Rewrites the feasible nodes' scores (a score plugin's NormalizeScore); by default none.
    fn normalize(&self, _scores: &mut [i64]) {}

    /// The device a share pod gets on its node; by default the fullest that fits.
    fn share_device(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation, _rng: &mut GoRandom) -> usize {
        gpu_selection::best(pod, node)
    }

    /// A node chosen without scores among `feasible` (node indices, at least two), for a policy
    /// that draws it; `None` to score.
    fn pick(&mut self, _feasible: &[usize], _rng: &mut GoRandom) -> Option<usize> {
        None
    }
}

/// The cluster after one pod.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    /// GPU milli requested by the pods offered so far, placed or failed.
    pub arrived_milli: i64,
    /// GPU milli held by placed pods.
    pub allocated_milli: i64,
    /// Fragmented GPU milli, to two decimals.
    pub fragment_milli: f64,
    /// Fragment as a percentage of the idle GPU milli, to two decimals.
    pub fragment_ratio: f64,
    pub placed: bool,
    /// Pods placed so far.
    pub placed_pods: u32,
    /// GPUs no pod holds any share of.
    pub idle_gpus: u32,
    /// GPUs placed pods asked for (whole or in part).
    pub gpus_held: u64,
    /// Milli-CPU held by placed pods.
    pub cpu_milli_held: i64,
}

/// An experiment's inputs: the nodes (any order) and the trace's pods.
pub struct Experiment<'a> {
    pub nodes: &'a [Node],
    pub pods: &'a [Pod],
    /// Target GPU request after tuning, as a share of the cluster's GPU capacity (1.3 in the paper).
    pub tune_ratio: f64,
}

impl Experiment<'_> {
    /// Runs `policy` under `seed`: one report per offered pod.
    pub fn run(&self, policy: &mut dyn ScorePolicy, seed: i64) -> Vec<Report> {
        self.run_until(policy, seed, &StopFlag::new()).expect("a run without a stop flag raised ends")
    }

    /// [`Experiment::run`], checking `stop` once per pod.
    pub fn run_until(&self, policy: &mut dyn ScorePolicy, seed: i64, stop: &StopFlag) -> Result<Vec<Report>, RunError> {
        let mut nodes = self.nodes.to_vec();
        nodes.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let capacity: i64 = nodes.iter().map(|n| i64::from(n.gpus) * GPU_MILLI).sum();
        let (Prepared { order, ranks }, mut rng) = prepare(self.pods, nodes.len(), capacity, self.tune_ratio, seed);
        let mut models: Vec<String> = Vec::new();
        let mut states: Vec<NodeState> = nodes
            .iter()
            .map(|n| {
                let id = models.iter().position(|m| *m == n.model).unwrap_or_else(|| {
                    models.push(n.model.clone());
                    models.len() - 1
                });
                NodeState::empty(n, id as u16)
            })
            .collect();
        let mut frag = Fragmentation::new(typical_pods(self.pods), models);
        // Each node's class vector, updated when a pod lands there: the report after every pod
        // sums them instead of measuring all nodes again.
        let mut classes: Vec<_> = states.iter().map(|s| frag.classes(s.cpu_left, &s.left, s.model_id)).collect();
        let mut reports = Vec::with_capacity(order.len());
        let (mut arrived, mut allocated) = (0i64, 0i64);
        let mut idle_gpus: u32 = nodes.iter().map(|n| n.gpus).sum();
        let (mut placed_pods, mut gpus_held, mut cpu_milli_held) = (0u32, 0u64, 0i64);
        let mut feasible = Vec::new();
        let mut scores = Vec::new();
        for pod in &order {
            if stop.is_stopped() {
                return Err(RunError::Stopped);
            }
            arrived += pod.gpu_request();
            feasible.clear();
            feasible.extend((0..nodes.len()).filter(|&i| states[i].fits(pod, &nodes[i])));
            let chosen = match feasible.len() {
                0 => None,
                1 => Some(feasible[0]),
                _ => Some(match policy.pick(&feasible, &mut rng) {
                    Some(node) => node,
                    None => {
                        scores.clear();
                        scores.extend(feasible.iter().map(|&i| policy.score(pod, &states[i], &mut frag)));
                        policy.normalize(&mut scores);
                        best_node(&feasible, &scores, &ranks)
                    }
                }),
            };
            if let Some(i) = chosen {
                let devices = if pod.milli <= 0 {
                    Vec::new()
                } else if pod.is_share() {
                    vec![policy.share_device(pod, &states[i], &mut frag, &mut rng)]
                } else {
                    gpu_selection::exclusive(pod, &states[i])
                };
                let idle_before = states[i].idle_devices() as u32;
                states[i].place(pod, &devices);
                idle_gpus -= idle_before - states[i].idle_devices() as u32;
                classes[i] = frag.classes(states[i].cpu_left, &states[i].left, states[i].model_id);
                allocated += pod.gpu_request();
                placed_pods += 1;
                gpus_held += u64::from(pod.gpus);
                cpu_milli_held += pod.cpu;
            }
            let (fragment, ratio) = cluster_report(&classes);
            reports.push(Report {
                arrived_milli: arrived,
                allocated_milli: allocated,
                fragment_milli: two_decimals(fragment),
                fragment_ratio: two_decimals(ratio),
                placed: chosen.is_some(),
                placed_pods,
                idle_gpus,
                gpus_held,
                cpu_milli_held,
            });
        }
        Ok(reports)
    }
}

/// A placement run's tables. One timeline row per offered pod, at `time` = the pod's position
/// (1, 2, ...: the engine has no clock), with the placement columns set; the summary counts
/// the offered pods as tracked jobs, the placed ones as finished, the failed ones as
/// unschedulable, one decision per pod, and the GPU utilisation as allocated over capacity
/// milli at the end.
pub fn run_tables(reports: &[Report], capacity_gpus: u32, record_timeline: bool) -> RunTables {
    let last = reports.last();
    let placed = last.map_or(0, |r| u64::from(r.placed_pods));
    let totals = RunTotals {
        tracked_jobs: reports.len() as u64,
        jobs_finished: placed,
        jobs_unschedulable: reports.len() as u64 - placed,
        makespan: reports.len() as f64,
        rounds: reports.len() as u64,
        preemptions: 0,
        resizes: 0,
        busy_gpu_seconds: last.map_or(0.0, |r| r.allocated_milli as f64),
        capacity_gpu_seconds: f64::from(capacity_gpus) * GPU_MILLI as f64,
    };
    let timeline = if record_timeline {
        reports
            .iter()
            .enumerate()
            .map(|(i, r)| TimelineRow {
                time: (i + 1) as f64,
                free_gpus: r.idle_gpus,
                gpu_demand: r.gpus_held,
                running: r.placed_pods,
                queued: 0,
                admission_backlog: None,
                preemptions: 0,
                resizes: 0,
                cluster_efficiency: None,
                cpus_in_use: Some(r.cpu_milli_held as f64 / 1000.0),
                memory_gb_in_use: None,
                arrived_gpu_milli: Some(r.arrived_milli as u64),
                allocated_gpu_milli: Some(r.allocated_milli as u64),
                fragmented_gpu_milli: Some(r.fragment_milli),
                fragmentation_ratio: Some(r.fragment_ratio),
            })
            .collect()
    } else {
        Vec::new()
    };
    RunTables { summary: SummaryBuilder::default().finish(totals), timeline }
}

/// The feasible node with the highest score, ties to the lowest rank (the fork's `selectHost`).
fn best_node(feasible: &[usize], scores: &[i64], ranks: &[u32]) -> usize {
    let mut best = 0;
    for k in 1..feasible.len() {
        if scores[k] > scores[best] || (scores[k] == scores[best] && ranks[feasible[k]] < ranks[feasible[best]]) {
            best = k;
        }
    }
    feasible[best]
}

/// `x` printed with two decimals (correctly rounded, ties to even on the exact value, as Go's
/// `%.2f`) and read back.
fn two_decimals(x: f64) -> f64 {
    format!("{x:.2}").parse().expect("a formatted float reads back")
}
