"""Write the real-trace fixtures of stragglers with a known cause: a PyTorch DDP job (gloo on CPU, 4 processes, one
thread each), one scenario per way a rank loses its time, and each iteration's wall time as the truth.

Regenerate (not part of the tests; needs torch, which the tests do not):

    python -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0   # the CPU wheel on this machine
    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/causes               # every scenario
    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/causes between       # one of them

Each scenario's folder holds, per rank, the project's JSONL of every step (rank{r}.jsonl.gz, from
ddpcore.ops.instrument), a PyTorch profiler Chrome trace of its window's steps (rank{r}.pt.trace.json.gz), and
`truth.json`:
every rank's wall time of each iteration (from one loop top to the next), the slowed rank, its cause, and the steps
whose barrier the delay reaches. Delays are `time.sleep`, so the slowed rank takes no CPU from the others (2 cores
hold 4 ranks here; a busy loop would slow them all).

`tests/fixtures/ddp4` was written by this script's first version (rank 2 sleeping 40 ms in each forward, 12 steps).

The noise set (`tests/fixtures/noise`, written in one sitting so that its clean run is the others' reference) holds
what real jobs do besides one slow rank: a straggler that moves from rank to rank, rank-steps slowed at random, two
slow ranks at once (a slow node), a GC-like pause every k-th step, and a clean run; its profiler window is 8 steps:

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/noise --noise

The pairs (`tests/fixtures/pairs`, one sitting): runs before and after a fix whose answer `compare` must give (a slow
input prefetched, a fix that does nothing, a straggler that moved):

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/pairs --pairs

The verdict set (`tests/fixtures/verdict`, one sitting): what a verdict must get right besides the cause: a profiler
window of only 3 steps (clean, one slow rank, a moving straggler), a competing CPU-bound process that runs through the
whole run (clean and with one slow rank; `busy_clean` is `busy_slow`'s reference), a straggler with an onset (rank
1 slow from step 35 on only, after the profiler window), and a moving straggler in steps long enough that 4 ranks
sharing 2 cores jitter by as much as its sleep (`heavy_clean` is `heavy_moving`'s reference):

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/verdict --verdict

(on an otherwise idle machine: any other process taking CPU while a scenario runs changes its truth; the set was
written one scenario at a time, each while nothing outside the run used the CPU).

The held-out set (`tests/fixtures/heldout`, one sitting, recorded by a helper that never saw the verdict's code with
the verdict as it stood, and scored before anyone looked at its runs): kinds the other sets hold on an idle machine,
on a busy one, plus a profiler window of 4 steps. A moving straggler, rank-steps slowed at random (a draw of another
seed than the noise set's), two slow ranks, a small persistent straggler (8 ms) and an onset, each beside a competing
CPU-bound process, with their clean references (`busy_clean`, `clean`, `window4_clean`):

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/heldout --heldout

A second held-out set (`tests/fixtures/heldout2`, one sitting, a helper again; `HELDOUT2`):

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/heldout2 --heldout2

A third (`tests/fixtures/heldout3`, a helper again, scored blind; `HELDOUT3`):

    /tmp/torchvenv/bin/python -m tests.make_traces tests/fixtures/heldout3 --heldout3
"""

from __future__ import annotations

import gzip
import io
import json
import os
import random
import shutil
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

WORLD = 4
STEPS = 60
FROM_STEP = 5
"""The first step whose barrier a delay reaches (the earlier ones are the run's own, unslowed)."""
PROFILE_WAIT, PROFILE_WARMUP, PROFILE_ACTIVE = 20, 2, 12
WIDTH, BATCH = 384, 32


NOISE_SEED = 36


@dataclass(frozen=True)
class Scenario:
    """One way ranks lose time: which ranks sleep, where, how long, in which steps (`every`: each n-th step;
    `moving`: rank step % WORLD in each step; `prob`: each rank-step with this probability, a seeded draw; `from_step`:
    the first step it reaches), how many steps the profiler records, and whether a competing CPU-bound process runs
    beside the ranks (`busy`)."""

    ranks: tuple[int, ...]
    cause: str
    sleep_ms: float
    every: int = 1
    moving: bool = False
    prob: float = 0.0
    profiled: int = PROFILE_ACTIVE
    prefetch: bool = False
    """Load batches ahead in a thread (a slow input's usual fix; `prefetched`)."""
    from_step: int = FROM_STEP
    busy: bool = False
    """A separate process spins a pure-Python loop from before the ranks start until they end (`spin`)."""
    batch: int = BATCH
    """Samples a step: a larger batch makes each rank's work long enough that the ranks sharing the 2 cores
    jitter by as much as a sleep (`heavy_*`)."""
    seed: int = NOISE_SEED
    """The seed of the `prob` draw."""

    @property
    def rank(self) -> int | None:
        """The one rank that sleeps, when there is one."""
        return self.ranks[0] if len(self.ranks) == 1 and not self.moving and not self.prob else None

    def slows(self, step: int, rank: int) -> bool:
        """Whether the delay reaches this rank's gradient barrier in this step."""
        if step < self.from_step or step % self.every:
            return False
        if self.moving:
            return rank == step % WORLD
        if self.prob:
            return (step, rank) in _drawn(self.prob, self.seed)
        return rank in self.ranks

    def slowed(self) -> list[tuple[int, int]]:
        """Every (step, rank) the delay reaches."""
        return [(s, r) for s in range(STEPS) for r in range(WORLD) if self.slows(s, r)]

    def window(self) -> range:
        """The steps the profiler records."""
        first = PROFILE_WAIT + PROFILE_WARMUP
        return range(first, first + self.profiled)


@cache
def _drawn(prob: float, seed: int = NOISE_SEED) -> frozenset[tuple[int, int]]:
    """The rank-steps a seeded draw slows with probability `prob`, in one stream over steps then ranks."""
    rng = random.Random(seed)
    return frozenset((s, r) for s in range(STEPS) for r in range(WORLD) if rng.random() < prob)


SCENARIOS = {
    "clean": Scenario((), "", 0.0),
    "between": Scenario((0,), "between_steps", 20.0),
    "checkpoint": Scenario((0,), "between_steps", 60.0, every=10),
    "backward": Scenario((1,), "backward", 15.0),
    "input": Scenario((2,), "load", 20.0),
    "forward": Scenario((2,), "forward", 20.0),
    "optimizer": Scenario((3,), "optimizer", 20.0),
}
"""The scenarios of `tests/fixtures/causes`, by folder name; `cause` is what the analysis must name."""

NOISE_WINDOW = 8
NOISE = {
    "clean": Scenario((), "", 0.0, profiled=NOISE_WINDOW),
    "moving": Scenario((), "forward", 20.0, moving=True, profiled=NOISE_WINDOW),
    "random": Scenario((), "forward", 30.0, prob=0.1, profiled=NOISE_WINDOW),
    "two_slow": Scenario((1, 3), "forward", 15.0, profiled=NOISE_WINDOW),
    "gc": Scenario((1,), "forward", 400.0, every=4, profiled=NOISE_WINDOW),
}
"""The scenarios of `tests/fixtures/noise`: a straggler that moves (rank step % 4), rank-steps slowed with probability
0.1, two slow ranks, a 400 ms pause every 4th step on rank 1 (2 of the 8 profiled steps), and a clean run."""


PAIRS = {
    "input_slow": Scenario((2,), "load", 20.0),
    "input_prefetched": Scenario((2,), "load", 20.0, prefetch=True),
    "clean_first": Scenario((), "", 0.0),
    "clean_again": Scenario((), "", 0.0),
    "slow_rank1": Scenario((1,), "forward", 20.0),
    "slow_rank3": Scenario((3,), "forward", 20.0),
}
"""The runs of `tests/fixtures/pairs`, in before/after pairs written in one sitting: a slow input (rank 2's Dataset
sleeps 20 ms a batch) then the same input loaded two batches ahead by a thread; a clean run twice (a fix that does
nothing); rank 1 slow in its forward, then rank 3 (a fix that moves the straggler)."""

VERDICT_WINDOW = 3
HEAVY_BATCH = 512
VERDICT = {
    "window3_clean": Scenario((), "", 0.0, profiled=VERDICT_WINDOW),
    "window3_slow": Scenario((2,), "forward", 20.0, profiled=VERDICT_WINDOW),
    "window3_moving": Scenario((), "forward", 20.0, moving=True, profiled=VERDICT_WINDOW),
    "busy_clean": Scenario((), "", 0.0, busy=True),
    "busy_slow": Scenario((1,), "forward", 20.0, busy=True),
    "onset": Scenario((1,), "forward", 20.0, from_step=35),
    "heavy_clean": Scenario((), "", 0.0, batch=HEAVY_BATCH),
    "heavy_moving": Scenario((), "forward", 18.0, moving=True, batch=HEAVY_BATCH),
}
"""The scenarios of `tests/fixtures/verdict`: a 3-step profiler window (steps 22-24) clean, with rank 2 slow (20 ms in
its forward) and with a moving straggler (rank step % 4, 20 ms); a competing busy process through the whole run, clean
and with rank 1 slow (20 ms in its forward); rank 1 slow (20 ms in its forward) from step 35 on only (its profiler
window, steps 22-33, is before the onset); and a step of HEAVY_BATCH samples, clean and with a moving straggler
(rank step % 4, 18 ms in its forward), where 4 ranks sharing 2 cores jitter by about as much as the sleep: a sleeping
rank frees a core, and the others speed up."""
HELDOUT_SEED = 7
HELDOUT = {
    "busy_clean": Scenario((), "", 0.0, busy=True),
    "busy_moving": Scenario((), "forward", 20.0, moving=True, busy=True),
    "busy_random": Scenario((), "forward", 30.0, prob=0.1, seed=HELDOUT_SEED, busy=True),
    "busy_two": Scenario((1, 3), "forward", 15.0, busy=True),
    "busy_small": Scenario((2,), "forward", 8.0, busy=True),
    "window4_slow": Scenario((2,), "forward", 20.0, profiled=4),
    "window4_clean": Scenario((), "", 0.0, profiled=4),
    "busy_onset": Scenario((1,), "forward", 20.0, from_step=35, busy=True),
    "clean": Scenario((), "", 0.0),
}
"""The scenarios of `tests/fixtures/heldout` (the module's docstring); each busy run's reference is `busy_clean`."""
HELDOUT2 = {
    "c_clean5": Scenario((), "", 0.0, profiled=5),
    "c_busy_clean8": Scenario((), "", 0.0, profiled=8, busy=True),
    "c_clean": Scenario((), "", 0.0),
    "c_slow3_w5": Scenario((3,), "forward", 25.0, profiled=5),
    "c_busy_small0": Scenario((0,), "forward", 10.0, profiled=8, busy=True),
    "c_busy_moving_bwd": Scenario((), "backward", 25.0, moving=True, profiled=8, busy=True),
    "c_random11": Scenario((), "forward", 25.0, prob=0.15, seed=11, profiled=10),
    "c_busy_two02": Scenario((0, 2), "forward", 12.0, profiled=8, busy=True),
    "c_onset3": Scenario((3,), "forward", 20.0, from_step=30),
    "c_opt1_w6": Scenario((1,), "optimizer", 18.0, profiled=6),
    "c_busy_load2": Scenario((2,), "load", 25.0, busy=True),
    "c_busy_onset0": Scenario((0,), "backward", 18.0, from_step=25, busy=True),
    "c_busy_random23": Scenario((), "backward", 18.0, prob=0.2, seed=23, profiled=8, busy=True),
    "c_busy_clean12": Scenario((), "", 0.0, busy=True),
    "c_onset3_b": Scenario((3,), "forward", 20.0, from_step=30),
    "c_busy_random23_b": Scenario((), "backward", 18.0, prob=0.2, seed=23, profiled=8, busy=True),
}
"""The scenarios of `tests/fixtures/heldout2` (a second held-out set, `--heldout2`, recorded by a helper on
2026-12-06 and scored before the verdict was changed): profiler windows of 5, 6, 8 and 10 steps, delays in the
backward, the optimizer and the input too, an onset inside the 12-step window (step 30), rank-steps slowed at random
in the backward on a busy machine (recorded twice, `_b`: one recording of it lost every slowed rank-step), and the
clean references of each machine state and window (`c_clean5`, `c_busy_clean8`, `c_clean`, `c_busy_clean12`)."""
HELDOUT3 = {
    "d_clean6": Scenario((), "", 0.0, profiled=6),
    "d_moving_fwd_w10": Scenario((), "forward", 15.0, moving=True, profiled=10),
    "d_busy_moving_fwd_w12": Scenario((), "forward", 15.0, moving=True, profiled=12, busy=True),
    "d_random_bwd_w8": Scenario((), "backward", 20.0, prob=0.25, seed=101, profiled=8),
    "d_onset2_w12": Scenario((2,), "forward", 15.0, from_step=31, profiled=12),
    "d_opt1_w4": Scenario((1,), "optimizer", 12.0, profiled=4),
    "d_busy_two03_w6": Scenario((0, 3), "forward", 12.0, profiled=6, busy=True),
    "d_onset2_w12_b": Scenario((2,), "forward", 15.0, from_step=31, profiled=12),
    "d_clean12": Scenario((), "", 0.0, profiled=12),
    "d_busy_clean10": Scenario((), "", 0.0, profiled=10, busy=True),
}
"""The scenarios of `tests/fixtures/heldout3` (a third held-out set, `--heldout3`, recorded by a helper on
2026-12-06 and scored blind, after the verdict's changes of that day): a moving straggler of 15 ms in windows of 10
and 12 steps (idle, busy), rank-steps slowed at random in the backward (p 0.25, an 8-step window), an onset at step
31 inside a 12-step window (recorded twice, `_b`), an optimizer-slow rank in a 4-step window, two slow ranks on a
busy machine in 6 steps, and clean references (`d_clean6`, `d_clean12`, `d_busy_clean10`)."""
SETS = {
    "causes": SCENARIOS,
    "noise": NOISE,
    "pairs": PAIRS,
    "verdict": VERDICT,
    "heldout": HELDOUT,
    "heldout2": HELDOUT2,
    "heldout3": HELDOUT3,
}


PREFETCH_DEPTH = 2


def prefetched(batches, depth: int = PREFETCH_DEPTH):  # type: ignore[no-untyped-def]
    """The batches, loaded `depth` ahead by a thread: the loading (here a sleep, which releases the GIL) overlaps the
    step. DataLoader's own prefetching needs worker processes, which on this 2-core machine cost the 4 ranks more CPU
    than the sleep they hide."""
    import queue
    import threading

    ahead: queue.Queue = queue.Queue(maxsize=depth)
    end = object()

    def fill() -> None:
        for batch in batches:
            ahead.put(batch)
        ahead.put(end)

    threading.Thread(target=fill, daemon=True).start()
    while (batch := ahead.get()) is not end:
        yield batch


class Batches:
    """The job's batches, a map-style dataset (what DataLoader takes: a length and an item per index), defined here so
    that DataLoader's worker processes can receive it; the scenario's rank sleeps in it when its cause is `load`."""

    def __init__(self, scenario: Scenario, rank: int) -> None:
        self.scenario, self.rank = scenario, rank

    def __len__(self) -> int:
        return STEPS

    def __getitem__(self, i: int):  # type: ignore[no-untyped-def]
        import torch

        if self.scenario.cause == "load" and self.scenario.slows(i, self.rank):
            time.sleep(self.scenario.sleep_ms / 1000)
        g = torch.Generator().manual_seed(i)
        batch = self.scenario.batch
        return torch.randn(batch, WIDTH, generator=g), torch.randint(0, 10, (batch,), generator=g)


def spin() -> None:
    """A competing CPU-bound process: a pure-Python loop until it is killed."""
    n = 0
    while True:
        n += 1


def worker(rank: int, out: str, name: str, kind: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile, schedule

    from ddpcore.ops import Recorder

    scenario = SETS[kind][name]
    torch.manual_seed(0)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    state = {"step": 0}

    def sleep_if(cause: str, step: int) -> None:
        if scenario.cause == cause and scenario.slows(step, rank):
            time.sleep(scenario.sleep_ms / 1000)

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

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            sleep_if("forward", state["step"])
            h = self.first(x)
            if scenario.cause == "backward" and scenario.slows(state["step"], rank):
                # runs when h's gradient is computed: after the last layers' buckets were launched, before the
                # first layer's gradients (the last bucket) exist
                h.register_hook(lambda g: time.sleep(scenario.sleep_ms / 1000))
            return self.rest(h)

    model = DDP(Net(), bucket_cap_mb=0.5)
    buffer = io.StringIO()
    rec = Recorder(buffer, rank=rank)
    model.register_comm_hook(None, rec.comm_hook(default_hooks.allreduce_hook))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    opt.register_step_post_hook(lambda *_: sleep_if("optimizer", state["step"]))
    loader = torch.utils.data.DataLoader(Batches(scenario, rank), batch_size=None)
    if scenario.prefetch:
        loader = prefetched(loader)
    tops: list[float] = []
    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=PROFILE_WAIT, warmup=PROFILE_WARMUP, active=scenario.profiled, repeat=1),
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
            sleep_if("between_steps", step + 1)
            prof.step()
            tops.append(time.time())
    dist.barrier()
    rec.close()
    kept_files(prof, buffer, tops, Path(out), rank)
    dist.destroy_process_group()


def kept_files(prof, buffer: io.StringIO, tops: list[float], folder: Path, rank: int) -> None:  # type: ignore[no-untyped-def]
    """Write a rank's files once its run is over: its profiler window (gzipped Chrome trace), its Recorder's JSONL
    (gzipped) and each iteration's wall time (ms, loop top to loop top, for the truth)."""
    trace = folder / f"rank{rank}.pt.trace.json"
    prof.export_chrome_trace(str(trace))
    with open(trace, "rb") as src, gzip.open(f"{trace}.gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    trace.unlink()
    with gzip.open(folder / f"rank{rank}.jsonl.gz", "wt", compresslevel=9) as dst:
        dst.write(buffer.getvalue())
    walls = [round((b - a) * 1000, 3) for a, b in zip(tops, tops[1:])]
    (folder / f"wall{rank}.json").write_text(json.dumps(walls))


def others_cpu() -> str:
    """A snapshot of what else used the CPU (load average and the busiest processes), for the truth's notes."""
    import subprocess

    top = subprocess.run(["ps", "-eo", "pid,pcpu,etime,comm", "--sort=-pcpu"], capture_output=True, text=True).stdout
    return f"loadavg {open('/proc/loadavg').read().strip()}; " + " | ".join(top.splitlines()[1:4])


def write_truth(folder: Path, scenario: Scenario, name: str) -> None:
    """Gather the ranks' wall times into truth.json, with what was injected."""
    walls = {}
    for r in range(WORLD):
        part = folder / f"wall{r}.json"
        walls[str(r)] = json.loads(part.read_text())
        part.unlink()
    slowed = scenario.slowed()
    truth = {
        "scenario": name,
        "rank": scenario.rank,
        "cause": scenario.cause or None,
        "sleep_ms": scenario.sleep_ms,
        "from_step": scenario.from_step,
        "busy": scenario.busy,
        "seed": scenario.seed if scenario.prob else None,
        "prob": scenario.prob,
        "moving": scenario.moving,
        "ranks": list(scenario.ranks),
        "delayed_steps": sorted({s for s, _ in slowed}),
        "slowed": [list(pair) for pair in slowed],
        "profiled_steps": list(scenario.window()),
        "step_ms": walls,
    }
    (folder / "truth.json").write_text(json.dumps(truth, indent=1) + "\n")


def main(out: str, names: list[str], kind: str = "causes") -> None:
    """Write the named scenarios of one set (`SETS`: causes, noise, pairs, verdict or heldout), every one when none is
    named."""
    import multiprocessing

    import torch.multiprocessing as mp

    scenarios = SETS[kind]
    for name in names or list(scenarios):
        folder = Path(out) / name
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(29500 + (os.getpid() + len(name)) % 1000)
        busy = multiprocessing.get_context("spawn").Process(target=spin, daemon=True) if scenarios[name].busy else None
        if busy:
            busy.start()
        try:
            mp.spawn(worker, args=(str(folder), name, kind), nprocs=WORLD, join=True)
        finally:
            if busy:
                busy.kill()
                busy.join()
        write_truth(folder, scenarios[name], name)
        print(name, "written", flush=True)


if __name__ == "__main__":
    sets = {f"--{name}": name for name in SETS if name != "causes"}
    args = [a for a in sys.argv[1:] if a not in sets]
    chosen = next((sets[a] for a in sys.argv[1:] if a in sets), "causes")
    root = args[0] if args else str(Path(__file__).resolve().parent / "fixtures" / chosen)
    main(root, args[1:], kind=chosen)
