//! Workload preparation (`docs/fgd-semantics.md` §2.2–2.5, §6.2): the pod order, the workload
//! tuned to a target share of the cluster's GPU capacity, and the nodes' tie-break ranks, all
//! drawn from one Go `math/rand` stream seeded with the run's seed.
//!
//! Draws, in order: one `Int()` (an argument of an unprinted debug log in the original), the
//! `Shuffle` of the name-sorted pods, the tuning draws, ten `Float64()` (the informers' watch
//! timeouts, started between tuning and node creation), then `Perm(#nodes)`: node `i` in name
//! order gets rank `perm[i]`, and ties between equal scores go to the lowest rank.

use super::Pod;
use crate::core::go_random::GoRandom;

/// Draws the original's informers make between tuning and ranking the nodes (§2.5, verified).
const INFORMER_DRAWS: usize = 10;

/// A prepared run: pods in the order they are offered, and a rank per node (name order).
#[derive(Debug, Clone)]
pub struct Prepared {
    pub order: Vec<Pod>,
    pub ranks: Vec<u32>,
}

/// Prepares `pods` (the trace, any order) for a cluster of `nodes` nodes and
/// `capacity_milli` GPU milli, tuned to `tune_ratio` of that capacity, under `seed`.
/// Returns the stream too, for a policy that goes on drawing from it.
pub fn prepare(pods: &[Pod], nodes: usize, capacity_milli: i64, tune_ratio: f64, seed: i64) -> (Prepared, GoRandom) {
    let mut rng = GoRandom::seed(seed);
    rng.int63();
    let mut sorted = pods.to_vec();
    sorted.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let mut order = sorted.clone();
    rng.shuffle(&mut order);
    tune(&mut order, &sorted, capacity_milli, tune_ratio, &mut rng);
    for _ in 0..INFORMER_DRAWS {
        rng.float64();
    }
    let ranks = rng.perm(nodes).into_iter().map(|r| r as u32).collect();
    (Prepared { order, ranks }, rng)
}

/// Tunes the workload's total GPU request to `ratio` × capacity (§2.4): copies of random trace
/// pods are appended while the next one's *per-GPU* milli still fits under the target (the pod
/// that would pass it is drawn and discarded); above the target, random pods are removed.
fn tune(order: &mut Vec<Pod>, sorted: &[Pod], capacity_milli: i64, ratio: f64, rng: &mut GoRandom) {
    let target = ratio * capacity_milli as f64;
    let mut total: i64 = order.iter().map(Pod::gpu_request).sum();
    if (total as f64) < target {
        let mut copies = 0u64;
        loop {
            let drawn = &sorted[rng.intn(sorted.len())];
            if (total + drawn.milli) as f64 > target {
                break;
            }
            total += drawn.gpu_request();
            let mut copy = drawn.clone();
            copy.name = format!("{}-tuned-{copies}", drawn.name);
            order.push(copy);
            copies += 1;
        }
    } else {
        while total as f64 > target && !order.is_empty() {
            let removed = order.remove(rng.intn(order.len()));
            total -= removed.gpu_request();
        }
    }
}
