//! Published numbers a spec reproduces, checked against its results.
//!
//! Each `specs/paper/NAME.yaml` has a sidecar `specs/paper/NAME.expected.yaml` listing the values
//! it must reproduce, each with its source and tolerance. The tests and `cargo xtask
//! reproduce-figures` read the same file, so a number is written down once.

use crate::core::placements::axis::AxisMeasure;
use crate::results::metric::{JobMetric, RunMetric, TimeUnit};
use crate::results::{RunRow, read_arrived_axis, read_jobs};
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The expected values of one paper spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub checks: Vec<Check>,
    /// Markdown for the report: how the reproduction compares beyond the checked values (e.g. job
    /// by job against the original's logs) and why differences remain.
    #[serde(default)]
    pub notes: Option<String>,
}

/// A group of values of one metric, from one source, with one tolerance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// What is checked, e.g. "Figure 6: average JCT".
    pub name: String,
    /// The figure of the spec these values belong to, for the report.
    #[serde(default)]
    pub figure: Option<String>,
    pub metric: RunMetric,
    /// Instead of the runs table's `metric`: a quantile of a per-job metric taken by nearest
    /// rank from the run's jobs table, as the simulator whose published numbers are checked
    /// computes it (Muri's `calc.py`: the p99 JCT is `sorted(JCTs)[int(0.99 N)]`, where blox's
    /// `p99_jct` interpolates). `metric` then names the statistic it stands for.
    #[serde(default)]
    pub nearest_rank: Option<NearestRank>,
    /// Instead of the runs table's `metric`: a quantile of a per-job metric interpolated
    /// linearly between ranks (numpy's and pandas' default), for quantiles the runs table does
    /// not carry (Synergy prints the p99.9 JCT).
    #[serde(default)]
    pub job_quantile: Option<JobQuantile>,
    /// Instead of the runs table's `metric`: a placement experiment's measure at one column of
    /// its arrived-workload axis, computed from the run's timeline as FGD's analysis does
    /// ([`crate::core::placements::axis`]). `metric` then names the run metric it is nearest to.
    #[serde(default)]
    pub arrived_axis: Option<ArrivedAt>,
    #[serde(default)]
    pub unit: TimeUnit,
    /// Largest accepted absolute difference, in the check's unit.
    pub tolerance: f64,
    /// How the runs matching one value (several seeds or workloads) are combined.
    #[serde(default)]
    pub aggregate: Aggregate,
    /// Where the values come from (paper figure or table, artifact file, note section).
    pub source: String,
    /// Reference values, reported beside the reproduced ones but not asserted: for figures whose
    /// original inputs cannot be regenerated (unseeded draws), where only a shape is checked.
    #[serde(default)]
    pub reference: bool,
    /// A shape: at every point (cluster, workload, load) this label ran, its value is at least
    /// every other label's. One outcome per point.
    #[serde(default)]
    pub highest: Option<String>,
    /// The opposite shape: at every point this label ran, its value is at most every other
    /// label's (a lower JCT).
    #[serde(default)]
    pub lowest: Option<String>,
    /// The labels a shape compares with (default: every other label at the point).
    #[serde(default)]
    pub among: Option<Vec<String>>,
    #[serde(default)]
    pub values: Vec<ExpectedValue>,
}

/// A quantile by nearest rank: over a run's finished jobs (those with a value of `job_metric`),
/// sorted ascending, the value at 0-based index `floor(q × N)` (the last one if that is `N`).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearestRank {
    pub job_metric: JobMetric,
    pub q: f64,
}

impl NearestRank {
    /// The quantile of the job rows' values shown in `unit`; `None` without any value.
    pub fn of(&self, jobs: &[crate::core::JobRecord], unit: TimeUnit) -> Option<f64> {
        let values = sorted_values(jobs, self.job_metric, unit);
        let index = ((values.len() as f64 * self.q) as usize).min(values.len().checked_sub(1)?);
        Some(values[index])
    }
}

/// A measure of the arrived-workload axis at `percent` % of the GPU capacity arrived.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivedAt {
    pub measure: AxisMeasure,
    pub percent: usize,
}

impl ArrivedAt {
    /// Its value in the run `row` of the experiment in `experiment_dir`; `None` when the run's
    /// timeline cannot be read or has no value there.
    pub fn of(&self, experiment_dir: &Path, row: &RunRow) -> Option<f64> {
        let axis = read_arrived_axis(experiment_dir, row).ok()?;
        self.measure.at(&axis, self.percent)
    }
}

/// A quantile of a per-job metric over a run's finished jobs, interpolated linearly between
/// ranks ([`crate::core::metrics::quantile_sorted`]).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobQuantile {
    pub job_metric: JobMetric,
    pub q: f64,
}

impl JobQuantile {
    /// The quantile of the job rows' values shown in `unit`; `None` without any value.
    pub fn of(&self, jobs: &[crate::core::JobRecord], unit: TimeUnit) -> Option<f64> {
        let values = sorted_values(jobs, self.job_metric, unit);
        (!values.is_empty()).then(|| crate::core::metrics::quantile_sorted(&values, self.q))
    }
}

/// The values of `metric` over the jobs that have one, shown in `unit`, ascending.
fn sorted_values(jobs: &[crate::core::JobRecord], metric: JobMetric, unit: TimeUnit) -> Vec<f64> {
    let mut values: Vec<f64> =
        jobs.iter().filter(|j| metric.value(j).is_some()).map(|j| metric.display_value(j, unit)).collect();
    values.sort_by(f64::total_cmp);
    values
}

/// How several matching runs give one reproduced value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    #[default]
    Mean,
    /// Robust to an outlying draw (e.g. of deadlines the original left unseeded).
    Median,
}

impl Aggregate {
    fn of(self, values: &mut [f64]) -> Option<f64> {
        if values.is_empty() {
            return None;
        }
        values.sort_by(f64::total_cmp);
        let n = values.len();
        Some(match self {
            Aggregate::Mean => values.iter().sum::<f64>() / n as f64,
            Aggregate::Median if n % 2 == 1 => values[n / 2],
            Aggregate::Median => (values[n / 2 - 1] + values[n / 2]) / 2.0,
        })
    }
}

/// One expected value and the runs it belongs to: every run with its label (and its load,
/// cluster, workload and seed when given), combined by the check's [`Aggregate`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedValue {
    pub label: String,
    #[serde(default)]
    pub load: Option<f64>,
    #[serde(default)]
    pub cluster: Option<String>,
    #[serde(default)]
    pub workload: Option<String>,
    /// One seed's run, for values an original simulator printed per seed.
    #[serde(default)]
    pub seed: Option<u64>,
    pub value: f64,
    /// Overrides the check's tolerance for this value.
    #[serde(default)]
    pub tolerance: Option<f64>,
}

/// The verdict on one expected value.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub check: String,
    pub figure: Option<String>,
    /// "FIFO @ load 8" and the like.
    pub point: String,
    pub unit: String,
    pub expected: f64,
    /// `None` when no run matches the point.
    pub actual: Option<f64>,
    pub tolerance: f64,
    /// Always true for reference values.
    pub pass: bool,
    /// A reference value (reported, not asserted).
    pub reference: bool,
    /// The expected value checked, with the runs it belongs to; `None` for a shape's outcome.
    pub value: Option<ExpectedValue>,
}

/// The sidecar of `spec`: `NAME.expected.yaml` beside `NAME.yaml`.
pub fn sidecar_path(spec: &Path) -> PathBuf {
    let stem = spec.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    spec.with_file_name(format!("{stem}.expected.yaml"))
}

/// Reads a sidecar; errors carry the file and, from the YAML parser, line and column.
pub fn read_expected(path: &Path) -> Result<Expected, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_saphyr::from_str(&text).map_err(|e| {
        let at = e.location().map(|l| format!(":{}:{}", l.line(), l.column())).unwrap_or_default();
        format!("{}{at}: {}", path.display(), e.without_snippet())
    })
}

/// Compares every expected value with the runs `rows` of the experiment in `experiment_dir`
/// (whose jobs tables [`NearestRank`] and [`JobQuantile`] checks read; a run whose table cannot be read has no value).
pub fn evaluate(expected: &Expected, rows: &[RunRow], experiment_dir: &Path) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for check in &expected.checks {
        let unit = check.metric.unit_name(check.unit).to_string();
        for v in &check.values {
            let mut matching: Vec<f64> = rows
                .iter()
                .filter(|r| {
                    r.info.label == v.label
                        && v.load.is_none_or(|l| r.info.load == Some(l))
                        && v.cluster.as_ref().is_none_or(|c| *c == r.info.cluster)
                        && v.workload.as_ref().is_none_or(|w| *w == r.info.workload)
                        && v.seed.is_none_or(|s| s == r.info.seed)
                })
                .filter_map(|r| match (&check.nearest_rank, &check.job_quantile) {
                    _ if check.arrived_axis.is_some() => check.arrived_axis?.of(experiment_dir, r),
                    (Some(rank), _) => rank.of(&read_jobs(experiment_dir, &r.info.run_key).ok()?, check.unit),
                    (None, Some(quantile)) => {
                        quantile.of(&read_jobs(experiment_dir, &r.info.run_key).ok()?, check.unit)
                    }
                    (None, None) => Some(check.metric.display_value(r, check.unit)),
                })
                .collect();
            let actual = check.aggregate.of(&mut matching);
            let tolerance = v.tolerance.unwrap_or(check.tolerance);
            let mut point = v.label.clone();
            if let Some(l) = v.load {
                let _ = write!(point, " @ load {}", crate::text::fmt_number(l));
            }
            for extra in [&v.cluster, &v.workload].into_iter().flatten() {
                let _ = write!(point, ", {extra}");
            }
            if let Some(seed) = v.seed {
                let _ = write!(point, ", seed {seed}");
            }
            outcomes.push(Outcome {
                check: check.name.clone(),
                figure: check.figure.clone(),
                point,
                unit: unit.clone(),
                expected: v.value,
                actual,
                tolerance,
                pass: check.reference || actual.is_some_and(|a| (a - v.value).abs() <= tolerance),
                reference: check.reference,
                value: Some(v.clone()),
            });
        }
        if let Some(label) = &check.highest {
            outcomes.extend(shape_outcomes(check, label, Extreme::Highest, &unit, rows));
        }
        if let Some(label) = &check.lowest {
            outcomes.extend(shape_outcomes(check, label, Extreme::Lowest, &unit, rows));
        }
    }
    outcomes
}

#[derive(Clone, Copy, PartialEq)]
enum Extreme {
    Highest,
    Lowest,
}

/// One outcome per point where `label` ran: its value against the best other label's there
/// (of `among` when the check names them).
fn shape_outcomes(check: &Check, label: &str, extreme: Extreme, unit: &str, rows: &[RunRow]) -> Vec<Outcome> {
    // A point is (cluster, workload, load); kept in first-seen order.
    let point_of = |r: &RunRow| (r.info.cluster.clone(), r.info.workload.clone(), r.info.load);
    let mut points: Vec<(String, String, Option<f64>)> = Vec::new();
    for r in rows.iter().filter(|r| r.info.label == label) {
        if !points.contains(&point_of(r)) {
            points.push(point_of(r));
        }
    }
    // Values compared so that larger is better: negated for `Lowest`.
    let sign = if extreme == Extreme::Highest { 1.0 } else { -1.0 };
    let value = |r: &RunRow| sign * check.metric.display_value(r, check.unit);
    let compared =
        |r: &RunRow| r.info.label != label && check.among.as_ref().is_none_or(|among| among.contains(&r.info.label));
    let word = if extreme == Extreme::Highest { "highest" } else { "lowest" };
    points
        .iter()
        .map(|p| {
            let at: Vec<&RunRow> = rows.iter().filter(|r| point_of(r) == *p).collect();
            let mine = at.iter().filter(|r| r.info.label == label).map(|r| value(r)).fold(f64::NAN, f64::max);
            let best_other = at
                .iter()
                .filter(|r| compared(r))
                .map(|r| (value(r), r.info.label.as_str()))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let mut text = format!("{label} {word}, {}, {}", p.0, p.1);
            if let Some(l) = p.2 {
                let _ = write!(text, " @ load {}", crate::text::fmt_number(l));
            }
            if let Some((_, other)) = best_other {
                let _ = write!(text, " (vs {other})");
            }
            Outcome {
                check: check.name.clone(),
                figure: check.figure.clone(),
                point: text,
                unit: unit.to_string(),
                expected: best_other.map_or(f64::NAN, |b| sign * b.0),
                actual: (!mine.is_nan()).then_some(sign * mine),
                tolerance: check.tolerance,
                pass: best_other.is_some_and(|(other, _)| mine >= other - check.tolerance),
                reference: false,
                value: None,
            }
        })
        .collect()
}

/// A Markdown table of outcomes: point, expected, reproduced, difference, tolerance, verdict.
pub fn outcome_table(outcomes: &[&Outcome]) -> String {
    let mut out = String::from(
        "| check | point | expected | reproduced | difference | tolerance | result |\n|---|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let (actual, diff) = match o.actual {
            Some(a) => (format_value(a), format!("{:+.4}", a - o.expected)),
            None => ("no run".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} {} | {actual} | {diff} | {} | {} |",
            o.check,
            o.point,
            format_value(o.expected),
            o.unit,
            format_value(o.tolerance),
            if o.reference {
                "reference"
            } else if o.pass {
                "PASS"
            } else {
                "**FAIL**"
            }
        );
    }
    out
}

/// A value as the report prints it: integers without decimals, others with four.
pub fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e12 { format!("{v:.0}") } else { format!("{v:.4}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::RunSummary;
    use crate::results::RunInfo;

    fn row(label: &str, load: f64, avg_jct_s: f64) -> RunRow {
        RunRow {
            spec_sha256: String::new(),
            blox_version: String::new(),
            info: RunInfo {
                experiment: "e".into(),
                run_key: format!("{label}{load}"),
                label: label.into(),
                scheduler: "fifo".into(),
                placement: "scattered".into(),
                admission: "accept-all".into(),
                policy_params: "{}".into(),
                cluster: "32x4".into(),
                nodes: 32,
                total_gpus: 128,
                workload: "w".into(),
                load: Some(load),
                seed: 1,
                round_seconds: 300.0,
            },
            summary: RunSummary {
                tracked_jobs: 1,
                tracked_finished: 1,
                jobs_finished: 1,
                jobs_unschedulable: 0,
                avg_jct: avg_jct_s,
                median_jct: avg_jct_s,
                p95_jct: avg_jct_s,
                p99_jct: avg_jct_s,
                avg_responsiveness: 0.0,
                makespan: 0.0,
                rounds: 0,
                preemptions: 0,
                resizes: 0,
                promoted_jobs: 0,
                gpu_utilization: 0.5,
                deadlines: crate::core::DeadlineStats::default(),
            },
            wall_time_s: 0.0,
            cpu_time_s: 0.0,
        }
    }

    /// Muri's p99: `sorted(JCTs)[int(0.99 N)]` over the finished jobs.
    #[test]
    fn nearest_rank_takes_the_floor_index_of_the_finished_jobs() {
        use crate::core::{JobLife, JobRecord, JobSpec};
        let rank: NearestRank = serde_saphyr::from_str("{job_metric: jct, q: 0.99}").unwrap();
        let jobs: Vec<JobRecord> = (0..200u64)
            .map(|i| {
                let life = JobLife { finish: (i != 5).then_some(i as f64), ..JobLife::default() };
                JobRecord::of(&JobSpec { id: i, ..JobSpec::default() }, &life, 1)
            })
            .collect();
        // 199 finished: index floor(0.99 × 199) = 197 holds 198 (job 5 never finished).
        assert_eq!(rank.of(&jobs, TimeUnit::Seconds), Some(198.0));
        assert_eq!(rank.of(&jobs, TimeUnit::Minutes), Some(3.3));
        assert_eq!(rank.of(&jobs[5..6], TimeUnit::Seconds), None);
    }

    #[test]
    fn a_wrong_expected_value_fails_and_a_missing_run_fails() {
        let expected: Expected = serde_saphyr::from_str(
            "checks:
  - name: avg JCT
    metric: avg_jct
    unit: hours
    tolerance: 0.0005
    source: test
    values:
      - {label: FIFO, load: 8, value: 36.503}
      - {label: FIFO, load: 8, value: 40.0}
      - {label: LAS, load: 8, value: 1.0}
",
        )
        .unwrap();
        let rows = [row("FIFO", 8.0, 36.503 * 3600.0)];
        let outcomes = evaluate(&expected, &rows, Path::new(""));
        assert_eq!(outcomes.iter().map(|o| o.pass).collect::<Vec<_>>(), [true, false, false]);
        assert_eq!(outcomes[2].actual, None);
        let table = outcome_table(&outcomes.iter().collect::<Vec<_>>());
        assert_eq!(table.matches("**FAIL**").count(), 2);
        assert!(
            table.contains("| avg JCT | FIFO @ load 8 | 36.5030 hours | 36.5030 | +0.0000 | 0.0005 | PASS |"),
            "{table}"
        );
    }

    #[test]
    fn a_shape_check_compares_one_label_with_the_best_other_at_every_point() {
        let expected: Expected = serde_saphyr::from_str(
            "checks:
  - name: lowest JCT is not what this checks
    metric: avg_jct
    unit: hours
    tolerance: 0
    source: test
    highest: LAS
  - name: reference
    metric: avg_jct
    unit: hours
    tolerance: 0
    source: test
    reference: true
    values:
      - {label: LAS, load: 8, value: 99.0}
",
        )
        .unwrap();
        let rows =
            [row("FIFO", 8.0, 3600.0), row("LAS", 8.0, 7200.0), row("FIFO", 9.0, 7200.0), row("LAS", 9.0, 3600.0)];
        let outcomes = evaluate(&expected, &rows, Path::new(""));
        let verdicts: Vec<_> = outcomes.iter().map(|o| (o.point.as_str(), o.pass)).collect();
        assert_eq!(
            verdicts,
            [
                ("LAS highest, 32x4, w @ load 8 (vs FIFO)", true),
                ("LAS highest, 32x4, w @ load 9 (vs FIFO)", false),
                ("LAS @ load 8", true)
            ]
        );
        assert!(outcomes[2].reference && outcome_table(&[&outcomes[2]]).contains("| reference |"));
    }

    #[test]
    fn a_lowest_shape_compares_only_the_labels_it_names() {
        let expected: Expected = serde_saphyr::from_str(
            "checks:
  - name: Gavel LAS has the lowest JCT of the LAS policies
    metric: avg_jct
    unit: hours
    tolerance: 0
    source: test
    lowest: Gavel
    among: [LAS]
",
        )
        .unwrap();
        let rows = [
            row("LAS", 8.0, 7200.0),
            row("Gavel", 8.0, 3600.0),
            row("FIFO", 8.0, 1800.0),
            row("LAS", 9.0, 3600.0),
            row("Gavel", 9.0, 7200.0),
        ];
        let outcomes = evaluate(&expected, &rows, Path::new(""));
        let verdicts: Vec<_> = outcomes.iter().map(|o| (o.point.as_str(), o.pass, o.expected)).collect();
        assert_eq!(
            verdicts,
            [
                ("Gavel lowest, 32x4, w @ load 8 (vs LAS)", true, 2.0),
                ("Gavel lowest, 32x4, w @ load 9 (vs LAS)", false, 1.0)
            ]
        );
    }

    #[test]
    fn the_median_ignores_one_outlying_run() {
        let check = |aggregate: &str| -> Option<f64> {
            let yaml = format!(
                "checks:\n  - {{name: m, metric: avg_jct, unit: hours, tolerance: 0, source: t, aggregate: {aggregate}, values: [{{label: LAS, value: 2}}]}}\n"
            );
            let expected: Expected = serde_saphyr::from_str(&yaml).unwrap();
            let rows = [row("LAS", 1.0, 3600.0), row("LAS", 2.0, 7200.0), row("LAS", 3.0, 72000.0)];
            evaluate(&expected, &rows, Path::new(""))[0].actual
        };
        assert_eq!((check("median"), check("mean")), (Some(2.0), Some(23.0 / 3.0)));
    }

    #[test]
    fn sidecars_sit_beside_their_spec() {
        assert_eq!(
            sidecar_path(Path::new("specs/paper/blox-fig6.yaml")),
            Path::new("specs/paper/blox-fig6.expected.yaml")
        );
    }
}
