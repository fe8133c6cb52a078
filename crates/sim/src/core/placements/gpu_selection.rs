//! Which devices of the chosen node a pod gets (Open-Gpu-Share's Reserve,
//! `docs/fgd-semantics.md` §4.5). Whole-GPU and multi-GPU pods always take the lowest-indexed
//! fully idle devices; a share pod's device depends on the policy's selection method.

use super::{GPU_MILLI, NodeState, Pod};

/// The first `pod.gpus` fully idle devices in index order.
pub fn exclusive(pod: &Pod, node: &NodeState) -> Vec<usize> {
    node.left.iter().enumerate().filter(|&(_, &l)| l == GPU_MILLI).map(|(i, _)| i).take(pod.gpus as usize).collect()
}

/// `best`: the device with the least idle milli that still fits the share, lowest index on ties.
pub fn best(pod: &Pod, node: &NodeState) -> usize {
    let mut chosen: Option<usize> = None;
    for (i, &l) in node.left.iter().enumerate() {
        if l >= pod.milli && chosen.is_none_or(|c| l < node.left[c]) {
            chosen = Some(i);
        }
    }
    chosen.expect("a share pod placed on a node where no device fits it")
}
