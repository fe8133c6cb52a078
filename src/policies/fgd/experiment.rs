//! One experiment (`docs/fgd-semantics.md` §2.6–2.7, §4.3): every pod in order is filtered
//! against all nodes; none feasible → it fails and leaves (never retried); exactly one → that
//! node without scoring; otherwise the policy scores every feasible node (integers, optionally
//! normalised over them) and the highest score wins, ties to the lowest rank. The pod then gets
//! its devices and stays. After every pod, placed or not, the cluster is reported: GPU milli
//! arrived so far (failures included), GPU milli allocated, fragment and fragmentation ratio,
//! the last two as the original prints them (two decimals), since its analysis reads the text.

use super::fragmentation::{Fragmentation, cluster_report, typical_pods};
use super::workload::{Prepared, prepare};
use super::{Node, NodeState, Pod, best_fit, dot_product, fgd, gpu_clustering, gpu_packing, gpu_selection, random};
use crate::workload::go_random::GoRandom;

/// What a policy of the family decides for one pod.
pub trait ScorePolicy: Send {
    /// The integer score of a feasible node for `pod`, on the state before the pod is placed.
    fn score(&mut self, pod: &Pod, node: &NodeState, frag: &mut Fragmentation) -> i64;

    /// Rewrites the feasible nodes' scores (a score plugin's NormalizeScore); by default none.
    fn normalize(&self, _scores: &mut [i64]) {}

    /// The device a share pod gets on its node; by default the fullest that fits.
    fn share_device(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> usize {
        gpu_selection::best(pod, node)
    }

    /// A node chosen without scores among `feasible` (node indices, at least two), for a policy
    /// that draws it; `None` to score.
    fn pick(&mut self, _feasible: &[usize]) -> Option<usize> {
        None
    }
}

/// The family's policies, by the names specs give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Fgd,
    BestFit,
    DotProduct,
    GpuPacking,
    GpuClustering,
    Random,
}

impl Policy {
    pub const ALL: [Policy; 6] =
        [Policy::Random, Policy::DotProduct, Policy::GpuClustering, Policy::GpuPacking, Policy::BestFit, Policy::Fgd];

    pub fn name(self) -> &'static str {
        match self {
            Policy::Fgd => "fgd",
            Policy::BestFit => "best-fit",
            Policy::DotProduct => "dot-product",
            Policy::GpuPacking => "gpu-packing",
            Policy::GpuClustering => "gpu-clustering",
            Policy::Random => "random",
        }
    }

    /// The policy for one run; Random draws from `rng`, the run's stream after preparation.
    pub fn build(self, rng: GoRandom) -> Box<dyn ScorePolicy> {
        match self {
            Policy::Fgd => Box::new(fgd::Fgd),
            Policy::BestFit => Box::new(best_fit::BestFit),
            Policy::DotProduct => Box::new(dot_product::DotProduct),
            Policy::GpuPacking => Box::new(gpu_packing::GpuPacking),
            Policy::GpuClustering => Box::new(gpu_clustering::GpuClustering),
            Policy::Random => Box::new(random::Random::new(rng)),
        }
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
    pub fn run(&self, policy: Policy, seed: i64) -> Vec<Report> {
        let mut nodes = self.nodes.to_vec();
        nodes.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        let capacity: i64 = nodes.iter().map(|n| i64::from(n.gpus) * super::GPU_MILLI).sum();
        let (Prepared { order, ranks }, rng) = prepare(self.pods, nodes.len(), capacity, self.tune_ratio, seed);
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
        let mut policy = policy.build(rng);
        let mut reports = Vec::with_capacity(order.len());
        let (mut arrived, mut allocated) = (0i64, 0i64);
        let mut feasible = Vec::new();
        let mut scores = Vec::new();
        for pod in &order {
            arrived += pod.gpu_request();
            feasible.clear();
            feasible.extend((0..nodes.len()).filter(|&i| states[i].fits(pod, &nodes[i])));
            let chosen = match feasible.len() {
                0 => None,
                1 => Some(feasible[0]),
                _ => Some(match policy.pick(&feasible) {
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
                    vec![policy.share_device(pod, &states[i], &mut frag)]
                } else {
                    gpu_selection::exclusive(pod, &states[i])
                };
                states[i].place(pod, &devices);
                classes[i] = frag.classes(states[i].cpu_left, &states[i].left, states[i].model_id);
                allocated += pod.gpu_request();
            }
            let (fragment, ratio) = cluster_report(&classes);
            reports.push(Report {
                arrived_milli: arrived,
                allocated_milli: allocated,
                fragment_milli: two_decimals(fragment),
                fragment_ratio: two_decimals(ratio),
                placed: chosen.is_some(),
            });
        }
        reports
    }
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
