//! Synergy's (OSDI'22) model zoo and resource profiles: github.com/msr-fiddle/synergy @ 1bb2bed
//! (MIT), `simulator/jobs/model_zoo.py` and the one-GPU profiles `simulator/models*/<model>_1.py`,
//! which the simulator uses for every GPU count (`docs/synergy-semantics.md` §1.2, Appendix B).
//!
//! A profile set belongs to a cluster's CPUs per GPU (3 for the default 24-CPU, 8-GPU servers; 4,
//! 5 and 6 for `cluster_4/5/6.ini` with `models-4/5/6`). Per model it gives the CPUs and memory per
//! GPU at which the model runs best, its speedup there over the GPU-proportional share, and its
//! iteration time at that share. Numbers transcribed from the source files; memory and CPUs per
//! GPU are the same in every set except alexnet's and shufflenet's ideal CPUs at ratio 6.

/// The zoo's three tasks, in the order the original breaks ties between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Task {
    Image,
    Language,
    Speech,
}

impl Task {
    /// Every task in the zoo's order.
    pub const ALL: [Task; 3] = [Task::Image, Task::Language, Task::Speech];

    /// The task's models in the zoo's order (`create_default_models`), as indices into
    /// [`MODELS`]; the class split assigns them round robin.
    pub fn models(self) -> &'static [usize] {
        match self {
            Task::Image => &[0, 1, 2, 3, 4],
            Task::Language => &[5, 6, 7],
            Task::Speech => &[8, 9],
        }
    }
}

/// The zoo's models by class id (0-9).
pub const MODELS: [&str; 10] =
    ["alexnet", "res18", "res50", "mobilenet", "shufflenet", "gnmt", "transformer", "lstm", "m5", "deepspeech"];

/// One model's profile in one set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelProfile {
    pub name: &'static str,
    pub task: Task,
    /// CPUs per GPU at which the model runs fastest.
    pub ideal_cpus_per_gpu: f64,
    /// Memory (GB) per GPU at which the model runs fastest.
    pub ideal_mem_gb_per_gpu: f64,
    /// Throughput at the ideal CPUs and memory over that at the GPU-proportional share.
    pub speedup: f64,
    /// Seconds per iteration at the GPU-proportional share.
    pub iteration_s: f64,
}

/// CPUs per GPU of the cluster a profile set was measured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpusPerGpu {
    #[default]
    Three,
    Four,
    Five,
    Six,
}

impl CpusPerGpu {
    /// The set for a ratio of 3 to 6 CPUs per GPU, if there is one.
    pub fn from_ratio(ratio: u32) -> Option<Self> {
        match ratio {
            3 => Some(Self::Three),
            4 => Some(Self::Four),
            5 => Some(Self::Five),
            6 => Some(Self::Six),
            _ => None,
        }
    }

    fn column(self) -> usize {
        self as usize
    }
}

/// Per model (class id order): task, ideal CPUs per GPU at ratios 3/4/5/6, ideal GB per GPU,
/// speedup at ratios 3/4/5/6, iteration seconds at ratios 3/4/5/6 (Appendix B). The language
/// models' 20 GB is the source's `int(62.5 / 3)`.
#[allow(clippy::type_complexity)]
const TABLE: [(Task, [f64; 4], f64, [f64; 4], [f64; 4]); 10] = [
    (Task::Image, [12.0, 12.0, 12.0, 24.0], 125.0, [2.94, 2.352, 1.92, 2.18], [0.6, 0.48, 0.392, 0.34]),
    (Task::Image, [9.0, 9.0, 9.0, 9.0], 62.5, [2.4, 1.85, 1.568, 1.37], [0.64, 0.5, 0.41, 0.365]),
    (Task::Image, [4.0, 4.0, 4.0, 4.0], 62.5, [1.15, 1.0, 1.0, 1.0], [0.78, 0.68, 0.68, 0.68]),
    (Task::Image, [6.0, 6.0, 6.0, 6.0], 62.5, [1.55, 1.2, 1.04, 1.0], [0.71, 0.55, 0.47, 0.458]),
    (Task::Image, [12.0, 12.0, 12.0, 24.0], 125.0, [2.89, 2.312, 1.88, 2.59], [0.615, 0.492, 0.401, 0.351]),
    (Task::Language, [1.0; 4], 20.0, [1.0; 4], [0.12; 4]),
    (Task::Language, [1.0; 4], 20.0, [1.0; 4], [0.67; 4]),
    (Task::Language, [1.0; 4], 20.0, [1.0; 4], [0.011; 4]),
    (Task::Speech, [6.0; 4], 187.5, [2.5, 2.08, 1.78, 1.0], [0.6, 0.5, 0.42, 0.3]),
    (Task::Speech, [3.0; 4], 62.5, [1.0; 4], [0.757; 4]),
];

/// The profile of model `class` (0-9, [`MODELS`]) in set `set`.
///
/// # Panics
/// On a class id outside the zoo.
pub fn profile(class: usize, set: CpusPerGpu) -> ModelProfile {
    let (task, cpus, mem, speedup, iteration) = TABLE[class];
    let c = set.column();
    ModelProfile {
        name: MODELS[class],
        task,
        ideal_cpus_per_gpu: cpus[c],
        ideal_mem_gb_per_gpu: mem,
        speedup: speedup[c],
        iteration_s: iteration[c],
    }
}

/// CPUs per GPU of the rows of a [`tput`] matrix (`cpu_val` in `jobs/job.py` at 1bb2bed).
pub const TPUT_CPUS_PER_GPU: [f64; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0, 12.0, 24.0];

/// Memory (GB) per GPU of the columns of a [`tput`] matrix (`mem_val` in `jobs/job.py` at
/// 1bb2bed). The first column is the literal 20.83, not the language models' ideal memory 20
/// (`int(62.5 / 3)`), so no cell sits at a language model's ideal memory.
pub const TPUT_MEM_GB_PER_GPU: [f64; 5] = [20.83, 62.5, 125.0, 187.5, 250.0];

/// Per model (class id order): throughput per GPU at each (CPUs, memory) per GPU, normalised to
/// the 3-CPU, 62.5 GB share; rows [`TPUT_CPUS_PER_GPU`], columns [`TPUT_MEM_GB_PER_GPU`].
/// Transcribed from `tput` in `simulator/models/<model>_1.py` at 1bb2bed. The files of
/// `models-4/5/6` hold the same arrays (all forty compared), so one matrix serves every set.
const TPUT: [[[f64; 5]; 9]; 10] = [
    // alexnet
    [
        [0.1, 0.3, 0.3, 0.3, 0.3],
        [0.1, 0.66, 0.66, 0.66, 0.66],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.25, 1.25, 1.25, 1.25],
        [0.1, 1.53, 1.53, 1.53, 1.53],
        [0.1, 1.75, 1.75, 1.75, 1.75],
        [0.1, 2.0, 2.0, 2.0, 2.0],
        [0.1, 2.0, 2.94, 2.94, 2.94],
        [0.1, 2.0, 2.94, 2.94, 2.94],
    ],
    // res18
    [
        [0.1, 0.37, 0.37, 0.37, 0.37],
        [0.1, 0.72, 0.72, 0.72, 0.72],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.3, 1.3, 1.3, 1.3],
        [0.1, 1.53, 1.53, 1.53, 1.53],
        [0.1, 1.75, 1.75, 1.75, 1.75],
        [0.1, 2.4, 2.4, 2.4, 2.4],
        [0.1, 2.4, 2.4, 2.4, 2.4],
        [0.1, 2.4, 2.4, 2.4, 2.4],
    ],
    // res50
    [
        [0.1, 0.4, 0.4, 0.4, 0.4],
        [0.1, 0.74, 0.74, 0.74, 0.74],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.15, 1.15, 1.15, 1.15],
        [0.1, 1.15, 1.15, 1.15, 1.15],
        [0.1, 1.15, 1.15, 1.15, 1.15],
        [0.1, 1.15, 1.15, 1.15, 1.15],
        [0.1, 1.15, 1.15, 1.15, 1.15],
        [0.1, 1.15, 1.15, 1.15, 1.15],
    ],
    // mobilenet
    [
        [0.1, 0.37, 0.37, 0.37, 0.37],
        [0.1, 0.72, 0.72, 0.72, 0.72],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.3, 1.3, 1.3, 1.3],
        [0.1, 1.49, 1.49, 1.49, 1.49],
        [0.1, 1.55, 1.55, 1.55, 1.55],
        [0.1, 1.55, 1.55, 1.55, 1.55],
        [0.1, 1.55, 1.55, 1.55, 1.55],
        [0.1, 1.55, 1.55, 1.55, 1.55],
    ],
    // shufflenet
    [
        [0.1, 0.3, 0.3, 0.3, 0.3],
        [0.1, 0.66, 0.66, 0.66, 0.66],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.25, 1.25, 1.25, 1.25],
        [0.1, 1.53, 1.53, 1.53, 1.53],
        [0.1, 1.75, 1.75, 1.75, 1.75],
        [0.1, 2.0, 2.0, 2.0, 2.0],
        [0.1, 2.0, 2.89, 2.89, 2.89],
        [0.1, 2.0, 2.89, 2.89, 2.89],
    ],
    // gnmt
    [
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
    ],
    // transformer
    [
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
    ],
    // lstm
    [
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0],
    ],
    // m5
    [
        [0.1, 0.3, 0.3, 0.3, 0.3],
        [0.1, 0.66, 0.66, 0.66, 0.66],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.2, 1.2, 1.2, 1.2],
        [0.1, 1.4, 1.4, 1.4, 1.4],
        [0.1, 1.5, 2.0, 2.5, 2.5],
        [0.1, 1.5, 2.0, 2.5, 2.5],
        [0.1, 1.5, 2.0, 2.5, 2.5],
        [0.1, 1.5, 2.0, 2.5, 2.5],
    ],
    // deepspeech
    [
        [0.1, 0.3, 0.3, 0.3, 0.3],
        [0.1, 0.66, 0.66, 0.66, 0.66],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
        [0.1, 1.0, 1.0, 1.0, 1.0],
    ],
];

/// Model `class`'s (0-9, [`MODELS`]) throughput matrix, used only by Synergy-OPT
/// (`docs/synergy-semantics.md` §6): entry `[c][m]` is the throughput per GPU with
/// `TPUT_CPUS_PER_GPU[c]` CPUs and `TPUT_MEM_GB_PER_GPU[m]` GB per GPU over that at the ratio-3
/// proportional share (1.0 = 3 CPUs, 62.5 GB). Every profile set (every [`CpusPerGpu`]) has the
/// same matrices, still normalised to the 3-CPU share even in `models-4/5/6` (§6.4).
///
/// # Panics
/// On a class id outside the zoo.
pub fn tput(class: usize) -> &'static [[f64; 5]; 9] {
    &TPUT[class]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_cover_the_zoo_in_class_order() {
        let classes: Vec<usize> = Task::ALL.iter().flat_map(|t| t.models().iter().copied()).collect();
        assert_eq!(classes, (0..10).collect::<Vec<_>>());
        for t in Task::ALL {
            for &c in t.models() {
                assert_eq!(profile(c, CpusPerGpu::Three).task, t);
            }
        }
    }

    #[test]
    fn values_of_the_default_set() {
        // Appendix B and the per-round iterations it derives (`floor(300 / (it / s))`).
        let alexnet = profile(0, CpusPerGpu::Three);
        assert_eq!((alexnet.ideal_cpus_per_gpu, alexnet.ideal_mem_gb_per_gpu), (12.0, 125.0));
        assert_eq!((300.0 / (alexnet.iteration_s / alexnet.speedup)).floor(), 1470.0);
        let m5 = profile(8, CpusPerGpu::Three);
        assert_eq!((300.0 / (m5.iteration_s / m5.speedup)).floor(), 1250.0);
        assert_eq!(profile(0, CpusPerGpu::Six).ideal_cpus_per_gpu, 24.0);
        assert_eq!(CpusPerGpu::from_ratio(7), None);
    }

    #[test]
    fn tput_matrices() {
        // Cells read from `models/<model>_1.py` at 1bb2bed.
        assert_eq!(tput(1)[6], [0.1, 2.4, 2.4, 2.4, 2.4]);
        assert_eq!(tput(0)[7], [0.1, 2.0, 2.94, 2.94, 2.94]);
        assert_eq!(tput(3)[4][1], 1.49);
        assert_eq!(tput(8)[5], [0.1, 1.5, 2.0, 2.5, 2.5]);
        assert_eq!(tput(9)[2][1], 1.0);
        assert_eq!(tput(4)[8][4], 2.89);
        assert_eq!(TPUT_MEM_GB_PER_GPU[0], 20.83);
        for (class, name) in MODELS.iter().enumerate() {
            let language = profile(class, CpusPerGpu::Three).task == Task::Language;
            assert_eq!(tput(class).iter().flatten().all(|&t| t == 1.0), language, "{name}");
            let t = tput(class);
            // The proportional share (3 CPUs, 62.5 GB) is the unit.
            assert_eq!(t[2][1], 1.0, "{name}");
            // At the ideal CPUs and (the first column with at least the ideal) memory, the
            // matrix gives the ratio-3 set's scalar speedup (§6.4).
            let p = profile(class, CpusPerGpu::Three);
            let row = TPUT_CPUS_PER_GPU.iter().position(|&c| c == p.ideal_cpus_per_gpu).unwrap();
            let col = TPUT_MEM_GB_PER_GPU.iter().position(|&m| m >= p.ideal_mem_gb_per_gpu).unwrap();
            assert_eq!(t[row][col], p.speedup, "{name}");
            // Throughput never falls with more CPUs or memory.
            for r in 0..9 {
                for c in 0..5 {
                    assert!(r == 0 || t[r][c] >= t[r - 1][c]);
                    assert!(c == 0 || t[r][c] >= t[r][c - 1]);
                }
            }
        }
    }
}
