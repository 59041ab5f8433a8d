"""Write the real-trace fixtures: a PyTorch DDP job (gloo on CPU, 4 processes) with one rank slowed.

Regenerate (not part of the tests; needs torch, which the tests do not):

    python -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0   # the CPU wheel on this machine
    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/ddp4      # from the repository's root

It writes, per rank, a PyTorch profiler Chrome trace (rank{r}.pt.trace.json.gz) and the project's JSONL
(rank{r}.jsonl.gz, from ddpcore.instrument). Rank SLOW_RANK sleeps SLOW_MS in every forward pass: the analysis
must name it and measure about SLOW_MS of extra time per step.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import sys
import time
from pathlib import Path

WORLD = 4
SLOW_RANK = 2
SLOW_MS = 40.0
STEPS = 12
PROFILE_WAIT, PROFILE_WARMUP, PROFILE_ACTIVE = 2, 2, 6


def worker(rank: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    from ddpcore.instrument import Recorder

    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.Sequential(
                torch.nn.Linear(256, 512),
                torch.nn.ReLU(),
                torch.nn.Linear(512, 512),
                torch.nn.ReLU(),
                torch.nn.Linear(512, 10),
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if rank == SLOW_RANK:
                time.sleep(SLOW_MS / 1000)
            return self.layers(x)

    model = DDP(Net(), bucket_cap_mb=0.5)
    buffer = io.StringIO()
    rec = Recorder(buffer, rank=rank)
    model.register_comm_hook(None, rec.comm_hook(default_hooks.allreduce_hook))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = [(torch.randn(64, 256), torch.randint(0, 10, (64,))) for _ in range(STEPS)]
    loader = torch.utils.data.DataLoader(data, batch_size=None)
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=PROFILE_WAIT, warmup=PROFILE_WARMUP, active=PROFILE_ACTIVE, repeat=1),
    ) as prof:
        for x, y in rec.steps(loader):
            with rec.phase("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with rec.phase("backward"):
                loss.backward()
            with rec.phase("optimizer"):
                opt.step()
                opt.zero_grad()
            prof.step()
    dist.barrier()
    rec.close()
    trace = Path(out) / f"rank{rank}.pt.trace.json"
    prof.export_chrome_trace(str(trace))
    with open(trace, "rb") as src, gzip.open(f"{trace}.gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    trace.unlink()
    with gzip.open(Path(out) / f"rank{rank}.jsonl.gz", "wt", compresslevel=9) as dst:
        dst.write(buffer.getvalue())
    dist.destroy_process_group()


def main(out: str) -> None:
    import torch.multiprocessing as mp

    Path(out).mkdir(parents=True, exist_ok=True)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(29500 + os.getpid() % 1000)
    mp.spawn(worker, args=(out,), nprocs=WORLD, join=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parent / "fixtures" / "ddp4"))
