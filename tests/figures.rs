//! Figures end to end: a small spec declaring every figure kind is run by the `blox` binary, and
//! every figure must come out as a decodable PNG of the requested size with real ink on it and an
//! SVG that carries its axis labels and legend entries; `blox plot` redraws them from the tables.

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

/// Pixels of the PNG at `path`, checked to decode at `size` as 8-bit RGB(A).
fn decode(path: &Path, (width, height): (u32, u32)) -> (Vec<u8>, usize) {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file)).read_info().expect("PNG header decodes");
    let mut pixels = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut pixels).expect("PNG data decodes");
    assert_eq!((info.width, info.height), (width, height), "{}", path.display());
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
        for text in texts {
            assert!(svg.contains(text), "{name}.svg lacks `{text}`");
        }
    }
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
        assert!(listed.contains(name), "`blox plot` does not list {name}:\n{listed}");
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
