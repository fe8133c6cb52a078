//! blox with a policy of your own, written in Rust, without editing blox: this program is blox's
//! command line plus one scheduler, `my-las`.
//!
//! ```sh
//! cargo run --release --example custom-policy -- list              # my-las is listed
//! cargo run --release --example custom-policy -- run examples/custom-policy/spec.yaml
//! ```
//!
//! `my-las` is least attained service first, the rule of Blox's `las`: with its default options
//! it makes the built-in's decisions (the test `tests/custom_policy.rs` checks that, job for job).
//! Its option `gpu_weighted` counts attained service in GPU-seconds instead, as Tiresias'
//! 2D-LAS does, so wide jobs age faster.

use blox::core::{JobSlot, JobTable, PolicyError, Scheduler, SimTime};
use blox::plugin::{About, Registry};
use blox::policies::OptionDoc;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;

/// What a spec may write: `scheduler: my-las` or `scheduler: {my-las: {gpu_weighted: true}}`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
struct Options {
    gpu_weighted: bool,
}

const ABOUT: About = About::new("my-las", "least attained service first; GPU-seconds with `gpu_weighted`")
    .source("examples/custom-policy (Blox's las; Tiresias' GPU-weighted service)")
    .options(&[OptionDoc {
        name: "gpu_weighted",
        example: "true",
        meaning: "count attained service in GPU-seconds (default false: seconds held, as Blox's las)",
    }]);

/// The scheduler: one per run, built from the spec's options.
struct MyLas {
    gpu_weighted: bool,
}

impl Scheduler for MyLas {
    /// Sorts the active jobs: promoted jobs first (the engine's starvation guard), then by
    /// attained service, ties by job id, as Blox orders them.
    fn order(&mut self, _now: SimTime, jobs: &JobTable, order: &mut [JobSlot]) -> Result<(), PolicyError> {
        let service = |slot: JobSlot| {
            let job = &jobs[slot];
            let weight = if self.gpu_weighted { f64::from(job.spec.gpus) } else { 1.0 };
            job.life.attained_service * weight
        };
        order.sort_by(|&a, &b| {
            let (ja, jb) = (&jobs[a], &jobs[b]);
            jb.life
                .promoted
                .cmp(&ja.life.promoted)
                .then(service(a).total_cmp(&service(b)))
                .then(ja.spec.id.cmp(&jb.spec.id))
        });
        Ok(())
    }
}

fn main() -> ExitCode {
    let registry = Registry::new()
        .scheduler(ABOUT, |options: &Options, _ctx| Box::new(MyLas { gpu_weighted: options.gpu_weighted }));
    blox::cli::main_with(registry)
}
