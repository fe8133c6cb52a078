//! Dead time charged when an elastic job is (re)configured: ElasticFlow's
//! `utils.estimate_overhead` (`docs/elasticflow-semantics.md` §2.5), behind a trait so other
//! cost models can replace it.

/// Seconds a job at `gpus` GPUs loses when it is (re)placed.
pub trait ScaleOverhead: Send {
    /// `restart`: the whole cluster restarts this round (every `slot`-th scheduling round);
    /// `cached`: the job's exact GPU-rank set was already used since the last restart.
    fn estimate(&self, gpus: u32, restart: bool, cached: bool) -> f64;
}

/// ElasticFlow's measured model: a base cost (2 s, 7 s from 256 GPUs) which is all a cached
/// configuration pays; otherwise plus `2 (log2 g + 1)` s, plus 27 s (47 s from 256 GPUs) on
/// restart rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ElasticflowOverhead {
    base: f64,
    restart: f64,
}

impl ElasticflowOverhead {
    /// The constants for a cluster of `total_gpus`.
    pub fn for_cluster(total_gpus: u32) -> Self {
        let large = total_gpus >= 256;
        Self { base: if large { 7.0 } else { 2.0 }, restart: if large { 47.0 } else { 27.0 } }
    }
}

impl ScaleOverhead for ElasticflowOverhead {
    fn estimate(&self, gpus: u32, restart: bool, cached: bool) -> f64 {
        if cached {
            return self.base;
        }
        let restart = if restart { self.restart } else { 0.0 };
        self.base + restart + 2.0 * (f64::from(gpus.max(1)).log2() + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_hand_computed_values() {
        let small = ElasticflowOverhead::for_cluster(128);
        // §7: job 0 of ef-accessctrl on 64 GPUs pays 2 + 2 (6 + 1) = 16.
        assert_eq!(small.estimate(64, false, false), 16.0);
        // §7 dlas-gpu: a 1-GPU (re)start costs 4 s.
        assert_eq!(small.estimate(1, false, false), 4.0);
        assert_eq!(small.estimate(8, true, false), 2.0 + 27.0 + 8.0);
        assert_eq!(small.estimate(8, true, true), 2.0);
        let large = ElasticflowOverhead::for_cluster(256);
        assert_eq!(large.estimate(4, true, false), 7.0 + 47.0 + 6.0);
        assert_eq!(large.estimate(4, false, true), 7.0);
    }
}
