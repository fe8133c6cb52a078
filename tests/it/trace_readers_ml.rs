//! The ML-scheduler trace readers (ElasticFlow, Tiresias, Muri, Gavel, Pollux/Sia, Synergy) on the
//! real public files (registry datasets, fetched through the data layer as a user does), checked
//! against statistics computed from the same public files when the readers were written (the
//! "recorded statistics" below: per file the job count, GPU mix, duration quantiles by linear
//! interpolation, arrival span and a few means).
//!
//! The recorded statistics round durations to whole seconds and spans to 0.1 h; the checks allow that much.

use crate::common;

use blox::trace::stats::TraceStats;
use blox::trace::{Trace, TraceFormat, read_trace};
use common::{dataset_file, dataset_file_unless_mirror_only, dataset_files, figure_10_csv, figure_10_trace_file};
use std::path::Path;

/// Reads the dataset file `p` (`DATASET/PATH`) with its format detected, checks the format and
/// that every row became a job.
fn read(p: &str, format: TraceFormat) -> Trace {
    read_path(&dataset_file(p), p, format)
}

/// [`read`] of a local file; `p` names it in messages.
fn read_path(path: &Path, p: &str, format: TraceFormat) -> Trace {
    let trace = read_trace(path, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(trace.format, format, "{p}");
    assert_eq!(trace.report.total_dropped(), 0, "{p}");
    assert_eq!(trace.report.rows_read, trace.jobs.len() as u64, "{p}");
    trace
}

/// What recorded about a file's durations.
#[derive(Debug, Clone, Copy)]
enum Durations {
    /// The format has none.
    Absent,
    /// The file has them; no quantiles were recorded.
    Unlisted,
    /// p10, p50, p90, p99 in seconds.
    Quantiles([f64; 4]),
}

/// (GPUs, jobs), ascending.
type Mix = &'static [(u32, u64)];

/// One row of the recorded statistics.
struct Expected {
    rows: u64,
    mix: Mix,
    durations: Durations,
    /// Last minus first arrival, in hours.
    span_h: Option<f64>,
}

/// Reads `p` and checks its statistics.
fn check(p: &str, format: TraceFormat, expected: &Expected) -> (Trace, TraceStats) {
    check_trace(p, read(p, format), expected)
}

/// Checks the statistics of `trace` (read from `p`).
fn check_trace(p: &str, trace: Trace, expected: &Expected) -> (Trace, TraceStats) {
    let stats = TraceStats::of(&trace.jobs, None);
    check_stats(p, &stats, expected);
    (trace, stats)
}

fn check_stats(p: &str, stats: &TraceStats, expected: &Expected) {
    assert_eq!(stats.jobs, expected.rows, "{p}: rows");
    let mix: Vec<(u32, u64)> = stats.gpu_mix.iter().map(|(&g, &n)| (g, n)).collect();
    assert_eq!(mix, expected.mix, "{p}: GPU mix");
    match (expected.durations, &stats.duration_s) {
        (Durations::Quantiles(q), Some(d)) => {
            let got = [d.p10, d.p50, d.p90, d.p99];
            for (name, (got, want)) in ["p10", "p50", "p90", "p99"].iter().zip(got.iter().zip(q)) {
                assert!((got - want).abs() <= 1.0, "{p}: duration {name} {got} s, recorded {want} s");
            }
        }
        (Durations::Absent, None) | (Durations::Unlisted, Some(_)) => {}
        (want, got) => panic!("{p}: durations {got:?}, recorded {want:?}"),
    }
    if let Some(span) = expected.span_h {
        let got = (stats.last_submit_s - stats.first_submit_s) / 3600.0;
        assert!((got - span).abs() <= 0.05 + 1e-9, "{p}: arrival span {got} h, recorded {span} h");
    }
}

/// Mean duration (s), mean GPUs and the GPU-time share of jobs with >= 8 GPUs, as recorded.
fn check_aggregates(p: &str, stats: &TraceStats, mean_duration: f64, mean_gpus: f64, share_8_plus: f64) {
    let mean = stats.duration_s.as_ref().map(|d| d.mean).unwrap_or(f64::NAN);
    assert!((mean - mean_duration).abs() <= 1.0, "{p}: mean duration {mean} s, recorded {mean_duration} s");
    assert!((stats.mean_gpus - mean_gpus).abs() <= 0.005, "{p}: mean GPUs {}, recorded {mean_gpus}", stats.mean_gpus);
    let share = stats.gpu_time_share_8_plus.unwrap_or(f64::NAN);
    assert!(
        (share - share_8_plus).abs() <= 0.0005,
        "{p}: GPU-time share of >= 8 GPUs {share}, recorded {share_8_plus}"
    );
}

const MURI_TRACE3_MIX: Mix = &[(1, 134), (2, 22), (4, 34), (8, 691), (16, 3), (32, 108)];

#[test]
fn muri_traces_match_their_recorded_statistics() {
    let trace3 = Expected {
        rows: 992,
        mix: MURI_TRACE3_MIX,
        durations: Durations::Quantiles([51.0, 3392.0, 189277.0, 314149.0]),
        span_h: Some(2268.3),
    };
    let cases = [
        (
            "muri/simulator/trace1.csv",
            Expected {
                rows: 1494,
                mix: &[(1, 536), (2, 5), (4, 423), (8, 465), (16, 40), (32, 25)],
                durations: Durations::Quantiles([141.0, 14392.0, 655807.0, 2658340.0]),
                span_h: Some(3004.9),
            },
            (250452.0, 4.95, 0.773),
        ),
        (
            "muri/simulator/trace2.csv",
            Expected {
                rows: 5755,
                mix: &[(1, 2335), (2, 171), (4, 937), (8, 1825), (16, 424), (32, 63)],
                durations: Durations::Quantiles([40.0, 8653.0, 237948.0, 1423796.0]),
                span_h: Some(2381.2),
            },
            (99986.0, 5.18, 0.850),
        ),
        ("muri/simulator/trace3.csv", trace3, (46865.0, 9.42, 0.965)),
        (
            "muri/simulator/trace4.csv",
            Expected {
                rows: 2638,
                mix: &[(1, 1680), (2, 265), (4, 611), (8, 82)],
                durations: Durations::Quantiles([157.0, 3318.0, 365815.0, 984508.0]),
                span_h: Some(2045.5),
            },
            (119336.0, 2.01, 0.067),
        ),
        (
            "muri/cluster_exp/cluster_trace.csv",
            Expected {
                rows: 400,
                mix: &[(1, 36), (2, 15), (4, 19), (8, 287), (16, 3), (32, 40)],
                durations: Durations::Quantiles([48.0, 2224.0, 203986.0, 306371.0]),
                span_h: Some(651.3),
            },
            (57153.0, 9.41, 0.996),
        ),
    ];
    for (p, expected, (mean, gpus, share)) in cases {
        let (_, stats) = check(p, TraceFormat::Muri, &expected);
        check_aggregates(p, &stats, mean, gpus, share);
    }
}

#[test]
fn muri_variants_keep_the_jobs_of_their_base_trace() {
    // job_type_1..4: trace3's jobs with 2, 4, 6, 8 model types; sizes and durations unchanged.
    let base = TraceStats::of(&read("muri/simulator/trace3.csv", TraceFormat::Muri).jobs, None);
    for n in 1..=4 {
        let p = format!("muri/simulator/job_type_{n}.csv");
        let stats = TraceStats::of(&read(&p, TraceFormat::Muri).jobs, None);
        assert_eq!(
            (stats.jobs, &stats.gpu_mix, &stats.duration_s),
            (base.jobs, &base.gpu_mix, &base.duration_s),
            "{p}"
        );
        assert_eq!((stats.first_submit_s, stats.last_submit_s), (base.first_submit_s, base.last_submit_s), "{p}");
        assert_eq!(stats.models.len(), 2 * n, "{p}: model types");
    }
    // traceN_pr: the same jobs, all submitted at 0.
    for n in 1..=4 {
        let original = read(&format!("muri/simulator/trace{n}.csv"), TraceFormat::Muri);
        let pr = read(&format!("muri/simulator/trace{n}_pr.csv"), TraceFormat::Muri);
        assert_eq!(pr.jobs.len(), original.jobs.len());
        assert!(pr.jobs.iter().all(|j| j.submit_s == 0.0), "trace{n}_pr");
    }
}

#[test]
fn muri_jobs_carry_stage_times_in_seconds() {
    let trace = read("muri/cluster_exp/cluster_trace.csv", TraceFormat::Muri);
    // First row: 0,8,0,10956,gpt2,4,5095000,91000,437,0.6,419,49,0
    let job = trace.jobs.iter().find(|j| j.source_id == "0").unwrap();
    assert_eq!((job.gpus, job.duration_s, job.iterations, job.batch_size), (8, Some(5095.0), Some(10956.0), Some(4)));
    let stages = job.stages.unwrap();
    assert_eq!((stages.iteration_s, stages.gpu_s, stages.network_s), (0.437, 0.419, 0.049));
    assert!((stages.storage_cpu_s - 0.0006).abs() < 1e-12);
    assert!(trace.jobs.iter().all(|j| j.stages.is_some_and(|s| j.gpus > 1 || s.network_s == 0.0)));
}

#[test]
fn every_muri_simulator_file_reads() {
    let mut traces = 0;
    for (file, path) in dataset_files("muri", "simulator/") {
        let name = file.trim_start_matches("simulator/").to_string();
        if name.starts_with("cluster_spec") {
            let err = read_trace(&path, None).unwrap_err().to_string();
            assert!(err.contains("a cluster spec"), "{err}");
            continue;
        }
        let trace = read_trace(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.format, TraceFormat::Muri, "{name}");
        let rows = match name.trim_end_matches(".csv").trim_end_matches("_pr") {
            "trace1" => 1494,
            "trace2" => 5755,
            "trace4" => 2638,
            _ => 992, // trace3 and job_type_1..4
        };
        assert_eq!((trace.report.rows_read, trace.jobs.len()), (rows, rows as usize), "{name}");
        traces += 1;
    }
    assert_eq!(traces, 12);
}

const GAVEL_MSR: [(&str, u64, Mix, f64); 15] = [
    ("0e4a51", 1181, &[(1, 436), (2, 226), (4, 451), (8, 68)], 2045.5),
    ("103959", 986, &[(1, 500), (2, 40), (4, 446)], 2197.4),
    ("11cb48", 2000, &[(1, 1559), (2, 81), (4, 257), (8, 23), (16, 69), (24, 2), (32, 8), (64, 1)], 2444.2),
    ("23dbec", 9, &[(1, 2), (8, 7)], 52.2),
    ("2869ce", 533, &[(1, 65), (2, 6), (4, 11), (8, 379), (16, 2), (32, 70)], 2261.4),
    ("51b7ef", 18, &[(1, 3), (4, 2), (8, 13)], 839.5),
    ("6214e9", 2000, &[(1, 1928), (2, 27), (4, 32), (8, 13)], 1162.2),
    ("6c71a0", 2000, &[(1, 1798), (2, 6), (4, 41), (8, 150), (16, 4), (32, 1)], 719.7),
    ("795a4c", 3, &[(1, 3)], 0.9),
    ("7f04ca", 972, &[(1, 394), (2, 2), (4, 234), (8, 311), (16, 24), (32, 7)], 3004.9),
    ("925e2b", 4, &[(1, 1), (8, 3)], 3.4),
    ("b436b2", 2000, &[(1, 1632), (2, 23), (4, 133), (8, 172), (16, 39), (24, 1)], 756.2),
    ("e13805", 607, &[(1, 233), (2, 5), (4, 116), (8, 234), (12, 6), (16, 11), (24, 2)], 2352.4),
    ("ed69ec", 951, &[(1, 951)], 1821.0),
    ("ee9e8c", 2000, &[(1, 975), (2, 47), (4, 321), (7, 2), (8, 543), (16, 106), (20, 1), (32, 5)], 1252.3),
];

#[test]
fn gavel_msr_traces_match_their_recorded_statistics() {
    for (vc, rows, mix, span_h) in GAVEL_MSR {
        let p = format!("gavel-traces/traces_msr_seed0/{vc}.trace");
        let (_, stats) =
            check(&p, TraceFormat::Gavel, &Expected { rows, mix, durations: Durations::Absent, span_h: Some(span_h) });
        assert_eq!(stats.jobs_with_iterations, rows, "{p}");
    }
}

#[test]
fn every_gavel_msr_file_reads() {
    let mut traces = 0;
    for (file, path) in dataset_files("gavel-traces", "traces_msr_seed0/") {
        let Some(vc) = file.trim_start_matches("traces_msr_seed0/").strip_suffix(".trace").map(str::to_string) else {
            continue; // cluster_specs*.json
        };
        let trace = read_trace(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.format, TraceFormat::Gavel, "{vc}");
        let (_, rows, _, _) = GAVEL_MSR.iter().find(|(name, ..)| *name == vc).unwrap();
        assert_eq!((trace.report.rows_read, trace.jobs.len() as u64), (*rows, *rows), "{vc}");
        traces += 1;
    }
    assert_eq!(traces, GAVEL_MSR.len());
}

/// The job type stays whole (Gavel's throughput table is keyed by it); the batch size is read
/// from it too.
#[test]
fn gavel_job_types_stay_whole_with_their_batch_size() {
    // First row: Transformer (batch size 128) ... -step 1 95121 0.000000 1
    let trace = read("gavel-traces/traces_msr_seed0/0e4a51.trace", TraceFormat::Gavel);
    let job = trace.jobs.iter().find(|j| j.source_id == "0").unwrap();
    assert_eq!(
        (job.model.as_deref(), job.batch_size, job.iterations),
        (Some("Transformer (batch size 128)"), Some(128), Some(95121.0))
    );
    assert_eq!((job.submit_s, job.gpus, job.duration_s), (0.0, 1, None));
    let bare: Vec<_> = trace.jobs.iter().filter(|j| matches!(j.model.as_deref(), Some("A3C" | "CycleGAN"))).collect();
    assert!(!bare.is_empty() && bare.iter().all(|j| j.batch_size.is_none()));
    let batched = |m: &str| m.ends_with(')') && m.contains(" (batch size ");
    assert!(trace.jobs.iter().all(|j| j.batch_size.is_some() == j.model.as_deref().is_some_and(batched)));
}

#[test]
fn gavel_physical_cluster_traces_match_their_recorded_statistics() {
    let cases = [
        (
            "artifact_evaluation",
            Expected { rows: 15, mix: &[(1, 12), (2, 3)], durations: Durations::Absent, span_h: Some(0.0) },
        ),
        (
            "max_min_fairness",
            Expected { rows: 96, mix: &[(1, 59), (2, 19), (4, 18)], durations: Durations::Absent, span_h: Some(12.9) },
        ),
        (
            "minimize_makespan",
            Expected { rows: 100, mix: &[(1, 71), (2, 6), (4, 23)], durations: Durations::Absent, span_h: Some(0.0) },
        ),
    ];
    for (name, expected) in cases {
        check(&format!("gavel-traces/traces_physical_cluster/{name}.trace"), TraceFormat::Gavel, &expected);
    }
    // The debug and test traces (no statistics recorded): every row reads.
    for (name, rows) in [("debug", 14), ("debug_v2", 14), ("highmem_test", 8), ("medium_test", 20), ("small_test", 20)]
    {
        let trace = read(&format!("gavel-traces/traces_physical_cluster/{name}.trace"), TraceFormat::Gavel);
        assert_eq!(trace.jobs.len(), rows, "{name}");
    }
}

/// The CSV conversion of Gavel's pickle: only a mirror has it (`Origin::MirrorOnly`), so without
/// one this says on stderr that it is skipped.
#[test]
fn gavel_philly_distribution_matches_its_recorded_statistics() {
    let p = "gavel-throughputs/philly_job_distribution.csv";
    let Some(path) = dataset_file_unless_mirror_only(p, "gavel_philly_distribution_matches_its_recorded_statistics")
    else {
        return;
    };
    let (_, stats) = check_trace(
        p,
        read_path(&path, p, TraceFormat::GavelPhillySizes),
        &Expected {
            rows: 33192,
            mix: &[(1, 25304), (2, 665), (4, 3076), (8, 4147)],
            durations: Durations::Quantiles([4566.0, 14398.0, 250311.0, 1975459.0]),
            span_h: Some(0.0),
        },
    );
    check_aggregates(p, &stats, 117550.0, 2.17, 0.594);
    assert_eq!(stats.arrivals_per_hour, None);
}

#[test]
fn pollux_and_sia_workloads_match_their_recorded_statistics() {
    let (_, pollux) = check(
        "pollux-workloads/pollux_workloads/workload-1.csv",
        TraceFormat::Pollux,
        &Expected {
            rows: 160,
            mix: &[(1, 68), (4, 3), (6, 22), (8, 18), (12, 26), (16, 19), (24, 1), (32, 3)],
            durations: Durations::Absent,
            span_h: Some(7.7),
        },
    );
    let (_, sia) = check(
        "sia-saturn-workloads/sia_saturn_workloads/workload-1.csv",
        TraceFormat::Pollux,
        &Expected {
            rows: 160,
            mix: &[(4, 22), (6, 30), (8, 25), (10, 21), (12, 38), (14, 1), (16, 23)],
            durations: Durations::Absent,
            span_h: Some(7.7),
        },
    );
    for stats in [pollux, sia] {
        assert_eq!(stats.models.iter().map(|m| m.jobs).sum::<u64>(), 160);
    }
    for n in 1..=8 {
        assert_eq!(
            read(&format!("pollux-workloads/pollux_workloads/workload-{n}.csv"), TraceFormat::Pollux).jobs.len(),
            160
        );
    }
    for n in 1..=10 {
        let p = format!("sia-saturn-workloads/sia_saturn_workloads/workload-{n}.csv");
        assert_eq!(read(&p, TraceFormat::Pollux).jobs.len(), 160);
    }
}

#[test]
fn elasticflow_generated_trace_matches_its_recorded_statistics() {
    // Recorded: 100 jobs, last arrival 175,378 s, sum of durations 5,100,072 s,
    // 203 requested GPUs (1:83, 2:2, 4:3, 8:11, 16:1).
    // Only a mirror has the file; without one, blox's generator output verified against its pin.
    let p = "elasticflow-artifact/artifact/generated/100jobs_1500lam.csv";
    let file = figure_10_trace_file(&figure_10_csv());
    let (trace, stats) = check_trace(
        p,
        read_path(&file.path, p, TraceFormat::Elasticflow),
        &Expected {
            rows: 100,
            mix: &[(1, 83), (2, 2), (4, 3), (8, 11), (16, 1)],
            durations: Durations::Unlisted,
            span_h: None,
        },
    );
    assert_eq!(trace.jobs.iter().map(|j| j.gpus).sum::<u32>(), 203);
    assert_eq!(trace.jobs.iter().filter_map(|j| j.duration_s).sum::<f64>(), 5_100_072.0);
    assert_eq!((stats.first_submit_s, stats.last_submit_s), (0.0, 175_378.0));
    // No best-effort jobs: every job has its deadline.
    assert_eq!((stats.best_effort_jobs, stats.jobs_with_deadline, stats.jobs_with_iterations), (0, 100, 100));
}

#[test]
fn elasticflow_artifact_traces_match_their_recorded_statistics() {
    // 195job.csv and elasticVpollux_e.csv: the same 195-job testbed set, 3,715,485..3,887,530 s.
    let testbed = || Expected {
        rows: 195,
        mix: &[(1, 118), (2, 1), (4, 45), (8, 28), (16, 3)],
        durations: Durations::Unlisted,
        span_h: Some(47.8),
    };
    for p in
        ["elasticflow-traces/itp-generated/195job.csv", "elasticflow-artifact/artifact/traces/elasticVpollux_e.csv"]
    {
        let (trace, stats) = check(p, TraceFormat::Elasticflow, &testbed());
        assert_eq!((stats.first_submit_s, stats.last_submit_s), (3_715_485.0, 3_887_530.0), "{p}");
        assert!(trace.jobs.iter().all(|j| j.deadline_s.is_some() && j.best_effort.is_none()), "{p}");
    }
    let philly = read("elasticflow-artifact/artifact/traces/philly_103959.csv", TraceFormat::Elasticflow);
    assert_eq!(philly.jobs.len(), 876);
    assert_eq!(
        read("elasticflow-artifact/artifact/traces/resnet_cifar_trace.csv", TraceFormat::Elasticflow).jobs.len(),
        5
    );
}

/// itp-generated/clusterNN.csv hold the same jobs (ids, submissions, durations, GPUs) as the raw
/// ITP traces whose statistics were recorded, plus models and deadlines.
const ITP_CLUSTERS: [(&str, u64, Mix, [f64; 4], f64); 10] = [
    (
        "01",
        1595,
        &[(1, 1530), (2, 11), (4, 6), (8, 5), (16, 6), (32, 11), (64, 26)],
        [3929.0, 8287.0, 29917.0, 52940.0],
        810.1,
    ),
    (
        "02",
        5778,
        &[(1, 4937), (2, 102), (4, 301), (8, 352), (16, 36), (32, 36), (64, 14)],
        [1011.0, 6182.0, 56615.0, 220013.0],
        1433.7,
    ),
    (
        "03",
        3011,
        &[(1, 1014), (2, 85), (8, 1777), (16, 94), (32, 24), (64, 17)],
        [1557.0, 9856.0, 55108.0, 183639.0],
        1184.3,
    ),
    (
        "04",
        15802,
        &[(1, 11924), (2, 125), (4, 532), (8, 2779), (16, 182), (32, 254), (64, 6)],
        [1349.0, 7949.0, 29001.0, 257688.0],
        1426.9,
    ),
    ("05", 3629, &[(1, 3465), (2, 50), (4, 37), (8, 77)], [1003.0, 7699.0, 16586.0, 59785.0], 1422.3),
    (
        "06",
        2396,
        &[(1, 1073), (2, 6), (4, 148), (8, 1082), (16, 59), (32, 20), (64, 8)],
        [814.0, 4320.0, 54300.0, 288586.0],
        1431.1,
    ),
    ("07", 12699, &[(1, 9854), (2, 836), (4, 1071), (8, 936), (16, 2)], [1803.0, 7399.0, 55216.0, 392448.0], 1426.6),
    ("08", 13047, &[(1, 12558), (2, 217), (4, 262), (8, 1), (32, 9)], [929.0, 13677.0, 28659.0, 56994.0], 1017.6),
    ("09", 11134, &[(1, 11134)], [1776.0, 11764.0, 23033.0, 26105.0], 1258.7),
    ("10", 260, &[(1, 193), (2, 51), (4, 14), (16, 2)], [863.0, 17761.0, 68254.0, 129550.0], 788.3),
];

#[test]
fn elasticflow_itp_generated_clusters_match_their_recorded_statistics() {
    let mut all = Vec::new();
    for (n, rows, mix, durations, span_h) in ITP_CLUSTERS {
        let p = format!("elasticflow-traces/itp-generated/cluster{n}.csv");
        let expected = Expected { rows, mix, durations: Durations::Quantiles(durations), span_h: Some(span_h) };
        all.extend(check(&p, TraceFormat::Elasticflow, &expected).0.jobs);
    }
    check_stats(
        "elasticflow-traces/itp-generated/cluster01..10.csv",
        &TraceStats::of(&all, None),
        &Expected {
            rows: 69351,
            mix: &[(1, 57682), (2, 1483), (4, 2371), (8, 7009), (16, 381), (32, 354), (64, 71)],
            durations: Durations::Quantiles([1342.0, 10537.0, 28787.0, 210110.0]),
            span_h: None,
        },
    );
}

#[test]
fn every_itp_generated_file_reads() {
    let mut traces = 0;
    for (file, path) in dataset_files("elasticflow-traces", "itp-generated/") {
        let name = file.trim_start_matches("itp-generated/").to_string();
        let Some(stem) = name.strip_suffix(".csv") else { continue }; // LICENSE
        let trace = read_trace(&path, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trace.format, TraceFormat::Elasticflow, "{name}");
        let rows = match stem.strip_prefix("cluster") {
            Some(n) => ITP_CLUSTERS.iter().find(|c| c.0 == n).unwrap().1,
            None => 195,
        };
        assert_eq!((trace.report.rows_read, trace.jobs.len() as u64), (rows, rows), "{name}");
        assert!(trace.jobs.iter().all(|j| j.model.is_some() && j.deadline_s.is_some() && j.iterations.is_some()));
        traces += 1;
    }
    assert_eq!(traces, 11);
}

#[test]
fn tiresias_and_synergy_files_read() {
    let sixty = read("tiresias/60_job.csv", TraceFormat::Tiresias);
    assert_eq!(sixty.jobs.len(), 60);
    assert!(sixty.jobs.iter().all(|j| j.duration_s.is_some() && j.iterations.is_some() && j.model.is_some()));
    let old = read("tiresias/tf_job.csv", TraceFormat::Tiresias);
    assert_eq!(old.jobs.len(), 2);
    assert_eq!(old.jobs[0], old.jobs[1]);
    let synergy = read("synergy/deploy_trace/static_100job_6_3_1100.0", TraceFormat::SynergyDeploy);
    let stats = TraceStats::of(&synergy.jobs, None);
    assert_eq!((stats.jobs, stats.gpu_mix.get(&1), stats.jobs_with_iterations), (100, Some(&100), 100));
    assert_eq!(stats.models.len(), 9);
}
