//! Dot-product (dot_product_score.go with dimension extension `merge` and `max` normalisation;
//! `docs/fgd-semantics.md` §4.4): the node whose free (CPU, GPU) vector, normalised by the
//! largest node, has the *smallest* dot product with the pod's request scores highest,
//! `trunc(100 × (1 − d/2))`; a node short of CPU scores 0. Share pods take the fullest device
//! that fits (`best`).

use super::best_fit::{MAX_NODE_CPU, MAX_NODE_GPU};
use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{NodeState, Pod, ScorePolicy};

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "dot-product",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "the node whose free CPU/GPU vector has the smallest dot product with the request",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(DotProduct))),
};

pub struct DotProduct;

impl ScorePolicy for DotProduct {
    fn score(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        if node.cpu_left < pod.cpu {
            return 0;
        }
        let mut d = 0.0;
        d += (node.cpu_left as f64 / MAX_NODE_CPU) * (pod.cpu as f64 / MAX_NODE_CPU);
        d += (node.left_total() as f64 / MAX_NODE_GPU) * (pod.gpu_request() as f64 / MAX_NODE_GPU);
        (100.0 * (1.0 - d / 2.0)) as i64
    }
}
