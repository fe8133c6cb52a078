//! The table `blox run` prints at the end: one line per grid point with its seeds aggregated
//! (mean ± sample sd), grid keys that are the same on every line moved into a heading, and text
//! columns shortened to fit the terminal. `--quiet` prints one line per policy label instead.

use crate::core::metrics::mean;
use crate::results::RunRow;
use crate::text::fmt_number;

/// Width used when stdout is not a terminal: wide enough for any table a spec yields in
/// practice, so piped output is never cut.
const PIPE_WIDTH: usize = 200;
/// Text columns are never shortened below this.
const MIN_TEXT: usize = 8;

/// Seeds of one grid point, aggregated.
struct Group<'a> {
    label: &'a str,
    cluster: &'a str,
    workload: &'a str,
    load: Option<f64>,
    rows: Vec<&'a RunRow>,
}

fn groups(rows: &[RunRow]) -> Vec<Group<'_>> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for row in rows {
        let i = &row.info;
        match groups
            .iter_mut()
            .find(|g| g.label == i.label && g.cluster == i.cluster && g.workload == i.workload && g.load == i.load)
        {
            Some(group) => group.rows.push(row),
            None => groups.push(Group {
                label: &i.label,
                cluster: &i.cluster,
                workload: &i.workload,
                load: i.load,
                rows: vec![row],
            }),
        }
    }
    groups
}

/// `1.234 ± 0.056` over the finite values (NaN marks "no value"), `1.234` for one, `-` for none.
fn mean_sd(values: &[f64], decimals: usize) -> String {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    match finite.len() {
        0 => "-".into(),
        1 => format!("{:.decimals$}", finite[0]),
        n => {
            let m = mean(&finite);
            let var = finite.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1) as f64;
            format!("{m:.decimals$} ± {:.decimals$}", var.sqrt())
        }
    }
}

fn terminal_width() -> usize {
    let term = console::Term::stdout();
    if term.is_term() { term.size_checked().map_or(100, |(_, cols)| usize::from(cols)) } else { PIPE_WIDTH }
}

/// Shortens `s` to `width` characters with a trailing `…`.
fn fit(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_owned()
    } else {
        let kept: String = s.chars().take(width.saturating_sub(1)).collect();
        format!("{kept}…")
    }
}

pub(super) fn print_summary(rows: &[RunRow]) {
    if rows.is_empty() {
        return;
    }
    let groups = groups(rows);
    let same = |f: &dyn Fn(&Group<'_>) -> String| groups.iter().all(|g| f(g) == f(&groups[0]));
    let load_text = |g: &Group<'_>| g.load.map(fmt_number).unwrap_or_else(|| "-".into());
    let (same_cluster, same_workload, same_load) =
        (same(&|g| g.cluster.to_owned()), same(&|g| g.workload.to_owned()), same(&load_text));
    let mut heading = Vec::new();
    if same_cluster {
        heading.push(format!("cluster {}", groups[0].cluster));
    }
    if same_workload {
        heading.push(format!("workload {}", groups[0].workload));
    }
    if same_load && groups[0].load.is_some() {
        heading.push(format!("load {}", load_text(&groups[0])));
    }
    let seeds_vary = groups.iter().any(|g| g.rows.len() > 1);
    if seeds_vary {
        heading.push("mean ± sd over seeds".into());
    }

    // Columns: (title, cells, is text).
    let mut columns: Vec<(&str, Vec<String>, bool)> =
        vec![("label", groups.iter().map(|g| g.label.into()).collect(), true)];
    if !same_cluster {
        columns.push(("cluster", groups.iter().map(|g| g.cluster.into()).collect(), true));
    }
    if !same_workload {
        columns.push(("workload", groups.iter().map(|g| g.workload.into()).collect(), true));
    }
    if !same_load {
        columns.push(("load", groups.iter().map(load_text).collect(), false));
    }
    if seeds_vary {
        columns.push(("seeds", groups.iter().map(|g| g.rows.len().to_string()).collect(), false));
    }
    let metric = |f: fn(&RunRow) -> f64, decimals: usize| -> Vec<String> {
        groups.iter().map(|g| mean_sd(&g.rows.iter().map(|r| f(r)).collect::<Vec<_>>(), decimals)).collect()
    };
    columns.push(("avg JCT h", metric(|r| r.summary.avg_jct / 3600.0, 3), false));
    columns.push(("p99 JCT h", metric(|r| r.summary.p99_jct / 3600.0, 3), false));
    columns.push(("avg resp h", metric(|r| r.summary.avg_responsiveness / 3600.0, 3), false));
    columns.push(("preemptions", metric(|r| r.summary.preemptions as f64, usize::from(seeds_vary)), false));
    columns.push(("util %", metric(|r| r.summary.gpu_utilization * 100.0, 1), false));
    if rows.iter().any(|r| r.summary.deadlines.deadline_ratio.is_some()) {
        columns.push(("ddl ratio", metric(|r| r.summary.deadlines.deadline_ratio.unwrap_or(f64::NAN), 3), false));
    }

    let mut widths: Vec<usize> = columns
        .iter()
        .map(|(title, cells, _)| cells.iter().map(|c| c.chars().count()).max().unwrap_or(0).max(title.len()))
        .collect();
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
    let available = terminal_width();
    while total(&widths) > available {
        let widest_text =
            (0..columns.len()).filter(|&i| columns[i].2 && widths[i] > MIN_TEXT).max_by_key(|&i| widths[i]);
        let Some(i) = widest_text else { break };
        widths[i] -= 1;
    }

    if !heading.is_empty() {
        outln!("{}", heading.join(" · "));
    }
    let line = |cell: &dyn Fn(usize) -> String| {
        let cells: Vec<String> = (0..columns.len())
            .map(|i| {
                let text = fit(&cell(i), widths[i]);
                if columns[i].2 { format!("{text:<w$}", w = widths[i]) } else { format!("{text:>w$}", w = widths[i]) }
            })
            .collect();
        outln!("{}", cells.join("  ").trim_end());
    };
    line(&|i| columns[i].0.to_owned());
    for g in 0..groups.len() {
        line(&|i| columns[i].1[g].clone());
    }
}

/// `--quiet`: per label, its complete runs, failures, and the range of mean JCT and utilisation
/// over its grid points.
pub(super) fn print_per_label(rows: &[RunRow], failures: &[(String, String)]) {
    let mut labels: Vec<&str> = Vec::new();
    for row in rows {
        if !labels.contains(&row.info.label.as_str()) {
            labels.push(&row.info.label);
        }
    }
    let range = |values: Vec<f64>, decimals: usize| {
        let finite: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        let (lo, hi) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        match finite.len() {
            0 => "-".to_owned(),
            _ if lo == hi => format!("{lo:.decimals$}"),
            _ => format!("{lo:.decimals$}–{hi:.decimals$}"),
        }
    };
    for label in labels {
        let mine: Vec<&RunRow> = rows.iter().filter(|r| r.info.label == label).collect();
        outln!(
            "{label}: {} runs, avg JCT {} h, util {} %",
            mine.len(),
            range(mine.iter().map(|r| r.summary.avg_jct / 3600.0).collect(), 3),
            range(mine.iter().map(|r| r.summary.gpu_utilization * 100.0).collect(), 1),
        );
    }
    if !failures.is_empty() {
        outln!("{} runs failed", failures.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_summarised_as_mean_and_sample_sd() {
        assert_eq!(mean_sd(&[1.0, 2.0, 3.0], 3), "2.000 ± 1.000");
        assert_eq!(mean_sd(&[1.5], 2), "1.50");
        assert_eq!(mean_sd(&[f64::NAN, 2.0], 1), "2.0");
        assert_eq!(mean_sd(&[f64::NAN], 1), "-");
    }

    #[test]
    fn text_is_shortened_with_an_ellipsis() {
        assert_eq!(fit("trace-cluster05", 8), "trace-c…");
        assert_eq!(fit("short", 8), "short");
    }
}
