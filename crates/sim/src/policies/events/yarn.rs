//! `yarn`: Tiresias' MS-YARN placement for the event engine, ElasticFlow's `--scheme=yarn`: a job
//! takes whole free nodes plus one node with the remainder, else the first node that fits; a job
//! picked to run that does not fit waits. A spec gives it to the schedulers whose own placement
//! lists it as an alternative (those that place whole jobs picked by GPU count). The placement
//! itself is the engine's ([`crate::core::events::YarnPlacement`]); this file registers it.

use crate::core::events::EventPlacement;
use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "yarn",
    kind: Kind::Placement,
    engine: Engine::Events,
    summary: "Tiresias' MS-YARN: whole free nodes plus one node with the remainder, else the first node that fits; a picked job that does not fit waits (default: the buddy placement)",
    options: &[],
    source: "ElasticFlow's --scheme=yarn (Tiresias, NSDI'19)",
    placement: None,
    parse: &|node| without_options(node, || Built::EventPlacement(EventPlacement::Yarn)),
};
