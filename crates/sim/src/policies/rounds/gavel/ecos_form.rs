//! Gavel's programs as cvxpy 1.9 hands them to ECOS (`get_problem_data(ECOS)`), entry for entry,
//! so that `solver: ecos` lands on the point the original's default solver returns.
//!
//! cvxpy's canonical form (checked against its output by `scripts/ecos_fixtures.py`, fixtures in
//! `crates/ecos/tests/fixtures/gavel_fixtures.json`): the allocation `x` (jobs `m` x types `n`)
//! is flattened column by column (`x[i][w]` is variable `w m + i`); an epigraph variable, when
//! the objective has one, comes first and `inv_pos`'s variables last; the rows are the
//! objective's epigraph rows, then the constraints in the original's order (`x >= 0` column by
//! column, the types' GPU counts, the jobs' share sums, then the program's own), then the
//! second-order cones. Zero coefficients are not stored, as cvxpy drops them.

use super::lp::{BaseProblem, Terms};
use blox_ecos::{Csc, Problem};

/// `G z <= h` under construction, by (row, column).
struct Rows {
    entries: Vec<(usize, usize, f64)>,
    h: Vec<f64>,
}

impl Rows {
    fn push(&mut self, terms: impl IntoIterator<Item = (usize, f64)>, h: f64) {
        let row = self.h.len();
        self.entries.extend(terms.into_iter().filter(|&(_, v)| v != 0.0).map(|(col, v)| (row, col, v)));
        self.h.push(h);
    }

    /// The program with objective `c`: the first `orthant` rows nonnegative, then 3-d cones.
    fn program(mut self, c: Vec<f64>, orthant: usize) -> Problem {
        let columns = c.len();
        self.entries.sort_by_key(|&(row, col, _)| (col, row));
        let mut colptr = vec![0; columns + 1];
        for &(_, col, _) in &self.entries {
            colptr[col + 1] += 1;
        }
        for col in 0..columns {
            colptr[col + 1] += colptr[col];
        }
        let rows = self.h.len();
        Problem {
            c,
            g: Csc {
                nrows: rows,
                ncols: columns,
                colptr,
                rowval: self.entries.iter().map(|e| e.0).collect(),
                nzval: self.entries.iter().map(|e| e.2).collect(),
            },
            h: self.h,
            a: None,
            b: Vec::new(),
            orthant,
            soc: vec![3; (rows - orthant) / 3],
        }
    }
}

/// Where blox's variable `k` (row-major, [`BaseProblem::var`]) sits in cvxpy's order, after
/// `offset` variables that come first.
pub struct Layout {
    jobs: usize,
    types: usize,
    offset: usize,
}

impl Layout {
    fn of(problem: &BaseProblem, offset: usize) -> Layout {
        Layout { jobs: problem.scale_factors.len(), types: problem.capacity.len(), offset }
    }

    fn column(&self, k: usize) -> usize {
        self.offset + (k % self.types) * self.jobs + k / self.types
    }

    fn terms<'a>(&'a self, terms: &'a Terms, sign: f64) -> impl Iterator<Item = (usize, f64)> + 'a {
        terms.iter().map(move |&(k, c)| (self.column(k), sign * c))
    }

    /// The allocation from ECOS's `x`, clipped to [0, 1] as Gavel clips it.
    pub fn allocation(&self, x: &[f64]) -> Vec<Vec<f64>> {
        (0..self.jobs)
            .map(|i| (0..self.types).map(|t| x[self.offset + t * self.jobs + i].clamp(0.0, 1.0)).collect())
            .collect()
    }

    /// `Policy.get_base_constraints`: `x >= 0`, `sum_i sf_i x[i][w] <= N_w`, `sum_w x[i][w] <= 1`.
    fn base_rows(&self, problem: &BaseProblem, rows: &mut Rows) {
        let (m, n) = (self.jobs, self.types);
        for col in 0..m * n {
            rows.push([(self.offset + col, -1.0)], 0.0);
        }
        for t in 0..n {
            rows.push((0..m).map(|i| (self.offset + t * m + i, problem.scale_factors[i])), problem.capacity[t]);
        }
        for i in 0..m {
            rows.push((0..n).map(|t| (self.offset + t * m + i, 1.0)), 1.0);
        }
    }
}

fn empty() -> Rows {
    Rows { entries: Vec::new(), h: Vec::new() }
}

/// `Maximize(min(sum(multiply(coefficients, x), axis=1)))` over the base constraints: variables
/// `(t, x)`, minimise `t` with `-t - rate_i(x) <= 0` (so `t` is minus the smallest rate).
/// Only for programs of jobs alone (`rows_of_job` is `None`).
pub fn max_min(problem: &BaseProblem, rates: &[Terms]) -> (Problem, Layout) {
    let layout = Layout::of(problem, 1);
    let mut rows = empty();
    for terms in rates {
        rows.push(std::iter::once((0, -1.0)).chain(layout.terms(terms, -1.0)), 0.0);
    }
    layout.base_rows(problem, &mut rows);
    let mut c = vec![0.0; 1 + rates.len() * layout.types];
    c[0] = 1.0;
    let orthant = rows.h.len();
    (rows.program(c, orthant), layout)
}

/// `Maximize(1)` over the base constraints and `sum(multiply(rates, x), axis=1) >= min_rate`:
/// variables `x` alone, a zero objective.
pub fn feasibility(problem: &BaseProblem, rates: &[Terms], min_rate: &[f64]) -> (Problem, Layout) {
    let layout = Layout::of(problem, 0);
    let mut rows = empty();
    layout.base_rows(problem, &mut rows);
    for (terms, &min) in rates.iter().zip(min_rate) {
        rows.push(layout.terms(terms, -1.0), -min);
    }
    let orthant = rows.h.len();
    (rows.program(vec![0.0; rates.len() * layout.types], orthant), layout)
}

/// `Minimize(maximum(*fractions))` with `fraction_i = (age_i + remaining_i * inv_pos(rate_i(x)))
/// / isolated_i`: variables `(t, x, u)`, epigraph rows `-t + remaining_i (1 / isolated_i) u_i <=
/// -(age_i (1 / isolated_i))`, the base constraints, then per job the cone `(rate_i + u_i,
/// rate_i - u_i, 2)` (`u_i >= 1 / rate_i`). A lone job's objective is its fraction itself:
/// variables `(u, x)`, no epigraph.
pub fn finish_time(
    problem: &BaseProblem,
    rates: &[Terms],
    age: &[f64],
    remaining: &[f64],
    isolated: &[f64],
) -> (Problem, Layout) {
    let m = rates.len();
    let lone = m == 1;
    let layout = Layout::of(problem, 1);
    let inverse = |i: usize| if lone { 0 } else { 1 + m * layout.types + i };
    let mut rows = empty();
    let mut c = vec![0.0; 1 + m * layout.types + if lone { 0 } else { m }];
    if lone {
        c[0] = remaining[0] * (1.0 / isolated[0]);
    } else {
        c[0] = 1.0;
        for i in 0..m {
            rows.push(
                [(0, -1.0), (inverse(i), remaining[i] * (1.0 / isolated[i]))],
                0.0 - age[i] * (1.0 / isolated[i]),
            );
        }
    }
    layout.base_rows(problem, &mut rows);
    let orthant = rows.h.len();
    for (i, terms) in rates.iter().enumerate() {
        rows.push(layout.terms(terms, -1.0).chain([(inverse(i), -1.0)]), 0.0);
        rows.push(layout.terms(terms, -1.0).chain([(inverse(i), 1.0)]), 0.0);
        rows.push([], 2.0);
    }
    (rows.program(c, orthant), layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::rounds::gavel::lp::{Outcome, Solver};
    use crate::policies::rounds::gavel::max_min_fairness::normalised_rates;
    use serde_json::Value;

    fn floats(v: &Value) -> Vec<f64> {
        v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
    }

    fn indices(v: &Value) -> Vec<usize> {
        v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
    }

    fn matrix(v: &Value) -> Vec<Vec<f64>> {
        v.as_array().unwrap().iter().map(floats).collect()
    }

    /// The Gavel rounds of `scripts/ecos_fixtures.py`, written as the original writes them: blox's
    /// program is cvxpy's entry for entry, ECOS's iterate is the fixture's bit for bit, and the
    /// allocation is ECOS's `x` clipped, as the original reads it.
    #[test]
    fn programs_are_cvxpys_and_land_on_ecos_point() {
        let all: Value =
            serde_json::from_str(include_str!("../../../../../ecos/tests/fixtures/gavel_fixtures.json")).unwrap();
        let mut seen = [0; 3];
        for f in all["fixtures"].as_array().unwrap() {
            let (name, inputs) = (f["name"].as_str().unwrap(), &f["inputs"]);
            let throughput = matrix(&inputs["throughputs"]);
            let scale_factors = floats(&inputs["scale_factors"]);
            let capacity = floats(&inputs["capacity"]);
            let problem = BaseProblem { scale_factors: &scale_factors, capacity: &capacity, rows_of_job: None };
            let ((program, layout), outcome) = match inputs["policy"].as_str().unwrap() {
                "max_min" => {
                    seen[0] += 1;
                    let rates = problem.own_terms(&normalised_rates(&throughput, &scale_factors, &capacity));
                    (max_min(&problem, &rates), problem.max_min(&rates, Solver::Ecos))
                }
                "feasibility" => {
                    seen[1] += 1;
                    let rates = problem.own_terms(&throughput);
                    let horizon = inputs["horizon"].as_f64().unwrap();
                    let min_rate: Vec<f64> = floats(&inputs["remaining"]).iter().map(|r| r / horizon).collect();
                    (feasibility(&problem, &rates, &min_rate), problem.feasible_rates(&rates, &min_rate, Solver::Ecos))
                }
                _ => {
                    seen[2] += 1;
                    let rates = problem.own_terms(&throughput);
                    let (age, remaining) = (floats(&inputs["age"]), floats(&inputs["remaining"]));
                    let isolated = floats(&inputs["isolated_time"]);
                    (
                        finish_time(&problem, &rates, &age, &remaining, &isolated),
                        problem.min_max_finish_time_ratio(&rates, &age, &remaining, &isolated, Solver::Ecos),
                    )
                }
            };
            assert_eq!(program.c, floats(&f["c"]), "{name}: c");
            assert_eq!(program.h, floats(&f["h"]), "{name}: h");
            assert_eq!(program.g.colptr, indices(&f["G"]["indptr"]), "{name}: G's columns");
            assert_eq!(program.g.rowval, indices(&f["G"]["indices"]), "{name}: G's rows");
            assert_eq!(program.g.nzval, floats(&f["G"]["data"]), "{name}: G's values");
            assert_eq!((program.orthant, program.soc.clone()), (f["l"].as_u64().unwrap() as usize, indices(&f["q"])));
            assert!(f["A"].is_null(), "{name}: no equality rows");
            let ecos = &f["ecos"];
            let solution = blox_ecos::solve(&program, &blox_ecos::Settings::default()).unwrap();
            assert_eq!(solution.status.exit_flag(), ecos["exit_flag"].as_i64().unwrap() as i32, "{name}: exit");
            assert_eq!(solution.iterations, ecos["iterations"].as_u64().unwrap() as usize, "{name}: iterations");
            assert_eq!(solution.x, floats(&ecos["x"]), "{name}: x");
            match outcome {
                Outcome::Optimal(x) => assert_eq!(x, layout.allocation(&floats(&ecos["x"])), "{name}: allocation"),
                other => assert_eq!((other, ecos["exit_flag"].as_i64()), (Outcome::Failed, Some(1)), "{name}"),
            }
        }
        assert_eq!(seen, [6, 5, 5]);
    }
}
