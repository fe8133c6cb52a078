"""blox: declarative, parallel simulation of deep-learning GPU-cluster scheduling experiments.

Run a spec (a YAML file or a dict) and get its tables as Arrow tables::

    import blox
    results = blox.run("specs/default.yaml")
    results.runs.to_pandas()

Write a round scheduler in Python and name it in specs::

    @blox.scheduler("my-las")
    class MyLas(blox.Scheduler):
        def order(self, now, jobs):
            ranked = sorted(jobs, key=lambda j: (not j.promoted, j.attained_service, j.id))
            return [j.id for j in ranked]

The reference is ``docs/guide/python.md``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _blox
from ._blox import Job, RunInfo
from ._errors import BloxError, RunError, SpecError
from ._policies import Scheduler, register_scheduler, scheduler
from ._results import Results

__all__ = [
    "BloxError",
    "Job",
    "Results",
    "RunError",
    "RunInfo",
    "Scheduler",
    "SpecError",
    "list",
    "open",
    "register_scheduler",
    "run",
    "scheduler",
    "validate",
    "version",
]

#: What a dict spec is called in errors.
DICT_SPEC = "<dict spec>"

Spec = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Selection = Union[str, Mapping[str, Union[Any, Sequence[Any]]]]


def version() -> str:
    """blox's build identity: version, commit and the hash of the source that decides results."""
    return _blox.version()


def _source(spec: Spec) -> "tuple[str, str, str, Optional[Dict[int, str]]]":
    """(text, file, base directory, line -> field of a dict spec)."""
    if isinstance(spec, Mapping):
        from ._spec import to_yaml

        text, fields = to_yaml(spec)
        return text, DICT_SPEC, os.getcwd(), fields
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        try:
            text = path.read_text()
        except OSError as e:
            raise SpecError(f"{path}: cannot read the spec: {e}", str(path), None, None, str(e)) from None
        return text, str(path), str(path.parent), None
    raise TypeError(f"a spec is a path or a dict, not {type(spec).__name__}")


def _with_field(error: SpecError, fields: Optional[Dict[int, str]]) -> SpecError:
    """For a dict spec, the error names the field of its line instead of a line of YAML the
    user never saw."""
    if fields is None or error.line is None or error.line not in fields:
        return error
    field = fields[error.line]
    named = SpecError(
        f"{DICT_SPEC}: field `{field}`: {error.message}", error.file, error.line, error.column, error.message, field
    )
    return named


def _with_field_in_message(error: BloxError, fields: Optional[Dict[int, str]]) -> BloxError:
    """A dict spec's position in blox's other errors (`<dict spec>:LINE:COLUMN: ...`) as its field."""
    match = re.match(rf"^{re.escape(DICT_SPEC)}:(\d+):(\d+): ", str(error))
    if fields is None or match is None or int(match.group(1)) not in fields:
        return error
    return BloxError(f"{DICT_SPEC}: field `{fields[int(match.group(1))]}`: {str(error)[match.end():]}")


def _selection(only: Optional[Selection]) -> Optional[str]:
    if only is None or isinstance(only, str):
        return only
    terms = []
    for key, values in only.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            values = [values]
        for value in values:
            text = str(value)
            if "," in text or "=" in text:
                raise ValueError(f"only: {key}={text!r}: a value cannot hold ',' or '='")
            terms.append(f"{key}={text}")
    return ",".join(terms)


def validate(spec: Spec) -> int:
    """Checks a spec as ``blox validate`` does (without reading its workloads) and returns the
    size of its grid; raises :class:`SpecError`."""
    text, file, base_dir, fields = _source(spec)
    try:
        _name, runs = _blox.check_spec(text, file, base_dir)
    except SpecError as e:
        raise _with_field(e, fields) from None
    return runs


def run(
    spec: Spec,
    *,
    only: Optional[Selection] = None,
    threads: Optional[int] = None,
    out: "os.PathLike[str] | str" = "results",
    force: bool = False,
    timeout: Optional[float] = None,
    quiet: bool = True,
    check: bool = True,
) -> Results:
    """Runs every point of ``spec``'s grid, as ``blox run`` does, and returns its results.

    ``spec`` is a YAML file's path or the same structure as a dict (relative paths in it resolve
    against the file's directory, or the working directory for a dict). ``only`` selects grid
    points (``{"label": "LAS", "load": [8, 9]}`` or ``"label=LAS,load=8"``; keys: label,
    scheduler, cluster, workload, load, seed). ``threads`` defaults to every core; results do
    not depend on it. Tables go to ``<out>/<name>/``; runs already complete there are reused
    unless ``force``. ``timeout`` fails a run that takes longer than that many seconds.
    ``quiet=False`` prints what ``blox run`` prints while it runs (progress, workloads).

    Raises :class:`SpecError` for a spec blox refuses (with file, line, column, and for a dict
    the field), :class:`BloxError` for other bad input, :class:`RunError` when runs failed and
    ``check`` is true (its ``results`` holds the rest), and ``KeyboardInterrupt`` at Ctrl-C,
    once the runs in progress have stopped (complete runs are kept; run again to resume).
    """
    text, file, base_dir, fields = _source(spec)
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
        raise ValueError(f"threads must be a positive integer, not {threads!r}")
    try:
        report = _blox.run(
            text,
            file,
            base_dir,
            os.fspath(out),
            threads=threads,
            only=_selection(only),
            force=force,
            quiet=quiet,
            run_timeout_s=timeout,
        )
    except SpecError as e:
        raise _with_field(e, fields) from None
    except BloxError as e:
        raise _with_field_in_message(e, fields) from None
    results = Results(report["experiment_dir"], report)
    if check and report["failures"]:
        failures = report["failures"]
        lines = "\n".join(f"  {key}: {reason}" for key, reason in failures)
        raise RunError(f"{len(failures)} of {report['selected']} runs failed:\n{lines}", failures, results)
    return results


def open(path: "os.PathLike[str] | str") -> Results:
    """The results of an experiment directory (``<out>/<name>/``) that ``blox run`` wrote."""
    return Results(path)


def list() -> Dict[str, List[Dict[str, Any]]]:
    """Every policy (built-in or registered) and workload, by kind: ``{"scheduler": [...],
    "placement": [...], "admission": [...], "overhead": [...], "workload": [...]}``; each entry
    is a dict with ``name``, ``summary`` and, for policies, ``engine``, ``source`` and
    ``options`` (option name to meaning)."""
    kinds: Dict[str, List[Dict[str, Any]]] = {"scheduler": [], "placement": [], "admission": [], "overhead": []}
    for entry in _blox.policies():
        kinds[entry.pop("kind")].append(entry)
    kinds["workload"] = [{"name": name, "summary": summary} for name, summary in _blox.workloads()]
    return kinds
