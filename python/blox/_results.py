"""A results directory's tables as Arrow tables."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from . import _blox

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    import pandas
    import polars
    import pyarrow

TABLES = ("runs", "jobs", "timeline", "attempts")


class Results:
    """One experiment's results: ``<out>/<name>/`` as ``blox run`` writes it.

    ``runs``, ``jobs``, ``timeline`` and ``attempts`` are :class:`pyarrow.Table` s holding the
    rows of every complete run of the directory's grid, in grid order (read once, on first use,
    from the Parquet files blox wrote; ``attempts`` has rows for live runs only). Columns are
    those of ``docs/reference.md`` ("Table columns"). :meth:`to_polars` and :meth:`to_pandas`
    hand a table over without copying its data.

    ``failures`` lists ``(run_key, reason)`` for the runs of the last :func:`blox.run` that
    failed, and ``figures`` maps each figure the spec declares to its PNG file.
    """

    def __init__(self, path: "os.PathLike[str] | str", report: Optional[Dict[str, Any]] = None) -> None:
        self.path = Path(path)
        keys, unreadable = _blox.complete_runs(str(self.path))
        self.run_keys: List[str] = keys
        self.unreadable: List[Tuple[str, str]] = unreadable
        report = report or {}
        self.failures: List[Tuple[str, str]] = list(report.get("failures", []))
        self.figures: Dict[str, Path] = {name: Path(png) for name, png in report.get("figures", [])}
        self.executed: int = report.get("executed", 0)
        self.skipped: int = report.get("skipped", 0)
        self._tables: Dict[str, "pyarrow.Table"] = {}

    def __repr__(self) -> str:
        return f"Results({str(self.path)!r}: {len(self.run_keys)} complete runs)"

    @property
    def spec_yaml(self) -> str:
        """The spec this directory's grid was run from (its ``spec.yaml``)."""
        return (self.path / "spec.yaml").read_text()

    def table(self, name: str) -> "pyarrow.Table":
        """The table ``name`` (``runs``, ``jobs``, ``timeline`` or ``attempts``) over the grid's
        complete runs."""
        if name not in TABLES:
            raise ValueError(f"no table {name!r}; the tables are {', '.join(TABLES)}")
        if name not in self._tables:
            self._tables[name] = self._read(name)
        return self._tables[name]

    def _read(self, name: str) -> "pyarrow.Table":
        import pyarrow as pa
        import pyarrow.parquet as pq

        files = [self.path / name / f"{key}.parquet" for key in self.run_keys]
        # Each file carries its run's provenance as schema metadata; the rows carry it too.
        tables = [pq.read_table(f).replace_schema_metadata(None) for f in files if f.exists()]
        if not tables:
            return pa.table({})
        return pa.concat_tables(tables)

    @property
    def runs(self) -> "pyarrow.Table":
        """One row per complete run: grid point, summary metrics, provenance."""
        return self.table("runs")

    @property
    def jobs(self) -> "pyarrow.Table":
        """One row per tracked job of every complete run."""
        return self.table("jobs")

    @property
    def timeline(self) -> "pyarrow.Table":
        """One row per round (or decision) of every complete run."""
        return self.table("timeline")

    @property
    def attempts(self) -> "pyarrow.Table":
        """One row per job attempt of every complete live run (empty for simulations)."""
        return self.table("attempts")

    def to_polars(self, name: str = "runs") -> "polars.DataFrame":
        """The table ``name`` as a Polars DataFrame, sharing the Arrow buffers (no copy)."""
        import polars as pl

        frame = pl.from_arrow(self.table(name), rechunk=False)
        assert isinstance(frame, pl.DataFrame)
        return frame

    def to_pandas(self, name: str = "runs") -> "pandas.DataFrame":
        """The table ``name`` as a pandas DataFrame with Arrow-backed columns
        (``pandas.ArrowDtype``), sharing the Arrow buffers (no copy). For NumPy dtypes, call
        ``results.table(name).to_pandas()``, which copies."""
        import pandas as pd

        return self.table(name).to_pandas(types_mapper=pd.ArrowDtype)
