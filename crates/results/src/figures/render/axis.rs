//! Value axes: fitting a range to data, mapping values to [0, 1], choosing and labelling ticks.

use super::{Axis, Scale};

/// A resolved axis range; for [`Scale::Log`] both ends are positive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ValueAxis {
    pub scale: Scale,
    pub lo: f64,
    pub hi: f64,
    /// The data's extent when the range was fitted to it (and so may be widened to round
    /// numbers); `None` for given limits, which are kept exactly.
    pub data: Option<(f64, f64)>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Ticks {
    pub major: Vec<(f64, String)>,
    pub minor: Vec<f64>,
}

/// Share of the data span added on each side of a fitted range, so markers are not cut in half.
const MARGIN_SHARE: f64 = 0.04;
/// A fitted end is moved out to the next major tick if that is within this share of the data's
/// span from the data (so 3..90 gets 0..100, but 1..9 does not become 0..10).
const SNAP_SHARE: f64 = 0.12;

impl ValueAxis {
    /// Uses the axis' own limits when they are usable, else fits `values` (non-finite values and,
    /// on log axes, non-positive ones are ignored). `include_zero` is for bars, which grow from 0.
    pub fn fit(axis: &Axis, values: impl IntoIterator<Item = f64>, include_zero: bool) -> Self {
        let scale = axis.scale;
        if let Some((lo, hi)) = axis.range {
            let usable = lo < hi && (hi - lo).is_finite() && (scale == Scale::Linear || lo > 0.0);
            if usable {
                return ValueAxis { scale, lo, hi, data: None };
            }
        }
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for value in values.into_iter().filter(|v| placeable(scale, *v)) {
            min = min.min(value);
            max = max.max(value);
        }
        if min > max {
            let (lo, hi) = match scale {
                Scale::Linear => (0.0, 1.0),
                Scale::Log => (1.0, 10.0),
            };
            return ValueAxis { scale, lo, hi, data: None };
        }
        let (lo, hi) = match scale {
            Scale::Linear => fit_linear(min, max, include_zero),
            Scale::Log => {
                let decades = (max / min).log10();
                let factor = if decades > 0.0 { 10f64.powf(decades * MARGIN_SHARE) } else { 10f64.sqrt() };
                // Stay within normal floats so the logarithms stay finite.
                ((min / factor).max(f64::MIN_POSITIVE), (max * factor).min(f64::MAX))
            }
        };
        ValueAxis { scale, lo, hi, data: Some((min, max)) }
    }

    /// Where `value` falls, 0 at `lo` and 1 at `hi` (outside [0, 1] beyond the range); `None`
    /// when it cannot be placed at all.
    pub fn fraction(&self, value: f64) -> Option<f64> {
        if !placeable(self.scale, value) {
            return None;
        }
        let (lo, hi, v) = match self.scale {
            Scale::Linear => (self.lo, self.hi, value),
            Scale::Log => (self.lo.log10(), self.hi.log10(), value.log10()),
        };
        Some((v - lo) / (hi - lo)).filter(|fraction| !fraction.is_nan())
    }

    /// Widens the range so the bottom `below` and top `above` shares of the axis stay free of
    /// data (room for labels beyond the bars' ends).
    pub fn reserve(&mut self, below: f64, above: f64) {
        let kept = 1.0 - below.max(0.0) - above.max(0.0);
        if kept >= 1.0 {
            return;
        }
        let (lo, hi) = (self.transform(self.lo), self.transform(self.hi));
        let span = (hi - lo) / kept.max(0.1);
        let (lo, hi) = (self.inverse(lo - below.max(0.0) * span), self.inverse(hi + above.max(0.0) * span));
        (self.lo, self.hi) = match self.scale {
            Scale::Linear => (lo.max(-f64::MAX / 4.0), hi.min(f64::MAX / 4.0)),
            Scale::Log => (lo.max(f64::MIN_POSITIVE), hi.min(f64::MAX)),
        };
    }

    /// Ticks for at most `max_major` labels. A fitted range is first widened to a major tick
    /// just outside it, so the axis usually ends on a labelled value.
    pub fn ticks(&mut self, max_major: usize) -> Ticks {
        let max_major = max_major.max(2);
        if let Some((min, max)) = self.data {
            let (t_min, t_max) = (self.transform(min), self.transform(max));
            let data_span = t_max - t_min;
            let span = if data_span > 0.0 { data_span } else { self.transform(self.hi) - self.transform(self.lo) };
            let reach = span * SNAP_SHARE;
            let (reach_lo, reach_hi) = (self.inverse(t_min - reach), self.inverse(t_max + reach));
            let wider = ValueAxis { lo: reach_lo.min(self.lo), hi: reach_hi.max(self.hi), ..*self };
            // `ticks_within` gives nothing for a range that over- or underflowed, so no snapping.
            let candidates = wider.ticks_within(max_major);
            // Never snap across zero: non-negative data gets no negative tick.
            let outside_below = candidates.major.iter().rev().find(|(v, _)| *v <= self.lo);
            if let Some(&(below, _)) = outside_below.filter(|(v, _)| *v >= reach_lo && (*v >= 0.0 || min < 0.0)) {
                self.lo = below;
            }
            let outside_above = candidates.major.iter().find(|(v, _)| *v >= self.hi);
            if let Some(&(above, _)) = outside_above.filter(|(v, _)| *v <= reach_hi && (*v <= 0.0 || max > 0.0)) {
                self.hi = above;
            }
        }
        self.ticks_within(max_major)
    }

    /// Ticks at given values (a grid's loads, ...) inside the range, labelled alike; when more
    /// than `max_major` of them, every k-th is labelled, starting with the first, and the others
    /// get unlabelled ticks. The range is kept as it is.
    pub fn ticks_at(&mut self, values: &[f64], max_major: usize) -> Ticks {
        let tolerance = 1e-9 * (self.hi - self.lo).abs();
        let mut inside: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| placeable(self.scale, *v) && *v >= self.lo - tolerance && *v <= self.hi + tolerance)
            .collect();
        inside.sort_by(f64::total_cmp);
        inside.dedup();
        let stride = inside.len().div_ceil(max_major.max(1)).max(1);
        let labels = NumberFormat::for_ticks(&inside);
        let (mut major, mut minor) = (Vec::new(), Vec::new());
        for (index, value) in inside.into_iter().enumerate() {
            if index % stride == 0 { major.push((value, labels.format(value))) } else { minor.push(value) }
        }
        Ticks { major, minor }
    }

    fn transform(&self, value: f64) -> f64 {
        match self.scale {
            Scale::Linear => value,
            Scale::Log => value.log10(),
        }
    }

    fn inverse(&self, transformed: f64) -> f64 {
        match self.scale {
            Scale::Linear => transformed,
            Scale::Log => 10f64.powf(transformed),
        }
    }

    fn ticks_within(&self, max_major: usize) -> Ticks {
        let usable = self.lo.is_finite()
            && self.hi.is_finite()
            && self.lo < self.hi
            && (self.hi - self.lo).is_finite()
            && (self.scale == Scale::Linear || self.lo > 0.0);
        if !usable {
            return Ticks::default();
        }
        match self.scale {
            Scale::Linear => linear_ticks(self.lo, self.hi, max_major),
            Scale::Log => log_ticks(self.lo, self.hi, max_major),
        }
    }
}

/// Whether `value` can be drawn on an axis of this scale.
pub(super) fn placeable(scale: Scale, value: f64) -> bool {
    value.is_finite() && (scale == Scale::Linear || value > 0.0)
}

fn fit_linear(mut min: f64, mut max: f64, include_zero: bool) -> (f64, f64) {
    if include_zero {
        min = min.min(0.0);
        max = max.max(0.0);
    }
    let span = max - min;
    let margin = if span > 0.0 {
        span * MARGIN_SHARE
    } else if min != 0.0 {
        min.abs() * 0.1
    } else {
        1.0
    };
    let mut lo = min - margin;
    let mut hi = max + margin;
    // Positive data never gets a negative axis part (and vice versa). Data touching zero keeps
    // its margin, so markers at zero are not cut by the frame, unless bars grow from there.
    if lo < 0.0 && (min > 0.0 || (include_zero && min >= 0.0)) {
        lo = 0.0;
    }
    if hi > 0.0 && (max < 0.0 || (include_zero && max <= 0.0)) {
        hi = 0.0;
    }
    // Keep the span itself finite, or every position would be NaN.
    (lo.max(-f64::MAX / 4.0), hi.min(f64::MAX / 4.0))
}

/// Whole-number multiples of the smallest step in {1, 2, 5} x 10^k giving at most `max_major`.
fn linear_ticks(lo: f64, hi: f64, max_major: usize) -> Ticks {
    let span = hi - lo;
    let mut exponent = (span / max_major as f64).log10().floor() as i32 - 1;
    let step = loop {
        let candidate = [1.0, 2.0, 5.0]
            .into_iter()
            .map(|m| (m, m * 10f64.powi(exponent)))
            .find(|(_, step)| tick_count(lo, hi, *step) <= max_major as f64);
        if let Some(found) = candidate {
            break found;
        }
        exponent += 1;
    };
    let (_, step) = step;
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let values: Vec<f64> = (first..=last).map(|k| k as f64 * step).collect();
    let labels = label_linear(&values, step, exponent);
    Ticks { major: values.into_iter().zip(labels).collect(), minor: Vec::new() }
}

fn tick_count(lo: f64, hi: f64, step: f64) -> f64 {
    (hi / step + 1e-9).floor() - (lo / step - 1e-9).ceil() + 1.0
}

fn label_linear(values: &[f64], step: f64, exponent: i32) -> Vec<String> {
    let largest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let decimals = (-exponent).max(0) as usize;
    let power_notation = largest >= 1e6 || (largest > 0.0 && largest < 1e-3);
    values
        .iter()
        .map(|&v| {
            // Multiples of the step can come out as -1e-17 instead of 0.
            let v = if v.abs() < step * 1e-6 { 0.0 } else { v };
            if v == 0.0 && power_notation {
                "0".to_string()
            } else if power_notation {
                power_label(v)
            } else {
                format!("{v:.decimals$}").replace('-', "−")
            }
        })
        .collect()
}

/// Decades (thinned to fit), or 1-2-5 steps when the range spans fewer than three decades.
fn log_ticks(lo: f64, hi: f64, max_major: usize) -> Ticks {
    let first_decade = (lo.log10() - 1e-9).ceil() as i32;
    let last_decade = (hi.log10() + 1e-9).floor() as i32;
    let decades = last_decade - first_decade + 1;
    let in_range = |v: &f64| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9);
    let multiples = |ms: &[f64]| -> Vec<f64> {
        (first_decade - 1..=last_decade)
            .flat_map(|k| ms.iter().map(move |m| m * 10f64.powi(k)))
            .filter(in_range)
            .collect()
    };
    // Plain numbers up to 10000 and down to 0.001; powers of ten beyond, for every label alike.
    let power_notation = last_decade > 4 || first_decade < -3;
    let label = |v: f64| if power_notation { power_label(v) } else { plain_label(v) };

    if decades >= 3 {
        let stride = (decades as usize).div_ceil(max_major) as i32;
        let (labelled, unlabelled): (Vec<i32>, Vec<i32>) =
            (first_decade..=last_decade).partition(|k| k.rem_euclid(stride) == 0);
        let major = labelled.iter().map(|&k| 10f64.powi(k)).map(|v| (v, label(v))).collect();
        // Minor ticks only while they stay a few pixels apart.
        let minor = match stride {
            1 if decades <= 8 => multiples(&[2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
            2..=5 => unlabelled.iter().map(|&k| 10f64.powi(k)).collect(),
            _ => Vec::new(),
        };
        return Ticks { major, minor };
    }
    let one_two_five = multiples(&[1.0, 2.0, 5.0]);
    if one_two_five.len() >= 2 && one_two_five.len() <= max_major {
        return Ticks {
            major: one_two_five.into_iter().map(|v| (v, label(v))).collect(),
            minor: multiples(&[3.0, 4.0, 6.0, 7.0, 8.0, 9.0]),
        };
    }
    let decade_ticks = multiples(&[1.0]);
    if decade_ticks.len() >= 2 {
        return Ticks { major: decade_ticks.into_iter().map(|v| (v, label(v))).collect(), minor: Vec::new() };
    }
    // Less than a decade: evenly spaced round numbers still read fine on a log axis.
    linear_ticks(lo, hi, max_major)
}

/// A power of ten times a 1-2-5 mantissa as an ordinary decimal ("0.05", "20", "1000").
fn plain_label(value: f64) -> String {
    let decimals = (-(value.log10() + 1e-9).floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// "10⁵", "2×10⁻³", "1.5×10⁶": superscripts are in the embedded font and in every SVG viewer.
fn power_label(value: f64) -> String {
    let exponent = (value.abs().log10() + 1e-9).floor() as i32;
    let mantissa = value / 10f64.powi(exponent);
    let power = format!("10{}", superscript(exponent));
    let mantissa_text = format!("{mantissa:.2}");
    let mantissa_text = mantissa_text.trim_end_matches('0').trim_end_matches('.');
    match mantissa_text {
        "1" => power,
        "-1" => format!("−{power}"),
        _ => format!("{}×{power}", mantissa_text.replace('-', "−")),
    }
}

fn superscript(number: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let digits = number.unsigned_abs().to_string();
    let digits = digits.bytes().map(|d| DIGITS[(d - b'0') as usize]);
    (number < 0).then_some('⁻').into_iter().chain(digits).collect()
}

/// One way of writing every number of a chart's set (bar values, grid ticks), so they line up:
/// the same number of decimals for all, or powers of ten for all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NumberFormat {
    Decimals(usize),
    /// "1.25×10⁶": mantissas with two decimals.
    Powers,
}

/// Most decimals a chart's numbers get.
const MAX_DECIMALS: usize = 4;

impl NumberFormat {
    /// For values read as measurements: three significant digits on the largest magnitude, and
    /// at least one on the smallest non-zero one (up to [`MAX_DECIMALS`]); powers of ten from a
    /// million up or below 0.001.
    pub fn for_values(values: impl IntoIterator<Item = f64>) -> NumberFormat {
        let magnitudes: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).map(f64::abs).collect();
        let largest = magnitudes.iter().copied().fold(0.0, f64::max);
        let smallest = magnitudes.iter().copied().filter(|m| *m > 0.0).fold(f64::INFINITY, f64::min);
        if largest >= 1e6 || (largest > 0.0 && largest < 1e-3) {
            return NumberFormat::Powers;
        }
        let decimals_for =
            |digits: i32, magnitude: f64| (digits - 1 - magnitude.log10().floor() as i32).max(0) as usize;
        let mut decimals = if largest > 0.0 { decimals_for(3, largest) } else { 0 };
        if smallest.is_finite() {
            decimals = decimals.max(decimals_for(1, smallest));
        }
        NumberFormat::Decimals(decimals.min(MAX_DECIMALS))
    }

    /// For exact values such as grid loads: as many decimals as the most precise one needs
    /// (up to [`MAX_DECIMALS`]), so 0.25 and 1 read "0.25" and "1.00".
    pub fn for_ticks(values: &[f64]) -> NumberFormat {
        let largest = values.iter().filter(|v| v.is_finite()).fold(0.0f64, |m, v| m.max(v.abs()));
        if largest >= 1e6 {
            return NumberFormat::Powers;
        }
        let needed = |v: f64| {
            (0..=MAX_DECIMALS)
                .find(|&d| {
                    let scale = 10f64.powi(d as i32);
                    ((v * scale).round() / scale - v).abs() <= 1e-9 * v.abs().max(1.0)
                })
                .unwrap_or(MAX_DECIMALS)
        };
        NumberFormat::Decimals(values.iter().filter(|v| v.is_finite()).map(|v| needed(*v)).max().unwrap_or(0))
    }

    pub fn format(self, value: f64) -> String {
        match self {
            NumberFormat::Powers if value == 0.0 => "0".to_string(),
            NumberFormat::Powers => {
                let exponent = (value.abs().log10() + 1e-9).floor() as i32;
                let mantissa = value / 10f64.powi(exponent);
                format!("{mantissa:.2}×10{}", superscript(exponent)).replace('-', "−")
            }
            NumberFormat::Decimals(decimals) => {
                let text = format!("{value:.decimals$}");
                // "-0.0" for a tiny negative reads as a sign error.
                let text = if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
                    text.trim_start_matches('-').to_string()
                } else {
                    text
                };
                text.replace('-', "−")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ticks: &Ticks) -> Vec<&str> {
        ticks.major.iter().map(|(_, label)| label.as_str()).collect()
    }

    fn fitted(scale: Scale, values: &[f64]) -> ValueAxis {
        ValueAxis::fit(&Axis::new("", scale), values.iter().copied(), false)
    }

    #[test]
    fn linear_ticks_are_round_and_cleanly_formatted() {
        assert_eq!(labels(&linear_ticks(0.0, 1.0, 6)), ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert_eq!(labels(&linear_ticks(0.1, 0.7, 4)), ["0.2", "0.4", "0.6"]);
        assert_eq!(labels(&linear_ticks(-3.0, 3.0, 4)), ["−2", "0", "2"]);
        assert_eq!(labels(&linear_ticks(0.0, 3.0e6, 4)), ["0", "10⁶", "2×10⁶", "3×10⁶"]);
    }

    #[test]
    fn fitted_range_pads_snaps_and_stays_non_negative() {
        let mut axis = fitted(Scale::Linear, &[3.0, 90.0]);
        let ticks = axis.ticks(6);
        assert_eq!((axis.lo, axis.hi), (0.0, 100.0));
        assert_eq!(labels(&ticks), ["0", "20", "40", "60", "80", "100"]);
        let mut grid = fitted(Scale::Linear, &[1.0, 9.0]);
        let ticks = grid.ticks(10);
        assert!(grid.lo > 0.0 && grid.hi < 10.0, "{grid:?}");
        assert_eq!(labels(&ticks), ["1", "2", "3", "4", "5", "6", "7", "8", "9"]);
        let flat = fitted(Scale::Linear, &[5.0, 5.0]);
        assert!(flat.lo < 5.0 && flat.hi > 5.0);
    }

    #[test]
    fn log_ticks_use_decades_or_one_two_five() {
        let mut wide = fitted(Scale::Log, &[20.0, 3.0e5]);
        let ticks = wide.ticks(8);
        assert_eq!(labels(&ticks), ["10¹", "10²", "10³", "10⁴", "10⁵"]);
        assert_eq!(labels(&log_ticks(1.0, 1.0e9, 5)), ["10⁰", "10²", "10⁴", "10⁶", "10⁸"]);
        assert_eq!(labels(&log_ticks(0.5, 2000.0, 8)), ["1", "10", "100", "1000"]);
        assert_eq!(labels(&log_ticks(3.0, 90.0, 8)), ["5", "10", "20", "50"]);
    }

    #[test]
    fn log_axes_ignore_non_positive_values() {
        let axis = fitted(Scale::Log, &[0.0, -4.0, f64::NAN, 10.0, 1000.0]);
        assert!(axis.lo > 0.0 && axis.lo < 10.0 && axis.hi > 1000.0);
        assert_eq!(axis.fraction(0.0), None);
    }

    #[test]
    fn one_number_format_per_chart() {
        let values = [0.8534, 12.34, 123.4, 1234.0, 0.0, -2.0];
        let format = NumberFormat::for_values(values);
        assert_eq!(values.map(|v| format.format(v)), ["0.9", "12.3", "123.4", "1234.0", "0.0", "−2.0"]);
        let ratios = [0.92, 0.79, 1.0, 0.99];
        let format = NumberFormat::for_values(ratios);
        assert_eq!(ratios.map(|v| format.format(v)), ["0.92", "0.79", "1.00", "0.99"]);
        let hours = [12.4, 30.1, 8.75, 6.8];
        let format = NumberFormat::for_values(hours);
        assert_eq!(hours.map(|v| format.format(v)), ["12.4", "30.1", "8.8", "6.8"]);
        let huge = [1.0e7, 2.5e6];
        assert_eq!(huge.map(|v| NumberFormat::for_values(huge).format(v)), ["1.00×10⁷", "2.50×10⁶"]);
        assert_eq!(NumberFormat::for_values([-1e-9]).format(-1e-9), "−1.00×10⁻⁹");
        assert_eq!(NumberFormat::for_values([0.0]).format(0.0), "0");
    }

    #[test]
    fn grid_ticks_sit_at_the_grid_values_and_read_alike() {
        let mut axis = fitted(Scale::Linear, &[0.2, 0.3, 0.45]);
        let ticks = axis.ticks_at(&[0.2, 0.3, 0.45], 8);
        assert_eq!(ticks.major, [(0.2, "0.20".to_string()), (0.3, "0.30".to_string()), (0.45, "0.45".to_string())]);
        let mut many = fitted(Scale::Linear, &[1.0, 9.0]);
        let loads: Vec<f64> = (1..=9).map(f64::from).collect();
        let ticks = many.ticks_at(&loads, 4);
        assert_eq!(labels(&ticks), ["1", "4", "7"]);
        assert_eq!(ticks.minor, [2.0, 3.0, 5.0, 6.0, 8.0, 9.0]);
    }
}
