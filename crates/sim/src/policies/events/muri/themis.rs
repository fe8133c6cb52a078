//! `muri-themis`: finish-time fairness (Themis, NSDI'20) as the Muri (SIGCOMM'22) simulator runs
//! it, its `--schedule themis` baseline (`run_sim.py` `themis_sim_jobs` with
//! `get_isolated_throughputs`, `docs/muri-semantics.md` §6). ElasticFlow's variant of the same
//! program is [`crate::policies::events::themis`] (`themis`); the two differ in when they decide
//! and in what the allocation is used for.
//!
//! Rule: at every arrival and every completion (no rounds, no leases), after the family's progress
//! ([`super::family`]), the runnable jobs in their current order solve
//!
//! ```text
//! minimise max_i (A_i + I_i / (T_i x_i)) / B_i   s.t. 0 <= x_i <= 1, sum_i g_i x_i <= G
//! ```
//!
//! with `A_i = now − submission`, `I_i` iterations left, `T_i = 1 / solo iteration time` and
//! `B_i = cum_i + I_i / a_i`, where `a_i = min(1, ceil(G / n) / g_i)` over the `n` runnable jobs
//! and `cum_i` adds, at every solve, the iterations done since the previous solve over the
//! previous `a_i`. The share `x` is only a priority: each job gets `sort = x × 1e9` before it
//! first ran and `x / seconds run` after, `deficit = should − run` (then `should += x × (now −
//! previous decision)`), and the runnable list is stably sorted by `(sort, deficit, x)`
//! descending. MS-YARN reserves, from an empty cluster, for each job in that order that fits
//! (skip and continue); the list is then stably sorted by GPU count, widest first, and the
//! reserved jobs are placed again from an empty cluster in that order. Chosen jobs run alone at
//! their solo iteration time on the GPUs they ask for; running jobs left out are preempted.
//!
//! Under contention the optimum is a face, not a point, and the point decides the order. Option
//! `solver` picks it: `analytic_centre` (default) solves the program exactly with ElasticFlow's
//! Themis solver (the same program; see that module for the face and its analytic centre), from
//! terms normalised so that jobs equal in exact arithmetic get equal bits; `ecos` takes the point
//! the original takes, ECOS 2.0 (`blox_ecos`) on the program as cvxpy 1.9 hands it over, built
//! from the original's own terms ([`ecos_shares`]): with it the original's runs are reproduced
//! job for job up to any decision at which ECOS fails and the original turns to SCS (§6.4, §6.6).
//!
//! Quirks kept (§6.2, §6.3): `a_i` is a fraction, not the throughput its function is named for,
//! so `B_i` mixes iterations and seconds; `x` is a priority over whole-GPU, solo-speed runs;
//! `deficit` is taken before `should` grows; the widest-first re-sort is the list's order at the
//! next decision. Deviation: a job with no iterations left (it ends at this decision's end plan)
//! stays out of the program with a full share, where the original divides by zero.

use super::MURI_YARN;
use super::family::{Coincidence, Family, check_placed_job, job_overhead};
use crate::core::events::{EventJob, EventPolicy, EventSim, JobIdx};
use crate::core::{ClusterSpec, RunError, SimTime};
use crate::policies::events::themis::{self, Solver, Term, fair_shares};
use crate::policies::{BuildContext, Built, Engine, Kind, OptionDoc, Params, PolicyConfig, PolicyInfo, parse_options};
use blox_ecos::{Csc, Problem, Settings, Status};
use serde::Deserialize;
use std::cmp::Ordering;

pub const INFO: PolicyInfo = PolicyInfo {
    name: "muri-themis",
    kind: Kind::Scheduler,
    engine: Engine::Events,
    summary: "Muri's Themis: finish-time fair shares re-solved at every arrival and completion, used as run priorities",
    options: &[OptionDoc {
        name: "solver",
        example: "ecos",
        meaning: "the optimal point taken when it is not unique: analytic_centre (default) or ecos (the original's: ECOS 2.0 on cvxpy's canonical form; reproduces its runs job for job)",
    }],
    source: "Muri's themis (Themis, NSDI'20; Muri, SIGCOMM'22; run_sim.py themis_sim_jobs)",
    placement: Some(MURI_YARN),
    parse: &parse_options::<Options>,
};

/// Options of `muri-themis`.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default)]
    pub solver: Option<Solver>,
}

impl PolicyConfig for Options {
    /// Only the options given: plain `muri-themis` stays a bare name.
    fn params(&self) -> Params {
        let mut params = Params::new();
        if let Some(solver) = self.solver {
            params.insert("solver", solver.name().into());
        }
        params
    }

    fn build(&self, _ctx: &BuildContext) -> Result<Built, String> {
        Ok(Built::Event(Box::new(MuriThemis::with_solver(self.solver.unwrap_or_default()))))
    }
}

/// A runnable job's standing in the fairness order (§6.3).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Standing {
    /// `x × 1e9` before the job first ran, `x / seconds run` after.
    sort: f64,
    /// Seconds the job should have run by its shares minus seconds it ran, before this decision.
    deficit: f64,
    /// This decision's share `x`.
    share: f64,
}

impl Standing {
    /// The original's tuple order on `(sort, deficit, share)`.
    fn cmp(&self, other: &Self) -> Ordering {
        let key = |s: &Self| [s.sort, s.deficit, s.share];
        key(self).partial_cmp(&key(other)).unwrap_or(Ordering::Equal)
    }
}

#[derive(Debug)]
pub struct MuriThemis {
    solver: Solver,
    family: Family,
    /// Per job index: seconds it should have run by its shares (`time_should_received`).
    should: Vec<f64>,
    /// Per job index: isolated time accumulated over past solves (`cumulative_isolated_time`).
    cumulative: Vec<f64>,
    /// Per job index: iterations left and `a_i` at the previous solve that saw it.
    previous: Vec<Option<(f64, f64)>>,
    standing: Vec<Standing>,
    /// Per job index: MS-YARN reserved room for it in this decision's fairness walk.
    chosen: Vec<bool>,
    /// This decision's program: the runnable jobs with iterations left, and their rows.
    solved: Vec<JobIdx>,
    terms: Vec<Term>,
    shares: Vec<f64>,
}

impl Default for MuriThemis {
    fn default() -> Self {
        Self {
            solver: Solver::default(),
            family: Family::new(Coincidence::Exact),
            should: Vec::new(),
            cumulative: Vec::new(),
            previous: Vec::new(),
            standing: Vec::new(),
            chosen: Vec::new(),
            solved: Vec::new(),
            terms: Vec::new(),
            shares: Vec::new(),
        }
    }
}

impl MuriThemis {
    /// Muri's Themis taking `solver`'s optimal point of each decision's program.
    pub fn with_solver(solver: Solver) -> MuriThemis {
        MuriThemis { solver, ..MuriThemis::default() }
    }

    fn grow(&mut self, jobs: usize) {
        if self.should.len() < jobs {
            self.should.resize(jobs, 0.0);
            self.cumulative.resize(jobs, 0.0);
            self.previous.resize(jobs, None);
            self.standing.resize(jobs, Standing::default());
            self.chosen.resize(jobs, false);
        }
    }

    /// §6.2: the program's rows over the runnable jobs in list order, updating every job's
    /// accumulated isolated time.
    fn build_terms(&mut self, sim: &EventSim, now: SimTime) {
        self.terms.clear();
        self.solved.clear();
        let fair = (f64::from(sim.total_gpus()) / sim.runnable().len() as f64).ceil();
        for &j in sim.runnable() {
            let spec = &sim.job(j).spec;
            let gpus = f64::from(spec.gpus);
            let fraction = (fair / gpus).min(1.0);
            let job = self.family.job(j);
            if let Some((left, before)) = self.previous[j] {
                self.cumulative[j] += (left - job.remaining) / before;
            }
            self.previous[j] = Some((job.remaining, fraction));
            if job.remaining <= 0.0 {
                continue;
            }
            self.solved.push(j);
            self.terms.push(match self.solver {
                // `rho = p + q / x` with `p = A / B` and `q = I / (T B)`, through `B / I =
                // cum / I + 1 / a`: jobs whose shares are equal in exact arithmetic (no history,
                // same speed and fraction) get equal bits, hence the original's stable order.
                Solver::AnalyticCentre => {
                    let isolated_per_iteration = self.cumulative[j] / job.remaining + 1.0 / fraction;
                    Term {
                        age: (now - spec.submitted) / (job.remaining * isolated_per_iteration),
                        left: 1.0 / (isolated_per_iteration / job.solo),
                        rate: 1.0,
                        isolated: 1.0,
                        gpus,
                    }
                }
                // The original's values, as cvxpy receives them (`tput = 1 / iteration_time`).
                Solver::Ecos => Term {
                    age: now - spec.submitted,
                    left: job.remaining,
                    rate: 1.0 / job.solo,
                    isolated: self.cumulative[j] + job.remaining / fraction,
                    gpus,
                },
            });
        }
    }

    /// §6.3: each runnable job's standing from its share, in the original's operation order.
    fn rank(&mut self, sim: &EventSim, now: SimTime) {
        let since = now - self.family.last();
        for &j in sim.runnable() {
            self.standing[j].share = 1.0;
        }
        for (&j, &x) in self.solved.iter().zip(&self.shares) {
            self.standing[j].share = x;
        }
        for &j in sim.runnable() {
            let run = self.family.job(j).executed;
            let standing = &mut self.standing[j];
            let x = standing.share;
            standing.sort = if run == 0.0 { x * 1e9 } else { x / run };
            standing.deficit = self.should[j] - run;
            self.should[j] += x * since;
        }
    }
}

impl EventPolicy for MuriThemis {
    fn check_job(&self, job: &EventJob, cluster: &ClusterSpec) -> Result<(), String> {
        let spec = &job.spec;
        check_placed_job(spec, cluster, false)
    }

    /// Progress is accounted in [`EventPolicy::decide`], after the arrivals (§2.4).
    fn advance(&mut self, _sim: &mut EventSim, _delta: f64, _now: SimTime) -> Result<(), RunError> {
        Ok(())
    }

    fn complete(&mut self, sim: &mut EventSim, now: SimTime, _ends: &[JobIdx]) {
        self.family.complete(sim, now);
    }

    fn decide(&mut self, sim: &mut EventSim, now: SimTime, arrivals: &[JobIdx]) -> Result<(), RunError> {
        self.family.arrive(sim, arrivals);
        self.grow(sim.jobs().len());
        for &j in arrivals {
            let overhead = job_overhead(&sim.job(j).spec)
                .map_err(|e| RunError::InvalidJob { id: sim.job(j).spec.id, reason: e.to_string() })?;
            let solo = self.family.job(j).solo;
            self.family.set_speed(j, solo, overhead);
        }
        self.family.progress(sim, now);
        if !sim.runnable().is_empty() {
            self.build_terms(sim, now);
            let total = f64::from(sim.total_gpus());
            match self.solver {
                Solver::AnalyticCentre => {
                    fair_shares(&self.terms, total, &mut self.shares);
                }
                Solver::Ecos => {
                    let solved = ecos_shares(&self.terms, total, &mut self.shares)
                        .map_err(|reason| RunError::Policy { time: now, reason: format!("muri-themis: {reason}") })?;
                    if !solved {
                        fair_shares(&self.terms, total, &mut self.shares);
                    }
                }
            }
            self.rank(sim, now);
            let standing = &self.standing;
            sim.reorder_runnable(|_, runnable| runnable.sort_by(|&a, &b| standing[b].cmp(&standing[a])));
            self.family.empty_nodes();
            for k in 0..sim.runnable().len() {
                let j = sim.runnable()[k];
                self.chosen[j] = self.family.nodes().take(sim.job(j).spec.gpus);
            }
            sim.reorder_runnable(|jobs, runnable| runnable.sort_by_key(|&j| std::cmp::Reverse(jobs[j].spec.gpus)));
            self.family.clear_run_set(sim);
            self.family.empty_nodes();
            for k in 0..sim.runnable().len() {
                let j = sim.runnable()[k];
                if self.chosen[j] && self.family.nodes().take(sim.job(j).spec.gpus) {
                    self.family.run(j, true);
                }
            }
            self.family.apply(sim, now);
        }
        self.family.plan_ends(sim, now);
        Ok(())
    }

    fn occupies_gpus(&self, _sim: &EventSim, j: JobIdx) -> bool {
        self.family.occupies(j)
    }

    fn next_decision(&mut self, sim: &mut EventSim, _now: SimTime) -> Result<Option<SimTime>, RunError> {
        Ok(self.family.next_decision(sim))
    }
}

/// The shares ECOS returns for the decision's program as cvxpy 1.9 hands it to ECOS: two jobs or
/// more, ElasticFlow's Themis program ([`themis::ecos_program`]), which the original writes the
/// same way; a lone job, its own term without the maximum ([`lone_program`]). cvxpy takes ECOS's
/// point when ECOS ends optimal, optimal to its reduced tolerances, or at its iteration limit
/// (`user_limit`); on any other exit it raises and the original retries with SCS, whose point
/// blox does not reproduce: then `false`, and `x` is left empty.
fn ecos_shares(terms: &[Term], total: f64, x: &mut Vec<f64>) -> Result<bool, String> {
    x.clear();
    let program = match terms {
        [] => return Ok(true),
        [term] => lone_program(term, total),
        _ => themis::ecos_program(terms, total),
    };
    let solution = blox_ecos::solve(&program, &Settings::default()).map_err(|e| e.to_string())?;
    match solution.status {
        Status::Optimal | Status::OptimalInaccurate | Status::MaxIterations => {
            // A lone job's variables are `(u, x)`; the maximum's `(t, x, u)`.
            x.extend_from_slice(&solution.x[1..=terms.len()]);
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// A lone job's program as cvxpy builds it from `minimise (A + I inv_pos(T x)) / B`: variables
/// `(u, x)`, minimise `(I (1/B)) u` (the constant `A / B` stays with cvxpy) subject to, in this row
/// order, `-x <= 0`, `x <= 1`, `g x <= G`, then the 3-d cone `(T x + u, T x - u, 2)` (`u >= 1 /
/// (T x)`).
fn lone_program(term: &Term, total: f64) -> Problem {
    Problem {
        c: vec![term.left * (1.0 / term.isolated), 0.0],
        g: Csc {
            nrows: 6,
            ncols: 2,
            colptr: vec![0, 2, 7],
            rowval: vec![3, 4, 0, 1, 2, 3, 4],
            nzval: vec![-1.0, 1.0, -1.0, 1.0, term.gpus, -term.rate, -term.rate],
        },
        h: vec![0.0, 1.0, total, 0.0, 0.0, 2.0],
        a: None,
        b: Vec::new(),
        orthant: 3,
        soc: vec![3],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::events::muri::family::testing::{finishes, job, run};

    const BERT: [f64; 3] = [0.5, 160.0, 0.0];

    fn themis() -> Box<dyn EventPolicy> {
        Box::new(MuriThemis::default())
    }

    /// Alone on the cluster a job runs at its solo speed from its arrival, overhead-free in the
    /// interval in which it completes (§2.4).
    #[test]
    fn a_lone_job_runs_at_solo_speed() {
        let out = run(1, 8, themis(), vec![job(0, 5.0, 2, 1000.0, "bert", 100.0, BERT)]);
        assert_eq!(finishes(&out), [5.0 + 1000.0 * (100.0 * 1.015 / 1000.0)]);
        assert_eq!(out.jobs[0].first_start, Some(5.0));
    }

    /// Under contention the job furthest behind its fair finish time runs: a long job that has
    /// run gives way to a newcomer (which sorts first at `x × 1e9`), and resumes after it.
    #[test]
    fn a_newcomer_preempts_a_job_that_has_run() {
        let jobs = vec![job(0, 0.0, 8, 10_000.0, "vgg16", 100.0, BERT), job(1, 100.0, 8, 100.0, "vgg16", 100.0, BERT)];
        let out = run(1, 8, themis(), jobs);
        assert_eq!(out.jobs[1].first_start, Some(100.0));
        assert_eq!(out.jobs[0].preemptions, 1);
        assert!(out.jobs[0].finish.unwrap() > out.jobs[1].finish.unwrap());
    }

    /// At t = 0 with no history, `rho_i = a_i / (T_i x_i)`: on one 8-GPU node with three jobs,
    /// `a = min(1, ceil(8 / 3) / g)` is 3/8 for the 8-GPU job and 3/4 for each 4-GPU job, so the
    /// unique optimum gives the 4-GPU jobs twice the 8-GPU job's share (2/3 against 1/3) and they
    /// fill the node first, although the 8-GPU job is first in the trace; it starts when they end.
    #[test]
    fn the_isolated_fraction_orders_equal_jobs_by_gpu_count() {
        let jobs = vec![
            job(0, 0.0, 8, 1000.0, "vgg16", 100.0, BERT),
            job(1, 0.0, 4, 1000.0, "vgg16", 100.0, BERT),
            job(2, 0.0, 4, 1000.0, "vgg16", 100.0, BERT),
        ];
        let out = run(1, 8, themis(), jobs);
        let solo_run = 1000.0 * (100.0 * 1.015 / 1000.0);
        assert_eq!(out.jobs[1].first_start, Some(0.0));
        assert_eq!(out.jobs[2].first_start, Some(0.0));
        assert_eq!(finishes(&out)[1..], [solo_run, solo_run]);
        assert_eq!(out.jobs[0].first_start, Some(solo_run));
        assert_eq!(out.jobs[0].finish, Some(2.0 * solo_run));
    }

    /// The rounds of `scripts/ecos_fixtures.py`'s Muri section, written as the original writes
    /// them (a lone job's own term, else the maximum): blox's program is cvxpy's entry for entry,
    /// and its shares are ECOS's bit for bit.
    #[test]
    fn ecos_shares_are_the_originals_on_cvxpy_canonical_data() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("../../../../../ecos/tests/fixtures/muri_themis.json")).unwrap();
        let floats =
            |v: &serde_json::Value| -> Vec<f64> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
        let indices = |v: &serde_json::Value| -> Vec<usize> {
            v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
        };
        let (mut lone, mut several) = (0, 0);
        for f in all["fixtures"].as_array().unwrap() {
            let terms: Vec<Term> = f["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| Term {
                    age: t["age"].as_f64().unwrap(),
                    left: t["left"].as_f64().unwrap(),
                    rate: t["rate"].as_f64().unwrap(),
                    isolated: t["isolated"].as_f64().unwrap(),
                    gpus: t["gpus"].as_f64().unwrap(),
                })
                .collect();
            let total = f["total"].as_f64().unwrap();
            let (program, columns) = match &terms[..] {
                [term] => {
                    lone += 1;
                    (lone_program(term, total), 1..2)
                }
                _ => {
                    several += 1;
                    (themis::ecos_program(&terms, total), 1..terms.len() + 1)
                }
            };
            let name = f["name"].as_str().unwrap();
            assert_eq!(program.c, floats(&f["c"]), "{name}: c");
            assert_eq!(program.h, floats(&f["h"]), "{name}: h");
            assert_eq!(program.g.colptr, indices(&f["G"]["indptr"]), "{name}: G's columns");
            assert_eq!(program.g.rowval, indices(&f["G"]["indices"]), "{name}: G's rows");
            assert_eq!(program.g.nzval, floats(&f["G"]["data"]), "{name}: G's values");
            assert_eq!((program.orthant, program.soc.clone()), (f["l"].as_u64().unwrap() as usize, indices(&f["q"])));
            assert!(f["A"].is_null());
            let mut x = Vec::new();
            assert!(ecos_shares(&terms, total, &mut x).unwrap(), "{name}: ECOS's point");
            assert_eq!(x, floats(&f["ecos"]["x"])[columns], "{name}: shares");
        }
        assert_eq!((lone, several), (2, 7));
    }

    #[test]
    fn the_standing_orders_like_the_originals_tuple() {
        let s = |sort, deficit, share| Standing { sort, deficit, share };
        assert_eq!(s(1.0, 0.0, 0.0).cmp(&s(0.5, 9.0, 9.0)), Ordering::Greater);
        assert_eq!(s(1.0, 1.0, 0.0).cmp(&s(1.0, 0.0, 9.0)), Ordering::Greater);
        assert_eq!(s(1.0, 1.0, 0.5).cmp(&s(1.0, 1.0, 0.4)), Ordering::Greater);
        assert_eq!(s(1.0, 1.0, 0.5).cmp(&s(1.0, 1.0, 0.5)), Ordering::Equal);
    }
}
