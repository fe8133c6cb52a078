//! The paper's discrete axis (`docs/fgd-semantics.md` §5.2): per experiment, the reports are
//! grouped by the arrived GPU request in whole percent of the cluster's GPUs (0..=130) and
//! averaged per group, as the authors' analysis scripts do with pandas, so that the published
//! tables are reproduced to the digit: Python's `round` for the per-pod percentages, numpy's
//! pairwise sum for the means, numpy's `round` for the allocation and fragment columns; the
//! fragmentation ratio is the unrounded mean. A column with no pod takes the pods of its two
//! neighbours.

use super::experiment::Report;
use crate::core::TimelineRow;
use serde::Deserialize;

/// Last column of the axis: 130 % of the GPU capacity arrived (the tuning target).
pub const LAST_COLUMN: usize = 130;

/// The three published rows of one experiment, indexed by column 0..=130; `None` where no pod
/// falls within a column or its neighbours.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteRows {
    /// Allocated GPU milli, % of capacity, 2 decimals (`analysis_allo_discrete.csv`).
    pub allocation: Vec<Option<f64>>,
    /// Fragmented GPU milli, % of capacity, 2 decimals (`analysis_frag_discrete.csv`).
    pub fragment: Vec<Option<f64>>,
    /// Fragmentation ratio, % (`analysis_frag_ratio_discrete.csv`).
    pub fragment_ratio: Vec<Option<f64>>,
}

/// Averages `reports` onto the axis for a cluster of `total_gpus` GPUs.
pub fn discrete_rows(reports: &[Report], total_gpus: u32) -> DiscreteRows {
    let total = f64::from(total_gpus);
    let arrive: Vec<f64> = reports.iter().map(|r| (r.arrived_milli as f64 / total / 10.0).round_ties_even()).collect();
    let alloc: Vec<f64> = reports.iter().map(|r| python_round_2(r.allocated_milli as f64 / total / 10.0)).collect();
    let mut rows = DiscreteRows { allocation: Vec::new(), fragment: Vec::new(), fragment_ratio: Vec::new() };
    for x in 0..=LAST_COLUMN {
        let x = x as f64;
        let mut members: Vec<usize> = (0..reports.len()).filter(|&r| arrive[r] == x).collect();
        if members.is_empty() {
            members = (0..reports.len()).filter(|&r| arrive[r] >= x - 1.0 && arrive[r] <= x + 1.0).collect();
        }
        if members.is_empty() {
            rows.allocation.push(None);
            rows.fragment.push(None);
            rows.fragment_ratio.push(None);
            continue;
        }
        let mean = |value: &dyn Fn(usize) -> f64| {
            let values: Vec<f64> = members.iter().map(|&r| value(r)).collect();
            numpy_sum(&values) / values.len() as f64
        };
        rows.allocation.push(Some(numpy_round_2(mean(&|r| alloc[r]))));
        rows.fragment.push(Some(numpy_round_2(100.0 * mean(&|r| reports[r].fragment_milli) / 1000.0 / total)));
        rows.fragment_ratio.push(Some(mean(&|r| reports[r].fragment_ratio)));
    }
    rows
}

/// A measure on the arrived-workload axis, as figures and expected values name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AxisMeasure {
    /// Allocated GPU milli, % of capacity.
    Allocated,
    /// `100 − allocated`: the GPU capacity left unallocated, % (the paper's Fig. 9(a)).
    Unallocated,
    /// Fragmented GPU milli, % of capacity.
    Fragmented,
    /// Fragmented as % of the idle GPU milli.
    FragmentationRatio,
}

impl AxisMeasure {
    /// The axis label of a figure.
    pub fn caption(self) -> &'static str {
        match self {
            AxisMeasure::Allocated => "Allocated GPUs (% of capacity)",
            AxisMeasure::Unallocated => "Unallocated GPUs (% of capacity)",
            AxisMeasure::Fragmented => "Fragmented GPUs (% of capacity)",
            AxisMeasure::FragmentationRatio => "Fragmentation ratio (% of idle GPUs)",
        }
    }

    /// Its value at `column` of `rows`, `None` where the column is empty.
    pub fn at(self, rows: &DiscreteRows, column: usize) -> Option<f64> {
        let cell = |values: &Vec<Option<f64>>| values.get(column).copied().flatten();
        match self {
            AxisMeasure::Allocated => cell(&rows.allocation),
            AxisMeasure::Unallocated => cell(&rows.allocation).map(|a| 100.0 - a),
            AxisMeasure::Fragmented => cell(&rows.fragment),
            AxisMeasure::FragmentationRatio => cell(&rows.fragment_ratio),
        }
    }
}

/// The axis of a placement run's timeline (its `arrived_gpu_milli`, `allocated_gpu_milli`,
/// `fragmented_gpu_milli` and `fragmentation_ratio` columns) for a cluster of `total_gpus`;
/// an error for a timeline without them (a run of another engine, or none recorded).
pub fn timeline_axis(rows: &[TimelineRow], total_gpus: u32) -> Result<DiscreteRows, String> {
    if rows.is_empty() {
        return Err("the run has no timeline (was `output: {timeline: false}` set?)".into());
    }
    let reports = rows
        .iter()
        .map(|row| {
            let (Some(arrived), Some(allocated), Some(fragment), Some(ratio)) =
                (row.arrived_gpu_milli, row.allocated_gpu_milli, row.fragmented_gpu_milli, row.fragmentation_ratio)
            else {
                return Err("the run's timeline has no placement columns (not a placement experiment)".to_string());
            };
            Ok(Report {
                arrived_milli: arrived as i64,
                allocated_milli: allocated as i64,
                fragment_milli: fragment,
                fragment_ratio: ratio,
                placed: false,
                placed_pods: row.running,
                idle_gpus: row.free_gpus,
                gpus_held: row.gpu_demand,
                cpu_milli_held: 0,
            })
        })
        .collect::<Result<Vec<Report>, String>>()?;
    Ok(discrete_rows(&reports, total_gpus))
}

/// Python's `round(x, 2)`: correctly rounded to two decimals, ties to even on the exact value.
fn python_round_2(x: f64) -> f64 {
    format!("{x:.2}").parse().expect("a formatted float reads back")
}

/// numpy's `round(x, 2)`: scale by 100, round half to even, scale back.
fn numpy_round_2(x: f64) -> f64 {
    (x * 100.0).round_ties_even() / 100.0
}

/// numpy's `add.reduce` of a contiguous float64 array (what pandas' `mean` sums with).
fn numpy_sum(values: &[f64]) -> f64 {
    pairwise(values)
}

/// numpy's pairwise summation: plain below 8 elements, eight interleaved partial sums up to
/// 128, halves (cut at a multiple of 8) above.
fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = -0.0;
        for v in a {
            res += v;
        }
        res
    } else if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let mut i = 8;
        while i < n - n % 8 {
            for j in 0..8 {
                r[j] += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += a[i];
            i += 1;
        }
        res
    } else {
        let mut half = n / 2;
        half -= half % 8;
        pairwise(&a[..half]) + pairwise(&a[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums compared with `numpy.add.reduce` (numpy 2.4) on the same arrays.
    #[test]
    fn sums_follow_numpy() {
        let values: Vec<f64> = (0..300).map(|i| 0.1 * f64::from(i) + 1e-3 / f64::from(i + 1)).collect();
        assert_eq!(numpy_sum(&values[..5]), NUMPY_SUM_5);
        assert_eq!(numpy_sum(&values[..100]), NUMPY_SUM_100);
        assert_eq!(numpy_sum(&values), NUMPY_SUM_300);
        // 2.675 × 100 rounds up to 267.5 in binary, then to even: numpy gives 2.68 where Python's
        // correctly rounded `round` gives 2.67.
        assert_eq!(numpy_round_2(2.675), 2.68);
        assert_eq!(python_round_2(2.675), 2.67);
        assert_eq!(python_round_2(0.125), 0.12);
        assert_eq!(python_round_2(0.375), 0.38);
    }

    const NUMPY_SUM_5: f64 = 1.0022833333333332;
    const NUMPY_SUM_100: f64 = 495.0051873775177;
    const NUMPY_SUM_300: f64 = 4485.0062826638805;
}
