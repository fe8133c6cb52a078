#!/usr/bin/env python3
"""Writes the fixtures of crates/ecos (blox-ecos): problems in ECOS's input form with ECOS's answers.

Each fixture holds exactly the data `ecos.solve` receives (c, G and A as CSC arrays, h, b, the
cone dimensions) and what ECOS 2.0.x returned: status (exitFlag), iteration count, x, y, z, s.
Programs written in cvxpy go through `get_problem_data(cp.ECOS)`, so the data is cvxpy's
canonical form, the one the original simulators' ECOS saw. Three files: ecos_fixtures.json (the
solver's own fixtures, ElasticFlow's Themis rounds), gavel_fixtures.json (Gavel's LP policies'
rounds with the inputs blox's builders take) and muri_themis.json (Muri's Themis rounds).

Usage (versions pinned; the fixture header records them):
    python -m venv /tmp/ecosvenv
    /tmp/ecosvenv/bin/pip install ecos==2.0.14 cvxpy==1.9.3
    /tmp/ecosvenv/bin/python scripts/ecos_fixtures.py crates/ecos/tests/fixtures [section ...]

Sections (all by default): `core` writes ecos_fixtures.json, `gavel` gavel_fixtures.json, `muri`
muri_themis.json.
"""

import json
import math
import sys
import time
from pathlib import Path

import cvxpy as cp
import ecos
import numpy as np
import scipy
from cvxpy.reductions.solvers.conic_solvers.conic_solver import dims_to_solver_dict
from scipy import sparse


def csc(matrix):
    if matrix is None:
        return None
    m = sparse.csc_matrix(matrix)
    return {
        "rows": int(m.shape[0]),
        "cols": int(m.shape[1]),
        "indptr": [int(v) for v in m.indptr],
        "indices": [int(v) for v in m.indices],
        "data": [float(v) for v in m.data],
    }


def floats(v):
    return [] if v is None else [float(x) for x in np.asarray(v).ravel()]


def solve(name, kind, c, G, h, dims, A=None, b=None):
    """Solves with ECOS at its defaults, the way cvxpy calls it, and returns the fixture."""
    G = None if G is None else sparse.csc_matrix(G)
    if G is None:  # ECOS's Python wrapper builds the same empty matrix
        G, h = sparse.csc_matrix((0, len(c))), np.zeros(0)
    A = None if A is None else sparse.csc_matrix(A)
    reps = 20
    start = time.perf_counter()
    for _ in range(reps):
        sol = ecos.solve(c, G, h, dims, A, b, verbose=False)
    seconds = (time.perf_counter() - start) / reps
    info = sol["info"]
    return {
        "name": name,
        "kind": kind,
        "c": floats(c),
        "G": csc(G),
        "h": floats(h),
        "A": csc(A),
        "b": floats(b),
        "l": int(dims.get("l", 0)),
        "q": [int(v) for v in dims.get("q", [])],
        "ecos": {
            "exit_flag": int(info["exitFlag"]),
            "iterations": int(info["iter"]),
            "seconds": seconds,
            "x": floats(sol["x"]),
            "y": floats(sol["y"]),
            "z": floats(sol["z"]),
            "s": floats(sol["s"]),
        },
    }


def from_cvxpy(name, kind, problem):
    data, _, _ = problem.get_problem_data(cp.ECOS)
    dims = dims_to_solver_dict(data["dims"])
    return solve(name, kind, data["c"], data["G"], data["h"], dims, data["A"], data["b"])


def random_lp(rng, n, m, p):
    """A feasible, bounded LP: x0 >= 0 strictly feasible, a dual-feasible objective."""
    G = np.vstack([-np.eye(n), rng.standard_normal((m, n))])
    x0 = rng.uniform(0.5, 1.5, n)
    h = G @ x0 + np.concatenate([np.zeros(n), rng.uniform(0.1, 1.0, m)])
    h[:n] = 0.0
    A = rng.standard_normal((p, n)) if p else None
    b = A @ x0 if p else None
    z0 = rng.uniform(0.1, 1.0, n + m)
    y0 = rng.standard_normal(p) if p else np.zeros(0)
    c = -(G.T @ z0) - (A.T @ y0 if p else 0.0)
    G[np.abs(G) < 0.3] = 0.0  # sparsity (x0 stays feasible only through h, recomputed below)
    h = np.maximum(G @ x0, 0.0) + 0.05
    h[:n] = 0.0
    return c, G, h, {"l": n + m, "q": []}, A, b


def random_socp(rng, n, cones, p):
    """Feasible, bounded SOCP: box-free cones ||F_i x + f_i|| <= g_i'x + d_i around a point."""
    x0 = rng.standard_normal(n)
    x = cp.Variable(n)
    cons = []
    for size in cones:
        F = rng.standard_normal((size - 1, n))
        g = rng.standard_normal(n)
        f = rng.standard_normal(size - 1)
        d = np.linalg.norm(F @ x0 + f) - g @ x0 + rng.uniform(0.5, 1.0)
        cons.append(cp.SOC(g @ x + d, F @ x + f))
    cons.append(cp.norm(x, 2) <= 10.0)
    if p:
        A = rng.standard_normal((p, n))
        cons.append(A @ x == A @ x0)
    c = rng.standard_normal(n)
    return cp.Problem(cp.Minimize(c @ x), cons)


def themis(rng, jobs, contended):
    """ElasticFlow's Themis round: minimise max_i (A_i + I_i / (T_i x_i)) / B_i, box, capacity."""
    age = rng.uniform(0.0, 5000.0, jobs)
    left = rng.uniform(1e3, 1e5, jobs)
    rate = rng.uniform(1.0, 20.0, jobs)
    gpus = rng.choice([1, 2, 4, 8], jobs).astype(float)
    total = gpus.sum() * (0.5 if contended else 2.0)
    isolated = age + left / rate * rng.uniform(0.8, 3.0, jobs)
    x = cp.Variable(jobs)
    rho = [(age[i] + left[i] * cp.inv_pos(rate[i] * x[i])) / isolated[i] for i in range(jobs)]
    problem = cp.Problem(cp.Minimize(cp.max(cp.hstack(rho))), [x >= 0, x <= 1, gpus @ x <= total])
    return problem


def gavel_max_min(rng, jobs, types):
    """Gavel's max-min fairness LP: maximise min_j sum_k T_jk X_jk / scale_j under the per-job
    time budget and the per-type worker counts (ties make the optimum non-unique)."""
    throughputs = rng.choice([1.0, 2.0, 3.0], (jobs, types))
    scale = rng.choice([1.0, 2.0], jobs)
    workers = rng.choice([1.0, 2.0, 3.0], types)
    X = cp.Variable((jobs, types))
    normalised = throughputs / throughputs.max(axis=1, keepdims=True)
    effective = cp.sum(cp.multiply(normalised, X), axis=1)
    problem = cp.Problem(
        cp.Maximize(cp.min(cp.multiply(effective, 1.0 / scale))),
        [X >= 0, cp.sum(X, axis=1) <= 1, scale @ X <= workers],
    )
    return problem


def degenerate(rng, n):
    """min -sum(x) over a simplex face: every point of sum(x) = 1, x >= 0 is optimal."""
    x = cp.Variable(n)
    w = rng.choice([1.0, 2.0], n)
    return cp.Problem(cp.Minimize(-cp.sum(x)), [x >= 0, cp.sum(x) <= 1, cp.multiply(w, x) <= 1.0])


def themis_round(rng, jobs, total):
    """One round of ElasticFlow's Themis written as the original writes it (scheduler.py
    themis_sim_jobs with utils.get_base_constraints), its terms recorded for blox's builder."""
    gpus = rng.choice([1.0, 2.0, 4.0, 8.0, 16.0], jobs)
    age = [float(v) for v in rng.choice(np.arange(0, 100000, 240), jobs)]
    left = [float(v) for v in rng.uniform(1e2, 1e6, jobs)]
    rate = [float(v) for v in rng.uniform(0.5, 50.0, jobs)]
    fraction = np.minimum(np.ceil(total / jobs) / gpus, 1.0)
    isolated = rng.uniform(0.0, 5e4, jobs) + np.array(left) / fraction
    x = cp.Variable(jobs)
    fractions = []
    for i in range(jobs):
        allocation_throughput = rate[i] * x[i]
        expected_time_allocation = age[i] + (left[i] * cp.inv_pos(allocation_throughput))
        fractions.append(expected_time_allocation / isolated[i])
    constraints = [x >= 0, x <= 1, cp.sum(cp.multiply(gpus, x), axis=0) <= total]
    problem = cp.Problem(cp.Minimize(cp.maximum(*fractions)), constraints)
    terms = [{"age": age[i], "left": left[i], "rate": rate[i], "isolated": float(isolated[i]),
              "gpus": float(gpus[i])} for i in range(jobs)]
    return problem, terms


def write(path, fixtures):
    """Writes `fixtures` with the versions that made them, and a line per fixture."""
    header = {
        "generator": "scripts/ecos_fixtures.py",
        "ecos": ecos.__version__,
        "ecos_c": ecos.__solver_version__,
        "cvxpy": cp.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "python": sys.version.split()[0],
    }
    path.write_text(json.dumps({"header": header, "fixtures": fixtures}, separators=(",", ":")) + "\n")
    for f in fixtures:
        e = f["ecos"]
        print(f"{f['name']:28} n={len(f['c']):3} exit={e['exit_flag']:3} it={e['iterations']:3} "
              f"t={e['seconds'] * 1e6:8.1f}us")
    print(f"{len(fixtures)} fixtures, {path.stat().st_size} bytes -> {path}")


def main(out):
    rng = np.random.default_rng(20261129)
    fixtures = []
    for i, (n, m, p) in enumerate([(3, 2, 0), (6, 4, 1), (10, 8, 2), (20, 15, 3)]):
        fixtures.append(solve(f"lp_random_{i}", "lp", *random_lp(rng, n, m, p)))
    for i, (n, cones, p) in enumerate([(3, [3], 0), (5, [3, 4], 1), (8, [3, 5, 4], 2)]):
        fixtures.append(from_cvxpy(f"socp_random_{i}", "socp", random_socp(rng, n, cones, p)))
    for i, n in enumerate([2, 5, 9]):
        fixtures.append(from_cvxpy(f"lp_degenerate_simplex_{i}", "degenerate", degenerate(rng, n)))
    # A max-min LP whose optimal face is wide: identical jobs on one type.
    x = cp.Variable(4)
    fixtures.append(from_cvxpy("lp_degenerate_maxmin", "degenerate", cp.Problem(
        cp.Maximize(cp.minimum(x[0] + x[1], x[2] + x[3])), [x >= 0, cp.sum(x) <= 2, x <= 1])))
    # Infeasible: x >= 1 and x <= -1; unbounded: min -x, x >= 0.
    fixtures.append(solve("lp_infeasible", "infeasible", np.array([1.0]),
                          np.array([[-1.0], [1.0]]), np.array([-1.0, -1.0]), {"l": 2, "q": []}))
    fixtures.append(solve("lp_unbounded", "unbounded", np.array([-1.0, 0.0]),
                          np.array([[-1.0, 0.0], [0.0, -1.0], [0.0, 1.0]]),
                          np.array([0.0, 0.0, 1.0]), {"l": 3, "q": []}))
    for i, (jobs, contended) in enumerate([(3, False), (5, True), (8, False), (12, True)]):
        fixtures.append(from_cvxpy(f"themis_{i}", "themis", themis(rng, jobs, contended)))
    for i, (jobs, types) in enumerate([(3, 2), (6, 3), (10, 3)]):
        fixtures.append(from_cvxpy(f"gavel_max_min_{i}", "gavel", gavel_max_min(rng, jobs, types)))
    # Shapes at the edges of ECOS's input: cones only (no orthant), no inequality rows at all,
    # and a Themis round of the size the Muri traces reach.
    centre = rng.standard_normal(4)
    fixtures.append(solve("socp_cone_only", "socp", np.array([1.0, 0, 0, 0, 0]),
                          -np.eye(5), np.concatenate([[0.0], -centre]), {"l": 0, "q": [5]},
                          np.array([[0.0, 1.0, 1.0, 1.0, 1.0]]), np.array([1.0])))
    fixtures.append(solve("lp_equalities_only", "lp", np.array([1.0, 1.0]), None, None, {"l": 0, "q": []},
                          np.array([[1.0, 1.0]]), np.array([1.0])))
    fixtures.append(from_cvxpy("themis_large", "themis", themis(rng, 24, True)))
    rounds = []
    for i, (jobs, total) in enumerate([(2, 4), (3, 64), (5, 8), (8, 16), (12, 128), (20, 32), (30, 64)]):
        problem, terms = themis_round(rng, jobs, total)
        fixture = from_cvxpy(f"elasticflow_themis_round_{i}", "themis", problem)
        fixture["terms"], fixture["total"] = terms, float(total)
        rounds.append(fixture)
    fixtures.extend(rounds)
    write(out / "ecos_fixtures.json", fixtures)


# --- Gavel's LP policies (scheduler/policies/*.py at c4fa400), written as the original writes them
# with cvxpy: the data ECOS receives, the point it returns, and the inputs blox's builders take.

def gavel_base_constraints(x, scale_factors, capacity):
    """`Policy.get_base_constraints`: shares >= 0, the type's GPUs fit, a job's shares add to <= 1."""
    m, n = x.shape
    scale_factors_array = np.repeat(np.asarray(scale_factors, dtype=float)[:, None], n, axis=1)
    return [x >= 0, cp.sum(cp.multiply(scale_factors_array, x), axis=0) <= list(capacity),
            cp.sum(x, axis=1) <= 1], scale_factors_array


def gavel_max_min_round(throughputs, scale_factors, capacity):
    """`MaxMinFairnessPolicyWithPerf.get_allocation` (priority weights 1); the agnostic policy is
    the same program with every throughput 1."""
    throughputs = np.asarray(throughputs, dtype=float)
    m, n = throughputs.shape
    x_proportional = np.array([[c / m for c in capacity] for _ in range(m)])
    x_proportional = x_proportional / np.sum(x_proportional, axis=1).max()
    proportional = np.sum(np.multiply(throughputs, x_proportional), axis=1).reshape((m, 1))
    weights = np.multiply(np.array([1.0 / 1.0] * m).reshape((m, 1)), 1.0 / proportional.reshape((m, 1)))
    x = cp.Variable(throughputs.shape)
    constraints, sf = gavel_base_constraints(x, scale_factors, capacity)
    objective = cp.Maximize(cp.min(cp.sum(cp.multiply(
        np.multiply(throughputs * weights.reshape((m, 1)), sf), x), axis=1)))
    return cp.Problem(objective, constraints)


def gavel_feasibility_round(throughputs, scale_factors, capacity, remaining, horizon):
    """`MinTotalDurationPolicyWithPerf.get_allocation_helper`: can every job finish by `horizon`?"""
    throughputs = np.asarray(throughputs, dtype=float)
    x = cp.Variable(throughputs.shape)
    constraints, _ = gavel_base_constraints(x, scale_factors, capacity)
    constraints.append(cp.sum(cp.multiply(throughputs, x), axis=1) >= (np.asarray(remaining) / horizon))
    return cp.Problem(cp.Maximize(1), constraints)


def gavel_finish_time_round(throughputs, scale_factors, capacity, age, remaining, isolated_time):
    """`FinishTimeFairnessPolicyWithPerf.get_allocation` for one round: `isolated_time[i]` is the
    denominator `cumulative_i + remaining_i / isolated_throughput_i`, kept as the original's
    one-element array."""
    throughputs = np.asarray(throughputs, dtype=float)
    x = cp.Variable(throughputs.shape)
    fractions = []
    for i in range(throughputs.shape[0]):
        allocation_throughput = cp.sum(cp.multiply(throughputs[i], x[i]))
        expected_time_isolated = np.array([isolated_time[i]])
        expected_time_allocation = age[i] + (remaining[i] * cp.inv_pos(allocation_throughput))
        fractions.append(expected_time_allocation / expected_time_isolated)
    objective = cp.Minimize(fractions[0] if len(fractions) == 1 else cp.maximum(*fractions))
    constraints, _ = gavel_base_constraints(x, scale_factors, capacity)
    return cp.Problem(objective, constraints)


def gavel_inputs(rng, jobs, types, agnostic):
    """A round's inputs of Gavel's size: throughputs in steps/s (equal across types when
    `agnostic`, as the agnostic policies see them), scale factors 1-8, 36-GPU types or fewer."""
    if agnostic:
        throughputs = np.repeat(rng.uniform(0.5, 30.0, (jobs, 1)), types, axis=1)
    else:
        throughputs = rng.uniform(0.5, 30.0, (jobs, types))
    scale_factors = rng.choice([1.0, 1.0, 1.0, 2.0, 4.0, 8.0], jobs)
    capacity = [float(c) for c in rng.choice([4, 8, 36], types)]
    return throughputs, scale_factors, capacity


def gavel_fixtures(out):
    """Rounds of Gavel's max-min fairness, makespan feasibility and finish-time fairness programs,
    each with the inputs blox's builders take (`inputs`)."""
    rng = np.random.default_rng(20261130)
    fixtures = []
    for i, (jobs, types, agnostic) in enumerate([(1, 3, False), (2, 3, True), (4, 3, True), (6, 3, False),
                                                  (12, 3, False), (30, 3, True)]):
        throughputs, sf, capacity = gavel_inputs(rng, jobs, types, agnostic)
        if agnostic:
            throughputs = np.ones_like(throughputs)
        fixture = from_cvxpy(f"gavel_max_min_round_{i}", "gavel", gavel_max_min_round(throughputs, sf, capacity))
        fixture["inputs"] = {"policy": "max_min", "throughputs": throughputs.tolist(),
                             "scale_factors": sf.tolist(), "capacity": capacity}
        fixtures.append(fixture)
    for i, (jobs, types, horizon) in enumerate([(1, 3, 5e4), (3, 3, 2e5), (8, 3, 1e5), (20, 3, 3e6),
                                                 (20, 3, 1e3)]):
        throughputs, sf, capacity = gavel_inputs(rng, jobs, types, i % 2 == 1)
        remaining = [float(v) for v in rng.uniform(1e4, 1e6, jobs)]
        problem = gavel_feasibility_round(throughputs, sf, capacity, remaining, horizon)
        fixture = from_cvxpy(f"gavel_feasibility_round_{i}", "gavel", problem)
        fixture["inputs"] = {"policy": "feasibility", "throughputs": throughputs.tolist(),
                             "scale_factors": sf.tolist(), "capacity": capacity, "remaining": remaining,
                             "horizon": horizon}
        fixtures.append(fixture)
    for i, (jobs, types, agnostic) in enumerate([(1, 3, False), (2, 3, True), (5, 3, False), (9, 3, True),
                                                  (16, 3, False)]):
        throughputs, sf, capacity = gavel_inputs(rng, jobs, types, agnostic)
        age = [float(v) for v in rng.choice([0.0, 360.0, 7200.0, 86400.0], jobs)]
        remaining = [float(v) for v in rng.uniform(1e4, 1e6, jobs)]
        isolated_time = [float(v) for v in np.array(remaining) / rng.uniform(0.2, 10.0, jobs)
                         + rng.uniform(0.0, 5e4, jobs)]
        problem = gavel_finish_time_round(throughputs, sf, capacity, age, remaining, isolated_time)
        fixture = from_cvxpy(f"gavel_finish_time_round_{i}", "gavel", problem)
        fixture["inputs"] = {"policy": "finish_time", "throughputs": throughputs.tolist(),
                             "scale_factors": sf.tolist(), "capacity": capacity, "age": age,
                             "remaining": remaining, "isolated_time": isolated_time}
        fixtures.append(fixture)
    write(out / "gavel_fixtures.json", fixtures)



# --- Muri's Themis (crates/sim/src/policies/events/muri/themis.rs) --------------------------------
# Its own fixture file, muri_themis.json: rounds written as Muri's run_sim.py themis_sim_jobs
# writes them (4e69a78), whose lone-job program differs from ElasticFlow's.


def muri_themis_round(rng, jobs, total, at_start=False):
    """One decision of Muri's Themis as the original writes it: per runnable job `(now - submit +
    I * inv_pos(tput * x_i)) / (cum + I / a)`, `a = min(1, ceil(G / n) / g)` as numpy computes it
    (get_isolated_throughputs), the maximum over the jobs (a lone job's own term), the box and the
    capacity row (get_base_constraints with the cluster's integer GPU count). `at_start`: every
    job submitted now with nothing done, as at t = 0 of a `_pr` trace (equal jobs tie)."""
    gpus = rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], jobs)
    models_ms = rng.choice([23.0, 80.8, 111.1, 180.67, 214.0, 350.5], jobs)
    iteration_time = models_ms * 1.015 / 1000
    if at_start:
        age = [0.0] * jobs
        left = [float(v) for v in rng.choice([1000.0, 5000.0, 20000.0], jobs)]
        cum = np.zeros(jobs)
    else:
        age = [float(v) for v in rng.uniform(0.0, 2e6, jobs)]
        left = [float(v) for v in rng.uniform(1e2, 6e5, jobs)]
        cum = rng.choice([0.0, 1.0], jobs) * rng.uniform(0.0, 5e5, jobs)
    tput = [1 / float(v) for v in iteration_time]
    allocation = np.array([math.ceil(total / jobs) for _ in range(jobs)]) / gpus
    fraction = allocation / np.maximum(allocation, np.ones(allocation.shape))
    isolated = [cum[i] + (left[i] / fraction[i]) for i in range(jobs)]
    x = cp.Variable(jobs)
    fractions = []
    for i in range(jobs):
        allocation_throughput = tput[i] * x[i]
        expected_time_allocation = age[i] + (left[i] * cp.inv_pos(allocation_throughput))
        fractions.append(expected_time_allocation / isolated[i])
    if jobs == 1:
        objective = cp.Minimize(fractions[0])
    else:
        objective = cp.Minimize(cp.maximum(*fractions))
    constraints = [x >= 0, x <= 1, cp.sum(cp.multiply(gpus, x), axis=0) <= total]
    terms = [{"age": age[i], "left": left[i], "rate": tput[i], "isolated": float(isolated[i]),
              "gpus": float(gpus[i])} for i in range(jobs)]
    return cp.Problem(objective, constraints), terms


def muri_themis_fixtures(out):
    """muri_themis.json: Muri Themis rounds in cvxpy's canonical form, ECOS's answers, the terms."""
    rng = np.random.default_rng(20261130)
    rounds = []
    shapes = [(1, 8, False), (1, 64, False), (2, 8, False), (3, 64, False), (6, 16, False),
              (12, 64, False), (40, 64, False), (10, 64, True), (60, 64, True)]
    for i, (jobs, total, at_start) in enumerate(shapes):
        problem, terms = muri_themis_round(rng, jobs, total, at_start)
        fixture = from_cvxpy(f"muri_themis_round_{i}", "themis", problem)
        fixture["terms"], fixture["total"] = terms, float(total)
        rounds.append(fixture)
    write(out / "muri_themis.json", rounds)


SECTIONS = {"core": main, "gavel": gavel_fixtures, "muri": muri_themis_fixtures}

if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "crates/ecos/tests/fixtures")
    target.mkdir(parents=True, exist_ok=True)
    for section in sys.argv[2:] or SECTIONS:
        SECTIONS[section](target)
