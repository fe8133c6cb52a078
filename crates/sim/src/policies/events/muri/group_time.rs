//! Iteration time of a Muri group and its used ratio (`docs/muri-semantics.md` §8, §7.4, §1.1;
//! original: `matching.py` `_Packing.calc_iteration_time` and `calc_used_ratio`, factors from
//! `jobs.py` `add_job`).
//!
//! Rule: a single job runs at its solo iteration time `(ms × 1.015) / 1000` (stage times unused).
//! A group of k = 2..4 jobs runs one iteration of every member per cycle `T = C × f_k`, where the
//! base cycle `C` is the best (minimum) or worst (maximum) over all k! orders of the jobs of
//! - the four-phase recurrence (when `multi_resource` is 4 and the group's *first* job has exactly
//!   three stage times, as in every shipped trace): each phase, one job does stage 2, the next
//!   stage 1, the one after stage 0 over a two-phase window; the cycle is read over four phases as
//!   soon as two successive four-phase spans agree within a relative 1e-3, else from phases 4..8;
//! - otherwise the general formula `Σ_r max(0, max_p stage_{π[p]}[(r − p) mod R])`;
//!
//! and, for k = 2 under the recurrence, the extra candidate
//! `max(a_x, b_y + c_y) + max(a_y, b_x + c_x)` in the group's own order. `f_k` divides the
//! measured group slowdown by the solo 1.015: [`Interference::MURI`], or
//! [`Interference::WITHOUT_BLOSSOM`] (f_4 = 1.3/1.015) for `multi-resource-gpu-unaware`.
//!
//! Quirks kept: the 1e-3 stop rule makes `C` an approximation (reproduced exactly); the recurrence
//! is chosen by the first job's stage count only; a single job uses `iteration_time` even where its
//! stage sum is larger (1-GPU vgg16/vgg19); float operations keep the original's order (left folds
//! from 0, Python's `max` keeping the first of equals), so values agree to the last bit.

/// The solo factor applied to every trace iteration time (§1.1, `itertime_overhead_list[0]`).
pub const SOLO_FACTOR: f64 = 1.015;

/// A job's solo iteration time in seconds from the trace's milliseconds, in the original's
/// operation order `(ms × 1.015) / 1000` (for 13 of the 48 shipped profiles it differs in the
/// last bit from `(ms / 1000) × 1.015`).
pub fn solo_iteration_time(ms: f64) -> f64 {
    ms * SOLO_FACTOR / 1000.0
}

/// Which extreme over the job orders a group is charged (§7.1): Muri-S/L use the best order,
/// `muri-l-worst-ordering` the worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// The minimum cycle over all orders (`ordering=1`).
    Best,
    /// The maximum cycle over all orders (`ordering=2`).
    Worst,
}

/// Interference factors `f_2, f_3, f_4` multiplying a group's base cycle (§8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interference {
    /// Factor of a two-job group.
    pub pair: f64,
    /// Factor of a three-job group.
    pub triple: f64,
    /// Factor of a four-job group.
    pub quad: f64,
}

impl Interference {
    /// Every Muri variant but Muri-L without Blossom: 1.33, 1.5 and 1.37, each over 1.015.
    pub const MURI: Self = Self { pair: 1.33 / 1.015, triple: 1.5 / 1.015, quad: 1.37 / 1.015 };
    /// `multi-resource-gpu-unaware` (Muri-L without Blossom): f_4 = 1.3/1.015 (jobs.py:211).
    pub const WITHOUT_BLOSSOM: Self = Self { quad: 1.3 / 1.015, ..Self::MURI };

    /// The factor of a k-job group; none for k = 1 (solo time) or k ≥ 5 (the original has none).
    pub fn factor(&self, k: usize) -> Option<f64> {
        match k {
            2 => Some(self.pair),
            3 => Some(self.triple),
            4 => Some(self.quad),
            _ => None,
        }
    }
}

/// How a policy times its groups: ordering, factors and `multi_resource` (R, 4 in every script).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupTimeRule {
    /// Best or worst order.
    pub ordering: Ordering,
    /// The interference factors of the variant.
    pub interference: Interference,
    /// The original's `--multi_resource`: 4 selects the recurrence (with 3-stage jobs) and is the
    /// divisor of the used ratio.
    pub multi_resource: usize,
}

impl GroupTimeRule {
    /// Muri-S and Muri-L: best order, [`Interference::MURI`], R = 4.
    pub const MURI: Self = Self { ordering: Ordering::Best, interference: Interference::MURI, multi_resource: 4 };
    /// `muri-l-worst-ordering`: worst order, same factors.
    pub const WORST_ORDERING: Self = Self { ordering: Ordering::Worst, ..Self::MURI };
    /// `muri-l-without-blossom`: best order, f_4 = 1.3/1.015.
    pub const WITHOUT_BLOSSOM: Self = Self { interference: Interference::WITHOUT_BLOSSOM, ..Self::MURI };
}

/// One member of a group as the timing rule sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupJob<'a> {
    /// Solo iteration time, s, 1.015 included ([`solo_iteration_time`]).
    pub iteration_time: f64,
    /// Stage times, s, in trace column order (`resource_time_0..`).
    pub stages: &'a [f64],
}

/// Largest group the rule is defined for (`packing_num` ≤ 4, §8; blox rejects larger specs).
pub const MAX_GROUP: usize = 4;

/// Base cycle `C` (no factor) of a group of 2..=4 jobs in group order (§8).
///
/// # Panics
/// If the group has fewer than 2 or more than [`MAX_GROUP`] jobs, if a job has fewer stage times
/// than the rule reads (3 for the recurrence, `multi_resource` otherwise), or if the recurrence
/// finds no positive cycle (all stage times 0; the original asserts). Specs and traces are
/// validated before a run (§12).
pub fn base_cycle(jobs: &[GroupJob<'_>], ordering: Ordering, multi_resource: usize) -> f64 {
    let k = jobs.len();
    assert!((2..=MAX_GROUP).contains(&k), "a Muri group has 2..={MAX_GROUP} jobs for a base cycle, not {k}");
    let recurrence = multi_resource == 4 && jobs[0].stages.len() == 3;
    let mut extreme = match ordering {
        Ordering::Best => f64::INFINITY,
        Ordering::Worst => 0.0,
    };
    let mut perm = [0, 1, 2, 3];
    loop {
        let order = &perm[..k];
        let c = if recurrence { recurrence_cycle(jobs, order) } else { general_cycle(jobs, order, multi_resource) };
        extreme = pick(ordering, extreme, c);
        if !next_permutation(&mut perm[..k]) {
            break;
        }
    }
    if recurrence && k == 2 {
        let (x, y) = (jobs[0].stages, jobs[1].stages);
        let c2 = py_max(x[0], y[1] + y[2]) + py_max(y[0], x[1] + x[2]);
        extreme = pick(ordering, extreme, c2);
    }
    extreme
}

/// The group's iteration time `T` (§8): the solo time for one job, else `C × f_k`.
///
/// # Panics
/// As [`base_cycle`]; also for an empty group.
pub fn group_iteration_time(jobs: &[GroupJob<'_>], rule: &GroupTimeRule) -> f64 {
    match jobs {
        [] => panic!("a Muri group has at least one job"),
        [solo] => solo.iteration_time,
        _ => {
            let c = base_cycle(jobs, rule.ordering, rule.multi_resource);
            let f = rule.interference.factor(jobs.len()).expect("2..=4 jobs have a factor");
            c * f
        }
    }
}

/// The used ratio of a group, the matching's edge weight for a merged pair (§7.4,
/// `calc_used_ratio`; one job: `calc_self_used_ratio`): the stage sum of every job, each a left fold
/// from 0 and summed again in group order, over `T × R`.
///
/// # Panics
/// As [`group_iteration_time`].
pub fn used_ratio(jobs: &[GroupJob<'_>], rule: &GroupTimeRule) -> f64 {
    let used = jobs.iter().fold(0.0, |acc, j| acc + j.stages.iter().fold(0.0, |s, &x| s + x));
    used / (group_iteration_time(jobs, rule) * rule.multi_resource as f64)
}

/// The recurrence of §8 for one order: slot `j` holds `jobs[order[j]]` for `j < k`; phases 0..8.
fn recurrence_cycle(jobs: &[GroupJob<'_>], order: &[usize]) -> f64 {
    let k = order.len();
    let stage = |slot: usize, s: usize| jobs[order[slot]].stages[s];
    let mut f = [0.0f64; 9];
    let mut cycle = 0.0;
    for i in 0..8 {
        if (i + 1) % 4 < k {
            f[i + 1] = py_max(f[i + 1], f[i] + stage((i + 1) % 4, 2));
        }
        if (i + 2) % 4 < k {
            f[i + 1] = py_max(f[i + 1], f[i] + stage((i + 2) % 4, 1));
        }
        if i > 0 && (i + 3) % 4 < k {
            f[i + 1] = py_max(f[i + 1], f[i - 1] + stage((i + 3) % 4, 0));
        }
        if i >= 4 && super::isclose(f[i + 1] - f[i - 3], f[i] - f[i - 4], 1e-3, 0.0) {
            cycle = f[i + 1] - f[i - 3];
            break;
        }
    }
    // Python's `not (TT > 0)`: also a stop at a zero (or NaN) difference falls back.
    if cycle <= 0.0 || cycle.is_nan() {
        cycle = f[8] - f[4];
    }
    assert!(cycle > 0.0, "a Muri group cycle must be positive (stage times all 0?)");
    cycle
}

/// The general formula of §8 for one order, R = `multi_resource` phases.
fn general_cycle(jobs: &[GroupJob<'_>], order: &[usize], r: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..r {
        let mut m = 0.0;
        for (p, &j) in order.iter().enumerate() {
            // Python's (i − p + R) % R is never negative.
            let s = (i as isize - p as isize + r as isize).rem_euclid(r as isize) as usize;
            m = py_max(m, jobs[j].stages[s]);
        }
        total += m;
    }
    total
}

/// Keeps the running extreme unless `c` is strictly better (the original's `<` / `>`).
fn pick(ordering: Ordering, extreme: f64, c: f64) -> f64 {
    match ordering {
        Ordering::Best if c < extreme => c,
        Ordering::Worst if c > extreme => c,
        _ => extreme,
    }
}

/// Python's `max(a, b)`: `b` only when strictly greater.
fn py_max(a: f64, b: f64) -> f64 {
    if b > a { b } else { a }
}

/// Next lexicographic permutation in place (itertools order from the identity); false after last.
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = p.windows(2).rposition(|w| w[0] < w[1]) else { return false };
    let j = p.iter().rposition(|&x| x > p[i]).expect("a larger element after the pivot");
    p.swap(i, j);
    p[i + 1..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (iteration ms, stage ms) of trace3 profiles (model/GPUs), as the trace writes them.
    fn profile(name: &str) -> (f64, [f64; 3]) {
        match name {
            "bert/1" => (178.0, [0.5, 160.0, 0.0]),
            "a2c/1" => (517.0, [514.0, 14.0, 0.0]),
            "gpt2/1" => (426.0, [0.6, 410.0, 0.0]),
            "dqn/1" => (490.0, [446.0, 8.0, 0.0]),
            "vgg16/1" => (107.0, [117.0, 68.0, 0.0]),
            "resnet18/1" => (779.0, [711.0, 110.0, 0.0]),
            "vgg16/8" => (214.0, [82.0, 75.0, 66.0]),
            "bert/8" => (192.0, [0.5, 167.0, 59.0]),
            "gpt2/8" => (437.0, [0.6, 419.0, 49.0]),
            "resnet18/8" => (1010.0, [784.0, 117.0, 77.0]),
            "a2c/8" => (555.0, [502.0, 14.0, 0.4]),
            "shufflenet/8" => (957.0, [769.0, 57.0, 10.0]),
            "shufflenet/4" => (886.0, [703.0, 62.0, 17.0]),
            "bert/4" => (190.0, [0.5, 163.0, 18.0]),
            _ => panic!("no profile {name}"),
        }
    }

    /// Appendix B groups with the original's values at full precision
    /// (`scripts/muri_group_time_oracle.py`): raw C, best T, worst T, Σ solo, used ratio.
    const APPENDIX_B: [(&str, [f64; 5]); 12] = [
        ("bert/1 a2c/1", [0.528, 0.6918620689655174, 0.9015172413793106, 0.705425, 0.24878513755980855]),
        ("gpt2/1 dqn/1", [0.454, 0.594896551724138, 1.1321379310344828, 0.92974, 0.363340482262926]),
        ("vgg16/1 vgg16/1", [0.234, 0.3066206896551725, 0.3315172413793104, 0.21721, 0.3016756635177687]),
        ("bert/1 gpt2/1", [0.57, 0.7468965517241379, 0.7476827586206898, 0.6130599999999999, 0.19115766389658354]),
        ("bert/1 a2c/1 dqn/1", [0.528, 0.7802955665024632, 1.4187192118226601, 1.202775, 0.3660471906565656]),
        (
            "bert/1 gpt2/1 a2c/1 dqn/1",
            [0.614, 0.8287487684729065, 1.29576354679803, 1.6351649999999998, 0.4685074835350341],
        ),
        ("resnet18/1 bert/1", [0.821, 1.075793103448276, 1.2854482758620691, 0.971355, 0.22808753766267065]),
        ("vgg16/8 bert/8", [0.2425, 0.3177586206896552, 0.480896551724138, 0.41208999999999996, 0.35364894194248503]),
        ("gpt2/8 resnet18/8", [0.978, 1.2815172413793106, 1.7296551724137934, 1.4687049999999997, 0.2822045527930254]),
        (
            "vgg16/8 bert/8 a2c/8",
            [0.5684, 0.8400000000000001, 1.0862068965517244, 0.9754149999999999, 0.2874702380952381],
        ),
        (
            "vgg16/8 bert/8 a2c/8 gpt2/8",
            [0.71, 0.9583251231527095, 1.3322068965517244, 1.4189699999999998, 0.37422059730646645],
        ),
        (
            "shufflenet/8 gpt2/8 bert/8 a2c/8",
            [0.8400000000000001, 1.133793103448276, 1.7155369458128082, 2.1731149999999997, 0.45147125912408753],
        ),
    ];

    /// The document's table (9 decimals, util 6): the same rows as printed in Appendix B.
    const APPENDIX_B_PRINTED: [[f64; 3]; 12] = [
        [0.691862069, 0.901517241, 0.248785],
        [0.594896552, 1.132137931, 0.363340],
        [0.306620690, 0.331517241, 0.301676],
        [0.746896552, 0.747682759, 0.191158],
        [0.780295567, 1.418719212, 0.366047],
        [0.828748768, 1.295763547, 0.468507],
        [1.075793103, 1.285448276, 0.228088],
        [0.317758621, 0.480896552, 0.353649],
        [1.281517241, 1.729655172, 0.282205],
        [0.840000000, 1.086206897, 0.287470],
        [0.958325123, 1.332206897, 0.374221],
        [1.133793103, 1.715536946, 0.451471],
    ];

    struct Group {
        times: Vec<f64>,
        stages: Vec<[f64; 3]>,
    }

    impl Group {
        fn new(names: &str) -> Self {
            let (times, stages) = names
                .split(' ')
                .map(|n| {
                    let (ms, st) = profile(n);
                    (solo_iteration_time(ms), st.map(|x| x / 1000.0))
                })
                .unzip();
            Group { times, stages }
        }
        fn jobs(&self) -> Vec<GroupJob<'_>> {
            self.times.iter().zip(&self.stages).map(|(&t, s)| GroupJob { iteration_time: t, stages: s }).collect()
        }
    }

    #[test]
    fn appendix_b_to_the_last_bit() {
        for ((names, [raw, best, worst, solo_sum, util]), printed) in APPENDIX_B.iter().zip(APPENDIX_B_PRINTED) {
            let g = Group::new(names);
            let jobs = g.jobs();
            assert_eq!(base_cycle(&jobs, Ordering::Best, 4), *raw, "{names} raw");
            assert_eq!(group_iteration_time(&jobs, &GroupTimeRule::MURI), *best, "{names} best");
            assert_eq!(group_iteration_time(&jobs, &GroupTimeRule::WORST_ORDERING), *worst, "{names} worst");
            assert_eq!(jobs.iter().fold(0.0, |a, j| a + j.iteration_time), *solo_sum, "{names} Σ solo");
            assert_eq!(used_ratio(&jobs, &GroupTimeRule::MURI), *util, "{names} used ratio");
            assert!((best - printed[0]).abs() < 5e-10 && (worst - printed[1]).abs() < 5e-10, "{names}");
            assert!((util - printed[2]).abs() < 5e-7, "{names} util");
        }
    }

    #[test]
    fn k2_candidate() {
        // bert/1 + a2c/1 (Appendix B's note): the candidate max(0.0005, 0.014 + 0) +
        // max(0.514, 0.160 + 0) = 0.528 ties the order (bert, a2c); it does not beat it.
        let g = Group::new("bert/1 a2c/1");
        let jobs = g.jobs();
        assert_eq!([recurrence_cycle(&jobs, &[0, 1]), recurrence_cycle(&jobs, &[1, 0])], [0.528, 0.6880000000000001]);
        assert_eq!(base_cycle(&jobs, Ordering::Best, 4), 0.528);
        // shufflenet/4 + bert/4: the candidate wins by the last bit (0.703 + 0.079 in f64).
        let g = Group::new("shufflenet/4 bert/4");
        let jobs = g.jobs();
        assert_eq!([recurrence_cycle(&jobs, &[0, 1]), recurrence_cycle(&jobs, &[1, 0])], [0.9279999999999999, 0.782]);
        assert_eq!(base_cycle(&jobs, Ordering::Best, 4), 0.7819999999999999);
        // Worst order, shufflenet/4 twice: the candidate (1.406) far above both orders (0.827).
        let g = Group::new("shufflenet/4 shufflenet/4");
        let jobs = g.jobs();
        assert_eq!(recurrence_cycle(&jobs, &[0, 1]), 0.827);
        assert_eq!(base_cycle(&jobs, Ordering::Worst, 4), 1.406);
    }

    #[test]
    fn factors_and_solo() {
        assert_eq!(Interference::MURI.pair, 1.310344827586207);
        assert_eq!(Interference::MURI.triple, 1.4778325123152711);
        assert_eq!(Interference::MURI.quad, 1.349753694581281);
        assert_eq!(Interference::WITHOUT_BLOSSOM.quad, 1.2807881773399017);
        assert_eq!(Interference::WITHOUT_BLOSSOM.triple, Interference::MURI.triple);
        assert_eq!(Interference::MURI.factor(1), None);
        assert_eq!(Interference::MURI.factor(5), None);
        // k = 1: the solo time, even where the stage sum is larger (vgg16/1: 185 ms > 107 ms).
        let g = Group::new("vgg16/1");
        assert_eq!(group_iteration_time(&g.jobs(), &GroupTimeRule::MURI), solo_iteration_time(107.0));
        assert_eq!(group_iteration_time(&g.jobs(), &GroupTimeRule::WORST_ORDERING), 0.108605);
        // Operation order: (ms × 1.015) / 1000 differs from (ms / 1000) × 1.015 for some profiles.
        assert_eq!(solo_iteration_time(178.0), 0.18067);
        assert_eq!(178.0 / 1000.0 * 1.015, 0.18066999999999997);
        // The without-Blossom factor changes only four-job groups.
        let g4 = Group::new("vgg16/8 bert/8 a2c/8 gpt2/8");
        let c = base_cycle(&g4.jobs(), Ordering::Best, 4);
        assert_eq!(group_iteration_time(&g4.jobs(), &GroupTimeRule::WITHOUT_BLOSSOM), c * (1.3 / 1.015));
        let g3 = Group::new("vgg16/8 bert/8 a2c/8");
        let t3 = group_iteration_time(&g3.jobs(), &GroupTimeRule::MURI);
        assert_eq!(group_iteration_time(&g3.jobs(), &GroupTimeRule::WITHOUT_BLOSSOM), t3);
    }

    #[test]
    fn used_ratio_of_one_job_uses_the_solo_time() {
        let g = Group::new("resnet18/1");
        let expected = (((0.0 + 0.711) + 0.11) + 0.0) / (solo_iteration_time(779.0) * 4.0);
        assert_eq!(used_ratio(&g.jobs(), &GroupTimeRule::MURI), expected);
    }

    #[test]
    fn general_formula_for_four_stage_jobs() {
        // Four stages (random draws, §10) select the general formula even with R = 4:
        // phase r takes the max over p of stage[(r − p) mod 4] of the job in position p.
        let a = [0.1, 0.2, 0.3, 0.4];
        let b = [0.4, 0.1, 0.1, 0.1];
        let jobs = [GroupJob { iteration_time: 1.0, stages: &a }, GroupJob { iteration_time: 1.0, stages: &b }];
        // Order (a, b): phases max(a0, b3), max(a1, b0), max(a2, b1), max(a3, b2) = 0.1+0.4+0.3+0.4.
        // Order (b, a): max(b0, a3), max(b1, a0), max(b2, a1), max(b3, a2) = 0.4+0.1+0.2+0.3.
        let ab = ((0.1f64 + 0.4) + 0.3) + 0.4;
        let ba = ((0.4f64 + 0.1) + 0.2) + 0.3;
        assert_eq!(base_cycle(&jobs, Ordering::Best, 4), ab.min(ba));
        assert_eq!(base_cycle(&jobs, Ordering::Worst, 4), ab.max(ba));
        // R = 3 with three-stage jobs also uses it (Python's modulo of a negative index).
        let c = [0.3, 0.2, 0.1];
        let three = [
            GroupJob { iteration_time: 1.0, stages: &c },
            GroupJob { iteration_time: 1.0, stages: &c },
            GroupJob { iteration_time: 1.0, stages: &c },
        ];
        assert_eq!(base_cycle(&three, Ordering::Best, 3), (0.3f64 + 0.3) + 0.3);
    }

    #[test]
    fn permutations_in_itertools_order() {
        let mut p = [0, 1, 2];
        let mut seen = vec![p];
        while next_permutation(&mut p) {
            seen.push(p);
        }
        assert_eq!(seen, [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]);
    }
}
