//! `blox compare A B` as a user runs it: two experiments of one spec with different engines pair
//! by grid point, the printed and written numbers are those of the jobs tables, an experiment
//! compared with itself differs nowhere, and bad directories are errors in the user's words.

use crate::common;

use blox::results::{self, RunRow};
use common::{blox, text};
use std::collections::BTreeMap;
use std::path::Path;

/// The simulation: FIFO and LAS, two seeds, 300 s rounds.
const SIM: &str = "name: sim
engine: {mode: rounds, round_s: 300}
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.6]
seeds: [1, 2]
measure: {track: {ids: [20, 60]}}
";

/// The same spec on another engine setting (60 s rounds with restart overheads), seed 1 only,
/// plus a policy the simulation lacks.
const FINE: &str = "name: fine
engine: {mode: rounds, round_s: 60, overhead: {fixed: {first_launch_s: 10, resume_s: 30}}}
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
  - {label: SRTF, scheduler: srtf}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.6]
seeds: [1]
measure: {track: {ids: [20, 60]}}
";

fn run_spec(dir: &Path, name: &str, yaml: &str) {
    let spec = dir.join(format!("{name}.yaml"));
    std::fs::write(&spec, yaml).unwrap();
    let out = blox(&["run", spec.to_str().unwrap(), "--out", "out", "-q"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A CSV file as rows of column name to value.
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader.records().map(|r| header.iter().cloned().zip(r.unwrap().iter().map(String::from)).collect()).collect()
}

fn num(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|e| panic!("{column} = {:?}: {e}", row[column]))
}

fn run_of<'a>(runs: &'a [RunRow], key: &str) -> &'a RunRow {
    runs.iter().find(|r| r.info.run_key == key).unwrap_or_else(|| panic!("no run {key}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Average JCT over the jobs finished in both runs, and the ids finished in only one, from the
/// jobs tables as the library reads them.
fn expected(a_dir: &Path, a_key: &str, b_dir: &Path, b_key: &str) -> (f64, f64, usize, usize, usize) {
    let jobs_a = results::read_jobs(a_dir, a_key).unwrap();
    let jobs_b: BTreeMap<u64, Option<f64>> =
        results::read_jobs(b_dir, b_key).unwrap().iter().map(|j| (j.id, j.jct())).collect();
    let (mut sum_a, mut sum_b, mut both, mut only_a, mut only_b) = (0.0, 0.0, 0, 0, 0);
    for job in &jobs_a {
        let Some(&jct_b) = jobs_b.get(&job.id) else { continue };
        match (job.jct(), jct_b) {
            (Some(a), Some(b)) => {
                sum_a += a;
                sum_b += b;
                both += 1;
            }
            (Some(_), None) => only_a += 1,
            (None, Some(_)) => only_b += 1,
            (None, None) => {}
        }
    }
    (sum_a / both as f64, sum_b / both as f64, both, only_a, only_b)
}

#[test]
fn runs_of_one_grid_point_pair_across_engines_and_the_numbers_are_the_jobs_tables() {
    let dir = tempfile::tempdir().unwrap();
    run_spec(dir.path(), "sim", SIM);
    run_spec(dir.path(), "fine", FINE);
    let (sim, fine) = (dir.path().join("out/sim"), dir.path().join("out/fine"));
    let out = blox(&["compare", "out/sim", "out/fine", "--out", "cmp"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("2 pairs of runs of the same grid point"), "{stdout}");
    // Seed 2 exists only in A, SRTF only in B: listed, not fatal.
    assert_eq!(stdout.matches("no partner in B for A's run").count(), 2, "{stdout}");
    assert_eq!(stdout.matches("no partner in A for B's run").count(), 1, "{stdout}");
    assert!(stdout.contains("SRTF · cluster 2x4"), "{stdout}");

    let (runs_a, runs_b) = (results::read_runs(&sim).unwrap(), results::read_runs(&fine).unwrap());
    let summary = read_csv(&dir.path().join("cmp/summary.csv"));
    assert_eq!(summary.len(), 2);
    let mut pairs_seen = Vec::new();
    let mut differs = false;
    for row in &summary {
        let (a, b) = (run_of(&runs_a, &row["run_key_a"]), run_of(&runs_b, &row["run_key_b"]));
        assert_eq!((&a.info.label, a.info.seed, a.info.load), (&b.info.label, b.info.seed, b.info.load));
        assert_eq!((a.info.seed, &row["label"]), (1, &a.info.label));
        assert_ne!(a.info.round_seconds, b.info.round_seconds, "the engines differ");
        pairs_seen.push(a.info.label.clone());

        let (avg_a, avg_b, both, only_a, only_b) = expected(&sim, &a.info.run_key, &fine, &b.info.run_key);
        assert!(both > 0);
        assert!(close(num(row, "avg_jct_a_s"), avg_a), "{row:?} vs {avg_a}");
        assert!(close(num(row, "avg_jct_b_s"), avg_b), "{row:?} vs {avg_b}");
        assert!(close(num(row, "avg_jct_rel_diff"), (avg_b - avg_a) / avg_a), "{row:?}");
        assert_eq!(num(row, "finished_in_both") as usize, both);
        assert_eq!(num(row, "finished_only_in_a") as usize, only_a);
        assert_eq!(num(row, "finished_only_in_b") as usize, only_b);
        assert_eq!(num(row, "makespan_a_s"), a.summary.makespan);
        assert_eq!(num(row, "makespan_b_s"), b.summary.makespan);
        differs |= avg_a != avg_b;
        // The printed table shows the same averages, in hours (the runs span days).
        assert!(a.summary.makespan.max(b.summary.makespan) >= 36_000.0);
        let printed = format!("{:>12}{:>12}", format!("{:.3}", avg_a / 3600.0), format!("{:.3}", avg_b / 3600.0));
        assert!(stdout.contains(&format!("avg JCT h   {printed}")), "{printed:?} not in\n{stdout}");
        for extension in ["svg", "pdf", "png"] {
            let figure = dir.path().join(format!("cmp/jct-{}.{extension}", a.info.run_key));
            assert!(figure.is_file(), "{} missing", figure.display());
        }
    }
    pairs_seen.sort();
    assert_eq!(pairs_seen, ["FIFO", "LAS"]);
    assert!(differs, "60 s rounds with overheads should change some JCT");

    // compare.csv: one row per job tracked in both runs, JCTs as the jobs tables have them.
    let jobs = read_csv(&dir.path().join("cmp/compare.csv"));
    let mut rows_expected = 0;
    for row in &summary {
        let jobs_a: BTreeMap<u64, Option<f64>> =
            results::read_jobs(&sim, &row["run_key_a"]).unwrap().iter().map(|j| (j.id, j.jct())).collect();
        let mine: Vec<_> = jobs.iter().filter(|j| j["label"] == row["label"]).collect();
        assert_eq!(mine.len(), num(row, "jobs_in_both") as usize);
        rows_expected += mine.len();
        for job in mine {
            let jct_a = jobs_a[&job["job_id"].parse::<u64>().unwrap()];
            assert_eq!(job["finished_a"], jct_a.is_some().to_string());
            assert_eq!(jct_a.map(|v| v.to_string()).unwrap_or_default(), job["jct_a_s"]);
        }
    }
    assert_eq!(jobs.len(), rows_expected);

    // --format limits the figures to the formats asked for.
    let png_only = blox(&["compare", "out/sim", "out/fine", "--out", "png", "--format", "png"], dir.path());
    assert!(png_only.status.success(), "{}", text(&png_only.stderr));
    let mut written: Vec<String> = std::fs::read_dir(dir.path().join("png"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().rsplit('.').next().unwrap().to_string())
        .collect();
    written.sort();
    assert_eq!(written, ["csv", "csv", "png", "png"]);
}

#[test]
fn an_experiment_compared_with_itself_differs_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    run_spec(dir.path(), "sim", SIM);
    let out = blox(&["compare", "out/sim", "out/sim"], dir.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}\n{stdout}", text(&out.stderr));
    assert!(stdout.contains("4 pairs") && !stdout.contains("no partner"), "{stdout}");
    let summary = read_csv(&dir.path().join("out/sim/compare-sim/summary.csv"));
    assert_eq!(summary.len(), 4);
    for row in &summary {
        assert_eq!(row["run_key_a"], row["run_key_b"]);
        for zero in ["avg_jct_rel_diff", "makespan_rel_diff", "jct_abs_diff_median_s", "jct_abs_diff_p95_s"] {
            assert_eq!(num(row, zero), 0.0, "{zero} in {row:?}");
        }
        assert_eq!((num(row, "jct_ratio_median"), num(row, "jct_ratio_p95")), (1.0, 1.0));
        assert_eq!((num(row, "finished_only_in_a"), num(row, "finished_only_in_b")), (0.0, 0.0));
    }
    assert_eq!(stdout.matches("+0.0%").count(), 8, "avg JCT and makespan of 4 pairs:\n{stdout}");
}

#[test]
fn bad_directories_and_no_pairs_are_errors_in_the_users_words() {
    let dir = tempfile::tempdir().unwrap();
    run_spec(dir.path(), "sim", SIM);
    run_spec(dir.path(), "other", &SIM.replace("name: sim", "name: other").replace("seeds: [1, 2]", "seeds: [7]"));

    let none = blox(&["compare", "out/sim", "out/other"], dir.path());
    let stderr = text(&none.stderr);
    assert_eq!(none.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no run of out/sim is the same grid point as a run of out/other"), "{stderr}");
    assert!(stderr.contains("they differ in: seed") && stderr.contains("seed=7"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line, no escaped newlines: {stderr}");

    let not_experiment = blox(&["compare", "out/sim", "out"], dir.path());
    let stderr = text(&not_experiment.stderr);
    assert_eq!(not_experiment.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("it is not an experiment directory"), "{stderr}");

    let missing = blox(&["compare", "nowhere", "out/sim"], dir.path());
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("nowhere is not a directory"), "{}", text(&missing.stderr));

    // A damaged jobs table is detected against its runs file before it is read: the run is left
    // out with a warning naming the file, and the comparison goes on with the complete runs.
    let jobs_dir = dir.path().join("out/other/jobs");
    let damaged = std::fs::read_dir(&jobs_dir).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&damaged, b"not parquet").unwrap();
    let broken = blox(&["compare", "out/other", "out/other"], dir.path());
    let stderr = text(&broken.stderr);
    let name = damaged.file_name().unwrap().to_string_lossy().into_owned();
    assert!(stderr.contains("is left out") && stderr.contains(&name), "{stderr}");
    assert!(stderr.contains("(truncated or replaced)"), "{stderr}");
    for output in [none, not_experiment, missing, broken] {
        assert!(!text(&output.stderr).contains("panicked"));
    }
}
