//! A request from outside a run to abandon it (Ctrl-C, a wall-clock limit).
//!
//! Engines check it once per round or decision. It never changes a result, only whether the run
//! produces one: a stopped run returns [`RunError::Stopped`](super::RunError::Stopped).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared flag; clones observe the same request.
#[derive(Debug, Clone, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every run holding a clone of this flag to stop at its next check.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
