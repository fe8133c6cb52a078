//! Placement lists: a cluster's nodes and a workload's pods as resource requests only, every
//! row kept, no times. Alibaba's openb lists (cluster-trace-gpu-v2023, and the FGD simulator's
//! variants of them) are the format: a placement experiment offers the pods one by one to the
//! nodes, so a CPU-only pod, a never-scheduled pod or a list without time columns is as much a
//! part of it as any other (the duration reader, `formats::alibaba_2023`, drops those).
//!
//! Node list columns: `sn` (node name), `cpu_milli`, `memory_mib`, `gpu` (GPU count), `model`
//! (GPU model; empty on CPU-only nodes). Pod list columns: `name`, `cpu_milli`, `memory_mib`,
//! `num_gpu`, `gpu_milli` (milli-GPU per GPU), and optionally `gpu_spec` (GPU models the pod
//! accepts, `|`-separated) and the times in seconds `creation_time`, `deletion_time` and
//! `scheduled_time` (empty for a pod never scheduled), which the placement engine's runs over
//! time read ([`crate::core::placements::over_time`]); other columns (`qos`, `pod_phase`) are not
//! read.

use crate::core::input::ParsedInput;
use crate::core::placements::{GPU_MILLI, Lifetime, MIB, Node, NodeList, Pod, PodList};
use crate::trace::TraceError;
use crate::trace::input::{Table, TableOptions};
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

/// One node of a node list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    pub name: String,
    pub cpu_milli: u32,
    pub memory_mib: u32,
    pub gpus: u32,
    pub model: String,
}

/// One pod of a pod list, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRow {
    pub name: String,
    pub cpu_milli: u32,
    pub memory_mib: u32,
    pub gpus: u32,
    pub gpu_milli: u32,
    /// The accepted GPU models, empty pieces dropped; empty for any.
    pub gpu_models: Vec<String>,
    /// When the pod existed, where the row has creation and deletion times.
    pub lifetime: Option<Lifetime>,
}

/// Every row of a node list.
pub fn read_node_list(file: &Path, input: Box<dyn BufRead + '_>) -> Result<Vec<NodeRow>, TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let name = table.require(&["sn"])?;
    let cpu = table.require(&["cpu_milli"])?;
    let memory = table.require(&["memory_mib"])?;
    let gpus = table.require(&["gpu"])?;
    let model = table.require(&["model"])?;
    let mut nodes = Vec::new();
    while let Some(row) = table.next_row()? {
        nodes.push(NodeRow {
            name: row.str(name).to_string(),
            cpu_milli: row.count(cpu)?,
            memory_mib: row.count(memory)?,
            gpus: row.count(gpus)?,
            model: row.str(model).to_string(),
        });
    }
    Ok(nodes)
}

/// Every row of a pod list.
pub fn read_pod_list(file: &Path, input: Box<dyn BufRead + '_>) -> Result<Vec<PodRow>, TraceError> {
    let mut table = Table::open(file, input, TableOptions::default())?;
    let name = table.require(&["name"])?;
    let cpu = table.require(&["cpu_milli"])?;
    let memory = table.require(&["memory_mib"])?;
    let gpus = table.require(&["num_gpu"])?;
    let milli = table.require(&["gpu_milli"])?;
    let spec = table.column("gpu_spec");
    let times = [table.column("creation_time"), table.column("deletion_time"), table.column("scheduled_time")];
    let mut pods = Vec::new();
    while let Some(row) = table.next_row()? {
        let gpu_models = spec
            .and_then(|c| row.opt_str(c))
            .map(|s| s.split('|').filter(|p| !p.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        let time = |column: Option<usize>| match column {
            Some(c) if row.opt_str(c).is_some() => row.count(c).map(|t| Some(i64::from(t))),
            _ => Ok(None),
        };
        let lifetime = match (time(times[0])?, time(times[1])?, time(times[2])?) {
            (Some(created), Some(deleted), scheduled) => {
                if deleted < created {
                    return Err(row.row_error(format!("deleted at {deleted} s, before its creation at {created} s")));
                }
                if let Some(at) = scheduled.filter(|&at| at < created || at > deleted) {
                    return Err(
                        row.row_error(format!("scheduled at {at} s, outside its life from {created} to {deleted} s"))
                    );
                }
                Some(Lifetime { created, runs_for: deleted - scheduled.unwrap_or(created), deleted })
            }
            _ => None,
        };
        pods.push(PodRow {
            name: row.str(name).to_string(),
            cpu_milli: row.count(cpu)?,
            memory_mib: row.count(memory)?,
            gpus: row.count(gpus)?,
            gpu_milli: row.count(milli)?,
            gpu_models,
            lifetime,
        });
    }
    Ok(pods)
}

impl NodeRow {
    /// The node a placement experiment places on (`docs/fgd-semantics.md` §1.1).
    pub fn node(&self) -> Node {
        Node {
            name: self.name.clone(),
            cpu: i64::from(self.cpu_milli),
            memory: i64::from(self.memory_mib) * MIB,
            gpus: self.gpus,
            model: self.model.clone(),
        }
    }
}

impl PodRow {
    /// The request a placement experiment offers: GPU fields only when the row asks for GPUs,
    /// the share clamped to a whole GPU, empty model pieces dropped (`docs/fgd-semantics.md`
    /// §1.2).
    pub fn pod(&self) -> Pod {
        let (gpus, milli, models) = if self.gpus == 0 {
            (0, 0, String::new())
        } else {
            (self.gpus, i64::from(self.gpu_milli).min(GPU_MILLI), self.gpu_models.join("|"))
        };
        Pod {
            name: self.name.clone(),
            cpu: i64::from(self.cpu_milli),
            memory: i64::from(self.memory_mib) * MIB,
            gpus,
            milli,
            models,
        }
    }
}

/// A node-list file's bytes as the placement engine's [`NodeList`] (a cluster's `node_list`).
pub fn parse_node_list(bytes: &[u8], name: &str) -> Result<ParsedInput, String> {
    let rows = read_node_list(Path::new(name), Box::new(bytes)).map_err(|e| e.to_string())?;
    Ok(Arc::new(NodeList(rows.iter().map(NodeRow::node).collect())))
}

/// A pod-list file's bytes as the placement engine's [`PodList`] (a `pod-list` workload).
pub fn parse_pod_list(bytes: &[u8], name: &str) -> Result<ParsedInput, String> {
    let rows = read_pod_list(Path::new(name), Box::new(bytes)).map_err(|e| e.to_string())?;
    let pods = rows.iter().map(PodRow::pod).collect();
    Ok(Arc::new(PodList { pods, lifetimes: rows.iter().map(|r| r.lifetime).collect() }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(text: &'static str) -> Box<dyn BufRead> {
        Box::new(text.as_bytes())
    }

    #[test]
    fn every_pod_is_kept_with_its_request() {
        let text = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n\
                    p0,12000,16384,1,460,\n\
                    p1,4000,8192,0,0,\n\
                    p2,88000,327680,8,1000,V100M16||V100M32\n";
        let pods = read_pod_list(Path::new("p.csv"), input(text)).unwrap();
        assert_eq!(pods.len(), 3);
        assert_eq!((pods[0].cpu_milli, pods[0].gpus, pods[0].gpu_milli), (12000, 1, 460));
        assert_eq!((pods[1].gpus, pods[1].memory_mib), (0, 8192));
        assert_eq!(pods[2].gpu_models, ["V100M16", "V100M32"]);
        let bad = read_pod_list(Path::new("p.csv"), input("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,2,x,0\n"));
        assert_eq!(
            bad.unwrap_err().to_string(),
            "p.csv:2: column `num_gpu`: expected a whole number from 0 to 4294967295, found `x`"
        );
    }

    #[test]
    fn times_give_each_pod_its_lifetime_and_impossible_ones_are_errors() {
        let header = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time,scheduled_time\n";
        let text = format!("{header}ran,1,1,1,500,10,110,40\nnever,1,1,0,0,20,50,\nuntimed,1,1,0,0,,,\n");
        let pods = read_pod_list(Path::new("p.csv"), Box::new(text.as_bytes())).unwrap();
        let lifetimes: Vec<_> = pods.iter().map(|p| p.lifetime).collect();
        assert_eq!(
            lifetimes,
            [
                Some(Lifetime { created: 10, runs_for: 70, deleted: 110 }),
                Some(Lifetime { created: 20, runs_for: 30, deleted: 50 }),
                None
            ]
        );
        let read =
            |row: &str| read_pod_list(Path::new("p.csv"), Box::new(std::io::Cursor::new(format!("{header}{row}\n"))));
        assert_eq!(
            read("p,1,1,0,0,50,10,").unwrap_err().to_string(),
            "p.csv:2: deleted at 10 s, before its creation at 50 s"
        );
        assert_eq!(
            read("p,1,1,0,0,5,10,11").unwrap_err().to_string(),
            "p.csv:2: scheduled at 11 s, outside its life from 5 to 10 s"
        );
        assert!(read("p,1,1,0,0,-5,10,").unwrap_err().to_string().contains("column `creation_time`"));
        assert!(read("p,1,1,0,0,1.5,10,").is_err(), "whole seconds");
    }

    #[test]
    fn rows_become_pods_as_the_original_converts_them() {
        let row = |gpus, gpu_milli, models: &[&str]| PodRow {
            name: "p".into(),
            cpu_milli: 4000,
            memory_mib: 2,
            gpus,
            gpu_milli,
            gpu_models: models.iter().map(|m| m.to_string()).collect(),
            lifetime: None,
        };
        let cpu_pod = row(0, 500, &["T4"]).pod();
        assert_eq!((cpu_pod.gpus, cpu_pod.milli, cpu_pod.models.as_str(), cpu_pod.memory), (0, 0, "", 2 << 20));
        let clamped = row(1, 1500, &["V100M16", "V100M32"]).pod();
        assert_eq!((clamped.milli, clamped.is_share(), clamped.models.as_str()), (1000, false, "V100M16|V100M32"));
        assert!(clamped.accepts("V100M32") && !clamped.accepts("T4") && !clamped.accepts(""));
        assert!(row(1, 300, &[]).pod().accepts(""));
    }

    #[test]
    fn nodes_keep_their_model() {
        let text = "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0227,64000,262144,2,P100\nn2,32000,1024,0,\n";
        let nodes = read_node_list(Path::new("n.csv"), input(text)).unwrap();
        assert_eq!(
            nodes[0],
            NodeRow {
                name: "openb-node-0227".into(),
                cpu_milli: 64000,
                memory_mib: 262144,
                gpus: 2,
                model: "P100".into()
            }
        );
        assert_eq!(nodes[1].model, "");
    }
}
