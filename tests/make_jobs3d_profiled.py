"""Write the real 3D-parallel truth runs as PyTorch's profiler records them: the job of `tests/make_jobs3d.py` (4
CPU ranks, gloo, 2 pipeline stages x 2 data-parallel ranks, 4 micro-batches), but pipelined by
`torch.distributed.pipelining` (`PipelineStage`, `Schedule1F1B`) and recorded by `torch.profiler` alone
(`record_shapes=True`, so that each send and receive names its peer), one trace per rank.

Regenerate (not part of the tests; needs torch, which the tests do not):

    /tmp/torchvenv/bin/python -m tests.make_jobs3d_profiled tests/fixtures/jobs3d_profiled
    /tmp/torchvenv/bin/python -m tests.make_jobs3d_profiled tests/fixtures/jobs3d_profiled slow_worker

Ranks: rank r is data-parallel rank r // 2 on stage r % 2; the pipeline groups are {0, 1} and {2, 3}, the data-
parallel groups {0, 2} and {1, 3}. After each schedule step, a rank all-reduces its gradients over its data-parallel
group, then steps SGD. The scenarios are `tests/make_jobs3d.py`'s, each delay a `time.sleep` at the start of the
stage's forward (so the slowed worker takes no CPU from the others): `clean`, `slow_worker` (DP rank 1, stage 0),
`heavy_last` (stage 1 holds twice the layers), `moving_dp` (the DP rank `step % 2`, both its stages). The profiler
waits WAIT steps, warms up one, and records ACTIVE.

Each scenario's folder holds `rank{r}.pt.trace.json.gz` and `truth.json`: every rank's wall time of each iteration
(from one loop top to the next), the profiled steps and what was slowed.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.make_jobs3d import BATCH, LAYERS, MICRO, SCENARIOS, SLEEP_MS, WIDTH, _slowed, spawned, truth_of

WAIT, ACTIVE = 3, 8
STEPS = WAIT + 1 + ACTIVE


def _worker(rank: int, scenario: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=4, init_method=f"tcp://127.0.0.1:{port}")
    dp, stage = rank // 2, rank % 2
    pp_group = [dist.new_group([2 * d, 2 * d + 1]) for d in (0, 1)][dp]
    dp_group = [dist.new_group([s, 2 + s]) for s in (0, 1)][stage]
    torch.manual_seed(stage)
    depth = LAYERS * (2 if scenario == "heavy_last" and stage == 1 else 1)
    layers = torch.nn.Sequential(
        *[torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()) for _ in range(depth)]
    )
    step_now = [0]

    class Slowed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = layers

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if _slowed(scenario, dp, stage, step_now[0]):
                time.sleep(SLEEP_MS / 1000)
            return self.layers(x)

    model = Slowed()
    pipe = PipelineStage(model, stage, 2, torch.device("cpu"), group=pp_group)
    steps = Schedule1F1B(pipe, MICRO, loss_fn=torch.nn.functional.mse_loss)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(dp))
    target = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(10 + dp))

    def one_step(step: int) -> None:
        step_now[0] = step
        opt.zero_grad(set_to_none=True)
        scheduled(steps, stage, data, target)
        flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
        dist.all_reduce(flat, group=dp_group)
        opt.step()

    profiled(one_step, folder, rank)
    dist.destroy_process_group()


def scheduled(steps, stage: int, data, target) -> None:  # type: ignore[no-untyped-def]
    """One step of a pipeline schedule: the first stage gives it the inputs, the others the targets (the last's
    loss)."""
    if stage == 0:
        steps.step(data)
    else:
        steps.step(target=target)


def profiled(one_step: Callable[[int], None], folder: str, rank: int) -> None:
    """STEPS iterations of `one_step(step)` under the profiler's window (WAIT, one to warm up, ACTIVE recorded),
    each iteration's wall time kept (loop top to loop top): the trace written gzip'd, the wall times to
    `wall{rank}.json`."""
    from torch.profiler import ProfilerActivity, profile, schedule

    walls: list[float] = []
    window = schedule(wait=WAIT, warmup=1, active=ACTIVE, repeat=1)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, schedule=window) as prof:
        top = time.time()
        for step in range(STEPS):
            one_step(step)
            prof.step()
            now = time.time()
            walls.append((now - top) * 1000)
            top = now
    plain = Path(folder) / f"rank{rank}.json"
    prof.export_chrome_trace(str(plain))
    with gzip.open(Path(folder) / f"rank{rank}.pt.trace.json.gz", "wt", encoding="utf-8") as out:
        out.write(plain.read_text())
    plain.unlink()
    (Path(folder) / f"wall{rank}.json").write_text(json.dumps(walls))


def record(
    root: Path,
    scenario: str,
    port: int,
    worker: Callable[[int, str, str, int], None] | None = None,
    said: dict | None = None,
) -> None:
    """One scenario: 4 processes (`worker`, this module's by default), their traces, and truth.json (with `said`
    over the schedule's own keys)."""
    import torch

    folder, walls = spawned(root, scenario, port, worker or _worker)
    truth = truth_of(scenario, walls, STEPS) | {
        "schedule": "1F1B (torch.distributed.pipelining.Schedule1F1B)",
        "torch": torch.__version__,
        "profiled_steps": list(range(WAIT + 1, STEPS)),
        "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (folder / "truth.json").write_text(json.dumps(truth | (said or {}), indent=1))
    print(scenario, "mean step", sum(walls["0"][WAIT + 1 :]) / ACTIVE, "ms", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1])
    names = sys.argv[2:] or list(SCENARIOS)
    for k, name in enumerate(names):
        record(root, name, 29600 + k + (os.getpid() % 100) * 10)
