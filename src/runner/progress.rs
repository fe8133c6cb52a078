//! Progress of a sweep, and the watchdog that stops runs: a bar on a terminal; on a pipe (CI,
//! Slurm logs) one line per finished run, numbered in the order runs finish, with its wall time,
//! and a heartbeat line naming the runs still going when nothing finished for a while.
//!
//! The watchdog raises a run's [`StopFlag`] when the sweep is interrupted or when the run
//! exceeds its time limit.

use crate::core::StopFlag;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Seconds without a finished run after which a piped sweep prints what is still running.
const HEARTBEAT: Duration = Duration::from_secs(60);
/// How often the watchdog looks at the running runs.
const WATCH_PERIOD: Duration = Duration::from_millis(100);

pub(super) struct Progress {
    bar: ProgressBar,
    /// One line per finished run (stderr is not a terminal, and not quiet).
    lines: bool,
    total: usize,
    state: Mutex<State>,
    /// Set when every run has finished: the watchdog returns.
    all_done: AtomicBool,
}

#[derive(Default)]
struct State {
    finished: usize,
    last_output: Option<Instant>,
    running: BTreeMap<String, Running>,
}

struct Running {
    started: Instant,
    stop: StopFlag,
    timed_out: bool,
}

impl Progress {
    pub(super) fn new(total: usize, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = if quiet || !terminal {
            ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::hidden())
        } else {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs, ETA {eta}")
                    .expect("static progress template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        };
        Progress { bar, lines: !quiet && !terminal, total, state: Mutex::default(), all_done: AtomicBool::new(false) }
    }

    /// A run starts; the watchdog may raise `stop`.
    pub(super) fn begin(&self, run_key: &str, stop: StopFlag) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.running.insert(run_key.to_owned(), Running { started: Instant::now(), stop, timed_out: false });
    }

    /// A run (started or skipped) is over; returns whether the watchdog stopped it for its time
    /// limit. The line is printed under the lock, so numbers come out in order.
    pub(super) fn end(&self, run_key: &str, status: impl FnOnce(bool) -> String) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let timed_out = state.running.remove(run_key).is_some_and(|r| r.timed_out);
        state.finished += 1;
        self.bar.inc(1);
        if self.lines {
            eprintln!("[{}/{}] {run_key}: {}", state.finished, self.total, status(timed_out));
            state.last_output = Some(Instant::now());
        }
        timed_out
    }

    /// Watches the running runs until [`Progress::finish`]: raises their flags when `interrupt`
    /// is raised or one exceeds `timeout`, and prints the heartbeat.
    pub(super) fn watch(&self, interrupt: &StopFlag, timeout: Option<Duration>) {
        let started = Instant::now();
        while !self.all_done.load(Ordering::Relaxed) {
            std::thread::sleep(WATCH_PERIOD);
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            for run in state.running.values_mut() {
                if interrupt.is_stopped() {
                    run.stop.stop();
                } else if timeout.is_some_and(|limit| now - run.started > limit) && !run.timed_out {
                    run.timed_out = true;
                    run.stop.stop();
                }
            }
            let quiet_for = now - state.last_output.unwrap_or(started);
            if self.lines && quiet_for >= HEARTBEAT && !state.running.is_empty() {
                let running: Vec<String> = state
                    .running
                    .iter()
                    .map(|(key, run)| format!("{key} ({:.0} s)", (now - run.started).as_secs_f64()))
                    .collect();
                eprintln!("[{}/{}] still running: {}", state.finished, self.total, running.join(", "));
                state.last_output = Some(now);
            }
        }
    }

    pub(super) fn finish(&self) {
        self.all_done.store(true, Ordering::Relaxed);
        self.bar.finish_and_clear();
    }
}
