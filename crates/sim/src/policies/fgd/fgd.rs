//! FGD: fragmentation gradient descent (fgd_score.go; `docs/fgd-semantics.md` §4.4). A node
//! scores by how much placing the pod there lowers its fragmentation against the target
//! workload: `trunc(σ((F_before − F_after) / 1000) × 100)`, so no change scores 50 and the
//! steepest descent scores highest. A share pod is tried on every device it fits, in index
//! order; the node's score is the best device's, and that device is the one the pod gets
//! (chosen on the truncated score, first index on ties: quirk kept). Other pods take the
//! devices with the least idle milli that fit, which for whole GPUs are the idle ones.

use crate::core::go_random::GoRandom;
use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{NodeState, Pod, ScorePolicy, sigmoid};

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fgd",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "fragmentation gradient descent: the node (and device) whose fragmentation against the workload drops most",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(Fgd))),
};

pub struct Fgd;

/// The score of moving a node from fragment `before` to `after`.
fn descent_score(before: f64, after: f64) -> i64 {
    (sigmoid((before - after) / 1000.0) * 100.0) as i64
}

/// The best device for a share pod and its score.
fn best_share_device(pod: &Pod, node: &NodeState, frag: &mut Fragmentation) -> (i64, usize) {
    let before = frag.of_state(node);
    let mut best: Option<(i64, usize)> = None;
    let mut left = node.left.clone();
    for i in 0..left.len() {
        if left[i] >= pod.milli {
            left[i] -= pod.milli;
            let score = descent_score(before, frag.node_amount(node.cpu_left - pod.cpu, &left, node.model_id));
            left[i] += pod.milli;
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, i));
            }
        }
    }
    best.expect("a share pod scored on a node where no device fits it")
}

impl ScorePolicy for Fgd {
    fn score(&mut self, pod: &Pod, node: &NodeState, frag: &mut Fragmentation) -> i64 {
        if pod.is_share() {
            return best_share_device(pod, node, frag).0;
        }
        let before = frag.of_state(node);
        // Devices in ascending order of idle milli (stable by index), the first k that fit.
        let mut by_left: Vec<usize> = (0..node.left.len()).collect();
        by_left.sort_by_key(|&i| node.left[i]);
        let mut left = node.left.clone();
        let mut taken = 0;
        for i in by_left {
            if taken == pod.gpus {
                break;
            }
            if left[i] >= pod.milli {
                left[i] -= pod.milli;
                taken += 1;
            }
        }
        descent_score(before, frag.node_amount(node.cpu_left - pod.cpu, &left, node.model_id))
    }

    fn share_device(&mut self, pod: &Pod, node: &NodeState, frag: &mut Fragmentation, _rng: &mut GoRandom) -> usize {
        best_share_device(pod, node, frag).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::placements::gpu_selection;

    #[test]
    fn no_change_scores_fifty_and_descent_scores_higher() {
        assert_eq!(descent_score(500.0, 500.0), 50);
        assert_eq!(descent_score(8000.0, 0.0), 99);
        assert_eq!(descent_score(0.0, 8000.0), 0);
        // σ(0.2) × 100 = 54.98…: truncated.
        assert_eq!(descent_score(1200.0, 1000.0), 54);
        assert_eq!(
            gpu_selection::exclusive(
                &Pod { name: String::new(), cpu: 0, memory: 0, gpus: 1, milli: 1000, models: String::new() },
                &NodeState {
                    cpu_left: 0,
                    memory_left: 0,
                    pods: 0,
                    left: vec![500, 1000],
                    affinity: vec![],
                    model_id: 0
                }
            ),
            [1]
        );
    }
}
