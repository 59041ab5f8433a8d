"""Write the second held-out set of pipeline-parallel truth runs (tests/fixtures/jobs3d_heldout2), recorded by a
helper that never read the job what-if's code, to score it blind: 3 stages, 3 DP ranks, a slow first-stage backward,
a heavy last stage under 1F1B and GPipe, a DP rank that moves over 3 ranks, and one that moves in a profiled run.
The machinery is tests/make_jobs3d_heldout.py's (same model, 4 micro-batches, 40 steps, 10 for a profiled run with
steps 4-9 profiled, delays by `time.sleep` from step 3 on, rank r is DP rank r // PP on stage r % PP), with these
runs in its RUNS (its moving DP rank is `step % DP`). Each run waits for an idle machine (under 10 % busy over 5 s)
and its truth.json also holds the machine's load around it (`machine`: `others_cpu_share`, the CPU the run did not
use).

Regenerate (not part of the tests; needs torch, which the tests do not):

    PYTHONPATH=. /tmp/torchvenv/bin/python -m tests.make_jobs3d_heldout2 tests/fixtures/jobs3d_heldout2 [NAME ...]

References of the dp2pp2 runs: tests/fixtures/jobs3d_heldout/dp2pp2_gpipe_clean and dp2pp2_profiled_clean.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import tests.make_jobs3d_heldout as heldout

LAYERS = heldout.LAYERS

RUNS: dict[str, dict] = {
    "pp3_clean": dict(dp=1, pp=3, schedule="1F1B"),
    "pp3_heavy_last": dict(dp=1, pp=3, schedule="1F1B", layers=[LAYERS, LAYERS, 2 * LAYERS]),
    "pp3_slow_stage0_bwd": dict(
        dp=1, pp=3, schedule="1F1B", slow=dict(workers=[[0, 0]], op="backward-compute", ms=10.0)
    ),
    "dp3pp2_clean": dict(dp=3, pp=2, schedule="1F1B"),
    "dp3pp2_slow_worker": dict(dp=3, pp=2, schedule="1F1B", slow=dict(workers=[[2, 0]], op="forward-compute", ms=8.0)),
    "dp3pp2_moving": dict(dp=3, pp=2, schedule="1F1B", moving=dict(op="forward-compute", ms=8.0)),
    "dp2pp2_gpipe_heavy_last": dict(dp=2, pp=2, schedule="GPipe", layers=[LAYERS, 2 * LAYERS]),
    "dp2pp2_profiled_moving": dict(
        dp=2, pp=2, schedule="Schedule1F1B", profiled=True, moving=dict(op="forward-compute", ms=10.0)
    ),
}


def _recorder(rank: int, name: str, folder: str, port: int) -> None:
    _PLAIN["recorder"](rank, name, folder, port)


def _profiled(rank: int, name: str, folder: str, port: int) -> None:
    _PLAIN["profiled"](rank, name, folder, port)


# Swapped in on import, so in every spawned rank too (which imports this module to find _recorder / _profiled).
_PLAIN = heldout.__dict__.setdefault(
    "_plain_workers", {"recorder": heldout.recorder_worker, "profiled": heldout.profiled_worker}
)
heldout.RUNS.clear()
heldout.RUNS.update(RUNS)
heldout.recorder_worker, heldout.profiled_worker = _recorder, _profiled


def _cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far."""
    ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - ticks[3] - ticks[4]) / hz, sum(ticks) / hz


def wait_idle(share: float = 0.1, span_s: float = 5.0, most_s: float = 900.0) -> float:
    """Wait (at most `most_s`) until the machine's CPU is busy under `share` over `span_s`: the busy share last seen."""
    end = time.time() + most_s
    while True:
        (b0, t0), _ = _cpu(), time.sleep(span_s)
        b1, t1 = _cpu()
        busy = (b1 - b0) / max(t1 - t0, 1e-9)
        if busy < share or time.time() > end:
            return busy


def _own() -> float:
    """CPU seconds this process and its finished children (the ranks) used so far."""
    return sum(
        u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )


def record(root: Path, name: str, port: int) -> None:
    """heldout.record on an idle machine, then truth.json's `slowed` for this set and the machine's load around it."""
    idle = wait_idle()
    load0, (busy0, total0), own0 = os.getloadavg(), _cpu(), _own()
    heldout.record(root, name, port)
    load1, (busy1, total1), own1 = os.getloadavg(), _cpu(), _own()
    cfg, path = RUNS[name], root / name / "truth.json"
    truth = json.loads(path.read_text())
    if cfg.get("moving"):
        truth["slowed"]["what"] = f"moving DP rank: DP rank (step % {cfg['dp']}), every stage of it"
    if cfg.get("slow") and cfg["dp"] == 1:
        truth["slowed"]["what"] = "one stage (with DP 1, its only worker)"
    truth["machine"] = {
        "cores": os.cpu_count(),
        "cpu_busy_share_before": round(idle, 3),
        "loadavg_before": [round(v, 2) for v in load0],
        "loadavg_after": [round(v, 2) for v in load1],
        "cpu_busy_share": round((busy1 - busy0) / max(total1 - total0, 1e-9), 3),
        "others_cpu_share": round(max(0.0, (busy1 - busy0) - (own1 - own0)) / max(total1 - total0, 1e-9), 3),
    }
    path.write_text(json.dumps(truth, indent=1))


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/fixtures/jobs3d_heldout2")
    for k, n in enumerate(sys.argv[2:] or list(RUNS)):
        record(root, n, 32500 + k + (os.getpid() % 100) * 10)
