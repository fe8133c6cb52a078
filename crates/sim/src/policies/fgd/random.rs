//! Random (random_score.go; `docs/fgd-semantics.md` §4.4, §6.3): a node uniformly among the
//! feasible ones, and for a share pod a device uniformly among those it fits (reservoir over
//! them in index order). The original's choice depends on the order its parallel filter
//! finishes in, so it cannot be reproduced run for run; this draws from the run's Go stream after
//! the preparation's draws and is compared with the published rows statistically.

use crate::core::go_random::GoRandom;
use crate::core::placements::fragmentation::Fragmentation;
use crate::core::placements::{NodeState, Pod, ScorePolicy};

use crate::policies::{Built, Engine, Kind, PolicyInfo, without_options};

pub const INFO: PolicyInfo = PolicyInfo {
    name: "random",
    kind: Kind::Scheduler,
    engine: Engine::Placements,
    summary: "a feasible node (and device) drawn uniformly from the run's random stream",
    options: &[],
    source: super::SOURCE,
    placement: None,
    parse: &|node| without_options(node, || Built::Score(Box::new(Random))),
};

/// Stateless: it draws from the run's stream, which the engine hands it.
pub struct Random;

impl ScorePolicy for Random {
    fn score(&mut self, _pod: &Pod, _node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        0
    }

    fn pick(&mut self, feasible: &[usize], rng: &mut GoRandom) -> Option<usize> {
        Some(feasible[rng.intn(feasible.len())])
    }

    fn share_device(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation, rng: &mut GoRandom) -> usize {
        let mut chosen = None;
        let mut candidates = 0;
        for (i, &l) in node.left.iter().enumerate() {
            if l >= pod.milli {
                candidates += 1;
                if rng.intn(candidates) == 0 {
                    chosen = Some(i);
                }
            }
        }
        chosen.expect("a share pod placed on a node where no device fits it")
    }
}
