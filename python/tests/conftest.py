"""Shared fixtures: the repository (specs, scripts) and small specs as dicts."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    return REPO


def small_spec(name="small", policies=None, loads=(0.5,), track=(20, 60)):
    """Blox's Figure 6 setting, shrunk: 1-GPU synthetic jobs on 8 GPUs, a few loads."""
    return {
        "name": name,
        "engine": {"mode": "rounds", "round_s": 300},
        "policies": policies or [{"label": "FIFO", "scheduler": "fifo"}, {"label": "LAS", "scheduler": "las"}],
        "clusters": [{"nodes": 2, "gpus_per_node": 4}],
        "workloads": [{"blox-philly-synthetic": {}}],
        "loads": list(loads),
        "seeds": [1],
        "measure": {"track": {"ids": list(track)}},
    }


@pytest.fixture
def spec():
    return small_spec
