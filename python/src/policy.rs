//! Round schedulers written in Python, called in-process.
//!
//! `register_scheduler(name, factory, summary, source)` adds a descriptor to blox's registry
//! ([`blox::plugin::register`]) like a built-in's: specs name it (`scheduler: my-las`,
//! `{my-las: {option: value}}`), `blox.list()` shows it. Parsing a spec checks the options
//! against the factory's signature (a Python `TypeError` becomes a spec error at the options'
//! line); each run calls `factory(**options)` for its own instance, then `start(run)` if the
//! instance has one, then `order(now, jobs)` at every round with the active jobs as [`Job`]s
//! (the fields of the external protocol's decision message, `docs/external-policy.md`), in the
//! previous round's order with new jobs appended. The answer is every active job's id once,
//! most entitled first, checked as the external protocol's is.
//!
//! A run holds the GIL only during its calls (building the instance, `start`, each `order`), so
//! runs without Python policies are not slowed and Python ones take turns. A Python exception
//! fails its run with the policy's name and the traceback; a call still going when the run is
//! stopped (Ctrl-C, the run's time limit) is interrupted by an exception raised in its thread
//! ([`interrupt_stopped_calls`]).

use blox::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime, StopFlag};
use blox::policies::node::{NodeError, PolicyNode};
use blox::policies::{BuildContext, Built, Engine, Kind, Params, PolicyConfig, PolicyInfo};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// An active job as the scheduler sees it at a decision: the fields of the external protocol's
/// decision message (docs/external-policy.md).
#[pyclass(frozen, module = "blox", get_all)]
pub struct Job {
    /// The job's id in its workload (0, 1, ... in arrival order).
    id: u64,
    /// GPUs it asks for (gang-scheduled).
    gpus: u32,
    /// Submission time, s.
    submitted: f64,
    /// Total work, in seconds of running at profiled speed (an oracle value).
    work: f64,
    /// Work done so far.
    executed_work: f64,
    /// Seconds the job has held GPUs.
    attained_service: f64,
    /// Whether it holds GPUs now.
    running: bool,
    /// Whether the starvation guard promoted it.
    promoted: bool,
    /// Times it lost its GPUs.
    preemptions: u32,
}

#[pymethods]
impl Job {
    fn __repr__(&self) -> String {
        format!(
            "Job(id={}, gpus={}, submitted={}, work={}, executed_work={}, attained_service={}, running={}, \
             promoted={}, preemptions={})",
            self.id,
            self.gpus,
            self.submitted,
            self.work,
            self.executed_work,
            self.attained_service,
            py_bool(self.running),
            py_bool(self.promoted),
            self.preemptions
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

/// What a run tells its scheduler once, before the first decision (the external protocol's
/// greeting, plus the grid point's load and seed).
#[pyclass(frozen, module = "blox", get_all)]
pub struct RunInfo {
    /// Seconds between decisions.
    round_s: f64,
    total_gpus: u64,
    /// GPUs of each node, node ids following the list.
    gpus_per_node: Vec<u32>,
    /// The offered load (jobs per hour), when the workload has one.
    load: Option<f64>,
    /// The grid point's seed.
    seed: u64,
}

#[pymethods]
impl RunInfo {
    fn __repr__(&self) -> String {
        format!(
            "RunInfo(round_s={}, total_gpus={}, gpus_per_node={:?}, load={}, seed={})",
            self.round_s,
            self.total_gpus,
            self.gpus_per_node,
            self.load.map_or("None".to_string(), |l| l.to_string()),
            self.seed
        )
    }
}

/// The descriptors this process registered, by name, so that registering a name again (a
/// notebook cell run twice) replaces its policy instead of clashing with it.
static REGISTERED: Mutex<Option<HashMap<String, &'static PolicyInfo>>> = Mutex::new(None);

/// Option names as run keys record them (`Params` keys are static): each distinct name once.
/// The parameter under which the package's check records the policy's code (`blox._policies`).
const IDENTITY: &str = "python";

static OPTION_NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

fn option_name(name: &str) -> &'static str {
    let mut names = OPTION_NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    match names.get(name) {
        Some(&known) => known,
        None => {
            let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
            names.insert(leaked);
            leaked
        }
    }
}

/// Registers `factory` as the round scheduler `name`. `check` is the package's options check:
/// `check(factory, options) -> params` raises `TypeError` when the factory does not take
/// `options`, and returns the canonical parameters run keys hash (the options plus the class's
/// identity and source digest).
#[pyfunction]
pub fn register_scheduler(name: String, factory: Py<PyAny>, summary: String, check: Py<PyAny>) -> PyResult<()> {
    let mut registered = REGISTERED.lock().unwrap_or_else(|e| e.into_inner());
    let registered = registered.get_or_insert_with(HashMap::new);
    let previous = registered.get(&name).copied();
    let leaked_name: &'static str = match previous {
        Some(info) => info.name,
        None => Box::leak(name.clone().into_boxed_str()),
    };
    let factory = Arc::new(factory);
    let check = Arc::new(check);
    let parse = move |node: &PolicyNode| -> Result<Box<dyn PolicyConfig>, NodeError> {
        let options = serde_json::Value::deserialize(node)?;
        let options = match options {
            serde_json::Value::Null => serde_json::Value::Object(Default::default()),
            map @ serde_json::Value::Object(_) => map,
            other => {
                return Err(NodeError::new(
                    node.at,
                    format!("the options of Python scheduler `{leaked_name}` must be a map, not {other}"),
                ));
            }
        };
        let params = Python::attach(|py| -> PyResult<serde_json::Value> {
            let json = py.import("json")?;
            let options = json.call_method1("loads", (options.to_string(),))?;
            let params = check.call1(py, (factory.as_ref(), options))?;
            let text: String = json.call_method1("dumps", (params,))?.extract()?;
            serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))
        })
        .map_err(|e| {
            let message = Python::attach(|py| e.value(py).to_string());
            NodeError::new(node.at, format!("Python scheduler `{leaked_name}`: {message}"))
        })?;
        let serde_json::Value::Object(params) = params else {
            return Err(NodeError::new(node.at, "the options check did not return a map"));
        };
        // The options the factory takes: the parameters but the code's identity.
        let mut options = params.clone();
        options.remove(IDENTITY);
        let params: Params = params.into_iter().map(|(key, value)| (option_name(&key), value)).collect();
        Ok(Box::new(Configured { name: leaked_name, factory: factory.clone(), options, params }))
    };
    let info = PolicyInfo {
        name: leaked_name,
        kind: Kind::Scheduler,
        engine: Engine::Rounds,
        summary: Box::leak(summary.into_boxed_str()),
        options: &[],
        source: "a Python class registered with blox.register_scheduler",
        placement: None,
        parse: Box::leak(Box::new(parse)),
    };
    let info = blox::plugin::register(info, previous).map_err(PyValueError::new_err)?;
    registered.insert(name, info);
    Ok(())
}

/// A Python scheduler as a spec configured it.
struct Configured {
    name: &'static str,
    factory: Arc<Py<PyAny>>,
    /// The options the factory is called with.
    options: serde_json::Map<String, serde_json::Value>,
    params: Params,
}

impl PolicyConfig for Configured {
    fn params(&self) -> Params {
        self.params.clone()
    }

    fn build(&self, ctx: &BuildContext) -> Result<Built, String> {
        let run = RunInfo {
            round_s: ctx.round_seconds,
            total_gpus: u64::from(ctx.cluster.total_gpus()),
            gpus_per_node: ctx.cluster.nodes.iter().map(|n| n.gpus).collect(),
            load: ctx.load,
            seed: ctx.seed,
        };
        let instance = Python::attach(|py| -> PyResult<Py<PyAny>> {
            let json = py.import("json")?;
            let options = json.call_method1("loads", (serde_json::Value::Object(self.options.clone()).to_string(),))?;
            let options = options.cast_into::<PyDict>()?;
            let instance = self.factory.bind(py).call((), Some(&options))?;
            if instance.hasattr("start")? {
                instance.call_method1("start", (Py::new(py, run)?,))?;
            }
            Ok(instance.unbind())
        })
        .map_err(|e| format!("Python scheduler `{}` could not start: {}", self.name, describe(&e)))?;
        Ok(Built::Order(Box::new(PythonScheduler {
            name: self.name,
            instance,
            stop: StopFlag::new(),
            call: None,
            slots: HashMap::new(),
            listed: HashSet::new(),
        })))
    }
}

/// The Python error's type, message and traceback, as the run's failure records it.
fn describe(error: &PyErr) -> String {
    Python::attach(|py| {
        let formatted = py.import("traceback").and_then(|traceback| {
            let lines = traceback
                .call_method1("format_exception", (error.get_type(py), error.value(py), error.traceback(py)))?;
            let lines: Vec<String> = lines.extract()?;
            Ok(lines.concat())
        });
        formatted.unwrap_or_else(|_| error.to_string()).trim_end().to_string()
    })
}

/// A call into Python that a stopped run must be able to interrupt: the thread it runs on, the
/// run's stop flag, and whether an exception was already sent. Read and written only with the
/// GIL held, so a call is never interrupted after it returned.
struct Call {
    thread: std::ffi::c_ulong,
    stop: StopFlag,
    inside: bool,
    interrupted: bool,
}

static CALLS: Mutex<Vec<Arc<Mutex<Call>>>> = Mutex::new(Vec::new());

/// Raises `KeyboardInterrupt` in each thread whose Python call belongs to a stopped run. Called
/// by the thread waiting for a sweep, with the GIL.
pub fn interrupt_stopped_calls(_py: Python<'_>) {
    let calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    for call in calls.iter() {
        let mut call = call.lock().unwrap_or_else(|e| e.into_inner());
        if call.inside && !call.interrupted && call.stop.is_stopped() {
            call.interrupted = true;
            // SAFETY: the GIL is held (the `_py` token); the exception type is a borrowed
            // builtin, and the call only marks the thread's state.
            unsafe {
                pyo3::ffi::PyThreadState_SetAsyncExc(
                    call.thread as std::ffi::c_long,
                    pyo3::ffi::PyExc_KeyboardInterrupt,
                );
            }
        }
    }
}

pub struct PythonScheduler {
    name: &'static str,
    instance: Py<PyAny>,
    stop: StopFlag,
    /// This run's entry in [`CALLS`], made at its first decision.
    call: Option<Arc<Mutex<Call>>>,
    /// Job id to slot, and the ids the answer listed, for the answer's check (reused).
    slots: HashMap<u64, JobSlot>,
    listed: HashSet<u64>,
}

impl Drop for PythonScheduler {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            CALLS.lock().unwrap_or_else(|e| e.into_inner()).retain(|c| !Arc::ptr_eq(c, &call));
        }
    }
}

impl PythonScheduler {
    fn fault(&self, what: &str) -> PolicyError {
        PolicyError(format!("Python scheduler `{}` {what}", self.name))
    }

    /// Calls `order(now, jobs)`, marking the call as interruptible while it runs.
    fn call_order<'py>(
        &mut self,
        py: Python<'py>,
        now: SimTime,
        jobs: Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if self.call.is_none() {
            // A run decides on one worker thread from start to end.
            let thread: std::ffi::c_ulong = py.import("threading")?.call_method0("get_ident")?.extract()?;
            let call =
                Arc::new(Mutex::new(Call { thread, stop: self.stop.clone(), inside: false, interrupted: false }));
            CALLS.lock().unwrap_or_else(|e| e.into_inner()).push(call.clone());
            self.call = Some(call);
        }
        let call = self.call.as_ref().expect("made above");
        call.lock().unwrap_or_else(|e| e.into_inner()).inside = true;
        let answer = self.instance.bind(py).call_method1("order", (now, jobs));
        let mut state = call.lock().unwrap_or_else(|e| e.into_inner());
        state.inside = false;
        if state.interrupted {
            // An exception sent as the call returned must not reach the next Python code of
            // this thread (another run's policy).
            // SAFETY: the GIL is held; a null exception clears the thread's pending one.
            unsafe {
                pyo3::ffi::PyThreadState_SetAsyncExc(state.thread as std::ffi::c_long, std::ptr::null_mut());
            }
        }
        answer
    }

    /// Checks that `answer` lists every active job once and writes their slots into `order`.
    fn apply(&mut self, answer: &Bound<'_, PyAny>, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        let items: Vec<Bound<'_, PyAny>> = if let Ok(list) = answer.cast::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = answer.cast::<PyTuple>() {
            tuple.iter().collect()
        } else {
            let shown = shorten(&answer.repr().map(|r| r.to_string()).unwrap_or_default());
            return Err(self.fault(&format!("returned {shown}, not a list of job ids")));
        };
        self.slots.clear();
        self.slots.extend(order.iter().map(|&slot| (jobs[slot].spec.id, slot)));
        self.listed.clear();
        for (position, item) in items.iter().enumerate() {
            let Ok(id) = item.extract::<u64>() else {
                let shown = shorten(&item.repr().map(|r| r.to_string()).unwrap_or_default());
                return Err(self.fault(&format!("returned {shown} at position {position}, which is not a job id")));
            };
            let Some(&slot) = self.slots.get(&id) else {
                return Err(self.fault(&format!("named job {id}, which is not active")));
            };
            if !self.listed.insert(id) {
                return Err(self.fault(&format!("listed job {id} twice; the order must list every active job once")));
            }
            if let Some(place) = order.get_mut(position) {
                *place = slot;
            }
        }
        if items.len() != order.len() {
            let mut missing: Vec<u64> = self.slots.keys().copied().filter(|id| !self.listed.contains(id)).collect();
            missing.sort_unstable();
            missing.truncate(10);
            return Err(self.fault(&format!(
                "ordered {} of the {} active jobs (missing, first ten: {missing:?}); the order must list every active \
                 job once",
                items.len(),
                order.len()
            )));
        }
        Ok(())
    }
}

impl Scheduler for PythonScheduler {
    fn order(&mut self, now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        Python::attach(|py| {
            let views = order.iter().map(|&slot| {
                let job = &jobs[slot];
                Job {
                    id: job.spec.id,
                    gpus: job.spec.gpus,
                    submitted: job.spec.submitted,
                    work: job.spec.work,
                    executed_work: job.life.executed_work,
                    attained_service: job.life.attained_service,
                    running: job.is_running(),
                    promoted: job.life.promoted,
                    preemptions: job.life.preemptions,
                }
            });
            let list = PyList::empty(py);
            for view in views {
                list.append(Py::new(py, view).map_err(|e| self.fault(&format!("could not be called: {e}")))?)
                    .map_err(|e| self.fault(&format!("could not be called: {e}")))?;
            }
            let answer = match self.call_order(py, now, list) {
                Ok(answer) => answer,
                Err(e) if self.stop.is_stopped() => {
                    drop(e);
                    return Err(self.fault("was interrupted: the run was stopped"));
                }
                Err(e) => return Err(self.fault(&format!("raised an exception:\n{}", describe(&e)))),
            };
            self.apply(&answer, jobs, order)
        })
    }

    fn set_stop(&mut self, stop: &StopFlag) {
        self.stop = stop.clone();
    }
}

fn shorten(s: &str) -> String {
    let s = blox::text::escape_control(s);
    if s.chars().count() > 200 { format!("{}...", s.chars().take(200).collect::<String>()) } else { s.into_owned() }
}
