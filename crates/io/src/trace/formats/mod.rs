//! The trace formats: one reader file per format, each declaring its descriptor (`FORMAT`, a
//! [`FormatInfo`]: name, one-line summary, how its files are recognised, its reader), and
//! [`FORMATS`], the one list of them, from which names, `blox trace formats`, detection and
//! dispatch derive. Each reader's doc comment names the source and the meaning of every column it
//! uses.
//!
//! Readers share one contract: parse every row (an unparseable row is an error with file:line and
//! column, never skipped), count each row in `report.rows_read`, drop rows the format itself
//! marks as unusable (a CPU-only job, a job that never ran) with a counted reason, and pass the
//! rest to `emit` ([`Emit`]) in file order, so that a trace of millions of jobs need not be held
//! in memory. A reader emits each job as soon as its row is parsed, unless the jobs depend on the
//! whole file (a time origin at the earliest submission): such a reader collects them and emits
//! them at the end, and says so in its doc comment. An error returned by `emit` stops reading and
//! is returned as it is; an error in a row comes after the jobs of the rows before it were
//! emitted. [`super::read_trace`] collects and sorts by submission; [`super::stream_trace`]
//! passes the jobs on as they come.

pub mod alibaba_2023;
pub mod alibaba_pai_2020;
pub mod blox_csv;
pub mod canonical;
pub mod elasticflow;
pub mod fleetsim;
pub mod gavel;
pub mod gavel_philly_sizes;
pub mod helios;
pub mod itp;
pub mod muri;
pub mod philly_csv;
pub mod philly_json;
pub mod pollux;
pub mod synergy_deploy;
pub mod tiresias;

use super::{ReadReport, TraceError, TraceJob};
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::Path;

/// Every format's descriptor: the one list a new reader is added to. `blox trace formats` shows
/// them in this order, and detection tries them in this order, so a format whose header would also
/// satisfy another's test comes first (`elasticflow` and `muri` before `tiresias`).
pub const FORMATS: &[&FormatInfo] = &[
    &blox_csv::FORMAT,
    &canonical::FORMAT,
    &philly_json::FORMAT,
    &philly_csv::FORMAT,
    &helios::FORMAT,
    &fleetsim::FORMAT,
    &alibaba_pai_2020::FORMAT,
    &alibaba_2023::FORMAT,
    &itp::FORMAT,
    &elasticflow::FORMAT,
    &muri::FORMAT,
    &tiresias::FORMAT,
    &gavel::FORMAT,
    &gavel_philly_sizes::FORMAT,
    &pollux::FORMAT,
    &synergy_deploy::FORMAT,
];

/// A trace format's descriptor.
pub struct FormatInfo {
    pub format: TraceFormat,
    /// The name specs (`format: philly-csv`) and `--format` use.
    pub name: &'static str,
    /// One line for `blox trace formats`.
    pub summary: &'static str,
    pub detect: Detect,
    pub read: Reader,
}

/// Reads every job of a file and passes each to the [`Emit`] callback; see the module
/// documentation for the contract.
pub type Reader = fn(&Path, Box<dyn BufRead + '_>, &mut ReadReport, &mut Emit<'_>) -> Result<(), TraceError>;

/// Receives the jobs of a trace one at a time, in file order; an error stops the reader, which
/// returns it.
pub type Emit<'e> = dyn FnMut(TraceJob) -> Result<(), TraceError> + 'e;

/// Whether the start of a file is in a format.
pub type Test = fn(&Head) -> bool;

/// How a format's files are recognised from their first bytes ([`TraceFormat::detect`]).
#[derive(Clone, Copy)]
pub enum Detect {
    /// By its header, or the opening of a JSON or tab-separated file.
    Header(Test),
    /// By its header, which `#` comment lines may precede; a comma-separated file with such a
    /// preamble is no other format's.
    HeaderAfterComments(Test),
    /// By the first row of a headerless file; tried after every header and every known non-trace
    /// file, which a row heuristic could mistake for one.
    FirstRow(Test),
}

impl Detect {
    fn by_header(self) -> Option<Test> {
        match self {
            Detect::Header(test) | Detect::HeaderAfterComments(test) => Some(test),
            Detect::FirstRow(_) => None,
        }
    }

    fn by_row(self) -> Option<Test> {
        match self {
            Detect::FirstRow(test) => Some(test),
            Detect::Header(_) | Detect::HeaderAfterComments(_) => None,
        }
    }
}

/// The start of a file as detection reads it.
pub struct Head<'a> {
    /// The first line that is neither blank nor a `#` comment, trimmed.
    pub first_line: &'a str,
    pub layout: Layout,
    /// `first_line` split at commas and trimmed; empty unless the layout is [`Layout::Commas`].
    pub columns: Vec<&'a str>,
    /// Whether the file opens with `#` comment lines.
    pub commented: bool,
}

/// How the first line is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// A JSON array of objects (or an empty one).
    JsonArray,
    /// Tab-separated, with this many fields.
    Tabs(usize),
    Commas,
}

impl<'a> Head<'a> {
    /// Reads `text` (after any byte-order mark). A JSON object or an INI file (`[section]`), which
    /// no format is, is an error saying what it probably is.
    fn new(text: &'a str) -> Result<Head<'a>, &'static str> {
        let trimmed = text.trim_start();
        let json_array = match trimmed.strip_prefix('[') {
            Some(rest) if rest.trim_start().starts_with(['{', ']']) || rest.trim_start().is_empty() => true,
            Some(_) => return Err("an INI configuration file (e.g. a Synergy cluster config)"),
            None if trimmed.starts_with('{') => {
                return Err("a JSON object (a Gavel throughput table or a cluster spec?)");
            }
            None => false,
        };
        let first_line = text.lines().find(|l| !l.trim().is_empty() && !l.starts_with('#')).unwrap_or("").trim();
        let layout = if json_array {
            Layout::JsonArray
        } else if first_line.contains('\t') {
            Layout::Tabs(first_line.split('\t').count())
        } else {
            Layout::Commas
        };
        let columns = match layout {
            Layout::Commas => first_line.split(',').map(str::trim).collect(),
            _ => Vec::new(),
        };
        Ok(Head { first_line, layout, columns, commented: text.starts_with('#') })
    }

    /// Whether the header has `column`.
    pub fn has(&self, column: &str) -> bool {
        self.columns.contains(&column)
    }
}

/// A trace file format, named in specs as `format: philly-csv` and so on; its descriptor is in
/// [`FORMATS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    BloxCsv,
    Canonical,
    PhillyJson,
    PhillyCsv,
    Helios,
    Fleetsim,
    #[serde(rename = "alibaba-pai-2020")]
    AlibabaPai2020,
    #[serde(rename = "alibaba-2023")]
    Alibaba2023,
    Itp,
    Elasticflow,
    Muri,
    Tiresias,
    Gavel,
    GavelPhillySizes,
    Pollux,
    SynergyDeploy,
}

/// What the first bytes of a file say it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Detection {
    Format(TraceFormat),
    /// A known file that is not a job trace (a cluster spec, a throughput table, ...).
    NotATrace(&'static str),
    /// Nothing matched; carries the first line for the message.
    Unknown(String),
}

impl TraceFormat {
    /// Every format, in [`FORMATS`] order.
    pub const ALL: [TraceFormat; FORMATS.len()] = {
        let mut all = [TraceFormat::BloxCsv; FORMATS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = FORMATS[i].format;
            i += 1;
        }
        all
    };

    pub fn info(self) -> &'static FormatInfo {
        FORMATS.iter().find(|info| info.format == self).expect("every format has a descriptor in FORMATS")
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn summary(self) -> &'static str {
        self.info().summary
    }

    pub fn names() -> Vec<&'static str> {
        FORMATS.iter().map(|info| info.name).collect()
    }

    /// Whether the format's jobs have no duration because their work is their application's
    /// training target, which the job model of the policy running them decides (Pollux and Sia
    /// workloads): such a trace runs without durations, its jobs' `work` left at 0.
    pub fn work_from_application(self) -> bool {
        matches!(self, TraceFormat::Pollux)
    }

    /// Reads every job of the file into `emit`; see the module documentation for the contract.
    pub fn read(
        self,
        file: &Path,
        input: Box<dyn BufRead + '_>,
        report: &mut ReadReport,
        emit: &mut Emit<'_>,
    ) -> Result<(), TraceError> {
        (self.info().read)(file, input, report, emit)
    }

    /// Recognises a format from the first bytes of a file: the first format in [`FORMATS`] whose
    /// header test passes, else a known non-trace file, else the first whose row test passes.
    /// Headers are read after any `#` comment lines, which only [`Detect::HeaderAfterComments`]
    /// formats may have.
    pub fn detect(head: &[u8]) -> Detection {
        let text = String::from_utf8_lossy(&head[..head.len().min(8192)]);
        let head = match Head::new(text.trim_start_matches('\u{feff}')) {
            Ok(head) => head,
            Err(what) => return Detection::NotATrace(what),
        };
        let first = |kind: fn(Detect) -> Option<Test>| {
            FORMATS.iter().find(|info| kind(info.detect).is_some_and(|test| test(&head)))
        };
        let found = match first(Detect::by_header) {
            Some(info) => info,
            None => {
                if let Some(what) = not_a_trace(&head.columns) {
                    return Detection::NotATrace(what);
                }
                match first(Detect::by_row) {
                    Some(info) => info,
                    None => return Detection::Unknown(head.first_line.chars().take(200).collect()),
                }
            }
        };
        let preamble_allowed = matches!(found.detect, Detect::HeaderAfterComments(_));
        if head.commented && head.layout == Layout::Commas && !preamble_allowed {
            return Detection::Unknown(head.first_line.chars().take(200).collect());
        }
        Detection::Format(found.format)
    }
}

/// Known non-trace files of the trace collections, so that `blox trace inspect` says what they are.
fn not_a_trace(cols: &[&str]) -> Option<&'static str> {
    let first = *cols.first()?;
    if first.starts_with("Total jobs:") {
        return Some("a Muri result summary");
    }
    Some(match first {
        "num_switch" => "a cluster spec (ElasticFlow/Tiresias/Muri num_switch,num_node_p_switch,...)",
        "global_batch_size" => "an ElasticFlow throughput table (iterations/s by batch size and GPU count)",
        "duration" if cols.len() == 1 => "a GPU-time distribution (Tiresias yarn-gput*.csv)",
        "sn" => "an Alibaba node list",
        "id" if cols.contains(&"job_num") => "the Helios per-cluster summary",
        "time" => "a simulator output log",
        "profile_set" => "a Synergy model profile table",
        "experiment" => "a table of experiment results",
        "placement" if cols.contains(&"step_time") => {
            "a Pollux step-time profile (placements.csv: step and sync time by placement and per-GPU batch)"
        }
        "num_nodes" if cols.contains(&"step_time") => {
            "a Pollux scalability profile (scalability.csv: step and sync time by nodes, GPUs and per-GPU batch)"
        }
        "progress" if cols.contains(&"grad_sqr") => {
            "a Pollux validation curve (validation-<batch>.csv: gradient statistics by epoch)"
        }
        _ => return None,
    })
}

/// Reads `text` as `format` from a file named `file`, for the readers' unit tests: the jobs and
/// the report, or the error as displayed.
#[cfg(test)]
fn read_text(format: TraceFormat, file: &str, text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
    let mut report = ReadReport::default();
    collect(|emit| format.read(Path::new(file), Box::new(text.as_bytes()), &mut report, emit))
        .map(|jobs| (jobs, report))
        .map_err(|e| e.to_string())
}

/// The jobs `read` emits, in order, for the readers' unit tests.
#[cfg(test)]
fn collect(read: impl FnOnce(&mut Emit<'_>) -> Result<(), TraceError>) -> Result<Vec<TraceJob>, TraceError> {
    let mut jobs = Vec::new();
    read(&mut |job| {
        jobs.push(job);
        Ok(())
    })?;
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(head: &str) -> Detection {
        TraceFormat::detect(head.as_bytes())
    }

    #[test]
    fn headers_select_formats() {
        let cases = [
            ("job_id,arrival_s,gpus,duration_s\n", TraceFormat::BloxCsv),
            ("  [{\"status\": \"Pass\"", TraceFormat::PhillyJson),
            ("timestamp,duration,num_gpus,gpu_time,cluster\n", TraceFormat::PhillyCsv),
            (
                "job_id,user,vc,jobname,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n",
                TraceFormat::Helios,
            ),
            (
                "# preamble\n# more\njob_id,user,tenant,class,submit_time,num_chips,chip_type,num_nodes,duration_s,walltime_limit_s,final_status\n",
                TraceFormat::Fleetsim,
            ),
            (
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n",
                TraceFormat::Alibaba2023,
            ),
            ("job_id,submission_time,duration,num_gpu\n", TraceFormat::Itp),
            (
                "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration,best_effort\n",
                TraceFormat::Elasticflow,
            ),
            (
                "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n",
                TraceFormat::Elasticflow,
            ),
            (
                "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,iteration_time,resource_time_0,resource_time_1,resource_time_2,priority\n",
                TraceFormat::Muri,
            ),
            ("job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n", TraceFormat::Tiresias),
            (
                "job_id,num_gpu,submit_time,start_time,duration,model_size,aggr_interval,model_name,model_scale\n",
                TraceFormat::Tiresias,
            ),
            ("name,time,application,num_replicas,batch_size\n", TraceFormat::Pollux),
            ("duration_s,num_gpus\n", TraceFormat::GavelPhillySizes),
            ("ResNet-50 (batch size 64)\tpython3 main.py\t-n\t1\t1000\t0.0\t1\n", TraceFormat::Gavel),
            ("job1,task1,1,Terminated,1,2,600,29.3,50,V100\n", TraceFormat::AlibabaPai2020),
            ("0,alexnet,0.0,3349,1\n", TraceFormat::SynergyDeploy),
        ];
        for (head, format) in cases {
            assert_eq!(detect(head), Detection::Format(format), "{head}");
        }
    }

    #[test]
    fn known_non_traces_and_unknown_headers() {
        assert!(
            matches!(detect("num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,16,8,64,256\n"), Detection::NotATrace(w) if w.contains("cluster spec"))
        );
        assert!(matches!(detect("duration\n121\n"), Detection::NotATrace(w) if w.contains("GPU-time distribution")));
        assert!(matches!(detect("{\"v100\": {}}"), Detection::NotATrace(_)));
        assert!(matches!(detect("[cluster]\nracks = 1\n"), Detection::NotATrace(w) if w.contains("INI")));
        assert_eq!(detect("[\n  {\"jobid\": 1}]"), Detection::Format(TraceFormat::PhillyJson));
        assert_eq!(detect("[]"), Detection::Format(TraceFormat::PhillyJson));
        assert!(matches!(detect("Total jobs: 400, avg JCT: 1\n"), Detection::NotATrace(w) if w.contains("Muri")));
        let pollux = [
            ("placement,local_bsz,step_time,sync_time\n1,32,0.04,0.0005\n", "Pollux step-time profile"),
            ("num_nodes,num_replicas,local_bsz,step_time,sync_time\n6,6,32,0.14,0.09\n", "Pollux scalability"),
            ("progress,iteration,metric,grad_sqr,grad_var\n391.0,390,0.4455,8.9,5.1\n", "Pollux validation curve"),
        ];
        for (head, what) in pollux {
            assert!(matches!(detect(head), Detection::NotATrace(w) if w.contains(what)), "{head}");
        }
        assert_eq!(detect("foo,bar\n1,2\n"), Detection::Unknown("foo,bar".into()));
        assert_eq!(detect(""), Detection::Unknown(String::new()));
    }

    /// Every variant has exactly one descriptor, under its serde name, and every descriptor a
    /// variant.
    #[test]
    fn variants_and_descriptors_pair_one_to_one() {
        use serde::de::value::{Error, StrDeserializer};
        // serde lists the variants when a name is unknown: "... expected one of `a`, `b`, ...".
        let unknown = TraceFormat::deserialize(StrDeserializer::<Error>::new("?")).unwrap_err().to_string();
        let variants: Vec<&str> =
            unknown.split_once("expected one of ").unwrap().1.split(", ").map(|v| v.trim_matches('`')).collect();
        assert_eq!(variants.len(), FORMATS.len(), "{unknown}");
        for name in variants {
            let matching: Vec<_> = FORMATS.iter().filter(|info| info.name == name).collect();
            assert_eq!(matching.len(), 1, "`{name}` has {} descriptors", matching.len());
            let parsed: TraceFormat = serde_saphyr::from_str(name).unwrap();
            assert_eq!(parsed, matching[0].format, "`{name}`");
        }
    }
}
