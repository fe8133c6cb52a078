//! The `pod-list` workload: a placement experiment's requests (`engine: {mode: placements}`),
//! read from a pod-list file ([`crate::trace::pod_list`]) by the placements engine, which offers
//! them one by one or over time. It is an input kind of that engine, not a job stream.

use super::{JobStream, Workload, WorkloadContext, WorkloadError};
use crate::policies::{InputSource, Positive};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What `blox list` says about `pod-list`.
pub const SUMMARY: &str = "a placement experiment's requests (engine mode placements) from a pod list by {path} or {dataset: name/file}, tuned to {tune_ratio} x the cluster's GPU capacity, or arriving and leaving at their traced times with {over_time: true}";

/// Parameters of `pod-list`: a placement experiment's requests (`engine: {mode: placements}`),
/// read from a pod-list file ([`crate::trace::pod_list`]) by `path` or `dataset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodListParams {
    /// The file, relative to the spec file's directory unless absolute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// A registered dataset file, `NAME/PATH`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// The workload's name in tables and figures (default `pod-list-<file stem>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The requests, shuffled by the run's seed, are copied (or removed) at random until their
    /// GPU request is this multiple of the cluster's GPU capacity (FGD's `tune`; the paper: 1.3).
    /// Required unless `over_time`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune_ratio: Option<Positive>,
    /// The pods arrive at their creation times and leave after the time they ran in the trace,
    /// instead of being offered one by one and staying ([`crate::core::placements::over_time`]):
    /// the list is the workload as traced, neither shuffled nor tuned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_time: bool,
    /// Over time, every creation time divided by this (the pods' run times and how long they
    /// wait before their users delete them unchanged): 20 offers twenty times the traced load,
    /// as the traced cluster was far larger than its pods needed at any moment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_speedup: Option<Positive>,
}

impl PodListParams {
    /// Where the file is, as a policy input names it; `validate` ensures exactly one is given.
    pub fn source(&self) -> InputSource {
        match (&self.path, &self.dataset) {
            (Some(path), _) => InputSource::Path(path.clone()),
            (None, dataset) => InputSource::Dataset(dataset.clone().unwrap_or_default()),
        }
    }
}

impl Workload for PodListParams {
    fn label(&self) -> Option<String> {
        if let Some(label) = &self.label {
            return Some(label.clone());
        }
        let source = self.path.clone().or_else(|| self.dataset.as_ref().map(PathBuf::from)).unwrap_or_default();
        let stem = source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        Some(format!("pod-list-{stem}"))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    fn needs_load(&self) -> bool {
        false
    }

    fn reads(&self) -> Option<InputSource> {
        Some(self.source())
    }

    fn jobs(&self, _context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        Err(WorkloadError::Prepare(
            "a `pod-list` workload is a placement experiment's requests, not a job stream: run it with \
             `engine: {mode: placements}`"
                .into(),
        ))
    }

    fn validate(&self) -> Result<(), String> {
        if self.path.is_some() == self.dataset.is_some() {
            return Err("pod-list: give exactly one of `path` (a local file) and `dataset` (e.g. `fgd/openb_pod_list_default.csv`)".into());
        }
        match (self.tune_ratio, self.over_time) {
            (None, false) => {
                Err("pod-list: `tune_ratio` is required (the paper's experiments use 1.3), unless the pods \
                                  come and go at their traced times (`over_time: true`)"
                    .into())
            }
            (Some(_), true) => Err("pod-list: `tune_ratio` and `over_time: true` exclude each other: over time, the \
                                    workload is the trace as it happened, neither shuffled nor tuned"
                .into()),
            (_, false) if self.arrival_speedup.is_some() => {
                Err("pod-list: `arrival_speedup` speeds up pods that come and go (`over_time: true`)".into())
            }
            (Some(ratio), false) if ratio.0 > 100.0 => {
                Err(format!("pod-list: tune_ratio must be at most 100 (times the GPU capacity), got {}", ratio.0))
            }
            _ => Ok(()),
        }
    }
}
