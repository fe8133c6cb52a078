//! `shares`: GPUs shared in milli-GPU by jobs that ask for a fraction of one (Alibaba's
//! `gpu_milli`, carried by traces as [`crate::core::JobSpec::gpu_milli`]), so that such traces
//! run on the round engine as they asked instead of each share taking a whole GPU.
//!
//! Rule: Blox's priority walk ([`super::priority_walk`]: running jobs keep their GPUs; a waiting
//! job that does not fit preempts running jobs from the lowest priority upwards, only below
//! itself; one that still does not fit ends the walk), with these GPUs. A job asking for a
//! share of each of its GPUs takes, for each, the GPU of a model it accepts with the least free
//! milli that still fits the share (a used GPU before a free one, lowest id on ties: the
//! binpacking device choice of Alibaba's GPU-share scheduler, which FGD's `best` selection also
//! follows, `docs/fgd-semantics.md` §4.5); a job asking for whole GPUs takes free GPUs of models
//! it accepts in node order, as `scattered` does. Shares run at full speed: the traces' durations
//! were measured on shared GPUs, and no interference model is assumed.
//! Source: blox's own (no seed simulator shares GPUs in fractions on a clock).

use super::priority_walk::{GpuChooser, PriorityWalk};
use crate::core::{Cluster, GpuId, JobSlot, JobSpec, JobTable, MILLI_PER_GPU, Placement, PlacementDecisions};
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "shares",
    kind: Kind::Placement,
    engine: Engine::Rounds,
    summary: "fractional requests share GPUs in milli (fullest GPU that fits), whole ones take free GPUs; preempting like scattered",
    options: &[],
    source: "blox's own: the binpacking device choice of Alibaba's GPU-share scheduler on Blox's priority walk",
    placement: None,
    parse: &|node| without_options(node, || Built::Placement(Box::new(Shares::default()))),
};

#[derive(Default)]
pub struct Shares {
    walk: PriorityWalk,
}

struct FullestThatFits;

impl GpuChooser for FullestThatFits {
    fn choose(&self, cluster: &Cluster, job: &JobSpec, out: &mut Vec<GpuId>) -> bool {
        out.clear();
        let needed = job.gpus as usize;
        let accepts = |gpu: GpuId| job.accepts_model(&cluster.spec().nodes[cluster.node_of(gpu)].gpu_type);
        match job.gpu_milli {
            Some(milli) => {
                let mut fitting: Vec<(u32, GpuId)> = (0..cluster.total_gpus())
                    .filter(|&g| accepts(g))
                    .map(|g| (cluster.free_milli(g), g))
                    .filter(|&(free, _)| free >= milli)
                    .collect();
                if fitting.len() < needed {
                    return false;
                }
                fitting.sort_unstable();
                out.extend(fitting.iter().take(needed).map(|&(_, g)| g));
            }
            None => {
                let free = (0..cluster.total_gpus()).filter(|&g| cluster.free_milli(g) == MILLI_PER_GPU && accepts(g));
                out.extend(free.take(needed));
                if out.len() < needed {
                    out.clear();
                    return false;
                }
            }
        }
        true
    }
}

impl Placement for Shares {
    fn place(&mut self, jobs: &JobTable, order: &[JobSlot], cluster: &mut Cluster, decisions: &mut PlacementDecisions) {
        self.walk.place(&FullestThatFits, jobs, order, cluster, decisions);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{ActiveJob, ClusterSpec, GpuType, NodeSpec};

    fn job(id: u64, gpus: u32, milli: Option<u32>) -> ActiveJob {
        let spec = JobSpec { id, gpus, gpu_milli: milli, work: 100.0, ..JobSpec::default() };
        ActiveJob::admitted(spec, 0.0, 60.0)
    }

    fn place(cluster: &mut Cluster, table: &mut JobTable, jobs: Vec<ActiveJob>) -> PlacementDecisions {
        let order: Vec<JobSlot> = jobs.into_iter().map(|j| table.insert(j)).collect();
        let mut decisions = PlacementDecisions::default();
        Shares::default().place(table, &order, cluster, &mut decisions);
        decisions
    }

    fn launched(decisions: &PlacementDecisions) -> Vec<Vec<GpuId>> {
        decisions.launch.iter().map(|l| l.gpus.clone()).collect()
    }

    #[test]
    fn shares_fill_the_fullest_gpu_that_fits_and_whole_jobs_take_free_ones() {
        let mut cluster = Cluster::new(ClusterSpec::uniform(1, 3));
        let mut table = JobTable::default();
        let jobs = vec![job(0, 1, Some(600)), job(1, 1, Some(300)), job(2, 1, None), job(3, 1, Some(500))];
        let decisions = place(&mut cluster, &mut table, jobs);
        // 600 on GPU 0; 300 joins it (400 free is the fullest that fits); the whole job takes GPU
        // 1; 500 fits neither GPU 0 (100 free) nor GPU 1 (held): GPU 2.
        assert_eq!(launched(&decisions), [vec![0], vec![0], vec![1], vec![2]]);
        assert_eq!((cluster.free_milli(0), cluster.free_milli(1), cluster.free_milli(2)), (100, 0, 500));
        assert_eq!(cluster.free_gpus(), 0, "a GPU with any share in use is not free");
    }

    #[test]
    fn a_share_that_fits_nowhere_preempts_the_lowest_priority_job_below_it() {
        let mut cluster = Cluster::new(ClusterSpec::uniform(1, 1));
        let mut table = JobTable::default();
        let low = table.insert(job(0, 1, Some(700)));
        let mut decisions = PlacementDecisions::default();
        Shares::default().place(&table, &[low], &mut cluster, &mut decisions);
        table[low].gpus = decisions.launch[0].gpus.clone();
        assert!(table[low].is_running());
        let high = table.insert(job(1, 1, Some(500)));
        let mut decisions = PlacementDecisions::default();
        Shares::default().place(&table, &[high, low], &mut cluster, &mut decisions);
        assert_eq!(decisions.preempt, [low]);
        assert_eq!(launched(&decisions), [vec![0]], "the high-priority share; the 700 no longer fits beside it");
        assert_eq!(cluster.free_milli(0), 500);
    }

    #[test]
    fn a_job_takes_only_gpus_of_a_model_it_accepts() {
        let spec = ClusterSpec {
            nodes: vec![
                NodeSpec { gpu_type: GpuType::new("t4"), ..NodeSpec::with_gpus(1) },
                NodeSpec { gpu_type: GpuType::new("v100"), ..NodeSpec::with_gpus(1) },
            ],
        };
        let mut cluster = Cluster::new(spec);
        let mut table = JobTable::default();
        let v100 = |id, milli| {
            let mut j = job(id, 1, milli);
            j.spec.gpu_models = vec![GpuType::new("v100")];
            j
        };
        let decisions = place(&mut cluster, &mut table, vec![v100(0, Some(400)), v100(1, None), v100(2, Some(500))]);
        // The whole-GPU job finds the only V100 shared and waits, which ends the walk.
        assert_eq!(launched(&decisions), [vec![1]]);
        assert_eq!(cluster.free_milli(0), MILLI_PER_GPU, "the T4 stays free");
    }
}
