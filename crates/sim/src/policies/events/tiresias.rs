//! `tiresias`: discretized two-dimensional least attained service (Tiresias, NSDI'19,
//! `dlas-gpu`) as the ElasticFlow (ASPLOS'23) simulator runs it: `scheduler.py`
//! `dlas_sim_jobs(gputime=True)` @ b3f5ea4 (`docs/elasticflow-semantics.md` §8).
//!
//! Rule: every job runs on the GPUs its trace asks for and progresses in seconds against its
//! duration. Jobs enter queue 0 and drop one queue once their attained GPU time (executed
//! seconds x GPUs) reaches 3,250 GPU·s (queue 0) or 7,200 GPU·s (queue 1) (`queue_limits` sets
//! other limits, as Tiresias' own simulator allows); there are three
//! queues and no promotion (`solve_starvation = 0`). At each decision the queues are walked in
//! order, each in its own order: a job that fits in the GPUs left runs (skip-and-continue, no
//! head-of-line blocking), a running job that does not fit is preempted. A (re)started job loses
//! `estimate(g, restart)` seconds of its next progress step (§2.5), and on restart rounds every
//! running job adds that much to its end. Accepted when it completes by its deadline, declined
//! otherwise.
//!
//! The policy chooses its own next decision (§8.2): the earliest of the next (coalesced) arrival,
//! its single end event (the running jobs with the earliest end candidate, in runnable order) and
//! the next queue-limit crossing ("jump"), the latter two at least a slot after the decision.
//!
//! Quirks kept for fidelity (§8.4, §12 item 9): the end candidate is `max(t + slot, end)`, so
//! every job ending within the next slot completes together at `t + slot` but is logged with its
//! own end; the jump time divides the remaining GPU time by the GPU count while the test
//! multiplies, so multi-GPU jobs are demoted late; a start overhead is paid only if another
//! decision happens before the job ends; preempted jobs wait behind the running ones of their
//! queue and demoted jobs join the lower queue's tail.
//!
//! [`Tiresias::default`] is HEAD; [`Tiresias::paper_era`] is the variant before ElasticFlow commit
//! 0d29ad9 ("fix dlas-gpu time"), whose end candidate is the raw end (§8.5): it reproduces the
//! paper's own Figure 10 log, HEAD the re-run. Only HEAD is in the spec registry.
//!
//! Two options of the same `dlas_sim_jobs` (@ 0d29ad9; the rules are those of Tiresias' own
//! `simulator/run_sim.py` @ b0ef844) that ElasticFlow's `main` never reaches, so no per-job
//! reference log exists for them; they follow the code:
//!
//! * Starvation knob K ([`Tiresias::with_starvation_knob`], Tiresias `dlas-gpu-K`,
//!   `solve_starvation = K`). A job's queue counter ("attained", `executed_time`) is separate
//!   from its progress (`total_executed_time`). At each decision, after arrivals joined queue 0,
//!   every pending job that has attained service adds the decision's seconds to its starvation
//!   time (`last_pending_time`); one in a queue below the top whose starvation time reaches
//!   `trunc(attained x K)` goes to the tail of queue 0, both counters at 0, its `promotions`
//!   count one up. The next jump also covers the earliest such promotion (`trunc(attained x K -
//!   starved)` seconds on, if positive). Kept: the starvation time is not reset when the job runs
//!   again, only by a promotion, so it counts all waiting since the last promotion, not since
//!   the job last ran.
//! * 2D-Gittins ([`Tiresias::with_gittins`], Tiresias `dlas-gpu-gittins`). Before the walk each
//!   queue is stably sorted by Gittins rank, higher first, then by truncated submit time, earlier
//!   first (`(rank, -submit)` descending); ranks are recomputed at every decision from the
//!   attained GPU time `trunc(attained x GPUs)` via [`GittinsIndex`]. Tiresias' `main` passes a
//!   knob to `dlas-gpu-gittins-K` but its sort tests `schedule == 'dlas-gpu-gittins'`, so those
//!   runs sorted nothing; here both options combine.

use crate::core::events::{EventPolicy, EventSim, JobIdx, JobStatus, MakePlacement};
use crate::core::{RunError, SimTime};
use crate::policies::events::BUDDY_OR_YARN;
use crate::policies::events::buddy::BuddyPlacement;
use crate::policies::events::overhead::ElasticflowOverhead;
use crate::policies::{
    BuildContext, Built, Engine, InputParser, InputSource, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo,
    PolicyInput, Positive, parse_options,
};
use crate::profiles::GpuTimeDistribution;
use serde::Deserialize;
use std::sync::Arc;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "tiresias",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "discretized 2D-LAS, 3 queues at 3250/7200 GPU-s",
    options: &[
        OptionDoc {
            name: "starvation_knob",
            example: "8",
            meaning: "K: a starved job returns to queue 0 once it has waited K times its attained service (Tiresias dlas-gpu-K)",
        },
        OptionDoc {
            name: "queue_limits",
            example: "[60, 600]",
            meaning: "attained GPU-seconds at which a job leaves queue 0 and queue 1 (default [3250, 7200], ElasticFlow's; Tiresias' simulator takes them as parameters)",
        },
        OptionDoc {
            name: "gittins",
            example: "{dataset: tiresias/yarn-gput1000.csv}",
            meaning: "order each queue by the Gittins index of a GPU-time distribution CSV, {dataset: D} or {path: P} (Tiresias dlas-gpu-gittins)",
        },
    ],
    source: "ElasticFlow's dlas-gpu (Tiresias, NSDI'19; scheduler.py dlas_sim_jobs)",
    placement: Some(BUDDY_OR_YARN),
    parse: &parse_options::<Options>,
};

/// Options of `tiresias`; the default (plain `tiresias`) is ElasticFlow's `dlas-gpu`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Tiresias' `dlas-gpu-K`: a starved job returns to queue 0 once it has waited K times its
    /// attained service.
    #[serde(default)]
    pub starvation_knob: Option<Positive>,
    /// GPU-seconds of attained service at which a job leaves queue 0 and queue 1 (Tiresias'
    /// queue thresholds; ElasticFlow fixes them at 3,250 and 7,200).
    #[serde(default)]
    pub queue_limits: Option<[Positive; 2]>,
    /// Tiresias' `dlas-gpu-gittins`: order each queue by the Gittins index of this GPU-time
    /// distribution.
    #[serde(default)]
    pub gittins: Option<InputSource>,
}

impl PolicyConfig for Options {
    /// Only the options given: plain `tiresias` stays a bare name.
    fn params(&self) -> Params {
        let Options { starvation_knob, queue_limits, gittins } = self;
        let mut params = Params::new();
        if let Some(k) = starvation_knob {
            params.insert("starvation_knob", k.0.into());
        }
        if let Some([first, second]) = queue_limits {
            params.insert("queue_limits", vec![first.0, second.0].into());
        }
        if let Some(source) = gittins {
            params.insert("gittins", source.canonical());
        }
        params
    }

    fn inputs(&self) -> Vec<PolicyInput> {
        self.gittins.iter().map(|source| gittins_input(source.clone())).collect()
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        let mut policy = Tiresias::default();
        if let Some(k) = self.starvation_knob {
            policy = policy.with_starvation_knob(k.0);
        }
        if let Some([first, second]) = self.queue_limits {
            if first.0 >= second.0 {
                return Err(format!(
                    "`queue_limits` must increase (queue 0's limit below queue 1's), got [{}, {}]",
                    first.0, second.0
                ));
            }
            policy = policy.with_queue_limits([first.0, second.0]);
        }
        if let Some(source) = &self.gittins {
            let distribution: Arc<GpuTimeDistribution> = ctx.input(&gittins_input(source.clone()))?;
            policy = policy.with_gittins(&distribution);
        }
        Ok(Built::Event(Box::new(policy)))
    }
}

/// The job-size distribution a Gittins index is computed over.
fn gittins_input(source: InputSource) -> PolicyInput {
    PolicyInput {
        what: "GPU-time distribution",
        source,
        parse: Some(InputParser::File(GpuTimeDistribution::parse_input)),
        only_if_a_file: false,
    }
}

/// GPU-seconds after which a job leaves queue 0 and queue 1 (the last queue has no limit):
/// ElasticFlow's.
const LIMITS: [f64; 2] = [3250.0, 7200.0];

/// The Gittins quantum Δ in GPU-seconds (`JOBS.gittins_delta`).
const GITTINS_DELTA: u64 = 3250;

/// Tiresias' Gittins ranks over a job-size distribution, as ElasticFlow's `scheduler.py`
/// computes them (`parse_job_dist`, `get_gittins_index`, `cal_r_gittins_index` @ 0d29ad9,
/// Python 3; Tiresias' Python 2 copy floors the division of `e`).
///
/// For attained GPU time `a` (a whole number below the largest sample `max`), of the `m` samples
/// above `a`: `p` = the share that end by `a + Δ`, `e` = (their sizes summed + Δ for each of the
/// others) / `m`, rank = `p x 10^6 / e`; `p` and `e` rounded to 5 decimals, the rank to 4, ties
/// to even like Python's `round`. Kept quirks: `e` sums the samples' whole sizes, not what is
/// left after `a`; when `a + Δ >= max` the largest sample counts as not ending in the quantum; a
/// job that has attained `max` or more has rank 0. Ranks are precomputed at each sample `v`
/// (at `a = v - 1`), and a job that has attained `a` gets the rank of the first sample above
/// `a`, so a rank holds from one sample to the next.
#[derive(Debug, Clone)]
pub struct GittinsIndex {
    distribution: Arc<GpuTimeDistribution>,
    /// The rank at each sample.
    ranks: Vec<f64>,
}

impl GittinsIndex {
    pub fn new(distribution: &GpuTimeDistribution) -> Self {
        let ranks = distribution.samples().iter().map(|&v| Self::rank_at(distribution, v - 1)).collect();
        Self { distribution: Arc::new(distribution.clone()), ranks }
    }

    /// `cal_r_gittins_index(a)`.
    pub fn rank_at(d: &GpuTimeDistribution, a: u64) -> f64 {
        let (n, max) = (d.len(), d.max());
        if a >= max {
            return 0.0;
        }
        let first = d.count_at_most(a);
        let next = a + GITTINS_DELTA;
        let first_after = if next >= max { n - 1 } else { d.count_at_most(next) };
        let above = (n - first) as f64;
        let p = py_round((first_after - first) as f64 / above, 5);
        let e_sum = d.sum(first, first_after) + u128::from(GITTINS_DELTA) * (n - first_after) as u128;
        let e = py_round(e_sum as f64 / above, 5);
        py_round(p * 1_000_000.0 / e, 4)
    }

    /// `get_gittins_index(a)`: the rank of a job that has attained `a` GPU-seconds.
    pub fn rank(&self, a: u64) -> f64 {
        self.ranks.get(self.distribution.count_at_most(a)).copied().unwrap_or(0.0)
    }
}

/// Python 3's `round(x, digits)`: the decimal nearest to `x`'s exact value, ties to even; Rust's
/// fixed-precision formatting rounds the same way.
fn py_round(x: f64, digits: usize) -> f64 {
    format!("{x:.digits$}").parse().unwrap_or(x)
}

#[derive(Debug, Default)]
pub struct Tiresias {
    paper_era: bool,
    /// Other queue limits than [`LIMITS`].
    queue_limits: Option<[f64; 2]>,
    /// `solve_starvation`; `None` (0 in the original) disables promotion.
    starvation_knob: Option<f64>,
    gittins: Option<GittinsIndex>,
    queues: [Vec<JobIdx>; 3],
    /// Per job index: its queue, the seconds of service counted towards it (`executed_time`,
    /// reset by a promotion), its pending seconds since it first attained service or was last
    /// promoted (`last_pending_time`) and its Gittins rank.
    queue_of: Vec<usize>,
    attained: Vec<f64>,
    starved: Vec<f64>,
    rank: Vec<f64>,
    /// The end event: its time and its jobs in runnable order, with their ends.
    end_at: Option<SimTime>,
    ends: Vec<(JobIdx, SimTime)>,
    /// The earliest queue-limit crossing of a running job.
    next_jump: Option<SimTime>,
    to_run: Vec<JobIdx>,
    to_preempt: Vec<JobIdx>,
    waiting: Vec<JobIdx>,
}

impl Tiresias {
    /// End candidates at the raw end, as before commit 0d29ad9 (§8.5).
    pub fn paper_era() -> Self {
        Self { paper_era: true, ..Self::default() }
    }

    /// Promotes starved jobs with knob `k` > 0 (Tiresias `dlas-gpu-K`).
    pub fn with_starvation_knob(self, k: f64) -> Self {
        Self { starvation_knob: Some(k), ..self }
    }

    /// Jobs leave queue 0 and queue 1 at `limits` GPU-seconds instead of ElasticFlow's.
    pub fn with_queue_limits(self, limits: [f64; 2]) -> Self {
        Self { queue_limits: Some(limits), ..self }
    }

    fn limits(&self) -> [f64; 2] {
        self.queue_limits.unwrap_or(LIMITS)
    }

    /// Orders each queue by the Gittins index of `distribution` (Tiresias `dlas-gpu-gittins`).
    pub fn with_gittins(self, distribution: &GpuTimeDistribution) -> Self {
        Self { gittins: Some(GittinsIndex::new(distribution)), ..self }
    }

    /// Whether pending job `j` may be promoted: knob on, below the top queue, with service both
    /// in total and since its last promotion.
    fn may_promote(&self, sim: &EventSim, j: JobIdx) -> Option<f64> {
        let k = self.starvation_knob?;
        (self.queue_of[j] > 0 && sim.job(j).life.executed_work > 0.0 && self.attained[j] > 0.0).then_some(k)
    }

    /// §8.3 step 3 for pending jobs (after arrivals joined queue 0): promotions, then every
    /// runnable job's Gittins rank.
    fn promote_and_rank(&mut self, sim: &mut EventSim) {
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            if sim.job(j).status != JobStatus::Pending {
                continue;
            }
            let due = self.may_promote(sim, j).is_some_and(|knob| self.starved[j] >= (self.attained[j] * knob).trunc());
            if due {
                self.attained[j] = 0.0;
                self.starved[j] = 0.0;
                self.leave_queue(j);
                self.queue_of[j] = 0;
                self.queues[0].push(j);
                sim.promote(j);
            }
        }
        if let Some(index) = &self.gittins {
            for &j in sim.runnable() {
                let attained = (self.attained[j] * f64::from(sim.job(j).spec.gpus)).trunc();
                self.rank[j] = index.rank(attained as u64);
            }
            for queue in &mut self.queues {
                let (rank, jobs) = (&self.rank, sim.jobs());
                queue.sort_by(|&x, &y| {
                    rank[y]
                        .total_cmp(&rank[x])
                        .then(jobs[x].spec.submitted.trunc().total_cmp(&jobs[y].spec.submitted.trunc()))
                });
            }
        }
    }

    fn leave_queue(&mut self, j: JobIdx) {
        let queue = &mut self.queues[self.queue_of[j]];
        if let Some(k) = queue.iter().position(|&q| q == j) {
            queue.remove(k);
        }
    }

    /// §8.3 step 4: which pending jobs start and which running jobs are preempted.
    fn pick(&mut self, sim: &mut EventSim, restart: bool) {
        self.to_run.clear();
        self.to_preempt.clear();
        let mut free = sim.total_gpus();
        let model = ElasticflowOverhead::of(sim);
        for queue in &self.queues {
            for &j in queue {
                let job = sim.job(j);
                let g = job.spec.gpus;
                if free >= g {
                    if job.status == JobStatus::Pending {
                        self.to_run.push(j);
                        sim.set_overhead(j, model.estimate(g, restart, false));
                    }
                    free -= g;
                } else if job.status == JobStatus::Running {
                    self.to_preempt.push(j);
                }
            }
        }
    }

    /// §8.3 steps 8 and 9: the end event and the next queue-limit crossing.
    fn plan_events(&mut self, sim: &mut EventSim, now: SimTime, restart: bool) {
        self.ends.clear();
        self.end_at = None;
        self.next_jump = None;
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            if sim.job(j).status == JobStatus::Pending {
                if let Some(knob) = self.may_promote(sim, j) {
                    let wait = (self.attained[j] * knob - self.starved[j]).trunc();
                    if wait > 0.0 {
                        self.next_jump = Some(self.next_jump.map_or(now + wait, |t: f64| t.min(now + wait)));
                    }
                }
                continue;
            }
            let job = sim.job(j);
            if job.status != JobStatus::Running {
                continue;
            }
            let g = job.spec.gpus;
            let mut left = job.spec.work - job.life.executed_work;
            if restart {
                let overhead = ElasticflowOverhead::of(sim).estimate(g, true, false);
                sim.set_overhead(j, overhead);
                left += overhead;
            }
            let end = (now + left).trunc();
            let candidate = if self.paper_era { end } else { end.max(now + sim.slot()) };
            match self.end_at {
                Some(t) if candidate > t => {}
                Some(t) if candidate == t => self.ends.push((j, end)),
                _ => {
                    self.ends.clear();
                    self.ends.push((j, end));
                    self.end_at = Some(candidate);
                }
            }
            if let Some(&limit) = self.limits().get(self.queue_of[j]) {
                let jump = ((limit - self.attained[j]) / f64::from(g)).ceil() + now;
                self.next_jump = Some(self.next_jump.map_or(jump, |t: f64| t.min(jump)));
            }
        }
    }
}

impl EventPolicy for Tiresias {
    /// ElasticFlow's buddy placement, as in its simulator (a spec may give yarn instead).
    fn placement(&self) -> Option<MakePlacement> {
        Some(BuddyPlacement::for_cluster)
    }

    /// §8.3 step 3: running jobs progress by the seconds since the last decision less their
    /// overhead, and drop at most one queue; pending jobs with attained service starve for the
    /// seconds since the last decision.
    fn advance(&mut self, sim: &mut EventSim, delta: f64, _now: SimTime) -> Result<(), RunError> {
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let job = sim.job(j);
            if job.status == JobStatus::Pending && self.attained[j] > 0.0 {
                self.starved[j] = (self.starved[j] + delta).trunc();
            }
            if job.status != JobStatus::Running {
                continue;
            }
            let progress = (delta - job.overhead).max(0.0);
            let executed = (job.life.executed_work + progress).trunc();
            let gpus = job.spec.gpus;
            sim.set_executed(j, executed);
            sim.set_overhead(j, 0.0);
            self.attained[j] = (self.attained[j] + progress).trunc();
            let q = self.queue_of[j];
            if self.limits().get(q).is_some_and(|&limit| (self.attained[j] * f64::from(gpus)).trunc() >= limit) {
                self.leave_queue(j);
                self.queue_of[j] = q + 1;
                self.queues[q + 1].push(j);
            }
        }
        Ok(())
    }

    /// The policy's own end event, late iff the end is after the deadline (§8.3 step 1). In
    /// simulation the engine's list holds arrivals only; on a real cluster it lists the jobs
    /// whose processes finished, which end then, and a planned end of a job whose process has
    /// not finished is none ([`EventSim::completes`]): the next plan gives it another.
    fn complete(&mut self, sim: &mut EventSim, now: SimTime, ends: &[JobIdx]) {
        for &j in ends {
            self.leave_queue(j);
            self.ends.retain(|&(k, _)| k != j);
            let end = sim.job(j).end_time;
            let late = end > sim.job(j).deadline();
            sim.finish(j, end, late);
        }
        if self.end_at != Some(now) {
            return;
        }
        for k in 0..self.ends.len() {
            let (j, end) = self.ends[k];
            if !sim.completes(j) {
                continue;
            }
            self.leave_queue(j);
            let late = end > sim.job(j).deadline();
            sim.finish(j, end, late);
        }
        self.ends.clear();
        self.end_at = None;
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        if self.queue_of.len() < sim.jobs().len() {
            let n = sim.jobs().len();
            self.queue_of.resize(n, 0);
            self.attained.resize(n, 0.0);
            self.starved.resize(n, 0.0);
            self.rank.resize(n, 0.0);
        }
        for &a in arrivals {
            sim.enqueue(a);
            self.queue_of[a] = 0;
            self.queues[0].push(a);
        }
        self.promote_and_rank(sim);
        let restart = sim.next_round();
        self.pick(sim, restart);
        sim.release_all();
        for &j in &self.to_preempt {
            sim.preempt(j);
        }
        for &j in &self.to_run {
            sim.start(j, now);
            sim.set_gpus(j, sim.job(j).spec.gpus);
        }
        sim.reorder_runnable(|jobs, runnable| runnable.sort_by_key(|&j| std::cmp::Reverse(jobs[j].spec.gpus)));
        sim.place_widest_first()?;
        // §8.3 step 7: waiting jobs go behind the running ones of their queue.
        for queue in &mut self.queues {
            self.waiting.clear();
            self.waiting.extend(queue.iter().copied().filter(|&j| sim.job(j).status != JobStatus::Running));
            queue.retain(|&j| sim.job(j).status == JobStatus::Running);
            queue.extend_from_slice(&self.waiting);
        }
        self.plan_events(sim, now, restart);
        Ok(())
    }

    /// §8.2 and §8.3 step 11: jumps and a lone end event at least a slot on, arrivals coalesced
    /// (they are the only events in the engine's list), then the earliest of the three.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        let floor = now + sim.slot();
        let jump = self.next_jump.map(|t| if t - now < sim.slot() { floor } else { t });
        if let Some(end) = self.end_at.as_mut() {
            *end = end.max(floor);
        }
        let arrival = sim.coalesce_events(now, false);
        let Some(event) = [arrival, self.end_at].into_iter().flatten().reduce(f64::min) else {
            return Ok(None);
        };
        Ok(Some(jump.map_or(event, |t| t.min(event))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gittins_ranks_match_the_hand_computed_index() {
        let d = GpuTimeDistribution::from_samples(vec![5000, 1000, 10000, 2000]).unwrap();
        // a = 999: of 4 samples above it, 1000 and 2000 end by 4249: p = 0.5,
        // e = (1000 + 2000 + 2 x 3250) / 4 = 2375, rank = 500000 / 2375 = 210.526315... -> 210.5263.
        assert_eq!(GittinsIndex::rank_at(&d, 999), 210.5263);
        // a = 1999: p = 2/3 -> 0.66667, e = (2000 + 5000 + 3250) / 3 -> 3416.66667,
        // rank = 666670 / 3416.66667 -> 195.1229.
        assert_eq!(GittinsIndex::rank_at(&d, 1999), 195.1229);
        // a = 4999: p = 0.5, e = (5000 + 3250) / 2 = 4125, rank = 121.2121.
        assert_eq!(GittinsIndex::rank_at(&d, 4999), 121.2121);
        // a + Δ passes the largest sample, which then counts as not ending: p = 0.
        assert_eq!(GittinsIndex::rank_at(&d, 9999), 0.0);
        assert_eq!(GittinsIndex::rank_at(&d, 10000), 0.0);
        let index = GittinsIndex::new(&d);
        // A job's rank is that of the first sample above what it attained.
        let ranks: Vec<f64> = [0, 999, 1000, 1999, 2000, 4999, 5000, 9999, 10000, 50000].map(|a| index.rank(a)).into();
        assert_eq!(ranks, [210.5263, 210.5263, 195.1229, 195.1229, 121.2121, 121.2121, 0.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn rounding_is_pythons_ties_to_even() {
        assert_eq!(py_round(0.125, 2), 0.12);
        assert_eq!(py_round(0.375, 2), 0.38);
        assert_eq!(py_round(0.015625, 5), 0.01562);
        assert_eq!(py_round(2.675, 2), 2.67);
    }
}
