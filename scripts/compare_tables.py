#!/usr/bin/env python3
"""Check that two results roots hold the same numbers, run for run and row for row.

For a refactoring that must not change results: run the specs with the old build into one root
and with the new build into another (for example `cargo xtask reproduce-figures` writes
`results/paper/<spec>/`; copy it aside between builds), then

    scripts/compare_tables.py BEFORE AFTER

Experiments are matched by directory name and runs by their grid point (label, cluster,
workload, load, seed), not by run key: keys hash the build, so they differ by design. Every data
column of `runs`, `jobs` and `timeline` must be equal, floats bit for bit; only the columns that
describe the build or the machine are left out (`run_key`, `spec_sha256`, `blox_version`,
`wall_time_s`, `cpu_time_s`). Prints one line per experiment and every difference; exits 1 if any.

`--ignore COLUMN` (repeatable) leaves more columns out: two policies that must decide alike under
different names, e.g. a Python scheduler against the built-in it restates,

    scripts/compare_tables.py --ignore scheduler --ignore policy_params BUILT_IN PYTHON
"""

import argparse
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

TABLES = ("runs", "jobs", "timeline")
GRID = ("label", "cluster", "workload", "load", "seed")
NOT_DATA = {"run_key", "spec_sha256", "blox_version", "wall_time_s", "cpu_time_s"}


def experiments(root: Path):
    return sorted(p.name for p in root.iterdir() if (p / "runs").is_dir())


def runs_by_point(experiment: Path):
    """{grid point: run key} from the runs table."""
    points = {}
    for file in sorted((experiment / "runs").glob("*.parquet")):
        row = pq.read_table(file).to_pylist()[0]
        point = tuple(row[k] for k in GRID)
        if point in points:
            raise SystemExit(f"{experiment}: two runs at {point}")
        points[point] = row["run_key"]
    return points


def data_of(experiment: Path, table: str, run_key: str, ignored=frozenset()) -> pa.Table:
    t = pq.read_table(experiment / table / f"{run_key}.parquet")
    keep = [name for name in t.column_names if name not in NOT_DATA and name not in ignored]
    return t.select(keep).replace_schema_metadata(None)


def differences(a: pa.Table, b: pa.Table, limit=5):
    if a.column_names != b.column_names:
        return [f"columns differ: {a.column_names} vs {b.column_names}"]
    if a.num_rows != b.num_rows:
        return [f"{a.num_rows} rows vs {b.num_rows}"]
    out = []
    for name in a.column_names:
        x, y = a.column(name).to_pylist(), b.column(name).to_pylist()
        for i, (u, v) in enumerate(zip(x, y)):
            # Bitwise for floats: equal values and equal NaN-ness (blox writes null, not NaN).
            if u != v and not (isinstance(u, float) and isinstance(v, float) and u != u and v != v):
                out.append(f"{name}[{i}]: {u!r} vs {v!r}")
                if len(out) >= limit:
                    return out
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore", action="append", default=[], metavar="COLUMN", help="leave this column out too")
    args = parser.parse_args()
    ignored = frozenset(args.ignore)
    names = sorted(set(experiments(args.before)) | set(experiments(args.after)))
    failed = False
    for name in names:
        a, b = args.before / name, args.after / name
        if not (a / "runs").is_dir() or not (b / "runs").is_dir():
            print(f"{name}: only in {'before' if (a / 'runs').is_dir() else 'after'}")
            failed = True
            continue
        pa_, pb = runs_by_point(a), runs_by_point(b)
        problems = [f"grid point {p} only before" for p in pa_.keys() - pb.keys()]
        problems += [f"grid point {p} only after" for p in pb.keys() - pa_.keys()]
        rows = 0
        for point in sorted(pa_.keys() & pb.keys(), key=repr):
            for table in TABLES:
                ta, tb = data_of(a, table, pa_[point], ignored), data_of(b, table, pb[point], ignored)
                rows += ta.num_rows
                problems += [f"{table} {point}: {d}" for d in differences(ta, tb)]
        status = "identical" if not problems else f"{len(problems)} differences"
        print(f"{name}: {len(pa_.keys() & pb.keys())} runs, {rows} rows compared, {status}")
        for p in problems[:20]:
            print(f"  {p}")
        failed |= bool(problems)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
