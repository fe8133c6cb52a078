//! `blox compare A B`: the runs of two experiments that are the same grid point, side by side job
//! by job. Meant for a live run beside the simulation of its spec and trace (how Blox validates
//! its simulator), and works as well for two simulations (round lengths, overheads, engines).

use super::experiment::complete_rows;
use crate::core::JobRecord;
use crate::core::metrics::{mean, quantile_sorted};
use crate::figures::render::{self, ImageFormat, Scale, ScatterChart, Size, Style};
use crate::results::store::write_file_atomically;
use crate::results::{RunInfo, RunRow, read_jobs};
use crate::runner::GridFile;
use crate::spec::grid::fmt_number;
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub(super) struct CompareArgs {
    /// Reference experiment directory (x axis), e.g. results/sim.
    a: PathBuf,
    /// Experiment directory compared with it (y axis), e.g. results/live; may be A itself.
    b: PathBuf,
    /// Directory for compare.csv, summary.csv and the figures (default: A/compare-<B's name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Image formats of the per-pair JCT scatter figures, comma-separated (default: all three).
    #[arg(long, value_enum, value_delimiter = ',')]
    format: Vec<FormatArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Svg,
    Pdf,
    Png,
}

/// The grid keys two runs must share to be compared: everything that names a grid point except
/// the engine (mode, round or slot length, overhead), the experiment and the build, because a
/// live run is set beside a `rounds` simulation of the same spec.
fn point_fields(info: &RunInfo) -> [(&'static str, String); 11] {
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
        ("load", info.load.map_or_else(|| "-".into(), fmt_number)),
        ("seed", info.seed.to_string()),
    ]
}

/// `FIFO · cluster 2x4 · workload … · load 8 · seed 1`: a grid point as the user names it.
fn describe(info: &RunInfo) -> String {
    let load = info.load.map(|l| format!(" · load {}", fmt_number(l))).unwrap_or_default();
    format!("{} · cluster {} · workload {}{load} · seed {}", info.label, info.cluster, info.workload, info.seed)
}

/// One job tracked in both runs of a pair; a JCT is `None` where the job did not finish.
struct JobPair {
    id: u64,
    jct_a: Option<f64>,
    jct_b: Option<f64>,
}

/// Two runs of one grid point and how their jobs compare.
struct Pair<'a> {
    a: &'a RunRow,
    b: &'a RunRow,
    jobs: Vec<JobPair>,
    /// Ids tracked in one run's jobs table and not in the other's.
    only_in_a: Vec<u64>,
    only_in_b: Vec<u64>,
    stats: Stats,
}

/// What a simulator-fidelity table reports for a pair, in seconds; NaN where there is no value.
struct Stats {
    finished_both: usize,
    finished_only_a: Vec<u64>,
    finished_only_b: Vec<u64>,
    /// Over the jobs finished in both runs.
    avg_jct: (f64, f64),
    /// The runs table's `makespan_s`: when each run ended.
    makespan: (f64, f64),
    /// Median and 95th percentile of |JCT_B - JCT_A| over the jobs finished in both.
    abs_diff: (f64, f64),
    /// Median and 95th percentile of JCT_B / JCT_A over those with JCT_A > 0.
    ratio: (f64, f64),
}

impl Pair<'_> {
    fn new<'a>(a: &'a RunRow, b: &'a RunRow, jobs_a: &[JobRecord], jobs_b: &[JobRecord]) -> Pair<'a> {
        let in_b: BTreeMap<u64, Option<f64>> = jobs_b.iter().map(|job| (job.id, job.jct())).collect();
        let in_a: BTreeMap<u64, Option<f64>> = jobs_a.iter().map(|job| (job.id, job.jct())).collect();
        let jobs: Vec<JobPair> =
            in_a.iter().filter_map(|(&id, &jct_a)| in_b.get(&id).map(|&jct_b| JobPair { id, jct_a, jct_b })).collect();
        let only_in_a = in_a.keys().filter(|id| !in_b.contains_key(id)).copied().collect();
        let only_in_b = in_b.keys().filter(|id| !in_a.contains_key(id)).copied().collect();
        let stats = Stats::of(&jobs, (a.summary.makespan, b.summary.makespan));
        Pair { a, b, jobs, only_in_a, only_in_b, stats }
    }
}

impl Stats {
    fn of(jobs: &[JobPair], makespan: (f64, f64)) -> Stats {
        let finished: Vec<(f64, f64)> = jobs.iter().filter_map(|j| Some((j.jct_a?, j.jct_b?))).collect();
        let ids_where = |keep: fn(&JobPair) -> bool| jobs.iter().filter(|j| keep(j)).map(|j| j.id).collect();
        let mut abs_diff: Vec<f64> = finished.iter().map(|(a, b)| (b - a).abs()).collect();
        let mut ratio: Vec<f64> = finished.iter().filter(|(a, _)| *a > 0.0).map(|(a, b)| b / a).collect();
        abs_diff.sort_by(f64::total_cmp);
        ratio.sort_by(f64::total_cmp);
        let median_p95 = |sorted: &[f64]| (quantile_sorted(sorted, 0.5), quantile_sorted(sorted, 0.95));
        Stats {
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
fn relative((a, b): (f64, f64)) -> f64 {
    if a == b { 0.0 } else { (b - a) / a }
}

/// A value for the CSVs: Rust's shortest text that reads back to the same `f64`; empty when not
/// finite.
fn number(value: f64) -> String {
    if value.is_finite() { format!("{value}") } else { String::new() }
}

/// Hours with three decimals, `-` for no value.
/// The unit a pair's times are shown in, chosen by its longer makespan, so that a live run of
/// seconds and a simulated trace of weeks both read with a few significant digits.
#[derive(Clone, Copy)]
struct TimeUnit {
    symbol: &'static str,
    name: &'static str,
    seconds: f64,
}

impl TimeUnit {
    fn for_span(seconds: f64) -> TimeUnit {
        if seconds < 600.0 {
            TimeUnit { symbol: "s", name: "seconds", seconds: 1.0 }
        } else if seconds < 36_000.0 {
            TimeUnit { symbol: "min", name: "minutes", seconds: 60.0 }
        } else {
            TimeUnit { symbol: "h", name: "hours", seconds: 3600.0 }
        }
    }

    fn show(self, seconds: f64) -> String {
        if seconds.is_finite() { format!("{:.3}", seconds / self.seconds) } else { "-".into() }
    }
}

/// `+5.3%`, `-` for no value.
fn percent(fraction: f64) -> String {
    if fraction.is_finite() { format!("{:+.1}%", fraction * 100.0) } else { "-".into() }
}

/// `3 (ids 4, 9, 17)`, the first few ids of a longer list followed by `…`.
fn count_with_ids(ids: &[u64]) -> String {
    const SHOWN: usize = 5;
    if ids.is_empty() {
        return "0".into();
    }
    let shown: Vec<String> = ids.iter().take(SHOWN).map(u64::to_string).collect();
    let more = if ids.len() > SHOWN { ", …" } else { "" };
    format!("{} (ids {}{more})", ids.len(), shown.join(", "))
}

/// An experiment directory and its complete runs, in grid order.
struct Experiment {
    dir: PathBuf,
    /// The directory's own name, which names the experiment in figures and the default output.
    name: String,
    rows: Vec<RunRow>,
}

impl Experiment {
    fn open(dir: &Path) -> Result<Experiment, String> {
        if !dir.is_dir() {
            return Err(format!(
                "{} is not a directory (expected an experiment directory such as results/my-study)",
                dir.display()
            ));
        }
        let grid = GridFile::read(dir)?;
        let rows = complete_rows(dir, &grid)?;
        let name = dir
            .canonicalize()
            .ok()
            .and_then(|path| path.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or(grid.experiment);
        Ok(Experiment { dir: dir.to_path_buf(), name, rows })
    }
}

pub(super) fn compare(args: CompareArgs) -> Result<ExitCode, String> {
    let a = Experiment::open(&args.a)?;
    let b = Experiment::open(&args.b)?;
    let (name_a, name_b) = if a.name == b.name && a.dir != b.dir {
        (a.dir.display().to_string(), b.dir.display().to_string())
    } else {
        (a.name.clone(), b.name.clone())
    };
    let (matched, unmatched_a, unmatched_b) = match_runs(&a.rows, &b.rows)?;
    if matched.is_empty() {
        return Err(no_pair_message(&a, &b));
    }
    let mut pairs = Vec::new();
    for (run_a, run_b) in matched {
        let jobs = |experiment: &Experiment, run: &RunRow| {
            read_jobs(&experiment.dir, &run.info.run_key).map_err(|e| {
                format!("cannot read the jobs of run {} of {}: {e}", run.info.run_key, experiment.dir.display())
            })
        };
        pairs.push(Pair::new(run_a, run_b, &jobs(&a, run_a)?, &jobs(&b, run_b)?));
    }

    let out = args.out.unwrap_or_else(|| a.dir.join(format!("compare-{}", b.name)));
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let write = |name: &str, text: String| {
        let path = out.join(name);
        write_file_atomically(&path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok::<PathBuf, String>(path)
    };
    let compare_csv = write("compare.csv", jobs_csv(&pairs))?;
    let summary_csv = write("summary.csv", summary_csv(&pairs))?;

    let formats = image_formats(&args.format);
    let mut labels: Vec<&str> = Vec::new();
    for row in &a.rows {
        if !labels.contains(&row.info.label.as_str()) {
            labels.push(&row.info.label);
        }
    }
    let mut text = format!(
        "A = {} ({} runs), B = {} ({} runs): {} pairs of runs of the same grid point\n",
        a.dir.display(),
        a.rows.len(),
        b.dir.display(),
        b.rows.len(),
        pairs.len()
    );
    let mut figures_failed = false;
    for pair in &pairs {
        let style = Style::nth(labels.iter().position(|l| *l == pair.a.info.label).unwrap_or(0));
        let stem = out.join(format!("jct-{}", pair.a.info.run_key));
        // Not `with_extension`: run keys hold dots (`load0.6`).
        let with_extension = |extension: &str| {
            let mut path = stem.clone().into_os_string();
            path.push(format!(".{extension}"));
            PathBuf::from(path)
        };
        let outputs: Vec<(ImageFormat, PathBuf)> =
            formats.iter().map(|format| (*format, with_extension(format.extension()))).collect();
        text += &pair_block(pair, &name_a, &name_b);
        match render::render_scatter(&scatter(pair, &name_a, &name_b, style), Size::default(), &outputs) {
            Ok(()) => {
                let extensions: Vec<&str> = formats.iter().map(|format| format.extension()).collect();
                let extensions = match extensions.as_slice() {
                    [one] => one.to_string(),
                    several => format!("{{{}}}", several.join(",")),
                };
                text += &format!("  figure      {}.{extensions}\n", stem.display());
            }
            Err(e) => {
                figures_failed = true;
                text += &format!("  figure      not drawn: {e}\n");
            }
        }
    }
    for (side, other, runs) in [("A", "B", &unmatched_a), ("B", "A", &unmatched_b)] {
        for run in runs {
            text += &format!("\nno partner in {other} for {side}'s run {} ({})", run.info.run_key, describe(&run.info));
        }
    }
    text += &format!(
        "\n{}: {} job pairs\n{}: {} run pairs\n",
        compare_csv.display(),
        pairs.iter().map(|p| p.jobs.len()).sum::<usize>(),
        summary_csv.display(),
        pairs.len()
    );
    super::emit(&text);
    Ok(if figures_failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// The formats asked for, each once, in the order given; all three when none is.
fn image_formats(asked: &[FormatArg]) -> Vec<ImageFormat> {
    let mut formats = Vec::new();
    for format in asked {
        let format = match format {
            FormatArg::Svg => ImageFormat::Svg,
            FormatArg::Pdf => ImageFormat::Pdf,
            FormatArg::Png => ImageFormat::Png,
        };
        if !formats.contains(&format) {
            formats.push(format);
        }
    }
    if formats.is_empty() { ImageFormat::ALL.to_vec() } else { formats }
}

/// Runs of A and B paired by [`point_fields`], in A's order, with the runs of each side that
/// have no partner.
type Matched<'a> = (Vec<(&'a RunRow, &'a RunRow)>, Vec<&'a RunRow>, Vec<&'a RunRow>);

fn match_runs<'a>(a: &'a [RunRow], b: &'a [RunRow]) -> Result<Matched<'a>, String> {
    let key = |row: &RunRow| point_fields(&row.info).map(|(_, value)| value);
    let mut by_key: BTreeMap<_, (usize, &RunRow)> = BTreeMap::new();
    for (index, row) in b.iter().enumerate() {
        if let Some((_, earlier)) = by_key.insert(key(row), (index, row)) {
            return Err(format!(
                "runs {} and {} of one experiment are the same grid point ({}); compare needs one run per point",
                earlier.info.run_key,
                row.info.run_key,
                describe(&row.info)
            ));
        }
    }
    let (mut matched, mut unmatched_a) = (Vec::new(), Vec::new());
    for row in a {
        match by_key.remove(&key(row)) {
            Some((_, partner)) => matched.push((row, partner)),
            None => unmatched_a.push(row),
        }
    }
    let mut unmatched_b: Vec<(usize, &RunRow)> = by_key.into_values().collect();
    unmatched_b.sort_by_key(|(index, _)| *index);
    Ok((matched, unmatched_a, unmatched_b.into_iter().map(|(_, row)| row).collect()))
}

/// Why nothing paired: the pairing rule and the first run of each side, with the fields that
/// differ between them.
fn no_pair_message(a: &Experiment, b: &Experiment) -> String {
    let fields = |e: &Experiment| e.rows.first().map(|row| point_fields(&row.info)).unwrap_or_default();
    let (first_a, first_b) = (fields(a), fields(b));
    let show = |fields: &[(&str, String)]| {
        fields.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join(" ")
    };
    let differ: Vec<&str> = first_a.iter().zip(&first_b).filter(|(x, y)| x.1 != y.1).map(|(x, _)| x.0).collect();
    let names: Vec<&str> = first_a.iter().map(|(name, _)| *name).collect();
    format!(
        "no run of {} is the same grid point as a run of {} (runs pair when {} agree; the engine may differ). A's first run: {}; B's first run: {}; they differ in: {}",
        a.dir.display(),
        b.dir.display(),
        names.join(", "),
        show(&first_a),
        show(&first_b),
        differ.join(", ")
    )
}

/// The table a simulator-fidelity section reports, for one pair.
fn pair_block(pair: &Pair, name_a: &str, name_b: &str) -> String {
    let s = &pair.stats;
    let mut jobs = format!(
        "{} tracked in A, {} in B, {} in both; {} finished in both, finished only in A: {}, only in B: {}",
        pair.jobs.len() + pair.only_in_a.len(),
        pair.jobs.len() + pair.only_in_b.len(),
        pair.jobs.len(),
        s.finished_both,
        count_with_ids(&s.finished_only_a),
        count_with_ids(&s.finished_only_b)
    );
    if !pair.only_in_a.is_empty() || !pair.only_in_b.is_empty() {
        jobs += &format!(
            "; tracked only in A: {}, only in B: {}",
            count_with_ids(&pair.only_in_a),
            count_with_ids(&pair.only_in_b)
        );
    }
    let run =
        |info: &RunInfo, name: &str| format!("{} ({name}, round_s {})", info.run_key, fmt_number(info.round_seconds));
    let columns = |title: &str, a: &str, b: &str, diff: &str| format!("  {title:<12}{a:>12}{b:>12}{diff:>10}\n");
    let unit = TimeUnit::for_span(s.makespan.0.max(s.makespan.1));
    let metric = |title: &str, (a, b): (f64, f64)| {
        columns(&format!("{title} {}", unit.symbol), &unit.show(a), &unit.show(b), &percent(relative((a, b))))
    };
    let mut text = format!("\n{}\n", describe(&pair.a.info));
    text += &format!("  A           {}\n", run(&pair.a.info, name_a));
    text += &format!("  B           {}\n", run(&pair.b.info, name_b));
    text += &format!("  jobs        {jobs}\n");
    text += &columns("", "A", "B", "B vs A");
    text += &metric("avg JCT", s.avg_jct);
    text += &metric("makespan", s.makespan);
    text += &format!(
        "  per job     |JCT B - JCT A| {}: median {}, p95 {}; JCT B / JCT A: median {}, p95 {}\n",
        unit.symbol,
        unit.show(s.abs_diff.0),
        unit.show(s.abs_diff.1),
        ratio_text(s.ratio.0),
        ratio_text(s.ratio.1)
    );
    text
}

fn ratio_text(ratio: f64) -> String {
    if ratio.is_finite() { format!("{ratio:.3}") } else { "-".into() }
}

/// The per-job JCT scatter of a pair, in the pair's unit; log axes when the JCTs span more than two
/// decades, where a linear axis would crowd most jobs into a corner.
fn scatter(pair: &Pair, name_a: &str, name_b: &str, style: Style) -> ScatterChart {
    let s = &pair.stats;
    let unit = TimeUnit::for_span(s.makespan.0.max(s.makespan.1));
    let points: Vec<(f64, f64)> =
        pair.jobs.iter().filter_map(|job| Some((job.jct_a? / unit.seconds, job.jct_b? / unit.seconds))).collect();
    let positive = points.iter().flat_map(|(x, y)| [*x, *y]).filter(|v| *v > 0.0 && v.is_finite());
    let (min, max) = positive.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let scale = if max / min > 100.0 { Scale::Log } else { Scale::Linear };
    let info = &pair.a.info;
    let load = info.load.map(|l| format!(", load {}", fmt_number(l))).unwrap_or_default();
    ScatterChart {
        title: format!("{}: JCT per job{}, seed {}", info.label, load, info.seed),
        x_label: format!("JCT in {name_a} ({})", unit.name),
        y_label: format!("JCT in {name_b} ({})", unit.name),
        scale,
        points,
        style,
        notes: vec![format!(
            "{} jobs finished in both; dashed: y = x. Average JCT {} vs {} {} ({}), makespan {}.",
            s.finished_both,
            unit.show(s.avg_jct.0),
            unit.show(s.avg_jct.1),
            unit.symbol,
            percent(relative(s.avg_jct)),
            percent(relative(s.makespan))
        )],
    }
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
fn jobs_csv(pairs: &[Pair]) -> String {
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

/// `summary.csv`: one row per pair of runs with the numbers [`pair_block`] prints, in seconds
/// and fractions (relative differences are (B - A) / A).
fn summary_csv(pairs: &[Pair]) -> String {
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

    fn job(id: u64, jct_a: Option<f64>, jct_b: Option<f64>) -> JobPair {
        JobPair { id, jct_a, jct_b }
    }

    #[test]
    fn times_are_shown_in_a_unit_fitting_the_pair() {
        let units: Vec<&str> =
            [30.0, 599.0, 600.0, 35_999.0, 36_000.0, 9e6].map(|s| TimeUnit::for_span(s).symbol).to_vec();
        assert_eq!(units, ["s", "s", "min", "min", "h", "h"]);
        assert_eq!(TimeUnit::for_span(30.0).show(12.5), "12.500");
        assert_eq!(TimeUnit::for_span(9e6).show(5400.0), "1.500");
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
        let s = Stats::of(&jobs, (1000.0, 1100.0));
        assert_eq!(s.finished_both, 3);
        assert_eq!((s.finished_only_a, s.finished_only_b), (vec![4], vec![5]));
        assert_eq!(s.avg_jct, (100.0, 260.0 / 3.0));
        assert_eq!(s.abs_diff.0, 50.0, "median of 10, 50, 100");
        assert_eq!(s.ratio.0, 1.0, "median of 0.5 and 1.5");
        assert!((relative(s.makespan) - 0.1).abs() < 1e-12);
        assert_eq!(relative((0.0, 0.0)), 0.0);
        assert!(!relative((0.0, 5.0)).is_finite());
        let empty = Stats::of(&[], (f64::NAN, f64::NAN));
        assert!(empty.avg_jct.0.is_nan() && empty.ratio.1.is_nan());
        let unit = TimeUnit::for_span(f64::NAN);
        assert_eq!((unit.show(empty.avg_jct.0), percent(relative(empty.makespan))), ("-".into(), "-".into()));
    }

    #[test]
    fn runs_pair_by_grid_point_whatever_the_engine() {
        let run = |key: &str, label: &str, seed: u64, round_seconds: f64| RunRow {
            info: RunInfo {
                experiment: "x".into(),
                run_key: key.into(),
                label: label.into(),
                seed,
                round_seconds,
                ..RunInfo::default()
            },
            ..RunRow::default()
        };
        let a = [run("a1", "FIFO", 1, 300.0), run("a2", "FIFO", 2, 300.0), run("a3", "LAS", 1, 300.0)];
        let b = [run("b1", "SRTF", 1, 60.0), run("b2", "LAS", 1, 60.0), run("b3", "FIFO", 1, 60.0)];
        let (matched, only_a, only_b) = match_runs(&a, &b).unwrap();
        let keys: Vec<(&str, &str)> =
            matched.iter().map(|(x, y)| (x.info.run_key.as_str(), y.info.run_key.as_str())).collect();
        assert_eq!(keys, [("a1", "b3"), ("a3", "b2")]);
        assert_eq!((only_a[0].info.run_key.as_str(), only_b[0].info.run_key.as_str()), ("a2", "b1"));
        let twice = [run("b1", "LAS", 1, 60.0), run("b2", "LAS", 1, 30.0)];
        let error = match_runs(&a, &twice).err().unwrap();
        assert!(error.contains("b1 and b2") && error.contains("same grid point"), "{error}");
    }

    #[test]
    fn long_id_lists_show_the_first_few() {
        assert_eq!(count_with_ids(&[]), "0");
        assert_eq!(count_with_ids(&[3, 9]), "2 (ids 3, 9)");
        assert_eq!(count_with_ids(&[1, 2, 3, 4, 5, 6, 7]), "7 (ids 1, 2, 3, 4, 5, …)");
    }
}
