//! `tiresias`: discretized two-dimensional least attained service (Tiresias, NSDI'19,
//! `dlas-gpu`) as the ElasticFlow (ASPLOS'23) simulator runs it: `scheduler.py`
//! `dlas_sim_jobs(gputime=True)` @ b3f5ea4 (`docs/elasticflow-semantics.md` §8).
//!
//! Rule: every job runs on the GPUs its trace asks for and progresses in seconds against its
//! duration. Jobs enter queue 0 and drop one queue once their attained GPU time (executed
//! seconds x GPUs) reaches 3,250 GPU·s (queue 0) or 7,200 GPU·s (queue 1); there are three
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

use crate::core::events::{EventPolicy, EventSim, JobIdx, JobStatus};
use crate::core::{RunError, SimTime};

/// GPU-seconds after which a job leaves queue 0 and queue 1 (the last queue has no limit).
const LIMITS: [f64; 2] = [3250.0, 7200.0];

#[derive(Debug, Default)]
pub struct Tiresias {
    paper_era: bool,
    queues: [Vec<JobIdx>; 3],
    /// Queue of each job, by job index.
    queue_of: Vec<usize>,
    /// The end event: its time and its jobs in runnable order.
    end_at: Option<SimTime>,
    ends: Vec<JobIdx>,
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
        let mut free = sim.total_gpus;
        for queue in &self.queues {
            for &j in queue {
                let job = &mut sim.jobs[j];
                let g = job.requested_gpus;
                if free >= g {
                    if job.status == JobStatus::Pending {
                        self.to_run.push(j);
                        job.overhead = sim.overhead.estimate(g, restart, false);
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
        for k in 0..sim.runnable.len() {
            let j = sim.runnable[k];
            let job = &mut sim.jobs[j];
            if job.status != JobStatus::Running {
                continue;
            }
            let g = job.requested_gpus;
            let mut left = job.duration - job.executed;
            if restart {
                job.overhead = sim.overhead.estimate(g, true, false);
                left += job.overhead;
            }
            let end = (now + left).trunc();
            let candidate = if self.paper_era { end } else { end.max(now + sim.slot) };
            match self.end_at {
                Some(t) if candidate > t => {}
                Some(t) if candidate == t => {
                    job.end_time = end;
                    self.ends.push(j);
                }
                _ => {
                    job.end_time = end;
                    self.ends.clear();
                    self.ends.push(j);
                    self.end_at = Some(candidate);
                }
            }
            if let Some(&limit) = LIMITS.get(self.queue_of[j]) {
                let jump = ((limit - job.executed) / f64::from(g)).ceil() + now;
                self.next_jump = Some(self.next_jump.map_or(jump, |t: f64| t.min(jump)));
            }
        }
    }
}

impl EventPolicy for Tiresias {
    /// §8.3 step 3: running jobs progress by the seconds since the last decision less their
    /// overhead, and drop at most one queue.
    fn advance(&mut self, sim: &mut EventSim, delta: f64, _now: SimTime) -> Result<(), RunError> {
        for k in 0..sim.runnable.len() {
            let j = sim.runnable[k];
            let job = &mut sim.jobs[j];
            if job.status != JobStatus::Running {
                continue;
            }
            job.executed = (job.executed + (delta - job.overhead).max(0.0)).trunc();
            job.overhead = 0.0;
            let q = self.queue_of[j];
            if LIMITS.get(q).is_some_and(|&limit| (job.executed * f64::from(job.requested_gpus)).trunc() >= limit) {
                self.leave_queue(j);
                self.queue_of[j] = q + 1;
                self.queues[q + 1].push(j);
            }
        }
        Ok(())
    }

    /// The policy's own end event (the engine's list holds arrivals only), late iff the end is
    /// after the deadline (§8.3 step 1).
    fn complete(&mut self, sim: &mut EventSim, now: SimTime, _ends: &[JobIdx]) {
        if self.end_at != Some(now) {
            return;
        }
        for k in 0..self.ends.len() {
            let j = self.ends[k];
            self.leave_queue(j);
            let late = sim.jobs[j].end_time > sim.jobs[j].ddl;
            sim.finish(j, late);
        }
        self.ends.clear();
        self.end_at = None;
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        if self.queue_of.len() < sim.jobs.len() {
            self.queue_of.resize(sim.jobs.len(), 0);
        }
        for &a in arrivals {
            sim.enqueue(a);
            self.queue_of[a] = 0;
            self.queues[0].push(a);
        }
        let restart = sim.next_round();
        self.pick(sim, restart);
        sim.release_all();
        for &j in &self.to_preempt {
            sim.preempt(j);
        }
        for &j in &self.to_run {
            sim.start(j, now);
            sim.jobs[j].gpus = sim.jobs[j].requested_gpus;
        }
        let jobs = &sim.jobs;
        sim.runnable.sort_by_key(|&j| std::cmp::Reverse(jobs[j].requested_gpus));
        sim.place_widest_first()?;
        // §8.3 step 7: waiting jobs go behind the running ones of their queue.
        for queue in &mut self.queues {
            self.waiting.clear();
            self.waiting.extend(queue.iter().copied().filter(|&j| sim.jobs[j].status != JobStatus::Running));
            queue.retain(|&j| sim.jobs[j].status == JobStatus::Running);
            queue.extend_from_slice(&self.waiting);
        }
        self.plan_events(sim, now, restart);
        Ok(())
    }

    /// §8.2 and §8.3 step 11: jumps and a lone end event at least a slot on, arrivals coalesced
    /// (they are the only events in the engine's list), then the earliest of the three.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        let floor = now + sim.slot;
        let jump = self.next_jump.map(|t| if t - now < sim.slot { floor } else { t });
        if let Some(end) = self.end_at.as_mut() {
            *end = end.max(floor);
        }
        let arrival = sim.events.coalesce(now, sim.slot, false);
        let Some(event) = [arrival, self.end_at].into_iter().flatten().reduce(f64::min) else {
            return Ok(None);
        };
        Ok(Some(jump.map_or(event, |t| t.min(event))))
    }
}
