//! Random (random_score.go; `docs/fgd-semantics.md` §4.4, §6.3): a node uniformly among the
//! feasible ones, and for a share pod a device uniformly among those it fits (reservoir over
//! them in index order). The original's choice depends on the order its parallel filter
//! finishes in, so it cannot be reproduced run for run; this draws from the run's Go stream after
//! the preparation's draws and is compared with the published rows statistically.

use super::experiment::ScorePolicy;
use super::fragmentation::Fragmentation;
use super::{NodeState, Pod};
use crate::workload::go_random::GoRandom;

pub struct Random {
    rng: GoRandom,
}

impl Random {
    /// Draws from `rng`, the run's stream after its preparation.
    pub fn new(rng: GoRandom) -> Self {
        Self { rng }
    }
}

impl ScorePolicy for Random {
    fn score(&mut self, _pod: &Pod, _node: &NodeState, _frag: &mut Fragmentation) -> i64 {
        0
    }

    fn pick(&mut self, feasible: &[usize]) -> Option<usize> {
        Some(feasible[self.rng.intn(feasible.len())])
    }

    fn share_device(&mut self, pod: &Pod, node: &NodeState, _frag: &mut Fragmentation) -> usize {
        let mut chosen = None;
        let mut candidates = 0;
        for (i, &l) in node.left.iter().enumerate() {
            if l >= pod.milli {
                candidates += 1;
                if self.rng.intn(candidates) == 0 {
                    chosen = Some(i);
                }
            }
        }
        chosen.expect("a share pod placed on a node where no device fits it")
    }
}
