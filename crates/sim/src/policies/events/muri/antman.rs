//! `antman`: AntMan (OSDI'20) as the Muri (SIGCOMM'22) simulator runs it, its `--schedule antman`
//! baseline (`run_sim.py` `antman_sim_jobs`, `switch.py` `antman_alloc_res`;
//! `docs/muri-semantics.md` §5).
//!
//! Rule: each job is resource-guaranteed (the trace's `priority` 0) or opportunistic (1). At every
//! arrival and completion the pending jobs are tried in `(priority, submission, id)` order, and
//! a job never stops once started. A guaranteed job takes GPUs no other guaranteed job holds: the
//! first node with enough of them, else (for up to one node's GPUs) it reserves all it finds on
//! the node with the most and completes there later; a job wider than a node takes whole free
//! nodes, reserving those it finds. It runs alone at its solo speed. An opportunistic job takes
//! the GPUs of least utilisation among those below 0.8 (any nodes; all or nothing), which admits
//! it to a GPU without another opportunistic job, and runs at the slowest rate the guaranteed jobs
//! on its GPUs leave it ([`opportunistic_iteration_time`]), recomputed at every decision.
//! Progress, overheads, completions and the next decision are the family's ([`super::family`]),
//! an end and an arrival merged only when exactly equal, and end groups within 1e-4 s of the
//! first merged into it.
//!
//! Quirks kept: per-GPU utilisation is a float sum (guaranteed `0.1 − 0.01` per GPU at each
//! reservation step and `+0.01` on all its GPUs once complete, `−0.1` at release; opportunistic
//! `±0.9`), and candidates are sorted by it with its rounding residues; a reservation is held,
//! unused, until its job completes; a guaranteed job that is still reserving counts for nothing
//! in a co-runner's slowdown; the restart overhead is charged in every event interval.
//!
//! Deviations: CPU and memory, which never bind on the paper's clusters, are not modelled, and a
//! cluster where they could bind is refused ([`check_cpus_and_memory`]: the original crashes or
//! overcommits there); a guaranteed job wider than a node must ask for whole nodes, and one that does not is refused
//! before the run (on the paper's 8-GPU nodes the overhead table's 16 and 32 GPUs always are;
//! the original's remainder-node path is never reached there); the scheduling log counts an
//! opportunistic job's GPUs as busy only when no guaranteed job is on any of them.

use super::family::{Coincidence, Family, check_job, job_overhead};
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{ClusterSpec, JobSpec, RunError, SimTime};
use crate::policies::{BuildContext, Built, Engine, Kind, OwnPlacement, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "antman",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "AntMan as Muri runs it: guaranteed jobs on their own GPUs, one opportunistic job per GPU beside them, no preemption",
    options: &[],
    source: "Muri's antman (AntMan, OSDI'20; Muri run_sim.py antman_sim_jobs)",
    placement: Some(OwnPlacement { name: "antman", alternatives: &[] }),
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyConfig for Options {
    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Event(Box::new(Antman::default())))
    }

    fn check_cluster(&self, cluster: &ClusterSpec) -> Result<(), String> {
        check_cpus_and_memory(cluster)
    }
}

/// AntMan places by GPUs alone on nodes whose CPUs and memory cannot run short of what its
/// placement asks (`docs/muri-semantics.md` §5.3): per node at most 6 CPUs per GPU (guaranteed
/// jobs; opportunistic ones take none) and `(11 + 0.1 G) gpn` GB for guaranteed jobs (a job of
/// `G` GPUs, at most the cluster's, spanning nodes) plus 5 GB per GPU for opportunistic jobs
/// (one per GPU). Where they can run short the original does not decide: its reservations take
/// CPUs they never checked, under an assertion that fails, and its opportunistic jobs take memory
/// without a test. So such clusters are refused, and nodes that give no CPUs or memory are
/// unlimited, as on the paper's cluster.
fn check_cpus_and_memory(cluster: &ClusterSpec) -> Result<(), String> {
    let Some(node) = cluster.identical_node() else { return Ok(()) };
    let gpn = node.gpus;
    let cpus = 6 * gpn;
    let memory = (16.0 + 0.1 * f64::from(cluster.total_gpus())) * f64::from(gpn);
    let short = node.cpus.is_some_and(|c| c < cpus) || node.memory_gb.is_some_and(|m| m < memory);
    if !short {
        return Ok(());
    }
    let given = match (node.cpus, node.memory_gb) {
        (Some(c), Some(m)) => format!("{c} CPUs and {m} GB"),
        (Some(c), None) => format!("{c} CPUs"),
        (None, Some(m)) => format!("{m} GB"),
        (None, None) => String::new(),
    };
    Err(format!(
        "antman on nodes of {given}: AntMan's placement may ask up to {cpus} CPUs and {memory} GB of a node of {gpn} GPUs \
         here, and where a node runs short the original fails an assertion (its reservations take CPUs they never check) \
         or takes memory it does not have (its opportunistic jobs take it without a test), which blox does not reproduce; \
         give nodes at least {cpus} `cpus_per_node` and {memory} `memory_gb_per_node`, or leave them out (AntMan then \
         places by GPUs, as on the paper's cluster)"
    ))
}

/// Utilisation a guaranteed job adds to each of its GPUs (`gpu_util`, "not real").
const GUARANTEED_UTIL: f64 = 0.1;
/// Utilisation an opportunistic job adds to each of its GPUs.
const OPPORTUNISTIC_UTIL: f64 = 0.9;
/// A GPU takes an opportunistic job only below this utilisation.
const UTIL_UPPER: f64 = 0.8;
/// What a guaranteed job's utilisation is split into: added at each reservation step, and the
/// rest once its placement is complete.
const COMPLETION_UTIL: f64 = 0.01;

/// One GPU: the jobs on it by class, and its utilisation sum.
#[derive(Debug, Clone, Default)]
struct Gpu {
    guaranteed: Vec<JobIdx>,
    opportunistic: Vec<JobIdx>,
    util: f64,
}

/// Where a job holds GPUs: per node record, the node and its GPUs in allocation order.
#[derive(Debug, Clone, Default)]
struct Holding {
    records: Vec<(usize, Vec<usize>)>,
    /// GPUs still to find (guaranteed jobs that reserve part of their GPUs).
    missing: u32,
    /// The node a single-node guaranteed job reserves on.
    node: Option<usize>,
}

/// The policy's state: the cluster's GPUs, each job's holding, the family's accounting.
#[derive(Debug)]
pub struct Antman {
    family: Family,
    /// `nodes[n][g]`.
    nodes: Vec<Vec<Gpu>>,
    holdings: Vec<Holding>,
}

impl Default for Antman {
    fn default() -> Self {
        Self { family: Family::new(Coincidence::Exact), nodes: Vec::new(), holdings: Vec::new() }
    }
}

fn is_guaranteed(spec: &JobSpec) -> bool {
    spec.priority == Some(0)
}

impl Antman {
    /// GPUs of node `n` no guaranteed job holds or reserves, in GPU order (`get_free_gpus(0)`).
    fn unguaranteed(&self, n: usize) -> Vec<usize> {
        (0..self.nodes[n].len()).filter(|&g| self.nodes[n][g].guaranteed.is_empty()).collect()
    }

    /// A guaranteed job takes `gpus` of node `n` (one reservation step).
    fn hold(&mut self, j: JobIdx, n: usize, gpus: &[usize]) {
        for &g in gpus {
            let gpu = &mut self.nodes[n][g];
            gpu.guaranteed.push(j);
            gpu.util += GUARANTEED_UTIL - COMPLETION_UTIL;
        }
    }

    /// The guaranteed job's placement is complete: the rest of its utilisation on all its GPUs.
    fn complete_placement(&mut self, j: JobIdx) {
        for (n, gpus) in &self.holdings[j].records {
            for &g in gpus {
                self.nodes[*n][g].util += COMPLETION_UTIL;
            }
        }
    }

    /// `try_single_node_alloc_antman`: a guaranteed job of at most one node's GPUs.
    fn place_on_one_node(&mut self, j: JobIdx, gpus: u32) -> bool {
        let need = self.holdings[j].missing as usize;
        if need == gpus as usize {
            let mut most: Option<(usize, Vec<usize>)> = None;
            for n in 0..self.nodes.len() {
                let free = self.unguaranteed(n);
                if free.len() >= need {
                    self.hold(j, n, &free[..need]);
                    self.holdings[j].records.push((n, free[..need].to_vec()));
                    self.holdings[j].missing = 0;
                    self.holdings[j].node = Some(n);
                    self.complete_placement(j);
                    return true;
                }
                if free.len() > most.as_ref().map_or(0, |(_, f)| f.len()) {
                    most = Some((n, free));
                }
            }
            if let Some((n, free)) = most {
                self.hold(j, n, &free);
                self.holdings[j].missing -= free.len() as u32;
                self.holdings[j].records.push((n, free));
                self.holdings[j].node = Some(n);
            }
            false
        } else {
            let n = self.holdings[j].node.expect("a job that reserved GPUs remembers its node");
            let free = self.unguaranteed(n);
            let take = if free.len() >= need { &free[..need] } else { &free[..] };
            self.hold(j, n, take);
            self.holdings[j].missing -= take.len() as u32;
            self.holdings[j].records[0].1.extend_from_slice(take);
            if free.len() >= need {
                self.complete_placement(j);
                true
            } else {
                false
            }
        }
    }

    /// `try_cross_node_alloc_antman` for whole nodes: the first nodes (in id order) whose every
    /// GPU is free of guaranteed jobs, reserved even when too few.
    fn place_on_whole_nodes(&mut self, j: JobIdx) -> bool {
        let per_node = self.nodes.first().map_or(0, Vec::len);
        let wanted = self.holdings[j].missing as usize / per_node;
        let whole: Vec<usize> =
            (0..self.nodes.len()).filter(|&n| self.unguaranteed(n).len() >= per_node).take(wanted).collect();
        for &n in &whole {
            let all: Vec<usize> = (0..per_node).collect();
            self.hold(j, n, &all);
            self.holdings[j].records.push((n, all));
        }
        self.holdings[j].missing -= (whole.len() * per_node) as u32;
        let complete = whole.len() == wanted;
        if complete {
            self.complete_placement(j);
        }
        complete
    }

    /// The opportunistic placement: the `gpus` GPUs of least utilisation below 0.8.
    fn place_opportunistic(&mut self, j: JobIdx, gpus: u32) -> bool {
        let mut candidates: Vec<(usize, usize)> = Vec::new();
        for (n, node) in self.nodes.iter().enumerate() {
            candidates.extend((0..node.len()).filter(|&g| node[g].util < UTIL_UPPER).map(|g| (n, g)));
        }
        if candidates.len() < gpus as usize {
            return false;
        }
        let nodes = &self.nodes;
        candidates.sort_by(|a, b| {
            nodes[a.0][a.1].util.partial_cmp(&nodes[b.0][b.1].util).unwrap_or(std::cmp::Ordering::Equal)
        });
        let holding = &mut self.holdings[j];
        for &(n, g) in &candidates[..gpus as usize] {
            let gpu = &mut self.nodes[n][g];
            gpu.util += OPPORTUNISTIC_UTIL;
            gpu.opportunistic.push(j);
            match holding.records.iter_mut().find(|(node, _)| *node == n) {
                Some((_, list)) => list.push(g),
                None => holding.records.push((n, vec![g])),
            }
        }
        holding.missing = 0;
        true
    }

    /// `antman_alloc_res`: whether pending job `j` can start now.
    fn try_start(&mut self, sim: &EventSim, j: JobIdx) -> bool {
        let spec = &sim.job(j).spec;
        let per_node = self.nodes.first().map_or(0, Vec::len) as u32;
        if !is_guaranteed(spec) {
            self.place_opportunistic(j, spec.gpus)
        } else if spec.gpus > per_node {
            self.place_on_whole_nodes(j)
        } else {
            self.place_on_one_node(j, spec.gpus)
        }
    }

    /// `release_job_res`: `j` leaves every GPU it holds.
    fn release(&mut self, j: JobIdx, guaranteed: bool) {
        let holding = std::mem::take(&mut self.holdings[j]);
        for (n, gpus) in &holding.records {
            for &g in gpus {
                let gpu = &mut self.nodes[*n][g];
                let list = if guaranteed { &mut gpu.guaranteed } else { &mut gpu.opportunistic };
                if let Some(k) = list.iter().position(|&x| x == j) {
                    list.remove(k);
                    gpu.util -= if guaranteed { GUARANTEED_UTIL } else { OPPORTUNISTIC_UTIL };
                }
            }
        }
    }

    /// The distinct jobs on any GPU of opportunistic job `j`, itself excepted.
    fn co_runners(&self, j: JobIdx) -> Vec<JobIdx> {
        let mut found = Vec::new();
        for (n, gpus) in &self.holdings[j].records {
            for &g in gpus {
                let gpu = &self.nodes[*n][g];
                found.extend(gpu.guaranteed.iter().copied());
                found.extend(gpu.opportunistic.iter().copied().filter(|&k| k != j));
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// Whether none of `j`'s GPUs has a guaranteed job (the log then counts them busy for it).
    fn alone(&self, j: JobIdx) -> bool {
        self.holdings[j].records.iter().all(|(n, gpus)| gpus.iter().all(|&g| self.nodes[*n][g].guaranteed.is_empty()))
    }
}

/// An opportunistic job's seconds per iteration beside its co-runners (`antman_calc_iter_time`):
/// its solo time, or more where a guaranteed co-runner's stages leave it gaps too short for its
/// own. Each guaranteed co-runner whose placement is complete gives `n` of its own iterations per
/// iteration of the job, `n` counted by fitting the job's storage, GPU and network stages into
/// the co-runner's other two stages in turn (`mod` is Python's float `%`, `fmod` here since
/// every operand is positive); an opportunistic co-runner (impossible with one per GPU) doubles
/// the solo time. `stages` and `co_stages` are in seconds; the result is the largest candidate.
pub fn opportunistic_iteration_time(solo: f64, stages: &[f64], co_runners: &[CoRunner<'_>]) -> f64 {
    let mut time = solo;
    for co in co_runners {
        let candidate = match co {
            CoRunner::Guaranteed { solo: co_solo, stages: c } => {
                let (s0, mut s1, mut s2) = (stages[0], stages[1], stages[2]);
                let (c0, c1, c2) = (c[0], c[1], c[2]);
                let mut n = (s0 / (c1 + c2)).floor();
                let r0 = s0 % (c1 + c2);
                if r0 > 0.0 {
                    n += 1.0;
                    s1 -= s1.min(c2).min(c1 + c2 - r0);
                }
                n += (s1 / (c0 + c2)).floor();
                let r1 = s1 % (c0 + c2);
                if r1 > 0.0 {
                    n += 1.0;
                    if r1 < c0 {
                        s2 -= s2.min(c0 + c1 - r1);
                    }
                }
                n += (s2 / (c0 + c1)).floor();
                let r2 = s2 % (c0 + c1);
                if r2 > c0 {
                    n += 1.0;
                }
                n * co_solo
            }
            CoRunner::Opportunistic => solo * 2.0,
        };
        // Python's `max(a, b)`: `b` only when strictly larger.
        if candidate > time {
            time = candidate;
        }
    }
    time
}

/// A job sharing an opportunistic job's GPUs, as its slowdown sees it.
#[derive(Debug, Clone, Copy)]
pub enum CoRunner<'a> {
    /// A guaranteed job with its placement complete: its solo iteration time and stage times (s).
    Guaranteed {
        solo: f64,
        stages: &'a [f64],
    },
    Opportunistic,
}

impl EventPolicy for Antman {
    fn check_job(&self, job: &EventJob, cluster: &ClusterSpec) -> Result<(), String> {
        let spec = &job.spec;
        check_job(spec, cluster, true)?;
        match spec.priority {
            Some(0) => {
                let per_node = cluster.identical_node().map_or(0, |node| node.gpus);
                if spec.gpus > per_node && !spec.gpus.is_multiple_of(per_node) {
                    return Err(format!(
                        "is resource-guaranteed and asks for {} GPUs, more than a node's {per_node} but not whole \
                         nodes, which AntMan's placement (as Muri runs it) does not place",
                        spec.gpus
                    ));
                }
                Ok(())
            }
            Some(1) => Ok(()),
            Some(other) => {
                Err(format!("has priority {other}; AntMan knows 0 (resource-guaranteed) and 1 (opportunistic)"))
            }
            None => Err("has no priority (a Muri trace's `priority`: 0 resource-guaranteed, 1 opportunistic), \
                         which AntMan schedules by; the original would draw it at random, unseeded"
                .into()),
        }
    }

    /// Progress is accounted in [`EventPolicy::decide`], after the arrivals (§5.2 step 2).
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    fn complete(&mut self, sim: &mut EventSim, now: SimTime, _ends: &[JobIdx]) {
        let ending = self.family.completing().to_vec();
        for &j in &ending {
            self.release(j, is_guaranteed(&sim.job(j).spec));
        }
        self.family.complete(sim, now);
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        if self.nodes.is_empty() {
            let per_node = sim.gpus_per_node() as usize;
            self.nodes = vec![vec![Gpu::default(); per_node]; sim.total_gpus() as usize / per_node];
        }
        self.family.arrive(sim, arrivals);
        self.holdings.resize(sim.jobs().len(), Holding::default());
        for &j in arrivals {
            let spec = &sim.job(j).spec;
            let overhead =
                job_overhead(spec).map_err(|e| RunError::InvalidJob { id: spec.id, reason: e.to_string() })?;
            let solo = self.family.job(j).solo;
            self.family.set_speed(j, solo, overhead);
            self.holdings[j].missing = spec.gpus;
        }
        self.family.progress(sim, now);
        sim.reorder_runnable(|jobs, runnable| {
            runnable.sort_by(|&a, &b| {
                let (a, b) = (&jobs[a].spec, &jobs[b].spec);
                (a.priority, a.submitted)
                    .partial_cmp(&(b.priority, b.submitted))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.id.cmp(&b.id))
            })
        });
        self.family.clear_run_set(sim);
        let mut running = Vec::new();
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            if sim.job(j).status == JobStatus::Running || self.try_start(sim, j) {
                running.push(j);
            }
        }
        for j in running {
            let occupies = is_guaranteed(&sim.job(j).spec) || self.alone(j);
            self.family.run(j, occupies);
        }
        self.family.apply(sim, now);
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let spec = &sim.job(j).spec;
            if sim.job(j).status != JobStatus::Running || is_guaranteed(spec) {
                continue;
            }
            let co: Vec<CoRunner<'_>> = self
                .co_runners(j)
                .into_iter()
                .filter_map(|k| {
                    let other = &sim.job(k).spec;
                    if !is_guaranteed(other) {
                        Some(CoRunner::Opportunistic)
                    } else if self.holdings[k].missing > 0 {
                        None
                    } else {
                        Some(CoRunner::Guaranteed {
                            solo: self.family.job(k).solo,
                            stages: other.stage_times.as_deref().unwrap_or_default(),
                        })
                    }
                })
                .collect();
            let solo = self.family.job(j).solo;
            let time = opportunistic_iteration_time(solo, spec.stage_times.as_deref().unwrap_or_default(), &co);
            let overhead = self.family.job(j).overhead;
            self.family.set_speed(j, time, overhead);
        }
        self.family.plan_ends(sim, now);
        self.family.merge_near_first();
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.family.occupies(j)
    }

    fn next_decision(&mut self, sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
        Ok(self.family.next_decision(sim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(nodes: usize, gpus: usize) -> Antman {
        Antman {
            nodes: vec![vec![Gpu::default(); gpus]; nodes],
            holdings: vec![Holding::default(); 8],
            ..Antman::default()
        }
    }

    #[test]
    fn jobs_without_a_known_class_are_refused() {
        use crate::policies::events::muri::family::testing::job;
        let cluster = ClusterSpec::uniform(8, 8);
        let table = crate::profiles::ThroughputTable::for_gpu("a100").unwrap();
        let spec = |gpus, priority| JobSpec { priority, ..job(0, 0.0, gpus, 10.0, "vgg16", 100.0, [50.0, 40.0, 10.0]) };
        let with = |gpus, priority| EventJob::new(spec(gpus, priority), table);
        let policy = Antman::default();
        assert_eq!(policy.check_job(&with(8, Some(0)), &cluster), Ok(()));
        assert_eq!(policy.check_job(&with(16, Some(0)), &cluster), Ok(()));
        assert_eq!(policy.check_job(&with(4, Some(1)), &cluster), Ok(()));
        assert!(policy.check_job(&with(4, None), &cluster).unwrap_err().starts_with("has no priority"));
        assert!(policy.check_job(&with(4, Some(2)), &cluster).unwrap_err().starts_with("has priority 2"));
        // Wider than a node means whole nodes: Muri's overhead table has only 16 and 32 there,
        // whole 8-GPU nodes, but not whole 6-GPU ones.
        let err = policy.check_job(&with(12, Some(0)), &cluster).unwrap_err();
        assert!(err.contains("no row for 12 GPUs"), "{err}");
        let six = ClusterSpec::uniform(8, 6);
        let err = policy.check_job(&with(16, Some(0)), &six).unwrap_err();
        assert!(err.contains("more than a node's 6 but not whole nodes"), "{err}");
        assert_eq!(policy.check_job(&with(16, Some(1)), &six), Ok(()), "opportunistic jobs take any GPUs");
        let bare = EventJob::new(JobSpec { stage_times: None, ..spec(4, Some(0)) }, table);
        assert!(policy.check_job(&bare, &cluster).unwrap_err().starts_with("has no stage times"));
    }

    #[test]
    fn a_guaranteed_co_runner_slows_by_whole_iterations_of_its_own() {
        // Storage 50 ms fits one 40 ms gap of the co-runner's GPU + network stages with 10 ms
        // over (2 iterations, and the GPU stage loses 10 ms to the overlap), the GPU stage's
        // 10 ms left takes one more: 3 co-runner iterations of 50.7 ms.
        let co = [CoRunner::Guaranteed { solo: 0.0507, stages: &[0.01, 0.03, 0.01] }];
        assert_eq!(opportunistic_iteration_time(0.071, &[0.05, 0.02, 0.0], &co), 3.0 * 0.0507);
        // A job already slower alone keeps its solo time; an opportunistic co-runner doubles it.
        assert_eq!(opportunistic_iteration_time(0.2, &[0.05, 0.02, 0.0], &co), 0.2);
        assert_eq!(opportunistic_iteration_time(0.2, &[0.05, 0.02, 0.0], &[CoRunner::Opportunistic]), 0.4);
        assert_eq!(opportunistic_iteration_time(0.071, &[0.05, 0.02, 0.0], &[]), 0.071);
    }

    #[test]
    fn utilisation_keeps_the_float_residues_the_original_sorts_by() {
        let mut antman = cluster(1, 2);
        antman.holdings[0].missing = 1;
        assert!(antman.place_on_one_node(0, 1), "a guaranteed job on GPU 0");
        antman.holdings[1].missing = 1;
        assert!(antman.place_opportunistic(1, 1));
        assert_eq!(antman.holdings[1].records, [(0, vec![1])], "the idle GPU first");
        antman.holdings[2].missing = 1;
        assert!(antman.place_opportunistic(2, 1));
        assert_eq!(antman.holdings[2].records, [(0, vec![0])], "beside the guaranteed job");
        assert!(!antman.place_opportunistic(3, 1), "one opportunistic job per GPU");
        antman.release(2, false);
        antman.release(1, false);
        // (0.1 - 0.01) + 0.01 + 0.9 - 0.9 on GPU 0, 0.9 - 0.9 on GPU 1.
        assert_eq!(antman.nodes[0][0].util, 0.09999999999999998);
        assert_eq!(antman.nodes[0][1].util, 0.0);
        // Candidates are sorted by those sums as they are: the lower residue wins a near tie.
        antman.nodes[0][0].util = 0.1;
        antman.nodes[0][1].util = 0.09999999999999998;
        assert!(antman.place_opportunistic(3, 1));
        assert_eq!(antman.holdings[3].records, [(0, vec![1])]);
    }

    #[test]
    fn a_guaranteed_job_reserves_what_it_finds_and_completes_on_that_node() {
        let mut antman = cluster(2, 4);
        for (j, gpus) in [(0, 3), (1, 3)] {
            antman.holdings[j].missing = gpus;
            assert!(antman.place_on_one_node(j, gpus));
        }
        antman.holdings[2].missing = 2;
        assert!(!antman.place_on_one_node(2, 2), "one GPU free per node");
        assert_eq!((antman.holdings[2].missing, antman.holdings[2].node), (1, Some(0)), "reserved on node 0");
        antman.release(1, true);
        assert!(!antman.place_on_one_node(2, 2), "node 1 is free now, but the job waits for node 0");
        antman.release(0, true);
        assert!(antman.place_on_one_node(2, 2));
        assert_eq!(antman.holdings[2].records, [(0, vec![3, 0])]);
    }
}
