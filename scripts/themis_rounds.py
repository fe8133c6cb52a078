#!/usr/bin/env python3
"""Runs the original ElasticFlow simulator's `themis` and records every round's program.

Usage (from the original's `ElasticFlow/scheduler/` directory, in a Python with cvxpy 1.9.3 +
ECOS 2.0.14, numpy, protobuf 3.20.3 and grpcio):

    python3 /path/to/blox/scripts/themis_rounds.py ROUNDS.jsonl [--dump-round K PROGRAM.json] \
        -- scheduler.py --schedule=themis --simulation=True ...

The scheduler runs unchanged, as its own `__main__`; two of the functions it calls are wrapped,
only to observe them: the round's capacity constraint (the runnable jobs' GPU counts and the
cluster's total) and the solve (ECOS's shares afterwards). Each solved round appends one JSON
line `{"round": k, "jobs": [...], "gpus": [...], "total": G, "x": [...]}` (job ids, GPU counts and
shares in the runnable order), so a run can be
checked for contention (sum of gpus > total) and compared with blox's shares round by round.
With `--dump-round K`, round K's program as cvxpy hands it to ECOS (`get_problem_data(ECOS)`:
c, G, h, A, b, cone dims) and ECOS's full solution are written to PROGRAM.json as well.

The wrappers only read: a run through this script writes the same `job.csv` as a plain run
(docs/elasticflow-semantics.md §10.4 records the check).
"""

import json
import os
import runpy
import sys


def main():
    args = sys.argv[1:]
    split = args.index("--")
    own, scheduler_args = args[:split], args[split + 1 :]
    rounds_path = own[0]
    dump_round, dump_path = None, None
    if len(own) > 1:
        assert own[1] == "--dump-round" and len(own) == 4, __doc__
        dump_round, dump_path = int(own[2]), own[3]

    sys.path.insert(0, os.getcwd())
    import cvxpy as cp
    import utils  # first, as the scheduler imports them: the modules import each other
    import jobs

    out = open(rounds_path, "w")
    state = {"round": 0, "jobs": None, "gpus": None, "total": None}

    base_constraints = utils.get_base_constraints

    def observed_constraints(x, scale_factors_array):
        state["jobs"] = [int(j["job_idx"]) for j in jobs.JOBS.runnable_jobs]
        state["gpus"] = [int(g) for g in scale_factors_array]
        state["total"] = int(utils.CLUSTER.num_gpu)
        return base_constraints(x, scale_factors_array)

    utils.get_base_constraints = observed_constraints

    solve = cp.Problem.solve

    def observed_solve(problem, *a, **kw):
        k = state["round"]
        if k == dump_round:
            data, _, _ = problem.get_problem_data(cp.ECOS)
            program = {
                "c": data["c"].tolist(),
                "G": data["G"].toarray().tolist(),
                "h": data["h"].tolist(),
                "A": data["A"].toarray().tolist() if data.get("A") is not None else None,
                "b": data["b"].tolist() if data.get("b") is not None else None,
                "dims": str(data["dims"]),
            }
        result = solve(problem, *a, **kw)
        (x,) = [v for v in problem.variables() if v.ndim == 1]
        shares = [float(v) for v in x.value]
        record = {"round": k, "jobs": state["jobs"], "gpus": state["gpus"], "total": state["total"], "x": shares}
        out.write(json.dumps(record) + "\n")
        if k == dump_round:
            program["solution"] = {
                "status": problem.status,
                "value": float(problem.value),
                "x": shares,
                "iterations": problem.solver_stats.num_iters,
            }
            with open(dump_path, "w") as f:
                json.dump(program, f)
        state["round"] = k + 1
        return result

    cp.Problem.solve = observed_solve
    sys.argv = scheduler_args
    try:
        runpy.run_path(scheduler_args[0], run_name="__main__")
    finally:
        out.close()


if __name__ == "__main__":
    main()
