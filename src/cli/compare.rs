//! `blox compare A B`: the runs of two experiments that are the same grid point, side by side job
//! by job. Meant for a live run beside the simulation of its spec and trace (how Blox validates
//! its simulator), and works as well for two simulations (round lengths, overheads, engines).
//! Pairing, statistics and the CSVs are the library's ([`crate::results::compare`]); this file
//! opens the two experiments, writes the files, prints each pair and draws its JCT scatter.

use super::experiment::complete_rows;
use crate::figures::render::{self, ImageFormat, Scale, ScatterChart, Size, Style};
use crate::results::compare::{RunPair, describe, jobs_csv, pair_runs, point_fields, relative, summary_csv};
use crate::results::store::write_file_atomically;
use crate::results::{RunInfo, RunRow, read_jobs};
use crate::runner::GridFile;
use crate::text::fmt_number;
use clap::{Args, ValueEnum};
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
    let pairing = pair_runs(&a.rows, &b.rows).map_err(|e| e.to_string())?;
    if pairing.matched.is_empty() {
        return Err(no_pair_message(&a, &b));
    }
    let mut pairs = Vec::new();
    for &(run_a, run_b) in &pairing.matched {
        let jobs = |experiment: &Experiment, run: &RunRow| {
            read_jobs(&experiment.dir, &run.info.run_key).map_err(|e| {
                format!("cannot read the jobs of run {} of {}: {e}", run.info.run_key, experiment.dir.display())
            })
        };
        pairs.push(RunPair::new(run_a, run_b, &jobs(&a, run_a)?, &jobs(&b, run_b)?));
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
    for (side, other, runs) in [("A", "B", &pairing.only_in_a), ("B", "A", &pairing.only_in_b)] {
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
fn pair_block(pair: &RunPair, name_a: &str, name_b: &str) -> String {
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
fn scatter(pair: &RunPair, name_a: &str, name_b: &str, style: Style) -> ScatterChart {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::compare::PairStats;

    #[test]
    fn times_are_shown_in_a_unit_fitting_the_pair() {
        let units: Vec<&str> =
            [30.0, 599.0, 600.0, 35_999.0, 36_000.0, 9e6].map(|s| TimeUnit::for_span(s).symbol).to_vec();
        assert_eq!(units, ["s", "s", "min", "min", "h", "h"]);
        assert_eq!(TimeUnit::for_span(30.0).show(12.5), "12.500");
        assert_eq!(TimeUnit::for_span(9e6).show(5400.0), "1.500");
    }

    #[test]
    fn missing_values_show_as_dashes() {
        let empty = PairStats::of(&[], (f64::NAN, f64::NAN));
        let unit = TimeUnit::for_span(f64::NAN);
        assert_eq!((unit.show(empty.avg_jct.0), percent(relative(empty.makespan))), ("-".into(), "-".into()));
        assert_eq!((percent(relative((100.0, 105.3))), ratio_text(empty.ratio.0)), ("+5.3%".into(), "-".into()));
    }

    #[test]
    fn long_id_lists_show_the_first_few() {
        assert_eq!(count_with_ids(&[]), "0");
        assert_eq!(count_with_ids(&[3, 9]), "2 (ids 3, 9)");
        assert_eq!(count_with_ids(&[1, 2, 3, 4, 5, 6, 7]), "7 (ids 1, 2, 3, 4, 5, …)");
    }
}
