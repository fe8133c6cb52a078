//! A run's drill-down data: its JCT distribution, its cluster over time, its preemptions and, in
//! live runs, its attempts, thinned to the page's budget.

use crate::results::{self, AttemptRow, RunRow};
use serde::Serialize;
use std::path::Path;

/// How much of each run's tables the page embeds. A grid's runs share one budget of numbers, so
/// the page stays a few megabytes whatever the grid's size: a small grid gets detailed curves,
/// a grid of thousands of runs coarse ones (the page says how coarse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrillBudget {
    /// Points of a run's JCT distribution.
    pub cdf_points: usize,
    /// Buckets of a run's timeline.
    pub timeline_buckets: usize,
    /// Attempts of a live run listed.
    pub attempts: usize,
}

impl DrillBudget {
    /// Numbers embedded for all runs' drill-downs together (about 6 bytes each).
    const TOTAL_NUMBERS: usize = 1_500_000;

    pub fn for_runs(runs: usize) -> DrillBudget {
        // A run embeds its CDF twice (x and y) and four timeline series.
        let share = Self::TOTAL_NUMBERS / runs.max(1);
        DrillBudget {
            cdf_points: (share / 6).clamp(16, 300),
            timeline_buckets: (share / 6).clamp(16, 400),
            attempts: (share / 40).clamp(10, 500),
        }
    }
}

/// Longest stderr tail of an attempt the page shows.
const STDERR_CHARS: usize = 400;
/// Jobs with this many preemptions or more share the histogram's last bar.
const PREEMPTION_BINS: usize = 10;

/// What the page draws when a run's drill-down is opened.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RunDrill {
    /// Tracked jobs and those that finished.
    pub jobs: usize,
    pub finished: usize,
    /// The finished jobs' JCT distribution: JCT in seconds at evenly spaced ranks, and the
    /// fraction of finished jobs at or below it.
    pub cdf_x: Vec<f64>,
    pub cdf_y: Vec<f64>,
    /// Rounds (or decisions) of the timeline, and per bucket of consecutive rounds: its first
    /// time (s), the most jobs queued and running and GPUs busy in it, and its preemptions.
    pub rounds: usize,
    pub time: Vec<f64>,
    pub queued: Vec<u32>,
    pub running: Vec<u32>,
    pub busy: Vec<u32>,
    pub preempted: Vec<u64>,
    /// Jobs by preemptions: `[n with 0, n with 1, ...]`, the last bin counting that many or more.
    pub preemptions_per_job: Vec<u64>,
    /// A live run's attempts (the first `DrillBudget::attempts`), and how many it had.
    pub attempts: Vec<Attempt>,
    pub attempts_total: usize,
    /// Why a table of the run could not be read (what could be read is still shown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One attempt, as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    pub job: u64,
    pub attempt: u32,
    pub node: String,
    pub slots: String,
    pub launched: f64,
    pub started: Option<f64>,
    pub ended: Option<f64>,
    pub end: String,
    pub exit_code: Option<u32>,
    pub signal: Option<u32>,
    pub stderr: String,
}

impl RunDrill {
    /// Reads the run's jobs, timeline and attempts tables; a table that cannot be read leaves
    /// its part empty and says why in `error`.
    pub fn read(dir: &Path, row: &RunRow, budget: DrillBudget) -> RunDrill {
        let key = &row.info.run_key;
        let mut drill = RunDrill::default();
        let mut errors = Vec::new();
        match results::read_jobs(dir, key) {
            Ok(jobs) => {
                drill.jobs = jobs.len();
                let mut jcts: Vec<f64> = jobs.iter().filter_map(|j| j.jct()).filter(|v| v.is_finite()).collect();
                jcts.sort_by(f64::total_cmp);
                drill.finished = jcts.len();
                (drill.cdf_x, drill.cdf_y) = thin_cdf(&jcts, budget.cdf_points);
                let mut bins = vec![0u64; PREEMPTION_BINS + 1];
                for job in &jobs {
                    bins[(job.preemptions as usize).min(PREEMPTION_BINS)] += 1;
                }
                while bins.len() > 1 && bins.last() == Some(&0) {
                    bins.pop();
                }
                drill.preemptions_per_job = bins;
            }
            Err(e) => errors.push(e.to_string()),
        }
        match results::read_timeline(dir, key) {
            Ok(timeline) => {
                drill.rounds = timeline.len();
                let total = row.info.total_gpus;
                let per_bucket = timeline.len().div_ceil(budget.timeline_buckets.max(1)).max(1);
                for bucket in timeline.chunks(per_bucket) {
                    drill.time.push(short(bucket[0].time));
                    drill.queued.push(bucket.iter().map(|r| r.queued).max().unwrap_or(0));
                    drill.running.push(bucket.iter().map(|r| r.running).max().unwrap_or(0));
                    drill.busy.push(bucket.iter().map(|r| total.saturating_sub(r.free_gpus)).max().unwrap_or(0));
                    drill.preempted.push(bucket.iter().map(|r| u64::from(r.preemptions)).sum());
                }
            }
            Err(e) => errors.push(e.to_string()),
        }
        match results::read_attempts(dir, key) {
            Ok(attempts) => {
                drill.attempts_total = attempts.len();
                drill.attempts = attempts.iter().take(budget.attempts).map(Attempt::of).collect();
            }
            Err(e) => errors.push(e.to_string()),
        }
        if !errors.is_empty() {
            drill.error = Some(errors.join("; "));
        }
        drill
    }
}

impl Attempt {
    fn of(row: &AttemptRow) -> Attempt {
        let tail: String =
            row.stderr_tail.chars().rev().take(STDERR_CHARS).collect::<Vec<_>>().into_iter().rev().collect();
        Attempt {
            job: row.job_id,
            attempt: row.attempt,
            node: row.node.clone(),
            slots: row.slots.clone(),
            launched: short(row.launched),
            started: row.started.map(short),
            ended: row.ended.map(short),
            end: row.end.clone(),
            exit_code: row.exit_code,
            signal: row.signal,
            stderr: tail,
        }
    }
}

/// At most `points` points of the empirical CDF of `sorted` values: the value at evenly spaced
/// ranks (always the first and the last), with the fraction of values at or below that rank.
fn thin_cdf(sorted: &[f64], points: usize) -> (Vec<f64>, Vec<f64>) {
    let n = sorted.len();
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let k = points.clamp(2, n.max(2)).min(n);
    let ranks: Vec<usize> = if k == n {
        (0..n).collect()
    } else {
        let mut ranks: Vec<usize> = (0..k).map(|i| (i * (n - 1) + (k - 1) / 2) / (k - 1)).collect();
        ranks.dedup();
        ranks
    };
    let x = ranks.iter().map(|&i| short(sorted[i])).collect();
    let y = ranks.iter().map(|&i| ((i + 1) as f64 / n as f64 * 1e4).round() / 1e4).collect();
    (x, y)
}

/// `value` to 5 significant digits: what a drawing needs, in fewer bytes of JSON.
pub(super) fn short(value: f64) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    format!("{value:.4e}").parse().unwrap_or(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinned_cdf_keeps_both_ends_and_at_most_the_budget() {
        let values: Vec<f64> = (1..=1000).map(f64::from).collect();
        let (x, y) = thin_cdf(&values, 20);
        assert_eq!(x.len(), 20);
        assert_eq!((x[0], y[0]), (1.0, 0.001));
        assert_eq!((*x.last().unwrap(), *y.last().unwrap()), (1000.0, 1.0));
        assert!(x.windows(2).all(|w| w[0] < w[1]));
        let (x, y) = thin_cdf(&[5.0, 7.0], 300);
        assert_eq!((x, y), (vec![5.0, 7.0], vec![0.5, 1.0]));
        assert_eq!(thin_cdf(&[3.0], 300), (vec![3.0], vec![1.0]));
    }

    #[test]
    fn the_budget_shrinks_with_the_grid_within_bounds() {
        let small = DrillBudget::for_runs(10);
        let large = DrillBudget::for_runs(10_000);
        assert_eq!((small.cdf_points, small.timeline_buckets), (300, 400));
        assert_eq!((large.cdf_points, large.timeline_buckets), (25, 25));
        assert_eq!(DrillBudget::for_runs(1_000_000).cdf_points, 16);
    }

    #[test]
    fn short_keeps_five_significant_digits() {
        assert_eq!(short(123_456.789), 123_460.0);
        assert_eq!(short(0.000_123_456), 0.000_123_46);
        assert_eq!(short(0.0), 0.0);
    }
}
