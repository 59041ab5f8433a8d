"""A large trace made of real events: the bench and the memory test read the same (generated, never committed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ddpcore.traces import simulated_run

if TYPE_CHECKING:
    from ddpcore.traces import RankFacts

SOURCE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "gpu1_cuda" / "gpu_rank0.pt.trace.json.gz"


def generated_trace(size: int) -> bytes:
    """The H200 trace's real events repeated, shifted in time, with renumbered steps and launches, to `size`."""
    obj = json.loads(gzip.decompress((SOURCE).read_bytes()))
    events = obj["traceEvents"]
    times = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float))]
    span = max(times) - min(times) + 1000
    one = len(json.dumps(events))
    out = []
    for k in range(size // one + 1):
        for e in events:
            copy = dict(e)
            if isinstance(copy.get("ts"), (int, float)):
                copy["ts"] += k * span
            name = copy.get("name")
            if isinstance(name, str) and name.startswith("ProfilerStep#"):
                copy["name"] = f"ProfilerStep#{int(name.split('#')[1]) + 4 * k}"
            if isinstance(copy.get("args"), dict) and "correlation" in copy["args"]:
                copy["args"] = {**copy["args"], "correlation": copy["args"]["correlation"] + k * 10**7}
            if copy.get("cat") == "ac2g" and isinstance(copy.get("id"), int):
                copy["id"] += k * 10**7
            out.append(copy)
    return json.dumps({**obj, "traceEvents": out}).encode()


def gpu_pair() -> list[tuple[str, bytes]]:
    """The one-GPU H200 trace and a copy that says it is rank 1: two ranks for the analysis to compare."""
    raw = gzip.decompress(SOURCE.read_bytes())
    twin = json.loads(raw)
    twin["distributedInfo"]["rank"] = 1
    return [("gpu_rank0.pt.trace.json", raw), ("gpu_rank1.pt.trace.json", json.dumps(twin).encode())]


BIG_RANKS, BIG_STEPS, BIG_PERSISTENT, BIG_PROBABILITY, BIG_SEED = 4096, 200, 777, 0.0001, 3


def big_run_slowed() -> tuple[list[RankFacts], set[tuple[int, int]]]:
    """The bench's and the screenshots' cluster-size run: 4,096 ranks x 200 steps, rank 777 persistently 2x late,
    a transient 3x slowdown with probability 0.0001 per rank-step; and its slowed (step, rank) pairs."""
    return simulated_run(BIG_RANKS, BIG_STEPS, (BIG_PERSISTENT,), BIG_PROBABILITY, seed=BIG_SEED)


def big_run() -> list[RankFacts]:
    """That run's ranks alone (`big_run_slowed`)."""
    return big_run_slowed()[0]


LONG_STEPS = 11_700
"""A long run's steps, as a user's 8 JSONL files of 6.8 MB held (issue 24)."""


def generated_jsonl(rank: int, steps: int = LONG_STEPS, slow_rank: int = 3, seed: int = 0) -> bytes:
    """ddpcore JSONL of one rank of a long run: load, forward, backward, three bucket AllReduces and the optimizer a
    step, with jitter; `slow_rank` 1.5x slower in its forward and backward (about 8 MB for 11,700 steps)."""
    import json
    import random

    rng = random.Random(seed * 1000 + rank)
    rows, t = [], 1_764_460_000.0
    slow = 1.5 if rank == slow_rank else 1.0
    for step in range(steps):
        start = t
        for phase, seconds in (("load", 0.002), ("forward", 0.010 * slow), ("backward", 0.016 * slow)):
            d = seconds * rng.lognormvariate(0.0, 0.03)
            rows.append({"rank": rank, "step": step, "phase": phase, "start": t, "end": t + d})
            t += d
        release = start + 0.046
        for bucket in range(3):
            launch = t - 0.010 + 0.004 * bucket
            rows.append({"rank": rank, "step": step, "phase": "allreduce", "start": launch, "end": release})
        t = max(t, release)
        rows.append({"rank": rank, "step": step, "phase": "optimizer", "start": t, "end": t + 0.002})
        t += 0.003
    return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
