//! Best-fit (best_fit_score.go; `docs/fgd-semantics.md` §4.4): the node left with the least
//! free CPU and GPU after the pod, each normalised by the *largest* node's capacity (128 cores,
//! 8 GPUs) for every node (quirk kept), then min-max normalised over the feasible nodes to
//! 0..100 in integer division (all 0 when they are equal). Share pods take the fullest device
//! that fits (`best`).

use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{NodeState, Pod, ScorePolicy};

/// Milli-CPU and milli-GPU of the largest node, the fixed normalisers.
pub(crate) const MAX_NODE_CPU: f64 = 128_000.0;
pub(crate) const MAX_NODE_GPU: f64 = 8_000.0;

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "best-fit",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "the node left with the least free CPU and GPU (normalised by the largest node)",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(BestFit))),
};

pub struct BestFit;

impl ScorePolicy for BestFit {
    fn score(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        let mut s = 0.0;
        s += (node.cpu_left - pod.cpu) as f64 / MAX_NODE_CPU * 0.5;
        s += (node.left_total() - pod.gpu_request()) as f64 / MAX_NODE_GPU * 0.5;
        ((1.0 - s) * 100.0) as i64
    }

    fn normalize(&self, scores: &mut [i64]) {
        let (Some(&lo), Some(&hi)) = (scores.iter().min(), scores.iter().max()) else { return };
        for s in scores.iter_mut() {
            *s = if hi == lo { 0 } else { (*s - lo) * 100 / (hi - lo) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_min_max_in_integers() {
        let mut scores = [40, 47, 50];
        BestFit.normalize(&mut scores);
        assert_eq!(scores, [0, 70, 100]);
        let mut equal = [7, 7];
        BestFit.normalize(&mut equal);
        assert_eq!(equal, [0, 0]);
    }
}
