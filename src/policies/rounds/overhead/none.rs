//! `none`: launches and preemptions cost nothing, as in Blox's simulator, so the engine runs
//! without an overhead model.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §5.

use crate::policies::{BuildContext, Built, Engine, Kind, PolicyConfig, PolicyInfo, parse_options};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "none",
    kind: Kind::Overhead,
    engine: Engine::Rounds,
    summary: "launches and preemptions are free",
    options: &[],
    source: "Blox's simulator",
    placement: None,
    parse: &parse_options::<Options>,
};

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl PolicyConfig for Options {
    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Overhead(None))
    }
}
