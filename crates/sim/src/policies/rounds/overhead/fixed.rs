//! `fixed` launch overhead: a constant number of seconds lost at every (re)launch.
//!
//! Models checkpoint restore and process start-up as dead time on the GPUs: the job holds its
//! GPUs but makes no progress for `first_launch_s` after its first launch and `resume_s` after
//! each relaunch following a preemption. Blox's simulator has no such cost (its code carries
//! `# TODO: Add time for checkpoint and restore`), which is the default `none`.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §5.

use crate::core::{JobSpec, OverheadModel};
use crate::policies::{
    BuildContext, Built, Engine, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, Seconds, parse_options,
};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "fixed",
    kind: Kind::Overhead,
    engine: Engine::Rounds,
    summary: "seconds of no progress after each (re)launch",
    options: &[
        OptionDoc { name: "first_launch_s", example: "30", meaning: "after a job's first launch (default 0)" },
        OptionDoc {
            name: "resume_s",
            example: "10",
            meaning: "after each relaunch following a preemption (default 0)",
        },
    ],
    source: "blox's model of checkpoint restore and start-up, which Blox leaves as a TODO",
    placement: None,
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "zero_seconds")]
    pub first_launch_s: Seconds,
    #[serde(default = "zero_seconds")]
    pub resume_s: Seconds,
}

fn zero_seconds() -> Seconds {
    Seconds(0.0)
}

impl PolicyConfig for Options {
    fn params(&self) -> Params {
        let Options { first_launch_s, resume_s } = self;
        Params::from([("first_launch_s", first_launch_s.0.into()), ("resume_s", resume_s.0.into())])
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Overhead(Some(Box::new(FixedOverhead {
            first_launch_s: self.first_launch_s.0,
            resume_s: self.resume_s.0,
        }))))
    }
}

pub struct FixedOverhead {
    pub first_launch_s: f64,
    pub resume_s: f64,
}

impl OverheadModel for FixedOverhead {
    fn launch_overhead(&self, _job: &JobSpec, resumed: bool) -> f64 {
        if resumed { self.resume_s } else { self.first_launch_s }
    }
}
