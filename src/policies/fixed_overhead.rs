//! `fixed` launch overhead: a constant number of seconds lost at every (re)launch.
//!
//! Models checkpoint restore and process start-up as dead time on the GPUs: the job holds its
//! GPUs but makes no progress for `first_launch_s` after its first launch and `resume_s` after
//! each relaunch following a preemption. Blox's simulator has no such cost (its code carries
//! `# TODO: Add time for checkpoint and restore`), which is the default `none`.

use crate::core::{JobSpec, OverheadModel};

pub struct FixedOverhead {
    pub first_launch_s: f64,
    pub resume_s: f64,
}

impl OverheadModel for FixedOverhead {
    fn launch_overhead(&self, _job: &JobSpec, resumed: bool) -> f64 {
        if resumed { self.resume_s } else { self.first_launch_s }
    }
}
