//! `none`: launches and preemptions cost nothing, as in Blox's simulator, so the engine runs
//! without an overhead model.

use crate::core::OverheadModel;
use crate::policies::{Kind, OverheadOptions, PolicyInfo, PolicyOptions};
use crate::spec::EngineMode;
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "none",
    kind: Kind::Overhead,
    engine: EngineMode::Rounds,
    summary: "launches and preemptions are free",
    options: &[],
    source: "Blox's simulator",
    placement: None,
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyOptions for Options {
    fn info(&self) -> &'static PolicyInfo {
        &INFO
    }
}

impl OverheadOptions for Options {
    fn build(&self) -> Option<Box<dyn OverheadModel>> {
        None
    }
}
