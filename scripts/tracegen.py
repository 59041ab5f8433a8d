"""A large trace made of real events: the bench and the memory test read the same (generated, never committed)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

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
