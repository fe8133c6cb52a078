//! The placement engine's inputs (`engine: {mode: placements}`): a cluster's `node_list` and a
//! `pod-list` workload are files read once per sweep through the same seam as policies' inputs
//! ([`InputFiles`]), named by their format, not by a family. This module builds a placement run
//! from a [`RunPlan`] and checks, before any run, what would make one meaningless: a node list
//! without nodes, a pod list without pods, a pod asking for more GPUs than any node has.

use super::grid::RunPlan;
use super::inputs::InputFiles;
use super::{ClusterEntry, EngineMode, Spec, SpecError, SpecSource};
use crate::core::placements::over_time::OverTime;
use crate::core::placements::{Experiment, Lifetime, NodeList, PodList, experiment};
use crate::core::{RecordSink, RunTables, StopFlag};
use crate::policies::{InputParser, InputReader, InputSource, PolicyInput};
use crate::results::RunInfo;
use crate::trace::pod_list::{parse_node_list, parse_pod_list};
use crate::workload::{PodListParams, WorkloadSpec};
use std::sync::Arc;

/// A cluster's node-list file as an input.
fn node_list_input(source: &InputSource) -> PolicyInput {
    PolicyInput {
        what: "node list",
        source: source.clone(),
        parse: Some(InputParser::File(parse_node_list)),
        only_if_a_file: false,
    }
}

/// A `pod-list` workload's file as an input.
fn pod_list_input(params: &PodListParams) -> PolicyInput {
    PolicyInput {
        what: "pod list",
        source: params.source(),
        parse: Some(InputParser::File(parse_pod_list)),
        only_if_a_file: false,
    }
}

fn read<T: Send + Sync + 'static>(files: &dyn InputReader, input: &PolicyInput) -> Result<Arc<T>, String> {
    let parsed: Arc<dyn std::any::Any + Send + Sync> = files.read(input)?;
    parsed.downcast::<T>().map_err(|_| format!("{} ({}) was read as another type", input.what, input.source.describe()))
}

/// A `node_list` cluster's nodes, thinned to every n-th in name order when it says so.
fn nodes_of(cluster: &ClusterEntry, files: &dyn InputReader) -> Result<Option<Arc<NodeList>>, String> {
    let Some(list) = &cluster.node_list else { return Ok(None) };
    let nodes = read::<NodeList>(files, &node_list_input(&list.value))?;
    Ok(Some(match cluster.every_nth_node {
        Some(n) if n.0 > 1 => {
            let mut sorted = nodes.0.clone();
            sorted.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
            Arc::new(NodeList(sorted.into_iter().step_by(n.0 as usize).collect()))
        }
        _ => nodes,
    }))
}

impl RunPlan {
    /// The runs row of this run: a `node_list` cluster's nodes and GPUs are counted from its file.
    pub fn info_with_inputs(&self, files: &dyn InputReader) -> Result<RunInfo, String> {
        let mut info = self.info.clone();
        if let Some(nodes) = nodes_of(&self.cluster, files)? {
            info.nodes = nodes.0.len() as u32;
            info.total_gpus = nodes.gpus();
        }
        Ok(info)
    }

    /// Runs this grid point on the placement engine: its cluster's node list, its workload's pod
    /// list, its scheduler's score policy, its seed.
    /// Pods that come and go (`over_time`) hand their records to `sink`; the paper's experiment
    /// has none.
    pub fn run_placements(
        &self,
        files: &InputFiles,
        stop: &StopFlag,
        sink: &mut dyn RecordSink,
    ) -> Result<RunTables, String> {
        let WorkloadSpec::PodList(params) = &self.workload else {
            return Err(format!("workload `{}` is not a pod list", self.workload.label()));
        };
        let nodes = nodes_of(&self.cluster, files)?
            .ok_or_else(|| format!("cluster `{}` has no node list", self.cluster.label()))?;
        let pods = read::<PodList>(files, &pod_list_input(params))?;
        let ctx = self.build_context(files.base_dir(), files);
        let mut policy = self.policy.scheduler.value.build_score(&ctx)?;
        let seed = self.seed as i64;
        let Some(ratio) = params.tune_ratio else {
            let lifetimes = lifetimes_of(&pods, params)?;
            let run = OverTime { nodes: &nodes.0, pods: &pods.pods, lifetimes: &lifetimes };
            let horizon = self.config.horizon;
            return run
                .run_into(&mut *policy, seed, horizon, stop, sink, self.config.record_timeline)
                .map_err(|e| e.to_string());
        };
        let experiment = Experiment { nodes: &nodes.0, pods: &pods.pods, tune_ratio: ratio.0 };
        let reports = experiment.run_until(&mut *policy, seed, stop).map_err(|e| e.to_string())?;
        Ok(experiment::run_tables(&reports, nodes.gpus(), self.config.record_timeline))
    }
}

/// Every pod's lifetime for a run over time, its creation sped up by `arrival_speedup` (to
/// whole seconds, rounded down) and its deletion as long after it as traced; an error naming the
/// first pod without one.
fn lifetimes_of(pods: &PodList, params: &PodListParams) -> Result<Vec<Lifetime>, String> {
    let speedup = params.arrival_speedup.map_or(1.0, |s| s.0);
    pods.lifetimes
        .iter()
        .zip(&pods.pods)
        .map(|(lifetime, pod)| {
            let sped_up = |l: &Lifetime| {
                let created = (l.created as f64 / speedup).floor() as i64;
                Lifetime { created, runs_for: l.runs_for, deleted: created + (l.deleted - l.created) }
            };
            lifetime.as_ref().map(sped_up).ok_or_else(|| {
                format!(
                    "pod `{}` of {} has no creation and deletion time, which `over_time: true` needs",
                    pod.name,
                    params.source().describe()
                )
            })
        })
        .collect()
}

/// The dataset files a placement spec's clusters and workloads name.
pub fn datasets(spec: &Spec) -> Vec<String> {
    let lists = spec.clusters.value.iter().filter_map(|c| c.node_list.as_ref().map(|l| l.value.clone()));
    let pods = spec.workloads.value.iter().filter_map(|w| match &w.value {
        WorkloadSpec::PodList(p) => Some(p.source()),
        _ => None,
    });
    lists
        .chain(pods)
        .filter_map(|source| match source {
            InputSource::Dataset(reference) => Some(reference),
            InputSource::Path(_) => None,
        })
        .collect()
}

/// Reads every node list and pod list of a placements-mode spec (nothing for another engine)
/// and says what each holds; an error, at the spec's line, for a node list without nodes, a pod
/// list without pods, or a pod asking for more GPUs than any node of a cluster it runs on has.
pub fn check(source: &SpecSource, spec: &Spec, files: &InputFiles) -> Result<String, String> {
    if spec.engine.mode != EngineMode::Placements {
        return Ok(String::new());
    }
    let at = |location: serde_saphyr::Location, message: String| {
        let position = (location.line() > 0).then(|| (location.line(), location.column()));
        SpecError { file: source.file.clone(), position, message }.to_string()
    };
    let mut text = String::new();
    let mut clusters = Vec::new();
    for cluster in &spec.clusters.value {
        let Some(list) = &cluster.node_list else { continue };
        let nodes =
            nodes_of(cluster, files).map_err(|e| at(list.referenced, format!("cluster `{}`: {e}", cluster.label())))?;
        let nodes = nodes.expect("a node_list cluster reads a node list");
        if nodes.0.is_empty() {
            let message =
                format!("cluster `{}`: the node list {} has no nodes", cluster.label(), list.value.describe());
            return Err(at(list.referenced, message));
        }
        text += &format!("cluster `{}`: node list from {}: {}\n", cluster.label(), list.value.describe(), {
            use crate::core::input::InputData;
            nodes.summary()
        });
        clusters.push((cluster, nodes));
    }
    for (index, workload) in spec.workloads.value.iter().enumerate() {
        let WorkloadSpec::PodList(params) = &workload.value else { continue };
        let label = workload.value.label();
        let pods = read::<PodList>(files, &pod_list_input(params))
            .map_err(|e| at(workload.referenced, format!("workload `{label}`: {e}")))?;
        if pods.pods.is_empty() {
            let message = format!("workload `{label}`: the pod list {} has no pods", params.source().describe());
            return Err(at(workload.referenced, message));
        }
        if params.over_time {
            lifetimes_of(&pods, params).map_err(|e| at(workload.referenced, format!("workload `{label}`: {e}")))?;
        }
        text += &format!("workload `{label}`: pod list from {}: {}\n", params.source().describe(), {
            use crate::core::input::InputData;
            pods.summary()
        });
        let paired = clusters.iter().enumerate().filter(|(ci, _)| !spec.zip_clusters_workloads.value || *ci == index);
        for (_, (cluster, nodes)) in paired {
            let widest = nodes.0.iter().map(|n| n.gpus).max().unwrap_or(0);
            if let Some(pod) = pods.pods.iter().find(|p| p.gpus > widest) {
                let message = format!(
                    "workload `{label}`: pod `{}` asks for {} GPUs, more than any node of cluster `{}` has (at most {widest}); \
                     it could never be placed",
                    pod.name,
                    pod.gpus,
                    cluster.label()
                );
                return Err(at(workload.referenced, message));
            }
        }
    }
    Ok(text)
}
