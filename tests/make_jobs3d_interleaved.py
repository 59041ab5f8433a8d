"""Write real interleaved pipeline runs as PyTorch's profiler records them: the job of
`tests/make_jobs3d_profiled.py` (4 CPU ranks, gloo, 2 pipeline ranks x 2 data-parallel ranks, 4 micro-batches), but
each pipeline rank holds VIRTUAL model chunks (virtual stages) and runs `ScheduleInterleaved1F1B`: rank r of the
pipeline holds stages r, r + 2, ...; the last pipeline rank's first chunk sends to the first rank's second chunk.

Regenerate (not part of the tests; needs torch, which the tests do not):

    /tmp/torchvenv/bin/python -m tests.make_jobs3d_interleaved tests/fixtures/jobs3d_interleaved
    /tmp/torchvenv/bin/python -m tests.make_jobs3d_interleaved tests/fixtures/jobs3d_interleaved slow_worker

Scenarios are `tests/make_jobs3d.py`'s, each delay a `time.sleep` at the start of each of the slowed worker's chunks'
forwards (SLEEP_MS / VIRTUAL each, SLEEP_MS a micro-batch as in the other runs); `heavy_last` gives the last virtual
stage twice the layers (recorded twice, it moved the step less than two clean runs differ: the fixtures hold `clean`,
`slow_worker` and `moving_dp`). `JOBS3D_SCHEDULE` runs another of the runtime's schedules on the same job
(tests/fixtures/jobs3d_vshape: `ScheduleZBVZeroBubble`, its chunks in a V). Each scenario's folder holds
`rank{r}.pt.trace.json.gz` and `truth.json` (every rank's wall time of each iteration, the profiled steps).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tests.make_jobs3d import BATCH, LAYERS, MICRO, SCENARIOS, WIDTH, _slowed
from tests.make_jobs3d_profiled import profiled, record

VIRTUAL = 2
"""Model chunks a pipeline rank holds."""
PP = 2
SCHEDULE = os.environ.get("JOBS3D_SCHEDULE", "ScheduleInterleaved1F1B")
"""The multi-stage schedule of `torch.distributed.pipelining` run (JOBS3D_SCHEDULE: `ScheduleLoopedBFS`,
`ScheduleInterleavedZeroBubble`, ... for other runs of the same job)."""
V_SHAPED = ("ScheduleZBVZeroBubble", "ScheduleDualPipeV")
"""The schedules that place a rank's two chunks in a V: rank r holds stages r and 2 PP - 1 - r (the last rank holds
the middle two, and the first rank the model's first and last stages)."""


def _worker(rank: int, scenario: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist
    import torch.distributed.pipelining as pipelining
    from torch.distributed.pipelining import PipelineStage

    from tests.make_jobs3d import SLEEP_MS

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=4, init_method=f"tcp://127.0.0.1:{port}")
    dp, stage = rank // PP, rank % PP
    pp_group = [dist.new_group([PP * d + s for s in range(PP)]) for d in range(2)][dp]
    dp_group = [dist.new_group([s, PP + s]) for s in range(PP)][stage]
    step_now = [0]
    last = PP * VIRTUAL - 1

    class Chunk(torch.nn.Module):
        def __init__(self, index: int) -> None:
            super().__init__()
            torch.manual_seed(index)
            depth = LAYERS * (2 if scenario == "heavy_last" and index == last else 1)
            self.layers = torch.nn.Sequential(
                *[torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()) for _ in range(depth)]
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if _slowed(scenario, dp, stage, step_now[0]):
                time.sleep(SLEEP_MS / 1000 / VIRTUAL)
            return self.layers(x)

    indexes = [stage, 2 * PP - 1 - stage] if SCHEDULE in V_SHAPED else [stage + PP * c for c in range(VIRTUAL)]
    chunks = [Chunk(i) for i in indexes]
    stages = [
        PipelineStage(chunk, i, PP * VIRTUAL, torch.device("cpu"), group=pp_group) for chunk, i in zip(chunks, indexes)
    ]
    schedule = getattr(pipelining, SCHEDULE)(stages, MICRO, loss_fn=torch.nn.functional.mse_loss)
    params = [p for chunk in chunks for p in chunk.parameters()]
    opt = torch.optim.SGD(params, lr=1e-3)
    data = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(dp))
    target = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(10 + dp))

    def one_step(step: int) -> None:
        step_now[0] = step
        opt.zero_grad(set_to_none=True)
        given = {"target": target} if last in indexes else {}
        schedule.step(data, **given) if 0 in indexes else schedule.step(**given)
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        dist.all_reduce(flat, group=dp_group)
        opt.step()

    profiled(one_step, folder, rank)
    dist.destroy_process_group()


if __name__ == "__main__":
    root = Path(sys.argv[1])
    for k, name in enumerate(sys.argv[2:] or list(SCENARIOS)):
        said = {
            "schedule": f"{VIRTUAL} chunks a rank (torch.distributed.pipelining.{SCHEDULE})",
            "vpp": VIRTUAL,
        }
        record(root, name, 29700 + k + (os.getpid() % 100) * 10, _worker, said)
