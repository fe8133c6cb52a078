//! A drawing surface in design pixels over one of two devices: the rasteriser (plotters' bitmap
//! backend, for the PNG) or a recorder of vector operations (written out as SVG and PDF). The
//! canvas does what is common (zoom, dashing, thinning); each surface what differs (text
//! baselines, how thick lines are stroked).

use ab_glyph::{Font as _, GlyphId, PxScale, point};
use plotters::prelude::DrawingBackend;
use plotters::style::{Color, RGBColor, ShapeStyle};

use super::fonts::{self, UNITS_PER_EM};
use super::geometry::{self, Point, Rect};
use super::vector::{Op, Recording};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Font {
    /// Em size in design pixels (the CSS `font-size`).
    pub px: f64,
    pub bold: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Align {
    Start,
    Middle,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

type Drawn = Result<(), String>;

/// One line of text as a surface draws it.
#[derive(Clone, Copy, Debug)]
pub(super) struct TextRun<'a> {
    pub text: &'a str,
    /// Em size in device units.
    pub em: f64,
    pub bold: bool,
    pub color: RGBColor,
    /// The baseline passes through it (for [`Direction::Upward`], the baseline is the vertical
    /// line `x = anchor.0`).
    pub anchor: Point,
    pub align: Align,
    pub direction: Direction,
}

/// What a device draws, in its own units (the canvas has applied the zoom).
pub(super) trait Surface {
    fn fill_rect(&mut self, rect: Rect, color: RGBColor) -> Drawn;
    fn polygon(&mut self, points: &[Point], color: RGBColor) -> Drawn;
    fn disc(&mut self, center: Point, radius: f64, color: RGBColor) -> Drawn;
    /// One solid polyline (the canvas has cut dashes into pieces), butt ends, round joins.
    fn stroke(&mut self, points: &[Point], width: f64, color: RGBColor) -> Drawn;
    fn text(&mut self, run: &TextRun) -> Drawn;
    /// Device units per column when thinning dense lines: finer for vector output.
    fn thinning_columns_per_unit(&self) -> f64;
}

pub(super) struct Canvas<S: Surface> {
    surface: S,
    size: (f64, f64),
    zoom: f64,
}

impl<S: Surface> Canvas<S> {
    /// `size` is in design pixels; `zoom` turns design pixels into device units.
    pub fn new(surface: S, size: (f64, f64), zoom: f64) -> Self {
        Canvas { surface, size, zoom }
    }

    pub fn width(&self) -> f64 {
        self.size.0
    }

    pub fn height(&self) -> f64 {
        self.size.1
    }

    pub fn into_surface(self) -> S {
        self.surface
    }

    fn device(&self, (x, y): Point) -> Point {
        (x * self.zoom, y * self.zoom)
    }

    pub fn fill_rect(&mut self, rect: Rect, color: RGBColor) -> Drawn {
        let (left, top) = self.device((rect.left.min(rect.right), rect.top.min(rect.bottom)));
        let (right, bottom) = self.device((rect.left.max(rect.right), rect.top.max(rect.bottom)));
        self.surface.fill_rect(Rect { left, top, right, bottom }, color)
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
        let on_device: Vec<Point> = points.iter().map(|p| self.device(*p)).collect();
        self.surface.polygon(&on_device, color)
    }

    pub fn disc(&mut self, center: Point, radius: f64, color: RGBColor) -> Drawn {
        let center = self.device(center);
        self.surface.disc(center, radius * self.zoom, color)
    }

    /// Strokes a polyline. Dense input is thinned per device column first, so cost and file size
    /// depend on the figure's width, not on the number of points.
    pub fn polyline(&mut self, points: &[Point], stroke: &Stroke) -> Drawn {
        let columns = self.surface.thinning_columns_per_unit();
        let in_columns: Vec<Point> =
            points.iter().map(|(x, y)| (x * self.zoom * columns, y * self.zoom * columns)).collect();
        let thinned: Vec<Point> =
            geometry::thin_out(&in_columns).into_iter().map(|(x, y)| (x / columns, y / columns)).collect();
        let pattern: Vec<f64> = stroke.dash.iter().map(|length| length * self.zoom).collect();
        for piece in geometry::dash(&thinned, &pattern) {
            self.surface.stroke(&piece, stroke.width * self.zoom, stroke.color)?;
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
        let anchor = self.device(anchor);
        self.surface.text(&TextRun { text, em: font.px * self.zoom, bold: font.bold, color, anchor, align, direction })
    }
}

/// Advance width of `text` in design pixels, from the embedded font's metrics (the layout all
/// outputs share).
pub(super) fn text_width(text: &str, font: Font) -> f64 {
    fonts::face(font.bold).layout(text).1 * font.px / UNITS_PER_EM
}

/// DejaVu Sans capital height (1493 units) and descender depth (483 units), in ems: text is laid
/// out from these so labels sit centred on ticks and clear of neighbours.
pub(super) const CAP_HEIGHT_EMS: f64 = 1493.0 / 2048.0;
pub(super) const DESCENT_EMS: f64 = 483.0 / 2048.0;

/// The rasteriser, in device pixels.
pub(super) struct Bitmap<DB: DrawingBackend> {
    pub backend: DB,
}

fn pixel((x, y): Point) -> (i32, i32) {
    // `as` saturates, so wild coordinates cannot wrap around.
    (x.round() as i32, y.round() as i32)
}

impl<DB: DrawingBackend> Bitmap<DB> {
    pub fn finish(mut self) -> Drawn {
        self.backend.present().map_err(|e| e.to_string())
    }

    fn native_path(&mut self, piece: &[Point], width: f64, color: RGBColor) -> Drawn {
        let style = ShapeStyle { color: color.to_rgba(), filled: false, stroke_width: width.round().max(1.0) as u32 };
        self.backend.draw_path(piece.iter().map(|p| pixel(*p)), &style).map_err(|e| e.to_string())
    }

    /// One filled quad per segment plus a disc at each inner vertex (round joins, butt ends):
    /// the rasteriser's own wide lines self-overlap and spike.
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
            self.backend.fill_polygon(quad.map(pixel), &color).map_err(|e| e.to_string())?;
        }
        let radius = half.round().max(1.0) as u32;
        for joint in piece.iter().skip(1).take(piece.len().saturating_sub(2)) {
            self.backend.draw_circle(pixel(*joint), radius, &color, true).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

impl<DB: DrawingBackend> Surface for Bitmap<DB> {
    fn fill_rect(&mut self, rect: Rect, color: RGBColor) -> Drawn {
        let (top_left, bottom_right) = (pixel((rect.left, rect.top)), pixel((rect.right, rect.bottom)));
        self.backend.draw_rect(top_left, bottom_right, &color, true).map_err(|e| e.to_string())
    }

    fn polygon(&mut self, points: &[Point], color: RGBColor) -> Drawn {
        self.backend.fill_polygon(points.iter().map(|p| pixel(*p)), &color).map_err(|e| e.to_string())
    }

    fn disc(&mut self, center: Point, radius: f64, color: RGBColor) -> Drawn {
        let radius = radius.round().max(1.0) as u32;
        self.backend.draw_circle(pixel(center), radius, &color, true).map_err(|e| e.to_string())
    }

    fn stroke(&mut self, points: &[Point], width: f64, color: RGBColor) -> Drawn {
        if width < 1.5 { self.native_path(points, width, color) } else { self.quad_path(points, width, color) }
    }

    /// Rasterises the shared layout's glyphs with `ab_glyph` coverage (plotters' own text drops
    /// each glyph's side bearing, which visibly unevens spacing, e.g. before a "J").
    fn text(&mut self, run: &TextRun) -> Drawn {
        let TextRun { text, em, bold, color, anchor: (x, y), align, direction } = *run;
        let face = fonts::face(bold);
        let (glyphs, advance) = face.layout(text);
        let units_to_px = em / UNITS_PER_EM;
        let shift = match align {
            Align::Start => 0.0,
            Align::Middle => -advance * units_to_px / 2.0,
            Align::End => -advance * units_to_px,
        };
        // ab_glyph's scale is the pixel height of ascent minus descent.
        let height_units = f64::from(face.font.ascent_unscaled() - face.font.descent_unscaled());
        let scale = PxScale::from((em * height_units / UNITS_PER_EM) as f32);
        // Horizontal text is placed with sub-pixel precision; upward text is laid out
        // horizontally from a whole-pixel anchor and turned a quarter, which maps pixels exactly.
        let (origin, anchor) = match direction {
            Direction::Horizontal => ((x, y), (0, 0)),
            Direction::Upward => ((0.0, 0.0), (x.round() as i32, y.round() as i32)),
        };
        for glyph in &glyphs {
            let pen = (origin.0 + shift + glyph.x * units_to_px, origin.1);
            let positioned = GlyphId(glyph.glyph).with_scale_and_position(scale, point(pen.0 as f32, pen.1 as f32));
            let Some(outlined) = face.font.outline_glyph(positioned) else { continue };
            let bounds = outlined.px_bounds();
            let mut pixels = Vec::new();
            outlined.draw(|dx, dy, coverage| {
                if coverage > 0.0 {
                    pixels.push((bounds.min.x as i32 + dx as i32, bounds.min.y as i32 + dy as i32, coverage));
                }
            });
            for (px, py, coverage) in pixels {
                let at = match direction {
                    Direction::Horizontal => (px, py),
                    Direction::Upward => (anchor.0 + py, anchor.1 - px - 1),
                };
                let ink = color.mix(f64::from(coverage.min(1.0))).to_backend_color();
                self.backend.draw_pixel(at, ink).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    fn thinning_columns_per_unit(&self) -> f64 {
        1.0
    }
}

/// Vector output keeps quarter-unit detail when thinning.
const VECTOR_COLUMNS_PER_UNIT: f64 = 4.0;

impl Surface for Recording {
    fn fill_rect(&mut self, rect: Rect, color: RGBColor) -> Drawn {
        self.ops.push(Op::Rect { rect, color });
        Ok(())
    }

    fn polygon(&mut self, points: &[Point], color: RGBColor) -> Drawn {
        self.ops.push(Op::Polygon { points: points.to_vec(), color });
        Ok(())
    }

    fn disc(&mut self, center: Point, radius: f64, color: RGBColor) -> Drawn {
        self.ops.push(Op::Disc { center, radius, color });
        Ok(())
    }

    fn stroke(&mut self, points: &[Point], width: f64, color: RGBColor) -> Drawn {
        if points.len() >= 2 {
            self.ops.push(Op::Stroke { points: points.to_vec(), width, color });
        }
        Ok(())
    }

    fn text(&mut self, run: &TextRun) -> Drawn {
        let TextRun { text, em, bold, color, anchor, align, direction } = *run;
        self.ops.push(Op::Text { text: text.to_string(), em, bold, color, anchor, align, direction });
        Ok(())
    }

    fn thinning_columns_per_unit(&self) -> f64 {
        VECTOR_COLUMNS_PER_UNIT
    }
}
