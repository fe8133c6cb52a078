//! What every fuzz target does, so that the targets in `fuzz_targets/` are one line each.
//!
//! The readers' contract (crates/io/src/trace/formats/mod.rs): on any input, emit jobs or return a `TraceError`;
//! never panic, abort, hang or allocate without bound. libFuzzer catches the panics, aborts,
//! timeouts and out-of-memory; the checks here add what a successful read must satisfy.

use blox::trace::{ReadReport, TraceError, TraceFormat, TraceJob, read_trace};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file name every reader is given (only messages and the PAI job-table lookup use it).
pub const FILE: &str = "fuzz.trace";

/// Feeds `data` to `format`'s reader.
pub fn read_as(format: TraceFormat, data: &[u8]) {
    let file = Path::new(FILE);
    let mut report = ReadReport::default();
    let result = read_all(format, file, data, &mut report);
    check(format, file, result.as_ref().map(Vec::as_slice), &report);
}

/// Every job `format`'s reader emits from `data`, or its error.
fn read_all(format: TraceFormat, file: &Path, data: &[u8], report: &mut ReadReport) -> Result<Vec<TraceJob>, TraceError> {
    let mut jobs = Vec::new();
    format.read(file, Box::new(data), report, &mut |job| {
        jobs.push(job);
        Ok(())
    })?;
    Ok(jobs)
}

/// Alibaba PAI 2020: the task table is read from `data`, the job table from `pai_job_table.csv`
/// beside it. Without a NUL byte in `data` the job table is a small valid one, written once; with
/// one, the bytes before the first NUL are the job table and the bytes after it the task table, so
/// both readers are fuzzed.
pub fn read_pai(data: &[u8]) {
    let (dir, tasks) = match data.iter().position(|&b| b == 0) {
        None => (fixed_pai_dir(), data),
        Some(nul) => {
            let dir = scratch_dir("pai-fuzzed");
            if fs::write(dir.join("pai_job_table.csv"), &data[..nul]).is_err() {
                return;
            }
            (dir, &data[nul + 1..])
        }
    };
    let file = dir.join("pai_task_table.csv");
    let mut report = ReadReport::default();
    let result = read_all(TraceFormat::AlibabaPai2020, &file, tasks, &mut report);
    match &result {
        // A job-table error names the job table, which is not `file`.
        Err(e) if e.file.ends_with("pai_job_table.csv") => assert!(e.file.starts_with(&dir), "{e}"),
        _ => check(TraceFormat::AlibabaPai2020, &file, result.as_ref().map(Vec::as_slice), &report),
    }
}

/// Format detection on the head, then `read_trace` with auto-detection on a file holding `data`.
pub fn detect_and_read(data: &[u8]) {
    let detected = TraceFormat::detect(data);
    let file = scratch_dir("detect").join("trace");
    if fs::write(&file, data).is_err() {
        return;
    }
    match read_trace(&file, None) {
        Ok(trace) => {
            assert_eq!(detected, blox::trace::Detection::Format(trace.format));
            check(trace.format, &file, Ok(&trace.jobs), &trace.report);
            assert!(trace.jobs.windows(2).all(|w| w[0].submit_s <= w[1].submit_s), "not sorted by submission");
        }
        Err(e) => assert_eq!(e.file, file, "{e}"),
    }
}

/// What every read must satisfy: an error names the file; kept jobs are well-formed.
fn check(format: TraceFormat, file: &Path, result: Result<&[TraceJob], &TraceError>, report: &ReadReport) {
    let jobs = match result {
        Err(e) => {
            assert_eq!(e.file, file, "{e}");
            assert!(!e.message.is_empty(), "{e:?}");
            return;
        }
        Ok(jobs) => jobs,
    };
    let dropped: u64 = report.dropped.iter().map(|c| c.rows).sum();
    assert!(
        jobs.len() as u64 + dropped <= report.rows_read,
        "{}: {} jobs + {dropped} dropped > {} rows read",
        format.name(),
        jobs.len(),
        report.rows_read
    );
    for job in jobs {
        assert!(job.gpus >= 1, "{}: {job:?}", format.name());
        assert!(job.submit_s.is_finite() && job.submit_s >= 0.0, "{}: {job:?}", format.name());
        for x in [job.duration_s, job.iterations, job.deadline_s, job.gpu_share].into_iter().flatten() {
            assert!(x.is_finite() && x >= 0.0, "{}: {job:?}", format.name());
        }
    }
}

/// A directory of this process's own under the temporary directory.
fn scratch_dir(name: &str) -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    let root = ROOT.get_or_init(|| std::env::temp_dir().join(format!("blox-fuzz-{}", std::process::id())));
    let dir = root.join(name);
    if !dir.is_dir() {
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    }
    dir
}

/// A directory holding a small valid PAI job table, made once.
fn fixed_pai_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch_dir("pai-fixed");
        let jobs = "4f057009a5d481acec67b088,tensorflow,58540f191766,Terminated,1739162.0,1739200.0\n\
                    6a8a4f7b9b2c8d0e1f2a3b4c,worker,0e3d1c5b8a7f,Failed,1739100.0,1739300.0\n\
                    j1,i1,alice,Terminated,1000.0,9000.0\n";
        fs::write(dir.join("pai_job_table.csv"), jobs)
            .unwrap_or_else(|e| panic!("cannot write the PAI job table in {}: {e}", dir.display()));
        dir
    })
    .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One target per reader, named after the format, plus `detect`.
    #[test]
    fn every_format_has_a_target() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets");
        let mut found: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        found.sort();
        let mut expected: Vec<String> = TraceFormat::ALL.iter().map(|f| f.name().replace('-', "_")).collect();
        expected.push("detect".into());
        expected.sort();
        assert_eq!(found, expected);
    }
}
