//! MS-YARN as the Muri simulator places jobs (`switch.py` `ms_yarn_alloc_res`,
//! `try_single_node_alloc`, `try_cross_node_alloc` @ 4e69a78; `docs/muri-semantics.md` §2.7):
//! first fit on the free GPUs, CPUs and memory of each node, tried from an empty cluster at every
//! decision by the policies that re-place their whole run set (SRTF, SRSF, Themis, Muri).
//!
//! Rule, for a job of `g` GPUs on nodes of `G` GPUs:
//! - `g <= G`: the first node (id order) with `g` free GPUs, the job's CPUs free (2 for a 1-GPU
//!   job, 6 per GPU otherwise: a worker's 2 and a parameter server's 4) and 5 GB of memory free
//!   (one worker's); it takes them all;
//! - `g > G`: the first `floor(g / G)` idle nodes (all GPUs free, `6 G` CPUs and
//!   `G (11 + 0.1 g)` GB free: per GPU a worker's 5 GB and a parameter server's `6 + 0.1 g`),
//!   plus, for `r = g mod G > 0`, the first other node with `r` GPUs, `6 r` CPUs and
//!   `r (11 + 0.1 g)` GB free; each gives all of that; all or nothing.
//!
//! A cluster whose nodes give no CPU count or memory size leaves that resource unlimited, so the
//! rule is the GPU-only first fit of every spec written without them (the paper's `n8g8`, 92 CPUs
//! and 520 GB per node, where the CPU and memory tests never bind: at most `8 x 6 = 48` CPUs and
//! `8 (11 + 0.1 x 64)` GB per node). Memory is counted down in the original's order of float
//! operations, so a test on the edge falls as there.

use crate::core::ClusterSpec;

/// CPUs of a 1-GPU job (one worker, no parameter server).
const SINGLE_GPU_CPUS: u32 = 2;
/// CPUs per GPU of a job of several GPUs (a worker's 2 and a parameter server's 4).
const CPUS_PER_GPU: u32 = 6;
/// Memory of a worker, GB (`JOBS.worker_mem`).
const WORKER_GB: f64 = 5.0;
/// Memory of a parameter server, GB, plus [`PS_GB_PER_JOB_GPU`] per GPU of the whole job
/// (`JOBS.ps_mem`, `JOBS.p_w_mem`).
const PS_GB: f64 = 6.0;
const PS_GB_PER_JOB_GPU: f64 = 0.1;

/// CPUs a job of `gpus` GPUs asks on one node when it fits on one.
fn single_node_cpus(gpus: u32) -> u32 {
    if gpus == 1 { SINGLE_GPU_CPUS } else { CPUS_PER_GPU * gpus }
}

/// Memory per GPU a job of `gpus` GPUs asks on each node when it spans several, GB.
fn cross_node_gb_per_gpu(gpus: u32) -> f64 {
    PS_GB + f64::from(gpus) * PS_GB_PER_JOB_GPU + WORKER_GB
}

/// The free GPUs, CPUs and memory of each node of a cluster of identical nodes, for one
/// decision's placement passes. Taking reserves for no job: the policies record who runs.
#[derive(Debug, Clone)]
pub struct Nodes {
    gpus_per_node: u32,
    /// CPUs and memory (GB) of a node, `None` where the cluster does not model them.
    cpus_per_node: Option<u32>,
    memory_per_node: Option<f64>,
    free_gpus: Vec<u32>,
    free_cpus: Vec<u32>,
    free_memory: Vec<f64>,
}

impl Nodes {
    /// An empty copy of a cluster of identical nodes (the engine checked they are).
    pub fn new(spec: &ClusterSpec) -> Self {
        let node = spec.nodes.first();
        let count = spec.nodes.len();
        let cpus_per_node = node.and_then(|n| n.cpus);
        let memory_per_node = node.and_then(|n| n.memory_gb);
        Self {
            gpus_per_node: node.map_or(0, |n| n.gpus),
            cpus_per_node,
            memory_per_node,
            free_gpus: vec![node.map_or(0, |n| n.gpus); count],
            free_cpus: vec![cpus_per_node.unwrap_or(0); count],
            free_memory: vec![memory_per_node.unwrap_or(0.0); count],
        }
    }

    /// Every node free again (the original's `empty_infra`).
    pub fn reset(&mut self) {
        self.free_gpus.fill(self.gpus_per_node);
        self.free_cpus.fill(self.cpus_per_node.unwrap_or(0));
        self.free_memory.fill(self.memory_per_node.unwrap_or(0.0));
    }

    /// Whether node `n` has `gpus` GPUs, `cpus` CPUs and `memory` GB free (unmodelled resources
    /// always are).
    fn has(&self, n: usize, gpus: u32, cpus: u32, memory: f64) -> bool {
        self.free_gpus[n] >= gpus
            && (self.cpus_per_node.is_none() || self.free_cpus[n] >= cpus)
            && (self.memory_per_node.is_none() || self.free_memory[n] >= memory)
    }

    fn hold(&mut self, n: usize, gpus: u32, cpus: u32, memory: f64) {
        self.free_gpus[n] -= gpus;
        if self.cpus_per_node.is_some() {
            self.free_cpus[n] -= cpus;
        }
        if self.memory_per_node.is_some() {
            self.free_memory[n] -= memory;
        }
    }

    /// Takes what a job of `gpus` GPUs asks by the rule above; false (nothing taken) when it
    /// does not fit.
    pub fn take(&mut self, gpus: u32) -> bool {
        let gpn = self.gpus_per_node;
        let nodes = self.free_gpus.len();
        if gpus <= gpn {
            let cpus = single_node_cpus(gpus);
            let Some(n) = (0..nodes).find(|&n| self.has(n, gpus, cpus, WORKER_GB)) else { return false };
            self.hold(n, gpus, cpus, WORKER_GB);
            return true;
        }
        let per_gpu = cross_node_gb_per_gpu(gpus);
        let whole = (gpus / gpn) as usize;
        let idle =
            |n: usize| self.free_gpus[n] == gpn && self.has(n, gpn, CPUS_PER_GPU * gpn, per_gpu * f64::from(gpn));
        let taken: Vec<usize> = (0..nodes).filter(|&n| idle(n)).take(whole).collect();
        if taken.len() < whole {
            return false;
        }
        let rest = gpus % gpn;
        let last = match rest {
            0 => None,
            _ => {
                let fits =
                    |n: usize| !taken.contains(&n) && self.has(n, rest, CPUS_PER_GPU * rest, per_gpu * f64::from(rest));
                match (0..nodes).find(|&n| fits(n)) {
                    Some(n) => Some(n),
                    None => return false,
                }
            }
        };
        for &n in &taken {
            self.hold(n, gpn, CPUS_PER_GPU * gpn, per_gpu * f64::from(gpn));
        }
        if let Some(n) = last {
            self.hold(n, rest, CPUS_PER_GPU * rest, per_gpu * f64::from(rest));
        }
        true
    }
}

/// Why the rule can never place a job of `gpus` GPUs, even on the empty `cluster` (identical
/// nodes): too few nodes, or, when `asks_host` (the policies that place with MS-YARN; Muri's
/// `dlas-gpu` counts GPUs only), a node's CPUs or memory short of what the job asks there. The
/// original never runs such a job and leaves it out of every metric.
pub fn never_fits(cluster: &ClusterSpec, gpus: u32, asks_host: bool) -> Option<String> {
    let node = cluster.identical_node()?;
    let node = &crate::core::NodeSpec {
        cpus: node.cpus.filter(|_| asks_host),
        memory_gb: node.memory_gb.filter(|_| asks_host),
        ..node.clone()
    };
    let count = cluster.nodes.len() as u32;
    let gpn = node.gpus;
    let short = |cpus: u32, memory: f64, on: &str| {
        let cpus_short = node.cpus.filter(|&c| c < cpus).map(|c| format!("{cpus} CPUs {on}, and a node has {c}"));
        let memory_short = node
            .memory_gb
            .filter(|&m| m < memory)
            .map(|m| format!("{memory} GB of memory {on}, and a node has {m} GB"));
        cpus_short.or(memory_short).map(|what| format!("MS-YARN (as Muri's simulator places it) asks {what}"))
    };
    if gpus <= gpn {
        return short(single_node_cpus(gpus), WORKER_GB, "on the node that holds it").map(|why| {
            format!("asks for {gpus} GPUs; {why} (the original would never run it and leave it out of every metric)")
        });
    }
    let (whole, rest) = (gpus / gpn, gpus % gpn);
    if whole + u32::from(rest > 0) > count {
        return Some(format!(
            "asks for {gpus} GPUs, which MS-YARN cannot place even on the empty cluster of {count} nodes x {gpn} GPUs \
             (the original would never run it and leave it out of every metric)"
        ));
    }
    let per_gpu = cross_node_gb_per_gpu(gpus);
    short(CPUS_PER_GPU * gpn, per_gpu * f64::from(gpn), "on each whole node it spans")
        .or_else(|| {
            (rest > 0).then(|| short(CPUS_PER_GPU * rest, per_gpu * f64::from(rest), "on its remainder node")).flatten()
        })
        .map(|why| {
            format!("asks for {gpus} GPUs; {why} (the original would never run it and leave it out of every metric)")
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{GpuType, NodeGroup, NodeSpec};

    fn cluster(nodes: u32, gpus: u32, cpus: Option<u32>, memory_gb: Option<f64>) -> ClusterSpec {
        let node = NodeSpec { gpus, gpu_type: GpuType::new("a100"), cpus, memory_gb };
        ClusterSpec::from_groups(&[NodeGroup { count: nodes, node }])
    }

    /// Without CPUs and memory the rule is the GPU-only first fit: a 4-GPU job goes to the
    /// first node with 4 free GPUs, a 12-GPU job to the first idle node and the first other node
    /// with 4.
    #[test]
    fn without_cpus_and_memory_only_gpus_decide() {
        let mut nodes = Nodes::new(&cluster(3, 8, None, None));
        assert!(nodes.take(6));
        assert!(nodes.take(4));
        assert_eq!(nodes.free_gpus, [2, 4, 8]);
        assert!(nodes.take(12));
        assert_eq!(nodes.free_gpus, [2, 0, 0]);
        assert!(!nodes.take(3), "no node has 3 GPUs free");
        nodes.reset();
        assert_eq!(nodes.free_gpus, [8, 8, 8]);
    }

    /// §2.7 with CPUs that bind: 12 CPUs a node take two 1-GPU jobs (2 each) and one 2-GPU job
    /// (12), not a second; a node short of 48 CPUs is never idle for a job wider than a node.
    #[test]
    fn cpus_bind_as_in_the_original() {
        let mut nodes = Nodes::new(&cluster(2, 8, Some(16), None));
        assert!(nodes.take(2)); // 12 CPUs on node 0
        assert!(nodes.take(1)); // 2 on node 0 (14)
        assert!(nodes.take(1)); // 2 on node 0 (16)
        assert!(nodes.take(1)); // node 0 is out of CPUs: node 1
        assert_eq!((nodes.free_gpus.as_slice(), nodes.free_cpus.as_slice()), ([4, 7].as_slice(), [0, 14].as_slice()));
        assert!(!nodes.take(3), "18 CPUs are free nowhere");
        nodes.reset();
        assert!(!nodes.take(16), "whole nodes need 48 CPUs");
        let mut wide = Nodes::new(&cluster(2, 8, Some(48), None));
        assert!(wide.take(16));
    }

    /// Memory: 5 GB per single-node job; `11 + 0.1 g` GB per GPU on the nodes of a wider job.
    #[test]
    fn memory_binds_as_in_the_original() {
        let mut nodes = Nodes::new(&cluster(1, 8, None, Some(12.0)));
        assert!(nodes.take(1));
        assert!(nodes.take(1));
        assert!(!nodes.take(1), "2 GB left");
        // 16 GPUs: 12.6 GB per GPU, about 100.8 GB per whole node.
        let mut wide = Nodes::new(&cluster(2, 8, None, Some(100.0)));
        assert!(!wide.take(16));
        let mut wide = Nodes::new(&cluster(2, 8, None, Some(101.0)));
        assert!(wide.take(16));
    }

    /// Without CPUs and memory, every take leaves the free GPUs per node exactly where MS-YARN's
    /// GPU rule (the one the engine's `yarn` placement uses) leaves them: the paper's tables
    /// depend on it.
    #[test]
    fn without_cpus_and_memory_the_rule_is_the_engine_s_yarn_rule() {
        use crate::core::Cluster;
        use crate::core::events::YarnPlacement;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for (count, gpn) in [(1, 1), (3, 4), (4, 8), (5, 2), (8, 8)] {
            let spec = cluster(count, gpn, None, None);
            let mut nodes = Nodes::new(&spec);
            let mut scratch = Cluster::new(spec.clone());
            let mut yarn = YarnPlacement::new(gpn);
            for step in 0..400 {
                if step % 9 == 0 {
                    nodes.reset();
                    scratch = Cluster::new(spec.clone());
                }
                // Zero GPUs take nothing on either side (the engine's placement places no such job).
                let gpus = 1 + next(u64::from(count * gpn) + 1) as u32;
                let fits = yarn.place(&mut scratch, step, gpus, &mut Vec::new());
                assert_eq!(nodes.take(gpus), fits, "{gpus} GPUs on {count} x {gpn}, step {step}");
                let free: Vec<u32> = (0..count as usize).map(|n| scratch.free_on_node(n)).collect();
                assert_eq!(nodes.free_gpus, free, "{gpus} GPUs on {count} x {gpn}, step {step}");
                let empty_fit = Nodes::new(&spec).take(gpus);
                assert_eq!(never_fits(&spec, gpus, true).is_none(), empty_fit, "{gpus} GPUs on {count} x {gpn}");
            }
        }
    }

    #[test]
    fn jobs_that_never_fit_are_named_with_the_resource() {
        assert_eq!(never_fits(&cluster(8, 8, Some(92), Some(520.0)), 32, true), None);
        let why = never_fits(&cluster(8, 8, Some(8), None), 2, true).unwrap();
        assert!(why.contains("asks 12 CPUs on the node that holds it, and a node has 8"), "{why}");
        assert_eq!(never_fits(&cluster(8, 8, Some(8), None), 2, false), None, "counting GPUs only");
        assert_eq!(never_fits(&cluster(8, 8, Some(8), None), 1, true), None, "a 1-GPU job asks 2 CPUs");
        let why = never_fits(&cluster(4, 8, Some(40), None), 16, true).unwrap();
        assert!(why.contains("asks 48 CPUs on each whole node it spans, and a node has 40"), "{why}");
        let why = never_fits(&cluster(2, 8, None, None), 32, false).unwrap();
        assert!(
            why.starts_with("asks for 32 GPUs, which MS-YARN cannot place even on the empty cluster of 2 nodes x 8")
        );
        let why = never_fits(&cluster(3, 8, Some(48), Some(200.0)), 20, true).unwrap_or_default();
        assert_eq!(why, "", "remainder nodes need 24 CPUs and 52 GB");
    }
}
