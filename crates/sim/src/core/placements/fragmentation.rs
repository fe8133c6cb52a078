//! FGD's fragmentation measure (`docs/fgd-semantics.md` §3): the idle GPU milli of a node that a
//! pod drawn from the target workload could not use, expected over the workload's typical pods.
//!
//! The target workload is the untuned trace's most frequent pod shapes, keyed by CPU, GPU milli,
//! GPU count and model constraint, up to 95 % of the pods, their frequencies renormalised (§3.1).
//! A node's idle GPU milli is split into seven classes per typical pod (§3.2) and weighted by its
//! frequency; everything but "satisfied" (Q3) is fragment (§3.3). The result depends on the
//! devices only as a multiset, so it is memoised by (free CPU, devices sorted, model).

use super::{NodeState, Pod};
use rustc_hash::FxHashMap;
use std::collections::HashMap;

/// The seven classes, in the original's index order.
pub const CLASSES: usize = 7;
const Q1_LACK_BOTH: usize = 0;
const Q2_LACK_GPU: usize = 1;
const Q3_SATISFIED: usize = 2;
const Q4_LACK_CPU: usize = 3;
const XL_SATISFIED: usize = 4;
const XR_LACK_CPU: usize = 5;
const NO_ACCESS: usize = 6;

/// Share of the pods the typical pods cover (the run's `podPopularityThreshold`).
const POPULARITY_PERCENT: f64 = 95.0;

/// One shape of the target workload with its frequency.
#[derive(Debug, Clone, PartialEq)]
pub struct TypicalPod {
    pub cpu: i64,
    pub milli: i64,
    pub gpus: u32,
    pub models: String,
    pub freq: f64,
}

/// The typical pods of `pods` (the trace before tuning), most frequent first (§3.1).
pub fn typical_pods(pods: &[Pod]) -> Vec<TypicalPod> {
    let mut counts: HashMap<(i64, i64, u32, &str), u64> = HashMap::new();
    for p in pods {
        *counts.entry((p.cpu, p.milli, p.gpus, p.models.as_str())).or_default() += 1;
    }
    let mut list: Vec<_> = counts.into_iter().collect();
    // Count descending, equal counts by key descending (the original sorts ascending and reverses).
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    let total = pods.len() as f64;
    let expected = POPULARITY_PERCENT * total / 100.0;
    let mut taken = Vec::new();
    let mut cum = 0u64;
    for (key, count) in &list {
        cum += count;
        taken.push((*key, *count as f64 / total));
        if cum as f64 >= expected {
            break;
        }
    }
    let renormalise = taken.len() < list.len();
    let share = cum as f64 / total;
    taken
        .into_iter()
        .map(|((cpu, milli, gpus, models), freq)| TypicalPod {
            cpu,
            milli,
            gpus,
            models: models.to_string(),
            freq: if renormalise { freq / share } else { freq },
        })
        .collect()
}

/// Key of the memo: free CPU, devices' idle milli sorted descending and zero-padded, model.
type Key = (i64, [i16; MAX_DEVICES], u16);

/// Devices a node may have for the memo key; larger nodes are measured without the memo.
const MAX_DEVICES: usize = 8;

/// The measure against one target workload, with its memo.
pub struct Fragmentation {
    typical: Vec<TypicalPod>,
    /// Model name of each model id ([`NodeState::model_id`]).
    models: Vec<String>,
    memo: FxHashMap<Key, [f64; CLASSES]>,
}

impl Fragmentation {
    pub fn new(typical: Vec<TypicalPod>, models: Vec<String>) -> Self {
        Self { typical, models, memo: FxHashMap::default() }
    }

    pub fn typical(&self) -> &[TypicalPod] {
        &self.typical
    }

    /// The seven class amounts of a node with `cpu_left` milli-CPU, devices `left` and model
    /// `model_id` (§3.3).
    pub fn classes(&mut self, cpu_left: i64, left: &[i64], model_id: u16) -> [f64; CLASSES] {
        if left.len() > MAX_DEVICES {
            return self.compute(cpu_left, left, model_id);
        }
        let mut sorted = [0i16; MAX_DEVICES];
        for (slot, &l) in sorted.iter_mut().zip(left) {
            *slot = l as i16;
        }
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        let key = (cpu_left, sorted, model_id);
        if let Some(found) = self.memo.get(&key) {
            return *found;
        }
        let data = self.compute(cpu_left, left, model_id);
        self.memo.insert(key, data);
        data
    }

    /// Fragmented milli of a node: every class but Q3, summed in index order.
    pub fn node_amount(&mut self, cpu_left: i64, left: &[i64], model_id: u16) -> f64 {
        amount(&self.classes(cpu_left, left, model_id))
    }

    /// [`Self::node_amount`] of a node's state.
    pub fn of_state(&mut self, state: &NodeState) -> f64 {
        self.node_amount(state.cpu_left, &state.left, state.model_id)
    }

    fn compute(&self, cpu_left: i64, left: &[i64], model_id: u16) -> [f64; CLASSES] {
        let model = &self.models[model_id as usize];
        let total: i64 = left.iter().sum();
        let mut data = [0.0; CLASSES];
        for p in &self.typical {
            let cpu_ok = cpu_left >= p.cpu;
            let class = if p.milli == 0 {
                if cpu_ok { XL_SATISFIED } else { XR_LACK_CPU }
            } else if !super::accessible(model, &p.models) {
                NO_ACCESS
            } else if left.iter().filter(|&&l| l >= p.milli).count() >= p.gpus as usize {
                if cpu_ok { Q3_SATISFIED } else { Q4_LACK_CPU }
            } else if cpu_ok {
                Q2_LACK_GPU
            } else {
                Q1_LACK_BOTH
            };
            if class == Q3_SATISFIED {
                let too_small: i64 = left.iter().filter(|&&l| l < p.milli).sum();
                data[Q2_LACK_GPU] += p.freq * too_small as f64;
                data[Q3_SATISFIED] += p.freq * (total - too_small) as f64;
            } else {
                data[class] += p.freq * total as f64;
            }
        }
        data
    }
}

/// Fragment of a class vector: all classes but Q3, in index order.
pub fn amount(data: &[f64; CLASSES]) -> f64 {
    let mut out = 0.0;
    for (i, v) in data.iter().enumerate() {
        if i != Q3_SATISFIED {
            out += v;
        }
    }
    out
}

/// The cluster's fragment `F` and fragmentation ratio `100·F/I` (§2.7) from the nodes' class
/// vectors: class totals summed over the nodes, then combined.
pub fn cluster_report(nodes: &[[f64; CLASSES]]) -> (f64, f64) {
    let mut totals = [0.0; CLASSES];
    for data in nodes {
        for (t, v) in totals.iter_mut().zip(data) {
            *t += v;
        }
    }
    let fragment = amount(&totals);
    let idle: f64 = totals.iter().sum();
    (fragment, 100.0 * fragment / idle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(cpu: i64, milli: i64, gpus: u32) -> Pod {
        Pod { name: String::new(), cpu, memory: 0, gpus, milli, models: String::new() }
    }

    #[test]
    fn typical_pods_cover_the_threshold_and_renormalise() {
        // 10 pods: shapes A×5, B×4, C×1; 95 % needs all three → frequencies kept as counted.
        let mut pods = vec![pod(1000, 500, 1); 5];
        pods.extend(vec![pod(2000, 1000, 1); 4]);
        pods.push(pod(3000, 0, 0));
        let t = typical_pods(&pods);
        assert_eq!(t.iter().map(|p| p.freq).collect::<Vec<_>>(), [0.5, 0.4, 0.1]);
        // 40 pods: 38 + 1 + 1 → the first covers 95 %, renormalised to 1.
        let mut pods = vec![pod(1000, 500, 1); 38];
        pods.push(pod(1, 1, 1));
        pods.push(pod(2, 1, 1));
        let t = typical_pods(&pods);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].freq, 1.0);
    }

    #[test]
    fn classes_split_idle_milli_by_what_typical_pods_can_use() {
        let typical = vec![
            TypicalPod { cpu: 4000, milli: 500, gpus: 1, models: String::new(), freq: 0.5 },
            TypicalPod { cpu: 8000, milli: 0, gpus: 0, models: String::new(), freq: 0.25 },
            TypicalPod { cpu: 1000, milli: 1000, gpus: 1, models: "A10".into(), freq: 0.25 },
        ];
        let mut f = Fragmentation::new(typical, vec!["T4".into()]);
        // Devices 300 + 1000 idle, 6000 CPU: the share pod fits (300 too small → Q2), the CPU pod
        // lacks CPU (XR, all idle), the A10 pod has no access (all idle).
        let data = f.classes(6000, &[300, 1000], 0);
        assert_eq!(data, [0.0, 150.0, 500.0, 0.0, 0.0, 325.0, 325.0]);
        assert_eq!(f.node_amount(6000, &[1000, 300], 0), 800.0);
    }
}
