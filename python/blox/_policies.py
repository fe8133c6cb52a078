"""Round schedulers written in Python, called by blox in-process."""

from __future__ import annotations

import hashlib
import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence, Type, TypeVar, Union

from . import _blox
from ._blox import Job, RunInfo

#: The key of a Python policy's parameters that records its code (class and source digest).
IDENTITY = "python"


class Scheduler:
    """A round scheduler: at every round, blox calls :meth:`order` with the active jobs and
    launches and preempts by the answer (the spec's placement walks it).

    Subclassing is optional: any class (or callable) whose instances have an ``order(now, jobs)``
    method will do. blox makes one instance per run, ``cls(**options)`` with the options the spec
    gives (``scheduler: {my-las: {weight: 2}}``), then calls :meth:`start` once with the run's
    :class:`RunInfo`. Runs go on several threads, each with its own instance: keep state on the
    instance, not on the class, and break ties by job id, so that tables do not depend on the
    thread count.
    """

    run: RunInfo

    def start(self, run: RunInfo) -> None:
        """Called once per run, before the first decision."""
        self.run = run

    def order(self, now: float, jobs: List[Job]) -> Sequence[int]:
        """Every active job's id exactly once, most entitled first.

        ``now`` is the round's time in seconds; ``jobs`` lists the active jobs in the previous
        round's order with finished jobs removed and new jobs appended in admission order."""
        raise NotImplementedError


def _identity(factory: Callable[..., Any]) -> Dict[str, Optional[str]]:
    """What run keys record of the policy's code: its qualified name and its source's SHA-256
    (``None`` when Python cannot show the source, e.g. a class typed at a bare prompt)."""
    name = f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', repr(factory))}"
    try:
        source: Optional[str] = hashlib.sha256(inspect.getsource(factory).encode()).hexdigest()
    except (OSError, TypeError):
        source = None
    return {"class": name, "source_sha256": source}


def _check(factory: Callable[..., Any], options: Dict[str, Any]) -> Dict[str, Any]:
    """The parameters run keys hash, after checking that ``factory`` takes ``options``
    (``TypeError`` otherwise, which blox reports at the options' line)."""
    if IDENTITY in options:
        raise TypeError(f"option `{IDENTITY}` is reserved (run keys record the policy's code under it)")
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        signature = None
    if signature is not None:
        try:
            signature.bind(**options)
        except TypeError as e:
            raise TypeError(f"{e} (options given: {sorted(options) or 'none'})") from None
    return {**options, IDENTITY: _identity(factory)}


def _summary(factory: Callable[..., Any]) -> str:
    doc = inspect.getdoc(factory) or ""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return first or f"Python scheduler {getattr(factory, '__qualname__', repr(factory))}"


S = TypeVar("S", bound=Union[Type[Any], Callable[..., Any]])


def register_scheduler(name: str, factory: S, *, summary: Optional[str] = None) -> S:
    """Registers ``factory`` (usually a :class:`Scheduler` subclass) as the round scheduler
    ``name``: specs then name it like a built-in (``scheduler: name`` or ``{name: {option:
    value}}``) and :func:`blox.list` shows it. Registering a name again replaces its policy
    (a notebook cell run twice); a built-in's name is refused (``ValueError``).

    Run keys record the options, the class's qualified name and the SHA-256 of its source, so
    editing the class reruns its runs; code it calls elsewhere is not hashed: rerun with
    ``force=True`` after editing that. Returns ``factory``.
    """
    if not callable(factory):
        raise TypeError(f"a scheduler is a class or callable, not {type(factory).__name__}")
    _blox.register_scheduler(name, factory, summary or _summary(factory), _check)
    return factory


def scheduler(name: str, *, summary: Optional[str] = None) -> Callable[[S], S]:
    """Decorator form of :func:`register_scheduler`::

        @blox.scheduler("my-las")
        class MyLas(blox.Scheduler):
            def order(self, now, jobs):
                ...
    """

    def register(factory: S) -> S:
        return register_scheduler(name, factory, summary=summary)

    return register
