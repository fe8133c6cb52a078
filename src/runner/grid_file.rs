//! `grid.json`: the grid of the last `blox run` of an experiment (its run keys and grid points),
//! written beside `spec.yaml`, so that `blox status`, `blox plot` and `blox export` know which
//! runs belong to the experiment without re-reading its input files; for a sharded sweep also its
//! shard count, which later shards check ([`GridFile::claim`]). And `--only` selections of grid
//! points.

use crate::results;
use crate::results::store::{self, write_file_atomically};
use crate::spec::grid::RunPlan;
use crate::text::fmt_number;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::path::Path;

/// File name of the grid manifest in an experiment directory.
pub const GRID_FILE: &str = "grid.json";

/// Lock file under which a sweep reads and replaces `grid.json`.
const GRID_LOCK: &str = ".grid.lock";

/// The runs of one experiment's current grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridFile {
    pub experiment: String,
    /// SHA-256 of the spec text that produced the grid.
    pub spec_sha256: String,
    /// The blox build that expanded it ([`crate::version::LONG_VERSION`]).
    pub blox_version: String,
    pub runs: Vec<GridPoint>,
    /// The sharded sweep that wrote the grid (`--shard K/N`), if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharded: Option<ShardedSweep>,
}

/// What the shards of one sweep must agree on besides the grid: each computes its part from the
/// grid, the shard count and the `--only` selection, so shards that differ in any of them leave
/// runs of each other's partition undone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShardedSweep {
    /// N of `--shard K/N`.
    pub shards: usize,
    /// The `--only` selection the shards partition, as written back by [`Selection`]'s display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
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

    /// Writes the grid for a sweep about to start, unless it is a shard that disagrees with the
    /// unfinished sharded sweep `grid.json` records (another shard count, `--only` selection or
    /// grid: the spec, an input file or the blox build changed since that sweep began): its
    /// partition would leave runs of that sweep undone, without a word, while its tidying set the
    /// other shards' runs aside. A recorded sweep is finished when each of its runs is complete or
    /// failed. Shards that start together take turns here, under a lock.
    pub fn claim(&self, experiment_dir: &Path) -> Result<(), String> {
        let _lock = lock(experiment_dir)?;
        if let (Some(ours), Ok(recorded)) = (&self.sharded, Self::read(experiment_dir))
            && let Some(theirs) = &recorded.sharded
        {
            let same_runs = recorded.runs.iter().map(|p| &p.run_key).eq(self.runs.iter().map(|p| &p.run_key));
            if !(same_runs && ours == theirs) {
                let unfinished = recorded.unfinished(experiment_dir, theirs);
                if unfinished > 0 {
                    return Err(self.refusal(experiment_dir, &recorded, theirs, same_runs, unfinished));
                }
            }
        }
        self.write(experiment_dir)
    }

    /// Runs of the sharded sweep `sweep` of this grid that are neither complete nor failed.
    fn unfinished(&self, experiment_dir: &Path, sweep: &ShardedSweep) -> usize {
        let only: Option<Selection> = sweep.only.as_deref().and_then(|text| text.parse().ok());
        self.runs
            .iter()
            .filter(|p| only.as_ref().is_none_or(|only| only.matches(p)))
            .filter(|p| {
                !matches!(results::complete_run(experiment_dir, &p.run_key), Ok(Some(_)))
                    && store::failure(experiment_dir, &p.run_key).is_none()
            })
            .count()
    }

    /// Why this shard cannot join the unfinished sweep `theirs` of `recorded`, and what to do.
    fn refusal(
        &self,
        experiment_dir: &Path,
        recorded: &GridFile,
        theirs: &ShardedSweep,
        same_runs: bool,
        unfinished: usize,
    ) -> String {
        let ours = self.sharded.as_ref().expect("only shards are refused");
        let only = |sweep: &ShardedSweep| sweep.only.as_ref().map(|o| format!(" of --only {o}")).unwrap_or_default();
        let difference = if !same_runs && recorded.spec_sha256 != self.spec_sha256 {
            "the spec changed since it began".to_string()
        } else if !same_runs {
            "its grid changed since it began (an input file or the blox build; the spec is the same)".to_string()
        } else if ours.shards != theirs.shards {
            format!("it has {} shards, this shard {}", theirs.shards, ours.shards)
        } else {
            format!("its shards partition{}, this shard{}", only(theirs), only(ours))
        };
        format!(
            "{} holds an unfinished sweep of {} shards{} ({unfinished} of its runs neither complete nor failed), and {difference}; \
             shards partition the grid by its runs, their count and the --only selection, so this shard would leave runs of \
             that sweep undone. Finish that sweep with the same spec, inputs and --shard K/{} (and --only), or, if it is \
             abandoned, remove {} and start again",
            experiment_dir.display(),
            theirs.shards,
            only(theirs),
            theirs.shards,
            experiment_dir.join(GRID_FILE).display()
        )
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

/// Takes the experiment's grid lock (waiting for another sweep's claim), never following a link
/// planted in its place.
fn lock(experiment_dir: &Path) -> Result<File, String> {
    let path = experiment_dir.join(GRID_LOCK);
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    let file = options.open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    file.lock().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file)
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

/// `label=LAS,load=8`, which parses back to the same selection.
impl std::fmt::Display for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let terms: Vec<String> = self
            .0
            .iter()
            .map(|(key, value)| {
                let name = SELECT_KEYS.iter().find(|(_, k)| k == key).map_or("", |(name, _)| name);
                format!("{name}={value}")
            })
            .collect();
        f.write_str(&terms.join(","))
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
