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

/// Free GPUs per node of one switch of identical nodes and MS-YARN's choice of nodes (the rule
/// above), without a record of who holds what: [`YarnPlacement`] builds on it, and policies that
/// re-place every job from an empty cluster at every decision and only ask whether a job fits
/// (the Muri family, `policies::events::muri`) use it alone.
#[derive(Debug, Clone)]
pub struct YarnNodes {
    gpus_per_node: u32,
    free: Vec<u32>,
    /// The nodes of the last choice.
    chosen: Vec<(u32, u32)>,
}

impl YarnNodes {
    pub fn new(nodes: u32, gpus_per_node: u32) -> Self {
        Self { gpus_per_node, free: vec![gpus_per_node; nodes as usize], chosen: Vec::new() }
    }

    /// Free GPUs of each node, in id order.
    pub fn free_per_node(&self) -> &[u32] {
        &self.free
    }

    /// Every GPU free again (the original's `empty_infra`).
    pub fn reset(&mut self) {
        self.free.fill(self.gpus_per_node);
    }

    /// Chooses the `(node, GPUs)` pairs a job of `gpus` GPUs takes by the rule, into `chosen`
    /// (whole nodes first); false when it does not fit.
    fn choose(&mut self, gpus: u32) -> bool {
        self.chosen.clear();
        let gpn = self.gpus_per_node;
        if gpus > gpn {
            let whole = (gpus / gpn) as usize;
            let free = &self.free;
            self.chosen
                .extend((0..free.len() as u32).filter(|&n| free[n as usize] == gpn).take(whole).map(|n| (n, gpn)));
            if self.chosen.len() < whole {
                return false;
            }
            let rest = gpus % gpn;
            if rest > 0 {
                let chosen = &self.chosen;
                let other = |n: u32| !chosen.iter().any(|&(t, _)| t == n);
                let Some(n) = (0..free.len() as u32).find(|&n| other(n) && free[n as usize] >= rest) else {
                    return false;
                };
                self.chosen.push((n, rest));
            }
            true
        } else {
            match self.free.iter().position(|&f| f >= gpus) {
                Some(n) => {
                    self.chosen.push((n as u32, gpus));
                    true
                }
                None => false,
            }
        }
    }

    /// Takes `gpus` GPUs by the rule; false (nothing taken) when they do not fit.
    pub fn take(&mut self, gpus: u32) -> bool {
        if !self.choose(gpus) {
            return false;
        }
        for &(n, g) in &self.chosen {
            self.free[n as usize] -= g;
        }
        true
    }

    fn give_back(&mut self, held: &[(u32, u32)]) {
        for &(n, g) in held {
            self.free[n as usize] += g;
        }
    }
}

/// Free GPUs per node and each job's holdings, for one switch of identical nodes.
#[derive(Debug, Clone)]
pub struct YarnPlacement {
    nodes: YarnNodes,
    /// By job: `(node, GPUs)` held, empty when not placed.
    held: Vec<Vec<(u32, u32)>>,
    /// By job: whether it held GPUs since the last placement pass ended (it ran before this
    /// decision, or finished).
    released: Vec<bool>,
    /// By job: whether it was ever placed (it has run).
    ever_placed: Vec<bool>,
}

impl YarnPlacement {
    pub fn new(nodes: u32, gpus_per_node: u32) -> Self {
        Self {
            nodes: YarnNodes::new(nodes, gpus_per_node),
            held: Vec::new(),
            released: Vec::new(),
            ever_placed: Vec::new(),
        }
    }

    /// Free GPUs of each node, in id order.
    pub fn free_per_node(&self) -> &[u32] {
        self.nodes.free_per_node()
    }

    /// The `(node, GPUs)` pairs `job` holds, in allocation order (whole nodes first).
    pub fn holdings(&self, job: JobIdx) -> &[(u32, u32)] {
        self.held.get(job).map_or(&[], Vec::as_slice)
    }

    pub fn is_placed(&self, job: JobIdx) -> bool {
        !self.holdings(job).is_empty()
    }

    fn grow(&mut self, job: JobIdx) {
        if self.held.len() <= job {
            self.held.resize(job + 1, Vec::new());
            self.released.resize(job + 1, false);
            self.ever_placed.resize(job + 1, false);
        }
    }

    /// Places `job` on `gpus` GPUs by the rule above; `false` (nothing taken) when it does not
    /// fit or already holds GPUs.
    pub fn place(&mut self, job: JobIdx, gpus: u32) -> bool {
        self.grow(job);
        if gpus == 0 || !self.held[job].is_empty() || !self.nodes.take(gpus) {
            return false;
        }
        self.held[job].extend_from_slice(&self.nodes.chosen);
        self.ever_placed[job] = true;
        true
    }

    /// Gives back every GPU `job` holds.
    pub fn release(&mut self, job: JobIdx) {
        let Some(held) = self.held.get_mut(job) else { return };
        if held.is_empty() {
            return;
        }
        self.nodes.give_back(held);
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

    #[test]
    fn a_multi_node_job_takes_whole_free_nodes_then_the_first_node_with_the_remainder() {
        let mut p = YarnPlacement::new(4, 8);
        assert!(p.place(0, 2));
        assert_eq!(p.holdings(0), [(0, 2)]);
        // 19 GPUs: two whole free nodes (1, 2), the remainder 3 on the first other node with
        // room, node 0, ahead of the free node 3.
        assert!(p.place(1, 19));
        assert_eq!(p.holdings(1), [(1, 8), (2, 8), (0, 3)]);
        assert_eq!(p.free_per_node(), [3, 0, 0, 8]);
        // A whole-node job needs a completely free node: node 3.
        assert!(p.place(2, 8));
        assert_eq!(p.holdings(2), [(3, 8)]);
        assert!(!p.place(3, 9), "no completely free node left");
        p.release(1);
        assert_eq!(p.free_per_node(), [6, 8, 8, 0]);
        assert!(p.was_released(1) && !p.was_released(0));
        p.end_pass();
        assert!(!p.was_released(1) && p.was_ever_placed(1) && !p.was_ever_placed(3));
    }

    #[test]
    fn small_jobs_take_the_first_node_that_fits() {
        let mut p = YarnPlacement::new(2, 8);
        assert!(p.place(0, 6));
        assert!(p.place(1, 4), "node 0 has 2 left: node 1");
        assert!(p.place(2, 2), "first fit: node 0");
        assert_eq!(p.free_per_node(), [0, 4]);
        assert!(!p.place(2, 1), "a placed job is not placed twice");
    }

    #[test]
    fn nodes_take_by_the_same_rule_and_reset_to_empty() {
        let mut n = YarnNodes::new(4, 8);
        assert!(n.take(2) && n.take(19));
        assert_eq!(n.free_per_node(), [3, 0, 0, 8]);
        assert!(!n.take(16), "one completely free node left");
        assert!(n.take(3), "first fit: node 0");
        assert_eq!(n.free_per_node(), [0, 0, 0, 8]);
        assert!(!n.take(33), "more than the cluster");
        n.reset();
        assert_eq!(n.free_per_node(), [8; 4]);
        assert!(n.take(32));
    }

    #[test]
    fn fragmentation_refuses_what_counting_would_allow() {
        let mut p = YarnPlacement::new(2, 8);
        assert!(p.place(0, 6) && p.place(1, 6));
        assert_eq!(p.free_per_node().iter().sum::<u32>(), 4);
        assert!(!p.place(2, 4));
        assert!(p.holdings(2).is_empty());
        assert_eq!(p.free_per_node(), [2, 2], "a refused job takes nothing");
    }
}
