//! GPU clustering (gpu_clustering_score.go; `docs/fgd-semantics.md` §4.4): keep pods of one kind
//! together (share pods, and whole-GPU pods by GPU count). CPU pods score 0 everywhere; a GPU
//! pod scores `25 × (8000 − idle milli) / 8000` (integers) plus 75 on a node holding only its
//! kind, 50 on a node holding its kind among others, 25 on a node without GPU pods. Share pods
//! take the fullest device that fits (`best`).

use super::experiment::ScorePolicy;
use super::fragmentation::Fragmentation;
use super::{NodeState, Pod};

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
