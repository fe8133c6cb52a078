//! Every chart kind renders to files that decode at the requested size, show something, and
//! carry their text; the PDF embeds its font, the PNG declares 300 dpi, the CSV holds the drawn
//! values; titles wrap, grid ticks sit at the grid, error bars appear where seeds differ;
//! degenerate input renders without panicking.

use std::io::Read;
use std::path::Path;

use super::*;
use std::fs;

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
    Axis::new(label, scale)
}

const POLICIES: [&str; 3] = ["FIFO", "Tiresias", "Optimus"];

fn load_sweep(y_scale: Scale) -> LineChart {
    let growth = [(3.0, 1.55), (2.5, 1.42), (2.8, 1.35)];
    let series = POLICIES
        .iter()
        .zip(growth)
        .enumerate()
        .map(|(index, (name, (start, rate)))| Series {
            label: name.to_string(),
            style: Style::nth(index),
            points: (1..=9).map(|load| (load as f64, start * f64::powi(rate, load - 1))).collect(),
            spread: Vec::new(),
        })
        .collect();
    LineChart {
        title: "Average JCT vs. load".to_string(),
        x: Axis { ticks_at: (1..=9).map(f64::from).collect(), ..axis("Load (jobs/hour)", Scale::Linear) },
        y: axis("Average JCT (hours)", y_scale),
        series,
        markers: true,
        notes: Vec::new(),
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
            Series { label: name.to_string(), style: Style::nth(index), points, spread: Vec::new() }
        })
        .collect();
    LineChart {
        title: "JCT distribution".to_string(),
        x: axis("Job completion time (minutes)", Scale::Log),
        y: Axis { range: Some((0.0, 1.0)), ..axis("CDF", Scale::Linear) },
        series,
        markers: false,
        notes: vec!["Each curve pools the jobs of seeds 1 and 2.".to_string()],
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
            Series { label: name.to_string(), style: Style::nth(index), points, spread: Vec::new() }
        })
        .collect();
    LineChart {
        title: "Queue length over time".to_string(),
        x: axis("Time (hours)", Scale::Linear),
        y: axis("Queued jobs", Scale::Linear),
        series,
        markers: false,
        notes: Vec::new(),
    }
}

fn bar_series(label: &str, index: usize, values: Vec<Option<f64>>) -> BarSeries {
    BarSeries { label: label.to_string(), style: Style::nth(index), values, spread: Vec::new() }
}

fn policy_bars() -> BarChart {
    BarChart {
        title: "Average JCT per trace".to_string(),
        categories: ["Philly", "Helios", "Alibaba", "Synthetic"].map(String::from).to_vec(),
        category_styles: Vec::new(),
        y: axis("Average JCT (hours)", Scale::Linear),
        series: vec![
            bar_series("FIFO", 0, vec![Some(12.4), Some(30.1), Some(8.75), Some(21.0)]),
            bar_series("Tiresias", 1, vec![Some(7.9), Some(18.6), Some(6.12), Some(11.3)]),
            bar_series("Optimus", 2, vec![Some(6.8), Some(20.2), Some(5.04), Some(9.87)]),
        ],
        value_labels: true,
        notes: Vec::new(),
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

fn render_sample(chart: &Result<LineChart, BarChart>, size: Size, files: &Files) -> Result<(), RenderError> {
    match chart {
        Ok(line) => render_line(line, size, files),
        Err(bars) => render_bars(bars, size, files),
    }
}

/// Decoded RGB pixels, checked to be `size` at 300 dpi, with a `pHYs` chunk saying so.
fn decode(png_path: &Path, size: Size) -> Vec<u8> {
    let file = std::io::BufReader::new(fs::File::open(png_path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let dims = reader.info().pixel_dims.expect("a pHYs chunk");
    assert_eq!((dims.xppu, dims.yppu, dims.unit), (11811, 11811, png::Unit::Meter), "300 dpi");
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((info.width, info.height), size.png_pixels(), "{}", png_path.display());
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
            .chain(bars.series.iter().map(|series| series.label.clone()))
            .collect(),
    }
}

/// The texts an SVG shows (each drawn as glyph outlines, named by an `aria-label`).
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("aria-label=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|t| t.replace("&amp;", "&"))
        .collect()
}

/// Where `needle` first occurs in `haystack` at or after `from`.
fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack[from..].windows(needle.len()).position(|w| w == needle).map(|at| at + from)
}

/// The decompressed `/FontFile2` streams of a PDF written by `vector`: each must parse as TrueType.
fn embedded_fonts(pdf: &[u8]) -> Vec<Vec<u8>> {
    let mut fonts = Vec::new();
    let mut from = 0;
    while let Some(at) = find(pdf, b"/FontFile2 ", from) {
        from = at + 1;
        let id: String = pdf[at + 11..].iter().map(|b| *b as char).take_while(char::is_ascii_digit).collect();
        let start = find(pdf, format!("\n{id} 0 obj").as_bytes(), 0).expect("the font file object exists");
        let stream = find(pdf, b"stream\n", start).unwrap() + "stream\n".len();
        let end = find(pdf, b"\nendstream", stream).unwrap();
        let mut inflated = Vec::new();
        flate2::read::ZlibDecoder::new(&pdf[stream..end]).read_to_end(&mut inflated).expect("FlateDecode stream");
        fonts.push(inflated);
    }
    fonts
}

#[test]
fn every_chart_kind_renders_legible_files() {
    let directory = tempfile::tempdir().unwrap();
    for size in [Size::default(), Size { width: 1280, height: 400 }] {
        for (name, chart) in samples() {
            let files = Files::beside(directory.path(), name);
            render_sample(&chart, size, &files).unwrap();
            let share = inked_share(&decode(&files.png, size));
            assert!(share > 0.02, "{name} at {size:?}: only {:.1}% of pixels inked", share * 100.0);
            let svg = fs::read_to_string(&files.svg).unwrap();
            assert!(svg.contains(&format!("width=\"{}\" height=\"{}\"", size.width, size.height)));
            // Self-contained: no text element a viewer could set in a font of its own.
            assert!(!svg.contains("<text") && !svg.contains("font-family"), "{name}: SVG has font-dependent text");
            let shown = svg_texts(&svg);
            for text in texts(&chart) {
                assert!(shown.contains(&text), "{name}: SVG lacks {text:?} in {shown:?}");
            }
            let pdf = fs::read(&files.pdf).unwrap();
            assert!(pdf.starts_with(b"%PDF-"), "{name}: not a PDF");
            let points = size.points();
            let media_box = format!("/MediaBox [0 0 {} {}]", points.0, points.1);
            assert!(String::from_utf8_lossy(&pdf).contains(&media_box), "{name}: no {media_box}");
            let fonts = embedded_fonts(&pdf);
            assert!(!fonts.is_empty(), "{name}: no /FontFile2 in the PDF");
            for font in fonts {
                let face = ttf_parser::Face::parse(&font, 0).expect("embedded font parses");
                assert!(face.number_of_glyphs() > 5 && font.len() < 100_000, "{name}: not a subset");
            }
            let csv = fs::read_to_string(&files.csv).unwrap();
            assert!(csv.lines().count() > 1, "{name}: empty CSV");
        }
    }
    let leftovers: Vec<_> =
        fs::read_dir(directory.path()).unwrap().filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 20, "temporary files left behind: {leftovers:?}");
}

#[test]
fn csv_holds_the_drawn_values() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "sweep");
    let mut chart = load_sweep(Scale::Linear);
    chart.series[0].spread = chart.series[0]
        .points
        .iter()
        .map(|(_, y)| Some(Spread { min: y - 1.0, max: y + 1.0, sd: 0.5, n: 3 }))
        .collect();
    render_line(&chart, Size::default(), &files).unwrap();
    let csv = fs::read_to_string(&files.csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("series,x,y,y_min,y_max,y_sd,n"));
    let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
    assert_eq!(rows.len(), 27);
    for (row, expected) in rows.iter().zip(chart.series.iter().flat_map(|s| s.points.iter().map(move |p| (s, p)))) {
        let (series, (x, y)) = expected;
        assert_eq!(row[0], series.label);
        assert_eq!(row[1].parse::<f64>().unwrap(), *x);
        assert_eq!(row[2].parse::<f64>().unwrap(), *y, "values are written exactly");
    }
    assert_eq!(rows[0][3].parse::<f64>().unwrap(), chart.series[0].points[0].1 - 1.0);
    assert_eq!(rows[0][6], "3");
    assert_eq!(rows[9][3..], ["", "", "", ""], "no spread, no error columns");

    let bars = policy_bars();
    let files = Files::beside(directory.path(), "bars");
    render_bars(&bars, Size::default(), &files).unwrap();
    let csv = fs::read_to_string(&files.csv).unwrap();
    assert!(csv.starts_with("series,category,y,y_min,y_max,y_sd,n\nFIFO,Philly,12.4,,,,\n"), "{csv}");
    assert_eq!(csv.lines().count(), 1 + 3 * 4);
}

#[test]
fn long_titles_wrap_instead_of_being_cut() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "title");
    let mut chart = load_sweep(Scale::Linear);
    chart.title = "ElasticFlow Fig. 8b: deadline satisfactory ratio on ten ITP clusters and Philly, each trace on \
                   its own cluster size (256 to 1024 A100 GPUs)"
        .to_string();
    render_line(&chart, Size::default(), &files).unwrap();
    let svg = fs::read_to_string(&files.svg).unwrap();
    let shown = svg_texts(&svg);
    let title_lines: Vec<&String> = shown.iter().filter(|t| t.contains("Fig. 8b") || t.contains("A100")).collect();
    assert!(title_lines.len() >= 2 || shown.iter().any(|t| t.contains("A100 GPUs)")), "{shown:?}");
    let joined = shown.join(" ");
    for word in chart.title.split_whitespace() {
        assert!(joined.contains(word), "title word {word:?} missing from {shown:?}");
    }
    assert!(!shown.iter().any(|t| t.contains('…')), "title cut: {shown:?}");
}

#[test]
fn x_ticks_sit_at_the_grid_values() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "grid");
    let mut chart = load_sweep(Scale::Linear);
    let loads = [0.5, 1.5, 2.5, 4.0, 5.5];
    for series in &mut chart.series {
        series.points = loads.iter().map(|l| (*l, 10.0 + l)).collect();
    }
    chart.x.ticks_at = loads.to_vec();
    render_line(&chart, Size::default(), &files).unwrap();
    let shown = svg_texts(&fs::read_to_string(&files.svg).unwrap());
    for label in ["0.5", "1.5", "2.5", "4.0", "5.5"] {
        assert!(shown.iter().any(|t| t == label), "no tick {label} in {shown:?}");
    }
    // Round-number ticks would have put one at 1, 2 or 3.
    assert!(!shown.iter().any(|t| ["1", "2", "3", "1.0", "2.0", "3.0"].contains(&t.as_str())), "{shown:?}");
}

/// Number of SVG polylines drawn in `color`.
fn strokes_in(svg: &str, color: &str) -> usize {
    svg.lines().filter(|l| l.starts_with("<polyline") && l.contains(&format!("stroke=\"{color}\""))).count()
}

#[test]
fn error_bars_appear_where_seeds_differ_and_only_there() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "bars");
    let single = |points: &[(f64, f64)], spread: Vec<Option<Spread>>| LineChart {
        series: vec![Series { label: "FIFO".into(), style: Style::nth(6), points: points.to_vec(), spread }],
        ..load_sweep(Scale::Linear)
    };
    let points = [(1.0, 2.0), (2.0, 3.0), (3.0, 4.0)];
    let black = "#000000"; // palette colour 6
    render_line(&single(&points, Vec::new()), Size::default(), &files).unwrap();
    let plain = strokes_in(&fs::read_to_string(&files.svg).unwrap(), black);
    let spread = vec![
        Some(Spread { min: 1.5, max: 2.5, sd: 0.5, n: 2 }),
        Some(Spread { min: 3.0, max: 3.0, sd: 0.0, n: 2 }), // seeds agree: nothing to draw
        None,
    ];
    render_line(&single(&points, spread), Size::default(), &files).unwrap();
    let with_bars = strokes_in(&fs::read_to_string(&files.svg).unwrap(), black);
    assert_eq!(with_bars - plain, 3, "one error bar: a stem and two caps");

    // Bars: error bars are black, as are the hatch lines, whose number does not change.
    let mut bars = policy_bars();
    let files = Files::beside(directory.path(), "groups");
    bars.y.range = Some((0.0, 40.0));
    render_bars(&bars, Size::default(), &files).unwrap();
    let plain = strokes_in(&fs::read_to_string(&files.svg).unwrap(), black);
    bars.series[1].spread = vec![Some(Spread { min: 7.0, max: 9.0, sd: 1.0, n: 3 }), None, None, None];
    render_bars(&bars, Size::default(), &files).unwrap();
    assert_eq!(strokes_in(&fs::read_to_string(&files.svg).unwrap(), black) - plain, 3);
}

#[test]
fn a_style_gives_the_same_look_wherever_the_series_is_drawn() {
    let fifo = Style::nth(0);
    assert_eq!(style::look(fifo).color, style::look(Style::nth(8)).color, "colours cycle");
    let (a, b) = (style::look(Style { color: 2, pattern: 5 }), style::look(Style { color: 2, pattern: 5 }));
    assert_eq!((a.color, a.dash, a.marker, a.hatch), (b.color, b.dash, b.marker, b.hatch));
    // The same label's series, first in one chart and third in another, is drawn alike.
    let directory = tempfile::tempdir().unwrap();
    let svg_of = |chart: &LineChart, name: &str| {
        let files = Files::beside(directory.path(), name);
        render_line(chart, Size::default(), &files).unwrap();
        fs::read_to_string(&files.svg).unwrap()
    };
    let full = svg_of(&load_sweep(Scale::Linear), "all");
    let mut only_optimus = load_sweep(Scale::Linear);
    only_optimus.series.retain(|s| s.label == "Optimus");
    let alone = svg_of(&only_optimus, "one");
    // Optimus is Style::nth(2): bluish green, dotted, triangles; never the first series' blue.
    let (green, blue) = ("#009e73", "#0072b2");
    assert!(strokes_in(&full, green) > 0 && strokes_in(&full, blue) > 0);
    assert!(strokes_in(&alone, green) > 0 && strokes_in(&alone, blue) == 0);
    let triangles = |svg: &str, color: &str| {
        svg.lines().filter(|l| l.starts_with("<polygon") && l.contains(color) && l.matches(',').count() == 3).count()
    };
    assert_eq!(triangles(&alone, green), 9 + 1, "a triangle per point and one in the legend");
    assert_eq!(triangles(&full, green), 9 + 1);
}

fn line_chart(series: Vec<Series>, x_scale: Scale, y_scale: Scale, markers: bool) -> LineChart {
    LineChart { title: String::new(), x: axis("x", x_scale), y: axis("y", y_scale), series, markers, notes: Vec::new() }
}

#[test]
fn degenerate_input_renders_without_panicking() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "edge");
    let series = |label: &str, points: &[(f64, f64)]| Series {
        label: label.to_string(),
        style: Style::default(),
        points: points.to_vec(),
        spread: vec![Some(Spread { min: f64::NAN, max: 1e300, sd: f64::NAN, n: 2 }); points.len() / 2],
    };
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
    let mut noted = line_chart(vec![series("noted", &hostile)], Scale::Linear, Scale::Linear, true);
    noted.notes = vec![long.clone(), String::new(), "x".repeat(500)];
    noted.x.ticks_at = vec![f64::NAN, -1.0, 0.0, 1e300, 3.0];
    cases.push(noted);
    for chart in &cases {
        render_line(chart, Size::default(), &files).unwrap();
    }
    render_line(&cases[2], Size { width: MIN_SIDE, height: MIN_SIDE }, &files).unwrap();

    let bars = |categories: &[&str], series: Vec<BarSeries>, scale: Scale| BarChart {
        title: "bars".to_string(),
        categories: categories.iter().map(|c| c.to_string()).collect(),
        category_styles: vec![Style::nth(3)],
        y: axis("value", scale),
        series,
        value_labels: true,
        notes: vec!["a note".to_string()],
    };
    let mut mixed = vec![
        bar_series("mixed", 0, vec![Some(3.0), None, Some(f64::NAN), Some(-2.0), Some(0.0)]),
        bar_series(&long, 1, vec![Some(1e7)]),
    ];
    mixed[0].spread = vec![
        Some(Spread { min: -1e300, max: f64::INFINITY, sd: 1.0, n: 2 }),
        Some(Spread { min: 1.0, max: 2.0, sd: 1.0, n: 2 }),
        None,
        Some(Spread { min: -3.0, max: -1.0, sd: 1.0, n: 2 }),
    ];
    let wide_names = ["a category with a long descriptive name", "b", "c", "d", "e"];
    let bar_cases = [
        bars(&[], Vec::new(), Scale::Linear),
        bars(&["a", "b"], Vec::new(), Scale::Linear),
        bars(&[], mixed.clone(), Scale::Linear),
        bars(&wide_names, mixed.clone(), Scale::Linear),
        bars(&wide_names, mixed, Scale::Log),
        bars(&["x"], vec![bar_series("zero", 0, vec![Some(0.0)])], Scale::Linear),
        bars(
            &["x"; 12],
            (0..10).map(|i| bar_series(&format!("s{i}"), i, vec![Some(i as f64 * 1234.5); 12])).collect(),
            Scale::Linear,
        ),
    ];
    for chart in &bar_cases {
        render_bars(chart, Size::default(), &files).unwrap();
    }
}

#[test]
fn bad_sizes_and_paths_are_errors_naming_the_file() {
    let directory = tempfile::tempdir().unwrap();
    let files = Files::beside(directory.path(), "chart");
    let chart = load_sweep(Scale::Linear);
    let error = render_line(&chart, Size { width: 0, height: 400 }, &files).unwrap_err();
    assert!(error.to_string().contains("chart.svg"), "{error}");
    let missing = Files::beside(&directory.path().join("no such directory"), "chart");
    let error = render_line(&chart, Size::default(), &missing).unwrap_err();
    assert_eq!(error.path(), missing.svg);
    assert!(std::error::Error::source(&error).is_some());
}

fn job_scatter(points: Vec<(f64, f64)>, scale: Scale) -> ScatterChart {
    ScatterChart {
        title: "FIFO: JCT per job".to_string(),
        x_label: "JCT in sim (hours)".to_string(),
        y_label: "JCT in live (hours)".to_string(),
        scale,
        points,
        style: Style::nth(2),
        notes: vec!["dashed: y = x".to_string()],
    }
}

#[test]
fn scatters_draw_each_placeable_point_once_in_the_formats_asked_for() {
    let directory = tempfile::tempdir().unwrap();
    let svg = directory.path().join("jct.svg");
    let mut noise = Noise(3);
    let mut points: Vec<(f64, f64)> = (0..200)
        .map(|_| {
            let jct = 10f64.powf(noise.next() * 3.0);
            (jct, jct * (0.8 + 0.4 * noise.next()))
        })
        .collect();
    points.push(points[0]); // the same job twice draws one disc
    points.extend([(f64::NAN, 1.0), (0.0, 5.0)]); // not placeable on a log axis
    render_scatter(&job_scatter(points.clone(), Scale::Log), Size::default(), &[(ImageFormat::Svg, svg.clone())])
        .unwrap();
    let text = fs::read_to_string(&svg).unwrap();
    let green = "#009e73"; // Style::nth(2)
    let discs = text.lines().filter(|l| l.starts_with("<circle") && l.contains(green)).count();
    assert!((150..=200).contains(&discs), "{discs} discs for 200 distinct points");
    assert!(strokes_in(&text, "#707070") > 10, "the y = x diagonal, dashed");
    let shown = svg_texts(&text);
    for label in ["FIFO: JCT per job", "JCT in sim (hours)", "JCT in live (hours)", "dashed: y = x"] {
        assert!(shown.iter().any(|t| t == label), "SVG lacks {label:?} in {shown:?}");
    }
    let leftovers: Vec<_> = fs::read_dir(directory.path()).unwrap().filter_map(Result::ok).collect();
    assert_eq!(leftovers.len(), 1, "only the SVG was asked for");

    let (png, pdf) = (directory.path().join("jct.png"), directory.path().join("jct.pdf"));
    let both = [(ImageFormat::Png, png.clone()), (ImageFormat::Pdf, pdf.clone())];
    render_scatter(&job_scatter(points, Scale::Linear), Size::default(), &both).unwrap();
    assert!(inked_share(&decode(&png, Size::default())) > 0.02);
    assert!(fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    for degenerate in [Vec::new(), vec![(5.0, 5.0)], vec![(f64::INFINITY, 1.0)]] {
        render_scatter(&job_scatter(degenerate, Scale::Log), Size::default(), &[(ImageFormat::Svg, svg.clone())])
            .unwrap();
    }
}

/// An inline drawing says what it shows (image role, label, title); the figure file's SVG
/// carries none of it, so the files stay what they were before pages inlined them.
#[test]
fn inline_drawings_carry_a_text_alternative_and_files_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let chart = policy_bars();
    let files = Files::beside(dir.path(), "bars");
    render_bars(&chart, Size::default(), &files).unwrap();
    let file = fs::read_to_string(&files.svg).unwrap();
    let inline = svg(Drawing::Bars(&chart, &[]), Size::default(), "f0-").unwrap();
    assert!(!file.contains("<title>") && !file.contains("role="), "{}", &file[..200]);
    let described = "Bar chart: Average JCT per trace. Average JCT (hours) for Philly, Helios, Alibaba, Synthetic; \
                     bars: FIFO, Tiresias, Optimus.";
    assert!(inline.starts_with(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"640\" \
         height=\"400\" viewBox=\"0 0 640 400\" role=\"img\" aria-label=\"{described}\">\n<title>{described}</title>\n"
    )));
    // Apart from the alternative and the ids' prefix, the same drawing.
    let without = inline.replacen(&format!(" role=\"img\" aria-label=\"{described}\""), "", 1);
    let without = without.replacen(&format!("<title>{described}</title>\n"), "", 1).replace("f0-", "");
    assert_eq!(without, file);
}

/// Published values are drawn over the chart, in black over a white halo (diamonds within
/// tolerance, ringed crosses outside it), the axis stretches to show them, a note says what they
/// are, and the text alternative counts them.
#[test]
fn published_values_are_drawn_over_bars_and_lines_and_counted_in_words() {
    let bars = policy_bars();
    let plain = svg(Drawing::Bars(&bars, &[]), Size::default(), "").unwrap();
    // FIFO on Helios published at 25 (outside tolerance), Optimus on Alibaba within it.
    let marks = [
        Mark { series: 0, position: 1.0, value: 25.0, within: false },
        Mark { series: 2, position: 2.0, value: 5.1, within: true },
    ];
    let marked = svg(Drawing::Bars(&bars, &marks), Size::default(), "").unwrap();
    // A diamond is one line; a ringed cross three. Each over its halo. (Widths at 640 x 400.)
    let published = |svg: &str| {
        let count = |stroke: &str| svg.lines().filter(|l| l.starts_with("<polyline") && l.contains(stroke)).count();
        (count("stroke=\"#000000\" stroke-width=\"1.6\""), count("stroke=\"#ffffff\" stroke-width=\"4\""))
    };
    assert_eq!(published(&plain), (0, 0));
    assert_eq!(published(&marked), (4, 4), "{marked}");
    assert!(svg_texts(&marked).iter().any(|t| t.contains("published value")));
    assert!(marked.contains("2 published values marked: 1 reproduced within tolerance (diamonds), 1 outside it"));
    // A published value above every bar stretches the axis to show it.
    let above = [Mark { series: 0, position: 1.0, value: 45.0, within: false }];
    let stretched = svg(Drawing::Bars(&bars, &above), Size::default(), "").unwrap();
    let highest = |svg: &str| svg_texts(svg).iter().filter_map(|t| t.parse::<f64>().ok()).fold(0.0, f64::max);
    assert!(highest(&plain) < 45.0 && highest(&stretched) >= 45.0, "the axis reaches the published 45");
    let line = load_sweep(Scale::Linear);
    let marks = [Mark { series: 1, position: 4.0, value: 6.0, within: true }];
    let marked = svg(Drawing::Line(&line, &marks), Size::default(), "").unwrap();
    let plain = svg(Drawing::Line(&line, &[]), Size::default(), "").unwrap();
    assert_eq!((published(&plain), published(&marked)), ((0, 0), (1, 1)));
}

/// The box filter averages each `factor`x`factor` block per channel, rounding half up.
#[test]
fn downsampling_averages_each_block_per_channel() {
    let (width, height, factor) = (5usize, 4usize, 3usize);
    let mut noise = Noise(7);
    let buffer: Vec<u8> = (0..width * factor * height * factor * 3).map(|_| (noise.next() * 256.0) as u8).collect();
    let out = downsample(&buffer, (width as u32, height as u32), factor);
    assert_eq!(out.len(), width * height * 3);
    for (y, x, channel) in (0..height).flat_map(|y| (0..width).flat_map(move |x| (0..3).map(move |c| (y, x, c)))) {
        let sum: u32 = (0..factor)
            .flat_map(|dy| (0..factor).map(move |dx| (dy, dx)))
            .map(|(dy, dx)| u32::from(buffer[((y * factor + dy) * width * factor + x * factor + dx) * 3 + channel]))
            .sum();
        let block = (factor * factor) as u32;
        assert_eq!(u32::from(out[(y * width + x) * 3 + channel]), (sum + block / 2) / block, "pixel ({x}, {y})");
    }
    assert_eq!(
        downsample(&buffer[..width * height * 3], (width as u32, height as u32), 1),
        buffer[..width * height * 3]
    );
}
