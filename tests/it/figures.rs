//! Figures end to end: a small spec declaring every figure kind is run by the `blox` binary, and
//! every figure must come out as a decodable 300-dpi PNG with real ink on it, a self-contained SVG
//! that carries its axis labels and legend entries, a PDF embedding its font and a CSV of the
//! drawn values; `blox plot` redraws them from the tables. Further specs check what makes the
//! figures usable in a paper: a policy's look is the same in every figure, clusters zipped to
//! workloads become categories, error bars where seeds differ and a note where they do not,
//! ticks at the grid's loads, wrapped titles, and load-axis figures over workloads without a load.

use blox::results::metric::{RunMetric, TimeUnit};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn blox(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_blox")).args(args).current_dir(cwd).output().expect("blox runs")
}

const SPEC: &str = "name: kinds
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
  - {label: SRTF 1.2x, scheduler: srtf, admission: {load-based: {threshold: 1.2}}}
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}]
loads: [0.2, 0.3, 0.4]
seeds: [1, 2]
measure: {track: {ids: [20, 80]}}
figures:
  - metric-vs:
      name: jct-vs-load
      title: Mean JCT against load
      y: avg_jct
      x_label: Offered load (jobs/hour)
      y_label: Mean JCT (hours)
      size: [800, 500]
  - metric-vs: {name: normalized, y: p99_jct, y_log: true, normalize_to: FIFO}
  - cdf: {name: jct-cdf, metric: jct, x_label: JCT (hours), select: {load: [0.4]}}
  - timeline: {name: queue, series: queued, y_label: Jobs waiting, select: {load: [0.4], seed: [1]}}
  - bars: {name: responsiveness, y: avg_responsiveness, y_label: Responsiveness (hours), select: {load: [0.4]}}
";

/// (figure, requested size, texts its SVG must contain: axis labels and legend entries).
fn expectations() -> Vec<(&'static str, (u32, u32), Vec<&'static str>)> {
    let policies = ["FIFO", "LAS", "SRTF 1.2x"];
    let with_policies = |texts: &[&'static str]| texts.iter().copied().chain(policies).collect::<Vec<_>>();
    vec![
        (
            "jct-vs-load",
            (800, 500),
            with_policies(&["Mean JCT against load", "Offered load (jobs/hour)", "Mean JCT (hours)"]),
        ),
        ("normalized", (640, 400), with_policies(&["normalized to FIFO", "Load (jobs/hour)"])),
        ("jct-cdf", (640, 400), with_policies(&["JCT (hours)", "Fraction of jobs"])),
        ("queue", (640, 400), with_policies(&["Jobs waiting", "Simulated time (hours)"])),
        // One series of bars: the policies are the categories, and there is no legend.
        ("responsiveness", (640, 400), with_policies(&["Responsiveness (hours)"])),
    ]
}

/// Pixels of the PNG at `path`, checked to decode as 8-bit RGB(A) at 300 dpi (a `pHYs` chunk) and
/// at the pixel size that gives a figure of `size` its physical size (1/192 inch per unit).
fn decode(path: &Path, (width, height): (u32, u32)) -> (Vec<u8>, usize) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("PNG header decodes");
    let dims = reader.info().pixel_dims.expect("PNG has a pHYs chunk");
    assert_eq!((dims.xppu, dims.yppu, dims.unit), (11811, 11811, png::Unit::Meter), "300 dpi: {}", path.display());
    let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut pixels).expect("PNG data decodes");
    let at_300_dpi = |side: u32| (f64::from(side) * 300.0 / 192.0).round() as u32;
    assert_eq!((info.width, info.height), (at_300_dpi(width), at_300_dpi(height)), "{}", path.display());
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{}", path.display());
    (pixels[..info.buffer_size()].to_vec(), info.color_type.samples())
}

/// Share of pixels that are not the white background.
fn inked_share(pixels: &[u8], samples: usize) -> f64 {
    let pixels: Vec<&[u8]> = pixels.chunks(samples).collect();
    pixels.iter().filter(|p| p[..3].iter().any(|&c| c < 235)).count() as f64 / pixels.len() as f64
}

fn check_figures(dir: &Path) {
    for (name, size, texts) in expectations() {
        let (pixels, samples) = decode(&dir.join(format!("{name}.png")), size);
        let inked = inked_share(&pixels, samples);
        assert!(inked > 0.02, "{name}.png is nearly blank ({:.1} % ink)", inked * 100.0);
        assert!(inked < 0.6, "{name}.png is mostly ink ({:.1} %): background missing?", inked * 100.0);
        let corner = &pixels[..3];
        assert_eq!(corner, [255, 255, 255], "{name}.png has a white background");
        let svg = std::fs::read_to_string(dir.join(format!("{name}.svg"))).unwrap();
        assert!(!svg.contains("<text"), "{name}.svg: text must be outlines, not left to a viewer's fonts");
        let shown = svg_texts(&svg).join("\n");
        for text in texts {
            assert!(shown.contains(text), "{name}.svg lacks `{text}`");
        }
        let pdf = std::fs::read(dir.join(format!("{name}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{name}.pdf is not a PDF");
        let pdf = String::from_utf8_lossy(&pdf);
        assert!(pdf.contains("/FontFile2") && pdf.contains("DejaVuSans"), "{name}.pdf does not embed its font");
        let csv = read_csv(&dir.join(format!("{name}.csv")));
        assert!(!csv.is_empty(), "{name}.csv has no rows");
    }
}

/// The texts of an SVG written by blox (glyph outlines, each text named by an `aria-label`).
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("aria-label=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|t| t.replace("&amp;", "&").replace("&quot;", "\""))
        .collect()
}

/// The rows of a figure's CSV as column -> value maps.
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    reader
        .records()
        .map(|record| header.iter().cloned().zip(record.unwrap().iter().map(String::from)).collect())
        .collect()
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column].parse().unwrap_or_else(|_| panic!("`{column}` = {:?} is not a number", row[column]))
}

/// What draws a legend entry in an SVG: the elements between the previous entry's text and this
/// one's, reduced to their kind, colour and number of points (dash pieces, marker shape).
fn legend_swatch(svg: &str, label: &str) -> Vec<String> {
    let at = svg.find(&format!("<g aria-label=\"{label}\"")).unwrap_or_else(|| panic!("no `{label}` in the SVG"));
    let before: Vec<&str> = svg[..at].lines().collect();
    let start = before.iter().rposition(|l| l.starts_with("<g ")).map_or(0, |i| i + 1);
    before[start..]
        .iter()
        .map(|line| {
            let kind = line.split_whitespace().next().unwrap_or_default();
            let color = ["stroke=\"", "fill=\""]
                .iter()
                .find_map(|attribute| line.split(attribute).nth(1).and_then(|rest| rest.split('"').next()))
                .unwrap_or_default();
            let points = line.matches(',').count();
            format!("{kind} {color} {points}")
        })
        .collect()
}

#[test]
fn every_figure_kind_renders_at_the_end_of_a_run_and_again_with_blox_plot() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kinds.yaml"), SPEC).unwrap();
    let out = blox(&["run", "kinds.yaml", "--quiet", "--out", "results"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let experiment: PathBuf = dir.path().join("results/kinds");
    let figures = experiment.join("figures");
    check_figures(&figures);

    // Redrawn from the Parquet tables alone (the spec copy in the results directory).
    std::fs::remove_dir_all(&figures).unwrap();
    let out = blox(&["plot", "results/kinds"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    check_figures(&figures);
    let listed = String::from_utf8_lossy(&out.stdout);
    for (name, _, _) in expectations() {
        for extension in ["png", "svg", "pdf", "csv"] {
            let file = format!("{name}.{extension}");
            assert!(listed.contains(&file), "`blox plot` does not list {file}:\n{listed}");
        }
    }

    // Another spec's figures over the same tables.
    let other = SPEC.replace("name: jct-cdf, metric: jct,", "name: delay-cdf, metric: queueing_delay,");
    std::fs::write(dir.path().join("other.yaml"), other).unwrap();
    let out = blox(&["plot", "results/kinds", "--spec", "other.yaml"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(figures.join("delay-cdf.png").exists());
}

#[test]
fn figure_mistakes_are_reported_with_their_place_in_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("size: [800, 500]", "size: [10, 500]", "each side must be"),
        ("normalize_to: FIFO", "normalize_to: Gandiva", "Gandiva"),
        ("y: avg_responsiveness", "y: avg_happiness", "avg_jct"),
    ];
    for (from, to, expected) in cases {
        std::fs::write(dir.path().join("bad.yaml"), SPEC.replace(from, to)).unwrap();
        let out = blox(&["validate", "bad.yaml"], dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {stderr}");
        assert!(stderr.contains("bad.yaml:"), "{to}: no file:line in {stderr}");
        assert!(stderr.contains(expected), "{to}: `{expected}` missing from {stderr}");
    }
}

#[test]
fn plotting_a_directory_without_results_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = blox(&["plot", "nowhere"], dir.path());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nowhere"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn figures_draw_the_seeds_spread_and_csv_values_the_tables_hold() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kinds.yaml"), SPEC).unwrap();
    let out = blox(&["run", "kinds.yaml", "--quiet", "--out", "results"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let experiment = dir.path().join("results/kinds");
    let figures = experiment.join("figures");

    // The CSV holds exactly the plotted means over the two seeds, and their min and max.
    let runs = blox::results::read_runs(&experiment).unwrap();
    let csv = read_csv(&figures.join("jct-vs-load.csv"));
    assert_eq!(csv.len(), 3 * 3, "three policies at three loads");
    let mut some_spread = false;
    for row in &csv {
        let values: Vec<f64> = runs
            .iter()
            .filter(|r| r.info.label == row["series"] && r.info.load == Some(number(row, "x")))
            .map(|r| RunMetric::named("avg_jct").display_value(r, TimeUnit::Hours))
            .collect();
        assert_eq!(values.len(), 2, "two seeds per point");
        let mean = values.iter().sum::<f64>() / 2.0;
        assert!((number(row, "y") - mean).abs() < 1e-12, "{row:?} vs {values:?}");
        assert_eq!(number(row, "y_min"), values[0].min(values[1]));
        assert_eq!(number(row, "y_max"), values[0].max(values[1]));
        assert_eq!(row["n"], "2");
        some_spread |= values[0] != values[1];
    }
    assert!(some_spread, "the synthetic workload's seeds differ");
    let texts = svg_texts(&std::fs::read_to_string(figures.join("jct-vs-load.svg")).unwrap());
    assert!(texts.iter().any(|t| t.contains("Error bars: min–max over seeds 1 and 2")), "{texts:?}");

    // Ticks at the grid's loads, not at round numbers between them.
    for label in ["0.2", "0.3", "0.4"] {
        assert!(texts.iter().any(|t| t == label), "no tick at load {label}: {texts:?}");
    }
    assert!(!texts.iter().any(|t| t == "0.25" || t == "0.35" || t == "0.20"), "{texts:?}");

    // Bars: one number format for every value label.
    let bars = svg_texts(&std::fs::read_to_string(figures.join("responsiveness.svg")).unwrap());
    let csv = read_csv(&figures.join("responsiveness.csv"));
    let decimals: Vec<usize> = csv
        .iter()
        .map(|row| {
            let label = bars
                .iter()
                .find(|t| t.parse::<f64>().is_ok_and(|v| (v - number(row, "y")).abs() < 0.01 * number(row, "y")))
                .unwrap_or_else(|| panic!("no value label for {row:?} in {bars:?}"));
            label.split('.').nth(1).map_or(0, str::len)
        })
        .collect();
    assert!(decimals.windows(2).all(|w| w[0] == w[1]), "value labels differ in decimals: {decimals:?}");
}

#[test]
fn a_policy_looks_the_same_in_every_figure_whatever_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SPEC.replace(
        "  - metric-vs: {name: normalized,",
        "  - metric-vs: {name: without-fifo, y: avg_jct, select: {label: [SRTF 1.2x, LAS]}}
  - metric-vs: {name: srtf-only, y: avg_jct, select: {label: [SRTF 1.2x]}}
  - metric-vs: {name: normalized,",
    );
    std::fs::write(dir.path().join("kinds.yaml"), spec).unwrap();
    let out = blox(&["run", "kinds.yaml", "--quiet", "--out", "results"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let figures = dir.path().join("results/kinds/figures");
    let svg = |name: &str| std::fs::read_to_string(figures.join(format!("{name}.svg"))).unwrap();
    let (all, without_fifo, srtf_only) = (svg("jct-vs-load"), svg("without-fifo"), svg("srtf-only"));
    for label in ["LAS", "SRTF 1.2x"] {
        let everywhere = legend_swatch(&all, label);
        assert!(!everywhere.is_empty());
        assert_eq!(legend_swatch(&without_fifo, label), everywhere, "{label}: colour, dash or marker changed");
    }
    // Alone, SRTF still draws in its own colour (third in `policies:`), not the first one's.
    let (srtf, fifo) = ("#009e73", "#0072b2");
    assert!(srtf_only.contains(&format!("stroke=\"{srtf}\"")) && !srtf_only.contains(&format!("stroke=\"{fifo}\"")));
    // Bars whose categories are the policies: each bar in its policy's colour.
    let bars = svg("responsiveness");
    for color in ["#0072b2", "#d55e00", "#009e73"] {
        assert!(bars.contains(&format!("fill=\"{color}\"")), "no {color} bar");
    }
}

/// Two policies on two traces, each on its own cluster (as ElasticFlow's Fig. 8b), two seeds
/// that change nothing (no random transform), and a load-axis figure although no workload takes
/// a load.
const ZIPPED: &str = "name: zipped
policies:
  - {label: FIFO, scheduler: fifo}
  - {label: LAS, scheduler: las}
zip_clusters_workloads: true
clusters: [{nodes: 1, gpus_per_node: 2}, {nodes: 2, gpus_per_node: 2}]
workloads: [{csv: {path: small.csv}}, {csv: {path: big.csv}}]
seeds: [1, 2]
measure: {track: all}
figures:
  - bars: {name: per-trace, y: avg_jct, categories: workload, title: A title long enough that it cannot fit on one line of a one-column figure and has to wrap}
  - metric-vs: {name: on-load, y: avg_jct}
";

fn write_traces(dir: &Path) {
    std::fs::write(dir.join("small.csv"), "job_id,arrival_s,gpus,duration_s\n0,0,1,3600\n1,60,2,1800\n2,120,1,600\n")
        .unwrap();
    std::fs::write(
        dir.join("big.csv"),
        "job_id,arrival_s,gpus,duration_s\n0,0,4,7200\n1,30,2,3600\n2,90,1,600\n3,100,2,1200\n",
    )
    .unwrap();
}

#[test]
fn clusters_zipped_to_workloads_become_categories_and_seeds_that_agree_get_a_note() {
    let dir = tempfile::tempdir().unwrap();
    write_traces(dir.path());
    std::fs::write(dir.path().join("zipped.yaml"), ZIPPED).unwrap();
    let out = blox(&["run", "zipped.yaml", "--quiet", "--out", "results"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let figures = dir.path().join("results/zipped/figures");
    let csv = read_csv(&figures.join("per-trace.csv"));
    let series: Vec<&str> = csv.iter().map(|r| r["series"].as_str()).collect();
    assert_eq!(series, ["FIFO", "FIFO", "LAS", "LAS"], "one series per policy, not per cluster");
    let categories: Vec<&str> = csv.iter().map(|r| r["category"].as_str()).collect();
    assert_eq!(categories, ["csv-small (1x2)", "csv-big (2x2)", "csv-small (1x2)", "csv-big (2x2)"]);
    for row in &csv {
        assert_eq!((row["y_min"].as_str(), row["n"].as_str()), (row["y_max"].as_str(), "2"), "{row:?}");
    }
    let svg = std::fs::read_to_string(figures.join("per-trace.svg")).unwrap();
    let texts = svg_texts(&svg);
    assert!(
        texts.join(" ").contains("Seeds 1 and 2 give identical values at every point"),
        "no note on seeds that change nothing: {texts:?}"
    );
    assert_eq!(svg.matches("<g aria-label=\"FIFO\"").count(), 1, "one legend entry per policy");

    // The long title wraps: every word is there, nothing is cut.
    let title = "A title long enough that it cannot fit on one line of a one-column figure and has to wrap";
    let shown = texts.join(" ");
    assert!(shown.contains(title) && !shown.contains('…'), "{texts:?}");
    assert!(!texts.iter().any(|t| t == title), "the title was not wrapped");
}

#[test]
fn a_load_axis_over_workloads_without_a_load_does_not_fail_the_run_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    write_traces(dir.path());
    std::fs::write(dir.path().join("zipped.yaml"), ZIPPED).unwrap();
    let out = blox(&["run", "zipped.yaml", "--quiet", "--out", "results"], dir.path());
    // `--quiet` prints a figure's warnings (to stderr) but not its paths.
    let stdout = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        stdout.contains("x is `load`, but none of the selected runs has a load")
            && stdout.contains("their workloads `csv-small`, `csv-big` take none")
            && stdout.contains("drawn as bars by workload instead"),
        "{stdout}"
    );
    let figures = dir.path().join("results/zipped/figures");
    let csv = read_csv(&figures.join("on-load.csv"));
    assert_eq!(csv.len(), 4, "bars per policy and workload: {csv:?}");
    let texts = svg_texts(&std::fs::read_to_string(figures.join("on-load.svg")).unwrap()).join(" ");
    assert!(texts.contains("No selected run has a load"), "{texts}");

    // Mixed, as in the README: the runs with a load are drawn, the trace's are left out and named.
    let mixed = "name: mixed
policies: [{label: FIFO, scheduler: fifo}, {label: LAS, scheduler: las}]
clusters: [{nodes: 2, gpus_per_node: 4}]
workloads: [{blox-philly-synthetic: {}}, {csv: {path: small.csv}}]
loads: [0.2, 0.4]
measure: {track: {ids: [0, 20]}}
figures:
  - metric-vs: {name: avg-jct, x: load, y: avg_jct, normalize_to: FIFO}
";
    std::fs::write(dir.path().join("mixed.yaml"), mixed).unwrap();
    let out = blox(&["run", "mixed.yaml", "--quiet", "--out", "results"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(stdout.contains("left out the 2 runs of workload `csv-small`: it takes no load"), "{stdout}");
    let csv = read_csv(&dir.path().join("results/mixed/figures/avg-jct.csv"));
    assert_eq!(csv.len(), 4, "two policies at two loads: {csv:?}");
    assert!(csv.iter().filter(|r| r["series"] == "FIFO").all(|r| number(r, "y") == 1.0));
}
