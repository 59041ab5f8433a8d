"""Record the fourth held-out set of real DDP runs (tests/fixtures/heldout4; gloo on CPU, one process and one torch
thread per rank), written by a helper that never read the verdict's code, adapted from tests/make_traces.py (its
run loop copied, the files a rank writes shared: `make_traces.kept_files`). Delays are time.sleep only. Regenerate
(not part of the tests; needs torch):

    PYTHONPATH=. HELDOUT4_OUT=tests/fixtures/heldout4 /tmp/torchvenv/bin/python -m tests.make_heldout4 [names...]

Per run folder: rank{r}.jsonl.gz (ddpcore Recorder, all steps), rank{r}.pt.trace.json.gz (torch.profiler window),
truth.json (every rank's wall time of each iteration, loop top to loop top, and what was slowed)."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.make_traces import kept_files, others_cpu, spin

STEPS = 60
WIDTH, BATCH = 384, 32
OUT = Path(os.environ.get("HELDOUT4_OUT", "tests/fixtures/heldout4"))


@dataclass(frozen=True)
class Run:
    world: int
    ranks: tuple = ()
    cause: str = ""  # forward, backward, optimizer, load
    sleep_ms: float = 0.0
    steps: tuple = ()  # ranges of steps whose barrier the delay reaches (inclusive pairs)
    active: int = 12  # profiled steps
    first: int = 22  # first profiled step (wait = first - 2, warmup 2)
    busy: bool = False

    def slows(self, step: int, rank: int) -> bool:
        return rank in self.ranks and any(a <= step <= b for a, b in self.steps)

    def slowed(self):
        return [(s, r) for s in range(STEPS) for r in range(self.world) if self.slows(s, r)]


ALL = ((3, STEPS - 1),)
RUNS = {
    "e_clean8": Run(8, active=8),
    "e_slow8_r5": Run(8, (5,), "forward", 12.0, ALL, active=6),
    "e_recover1": Run(4, (1,), "backward", 15.0, ((10, 34),), active=12, first=28),
    "e_bursts2": Run(4, (2,), "forward", 15.0, ((5, 9), (20, 24), (35, 39), (50, 54)), active=10, first=18),
    "e_load3": Run(4, (3,), "load", 15.0, ALL, active=5),
    "e_small0": Run(4, (0,), "forward", 3.0, ((0, STEPS - 1),), active=8),
    "e_three8": Run(8, (1, 4, 6), "forward", 12.0, ALL, active=8),
    "e_clean2": Run(2, active=5),
    "e_slow2_r1": Run(2, (1,), "optimizer", 15.0, ALL, active=5),
    "e_clean4_busy": Run(4, busy=True, active=10),
    # extra reference (not in the brief's list): a 4-rank idle clean run, the cost reference of the 4-rank runs
    "e_clean4": Run(4, active=12),
    # extra: a second 8-rank clean run (the first, e_clean8, started as a test suite was ending)
    "e_clean8_b": Run(8, active=8),
    # extra repeats, to see whether a result holds on another recording
    "e_clean2_b": Run(2, active=5),
    "e_clean2_c": Run(2, active=5),
    "e_recover1_b": Run(4, (1,), "backward", 15.0, ((10, 34),), active=12, first=28),
}


class Batches:
    def __init__(self, run: Run, rank: int) -> None:
        self.run, self.rank = run, rank

    def __len__(self) -> int:
        return STEPS

    def __getitem__(self, i: int):
        import torch

        if self.run.cause == "load" and self.run.slows(i, self.rank):
            time.sleep(self.run.sleep_ms / 1000)
        g = torch.Generator().manual_seed(i)
        return torch.randn(BATCH, WIDTH, generator=g), torch.randint(0, 10, (BATCH,), generator=g)


def worker(rank: int, out: str, name: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    from ddpcore.ops import Recorder

    run = RUNS[name]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=run.world)
    state = {"step": 0}

    def sleep_if(cause: str, step: int) -> None:
        if run.cause == cause and run.slows(step, rank):
            time.sleep(run.sleep_ms / 1000)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first = torch.nn.Linear(WIDTH, WIDTH)
            self.rest = torch.nn.Sequential(
                torch.nn.ReLU(),
                torch.nn.Linear(WIDTH, WIDTH),
                torch.nn.ReLU(),
                torch.nn.Linear(WIDTH, WIDTH),
                torch.nn.ReLU(),
                torch.nn.Linear(WIDTH, 10),
            )

        def forward(self, x):
            sleep_if("forward", state["step"])
            h = self.first(x)
            if run.cause == "backward" and run.slows(state["step"], rank):
                h.register_hook(lambda g: time.sleep(run.sleep_ms / 1000))
            return self.rest(h)

    model = DDP(Net(), bucket_cap_mb=0.5)
    buffer = io.StringIO()
    rec = Recorder(buffer, rank=rank)
    model.register_comm_hook(None, rec.comm_hook(default_hooks.allreduce_hook))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    # as make_traces.py: the optimizer of iteration s delays the barrier of step s + 1
    opt.register_step_post_hook(lambda *_: sleep_if("optimizer", state["step"]))
    loader = torch.utils.data.DataLoader(Batches(run, rank), batch_size=None)
    tops: list[float] = []
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=run.first - 2, warmup=2, active=run.active, repeat=1),
    ) as prof:
        tops.append(time.time())
        for step, (x, y) in enumerate(rec.steps(loader)):
            state["step"] = step
            with rec.phase("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with rec.phase("backward"):
                loss.backward()
            state["step"] = step + 1
            with rec.phase("optimizer"):
                opt.step()
                opt.zero_grad()
            prof.step()
            tops.append(time.time())
    dist.barrier()
    rec.close()
    kept_files(prof, buffer, tops, Path(out), rank)
    dist.destroy_process_group()


def main(names: list[str]) -> None:
    import multiprocessing

    import torch.multiprocessing as mp

    for i, name in enumerate(names or list(RUNS)):
        run = RUNS[name]
        folder = OUT / name
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(31000 + (os.getpid() * 7 + i * 13 + len(name)) % 2000)
        before = others_cpu()
        busy = multiprocessing.get_context("spawn").Process(target=spin, daemon=True) if run.busy else None
        if busy:
            busy.start()
        t0 = time.time()
        try:
            mp.spawn(worker, args=(str(folder), name), nprocs=run.world, join=True)
        finally:
            if busy:
                busy.kill()
                busy.join()
        walls = {}
        for r in range(run.world):
            part = folder / f"wall{r}.json"
            walls[str(r)] = json.loads(part.read_text())
            part.unlink()
        slowed = run.slowed()
        truth = {
            "scenario": name,
            "world": run.world,
            "ranks": list(run.ranks),
            "cause": run.cause or None,
            "sleep_ms": run.sleep_ms,
            "slowed_step_ranges": [list(p) for p in run.steps],
            "delayed_steps": sorted({s for s, _ in slowed}),
            "slowed": [list(p) for p in slowed],
            "busy": run.busy,
            "profiled_steps": list(range(run.first, run.first + run.active)),
            "note": "optimizer sleeps run in iteration s-1 for a delayed step s (make_traces.py convention); "
            "load sleeps in the Dataset's __getitem__(s), forward/backward sleeps in iteration s",
            "machine_before": before,
            "machine_after": others_cpu(),
            "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t0)),
            "recording_s": round(time.time() - t0, 1),
            "step_ms": walls,
        }
        (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(name, "written in", truth["recording_s"], "s;", before, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
