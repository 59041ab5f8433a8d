"""Fixtures shared across the test folders: the generated run of thousands of ranks, made and measured once."""

from __future__ import annotations

import pytest

from ddpcore.analysis import Analysis, Measured, judge, measure
from scripts.tracegen import big_run_slowed


@pytest.fixture(scope="session")
def measured_big() -> tuple[Measured, set[tuple[int, int]]]:
    """The bench's 4,096 ranks x 200 steps (scripts.tracegen.big_run) measured, and its slowed (step, rank) pairs:
    20 s to make, so made once for the analysis and the view tests alike."""
    runs, slowed = big_run_slowed()
    return measure(runs), slowed


@pytest.fixture(scope="session")
def big(measured_big) -> tuple[Analysis, set[tuple[int, int]]]:
    """That run judged at the default threshold, and its slowed pairs."""
    measured, slowed = measured_big
    return judge(measured), slowed
