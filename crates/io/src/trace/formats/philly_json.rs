//! Microsoft Philly `cluster_job_log`, the raw job log of the Philly trace (Jeon et al., ATC'19).
//!
//! Source: github.com/msr-fiddle/philly-traces, `trace-data.tar.gz` (Git LFS; 6.6 GB extracted),
//! file `cluster_job_log`; the repository has no license file, its README asks users to cite the
//! ATC'19 paper and provides the trace "as is". 117,325 jobs submitted 2017-08-07..12-22. The file
//! is ONE JSON array of job objects, so it is streamed element by element, never loaded whole; an
//! element larger than 64 MiB is an error (a corrupt file), not an out-of-memory abort.
//!
//! Fields used (all others, such as `detail[].ip`, are skipped):
//! - `jobid`: the YARN application id, kept as `source_id`;
//! - `vc`: hash of the virtual cluster, kept as `vc`; `user`: hash of the user, kept as `user`;
//! - `status`: `Pass`, `Killed` or `Failed`, kept as `status` (transforms filter by status);
//! - `submitted_time`: `YYYY-MM-DD HH:MM:SS`; the earliest over the jobs with at least one attempt
//!   becomes time 0, as in Blox, so the kept jobs are collected and emitted after the last element;
//! - `attempts[]`: scheduling attempts, each with `start_time` and `end_time` (`YYYY-MM-DD
//!   HH:MM:SS`, or `"None"`/null when not recorded; a last attempt with a `None` end was still
//!   running at the snapshot) and `detail[]`, one entry per machine with the list `gpus` of the
//!   GPUs the attempt held there.
//!
//! Conversion, as Blox and Synergy parse the log (`workload/parse_philly_jobs.py`,
//! `sum_attempts=True`, see `docs/blox-semantics.md` §6.1): a job without attempts is dropped;
//! an attempt is usable when it has both times, lasted more than 0 s (`end - start`) and lists at
//! least one GPU (its demand is the number of GPUs over all machines of its `detail`); the job's
//! duration is the sum of its usable attempts' durations and its GPUs are those of its LAST
//! attempt; when the last attempt is unusable the job is dropped (counted by why), which also drops
//! every job with a duration <= 0 s or 0 GPUs. Unusable earlier attempts are left out of the sum
//! and the job is counted as adjusted. Blox's further filters are not applied here: its duration
//! window 1897.37 s < duration < 600,000 s ("gavel/gandiva like") and its 16-GPU cap in multi-GPU
//! mode are workload choices, done by transforms.

use super::{Detect, Emit, FormatInfo, Head, Layout, TraceFormat};
use crate::trace::input::{Errors, parse_datetime};
use crate::trace::{ReadReport, TraceError, TraceJob};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor};
use serde_json::error::Category;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, BufRead, Read};
use std::marker::PhantomData;
use std::path::Path;

pub const FORMAT: FormatInfo = FormatInfo {
    format: TraceFormat::PhillyJson,
    name: "philly-json",
    summary: "Philly cluster_job_log (msr-fiddle/philly-traces): JSON array, streamed; sum of attempts, GPUs of the last attempt",
    detect: Detect::Header(detect),
    read,
};

/// A JSON array of objects.
fn detect(head: &Head) -> bool {
    head.layout == Layout::JsonArray
}

/// The largest job object accepted. Real Philly jobs are a few KiB; a larger element means the
/// file is corrupt or not a job log.
const MAX_ELEMENT_BYTES: u64 = 64 << 20;

pub fn read(
    file: &Path,
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    read_bounded(file, input, report, MAX_ELEMENT_BYTES, emit)
}

fn read_bounded(
    file: &Path,
    mut input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    max_element: u64,
    emit: &mut Emit<'_>,
) -> Result<(), TraceError> {
    let errors = Errors::new(file);
    // serde_json rejects a byte-order mark; the format detector skips it too.
    if input.fill_buf().map_err(|e| errors.io(&e))?.starts_with(b"\xEF\xBB\xBF") {
        input.consume(3);
    }
    let budget = Budget { max: max_element, read: Cell::new(0), element_start: Cell::new(0), lines: Cell::new(0) };
    let path = FieldPath::default();
    let mut jobs = Jobs { path: &path, budget: &budget, report, kept: Vec::new(), origin: None };
    let mut deserializer = serde_json::Deserializer::from_reader(Bounded { inner: input, budget: &budget });
    (&mut jobs).deserialize(&mut deserializer).map_err(|e| json_error(&errors, &path, e))?;
    deserializer.end().map_err(|e| json_error(&errors, &path, e))?;
    let origin = jobs.origin.unwrap_or(0);
    for (mut job, submitted) in jobs.kept {
        job.submit_s = (submitted - origin) as f64;
        emit(job)?;
    }
    Ok(())
}

/// The top-level array: each element is parsed, converted and dropped before the next is read.
struct Jobs<'a> {
    path: &'a FieldPath,
    budget: &'a Budget,
    report: &'a mut ReadReport,
    /// Kept jobs with their submission time in seconds since 1970 (rebased at the end).
    kept: Vec<(TraceJob, i64)>,
    /// Earliest submission of a job with at least one attempt.
    origin: Option<i64>,
}

impl Jobs<'_> {
    fn add(&mut self, raw: RawJob) {
        let Some(last) = raw.attempts.last() else {
            self.report.drop_row(FORMAT.name, "no attempts (the job never ran)");
            return;
        };
        self.origin = Some(self.origin.map_or(raw.submitted, |o| o.min(raw.submitted)));
        let gpus = match last.usable() {
            Ok((_, gpus)) => gpus,
            Err(why) => {
                self.report.drop_row(FORMAT.name, why.of_last_attempt());
                return;
            }
        };
        let mut seconds = 0;
        let mut skipped = false;
        for attempt in &raw.attempts {
            match attempt.usable() {
                Ok((s, _)) => seconds += s,
                Err(_) => skipped = true,
            }
        }
        if skipped {
            self.report.adjust_rows(
                FORMAT.name,
                "earlier attempts without times, lasting <= 0 s or without GPUs left out of the duration",
                1,
            );
        }
        let mut job = TraceJob::new(raw.jobid, 0.0, gpus);
        job.duration_s = Some(seconds as f64);
        job.user = raw.user;
        job.vc = raw.vc;
        job.status = raw.status;
        self.kept.push((job, raw.submitted));
    }
}

impl<'de> DeserializeSeed<'de> for &mut Jobs<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for &mut Jobs<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON array of Philly job objects (cluster_job_log)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            self.budget.start_element();
            let Some(job) = seq.next_element_seed(JobSeed { path: self.path })? else {
                return Ok(());
            };
            self.report.rows_read += 1;
            self.add(job);
        }
    }
}

/// The fields of one job that the conversion uses.
struct RawJob {
    jobid: String,
    vc: Option<String>,
    user: Option<String>,
    status: Option<String>,
    /// Seconds since 1970-01-01 (local time of the log).
    submitted: i64,
    attempts: Vec<RawAttempt>,
}

struct RawAttempt {
    start: Option<i64>,
    end: Option<i64>,
    /// GPUs over all machines of the attempt's `detail`.
    gpus: u32,
}

/// Why Blox skips an attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unusable {
    NoTime,
    NotPositive,
    NoGpus,
}

impl Unusable {
    fn of_last_attempt(self) -> &'static str {
        match self {
            Unusable::NoTime => "last attempt without a start or end time (`None`: still running at the snapshot)",
            Unusable::NotPositive => "last attempt lasted 0 s or less",
            Unusable::NoGpus => "last attempt lists no GPUs",
        }
    }
}

impl RawAttempt {
    /// Seconds and GPUs of an attempt Blox counts, or why it does not.
    fn usable(&self) -> Result<(i64, u32), Unusable> {
        let (Some(start), Some(end)) = (self.start, self.end) else {
            return Err(Unusable::NoTime);
        };
        if end <= start {
            Err(Unusable::NotPositive)
        } else if self.gpus == 0 {
            Err(Unusable::NoGpus)
        } else {
            Ok((end - start, self.gpus))
        }
    }
}

/// Counts the bytes read, failing once one array element exceeds `max` bytes, and counts lines
/// for that error (serde_json's own line count is only attached to its parse errors).
struct Budget {
    max: u64,
    read: Cell<u64>,
    element_start: Cell<u64>,
    lines: Cell<u64>,
}

impl Budget {
    fn start_element(&self) {
        self.element_start.set(self.read.get());
    }
}

struct Bounded<'b, R> {
    inner: R,
    budget: &'b Budget,
}

impl<R: BufRead> Read for Bounded<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let budget = self.budget;
        budget.read.set(budget.read.get() + n as u64);
        budget.lines.set(budget.lines.get() + buf[..n].iter().filter(|&&b| b == b'\n').count() as u64);
        if budget.read.get() - budget.element_start.get() > budget.max {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                ElementTooLarge { line: budget.lines.get() + 1, max: budget.max },
            ));
        }
        Ok(n)
    }
}

/// The error [`Bounded`] raises, on the line where the limit was crossed.
#[derive(Debug)]
struct ElementTooLarge {
    line: u64,
    max: u64,
}

impl fmt::Display for ElementTooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "an element of the JSON array is larger than {} MiB; this is not a Philly job log (or the file is corrupt)",
            self.max >> 20
        )
    }
}

impl std::error::Error for ElementTooLarge {}

/// Where in the current job object the parser is, for error messages: `attempts[1].detail[0].gpus`.
/// Steps are pushed before a value is parsed and popped after it parsed, so after an error the
/// path names the value that failed.
#[derive(Default)]
struct FieldPath(RefCell<Vec<Step>>);

#[derive(Clone, Copy)]
enum Step {
    Field(&'static str),
    Index(usize),
}

impl FieldPath {
    fn enter(&self, step: Step) {
        self.0.borrow_mut().push(step);
    }

    fn leave(&self) {
        self.0.borrow_mut().pop();
    }

    /// The path as a column name, `None` outside any job object.
    fn column(&self) -> Option<String> {
        let steps = self.0.borrow();
        let mut out = String::new();
        for step in steps.iter() {
            match step {
                Step::Field(name) if out.is_empty() => out.push_str(name),
                Step::Field(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// Parses the value of field `name` into `slot`, tracking the path; a repeated field is an error.
fn field<'de, A: MapAccess<'de>, S: DeserializeSeed<'de>>(
    map: &mut A,
    path: &FieldPath,
    name: &'static str,
    slot: &mut Option<S::Value>,
    seed: S,
) -> Result<(), A::Error> {
    path.enter(Step::Field(name));
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    path.leave();
    Ok(())
}

/// The value of a required field, or a "missing field" error located at it.
fn required<T, E: de::Error>(slot: Option<T>, path: &FieldPath, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| {
        path.enter(Step::Field(name));
        E::missing_field(name)
    })
}

#[derive(Clone, Copy)]
struct JobSeed<'p> {
    path: &'p FieldPath,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum JobKey {
    Jobid,
    Vc,
    User,
    Status,
    SubmittedTime,
    Attempts,
    #[serde(other)]
    Other,
}

impl<'de> DeserializeSeed<'de> for JobSeed<'_> {
    type Value = RawJob;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawJob, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for JobSeed<'_> {
    type Value = RawJob;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job object with jobid, submitted_time and attempts")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawJob, A::Error> {
        let path = self.path;
        let (mut jobid, mut vc, mut user, mut status, mut submitted, mut attempts) =
            (None, None, None, None, None, None);
        while let Some(key) = map.next_key::<JobKey>()? {
            match key {
                JobKey::Jobid => field(&mut map, path, "jobid", &mut jobid, PhantomData::<String>)?,
                JobKey::Vc => field(&mut map, path, "vc", &mut vc, PhantomData::<Option<String>>)?,
                JobKey::User => field(&mut map, path, "user", &mut user, PhantomData::<Option<String>>)?,
                JobKey::Status => field(&mut map, path, "status", &mut status, PhantomData::<Option<String>>)?,
                JobKey::SubmittedTime => {
                    field(&mut map, path, "submitted_time", &mut submitted, Time)?;
                }
                JobKey::Attempts => {
                    let seed = List { path, item: AttemptSeed { path }, what: "a list of attempts" };
                    field(&mut map, path, "attempts", &mut attempts, seed)?;
                }
                JobKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(RawJob {
            jobid: required(jobid, path, "jobid")?,
            vc: vc.flatten(),
            user: user.flatten(),
            status: status.flatten(),
            submitted: required(submitted, path, "submitted_time")?,
            attempts: required(attempts, path, "attempts")?,
        })
    }
}

#[derive(Clone, Copy)]
struct AttemptSeed<'p> {
    path: &'p FieldPath,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum AttemptKey {
    StartTime,
    EndTime,
    Detail,
    #[serde(other)]
    Other,
}

impl<'de> DeserializeSeed<'de> for AttemptSeed<'_> {
    type Value = RawAttempt;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawAttempt, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AttemptSeed<'_> {
    type Value = RawAttempt;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an attempt object with start_time, end_time and detail")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawAttempt, A::Error> {
        let path = self.path;
        let (mut start, mut end, mut detail) = (None, None, None);
        while let Some(key) = map.next_key::<AttemptKey>()? {
            match key {
                AttemptKey::StartTime => field(&mut map, path, "start_time", &mut start, MaybeTime)?,
                AttemptKey::EndTime => field(&mut map, path, "end_time", &mut end, MaybeTime)?,
                AttemptKey::Detail => {
                    let seed = List { path, item: MachineSeed { path }, what: "a list of machines" };
                    field(&mut map, path, "detail", &mut detail, seed)?;
                }
                AttemptKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let start = required(start, path, "start_time")?;
        let end = required(end, path, "end_time")?;
        let machines: Vec<u32> = required(detail, path, "detail")?;
        let mut gpus: u32 = 0;
        for n in machines {
            gpus = gpus.checked_add(n).ok_or_else(|| de::Error::custom("the attempt lists too many GPUs"))?;
        }
        Ok(RawAttempt { start, end, gpus })
    }
}

/// One `detail` entry: a machine and the GPUs the attempt held on it; its value is the count.
#[derive(Clone, Copy)]
struct MachineSeed<'p> {
    path: &'p FieldPath,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum MachineKey {
    Gpus,
    #[serde(other)]
    Other,
}

impl<'de> DeserializeSeed<'de> for MachineSeed<'_> {
    type Value = u32;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<u32, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MachineSeed<'_> {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a machine object with ip and gpus")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u32, A::Error> {
        let path = self.path;
        let mut gpus = None;
        while let Some(key) = map.next_key::<MachineKey>()? {
            match key {
                MachineKey::Gpus => {
                    let seed = List { path, item: PhantomData::<GpuName>, what: "a list of GPU names" };
                    field(&mut map, path, "gpus", &mut gpus, seed)?;
                }
                MachineKey::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let gpus: Vec<GpuName> = required(gpus, path, "gpus")?;
        u32::try_from(gpus.len()).map_err(|_| de::Error::custom("the machine lists too many GPUs"))
    }
}

/// A GPU name such as `"gpu0"`; only the count matters, so nothing is kept.
struct GpuName;

impl<'de> Deserialize<'de> for GpuName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<GpuName, D::Error> {
        deserializer.deserialize_str(GpuNameVisitor)
    }
}

struct GpuNameVisitor;

impl Visitor<'_> for GpuNameVisitor {
    type Value = GpuName;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GPU name such as \"gpu0\"")
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<GpuName, E> {
        Ok(GpuName)
    }
}

/// A JSON array whose elements are parsed by `item`, tracking the index in the path.
#[derive(Clone, Copy)]
struct List<'p, S> {
    path: &'p FieldPath,
    item: S,
    what: &'static str,
}

impl<'de, S: DeserializeSeed<'de> + Copy> DeserializeSeed<'de> for List<'_, S> {
    type Value = Vec<S::Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, S: DeserializeSeed<'de> + Copy> Visitor<'de> for List<'_, S> {
    type Value = Vec<S::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        loop {
            self.path.enter(Step::Index(out.len()));
            let item = seq.next_element_seed(self.item)?;
            self.path.leave();
            match item {
                Some(value) => out.push(value),
                None => return Ok(out),
            }
        }
    }
}

/// A `YYYY-MM-DD HH:MM:SS` time, in seconds since 1970.
#[derive(Clone, Copy)]
struct Time;

impl<'de> DeserializeSeed<'de> for Time {
    type Value = i64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i64, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Time {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a time `YYYY-MM-DD HH:MM:SS`")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<i64, E> {
        parse_datetime(text).ok_or_else(|| E::invalid_value(Unexpected::Str(text), &self))
    }
}

/// A [`Time`], or `None` for the string `"None"` or null (an attempt time not recorded).
#[derive(Clone, Copy)]
struct MaybeTime;

impl<'de> DeserializeSeed<'de> for MaybeTime {
    type Value = Option<i64>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<i64>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for MaybeTime {
    type Value = Option<i64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a time `YYYY-MM-DD HH:MM:SS`, \"None\" or null")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<i64>, E> {
        if text == "None" {
            return Ok(None);
        }
        parse_datetime(text).map(Some).ok_or_else(|| E::invalid_value(Unexpected::Str(text), &self))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<i64>, E> {
        Ok(None)
    }
}

/// A serde_json error as a [`TraceError`]: its line, the JSON field in `column` and, in the
/// message, the character of the line where the parser stopped (at or just after the bad value;
/// the real log may be a single line).
fn json_error(errors: &Errors, path: &FieldPath, e: serde_json::Error) -> TraceError {
    let line = u64::try_from(e.line()).ok().filter(|&l| l > 0);
    let column = path.column();
    let character = e.column();
    let position = format!(" at line {} column {character}", e.line());
    let category = e.classify();
    if category == Category::Io {
        let io = io::Error::from(e);
        return match io.get_ref().and_then(|inner| inner.downcast_ref::<ElementTooLarge>()) {
            Some(large) => errors.at(Some(large.line), None, large.to_string()),
            None => errors.io(&io),
        };
    }
    let text = e.to_string();
    let message = text.strip_suffix(&position).unwrap_or(&text);
    let message = if category == Category::Eof {
        format!("the JSON ends early ({message}); is the file truncated?")
    } else {
        format!("{message} (near character {character})")
    };
    errors.at(line, column.as_deref(), message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::formats::collect;

    fn read_str(text: &str) -> Result<(Vec<TraceJob>, ReadReport), String> {
        crate::trace::formats::read_text(crate::trace::formats::TraceFormat::PhillyJson, "j.json", text)
    }

    fn attempt(start: &str, end: &str, machines: &[usize]) -> String {
        let detail: Vec<String> = machines
            .iter()
            .enumerate()
            .map(|(m, &n)| {
                let gpus: Vec<String> = (0..n).map(|g| format!("\"gpu{g}\"")).collect();
                format!("{{\"ip\": \"m{m}\", \"gpus\": [{}]}}", gpus.join(", "))
            })
            .collect();
        format!("{{\"start_time\": {start}, \"end_time\": {end}, \"detail\": [{}]}}", detail.join(", "))
    }

    fn job(id: &str, submitted: &str, attempts: &[String]) -> String {
        format!(
            "{{\"status\": \"Pass\", \"vc\": \"ee9e8c\", \"jobid\": \"{id}\", \"attempts\": [{}], \"submitted_time\": \"{submitted}\", \"user\": \"ce2f4c\"}}",
            attempts.join(", ")
        )
    }

    /// The README's example job: two 8-GPU attempts of 74 s and 193,182 s. The processed Philly
    /// table of the Pollux artifact has it as `2017-10-07 01:11:39,193256.0,8,...`.
    #[test]
    fn the_readme_example_sums_its_attempts() {
        let text = format!(
            "[{}]",
            job(
                "application_1506638472019_14199",
                "2017-10-07 01:11:39",
                &[
                    attempt("\"2017-10-07 01:12:09\"", "\"2017-10-07 01:13:23\"", &[8]),
                    attempt("\"2017-10-07 01:13:30\"", "\"2017-10-09 06:53:12\"", &[8]),
                ],
            )
        );
        let (jobs, report) = read_str(&text).unwrap();
        assert_eq!(report.rows_read, 1);
        let j = &jobs[0];
        assert_eq!(j.source_id, "application_1506638472019_14199");
        assert_eq!((j.submit_s, j.gpus, j.duration_s), (0.0, 8, Some(193256.0)));
        assert_eq!(
            (j.vc.as_deref(), j.user.as_deref(), j.status.as_deref()),
            (Some("ee9e8c"), Some("ce2f4c"), Some("Pass"))
        );
        assert_eq!(j.gpu_share, None);
    }

    #[test]
    fn attempts_follow_the_blox_convention() {
        let t = |s: &str| format!("\"2017-10-01 {s}\"");
        let jobs = [
            // No attempts: dropped, and its earlier submission does not set the origin.
            job("none", "2017-09-30 00:00:00", &[]),
            // 2 GPUs on one machine, then 4 + 4 over two machines: 8 GPUs of the last attempt.
            job(
                "multi",
                "2017-10-01 00:00:00",
                &[
                    attempt(&t("00:00:10"), &t("00:01:10"), &[2]),
                    attempt("\"None\"", "null", &[]),
                    attempt(&t("01:00:00"), &t("02:00:00"), &[4, 4]),
                ],
            ),
            job("running", "2017-10-01 00:30:00", &[attempt(&t("00:31:00"), "\"None\"", &[1])]),
            job("zero", "2017-10-01 00:40:00", &[attempt(&t("00:41:00"), &t("00:41:00"), &[1])]),
            job("nogpu", "2017-10-01 00:50:00", &[attempt(&t("00:51:00"), &t("00:52:00"), &[])]),
            job("single", "2017-10-01 01:00:00", &[attempt(&t("01:00:05"), &t("01:01:05"), &[1])]),
        ];
        let (jobs, report) = read_str(&format!("[{}]", jobs.join(",\n"))).unwrap();
        assert_eq!(
            jobs.iter().map(|j| (j.source_id.as_str(), j.submit_s, j.gpus, j.duration_s)).collect::<Vec<_>>(),
            [("multi", 0.0, 8, Some(3660.0)), ("single", 3600.0, 1, Some(60.0))]
        );
        assert_eq!(report.rows_read, 6);
        let dropped: Vec<(&str, u64)> = report.dropped.iter().map(|c| (c.reason.as_str(), c.rows)).collect();
        assert_eq!(
            dropped,
            [
                ("no attempts (the job never ran)", 1),
                ("last attempt without a start or end time (`None`: still running at the snapshot)", 1),
                ("last attempt lasted 0 s or less", 1),
                ("last attempt lists no GPUs", 1),
            ]
        );
        assert_eq!(report.adjusted.len(), 1);
        assert_eq!(report.adjusted[0].rows, 1);
        assert!(report.dropped.iter().all(|c| c.step == "philly-json"));
    }

    #[test]
    fn an_empty_array_and_a_byte_order_mark_are_fine() {
        assert_eq!(read_str(" [ ] ").unwrap().0.len(), 0);
        let text = format!("\u{feff}[{}]", job("a", "2017-10-01 00:00:00", &[]));
        assert_eq!(read_str(&text).unwrap().1.rows_read, 1);
    }

    #[test]
    fn structural_problems_name_line_and_field() {
        let good =
            job("a", "2017-10-01 00:00:00", &[attempt("\"2017-10-01 00:00:10\"", "\"2017-10-01 00:01:10\"", &[1])]);
        let cases = [
            (
                "{\"jobs\": []}".to_string(),
                "j.json:1: invalid type: map, expected a JSON array of Philly job objects (cluster_job_log) (near character 1)",
            ),
            (format!("[{good},\n"), "j.json:2: the JSON ends early (EOF while parsing a value); is the file truncated?"),
            (
                format!("[{}", &good[..60]),
                "j.json:1: column `attempts`: the JSON ends early (EOF while parsing a value); is the file truncated?",
            ),
            (
                "[\n{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\",\n \"attempts\": [{\"start_time\": \"None\", \"end_time\": \"None\", \"detail\": [{\"ip\": \"m1\", \"gpus\": \"four\"}]}]}]".to_string(),
                "j.json:3: column `attempts[0].detail[0].gpus`: invalid type: string \"four\", expected a list of GPU names (near character 95)",
            ),
            (
                "[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": [{\"start_time\": \"None\", \"end_time\": \"None\", \"detail\": [{\"gpus\": [0]}]}]}]".to_string(),
                "j.json:1: column `attempts[0].detail[0].gpus[0]`: invalid type: integer `0`, expected a GPU name such as \"gpu0\" (near character 136)",
            ),
            (
                "[{\"jobid\": \"a\", \"submitted_time\": \"2017-13-01 00:00:00\", \"attempts\": []}]".to_string(),
                "j.json:1: column `submitted_time`: invalid value: string \"2017-13-01 00:00:00\", expected a time `YYYY-MM-DD HH:MM:SS` (near character 55)",
            ),
            (
                "[{\"jobid\": \"a\", \"submitted_time\": \"None\", \"attempts\": []}]".to_string(),
                "j.json:1: column `submitted_time`: invalid value: string \"None\", expected a time `YYYY-MM-DD HH:MM:SS` (near character 40)",
            ),
            (
                "[{\"jobid\": 7, \"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []}]".to_string(),
                "j.json:1: column `jobid`: invalid type: integer `7`, expected a string (near character 13)",
            ),
            (
                "[{\"submitted_time\": \"2017-10-01 00:00:00\", \"attempts\": []}]".to_string(),
                "j.json:1: column `jobid`: missing field `jobid` (near character 58)",
            ),
            (
                "[{\"jobid\": \"a\", \"jobid\": \"b\"}]".to_string(),
                "j.json:1: column `jobid`: duplicate field `jobid` (near character 24)",
            ),
            ("[3]".to_string(), "j.json:1: invalid type: integer `3`, expected a job object with jobid, submitted_time and attempts (near character 3)"),
            ("[] x".to_string(), "j.json:1: trailing characters (near character 4)"),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .map(|(text, expected)| (text, expected, read_str(text).unwrap_err()))
            .filter(|(_, expected, found)| found != *expected)
            .map(|(text, expected, found)| format!("{text}\n  expected {expected}\n  found    {found}"))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn an_element_larger_than_the_bound_is_an_error() {
        let small = job("a", "2017-10-01 00:00:00", &[]);
        let large = job(&"x".repeat(5000), "2017-10-01 00:00:00", &[]);
        let text = format!("[{small},\n{small},\n{large}]");
        let mut report = ReadReport::default();
        let err =
            collect(|emit| read_bounded(Path::new("j.json"), Box::new(text.as_bytes()), &mut report, 1 << 12, emit))
                .unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.starts_with("an element of the JSON array is larger than"), "{err}");
        assert_eq!(report.rows_read, 2);
    }

    /// Writes `[job, job, ...]` on demand, so the input never exists as one string.
    struct Generated {
        jobs: usize,
        next: usize,
        pending: Vec<u8>,
    }

    impl Read for Generated {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.pending.is_empty() && self.next <= self.jobs {
                let i = self.next;
                self.pending = match i {
                    0 => b"[".to_vec(),
                    _ => {
                        let gpus = 1 << (i % 4);
                        let a = attempt(
                            "\"2017-10-01 00:00:00\"",
                            &format!("\"2017-10-01 00:{:02}:00\"", i % 59 + 1),
                            &[gpus],
                        );
                        let sep = if i == self.jobs { "]" } else { ",\n" };
                        format!("{}{sep}", job(&format!("job{i}"), "2017-10-01 00:00:00", &[a])).into_bytes()
                    }
                };
                self.next += 1;
            }
            let n = buf.len().min(self.pending.len());
            buf[..n].copy_from_slice(&self.pending[..n]);
            self.pending.drain(..n);
            Ok(n)
        }
    }

    #[test]
    fn a_long_array_is_streamed_element_by_element() {
        let jobs = 100_000;
        let input = io::BufReader::new(Generated { jobs, next: 0, pending: Vec::new() });
        let mut report = ReadReport::default();
        // Each element is under 1 KiB; the whole array is about 20 MB.
        let read =
            collect(|emit| read_bounded(Path::new("g.json"), Box::new(input), &mut report, 1 << 10, emit)).unwrap();
        assert_eq!((read.len(), report.rows_read), (jobs, jobs as u64));
        assert_eq!((read[0].source_id.as_str(), read[0].gpus, read[0].duration_s), ("job1", 2, Some(120.0)));
        assert_eq!(read[jobs - 1].source_id, format!("job{jobs}"));
    }
}
