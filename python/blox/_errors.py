"""blox's exceptions."""

from __future__ import annotations

from typing import List, Optional, Tuple


class BloxError(Exception):
    """Something blox refused or could not do: a workload it cannot read, a bad selection, a
    results directory that is not one. The message is blox's own, in the spec's words."""


class SpecError(BloxError, ValueError):
    """A spec blox cannot accept, with where the problem is.

    ``file`` is the spec's path (``"<dict spec>"`` for a spec given as a dict), ``line`` and
    ``column`` are 1-based (``None`` when the problem has no position), ``message`` is blox's
    message without the position, and ``field`` is, for a dict spec, the path of the value or
    key at fault (``"workloads[0].blox-philly-synthetic.load"``); ``None`` for a file.
    """

    def __init__(
        self,
        text: str,
        file: str,
        line: Optional[int],
        column: Optional[int],
        message: str,
        field: Optional[str] = None,
    ) -> None:
        super().__init__(text)
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.field = field


class RunError(BloxError):
    """Some runs of a sweep failed (``check=True``): ``failures`` lists ``(run_key, reason)``,
    and ``results`` holds every run that is complete, as :func:`blox.run` would have returned."""

    def __init__(self, message: str, failures: List[Tuple[str, str]], results: object) -> None:
        super().__init__(message)
        self.failures = failures
        self.results = results
