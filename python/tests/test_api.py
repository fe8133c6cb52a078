"""The Python API: running specs (files and dicts), the tables, errors, the list, the command."""

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

import blox


def test_run_of_the_default_spec_returns_its_tables(repo, tmp_path):
    results = blox.run(repo / "specs/default.yaml", out=tmp_path)
    assert results.path == tmp_path / "default"
    runs = results.runs
    assert isinstance(runs, pa.Table)
    assert runs.num_rows == len(results.run_keys) == blox.validate(repo / "specs/default.yaml")
    assert results.jobs.num_rows > 0 and results.timeline.num_rows > 0
    assert results.attempts.num_rows == 0
    assert set(results.jobs.column("run_key").to_pylist()) == set(results.run_keys)
    frame = results.to_pandas("runs")
    assert list(frame["run_key"]) == results.run_keys
    assert results.to_polars("jobs").height == results.jobs.num_rows


def test_open_reads_what_run_wrote_and_a_rerun_reuses_it(spec, tmp_path):
    first = blox.run(spec(), out=tmp_path)
    assert first.executed == 2
    again = blox.run(spec(), out=tmp_path)
    assert (again.executed, again.skipped) == (0, 2)
    opened = blox.open(tmp_path / "small")
    assert opened.runs.equals(first.runs)
    assert opened.jobs.equals(first.jobs)
    assert "name: small" in opened.spec_yaml


def test_only_selects_grid_points(spec, tmp_path):
    results = blox.run(spec(loads=(0.3, 0.5)), out=tmp_path, only={"label": "LAS", "load": [0.5]})
    assert results.runs.column("label").to_pylist() == ["LAS"]
    assert results.runs.column("load").to_pylist() == [0.5]
    with pytest.raises(blox.BloxError, match="matches none"):
        blox.run(spec(), out=tmp_path, only="label=nobody")


def test_tables_do_not_depend_on_threads(spec, tmp_path):
    one = blox.run(spec(loads=(0.3, 0.5, 0.7)), out=tmp_path / "one", threads=1)
    two = blox.run(spec(loads=(0.3, 0.5, 0.7)), out=tmp_path / "two", threads=2)
    assert one.jobs.drop_columns(["spec_sha256"]).equals(two.jobs.drop_columns(["spec_sha256"]))


def test_a_dict_spec_with_a_bad_type_names_the_field(spec, tmp_path):
    bad = spec()
    bad["clusters"][0]["gpus_per_node"] = "four"
    with pytest.raises(blox.SpecError) as caught:
        blox.run(bad, out=tmp_path)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.field == "clusters[0].gpus_per_node"
    assert error.file == "<dict spec>" and error.line and error.column
    assert "field `clusters[0].gpus_per_node`" in str(error)

    unknown = spec()
    unknown["engine"]["round_seconds"] = 300
    with pytest.raises(blox.SpecError) as caught:
        blox.validate(unknown)
    assert caught.value.field == "engine.round_seconds"
    assert "round_seconds" in caught.value.message

    with pytest.raises(TypeError, match="spec field `loads\\[0\\]`: set"):
        blox.validate({**spec(), "loads": [{1, 2}]})


def test_a_spec_file_error_carries_file_line_and_column(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nengine: {mode: rounds, round_s: -5}\n")
    with pytest.raises(blox.SpecError) as caught:
        blox.run(path, out=tmp_path)
    error = caught.value
    assert (error.file, error.line) == (str(path), 2)
    assert error.column is not None and error.field is None
    assert str(error).startswith(f"{path}:2:")
    with pytest.raises(blox.SpecError, match="cannot read the spec"):
        blox.run(tmp_path / "missing.yaml")


def test_list_names_policies_and_workloads():
    listed = blox.list()
    schedulers = {entry["name"]: entry for entry in listed["scheduler"]}
    assert "las" in schedulers and schedulers["las"]["engine"] == "rounds"
    assert "scattered" in {entry["name"] for entry in listed["placement"]}
    assert "blox-philly-synthetic" in {entry["name"] for entry in listed["workload"]}


def test_the_blox_command_is_installed_with_the_package(tmp_path):
    command = Path(sys.executable).parent / "blox"
    assert command.exists(), "the console script `blox` is not installed beside the interpreter"
    listed = subprocess.run([str(command), "list"], capture_output=True, text=True, check=True)
    assert "las" in listed.stdout
    bad = subprocess.run([str(command), "validate", str(tmp_path / "missing.yaml")], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read the spec" in bad.stderr
    version = subprocess.run([str(command), "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("blox ") and blox.version() in version.stdout
