//! ElasticFlow's (ASPLOS'23) `gandiva` baseline on blox's event-driven engine, job for job
//! against the original simulator's `job.csv` (the re-run's fixtures in
//! `tests/fixtures/elasticflow-original/`; the Figure 10 one has the same rows as the paper's own
//! `artifact/logs_figure10/gandiva`, fetched through the data layer;
//! `docs/elasticflow-semantics.md` §9).

use crate::common;

use blox::core::RunOutput;
use blox::policies::events::gandiva::Gandiva;
use blox::profiles::ThroughputTable;
use common::{Log, compare_jobs, config, figure_8a_run, figure_10_run, head_log, paper_log, trace_run};

/// Every row of `log` (`rows` of them) against `out`: GPUs, start, end, deadline met, no
/// preemption. Gandiva's original sets `pending_time` only for jobs that started from the waiting
/// list (0 for jobs placed on arrival, even when their arrival was coalesced later), so a nonzero
/// one must equal start minus submission.
fn compare_rows(log: &Log, rows: usize, out: &RunOutput) {
    compare_jobs(log, rows, out, |row, r| {
        let (id, gpus, preempt) = (row.id(), row.int("num_gpu"), row.int("preempt"));
        let [submit, start, end, ddl, pending] =
            ["submit_time", "start_time", "end_time", "ddl", "pending_time"].map(|c| row.num(c));
        assert_eq!(r.arrival, submit, "job {id}");
        assert!(pending == 0.0 || pending == start - submit, "job {id}: pending {pending}");
        let got = (r.final_gpus, r.first_start, r.finish, r.met_deadline, r.preemptions);
        (got, (Some(gpus), Some(start), Some(end), Some(end <= ddl), preempt))
    });
}

#[test]
fn gandiva_matches_figure_10_job_for_job() {
    let out = figure_10_run(Box::<Gandiva>::default());
    compare_rows(&head_log("fig10_head", "gandiva"), 100, &out);
    let d = out.summary.deadlines;
    assert_eq!((d.accepted, d.declined, d.deadline_ratio), (79, 21, Some(0.79)));
}

/// The paper's own Figure 10 log is the same file: the gandiva code did not change after it.
#[test]
fn gandiva_matches_the_papers_figure_10_log() {
    compare_rows(&paper_log("gandiva"), 100, &figure_10_run(Box::<Gandiva>::default()));
}

#[test]
fn gandiva_matches_figure_8a_job_for_job() {
    let out = figure_8a_run(Box::<Gandiva>::default());
    compare_rows(&head_log("fig8a_head", "gandiva"), 195, &out);
    let d = out.summary.deadlines;
    assert_eq!((d.accepted, d.declined), (18, 177));
}

/// The dataset trace `trace` (`DATASET/PATH`) on `nodes` x `gpn` A100 with `slot`: (accepted,
/// declined).
fn ratio_run(trace: &str, nodes: u32, gpn: u32, slot: f64) -> (u64, u64) {
    let config = config(nodes, gpn, slot, ThroughputTable::elasticflow_a100());
    let out = trace_run(trace, config, Box::<Gandiva>::default());
    (out.summary.deadlines.accepted, out.summary.deadlines.declined)
}

/// The other runs of the original at HEAD (`docs/elasticflow-semantics.md` §14; no per-job logs
/// kept).
#[test]
fn gandiva_matches_the_other_recorded_ratios() {
    assert_eq!(ratio_run("elasticflow-artifact/artifact/traces/resnet_cifar_trace.csv", 1, 8, 240.0), (3, 2));
    assert_eq!(ratio_run("elasticflow-traces/itp-generated/195job.csv", 16, 8, 240.0), (47, 148));
    assert_eq!(ratio_run("elasticflow-traces/itp-generated/cluster10.csv", 32, 8, 60.0), (86, 174));
    assert_eq!(ratio_run("elasticflow-artifact/artifact/traces/philly_103959.csv", 32, 8, 60.0), (362, 514));
}
