//! The paper look in one place: palette, dash/marker/hatch cycles, fonts, spacing, and how a
//! series' marker or hatch is drawn.
//!
//! Colours are Okabe-Ito (colour-blind safe); every series also differs in dash pattern and
//! marker (lines) or hatch (bars), so figures survive greyscale printing. A series' [`Style`]
//! picks its colour and its pattern (dash, marker, hatch) by index; the cycles have different
//! lengths, so even beyond eight indices no two share all of them.

use plotters::style::RGBColor;

use super::Style;
use super::canvas::{Canvas, Font, Stroke, Surface};
use super::geometry::{self, Point, Rect};

pub(super) const TEXT: RGBColor = RGBColor(0, 0, 0);
pub(super) const AXIS: RGBColor = RGBColor(0x26, 0x26, 0x26);
pub(super) const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);
/// Notes such as "no data" and "n/a".
pub(super) const MUTED: RGBColor = RGBColor(0x70, 0x70, 0x70);
pub(super) const BACKGROUND: RGBColor = RGBColor(0xFF, 0xFF, 0xFF);

// Sizes in design pixels (640x400 figure, shrunk to a ~3.3 in paper column: 1 px ~ 0.37 pt).
pub(super) const TITLE_FONT: Font = Font { px: 20.0, bold: true };
pub(super) const AXIS_LABEL_FONT: Font = Font { px: 20.0, bold: false };
pub(super) const TICK_FONT: Font = Font { px: 18.0, bold: false };
pub(super) const LEGEND_FONT: Font = Font { px: 18.0, bold: false };
pub(super) const VALUE_FONT: Font = Font { px: 15.0, bold: false };
/// Notes under the plot (what error bars show, what was left out).
pub(super) const NOTE_FONT: Font = Font { px: 15.0, bold: false };
/// Titles wrap onto at most this many lines before the last one is cut.
pub(super) const TITLE_MAX_LINES: usize = 3;
/// Fitting long text shrinks it to this fraction of its size before cutting it with an ellipsis.
pub(super) const MIN_FONT_SCALE: f64 = 0.8;

pub(super) const MARGIN: f64 = 8.0;
pub(super) const AXIS_WIDTH: f64 = 1.0;
pub(super) const GRID_WIDTH: f64 = 1.0;
pub(super) const TICK_LENGTH: f64 = 5.0;
pub(super) const MINOR_TICK_LENGTH: f64 = 3.0;
pub(super) const TICK_LABEL_GAP: f64 = 4.0;
pub(super) const AXIS_LABEL_GAP: f64 = 6.0;
pub(super) const LINE_WIDTH: f64 = 2.0;
pub(super) const MARKER_RADIUS: f64 = 4.5;
/// Error bars: line width and cap width.
pub(super) const ERROR_BAR_WIDTH: f64 = 1.5;
pub(super) const ERROR_BAR_CAP: f64 = 9.0;
pub(super) const BAR_EDGE_WIDTH: f64 = 1.0;
/// Share of each category's slot covered by its group of bars.
pub(super) const BAR_GROUP_SHARE: f64 = 0.8;
pub(super) const LEGEND_SWATCH_LENGTH: f64 = 30.0;
pub(super) const LEGEND_SWATCH_GAP: f64 = 6.0;
pub(super) const LEGEND_ENTRY_GAP: f64 = 18.0;
/// Line pitch as a multiple of the font's em.
pub(super) const LINE_PITCH_EMS: f64 = 1.3;

/// Okabe-Ito, ordered so the first few are the most distinct on white; yellow comes last.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xF0, 0xE4, 0x42), // yellow
];

/// On/off lengths in design pixels: solid, dashed, dotted, dash-dot, long dash, dash-dot-dot.
const DASHES: [&[f64]; 6] =
    [&[], &[7.0, 4.0], &[2.0, 3.0], &[9.0, 3.0, 2.0, 3.0], &[14.0, 4.0], &[9.0, 3.0, 2.0, 3.0, 2.0, 3.0]];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
}

const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Hatch {
    Plain,
    Forward,
    Backward,
    Crossed,
    Horizontal,
    Vertical,
}

const HATCHES: [Hatch; 6] =
    [Hatch::Plain, Hatch::Forward, Hatch::Backward, Hatch::Crossed, Hatch::Horizontal, Hatch::Vertical];
const HATCH_SPACING: f64 = 6.0;
const HATCH_WIDTH: f64 = 1.0;

/// Everything that tells one series from another.
#[derive(Clone, Copy, Debug)]
pub(super) struct Look {
    pub color: RGBColor,
    pub dash: &'static [f64],
    pub marker: Marker,
    pub hatch: Hatch,
}

pub(super) fn look(style: Style) -> Look {
    Look {
        color: PALETTE[style.color % PALETTE.len()],
        dash: DASHES[style.pattern % DASHES.len()],
        marker: MARKERS[style.pattern % MARKERS.len()],
        hatch: HATCHES[style.pattern % HATCHES.len()],
    }
}

impl Look {
    pub fn stroke(&self) -> Stroke<'static> {
        Stroke { color: self.color, width: LINE_WIDTH, dash: self.dash }
    }
}

/// Draws a marker of about the same visual weight whatever its shape.
pub(super) fn draw_marker<S: Surface>(
    canvas: &mut Canvas<S>,
    marker: Marker,
    (x, y): Point,
    color: RGBColor,
) -> Result<(), String> {
    let r = MARKER_RADIUS;
    match marker {
        Marker::Circle => canvas.disc((x, y), r, color),
        Marker::Square => {
            let half = r * 0.85;
            canvas.fill_rect(Rect { left: x - half, top: y - half, right: x + half, bottom: y + half }, color)
        }
        Marker::TriangleUp => {
            canvas.polygon(&[(x, y - r * 1.2), (x + r * 1.1, y + r * 0.7), (x - r * 1.1, y + r * 0.7)], color)
        }
        Marker::TriangleDown => {
            canvas.polygon(&[(x, y + r * 1.2), (x + r * 1.1, y - r * 0.7), (x - r * 1.1, y - r * 0.7)], color)
        }
        Marker::Diamond => canvas.polygon(&[(x, y - r * 1.25), (x + r, y), (x, y + r * 1.25), (x - r, y)], color),
        Marker::Cross | Marker::Plus => {
            let stroke = Stroke { color, width: LINE_WIDTH, dash: &[] };
            let arm = if marker == Marker::Plus { r * 1.15 } else { r * 0.85 };
            let (a, b) = if marker == Marker::Plus { ((arm, 0.0), (0.0, arm)) } else { ((arm, arm), (arm, -arm)) };
            canvas.polyline(&[(x - a.0, y - a.1), (x + a.0, y + a.1)], &stroke)?;
            canvas.polyline(&[(x - b.0, y - b.1), (x + b.0, y + b.1)], &stroke)
        }
    }
}

/// A published value ([`super::Mark`]) at `(x, y)`: a black diamond outline where the
/// reproduction is within tolerance, a black cross with a ring where it is not, so the two read
/// apart without colour; each over a white halo, so it shows on a dark bar or line too.
pub(super) fn draw_published<S: Surface>(canvas: &mut Canvas<S>, (x, y): Point, within: bool) -> Result<(), String> {
    let r = MARKER_RADIUS * 1.5;
    let shape: Vec<Vec<Point>> = if within {
        vec![vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y), (x, y - r)]]
    } else {
        let arm = r * 0.8;
        let ring = (0..=24)
            .map(|i| f64::from(i) * std::f64::consts::TAU / 24.0)
            .map(|a| (x + r * a.cos(), y + r * a.sin()))
            .collect();
        vec![vec![(x - arm, y - arm), (x + arm, y + arm)], vec![(x - arm, y + arm), (x + arm, y - arm)], ring]
    };
    let halo = Stroke { color: BACKGROUND, width: LINE_WIDTH * 2.0, dash: &[] };
    let stroke = Stroke { color: TEXT, width: LINE_WIDTH * 0.8, dash: &[] };
    for pen in [&halo, &stroke] {
        for line in &shape {
            canvas.polyline(line, pen)?;
        }
    }
    Ok(())
}

/// The note a chart with published values carries, saying what the marks are.
pub(super) const PUBLISHED_NOTE: &str = "\u{25c7} published value, reproduced within tolerance; \u{00d7} outside it";

/// Fills `rect` like a bar of this look: colour, hatch lines, black edge.
pub(super) fn draw_bar<S: Surface>(canvas: &mut Canvas<S>, rect: Rect, look: &Look) -> Result<(), String> {
    canvas.fill_rect(rect, look.color)?;
    // Dark hatching reads on every palette colour except black, which gets white.
    let ink = if look.color == RGBColor(0, 0, 0) { BACKGROUND } else { TEXT };
    let stroke = Stroke { color: ink, width: HATCH_WIDTH, dash: &[] };
    for line in hatch_lines(rect, look.hatch) {
        for piece in geometry::clip_polyline(&line, rect) {
            canvas.polyline(&piece, &stroke)?;
        }
    }
    canvas.outline_rect(rect, BAR_EDGE_WIDTH, TEXT)
}

/// Unclipped hatch lines covering `rect`, anchored to the canvas origin so adjacent bars of one
/// series line up.
fn hatch_lines(rect: Rect, hatch: Hatch) -> Vec<[Point; 2]> {
    let step = HATCH_SPACING;
    let (w, h) = (rect.width().abs(), rect.height().abs());
    let (left, top) = (rect.left.min(rect.right), rect.top.min(rect.bottom));
    let first = |origin: f64| (origin / step).floor() as i64;
    let count = |extent: f64| (extent / step).ceil() as i64 + 1;
    let diagonal = |slope: f64| {
        // Lines y = slope * x + c with c on the step grid, long enough to span the rectangle.
        let c_start = if slope > 0.0 { top - slope * (left + w) } else { top - slope * left };
        (first(c_start)..first(c_start) + count(w + h) + 1)
            .map(|k| {
                let c = k as f64 * step;
                [(left - 1.0, slope * (left - 1.0) + c), (left + w + 1.0, slope * (left + w + 1.0) + c)]
            })
            .collect::<Vec<_>>()
    };
    match hatch {
        Hatch::Plain => Vec::new(),
        Hatch::Forward => diagonal(-1.0),
        Hatch::Backward => diagonal(1.0),
        Hatch::Crossed => [diagonal(-1.0), diagonal(1.0)].concat(),
        Hatch::Horizontal => (first(top)..first(top) + count(h))
            .map(|k| k as f64 * step)
            .map(|y| [(left - 1.0, y), (left + w + 1.0, y)])
            .collect(),
        Hatch::Vertical => (first(left)..first(left) + count(w))
            .map(|k| k as f64 * step)
            .map(|x| [(x, top - 1.0), (x, top + h + 1.0)])
            .collect(),
    }
}

/// A vertical error bar at `x` from pixel `top` to `bottom`, with caps.
pub(super) fn draw_error_bar<S: Surface>(
    canvas: &mut Canvas<S>,
    x: f64,
    (top, bottom): (f64, f64),
    color: RGBColor,
) -> Result<(), String> {
    let stroke = Stroke { color, width: ERROR_BAR_WIDTH, dash: &[] };
    let half_cap = ERROR_BAR_CAP / 2.0;
    canvas.polyline(&[(x, top), (x, bottom)], &stroke)?;
    canvas.polyline(&[(x - half_cap, top), (x + half_cap, top)], &stroke)?;
    canvas.polyline(&[(x - half_cap, bottom), (x + half_cap, bottom)], &stroke)
}
