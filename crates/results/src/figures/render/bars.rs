//! Grouped bar charts: one slot per category, one bar per series within it.

use plotters::style::RGBColor;

use super::axis::{NumberFormat, ValueAxis, placeable};
use super::canvas::{Align, CAP_HEIGHT_EMS, Canvas, DESCENT_EMS, Direction, Font, Surface, text_width};
use super::frame::{Frame, LegendEntry, PROVISIONAL_PLOT_SHARE, Spec, Swatch, XAxis, text_height};
use super::geometry::Rect;
use super::style;
use super::{BarChart, Mark, Scale, Spread, Style};

/// Space between a bar's end (or its error bar's) and its value label.
const VALUE_LABEL_GAP: f64 = 3.0;

/// Draws `chart`, and `marks` (published values) over its bars.
pub(super) fn draw<S: Surface>(chart: &BarChart, marks: &[Mark], canvas: &mut Canvas<S>) -> Result<(), String> {
    let scale = chart.y.scale;
    let categories = chart.categories.len();
    let value = |series: usize, category: usize| chart.series[series].values.get(category).copied().flatten();
    let spread = |series: usize, category: usize| {
        chart.series[series].spread.get(category).copied().flatten().filter(Spread::varies)
    };
    let cells = || (0..chart.series.len()).flat_map(move |s| (0..categories).map(move |c| (s, c)));
    let drawable_values = || cells().filter_map(|(s, c)| value(s, c)).filter(|v| placeable(scale, *v));
    let bar_ends = || {
        cells()
            .filter(|(s, c)| value(*s, *c).is_some_and(|v| placeable(scale, v)))
            .filter_map(|(s, c)| spread(s, c))
            .flat_map(|s| [s.min, s.max])
            .filter(|v| placeable(scale, *v))
    };
    let published = marks.iter().map(|m| m.value).filter(|v| placeable(scale, *v));
    let y = ValueAxis::fit(&chart.y, drawable_values().chain(bar_ends()).chain(published), scale == Scale::Linear);
    let notes: Vec<String> =
        chart.notes.iter().cloned().chain((!marks.is_empty()).then(|| style::PUBLISHED_NOTE.to_string())).collect();

    // One number format for every label of the chart.
    let format = NumberFormat::for_values(cells().filter_map(|(s, c)| value(s, c)));
    let label_text = |value: Option<f64>| match value {
        Some(v) if v.is_finite() => format.format(v),
        _ => "n/a".to_string(),
    };
    let estimated_bar_width = (canvas.width() - 2.0 * style::MARGIN) * PROVISIONAL_PLOT_SHARE
        / categories.max(1) as f64
        * style::BAR_GROUP_SHARE
        / chart.series.len().max(1) as f64;
    let widest_label =
        cells().map(|(s, c)| text_width(&label_text(value(s, c)), style::VALUE_FONT)).fold(0.0, f64::max);
    let labels =
        if chart.value_labels { ValueLabels::choose(widest_label, estimated_bar_width) } else { ValueLabels::Omitted };
    let label_extent = match labels {
        ValueLabels::Omitted => 0.0,
        ValueLabels::Horizontal(font) => VALUE_LABEL_GAP + text_height(font) + VALUE_LABEL_GAP,
        ValueLabels::Upright(font) => VALUE_LABEL_GAP + widest_label * font.px / style::VALUE_FONT.px + VALUE_LABEL_GAP,
    };
    let headroom = |wanted: bool| if wanted { label_extent } else { 0.0 };
    let y_headroom = (headroom(drawable_values().any(|v| v < 0.0)), headroom(drawable_values().any(|v| v >= 0.0)));

    let legend = chart
        .series
        .iter()
        .filter(|series| !series.label.is_empty())
        .map(|series| LegendEntry { label: &series.label, look: style::look(series.style) })
        .collect();
    let spec = Spec {
        title: &chart.title,
        legend,
        swatch: Swatch::Bar,
        x: XAxis::Categories(&chart.categories),
        x_ticks_at: &[],
        x_label: "",
        y,
        y_label: &chart.y.label,
        y_headroom,
        x_grid: false,
        notes: &notes,
    };
    let frame = Frame::layout((canvas.width(), canvas.height()), spec);
    frame.draw_under(canvas)?;

    let plot = frame.plot;
    let baseline = match scale {
        Scale::Linear => frame.y_px(0.0).unwrap_or(plot.bottom).clamp(plot.top, plot.bottom),
        Scale::Log => plot.bottom,
    };
    let clamp = |px: f64| px.clamp(plot.top, plot.bottom);
    let mut drew_anything = false;
    for category in 0..categories {
        let (start, end) = frame.category_slot(category);
        let group_width = (end - start) * style::BAR_GROUP_SHARE;
        let bar_width = group_width / chart.series.len() as f64;
        for series in 0..chart.series.len() {
            let left = (start + end - group_width) / 2.0 + series as f64 * bar_width;
            let center = left + bar_width / 2.0;
            let cell = value(series, category);
            let end_px = cell.and_then(|v| frame.y_px(v)).map(clamp);
            let look: Style = chart.category_styles.get(category).copied().unwrap_or(chart.series[series].style);
            if let Some(end_px) = end_px {
                let bar =
                    Rect { left, right: left + bar_width, top: end_px.min(baseline), bottom: end_px.max(baseline) };
                style::draw_bar(canvas, bar, &style::look(look))?;
                drew_anything = true;
            }
            let downwards = cell.is_some_and(|v| v < 0.0) && scale == Scale::Linear;
            // The label goes beyond the farther of the bar's end and its error bar's.
            let mut label_at = end_px.unwrap_or(baseline);
            if let (Some(_), Some(spread)) = (end_px, spread(series, category)) {
                let (low, high) = (frame.y_px(spread.min).map(clamp), frame.y_px(spread.max).map(clamp));
                if let (Some(low), Some(high)) = (low, high) {
                    let half_cap = (bar_width * 0.25).min(style::ERROR_BAR_CAP / 2.0);
                    let stroke = super::canvas::Stroke { color: style::TEXT, width: style::ERROR_BAR_WIDTH, dash: &[] };
                    canvas.polyline(&[(center, high), (center, low)], &stroke)?;
                    for at in [high, low] {
                        canvas.polyline(&[(center - half_cap, at), (center + half_cap, at)], &stroke)?;
                    }
                    label_at = if downwards { label_at.max(low) } else { label_at.min(high) };
                }
            }
            if labels != ValueLabels::Omitted {
                let color = if end_px.is_some() { style::TEXT } else { style::MUTED };
                labels.draw(canvas, &label_text(cell), (center, label_at), downwards, color)?;
            }
        }
    }
    for mark in marks {
        let (category, series) = (mark.position as usize, mark.series);
        if category >= categories || series >= chart.series.len() {
            continue;
        }
        let (start, end) = frame.category_slot(category);
        let group_width = (end - start) * style::BAR_GROUP_SHARE;
        let bar_width = group_width / chart.series.len() as f64;
        let center = (start + end - group_width) / 2.0 + (series as f64 + 0.5) * bar_width;
        if let Some(y) = frame.y_px(mark.value).filter(|y| (plot.top..=plot.bottom).contains(y)) {
            style::draw_published(canvas, (center, y), mark.within)?;
        }
    }
    if !drew_anything {
        frame.draw_note(canvas, "no data")?;
    }
    frame.draw_over(canvas)
}

/// How bar values are printed, decided from the widest label and the bar width (estimated
/// before layout, which needs the space the labels take).
#[derive(Clone, Copy, Debug, PartialEq)]
enum ValueLabels {
    /// Possibly a little smaller than [`style::VALUE_FONT`], to keep neighbours apart.
    Horizontal(Font),
    /// Reading bottom to top, for bars much narrower than their labels.
    Upright(Font),
    /// Not asked for, or bars too thin for a legible label.
    Omitted,
}

/// Labels smaller than this would be illegible once the figure is shrunk into a column.
const MIN_VALUE_FONT_PX: f64 = 12.0;
/// Horizontal labels shrink at most to this share of their size before turning upright.
const MIN_HORIZONTAL_SHRINK: f64 = 0.85;
/// Space kept between neighbouring labels.
const VALUE_LABEL_SPACING: f64 = 4.0;

impl ValueLabels {
    /// `widest_label` is measured in [`style::VALUE_FONT`].
    fn choose(widest_label: f64, bar_width: f64) -> ValueLabels {
        let full = style::VALUE_FONT;
        let shrink = ((bar_width - VALUE_LABEL_SPACING) / widest_label).min(1.0);
        if shrink >= MIN_HORIZONTAL_SHRINK {
            return ValueLabels::Horizontal(Font { px: full.px * shrink, ..full });
        }
        // Upright digits are one capital height thick.
        let px = ((bar_width - VALUE_LABEL_SPACING / 2.0) / CAP_HEIGHT_EMS).min(full.px);
        if px >= MIN_VALUE_FONT_PX { ValueLabels::Upright(Font { px, ..full }) } else { ValueLabels::Omitted }
    }

    /// Writes `text` just beyond a bar's end at `(center_x, end_y)`: above it, or below for a
    /// negative bar.
    fn draw<S: Surface>(
        self,
        canvas: &mut Canvas<S>,
        text: &str,
        (center_x, end_y): (f64, f64),
        downwards: bool,
        color: RGBColor,
    ) -> Result<(), String> {
        match self {
            ValueLabels::Omitted => Ok(()),
            ValueLabels::Upright(font) => {
                let (y, align) = if downwards {
                    (end_y + VALUE_LABEL_GAP, Align::End)
                } else {
                    (end_y - VALUE_LABEL_GAP, Align::Start)
                };
                let baseline_x = center_x + font.px * CAP_HEIGHT_EMS / 2.0;
                canvas.text(text, font, color, (baseline_x, y), align, Direction::Upward)
            }
            ValueLabels::Horizontal(font) => {
                let baseline = if downwards {
                    end_y + VALUE_LABEL_GAP + font.px * CAP_HEIGHT_EMS
                } else {
                    end_y - VALUE_LABEL_GAP - font.px * DESCENT_EMS
                };
                canvas.text(text, font, color, (center_x, baseline), Align::Middle, Direction::Horizontal)
            }
        }
    }
}
