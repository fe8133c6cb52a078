//! Paper-style figure rendering: plain chart data in, an SVG and a PNG file out.
//!
//! Knows nothing of Parquet or specs. plotters is used only as a drawing surface (its SVG writer,
//! its RGB rasteriser and its `ab_glyph` text); layout, ticks, legend, dashes and markers are done
//! here because plotters' chart defaults (heavy mesh, legend box over the data, 1-px aliased
//! lines, plain-float tick labels) are not what a paper wants.

mod axis;
mod bars;
mod canvas;
mod frame;
mod geometry;
mod line;
mod style;
#[cfg(test)]
mod tests;

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

use plotters::backend::{BitMapBackend, SVGBackend};
use plotters::prelude::DrawingBackend;
use plotters::style::{FontStyle, register_font};

use canvas::{Canvas, Target};

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
}

/// One named sequence of (x, y) points, drawn in order. Points that cannot be placed (NaN,
/// infinite, or not positive on a log axis) are skipped and leave a gap in the line.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
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
}

/// Grouped bars: categories along x, one bar per series within each category.
#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub categories: Vec<String>,
    pub y: Axis,
    /// (label, one value per category); `None` leaves a gap (labelled "n/a" with value labels).
    /// An empty label keeps the series out of the legend (one series needs none).
    pub series: Vec<(String, Vec<Option<f64>>)>,
    /// Print each bar's value beyond its end (left out when bars are too thin to carry a
    /// legible label).
    pub value_labels: bool,
}

/// Output size in pixels. Fonts and lines are designed for 640x400 (a one-column figure) and
/// scale with `min(width / 640, height / 400)`, so 1280x800 is the same figure at twice the
/// resolution while 1280x400 is a wider figure with the same text size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub width: u32,
    pub height: u32,
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

/// Renders `chart` to both files; each is replaced atomically, so readers never see half a figure.
pub fn render_line(chart: &LineChart, size: Size, svg: &Path, png: &Path) -> Result<(), RenderError> {
    render(chart, size, svg, png)
}

/// Renders `chart` to both files; each is replaced atomically, so readers never see half a figure.
pub fn render_bars(chart: &BarChart, size: Size, svg: &Path, png: &Path) -> Result<(), RenderError> {
    render(chart, size, svg, png)
}

/// A chart that can draw itself on any surface, in design pixels (see [`Size`]).
trait Figure {
    fn draw<DB: DrawingBackend>(&self, canvas: &mut Canvas<DB>) -> Result<(), String>;
}

impl Figure for LineChart {
    fn draw<DB: DrawingBackend>(&self, canvas: &mut Canvas<DB>) -> Result<(), String> {
        line::draw(self, canvas)
    }
}

impl Figure for BarChart {
    fn draw<DB: DrawingBackend>(&self, canvas: &mut Canvas<DB>) -> Result<(), String> {
        bars::draw(self, canvas)
    }
}

pub const MIN_SIDE: u32 = 64;
pub const MAX_SIDE: u32 = 4096;
/// Fonts and line widths are designed for this size (see [`Size`]).
const DESIGN_SIZE: (f64, f64) = (640.0, 400.0);
/// SVG coordinates are integers in plotters; drawing at 4x inside an unchanged `width`/`height`
/// keeps quarter-pixel precision for markers and thin lines.
const SVG_OVERSAMPLING: u32 = 4;
/// The rasteriser does not anti-alias; drawing at up to 3x and averaging down does. Capped so the
/// working buffer stays under this many bytes for large figures.
const PNG_MAX_OVERSAMPLING: u32 = 3;
const PNG_MAX_WORK_BYTES: u64 = 96 << 20;

fn render(figure: &impl Figure, size: Size, svg: &Path, png: &Path) -> Result<(), RenderError> {
    if ![size.width, size.height].iter().all(|side| (MIN_SIDE..=MAX_SIDE).contains(side)) {
        return Err(RenderError::new(svg, Cause::Size(size)));
    }
    register_fonts();
    let ui_scale = (size.width as f64 / DESIGN_SIZE.0).min(size.height as f64 / DESIGN_SIZE.1);
    let design = (size.width as f64 / ui_scale, size.height as f64 / ui_scale);

    let svg_text = draw_svg(figure, size, design, ui_scale).map_err(|e| RenderError::new(svg, Cause::Draw(e)))?;
    write_atomically(svg, svg_text.as_bytes()).map_err(|e| RenderError::new(svg, Cause::Io(e)))?;

    let rgb = draw_bitmap(figure, size, design, ui_scale).map_err(|e| RenderError::new(png, Cause::Draw(e)))?;
    let png_bytes = encode_png(&rgb, size).map_err(|e| RenderError::new(png, Cause::Encode(e)))?;
    write_atomically(png, &png_bytes).map_err(|e| RenderError::new(png, Cause::Io(e)))
}

/// Font family name used everywhere; SVG viewers substitute their own sans-serif.
const FONT_FAMILY: &str = "sans-serif";

/// Embedded DejaVu: no system fonts, no fontconfig, identical output on every machine.
fn register_fonts() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The embedded files are valid TrueType; a failure would only leave text undrawn, and
        // every render would then report the font error, so there is nothing to handle here.
        let _ = register_font(FONT_FAMILY, FontStyle::Normal, dejavu::sans::regular());
        let _ = register_font(FONT_FAMILY, FontStyle::Bold, dejavu::sans::bold());
    });
}

fn draw_svg(figure: &impl Figure, size: Size, design: (f64, f64), ui_scale: f64) -> Result<String, String> {
    let mut text = String::new();
    {
        let device = (size.width * SVG_OVERSAMPLING, size.height * SVG_OVERSAMPLING);
        let backend = SVGBackend::with_string(&mut text, device);
        let zoom = ui_scale * SVG_OVERSAMPLING as f64;
        let mut canvas = Canvas::new(backend, Target::Svg, design, zoom);
        figure.draw(&mut canvas)?;
        canvas.finish()?;
    }
    // Keep the oversampled viewBox but show the figure at its real size.
    let oversampled =
        format!("width=\"{}\" height=\"{}\"", size.width * SVG_OVERSAMPLING, size.height * SVG_OVERSAMPLING);
    let real = format!("width=\"{}\" height=\"{}\"", size.width, size.height);
    Ok(text.replacen(&oversampled, &real, 1))
}

/// Returns the RGB pixels at the requested size.
fn draw_bitmap(figure: &impl Figure, size: Size, design: (f64, f64), ui_scale: f64) -> Result<Vec<u8>, String> {
    let pixels = size.width as u64 * size.height as u64;
    let factor =
        (1..=PNG_MAX_OVERSAMPLING).rev().find(|f| pixels * (*f as u64).pow(2) * 3 <= PNG_MAX_WORK_BYTES).unwrap_or(1);
    let (width, height) = (size.width * factor, size.height * factor);
    let mut buffer = vec![255u8; width as usize * height as usize * 3];
    {
        let backend = BitMapBackend::with_buffer(&mut buffer, (width, height));
        let mut canvas = Canvas::new(backend, Target::Bitmap, design, ui_scale * factor as f64);
        figure.draw(&mut canvas)?;
        canvas.finish()?;
    }
    Ok(downsample(&buffer, size, factor as usize))
}

/// Box-filters `factor`x`factor` blocks: the anti-aliasing the rasteriser lacks.
fn downsample(buffer: &[u8], size: Size, factor: usize) -> Vec<u8> {
    if factor == 1 {
        return buffer.to_vec();
    }
    let (width, height) = (size.width as usize, size.height as usize);
    let source_row = width * factor * 3;
    let block = (factor * factor) as u32;
    let mut out = Vec::with_capacity(width * height * 3);
    for y in 0..height {
        for x in 0..width {
            for channel in 0..3 {
                let mut sum = 0u32;
                for dy in 0..factor {
                    let row = (y * factor + dy) * source_row;
                    for dx in 0..factor {
                        sum += buffer[row + (x * factor + dx) * 3 + channel] as u32;
                    }
                }
                out.push(((sum + block / 2) / block) as u8);
            }
        }
    }
    out
}

fn encode_png(rgb: &[u8], size: Size) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, size.width, size.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// Writes a sibling temporary file and renames it over `path` (atomic on POSIX filesystems).
/// The temporary name is unique per process and call, so parallel renders never share one.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let file_name = path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
    let temporary = directory.join(format!(".{file_name}.{}.{call}.tmp", std::process::id()));
    let written = fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| fs::rename(&temporary, path));
    if renamed.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    renamed
}
