//! The placement engine (`engine: {mode: placements}`): placement experiments without time.
//! Requests (pods) are offered one at a time in a fixed order to a cluster of nodes whose GPUs
//! are devices of 1000 milli each, shared by any number of pods; each is placed on the feasible
//! node its score policy ranks first, or fails and leaves; nothing departs. After every request
//! the cluster's allocation and fragmentation are reported ([`experiment`]), and the reports can
//! be averaged onto the "arrived workload" axis ([`axis`]). The same policies also place pods
//! that arrive and leave at their traced times ([`over_time`]), which the paper does not run.
//!
//! The rules are those of FGD's Kubernetes simulator (`docs/fgd-semantics.md`, cited by section
//! in each file), the first family to run here: the order is the seed's Go `math/rand` shuffle
//! with the workload tuned to a share of the GPU capacity ([`preparation`]), the fragmentation
//! measure is the paper's ([`fragmentation`]), and a policy is a [`ScorePolicy`] (the family's
//! six live in `policies/fgd/`, registered like every other policy).
//!
//! Resources are integers as in the original (milli-CPU, bytes of memory, milli-GPU per
//! device), so that every comparison is exact; a node's GPUs are a list of idle milli per
//! device, shared by any number of pods.

pub mod axis;
pub mod experiment;
pub mod fragmentation;
pub mod gpu_selection;
pub mod over_time;
pub mod preparation;

pub use experiment::{Experiment, Report, ScorePolicy};

/// Milli-GPU of one whole GPU device.
pub const GPU_MILLI: i64 = 1000;

/// Bytes of one MiB (requests and capacities are written in MiB).
pub const MIB: i64 = 1 << 20;

/// A pod as the simulator sees it (`docs/fgd-semantics.md` §1.2–1.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pod {
    pub name: String,
    /// Milli-CPU requested.
    pub cpu: i64,
    /// Bytes of memory requested.
    pub memory: i64,
    /// GPUs requested (0 for a CPU pod).
    pub gpus: u32,
    /// Milli-GPU requested of each GPU: 0 for a CPU pod, clamped to 1..=1000 otherwise.
    pub milli: i64,
    /// The GPU models the pod accepts, `|`-joined without empty pieces; empty for any.
    pub models: String,
}

impl Pod {
    /// A share pod: one GPU, less than all of it.
    pub fn is_share(&self) -> bool {
        self.gpus == 1 && self.milli < GPU_MILLI
    }

    /// Milli-GPU over all its GPUs.
    pub fn gpu_request(&self) -> i64 {
        self.milli * i64::from(self.gpus)
    }

    /// Whether a node of `model` may host the pod (utils.go `IsNodeAccessibleToPod`, §3.2).
    pub fn accepts(&self, model: &str) -> bool {
        accessible(model, &self.models)
    }

    /// The GPU-affinity tag GPU clustering groups pods by (§1.3); `None` for CPU pods.
    pub fn affinity_tag(&self) -> Option<u32> {
        if self.milli <= 0 {
            None
        } else if self.is_share() {
            Some(0)
        } else {
            Some(self.gpus)
        }
    }
}

/// Whether a node of `model` satisfies the constraint `models` (`|`-separated; empty = any).
pub fn accessible(model: &str, models: &str) -> bool {
    let mut pieces = models.split('|').filter(|p| !p.is_empty()).peekable();
    if pieces.peek().is_none() {
        return true;
    }
    !model.is_empty() && pieces.any(|p| p == model)
}

/// A node of the cluster (§1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub cpu: i64,
    pub memory: i64,
    pub gpus: u32,
    pub model: String,
}

/// A node's free resources while pods are placed.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeState {
    pub cpu_left: i64,
    pub memory_left: i64,
    pub pods: u32,
    /// Idle milli-GPU per device, by device index.
    pub left: Vec<i64>,
    /// GPU pods on the node per affinity tag ([`Pod::affinity_tag`]), in first-placed order.
    pub affinity: Vec<(u32, u32)>,
    /// Index of the node's model in the experiment's model list (for the fragmentation memo).
    pub model_id: u16,
}

/// Pods one node may hold (the nodes' `pods` allocatable).
pub const MAX_PODS_PER_NODE: u32 = 1001;

impl NodeState {
    pub fn empty(node: &Node, model_id: u16) -> Self {
        Self {
            cpu_left: node.cpu,
            memory_left: node.memory,
            pods: 0,
            left: vec![GPU_MILLI; node.gpus as usize],
            affinity: Vec::new(),
            model_id,
        }
    }

    /// Idle milli-GPU over all devices.
    pub fn left_total(&self) -> i64 {
        self.left.iter().sum()
    }

    /// Fully idle devices.
    pub fn idle_devices(&self) -> usize {
        self.left.iter().filter(|&&l| l == GPU_MILLI).count()
    }

    /// GPU pods with affinity `tag` on the node.
    pub fn affinity_count(&self, tag: u32) -> u32 {
        self.affinity.iter().find(|(t, _)| *t == tag).map_or(0, |(_, c)| *c)
    }

    /// Whether the node passes the resource-fit and GPU filters for `pod` (§4.2).
    pub fn fits(&self, pod: &Pod, node: &Node) -> bool {
        if self.pods + 1 > MAX_PODS_PER_NODE || self.cpu_left < pod.cpu || self.memory_left < pod.memory {
            return false;
        }
        if pod.milli <= 0 {
            return true;
        }
        if self.left.is_empty() || !pod.accepts(&node.model) {
            return false;
        }
        if pod.gpus == 1 {
            return self.left.iter().any(|&l| l >= pod.milli);
        }
        // Devices taken in index order, each as many times as it still fits (m = 1000 for every
        // multi-GPU pod of the traces, so this counts fully idle devices).
        let mut taken = 0;
        for &l in &self.left {
            let mut l = l;
            while l >= pod.milli && taken < pod.gpus {
                l -= pod.milli;
                taken += 1;
            }
        }
        taken >= pod.gpus
    }

    /// Places `pod` on `devices`.
    pub fn place(&mut self, pod: &Pod, devices: &[usize]) {
        self.cpu_left -= pod.cpu;
        self.memory_left -= pod.memory;
        self.pods += 1;
        for &d in devices {
            self.left[d] -= pod.milli;
        }
        if let Some(tag) = pod.affinity_tag() {
            match self.affinity.iter_mut().find(|(t, _)| *t == tag) {
                Some((_, c)) => *c += 1,
                None => self.affinity.push((tag, 1)),
            }
        }
    }

    /// Takes `pod` off `devices`, where [`NodeState::place`] put it: the node is as if it had
    /// never come (a tag whose last pod leaves is dropped from the affinity list).
    pub fn remove(&mut self, pod: &Pod, devices: &[usize]) {
        self.cpu_left += pod.cpu;
        self.memory_left += pod.memory;
        self.pods -= 1;
        for &d in devices {
            self.left[d] += pod.milli;
        }
        if let Some(tag) = pod.affinity_tag()
            && let Some(k) = self.affinity.iter().position(|(t, _)| *t == tag)
        {
            self.affinity[k].1 -= 1;
            if self.affinity[k].1 == 0 {
                self.affinity.remove(k);
            }
        }
    }
}

/// `σ(x) = 1 / (1 + e^(−x))`.
pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// A cluster's nodes as a placement experiment reads them (a node-list file, parsed).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeList(pub Vec<Node>);

impl NodeList {
    pub fn gpus(&self) -> u32 {
        self.0.iter().map(|n| n.gpus).sum()
    }
}

impl crate::core::input::InputData for NodeList {
    fn summary(&self) -> String {
        format!("{} nodes, {} GPUs", self.0.len(), self.gpus())
    }
}

/// When a traced pod existed (seconds from the trace's start): it was created at `created`,
/// held its resources for `runs_for` seconds once scheduled (a pod never scheduled in the trace:
/// from creation to deletion), and was deleted at `deleted`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetime {
    pub created: i64,
    pub runs_for: i64,
    pub deleted: i64,
}

/// A workload's requests as a placement experiment reads them (a pod-list file, parsed), with
/// each pod's lifetime where the file has creation and deletion times.
#[derive(Debug, Clone, PartialEq)]
pub struct PodList {
    pub pods: Vec<Pod>,
    /// One per pod; `None` where the row has no times (every row of a list without the columns).
    pub lifetimes: Vec<Option<Lifetime>>,
}

impl crate::core::input::InputData for PodList {
    fn summary(&self) -> String {
        let gpu_pods = self.pods.iter().filter(|p| p.gpus > 0).count();
        let milli: i64 = self.pods.iter().map(Pod::gpu_request).sum();
        let timed = self.lifetimes.iter().filter(|l| l.is_some()).count();
        let times = match timed {
            0 => String::new(),
            n if n == self.pods.len() => ", every one with its creation and deletion time".to_string(),
            n => format!(", {n} with creation and deletion times"),
        };
        format!("{} pods ({gpu_pods} asking for GPUs, {milli} GPU milli in all{times})", self.pods.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(gpus: u32, milli: i64, models: &str) -> Pod {
        Pod { name: "p".into(), cpu: 4000, memory: 2 << 20, gpus, milli, models: models.into() }
    }

    #[test]
    fn filters_check_cpu_memory_model_and_devices() {
        let node = Node { name: "n".into(), cpu: 8000, memory: 4 << 20, gpus: 4, model: "T4".into() };
        let mut state = NodeState::empty(&node, 0);
        state.left = vec![1000, 200, 1000, 1000];
        let multi = pod(4, 1000, "");
        assert!(!state.fits(&multi, &node), "three idle devices for four whole GPUs");
        assert!(state.fits(&pod(2, 1000, "T4"), &node));
        assert!(!state.fits(&pod(2, 1000, "A10"), &node));
        assert!(state.fits(&pod(1, 200, ""), &node));
        assert!(pod(1, 300, "V100M16|V100M32").accepts("V100M32") && !pod(1, 300, "V100M16").accepts(""));
        state.cpu_left = 3999;
        assert!(!state.fits(&pod(0, 0, ""), &node), "CPU short");
        state.place(&pod(1, 200, ""), &[1]);
        assert_eq!((state.left[1], state.affinity_count(0), state.pods), (0, 1, 1));
    }

    #[test]
    fn a_pod_removed_leaves_the_node_as_it_found_it() {
        let node = Node { name: "n".into(), cpu: 8000, memory: 4 << 20, gpus: 2, model: "T4".into() };
        let empty = NodeState::empty(&node, 0);
        let mut state = empty.clone();
        let (share, whole) = (pod(1, 300, ""), pod(1, 1000, ""));
        state.place(&share, &[0]);
        state.place(&whole, &[1]);
        state.place(&share, &[0]);
        assert_eq!((state.left.clone(), state.affinity.clone()), (vec![400, 0], vec![(0, 2), (1, 1)]));
        state.remove(&whole, &[1]);
        assert_eq!(state.affinity, [(0, 2)], "the last whole-GPU pod's tag is dropped");
        state.remove(&share, &[0]);
        state.remove(&share, &[0]);
        assert_eq!(state, empty);
    }
}
