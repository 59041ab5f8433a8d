"""Write real pipeline x tensor-parallel truth runs as PyTorch's profiler records them: 4 CPU ranks (gloo), a device
mesh of 2 pipeline stages x 2 tensor-parallel ranks (`init_device_mesh("cpu", (2, 2), mesh_dim_names=("pp",
"tp"))`, whose process groups `distributedInfo` names `mesh_pp` and `mesh_tp`), pipelined by
`torch.distributed.pipelining`'s `Schedule1F1B` over 4 micro-batches, each stage's layers split Megatron-style: a
column-parallel linear, then a row-parallel one whose outputs are all-reduced over the tensor-parallel group
(`torch.distributed.nn.functional.all_reduce`, so that the backward all-reduces too). Recorded by `torch.profiler`
alone (`record_shapes=True`), one trace per rank.

Regenerate (not part of the tests; needs torch, which the tests do not):

    /tmp/torchvenv/bin/python -m tests.make_jobs3d_tp tests/fixtures/jobs3d_tp

Rank r is stage r // 2, tensor-parallel rank r % 2. Scenarios, from step FROM_STEP on, a `time.sleep` inside the
stage's forward before its all-reduce (the sleeping rank takes no CPU from the others): `clean` none; `slow_tp` the
tensor-parallel rank 1 of stage 0 (rank 1), SLEEP_MS in each micro-batch's forward.

Each scenario's folder holds `rank{r}.pt.trace.json.gz` and `truth.json`: every rank's wall time of each iteration,
the profiled steps and what was slowed.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from pathlib import Path

from tests.make_jobs3d import BATCH, FROM_STEP, MICRO, SLEEP_MS, WIDTH, spawned
from tests.make_jobs3d_profiled import ACTIVE, STEPS, WAIT, profiled, scheduled

SCENARIOS = ("clean", "slow_tp")
SLOW_RANK = 1


def _worker(rank: int, scenario: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist
    import torch.distributed.nn.functional as dfn
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B

    warnings.filterwarnings("ignore", category=FutureWarning)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=4, init_method=f"tcp://127.0.0.1:{port}")
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("pp", "tp"))
    stage, tp = rank // 2, rank % 2
    tp_group = mesh["tp"].get_group()
    torch.manual_seed(10 * stage + tp)
    step_now = [0]

    class TensorParallel(torch.nn.Module):
        """Two Megatron-style blocks: column-parallel, then row-parallel with its outputs all-reduced."""

        def __init__(self) -> None:
            super().__init__()
            self.up = torch.nn.ModuleList(torch.nn.Linear(WIDTH, WIDTH // 2) for _ in range(2))
            self.down = torch.nn.ModuleList(torch.nn.Linear(WIDTH // 2, WIDTH, bias=False) for _ in range(2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if scenario == "slow_tp" and rank == SLOW_RANK and step_now[0] >= FROM_STEP:
                time.sleep(SLEEP_MS / 1000)
            for up, down in zip(self.up, self.down):
                x = torch.tanh(dfn.all_reduce(down(torch.tanh(up(x))), group=tp_group))
            return x

    model = TensorParallel()
    pipe = PipelineStage(model, stage, 2, torch.device("cpu"), group=mesh["pp"].get_group())
    steps = Schedule1F1B(pipe, MICRO, loss_fn=torch.nn.functional.mse_loss)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    data = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(0))
    target = torch.randn(MICRO * BATCH, WIDTH, generator=torch.Generator().manual_seed(1))

    def one_step(step: int) -> None:
        step_now[0] = step
        opt.zero_grad(set_to_none=True)
        scheduled(steps, stage, data, target)
        opt.step()

    profiled(one_step, folder, rank)
    dist.destroy_process_group()


def record(root: Path, scenario: str, port: int) -> None:
    """One scenario: 4 processes, their traces, and truth.json."""
    import torch

    folder, walls = spawned(root, scenario, port, _worker)
    truth = {
        "scenario": scenario,
        "world": 4,
        "dp": 1,
        "pp": 2,
        "tp": 2,
        "micro_batches": MICRO,
        "schedule": "1F1B (torch.distributed.pipelining.Schedule1F1B)",
        "torch": torch.__version__,
        "steps": STEPS,
        "profiled_steps": list(range(WAIT + 1, STEPS)),
        "from_step": FROM_STEP,
        "sleep_ms": SLEEP_MS if scenario == "slow_tp" else 0.0,
        "slow_rank": SLOW_RANK if scenario == "slow_tp" else None,
        "slow_worker": [0, 0] if scenario == "slow_tp" else None,
        "step_ms": walls,
        "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=1))
    print(scenario, "mean step", sum(walls["0"][WAIT + 1 :]) / ACTIVE, "ms", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1])
    for k, name in enumerate(sys.argv[2:] or SCENARIOS):
        record(root, name, 29700 + k + (os.getpid() % 100) * 10)
