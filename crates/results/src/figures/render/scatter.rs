//! Scatter plots of paired values against the `y = x` diagonal (`blox compare`: a job's JCT in
//! two runs). Both axes get one range, so a point's distance from the diagonal reads the same
//! along either axis.

use std::collections::BTreeSet;

use super::axis::{ValueAxis, placeable};
use super::canvas::{Canvas, Stroke, Surface};
use super::frame::{Frame, Spec, Swatch, XAxis};
use super::geometry::clip_polyline;
use super::{Axis, ScatterChart, style};

/// Points are small: a scatter holds thousands of jobs.
const POINT_RADIUS: f64 = 2.5;
/// The diagonal is a thin dashed reference line under the points.
const DIAGONAL: Stroke<'static> = Stroke { color: style::MUTED, width: 1.0, dash: &[6.0, 4.0] };
/// At most this many labelled ticks when snapping the shared range to round values.
const RANGE_TICKS: usize = 6;

pub(super) fn draw<S: Surface>(chart: &ScatterChart, canvas: &mut Canvas<S>) -> Result<(), String> {
    let scale = chart.scale;
    let placed: Vec<(f64, f64)> =
        chart.points.iter().copied().filter(|(x, y)| placeable(scale, *x) && placeable(scale, *y)).collect();
    let mut shared = ValueAxis::fit(&Axis::new("", scale), placed.iter().flat_map(|(x, y)| [*x, *y]), false);
    shared.ticks(RANGE_TICKS);
    // Given limits are kept exactly by the frame, so both axes end where the diagonal does.
    let shared = ValueAxis { data: None, ..shared };
    let spec = Spec {
        title: &chart.title,
        legend: Vec::new(),
        swatch: Swatch::Line { marker: true },
        x: XAxis::Values(shared),
        x_ticks_at: &[],
        x_label: &chart.x_label,
        y: shared,
        y_label: &chart.y_label,
        y_headroom: (0.0, 0.0),
        x_grid: true,
        notes: &chart.notes,
    };
    let frame = Frame::layout((canvas.width(), canvas.height()), spec);
    frame.draw_under(canvas)?;
    let corners = [(shared.lo, shared.lo), (shared.hi, shared.hi)];
    let diagonal: Vec<(f64, f64)> =
        corners.iter().filter_map(|(x, y)| Some((frame.x_px(*x)?, frame.y_px(*y)?))).collect();
    for piece in clip_polyline(&diagonal, frame.plot) {
        canvas.polyline(&piece, &DIAGONAL)?;
    }
    // Points that land on the same half pixel are drawn once: same picture, smaller files.
    let mut drawn = BTreeSet::new();
    let color = style::look(chart.style).color;
    for (x, y) in placed {
        let (Some(px), Some(py)) = (frame.x_px(x), frame.y_px(y)) else { continue };
        if frame.plot.contains((px, py)) && drawn.insert(((px * 2.0).round() as i64, (py * 2.0).round() as i64)) {
            canvas.disc((px, py), POINT_RADIUS, color)?;
        }
    }
    if drawn.is_empty() {
        frame.draw_note(canvas, "no data")?;
    }
    frame.draw_over(canvas)
}
