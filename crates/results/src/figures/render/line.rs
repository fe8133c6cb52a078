//! Line charts: metric-vs-grid plots with markers and error bars, CDFs and timelines.

use super::axis::{ValueAxis, placeable};
use super::canvas::{Canvas, Surface};
use super::frame::{Frame, LegendEntry, Spec, Swatch, XAxis};
use super::geometry::{Point, clip_polyline};
use super::style;
use super::{LineChart, Mark};

/// Series with more points get markers on an evenly spaced subset only, so a dense CDF with
/// markers still shows its line.
const MAX_MARKERS_PER_SERIES: usize = 15;

/// Draws `chart`, and `marks` (published values) over it.
pub(super) fn draw<S: Surface>(chart: &LineChart, marks: &[Mark], canvas: &mut Canvas<S>) -> Result<(), String> {
    let (x_scale, y_scale) = (chart.x.scale, chart.y.scale);
    let drawable = |(x, y): &Point| placeable(x_scale, *x) && placeable(y_scale, *y);
    let all_points = || chart.series.iter().flat_map(|series| series.points.iter()).filter(|p| drawable(p));
    // Error bars must fit on the plot as well as the points.
    let bar_ends = chart.series.iter().flat_map(|series| {
        series
            .points
            .iter()
            .zip(&series.spread)
            .filter(|(p, _)| drawable(p))
            .flat_map(|(_, spread)| spread.filter(|s| s.varies()).map(|s| [s.min, s.max]).into_iter().flatten())
    });
    let x = ValueAxis::fit(&chart.x, all_points().map(|p| p.0), false);
    let published = marks.iter().map(|m| (m.position, m.value)).filter(|p| drawable(p)).map(|p| p.1);
    let y = ValueAxis::fit(&chart.y, all_points().map(|p| p.1).chain(bar_ends).chain(published), false);
    let notes: Vec<String> =
        chart.notes.iter().cloned().chain((!marks.is_empty()).then(|| style::PUBLISHED_NOTE.to_string())).collect();
    let legend = chart
        .series
        .iter()
        .filter(|series| !series.label.is_empty())
        .map(|series| LegendEntry { label: &series.label, look: style::look(series.style) })
        .collect();
    let spec = Spec {
        title: &chart.title,
        legend,
        swatch: Swatch::Line { marker: chart.markers },
        x: XAxis::Values(x),
        x_ticks_at: &chart.x.ticks_at,
        x_label: &chart.x.label,
        y,
        y_label: &chart.y.label,
        y_headroom: (0.0, 0.0),
        x_grid: true,
        notes: &notes,
    };
    let frame = Frame::layout((canvas.width(), canvas.height()), spec);
    frame.draw_under(canvas)?;

    let mut drew_anything = false;
    for (index, series) in chart.series.iter().enumerate() {
        let look = style::look(series.style);
        let on_plot = |point: &Point| frame.plot.contains(*point);
        let runs = pixel_runs(&frame, &series.points);
        for run in &runs {
            for piece in clip_polyline(run, frame.plot) {
                canvas.polyline(&piece, &look.stroke())?;
                drew_anything = true;
            }
            // A lone point has no line; without a marker it would vanish.
            if let [point] = run.as_slice()
                && !chart.markers
                && on_plot(point)
            {
                canvas.disc(*point, style::LINE_WIDTH * 1.5, look.color)?;
                drew_anything = true;
            }
        }
        for (point, spread) in series.points.iter().zip(&series.spread) {
            let Some(spread) = spread.filter(|s| s.varies()) else { continue };
            let (Some(x), Some(low), Some(high)) =
                (frame.x_px(point.0), frame.y_px(spread.min), frame.y_px(spread.max))
            else {
                continue;
            };
            let clamp = |y: f64| y.clamp(frame.plot.top, frame.plot.bottom);
            if (frame.plot.left..=frame.plot.right).contains(&x) {
                style::draw_error_bar(canvas, x, (clamp(high), clamp(low)), look.color)?;
            }
        }
        if chart.markers {
            let points: Vec<Point> = runs.into_iter().flatten().collect();
            for point in marker_subset(&points, index).filter(|p| on_plot(p)) {
                style::draw_marker(canvas, look.marker, point, look.color)?;
                drew_anything = true;
            }
        }
    }
    for mark in marks {
        if let (Some(x), Some(y)) = (frame.x_px(mark.position), frame.y_px(mark.value))
            && frame.plot.contains((x, y))
        {
            style::draw_published(canvas, (x, y), mark.within)?;
        }
    }
    if !drew_anything {
        frame.draw_note(canvas, "no data")?;
    }
    frame.draw_over(canvas)
}

/// The series in pixels, broken where a point cannot be placed (NaN, infinite, or not positive
/// on a log axis), as plotting tools conventionally show missing data as a gap.
fn pixel_runs(frame: &Frame, points: &[Point]) -> Vec<Vec<Point>> {
    let mut runs = vec![Vec::new()];
    for (x, y) in points {
        match (frame.x_px(*x), frame.y_px(*y)) {
            (Some(px), Some(py)) => runs.last_mut().map_or((), |run| run.push((px, py))),
            _ if runs.last().is_some_and(|run| !run.is_empty()) => runs.push(Vec::new()),
            _ => {}
        }
    }
    runs.retain(|run| !run.is_empty());
    runs
}

/// Every point, or for dense series an evenly spaced subset, shifted per series so that
/// different series do not put their markers at the same x.
fn marker_subset(points: &[Point], series_index: usize) -> impl Iterator<Item = Point> + '_ {
    let stride = points.len().div_ceil(MAX_MARKERS_PER_SERIES).max(1);
    let offset = if stride > 1 { (series_index * stride / 3 + stride / 2) % stride } else { 0 };
    points.iter().skip(offset).step_by(stride).copied()
}
