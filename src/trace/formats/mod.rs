//! The registry of trace formats: names, one-line descriptions, detection from the header and
//! dispatch to the reader. One file per format; each reader's doc comment names the source and the
//! meaning of every column it uses.
//!
//! Readers share one contract: parse every row (an unparseable row is an error with file:line and
//! column, never skipped), count each row in `report.rows_read`, drop rows the format itself
//! marks as unusable (a CPU-only job, a job that never ran) with a counted reason, and return
//! the rest in file order; [`super::read_trace`] sorts by submission.

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

/// A trace file format, named in specs as `format: philly-csv` and so on.
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
    Tiresias,
    Muri,
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
    pub const ALL: [TraceFormat; 16] = [
        TraceFormat::BloxCsv,
        TraceFormat::Canonical,
        TraceFormat::PhillyJson,
        TraceFormat::PhillyCsv,
        TraceFormat::Helios,
        TraceFormat::Fleetsim,
        TraceFormat::AlibabaPai2020,
        TraceFormat::Alibaba2023,
        TraceFormat::Itp,
        TraceFormat::Elasticflow,
        TraceFormat::Tiresias,
        TraceFormat::Muri,
        TraceFormat::Gavel,
        TraceFormat::GavelPhillySizes,
        TraceFormat::Pollux,
        TraceFormat::SynergyDeploy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::BloxCsv => "blox-csv",
            TraceFormat::Canonical => "canonical",
            TraceFormat::PhillyJson => "philly-json",
            TraceFormat::PhillyCsv => "philly-csv",
            TraceFormat::Helios => "helios",
            TraceFormat::Fleetsim => "fleetsim",
            TraceFormat::AlibabaPai2020 => "alibaba-pai-2020",
            TraceFormat::Alibaba2023 => "alibaba-2023",
            TraceFormat::Itp => "itp",
            TraceFormat::Elasticflow => "elasticflow",
            TraceFormat::Tiresias => "tiresias",
            TraceFormat::Muri => "muri",
            TraceFormat::Gavel => "gavel",
            TraceFormat::GavelPhillySizes => "gavel-philly-sizes",
            TraceFormat::Pollux => "pollux",
            TraceFormat::SynergyDeploy => "synergy-deploy",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            TraceFormat::BloxCsv => "job_id,arrival_s,gpus,duration_s[,model]: blox's own plain CSV",
            TraceFormat::Canonical => "blox's canonical trace CSV, as `blox trace convert --to csv` writes it",
            TraceFormat::PhillyJson => {
                "Philly cluster_job_log (msr-fiddle/philly-traces): JSON array, streamed; sum of attempts, GPUs of the last attempt"
            }
            TraceFormat::PhillyCsv => {
                "processed Philly table timestamp,duration,num_gpus,gpu_time,cluster (Pollux/Sia artifacts)"
            }
            TraceFormat::Helios => {
                "Helios cluster_log.csv (SenseTime, SC'21): job_id,user,vc,gpu_num,...,state,submit_time,..."
            }
            TraceFormat::Fleetsim => {
                "fleetsim canonical CSV, e.g. the real Helios Venus slice (# preamble, num_chips, duration_s)"
            }
            TraceFormat::AlibabaPai2020 => {
                "Alibaba PAI 2020 pai_task_table.csv joined with pai_job_table.csv beside it (headerless); gang GPUs = instances x per-instance GPUs"
            }
            TraceFormat::Alibaba2023 => {
                "Alibaba cluster-trace-gpu-v2023 openb_pod_list_*.csv (pods, fractional GPU shares)"
            }
            TraceFormat::Itp => "Microsoft ITP raw traces (ElasticFlow): job_id,submission_time,duration,num_gpu",
            TraceFormat::Elasticflow => {
                "ElasticFlow traces: generator output, elasticVpollux, philly_103959, elasticflow-traces (model, batch, iterations, deadline, best-effort)"
            }
            TraceFormat::Tiresias => {
                "Tiresias job CSV job_id,num_gpu,submit_time,iterations,model_name,duration,interval (and the old tf_job format)"
            }
            TraceFormat::Muri => "Muri trace CSV in milliseconds, with per-stage resource times",
            TraceFormat::Gavel => {
                "Gavel .trace TSV (msr per-VC traces and physical-cluster traces): job type, steps, arrival, scale factor"
            }
            TraceFormat::GavelPhillySizes => {
                "Gavel's Philly (duration_s,num_gpus) distribution; no arrival times (all at 0)"
            }
            TraceFormat::Pollux => {
                "Pollux / Sia workload CSV name,time,application,num_replicas,batch_size (no durations)"
            }
            TraceFormat::SynergyDeploy => "Synergy deploy trace (headerless): job_id,model,arrival,iterations,gpus",
        }
    }

    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|f| f.name()).collect()
    }

    /// Reads every job of the file; see the module documentation for the contract.
    pub fn read(
        self,
        file: &Path,
        input: Box<dyn BufRead + '_>,
        report: &mut ReadReport,
    ) -> Result<Vec<TraceJob>, TraceError> {
        match self {
            TraceFormat::BloxCsv => blox_csv::read(file, input, report),
            TraceFormat::Canonical => canonical::read(file, input, report),
            TraceFormat::PhillyJson => philly_json::read(file, input, report),
            TraceFormat::PhillyCsv => philly_csv::read(file, input, report),
            TraceFormat::Helios => helios::read(file, input, report),
            TraceFormat::Fleetsim => fleetsim::read(file, input, report),
            TraceFormat::AlibabaPai2020 => alibaba_pai_2020::read(file, input, report),
            TraceFormat::Alibaba2023 => alibaba_2023::read(file, input, report),
            TraceFormat::Itp => itp::read(file, input, report),
            TraceFormat::Elasticflow => elasticflow::read(file, input, report),
            TraceFormat::Tiresias => tiresias::read(file, input, report),
            TraceFormat::Muri => muri::read(file, input, report),
            TraceFormat::Gavel => gavel::read(file, input, report),
            TraceFormat::GavelPhillySizes => gavel_philly_sizes::read(file, input, report),
            TraceFormat::Pollux => pollux::read(file, input, report),
            TraceFormat::SynergyDeploy => synergy_deploy::read(file, input, report),
        }
    }

    /// Recognises a format from the first bytes of a file.
    pub fn detect(head: &[u8]) -> Detection {
        let text = String::from_utf8_lossy(&head[..head.len().min(8192)]);
        let text = text.trim_start_matches('\u{feff}');
        let trimmed = text.trim_start();
        if let Some(rest) = trimmed.strip_prefix('[') {
            // A JSON array of objects; `[section]` opens an INI file.
            return if rest.trim_start().starts_with(['{', ']']) || rest.trim_start().is_empty() {
                Detection::Format(TraceFormat::PhillyJson)
            } else {
                Detection::NotATrace("an INI configuration file (e.g. a Synergy cluster config)")
            };
        }
        if trimmed.starts_with('{') {
            return Detection::NotATrace("a JSON object (a Gavel throughput table or a cluster spec?)");
        }
        // The fleetsim preamble is `#` comment lines; the header is the first other line.
        let first = text.lines().find(|l| !l.trim().is_empty() && !l.starts_with('#')).unwrap_or("").trim();
        let fleetsim_preamble = text.starts_with('#');
        if first.contains('\t') {
            let fields = first.split('\t').count();
            return if fields == 7 || fields == 10 {
                Detection::Format(TraceFormat::Gavel)
            } else {
                Detection::Unknown(first.chars().take(200).collect())
            };
        }
        let cols: Vec<&str> = first.split(',').map(str::trim).collect();
        let has = |c: &str| cols.contains(&c);
        let detected = if cols == crate::trace::write::CANONICAL_COLUMNS {
            TraceFormat::Canonical
        } else if has("job_id") && has("arrival_s") && has("gpus") && has("duration_s") {
            TraceFormat::BloxCsv
        } else if cols == ["timestamp", "duration", "num_gpus", "gpu_time", "cluster"] {
            TraceFormat::PhillyCsv
        } else if has("gpu_num") && has("submit_time") && has("state") {
            TraceFormat::Helios
        } else if has("num_chips") && has("submit_time") && has("duration_s") {
            TraceFormat::Fleetsim
        } else if has("num_gpu") && has("gpu_milli") && has("creation_time") {
            TraceFormat::Alibaba2023
        } else if cols == ["job_id", "submission_time", "duration", "num_gpu"] {
            TraceFormat::Itp
        } else if has("model_name") && has("batch_size") && (has("ddl") || has("deadline")) {
            TraceFormat::Elasticflow
        } else if has("iteration_time") && has("resource_time_0") {
            TraceFormat::Muri
        } else if has("job_id") && has("num_gpu") && has("submit_time") && has("duration") {
            TraceFormat::Tiresias
        } else if cols == ["name", "time", "application", "num_replicas", "batch_size"] {
            TraceFormat::Pollux
        } else if cols == ["duration_s", "num_gpus"] {
            TraceFormat::GavelPhillySizes
        } else if let Some(what) = not_a_trace(&cols) {
            return Detection::NotATrace(what);
        } else if looks_like_pai_task_row(&cols) {
            TraceFormat::AlibabaPai2020
        } else if looks_like_synergy_row(&cols) {
            TraceFormat::SynergyDeploy
        } else {
            return Detection::Unknown(first.chars().take(200).collect());
        };
        if fleetsim_preamble && detected != TraceFormat::Fleetsim {
            return Detection::Unknown(first.chars().take(200).collect());
        }
        Detection::Format(detected)
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
        _ => return None,
    })
}

/// A headerless PAI task-table row: job_name,task_name,inst_num,status,start,end,plan_cpu,plan_mem,plan_gpu,gpu_type.
fn looks_like_pai_task_row(cols: &[&str]) -> bool {
    cols.len() == 10 && matches!(cols[3], "Terminated" | "Failed" | "Running" | "Waiting" | "Interrupted")
}

/// A headerless Synergy deploy row: integer id, model name, arrival, iterations, GPUs.
fn looks_like_synergy_row(cols: &[&str]) -> bool {
    cols.len() == 5
        && cols[0].parse::<u64>().is_ok()
        && cols[1].parse::<f64>().is_err()
        && cols[2..].iter().all(|c| c.parse::<f64>().is_ok())
}

/// Reads `text` as `format` from a file named `file`, for the readers' unit tests: the jobs and
/// the report, or the error as displayed.
#[cfg(test)]
fn read_text(format: TraceFormat, file: &str, text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
    let mut report = ReadReport::default();
    format
        .read(Path::new(file), Box::new(text.as_bytes()), &mut report)
        .map(|jobs| (jobs, report))
        .map_err(|e| e.to_string())
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
        assert_eq!(detect("foo,bar\n1,2\n"), Detection::Unknown("foo,bar".into()));
        assert_eq!(detect(""), Detection::Unknown(String::new()));
    }

    #[test]
    fn names_round_trip_through_serde() {
        for format in TraceFormat::ALL {
            let yaml = format.name().to_string();
            let parsed: TraceFormat = serde_saphyr::from_str(&yaml).unwrap();
            assert_eq!(parsed, format);
        }
    }
}
