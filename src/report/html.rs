//! The page's markup. Every text from the spec, the tables or the file system goes through
//! [`text`] (element content and attribute values) or [`script_json`] (the data the page's
//! script reads), so that a label like `<img src=x onerror=...>` or a description holding
//! `</script>` shows as itself and runs nothing. The figures are the renderer's SVG, whose texts
//! it escapes itself.

use super::compare::Section;
use super::{Experiment, MetricColumn, metric_columns, utc};
use crate::results::RunState;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");
/// Runs listed by state (failed, damaged, running, missing) before "and N more".
const MAX_LISTED: usize = 200;

/// `s` escaped for HTML element content and quoted attribute values.
pub use crate::text::escape_markup as text;

/// `value` as JSON that can stand inside `<script type="application/json">`: the characters
/// that could end the element or open a comment (`<`, `>`, `&`) and the line separators are
/// written as `\u` escapes, which JSON reads back as the same characters.
pub fn script_json(value: &impl Serialize) -> String {
    let json = serde_json::to_string(value).expect("the page's data serialises");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page's head. Its content security policy lets nothing load from anywhere (the page is
/// whole) and runs only the page's own script, by its hash: were some text to slip through
/// unescaped, an injected script or event handler would still not run.
pub(super) fn head(out: &mut String, title: &str) {
    use sha2::{Digest, Sha256};
    let script_hash = super::compare::base64(&Sha256::digest(SCRIPT.as_bytes()));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{script_hash}'\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        text(title)
    );
}

/// The report of one experiment directory.
pub(super) fn page(e: &Experiment) -> String {
    let name = &e.grid.experiment;
    let mut out = String::new();
    head(&mut out, &format!("blox report: {name}"));
    let _ = writeln!(out, "<header><h1>blox report: <span class=\"name\">{}</span></h1>", text(name));
    if let Some(description) = &e.description {
        let _ = writeln!(out, "<p class=\"description\">{}</p>", text(description));
    }
    out.push_str(
        "<nav><a href=\"#provenance\">Provenance</a> · <a href=\"#runs\">Runs</a> · <a href=\"#figures\">Figures</a>",
    );
    if !e.compares.is_empty() {
        out.push_str(" · <a href=\"#compare\">Comparisons</a>");
    }
    out.push_str(" · <a href=\"#spec\">Spec</a></nav></header>\n<main>\n");
    out.push_str("<div id=\"js-errors\" class=\"error\" role=\"alert\" hidden></div>\n");
    provenance(&mut out, e);
    runs(&mut out, e);
    figures(&mut out, e);
    if !e.compares.is_empty() {
        out.push_str("<section id=\"compare\"><h2>Comparisons</h2>\n");
        for section in &e.compares {
            match section {
                Ok(section) => compare_section(&mut out, section),
                Err(message) => {
                    let _ = writeln!(out, "<p class=\"error\">{}</p>", text(message));
                }
            }
        }
        out.push_str("</section>\n");
    }
    out.push_str("<section id=\"spec\"><h2>Spec</h2>\n");
    match &e.spec_text {
        Some(spec) => {
            let _ = writeln!(
                out,
                "<details><summary>spec.yaml ({} lines)</summary><pre>{}</pre></details>",
                spec.lines().count(),
                text(spec)
            );
        }
        None => out.push_str("<p class=\"error\">The directory holds no spec.yaml.</p>\n"),
    }
    out.push_str("</section>\n</main>\n");
    let _ = writeln!(out, "<script type=\"application/json\" id=\"report-data\">{}</script>", script_json(&data(e)));
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
    out
}

/// A page of one `blox compare` output directory alone.
pub(super) fn compare_page(title: &str, section: &Section) -> String {
    let mut out = String::new();
    head(&mut out, title);
    let _ = writeln!(out, "<header><h1>{}</h1></header>\n<main>", text(title));
    out.push_str("<div id=\"js-errors\" class=\"error\" role=\"alert\" hidden></div>\n");
    out.push_str("<section id=\"compare\">\n");
    compare_section(&mut out, section);
    out.push_str("</section>\n</main>\n");
    tail(&mut out);
    out
}

/// The end of a page without data of its own: the script (sortable tables, the error line).
pub(super) fn tail(out: &mut String) {
    let _ = writeln!(out, "<script type=\"application/json\" id=\"report-data\">{{}}</script>");
    let _ = writeln!(out, "<script>{SCRIPT}</script>\n</body>\n</html>");
}

fn provenance(out: &mut String, e: &Experiment) {
    out.push_str("<section id=\"provenance\"><h2>Provenance</h2>\n<table class=\"facts\">\n");
    let mut fact = |what: &str, value: String| {
        let _ = writeln!(out, "<tr><th scope=\"row\">{}</th><td>{value}</td></tr>", text(what));
    };
    fact("Experiment", format!("{} (<code>{}</code>)", text(&e.grid.experiment), text(&e.dir.display().to_string())));
    let spec_hash = &e.grid.spec_sha256;
    let hash_note = match &e.spec_text {
        Some(spec) if crate::digest::sha256_hex(spec.as_bytes()) != *spec_hash => {
            " <span class=\"warn\">(spec.yaml has changed since: its SHA-256 differs)</span>"
        }
        _ => "",
    };
    fact("Spec SHA-256", format!("<code>{}</code>{hash_note}", text(spec_hash)));
    fact("Grid expanded by", format!("blox {}", text(&e.grid.blox_version)));
    let rows = e.rows();
    let mut versions: Vec<(&str, usize)> = Vec::new();
    for row in &rows {
        match versions.iter_mut().find(|(v, _)| *v == row.blox_version) {
            Some((_, n)) => *n += 1,
            None => versions.push((&row.blox_version, 1)),
        }
    }
    if !versions.is_empty() {
        let list: Vec<String> = versions.iter().map(|(v, n)| format!("blox {} ({n} runs)", text(v))).collect();
        fact("Runs written by", list.join("; "));
    }
    let counts = StateCounts::of(&e.runs.iter().map(|r| &r.state).collect::<Vec<_>>());
    fact("Runs", counts.describe());
    if let Some((first, last)) = e.written {
        fact("Runs written", if first == last { utc(first) } else { format!("{} to {}", utc(first), utc(last)) });
    }
    if !rows.is_empty() {
        let total: f64 = rows.iter().map(|r| r.wall_time_s).sum();
        let longest = rows.iter().map(|r| r.wall_time_s).fold(0.0, f64::max);
        let cpu: f64 = rows.iter().map(|r| r.cpu_time_s).sum();
        fact(
            "Run time",
            format!(
                "{} in all (sum of the runs' wall times; {} of CPU), the longest run {}",
                duration(total),
                duration(cpu),
                duration(longest)
            ),
        );
    }
    fact(
        "Report",
        format!("written {} by blox {}", utc(std::time::SystemTime::now()), text(crate::version::LONG_VERSION)),
    );
    out.push_str("</table>\n");
    let listed: Vec<(&str, String)> = e
        .runs
        .iter()
        .filter_map(|r| {
            let (state, why) = match &r.state {
                RunState::Failed(why) => ("failed", why.as_str()),
                RunState::Damaged(why) => ("damaged", why.as_str()),
                RunState::Running => ("running", "running in another process"),
                RunState::Missing => ("missing", "not run yet"),
                RunState::Done(_) => return None,
            };
            Some((
                state,
                format!("<code>{}</code> {}: {}", text(&r.point.run_key), text(&r.point.describe()), text(why)),
            ))
        })
        .collect();
    if !listed.is_empty() {
        let _ =
            writeln!(out, "<details open><summary>{} runs not complete</summary><ul class=\"states\">", listed.len());
        for (state, line) in listed.iter().take(MAX_LISTED) {
            let _ = writeln!(out, "<li><span class=\"status {state}\">{state}</span> {line}</li>");
        }
        if listed.len() > MAX_LISTED {
            let _ = writeln!(
                out,
                "<li>and {} more (<code>blox status</code> lists them all)</li>",
                listed.len() - MAX_LISTED
            );
        }
        out.push_str("</ul></details>\n");
    }
    out.push_str("</section>\n");
}

/// Runs by state.
#[derive(Default)]
struct StateCounts {
    done: usize,
    failed: usize,
    damaged: usize,
    running: usize,
    missing: usize,
}

impl StateCounts {
    fn of(states: &[&RunState]) -> StateCounts {
        let mut counts = StateCounts::default();
        for state in states {
            match state {
                RunState::Done(_) => counts.done += 1,
                RunState::Failed(_) => counts.failed += 1,
                RunState::Damaged(_) => counts.damaged += 1,
                RunState::Running => counts.running += 1,
                RunState::Missing => counts.missing += 1,
            }
        }
        counts
    }

    fn describe(&self) -> String {
        let total = self.done + self.failed + self.damaged + self.running + self.missing;
        format!(
            "{total} in the grid: {} done, {} failed, {} damaged, {} running elsewhere, {} missing",
            self.done, self.failed, self.damaged, self.running, self.missing
        )
    }
}

/// `42.3 s`, `12.5 min`, `3.20 h`.
fn duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else if seconds < 7200.0 {
        format!("{:.1} min", seconds / 60.0)
    } else {
        format!("{:.2} h", seconds / 3600.0)
    }
}

fn runs(out: &mut String, e: &Experiment) {
    let budget = e.budget;
    let _ = writeln!(
        out,
        "<section id=\"runs\"><h2>Runs</h2>\n\
         <p>One row per run of the grid. Click a column's heading to sort by it (again to reverse), choose values to \
         filter by, and click a run's key for its drill-down. Times are in <select id=\"time-unit\" aria-label=\"time unit\">\
         <option value=\"s\">seconds</option><option value=\"min\">minutes</option><option value=\"h\">hours</option></select>.</p>\n\
         <div id=\"filters\" class=\"filters\"></div>\n\
         <p id=\"runs-count\" aria-live=\"polite\"></p>\n\
         <div class=\"scroll\"><table id=\"runs-table\" class=\"data\"><thead></thead><tbody></tbody></table></div>\n\
         <p><button id=\"more-rows\" type=\"button\" hidden>Show more rows</button></p>\n\
         <noscript><p class=\"warn\">The runs table and the drill-downs are drawn by the page's script, which is off; \
         the provenance, figures and spec are plain HTML.</p></noscript>\n\
         <section id=\"drill\" hidden aria-live=\"polite\"></section>\n\
         <p class=\"note\">Drill-downs embed at most {} points of each run's JCT distribution and {} buckets of its \
         timeline (per bucket: the most jobs queued and running and GPUs busy, and the preemptions summed).</p>\n</section>",
        budget.cdf_points, budget.timeline_buckets
    );
}

fn figures(out: &mut String, e: &Experiment) {
    out.push_str("<section id=\"figures\"><h2>Figures</h2>\n");
    if let Some(note) = &e.figures_note {
        let _ = writeln!(out, "<p class=\"warn\">{}</p>", text(note));
    }
    if e.figures.is_empty() && e.figures_note.is_none() {
        out.push_str("<p>The spec declares no figures.</p>\n");
    }
    for figure in &e.figures {
        match figure {
            Ok(figure) => {
                let _ = write!(
                    out,
                    "<figure id=\"figure-{}\" class=\"chart\">{}<figcaption>{}",
                    text(&figure.name),
                    figure.svg,
                    text(&figure.name)
                );
                for warning in &figure.warnings {
                    let _ = write!(out, "<br><span class=\"warn\">{}</span>", text(warning));
                }
                out.push_str("</figcaption></figure>\n");
            }
            Err(error) => {
                let _ = writeln!(out, "<p class=\"error\">{}</p>", text(&error.to_string()));
            }
        }
    }
    out.push_str("</section>\n");
}

fn compare_section(out: &mut String, section: &Section) {
    let _ = writeln!(
        out,
        "<h3><code>{}</code></h3>\n<p>Runs of two experiments paired by grid point (<code>summary.csv</code>): \
         times in seconds, relative differences as (B - A) / A.</p>",
        text(&section.dir.display().to_string())
    );
    out.push_str("<div class=\"scroll\"><table class=\"data sortable\"><thead><tr>");
    for column in &section.header {
        let _ = write!(out, "<th scope=\"col\">{}</th>", text(column));
    }
    out.push_str("</tr></thead><tbody>\n");
    for row in &section.rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{}</td>", text(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    if section.more_rows > 0 {
        let _ = writeln!(out, "<p class=\"warn\">and {} more pairs, left out of the page.</p>", section.more_rows);
    }
    out.push_str("<div class=\"scatters\">\n");
    for (key, scatter) in &section.scatters {
        match scatter {
            Ok(uri) => {
                let _ = writeln!(
                    out,
                    "<figure class=\"chart\"><img src=\"{}\" alt=\"JCT per job in B against A, run {}\" width=\"640\" height=\"400\"><figcaption>{}</figcaption></figure>",
                    text(uri),
                    text(key),
                    text(key)
                );
            }
            Err(why) => {
                let _ = writeln!(out, "<p class=\"warn\">{}</p>", text(why));
            }
        }
    }
    out.push_str("</div>\n");
}

/// Grid keys of the runs table, in the tables' order.
const KEYS: [&str; 11] = [
    "label",
    "scheduler",
    "placement",
    "admission",
    "cluster",
    "nodes",
    "total_gpus",
    "workload",
    "load",
    "seed",
    "round_s",
];

/// The data the page's script reads: the runs table by columns, the metric columns' units, and
/// each run's drill-down.
fn data(e: &Experiment) -> Value {
    let metrics: Vec<MetricColumn> = metric_columns();
    let run_metrics = super::run_metrics();
    let mut columns: Map<String, Value> = Map::new();
    let mut push = |column: &str, value: Value| {
        columns
            .entry(column.to_string())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .expect("columns are arrays")
            .push(value);
    };
    let number = |v: f64| if v.is_finite() { json!(super::drill::short(v)) } else { Value::Null };
    for run in &e.runs {
        let p = &run.point;
        let (status, message) = match &run.state {
            RunState::Done(_) => ("done", None),
            RunState::Failed(why) => ("failed", Some(why.as_str())),
            RunState::Damaged(why) => ("damaged", Some(why.as_str())),
            RunState::Running => ("running", Some("running in another process")),
            RunState::Missing => ("missing", None),
        };
        push("run_key", json!(p.run_key));
        push("status", json!(status));
        push("message", json!(message));
        let row = match &run.state {
            RunState::Done(row) => Some(&**row),
            _ => None,
        };
        let info = row.map(|r| &r.info);
        push("label", json!(p.label));
        push("scheduler", json!(p.scheduler));
        push("placement", json!(info.map(|i| &i.placement)));
        push("admission", json!(info.map(|i| &i.admission)));
        push("cluster", json!(p.cluster));
        push("nodes", json!(info.map(|i| i.nodes)));
        push("total_gpus", json!(info.map(|i| i.total_gpus)));
        push("workload", json!(p.workload));
        push("load", json!(p.load));
        push("seed", json!(p.seed));
        push("round_s", json!(info.map(|i| i.round_seconds)));
        for (metric, column) in run_metrics.iter().zip(&metrics) {
            push(&column.name, row.and_then(|r| metric.value(r)).map_or(Value::Null, number));
        }
        push("wall_time_s", row.map_or(Value::Null, |r| number(r.wall_time_s)));
        push("cpu_time_s", row.map_or(Value::Null, |r| number(r.cpu_time_s)));
    }
    let longest = e.rows().iter().map(|r| r.summary.makespan).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let time_unit = if longest < 600.0 {
        "s"
    } else if longest < 36_000.0 {
        "min"
    } else {
        "h"
    };
    json!({
        "keys": KEYS,
        "metrics": metrics,
        "time_unit": time_unit,
        "runs": columns,
        "drill": e.drill,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_escapes_markup_and_quotes() {
        assert_eq!(
            text(r#"<img src=x onerror="alert('1')">&"#),
            "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;"
        );
    }

    /// WCAG's contrast ratio of two `#rrggbb` colours.
    fn contrast(a: &str, b: &str) -> f64 {
        let luminance = |hex: &str| {
            let channel = |i: usize| {
                let c = f64::from(u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).unwrap()) / 255.0;
                if c <= 0.03928 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
            };
            0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2)
        };
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// Every text colour of the style sheet reads on every background it sets (and white) at
    /// WCAG AA's 4.5:1 for normal text: any pair, since rows, headings and states combine.
    #[test]
    fn text_colours_contrast_with_every_background() {
        let variable = |name: &str| {
            let start = STYLE.find(&format!("{name}:")).unwrap_or_else(|| panic!("{name} is defined")) + name.len() + 1;
            STYLE[start..].trim_start()[..7].to_string()
        };
        let colour = |value: &str| match value.trim().trim_end_matches(" !important") {
            v if v.starts_with("var(") => Some(variable(&v[4..v.len() - 1])),
            "#fff" => Some("#ffffff".to_string()),
            v if v.len() == 7 && v.starts_with('#') => Some(v.to_string()),
            _ => None,
        };
        let (mut texts, mut backgrounds) = (Vec::new(), vec!["#ffffff".to_string()]);
        for declaration in STYLE.split(['{', ';', '}']) {
            let Some((property, value)) = declaration.split_once(':') else { continue };
            match property.trim() {
                "color" | "fill" => texts.extend(colour(value)),
                "background" => backgrounds.extend(colour(value)),
                _ => {}
            }
        }
        assert!(texts.len() >= 6 && backgrounds.len() >= 5, "{texts:?} {backgrounds:?}");
        for text in &texts {
            for background in &backgrounds {
                let ratio = contrast(text, background);
                assert!(ratio >= 4.5, "{text} on {background}: {ratio:.2}:1");
            }
        }
    }

    #[test]
    fn script_json_cannot_end_its_element() {
        let value = json!({"name": "</script><script>alert(1)</script>", "sep": "a\u{2028}b", "c": "<!--"});
        let out = script_json(&value);
        assert!(!out.contains('<') && !out.contains('>') && !out.contains('\u{2028}'), "{out}");
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, value);
    }
}
