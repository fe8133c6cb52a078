//! An empirical distribution of job sizes in GPU-seconds, the "partial knowledge" of Tiresias'
//! 2D-Gittins scheduling (NSDI'19 §3.2; its simulator's `yarn-gput1000.csv`, one `duration`
//! column of whole GPU-seconds).
//!
//! The samples are kept sorted with prefix sums, so every conditional query ("of the jobs that
//! have attained `a`, how many finish by `b`, and how much do they sum to") is two binary searches.

use crate::table::TraceError;
use crate::table::input::{Table, TableOptions};
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

/// Sorted job sizes (GPU-seconds, whole and positive) with their prefix sums.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuTimeDistribution {
    samples: Vec<u64>,
    /// `prefix[i]` = sum of the `i` smallest samples.
    prefix: Vec<u128>,
}

impl GpuTimeDistribution {
    /// The distribution of `samples` (any order); `None` when empty or when a sample is 0 (a
    /// zero-size job makes the Gittins index divide by zero).
    pub fn from_samples(mut samples: Vec<u64>) -> Option<Self> {
        if samples.is_empty() || samples.contains(&0) {
            return None;
        }
        samples.sort_unstable();
        let mut prefix = Vec::with_capacity(samples.len() + 1);
        prefix.push(0u128);
        for &s in &samples {
            prefix.push(prefix.last().copied().unwrap_or(0) + u128::from(s));
        }
        Some(Self { samples, prefix })
    }

    /// Reads a CSV whose `duration` column holds one job size per row (whole GPU-seconds >= 1);
    /// other columns are ignored. Errors name `file`, the line and the column.
    pub fn parse(file: &Path, input: Box<dyn BufRead + '_>) -> Result<Self, TraceError> {
        let mut table = Table::open(file, input, TableOptions::default())?;
        let column = table.require(&["duration"])?;
        let mut samples = Vec::new();
        while let Some(row) = table.next_row()? {
            match row.count(column)? {
                0 => return Err(row.error(column, "expected a job size of at least 1 GPU-second, found 0")),
                n => samples.push(u64::from(n)),
            }
        }
        let header = table.header_line();
        Self::from_samples(samples).ok_or_else(|| table.errors().at(Some(header), None, "no job size below the header"))
    }

    /// [`GpuTimeDistribution::parse`] as a policy input's parser ([`crate::policies::PolicyInput`]).
    pub fn parse_input(bytes: &[u8], name: &str) -> Result<crate::core::input::ParsedInput, String> {
        let distribution = Self::parse(Path::new(name), Box::new(bytes)).map_err(|e| e.to_string())?;
        Ok(Arc::new(distribution))
    }

    /// The samples, ascending.
    pub fn samples(&self) -> &[u64] {
        &self.samples
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Always false: a distribution has at least one sample.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    pub fn max(&self) -> u64 {
        self.samples[self.samples.len() - 1]
    }

    /// How many samples are at most `x` (the index of the first sample above `x`).
    pub fn count_at_most(&self, x: u64) -> usize {
        self.samples.partition_point(|&s| s <= x)
    }

    /// Sum of the samples with index in `from..to`.
    pub fn sum(&self, from: usize, to: usize) -> u128 {
        self.prefix[to] - self.prefix[from]
    }
}

impl crate::core::input::InputData for GpuTimeDistribution {
    fn summary(&self) -> String {
        format!("{} job sizes", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<GpuTimeDistribution, TraceError> {
        GpuTimeDistribution::parse(Path::new("d.csv"), Box::new(text.as_bytes()))
    }

    #[test]
    fn sorts_and_answers_by_binary_search() {
        let d = parse("duration\n300\n100\n200\n200\n").unwrap();
        assert_eq!(d.samples(), &[100, 200, 200, 300]);
        assert_eq!((d.count_at_most(99), d.count_at_most(100), d.count_at_most(250)), (0, 1, 3));
        assert_eq!(d.sum(1, 4), 700);
        assert_eq!(d.max(), 300);
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let e = parse("duration\n100\nabc\n").unwrap_err().to_string();
        assert!(e.contains("d.csv:3") && e.contains("duration"), "{e}");
        let e = parse("duration\n100\n0\n").unwrap_err().to_string();
        assert!(e.contains("d.csv:3") && e.contains("at least 1"), "{e}");
        let e = parse("size\n100\n").unwrap_err().to_string();
        assert!(e.contains("duration"), "{e}");
        let e = parse("duration\n").unwrap_err().to_string();
        assert!(e.contains("no job size"), "{e}");
    }
}
