//! `themis`: finish-time fairness (Themis, NSDI'20) as the ElasticFlow (ASPLOS'23) simulator runs
//! it: `scheduler.py` `themis_sim_jobs` with `utils.get_isolated_throughputs` @ b3f5ea4
//! (`docs/elasticflow-semantics.md` §10, §10.1-§10.4; §2.3 for the coalescing it reuses).
//!
//! Rule: decisions are rounds of exactly one slot from the first arrival on; an event (arrivals,
//! ends) is handled at the first round time at or after it. Each round with runnable jobs solves
//!
//! ```text
//! minimise max_i rho_i(x) = (A_i + I_i / (T_i x_i)) / B_i   s.t. 0 <= x_i <= 1, sum_i g_i x_i <= G
//! ```
//!
//! (`A_i` seconds since submission, `I_i` iterations left, `T_i` iterations/s at the trace's
//! `g_i` GPUs, `B_i` the job's "isolated" time), sorts the runnable jobs by `x` descending
//! (stable) and walks them, running each that still fits (skip-and-continue) until no GPU is
//! left. Jobs run on their trace's GPU count and progress a whole slot per round run, both in
//! iterations and in seconds against the duration; a job ends in the round in which either runs
//! out (§10.3). Accepted when it ends by its deadline, declined otherwise; no overhead.
//!
//! The solver (§10.4) is exact and needs no LP library. `rho_i` falls with `x_i`, so the optimal
//! value is `t* = max(max_i rho_i(1), t_G)`, where `t_G` solves `sum_i g_i c_i(t) = G` for the
//! least share `c_i(t) = I_i / (T_i (t B_i - A_i))` that keeps `rho_i <= t` (Newton from the
//! left: the sum is convex and decreasing). If `t* = t_G` the optimum `x_i = c_i(t*)` is unique.
//! Otherwise (every round of Figure 10 and, per §10.4, of the Figure 8a rounds sampled) the jobs
//! pinning `t*` get 1 and any `x` with `c_i(t*) <= x_i <= 1` that fits is optimal; the original
//! keeps the interior point where ECOS stops. blox takes the point that interior-point methods
//! approach, the analytic centre of that optimal face under the barriers of the cone program
//! cvxpy builds (epigraph rows `t >= rho_i`, `u_i >= 1 / (T_i x_i)` as a 3-d second-order cone,
//! the box, the capacity row). Eliminating `u_i` leaves, per free job, `max 2 ln(x_i - c_i) +
//! ln(1 - x_i) - p g_i x_i` with the capacity price `p = 1 / (G - sum g x)`: a closed form per
//! job (`(2 + c_i) / 3` at `p = 0`) and a bisection on `p`. ECOS stops near, not at, that
//! point, so close shares may order differently. `x` only orders the jobs: it decides which run
//! when not all fit, and the row order of jobs ending in the same round.
//!
//! Quirks kept for fidelity (§10.1-§10.3, §12 item 11): the "isolated" value is the fraction
//! `min(ceil(G / n) / g_i, 1)` of `n` runnable jobs, not a throughput, so `B_i = cum_i + I_i /
//! that fraction` mixes iterations and seconds (`cum_i` adds the iterations done since the last
//! round over the last round's fraction); `A_i` counts from the last round that had an event, not
//! from the current round; the priority `x * 1e9` is the order of `x` (rounds received are never
//! counted); a job ends at `round + remaining seconds` when its duration runs out first and at
//! the round's end when its iterations do; the round clock ticks through idle stretches. Not
//! kept, because only the original's log shows them: it never records a start (logs `maxsize`)
//! nor counts preemptions; blox records the first round a job ran and every round a running job
//! is left out.

use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx, MakePlacement, Speed};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::BUDDY_OR_YARN;
use crate::policies::events::buddy::BuddyPlacement;
use crate::policies::{BuildContext, Built, Engine, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, parse_options};
use blox_ecos::{Csc, Problem, Settings, Status};
use serde::Deserialize;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "themis",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "finish-time fairness: each slot-long round minimises the largest rho, fitting jobs by share",
    options: &[OptionDoc {
        name: "solver",
        example: "ecos",
        meaning: "the optimal point taken when it is not unique: analytic_centre (default) or ecos (the original's: ECOS 2.0 on cvxpy's canonical form)",
    }],
    source: "ElasticFlow's themis (Themis, NSDI'20; scheduler.py themis_sim_jobs)",
    placement: Some(BUDDY_OR_YARN),
    parse: &parse_options::<Options>,
};

/// Options of `themis`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub solver: Option<Solver>,
}

/// Which optimal point of a round's program the shares are (§10.4: under contention the optimum
/// is a face, and the point decides which jobs run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Solver {
    /// The analytic centre of the optimal face, in closed form ([`fair_shares`]).
    #[default]
    AnalyticCentre,
    /// The point ECOS 2.0 returns for the program as cvxpy hands it over ([`ecos_shares`]), as the
    /// original does.
    Ecos,
}

impl Solver {
    /// The option's value in specs, run keys and the runs table.
    pub fn name(self) -> &'static str {
        match self {
            Solver::AnalyticCentre => "analytic_centre",
            Solver::Ecos => "ecos",
        }
    }
}

impl PolicyConfig for Options {
    /// Only the options given: plain `themis` stays a bare name.
    fn params(&self) -> Params {
        let mut params = Params::new();
        if let Some(solver) = self.solver {
            params.insert("solver", solver.name().into());
        }
        params
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Event(Box::new(Themis::with_solver(self.solver.unwrap_or_default()))))
    }
}

#[derive(Debug, Default)]
pub struct Themis {
    solver: Solver,
    /// Time of the last round that processed an event (`A_i` counts from it).
    event_time: SimTime,
    /// Per job index: seconds of duration left (§10.3).
    remaining: Vec<f64>,
    /// Per job index: isolated time accumulated over past rounds (`cum_i`).
    cumulative: Vec<f64>,
    /// Per job index: iterations left and isolated fraction at the last round solved.
    previous: Vec<Option<(f64, f64)>>,
    /// Per job index: the share of the current round.
    share: Vec<f64>,
    terms: Vec<Term>,
    shares: Vec<f64>,
}

/// One job's term of the round's program: `rho(x) = (age + left / (rate x)) / isolated`.
/// Shared with Muri's Themis ([`super::muri::themis`]), which solves the same program.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::policies::events) struct Term {
    pub age: f64,
    pub left: f64,
    pub rate: f64,
    pub isolated: f64,
    pub gpus: f64,
}

impl Term {
    fn rho(&self, x: f64) -> f64 {
        (self.age + self.left / (self.rate * x)) / self.isolated
    }

    /// The least share with `rho <= t`, for `t` above `age / isolated`.
    fn least_share(&self, t: f64) -> f64 {
        self.left / (self.rate * (t * self.isolated - self.age))
    }
}

/// Minimises the largest `rho` subject to `0 <= x <= 1` and `sum gpus x <= total`, writes the
/// chosen optimal point into `x` (see the module doc) and returns the optimal value.
pub(in crate::policies::events) fn fair_shares(terms: &[Term], total: f64, x: &mut Vec<f64>) -> f64 {
    let pinned = terms.iter().map(|t| t.rho(1.0)).fold(f64::NEG_INFINITY, f64::max);
    let demand = |t: f64| terms.iter().map(|term| term.gpus * term.least_share(t)).sum::<f64>();
    x.clear();
    if terms.iter().map(|t| t.gpus).sum::<f64>() > total && demand(pinned) > total {
        // Newton on the convex, decreasing `demand(t) - total` from the left: every step stays
        // left of the root, so the iterates rise monotonically until rounding stops them.
        let mut best = pinned;
        for _ in 0..200 {
            let excess = demand(best) - total;
            if excess <= 0.0 {
                break;
            }
            let slope: f64 = terms
                .iter()
                .map(|term| -term.gpus * term.least_share(best) * term.isolated / (best * term.isolated - term.age))
                .sum();
            let next = best - excess / slope;
            if next <= best {
                break;
            }
            best = next;
        }
        x.extend(terms.iter().map(|term| term.least_share(best).min(1.0)));
        return best;
    }
    x.extend(terms.iter().map(|term| if term.rho(1.0) >= pinned { 1.0 } else { term.least_share(pinned) }));
    central_shares(terms, total, x);
    pinned
}

/// The shares ECOS 2.0.10 returns for the round's program in the form cvxpy 1.9 gives it to ECOS
/// (checked entry for entry against `get_problem_data(ECOS)` by `scripts/ecos_fixtures.py`):
/// variables `(t, x_1..x_n, u_1..u_n)`, minimise `t` subject to, in this row order,
/// `-t + (I_i (1/B_i)) u_i <= -(A_i (1/B_i))` (the epigraph of the maximum), `-x_i <= 0`,
/// `x_i <= 1`, `sum g_i x_i <= G`, then per job the 3-d cone `(T_i x_i + u_i, T_i x_i - u_i, 2)`
/// (`u_i >= 1 / (T_i x_i)`, cvxpy's `inv_pos`). A lone job's program has another form, but its
/// share orders nothing, so it gets 1. cvxpy keeps ECOS's point when ECOS ends optimal, optimal
/// to its reduced tolerances or at its iteration limit (`user_limit`), and so does this; on any
/// other exit cvxpy raises, the original stops, and so does the run, with ECOS's exit code.
pub(in crate::policies::events) fn ecos_shares(terms: &[Term], total: f64, x: &mut Vec<f64>) -> Result<(), String> {
    x.clear();
    let n = terms.len();
    if n < 2 {
        x.resize(n, 1.0);
        return Ok(());
    }
    let solution = blox_ecos::solve(&ecos_program(terms, total), &Settings::default()).map_err(|e| e.to_string())?;
    shares_kept(&solution, n, x)
}

/// The shares of `solution` where cvxpy keeps ECOS's point, else ECOS's exit code as the error.
fn shares_kept(solution: &blox_ecos::Solution, n: usize, x: &mut Vec<f64>) -> Result<(), String> {
    match solution.status {
        Status::Optimal | Status::OptimalInaccurate | Status::MaxIterations => {
            x.extend_from_slice(&solution.x[1..=n]);
            Ok(())
        }
        status => Err(format!("ECOS ended with exit code {} on the round's program", status.exit_flag())),
    }
}

/// The program of [`ecos_shares`] (two jobs or more) as ECOS receives it from cvxpy.
pub(in crate::policies::events) fn ecos_program(terms: &[Term], total: f64) -> Problem {
    let n = terms.len();
    let mut colptr = vec![0];
    let (mut rowval, mut nzval) = (Vec::new(), Vec::new());
    let mut push = |entries: &[(usize, f64)]| {
        for &(row, value) in entries {
            rowval.push(row);
            nzval.push(value);
        }
        colptr.push(rowval.len());
    };
    push(&(0..n).map(|i| (i, -1.0)).collect::<Vec<_>>());
    let cone = |i: usize| 3 * n + 1 + 3 * i;
    for (i, t) in terms.iter().enumerate() {
        push(&[(n + i, -1.0), (2 * n + i, 1.0), (3 * n, t.gpus), (cone(i), -t.rate), (cone(i) + 1, -t.rate)]);
    }
    for (i, t) in terms.iter().enumerate() {
        push(&[(i, t.left * (1.0 / t.isolated)), (cone(i), -1.0), (cone(i) + 1, 1.0)]);
    }
    let mut h: Vec<f64> = terms.iter().map(|t| -(t.age * (1.0 / t.isolated))).collect();
    h.extend(std::iter::repeat_n(0.0, n));
    h.extend(std::iter::repeat_n(1.0, n));
    h.push(total);
    for _ in 0..n {
        h.extend([0.0, 0.0, 2.0]);
    }
    let mut c = vec![0.0; 1 + 2 * n];
    c[0] = 1.0;
    Problem {
        c,
        g: Csc { nrows: 6 * n + 1, ncols: 1 + 2 * n, colptr, rowval, nzval },
        h,
        a: None,
        b: Vec::new(),
        orthant: 3 * n + 1,
        soc: vec![3; n],
    }
}

/// The share in `(least, 1)` maximising `2 ln(x - least) + ln(1 - x) - price x`: the root of
/// `price x^2 - (price (1 + least) + 3) x + price least + 2 + least` in that interval.
fn central_share(least: f64, price: f64) -> f64 {
    let b = price * (1.0 + least) + 3.0;
    let c = price * least + 2.0 + least;
    2.0 * c / (b + (b * b - 4.0 * price * c).sqrt())
}

/// Moves the free shares of `x` (those below 1, at their least values) to the analytic centre
/// of the optimal face. The capacity price `p` satisfies `p (total - sum gpus x(p)) = 1`, whose
/// left side rises with `p`: bisection. Nothing moves when no capacity is left above the least
/// shares (the face is a point).
fn central_shares(terms: &[Term], total: f64, x: &mut [f64]) {
    let free = |x: &f64| *x < 1.0;
    let fixed: f64 = terms.iter().zip(x.iter()).filter(|(_, x)| !free(x)).map(|(t, _)| t.gpus).sum();
    let least_used: f64 = terms.iter().zip(x.iter()).filter(|(_, x)| free(x)).map(|(t, x)| t.gpus * x).sum();
    if !x.iter().any(free) || total - fixed - least_used <= 0.0 {
        return;
    }
    // The free terms' GPUs and least shares, gathered once for the bisection's many sums; each
    // sum's terms are computed into `used` (independent, so the loop vectorises) and then added
    // in order, the same sum as a fold over the terms.
    let (gpus, least): (Vec<f64>, Vec<f64>) =
        terms.iter().zip(x.iter()).filter(|(_, x)| free(x)).map(|(t, &x)| (t.gpus, x)).unzip();
    let mut used = vec![0.0; gpus.len()];
    let mut slack = |price: f64| {
        for ((u, &g), &l) in used.iter_mut().zip(&gpus).zip(&least) {
            *u = g * central_share(l, price * g);
        }
        total - fixed - used.iter().sum::<f64>()
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    while hi * slack(hi) < 1.0 {
        lo = hi;
        hi *= 2.0;
    }
    loop {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if mid * slack(mid) < 1.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for (term, x) in terms.iter().zip(x.iter_mut()) {
        if free(x) {
            *x = central_share(*x, hi * term.gpus);
        }
    }
}

impl Themis {
    /// Themis taking `solver`'s optimal point of each round's program.
    pub fn with_solver(solver: Solver) -> Themis {
        Themis { solver, ..Themis::default() }
    }

    fn grow(&mut self, jobs: usize) {
        if self.remaining.len() < jobs {
            self.remaining.resize(jobs, 0.0);
            self.cumulative.resize(jobs, 0.0);
            self.previous.resize(jobs, None);
            self.share.resize(jobs, 0.0);
        }
    }

    /// The round's program over the runnable jobs in their order (§10.2), updating each job's
    /// accumulated isolated time.
    fn build_terms(&mut self, sim: &EventSim) -> Result<(), RunError> {
        self.terms.clear();
        let fair = (f64::from(sim.total_gpus()) / sim.runnable().len() as f64).ceil();
        for &j in sim.runnable() {
            let job = sim.job(j);
            let gpus = f64::from(job.spec.gpus);
            let fraction = (fair / gpus).min(1.0);
            if let Some((left, before)) = self.previous[j] {
                self.cumulative[j] += (left - job.iter_left) / before;
            }
            self.previous[j] = Some((job.iter_left, fraction));
            self.terms.push(Term {
                age: self.event_time - job.spec.submitted,
                left: job.iter_left,
                rate: job.rate(job.spec.gpus)?,
                isolated: self.cumulative[j] + job.iter_left / fraction,
                gpus,
            });
        }
        Ok(())
    }
}

impl EventPolicy for Themis {
    /// ElasticFlow's buddy placement, as in its simulator (a spec may give yarn instead).
    fn placement(&self) -> Option<MakePlacement> {
        Some(BuddyPlacement::for_cluster)
    }

    /// Every job runs on the GPUs it asks for; one with a curve at its rate there (its isolated
    /// finish time), one without at its solo speed.
    fn check_job(&self, job: &EventJob, _cluster: &ClusterSpec) -> Result<(), String> {
        match &job.speed {
            Speed::Scaling(scaling) if scaling.curve.iterations_per_s(job.spec.gpus).is_none() => Err(format!(
                "themis runs it at the {} GPUs it asks for, and its throughput curve has no rate for {} at global batch {} on {} GPUs",
                job.spec.gpus,
                job.spec.model.as_deref().unwrap_or_default(),
                job.spec.batch_size.unwrap_or_default(),
                job.spec.gpus
            )),
            _ => Ok(()),
        }
    }

    /// Progress is accounted at the end of each round (in [`EventPolicy::next_decision`]), after
    /// the event list was coalesced, as in the original.
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    /// Every placement is released at the top of a round; the event's jobs end, late iff their
    /// end is after the deadline.
    fn complete(&mut self, sim: &mut EventSim, now: SimTime, ends: &[JobIdx]) {
        sim.release_all();
        if sim.next_event_time() == Some(now) {
            self.event_time = now;
        }
        for &j in ends {
            if !sim.completes(j) {
                continue;
            }
            let job = sim.job(j);
            let (end, late) = (job.end_time, job.end_time > job.deadline());
            sim.finish(j, end, late);
        }
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        self.grow(sim.jobs().len());
        for &a in arrivals {
            sim.enqueue(a);
            self.remaining[a] = sim.job(a).spec.work;
        }
        if sim.runnable().is_empty() {
            return Ok(());
        }
        self.build_terms(sim)?;
        let total = f64::from(sim.total_gpus());
        match self.solver {
            Solver::AnalyticCentre => {
                fair_shares(&self.terms, total, &mut self.shares);
            }
            Solver::Ecos => ecos_shares(&self.terms, total, &mut self.shares)
                .map_err(|reason| RunError::Policy { time: now, reason: format!("themis: {reason}") })?,
        }
        for (k, &j) in sim.runnable().iter().enumerate() {
            self.share[j] = self.shares[k];
        }
        let share = &self.share;
        sim.reorder_runnable(|_, runnable| runnable.sort_by(|&a, &b| share[b].total_cmp(&share[a])));
        let mut free = sim.total_gpus();
        sim.pick_running(now, |job| {
            let fits = free > 0 && job.spec.gpus <= free;
            if fits {
                free -= job.spec.gpus;
            }
            fits
        });
        sim.place_widest_first()
    }

    /// §10.1 and §10.3: the next round is a slot later. Events within it are coalesced to it (a
    /// lone event too), then the placed jobs progress one slot and those that run out end at
    /// the next round.
    fn next_decision(&mut self, sim: &mut EventSim, now: SimTime) -> Result<Option<SimTime>, RunError> {
        if !sim.has_events() && sim.runnable().is_empty() {
            return Ok(None);
        }
        let slot = sim.slot();
        let next = now + slot;
        sim.coalesce_into_next_slot(now);
        for k in 0..sim.runnable().len() {
            let j = sim.runnable()[k];
            let job = sim.job(j);
            if job.gpus == 0 {
                continue;
            }
            let mut end = now + self.remaining[j];
            self.remaining[j] = (self.remaining[j] - slot).max(0.0);
            let left = job.iter_left - slot * job.rate(job.gpus)?;
            sim.set_iter_left(j, left);
            if left <= 0.0 {
                self.remaining[j] = 0.0;
                end = next;
            }
            if end <= next {
                sim.add_end_at(j, end, next);
            }
        }
        Ok(Some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(age: f64, left: f64, rate: f64, isolated: f64, gpus: f64) -> Term {
        Term { age, left, rate, isolated, gpus }
    }

    /// The Themis rounds of `scripts/ecos_fixtures.py`, written as the original writes them:
    /// blox's program is cvxpy's entry for entry, and its shares are ECOS's bit for bit.
    #[test]
    fn ecos_shares_are_the_originals_on_cvxpy_canonical_data() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("../../../../ecos/tests/fixtures/ecos_fixtures.json")).unwrap();
        let floats =
            |v: &serde_json::Value| -> Vec<f64> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
        let indices = |v: &serde_json::Value| -> Vec<usize> {
            v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
        };
        let mut rounds = 0;
        for f in all["fixtures"].as_array().unwrap().iter().filter(|f| f.get("terms").is_some()) {
            let terms: Vec<Term> = f["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| {
                    term(
                        t["age"].as_f64().unwrap(),
                        t["left"].as_f64().unwrap(),
                        t["rate"].as_f64().unwrap(),
                        t["isolated"].as_f64().unwrap(),
                        t["gpus"].as_f64().unwrap(),
                    )
                })
                .collect();
            let total = f["total"].as_f64().unwrap();
            let program = ecos_program(&terms, total);
            let name = f["name"].as_str().unwrap();
            assert_eq!(program.c, floats(&f["c"]), "{name}: c");
            assert_eq!(program.h, floats(&f["h"]), "{name}: h");
            assert_eq!(program.g.colptr, indices(&f["G"]["indptr"]), "{name}: G's columns");
            assert_eq!(program.g.rowval, indices(&f["G"]["indices"]), "{name}: G's rows");
            assert_eq!(program.g.nzval, floats(&f["G"]["data"]), "{name}: G's values");
            assert_eq!((program.orthant, program.soc.clone()), (f["l"].as_u64().unwrap() as usize, indices(&f["q"])));
            assert!(f["A"].is_null());
            let mut x = Vec::new();
            ecos_shares(&terms, total, &mut x).unwrap();
            assert_eq!(x, floats(&f["ecos"]["x"])[1..=terms.len()], "{name}: shares");
            rounds += 1;
        }
        assert_eq!(rounds, 7);
    }

    /// ECOS stopped at its iteration limit: cvxpy keeps the point (status `user_limit`), so the
    /// round goes on with it, as the original's does.
    #[test]
    fn an_iteration_limit_keeps_ecos_point() {
        let terms =
            [term(0.0, 1000.0, 2.0, 500.0, 4.0), term(50.0, 3000.0, 1.0, 3000.0, 8.0), term(9.0, 20.0, 5.0, 4.0, 2.0)];
        let settings = Settings { max_iters: 2, ..Settings::default() };
        let solution = blox_ecos::solve(&ecos_program(&terms, 8.0), &settings).unwrap();
        assert_eq!(solution.status, Status::MaxIterations);
        let mut x = Vec::new();
        shares_kept(&solution, terms.len(), &mut x).unwrap();
        assert_eq!(x, solution.x[1..=3]);
    }

    /// The centre's optimality condition for a free share: `2 / (x - c) - 1 / (1 - x) = price g`
    /// with `price = 1 / (total - sum gpus x)`.
    fn assert_central(terms: &[Term], x: &[f64], t: f64, total: f64) {
        let price = 1.0 / (total - terms.iter().zip(x).map(|(term, x)| term.gpus * x).sum::<f64>());
        for (term, &x) in terms.iter().zip(x) {
            if x < 1.0 {
                let c = term.least_share(t);
                assert!(c < x, "{c} < {x}");
                let gap = 2.0 / (x - c) - 1.0 / (1.0 - x) - price * term.gpus;
                assert!(gap.abs() < 1e-9, "{gap}");
            }
        }
    }

    #[test]
    fn central_share_without_a_price_is_two_thirds_of_the_way_up() {
        assert_eq!(central_share(0.0, 0.0), 2.0 / 3.0);
        assert!((central_share(0.4, 0.0) - 0.8).abs() < 1e-15);
        assert!(central_share(0.4, 5.0) < 0.8);
    }

    /// When everything fits, the worst job pins the optimum at its full share and the others sit
    /// at the centre of their optimal interval.
    #[test]
    fn uncontended_optimum_is_the_worst_job_at_full_share() {
        let terms = [term(0.0, 100.0, 1.0, 50.0, 1.0), term(10.0, 100.0, 2.0, 100.0, 1.0)];
        let mut x = Vec::new();
        let t = fair_shares(&terms, 8.0, &mut x);
        assert_eq!((t, x[0]), (2.0, 1.0));
        // rho_1(x) = (10 + 50 / x) / 100 <= 2  <=>  x >= 50 / 190.
        assert!((terms[1].least_share(t) - 50.0 / 190.0).abs() < 1e-15);
        assert!(terms[1].rho(x[1]) < t);
        assert_central(&terms, &x, t, 8.0);
    }

    /// When the cluster is oversubscribed at the pinned level, the optimum fills it exactly and
    /// equalises every rho (the unique case).
    #[test]
    fn contended_optimum_fills_the_cluster_and_equalises_rho() {
        let terms =
            [term(0.0, 100.0, 1.0, 100.0, 4.0), term(0.0, 100.0, 1.0, 100.0, 4.0), term(0.0, 60.0, 1.0, 100.0, 4.0)];
        let mut x = Vec::new();
        let t = fair_shares(&terms, 8.0, &mut x);
        let used: f64 = terms.iter().zip(&x).map(|(term, x)| term.gpus * x).sum();
        assert!((used - 8.0).abs() < 1e-9, "{used}");
        for (term, &x) in terms.iter().zip(&x) {
            assert!((term.rho(x) - t).abs() < 1e-9);
        }
        // Equal rho with equal age and isolated time: shares proportional to work left.
        assert!((x[0] - x[1]).abs() < 1e-15 && (x[2] / x[0] - 0.6).abs() < 1e-12);
    }

    /// Oversubscribed by GPU count but not at the pinned level: the pinned optimum stands and
    /// the capacity price pulls the free share below its unpriced centre.
    #[test]
    fn oversubscribed_but_slack_keeps_the_pinned_optimum() {
        let terms = [term(0.0, 100.0, 1.0, 10.0, 4.0), term(0.0, 1.0, 1.0, 100.0, 8.0)];
        let mut x = Vec::new();
        let t = fair_shares(&terms, 8.0, &mut x);
        assert_eq!((t, x[0]), (10.0, 1.0));
        assert!(x[1] < central_share(0.001, 0.0));
        assert_central(&terms, &x, t, 8.0);
    }

    /// A single job filling the cluster leaves nothing to centre.
    #[test]
    fn a_lone_job_gets_its_full_share() {
        let mut x = Vec::new();
        assert_eq!(fair_shares(&[term(5.0, 100.0, 2.0, 50.0, 8.0)], 8.0, &mut x), 1.1);
        assert_eq!(x, [1.0]);
    }
}
