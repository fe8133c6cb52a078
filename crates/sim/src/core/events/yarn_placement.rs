//! `yarn`: Tiresias' MS-YARN placement as ElasticFlow's simulator has it (`cluster.py`
//! `ms_yarn_placement`, `switch.py` `ms_yarn_alloc_res`, `try_cross_node_alloc`,
//! `try_single_node_alloc`, `release_job_res` @ 57f2d97; the same scheme as Tiresias'
//! `simulator/switch.py` @ b0ef844). Whole jobs only: the non-elastic baselines (`tiresias`,
//! `themis`) may place with it instead of the buddy placement ([`super::BuddyPlacement`]).
//!
//! Rule: a job of `n` GPUs takes all its GPUs under one switch. If `n` exceeds the GPUs of a
//! node (`gpn`) it takes the first `floor(n / gpn)` completely free nodes in id order plus, if
//! `n % gpn > 0`, the first other node with at least that many free GPUs; otherwise the first node
//! with at least `n` free GPUs (first fit, not best fit). All or nothing: when no such nodes
//! exist the job is not placed. Releasing gives every GPU back to its node. Sizes need not be
//! powers of two (the buddy placement's classes do not apply).
//!
//! How the engine uses it ([`super::EventSim::place_widest_first`]): the policy picks jobs by GPU
//! count as before, every placement is released, then the picked jobs are placed widest first.
//! With power-of-two sizes on nodes of a power-of-two GPU count (every ElasticFlow trace and
//! cluster) that always succeeds: jobs of a node or more are multiples of it and find whole free
//! nodes, and first fit in decreasing sizes keeps every node's free count a multiple of the next
//! size, so a job fits whenever the GPUs left do. A run then equals the buddy-placed one. A picked
//! job that does not fit (other sizes: a 4-GPU job after two 6-GPU jobs on two 8-GPU nodes)
//! **waits**: a job that ran before this decision is preempted, one that was to start stays
//! pending (not started, no overhead). The GPUs it leaves free go to nobody until the next
//! decision. This is a deviation: the original asserts that placement succeeds and would crash.
//!
//! Not kept, each because the original cannot run with it (read, not run): ElasticFlow's
//! `dlas_sim_jobs` releases a placement only when the job has a buddy node set, so yarn
//! placements would pile up, and its scheduling log reads `node_set`, which yarn never sets (a
//! `KeyError` at the first running job); `themis_sim_jobs` never computes the network load that
//! `try_single_node_alloc` reads (a `KeyError` at the first placement). blox releases and re-places
//! every decision as both loops intend, and counts yarn-placed jobs as busy in the scheduling log
//! (cluster efficiency, GPUs in use). The rank cache stays empty (the original's log sees every
//! node as free under yarn); neither policy reads it (`tiresias` charges `estimate(g, restart)`
//! without the cache, `themis` nothing), so yarn runs are charged exactly as buddy-placed ones.
//!
//! CPU and memory are not modelled, since they never decide a placement on ElasticFlow's cluster
//! specs: its copy comments out the CPU and memory tests for whole and remainder nodes and asks
//! 0 CPUs for single-node jobs (a "workaround"); the one test left, 5 GB free memory for a
//! single-node job on 256 GB nodes, binds only once a remainder node holds `r (11 + 0.1 n)` GB
//! of an `n`-GPU job, i.e. for jobs of about 250 GPUs and more. (Tiresias' own copy checks 2
//! CPUs for a 1-GPU job, 6 per GPU otherwise, and memory on every node.) On 40-CPU 8-GPU
//! clusters the original's whole-node CPU request (48) fails silently and leaves the node's GPUs
//! free; blox does not reproduce that bug.
//!
//! Switches: blox clusters are `nodes x gpus_per_node` under one switch, as every ElasticFlow
//! cluster spec of the paper's figures except `n64g8` (Fig 8b clusters 01-03, 05, 06: 2 switches
//! of 32 nodes). Switches matter only with more than one: a job must then fit within one
//! switch's nodes (tried in switch order), which blox does not model.
//!
//! No reference log exists for yarn runs of these policies (the original cannot produce one).

use super::JobIdx;
use crate::core::{Cluster, GpuId, JobSlot};

/// The GPUs the rule above gives a job of `gpus` GPUs on `cluster`, whose nodes have
/// `gpus_per_node` GPUs each, into `chosen` (whole nodes first, a node's lowest free GPUs);
/// false when they do not fit.
pub fn choose(cluster: &Cluster, gpus_per_node: u32, gpus: u32, chosen: &mut Vec<GpuId>) -> bool {
    chosen.clear();
    let nodes = cluster.node_count();
    let gpn = gpus_per_node;
    if gpus > gpn {
        let whole = (gpus / gpn) as usize;
        let all_free = |n: usize| cluster.free_on_node(n) == gpn;
        // The whole nodes are the first `whole` completely free ones, so a node is taken exactly
        // when it is completely free and not past the last of them.
        let Some(last_taken) = (0..nodes).filter(|&n| all_free(n)).nth(whole - 1) else { return false };
        let rest = gpus % gpn;
        let remainder = match rest {
            0 => None,
            _ => match (0..nodes).find(|&n| !(all_free(n) && n <= last_taken) && cluster.free_on_node(n) >= rest) {
                Some(n) => Some(n),
                None => return false,
            },
        };
        for n in (0..=last_taken).filter(|&n| all_free(n)) {
            chosen.extend(cluster.free_gpus_on_node(n));
        }
        if let Some(n) = remainder {
            chosen.extend(cluster.free_gpus_on_node(n).take(rest as usize));
        }
        true
    } else {
        match (0..nodes).find(|&n| cluster.free_on_node(n) >= gpus) {
            Some(n) => {
                chosen.extend(cluster.free_gpus_on_node(n).take(gpus as usize));
                true
            }
            None => false,
        }
    }
}

/// MS-YARN as the engine's placement: jobs hold the GPUs the rule gives them in the engine's
/// [`Cluster`] (each job's GPUs are kept by the engine), and a placement pass remembers which
/// jobs gave GPUs back since it began and which were ever placed, for the jobs that do not fit.
#[derive(Debug, Clone)]
pub struct YarnPlacement {
    gpus_per_node: u32,
    /// By job: whether it held GPUs since the last placement pass ended (it ran before this
    /// decision, or finished).
    released: Vec<bool>,
    /// By job: whether it was ever placed (it has run).
    ever_placed: Vec<bool>,
}

impl YarnPlacement {
    pub fn new(gpus_per_node: u32) -> Self {
        Self { gpus_per_node, released: Vec::new(), ever_placed: Vec::new() }
    }

    fn grow(&mut self, job: JobIdx) {
        if self.released.len() <= job {
            self.released.resize(job + 1, false);
            self.ever_placed.resize(job + 1, false);
        }
    }

    /// Places `job` on `gpus` GPUs of `cluster` by the rule above, into `held`; `false` (nothing
    /// taken) when it does not fit or already holds GPUs.
    pub fn place(&mut self, cluster: &mut Cluster, job: JobIdx, gpus: u32, held: &mut Vec<GpuId>) -> bool {
        self.grow(job);
        if gpus == 0 || !held.is_empty() {
            return false;
        }
        if !choose(cluster, self.gpus_per_node, gpus, held) {
            held.clear();
            return false;
        }
        cluster.assign(held, JobSlot(job as u32));
        self.ever_placed[job] = true;
        true
    }

    /// Gives back every GPU `job` holds (`held`, emptied).
    pub fn release(&mut self, cluster: &mut Cluster, job: JobIdx, held: &mut Vec<GpuId>) {
        if held.is_empty() {
            return;
        }
        self.grow(job);
        cluster.release(held, JobSlot(job as u32));
        held.clear();
        self.released[job] = true;
    }

    /// Whether `job` held GPUs since the last placement pass ended.
    pub fn was_released(&self, job: JobIdx) -> bool {
        self.released.get(job).copied().unwrap_or(false)
    }

    pub fn was_ever_placed(&self, job: JobIdx) -> bool {
        self.ever_placed.get(job).copied().unwrap_or(false)
    }

    /// Ends a placement pass: releases from now on belong to the next decision.
    pub fn end_pass(&mut self) {
        self.released.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ClusterSpec;

    fn free_per_node(cluster: &Cluster) -> Vec<u32> {
        (0..cluster.node_count()).map(|n| cluster.free_on_node(n)).collect()
    }

    /// `(node, GPUs)` of `held`, in order of first appearance.
    fn by_node(cluster: &Cluster, held: &[GpuId]) -> Vec<(usize, u32)> {
        let mut out: Vec<(usize, u32)> = Vec::new();
        for &g in held {
            match out.iter_mut().find(|(n, _)| *n == cluster.node_of(g)) {
                Some((_, count)) => *count += 1,
                None => out.push((cluster.node_of(g), 1)),
            }
        }
        out
    }

    #[test]
    fn a_multi_node_job_takes_whole_free_nodes_then_the_first_node_with_the_remainder() {
        let mut cluster = Cluster::new(ClusterSpec::uniform(4, 8));
        let mut p = YarnPlacement::new(8);
        let mut held: Vec<Vec<GpuId>> = vec![Vec::new(); 4];
        assert!(p.place(&mut cluster, 0, 2, &mut held[0]));
        assert_eq!(held[0], [0, 1]);
        // 19 GPUs: two whole free nodes (1, 2), the remainder 3 on the first other node with
        // room, node 0, ahead of the free node 3.
        assert!(p.place(&mut cluster, 1, 19, &mut held[1]));
        assert_eq!(by_node(&cluster, &held[1]), [(1, 8), (2, 8), (0, 3)]);
        assert_eq!(free_per_node(&cluster), [3, 0, 0, 8]);
        // A whole-node job needs a completely free node: node 3.
        assert!(p.place(&mut cluster, 2, 8, &mut held[2]));
        assert_eq!(by_node(&cluster, &held[2]), [(3, 8)]);
        assert!(!p.place(&mut cluster, 3, 9, &mut held[3]), "no completely free node left");
        assert!(held[3].is_empty());
        p.release(&mut cluster, 1, &mut held[1]);
        assert_eq!(free_per_node(&cluster), [6, 8, 8, 0]);
        assert!(p.was_released(1) && !p.was_released(0));
        p.end_pass();
        assert!(!p.was_released(1) && p.was_ever_placed(1) && !p.was_ever_placed(3));
        assert_eq!(cluster.owner(0), Some(JobSlot(0)), "the engine's cluster says who holds a GPU");
    }

    #[test]
    fn small_jobs_take_the_first_node_that_fits() {
        let mut cluster = Cluster::new(ClusterSpec::uniform(2, 8));
        let mut p = YarnPlacement::new(8);
        let mut held: Vec<Vec<GpuId>> = vec![Vec::new(); 3];
        assert!(p.place(&mut cluster, 0, 6, &mut held[0]));
        assert!(p.place(&mut cluster, 1, 4, &mut held[1]), "node 0 has 2 left: node 1");
        assert!(p.place(&mut cluster, 2, 2, &mut held[2]), "first fit: node 0");
        assert_eq!(held[2], [6, 7]);
        assert_eq!(free_per_node(&cluster), [0, 4]);
    }

    #[test]
    fn fragmentation_refuses_what_counting_would_allow() {
        let mut cluster = Cluster::new(ClusterSpec::uniform(2, 8));
        let mut p = YarnPlacement::new(8);
        let mut held: Vec<Vec<GpuId>> = vec![Vec::new(); 3];
        assert!(p.place(&mut cluster, 0, 6, &mut held[0]) && p.place(&mut cluster, 1, 6, &mut held[1]));
        assert_eq!(cluster.free_gpus(), 4);
        assert!(!p.place(&mut cluster, 2, 4, &mut held[2]));
        assert!(held[2].is_empty());
        assert_eq!(free_per_node(&cluster), [2, 2], "a refused job takes nothing");
    }
}
