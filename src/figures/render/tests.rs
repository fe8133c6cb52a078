//! Every chart kind renders to files that decode at the requested size, show something, and
//! carry their text; degenerate input renders without panicking.

use std::path::{Path, PathBuf};

use super::*;

/// Deterministic pseudo-random numbers in [0, 1) (xorshift64*), so the test data needs no crate.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal by Box-Muller.
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-12), self.next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

fn axis(label: &str, scale: Scale) -> Axis {
    Axis { label: label.to_string(), scale, range: None }
}

const POLICIES: [&str; 3] = ["FIFO", "Tiresias", "Optimus"];

fn load_sweep(y_scale: Scale) -> LineChart {
    let growth = [(3.0, 1.55), (2.5, 1.42), (2.8, 1.35)];
    let series = POLICIES
        .iter()
        .zip(growth)
        .map(|(name, (start, rate))| Series {
            label: name.to_string(),
            points: (1..=9).map(|load| (load as f64, start * f64::powi(rate, load - 1))).collect(),
        })
        .collect();
    LineChart {
        title: "Average JCT vs. load".to_string(),
        x: axis("Load (jobs/hour)", Scale::Linear),
        y: axis("Average JCT (hours)", y_scale),
        series,
        markers: true,
    }
}

fn jct_cdf() -> LineChart {
    let mut noise = Noise(7);
    let series = POLICIES
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let mut jcts: Vec<f64> =
                (0..1000).map(|_| (7.5 - 0.4 * index as f64 + 1.6 * noise.normal()).exp() / 60.0).collect();
            jcts.sort_by(f64::total_cmp);
            let n = jcts.len() as f64;
            let points = jcts.into_iter().enumerate().map(|(i, jct)| (jct, (i + 1) as f64 / n)).collect();
            Series { label: name.to_string(), points }
        })
        .collect();
    LineChart {
        title: "JCT distribution".to_string(),
        x: axis("Job completion time (minutes)", Scale::Log),
        y: Axis { range: Some((0.0, 1.0)), ..axis("CDF", Scale::Linear) },
        series,
        markers: false,
    }
}

fn queue_timeline() -> LineChart {
    let mut noise = Noise(11);
    let series = ["Tiresias", "FIFO"]
        .iter()
        .enumerate()
        .map(|(index, name)| {
            let mut queued = 0.0f64;
            let points = (0..5000)
                .map(|step| {
                    let hour = step as f64 * 0.1;
                    let pressure = (hour / 24.0 * std::f64::consts::TAU).sin() * 0.6 + 0.15 * index as f64;
                    queued = (queued + pressure + 2.0 * (noise.next() - 0.5)).max(0.0);
                    (hour, queued)
                })
                .collect();
            Series { label: name.to_string(), points }
        })
        .collect();
    LineChart {
        title: "Queue length over time".to_string(),
        x: axis("Time (hours)", Scale::Linear),
        y: axis("Queued jobs", Scale::Linear),
        series,
        markers: false,
    }
}

fn policy_bars() -> BarChart {
    BarChart {
        title: "Average JCT per trace".to_string(),
        categories: ["Philly", "Helios", "Alibaba", "Synthetic"].map(String::from).to_vec(),
        y: axis("Average JCT (hours)", Scale::Linear),
        series: vec![
            ("FIFO".to_string(), vec![Some(12.4), Some(30.1), Some(8.75), Some(21.0)]),
            ("Tiresias".to_string(), vec![Some(7.9), Some(18.6), Some(6.12), Some(11.3)]),
            ("Optimus".to_string(), vec![Some(6.8), Some(20.2), Some(5.04), Some(9.87)]),
        ],
        value_labels: true,
    }
}

fn samples() -> Vec<(&'static str, Result<LineChart, BarChart>)> {
    vec![
        ("jct_vs_load", Ok(load_sweep(Scale::Linear))),
        ("jct_vs_load_log", Ok(load_sweep(Scale::Log))),
        ("jct_cdf", Ok(jct_cdf())),
        ("queue_timeline", Ok(queue_timeline())),
        ("jct_bars", Err(policy_bars())),
    ]
}

fn paths(directory: &Path, name: &str) -> (PathBuf, PathBuf) {
    (directory.join(format!("{name}.svg")), directory.join(format!("{name}.png")))
}

fn render_sample(chart: &Result<LineChart, BarChart>, size: Size, svg: &Path, png: &Path) -> Result<(), RenderError> {
    match chart {
        Ok(line) => render_line(line, size, svg, png),
        Err(bars) => render_bars(bars, size, svg, png),
    }
}

/// Decoded RGB pixels, checked to be `size`.
fn decode(png_path: &Path, size: Size) -> Vec<u8> {
    let file = std::io::BufReader::new(fs::File::open(png_path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), (size.width, size.height), "{}", png_path.display());
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    pixels
}

fn inked_share(pixels: &[u8]) -> f64 {
    let inked = pixels.chunks_exact(3).filter(|rgb| rgb.iter().any(|c| *c < 240)).count();
    inked as f64 / (pixels.len() / 3) as f64
}

fn texts(chart: &Result<LineChart, BarChart>) -> Vec<String> {
    match chart {
        Ok(line) => [&line.title, &line.x.label, &line.y.label]
            .into_iter()
            .cloned()
            .chain(line.series.iter().map(|s| s.label.clone()))
            .collect(),
        Err(bars) => [&bars.title, &bars.y.label]
            .into_iter()
            .cloned()
            .chain(bars.categories.iter().cloned())
            .chain(bars.series.iter().map(|(label, _)| label.clone()))
            .collect(),
    }
}

#[test]
fn every_chart_kind_renders_legible_files() {
    let directory = tempfile::tempdir().unwrap();
    for size in [Size::default(), Size { width: 1280, height: 400 }] {
        for (name, chart) in samples() {
            let (svg, png) = paths(directory.path(), name);
            render_sample(&chart, size, &svg, &png).unwrap();
            let share = inked_share(&decode(&png, size));
            assert!(share > 0.02, "{name} at {size:?}: only {:.1}% of pixels inked", share * 100.0);
            let svg_text = fs::read_to_string(&svg).unwrap();
            assert!(svg_text.contains(&format!("width=\"{}\" height=\"{}\"", size.width, size.height)));
            for text in texts(&chart) {
                assert!(svg_text.contains(&format!(">\n{text}\n<")), "{name}: SVG lacks {text:?}");
            }
        }
    }
    let leftovers: Vec<_> =
        fs::read_dir(directory.path()).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 10, "temporary files left behind: {leftovers:?}");
}

fn line_chart(series: Vec<Series>, x_scale: Scale, y_scale: Scale, markers: bool) -> LineChart {
    LineChart { title: String::new(), x: axis("x", x_scale), y: axis("y", y_scale), series, markers }
}

#[test]
fn degenerate_input_renders_without_panicking() {
    let directory = tempfile::tempdir().unwrap();
    let (svg, png) = paths(directory.path(), "edge");
    let series = |label: &str, points: &[(f64, f64)]| Series { label: label.to_string(), points: points.to_vec() };
    let hostile = [
        (0.0, f64::NAN),
        (1.0, 5.0),
        (f64::INFINITY, 2.0),
        (2.0, -3.0),
        (3.0, 0.0),
        (4.0, 1e300),
        (-1.0, 1e-300),
        (5.0, 7.0),
    ];
    let long = "A very long series label that goes on and on about policies, loads, seeds and traces ".repeat(3);
    let many: Vec<Series> =
        (0..20).map(|i| series(&format!("policy {i}"), &[(0.0, i as f64), (1.0, i as f64 + 1.0)])).collect();
    let mut cases = vec![
        line_chart(Vec::new(), Scale::Linear, Scale::Linear, true),
        line_chart(vec![series("empty", &[])], Scale::Log, Scale::Log, false),
        line_chart(vec![series("one", &[(3.0, 4.0)])], Scale::Linear, Scale::Linear, false),
        line_chart(vec![series("one", &[(3.0, 4.0)])], Scale::Log, Scale::Log, true),
        line_chart(vec![series("flat", &[(1.0, 2.0), (2.0, 2.0), (3.0, 2.0)])], Scale::Linear, Scale::Log, true),
        line_chart(vec![series("same x", &[(1.0, 2.0), (1.0, 3.0)])], Scale::Linear, Scale::Linear, true),
        line_chart(vec![series("nan", &[(f64::NAN, f64::NAN)])], Scale::Linear, Scale::Linear, true),
        line_chart(vec![series("hostile", &hostile)], Scale::Linear, Scale::Linear, true),
        line_chart(vec![series("hostile", &hostile)], Scale::Log, Scale::Log, true),
        line_chart(vec![series(&long, &hostile)], Scale::Log, Scale::Linear, true),
        line_chart(many, Scale::Linear, Scale::Log, true),
    ];
    let mut ranged = line_chart(vec![series("zoomed", &hostile)], Scale::Linear, Scale::Log, false);
    ranged.x.range = Some((1.5, 4.5));
    ranged.y.range = Some((-1.0, 10.0)); // unusable on a log axis: fitted instead
    cases.push(ranged);
    let mut reversed = line_chart(vec![series("reversed", &hostile)], Scale::Linear, Scale::Linear, false);
    reversed.x.range = Some((5.0, 5.0));
    reversed.title = long.clone();
    reversed.y.label = long.clone();
    cases.push(reversed);
    for chart in &cases {
        render_line(chart, Size::default(), &svg, &png).unwrap();
    }
    render_line(&cases[2], Size { width: MIN_SIDE, height: MIN_SIDE }, &svg, &png).unwrap();

    let bars = |categories: &[&str], series: Vec<(String, Vec<Option<f64>>)>, scale: Scale| BarChart {
        title: "bars".to_string(),
        categories: categories.iter().map(|c| c.to_string()).collect(),
        y: axis("value", scale),
        series,
        value_labels: true,
    };
    let mixed = vec![
        ("mixed".to_string(), vec![Some(3.0), None, Some(f64::NAN), Some(-2.0), Some(0.0)]),
        (long.clone(), vec![Some(1e7)]),
    ];
    let wide_names = ["a category with a long descriptive name", "b", "c", "d", "e"];
    let bar_cases = [
        bars(&[], Vec::new(), Scale::Linear),
        bars(&["a", "b"], Vec::new(), Scale::Linear),
        bars(&[], mixed.clone(), Scale::Linear),
        bars(&wide_names, mixed.clone(), Scale::Linear),
        bars(&wide_names, mixed, Scale::Log),
        bars(&["x"], vec![("zero".to_string(), vec![Some(0.0)])], Scale::Linear),
        bars(
            &["x"; 12],
            (0..10).map(|i| (format!("s{i}"), vec![Some(i as f64 * 1234.5); 12])).collect(),
            Scale::Linear,
        ),
    ];
    for chart in &bar_cases {
        render_bars(chart, Size::default(), &svg, &png).unwrap();
    }
}

#[test]
fn bad_sizes_and_paths_are_errors_naming_the_file() {
    let directory = tempfile::tempdir().unwrap();
    let (svg, png) = paths(directory.path(), "chart");
    let chart = load_sweep(Scale::Linear);
    let error = render_line(&chart, Size { width: 0, height: 400 }, &svg, &png).unwrap_err();
    assert!(error.to_string().contains("chart.svg"), "{error}");
    let missing = directory.path().join("no such directory").join("chart.svg");
    let error = render_line(&chart, Size::default(), &missing, &png).unwrap_err();
    assert_eq!(error.path(), missing);
    assert!(std::error::Error::source(&error).is_some());
}
