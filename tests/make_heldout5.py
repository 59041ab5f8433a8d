"""Record the fifth held-out set of real DDP runs (tests/fixtures/heldout5; gloo on CPU, one process and one torch
thread per rank), adapted from tests/make_heldout4.py by a helper that never read the verdict's code: moving and
random stragglers, quiet and on a busy machine (the files a rank writes shared with tests/make_traces.py). Delays
are time.sleep only; each run waits for an idle machine first and records the CPU other processes used meanwhile.
Regenerate (not part of the tests; needs torch):

    PYTHONPATH=. HELDOUT5_OUT=tests/fixtures/heldout5 /tmp/torchvenv/bin/python -m tests.make_heldout5 [names...]

Per run folder runs/<name>: rank{r}.jsonl.gz (ddpcore Recorder, all steps), rank{r}.pt.trace.json.gz (torch.profiler
window), truth.json (every rank's wall time of each iteration, loop top to loop top, and which rank-steps slept)."""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.make_traces import kept_files, others_cpu, spin

STEPS = 60
WIDTH, BATCH = 384, 32
OUT = Path(os.environ.get("HELDOUT5_OUT", "tests/fixtures/heldout5"))


@dataclass(frozen=True)
class Run:
    world: int
    kind: str = "clean"  # clean, moving, random, fixed
    cause: str = ""  # forward, backward
    sleep_ms: float = 0.0
    ranks: tuple = ()  # fixed: the slow ranks
    prob: float = 0.0  # random: per rank-step probability
    seed: int = 0
    active: int = 8  # profiled steps
    first: int = 22  # first profiled step (wait = first - 2, warmup 2)
    busy: bool = False

    def slowed(self):
        if self.kind == "moving":
            return [(s, s % self.world) for s in range(STEPS)]
        if self.kind == "fixed":
            return [(s, r) for s in range(STEPS) for r in self.ranks]
        if self.kind == "random":
            rng = random.Random(self.seed)
            return [(s, r) for s in range(STEPS) for r in range(self.world) if rng.random() < self.prob]
        return []

    def slows(self, step: int, rank: int) -> bool:
        return (step, rank) in set(map(tuple, self.slowed()))


RUNS = {
    "mov_s8": Run(4, "moving", "forward", 8.0, active=8, first=22),
    "mov_s15": Run(4, "moving", "forward", 15.0, active=8, first=30),
    "mov_s30": Run(4, "moving", "forward", 30.0, active=8, first=40),
    "movb_s10": Run(4, "moving", "forward", 10.0, busy=True, active=8, first=24),
    "movb_s20": Run(4, "moving", "forward", 20.0, busy=True, active=8, first=34),
    "mov8_s20": Run(8, "moving", "forward", 20.0, active=8, first=26),
    "rand_q": Run(4, "random", "backward", 20.0, prob=0.1, seed=51, active=10, first=20),
    "rand_b": Run(4, "random", "backward", 20.0, prob=0.1, seed=52, busy=True, active=10, first=36),
    "two_b": Run(4, "fixed", "forward", 10.0, ranks=(1, 3), busy=True, active=6, first=30),
    "clean_q1": Run(4, active=8, first=22),
    "clean_q2": Run(4, active=10, first=36),
    "clean_b1": Run(4, busy=True, active=8, first=24),
    "clean_b2": Run(4, busy=True, active=6, first=40),
    # extra reference (not in the brief's list): an 8-rank quiet clean run, the cost reference of mov8_s20
    "clean8_q": Run(8, active=8, first=26),
}


class Batches:
    def __len__(self) -> int:
        return STEPS

    def __getitem__(self, i: int):
        import torch

        g = torch.Generator().manual_seed(i)
        return torch.randn(BATCH, WIDTH, generator=g), torch.randint(0, 10, (BATCH,), generator=g)


SET = "HELDOUT_SET"
"""The environment variable naming another set's module (tests/make_heldout6.py) whose RUNS and OUT this machinery
records instead of its own: the ranks are spawned processes that import this module again, and read it there."""


def recorded() -> tuple[dict, Path]:
    """The runs recorded and where: this set's, or those of the module named by SET."""
    other = os.environ.get(SET)
    if not other:
        return RUNS, OUT
    module = importlib.import_module(other)
    return module.RUNS, module.OUT


def worker(rank: int, out: str, name: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    from ddpcore.ops import Recorder

    run = recorded()[0][name]
    mine = {s for s, r in run.slowed() if r == rank}
    torch.manual_seed(0)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=run.world)
    state = {"step": 0}

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
            slow = state["step"] in mine
            if run.cause == "forward" and slow:
                time.sleep(run.sleep_ms / 1000)
            h = self.first(x)
            if run.cause == "backward" and slow:
                h.register_hook(lambda g: time.sleep(run.sleep_ms / 1000))
            return self.rest(h)

    model = DDP(Net(), bucket_cap_mb=0.5)
    buffer = io.StringIO()
    rec = Recorder(buffer, rank=rank)
    model.register_comm_hook(None, rec.comm_hook(default_hooks.allreduce_hook))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(Batches(), batch_size=None)
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
            with rec.phase("optimizer"):
                opt.step()
                opt.zero_grad()
            prof.step()
            tops.append(time.time())
    dist.barrier()
    rec.close()
    kept_files(prof, buffer, tops, Path(out), rank)
    dist.destroy_process_group()


def busy_share(seconds: float = 1.0) -> float:
    """The machine's CPU share in use over a short sample (/proc/stat), 0..1."""

    def read():
        v = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        return sum(v), v[3] + v[4]

    t0, i0 = read()
    time.sleep(seconds)
    t1, i1 = read()
    return 1 - (i1 - i0) / max(1, t1 - t0)


def wait_quiet(limit_s: float = 150.0) -> str:
    """Before a quiet run: wait until others use under 15 % of the CPU (another session may be running tests)."""
    t0 = time.time()
    while time.time() - t0 < limit_s:
        share = busy_share()
        if share < 0.15:
            return f"quiet after {time.time() - t0:.0f} s (cpu {share:.2f})"
    return f"NOT quiet after {limit_s:.0f} s (cpu {share:.2f})"


def cpu_now():
    """(machine busy seconds from /proc/stat, our children's CPU seconds): their difference is others' CPU use."""
    import resource

    v = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (sum(v) - v[3] - v[4]) / hz, ru.ru_utime + ru.ru_stime


def main(names: list[str]) -> None:
    import multiprocessing

    import torch.multiprocessing as mp

    runs, out = recorded()
    for i, name in enumerate(names or list(runs)):
        run = runs[name]
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(33000 + (os.getpid() * 7 + i * 13 + len(name)) % 2000)
        quiet = wait_quiet(float(os.environ.get("HELDOUT5_QUIET_S", "240")))
        before = others_cpu()
        busy = multiprocessing.get_context("spawn").Process(target=spin, daemon=True) if run.busy else None
        if busy:
            busy.start()
            time.sleep(0.5)
        t0 = time.time()
        c0 = cpu_now()
        try:
            mp.spawn(worker, args=(str(folder), name), nprocs=run.world, join=True)
        finally:
            if busy:
                busy.kill()
                busy.join()
        c1 = cpu_now()
        wall_s = time.time() - t0
        others = ((c1[0] - c0[0]) - (c1[1] - c0[1])) / (wall_s * (os.cpu_count() or 1))
        walls = {}
        for r in range(run.world):
            part = folder / f"wall{r}.json"
            walls[str(r)] = json.loads(part.read_text())
            part.unlink()
        slowed = run.slowed()
        truth = {
            "scenario": name,
            "world": run.world,
            "kind": run.kind,
            "cause": run.cause or None,
            "sleep_ms": run.sleep_ms,
            "fixed_ranks": list(run.ranks),
            "prob": run.prob,
            "seed": run.seed,
            "delayed_steps": sorted({s for s, _ in slowed}),
            "slowed": [list(p) for p in slowed],
            "busy": run.busy,
            "profiled_steps": list(range(run.first, run.first + run.active)),
            "note": "forward/backward sleeps in iteration s delay the barrier of step s",
            "quiet_wait": quiet,
            "others_cpu_share_during": round(others, 3),
            "machine_before": before,
            "machine_after": others_cpu(),
            "recorded_at": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t0)),
            "recording_s": round(time.time() - t0, 1),
            "step_ms": walls,
        }
        (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(
            name,
            "written in",
            truth["recording_s"],
            "s;",
            quiet,
            "others during",
            round(others, 3),
            ";",
            before,
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
