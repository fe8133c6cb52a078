//! A drawing surface in design pixels over a plotters backend, hiding what differs between the
//! SVG writer and the rasteriser: zoom, text baselines, and how thick lines are stroked.

use plotters::prelude::DrawingBackend;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{Color, FontDesc, FontFamily, FontStyle, FontTransform, RGBColor, ShapeStyle, TextStyle};

use super::FONT_FAMILY;
use super::geometry::{self, Point, Rect};

/// Which backend is underneath; they place text and stroke lines differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Svg,
    Bitmap,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Font {
    /// Em size in design pixels (the CSS `font-size`).
    pub px: f64,
    pub bold: bool,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Align {
    Start,
    Middle,
    End,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Direction {
    Horizontal,
    /// Rotated to read bottom to top, as a y-axis label.
    Upward,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Stroke<'a> {
    pub color: RGBColor,
    /// Design pixels.
    pub width: f64,
    /// Alternating on/off lengths in design pixels; empty is solid.
    pub dash: &'a [f64],
}

/// DejaVu Sans: 2048 units per em, hhea ascent 1901 and descent -483. plotters' `ab_glyph`
/// backend takes its size as ascent minus descent, SVG's `font-size` is the em; both are
/// converted so text has the same em size in the SVG and the PNG.
const EM_PER_BITMAP_SIZE: f64 = 2048.0 / (1901.0 + 483.0);
/// plotters-svg writes `font-size = size / 1.24` and places a top-anchored baseline 0.76 em down.
const SVG_SIZE_PER_EM: f64 = 1.24;
const SVG_BASELINE_EMS: f64 = 0.76;
/// The `ab_glyph` backend places a top-anchored baseline half its size down.
const BITMAP_BASELINE_PER_SIZE: f64 = 0.5;

pub(super) struct Canvas<DB: DrawingBackend> {
    backend: DB,
    target: Target,
    size: (f64, f64),
    zoom: f64,
}

type Drawn = Result<(), String>;

fn device((x, y): Point, zoom: f64) -> (i32, i32) {
    // `as` saturates, so wild coordinates cannot wrap around.
    ((x * zoom).round() as i32, (y * zoom).round() as i32)
}

impl<DB: DrawingBackend> Canvas<DB> {
    /// `size` is in design pixels; `zoom` turns design pixels into backend pixels.
    pub fn new(backend: DB, target: Target, size: (f64, f64), zoom: f64) -> Self {
        Canvas { backend, target, size, zoom }
    }

    pub fn width(&self) -> f64 {
        self.size.0
    }

    pub fn height(&self) -> f64 {
        self.size.1
    }

    pub fn finish(mut self) -> Drawn {
        self.backend.present().map_err(|e| e.to_string())
    }

    pub fn fill_rect(&mut self, rect: Rect, color: RGBColor) -> Drawn {
        let top_left = device((rect.left.min(rect.right), rect.top.min(rect.bottom)), self.zoom);
        let bottom_right = device((rect.left.max(rect.right), rect.top.max(rect.bottom)), self.zoom);
        self.backend.draw_rect(top_left, bottom_right, &color, true).map_err(|e| e.to_string())
    }

    /// A border of `width` centred on the rectangle's edges, with square corners.
    pub fn outline_rect(&mut self, rect: Rect, width: f64, color: RGBColor) -> Drawn {
        let half = width / 2.0;
        let (left, right) = (rect.left - half, rect.right + half);
        let (top, bottom) = (rect.top - half, rect.bottom + half);
        self.fill_rect(Rect { left, right, top, bottom: rect.top + half }, color)?;
        self.fill_rect(Rect { left, right, top: rect.bottom - half, bottom }, color)?;
        self.fill_rect(Rect { left, right: rect.left + half, top, bottom }, color)?;
        self.fill_rect(Rect { left: rect.right - half, right, top, bottom }, color)
    }

    pub fn polygon(&mut self, points: &[Point], color: RGBColor) -> Drawn {
        let zoom = self.zoom;
        self.backend.fill_polygon(points.iter().map(|p| device(*p, zoom)), &color).map_err(|e| e.to_string())
    }

    pub fn disc(&mut self, center: Point, radius: f64, color: RGBColor) -> Drawn {
        let radius = (radius * self.zoom).round().max(1.0) as u32;
        self.backend.draw_circle(device(center, self.zoom), radius, &color, true).map_err(|e| e.to_string())
    }

    /// Strokes a polyline. Dense input is thinned per device pixel column first, so cost and SVG
    /// size depend on the figure's width, not on the number of points.
    pub fn polyline(&mut self, points: &[Point], stroke: &Stroke) -> Drawn {
        let zoom = self.zoom;
        let on_device: Vec<Point> = points.iter().map(|(x, y)| (x * zoom, y * zoom)).collect();
        let thinned = geometry::thin_out(&on_device);
        let pattern: Vec<f64> = stroke.dash.iter().map(|length| length * zoom).collect();
        let width = stroke.width * zoom;
        for piece in geometry::dash(&thinned, &pattern) {
            match self.target {
                // SVG strokes natively; the rasteriser's own wide lines self-overlap and spike.
                Target::Svg => self.native_path(&piece, width, stroke.color)?,
                Target::Bitmap if width < 1.5 => self.native_path(&piece, width, stroke.color)?,
                Target::Bitmap => self.quad_path(&piece, width, stroke.color)?,
            }
        }
        Ok(())
    }

    fn native_path(&mut self, piece: &[Point], width: f64, color: RGBColor) -> Drawn {
        let style = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: width.round().max(1.0) as u32 };
        self.backend.draw_path(piece.iter().map(|p| device(*p, 1.0)), &style).map_err(|e| e.to_string())
    }

    /// One filled quad per segment plus a disc at each inner vertex (round joins, butt ends).
    fn quad_path(&mut self, piece: &[Point], width: f64, color: RGBColor) -> Drawn {
        let half = width / 2.0;
        for pair in piece.windows(2) {
            let ((ax, ay), (bx, by)) = (pair[0], pair[1]);
            let length = (bx - ax).hypot(by - ay);
            if length == 0.0 {
                continue;
            }
            let (nx, ny) = (-(by - ay) / length * half, (bx - ax) / length * half);
            let quad = [(ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)];
            self.backend.fill_polygon(quad.map(|p| device(p, 1.0)), &color).map_err(|e| e.to_string())?;
        }
        let radius = half.round().max(1.0) as u32;
        for joint in piece.iter().skip(1).take(piece.len().saturating_sub(2)) {
            self.backend.draw_circle(device(*joint, 1.0), radius, &color, true).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Draws `text` with its baseline through `anchor` (for [`Direction::Upward`], the baseline is
    /// the vertical line `x = anchor.0`), aligned along the text direction by `align`.
    pub fn text(
        &mut self,
        text: &str,
        font: Font,
        color: RGBColor,
        anchor: Point,
        align: Align,
        direction: Direction,
    ) -> Drawn {
        if text.is_empty() {
            return Ok(());
        }
        let em = font.px * self.zoom;
        let (size, baseline_drop) = match self.target {
            Target::Bitmap => (em / EM_PER_BITMAP_SIZE, em / EM_PER_BITMAP_SIZE * BITMAP_BASELINE_PER_SIZE),
            Target::Svg => (em * SVG_SIZE_PER_EM, em * SVG_BASELINE_EMS),
        };
        let (x, y) = (anchor.0 * self.zoom, anchor.1 * self.zoom);
        let (top_left, transform) = match direction {
            Direction::Horizontal => ((x, y - baseline_drop), FontTransform::None),
            Direction::Upward => ((x - baseline_drop, y), FontTransform::Rotate270),
        };
        let horizontal = match align {
            Align::Start => HPos::Left,
            Align::Middle => HPos::Center,
            Align::End => HPos::Right,
        };
        let style = TextStyle::from(font_desc(font, size))
            .color(&color)
            .pos(Pos::new(horizontal, VPos::Top))
            .transform(transform);
        self.backend.draw_text(text, &style, device(top_left, 1.0)).map_err(|e| e.to_string())
    }
}

fn font_desc(font: Font, size: f64) -> FontDesc<'static> {
    let style = if font.bold { FontStyle::Bold } else { FontStyle::Normal };
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, style)
}

/// Advance width of `text` in design pixels, from the embedded font's metrics.
pub(super) fn text_width(text: &str, font: Font) -> f64 {
    // Measured at a large size because plotters reports whole pixels.
    const MEASURE_EM: f64 = 200.0;
    let desc = font_desc(font, MEASURE_EM / EM_PER_BITMAP_SIZE);
    desc.box_size(text).map_or(0.0, |(width, _)| width as f64 * font.px / MEASURE_EM)
}

/// DejaVu Sans capital height (1493 units) and descender depth (483 units), in ems: text is laid
/// out from these so labels sit centred on ticks and clear of neighbours.
pub(super) const CAP_HEIGHT_EMS: f64 = 1493.0 / 2048.0;
pub(super) const DESCENT_EMS: f64 = 483.0 / 2048.0;
