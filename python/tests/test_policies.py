"""Round schedulers written in Python, called in-process: the same tables as the built-in they
restate, options, and policies that raise, answer garbage, hang or are interrupted."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import blox
from conftest import small_spec


@blox.scheduler("py-las")
class PyLas(blox.Scheduler):
    """Least attained service first, promoted jobs first, ties by id: the built-in `las`."""

    def order(self, now, jobs):
        jobs.sort(key=lambda job: (not job.promoted, job.attained_service, job.id))
        return [job.id for job in jobs]


def figure_6(policies, loads):
    """Blox's Figure 6 spec (specs/paper/blox-fig6.yaml) with other policies and loads, no figures."""
    return {
        "name": "fig6",
        "engine": {"mode": "rounds", "round_s": 300, "starvation_guard_h": 1000, "overhead": "none"},
        "policies": policies,
        "clusters": [{"nodes": 32, "gpus_per_node": 4}],
        "workloads": [{"blox-philly-synthetic": {}}],
        "loads": list(loads),
        "seeds": [1],
        "measure": {"track": {"ids": [3000, 4000]}},
    }


def test_python_las_gives_the_built_in_las_tables_on_figure_6(repo, tmp_path):
    placement = {"placement": "scattered", "admission": "accept-all"}
    loads = range(1, 10)
    built_in = blox.run(figure_6([{"label": "Tiresias", "scheduler": "las", **placement}], loads), out=tmp_path / "a")
    python = blox.run(figure_6([{"label": "Tiresias", "scheduler": "py-las", **placement}], loads), out=tmp_path / "b")
    assert python.runs.num_rows == 9
    assert set(python.runs.column("scheduler").to_pylist()) == {"py-las"}
    compared = subprocess.run(
        [sys.executable, repo / "scripts/compare_tables.py", "--ignore", "scheduler", "--ignore", "policy_params",
         tmp_path / "a", tmp_path / "b"],
        capture_output=True, text=True,
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "fig6: 9 runs" in compared.stdout and "identical" in compared.stdout
    assert built_in.runs.column("tracked_finished").to_pylist() == [1001] * 9


def test_options_reach_the_class_and_bad_ones_are_spec_errors(tmp_path):
    seen = []

    @blox.scheduler("py-widest")
    class Widest(blox.Scheduler):
        def __init__(self, reverse=False):
            self.reverse = reverse

        def start(self, run):
            seen.append((self.reverse, run.total_gpus, run.round_s, run.load, run.seed))

        def order(self, now, jobs):
            return [j.id for j in sorted(jobs, key=lambda j: (j.gpus if self.reverse else -j.gpus, j.id))]

    spec = small_spec(policies=[{"label": "W", "scheduler": {"py-widest": {"reverse": True}}}])
    results = blox.run(spec, out=tmp_path)
    # Built for the run, and before it by the workload check (which asks the policies about jobs).
    assert set(seen) == {(True, 8, 300.0, 0.5, 1)}
    params = results.runs.column("policy_params").to_pylist()[0]
    assert '"reverse":true' in params.replace(" ", "") and "source_sha256" in params

    spec["policies"][0]["scheduler"] = {"py-widest": {"revers": True}}
    with pytest.raises(blox.SpecError) as caught:
        blox.run(spec, out=tmp_path)
    assert caught.value.field.startswith("policies[0].scheduler.py-widest")
    assert "Python scheduler `py-widest`" in str(caught.value) and "revers" in str(caught.value)


def test_registering_again_replaces_and_built_in_names_are_refused(tmp_path):
    class First(blox.Scheduler):
        def order(self, now, jobs):
            return [j.id for j in jobs]

    class Second(blox.Scheduler):
        def order(self, now, jobs):
            raise RuntimeError("the second one ran")

    blox.register_scheduler("py-again", First)
    blox.register_scheduler("py-again", Second)
    with pytest.raises(blox.RunError, match="the second one ran"):
        blox.run(small_spec(policies=[{"label": "A", "scheduler": "py-again"}]), out=tmp_path)
    with pytest.raises(ValueError, match="scheduler `las`"):
        blox.register_scheduler("las", First)
    assert "py-again" in {entry["name"] for entry in blox.list()["scheduler"]}


def faulty(name, order):
    """Registers a scheduler whose `order` is `order` and returns its spec entry."""
    blox.register_scheduler(name, type(name, (blox.Scheduler,), {"order": order}))
    return {"label": name, "scheduler": name}


def test_faulty_policies_fail_their_own_run_with_what_was_wrong(tmp_path):
    def raises(self, now, jobs):
        return 1 / 0

    policies = [
        {"label": "good", "scheduler": "py-las"},
        faulty("py-raises", raises),
        faulty("py-not-a-list", lambda self, now, jobs: {j.id for j in jobs}),
        faulty("py-not-ids", lambda self, now, jobs: [str(j.id) for j in jobs]),
        faulty("py-unknown", lambda self, now, jobs: [123456789]),
        faulty("py-twice", lambda self, now, jobs: [j.id for j in jobs] + [j.id for j in jobs[:1]]),
        faulty("py-partial", lambda self, now, jobs: [j.id for j in jobs][1:]),
    ]
    with pytest.raises(blox.RunError) as caught:
        blox.run(small_spec(policies=policies), out=tmp_path, threads=2)
    error = caught.value
    assert len(error.failures) == 6
    reasons = "\n".join(reason for _, reason in error.failures)
    for expected in [
        "Python scheduler `py-raises` raised an exception:\nTraceback (most recent call last):",
        "ZeroDivisionError: division by zero",
        "Python scheduler `py-not-a-list` returned set(), not a list of job ids",
        "Python scheduler `py-not-ids` returned '0' at position 0, which is not a job id",
        "Python scheduler `py-unknown` named job 123456789, which is not active",
        "Python scheduler `py-twice` listed job",
        "Python scheduler `py-partial` ordered",
    ]:
        assert expected in reasons, f"expected {expected!r} in:\n{reasons}"
    assert "the scheduler failed at the decision at t = " in reasons
    assert error.results.runs.column("label").to_pylist() == ["good"]
    failed = sorted(os.listdir(tmp_path / "small" / "failed"))
    assert len(failed) == 6

    unchecked = blox.run(small_spec(policies=policies), out=tmp_path, check=False)
    assert len(unchecked.failures) == 6 and unchecked.runs.num_rows == 1


def test_a_constructor_that_raises_is_refused_before_the_runs(tmp_path):
    class Broken(blox.Scheduler):
        def __init__(self):
            raise KeyError("no model")

    blox.register_scheduler("py-broken", Broken)
    # The workload check builds every policy before any run: the spec is refused there.
    with pytest.raises(blox.BloxError) as caught:
        blox.run(small_spec(policies=[{"label": "B", "scheduler": "py-broken"}]), out=tmp_path)
    message = str(caught.value)
    assert message.startswith("<dict spec>: field `policies[0].scheduler`: policy `B`"), message
    assert "Python scheduler `py-broken` could not start" in message and "KeyError: 'no model'" in message


def test_a_policy_that_never_answers_is_stopped_by_the_run_timeout(tmp_path):
    def spins(self, now, jobs):
        while True:
            pass

    policies = [{"label": "good", "scheduler": "las"}, faulty("py-spins", spins)]
    with pytest.raises(blox.RunError) as caught:
        blox.run(small_spec(policies=policies), out=tmp_path, timeout=1, threads=2)
    assert [reason for _, reason in caught.value.failures] == ["exceeded --run-timeout 1s"]
    assert caught.value.results.runs.column("label").to_pylist() == ["good"]
    # The interrupted thread runs Python again without a stray exception.
    assert blox.run(small_spec(policies=[{"label": "L", "scheduler": "py-las"}]), out=tmp_path).runs.num_rows == 1


def test_ctrl_c_stops_a_sweep_of_python_policies_and_raises_keyboard_interrupt(tmp_path):
    script = textwrap.dedent(
        """
        import sys, blox
        sys.path.insert(0, %r)
        from conftest import small_spec

        @blox.scheduler("py-spins")
        class Spins(blox.Scheduler):
            def order(self, now, jobs):
                print("deciding", flush=True)
                while True:
                    pass

        try:
            blox.run(small_spec(policies=[{"label": "S", "scheduler": "py-spins"}], loads=(0.3, 0.5)), out=%r)
        except KeyboardInterrupt as e:
            print("interrupted:", e, flush=True)
            sys.exit(130)
        """
        % (os.path.dirname(__file__), str(tmp_path))
    )
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().startswith("deciding")
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, out + err
    assert "interrupted:" in out
    assert not os.path.exists(tmp_path / "small" / "failed"), "an interrupted run is not a failure"
