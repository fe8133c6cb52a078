//! One experiment (`docs/fgd-semantics.md` §2.6–2.7, §4.3): every pod in order is filtered
//! against all nodes; none feasible → it fails and leaves (never retried); exactly one → that
//! node without scoring; otherwise the policy scores every feasible node (integers, optionally
//! normalised over them) and the highest score wins, ties to the lowest rank. The pod then gets
//! its devices and stays. After every pod, placed or not, the cluster is reported: GPU milli
//! arrived so far (failures included), GPU milli allocated, fragment and fragmentation ratio,
//! the last two as the original prints them (two decimals), since its analysis reads the text.

use super::fragmentation::{CLASSES, Fragmentation, cluster_report, typical_pods};
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
        let nodes = sorted_by_name(self.nodes);
        let capacity: i64 = nodes.iter().map(|n| i64::from(n.gpus) * GPU_MILLI).sum();
        let (Prepared { order, ranks }, rng) = prepare(self.pods, nodes.len(), capacity, self.tune_ratio, seed);
        let mut placer = Placer::new(&nodes, self.pods, ranks, rng);
        let mut reports = Vec::with_capacity(order.len());
        let (mut arrived, mut allocated) = (0i64, 0i64);
        let (mut placed_pods, mut gpus_held, mut cpu_milli_held) = (0u32, 0u64, 0i64);
        for pod in &order {
            if stop.is_stopped() {
                return Err(RunError::Stopped);
            }
            arrived += pod.gpu_request();
            let placed = placer.place(pod, policy).is_some();
            if placed {
                allocated += pod.gpu_request();
                placed_pods += 1;
                gpus_held += u64::from(pod.gpus);
                cpu_milli_held += pod.cpu;
            }
            let (fragment, ratio) = placer.fragmentation();
            reports.push(Report {
                arrived_milli: arrived,
                allocated_milli: allocated,
                fragment_milli: two_decimals(fragment),
                fragment_ratio: two_decimals(ratio),
                placed,
                placed_pods,
                idle_gpus: placer.idle_gpus,
                gpus_held,
                cpu_milli_held,
            });
        }
        Ok(reports)
    }
}

/// The nodes in name order: the order the original lists them in, which ranks index.
pub(super) fn sorted_by_name(nodes: &[Node]) -> Vec<Node> {
    let mut nodes = nodes.to_vec();
    nodes.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    nodes
}

/// The cluster while pods come and go: each node's free resources and fragmentation classes,
/// the tie-break ranks and the run's random stream; one pod is placed as §2.6 says.
pub(super) struct Placer<'a> {
    nodes: &'a [Node],
    states: Vec<NodeState>,
    frag: Fragmentation,
    /// Each node's class vector, updated when a pod lands on or leaves the node: the report
    /// after every pod sums them instead of measuring all nodes again.
    classes: Vec<[f64; CLASSES]>,
    ranks: Vec<u32>,
    rng: GoRandom,
    /// GPUs no pod holds any share of.
    pub idle_gpus: u32,
    feasible: Vec<usize>,
    scores: Vec<i64>,
}

impl<'a> Placer<'a> {
    /// An empty cluster of `nodes` (name order), with the fragmentation measured against the
    /// typical pods of `trace` (the workload before tuning).
    pub fn new(nodes: &'a [Node], trace: &[Pod], ranks: Vec<u32>, rng: GoRandom) -> Self {
        let mut models: Vec<String> = Vec::new();
        let states: Vec<NodeState> = nodes
            .iter()
            .map(|n| {
                let id = models.iter().position(|m| *m == n.model).unwrap_or_else(|| {
                    models.push(n.model.clone());
                    models.len() - 1
                });
                NodeState::empty(n, id as u16)
            })
            .collect();
        let mut frag = Fragmentation::new(typical_pods(trace), models);
        let classes = states.iter().map(|s| frag.classes(s.cpu_left, &s.left, s.model_id)).collect();
        let idle_gpus = nodes.iter().map(|n| n.gpus).sum();
        Self { nodes, states, frag, classes, ranks, rng, idle_gpus, feasible: Vec::new(), scores: Vec::new() }
    }

    /// Places `pod` where `policy` says among the nodes it fits (§2.6): none, it is not placed;
    /// exactly one, that node unscored; otherwise the best score, ties to the lowest rank. The
    /// node and the devices it got.
    pub fn place(&mut self, pod: &Pod, policy: &mut dyn ScorePolicy) -> Option<(usize, Vec<usize>)> {
        let (nodes, states) = (self.nodes, &self.states);
        self.feasible.clear();
        self.feasible.extend((0..nodes.len()).filter(|&i| states[i].fits(pod, &nodes[i])));
        let i = match self.feasible.len() {
            0 => return None,
            1 => self.feasible[0],
            _ => match policy.pick(&self.feasible, &mut self.rng) {
                Some(node) => node,
                None => {
                    self.scores.clear();
                    for &i in &self.feasible {
                        self.scores.push(policy.score(pod, &self.states[i], &mut self.frag));
                    }
                    policy.normalize(&mut self.scores);
                    best_node(&self.feasible, &self.scores, &self.ranks)
                }
            },
        };
        let devices = if pod.milli <= 0 {
            Vec::new()
        } else if pod.is_share() {
            vec![policy.share_device(pod, &self.states[i], &mut self.frag, &mut self.rng)]
        } else {
            gpu_selection::exclusive(pod, &self.states[i])
        };
        let idle_before = self.states[i].idle_devices() as u32;
        self.states[i].place(pod, &devices);
        self.idle_gpus -= idle_before - self.states[i].idle_devices() as u32;
        self.remeasure(i);
        Some((i, devices))
    }

    /// Takes `pod` off `devices` of node `i`, where [`Placer::place`] put it.
    pub fn remove(&mut self, i: usize, pod: &Pod, devices: &[usize]) {
        let idle_before = self.states[i].idle_devices() as u32;
        self.states[i].remove(pod, devices);
        self.idle_gpus += self.states[i].idle_devices() as u32 - idle_before;
        self.remeasure(i);
    }

    /// Node `i`'s free resources now.
    pub fn state(&self, i: usize) -> &NodeState {
        &self.states[i]
    }

    pub fn total_gpus(&self) -> u32 {
        self.nodes.iter().map(|n| n.gpus).sum()
    }

    /// The cluster's fragment (milli) and fragmentation ratio (% of idle milli), unrounded.
    pub fn fragmentation(&self) -> (f64, f64) {
        cluster_report(&self.classes)
    }

    fn remeasure(&mut self, i: usize) {
        let state = &self.states[i];
        self.classes[i] = self.frag.classes(state.cpu_left, &state.left, state.model_id);
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
pub(super) fn two_decimals(x: f64) -> f64 {
    format!("{x:.2}").parse().expect("a formatted float reads back")
}
