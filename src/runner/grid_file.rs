//! `grid.json`: the grid of the last `blox run` of an experiment (its run keys and grid points),
//! written beside `spec.yaml`, so that `blox status`, `blox plot` and `blox export` know which
//! runs belong to the experiment without re-reading its input files. And `--only` selections of
//! grid points.

use crate::results::store::write_file_atomically;
use crate::spec::grid::{RunPlan, fmt_number};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// File name of the grid manifest in an experiment directory.
pub const GRID_FILE: &str = "grid.json";

/// The runs of one experiment's current grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridFile {
    pub experiment: String,
    /// SHA-256 of the spec text that produced the grid.
    pub spec_sha256: String,
    /// The blox build that expanded it ([`crate::version::LONG_VERSION`]).
    pub blox_version: String,
    pub runs: Vec<GridPoint>,
}

/// One run of the grid: its key and the grid coordinates people select by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridPoint {
    pub run_key: String,
    pub label: String,
    pub scheduler: String,
    pub cluster: String,
    pub workload: String,
    pub load: Option<f64>,
    pub seed: u64,
}

impl GridPoint {
    pub fn of(plan: &RunPlan) -> Self {
        let info = &plan.info;
        GridPoint {
            run_key: info.run_key.clone(),
            label: info.label.clone(),
            scheduler: info.scheduler.clone(),
            cluster: info.cluster.clone(),
            workload: info.workload.clone(),
            load: info.load,
            seed: info.seed,
        }
    }

    /// `label=LAS cluster=32x4 workload=… load=8 seed=1`, for listings.
    pub fn describe(&self) -> String {
        let load = self.load.map(|l| format!(" load={}", fmt_number(l))).unwrap_or_default();
        format!("label={} cluster={} workload={}{load} seed={}", self.label, self.cluster, self.workload, self.seed)
    }
}

impl GridFile {
    pub fn write(&self, experiment_dir: &Path) -> Result<(), String> {
        let path = experiment_dir.join(GRID_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| format!("{}: {e}", path.display()))?;
        write_file_atomically(&path, format!("{text}\n").as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn read(experiment_dir: &Path) -> Result<Self, String> {
        let path = experiment_dir.join(GRID_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "{} has no {GRID_FILE}: it is not an experiment directory written by `blox run`",
                    experiment_dir.display()
                )
            } else {
                format!("{}: {e}", path.display())
            }
        })?;
        serde_json::from_str(&text).map_err(|e| format!("{}: not a grid file blox wrote ({e})", path.display()))
    }
}

/// A subset of a grid: `label=LAS,load=8` keeps the runs whose label is LAS and whose load is 8.
/// A key given twice (`label=LAS,label=FIFO`) keeps either value.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection(Vec<(SelectKey, String)>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SelectKey {
    Label,
    Scheduler,
    Cluster,
    Workload,
    Load,
    Seed,
}

const SELECT_KEYS: [(&str, SelectKey); 6] = [
    ("label", SelectKey::Label),
    ("scheduler", SelectKey::Scheduler),
    ("cluster", SelectKey::Cluster),
    ("workload", SelectKey::Workload),
    ("load", SelectKey::Load),
    ("seed", SelectKey::Seed),
];

impl std::str::FromStr for Selection {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut terms = Vec::new();
        for term in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (key, value) =
                term.split_once('=').ok_or_else(|| format!("`{term}` is not KEY=VALUE (e.g. label=LAS,load=8)"))?;
            let key = key.trim();
            let (_, key) = SELECT_KEYS.iter().find(|(name, _)| *name == key).ok_or_else(|| {
                let names: Vec<&str> = SELECT_KEYS.iter().map(|(name, _)| *name).collect();
                format!("unknown grid key `{key}`; the keys are {}", names.join(", "))
            })?;
            let value = value.trim().to_owned();
            if matches!(key, SelectKey::Load | SelectKey::Seed) && value.parse::<f64>().is_err() {
                return Err(format!("`{term}`: {} must be a number", term.split('=').next().unwrap_or_default()));
            }
            terms.push((*key, value));
        }
        if terms.is_empty() {
            return Err("an empty selection; give KEY=VALUE pairs such as label=LAS,load=8".into());
        }
        Ok(Selection(terms))
    }
}

impl Selection {
    /// Whether `point` matches: for every key named, one of its values.
    pub fn matches(&self, point: &GridPoint) -> bool {
        SELECT_KEYS.iter().all(|&(_, key)| {
            let mut values = self.0.iter().filter(|(k, _)| *k == key).map(|(_, v)| v.as_str()).peekable();
            values.peek().is_none() || values.any(|value| Self::value_matches(key, value, point))
        })
    }

    fn value_matches(key: SelectKey, value: &str, point: &GridPoint) -> bool {
        let number = || value.parse::<f64>().ok();
        match key {
            SelectKey::Label => point.label == value,
            SelectKey::Scheduler => point.scheduler == value,
            SelectKey::Cluster => point.cluster == value,
            SelectKey::Workload => point.workload == value,
            SelectKey::Load => point.load.is_some_and(|load| Some(load) == number()),
            SelectKey::Seed => number() == Some(point.seed as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(label: &str, load: Option<f64>, seed: u64) -> GridPoint {
        GridPoint {
            run_key: format!("{label}-{seed}"),
            label: label.into(),
            scheduler: "las".into(),
            cluster: "32x4".into(),
            workload: "w".into(),
            load,
            seed,
        }
    }

    #[test]
    fn selections_and_within_keys_or_across_values() {
        let s: Selection = "label=LAS, load=8".parse().unwrap();
        assert!(s.matches(&point("LAS", Some(8.0), 1)));
        assert!(!s.matches(&point("LAS", Some(6.0), 1)));
        assert!(!s.matches(&point("FIFO", Some(8.0), 1)));
        assert!(!s.matches(&point("LAS", None, 1)));
        let s: Selection = "label=LAS,label=FIFO,seed=2".parse().unwrap();
        assert!(s.matches(&point("FIFO", None, 2)));
        assert!(!s.matches(&point("FIFO", None, 1)));
        assert!(!s.matches(&point("SRTF", None, 2)));
    }

    #[test]
    fn bad_selections_say_what_is_expected() {
        let err = "lable=LAS".parse::<Selection>().unwrap_err();
        assert!(err.contains("unknown grid key `lable`") && err.contains("label, scheduler"), "{err}");
        assert!("LAS".parse::<Selection>().unwrap_err().contains("KEY=VALUE"));
        assert!("load=eight".parse::<Selection>().unwrap_err().contains("must be a number"));
        assert!(" , ".parse::<Selection>().unwrap_err().contains("empty selection"));
    }
}
