//! `muri-tiresias`: Tiresias' discretized 2D-LAS (NSDI'19, `dlas-gpu`) as the Muri (SIGCOMM'22)
//! simulator runs it, the paper's Tiresias baseline: `run_sim.py`
//! `dlas_sim_jobs(gputime=True, solve_starvation=0)` @ 4e69a78 (`docs/muri-semantics.md` §4).
//! ElasticFlow's `dlas-gpu` is a different program (`tiresias`, docs/elasticflow-semantics.md §8):
//! slots, progress in seconds, another jump rule, a placement.
//!
//! Rule: three queues; a job enters queue 0 and drops one queue once its attained GPU time
//! (wall seconds spent running, overheads included, × GPUs) reaches 3,250 GPU·s (queue 0) or
//! 7,200 GPU·s (queue 1), at most one level per decision. At every decision the queues are walked
//! in order, each in its own order, against the cluster's GPU count only (no placement): a job that
//! fits in the GPUs left runs, a running job that does not is preempted (skip, no blocking).
//! Preempted and waiting jobs then move behind the running ones of their queue; new and demoted
//! jobs join a queue's tail. Progress, per-interval overheads and completions are the family's
//! ([`super::family`]) at the solo iteration time.
//!
//! CPUs and memory never matter here: the original's `dlas-gpu` counts GPUs and places nothing
//! (unlike the family's MS-YARN policies, [`super::nodes`]), so a cluster's `cpus_per_node` and
//! `memory_gb_per_node` change nothing, as there.
//!
//! Decisions: the next arrival, the single earliest end group (jobs whose end equals the minimum
//! exactly) or, when strictly earlier than both, the next queue jump: the earliest
//! `ceil(limit / GPUs) − attained seconds` after the decision over running jobs below the last
//! queue. A jump is a decision without arrivals or completions (every running job pays its
//! overhead again).
//!
//! Quirks kept (§4.4, §11 items 13, 14): only two limits are used (the third, 18,000, never is);
//! the jump rounds the limit per GPU up, so a job is demoted up to a second late; a float attained
//! time a hair under the limit at its jump gives a tiny extra jump; when an end ties an arrival
//! exactly but a jump comes first, the arrival keeps that end group and completes it whenever the
//! arrival is handled (a run in which such a job already finished fails, as the original crashes).

use super::family::{Coincidence, Family, check_job, job_overhead};
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::{Built, Engine, Kind, OwnPlacement, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-tiresias",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri's Tiresias: discretized 2D-LAS, 3 queues at 3250/7200 GPU-s, GPU counting, exact event times",
    options: &[],
    source: "Muri's dlas-gpu (Tiresias, NSDI'19; Muri run_sim.py dlas_sim_jobs)",
    placement: Some(GPU_COUNT),
    parse: &|node| without_options(node, || Built::Event(Box::new(MuriTiresias::new()))),
};

/// No placement: jobs run whenever the cluster has enough GPUs left (the original's `free_gpu`
/// count); runs record it as `count`.
const GPU_COUNT: OwnPlacement = OwnPlacement { name: "count", alternatives: &[] };

/// GPU-seconds after which a job leaves queue 0 and queue 1.
const LIMITS: [f64; 2] = [3250.0, 7200.0];

/// What the next decision handles.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Next {
    /// The earliest end group alone.
    End,
    /// The arrival event at this time; with its end group when the end ties it exactly.
    Arrival { time: SimTime, with_end: bool },
    /// A queue jump: neither arrivals nor completions.
    Jump,
}

#[derive(Debug)]
pub struct MuriTiresias {
    family: Family,
    queues: [Vec<JobIdx>; 3],
    /// Per job index: its queue and its attained seconds (`executed_time`).
    queue_of: Vec<usize>,
    attained: Vec<f64>,
    next: Next,
    next_jump: Option<SimTime>,
    /// The end group a tied arrival event kept when a jump came first (§4.2), by arrival time.
    stale: Option<(SimTime, Vec<JobIdx>)>,
    completing: Vec<JobIdx>,
    waiting: Vec<JobIdx>,
}

impl MuriTiresias {
    pub fn new() -> Self {
        Self {
            family: Family::new(Coincidence::Exact),
            queues: Default::default(),
            queue_of: Vec::new(),
            attained: Vec::new(),
            next: Next::Jump,
            next_jump: None,
            stale: None,
            completing: Vec::new(),
            waiting: Vec::new(),
        }
    }

    fn leave_queue(&mut self, j: JobIdx) {
        let queue = &mut self.queues[self.queue_of[j]];
        if let Some(k) = queue.iter().position(|&q| q == j) {
            queue.remove(k);
        }
    }

    /// §4.3 step 1: the jobs this decision completes, in order.
    fn complete(&mut self, sim: &mut EventSim, now: SimTime) -> Result<(), RunError> {
        self.completing.clear();
        match self.next {
            Next::End | Next::Arrival { with_end: true, .. } => {
                self.completing.extend_from_slice(self.family.first_end().map_or(&[][..], |(_, jobs)| jobs));
            }
            Next::Arrival { time, with_end: false } => {
                if let Some((_, jobs)) = self.stale.take().filter(|(at, _)| *at == time) {
                    if let Some(&done) = jobs.iter().find(|&&j| sim.job(j).status == JobStatus::Finished) {
                        let reason = format!(
                            "the arrival at {time} s completes job {} again, which the original cannot do (§4.2: it crashes)",
                            sim.job(done).spec.id
                        );
                        return Err(RunError::Policy { time: now, reason });
                    }
                    self.completing = jobs;
                }
            }
            Next::Jump => {}
        }
        if let Next::Arrival { time, .. } = self.next
            && self.stale.as_ref().is_some_and(|(at, _)| *at == time)
        {
            self.stale = None;
        }
        let completing = std::mem::take(&mut self.completing);
        for &j in &completing {
            self.leave_queue(j);
        }
        self.family.complete_jobs(sim, now, &completing);
        self.completing = completing;
        Ok(())
    }

    /// §4.3 step 3 for running jobs: attained seconds, then at most one demotion.
    fn attain_and_demote(&mut self, sim: &EventSim, now: SimTime) {
        let last = self.family.last();
        for &j in sim.runnable() {
            if sim.job(j).status != JobStatus::Running {
                continue;
            }
            self.attained[j] = self.attained[j] + now - last;
            let q = self.queue_of[j];
            if LIMITS.get(q).is_some_and(|&limit| self.attained[j] * f64::from(sim.job(j).spec.gpus) >= limit) {
                self.queue_of[j] = q + 1;
                self.queues[q + 1].push(j);
                let queue = &mut self.queues[q];
                if let Some(k) = queue.iter().position(|&x| x == j) {
                    queue.remove(k);
                }
            }
        }
    }

    /// §4.3 step 8: the earliest queue jump of a running job below the last queue.
    fn plan_jump(&mut self, sim: &EventSim, now: SimTime) {
        self.next_jump = None;
        for &j in sim.runnable() {
            if sim.job(j).status != JobStatus::Running {
                continue;
            }
            if let Some(&limit) = LIMITS.get(self.queue_of[j]) {
                let jump = (limit / f64::from(sim.job(j).spec.gpus)).ceil() - self.attained[j] + now;
                if self.next_jump.is_none_or(|t| jump < t) {
                    self.next_jump = Some(jump);
                }
            }
        }
    }
}

impl Default for MuriTiresias {
    fn default() -> Self {
        Self::new()
    }
}

impl EventPolicy for MuriTiresias {
    fn check_job(&self, job: &EventJob, cluster: &ClusterSpec) -> Result<(), String> {
        let spec = &job.spec;
        check_job(spec, cluster, false)
    }

    /// Progress is accounted in [`EventPolicy::decide`], after the arrivals (§4.3 step 3).
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    /// Completions happen in [`EventPolicy::decide`], which can fail (§4.2's crash).
    fn complete(&mut self, _sim: &mut EventSim, _now: SimTime, _ends: &[JobIdx]) {}

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        if self.queue_of.len() < sim.jobs().len() {
            self.queue_of.resize(sim.jobs().len(), 0);
            self.attained.resize(sim.jobs().len(), 0.0);
        }
        self.complete(sim, now)?;
        self.family.arrive(sim, arrivals);
        for &j in arrivals {
            let spec = &sim.job(j).spec;
            let overhead =
                job_overhead(spec).map_err(|e| RunError::InvalidJob { id: spec.id, reason: e.to_string() })?;
            let solo = self.family.job(j).solo;
            self.family.set_speed(j, solo, overhead);
            self.queue_of[j] = 0;
            self.queues[0].push(j);
        }
        self.family.progress(sim, now);
        self.attain_and_demote(sim, now);
        // §4.3 step 4: GPU counting, queue by queue, skip what does not fit.
        self.family.clear_run_set(sim);
        let mut free = sim.total_gpus();
        for queue in &self.queues {
            for &j in queue {
                let gpus = sim.job(j).spec.gpus;
                if free >= gpus {
                    self.family.run(j, true);
                    free -= gpus;
                }
            }
        }
        self.family.apply(sim, now);
        // §4.3 step 6: waiting jobs go behind the running ones of their queue.
        for queue in &mut self.queues {
            self.waiting.clear();
            self.waiting.extend(queue.iter().copied().filter(|&j| sim.job(j).status != JobStatus::Running));
            queue.retain(|&j| sim.job(j).status == JobStatus::Running);
            queue.extend_from_slice(&self.waiting);
        }
        self.family.plan_earliest_end(sim, now);
        self.plan_jump(sim, now);
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.family.occupies(j)
    }

    /// §4.2: the next arrival or the end group (exact tie: both), unless a queue jump comes
    /// strictly first.
    fn next_decision(&mut self, sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
        let arrival = sim.next_event_time();
        let end = self.family.first_end().map(|(time, jobs)| (time, jobs.to_vec()));
        let (time, next) = match (arrival, &end) {
            (None, None) => return Ok(None),
            (Some(a), None) => (a, Next::Arrival { time: a, with_end: false }),
            (None, Some((e, _))) => (*e, Next::End),
            (Some(a), Some((e, jobs))) => {
                if *e < a {
                    (*e, Next::End)
                } else if *e > a {
                    (a, Next::Arrival { time: a, with_end: false })
                } else {
                    // The arrival event takes the end group (`event['end_jobs'] = ...`), which it
                    // keeps if a jump comes first.
                    self.stale = Some((a, jobs.clone()));
                    (a, Next::Arrival { time: a, with_end: true })
                }
            }
        };
        match self.next_jump {
            Some(jump) if time > jump => {
                self.next = Next::Jump;
                Ok(Some(jump))
            }
            _ => {
                self.next = next;
                Ok(Some(time))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::events::muri::family::testing::{job, run};

    const VGG: [f64; 3] = [82.0, 75.0, 66.0];

    /// An 8-GPU job reaches 3,250 GPU·s after ceil(3250 / 8) = 407 s: a jump decides then and
    /// demotes it; a newcomer in queue 0 preempts it; resumed, its next jump is when its attained
    /// time reaches ceil(7200 / 8) = 900 s.
    #[test]
    fn jumps_demote_and_queue_zero_preempts() {
        let jobs = vec![job(0, 0.0, 8, 100_000.0, "vgg16", 100.0, VGG), job(1, 500.0, 8, 100.0, "vgg16", 100.0, VGG)];
        let out = run(1, 8, Box::new(MuriTiresias::new()), jobs);
        let short_end = 500.0 + 100.0 * (100.0 * 1.015 / 1000.0);
        let times: Vec<f64> = out.timeline.iter().map(|r| r.time).collect();
        assert_eq!(times[..5], [0.0, 407.0, 500.0, short_end, 900.0 - 500.0 + short_end]);
        assert_eq!(times.len(), 6, "no jump from the last queue");
        assert_eq!((out.jobs[0].preemptions, out.jobs[1].first_start), (1, Some(500.0)));
    }

    /// GPU counting, not placement, and skip-not-block within and across queues.
    #[test]
    fn jobs_run_whenever_enough_gpus_are_left() {
        let jobs = vec![
            job(0, 0.0, 4, 10.0, "bert", 100.0, VGG),
            job(1, 0.0, 8, 10.0, "bert", 100.0, VGG),
            job(2, 0.0, 4, 10.0, "bert", 100.0, VGG),
        ];
        let out = run(2, 4, Box::new(MuriTiresias::new()), jobs);
        let starts: Vec<_> = out.jobs.iter().map(|r| r.first_start).collect();
        assert_eq!(starts, [Some(0.0), Some(out.jobs[0].finish.unwrap()), Some(0.0)]);
    }
}
