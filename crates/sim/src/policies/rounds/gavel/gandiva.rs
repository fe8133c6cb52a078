//! `gavel-gandiva`: Gavel's re-implementation of Gandiva (OSDI'18) on its mechanism — equal time
//! shares, and random pairs of jobs sharing GPUs when the cluster is oversubscribed.
//!
//! Rule (`docs/gavel-semantics.md` §9.4; Gavel `policies/gandiva.py` at c4fa400, `GandivaPolicy`):
//! pairs persist across re-allocations until a member leaves or the pair's normalised throughput
//! (the sum, over every GPU type and both members, of throughput beside the other / alone; 0 if a
//! member cannot run beside the other on some type) is below 1.0 — which also drops every job
//! left alone last time. When the jobs' GPUs fit the cluster, every job gets an equal share and
//! nothing is packed. Otherwise the jobs not in a pair are drawn two at a time
//! (`random.Random(seed).sample(jobs, 2)`, at most as many draws as there were such jobs; a draw
//! of two scale factors is wasted) and paired; the rest run alone. Each scheduled combination
//! then gets `N_w / M / sf` of every type `w` (`M` combinations), its row scaled down if it sums
//! above 1. The pairs are drawn without looking at their throughputs.

use super::mechanism::{Allocation, AllocationInput, Allocator};
use crate::core::python_random::PyRandom;
use crate::core::{JobId, PolicyError};
use std::collections::{BTreeMap, BTreeSet};

/// A pair's normalised throughput below which Gandiva stops packing it.
const KEEP_PAIR_THRESHOLD: f64 = 1.0;

pub struct Gandiva {
    /// Each packed job's partner (both directions); jobs left alone are not kept, since their
    /// normalised throughput is 0.
    partner: BTreeMap<JobId, JobId>,
    rng: PyRandom,
}

impl Gandiva {
    pub fn new(seed: u64) -> Self {
        Self { partner: BTreeMap::new(), rng: PyRandom::seed(seed) }
    }
}

impl Allocator for Gandiva {
    fn shuffles_types(&self) -> bool {
        false
    }

    fn packs(&self) -> bool {
        true
    }

    fn allocate(&mut self, input: &AllocationInput) -> Result<Allocation, PolicyError> {
        let (jobs, types) = (input.jobs, input.types);
        let index: BTreeMap<JobId, usize> = jobs.iter().enumerate().map(|(i, j)| (j.id, i)).collect();
        let pair_index: BTreeMap<(usize, usize), usize> =
            input.pairs.iter().enumerate().map(|(p, pair)| (pair.members, p)).collect();
        let pair_of = |a: JobId, b: JobId| -> Result<usize, PolicyError> {
            let (a, b) = (index[&a], index[&b]);
            pair_index.get(&(a.min(b), a.max(b))).copied().ok_or_else(|| {
                PolicyError(format!("jobs {} and {} of one scale factor have no pair", jobs[a].id, jobs[b].id))
            })
        };

        // Keep the pairs whose members are both active and that still gain from sharing.
        let mut keep = BTreeMap::new();
        for (&job, &other) in &self.partner {
            if !index.contains_key(&job) || !index.contains_key(&other) {
                continue;
            }
            let pair = &input.pairs[pair_of(job, other)?];
            let mut normalised = 0.0;
            'types: for (t, &(low, high)) in pair.throughput.iter().enumerate() {
                for (member, rate) in [(pair.members.0, low), (pair.members.1, high)] {
                    if rate <= 0.0 {
                        normalised = 0.0;
                        break 'types;
                    }
                    let alone = jobs[member].throughput[t];
                    if alone <= 0.0 {
                        return Err(PolicyError(format!(
                            "gavel-gandiva: job {} runs beside another on `{}` but not alone there (the original divides by zero)",
                            jobs[member].id,
                            types.names[t].name()
                        )));
                    }
                    normalised += rate / alone;
                }
            }
            if normalised >= KEEP_PAIR_THRESHOLD {
                keep.insert(job, other);
            }
        }
        self.partner = keep;

        let requested: u64 = jobs.iter().map(|j| u64::from(j.scale_factor)).sum();
        let available: u64 = types.capacity.iter().map(|&c| u64::from(c)).sum();
        let mut scheduled_pairs: BTreeSet<usize> = BTreeSet::new();
        let scheduled_jobs: Vec<usize> = if requested <= available {
            (0..jobs.len()).collect()
        } else {
            let mut unpaired: Vec<JobId> =
                jobs.iter().map(|j| j.id).filter(|id| !self.partner.contains_key(id)).collect();
            let draws = unpaired.len();
            for _ in 0..draws {
                if unpaired.len() <= 1 {
                    break;
                }
                let [a, b] = self.rng.sample_two(&unpaired);
                if jobs[index[&a]].scale_factor != jobs[index[&b]].scale_factor {
                    continue;
                }
                unpaired.retain(|&id| id != a && id != b);
                self.partner.insert(a, b);
                self.partner.insert(b, a);
            }
            for (&a, &b) in &self.partner {
                scheduled_pairs.insert(pair_of(a, b)?);
            }
            unpaired.iter().map(|id| index[id]).collect()
        };

        let combinations = (scheduled_jobs.len() + scheduled_pairs.len()) as f64;
        let share = |scale_factor: u32| -> Vec<f64> {
            let row: Vec<f64> =
                types.capacity.iter().map(|&n| f64::from(n) / combinations / f64::from(scale_factor)).collect();
            let scale = row.iter().sum::<f64>().max(1.0);
            row.iter().map(|x| x / scale).collect()
        };
        let zeros = vec![0.0; types.capacity.len()];
        let mut allocation =
            Allocation { jobs: vec![zeros.clone(); jobs.len()], pairs: vec![zeros; input.pairs.len()] };
        for i in scheduled_jobs {
            allocation.jobs[i] = share(jobs[i].scale_factor);
        }
        for p in scheduled_pairs {
            allocation.pairs[p] = share(jobs[input.pairs[p].members.0].scale_factor);
        }
        Ok(allocation)
    }
}
