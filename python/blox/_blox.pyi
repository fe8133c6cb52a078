"""The extension module behind the ``blox`` package (Rust, PyO3); use the package's API."""

from typing import Any, Callable, Dict, List, Optional, Tuple

class Job:
    """An active job at a decision: the fields of the external protocol's decision message."""

    @property
    def id(self) -> int:
        """The job's id in its workload (0, 1, ... in arrival order)."""
    @property
    def gpus(self) -> int:
        """GPUs it asks for (gang-scheduled)."""
    @property
    def submitted(self) -> float:
        """Submission time, s (JCT counts from it)."""
    @property
    def work(self) -> float:
        """Total work, in seconds of running at profiled speed (an oracle value)."""
    @property
    def executed_work(self) -> float:
        """Work done so far."""
    @property
    def attained_service(self) -> float:
        """Seconds the job has held GPUs."""
    @property
    def running(self) -> bool:
        """Whether it holds GPUs now."""
    @property
    def promoted(self) -> bool:
        """Whether the starvation guard promoted it (built-in policies rank these first)."""
    @property
    def preemptions(self) -> int:
        """Times it lost its GPUs."""

class RunInfo:
    """What a run tells its scheduler once, before the first decision."""

    @property
    def round_s(self) -> float:
        """Seconds between decisions."""
    @property
    def total_gpus(self) -> int: ...
    @property
    def gpus_per_node(self) -> List[int]:
        """GPUs of each node; node ids follow the list."""
    @property
    def load(self) -> Optional[float]:
        """The offered load in jobs per hour, when the workload has one."""
    @property
    def seed(self) -> int:
        """The grid point's seed."""

def cli_main(argv: List[str]) -> int: ...
def check_spec(text: str, file: str, base_dir: str) -> Tuple[str, int]: ...
def run(
    text: str,
    file: str,
    base_dir: str,
    out: str,
    *,
    threads: Optional[int] = None,
    only: Optional[str] = None,
    force: bool = False,
    quiet: bool = True,
    run_timeout_s: Optional[float] = None,
) -> Dict[str, Any]: ...
def complete_runs(experiment_dir: str) -> Tuple[List[str], List[Tuple[str, str]]]: ...
def policies() -> List[Dict[str, Any]]: ...
def workloads() -> List[Tuple[str, str]]: ...
def version() -> str: ...
def register_scheduler(
    name: str,
    factory: Callable[..., Any],
    summary: str,
    check: Callable[[Callable[..., Any], Dict[str, Any]], Dict[str, Any]],
) -> None: ...
