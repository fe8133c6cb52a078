//! What every policy of the Muri simulator shares (`docs/muri-semantics.md` §2): per-job
//! progress by iterations with a restart overhead charged in every event interval, completions
//! at end events rebuilt from scratch at each decision, the choice of the next decision between
//! the next arrival and the earliest end, and MS-YARN's first fit, re-done from an empty cluster
//! at every decision. Original: `run_sim.py` `shortest_first_sim_jobs` (lines 227–367) and
//! `multi_resource_blossom_same_sim_jobs` (933–1218), whose loops share this skeleton.
//!
//! One decision at time `now`, as the engine's hooks run it (the engine keeps the arrival events;
//! the end events are the policy's own, [`Family::next_decision`]; placement passes take from
//! [`Nodes`], MS-YARN with the CPUs and memory it asks):
//!
//! 1. [`Family::complete`]: the end group chosen for this decision completes (§2.3): each job
//!    adds `now − last` to its wall time and finishes at `now`, whatever its iterations left;
//! 2. [`Family::arrive`]: the event's arrivals join the end of the runnable list (§2.1);
//! 3. [`Family::progress`]: every running job, in runnable order, advances
//!    `max(now − last − overhead, 0) / iteration_time_cur` iterations and adds `now − last` to its
//!    wall time (§2.4); pending jobs keep their state;
//! 4. the policy orders the runnable jobs and picks the run set ([`Family::apply`] starts and
//!    preempts to match it, §2.6);
//! 5. [`Family::plan_ends`]: each running job ends at `now + iterations left × iteration_time_cur`;
//!    ends within a relative 1e-9 of a group's first end join that group (§2.5).
//!
//! Quirks kept: the overhead is charged in every interval a job runs (not only after a
//! restart) and never in the interval in which it completes, so a job's completion time grows
//! with the number of decisions during its run; a job completes when its end group is processed,
//! even up to 1e-4 s before its computed end (the Muri policies' merge, §2.2); float operations
//! keep the original's order (`(executed + now) − last` in progress, `executed + (now − last)` at
//! completion).
//!
//! Deviations: arrivals at distinct times are separate decisions, where the original groups
//! submit times within a relative 1e-9 (none in the shipped traces); a job no empty cluster can
//! hold is refused before the run ([`check_job`]), where the original never runs it and leaves it
//! out of every metric.

use super::isclose;
use super::nodes::{Nodes, never_fits};
use super::overheads::{UnsupportedGpuCount, restart_overhead};
use crate::core::events::{EventSim, JobIdx, JobStatus};
use crate::core::{ClusterSpec, JobSpec, SimTime};

/// How the next arrival and the earliest end are told apart when they (nearly) coincide (§2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coincidence {
    /// SRTF and SRSF: one decision for both only when the end equals the arrival exactly; an end
    /// earlier by any amount is a decision of its own.
    Exact,
    /// The Muri policies: an end within an absolute 1e-4 s (or a relative 1e-9) of the next
    /// arrival, before or after it, completes at the arrival.
    Near,
}

/// A job's state in the original's job record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MuriJob {
    /// Solo iteration time in seconds, `(ms × 1.015) / 1000` ([`solo_iteration_time`]).
    pub solo: f64,
    /// Iterations left (`remaining_iteration`).
    pub remaining: f64,
    /// Seconds per iteration at the current decision (`iteration_time_cur`): the solo time, or the
    /// group's cycle for a Muri group member.
    pub iteration_time: f64,
    /// Seconds of progress lost in every interval the job runs (`overhead`).
    pub overhead: f64,
    /// Wall seconds spent running, overheads included (`total_executed_time`).
    pub executed: f64,
}

/// The jobs that complete together at one end time.
#[derive(Clone, Debug, Default)]
struct EndGroup {
    time: SimTime,
    jobs: Vec<JobIdx>,
}

/// The shared state of one run of a Muri-family policy.
#[derive(Debug)]
pub struct Family {
    coincidence: Coincidence,
    jobs: Vec<MuriJob>,
    /// Time of the previous decision (every runnable job's `last_check_time`).
    last: SimTime,
    /// End groups by time, rebuilt at every decision.
    ends: Vec<EndGroup>,
    /// Whether the next decision completes `ends[0]`.
    completes_first: bool,
    /// By job: it holds the GPUs of its placement (a Muri group's other members share them).
    occupies: Vec<bool>,
    /// By job: it is in this decision's run set.
    run: Vec<bool>,
    to_start: Vec<JobIdx>,
    to_preempt: Vec<JobIdx>,
    /// The cluster's free GPUs, CPUs and memory per node for this decision's placement passes.
    nodes: Option<Nodes>,
}

impl Family {
    pub fn new(coincidence: Coincidence) -> Self {
        Self {
            coincidence,
            jobs: Vec::new(),
            last: 0.0,
            ends: Vec::new(),
            completes_first: false,
            occupies: Vec::new(),
            run: Vec::new(),
            to_start: Vec::new(),
            to_preempt: Vec::new(),
            nodes: None,
        }
    }

    pub fn job(&self, j: JobIdx) -> &MuriJob {
        &self.jobs[j]
    }

    /// Sets the seconds per iteration and the per-interval overhead `j` runs with from now.
    pub fn set_speed(&mut self, j: JobIdx, iteration_time: f64, overhead: f64) {
        let job = &mut self.jobs[j];
        job.iteration_time = iteration_time;
        job.overhead = overhead;
    }

    /// Whether `j` holds the GPUs of its placement (the scheduling log counts them once per group).
    pub fn occupies(&self, j: JobIdx) -> bool {
        self.occupies.get(j).copied().unwrap_or(false)
    }

    /// The nodes as the original's `empty_infra` leaves them: everything free.
    pub fn empty_nodes(&mut self) -> &mut Nodes {
        let nodes = self.nodes.as_mut().expect("the nodes exist once a decision started");
        nodes.reset();
        nodes
    }

    /// The nodes as this decision's placements so far left them.
    pub fn nodes(&mut self) -> &mut Nodes {
        self.nodes.as_mut().expect("the nodes exist once a decision started")
    }

    /// Time of the previous decision (every runnable job's `last_check_time`).
    pub fn last(&self) -> SimTime {
        self.last
    }

    /// §2.3: the end group chosen for `now` completes, in group order.
    pub fn complete(&mut self, sim: &mut EventSim, now: SimTime) {
        if !std::mem::take(&mut self.completes_first) {
            return;
        }
        let group = std::mem::take(&mut self.ends[0].jobs);
        self.complete_jobs(sim, now, &group);
        self.ends[0].jobs = group;
    }

    /// §2.3: `jobs` complete at `now`, in order: each adds `now − last` to its wall time.
    pub fn complete_jobs(&mut self, sim: &mut EventSim, now: SimTime, jobs: &[JobIdx]) {
        for &j in jobs {
            let job = &mut self.jobs[j];
            job.executed += now - self.last;
            self.occupies[j] = false;
            sim.set_end(j, now);
            sim.finish(j, false);
        }
    }

    /// The jobs of the earliest end group after the last [`Family::plan_ends`] (or
    /// [`Family::plan_earliest_end`]), and its time.
    pub fn first_end(&self) -> Option<(SimTime, &[JobIdx])> {
        self.ends.first().map(|g| (g.time, g.jobs.as_slice()))
    }

    /// §2.1 `move_to_runnable`: each arrival joins the end of the runnable list, pending, with
    /// all its iterations left and its solo iteration time.
    pub fn arrive(&mut self, sim: &mut EventSim, arrivals: &[JobIdx]) {
        if self.jobs.len() < sim.jobs().len() {
            let n = sim.jobs().len();
            self.jobs.resize(n, MuriJob::default());
            self.occupies.resize(n, false);
            self.run.resize(n, false);
        }
        if self.nodes.is_none() {
            self.nodes = Some(Nodes::new(sim.cluster().spec()));
        }
        for &j in arrivals {
            sim.enqueue(j);
            let spec = &sim.job(j).spec;
            let solo = solo_iteration_time(spec);
            self.jobs[j] = MuriJob {
                solo,
                remaining: spec.iterations.unwrap_or_default(),
                iteration_time: solo,
                overhead: 0.0,
                executed: 0.0,
            };
        }
    }

    /// §2.4: every running job progresses over the interval since the last decision, less its
    /// overhead, at its current iteration time.
    pub fn progress(&mut self, sim: &EventSim, now: SimTime) {
        for &j in sim.runnable() {
            if sim.job(j).status != JobStatus::Running {
                continue;
            }
            let job = &mut self.jobs[j];
            let run = now - self.last - job.overhead;
            // Python's `max(run, 0)`: 0 only when strictly larger.
            let run = if 0.0 > run { 0.0 } else { run };
            job.remaining -= run / job.iteration_time;
            job.executed = job.executed + now - self.last;
        }
    }

    /// Clears the run set and the occupancy of every runnable job, before a placement pass.
    pub fn clear_run_set(&mut self, sim: &EventSim) {
        for &j in sim.runnable() {
            self.run[j] = false;
            self.occupies[j] = false;
        }
    }

    /// `j` runs after this decision; `occupies` when it holds its placement's GPUs itself.
    pub fn run(&mut self, j: JobIdx, occupies: bool) {
        self.run[j] = true;
        self.occupies[j] = occupies;
    }

    /// §2.6: running jobs outside the run set are preempted, pending ones in it start (first
    /// start at `now`), on the GPUs they ask for.
    pub fn apply(&mut self, sim: &mut EventSim, now: SimTime) {
        self.to_start.clear();
        self.to_preempt.clear();
        for &j in sim.runnable() {
            match (sim.job(j).status, self.run[j]) {
                (JobStatus::Running, false) => self.to_preempt.push(j),
                (JobStatus::Pending, true) => self.to_start.push(j),
                _ => {}
            }
        }
        for &j in &self.to_preempt {
            sim.preempt(j);
        }
        for &j in &self.to_start {
            sim.start(j, now);
            sim.set_gpus(j, sim.job(j).spec.gpus);
        }
    }

    /// §2.5: the end groups after the decision at `now`, over the running jobs in runnable order;
    /// then `now` becomes the last decision.
    pub fn plan_ends(&mut self, sim: &EventSim, now: SimTime) {
        for group in &mut self.ends {
            group.jobs.clear();
        }
        let mut used = 0;
        for &j in sim.runnable() {
            if sim.job(j).status != JobStatus::Running {
                continue;
            }
            let job = &self.jobs[j];
            let end = now + job.remaining * job.iteration_time;
            // `search_dict_list`: the first group whose time is within a relative 1e-9.
            match self.ends[..used].iter_mut().find(|g| isclose(g.time, end, 1e-9, 0.0)) {
                Some(group) => group.jobs.push(j),
                None => {
                    if used == self.ends.len() {
                        self.ends.push(EndGroup::default());
                    }
                    self.ends[used].time = end;
                    self.ends[used].jobs.push(j);
                    used += 1;
                }
            }
        }
        self.ends.truncate(used);
        self.ends.sort_by(|a, b| a.time.total_cmp(&b.time));
        self.last = now;
    }

    /// §4.3 step 7 (Muri's `dlas-gpu`): one end group only, the running jobs (in runnable order)
    /// whose end `now + iterations left × iteration time` equals the earliest exactly; then `now`
    /// becomes the last decision.
    pub fn plan_earliest_end(&mut self, sim: &EventSim, now: SimTime) {
        let mut earliest = EndGroup { time: f64::INFINITY, jobs: Vec::new() };
        self.ends.clear();
        for &j in sim.runnable() {
            if sim.job(j).status != JobStatus::Running {
                continue;
            }
            let job = &self.jobs[j];
            let end = now + job.remaining * job.iteration_time;
            if end < earliest.time {
                earliest.time = end;
                earliest.jobs.clear();
                earliest.jobs.push(j);
            } else if end == earliest.time {
                earliest.jobs.push(j);
            }
        }
        if !earliest.jobs.is_empty() {
            self.ends.push(earliest);
        }
        self.last = now;
    }

    /// The jobs the coming [`Family::complete`] finishes, in group order (AntMan releases their
    /// GPUs first).
    pub fn completing(&self) -> &[JobIdx] {
        match self.ends.first() {
            Some(group) if self.completes_first => &group.jobs,
            _ => &[],
        }
    }

    /// AntMan's merge after [`Family::plan_ends`] (§5.5): every later end group within an absolute
    /// 1e-4 s (or a relative 1e-9) of the first joins it, its jobs after the first's.
    pub fn merge_near_first(&mut self) {
        let Some(first) = self.ends.first().map(|g| g.time) else { return };
        let mut k = 1;
        while k < self.ends.len() {
            if isclose(first, self.ends[k].time, 1e-9, 1e-4) {
                let group = self.ends.remove(k);
                self.ends[0].jobs.extend(group.jobs);
            } else {
                k += 1;
            }
        }
    }

    /// Whether the next decision completes the first end group; [`Family::next_decision`] sets
    /// it, a policy that moves the decision elsewhere (a queue jump) clears it.
    pub fn set_completes_first(&mut self, completes: bool) {
        self.completes_first = completes;
    }

    /// §2.2: the next decision, the earlier of the next arrival (the engine's event list) and the
    /// earliest end group, which completes there; `None` when neither exists. When both (nearly)
    /// coincide by [`Coincidence`], the decision is at the arrival and also completes the group.
    pub fn next_decision(&mut self, sim: &EventSim) -> Option<SimTime> {
        let arrival = sim.next_event_time();
        let end = self.ends.first().map(|g| g.time);
        let (time, completes) = match (arrival, end) {
            (None, None) => return None,
            (Some(a), None) => (a, false),
            (None, Some(e)) => (e, true),
            (Some(a), Some(e)) => {
                let together = match self.coincidence {
                    Coincidence::Exact => e == a,
                    Coincidence::Near => isclose(e, a, 1e-9, 1e-4),
                };
                if together {
                    (a, true)
                } else if e < a {
                    (e, true)
                } else {
                    (a, false)
                }
            }
        };
        self.completes_first = completes;
        Some(time)
    }
}

/// The solo iteration time of a job in seconds, in the original's operation order
/// `(ms × 1.015) / 1000` (§1.1, `jobs.py` `add_job`). The trace's milliseconds are recovered
/// from the seconds blox's Muri reader stores (`ms / 1000`) by rounding to the nearest whole
/// millisecond, which is exact for every shipped trace (the original crashes on a decimal
/// `iteration_time`); a decimal value is used as it is.
pub fn solo_iteration_time(spec: &JobSpec) -> f64 {
    let ms = spec.iteration_s.unwrap_or_default() * 1000.0;
    let whole = ms.round();
    let ms = if (ms - whole).abs() <= 1e-9 * whole { whole } else { ms };
    super::group_time::solo_iteration_time(ms)
}

/// The restart overhead of a job alone (§1.3), by its GPU count and model (10 s for a model the
/// table does not name, or none).
pub fn job_overhead(spec: &JobSpec) -> Result<f64, UnsupportedGpuCount> {
    restart_overhead(spec.gpus, spec.model.as_deref().unwrap_or_default()).map(f64::from)
}

/// Why the Muri simulator cannot run `spec` on `cluster`, checked before the run (§11 items 19,
/// 20; §12): it needs an iteration count and a solo iteration time, a GPU count of the overhead
/// table, room for its GPUs on the empty cluster under MS-YARN, and for the interleaving policies
/// (`needs_stages`) the three stage times.
pub fn check_job(spec: &JobSpec, cluster: &ClusterSpec, needs_stages: bool) -> Result<(), String> {
    if spec.iterations.is_none_or(|n| !(n.is_finite() && n >= 0.0)) {
        return Err("has no iteration count (the Muri policies run jobs by iterations)".into());
    }
    if spec.iteration_s.is_none_or(|s| !(s.is_finite() && s > 0.0)) {
        return Err("has no solo iteration time (a Muri trace's `iteration_time`)".into());
    }
    job_overhead(spec).map_err(|e| e.to_string())?;
    if needs_stages && spec.stage_times.as_ref().is_none_or(|s| s.len() != 3) {
        return Err("has no stage times (a Muri trace's `resource_time_0..2`), which Muri's interleaving needs; \
             the original would draw them at random, unseeded"
            .into());
    }
    if cluster.identical_node().is_none() {
        return Err("the Muri policies place with MS-YARN on identical nodes".into());
    }
    never_fits(cluster, spec.gpus, false).map_or(Ok(()), Err)
}

/// [`check_job`] for the policies that place with MS-YARN ([`Nodes`]), which also asks CPUs and
/// memory where the nodes give them.
pub fn check_placed_job(spec: &JobSpec, cluster: &ClusterSpec, needs_stages: bool) -> Result<(), String> {
    check_job(spec, cluster, needs_stages)?;
    never_fits(cluster, spec.gpus, true).map_or(Ok(()), Err)
}

/// Hand-made jobs and runs for the family's tests.
#[cfg(test)]
pub(super) mod testing {
    use crate::core::events::{EventConfig, EventEngine, EventPolicy};
    use crate::core::{ClusterSpec, JobSpec, RunOutput};
    use crate::profiles::ThroughputTable;
    use std::sync::Arc;

    /// A job as blox's Muri reader gives it: `ms` per iteration alone, stage times in ms.
    pub fn job(
        id: u64,
        arrival: f64,
        gpus: u32,
        iterations: f64,
        model: &str,
        ms: f64,
        stages_ms: [f64; 3],
    ) -> JobSpec {
        JobSpec {
            id,
            arrival,
            submitted: arrival,
            gpus,
            work: iterations * ms / 1000.0,
            model: Some(model.into()),
            iterations: Some(iterations),
            iteration_s: Some(ms / 1000.0),
            stage_times: Some(stages_ms.iter().map(|s| s / 1000.0).collect()),
            ..JobSpec::default()
        }
    }

    pub fn run(nodes: u32, gpus_per_node: u32, policy: Box<dyn EventPolicy>, jobs: Vec<JobSpec>) -> RunOutput {
        let config = EventConfig {
            cluster: ClusterSpec::uniform(nodes, gpus_per_node),
            slot: 1.0,
            throughput: Arc::new(ThroughputTable::elasticflow_a100().clone()),
            record_timeline: true,
        };
        EventEngine::new(config, policy, jobs.into_iter()).unwrap().run().unwrap()
    }

    /// Finish times by job id.
    pub fn finishes(out: &RunOutput) -> Vec<f64> {
        out.jobs.iter().map(|r| r.finish.unwrap()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{finishes, job, run};
    use super::*;
    use crate::policies::events::muri::interleave::{Muri, Params4, Variant};
    use crate::policies::events::muri::srtf::ShortestFirst;

    const BERT: [f64; 3] = [0.5, 160.0, 0.0];

    /// §2.4: the overhead (bert: 10 s) is charged in every interval a job runs, whoever caused
    /// the decision, and never in the interval in which it completes.
    #[test]
    fn overhead_is_charged_per_interval_not_at_completion() {
        let jobs = vec![job(0, 0.0, 1, 1000.0, "bert", 100.0, BERT), job(1, 50.0, 1, 1000.0, "bert", 100.0, BERT)];
        let out = run(1, 8, Box::new(ShortestFirst::new(false)), jobs);
        let solo = 100.0 * 1.015 / 1000.0;
        // Job 0 loses 10 of its first 50 s, then ends as planned at the arrival's decision.
        let first = 50.0 + (1000.0 - (50.0 - 10.0) / solo) * solo;
        // Job 1 loses 10 s in the interval that job 0's completion ends, none in its last.
        let second = first + (1000.0 - (first - 50.0 - 10.0) / solo) * solo;
        assert_eq!(finishes(&out), [first, second]);
        assert_eq!(out.summary.rounds, 4);
        assert!((first - 111.5).abs() < 1e-9 && (second - 161.5).abs() < 1e-9);
    }

    /// §3: the walk skips what does not fit (no head-of-line blocking) and preempts running jobs
    /// outside the result; SRSF weighs the remaining time by the GPU count.
    #[test]
    fn shortest_first_skips_and_preempts_and_srsf_weighs_gpus() {
        let jobs = vec![
            job(0, 0.0, 8, 10_000.0, "vgg16", 100.0, BERT),
            job(1, 10.0, 4, 100.0, "vgg16", 100.0, BERT),
            job(2, 10.0, 2, 200.0, "vgg16", 100.0, BERT),
        ];
        let out = run(1, 8, Box::new(ShortestFirst::new(false)), jobs);
        let starts: Vec<_> = out.jobs.iter().map(|r| (r.first_start, r.preemptions)).collect();
        assert_eq!(starts, [(Some(0.0), 1), (Some(10.0), 0), (Some(10.0), 0)]);

        let jobs = || vec![job(0, 0.0, 4, 1000.0, "a2c", 100.0, BERT), job(1, 0.0, 1, 3000.0, "a2c", 100.0, BERT)];
        let srtf = run(1, 4, Box::new(ShortestFirst::new(false)), jobs());
        assert_eq!(srtf.jobs[1].first_start, srtf.jobs[0].finish, "SRTF: the 4-GPU job is shorter");
        let srsf = run(1, 4, Box::new(ShortestFirst::new(true)), jobs());
        assert_eq!(srsf.jobs[1].first_start, Some(0.0), "SRSF: the 1-GPU job is smaller");
        assert_eq!(srsf.jobs[0].first_start, srsf.jobs[1].finish);
    }

    /// §2.2: an end 5e-5 s before the next arrival is its own decision for SRTF, but completes at
    /// the arrival for Muri.
    #[test]
    fn ends_near_an_arrival_complete_there_for_muri_only() {
        let solo = 100.0 * 1.015 / 1000.0;
        let end = 1000.0 * solo;
        let jobs =
            || vec![job(0, 0.0, 1, 1000.0, "bert", 100.0, BERT), job(1, end + 5e-5, 1, 10.0, "bert", 100.0, BERT)];
        let srtf = run(1, 1, Box::new(ShortestFirst::new(false)), jobs());
        assert_eq!((srtf.jobs[0].finish, srtf.summary.rounds), (Some(end), 4));
        let params = Params4 { packing_num: 4, autopack: false, weight_lbd: 0.0 };
        let muri = run(1, 1, Box::new(Muri::new(Variant::MURI_S, params)), jobs());
        assert_eq!((muri.jobs[0].finish, muri.summary.rounds), (Some(end + 5e-5), 3));
    }

    #[test]
    fn jobs_the_original_cannot_run_are_refused_before_the_run() {
        let cluster = ClusterSpec::uniform(8, 8);
        let ok = job(0, 0.0, 32, 10.0, "dqn", 100.0, BERT);
        assert_eq!(check_job(&ok, &cluster, true), Ok(()));
        let odd = JobSpec { gpus: 3, ..ok.clone() };
        assert!(check_job(&odd, &cluster, false).unwrap_err().contains("no row for 3 GPUs"));
        let small = ClusterSpec::uniform(2, 8);
        let wide = check_job(&ok, &small, false).unwrap_err();
        assert!(
            wide.starts_with("asks for 32 GPUs, which MS-YARN cannot place even on the empty cluster of 2 nodes x 8")
        );
        let bare = JobSpec { stage_times: None, ..ok.clone() };
        assert_eq!(check_job(&bare, &cluster, false), Ok(()), "SRTF/SRSF read no stage times");
        assert!(check_job(&bare, &cluster, true).unwrap_err().starts_with("has no stage times"));
        let no_time = JobSpec { iteration_s: None, ..ok };
        assert!(check_job(&no_time, &cluster, false).unwrap_err().starts_with("has no solo iteration time"));
    }

    #[test]
    fn solo_time_recovers_the_traces_milliseconds() {
        // 178 ms: (178 × 1.015) / 1000, not (0.178 × 1000) × 1.015 / 1000 nor 0.178 × 1.015.
        let spec = job(0, 0.0, 1, 1.0, "bert", 178.0, BERT);
        assert_eq!(solo_iteration_time(&spec), 0.18067);
        assert_ne!(0.178 * 1.015, 0.18067);
        let decimal = JobSpec { iteration_s: Some(0.1234567), ..spec };
        assert_eq!(solo_iteration_time(&decimal), 0.1234567 * 1000.0 * 1.015 / 1000.0);
    }
}
