//! Everything around the data: title, legend, axes, ticks, grid, and the layout that sizes the
//! plot area so none of them overlap (the legend sits above the plot, never on the data).

use super::axis::{Ticks, ValueAxis};
use super::canvas::{Align, CAP_HEIGHT_EMS, Canvas, DESCENT_EMS, Direction, Font, Surface, text_width};
use super::geometry::Rect;
use super::style::{self, Look};

/// How a legend entry shows its series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Swatch {
    Line { marker: bool },
    Bar,
}

pub(super) struct LegendEntry<'a> {
    pub label: &'a str,
    pub look: Look,
}

/// The x axis: numbers, or one slot per category (bars).
pub(super) enum XAxis<'a> {
    Values(ValueAxis),
    Categories(&'a [String]),
}

pub(super) struct Spec<'a> {
    pub title: &'a str,
    pub legend: Vec<LegendEntry<'a>>,
    pub swatch: Swatch,
    pub x: XAxis<'a>,
    /// Values to put the x ticks at (see [`super::Axis::ticks_at`]); empty: round numbers.
    pub x_ticks_at: &'a [f64],
    pub x_label: &'a str,
    pub y: ValueAxis,
    pub y_label: &'a str,
    /// Free space to keep above and below the data, in pixels (bar value labels).
    pub y_headroom: (f64, f64),
    /// Vertical grid lines at x ticks (off for bars, whose categories need none).
    pub x_grid: bool,
    /// Remarks under everything else, wrapped to the figure's width.
    pub notes: &'a [String],
}

/// Text after fitting to its space.
struct Fitted {
    text: String,
    font: Font,
}

/// A tick mark at a pixel position along its axis, with its label lines (none for minor ticks).
struct Tick {
    at: f64,
    length: f64,
    labels: Vec<Fitted>,
}

/// A laid-out figure; [`Frame::draw_under`] and [`Frame::draw_over`] sandwich the data.
pub(super) struct Frame {
    pub plot: Rect,
    pub y: ValueAxis,
    x_values: Option<ValueAxis>,
    categories: usize,
    x_ticks: Vec<Tick>,
    y_ticks: Vec<Tick>,
    x_grid: bool,
    /// Lines with their baselines.
    title: Vec<(Fitted, f64)>,
    notes: Vec<(Fitted, f64)>,
    legend: Vec<(Fitted, Look, (f64, f64))>,
    swatch: Swatch,
    x_label: Option<(Fitted, f64)>,
    /// The label, its baseline's x and its centre's y.
    y_label: Option<(Fitted, (f64, f64))>,
}

/// Far enough outside any figure that a line towards it keeps its visible direction.
const FAR_OFF_PX: f64 = 1.0e6;
/// Share of the width the plot area is assumed to get, for choices that must be made before
/// the layout that fixes it (wrapping category names, turning bar labels upright).
pub(super) const PROVISIONAL_PLOT_SHARE: f64 = 0.85;
/// The plot area never gets smaller than this, however much text surrounds it.
const MIN_PLOT_SIDE: f64 = 20.0;

fn line_pitch(font: Font) -> f64 {
    font.px * style::LINE_PITCH_EMS
}

/// Height of one line of text from the top of its capitals to the bottom of its descenders.
pub(super) fn text_height(font: Font) -> f64 {
    font.px * (CAP_HEIGHT_EMS + DESCENT_EMS)
}

/// Puts a pixel coordinate on a pixel centre, so 1-px lines are crisp instead of two grey pixels.
fn crisp(coordinate: f64) -> f64 {
    coordinate.floor() + 0.5
}

/// Space taken by an axis label, or none without one.
fn axis_label_space(label: &str) -> f64 {
    if label.trim().is_empty() { 0.0 } else { text_height(style::AXIS_LABEL_FONT) + style::AXIS_LABEL_GAP }
}

impl Frame {
    /// Sizes the plot area from the outside in: title and legend on top, x labels below, then
    /// y ticks (which need the plot's height) to the left, then x ticks (which need its width).
    pub fn layout((width, height): (f64, f64), spec: Spec) -> Frame {
        let inner_width = width - 2.0 * style::MARGIN;

        let mut top = style::MARGIN;
        let title_lines = wrap_lines(spec.title, style::TITLE_FONT, inner_width, style::TITLE_MAX_LINES);
        let title: Vec<(Fitted, f64)> = title_lines
            .into_iter()
            .enumerate()
            .map(|(row, fitted)| {
                let baseline = top + style::TITLE_FONT.px * CAP_HEIGHT_EMS + row as f64 * line_pitch(style::TITLE_FONT);
                (fitted, baseline)
            })
            .collect();
        if let Some((last, baseline)) = title.last() {
            top = baseline + last.font.px * DESCENT_EMS + style::AXIS_LABEL_GAP;
        }

        // Notes take the bottom lines of the figure, above the margin.
        let note_lines: Vec<Fitted> =
            spec.notes.iter().flat_map(|note| wrap_lines(note, style::NOTE_FONT, inner_width, usize::MAX)).collect();
        let note_pitch = line_pitch(style::NOTE_FONT);
        let notes_space =
            if note_lines.is_empty() { 0.0 } else { note_lines.len() as f64 * note_pitch + style::AXIS_LABEL_GAP };
        let notes_top = height - style::MARGIN - notes_space + style::AXIS_LABEL_GAP;
        let notes: Vec<(Fitted, f64)> = note_lines
            .into_iter()
            .enumerate()
            .map(|(row, fitted)| {
                let baseline = notes_top + style::NOTE_FONT.px * CAP_HEIGHT_EMS + row as f64 * note_pitch;
                (fitted, baseline)
            })
            .collect();
        let bottom = height - style::MARGIN - notes_space;
        let legend_grid = LegendGrid::new(&spec.legend, spec.swatch, inner_width);
        let legend_top = top;
        // Plus half a tick label, so the topmost y label is not cut.
        let plot_top = top + legend_grid.rows as f64 * line_pitch(style::LEGEND_FONT) + style::TICK_FONT.px * 0.6;

        let category_lines = match spec.x {
            XAxis::Categories(names) if !names.is_empty() => {
                let provisional_slot = inner_width * PROVISIONAL_PLOT_SHARE / names.len() as f64 - CATEGORY_GAP;
                names.iter().map(|name| wrap_two_lines(name, style::TICK_FONT, provisional_slot).len()).max()
            }
            _ => None,
        };
        let tick_label_space =
            text_height(style::TICK_FONT) + (category_lines.unwrap_or(1) - 1) as f64 * line_pitch(style::TICK_FONT);
        let plot_bottom =
            bottom - axis_label_space(spec.x_label) - tick_label_space - style::TICK_LABEL_GAP - style::TICK_LENGTH;
        let plot_top = crisp(plot_top.min(plot_bottom - MIN_PLOT_SIDE));
        let plot_bottom = crisp(plot_bottom.max(plot_top + MIN_PLOT_SIDE));
        let plot_height = plot_bottom - plot_top;

        let mut y = spec.y;
        if y.data.is_some() {
            let (below, above) = spec.y_headroom;
            y.reserve(below / plot_height, above / plot_height);
        }
        let y_ticks = y.ticks(((plot_height / (style::TICK_FONT.px * 2.4)) as usize).min(8));
        let widest_y_label =
            y_ticks.major.iter().map(|(_, label)| text_width(label, style::TICK_FONT)).fold(0.0, f64::max);
        let plot_left = crisp(
            (style::MARGIN
                + axis_label_space(spec.y_label)
                + widest_y_label
                + style::TICK_LABEL_GAP
                + style::TICK_LENGTH)
                .min(width / 2.0),
        );

        let right_limit = width - style::MARGIN;
        let (x_values, x_ticks, plot_right) = match spec.x {
            XAxis::Values(axis) => {
                let (axis, ticks, right) = fit_x_ticks(axis, spec.x_ticks_at, plot_left, right_limit);
                (Some(axis), ticks, right)
            }
            XAxis::Categories(_) => (None, Ticks::default(), crisp(right_limit)),
        };
        let plot = Rect { left: plot_left, top: plot_top, right: plot_right, bottom: plot_bottom };

        let mut frame = Frame {
            plot,
            y,
            x_values,
            categories: if let XAxis::Categories(names) = spec.x { names.len() } else { 0 },
            x_ticks: Vec::new(),
            y_ticks: Vec::new(),
            x_grid: spec.x_grid,
            title,
            notes,
            legend: legend_grid.place(spec.legend, plot, width, legend_top),
            swatch: spec.swatch,
            x_label: (!spec.x_label.trim().is_empty()).then(|| {
                let fitted = fit_text(spec.x_label, style::AXIS_LABEL_FONT, inner_width);
                (fitted, bottom - style::AXIS_LABEL_FONT.px * DESCENT_EMS)
            }),
            // Centred on the plot when it fits there, shifted (never past the notes) when not.
            y_label: (!spec.y_label.trim().is_empty()).then(|| {
                let fitted = fit_text(spec.y_label, style::AXIS_LABEL_FONT, bottom - style::MARGIN);
                let half = text_width(&fitted.text, fitted.font) / 2.0;
                let center = plot.center().1.min(bottom - half).max(style::MARGIN + half);
                (fitted, (style::MARGIN + style::AXIS_LABEL_FONT.px * CAP_HEIGHT_EMS, center))
            }),
        };
        frame.y_ticks = placed_ticks(&y_ticks, |value| frame.y_px(value), (plot.top, plot.bottom));
        frame.x_ticks =
            match spec.x {
                XAxis::Values(_) => placed_ticks(&x_ticks, |value| frame.x_px(value), (plot.left, plot.right)),
                XAxis::Categories(names) => {
                    let slot_width = |index: usize| {
                        let (start, end) = frame.category_slot(index);
                        end - start - CATEGORY_GAP
                    };
                    let lines: Vec<Vec<String>> = names
                        .iter()
                        .enumerate()
                        .map(|(index, name)| wrap_two_lines(name, style::TICK_FONT, slot_width(index)))
                        .collect();
                    // One font for every category name, so that no label looks more important.
                    let font =
                        common_font(lines.iter().enumerate().flat_map(|(index, lines)| {
                            lines.iter().map(move |line| (line.as_str(), slot_width(index)))
                        }));
                    lines
                        .iter()
                        .enumerate()
                        .map(|(index, lines)| {
                            let (start, end) = frame.category_slot(index);
                            let labels = lines.iter().map(|line| fit_text(line, font, slot_width(index))).collect();
                            Tick { at: (start + end) / 2.0, length: 0.0, labels }
                        })
                        .collect()
                }
            };
        frame
    }

    /// Horizontal pixel of an x value; `None` if it cannot be placed (or x is categorical).
    /// Far-off values are pulled in to a bounded distance so clipping never sees infinities.
    pub fn x_px(&self, value: f64) -> Option<f64> {
        let fraction = self.x_values?.fraction(value)?;
        Some((self.plot.left + fraction * self.plot.width()).clamp(-FAR_OFF_PX, FAR_OFF_PX))
    }

    /// Vertical pixel of a y value, bounded like [`Self::x_px`].
    pub fn y_px(&self, value: f64) -> Option<f64> {
        let fraction = self.y.fraction(value)?;
        Some((self.plot.bottom - fraction * self.plot.height()).clamp(-FAR_OFF_PX, FAR_OFF_PX))
    }

    /// Horizontal pixel span of a category's slot.
    pub fn category_slot(&self, index: usize) -> (f64, f64) {
        let slot = self.plot.width() / self.categories.max(1) as f64;
        (self.plot.left + slot * index as f64, self.plot.left + slot * (index + 1) as f64)
    }

    /// Background and grid lines at labelled ticks, below the data.
    pub fn draw_under<S: Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        let everything = Rect { left: 0.0, top: 0.0, right: canvas.width(), bottom: canvas.height() };
        canvas.fill_rect(everything, style::BACKGROUND)?;
        let half = style::GRID_WIDTH / 2.0;
        let plot = self.plot;
        for tick in self.y_ticks.iter().filter(|tick| !tick.labels.is_empty()) {
            canvas.fill_rect(Rect { top: tick.at - half, bottom: tick.at + half, ..plot }, style::GRID)?;
        }
        for tick in self.x_ticks.iter().filter(|tick| self.x_grid && !tick.labels.is_empty()) {
            canvas.fill_rect(Rect { left: tick.at - half, right: tick.at + half, ..plot }, style::GRID)?;
        }
        Ok(())
    }

    /// Axes, ticks, labels, legend and title, over the data.
    pub fn draw_over<S: Surface>(&self, canvas: &mut Canvas<S>) -> Result<(), String> {
        let plot = self.plot;
        canvas.outline_rect(plot, style::AXIS_WIDTH, style::AXIS)?;
        let half = style::AXIS_WIDTH / 2.0;
        for tick in &self.y_ticks {
            let mark =
                Rect { left: plot.left - tick.length, top: tick.at - half, right: plot.left, bottom: tick.at + half };
            canvas.fill_rect(mark, style::AXIS)?;
            for label in &tick.labels {
                let x = plot.left - style::TICK_LENGTH - style::TICK_LABEL_GAP;
                let baseline = tick.at + label.font.px * CAP_HEIGHT_EMS / 2.0;
                canvas.text(&label.text, label.font, style::TEXT, (x, baseline), Align::End, Direction::Horizontal)?;
            }
        }
        for tick in &self.x_ticks {
            if tick.length > 0.0 {
                let mark = Rect {
                    left: tick.at - half,
                    top: plot.bottom,
                    right: tick.at + half,
                    bottom: plot.bottom + tick.length,
                };
                canvas.fill_rect(mark, style::AXIS)?;
            }
            let first_baseline =
                plot.bottom + style::TICK_LENGTH + style::TICK_LABEL_GAP + style::TICK_FONT.px * CAP_HEIGHT_EMS;
            for (row, label) in tick.labels.iter().enumerate() {
                let baseline = first_baseline + row as f64 * line_pitch(style::TICK_FONT);
                canvas.text(
                    &label.text,
                    label.font,
                    style::TEXT,
                    (tick.at, baseline),
                    Align::Middle,
                    Direction::Horizontal,
                )?;
            }
        }

        let middle = plot.center();
        if let Some((label, baseline)) = &self.x_label {
            canvas.text(
                &label.text,
                label.font,
                style::TEXT,
                (middle.0, *baseline),
                Align::Middle,
                Direction::Horizontal,
            )?;
        }
        if let Some((label, anchor)) = &self.y_label {
            canvas.text(&label.text, label.font, style::TEXT, *anchor, Align::Middle, Direction::Upward)?;
        }
        for (line, baseline) in &self.title {
            let anchor = (canvas.width() / 2.0, *baseline);
            canvas.text(&line.text, line.font, style::TEXT, anchor, Align::Middle, Direction::Horizontal)?;
        }
        for (line, baseline) in &self.notes {
            let anchor = (style::MARGIN, *baseline);
            canvas.text(&line.text, line.font, style::MUTED, anchor, Align::Start, Direction::Horizontal)?;
        }
        for (label, look, (x, center_y)) in &self.legend {
            self.draw_swatch(canvas, look, *x, *center_y)?;
            let text_x = x + swatch_length(self.swatch) + style::LEGEND_SWATCH_GAP;
            let baseline = center_y + label.font.px * CAP_HEIGHT_EMS / 2.0;
            canvas.text(
                &label.text,
                label.font,
                style::TEXT,
                (text_x, baseline),
                Align::Start,
                Direction::Horizontal,
            )?;
        }
        Ok(())
    }

    fn draw_swatch<S: Surface>(
        &self,
        canvas: &mut Canvas<S>,
        look: &Look,
        x: f64,
        center_y: f64,
    ) -> Result<(), String> {
        let length = swatch_length(self.swatch);
        match self.swatch {
            Swatch::Line { marker } => {
                canvas.polyline(&[(x, center_y), (x + length, center_y)], &look.stroke())?;
                if marker {
                    style::draw_marker(canvas, look.marker, (x + length / 2.0, center_y), look.color)?;
                }
                Ok(())
            }
            Swatch::Bar => {
                let half_height = style::LEGEND_FONT.px * 0.42;
                let rect =
                    Rect { left: x, top: center_y - half_height, right: x + length, bottom: center_y + half_height };
                style::draw_bar(canvas, rect, look)
            }
        }
    }

    /// A grey remark in the middle of the plot, e.g. "no data".
    pub fn draw_note<S: Surface>(&self, canvas: &mut Canvas<S>, note: &str) -> Result<(), String> {
        let (x, y) = self.plot.center();
        let font = style::LEGEND_FONT;
        let baseline = y + font.px * CAP_HEIGHT_EMS / 2.0;
        canvas.text(note, font, style::MUTED, (x, baseline), Align::Middle, Direction::Horizontal)
    }
}

/// Value ticks in pixels along an axis spanning `span`, dropping any that fall outside it.
fn placed_ticks(ticks: &Ticks, to_px: impl Fn(f64) -> Option<f64>, span: (f64, f64)) -> Vec<Tick> {
    let inside = |px: &f64| (span.0 - 0.5..=span.1 + 0.5).contains(px);
    let major = ticks.major.iter().filter_map(|(value, label)| {
        let labels = vec![Fitted { text: label.clone(), font: style::TICK_FONT }];
        to_px(*value).filter(inside).map(|px| Tick { at: crisp(px), length: style::TICK_LENGTH, labels })
    });
    let minor = ticks.minor.iter().filter_map(|value| {
        to_px(*value).filter(inside).map(|px| Tick {
            at: crisp(px),
            length: style::MINOR_TICK_LENGTH,
            labels: Vec::new(),
        })
    });
    major.chain(minor).collect()
}

fn swatch_length(swatch: Swatch) -> f64 {
    match swatch {
        Swatch::Line { .. } => style::LEGEND_SWATCH_LENGTH,
        Swatch::Bar => style::LEGEND_FONT.px * 1.3,
    }
}

/// Picks the most x ticks whose labels keep a gap between neighbours, and the plot's right edge
/// so the last label may overhang it but not the figure (`right_limit`).
fn fit_x_ticks(axis: ValueAxis, ticks_at: &[f64], left: f64, right_limit: f64) -> (ValueAxis, Ticks, f64) {
    let min_gap = style::TICK_FONT.px * 0.8;
    let mut right = crisp(right_limit - style::TICK_FONT.px * 0.5);
    let mut max_ticks = if ticks_at.is_empty() { 10 } else { ticks_at.len().max(2) };
    loop {
        let mut fitted = axis;
        let ticks = if ticks_at.is_empty() { fitted.ticks(max_ticks) } else { fitted.ticks_at(ticks_at, max_ticks) };
        let extents: Vec<(f64, f64)> = ticks
            .major
            .iter()
            .filter_map(|(value, label)| {
                let center = left + fitted.fraction(*value)? * (right - left);
                let half = text_width(label, style::TICK_FONT) / 2.0;
                Some((center - half, center + half))
            })
            .collect();
        let overhang = extents.last().map_or(0.0, |(_, end)| end - right_limit);
        if overhang > 0.5 && right - overhang > left + MIN_PLOT_SIDE {
            right = crisp(right - overhang);
            continue;
        }
        let separated = extents.windows(2).all(|pair| pair[1].0 - pair[0].1 >= min_gap);
        if separated || max_ticks <= 2 {
            return (fitted, ticks, right);
        }
        max_ticks -= 1;
    }
}

/// Legend entries on a grid: as many columns as fit the width, filled row by row.
struct LegendGrid {
    columns: usize,
    rows: usize,
    column_widths: Vec<f64>,
    label_width_limit: f64,
}

impl LegendGrid {
    fn new(entries: &[LegendEntry], swatch: Swatch, available: f64) -> LegendGrid {
        let lead = swatch_length(swatch) + style::LEGEND_SWATCH_GAP;
        let label_width_limit = (available - lead).max(0.0);
        let widths: Vec<f64> = entries
            .iter()
            .map(|entry| lead + text_width(entry.label, style::LEGEND_FONT).min(label_width_limit))
            .collect();
        if widths.is_empty() {
            return LegendGrid { columns: 1, rows: 0, column_widths: Vec::new(), label_width_limit };
        }
        let grid_for = |columns: usize| -> Vec<f64> {
            (0..columns)
                .map(|column| widths.iter().skip(column).step_by(columns).copied().fold(0.0, f64::max))
                .collect()
        };
        let total = |column_widths: &[f64]| {
            column_widths.iter().sum::<f64>() + (column_widths.len() as f64 - 1.0) * style::LEGEND_ENTRY_GAP
        };
        let columns = (1..=widths.len()).rev().find(|&columns| total(&grid_for(columns)) <= available).unwrap_or(1);
        LegendGrid {
            columns,
            rows: widths.len().div_ceil(columns),
            column_widths: grid_for(columns),
            label_width_limit,
        }
    }

    /// Centres the grid over the plot area when it fits there, else over the figure.
    fn place<'a>(
        &self,
        entries: Vec<LegendEntry<'a>>,
        plot: Rect,
        figure_width: f64,
        top: f64,
    ) -> Vec<(Fitted, Look, (f64, f64))> {
        let total = self.column_widths.iter().sum::<f64>() + (self.columns as f64 - 1.0) * style::LEGEND_ENTRY_GAP;
        let centered = (plot.left + plot.right - total) / 2.0;
        let left = centered.min(figure_width - style::MARGIN - total).max(style::MARGIN);
        let pitch = line_pitch(style::LEGEND_FONT);
        entries
            .into_iter()
            .enumerate()
            .map(|(index, entry)| {
                let (row, column) = (index / self.columns, index % self.columns);
                let x =
                    left + self.column_widths[..column].iter().sum::<f64>() + column as f64 * style::LEGEND_ENTRY_GAP;
                let center_y = top + pitch * (row as f64 + 0.5);
                (fit_text(entry.label, style::LEGEND_FONT, self.label_width_limit), entry.look, (x, center_y))
            })
            .collect()
    }
}

/// Horizontal room kept free between neighbouring category names.
const CATEGORY_GAP: f64 = 8.0;

/// The tick font shrunk just enough for every `(text, room)` to fit, but no further than
/// [`style::MIN_FONT_SCALE`] (what still does not fit is then cut by [`fit_text`]).
fn common_font<'a>(texts: impl Iterator<Item = (&'a str, f64)>) -> Font {
    let font = style::TICK_FONT;
    let scale = texts.map(|(text, room)| room / text_width(text, font)).fold(1.0, f64::min);
    Font { px: font.px * scale.max(style::MIN_FONT_SCALE), ..font }
}

/// Shrinks `text` (down to [`style::MIN_FONT_SCALE`]) and then cuts it with an ellipsis until it
/// fits `max_width`.
fn fit_text(text: &str, font: Font, max_width: f64) -> Fitted {
    let width = text_width(text, font);
    if width <= max_width {
        return Fitted { text: text.to_string(), font };
    }
    let scale = max_width / width;
    if scale >= style::MIN_FONT_SCALE {
        return Fitted { text: text.to_string(), font: Font { px: font.px * scale, ..font } };
    }
    let font = Font { px: font.px * style::MIN_FONT_SCALE, ..font };
    let chars: Vec<char> = text.chars().collect();
    let shortened = |keep: usize| format!("{}…", chars[..keep].iter().collect::<String>().trim_end());
    // The longest prefix that fits, found by bisection (width grows with the prefix).
    let (mut fits, mut too_long) = (0, chars.len());
    while too_long - fits > 1 {
        let middle = (fits + too_long) / 2;
        if text_width(&shortened(middle), font) <= max_width {
            fits = middle;
        } else {
            too_long = middle;
        }
    }
    let text = if fits == 0 && text_width("…", font) > max_width { String::new() } else { shortened(fits) };
    Fitted { text, font }
}

/// Greedy word wrap onto at most `max_lines` lines of `max_width`; a word wider than a line is
/// shrunk or cut there, as is whatever does not fit on the last line.
fn wrap_lines(text: &str, font: Font, max_width: f64, max_lines: usize) -> Vec<Fitted> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if text_width(&format!("{line} {word}"), font) <= max_width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.len() > max_lines {
        let rest = lines.split_off(max_lines - 1).join(" ");
        lines.push(rest);
    }
    lines.iter().map(|line| fit_text(line, font, max_width)).collect()
}

/// Splits a too-wide label at the space that best balances two lines; unsplittable or already
/// fitting labels stay one line.
fn wrap_two_lines(text: &str, font: Font, max_width: f64) -> Vec<String> {
    if text_width(text, font) <= max_width {
        return vec![text.to_string()];
    }
    let best_split = text
        .match_indices(' ')
        .map(|(index, _)| {
            let (first, second) = (text[..index].trim(), text[index..].trim());
            (text_width(first, font).max(text_width(second, font)), first, second)
        })
        .filter(|(_, first, second)| !first.is_empty() && !second.is_empty())
        .min_by(|a, b| a.0.total_cmp(&b.0));
    match best_split {
        Some((_, first, second)) => vec![first.to_string(), second.to_string()],
        None => vec![text.to_string()],
    }
}
