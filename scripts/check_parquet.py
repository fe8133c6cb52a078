#!/usr/bin/env python3
"""Check that a blox experiment directory reads cleanly outside Rust.

Reads `runs/`, `jobs/` and `timeline/` with pyarrow (required) and, when importable, Polars and
DuckDB, the way an analyst would (directory dataset or `*.parquet` glob). Fails when a table is
missing, readers disagree on row counts, a file lacks the `blox.spec_sha256` metadata or names
another run in `blox.run_key`, a Float64 column holds NaN (blox writes null for "no value"), or a
run marked complete has no jobs or timeline file.

Usage: scripts/check_parquet.py results/<experiment> [--types]
"""

import argparse
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

TABLES = ("runs", "jobs", "timeline")


def optional_readers():
    """Polars and DuckDB when installed; the check must not require them."""
    readers = {}
    try:
        import polars

        def read_polars(glob):
            frame = polars.read_parquet(glob)
            return frame.height, [(name, str(dtype)) for name, dtype in frame.schema.items()]

        readers["polars"] = read_polars
    except ImportError:
        print("polars: not installed, skipped")
    try:
        import duckdb

        def read_duckdb(glob):
            source = "read_parquet('{}')".format(glob.replace("'", "''"))
            [(count,)] = duckdb.sql(f"SELECT count(*) FROM {source}").fetchall()
            types = duckdb.sql(f"DESCRIBE SELECT * FROM {source}").fetchall()
            return count, [(row[0], row[1]) for row in types]

        readers["duckdb"] = read_duckdb
    except ImportError:
        print("duckdb: not installed, skipped")
    return readers


def check_files(table_dir, failures):
    """Metadata of each visible file; returns the run keys the file names stand for."""
    keys = set()
    for path in sorted(table_dir.glob("*.parquet")):
        metadata = pq.read_metadata(path).metadata or {}
        if b"blox.spec_sha256" not in metadata:
            failures.append(f"{path}: no blox.spec_sha256 metadata")
        if metadata.get(b"blox.run_key", path.stem.encode()) != path.stem.encode():
            failures.append(f"{path}: blox.run_key is {metadata[b'blox.run_key']!r}")
        keys.add(path.stem)
    return keys


def check_table(table_dir, readers, show_types, failures):
    table = ds.dataset(table_dir, format="parquet").to_table()
    print(f"{table_dir.name}: pyarrow {table.num_rows} rows, {table.num_columns} columns")
    if show_types:
        for field in table.schema:
            print(f"    {field.name}: {field.type}{'' if field.nullable else ' not null'}")
    for field in table.schema:
        if field.type == "double" and pc.any(pc.is_nan(table[field.name])).as_py():
            failures.append(f"{table_dir}: column {field.name} holds NaN instead of null")

    glob = str(table_dir / "*.parquet")
    for name, read in readers.items():
        rows, types = read(glob)
        print(f"{table_dir.name}: {name} {rows} rows, {len(types)} columns")
        if show_types:
            for column, column_type in types:
                print(f"    {column}: {column_type}")
        if rows != table.num_rows:
            failures.append(f"{table_dir}: {name} read {rows} rows, pyarrow {table.num_rows}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment_dir", type=Path)
    parser.add_argument("--types", action="store_true", help="print each reader's column types")
    args = parser.parse_args()

    readers = optional_readers()
    failures = []
    keys = {}
    for name in TABLES:
        table_dir = args.experiment_dir / name
        keys[name] = check_files(table_dir, failures) if table_dir.is_dir() else set()
        if not keys[name]:
            failures.append(f"{table_dir}: no *.parquet files")
            continue
        try:
            check_table(table_dir, readers, args.types, failures)
        except Exception as error:  # any reader's failure is a finding, not a crash
            failures.append(f"{table_dir}: {type(error).__name__}: {error}")
    for name in ("jobs", "timeline"):
        for key in sorted(keys["runs"] - keys[name]):
            failures.append(f"run {key} is complete but has no {name} file")

    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
