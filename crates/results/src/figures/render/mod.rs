//! Paper-style figure rendering: plain chart data in; an SVG, a PDF, a PNG and a CSV of the
//! drawn values out.
//!
//! Knows nothing of Parquet or specs. plotters is used only as a rasteriser (its RGB bitmap) for
//! the PNG, whose text is rasterised from the embedded font with `ab_glyph` (see `fonts`); the SVG and the PDF are written from a recording of the same
//! drawing (see `vector`). Layout, ticks, legend, dashes and markers are done here because
//! plotters' chart defaults (heavy mesh, legend box over the data, 1-px aliased lines,
//! plain-float tick labels) are not what a paper wants.
//!
//! Physical size: a pixel of [`Size`] is 1/192 inch (0.375 pt), so the default 640x400 figure
//! is a 3.33 x 2.08 in paper column. The PDF page has that size, the PNG has 300 dpi at that size
//! (1000x625 pixels, with a `pHYs` chunk saying so) and the SVG keeps [`Size`] as its width and
//! height in CSS pixels (what browsers and Markdown show).

mod axis;
mod bars;
mod canvas;
mod csv;
mod fonts;
mod frame;
mod geometry;
mod line;
mod scatter;
mod style;
#[cfg(test)]
mod tests;
mod vector;

use crate::results::store::write_file_atomically;
use std::fmt;
use std::path::{Path, PathBuf};

use plotters::backend::BitMapBackend;

use canvas::{Bitmap, Canvas};
use vector::Recording;

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base 10; values <= 0 cannot be placed and are skipped.
    Log,
}

/// One value axis.
#[derive(Clone, Debug)]
pub struct Axis {
    /// Quantity with units, e.g. "Average JCT (hours)".
    pub label: String,
    pub scale: Scale,
    /// Fixed limits; `None` fits the data with a small margin (so do limits that are empty,
    /// reversed, non-finite, or not positive on a log axis).
    pub range: Option<(f64, f64)>,
    /// Values to put the labelled ticks at, e.g. a grid's loads (thinned to every k-th when they
    /// do not all fit, the others then get unlabelled ticks); empty: round numbers.
    pub ticks_at: Vec<f64>,
}

impl Axis {
    /// A fitted axis with round-number ticks.
    pub fn new(label: impl Into<String>, scale: Scale) -> Axis {
        Axis { label: label.into(), scale, range: None, ticks_at: Vec::new() }
    }
}

/// Which colour and which dash, marker and hatch a series is drawn with, as indices into the
/// palettes (taken modulo their lengths). Callers derive them from what the series stands for
/// (a policy label's place in the experiment), so one policy looks the same in every figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Style {
    pub color: usize,
    pub pattern: usize,
}

impl Style {
    /// Colour, dash, marker and hatch all from one index.
    pub fn nth(index: usize) -> Style {
        Style { color: index, pattern: index }
    }
}

/// How a plotted value (a mean or a median over seeds) spreads over the seeds behind it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The bar's ends: the least and greatest value, or the 25th and 75th percentiles beside a
    /// median.
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (n - 1); NaN for a single value.
    pub sd: f64,
    /// Number of values (seeds).
    pub n: usize,
}

impl Spread {
    /// Whether there is a range to draw: several values that are not all equal.
    pub fn varies(&self) -> bool {
        self.n > 1 && self.max > self.min
    }
}

/// One named sequence of (x, y) points, drawn in order. Points that cannot be placed (NaN,
/// infinite, or not positive on a log axis) are skipped and leave a gap in the line.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub style: Style,
    pub points: Vec<(f64, f64)>,
    /// Per point (same length as `points`) or empty: the spread over seeds, drawn as a min-max
    /// error bar where it [varies](Spread::varies).
    pub spread: Vec<Option<Spread>>,
}

/// Line chart: a metric against a grid axis (with markers), CDFs and timelines (without).
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    /// Mark the data points; dense series get evenly spaced markers only.
    pub markers: bool,
    /// Remarks printed under the plot (what error bars show, what was left out and why).
    pub notes: Vec<String>,
}

/// One series of bars: a value per category.
#[derive(Clone, Debug)]
pub struct BarSeries {
    /// An empty label keeps the series out of the legend (one series needs none).
    pub label: String,
    pub style: Style,
    /// One per category; `None` leaves a gap (labelled "n/a" with value labels).
    pub values: Vec<Option<f64>>,
    /// Per category (same length as `values`) or empty, as [`Series::spread`].
    pub spread: Vec<Option<Spread>>,
}

/// Grouped bars: categories along x, one bar per series within each category.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub categories: Vec<String>,
    /// Per category, or empty: the look of the bars in each category, overriding the series'
    /// (one series whose categories are policies: each bar in its policy's look).
    pub category_styles: Vec<Style>,
    pub y: Axis,
    pub series: Vec<BarSeries>,
    /// Print each bar's value beyond its end, all in one number format (left out when bars are
    /// too thin to carry a legible label).
    pub value_labels: bool,
    /// Remarks printed under the plot.
    pub notes: Vec<String>,
}

/// Paired values (one job's JCT in two runs) against the `y = x` diagonal: how far one run is
/// from the other job by job. Both axes share one scale and range, so the diagonal runs corner
/// to corner.
#[derive(Clone, Debug)]
pub struct ScatterChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub scale: Scale,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
    /// Remarks printed under the plot.
    pub notes: Vec<String>,
}

/// Figure size in pixels of 1/192 inch, so the default 640x400 is a 3.33 x 2.08 in
/// paper column. Fonts and lines are designed for 640x400 and scale with
/// `min(width / 640, height / 400)`, so 1280x800 is the same figure twice as large while
/// 1280x400 is a wider figure with the same text size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Size {
    /// The PNG's pixels: the physical size at [`PNG_DPI`].
    pub fn png_pixels(self) -> (u32, u32) {
        let at_dpi = |side: u32| (f64::from(side) * PNG_DPI / DESIGN_DPI).round() as u32;
        (at_dpi(self.width), at_dpi(self.height))
    }

    /// The PDF page in points.
    pub fn points(self) -> (f64, f64) {
        (f64::from(self.width) * POINTS_PER_PIXEL, f64::from(self.height) * POINTS_PER_PIXEL)
    }
}

/// [`Size`] pixels per inch.
pub const DESIGN_DPI: f64 = 192.0;
/// Resolution of the PNG, declared in its `pHYs` chunk.
pub const PNG_DPI: f64 = 300.0;
const POINTS_PER_PIXEL: f64 = 72.0 / DESIGN_DPI;

/// The files a figure is written to.
#[derive(Clone, Debug, PartialEq)]
pub struct Files {
    pub svg: PathBuf,
    pub pdf: PathBuf,
    pub png: PathBuf,
    /// The drawn values, one row per point or bar.
    pub csv: PathBuf,
}

impl Files {
    /// The extensions of a figure's files.
    pub const EXTENSIONS: [&str; 4] = ["svg", "pdf", "png", "csv"];

    /// `<dir>/<stem>.svg`, `.pdf`, `.png` and `.csv`.
    pub fn beside(dir: &Path, stem: &str) -> Files {
        let file = |extension: &str| dir.join(format!("{stem}.{extension}"));
        Files { svg: file("svg"), pdf: file("pdf"), png: file("png"), csv: file("csv") }
    }

    pub fn all(&self) -> [&Path; 4] {
        [&self.svg, &self.pdf, &self.png, &self.csv]
    }
}

impl Default for Size {
    fn default() -> Self {
        Size { width: 640, height: 400 }
    }
}

/// Why a figure file could not be written.
#[derive(Debug)]
pub struct RenderError {
    path: PathBuf,
    cause: Cause,
}

#[derive(Debug)]
enum Cause {
    Size(Size),
    Draw(String),
    Encode(png::EncodingError),
    Io(std::io::Error),
}

impl RenderError {
    /// The file that was being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn new(path: &Path, cause: Cause) -> Self {
        RenderError { path: path.to_path_buf(), cause }
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.cause {
            Cause::Size(size) => write!(
                f,
                "cannot render {path}: size {}x{} is outside {MIN_SIDE}..={MAX_SIDE} pixels per side",
                size.width, size.height
            ),
            Cause::Draw(message) => write!(f, "cannot render {path}: drawing failed: {message}"),
            Cause::Encode(error) => write!(f, "cannot render {path}: PNG encoding failed: {error}"),
            Cause::Io(error) => write!(f, "cannot write {path}: {error}"),
        }
    }
}

impl std::error::Error for RenderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.cause {
            Cause::Encode(error) => Some(error),
            Cause::Io(error) => Some(error),
            Cause::Size(_) | Cause::Draw(_) => None,
        }
    }
}

/// A format a figure's drawing is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Svg,
    Pdf,
    Png,
}

impl ImageFormat {
    pub const ALL: [ImageFormat; 3] = [ImageFormat::Svg, ImageFormat::Pdf, ImageFormat::Png];

    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Svg => "svg",
            ImageFormat::Pdf => "pdf",
            ImageFormat::Png => "png",
        }
    }
}

/// Renders `chart` to its four files; each is replaced atomically, so readers never see half a
/// figure.
pub fn render_line(chart: &LineChart, size: Size, files: &Files) -> Result<(), RenderError> {
    render(chart, &csv::line(chart), size, files)
}

/// Renders `chart` to its four files; each is replaced atomically, so readers never see half a
/// figure.
pub fn render_bars(chart: &BarChart, size: Size, files: &Files) -> Result<(), RenderError> {
    render(chart, &csv::bars(chart), size, files)
}

/// Renders `chart` to one file per `(format, path)`, each replaced atomically. A scatter has no
/// CSV of its own: its points are the caller's data, which it writes in its own shape.
pub fn render_scatter(chart: &ScatterChart, size: Size, outputs: &[(ImageFormat, PathBuf)]) -> Result<(), RenderError> {
    render_images(chart, size, outputs)
}

/// A published value drawn over a chart where the reproduction draws its own: on a line chart
/// at x `position` of series `series`, on a bar chart over the bar of series `series` in category
/// `position`. `within`: the reproduced value is within the check's tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mark {
    pub series: usize,
    pub position: f64,
    pub value: f64,
    pub within: bool,
}

/// A chart to draw in memory ([`svg`]), line and bar charts with published values over them.
#[derive(Clone, Copy, Debug)]
pub enum Drawing<'a> {
    Line(&'a LineChart, &'a [Mark]),
    Bars(&'a BarChart, &'a [Mark]),
}

/// `drawing` as the text of its SVG file (the same drawing [`render_line`] and the others
/// write), for a page that inlines it, with its text alternative ([`Drawing::describe`]); every
/// element id starts with `id_prefix`, so several drawings on one page keep their ids apart.
pub fn svg(drawing: Drawing<'_>, size: Size, id_prefix: &str) -> Result<String, String> {
    match drawing {
        Drawing::Line(chart, marks) => record(&Marked { chart, marks }, size),
        Drawing::Bars(chart, marks) => record(&Marked { chart, marks }, size),
    }
    .map(|recording| recording.to_svg((size.width, size.height), id_prefix, Some(&drawing.describe())))
}

/// Names listed in a text alternative before "and N more".
const DESCRIBED_NAMES: usize = 12;

impl Drawing<'_> {
    /// The drawing in words, for readers who cannot see it: its title, what it plots, its
    /// series or categories, and the published values marked on it.
    pub fn describe(&self) -> String {
        let names = |names: &mut dyn Iterator<Item = &str>| {
            let names: Vec<&str> = names.filter(|n| !n.is_empty()).collect();
            let mut list = names.iter().take(DESCRIBED_NAMES).copied().collect::<Vec<_>>().join(", ");
            if names.len() > DESCRIBED_NAMES {
                list.push_str(&format!(" and {} more", names.len() - DESCRIBED_NAMES));
            }
            list
        };
        let titled =
            |title: &str, kind: &str| if title.is_empty() { kind.to_string() } else { format!("{kind}: {title}") };
        let (mut text, marks) = match self {
            Drawing::Line(chart, marks) => {
                let mut text =
                    format!("{}. {} against {}", titled(&chart.title, "Line chart"), chart.y.label, chart.x.label);
                let series = names(&mut chart.series.iter().map(|s| s.label.as_str()));
                if !series.is_empty() {
                    text.push_str(&format!("; series: {series}"));
                }
                (text, *marks)
            }
            Drawing::Bars(chart, marks) => {
                let mut text = format!(
                    "{}. {} for {}",
                    titled(&chart.title, "Bar chart"),
                    chart.y.label,
                    names(&mut chart.categories.iter().map(String::as_str))
                );
                let series = names(&mut chart.series.iter().map(|s| s.label.as_str()));
                if !series.is_empty() {
                    text.push_str(&format!("; bars: {series}"));
                }
                (text, *marks)
            }
        };
        text.push('.');
        if !marks.is_empty() {
            let within = marks.iter().filter(|m| m.within).count();
            text.push_str(&format!(
                " {} published values marked: {within} reproduced within tolerance (diamonds), {} outside it (ringed crosses).",
                marks.len(),
                marks.len() - within
            ));
        }
        text
    }
}

/// The vector drawing of `figure` at `size`, in figure pixels.
fn record(figure: &impl Figure, size: Size) -> Result<Recording, String> {
    if ![size.width, size.height].iter().all(|side| (MIN_SIDE..=MAX_SIDE).contains(side)) {
        return Err(format!("size {}x{} is outside {MIN_SIDE}..={MAX_SIDE} pixels per side", size.width, size.height));
    }
    let ui_scale = (size.width as f64 / DESIGN_SIZE.0).min(size.height as f64 / DESIGN_SIZE.1);
    let design = (size.width as f64 / ui_scale, size.height as f64 / ui_scale);
    let mut canvas = Canvas::new(Recording::default(), design, ui_scale);
    figure.draw(&mut canvas)?;
    Ok(canvas.into_surface())
}

/// A chart that can draw itself on any surface, in design pixels (see [`Size`]).
trait Figure {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String>;
}

impl Figure for LineChart {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        line::draw(self, &[], canvas)
    }
}

/// A chart with published values over it.
struct Marked<'a, C> {
    chart: &'a C,
    marks: &'a [Mark],
}

impl Figure for Marked<'_, LineChart> {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        line::draw(self.chart, self.marks, canvas)
    }
}

impl Figure for Marked<'_, BarChart> {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        bars::draw(self.chart, self.marks, canvas)
    }
}

impl Figure for ScatterChart {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        scatter::draw(self, canvas)
    }
}

impl Figure for BarChart {
    fn draw<S: canvas::Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        bars::draw(self, &[], canvas)
    }
}

pub const MIN_SIDE: u32 = 64;
pub const MAX_SIDE: u32 = 4096;
/// Fonts and line widths are designed for this size (see [`Size`]).
const DESIGN_SIZE: (f64, f64) = (640.0, 400.0);
/// The rasteriser does not anti-alias; drawing at up to 3x and averaging down does. Capped so the
/// working buffer stays under this many bytes for large figures.
const PNG_MAX_OVERSAMPLING: u32 = 3;
const PNG_MAX_WORK_BYTES: u64 = 96 << 20;

/// The three drawings of `figure`, then `csv`, the values it draws.
fn render(figure: &impl Figure, csv: &str, size: Size, files: &Files) -> Result<(), RenderError> {
    let outputs = ImageFormat::ALL.map(|format| {
        let path = match format {
            ImageFormat::Svg => &files.svg,
            ImageFormat::Pdf => &files.pdf,
            ImageFormat::Png => &files.png,
        };
        (format, path.clone())
    });
    render_images(figure, size, &outputs)?;
    write_file_atomically(&files.csv, csv.as_bytes()).map_err(|e| RenderError::new(&files.csv, Cause::Io(e)))
}

/// Draws `figure` as vectors (SVG, PDF) and, when `outputs` ask for a PNG, as pixels, and writes
/// each output atomically.
fn render_images(figure: &impl Figure, size: Size, outputs: &[(ImageFormat, PathBuf)]) -> Result<(), RenderError> {
    let Some((_, first)) = outputs.first() else { return Ok(()) };
    if ![size.width, size.height].iter().all(|side| (MIN_SIDE..=MAX_SIDE).contains(side)) {
        return Err(RenderError::new(first, Cause::Size(size)));
    }
    let ui_scale = (size.width as f64 / DESIGN_SIZE.0).min(size.height as f64 / DESIGN_SIZE.1);
    let design = (size.width as f64 / ui_scale, size.height as f64 / ui_scale);

    // One recording in figure pixels feeds both vector files; it is cheap next to the PNG.
    let recording = record(figure, size).map_err(|e| RenderError::new(first, Cause::Draw(e)))?;
    for (format, path) in outputs {
        let bytes = match format {
            ImageFormat::Svg => recording.to_svg((size.width, size.height), "", None).into_bytes(),
            ImageFormat::Pdf => {
                recording.to_pdf(size.points(), POINTS_PER_PIXEL).map_err(|e| RenderError::new(path, Cause::Draw(e)))?
            }
            ImageFormat::Png => {
                let pixels = size.png_pixels();
                let rgb = draw_bitmap(figure, pixels, design, ui_scale * PNG_DPI / DESIGN_DPI)
                    .map_err(|e| RenderError::new(path, Cause::Draw(e)))?;
                encode_png(&rgb, pixels).map_err(|e| RenderError::new(path, Cause::Encode(e)))?
            }
        };
        write_file_atomically(path, &bytes).map_err(|e| RenderError::new(path, Cause::Io(e)))?;
    }
    Ok(())
}

/// Returns the RGB pixels at `(width, height)`; `zoom` turns design pixels into those pixels.
fn draw_bitmap(
    figure: &impl Figure,
    (width, height): (u32, u32),
    design: (f64, f64),
    zoom: f64,
) -> Result<Vec<u8>, String> {
    let pixels = width as u64 * height as u64;
    let factor =
        (1..=PNG_MAX_OVERSAMPLING).rev().find(|f| pixels * (*f as u64).pow(2) * 3 <= PNG_MAX_WORK_BYTES).unwrap_or(1);
    let (work_width, work_height) = (width * factor, height * factor);
    let mut buffer = vec![255u8; work_width as usize * work_height as usize * 3];
    {
        let backend = BitMapBackend::with_buffer(&mut buffer, (work_width, work_height));
        let mut canvas = Canvas::new(Bitmap { backend }, design, zoom * factor as f64);
        figure.draw(&mut canvas)?;
        canvas.into_surface().finish()?;
    }
    Ok(downsample(&buffer, (width, height), factor as usize))
}

/// Box-filters `factor`x`factor` blocks: the anti-aliasing the rasteriser lacks. Sums a row of
/// blocks at a time, reading the work buffer (up to [`PNG_MAX_WORK_BYTES`]) once, in order.
fn downsample(buffer: &[u8], (width, height): (u32, u32), factor: usize) -> Vec<u8> {
    if factor == 1 {
        return buffer.to_vec();
    }
    let (width, height) = (width as usize, height as usize);
    let source_row = width * factor * 3;
    let block = (factor * factor) as u32;
    let mut out = Vec::with_capacity(width * height * 3);
    let mut sums = vec![0u32; width * 3];
    for rows in buffer.chunks_exact(source_row * factor).take(height) {
        sums.fill(0);
        for row in rows.chunks_exact(source_row) {
            for (sum, blocks) in sums.chunks_exact_mut(3).zip(row.chunks_exact(factor * 3)) {
                for pixel in blocks.chunks_exact(3) {
                    sum[0] += u32::from(pixel[0]);
                    sum[1] += u32::from(pixel[1]);
                    sum[2] += u32::from(pixel[2]);
                }
            }
        }
        out.extend(sums.iter().map(|&sum| ((sum + block / 2) / block) as u8));
    }
    out
}

/// PNG_DPI in pixels per metre, as `pHYs` states resolution.
const PNG_PIXELS_PER_METRE: u32 = (PNG_DPI / 0.0254 + 0.5) as u32;

fn encode_png(rgb: &[u8], (width, height): (u32, u32)) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_pixel_dims(Some(png::PixelDimensions {
        xppu: PNG_PIXELS_PER_METRE,
        yppu: PNG_PIXELS_PER_METRE,
        unit: png::Unit::Meter,
    }));
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}
