//! `none`: launches and preemptions cost nothing, as in Blox's simulator, so the engine runs
//! without an overhead model.
//! The Blox rule in full, with blox's differences: `docs/blox-semantics.md` §5.

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "none",
    kind: Kind::Overhead,
    engine: Engine::Rounds,
    summary: "launches and preemptions are free",
    options: &[],
    source: "Blox's simulator",
    placement: None,
    parse: &|node| without_options(node, || Built::Overhead(None)),
};
