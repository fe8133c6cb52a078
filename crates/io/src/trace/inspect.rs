//! `blox trace inspect`: what a trace file holds and what reading it dropped, for people (text)
//! and machines (JSON).

use super::stats::TraceStats;
use super::{ReadReport, Trace};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;

/// Everything `blox trace inspect` reports about one file.
#[derive(Debug, Clone, Serialize)]
pub struct Inspection {
    pub file: String,
    pub format: &'static str,
    pub report: ReadReport,
    /// GPUs the offered load is computed for, when asked.
    pub cluster_gpus: Option<u32>,
    pub stats: TraceStats,
}

impl Inspection {
    pub fn new(file: &Path, trace: &Trace, cluster_gpus: Option<u32>) -> Self {
        Self {
            file: file.display().to_string(),
            format: trace.format.name(),
            report: trace.report.clone(),
            cluster_gpus,
            stats: TraceStats::of(&trace.jobs, cluster_gpus),
        }
    }

    /// A few aligned lines for a terminal.
    pub fn text(&self) -> String {
        let s = &self.stats;
        let r = &self.report;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: {} format, {} rows read, {} jobs kept, {} dropped",
            self.file,
            self.format,
            thousands(r.rows_read as f64),
            thousands(s.jobs as f64),
            thousands(r.total_dropped() as f64)
        );
        for (title, counts) in [("dropped", &r.dropped), ("adjusted", &r.adjusted)] {
            for c in counts {
                let _ = writeln!(out, "  {title:<9} {:>10}  {}: {}", thousands(c.rows as f64), c.step, c.reason);
            }
        }
        if s.jobs == 0 {
            return out;
        }
        let mix: Vec<String> = s
            .gpu_mix
            .iter()
            .map(|(g, &n)| format!("{g}: {} ({:.1}%)", thousands(n as f64), 100.0 * n as f64 / s.jobs as f64))
            .collect();
        let _ = writeln!(out, "GPUs       {}; mean {:.2}", mix.join(", "), s.mean_gpus);
        match &s.duration_s {
            Some(d) => {
                let _ = writeln!(
                    out,
                    "durations  p10 {} s, p50 {} s, p90 {} s, p99 {} s; mean {} s, max {} s ({} jobs with one)",
                    thousands(d.p10),
                    thousands(d.p50),
                    thousands(d.p90),
                    thousands(d.p99),
                    thousands(d.mean),
                    thousands(d.max),
                    thousands(d.count as f64)
                );
            }
            None => {
                let _ = writeln!(out, "durations  none in this format");
            }
        }
        let span = s.last_submit_s - s.first_submit_s;
        let rate = s.arrivals_per_hour.map_or_else(|| "all at once".to_string(), |r| format!("{r:.2} jobs/h"));
        let _ = writeln!(
            out,
            "arrivals   {} s .. {} s ({:.1} h), {rate}",
            thousands(s.first_submit_s),
            thousands(s.last_submit_s),
            span / 3600.0
        );
        if let Some(share) = s.gpu_time_share_8_plus {
            let _ = writeln!(out, "GPU-time   {:.1}% in jobs of 8 or more GPUs", 100.0 * share);
        }
        match (self.cluster_gpus, s.offered_load) {
            (Some(g), Some(load)) => {
                let _ = writeln!(out, "load       {load:.3} of {g} GPUs over the arrival span");
            }
            (Some(g), None) => {
                let _ = writeln!(out, "load       not defined on {g} GPUs (no durations or no arrival span)");
            }
            (None, _) => {}
        }
        if !s.models.is_empty() {
            let top: Vec<String> = s.models.iter().take(8).map(|m| format!("{} {}", m.model, m.jobs)).collect();
            let more = if s.models.len() > 8 { format!(", ... ({} models)", s.models.len()) } else { String::new() };
            let _ = writeln!(out, "models     {}{more}", top.join(", "));
        }
        if s.jobs_with_iterations > 0 || s.jobs_with_deadline > 0 || s.best_effort_jobs > 0 {
            let _ = writeln!(
                out,
                "jobs with  iterations {}, deadlines {}, best-effort {}",
                s.jobs_with_iterations, s.jobs_with_deadline, s.best_effort_jobs
            );
        }
        out
    }
}

/// `1234567.8` as `1,234,568`; small values keep up to two decimals.
fn thousands(x: f64) -> String {
    if x.abs() < 100.0 && x.fract() != 0.0 {
        return format!("{x:.2}");
    }
    let digits = format!("{:.0}", x.abs());
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    if x < 0.0 { format!("-{grouped}") } else { grouped }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{TraceFormat, TraceJob};

    #[test]
    fn text_shows_drops_mix_durations_and_load() {
        let mut jobs = vec![TraceJob::new("a", 0.0, 1), TraceJob::new("b", 7200.0, 8)];
        jobs[0].duration_s = Some(3600.0);
        jobs[1].duration_s = Some(1800.0);
        let mut report = ReadReport { rows_read: 3, jobs_kept: 2, ..ReadReport::default() };
        report.drop_row("itp", "0 GPUs");
        let trace = Trace { format: TraceFormat::Itp, jobs, report };
        let text = Inspection::new(Path::new("t.csv"), &trace, Some(8)).text();
        assert!(text.starts_with("t.csv: itp format, 3 rows read, 2 jobs kept, 1 dropped\n"), "{text}");
        assert!(text.contains("dropped            1  itp: 0 GPUs"), "{text}");
        assert!(text.contains("GPUs       1: 1 (50.0%), 8: 1 (50.0%); mean 4.50"), "{text}");
        assert!(text.contains("arrivals   0 s .. 7,200 s (2.0 h), 1.00 jobs/h"), "{text}");
        // (3600 + 8 x 1800) GPU-s over 7200 s x 8 GPUs
        assert!(text.contains("load       0.312 of 8 GPUs"), "{text}");
        let json = serde_json::to_value(Inspection::new(Path::new("t.csv"), &trace, None)).unwrap();
        assert_eq!(json["stats"]["gpu_mix"], serde_json::json!({"1": 1, "8": 1}));
        assert_eq!(json["report"]["dropped"][0]["reason"], "0 GPUs");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(4628226.0), "4,628,226");
        assert_eq!(thousands(61.0), "61");
        assert_eq!(thousands(1.3), "1.30");
        assert_eq!(thousands(-1234.0), "-1,234");
    }
}
