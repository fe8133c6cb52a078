//! Pollux's (OSDI'21) workload generator: `simulator/workload.py` `generate(num_jobs, start,
//! duration, seed)` (github.com/petuum/adaptdl, branch `osdi21-artifact` @ c793c70, Apache-2.0),
//! reproducing its draws exactly; `docs/pollux-semantics.md` §8. With the defaults, seed `i` gives
//! the artifact's `workload-i.csv` (160 jobs; 80, 240 and 320 give the 0.5x, 1.5x and 2.0x files)
//! job for job, and `configurations: realistic` its `workloads-realistic/` files.
//!
//! Rule:
//! - the Philly table (`philly/pollux_philly.csv`) keeps the jobs of at least 60 s and under
//!   1,000 GPU-hours whose submission, `start_hour` hours earlier, falls in the first `hours`
//!   hours of its day (any day: the dates are dropped, so days fold into one window);
//! - three Python `random.Random` streams, seeded `seed`, `seed + 3` and `seed + 4`; the first
//!   draws `randint(0, 2^32)` as the seed of numpy's `RandomState`, whose permutation of the kept
//!   rows picks `num_jobs` of them (pandas' `DataFrame.sample`), in the permutation's order;
//! - per picked job, its arrival is its shifted time of day in seconds; its application by GPU
//!   time: under 1 h a `choice` of cifar10 or ncf, under 10 h deepspeech2, under 100 h yolov3, else
//!   imagenet (yolov3 and imagenet also draw a GPU count from the third stream, among the kept
//!   rows of at most 24 h in their GPU-time band); its GPUs and batch size a `choice` among the
//!   application's tuned configurations (`Application::tuned_configurations(0.5, 0.8)`); a
//!   deepspeech2 job becomes bert when the second stream's `randint(0, 1)` is 1, with a `choice`
//!   among bert's configurations from that stream;
//! - `configurations: realistic` (the two lines the artifact leaves commented out): the GPUs are
//!   the Philly job's (or the third stream's draw) and the batch the application's smallest
//!   validated batch times them; every draw is the same, so names and times equal the tuned
//!   variant's;
//! - jobs sorted by arrival (stable) and named `<application>-<rank>`.
//!
//! The tuned configurations come from the step times of the `pollux-profiles` dataset, so the
//! generator reads it besides the Philly table.

use super::WorkloadError;
use super::python_random::{NumpyRandomState, PyRandom};
use super::trace_workload::job_spec;
use super::{JobStream, Workload, WorkloadContext};
use crate::data;
use crate::policies::InputSource;
use crate::policies::pollux::profile::{Application, Profiles};
use crate::trace::TraceJob;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What `blox list` says about `pollux-generator`.
pub const SUMMARY: &str = "Pollux's workload.py: {num_jobs: 160} jobs sampled from the Philly table's jobs submitted in {hours: 8} hours from {start_hour: 2}, at the tuned (or {configurations: realistic}) GPUs and batch sizes; {seed} (default the grid's) i gives the artifact's workload-i";

/// The Philly job table the generator samples.
const PHILLY_TABLE: &str = "philly/pollux_philly.csv";
/// The application profiles the tuned configurations are computed from.
const PROFILES: &str = "pollux-profiles/traces/";
/// `get_configurations(0.5, 0.8)`: the scaling-efficiency band of a tuned GPU count.
const TUNED_EFFICIENCY: (f64, f64) = (0.5, 0.8);

/// The GPUs and batch size each job gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Configurations {
    /// The users' tuned GPU counts and batch sizes (the artifact's `workloads*/`).
    #[default]
    Tuned,
    /// The Philly job's GPU count, at the smallest validated batch per GPU
    /// (`workloads-realistic/`).
    Realistic,
}

/// `pollux-generator: {...}` in a spec's `workloads:`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolluxGeneratorParams {
    #[serde(default = "default_num_jobs")]
    pub num_jobs: u32,
    /// Hours subtracted from every submission before the window is taken (`-s`).
    #[serde(default = "default_start_hour")]
    pub start_hour: u32,
    /// The window's length from midnight, in hours (`-d`).
    #[serde(default = "default_hours")]
    pub hours: u32,
    /// The generator's seed (`--seed`); without it, the grid's seed.
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub configurations: Configurations,
    #[serde(default)]
    pub label: Option<String>,
}

fn default_num_jobs() -> u32 {
    160
}

fn default_start_hour() -> u32 {
    2
}

fn default_hours() -> u32 {
    8
}

impl Workload for PolluxGeneratorParams {
    fn label(&self) -> Option<String> {
        if let Some(label) = &self.label {
            return Some(label.clone());
        }
        let mut parts = Vec::new();
        if self.num_jobs != default_num_jobs() {
            parts.push(format!("n{}", self.num_jobs));
        }
        if (self.start_hour, self.hours) != (default_start_hour(), default_hours()) {
            parts.push(format!("h{}+{}", self.start_hour, self.hours));
        }
        if let Some(seed) = self.seed {
            parts.push(format!("s{seed}"));
        }
        if self.configurations == Configurations::Realistic {
            parts.push("realistic".into());
        }
        (!parts.is_empty()).then(|| format!("pollux-generator-{}", parts.join("-")))
    }

    fn explicit_label(&self) -> Option<&str> {
        self.label.as_deref()
    }

    fn needs_load(&self) -> bool {
        false
    }

    fn validate(&self) -> Result<(), String> {
        if self.num_jobs == 0 {
            return Err("pollux-generator: num_jobs must be at least 1".into());
        }
        if !(1..=24).contains(&self.hours) {
            return Err(format!("pollux-generator: hours must be 1 to 24, got {}", self.hours));
        }
        if self.start_hour >= 24 {
            return Err(format!("pollux-generator: start_hour must be 0 to 23, got {}", self.start_hour));
        }
        if self.seed.is_some_and(|seed| seed > u64::MAX - 4) {
            return Err(format!("pollux-generator: the seed must be at most {} (it also uses seed + 4)", u64::MAX - 4));
        }
        Ok(())
    }

    /// The Philly table it samples (the profiles, a second input, are read by every Pollux
    /// policy too, and fetched by the generator when missing).
    fn reads(&self) -> Option<InputSource> {
        Some(InputSource::Dataset(PHILLY_TABLE.into()))
    }

    fn job_count(&self) -> Option<u64> {
        Some(u64::from(self.num_jobs))
    }

    fn jobs(&self, context: &WorkloadContext<'_>) -> Result<JobStream, WorkloadError> {
        let fail = |e: String| WorkloadError::Prepare(format!("pollux-generator: {e}"));
        let options = data::FetchOptions::from_env(None).map_err(|e| fail(e.to_string()))?;
        let options = data::FetchOptions { quiet: true, ..options };
        let table_path =
            data::resolve(PHILLY_TABLE, &options).map_err(|e| fail(format!("dataset `{PHILLY_TABLE}`: {e}")))?;
        let table = std::fs::read_to_string(&table_path).map_err(|e| fail(format!("{}: {e}", table_path.display())))?;
        let table = PhillyTable::parse(&table, &table_path).map_err(fail)?;
        let profile_files =
            data::resolve_folder(PROFILES, &options).map_err(|e| fail(format!("dataset `{PROFILES}`: {e}")))?;
        let profiles = read_profiles(&profile_files).map_err(fail)?;
        let seed = self.seed.unwrap_or(context.seed);
        let jobs = generate(self, seed, &table, &profiles).map_err(fail)?;
        Ok(JobStream::generated(jobs.into_iter().enumerate().map(|(i, job)| job_spec(i as u64, job))))
    }
}

/// The profile files of a dataset folder, as [`Profiles::parse`] takes them.
fn read_profiles(files: &[(&str, PathBuf)]) -> Result<Profiles, String> {
    let contents = files
        .iter()
        .map(|(name, path)| {
            std::fs::read(path).map(|bytes| (*name, bytes)).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Profiles::parse(contents.iter().map(|(name, bytes)| (*name, bytes.as_slice())))
}

/// One job of the Philly table: submission as seconds since its day's midnight, and the columns
/// the generator reads.
#[derive(Debug, Clone, Copy)]
struct PhillyJob {
    time_of_day: u32,
    duration_s: f64,
    gpus: u32,
    gpu_time_s: f64,
}

/// The Philly table's rows in file order.
struct PhillyTable(Vec<PhillyJob>);

impl PhillyTable {
    /// `timestamp,duration,num_gpus,gpu_time,cluster` with `YYYY-MM-DD HH:MM:SS` timestamps; a
    /// malformed row is an error naming its line and column.
    fn parse(text: &str, path: &Path) -> Result<Self, String> {
        let mut lines = text.lines().enumerate();
        let header: Vec<&str> = lines.next().map(|(_, h)| h.split(',').map(str::trim).collect()).unwrap_or_default();
        let expected = ["timestamp", "duration", "num_gpus", "gpu_time", "cluster"];
        if header != expected {
            return Err(format!("{}:1: expected the columns {}", path.display(), expected.join(",")));
        }
        let mut jobs = Vec::new();
        for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let at =
                |column: &str, problem: String| format!("{}:{}: column `{column}`: {problem}", path.display(), i + 1);
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != expected.len() {
                return Err(format!("{}:{}: expected 5 fields, found {}", path.display(), i + 1, fields.len()));
            }
            let time_of_day = time_of_day(fields[0])
                .ok_or_else(|| at("timestamp", format!("expected YYYY-MM-DD HH:MM:SS, found `{}`", fields[0])))?;
            let number = |k: usize| {
                fields[k]
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| at(expected[k], format!("expected a number >= 0, found `{}`", fields[k])))
            };
            let gpus = fields[2]
                .parse::<u32>()
                .map_err(|_| at("num_gpus", format!("expected a whole number, found `{}`", fields[2])))?;
            jobs.push(PhillyJob { time_of_day, duration_s: number(1)?, gpus, gpu_time_s: number(3)? });
        }
        Ok(Self(jobs))
    }
}

/// Seconds since midnight of a `YYYY-MM-DD HH:MM:SS` timestamp (the date checked for shape only:
/// the generator drops it).
fn time_of_day(timestamp: &str) -> Option<u32> {
    let (date, time) = timestamp.split_once(' ')?;
    let date_ok = date.len() == 10
        && date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    let parts: Vec<u32> =
        time.split(':').map(|p| if p.len() == 2 { p.parse().ok() } else { None }).collect::<Option<_>>()?;
    match parts[..] {
        [h, m, s] if date_ok && h < 24 && m < 60 && s < 60 => Some(h * 3600 + m * 60 + s),
        _ => None,
    }
}

/// `generate(num_jobs, start_hour, hours, seed)`'s jobs in arrival order.
fn generate(
    params: &PolluxGeneratorParams,
    seed: u64,
    table: &PhillyTable,
    profiles: &Profiles,
) -> Result<Vec<TraceJob>, String> {
    const HOUR: f64 = 3600.0;
    const DAY: u32 = 86_400;
    let shift = params.start_hour * 3600;
    // Kept rows, each with its shifted time of day.
    let kept: Vec<(u32, PhillyJob)> = table
        .0
        .iter()
        .filter(|job| job.duration_s >= 60.0 && job.gpu_time_s < 1000.0 * HOUR)
        .map(|job| ((job.time_of_day + DAY - shift) % DAY, *job))
        .filter(|(time, _)| *time / 3600 < params.hours)
        .collect();
    let gpus_in_band = |low: f64, high: f64| -> Vec<u32> {
        kept.iter()
            .filter(|(_, job)| job.duration_s <= 24.0 * HOUR && job.gpu_time_s >= low && job.gpu_time_s < high)
            .map(|(_, job)| job.gpus)
            .collect()
    };
    let (yolov3_gpus, imagenet_gpus) =
        (gpus_in_band(10.0 * HOUR, 100.0 * HOUR), gpus_in_band(100.0 * HOUR, f64::INFINITY));
    let application = |name: &str| {
        profiles.index(name).map(|i| &profiles.applications[i]).ok_or_else(|| format!("the profiles have no `{name}`"))
    };
    let configurations = |app: &Application| app.tuned_configurations(TUNED_EFFICIENCY.0, TUNED_EFFICIENCY.1);

    let (mut rng, mut rng2, mut rng3) = (PyRandom::seed(seed), PyRandom::seed(seed + 3), PyRandom::seed(seed + 4));
    let numpy_seed = rng.randint(0, 1 << 32);
    let numpy_seed =
        u32::try_from(numpy_seed).map_err(|_| format!("seed {seed}: numpy refuses the sample's seed 2^32"))?;
    if params.num_jobs as usize > kept.len() {
        return Err(format!("num_jobs is {}, but only {} Philly jobs fall in the window", params.num_jobs, kept.len()));
    }
    let picks = NumpyRandomState::new(numpy_seed).permutation(kept.len());
    let mut records: Vec<(u32, &str, u32, u32)> = Vec::with_capacity(params.num_jobs as usize);
    for &row in &picks[..params.num_jobs as usize] {
        let (time, job) = kept[row];
        let (name, gpus) = if job.gpu_time_s < HOUR {
            (*rng.choice(&["cifar10", "ncf"]), job.gpus)
        } else if job.gpu_time_s < 10.0 * HOUR {
            ("deepspeech2", job.gpus)
        } else if job.gpu_time_s < 100.0 * HOUR {
            ("yolov3", *choose(&mut rng3, &yolov3_gpus)?)
        } else {
            ("imagenet", *choose(&mut rng3, &imagenet_gpus)?)
        };
        let app = application(name)?;
        let (mut name, mut app, (mut replicas, mut batch, _)) = (name, app, *choose(&mut rng, &configurations(app)?)?);
        if name == "deepspeech2" && rng2.randint(0, 1) == 1 {
            name = "bert";
            app = application(name)?;
            (replicas, batch, _) = *choose(&mut rng2, &configurations(app)?)?;
        }
        if params.configurations == Configurations::Realistic {
            if gpus == 0 {
                return Err(format!("a sampled Philly job arriving at {time} s has no GPU"));
            }
            replicas = gpus;
            batch = app.init_batch * gpus;
        }
        records.push((time, name, replicas, batch));
    }
    records.sort_by_key(|record| record.0);
    Ok(records
        .into_iter()
        .enumerate()
        .map(|(rank, (time, name, replicas, batch))| {
            let mut job = TraceJob::new(format!("{name}-{rank}"), f64::from(time), replicas);
            job.model = Some(name.to_string());
            job.batch_size = Some(batch);
            job
        })
        .collect())
}

/// `random.choice`, an error where Python raises on an empty list.
fn choose<'a, T>(rng: &mut PyRandom, items: &'a [T]) -> Result<&'a T, String> {
    if items.is_empty() {
        return Err("nothing to choose from (no Philly job in the band)".into());
    }
    Ok(rng.choice(items))
}
