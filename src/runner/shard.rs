//! `--shard K/N`: one of N disjoint parts of a grid, for Slurm job arrays and Kubernetes Indexed
//! Jobs. Every shard computes the same partition from the grid alone (no thread count, run order
//! or other shard enters), so N tasks started with `--shard 1/N` .. `--shard N/N` on one shared
//! results directory do every run exactly once, with nothing to merge.
//!
//! The partition balances an estimate of each run's cost (the jobs it simulates), not only the
//! count of runs: longest estimate first, each run to the shard with the least estimated work so
//! far (ties to the lower shard, then by run key).

use crate::core::Tracking;
use crate::policies::InputSource;
use crate::spec::grid::RunPlan;
use std::path::Path;

/// Shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

/// Most shards of one grid (far beyond any array a scheduler accepts).
const MAX_SHARDS: usize = 1_000_000;

impl Shard {
    /// The 1-based shard `k` of `n`, as written on the command line.
    pub fn new(k: usize, n: usize) -> Result<Self, String> {
        if !(1..=MAX_SHARDS).contains(&n) || !(1..=n).contains(&k) {
            return Err(format!("shard {k}/{n}: need 1 <= K <= N <= {MAX_SHARDS}"));
        }
        Ok(Shard { index: k - 1, count: n })
    }

    /// The shard of an array task, from the environment `get` reads: Slurm
    /// (`SLURM_ARRAY_TASK_ID` - `SLURM_ARRAY_TASK_MIN` + 1 of `SLURM_ARRAY_TASK_COUNT`) or a
    /// Kubernetes Indexed Job (`JOB_COMPLETION_INDEX` + 1 of `BLOX_SHARDS`, which the manifest
    /// sets, since Kubernetes does not pass the completion count to pods).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let number = |name: &str| -> Result<Option<usize>, String> {
            get(name)
                .map(|v| v.trim().parse::<usize>().map_err(|_| format!("{name}={v:?} is not a whole number")))
                .transpose()
        };
        if let (Some(id), Some(count)) = (number("SLURM_ARRAY_TASK_ID")?, number("SLURM_ARRAY_TASK_COUNT")?) {
            let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let k = id
                .checked_sub(min)
                .ok_or_else(|| format!("SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {min}"))?;
            return Shard::new(k + 1, count).map_err(|e| {
                format!(
                    "from the Slurm array: {e} (the array must be contiguous, e.g. --array=0-{})",
                    count.saturating_sub(1)
                )
            });
        }
        if let (Some(index), Some(count)) = (number("JOB_COMPLETION_INDEX")?, number("BLOX_SHARDS")?) {
            return Shard::new(index + 1, count).map_err(|e| format!("from the Indexed Job: {e}"));
        }
        Err("--shard auto needs SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (a Slurm array task) or \
             JOB_COMPLETION_INDEX and BLOX_SHARDS (a Kubernetes Indexed Job); give --shard K/N otherwise"
            .into())
    }

    /// N, the number of shards.
    pub fn count(self) -> usize {
        self.count
    }

    /// `K/N`, 1-based as on the command line.
    pub fn describe(self) -> String {
        format!("{}/{}", self.index + 1, self.count)
    }

    /// The plans of this shard, in their grid order.
    pub fn select<'a>(self, plans: &[&'a RunPlan], base_dir: &Path) -> Vec<&'a RunPlan> {
        let owners = partition(plans, self.count, |plan| estimated_cost(plan, base_dir), |plan| &plan.info.run_key);
        plans.iter().zip(owners).filter(|&(_, owner)| owner == self.index).map(|(plan, _)| *plan).collect()
    }
}

/// Parses `K/N` (1-based) or `auto` (from the environment).
impl std::str::FromStr for ShardArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text == "auto" {
            return Ok(ShardArg::FromEnvironment);
        }
        let (k, n) = text.split_once('/').ok_or_else(|| format!("`{text}` is not K/N (e.g. 2/8) or auto"))?;
        let parse = |s: &str| s.trim().parse::<usize>().map_err(|_| format!("`{text}` is not K/N (e.g. 2/8) or auto"));
        Shard::new(parse(k)?, parse(n)?).map(ShardArg::Given)
    }
}

/// `--shard` as given: a shard, or `auto` to read it from the array task's environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Given(Shard),
    FromEnvironment,
}

impl ShardArg {
    pub fn resolve(self) -> Result<Shard, String> {
        match self {
            ShardArg::Given(shard) => Ok(shard),
            ShardArg::FromEnvironment => Shard::from_env(|name| std::env::var(name).ok()),
        }
    }
}

/// The shard (0-based) of each item: longest-processing-time-first greedy on `cost`, ties broken
/// by `key` so that the result depends on the items alone.
fn partition<T>(items: &[T], shards: usize, cost: impl Fn(&T) -> f64, key: impl Fn(&T) -> &str) -> Vec<usize> {
    let mut order: Vec<(usize, f64)> = items.iter().enumerate().map(|(i, item)| (i, cost(item))).collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| key(&items[a.0]).cmp(key(&items[b.0]))));
    let mut load = vec![0.0_f64; shards];
    let mut owner = vec![0; items.len()];
    for (i, c) in order {
        let least = (0..shards).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).unwrap_or(0);
        load[least] += c;
        owner[i] = least;
    }
    owner
}

/// Jobs the run simulates, as far as the spec tells without reading a trace: the tracked window's
/// end or the generator's job count; for a trace, its file size (bytes are proportional to rows).
/// Only the relative sizes matter.
pub(super) fn estimated_cost(plan: &RunPlan, base_dir: &Path) -> f64 {
    let tracked = match plan.config.tracking {
        Tracking::Ids { last, .. } => Some(last as f64 + 1.0),
        Tracking::All => None,
    };
    let workload = plan.workload.kind();
    let size = workload.job_count().map(|n| n as f64).or_else(|| match workload.reads()? {
        InputSource::Path(path) => file_rows(&base_dir.join(path)),
        InputSource::Dataset(reference) => crate::data::lookup(&reference).ok().map(|(_, f)| f.size as f64 / 64.0),
    });
    tracked.or(size).unwrap_or(1000.0).max(1.0)
}

/// Rows of a CSV-like file, estimated from its size (64 bytes a row).
fn file_rows(path: &Path) -> Option<f64> {
    std::fs::metadata(path).ok().map(|m| m.len() as f64 / 64.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every item lands in exactly one shard, the heavy ones spread out, and the result does not
    /// depend on the order the items come in.
    #[test]
    fn partitions_balance_cost_and_ignore_order() {
        let items: Vec<(String, f64)> =
            (0..40).map(|i| (format!("run{i:02}"), if i < 4 { 100.0 } else { 1.0 })).collect();
        let owners = partition(&items, 4, |i| i.1, |i| &i.0);
        let mut load = [0.0; 4];
        for (item, &o) in items.iter().zip(&owners) {
            load[o] += item.1;
        }
        assert_eq!(load, [109.0, 109.0, 109.0, 109.0]);
        let heavy: Vec<usize> = owners[..4].to_vec();
        assert_eq!(heavy, [0, 1, 2, 3], "one heavy run per shard");
        let mut reversed = items.clone();
        reversed.reverse();
        let again = partition(&reversed, 4, |i| i.1, |i| &i.0);
        let by_key = |items: &[(String, f64)], owners: &[usize]| {
            let mut pairs: Vec<(String, usize)> =
                items.iter().map(|i| i.0.clone()).zip(owners.iter().copied()).collect();
            pairs.sort();
            pairs
        };
        assert_eq!(by_key(&items, &owners), by_key(&reversed, &again));
    }

    #[test]
    fn shards_parse_one_based_and_auto() {
        assert_eq!("2/8".parse::<ShardArg>().unwrap(), ShardArg::Given(Shard { index: 1, count: 8 }));
        assert_eq!("auto".parse::<ShardArg>().unwrap(), ShardArg::FromEnvironment);
        for bad in ["0/8", "9/8", "1/0", "two/8", "8", ""] {
            assert!(bad.parse::<ShardArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn array_tasks_find_their_shard_in_the_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
        };
        let slurm = Shard::from_env(env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_MIN", "2"),
        ]));
        assert_eq!(slurm.unwrap().describe(), "4/4");
        let zero_based = Shard::from_env(env(&[("SLURM_ARRAY_TASK_ID", "0"), ("SLURM_ARRAY_TASK_COUNT", "4")]));
        assert_eq!(zero_based.unwrap().describe(), "1/4");
        let k8s = Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "3"), ("BLOX_SHARDS", "4")]));
        assert_eq!(k8s.unwrap().describe(), "4/4");
        assert!(Shard::from_env(env(&[("JOB_COMPLETION_INDEX", "3")])).unwrap_err().contains("BLOX_SHARDS"));
        let gap = Shard::from_env(env(&[("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_COUNT", "4")]));
        assert!(gap.unwrap_err().contains("contiguous"));
    }
}
