//! `blox._blox`, the extension module behind the `blox` Python package: the command line
//! (`cli_main`), running a spec (`run`), what a results directory's grid holds
//! (`complete_runs`), the policy list, and round schedulers written in Python, registered under
//! a name that specs use and called in-process (`policy`).
//!
//! The Python package (`python/blox/`) wraps these in Python's idioms; nothing here is meant to
//! be called directly.

mod policy;

use blox::policies::Kind;
use blox::runner::{self, GridFile, RunnerOptions, Selection, SweepControl};
use blox::spec::{Spec, SpecError, SpecSource};
use blox::workload::WorkloadSpec;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// How often a waiting `run` looks at Python's signals (Ctrl-C) and the policies' stop flags.
const WAIT_STEP: Duration = Duration::from_millis(50);

/// Runs the `blox` command line on `argv` (the program's name first) and returns its exit status.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    let code = py.detach(|| blox::cli::main_from(argv));
    // `ExitCode` does not give its number back; blox's statuses are these.
    [0u8, 1, 2, 130].into_iter().find(|&n| ExitCode::from(n) == code).unwrap_or(1)
}

/// `blox.SpecError` from blox's own error (file, line, column, message).
fn spec_error(py: Python<'_>, error: &SpecError) -> PyErr {
    let (line, column) = error.position.map_or((None, None), |(line, column)| (Some(line), Some(column)));
    let made = py.import("blox._errors").and_then(|errors| {
        errors.getattr("SpecError")?.call1((
            error.to_string(),
            error.file.display().to_string(),
            line,
            column,
            error.message.clone(),
        ))
    });
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

/// `blox.BloxError`: anything else blox refuses (a workload it cannot read, a bad selection).
fn blox_error(py: Python<'_>, message: &str) -> PyErr {
    match py.import("blox._errors").and_then(|errors| errors.getattr("BloxError")?.call1((message,))) {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

fn source_of(text: String, file: String, base_dir: String) -> SpecSource {
    SpecSource { file: PathBuf::from(file), text, base_dir: PathBuf::from(base_dir) }
}

/// Parses and validates a spec; raises `blox.SpecError`.
#[pyfunction]
fn check_spec(py: Python<'_>, text: String, file: String, base_dir: String) -> PyResult<(String, usize)> {
    let source = source_of(text, file, base_dir);
    let spec = Spec::parse(&source).map_err(|e| spec_error(py, &e))?;
    let plans = runner::plan(&source, &spec).map_err(|e| blox_error(py, &e))?;
    Ok((spec.name.value.0.clone(), plans.len()))
}

/// Runs a spec as `blox run` does, into `out`, and returns what happened as a dict. The sweep
/// runs on threads of its own while this one waits without the GIL (Python policies take it
/// for each decision), looking at Ctrl-C every [`WAIT_STEP`]: the first one stops the runs, as
/// in the command line, and is raised as `KeyboardInterrupt` once they have stopped.
#[pyfunction]
#[pyo3(signature = (text, file, base_dir, out, *, threads=None, only=None, force=false, quiet=true, run_timeout_s=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: String,
    file: String,
    base_dir: String,
    out: String,
    threads: Option<usize>,
    only: Option<String>,
    force: bool,
    quiet: bool,
    run_timeout_s: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let source = source_of(text, file, base_dir);
    let spec = Spec::parse(&source).map_err(|e| spec_error(py, &e))?;
    let only = only.map(|text| text.parse::<Selection>()).transpose().map_err(|e| blox_error(py, &e))?;
    let run_timeout = match run_timeout_s {
        Some(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Some(Duration::from_secs_f64(s)),
        Some(s) => return Err(blox_error(py, &format!("timeout {s} is not a number of seconds from 0 to 1e9"))),
        None => None,
    };
    if threads == Some(0) {
        return Err(blox_error(py, "threads must be at least 1"));
    }
    let control = SweepControl { only, run_timeout, ..Default::default() };
    let options = RunnerOptions { out: PathBuf::from(out), threads, force, quiet };
    let mut interrupted: Option<PyErr> = None;
    let outcome = std::thread::scope(|scope| {
        let sweep = scope.spawn(|| {
            blox::cli::prepare(&source, &spec, quiet)?;
            runner::run_with(&source, &spec, &options, &control)
        });
        while !sweep.is_finished() {
            py.detach(|| std::thread::sleep(WAIT_STEP));
            if interrupted.is_none()
                && let Err(e) = py.check_signals()
            {
                control.interrupt.stop();
                interrupted = Some(e);
            }
            policy::interrupt_stopped_calls(py);
        }
        sweep.join()
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let report = match outcome {
        Ok(Ok(report)) => report,
        Ok(Err(message)) => return Err(blox_error(py, &message)),
        Err(_) => return Err(blox_error(py, "the sweep ended with an internal error (please report)")),
    };
    if report.interrupted {
        return Err(PyKeyboardInterrupt::new_err("the sweep was interrupted; rerun to resume"));
    }
    let result = PyDict::new(py);
    result.set_item("experiment_dir", report.experiment_dir.display().to_string())?;
    result.set_item("grid_size", report.grid_size)?;
    result.set_item("selected", report.selected)?;
    result.set_item("executed", report.executed)?;
    result.set_item("skipped", report.skipped)?;
    result.set_item("running_elsewhere", report.running_elsewhere.clone())?;
    result.set_item("failures", report.failures.clone())?;
    result.set_item("unreadable", report.unreadable.clone())?;
    let input_changed: Vec<(String, String)> =
        report.input_changed.runs.iter().map(|(key, reason)| (key.clone(), reason.to_string())).collect();
    result.set_item("input_changed", input_changed)?;
    let mut figures = Vec::new();
    let mut figure_errors = Vec::new();
    for figure in &report.figures {
        match figure {
            Ok(rendered) => figures.push((rendered.name.clone(), rendered.png.display().to_string())),
            Err(e) => figure_errors.push(e.to_string()),
        }
    }
    result.set_item("figures", figures)?;
    result.set_item("figure_errors", figure_errors)?;
    Ok(result)
}

/// Run keys of complete runs, and complete runs that cannot be read with why.
type CompleteRuns = (Vec<String>, Vec<(String, String)>);

/// The run keys of `experiment_dir`'s grid whose runs are complete, in grid order, and the
/// complete runs that cannot be read (key, error).
#[pyfunction]
fn complete_runs(py: Python<'_>, experiment_dir: PathBuf) -> PyResult<CompleteRuns> {
    let grid = GridFile::read(&experiment_dir).map_err(|e| blox_error(py, &e))?;
    let (rows, unreadable) =
        py.detach(|| runner::grid_rows(&experiment_dir, grid.runs.iter().map(|point| point.run_key.as_str())));
    Ok((rows.into_iter().map(|row| row.info.run_key).collect(), unreadable))
}

/// Every policy, built-in or registered, as dicts: kind, name, engine, summary, source, options.
#[pyfunction]
fn policies(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for kind in Kind::ALL {
        for info in kind.policies() {
            let entry = PyDict::new(py);
            entry.set_item("kind", kind_name(kind))?;
            entry.set_item("name", info.name)?;
            entry.set_item("engine", info.engine.name())?;
            entry.set_item("summary", info.summary)?;
            entry.set_item("source", info.source)?;
            let options = PyDict::new(py);
            for option in info.options {
                options.set_item(option.name, option.meaning)?;
            }
            entry.set_item("options", options)?;
            list.append(entry)?;
        }
    }
    Ok(list)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Scheduler => "scheduler",
        Kind::Placement => "placement",
        Kind::Admission => "admission",
        Kind::Overhead => "overhead",
    }
}

/// The workload generators and trace workloads: (name, summary).
#[pyfunction]
fn workloads() -> Vec<(&'static str, &'static str)> {
    WorkloadSpec::ALL.iter().map(|entry| (entry.name, entry.summary)).collect()
}

/// blox's build identity (version, commit, source hash).
#[pyfunction]
fn version() -> &'static str {
    blox::version::LONG_VERSION
}

#[pymodule]
fn _blox(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(check_spec, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(complete_runs, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(policy::register_scheduler, m)?)?;
    m.add_class::<policy::Job>()?;
    m.add_class::<policy::RunInfo>()?;
    Ok(())
}
