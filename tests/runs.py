"""Runs for the tests: a fixture's files as the readers take them, a run judged, and small JSONL runs made from
each step's arrivals."""

from __future__ import annotations

import json
from pathlib import Path

from paths import FIXTURES

from ddpcore.analysis import Analysis, judge, measure_loaded
from ddpcore.traces import load

STEP_S = 0.1
"""The step of the runs `jsonl_run` makes (s)."""


def files(folder: Path | str, pattern: str) -> list[tuple[str, bytes]]:
    """A folder's files matching `pattern`, sorted, as (name, bytes); a str folder is one of tests/fixtures."""
    where = folder if isinstance(folder, Path) else FIXTURES / folder
    return [(p.name, p.read_bytes()) for p in sorted(where.glob(pattern))]


def judged(folder: Path | str, pattern: str) -> Analysis:
    """The run in a folder measured (every file readable, the run measurable) and judged at the default threshold."""
    measured, errors = measure_loaded(load(files(folder, pattern)))
    assert measured is not None and errors == ()
    return judge(measured)


def jsonl_run(arrivals: list[list[float]]) -> list[tuple[str, bytes]]:
    """JSONL files, one per rank, from each step's arrival (s from the step's start) per rank; every rank leaves the
    AllReduce at 80 % of a 100 ms step, as a barrier makes them. Steps are numbered from 1 (no warm-up step)."""
    out = []
    for rank in range(len(arrivals[0])):
        rows = []
        for n, row in enumerate(arrivals, start=1):
            t = n * STEP_S
            a = row[rank]
            rows += [
                {"rank": rank, "step": n, "phase": "forward", "start": t, "end": t + a / 2},
                {"rank": rank, "step": n, "phase": "backward", "start": t + a / 2, "end": t + a + 0.001},
                {"rank": rank, "step": n, "phase": "allreduce", "start": t + a, "end": t + 0.08},
                {"rank": rank, "step": n, "phase": "optimizer", "start": t + 0.08, "end": t + STEP_S},
            ]
        out.append((f"rank{rank}.jsonl", "\n".join(json.dumps(r) for r in rows).encode()))
    return out
