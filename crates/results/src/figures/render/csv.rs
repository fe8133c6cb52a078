//! The values a chart draws, as CSV beside the figure, so it can be redrawn elsewhere
//! (`pandas.read_csv`, then one `plot` or `bar` per `series`).
//!
//! Line charts: `series,x,y,y_min,y_max,y_sd,n` with one row per point in drawing order
//! (CDF and timeline points after thinning, exactly as drawn). Bars:
//! `series,category,y,y_min,y_max,y_sd,n` with one row per bar. `y` is what is drawn (a mean over
//! `n` seeds where seeds were averaged, or their median where the figure says `over_seeds:
//! median`); `y_min`/`y_max` are the error bar (minimum and maximum over the seeds, or their 25th
//! and 75th percentiles beside a median) and `y_sd` their sample standard deviation; the three are
//! empty where no seeds were averaged, and `y_sd` is empty for a single seed. Missing values are
//! empty.

use super::{BarChart, LineChart, Spread};

/// A number as Rust prints it (shortest text that reads back to the same `f64`); empty when not
/// finite.
fn number(value: f64) -> String {
    if value.is_finite() { format!("{value}") } else { String::new() }
}

fn spread_fields(spread: Option<Spread>) -> [String; 4] {
    match spread {
        Some(s) => [number(s.min), number(s.max), number(s.sd), s.n.to_string()],
        None => Default::default(),
    }
}

fn write(header: [&str; 7], rows: impl Iterator<Item = [String; 7]>) -> String {
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    // Writing into memory cannot fail.
    let _ = writer.write_record(header);
    for row in rows {
        let _ = writer.write_record(&row);
    }
    let bytes = writer.into_inner().unwrap_or_default();
    String::from_utf8(bytes).unwrap_or_default()
}

pub(super) fn line(chart: &LineChart) -> String {
    let rows = chart.series.iter().flat_map(|series| {
        series.points.iter().enumerate().map(|(index, (x, y))| {
            let [min, max, sd, n] = spread_fields(series.spread.get(index).copied().flatten());
            [series.label.clone(), number(*x), number(*y), min, max, sd, n]
        })
    });
    write(["series", "x", "y", "y_min", "y_max", "y_sd", "n"], rows)
}

pub(super) fn bars(chart: &BarChart) -> String {
    let rows = chart.series.iter().flat_map(|series| {
        chart.categories.iter().enumerate().map(|(index, category)| {
            let value = series.values.get(index).copied().flatten();
            let [min, max, sd, n] = spread_fields(series.spread.get(index).copied().flatten());
            [series.label.clone(), category.clone(), value.map(number).unwrap_or_default(), min, max, sd, n]
        })
    });
    write(["series", "category", "y", "y_min", "y_max", "y_sd", "n"], rows)
}
