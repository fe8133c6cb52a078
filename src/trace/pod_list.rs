//! Placement lists: a cluster's nodes and a workload's pods as resource requests only, every
//! row kept, no times. Alibaba's openb lists (cluster-trace-gpu-v2023, and the FGD simulator's
//! variants of them) are the format: a placement experiment offers the pods one by one to the
//! nodes, so a CPU-only pod, a never-scheduled pod or a list without time columns is as much a
//! part of it as any other (the duration reader, `formats::alibaba_2023`, drops those).
//!
//! Node list columns: `sn` (node name), `cpu_milli`, `memory_mib`, `gpu` (GPU count), `model`
//! (GPU model; empty on CPU-only nodes). Pod list columns: `name`, `cpu_milli`, `memory_mib`,
//! `num_gpu`, `gpu_milli` (milli-GPU per GPU), and optionally `gpu_spec` (GPU models the pod
//! accepts, `|`-separated); other columns (`qos`, `pod_phase`, times) are not read.

use crate::trace::TraceError;
use crate::trace::input::{Table, TableOptions};
use std::io::BufRead;
use std::path::Path;

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
    let mut pods = Vec::new();
    while let Some(row) = table.next_row()? {
        let gpu_models = spec
            .and_then(|c| row.opt_str(c))
            .map(|s| s.split('|').filter(|p| !p.is_empty()).map(str::to_string).collect())
            .unwrap_or_default();
        pods.push(PodRow {
            name: row.str(name).to_string(),
            cpu_milli: row.count(cpu)?,
            memory_mib: row.count(memory)?,
            gpus: row.count(gpus)?,
            gpu_milli: row.count(milli)?,
            gpu_models,
        });
    }
    Ok(pods)
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
