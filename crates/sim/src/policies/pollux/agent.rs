//! The Pollux agent of one job (`docs/pollux-semantics.md` §4): what the job learns of its own
//! speed from the configurations it has run (a seven-parameter step-time model fitted to them),
//! its goodput (samples per second times statistical efficiency, with the gradient statistics
//! last measured) and the per-GPU batch and accumulation steps that maximise it on an allocation,
//! chosen on the original's grid of 50 total batch sizes between `max(B0, bmin·r)` and `Bmax`.

use super::lbfgsb;
use super::profile::{Application, BatchPlan, ceil_tolerant};

/// The step-time model's parameters (§4.1): compute `α_c + β_c·b`; network `α + β·(r-2)` across
/// nodes (`_n`) or within one (`_r`); the two combined by a `γ`-norm (1: no overlap, 10: full).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfParams {
    pub alpha_c: f64,
    pub beta_c: f64,
    pub alpha_n: f64,
    pub beta_n: f64,
    pub alpha_r: f64,
    pub beta_r: f64,
    pub gamma: f64,
}

/// Total batch sizes the agent tries per allocation (numpy's `geomspace` default).
const BATCH_CANDIDATES: usize = 50;
/// The network term of a job on one GPU, and the floor of `r - 2` (the original's constants).
const TINY: f64 = 1e-8;

impl PerfParams {
    fn from_vec(x: &[f64; 7]) -> Self {
        Self { alpha_c: x[0], beta_c: x[1], alpha_n: x[2], beta_n: x[3], alpha_r: x[4], beta_r: x[5], gamma: x[6] }
    }

    /// Predicted compute time of one micro-step at per-GPU batch `atomic_bsz`.
    pub fn accum_time(&self, atomic_bsz: f64) -> f64 {
        self.alpha_c + self.beta_c * atomic_bsz
    }

    /// Predicted synchronisation time on `nodes` nodes and `replicas` GPUs.
    pub fn network_time(&self, nodes: f64, replicas: f64) -> f64 {
        let (alpha, beta) = if nodes > 1.0 {
            (self.alpha_n, self.beta_n)
        } else if replicas > 1.0 {
            (self.alpha_r, self.beta_r)
        } else {
            (TINY, TINY)
        };
        alpha + beta * (replicas - 2.0).max(TINY)
    }

    /// Predicted time of one optimizer step with `accum_steps` extra micro-steps.
    pub fn step_time(&self, nodes: f64, replicas: f64, atomic_bsz: f64, accum_steps: f64) -> f64 {
        self.step_time_with(self.network_time(nodes, replicas).powf(self.gamma), atomic_bsz, accum_steps)
    }

    /// [`Self::step_time`] given the network term's power `network^gamma`, which a batch search
    /// on one allocation computes once.
    fn step_time_with(&self, network_power: f64, atomic_bsz: f64, accum_steps: f64) -> f64 {
        let accum = self.accum_time(atomic_bsz);
        let optim = ((accum.powf(self.gamma) + network_power).ln() / self.gamma).exp();
        accum_steps * accum + optim
    }
}

/// One configuration a job ran: (nodes, GPUs, per-GPU batch) and the true step and sync times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observation {
    pub nodes: u32,
    pub replicas: u32,
    pub atomic_bsz: u32,
    pub step_time: f64,
    pub sync_time: f64,
}

/// What a job's agent knows: the configurations it ran (first-seen order), the model fitted to
/// them, and the gradient statistics of its last step.
#[derive(Debug, Clone, Default)]
pub struct Agent {
    pub profile: Vec<Observation>,
    pub perf: Option<PerfParams>,
    /// `(grad_sqr, grad_var)`.
    pub grad: (f64, f64),
}

impl Agent {
    /// Records the step just run (§4.1): the gradient statistics always, the configuration if
    /// new, refitting the model over the whole profile then.
    pub fn observe(&mut self, seen: Observation, grad: (f64, f64)) {
        self.grad = grad;
        if self
            .profile
            .iter()
            .any(|o| (o.nodes, o.replicas, o.atomic_bsz) == (seen.nodes, seen.replicas, seen.atomic_bsz))
        {
            return;
        }
        self.profile.push(seen);
        self.perf = Some(fit(&self.profile));
    }

    /// The most GPUs the job has run on (0 before it ran).
    pub fn max_profiled_replicas(&self) -> u32 {
        self.profile.iter().map(|o| o.replicas).max().unwrap_or(0)
    }

    /// The goodput function of the current model, once there is one.
    pub fn goodput(&self, app: &Application) -> Option<Goodput> {
        self.perf.map(|perf| Goodput::new(perf, self.grad, app))
    }
}

/// A job's predicted goodput in steps at `B0`-equivalents (the original's units: samples per
/// second times efficiency), with the bounds of its batch size.
#[derive(Debug, Clone, Copy)]
pub struct Goodput {
    perf: PerfParams,
    grad_sqr: f64,
    grad_var: f64,
    init_batch: f64,
    max_batch: f64,
    min_local: f64,
    max_local: f64,
}

impl Goodput {
    pub fn new(perf: PerfParams, (grad_sqr, grad_var): (f64, f64), app: &Application) -> Self {
        Self {
            perf,
            grad_sqr,
            grad_var,
            init_batch: f64::from(app.init_batch),
            max_batch: f64::from(app.max_batch),
            min_local: f64::from(app.min_local),
            max_local: f64::from(app.max_local),
        }
    }

    /// Statistical efficiency of total batch `batch` (§4.2): `gain / scale`.
    pub fn efficiency(&self, batch: f64) -> f64 {
        let scale = batch / self.init_batch;
        let denom = self.grad_var / scale + self.grad_sqr;
        let gain = if denom > 0.0 { (self.grad_var + self.grad_sqr) / denom } else { 1.0 };
        gain / scale
    }

    /// Goodput of `replicas` GPUs at per-GPU batch `b` with `s` extra micro-steps, given the
    /// allocation's network term raised to `gamma` (computed once per allocation).
    fn evaluate(&self, network_power: f64, replicas: f64, b: u32, s: u32) -> f64 {
        let batch = replicas * f64::from(b) * f64::from(s + 1);
        let throughput = batch / self.perf.step_time_with(network_power, f64::from(b), f64::from(s));
        throughput * self.efficiency(batch)
    }

    /// The best goodput on an allocation and the per-GPU batch and accumulation giving it
    /// (§4.3): 50 total batches spaced geometrically from `max(B0, bmin·r)` to `Bmax`, each split
    /// into per-GPU batch and micro-steps as the original does (at least one extra micro-step on
    /// one GPU above `B0`); a split outside the per-GPU bounds scores 0; the first best wins.
    pub fn optimize(&self, nodes: u32, replicas: u32) -> (f64, BatchPlan) {
        let (low, high) = self.batch_range(replicas);
        self.optimize_over(nodes, replicas, &batches(low, high))
    }

    /// The least and greatest total batch [`Self::optimize`] tries on `replicas` GPUs: they
    /// depend on the application and the GPU count alone, so a search that scores many jobs of
    /// one application computes the candidates ([`batches`]) once per range.
    pub fn batch_range(&self, replicas: u32) -> (f64, f64) {
        (self.init_batch.max(self.min_local * f64::from(replicas)), self.max_batch)
    }

    /// [`Self::optimize`] over the candidates `batches(self.batch_range(replicas))`.
    pub fn optimize_over(&self, nodes: u32, replicas: u32, batches: &Batches) -> (f64, BatchPlan) {
        let r = f64::from(replicas);
        let network_power = self.perf.network_time(f64::from(nodes), r).powf(self.perf.gamma);
        let mut best = (f64::NEG_INFINITY, BatchPlan { atomic_bsz: 0, accum_steps: 0 });
        for &batch in batches {
            let local = batch / r;
            let mut accum = ceil_tolerant(local / self.max_local) - 1.0;
            if replicas == 1 && local > self.init_batch + 1e-8 {
                accum = accum.max(1.0);
            }
            let atomic = ceil_tolerant(local / (accum + 1.0));
            let plan = BatchPlan { atomic_bsz: atomic as u32, accum_steps: accum as u32 };
            let valid = (self.min_local..=self.max_local).contains(&atomic);
            let goodput = if valid { self.evaluate(network_power, r, plan.atomic_bsz, plan.accum_steps) } else { 0.0 };
            if goodput > best.0 {
                best = (goodput, plan);
            }
        }
        best
    }
}

/// The total batches a batch search tries, in order.
pub type Batches = [f64; BATCH_CANDIDATES];

/// The candidates from `low` to `high`, numpy's `geomspace(low, high, 50)`.
pub fn batches(low: f64, high: f64) -> Batches {
    let mut out = [0.0; BATCH_CANDIDATES];
    for (slot, batch) in out.iter_mut().zip(geomspace(low, high)) {
        *slot = batch;
    }
    out
}

/// numpy's `geomspace(start, stop, 50)`: powers of ten at evenly spaced exponents, the ends
/// set exactly.
fn geomspace(start: f64, stop: f64) -> impl Iterator<Item = f64> {
    let (lo, hi) = (start.log10(), stop.log10());
    let step = (hi - lo) / (BATCH_CANDIDATES - 1) as f64;
    (0..BATCH_CANDIDATES).map(move |i| match i {
        0 => start,
        i if i == BATCH_CANDIDATES - 1 => stop,
        i => 10f64.powf(i as f64 * step + lo),
    })
}

/// The per-GPU batch and accumulation a Pollux job runs at on `placement` (§3.4): the agent's
/// choice once it has a model, before that the smallest batch the GPUs allow (`max(B0,
/// bmin·r)`), never more than `Bmax` in all.
pub fn adaptive_plan(app: &Application, agent: &Agent, placement: &[u32]) -> BatchPlan {
    let replicas: u32 = placement.iter().sum();
    let nodes = placement.iter().filter(|&&g| g > 0).count() as u32;
    match agent.goodput(app) {
        None => app.fixed_batch_plan(app.init_batch.max(app.min_local * replicas), replicas, false),
        Some(goodput) => {
            let (_, plan) = goodput.optimize(nodes, replicas);
            app.capped(plan.atomic_bsz, replicas, plan.accum_steps)
        }
    }
}

// ---- The fit (§4.1) -------------------------------------------------------------------------

/// The model fitted to `profile` as the original fits it: root-mean-square errors of the log
/// compute and log step times plus two small regularisers, from the same start, within the same
/// bounds, with the parameters the data cannot identify pinned; then the prior that crossing
/// nodes is no faster than staying on one. The minimiser is L-BFGS-B as scipy runs it
/// ([`lbfgsb`]), equal to scipy's to rounding.
pub fn fit(profile: &[Observation]) -> PerfParams {
    let mut x = [0.1, 0.01, 0.1, 0.01, 0.1, 0.01, 1.0 + 1e-3];
    let mut lower = [TINY, TINY, TINY, TINY, TINY, TINY, 1.0];
    let mut upper = [f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY, 10.0];
    let mut pin = |i: usize, value: f64, x: &mut [f64; 7]| {
        x[i] = value;
        lower[i] = value;
        upper[i] = value;
    };
    let first_b = profile[0].atomic_bsz;
    if profile.iter().all(|o| o.atomic_bsz == first_b) {
        let mean = profile.iter().map(|o| o.step_time - o.sync_time).sum::<f64>() / profile.len() as f64;
        pin(0, mean / 2.0, &mut x);
    }
    if !profile.iter().any(|o| o.nodes > 1) {
        pin(2, TINY, &mut x);
        pin(3, TINY, &mut x);
    }
    if !profile.iter().any(|o| o.nodes == 1 && o.replicas > 1) {
        pin(4, TINY, &mut x);
        pin(5, TINY, &mut x);
    }
    if !profile.iter().any(|o| o.replicas > 2) {
        pin(3, TINY, &mut x);
        pin(5, TINY, &mut x);
    }
    let data = FitData::new(profile);
    let x = lbfgsb::minimize(
        |p, g| {
            let mut grad = [0.0; 7];
            let value = data.objective(p.try_into().expect("seven parameters"), &mut grad);
            g.copy_from_slice(&grad);
            value
        },
        &x,
        &lower,
        &upper,
    );
    let mut x: [f64; 7] = x.try_into().expect("seven parameters");
    if !profile.iter().any(|o| o.nodes > 1) {
        x[2] = x[2].max(x[4] * 1.1);
        x[3] = x[3].max(x[5] * 1.1);
    }
    PerfParams::from_vec(&x)
}

struct FitData {
    nodes: Vec<f64>,
    replicas: Vec<f64>,
    atomic: Vec<f64>,
    log_accum: Vec<f64>,
    log_step: Vec<f64>,
}

impl FitData {
    fn new(profile: &[Observation]) -> Self {
        Self {
            nodes: profile.iter().map(|o| f64::from(o.nodes)).collect(),
            replicas: profile.iter().map(|o| f64::from(o.replicas)).collect(),
            atomic: profile.iter().map(|o| f64::from(o.atomic_bsz)).collect(),
            log_accum: profile.iter().map(|o| (o.step_time - o.sync_time).ln()).collect(),
            log_step: profile.iter().map(|o| o.step_time.ln()).collect(),
        }
    }

    /// The objective at `x` and its gradient into `grad`.
    fn objective(&self, x: &[f64; 7], grad: &mut [f64; 7]) -> f64 {
        let p = PerfParams::from_vec(x);
        let k = self.nodes.len() as f64;
        let (mut sq1, mut sq2) = (0.0, 0.0);
        let mut d1 = [0.0; 7];
        let mut d2 = [0.0; 7];
        for i in 0..self.nodes.len() {
            let (n, r, b) = (self.nodes[i], self.replicas[i], self.atomic[i]);
            let accum = p.accum_time(b);
            let network = p.network_time(n, r);
            let e1 = accum.ln() - self.log_accum[i];
            sq1 += e1 * e1;
            d1[0] += e1 / accum;
            d1[1] += e1 * b / accum;
            let (ag, ng) = (accum.powf(p.gamma), network.powf(p.gamma));
            let s = ag + ng;
            let log_optim = s.ln() / p.gamma;
            let e2 = log_optim - self.log_step[i];
            sq2 += e2 * e2;
            let d_accum = ag / accum / s;
            let d_network = ng / network / s;
            d2[0] += e2 * d_accum;
            d2[1] += e2 * d_accum * b;
            let m = (r - 2.0).max(TINY);
            if n > 1.0 {
                d2[2] += e2 * d_network;
                d2[3] += e2 * d_network * m;
            } else if r > 1.0 {
                d2[4] += e2 * d_network;
                d2[5] += e2 * d_network * m;
            }
            let d_gamma = -s.ln() / (p.gamma * p.gamma) + (ag * accum.ln() + ng * network.ln()) / (p.gamma * s);
            d2[6] += e2 * d_gamma;
        }
        let err1 = (sq1 / k).sqrt();
        let err2 = (sq2 / k).sqrt();
        let ratio_n = p.beta_n / p.alpha_n;
        let ratio_r = p.beta_r / p.alpha_r;
        let value = err1 + err2 + 1e-3 * (p.gamma - 1.0).powi(2) + 1e-2 * (ratio_n * ratio_n + ratio_r * ratio_r);
        // d sqrt(mean(e²)) = mean(e·de) / sqrt(mean(e²)); at an exact fit the term is flat.
        let scale1 = if err1 > 0.0 { 1.0 / (k * err1) } else { 0.0 };
        let scale2 = if err2 > 0.0 { 1.0 / (k * err2) } else { 0.0 };
        for j in 0..7 {
            grad[j] = d1[j] * scale1 + d2[j] * scale2;
        }
        grad[6] += 2e-3 * (p.gamma - 1.0);
        grad[2] -= 2e-2 * ratio_n * ratio_n / p.alpha_n;
        grad[3] += 2e-2 * ratio_n / p.alpha_n;
        grad[4] -= 2e-2 * ratio_r * ratio_r / p.alpha_r;
        grad[5] += 2e-2 * ratio_r / p.alpha_r;
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appendix B.3's model of a cifar10 job after one step on one GPU at b = 128.
    fn one_gpu_cifar10() -> PerfParams {
        PerfParams {
            alpha_c: 0.051294993884704605,
            beta_c: 0.0004026358385081985,
            alpha_n: 1.1e-8,
            beta_n: 1.1e-8,
            alpha_r: 1e-8,
            beta_r: 1e-8,
            gamma: 1.0009999999080448,
        }
    }

    /// A goodput with cifar10's bounds (B0 128, Bmax 4096, b in 32..=1024) and its gradient
    /// statistics at B = 128 in epoch 1.
    fn cifar10_goodput(perf: PerfParams) -> Goodput {
        Goodput {
            perf,
            grad_sqr: 8.947307535897327,
            grad_var: 5.066593295150893,
            init_batch: 128.0,
            max_batch: 4096.0,
            min_local: 32.0,
            max_local: 1024.0,
        }
    }

    /// Appendix B.3: the original's grid optimiser with this model picks these batches.
    #[test]
    fn batch_choice_is_the_originals_on_appendix_b3() {
        let goodput = cifar10_goodput(one_gpu_cifar10());
        let cases = [
            ((1, 1), 1244.7439829103027, 128, 0),
            ((1, 2), 1662.2259713452154, 69, 0),
            ((1, 4), 2060.679148306663, 49, 0),
            ((2, 8), 2435.9436757150756, 34, 0),
            ((4, 16), 2736.394319585485, 32, 0),
        ];
        for ((n, r), expected, b, s) in cases {
            let (seen, plan) = goodput.optimize(n, r);
            assert_eq!((plan.atomic_bsz, plan.accum_steps), (b, s), "({n}, {r})");
            assert!((seen - expected).abs() < 1e-9 * expected, "({n}, {r}): {seen} vs {expected}");
        }
    }

    /// By hand: with no sync cost and a noise-free gradient (`var = 0`), a bigger batch brings
    /// no progress per step, so goodput is `B0 / step time` and the smallest batch wins; with a
    /// pure-noise gradient (`sqr = 0`), efficiency is 1 and the largest batch the per-GPU bound
    /// allows wins when compute has a fixed cost.
    #[test]
    fn batch_choice_follows_the_noise_scale_by_hand() {
        let perf = PerfParams {
            alpha_c: 0.1,
            beta_c: 0.001,
            alpha_n: TINY,
            beta_n: TINY,
            alpha_r: TINY,
            beta_r: TINY,
            gamma: 1.0,
        };
        let mut g = cifar10_goodput(perf);
        (g.grad_sqr, g.grad_var) = (1.0, 0.0);
        let (best, plan) = g.optimize(1, 2);
        // Smallest candidate: max(128, 32·2) = 128 over 2 GPUs → b = 64; step = 0.1 + 0.064 +
        // the network's 2e-8 (γ = 1 adds them).
        assert_eq!((plan.atomic_bsz, plan.accum_steps), (64, 0));
        let step = 0.1 + 0.001 * 64.0 + (TINY + TINY * TINY);
        assert!((best - 128.0 / step).abs() < 1e-9, "{best}");
        (g.grad_sqr, g.grad_var) = (0.0, 1.0);
        let (_, plan) = g.optimize(1, 2);
        // Largest candidate: 4096 over 2 GPUs = 2048 > 1024 → one extra micro-step of 1024.
        assert_eq!((plan.atomic_bsz, plan.accum_steps), (1024, 1));
    }

    /// Appendix B.3's three-observation cifar10 profile, fitted by the original's
    /// `fit_perf_params` on its pinned stack (scipy 1.5.2, autograd 1.3, numpy 1.19.2):
    /// objective 0.0201199030693845 at `scipy` below. blox lands on the same minimum (the two
    /// gradients differ in their last bits, which L-BFGS-B's path amplifies to about 1e-3 in the
    /// flattest parameters). One observation pins what one GPU cannot tell (§4.1).
    #[test]
    fn fit_matches_the_originals_on_appendix_b3() {
        let seen = [
            (1, 1, 128, 0.10311532334277503, 0.0005253355733658137),
            (1, 4, 128, 0.10976016960645976, 0.004430788643109171),
            (2, 8, 256, 0.2599324620564779, 0.05978318278503418),
        ];
        let profile: Vec<Observation> = seen
            .iter()
            .map(|&(nodes, replicas, atomic_bsz, step_time, sync_time)| Observation {
                nodes,
                replicas,
                atomic_bsz,
                step_time,
                sync_time,
            })
            .collect();
        let fitted = fit(&profile);
        let x =
            [fitted.alpha_c, fitted.beta_c, fitted.alpha_n, fitted.beta_n, fitted.alpha_r, fitted.beta_r, fitted.gamma];
        let objective = FitData::new(&profile).objective(&x, &mut [0.0; 7]);
        assert!((objective - 0.0201199030693845).abs() < 1e-6, "{objective} {fitted:?}");
        let scipy = [
            0.005435470932745585,
            0.0007631238151049522,
            0.010285705934832929,
            0.008828715004369802,
            0.007403319033573968,
            1e-08,
            1.0296055346236983,
        ];
        for (value, expected) in x.iter().zip(scipy) {
            assert!((value / expected - 1.0).abs() < 2e-3, "{fitted:?}");
        }
        for o in &profile {
            let predicted = fitted.step_time(f64::from(o.nodes), f64::from(o.replicas), f64::from(o.atomic_bsz), 0.0);
            assert!((predicted / o.step_time - 1.0).abs() < 2e-3, "{o:?}: {predicted}");
        }
        let one = [Observation {
            nodes: 1,
            replicas: 1,
            atomic_bsz: 128,
            step_time: 0.10311532334277503,
            sync_time: 0.0005253355733658137,
        }];
        let fitted = fit(&one);
        assert_eq!(fitted.alpha_c, (0.10311532334277503 - 0.0005253355733658137) / 2.0);
        assert_eq!((fitted.alpha_r, fitted.beta_r), (TINY, TINY));
        assert_eq!((fitted.alpha_n, fitted.beta_n), (1.1 * TINY, 1.1 * TINY));
        // Appendix B.3's fit of the same observation: β_c ≈ 4.03e-4, γ ≈ 1.001.
        assert!((fitted.beta_c / 0.0004026358385081985 - 1.0).abs() < 0.01, "{fitted:?}");
        assert!((fitted.gamma - 1.001).abs() < 1e-3, "{fitted:?}");
    }
}
