//! Gavel's (OSDI'20) throughput oracle: `simulation_throughputs.json` (and its physical-cluster
//! twin) from github.com/stanford-futuredata/gavel @ c4fa400 (MIT), the `gavel-throughputs`
//! dataset; `docs/gavel-semantics.md` §1.1.
//!
//! The file maps a worker (GPU) type to job keys `"('<job type>', <scale factor>)"`, and each job
//! key to partner keys: `"null"` holds the job's isolated steps per second on one worker set of
//! that type, any other job key the two jobs' steps per second when they share the workers
//! (space sharing), as `[this job, partner]`. Gavel parses the keys with a regular expression and
//! asserts on anything else; here a malformed key, a missing isolated value or a value that is
//! not a finite, non-negative number is an error naming the worker type and the key. A zero
//! means "cannot run" (K80 x ResNet-50 bs 128 at scale factors 2-8; pairs that do not fit).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Which of the dataset's two throughput files defines the steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThroughputFile {
    /// `simulation_throughputs.json`, the simulator's oracle.
    #[default]
    Simulation,
    /// `physical_cluster_throughputs.json` (73 entries differ).
    PhysicalCluster,
}

impl ThroughputFile {
    /// The file as `blox data` names it.
    pub fn dataset_reference(self) -> &'static str {
        match self {
            ThroughputFile::Simulation => "gavel-throughputs/simulation_throughputs.json",
            ThroughputFile::PhysicalCluster => "gavel-throughputs/physical_cluster_throughputs.json",
        }
    }
}

/// A job type at a scale factor (GPUs), as the table keys it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobKey {
    /// Gavel's job type, e.g. `ResNet-50 (batch size 64)` or `A3C`.
    pub job_type: String,
    pub scale_factor: u32,
}

/// One job key's row on one worker type.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Throughputs {
    /// Steps per second alone.
    pub isolated: f64,
    /// Steps per second of this job and of the partner when they share the workers.
    pub pairs: HashMap<JobKey, (f64, f64)>,
}

/// The oracle: worker type, then job key.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GavelThroughputs {
    /// Worker types in name order (`k80`, `k80_unconsolidated`, `p100`, ...), the order in which
    /// Gavel registers them.
    worker_types: Vec<String>,
    rows: HashMap<String, HashMap<JobKey, Throughputs>>,
}

/// Why a throughput file cannot be used; names the file, the worker type and the key.
#[derive(Debug, Clone, PartialEq)]
pub struct GavelProfileError {
    pub source: String,
    pub message: String,
}

impl fmt::Display for GavelProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.source, self.message)
    }
}

impl std::error::Error for GavelProfileError {}

impl GavelThroughputs {
    /// [`GavelThroughputs::parse`] as a policy input's parser.
    pub fn parse_input(bytes: &[u8], name: &str) -> Result<crate::core::input::ParsedInput, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 text: {e}"))?;
        Ok(Arc::new(Self::parse(text, name).map_err(|e| e.to_string())?))
    }

    /// Parses the JSON text of a Gavel throughput file; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self, GavelProfileError> {
        let error = |message: String| GavelProfileError { source: source.to_string(), message };
        let root: Value = serde_json::from_str(text).map_err(|e| error(format!("not JSON: {e}")))?;
        let Value::Object(types) = root else {
            return Err(error("expected an object of worker types".into()));
        };
        let mut table = GavelThroughputs::default();
        for (worker_type, jobs) in types {
            let Value::Object(jobs) = jobs else {
                return Err(error(format!("worker type `{worker_type}`: expected an object of job keys")));
            };
            let mut rows = HashMap::with_capacity(jobs.len());
            for (key, partners) in jobs {
                let at = |message: String| error(format!("worker type `{worker_type}`, key `{key}`: {message}"));
                let job = parse_key(&key).ok_or_else(|| at("expected `('<job type>', <scale factor>)`".into()))?;
                let Value::Object(partners) = partners else {
                    return Err(at("expected an object with `null` and partner keys".into()));
                };
                let mut row = Throughputs { isolated: f64::NAN, pairs: HashMap::with_capacity(partners.len()) };
                for (partner, value) in partners {
                    if partner == "null" {
                        row.isolated =
                            rate(&value).ok_or_else(|| at(format!("isolated value {value} is not a rate")))?;
                        continue;
                    }
                    let other =
                        parse_key(&partner).ok_or_else(|| at(format!("partner `{partner}` is not a job key")))?;
                    let pair = match &value {
                        Value::Array(pair) if pair.len() == 2 => rate(&pair[0]).zip(rate(&pair[1])),
                        _ => None,
                    };
                    let pair = pair.ok_or_else(|| at(format!("partner `{partner}`: {value} is not two rates")))?;
                    row.pairs.insert(other, pair);
                }
                if row.isolated.is_nan() {
                    return Err(at("no isolated (`null`) value".into()));
                }
                rows.insert(job, row);
            }
            table.worker_types.push(worker_type.clone());
            table.rows.insert(worker_type, rows);
        }
        if table.worker_types.is_empty() {
            return Err(error("no worker type".into()));
        }
        Ok(table)
    }

    /// Worker types in name order.
    pub fn worker_types(&self) -> &[String] {
        &self.worker_types
    }

    /// The row of `job` on `worker_type`, if the table has one.
    pub fn get(&self, worker_type: &str, job: &JobKey) -> Option<&Throughputs> {
        self.rows.get(worker_type)?.get(job)
    }

    /// Steps per second of `job` alone on `worker_type`.
    pub fn isolated(&self, worker_type: &str, job: &JobKey) -> Option<f64> {
        self.get(worker_type, job).map(|row| row.isolated)
    }
}

/// `('<job type>', <scale factor>)`, as Gavel's `\('(.*)', (\d+)\)` reads it (the job type is
/// everything up to the last `', `).
fn parse_key(key: &str) -> Option<JobKey> {
    let inner = key.strip_prefix("('")?.strip_suffix(')')?;
    let (job_type, scale_factor) = inner.rsplit_once("', ")?;
    if scale_factor.is_empty() || !scale_factor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(JobKey { job_type: job_type.to_string(), scale_factor: scale_factor.parse().ok()? })
}

/// A finite, non-negative number of steps per second.
fn rate(value: &Value) -> Option<f64> {
    value.as_f64().filter(|r| r.is_finite() && *r >= 0.0)
}

impl crate::core::input::InputData for GavelThroughputs {
    fn summary(&self) -> String {
        format!("throughputs of {} GPU types", self.worker_types().len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(job_type: &str, scale_factor: u32) -> JobKey {
        JobKey { job_type: job_type.into(), scale_factor }
    }

    const SMALL: &str = r#"{
        "v100": {
            "('ResNet-18 (batch size 64)', 1)": {"null": 32.5, "('A3C', 1)": [20.0, 3.25]},
            "('A3C', 1)": {"null": 5.0, "('ResNet-18 (batch size 64)', 1)": [3.25, 20.0]},
            "('ResNet-50 (batch size 128)', 2)": {"null": 0}
        },
        "k80": {"('A3C', 1)": {"null": 1.5}}
    }"#;

    #[test]
    fn reads_isolated_and_pair_rates_by_type_and_key() {
        let table = GavelThroughputs::parse(SMALL, "small.json").unwrap();
        assert_eq!(table.worker_types(), ["k80", "v100"]);
        assert_eq!(table.isolated("v100", &key("ResNet-18 (batch size 64)", 1)), Some(32.5));
        assert_eq!(table.isolated("k80", &key("A3C", 1)), Some(1.5));
        assert_eq!(table.isolated("v100", &key("ResNet-50 (batch size 128)", 2)), Some(0.0), "zero: cannot run");
        assert_eq!(table.isolated("p100", &key("A3C", 1)), None);
        assert_eq!(table.isolated("v100", &key("A3C", 2)), None);
        let row = table.get("v100", &key("A3C", 1)).unwrap();
        assert_eq!(row.pairs[&key("ResNet-18 (batch size 64)", 1)], (3.25, 20.0));
    }

    /// Rates are parsed correctly rounded, as Python's `json` does (serde_json's fast path is off
    /// by one unit in the last place on some of Gavel's values, e.g. LM bs 5 on a V100, which
    /// changed a generated job's steps).
    #[test]
    fn rates_are_read_to_the_last_bit() {
        let text = "109.16661771207029";
        let table =
            GavelThroughputs::parse(&format!(r#"{{"v100": {{"('LM (batch size 5)', 1)": {{"null": {text}}}}}}}"#), "t")
                .unwrap();
        let rate = table.isolated("v100", &key("LM (batch size 5)", 1)).unwrap();
        assert_eq!(rate, text.parse::<f64>().unwrap());
        assert_eq!(6858.69820697011 * rate, 748740.885162768, "the original's steps for that job");
    }

    #[test]
    fn keys_parse_as_gavels_pattern_does() {
        assert_eq!(parse_key("('LM (batch size 5)', 4)"), Some(key("LM (batch size 5)", 4)));
        assert_eq!(parse_key("('it's', 2)"), Some(key("it's", 2)), "the job type runs to the last `', `");
        for bad in ["(LM, 4)", "('LM', )", "('LM', -1)", "('LM', 4", "LM", "('LM', 1.5)"] {
            assert_eq!(parse_key(bad), None, "{bad}");
        }
    }

    #[test]
    fn bad_files_are_errors_naming_type_and_key() {
        let err = |text: &str| GavelThroughputs::parse(text, "t.json").unwrap_err().to_string();
        assert!(err("[1]").contains("expected an object of worker types"));
        assert!(err("{}").contains("no worker type"));
        assert!(err(r#"{"v100": {"ResNet": {"null": 1}}}"#).contains("worker type `v100`, key `ResNet`"));
        assert!(err(r#"{"v100": {"('A3C', 1)": {}}}"#).contains("no isolated (`null`) value"));
        assert!(err(r#"{"v100": {"('A3C', 1)": {"null": -1}}}"#).contains("is not a rate"));
        assert!(err(r#"{"v100": {"('A3C', 1)": {"null": "fast"}}}"#).contains("is not a rate"));
        let pair = err(r#"{"v100": {"('A3C', 1)": {"null": 1, "('A3C', 1)": [1]}}}"#);
        assert!(pair.contains("partner `('A3C', 1)`") && pair.contains("is not two rates"), "{pair}");
        assert!(err("{").starts_with("t.json: not JSON"));
    }
}
