//! Two experiments' runs side by side, job by job: what `blox compare A B` computes.
//!
//! Runs pair by grid point ([`point_fields`]: everything but the engine, so a live run meets the
//! `rounds` simulation of its spec and trace, which is how Blox validates its simulator), and the
//! jobs tracked in both runs of a pair are compared by JCT ([`PairStats`]). [`jobs_csv`] and
//! [`summary_csv`] are the pair's numbers as files; opening the experiments, printing and drawing
//! are the CLI's.

use std::collections::BTreeMap;
use std::fmt;

use crate::core::JobRecord;
use crate::core::metrics::{mean, quantile_sorted};
use crate::results::{RunInfo, RunRow};

/// The grid keys two runs must share to be compared, by column name: everything that names a grid
/// point except the engine (mode, round or slot length, overhead), the experiment and the build,
/// because a live run is set beside a `rounds` simulation of the same spec.
pub fn point_fields(info: &RunInfo) -> [(&'static str, String); 11] {
    [
        ("label", info.label.clone()),
        ("scheduler", info.scheduler.clone()),
        ("placement", info.placement.clone()),
        ("admission", info.admission.clone()),
        ("policy_params", info.policy_params.clone()),
        ("cluster", info.cluster.clone()),
        ("nodes", info.nodes.to_string()),
        ("total_gpus", info.total_gpus.to_string()),
        ("workload", info.workload.clone()),
        ("load", info.load.map_or_else(|| "-".into(), |load| load.to_string())),
        ("seed", info.seed.to_string()),
    ]
}

/// `FIFO · cluster 2x4 · workload … · load 8 · seed 1`: a grid point as the user names it.
pub fn describe(info: &RunInfo) -> String {
    let load = info.load.map(|load| format!(" · load {load}")).unwrap_or_default();
    format!("{} · cluster {} · workload {}{load} · seed {}", info.label, info.cluster, info.workload, info.seed)
}

/// Runs of A and B paired by [`point_fields`], in A's order, and the runs of each side that have
/// no partner (B's in B's order).
#[derive(Debug)]
pub struct Pairing<'a> {
    pub matched: Vec<(&'a RunRow, &'a RunRow)>,
    pub only_in_a: Vec<&'a RunRow>,
    pub only_in_b: Vec<&'a RunRow>,
}

/// Two runs of one experiment at the same grid point: which of them is B's partner is ambiguous.
#[derive(Debug, Clone, PartialEq)]
pub struct SamePoint {
    pub first_run_key: String,
    pub second_run_key: String,
    /// The grid point, as [`describe`] names it.
    pub point: String,
}

impl fmt::Display for SamePoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "runs {} and {} of one experiment are the same grid point ({}); compare needs one run per point",
            self.first_run_key, self.second_run_key, self.point
        )
    }
}

impl std::error::Error for SamePoint {}

/// Pairs the runs of `a` and `b` that are the same grid point. B must hold at most one run per
/// point; A's runs are taken in order, each with its partner if B has one.
pub fn pair_runs<'a>(a: &'a [RunRow], b: &'a [RunRow]) -> Result<Pairing<'a>, SamePoint> {
    let key = |row: &RunRow| point_fields(&row.info).map(|(_, value)| value);
    let mut by_key: BTreeMap<_, (usize, &RunRow)> = BTreeMap::new();
    for (index, row) in b.iter().enumerate() {
        if let Some((_, earlier)) = by_key.insert(key(row), (index, row)) {
            return Err(SamePoint {
                first_run_key: earlier.info.run_key.clone(),
                second_run_key: row.info.run_key.clone(),
                point: describe(&row.info),
            });
        }
    }
    let (mut matched, mut only_in_a) = (Vec::new(), Vec::new());
    for row in a {
        match by_key.remove(&key(row)) {
            Some((_, partner)) => matched.push((row, partner)),
            None => only_in_a.push(row),
        }
    }
    let mut only_in_b: Vec<(usize, &RunRow)> = by_key.into_values().collect();
    only_in_b.sort_by_key(|(index, _)| *index);
    Ok(Pairing { matched, only_in_a, only_in_b: only_in_b.into_iter().map(|(_, row)| row).collect() })
}

/// One job tracked in both runs of a pair; a JCT is `None` where the job did not finish.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobPair {
    pub id: u64,
    pub jct_a: Option<f64>,
    pub jct_b: Option<f64>,
}

/// Two runs of one grid point and how their jobs compare.
#[derive(Debug)]
pub struct RunPair<'a> {
    pub a: &'a RunRow,
    pub b: &'a RunRow,
    /// The jobs tracked in both runs, by id.
    pub jobs: Vec<JobPair>,
    /// Ids tracked in A's jobs table and not in B's.
    pub only_in_a: Vec<u64>,
    /// Ids tracked in B's jobs table and not in A's.
    pub only_in_b: Vec<u64>,
    pub stats: PairStats,
}

impl RunPair<'_> {
    /// The pair of runs `a` and `b` with their jobs tables.
    pub fn new<'a>(a: &'a RunRow, b: &'a RunRow, jobs_a: &[JobRecord], jobs_b: &[JobRecord]) -> RunPair<'a> {
        let in_b: BTreeMap<u64, Option<f64>> = jobs_b.iter().map(|job| (job.id, job.jct())).collect();
        let in_a: BTreeMap<u64, Option<f64>> = jobs_a.iter().map(|job| (job.id, job.jct())).collect();
        let jobs: Vec<JobPair> =
            in_a.iter().filter_map(|(&id, &jct_a)| in_b.get(&id).map(|&jct_b| JobPair { id, jct_a, jct_b })).collect();
        let only_in_a = in_a.keys().filter(|id| !in_b.contains_key(id)).copied().collect();
        let only_in_b = in_b.keys().filter(|id| !in_a.contains_key(id)).copied().collect();
        let stats = PairStats::of(&jobs, (a.summary.makespan, b.summary.makespan));
        RunPair { a, b, jobs, only_in_a, only_in_b, stats }
    }
}

/// What a simulator-fidelity table reports for a pair, in seconds; NaN where there is no value.
#[derive(Debug, Clone, PartialEq)]
pub struct PairStats {
    pub finished_both: usize,
    pub finished_only_a: Vec<u64>,
    pub finished_only_b: Vec<u64>,
    /// Over the jobs finished in both runs.
    pub avg_jct: (f64, f64),
    /// The runs table's `makespan_s`: when each run ended.
    pub makespan: (f64, f64),
    /// Median and 95th percentile of |JCT_B - JCT_A| over the jobs finished in both.
    pub abs_diff: (f64, f64),
    /// Median and 95th percentile of JCT_B / JCT_A over those with JCT_A > 0.
    pub ratio: (f64, f64),
}

impl PairStats {
    /// The statistics of `jobs`, with the two runs' makespans.
    pub fn of(jobs: &[JobPair], makespan: (f64, f64)) -> PairStats {
        let finished: Vec<(f64, f64)> = jobs.iter().filter_map(|j| Some((j.jct_a?, j.jct_b?))).collect();
        let ids_where = |keep: fn(&JobPair) -> bool| jobs.iter().filter(|j| keep(j)).map(|j| j.id).collect();
        let mut abs_diff: Vec<f64> = finished.iter().map(|(a, b)| (b - a).abs()).collect();
        let mut ratio: Vec<f64> = finished.iter().filter(|(a, _)| *a > 0.0).map(|(a, b)| b / a).collect();
        abs_diff.sort_by(f64::total_cmp);
        ratio.sort_by(f64::total_cmp);
        let median_p95 = |sorted: &[f64]| (quantile_sorted(sorted, 0.5), quantile_sorted(sorted, 0.95));
        PairStats {
            finished_both: finished.len(),
            finished_only_a: ids_where(|j| j.jct_a.is_some() && j.jct_b.is_none()),
            finished_only_b: ids_where(|j| j.jct_a.is_none() && j.jct_b.is_some()),
            avg_jct: (
                mean(&finished.iter().map(|p| p.0).collect::<Vec<_>>()),
                mean(&finished.iter().map(|p| p.1).collect::<Vec<_>>()),
            ),
            makespan,
            abs_diff: median_p95(&abs_diff),
            ratio: median_p95(&ratio),
        }
    }
}

/// (B - A) / A; 0 when both are equal (zeros included), so a run compared with itself shows no
/// difference; not finite when A is 0 and B is not.
pub fn relative((a, b): (f64, f64)) -> f64 {
    if a == b { 0.0 } else { (b - a) / a }
}

/// A value for the CSVs: Rust's shortest text that reads back to the same `f64`; empty when not
/// finite.
fn number(value: f64) -> String {
    if value.is_finite() { format!("{value}") } else { String::new() }
}

/// The grid point's fields every CSV row starts with: enough to tell A's runs apart.
const POINT_HEADER: [&str; 5] = ["label", "cluster", "workload", "load", "seed"];

fn point_cells(info: &RunInfo) -> [String; 5] {
    [
        info.label.clone(),
        info.cluster.clone(),
        info.workload.clone(),
        info.load.map(number).unwrap_or_default(),
        info.seed.to_string(),
    ]
}

/// CSV text of `header` and `rows`.
fn csv_text<const N: usize>(header: [&str; N], rows: impl Iterator<Item = [String; N]>) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing into memory cannot fail.
    let _ = writer.write_record(header);
    for row in rows {
        let _ = writer.write_record(&row);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// `compare.csv`: one row per job tracked in both runs of a pair; a JCT is empty where the job
/// did not finish.
pub fn jobs_csv(pairs: &[RunPair]) -> String {
    let rows = pairs.iter().flat_map(|pair| {
        let point = point_cells(&pair.a.info);
        pair.jobs.iter().map(move |job| {
            let [label, cluster, workload, load, seed] = point.clone();
            [
                label,
                cluster,
                workload,
                load,
                seed,
                job.id.to_string(),
                job.jct_a.map(number).unwrap_or_default(),
                job.jct_b.map(number).unwrap_or_default(),
                job.jct_a.is_some().to_string(),
                job.jct_b.is_some().to_string(),
            ]
        })
    });
    let [l, c, w, lo, s] = POINT_HEADER;
    csv_text([l, c, w, lo, s, "job_id", "jct_a_s", "jct_b_s", "finished_a", "finished_b"], rows)
}

/// `summary.csv`: one row per pair of runs with its [`PairStats`], in seconds and fractions
/// (relative differences are (B - A) / A).
pub fn summary_csv(pairs: &[RunPair]) -> String {
    let rows = pairs.iter().map(|pair| {
        let s = &pair.stats;
        let [label, cluster, workload, load, seed] = point_cells(&pair.a.info);
        [
            label,
            cluster,
            workload,
            load,
            seed,
            pair.a.info.scheduler.clone(),
            pair.a.info.placement.clone(),
            pair.a.info.admission.clone(),
            pair.a.info.run_key.clone(),
            pair.b.info.run_key.clone(),
            (pair.jobs.len() + pair.only_in_a.len()).to_string(),
            (pair.jobs.len() + pair.only_in_b.len()).to_string(),
            pair.jobs.len().to_string(),
            s.finished_both.to_string(),
            s.finished_only_a.len().to_string(),
            s.finished_only_b.len().to_string(),
            number(s.avg_jct.0),
            number(s.avg_jct.1),
            number(relative(s.avg_jct)),
            number(s.makespan.0),
            number(s.makespan.1),
            number(relative(s.makespan)),
            number(s.abs_diff.0),
            number(s.abs_diff.1),
            number(s.ratio.0),
            number(s.ratio.1),
        ]
    });
    let [l, c, w, lo, s] = POINT_HEADER;
    csv_text(
        [
            l,
            c,
            w,
            lo,
            s,
            "scheduler",
            "placement",
            "admission",
            "run_key_a",
            "run_key_b",
            "jobs_a",
            "jobs_b",
            "jobs_in_both",
            "finished_in_both",
            "finished_only_in_a",
            "finished_only_in_b",
            "avg_jct_a_s",
            "avg_jct_b_s",
            "avg_jct_rel_diff",
            "makespan_a_s",
            "makespan_b_s",
            "makespan_rel_diff",
            "jct_abs_diff_median_s",
            "jct_abs_diff_p95_s",
            "jct_ratio_median",
            "jct_ratio_p95",
        ],
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::RunSummary;

    fn job(id: u64, jct_a: Option<f64>, jct_b: Option<f64>) -> JobPair {
        JobPair { id, jct_a, jct_b }
    }

    fn run(key: &str, label: &str, seed: u64, round_seconds: f64) -> RunRow {
        RunRow {
            info: RunInfo {
                experiment: "x".into(),
                run_key: key.into(),
                label: label.into(),
                seed,
                round_seconds,
                ..RunInfo::default()
            },
            ..RunRow::default()
        }
    }

    /// A jobs-table row: submitted at `arrival`, finished at `finish` (or not).
    fn record(id: u64, arrival: f64, finish: Option<f64>) -> JobRecord {
        JobRecord { id, arrival, finish, ..JobRecord::default() }
    }

    #[test]
    fn statistics_use_the_jobs_finished_in_both_and_count_the_others() {
        let jobs = [
            job(1, Some(100.0), Some(150.0)),
            job(2, Some(200.0), Some(100.0)),
            job(3, Some(0.0), Some(10.0)), // no ratio: A's JCT is 0
            job(4, Some(50.0), None),
            job(5, None, Some(70.0)),
            job(6, None, None),
        ];
        let s = PairStats::of(&jobs, (1000.0, 1100.0));
        assert_eq!(s.finished_both, 3);
        assert_eq!((s.finished_only_a, s.finished_only_b), (vec![4], vec![5]));
        assert_eq!(s.avg_jct, (100.0, 260.0 / 3.0));
        assert_eq!(s.abs_diff.0, 50.0, "median of 10, 50, 100");
        assert_eq!(s.ratio.0, 1.0, "median of 0.5 and 1.5");
        assert!((relative(s.makespan) - 0.1).abs() < 1e-12);
        assert_eq!(relative((0.0, 0.0)), 0.0);
        assert!(!relative((0.0, 5.0)).is_finite());
        let empty = PairStats::of(&[], (f64::NAN, f64::NAN));
        assert!(empty.avg_jct.0.is_nan() && empty.ratio.1.is_nan());
    }

    #[test]
    fn runs_pair_by_grid_point_whatever_the_engine() {
        let a = [run("a1", "FIFO", 1, 300.0), run("a2", "FIFO", 2, 300.0), run("a3", "LAS", 1, 300.0)];
        let b = [run("b1", "SRTF", 1, 60.0), run("b2", "LAS", 1, 60.0), run("b3", "FIFO", 1, 60.0)];
        let pairing = pair_runs(&a, &b).unwrap();
        let keys: Vec<(&str, &str)> =
            pairing.matched.iter().map(|(x, y)| (x.info.run_key.as_str(), y.info.run_key.as_str())).collect();
        assert_eq!(keys, [("a1", "b3"), ("a3", "b2")]);
        let key = |runs: &[&RunRow]| runs.iter().map(|r| r.info.run_key.clone()).collect::<Vec<_>>();
        assert_eq!(
            (key(&pairing.only_in_a), key(&pairing.only_in_b)),
            (vec!["a2".to_string()], vec!["b1".to_string()])
        );
        let twice = [run("b1", "LAS", 1, 60.0), run("b2", "LAS", 1, 30.0)];
        let error = pair_runs(&a, &twice).err().unwrap().to_string();
        assert!(error.contains("b1 and b2") && error.contains("same grid point"), "{error}");
    }

    /// Two small in-memory jobs tables: ids tracked on one side only are set apart, JCTs are
    /// finish minus arrival, and both CSVs carry the pair's numbers.
    #[test]
    fn a_pair_of_jobs_tables_compares_job_by_job() {
        let mut sim = run("sim-fifo", "FIFO", 1, 300.0);
        sim.summary = RunSummary { makespan: 1000.0, ..RunSummary::default() };
        let mut live = run("live-fifo", "FIFO", 1, 30.0);
        live.summary = RunSummary { makespan: 1200.0, ..RunSummary::default() };
        let jobs_sim = [record(0, 0.0, Some(300.0)), record(1, 100.0, Some(600.0)), record(2, 50.0, None)];
        let jobs_live = [record(1, 100.0, Some(700.0)), record(0, 0.0, Some(330.0)), record(7, 0.0, Some(1.0))];
        let pair = RunPair::new(&sim, &live, &jobs_sim, &jobs_live);
        assert_eq!(pair.jobs, [job(0, Some(300.0), Some(330.0)), job(1, Some(500.0), Some(600.0))]);
        assert_eq!((pair.only_in_a.as_slice(), pair.only_in_b.as_slice()), ([2].as_slice(), [7].as_slice()));
        assert_eq!(pair.stats.avg_jct, (400.0, 465.0));
        assert_eq!(pair.stats.makespan, (1000.0, 1200.0));
        let pairs = [pair];
        let jobs = jobs_csv(&pairs);
        assert_eq!(
            jobs.lines().collect::<Vec<_>>(),
            [
                "label,cluster,workload,load,seed,job_id,jct_a_s,jct_b_s,finished_a,finished_b",
                "FIFO,,,,1,0,300,330,true,true",
                "FIFO,,,,1,1,500,600,true,true",
            ]
        );
        let summary = summary_csv(&pairs);
        let [header, row] = summary.lines().collect::<Vec<_>>()[..] else { panic!("{summary}") };
        let cells: BTreeMap<&str, &str> = header.split(',').zip(row.split(',')).collect();
        assert_eq!(cells["run_key_a"], "sim-fifo");
        assert_eq!(cells["run_key_b"], "live-fifo");
        assert_eq!((cells["jobs_a"], cells["jobs_b"], cells["jobs_in_both"]), ("3", "3", "2"));
        assert_eq!((cells["avg_jct_a_s"], cells["avg_jct_b_s"]), ("400", "465"));
        assert_eq!(cells["makespan_rel_diff"], "0.2");
        assert_eq!(cells["jct_ratio_median"], "1.15", "median of 1.1 and 1.2");
    }
}
