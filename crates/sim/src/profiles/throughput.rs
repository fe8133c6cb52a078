//! Throughput tables: iterations per second of a data-parallel job by model, global batch size
//! and GPU count.
//!
//! ElasticFlow (ASPLOS'23) runs jobs by iterations, not by duration: a job with `n` iterations
//! left at `g` GPUs finishes after `n / T(model, batch, g)` seconds, and its planner walks the GPU
//! counts of the measured curve. The two tables it ships are embedded here
//! ([`ThroughputTable::elasticflow_a100`], [`ThroughputTable::elasticflow_t4`]); source:
//! github.com/gudiandian/ElasticFlow-artifact @ b3f5ea4 (== pkusys/ElasticFlow),
//! `ElasticFlow/scheduler/throughputs_{A100,T4}/<model>.csv`, Apache-2.0. A100 values were
//! measured on the authors' testbed; T4 values come from Pollux's (adaptdl `osdi21-artifact`)
//! traces (`ElasticFlow/README.md:12` at b3f5ea4).
//!
//! Format (`data/*.csv`, and what [`ThroughputTable::parse`] reads): lines starting with `#` are
//! comments, then the header `model,global_batch,gpus,iterations_per_s` and one row per measured
//! cell, unquoted. The originals are wide (one row per batch size, one column per GPU count); the
//! long form lets a user profile any GPU counts. Unmeasured cells (empty or `nan` in the
//! originals) have no row.
//!
//! A value of 0 is a measurement that the job does not run at that size (A100
//! `resnet50_cifar10` at 16, 32 and 64 GPUs). The row is kept so the table stays a faithful
//! transcription, but every lookup treats it as not runnable: no rate, not a level. The original
//! treats a `0` cell like a number (its levels include it, and a job placed there would divide
//! by zero) and skips only `nan` cells when it computes a job's largest size; no published run
//! reaches those cells (`resnet50_cifar10` only appears in the single-server demo trace).

use std::fmt;
use std::sync::LazyLock;

const HEADER: &str = "model,global_batch,gpus,iterations_per_s";

static ELASTICFLOW_A100: LazyLock<ThroughputTable> =
    LazyLock::new(|| embedded(include_str!("data/elasticflow-a100.csv"), "elasticflow-a100.csv"));
static ELASTICFLOW_T4: LazyLock<ThroughputTable> =
    LazyLock::new(|| embedded(include_str!("data/elasticflow-t4.csv"), "elasticflow-t4.csv"));

/// Embedded tables are fixed at build time and parsed by a unit test, so a failure here is a
/// build defect, not an input error.
fn embedded(text: &str, name: &str) -> ThroughputTable {
    ThroughputTable::parse(text, name).unwrap_or_else(|e| panic!("embedded throughput table is invalid: {e}"))
}

/// Scaling curves of every (model, global batch) pair of one table.
#[derive(Debug, Clone, PartialEq)]
pub struct ThroughputTable {
    source: String,
    /// Sorted by (model, global batch), unique: lookups are a binary search, no hashing.
    curves: Vec<(String, u32, ScalingCurve)>,
}

/// One job configuration's measured iterations per second by GPU count.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingCurve {
    /// `(gpus, iterations/s)`, sorted by GPUs, unique; 0 iterations/s = does not run.
    points: Vec<(u32, f64)>,
}

impl ScalingCurve {
    /// Every measured point, zeros included, sorted by GPU count.
    pub fn points(&self) -> &[(u32, f64)] {
        &self.points
    }

    /// Iterations per second at `gpus` GPUs; `None` when unmeasured or measured as not running.
    pub fn iterations_per_s(&self, gpus: u32) -> Option<f64> {
        let i = self.points.binary_search_by_key(&gpus, |p| p.0).ok()?;
        Some(self.points[i].1).filter(|&rate| rate > 0.0)
    }

    /// The GPU counts a job of this configuration can run at, ascending: ElasticFlow's "levels"
    /// that its planner steps through.
    pub fn levels(&self) -> impl Iterator<Item = u32> + '_ {
        self.points.iter().filter(|p| p.1 > 0.0).map(|p| p.0)
    }

    /// The largest level; `None` when no point runs.
    pub fn max_gpus(&self) -> Option<u32> {
        self.levels().last()
    }

    /// `T(gpus) / T(1)`, ElasticFlow's per-job scaling efficiency numerator (`get_efficiency`);
    /// `None` unless both points run.
    pub fn speedup(&self, gpus: u32) -> Option<f64> {
        Some(self.iterations_per_s(gpus)? / self.iterations_per_s(1)?)
    }
}

impl ThroughputTable {
    /// ElasticFlow's A100 table (7 models, 118 measured cells), parsed once.
    pub fn elasticflow_a100() -> &'static Self {
        &ELASTICFLOW_A100
    }

    /// ElasticFlow's T4 table (6 models, 60 measured cells), parsed once.
    pub fn elasticflow_t4() -> &'static Self {
        &ELASTICFLOW_T4
    }

    /// The table measured on GPUs of type `gpu` (a spec's `gpu:` name); `None` for a type no
    /// table covers (see [`ThroughputTable::GPU_TYPES`]).
    pub fn for_gpu(gpu: &str) -> Option<&'static Self> {
        match gpu {
            "a100" => Some(Self::elasticflow_a100()),
            "t4" => Some(Self::elasticflow_t4()),
            _ => None,
        }
    }

    /// The GPU types [`ThroughputTable::for_gpu`] knows.
    pub const GPU_TYPES: [&'static str; 2] = ["a100", "t4"];

    /// Reads a long-format table (see the module documentation); `source_name` names it in
    /// errors. Every error carries the 1-based line.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, ProfileError> {
        let error = |line: usize, message: String| ProfileError { source: source_name.to_string(), line, message };
        let mut rows: Vec<(&str, u32, u32, f64, usize)> = Vec::new();
        let mut header_seen = false;
        let mut last_line = 0;
        for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
            last_line = n;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                if line != HEADER {
                    return Err(error(n, format!("expected the header `{HEADER}`, found `{line}`")));
                }
                header_seen = true;
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let [model, batch, gpus, rate] = fields[..] else {
                return Err(error(n, format!("expected 4 fields ({HEADER}), found {}", fields.len())));
            };
            if model.is_empty() {
                return Err(error(n, "column `model`: expected a model name, found nothing".into()));
            }
            let count = |column: &str, text: &str| {
                text.parse::<u32>()
                    .ok()
                    .filter(|&v| v >= 1)
                    .ok_or_else(|| error(n, format!("column `{column}`: expected a whole number >= 1, found `{text}`")))
            };
            let (batch, gpus) = (count("global_batch", batch)?, count("gpus", gpus)?);
            let rate = rate.parse::<f64>().ok().filter(|r| r.is_finite() && *r >= 0.0).ok_or_else(|| {
                error(
                    n,
                    format!(
                        "column `iterations_per_s`: expected a number >= 0 (0 = does not run; leave unmeasured cells out), found `{rate}`"
                    ),
                )
            })?;
            rows.push((model, batch, gpus, rate, n));
        }
        if !header_seen {
            return Err(error(last_line.max(1), format!("no header `{HEADER}`")));
        }
        if rows.is_empty() {
            return Err(error(last_line, "no rows after the header".into()));
        }
        // Stable: of two duplicates, the first in the file stays first.
        rows.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        if let Some(w) = rows.windows(2).find(|w| (w[0].0, w[0].1, w[0].2) == (w[1].0, w[1].1, w[1].2)) {
            let (model, batch, gpus, _, first) = w[0];
            return Err(error(
                w[1].4,
                format!("duplicate row for model `{model}`, global batch {batch}, {gpus} GPUs (first at line {first})"),
            ));
        }
        let mut curves: Vec<(String, u32, ScalingCurve)> = Vec::new();
        for (model, batch, gpus, rate, _) in rows {
            match curves.last_mut() {
                Some((m, b, curve)) if m == model && *b == batch => curve.points.push((gpus, rate)),
                _ => curves.push((model.to_string(), batch, ScalingCurve { points: vec![(gpus, rate)] })),
            }
        }
        Ok(Self { source: source_name.to_string(), curves })
    }

    /// The name given to [`ThroughputTable::parse`] (the file name for embedded tables).
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The curve of `model` at `global_batch`; `None` when the table has no such configuration.
    pub fn curve(&self, model: &str, global_batch: u32) -> Option<&ScalingCurve> {
        let i = self.curves.binary_search_by(|(m, b, _)| (m.as_str(), *b).cmp(&(model, global_batch))).ok()?;
        Some(&self.curves[i].2)
    }

    /// Every configuration, sorted by model then global batch.
    pub fn curves(&self) -> impl Iterator<Item = (&str, u32, &ScalingCurve)> {
        self.curves.iter().map(|(m, b, c)| (m.as_str(), *b, c))
    }
}

/// A malformed throughput table: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    pub source: String,
    /// 1-based line number.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.source, self.line, self.message)
    }
}

impl std::error::Error for ProfileError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(table: &ThroughputTable) -> usize {
        table.curves().map(|(_, _, c)| c.points().len()).sum()
    }

    #[test]
    fn embedded_tables_parse_with_every_measured_cell() {
        let a100 = ThroughputTable::parse(include_str!("data/elasticflow-a100.csv"), "a100").unwrap();
        let t4 = ThroughputTable::parse(include_str!("data/elasticflow-t4.csv"), "t4").unwrap();
        assert_eq!((rows(&a100), rows(&t4)), (118, 60));
        assert_eq!(ThroughputTable::elasticflow_a100().curves, a100.curves);
        assert_eq!(ThroughputTable::elasticflow_t4().source(), "elasticflow-t4.csv");
        fn models(t: &ThroughputTable) -> Vec<&str> {
            let mut m: Vec<&str> = t.curves().map(|c| c.0).collect();
            m.dedup();
            m
        }
        assert_eq!(
            models(&a100),
            ["bert", "deepspeech2", "gpt2", "inception3", "resnet50", "resnet50_cifar10", "vgg16"]
        );
        assert_eq!(models(&t4), ["bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"]);
    }

    #[test]
    fn lookups_return_the_source_values() {
        let a100 = ThroughputTable::elasticflow_a100();
        let resnet = a100.curve("resnet50", 64).unwrap();
        assert_eq!(resnet.iterations_per_s(1), Some(6.8429775823889685));
        assert_eq!(resnet.iterations_per_s(64), Some(20.969147690424624));
        assert_eq!(resnet.iterations_per_s(3), None);
        assert_eq!(resnet.levels().collect::<Vec<_>>(), [1, 2, 4, 8, 16, 32, 64]);
        assert_eq!(resnet.speedup(2), Some(11.838468717843664 / 6.8429775823889685));
        assert_eq!(resnet.speedup(1), Some(1.0));
        assert!(a100.curve("resnet50", 32).is_none() && a100.curve("ncf", 32768).is_none());
        // The one empty cell of the A100 files: deepspeech2, batch 32, 64 GPUs.
        let ds2 = a100.curve("deepspeech2", 32).unwrap();
        assert_eq!((ds2.iterations_per_s(64), ds2.max_gpus()), (None, Some(32)));
    }

    #[test]
    fn nan_cells_are_absent_and_zero_cells_do_not_run() {
        let t4 = ThroughputTable::elasticflow_t4();
        let ds2 = t4.curve("deepspeech2", 320).unwrap();
        assert_eq!((ds2.iterations_per_s(64), ds2.max_gpus(), ds2.points().len()), (None, Some(32), 6));
        assert_eq!(t4.curve("yolov3", 64).unwrap().levels().collect::<Vec<_>>(), [1, 2, 4, 8, 16]);
        let cifar = ThroughputTable::elasticflow_a100().curve("resnet50_cifar10", 128).unwrap();
        assert_eq!(cifar.points().len(), 7, "the 0 cells keep their rows");
        assert_eq!(cifar.points()[4], (16, 0.0));
        assert_eq!((cifar.iterations_per_s(16), cifar.speedup(32), cifar.max_gpus()), (None, None, Some(8)));
        assert_eq!(cifar.levels().collect::<Vec<_>>(), [1, 2, 4, 8]);
    }

    #[test]
    fn user_tables_allow_comments_blank_lines_crlf_and_any_order() {
        let text = "# mine\r\n\r\nmodel,global_batch,gpus,iterations_per_s\r\nm,32,3,2.5\r\n# late comment\r\nm, 32 ,1,1\r\nm,32,6,0\r\na,8,1,4\r\n";
        let table = ThroughputTable::parse(text, "mine.csv").unwrap();
        assert_eq!(table.curves().map(|(m, b, _)| (m, b)).collect::<Vec<_>>(), [("a", 8), ("m", 32)]);
        let m = table.curve("m", 32).unwrap();
        assert_eq!(m.points(), [(1, 1.0), (3, 2.5), (6, 0.0)]);
        assert_eq!((m.max_gpus(), m.speedup(3)), (Some(3), Some(2.5)));
    }

    #[test]
    fn malformed_tables_name_the_line() {
        let header = "model,global_batch,gpus,iterations_per_s\n";
        let cases = [
            ("m,32,1", "t.csv:2: expected 4 fields (model,global_batch,gpus,iterations_per_s), found 3"),
            (",32,1,1", "t.csv:2: column `model`: expected a model name, found nothing"),
            ("m,0,1,1", "t.csv:2: column `global_batch`: expected a whole number >= 1, found `0`"),
            ("m,32,1.5,1", "t.csv:2: column `gpus`: expected a whole number >= 1, found `1.5`"),
            (
                "m,32,1,nan",
                "t.csv:2: column `iterations_per_s`: expected a number >= 0 (0 = does not run; leave unmeasured cells out), found `nan`",
            ),
            (
                "m,32,1,-2",
                "t.csv:2: column `iterations_per_s`: expected a number >= 0 (0 = does not run; leave unmeasured cells out), found `-2`",
            ),
            (
                "m,32,1,1\nm,32,2,1\nm,32,1,3",
                "t.csv:4: duplicate row for model `m`, global batch 32, 1 GPUs (first at line 2)",
            ),
            ("", "t.csv:2: no rows after the header"),
        ];
        for (body, expected) in cases {
            assert_eq!(
                ThroughputTable::parse(&format!("{header}{body}\n"), "t.csv").unwrap_err().to_string(),
                expected
            );
        }
        assert_eq!(
            ThroughputTable::parse("# c\nglobal_batch_size,1,2\n64,1,2\n", "t.csv").unwrap_err().to_string(),
            "t.csv:2: expected the header `model,global_batch,gpus,iterations_per_s`, found `global_batch_size,1,2`"
        );
        assert_eq!(
            ThroughputTable::parse("# only a comment\n", "t.csv").unwrap_err().to_string(),
            "t.csv:1: no header `model,global_batch,gpus,iterations_per_s`"
        );
        assert_eq!(ThroughputTable::parse("", "t.csv").unwrap_err().line, 1);
    }
}
