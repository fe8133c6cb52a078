//! Every file under `../shared/traces` is either read as a trace (format recognised from its
//! header, no error) or named as the known non-trace it is (cluster spec, throughput table,
//! simulator log, ...). Only prose (READMEs, licenses) is unrecognised.

use blox::trace::{Detection, TraceFormat, read_trace};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files(&path, out) } else { out.push(path) }
    }
}

#[test]
fn every_shared_file_is_a_trace_or_a_named_non_trace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    let mut all = Vec::new();
    files(&root, &mut all);
    all.sort();
    let (mut traces, mut jobs, mut non_traces) = (0, 0, 0);
    for path in &all {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let prose = matches!(path.file_name().and_then(|n| n.to_str()), Some("README.md" | "LICENSE"));
        let head = std::fs::read(path).unwrap();
        match TraceFormat::detect(&head[..head.len().min(64 * 1024)]) {
            Detection::Format(format) => {
                let trace = read_trace(path, None).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(trace.format, format, "{name}");
                assert!(!trace.jobs.is_empty(), "{name}: no jobs");
                assert_eq!(trace.report.rows_read, trace.jobs.len() as u64 + trace.report.total_dropped(), "{name}");
                traces += 1;
                jobs += trace.jobs.len();
            }
            Detection::NotATrace(what) => {
                assert!(!prose, "{name} taken for {what}");
                let err = read_trace(path, None).unwrap_err().to_string();
                assert!(err.contains("not a job trace"), "{name}: {err}");
                non_traces += 1;
            }
            Detection::Unknown(header) => assert!(prose, "{name}: unrecognised header `{header}`"),
        }
    }
    // The counts of `shared/traces` when this was written: they guard against a detector that
    // silently stops recognising a whole family of files.
    assert_eq!((traces, non_traces, jobs), (87, 124, 308_401), "traces, non-traces, jobs");
}
