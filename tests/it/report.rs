//! `blox report` as a user runs it: a page of a small experiment with its runs, figures and
//! drill-downs; text from the spec and tables escaped (a label or description holding markup
//! or `</script>` injects nothing); runs failed, damaged or missing shown with their state;
//! `blox compare` outputs; and bad directories or output paths refused in the user's words.
//! The page opened in a real browser is `report_browser`.

use crate::common;

use common::{blox, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// FIFO and a policy whose label and the spec's description hold markup, two loads, figures.
pub(crate) const SPEC: &str = r#"name: page
description: "Markup </script><script>alert('description')</script> & <b>bold</b>"
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: "<img src=x onerror=alert(1)>", scheduler: las}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.5, 0.8]
seeds: [1]
measure: {track: {ids: [10, 40]}}
figures:
  - metric-vs: {name: avg-jct, y: avg_jct, unit: hours, title: "JCT <script>alert(2)</script>"}
  - cdf: {name: jct-cdf, metric: jct, select: {load: [0.8]}}
"#;

/// Runs `yaml` into `dir/out/<name>` and returns that directory.
pub(crate) fn run_spec(dir: &Path, file: &str, yaml: &str) -> PathBuf {
    std::fs::write(dir.join(file), yaml).unwrap();
    let out = blox(&["run", file, "--out", "out", "-q"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let name = yaml.lines().next().unwrap().trim_start_matches("name: ");
    dir.join("out").join(name)
}

/// The page's embedded data, parsed as the page's script parses it.
pub(crate) fn page_data(html: &str) -> Value {
    let start = html.find(r#"<script type="application/json" id="report-data">"#).expect("the page embeds its data");
    let rest = &html[start..];
    let json = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    serde_json::from_str(json).unwrap()
}

fn report(dir: &Path, args: &[&str]) -> (String, std::process::Output) {
    let out = blox(&[&["report"], args].concat(), dir);
    (text(&out.stderr), out)
}

#[test]
fn the_page_holds_the_grid_its_metrics_figures_and_drill_downs() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = run_spec(tmp.path(), "page.yaml", SPEC);
    let (stderr, out) = report(tmp.path(), &["out/page"]);
    assert!(out.status.success(), "{stderr}");
    assert!(text(&out.stdout).contains("4 runs (4 complete), 2 figures"), "{}", text(&out.stdout));
    let html = std::fs::read_to_string(experiment.join("report.html")).unwrap();
    // Offline: nothing refers to another resource.
    for remote in ["http://", "https://", "src=\"//"] {
        let outside_svg_namespaces =
            html.replace("http://www.w3.org/2000/svg", "").replace("http://www.w3.org/1999/xlink", "");
        assert!(!outside_svg_namespaces.contains(remote), "the page refers to {remote}");
    }
    assert_eq!(html.matches("<figure id=\"figure-").count(), 2);
    assert_eq!(html.matches("<svg xmlns=").count(), 2, "each figure inline as SVG");
    // Each figure's glyph ids are its own.
    assert!(html.contains("id=\"f0-r") && html.contains("id=\"f1-r"));
    let data = page_data(&html);
    let runs = &data["runs"];
    assert_eq!(runs["run_key"].as_array().unwrap().len(), 4);
    assert!(runs["status"].as_array().unwrap().iter().all(|s| s == "done"));
    let table = blox::results::read_runs(&experiment).unwrap();
    for (i, key) in runs["run_key"].as_array().unwrap().iter().enumerate() {
        let row = table.iter().find(|r| r.info.run_key == key.as_str().unwrap()).unwrap();
        let avg = runs["avg_jct_s"][i].as_f64().unwrap();
        assert!((avg - row.summary.avg_jct).abs() <= row.summary.avg_jct * 1e-4, "{avg} vs {}", row.summary.avg_jct);
        assert_eq!(runs["label"][i].as_str().unwrap(), row.info.label);
        let drill = &data["drill"][i];
        assert_eq!(drill["jobs"].as_u64().unwrap(), row.summary.tracked_jobs);
        assert_eq!(drill["finished"].as_u64().unwrap(), row.summary.tracked_finished);
        assert_eq!(drill["cdf_y"].as_array().unwrap().last().unwrap().as_f64(), Some(1.0));
        assert!(!drill["time"].as_array().unwrap().is_empty());
        let preempted: u64 = drill["preempted"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(preempted, row.summary.preemptions);
    }
}

#[test]
fn markup_in_the_spec_and_tables_is_shown_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = run_spec(tmp.path(), "page.yaml", SPEC);
    let (stderr, out) = report(tmp.path(), &["out/page", "-o", "page.html"]);
    assert!(out.status.success(), "{stderr}");
    let html = std::fs::read_to_string(tmp.path().join("page.html")).unwrap();
    // Only the page's own two script elements open; none of the spec's text became markup.
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<img src=x"));
    assert!(!html.contains("<b>bold"));
    assert!(html.contains(
        "Markup &lt;/script&gt;&lt;script&gt;alert(&#39;description&#39;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;"
    ));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"));
    // The figure's title is in its SVG as text (escaped by the renderer), not as an element.
    assert!(html.contains("aria-label=\"JCT &lt;script&gt;alert(2)&lt;/script&gt;\""));
    // The script reads the label back as it is.
    let data = page_data(&html);
    assert!(data["runs"]["label"].as_array().unwrap().iter().any(|l| l == "<img src=x onerror=alert(1)>"));
    // The page runs only its own script (by hash): an injected one would be refused.
    assert!(html.contains("script-src 'sha256-"));
    assert!(experiment.join("spec.yaml").exists());
}

#[test]
fn runs_not_complete_are_shown_with_their_state_and_why() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = run_spec(tmp.path(), "page.yaml", SPEC);
    let mut keys: Vec<String> = std::fs::read_dir(experiment.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    keys.sort();
    let parquet = |table: &str, key: &str| experiment.join(table).join(format!("{key}.parquet"));
    // A truncated jobs table: the run is damaged and says so.
    let jobs = std::fs::read(parquet("jobs", &keys[0])).unwrap();
    std::fs::write(parquet("jobs", &keys[0]), &jobs[..jobs.len() / 2]).unwrap();
    // A truncated runs file.
    let runs = std::fs::read(parquet("runs", &keys[1])).unwrap();
    std::fs::write(parquet("runs", &keys[1]), &runs[..runs.len() / 3]).unwrap();
    // A run that failed, and one never run.
    std::fs::remove_file(parquet("runs", &keys[2])).unwrap();
    std::fs::create_dir_all(experiment.join("failed")).unwrap();
    std::fs::write(experiment.join("failed").join(format!("{}.txt", keys[2])), "the <policy> gave up").unwrap();
    std::fs::remove_file(parquet("runs", &keys[3])).unwrap();

    let (stderr, out) = report(tmp.path(), &["out/page"]);
    assert!(out.status.success(), "{stderr}");
    assert!(text(&out.stdout).contains("4 runs (0 complete), 0 figures"), "{}", text(&out.stdout));
    let html = std::fs::read_to_string(experiment.join("report.html")).unwrap();
    assert!(html.contains("no run is complete yet"));
    let data = page_data(&html);
    let state_of = |key: &str| {
        let i = data["runs"]["run_key"].as_array().unwrap().iter().position(|k| k == key).unwrap();
        (data["runs"]["status"][i].as_str().unwrap().to_string(), data["runs"]["message"][i].as_str().map(String::from))
    };
    let (state, why) = state_of(&keys[0]);
    assert_eq!(state, "damaged");
    assert!(why.unwrap().contains("truncated or replaced"));
    assert_eq!(state_of(&keys[1]).0, "damaged");
    assert_eq!(state_of(&keys[2]), ("failed".into(), Some("the <policy> gave up".into())));
    assert_eq!(state_of(&keys[3]), ("missing".into(), None));
    assert!(html.contains("the &lt;policy&gt; gave up"));
    assert!(html.contains("4 in the grid: 0 done, 1 failed, 2 damaged, 0 running elsewhere, 1 missing"));
}

#[test]
fn a_run_whose_timeline_cannot_be_read_keeps_its_row_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let experiment = run_spec(tmp.path(), "page.yaml", SPEC);
    // Complete by its footers (same length), garbage inside: only reading the rows finds it.
    let timeline = std::fs::read_dir(experiment.join("timeline")).unwrap().next().unwrap().unwrap().path();
    let mut bytes = std::fs::read(&timeline).unwrap();
    let half = bytes.len() / 2;
    for byte in &mut bytes[8..half] {
        *byte = 0xAB;
    }
    std::fs::write(&timeline, &bytes).unwrap();
    let (stderr, out) = report(tmp.path(), &["out/page"]);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("1 runs' tables could not be read in full"), "{stderr}");
    let data = page_data(&std::fs::read_to_string(experiment.join("report.html")).unwrap());
    let errors: Vec<&str> = data["drill"].as_array().unwrap().iter().filter_map(|d| d["error"].as_str()).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("timeline"), "{}", errors[0]);
}

#[test]
fn bad_directories_and_output_paths_are_refused_in_words() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (stderr, out) = report(dir, &["nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("nowhere: no such directory"), "{stderr}");
    std::fs::create_dir(dir.join("empty")).unwrap();
    let (stderr, out) = report(dir, &["empty"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("has no grid.json: it is not an experiment directory written by `blox run`"), "{stderr}");
    std::fs::write(dir.join("file"), "x").unwrap();
    let (stderr, _) = report(dir, &["file"]);
    assert!(stderr.contains("file is not a directory"), "{stderr}");
    std::fs::create_dir(dir.join("bad")).unwrap();
    std::fs::write(dir.join("bad/grid.json"), "{not json").unwrap();
    let (stderr, out) = report(dir, &["bad"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("not a grid file blox wrote"), "{stderr}");

    run_spec(dir, "page.yaml", SPEC);
    let (stderr, out) = report(dir, &["out/page", "-o", "missing/dir/page.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("the directory missing/dir does not exist"), "{stderr}");
    let (stderr, out) = report(dir, &["out/page", "-o", "out"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("it is a directory"), "{stderr}");
    // A link at the output path is replaced by the page; the file it pointed to is untouched.
    std::fs::write(dir.join("precious.txt"), "keep me").unwrap();
    std::os::unix::fs::symlink(dir.join("precious.txt"), dir.join("link.html")).unwrap();
    let (stderr, out) = report(dir, &["out/page", "-o", "link.html"]);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("precious.txt")).unwrap(), "keep me");
    assert!(!std::fs::symlink_metadata(dir.join("link.html")).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(dir.join("link.html")).unwrap().starts_with("<!DOCTYPE html>"));
}

#[test]
fn comparisons_show_their_pairing_and_scatters() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let a = run_spec(dir, "page.yaml", SPEC);
    let fine = SPEC.replace("name: page", "name: fine").replace("policies:", "engine: {round_s: 60}\npolicies:");
    run_spec(dir, "fine.yaml", &fine);
    let out = blox(&["compare", "out/page", "out/fine", "--format", "svg"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (stderr, out) = report(dir, &["out/page"]);
    assert!(out.status.success(), "{stderr}");
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"compare\">"));
    assert_eq!(html.matches("<img src=\"data:image/svg+xml;base64,").count(), 4, "one scatter per pair");
    assert!(html.contains("<th scope=\"col\">avg_jct_rel_diff</th>"));
    // The comparison's own directory makes a page too.
    let (stderr, out) = report(dir, &["out/page/compare-fine", "-o", "compare.html"]);
    assert!(out.status.success(), "{stderr}");
    let html = std::fs::read_to_string(dir.join("compare.html")).unwrap();
    assert_eq!(html.matches("<img src=\"data:image/svg+xml;base64,").count(), 4);
}
