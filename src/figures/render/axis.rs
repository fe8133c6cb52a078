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

/// Bar values: three significant digits, no exponent below a million ("0.853", "12.3", "1234").
pub(super) fn value_label(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e6 || (magnitude > 0.0 && magnitude < 1e-3) {
        return power_label(value);
    }
    let decimals = if magnitude == 0.0 { 0 } else { (2 - magnitude.log10().floor() as i32).max(0) as usize };
    format!("{value:.decimals$}").replace('-', "−")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(ticks: &Ticks) -> Vec<&str> {
        ticks.major.iter().map(|(_, label)| label.as_str()).collect()
    }

    fn fitted(scale: Scale, values: &[f64]) -> ValueAxis {
        ValueAxis::fit(&Axis { label: String::new(), scale, range: None }, values.iter().copied(), false)
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
    fn value_labels_keep_three_significant_digits() {
        assert_eq!(
            [0.8534, 12.34, 123.4, 1234.0, 0.0, -2.0].map(value_label),
            ["0.853", "12.3", "123", "1234", "0", "−2.00"]
        );
    }
}
