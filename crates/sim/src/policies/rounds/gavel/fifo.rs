//! `gavel-fifo`, `gavel-fifo-perf` and `gavel-fifo-packed`: Gavel's FIFO baselines on its
//! priority mechanism.
//!
//! Rule (`docs/gavel-semantics.md` §9.1-9.2; Gavel `policies/fifo.py` at c4fa400, `FIFOPolicy`
//! modes `base` and `perf`): jobs in arrival order each get one GPU type for good (`X = 1` there,
//! 0 elsewhere); a job takes the type when it reaches the head of the queue and that type has
//! room for its scale factor, and the queue stops at the first job that fits nowhere. When an
//! allocated job finishes, the queue's head takes its type if it fits there.
//!
//! * `gavel-fifo` (`fifo`) reproduces the original as run for the paper: it draws a random index
//!   among the types with room (`random.Random(seed)`) but places the job on the alphabetically
//!   last type that had free GPUs when the call started (a leftover loop variable), and removes
//!   the drawn type when the used one fills exactly, so the used type can be overfilled. With
//!   single-GPU jobs at low load every job lands on the V100s. The mechanism time-shares an
//!   overfilled type and never runs a job of zero priority; the type order is shuffled every
//!   round (a heterogeneity-agnostic policy).
//! * `gavel-fifo-perf` (`fifo_perf`) chooses afresh at every re-allocation the type with room on
//!   which the job is fastest (first in name order on ties), in a fixed type order.
//! * `gavel-fifo-packed` (`fifo_packed`, `_pack`) runs `fifo-perf`, then takes the jobs still
//!   queued behind the first that fitted nowhere (that job itself is dropped from the queue for
//!   this call, as in the original), in order: each is packed with the allocated job of its scale
//!   factor whose pair's normalised throughput on that job's type (the sum over both members of
//!   throughput beside the other / alone) is largest, if above 1.5; the pair takes the job's type
//!   and the first job that packs with nobody stops the packing (no queue jumping).

use super::mechanism::{Allocation, AllocationInput, Allocator, JobView, PairView};
use crate::core::python_random::PyRandom;
use crate::core::{JobId, PolicyError};
use std::collections::BTreeMap;

/// How a job's GPU type is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeChoice {
    /// The original's leftover-variable behaviour (`fifo`).
    Head,
    /// The fastest type with room, recomputed at every re-allocation (`fifo_perf`).
    Fastest,
    /// `Fastest`, then queued jobs packed beside allocated ones (`fifo_packed`).
    FastestPacked,
}

/// The normalised throughput a pair must beat for `fifo_packed` to form it (`packing_threshold`).
const PACKING_THRESHOLD: f64 = 1.5;

pub struct Fifo {
    choice: TypeChoice,
    /// Job to type, kept across re-allocations in `Head` mode.
    assigned: BTreeMap<JobId, usize>,
    rng: PyRandom,
}

impl Fifo {
    pub fn new(choice: TypeChoice, seed: u64) -> Self {
        Self { choice, assigned: BTreeMap::new(), rng: PyRandom::seed(seed) }
    }
}

impl Allocator for Fifo {
    fn shuffles_types(&self) -> bool {
        self.choice == TypeChoice::Head
    }

    fn skips_zero_priority(&self) -> bool {
        true
    }

    fn packs(&self) -> bool {
        self.choice == TypeChoice::FastestPacked
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let (jobs, types) = (input.jobs, input.types);
        let by_id: BTreeMap<JobId, &JobView> = jobs.iter().map(|j| (j.id, j)).collect();
        let mut available: Vec<i64> = types.capacity.iter().map(|&c| i64::from(c)).collect();
        if self.choice != TypeChoice::Head {
            self.assigned.clear();
        }
        let mut queue: Vec<JobId> = by_id.keys().copied().filter(|id| !self.assigned.contains_key(id)).collect();

        // Finished jobs hand their type to the queue's head if it fits there.
        let previous: Vec<(JobId, usize)> = self.assigned.iter().map(|(&id, &t)| (id, t)).collect();
        for (id, t) in previous {
            match by_id.get(&id) {
                Some(job) => available[t] -= i64::from(job.scale_factor),
                None => {
                    if let Some(&head) = queue.first() {
                        let head_job = by_id[&head];
                        if i64::from(head_job.scale_factor) <= available[t] && head_job.throughput[t] > 0.0 {
                            queue.remove(0);
                            self.assigned.insert(head, t);
                            available[t] -= i64::from(head_job.scale_factor);
                        }
                    }
                    self.assigned.remove(&id);
                }
            }
        }

        // Types with room, in name order (the order of `types`).
        let mut open: Vec<usize> = (0..available.len()).filter(|&t| available[t] > 0).collect();
        let mut queue = queue.into_iter();
        while !open.is_empty() {
            let Some(id) = queue.next() else { break };
            let job = by_id[&id];
            let need = i64::from(job.scale_factor);
            let fitting: Vec<usize> = (0..open.len()).filter(|&k| available[open[k]] >= need).collect();
            if fitting.is_empty() {
                break;
            }
            let (chosen, drawn) = match self.choice {
                TypeChoice::Head => {
                    let drawn = self.rng.randbelow(fitting.len() as u64) as usize;
                    (*open.last().expect("open is not empty"), drawn)
                }
                TypeChoice::Fastest | TypeChoice::FastestPacked => {
                    let mut best = 0;
                    let mut best_rate = -1.0;
                    for (i, &k) in fitting.iter().enumerate() {
                        let rate = job.throughput[open[k]];
                        if rate > best_rate {
                            best_rate = rate;
                            best = i;
                        }
                    }
                    (open[fitting[best]], best)
                }
            };
            if job.throughput[chosen] > 0.0 {
                self.assigned.insert(id, chosen);
                available[chosen] -= need;
                if available[chosen] == 0 {
                    open.remove(fitting[drawn]);
                }
            }
        }

        let packed = if self.choice == TypeChoice::FastestPacked { self.pack(queue, input)? } else { BTreeMap::new() };
        let row = |t: Option<usize>| {
            let mut row = vec![0.0; types.capacity.len()];
            if let Some(t) = t {
                row[t] = 1.0;
            }
            row
        };
        Ok(Allocation {
            jobs: jobs.iter().map(|job| row(self.assigned.get(&job.id).copied())).collect(),
            pairs: (0..input.pairs.len()).map(|p| row(packed.get(&p).copied())).collect(),
        })
    }
}

impl Fifo {
    /// Packs the remaining `queue` beside allocated jobs (`_pack`); returns the pairs formed (by
    /// index into the input's pairs) with their types, and takes their jobs out of `assigned`.
    fn pack(
        &mut self,
        queue: impl Iterator<Item = JobId>,
        input: &AllocationInput,
    ) -> Result<BTreeMap<usize, usize>, PolicyError> {
        let index: BTreeMap<JobId, usize> = input.jobs.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
        let pair_of: BTreeMap<(usize, usize), (usize, &PairView)> =
            input.pairs.iter().enumerate().map(|(p, pair)| (pair.members, (p, pair))).collect();
        let mut packed = BTreeMap::new();
        for id in queue {
            let job = index[&id];
            let mut best = PACKING_THRESHOLD;
            let mut partner: Option<(JobId, usize)> = None;
            for (&other_id, &t) in &self.assigned {
                let other = index[&other_id];
                if input.jobs[other].scale_factor != input.jobs[job].scale_factor {
                    continue;
                }
                let members = (other.min(job), other.max(job));
                let Some(&(p, pair)) = pair_of.get(&members) else {
                    return Err(PolicyError(format!("jobs {other_id} and {id} of one scale factor have no pair")));
                };
                let (low, high) = pair.throughput[t];
                let mut normalised = 0.0;
                for (member, rate) in [(members.0, low), (members.1, high)] {
                    if rate <= 0.0 {
                        continue;
                    }
                    let alone = input.jobs[member].throughput[t];
                    if alone <= 0.0 {
                        return Err(PolicyError(format!(
                            "gavel-fifo-packed: job {} runs beside job {} on `{}` but not alone there (the original divides by zero)",
                            input.jobs[member].id,
                            input.jobs[members.0 + members.1 - member].id,
                            input.types.names[t].name()
                        )));
                    }
                    normalised += rate / alone;
                }
                if normalised > best {
                    best = normalised;
                    partner = Some((other_id, p));
                }
            }
            let Some((other_id, p)) = partner else { break };
            let t = self.assigned.remove(&other_id).expect("an allocated job");
            packed.insert(p, t);
        }
        Ok(packed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::GpuType;
    use crate::policies::rounds::gavel::mechanism::Types;

    fn types() -> Types {
        Types { names: ["k80", "p100", "v100"].iter().map(|n| GpuType::new(n)).collect(), capacity: vec![4, 4, 4] }
    }

    fn input(jobs: &[JobView]) -> AllocationInput<'_> {
        let types: &'static Types = Box::leak(Box::new(types()));
        AllocationInput { jobs, pairs: &[], types }
    }

    fn job(id: JobId, scale_factor: u32) -> JobView {
        JobView { id, scale_factor, throughput: vec![1.0, 2.0, 3.0], remaining_steps: 100.0, age: 0.0 }
    }

    /// Gavel's probe (docs/gavel-semantics.md Appendix B.1): ten single-GPU jobs on 4:4:4 all
    /// land on the V100s, overfilling them, because the drawn type is not the one used.
    #[test]
    fn head_mode_overfills_the_last_type_like_the_original() {
        let jobs: Vec<JobView> = (0..10).map(|i| job(i, 1)).collect();
        let rows = Fifo::new(TypeChoice::Head, 0).allocate(&input(&jobs)).unwrap().jobs;
        assert!(rows.iter().all(|r| r == &vec![0.0, 0.0, 1.0]), "{rows:?}");
    }

    #[test]
    fn fastest_mode_fills_types_by_speed_and_stops_at_the_first_misfit() {
        let mut jobs: Vec<JobView> = (0..6).map(|i| job(i, 2)).collect();
        jobs.push(job(6, 8));
        jobs.push(job(7, 1));
        let rows = Fifo::new(TypeChoice::Fastest, 0).allocate(&input(&jobs)).unwrap().jobs;
        let placed: Vec<Option<usize>> = rows.iter().map(|r| r.iter().position(|&x| x == 1.0)).collect();
        // Two jobs per type, fastest first; the 8-GPU job fits nowhere and blocks job 7.
        assert_eq!(placed, [Some(2), Some(2), Some(1), Some(1), Some(0), Some(0), None, None]);
    }
}
