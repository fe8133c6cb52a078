//! Restart overhead of the Muri simulator (`docs/muri-semantics.md` §1.3, §2.4, §7.8; original:
//! `run_sim.py` `overhead_dict`, lines 29–35).
//!
//! Rule: seconds of progress a running job loses in every event interval (not only after a
//! restart, never in the interval in which it completes), by its GPU count and raw model name.
//! Every policy of the simulator charges it; Muri charges each member the sum over its group.
//! Quirks kept: a model not in the table costs 10 s (the original's `.get` default); a GPU count
//! outside {1, 2, 4, 8, 16, 32} made the original crash (`KeyError`) and is an error value here.

use std::fmt;

/// Models of the table, in its column order.
pub const MODELS: [&str; 8] = ["vgg16", "vgg19", "resnet18", "shufflenet_v2_x1_0", "bert", "gpt2", "a2c", "dqn"];

/// GPU counts of the table, in its row order.
pub const GPU_COUNTS: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Seconds for a model the table does not name.
pub const UNKNOWN_MODEL: u32 = 10;

/// Rows of [`GPU_COUNTS`] × columns of [`MODELS`], seconds.
const TABLE: [[u32; 8]; 6] = [
    [7, 7, 4, 4, 10, 10, 38, 5],
    [7, 7, 5, 4, 10, 10, 39, 5],
    [8, 8, 5, 5, 10, 10, 39, 6],
    [9, 9, 7, 5, 10, 10, 46, 6],
    [9, 10, 7, 7, 10, 10, 46, 8],
    [10, 10, 7, 8, 10, 10, 46, 8],
];

/// A GPU count the overhead table has no row for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedGpuCount(pub u32);

impl fmt::Display for UnsupportedGpuCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the Muri restart-overhead table has no row for {} GPUs (it covers 1, 2, 4, 8, 16 and 32)", self.0)
    }
}

impl std::error::Error for UnsupportedGpuCount {}

/// Overhead in seconds of one job with `num_gpu` GPUs and trace model name `model` (exact,
/// case-sensitive: the original looks the raw name up).
pub fn restart_overhead(num_gpu: u32, model: &str) -> Result<u32, UnsupportedGpuCount> {
    let row = GPU_COUNTS.iter().position(|&g| g == num_gpu).ok_or(UnsupportedGpuCount(num_gpu))?;
    Ok(MODELS.iter().position(|&m| m == model).map_or(UNKNOWN_MODEL, |c| TABLE[row][c]))
}

/// Overhead charged to every member of a Muri group (§7.8): the sum over its members, all of
/// `num_gpu` GPUs (groups never mix GPU counts).
pub fn group_restart_overhead<'a>(
    num_gpu: u32,
    models: impl IntoIterator<Item = &'a str>,
) -> Result<u32, UnsupportedGpuCount> {
    models.into_iter().try_fold(0, |acc, m| Ok(acc + restart_overhead(num_gpu, m)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_of_section_1_3() {
        assert_eq!(restart_overhead(1, "a2c"), Ok(38));
        assert_eq!(restart_overhead(8, "resnet18"), Ok(7));
        assert_eq!(restart_overhead(16, "vgg19"), Ok(10));
        assert_eq!(restart_overhead(16, "vgg16"), Ok(9));
        assert_eq!(restart_overhead(32, "shufflenet_v2_x1_0"), Ok(8));
        assert_eq!(restart_overhead(4, "dqn"), Ok(6));
        let bert: Vec<u32> = GPU_COUNTS.iter().map(|&g| restart_overhead(g, "bert").unwrap()).collect();
        assert_eq!(bert, [10; 6]);
    }

    #[test]
    fn unknown_model_and_gpu_count() {
        assert_eq!(restart_overhead(2, "inception3"), Ok(UNKNOWN_MODEL));
        assert_eq!(restart_overhead(2, "VGG16"), Ok(10), "the raw name, case-sensitive");
        assert_eq!(restart_overhead(3, "vgg16"), Err(UnsupportedGpuCount(3)));
        assert!(UnsupportedGpuCount(64).to_string().contains("64 GPUs"));
    }

    #[test]
    fn group_sum() {
        assert_eq!(group_restart_overhead(1, ["bert", "a2c", "dqn"]), Ok(10 + 38 + 5));
        assert_eq!(group_restart_overhead(1, []), Ok(0));
        assert_eq!(group_restart_overhead(64, ["bert"]), Err(UnsupportedGpuCount(64)));
    }
}
