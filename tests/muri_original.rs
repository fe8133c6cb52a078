//! The Muri (SIGCOMM'22) simulator's policies on blox's event-driven engine, job for job against
//! the original simulator's `job.csv` (re-run at 4e69a78, `docs/muri-semantics.md` Appendix A):
//! every job's completion time must be the original's to the last bit. The end times are the
//! project fixtures `tests/fixtures/muri-original/<trace>.csv` (provenance in the README there);
//! the traces come through the data layer (`muri` dataset).

mod common;

use blox::core::RunOutput;
use blox::core::events::EventPolicy;
use blox::policies::events::muri::antman::Antman;
use blox::policies::events::muri::interleave::{Muri, Params4, Variant};
use blox::policies::events::muri::srtf::ShortestFirst;
use blox::policies::events::muri::tiresias::MuriTiresias;
use blox::profiles::ThroughputTable;
use common::{config, trace_run};
use std::path::Path;

/// `trace` of the `muri` dataset on the paper's cluster, 8 nodes x 8 GPUs (`n8g8.csv`); the
/// slot and the throughput table are not read by the Muri policies.
fn run(trace: &str, policy: Box<dyn EventPolicy>) -> RunOutput {
    let config = config(8, 8, 1.0, ThroughputTable::elasticflow_a100());
    trace_run(&format!("muri/simulator/{trace}.csv"), config, policy)
}

fn muri(variant: Variant, autopack: bool) -> Box<dyn EventPolicy> {
    Box::new(Muri::new(variant, Params4 { packing_num: 4, autopack, weight_lbd: 0.0 }))
}

/// Every job's end time in `out` equals the original's column `run` (its `--schedule`, with
/// ` --noautopack` when so run) of `tests/fixtures/muri-original/<trace>.csv`.
fn assert_same_ends(trace: &str, run: &str, out: &RunOutput) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/muri-original/{trace}.csv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|&h| h == run).unwrap_or_else(|| panic!("{trace}: no run `{run}`"));
    let mut rows = 0;
    let mut mismatches = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let id: u64 = fields[0].parse().unwrap();
        let want: f64 = fields[column].parse().unwrap();
        let got = out.jobs.iter().find(|r| r.id == id).and_then(|r| r.finish);
        if got != Some(want) {
            mismatches.push(format!("job {id}: got {got:?}, want {want}"));
        }
        rows += 1;
    }
    assert_eq!(rows, out.jobs.len(), "{trace} {run}: every job completes in both");
    assert!(
        mismatches.is_empty(),
        "{trace} {run}: {} of {rows} end times differ:\n{}",
        mismatches.len(),
        mismatches.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn srtf_matches_the_original_shortest() {
    for trace in ["trace3", "trace3_pr", "trace1", "job_type_1"] {
        assert_same_ends(trace, "shortest", &run(trace, Box::new(ShortestFirst::new(false))));
    }
}

#[test]
fn srsf_matches_the_original_shortest_gpu() {
    for trace in ["trace3", "trace1"] {
        assert_same_ends(trace, "shortest-gpu", &run(trace, Box::new(ShortestFirst::new(true))));
    }
}

#[test]
fn tiresias_matches_the_original_dlas_gpu() {
    for trace in ["trace3", "trace3_pr", "job_type_1"] {
        assert_same_ends(trace, "dlas-gpu", &run(trace, Box::new(MuriTiresias::new())));
    }
}

#[test]
fn antman_matches_the_original() {
    for trace in ["trace3", "trace3_pr", "trace1"] {
        assert_same_ends(trace, "antman", &run(trace, Box::new(Antman::default())));
    }
}

#[test]
fn muri_s_matches_the_original_with_and_without_autopack() {
    let name = "multi-resource-blossom-same-gpu";
    assert_same_ends("trace3", name, &run("trace3", muri(Variant::MURI_S, true)));
    assert_same_ends("trace3", &format!("{name} --noautopack"), &run("trace3", muri(Variant::MURI_S, false)));
}

#[test]
fn muri_l_matches_the_original_with_and_without_autopack() {
    let name = "multi-resource-blossom-same-gpu-unaware";
    for trace in ["trace3", "job_type_1"] {
        assert_same_ends(trace, name, &run(trace, muri(Variant::MURI_L, true)));
        assert_same_ends(trace, &format!("{name} --noautopack"), &run(trace, muri(Variant::MURI_L, false)));
    }
}

#[test]
fn the_ablations_match_the_original_with_and_without_autopack() {
    for (name, variant) in [
        ("multi-resource-blossom-same-gpu-unaware-worstordering", Variant::WORST_ORDERING),
        ("multi-resource-gpu-unaware", Variant::WITHOUT_BLOSSOM),
    ] {
        assert_same_ends("trace3", name, &run("trace3", muri(variant, true)));
        assert_same_ends("trace3", &format!("{name} --noautopack"), &run("trace3", muri(variant, false)));
    }
}
