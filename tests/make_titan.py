"""Write the torchtitan fixtures (`tests/fixtures/titan`): a 4-rank CPU job (gloo, one thread a rank) shaped as
torchtitan's trainer steps (`torchtitan/trainer.py`), logged by torchtitan's own structured logger
(`torchtitan.observability.structured_logger`), with each iteration's wall time as the truth.

torchtitan's trainer needs a model, a tokenizer and data it downloads; its logger does not. So each step here is the
trainer's, span for span: a `step` span holding the batch fetched (`fetching_batch`), the all-reduce of the token
count across the data-parallel ranks, the forward and backward of a DDP model (`fwd_bwd`, whose backward all-reduces
the gradients) and the optimizer (`optim`), and every CHECKPOINT_EVERY steps a `checkpoint_save` (each rank its own,
as an asynchronous save is: a save that all ranks wait for together would hold them inside their own spans). Every
rank's forward sleeps DEVICE_S (the device's share: the 4 ranks then share the 2 cores little). Scenarios, from step
FROM_STEP on:

- `clean`: nothing more;
- `slow_load`: rank 1 sleeps SLEEP_S more in each `fetching_batch`;
- `slow_forward`: rank 1 sleeps SLEEP_S more inside each `fwd_bwd` (what such logs cannot show);
- `checkpoint`: rank 2 sleeps CHECKPOINT_S more in each `checkpoint_save`.

Regenerate (not part of the tests; needs torch and torchtitan, which the tests do not):

    /tmp/torchvenv/bin/pip install --no-deps torchtitan            # beside the CPU torch of tests/make_traces.py
    /tmp/torchvenv/bin/python -m tests.make_titan tests/fixtures/titan             # every scenario
    /tmp/torchvenv/bin/python -m tests.make_titan tests/fixtures/titan slow_load   # one of them

Each scenario's folder holds, per rank, the logger's file as it wrote it (`training.global_rank_<r>.jsonl`, its
timestamp left out of the name, gzipped after) and `truth.json`: every rank's wall time of each iteration (from one
step's start to the next), the slowed rank, where and how long it slept.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import time
from pathlib import Path

WORLD, STEPS, FROM_STEP, CHECKPOINT_EVERY = 4, 60, 5, 10
DEVICE_S, SLEEP_S, CHECKPOINT_S = 0.03, 0.02, 0.06
SCENARIOS = {
    "clean": (None, None, 0.0),
    "slow_load": (1, "fetching_batch", SLEEP_S),
    "slow_forward": (1, "fwd_bwd", SLEEP_S),
    "checkpoint": (2, "checkpoint_save", CHECKPOINT_S),
}
"""Each scenario: the slowed rank, the span it sleeps more in, and how long (s)."""


def _worker(rank: int, folder: str, scenario: str, port: int) -> None:
    import torch
    import torch.distributed as dist
    from torchtitan.observability import structured_logger as sl

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    sl.init_structured_logger(source="training", output_dir=folder, rank=rank)
    slowed, where, extra = SCENARIOS[scenario]
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 1))
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)

    def sleep(span: str, step: int, base: float = 0.0) -> None:
        more = extra if (rank == slowed and span == where and step >= FROM_STEP) else 0.0
        if base + more:
            time.sleep(base + more)

    tops = []
    for step in range(1, STEPS + 1):
        tops.append(time.perf_counter())
        sl.set_step(step)
        with sl.log_trace_span("step"):
            with sl.log_trace_span("fetching_batch"):
                x, y = torch.randn(64, 64, generator=g), torch.randn(64, 1, generator=g)
                sleep("fetching_batch", step)
            tokens = torch.tensor([x.shape[0]])
            dist.all_reduce(tokens)
            with sl.log_trace_span("fwd_bwd"):
                sleep("fwd_bwd", step, DEVICE_S)
                torch.nn.functional.mse_loss(model(x), y).backward()
            with sl.log_trace_span("optim"):
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
            if step % CHECKPOINT_EVERY == 0:
                with sl.log_trace_span("checkpoint_save"):
                    sleep("checkpoint_save", step)
    tops.append(time.perf_counter())
    (Path(folder) / f"walls{rank}.json").write_text(
        json.dumps([round(1000 * (b - a), 3) for a, b in zip(tops, tops[1:])])
    )
    dist.barrier()
    dist.destroy_process_group()


def record(root: Path, scenario: str, port: int) -> None:
    """One scenario: 4 processes, their logs gzipped, and truth.json."""
    import torch.multiprocessing as mp

    folder = root / scenario
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    mp.spawn(_worker, args=(str(folder), scenario, port), nprocs=WORLD, join=True)
    for path in sorted((folder / "structured_logs").glob("training.global_rank_*.jsonl")):
        name = ".".join(path.name.split(".")[:2]) + ".jsonl.gz"
        with path.open("rb") as raw, gzip.open(folder / name, "wb", compresslevel=9) as out:
            shutil.copyfileobj(raw, out)
    shutil.rmtree(folder / "structured_logs")
    walls = {}
    for r in range(WORLD):
        walls[str(r)] = json.loads((folder / f"walls{r}.json").read_text())
        (folder / f"walls{r}.json").unlink()
    slowed, where, extra = SCENARIOS[scenario]
    from importlib.metadata import version

    truth = {
        "scenario": scenario,
        "torchtitan": version("torchtitan"),
        "world": WORLD,
        "steps": STEPS,
        "from_step": FROM_STEP,
        "rank": slowed,
        "span": where,
        "sleep_ms": 1000 * extra,
        "device_ms": 1000 * DEVICE_S,
        "checkpoint_every": CHECKPOINT_EVERY,
        "step_ms": walls,
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
    print(scenario, "written", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1])
    for k, name in enumerate(sys.argv[2:] or list(SCENARIOS)):
        record(root, name, 29700 + k + (os.getpid() % 100) * 10)
