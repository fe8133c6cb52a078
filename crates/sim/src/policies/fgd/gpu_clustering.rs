//! GPU clustering (gpu_clustering_score.go; `docs/fgd-semantics.md` §4.4): keep pods of one kind
//! together (share pods, and whole-GPU pods by GPU count). CPU pods score 0 everywhere; a GPU
//! pod scores `25 × (8000 − idle milli) / 8000` (integers) plus 75 on a node holding only its
//! kind, 50 on a node holding its kind among others, 25 on a node without GPU pods. Share pods
//! take the fullest device that fits (`best`).

use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{NodeState, Pod, ScorePolicy};

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gpu-clustering",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "nodes already holding pods of the same GPU kind first",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(GpuClustering))),
};

pub struct GpuClustering;

impl ScorePolicy for GpuClustering {
    fn score(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        let Some(tag) = pod.affinity_tag() else { return 0 };
        let base = 25 * (8000 - node.left_total()) / 8000;
        if node.affinity_count(tag) > 0 {
            let only_kind = node.affinity.iter().all(|&(t, c)| t == tag || c == 0);
            base + if only_kind { 75 } else { 50 }
        } else {
            base + if node.affinity.iter().all(|&(_, c)| c == 0) { 25 } else { 0 }
        }
    }
}
