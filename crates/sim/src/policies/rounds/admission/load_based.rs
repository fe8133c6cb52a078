//! `load-based`: admit arrivals first-come-first-served while the cluster's GPU demand is below
//! `threshold` times its size.
//!
//! Rule, each round: append the arrivals to a FIFO backlog; let `D` be the GPU demand of all active
//! jobs (running or queued, after this round's completions) and `G` the cluster's GPUs; then while
//! `D + admitted <= threshold * G` and the backlog is not empty, admit its head. The test comes
//! before the admission, so the admitted demand can overshoot the threshold by one job (with
//! 1-GPU jobs on 128 GPUs, 1.2x caps the active set at 154 jobs). Time spent in the backlog counts
//! toward JCT and responsiveness (the submission time is not reset).
//! Source: Blox `admission_control/load_based_accept.py` (`LoadBasedAccept-1.2x` etc.), EuroSys'24
//! Figures 12 and 13.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §4.2.

use crate::core::{Admission, AdmissionContext, JobSpec};
use crate::policies::{
    BuildContext, Built, Engine, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, Positive, parse_options,
};
use serde::Deserialize;
use std::collections::VecDeque;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "load-based",
    kind: Kind::Admission,
    engine: Engine::Rounds,
    summary: "FIFO backlog; admit while GPU demand <= threshold x cluster GPUs",
    options: &[OptionDoc {
        name: "threshold",
        example: "1.2",
        meaning: "admit while the active jobs' GPU demand is at most this many times the cluster's GPUs (Blox: 1.0, 1.2, 1.4, 1.5); required",
    }],
    source: "Blox LoadBasedAccept (admission_control/load_based_accept.py), EuroSys'24 Figures 12 and 13",
    placement: None,
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    pub threshold: Positive,
}

impl PolicyConfig for Options {
    fn params(&self) -> Params {
        let Options { threshold } = self;
        Params::from([("threshold", threshold.0.into())])
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Admission(Box::new(LoadBased::new(self.threshold.0))))
    }
}

pub struct LoadBased {
    threshold: f64,
    backlog: VecDeque<JobSpec>,
}

impl LoadBased {
    pub fn new(threshold: f64) -> Self {
        Self { threshold, backlog: VecDeque::new() }
    }
}

impl Admission for LoadBased {
    fn admit(&mut self, ctx: &AdmissionContext, arrivals: &mut Vec<JobSpec>, admitted: &mut Vec<JobSpec>) {
        self.backlog.extend(arrivals.drain(..));
        let limit = self.threshold * f64::from(ctx.total_gpus);
        let mut admitted_gpus = 0u64;
        while (ctx.active_gpu_demand + admitted_gpus) as f64 <= limit {
            let Some(job) = self.backlog.pop_front() else { break };
            admitted_gpus += u64::from(job.gpus);
            admitted.push(job);
        }
    }

    fn backlog(&self) -> usize {
        self.backlog.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(id: u64) -> JobSpec {
        JobSpec { id, arrival: 0.0, submitted: 0.0, gpus: 1, work: 1.0, ..JobSpec::default() }
    }

    #[test]
    fn admits_until_the_threshold_is_crossed_by_one_job() {
        let mut policy = LoadBased::new(1.2);
        let ctx = AdmissionContext { now: 0.0, total_gpus: 10, active_gpu_demand: 10 };
        let mut arrivals: Vec<_> = (0..5).map(job).collect();
        let mut admitted = Vec::new();
        policy.admit(&ctx, &mut arrivals, &mut admitted);
        // 10 <= 12, 11 <= 12, 12 <= 12 admit three; 13 > 12 stops.
        assert_eq!(admitted.iter().map(|j| j.id).collect::<Vec<_>>(), vec![0, 1, 2]);
        assert_eq!(policy.backlog(), 2);
        let ctx = AdmissionContext { active_gpu_demand: 12, ..ctx };
        admitted.clear();
        policy.admit(&ctx, &mut Vec::new(), &mut admitted);
        assert_eq!(admitted.iter().map(|j| j.id).collect::<Vec<_>>(), vec![3]);
    }
}
