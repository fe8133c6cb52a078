//! A job as Pollux's simulator advances it (`docs/pollux-semantics.md` §3.4-§3.6): progress in
//! steps at `B0`, epochs crossed at the second (each epoch's duration rounded half to even, the
//! remainder dropped), a 30 s restart on every change of allocation, and the per-GPU batch and
//! accumulation re-planned on every allocation, epoch and interval.

use super::agent::{Agent, Observation, adaptive_plan};
use super::profile::{Application, BatchPlan};

/// Seconds of no progress after every (re)allocation, whatever changed (§3.6).
pub const RESTART_SECONDS: i64 = 30;

/// How a job chooses its per-GPU batch: at a fixed total batch (the baselines, and ncf under
/// Pollux), or as its Pollux agent finds best for its allocation (§4.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BatchRule {
    Fixed(u32),
    Goodput,
}

/// One job's simulated state.
#[derive(Debug, Clone)]
pub struct SimJob {
    /// Index of its application in the profiles.
    pub app: usize,
    pub rule: BatchRule,
    /// GPUs per node in allocation order; empty while it holds none.
    pub placement: Vec<u32>,
    pub plan: BatchPlan,
    /// Steps at `B0` done, and epochs completed.
    pub progress: f64,
    pub epoch: usize,
    /// Seconds of restart still to wait.
    pub restart_left: i64,
    /// Reallocations after the first (`None` before it).
    pub restarts: Option<u32>,
    /// GPU-seconds held.
    pub attained_service: i64,
    /// What the job learns of its own speed, under Pollux (every job there, whatever its batch
    /// rule: the scheduler reads its model); `None` under the baselines, which never read it.
    pub agent: Option<Agent>,
    /// The step time of the last (placement, per-GPU batch) looked up.
    step_cache: Option<(Vec<u32>, u32, (f64, f64))>,
}

/// What one interval did to a job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Advance {
    /// Progress made, in steps at `B0`.
    pub progress: f64,
    /// Seconds of restart waited.
    pub restart: i64,
    /// Seconds into the interval at which the job completed, if it did.
    pub completed_after: Option<i64>,
}

/// Why a job cannot be advanced: the original would fail an assertion here.
#[derive(Debug, Clone, PartialEq)]
pub struct OutsideProfile {
    pub placement: Vec<u32>,
    pub local_bsz: u32,
}

impl SimJob {
    /// A job of application `app`; `learns` gives it a Pollux agent. [`BatchRule::Goodput`]
    /// needs one.
    pub fn new(app: usize, rule: BatchRule, learns: bool) -> Self {
        assert!(learns || rule != BatchRule::Goodput, "a job choosing its batch by goodput needs an agent");
        Self {
            app,
            rule,
            placement: Vec::new(),
            plan: BatchPlan { atomic_bsz: 0, accum_steps: 0 },
            progress: 0.0,
            epoch: 0,
            restart_left: 0,
            restarts: None,
            attained_service: 0,
            agent: learns.then(Agent::default),
            step_cache: None,
        }
    }

    pub fn replicas(&self) -> u32 {
        self.placement.iter().sum()
    }

    /// Total batch of one optimizer step as planned.
    pub fn batch(&self) -> u32 {
        self.replicas() * self.plan.atomic_bsz * (self.plan.accum_steps + 1)
    }

    /// A new allocation (GPUs per node in order), or none: a non-empty one restarts the job.
    pub fn reallocate(&mut self, app: &Application, placement: Vec<u32>) {
        if placement.is_empty() {
            self.placement.clear();
            self.plan.atomic_bsz = 0;
            return;
        }
        self.placement = placement;
        self.replan(app);
        self.restart_left = RESTART_SECONDS;
        self.restarts = Some(self.restarts.map_or(0, |r| r + 1));
    }

    fn replan(&mut self, app: &Application) {
        match self.rule {
            BatchRule::Fixed(batch) => self.plan = app.fixed_batch_plan(batch, self.replicas(), false),
            BatchRule::Goodput => {
                let agent = self.agent.as_ref().expect("checked in SimJob::new");
                self.plan = adaptive_plan(app, agent, &self.placement);
            }
        }
    }

    fn step_time(&mut self, app: &Application) -> Result<(f64, f64), OutsideProfile> {
        let local = self.plan.atomic_bsz;
        if let Some((placement, b, times)) = &self.step_cache
            && *placement == self.placement
            && *b == local
        {
            return Ok(*times);
        }
        let times = app
            .throughput(&self.placement, local)
            .ok_or_else(|| OutsideProfile { placement: self.placement.clone(), local_bsz: local })?;
        self.step_cache = Some((self.placement.clone(), local, times));
        Ok(times)
    }

    /// Runs the job for `seconds` with its progress slowed by `slowdown` (interference), as the
    /// original's `Job.step` does.
    pub fn advance(&mut self, app: &Application, seconds: i64, slowdown: f64) -> Result<Advance, OutsideProfile> {
        let mut out = Advance { progress: 0.0, restart: 0, completed_after: None };
        if self.placement.is_empty() {
            return Ok(out);
        }
        let gpus = i64::from(self.replicas());
        let restart = self.restart_left.min(seconds);
        self.restart_left -= restart;
        self.attained_service += restart * gpus;
        out.restart = restart;
        let mut elapsed = restart;
        let mut left = seconds - restart;
        while left > 0 && out.completed_after.is_none() {
            let batch = self.batch();
            let (step, sync) = self.step_time(app)?;
            let accumulate = step - sync;
            let (sqr, var) = app
                .grad_stats(f64::from(batch), self.epoch)
                .ok_or_else(|| OutsideProfile { placement: self.placement.clone(), local_bsz: self.plan.atomic_bsz })?;
            let gain = app.gain(f64::from(batch), sqr, var);
            let replicas = self.replicas();
            if let Some(agent) = &mut self.agent {
                let seen = Observation {
                    nodes: self.placement.iter().filter(|&&g| g > 0).count() as u32,
                    replicas,
                    atomic_bsz: self.plan.atomic_bsz,
                    step_time: step,
                    sync_time: sync,
                };
                agent.observe(seen, (sqr, var));
            }
            let total = step + accumulate * f64::from(self.plan.accum_steps);
            let rate = gain / total * (1.0 - slowdown);
            let next = app.threshold(self.epoch + 1);
            if self.progress + rate * left as f64 >= next {
                self.epoch += 1;
                let delta = ((next - self.progress) / rate).round_ties_even() as i64;
                out.progress += next - self.progress;
                self.progress = next;
                elapsed += delta;
                self.attained_service += delta * gpus;
                left -= delta;
                if self.epoch >= app.max_epochs {
                    out.completed_after = Some(elapsed);
                }
            } else {
                self.progress += rate * left as f64;
                out.progress += rate * left as f64;
                self.attained_service += left * gpus;
                elapsed += left;
                left = 0;
            }
            self.replan(app);
        }
        Ok(out)
    }

    pub fn completed(&self, app: &Application) -> bool {
        self.epoch >= app.max_epochs
    }
}
