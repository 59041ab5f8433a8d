"""Write the real 3D-parallel truth runs: a 4-rank CPU job (gloo, one thread per rank), 2 pipeline stages x 2
data-parallel ranks, a 1F1B schedule of 4 micro-batches with sends and receives by hand, recorded with
`ddpcore.ops.JobRecorder` (one JSONL file per worker), and each iteration's wall time as the truth.

Regenerate (not part of the tests; needs torch, which the tests do not):

    /tmp/torchvenv/bin/python -m tests.make_jobs3d tests/fixtures/jobs3d_real            # every scenario
    /tmp/torchvenv/bin/python -m tests.make_jobs3d tests/fixtures/jobs3d_real slow_worker

Ranks: rank r is data-parallel rank r // 2 on stage r % 2. Stage 0 holds LAYERS layers, stage 1 LAYERS layers and
the loss (twice as many in `heavy_last`). Scenarios, each from step 3 on, delays by `time.sleep` (the slowed worker
takes no CPU from the others: 2 cores hold 4 ranks):

- `clean`: none;
- `slow_worker`: the worker of DP rank 1, stage 0 sleeps SLEEP_MS in each micro-batch's forward;
- `heavy_last`: the last stage holds twice the layers (no sleep);
- `moving_dp`: the DP rank `step % 2` sleeps SLEEP_MS in each forward on both its stages (a slow DP rank that moves,
  as uneven sequence lengths make).

Each scenario's folder holds `dp{d}-stage{s}.jsonl.gz` per worker and `truth.json`: every rank's wall time of each
iteration (from one loop top to the next), the scenario and what was slowed.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path

WIDTH, LAYERS, MICRO, BATCH, SLEEP_MS, FROM_STEP = 256, 3, 4, 16, 15.0, 3
STEPS = int(os.environ.get("JOBS3D_STEPS", "40"))
SCENARIOS = ("clean", "slow_worker", "heavy_last", "moving_dp")


def _slowed(scenario: str, dp: int, stage: int, step: int) -> bool:
    """Whether this worker sleeps in its forwards at this step."""
    if step < FROM_STEP:
        return False
    if scenario == "slow_worker":
        return (dp, stage) == (1, 0)
    if scenario == "moving_dp":
        return dp == step % 2
    return False


def _worker(rank: int, scenario: str, folder: str, port: int) -> None:
    import torch
    import torch.distributed as dist

    from ddpcore.ops import JobRecorder
    from ddpcore.ops.jobrecorder import JobSizes

    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=4)
    dp, stage = rank // 2, rank % 2
    peer = dp * 2 + (1 - stage)
    dp_group = [dist.new_group([s, 2 + s]) for s in (0, 1)][stage]
    torch.manual_seed(stage)
    depth = LAYERS * (2 if scenario == "heavy_last" and stage == 1 else 1)
    model = torch.nn.Sequential(
        *[torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()) for _ in range(depth)]
    )
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    out = gzip.open(Path(folder) / f"dp{dp}-stage{stage}.jsonl.gz", "wt", encoding="utf-8")  # noqa: SIM115
    rec = JobRecorder(
        out,
        rank=rank,
        dp_rank=dp,
        stage=stage,
        sizes=JobSizes(dp=2, pp=2),
        name=scenario,
    )
    sends: list[threading.Thread] = []

    def send(kind: str, tensor: torch.Tensor, mb: int) -> None:
        """An isend, recorded from its call to its completion (waited on a thread of its own)."""
        start, seq = time.time(), rec.place(kind)
        handle = dist.isend(tensor.contiguous(), peer)

        def finished() -> None:
            handle.wait()
            rec.record(kind, start, time.time(), mb, seq=seq)

        thread = threading.Thread(target=finished)
        thread.start()
        sends.append(thread)

    walls: list[float] = []
    data = torch.randn(MICRO, BATCH, WIDTH, generator=torch.Generator().manual_seed(dp))
    target = torch.randn(MICRO, BATCH, WIDTH, generator=torch.Generator().manual_seed(10 + dp))
    top = time.time()
    for step in rec.steps(range(STEPS)):
        opt.zero_grad(set_to_none=True)
        inputs: dict[int, torch.Tensor] = {}
        outputs: dict[int, torch.Tensor] = {}
        order = ["F"] * (2 - stage - 1) + ["F", "B"] * (MICRO - (2 - stage - 1)) + ["B"] * (2 - stage - 1)
        f = b = 0
        for kind in order:
            if kind == "F":
                mb = f
                f += 1
                if stage == 1:
                    x = torch.empty(BATCH, WIDTH)
                    with rec.op("forward-recv"):
                        dist.recv(x, peer)
                    x.requires_grad_(True)
                else:
                    x = data[mb]
                with rec.op("forward-compute", micro_batch=mb):
                    if _slowed(scenario, dp, stage, step):
                        time.sleep(SLEEP_MS / 1000)
                    y = model(x)
                    if stage == 1:
                        y = torch.nn.functional.mse_loss(y, target[mb])
                inputs[mb], outputs[mb] = x, y
                if stage == 0:
                    send("forward-send", y.detach(), mb)
            else:
                mb = b
                b += 1
                if stage == 0:
                    grad = torch.empty(BATCH, WIDTH)
                    with rec.op("backward-recv"):
                        dist.recv(grad, peer)
                with rec.op("backward-compute", micro_batch=mb):
                    if stage == 1:
                        outputs[mb].backward()
                    else:
                        outputs[mb].backward(grad)
                if stage == 1:
                    send("backward-send", inputs[mb].grad, mb)
        for thread in sends:
            thread.join()
        sends.clear()
        flat = torch.cat([p.grad.reshape(-1) for p in model.parameters()])
        with rec.op("grads-reduce-scatter"):
            dist.all_reduce(flat, group=dp_group)
        norm = flat.norm().reshape(1) ** 2
        with rec.op("optimizer-clip-main-grad"):
            dist.all_reduce(norm)
        with rec.op("optimizer"):
            opt.step()
        now = time.time()
        walls.append((now - top) * 1000)
        top = now
    rec.close()
    out.close()
    (Path(folder) / f"wall{rank}.json").write_text(json.dumps(walls))
    dist.destroy_process_group()


def spawned(root: Path, scenario: str, port: int, worker) -> tuple[Path, dict[str, list[float]]]:  # type: ignore[no-untyped-def]
    """A scenario's 4 ranks run (`worker(rank, scenario, folder, port)`, each leaving `wall{r}.json`): its folder and
    every rank's wall time of each iteration."""
    import torch.multiprocessing as mp

    folder = root / scenario
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    mp.spawn(worker, args=(scenario, str(folder), port), nprocs=4, join=True)
    walls = {str(r): json.loads((folder / f"wall{r}.json").read_text()) for r in range(4)}
    for r in range(4):
        (folder / f"wall{r}.json").unlink()
    return folder, walls


def truth_of(scenario: str, walls: dict[str, list[float]], steps: int) -> dict:
    """What a scenario's truth.json says: the job, what was slowed, and every rank's wall times."""
    return {
        "scenario": scenario,
        "world": 4,
        "dp": 2,
        "pp": 2,
        "micro_batches": MICRO,
        "schedule": "1F1B",
        "steps": steps,
        "from_step": FROM_STEP,
        "sleep_ms": SLEEP_MS if scenario in ("slow_worker", "moving_dp") else 0.0,
        "slow_worker": [1, 0] if scenario == "slow_worker" else None,
        "heavy_stage": 1 if scenario == "heavy_last" else None,
        "moving_dp": scenario == "moving_dp",
        "step_ms": walls,
    }


def record(root: Path, scenario: str, port: int) -> None:
    """One scenario: 4 processes, their files, and truth.json."""
    folder, walls = spawned(root, scenario, port, _worker)
    truth = truth_of(scenario, walls, STEPS) | {"recorded_at": time.strftime("%H:%M:%S")}
    (folder / "truth.json").write_text(json.dumps(truth, indent=1))
    print(scenario, "mean step", sum(walls["0"][FROM_STEP:]) / (STEPS - FROM_STEP), "ms", flush=True)


if __name__ == "__main__":
    root = Path(sys.argv[1])
    names = sys.argv[2:] or list(SCENARIOS)
    for k, name in enumerate(names):
        record(root, name, 29500 + k + (os.getpid() % 100) * 10)
