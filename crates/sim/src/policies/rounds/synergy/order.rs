//! The six job orders of Synergy's simulator: the key each sorts its runnable list by, every
//! round, before allocating down the list.
//!
//! Rules (`docs/synergy-semantics.md` §4.2; Synergy `schedulers/*_synergy_new.py`, `drf.py`,
//! `tetris.py` and `jobs/job.py` at 1bb2bed). Every key but FIFO's starts with the starvation
//! bump (bumped jobs first) and ends with the arrival time; the sort is stable over the list kept
//! from the previous round. `rem` is the remaining time `it * R` at the GPU-proportional share, or
//! `it * R / s` outside the `fair` mode, with `s` the speedup the job was left with by the
//! previous round (the reset to the profile value comes after the sort: quirk 7).

use serde::{Deserialize, Serialize};

/// A job order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Arrival time, no bump (`fifo_synergy_new.py`).
    Fifo,
    /// Shortest remaining time first: `rem` (`srtf_synergy_new.py`).
    Srtf,
    /// Least attained service: rounds received x 300 s x GPUs (`las_synergy_new.py`); only the
    /// jobs admitted by GPU count are allocated, widest first under Tune (§4.3).
    Las,
    /// Finish-time fairness: `((now - arrival) + rem) / (it * total)` (`ftf_synergy_new.py`).
    Ftf,
    /// Dominant resource share of the job's best-case demand: `max(g/G, cpu/C, mem/M)` over the
    /// cluster's totals, a fixed order (`drf.py`).
    Drf,
    /// Tetris: `rem * (g/G + cpu/C + mem/M)`, summed in that order (`tetris.py`).
    Tetris,
}

/// What a key reads of one job.
#[derive(Debug, Clone, Copy)]
pub struct KeyInputs {
    pub arrival: f64,
    pub gpus: f64,
    pub cpus: f64,
    pub memory_gb: f64,
    pub iteration_s: f64,
    pub total: u64,
    pub executed: u64,
    /// Seconds of rounds received.
    pub attained: f64,
    /// The speedup the previous round left.
    pub speedup: f64,
}

/// The cluster's total GPUs, CPUs and memory, which DRF and Tetris normalise by.
#[derive(Debug, Clone, Copy)]
pub struct Totals {
    pub gpus: f64,
    pub cpus: f64,
    pub memory_gb: f64,
}

impl Order {
    /// Whether the starvation bump leads the key (every order but FIFO).
    pub fn uses_bump(self) -> bool {
        self != Order::Fifo
    }

    /// The key between the bump and the arrival time; FIFO has none.
    pub fn key(self, job: &KeyInputs, now: f64, fair: bool, totals: &Totals) -> f64 {
        let remaining = (job.total - job.executed) as f64;
        let rem = if fair { job.iteration_s * remaining } else { job.iteration_s * remaining / job.speedup };
        match self {
            Order::Fifo => 0.0,
            Order::Srtf => rem,
            Order::Las => job.attained * job.gpus,
            Order::Ftf => ((now - job.arrival) + rem) / (job.iteration_s * job.total as f64),
            Order::Drf => (job.gpus / totals.gpus).max(job.cpus / totals.cpus).max(job.memory_gb / totals.memory_gb),
            Order::Tetris => {
                job.gpus / totals.gpus * rem + job.cpus / totals.cpus * rem + job.memory_gb / totals.memory_gb * rem
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_original_formulas() {
        let job = KeyInputs {
            arrival: 100.0,
            gpus: 2.0,
            cpus: 24.0,
            memory_gb: 250.0,
            iteration_s: 0.6,
            total: 1000,
            executed: 400,
            attained: 600.0,
            speedup: 2.0,
        };
        let totals = Totals { gpus: 128.0, cpus: 384.0, memory_gb: 8000.0 };
        assert_eq!(Order::Srtf.key(&job, 0.0, false, &totals), 0.6 * 600.0 / 2.0);
        assert_eq!(Order::Srtf.key(&job, 0.0, true, &totals), 0.6 * 600.0);
        assert_eq!(Order::Las.key(&job, 0.0, false, &totals), 1200.0);
        assert_eq!(Order::Ftf.key(&job, 400.0, false, &totals), (300.0 + 180.0) / 600.0);
        assert_eq!(Order::Drf.key(&job, 0.0, false, &totals), 24.0 / 384.0);
        let tetris = Order::Tetris.key(&job, 0.0, false, &totals);
        assert_eq!(tetris, 2.0 / 128.0 * 180.0 + 24.0 / 384.0 * 180.0 + 250.0 / 8000.0 * 180.0);
        assert!(!Order::Fifo.uses_bump() && Order::Tetris.uses_bump());
    }
}
