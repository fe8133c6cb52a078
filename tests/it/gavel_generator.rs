//! Gavel's job generator against the original: `tests/fixtures/gavel-generator/jobs.csv` holds the
//! first 200 jobs the original `utils.generate_job` makes, with `Scheduler.simulate`'s two
//! streams and arrivals, for four settings (provenance in the README there). Every job's type,
//! scale factor, steps, duration and arrival must be the original's to the last bit. The
//! throughput oracle comes through the data layer (`gavel-throughputs`).

use crate::common;

use blox::profiles::gavel::GavelThroughputs;
use blox::workload::gavel_generator::{Arrivals, GavelGeneratorParams, Generator, JobTable, ThroughputFile};
use common::dataset_file;
use std::path::Path;

fn oracle() -> GavelThroughputs {
    let path = dataset_file(ThroughputFile::Simulation.dataset_reference());
    GavelThroughputs::parse(&std::fs::read_to_string(&path).unwrap(), "simulation_throughputs.json").unwrap()
}

/// The fixture's settings: name, seed, jobs per hour (none: static), multi-GPU, job table.
const SETTINGS: [(&str, u64, Option<f64>, bool, JobTable); 4] = [
    ("seed0-poisson0.4-single-head", 0, Some(0.4), false, JobTable::Head),
    ("seed0-static-multi-head", 0, None, true, JobTable::Head),
    ("seed1-poisson3-multi-osdi20", 1, Some(3.0), true, JobTable::Osdi20),
    ("seed2-static-multi-osdi20", 2, None, true, JobTable::Osdi20),
];

#[test]
fn generated_jobs_match_the_original_to_the_last_bit() {
    let table = oracle();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gavel-generator/jobs.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(',').collect()).collect();
    for (name, seed, rate, multi_gpu, job_table) in SETTINGS {
        let params = GavelGeneratorParams {
            arrivals: if rate.is_some() { Arrivals::Poisson } else { Arrivals::Static },
            num_jobs: None,
            multi_gpu,
            job_table,
            throughputs: ThroughputFile::Simulation,
            label: None,
        };
        let mut generator = Generator::new(&params, seed, rate.unwrap_or(0.0), &table).unwrap();
        let want: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == name).collect();
        assert_eq!(want.len(), 200, "{name}");
        for row in want {
            let job = generator.next_job();
            let got = (job.index, job.arrival_s, job.job_type, job.scale_factor, job.steps, job.duration_s);
            let expected = (
                row[1].parse::<usize>().unwrap(),
                row[2].parse::<f64>().unwrap(),
                row[3],
                row[4].parse::<u32>().unwrap(),
                row[5].parse::<f64>().unwrap(),
                row[6].parse::<f64>().unwrap(),
            );
            assert_eq!(got, expected, "{name}");
        }
    }
}

/// The oracle as the simulator reads it (`docs/gavel-semantics.md` §1.1): six worker types, 83
/// job keys on each consolidated type, pairs only between keys of one scale factor, the table
/// symmetric, and the K80 zeros for ResNet-50 bs 128 on several GPUs.
#[test]
fn the_oracle_has_the_shape_gavel_documents() {
    let table = oracle();
    assert_eq!(
        table.worker_types(),
        ["k80", "k80_unconsolidated", "p100", "p100_unconsolidated", "v100", "v100_unconsolidated"]
    );
    let key = |t: &str, sf| blox::profiles::gavel::JobKey { job_type: t.into(), scale_factor: sf };
    assert_eq!(table.isolated("v100", &key("ResNet-18 (batch size 16)", 1)), Some(32.353384328946916));
    for sf in [2, 4, 8] {
        assert_eq!(table.isolated("k80", &key("ResNet-50 (batch size 128)", sf)), Some(0.0));
    }
    let a = key("ResNet-18 (batch size 64)", 1);
    let b = key("A3C", 1);
    let ab = table.get("v100", &a).unwrap().pairs[&b];
    let ba = table.get("v100", &b).unwrap().pairs[&a];
    assert_eq!(ab, (ba.1, ba.0), "pair rates are symmetric");
    assert!(table.get("v100", &a).unwrap().pairs.keys().all(|k| k.scale_factor == 1));
}

/// A spec with the generator runs from an empty cache: the throughput file is fetched once from
/// a mirror (built by the test from the data layer) before the runs, and the jobs are the
/// generator's (200 static multi-GPU jobs on a V100 cluster under FIFO and LAS).
#[test]
fn a_spec_with_the_generator_runs_end_to_end() {
    let mirror = common::mirror_with(&[ThroughputFile::Simulation.dataset_reference()]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "name: gavel
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
clusters: [{nodes: 16, gpus_per_node: 8, gpu: v100}]
workloads:
  - gavel-generator: {arrivals: static, num_jobs: 200, multi_gpu: true}
seeds: [0]
measure: {track: all}
",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", "s.yaml", "--out", "out", "-q"])
        .current_dir(dir.path())
        .env("BLOX_DATA_DIR", dir.path().join("cache"))
        .env("BLOX_DATA_MIRROR", mirror.path())
        .output()
        .expect("blox runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rows = blox::results::read_runs(&dir.path().join("out/gavel")).unwrap();
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!((row.info.workload.as_str(), row.summary.jobs_finished), ("gavel-static-200jobs-multigpu", 200));
    }
    // Each run's jobs are the generator's: job 0 of seed 0 (multi-GPU, c4fa400's order) is
    // ResNet-18 bs 64 on 8 GPUs for 68,344.35 s on a V100 (the fixture's first row).
    let table = oracle();
    let params = GavelGeneratorParams {
        arrivals: Arrivals::Static,
        num_jobs: None,
        multi_gpu: true,
        job_table: JobTable::Head,
        throughputs: ThroughputFile::Simulation,
        label: None,
    };
    let mut generator = Generator::new(&params, 0, 0.0, &table).unwrap();
    let want: Vec<(u64, u32, f64)> =
        (0..200).map(|_| generator.next_job()).map(|j| (j.index as u64, j.scale_factor, j.duration_s)).collect();
    assert_eq!((want[0].1, want[0].2), (8, 68344.35010595087));
    for row in &rows {
        let jobs = blox::results::read_jobs(&dir.path().join("out/gavel"), &row.info.run_key).unwrap();
        let mut got: Vec<(u64, u32, f64)> = jobs.iter().map(|j| (j.id, j.gpus, j.work)).collect();
        got.sort_by_key(|j| j.0);
        assert_eq!(got, want, "{}", row.info.label);
    }
}

/// `specs/examples/gavel-workload.yaml` runs from an empty cache: 15 runs, every measured job
/// (4000-4999) finished.
#[test]
fn the_example_spec_runs() {
    let mirror = common::mirror_with(&[ThroughputFile::Simulation.dataset_reference()]);
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("specs/examples/gavel-workload.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_blox"))
        .args(["run", spec.to_str().unwrap(), "--out", "out", "-q"])
        .current_dir(dir.path())
        .env("BLOX_DATA_DIR", dir.path().join("cache"))
        .env("BLOX_DATA_MIRROR", mirror.path())
        .output()
        .expect("blox runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = blox::results::read_runs(&dir.path().join("out/gavel-workload")).unwrap();
    assert_eq!(rows.len(), 15);
    assert!(rows.iter().all(|r| (r.summary.tracked_jobs, r.summary.tracked_finished) == (1000, 1000)));
}
