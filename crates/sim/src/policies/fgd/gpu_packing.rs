//! GPU packing (gpu_packing_score.go; `docs/fgd-semantics.md` §4.4): prefer devices already in
//! use, then partly used nodes, then idle nodes. CPU pods score 0 everywhere. On a node whose
//! GPUs are all idle the score is `max(33 − idle, idle)` (the lower bound is the GPU count, not
//! a constant: quirk kept); otherwise the devices the pod would take (ascending idle milli,
//! stable by index) decide: any fully idle one gives `max(50 − idle taken, 33)`, else the
//! fuller the devices the higher, `max(100 − Σ(left·100/1000)/10, 50)` in integer division.

use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{GPU_MILLI, NodeState, Pod, ScorePolicy};

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "gpu-packing",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "used devices first, then partly used nodes, then idle nodes",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(GpuPacking))),
};

pub struct GpuPacking;

impl ScorePolicy for GpuPacking {
    fn score(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        if pod.milli <= 0 {
            return 0;
        }
        let idle = node.idle_devices() as i64;
        if idle == node.left.len() as i64 {
            return (33 - idle).max(idle);
        }
        let mut by_left: Vec<usize> = (0..node.left.len()).collect();
        by_left.sort_by_key(|&i| node.left[i]);
        let taken: Vec<i64> =
            by_left.into_iter().map(|i| node.left[i]).filter(|&l| l >= pod.milli).take(pod.gpus as usize).collect();
        let idle_taken = taken.iter().filter(|&&l| l == GPU_MILLI).count() as i64;
        if idle_taken > 0 {
            (50 - idle_taken).max(33)
        } else {
            let used: i64 = taken.iter().map(|&l| l * 100 / GPU_MILLI).sum();
            (100 - used / 10).max(50)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(milli: i64) -> Pod {
        Pod { name: String::new(), cpu: 0, memory: 0, gpus: 1, milli, models: String::new() }
    }

    fn node(left: Vec<i64>) -> NodeState {
        NodeState { cpu_left: 0, memory_left: 0, pods: 0, left, affinity: vec![], model_id: 0 }
    }

    #[test]
    fn bands_prefer_used_devices_then_used_nodes_then_idle_nodes() {
        let mut f = Fragmentation::new(vec![], vec![String::new()]);
        let p = share(300);
        assert_eq!(GpuPacking.score(&p, &node(vec![1000; 8]), &mut f), 25);
        assert_eq!(GpuPacking.score(&p, &node(vec![1000; 2]), &mut f), 31);
        assert_eq!(GpuPacking.score(&p, &node(vec![0, 1000]), &mut f), 49);
        // Device with 400 idle: 100 − (40)/10 = 96.
        assert_eq!(GpuPacking.score(&p, &node(vec![400, 1000]), &mut f), 96);
    }
}
