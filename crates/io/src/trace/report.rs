//! What a reader or a transform did to the rows it saw: nothing is dropped or changed silently.

use serde::Serialize;

/// Counts of rows read, kept, dropped (by reason) and adjusted (by what was changed).
///
/// Reasons are short sentences such as "0 GPUs (CPU-only job)"; their order is the order in which
/// they first occurred, so reports read in pipeline order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReadReport {
    /// Data rows (or JSON objects) the reader parsed.
    pub rows_read: u64,
    /// Rows left after the reader's own filters and every transform.
    pub jobs_kept: u64,
    pub dropped: Vec<Count>,
    /// Rows kept but changed (e.g. a fractional GPU share rounded up, rows sorted by arrival).
    pub adjusted: Vec<Count>,
}

/// One reason and how many rows it applied to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    /// Which step counted it: the format name for readers, the transform name for transforms.
    pub step: String,
    pub reason: String,
    pub rows: u64,
}

impl ReadReport {
    /// Counts one row dropped by `step` for `reason`.
    pub fn drop_row(&mut self, step: &str, reason: &str) {
        self.drop_rows(step, reason, 1);
    }

    pub fn drop_rows(&mut self, step: &str, reason: &str, rows: u64) {
        bump(&mut self.dropped, step, reason, rows);
    }

    /// Counts `rows` rows changed by `step` for `reason`.
    pub fn adjust_rows(&mut self, step: &str, reason: &str, rows: u64) {
        bump(&mut self.adjusted, step, reason, rows);
    }

    pub fn total_dropped(&self) -> u64 {
        self.dropped.iter().map(|c| c.rows).sum()
    }
}

fn bump(counts: &mut Vec<Count>, step: &str, reason: &str, rows: u64) {
    if rows == 0 {
        return;
    }
    match counts.iter_mut().find(|c| c.step == step && c.reason == reason) {
        Some(c) => c.rows += rows,
        None => counts.push(Count { step: step.to_string(), reason: reason.to_string(), rows }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_accumulate_per_step_and_reason_in_first_seen_order() {
        let mut report = ReadReport::default();
        report.drop_row("philly-json", "no attempts");
        report.drop_rows("window", "arrival after the window", 3);
        report.drop_row("philly-json", "no attempts");
        report.drop_rows("window", "never", 0);
        report.adjust_rows("alibaba-2023", "fractional GPU share rounded up to 1 GPU", 2);
        let dropped: Vec<(&str, &str, u64)> =
            report.dropped.iter().map(|c| (c.step.as_str(), c.reason.as_str(), c.rows)).collect();
        assert_eq!(dropped, [("philly-json", "no attempts", 2), ("window", "arrival after the window", 3)]);
        assert_eq!(report.total_dropped(), 5);
        assert_eq!(report.adjusted.len(), 1);
    }
}
