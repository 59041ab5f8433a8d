"""`python build.py bench --scale`: the summaries path at 10^6, 10^7 and 10^8 rank-steps. Runs are generated rank
by rank as version 3 summaries on disk (never held in memory), then `analyze --json` reads the folder in a process
of its own, timed, its peak memory the peak over its process tree of the processes' proportional set sizes (`ANALYZE`:
it forks workers that share its pages); the figures go under `scale` in bench/results.json.

A generated run has what `ddpcore.traces.simulated_run` has (the same step, jitter and barrier), made with numpy a
rank at a time: one persistent straggler 2x slow, and transient ones (3x, with probability P a rank-step).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

from ddpcore.traces.columnar import COLUMNAR_COLUMNS, encode_columns
from ddpcore.traces.simulated import BACKWARD_MS, FORWARD_MS, OPTIMIZER_MS, TRANSFER_MS
from ddpcore.traces.summary import SUFFIX
from scripts.bench.report import merge_into

__all__ = [
    "RAY_SIZES",
    "SIZES",
    "analyze_figures",
    "ray_beyond",
    "ray_figures",
    "scale_figures",
    "write_run",
]

SIZES = {"1e6": (1_000, 1_000), "1e7": (10_000, 1_000), "1e8": (100_000, 1_000)}
"""Each size measured: ranks x steps."""
P, SLOWDOWN, JITTER_CV, SEED = 0.001, 3.0, 0.05, 39
PAGE_RANKS = 10_000
"""The run the page is given."""


def memory_for_1e8() -> float:
    """The memory the 10^8 run may take: most of this machine's (its budget, 8 GB, is judged apart from this, in
    scripts/bench/budgets.py): beyond it, it would swap or be killed."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 0.85
    except (ValueError, OSError, AttributeError):
        return 8e9


def _straggler(ranks: int) -> int:
    return ranks * 7 // 9


def _factors(rank: int, ranks: int, steps: int):
    import numpy as np

    rng = np.random.default_rng([SEED, rank])
    sigma = np.sqrt(np.log1p(JITTER_CV**2))
    f = rng.lognormal(0.0, sigma, steps)
    f = f * np.where(rng.random(steps) < P, SLOWDOWN, 1.0)
    return f * (2.0 if rank == _straggler(ranks) else 1.0)


def write_run(folder: Path, ranks: int, steps: int) -> int:
    """Write a generated run's summaries into `folder`, a rank at a time (two passes: the latest readiness of each
    step, then each rank's columns); the bytes written."""
    import numpy as np

    us = 1000
    latest = np.zeros(steps, dtype=np.int64)
    for r in range(ranks):
        f = _factors(r, ranks, steps)
        latest = np.maximum(latest, np.rint(FORWARD_MS * us * f) + np.rint(BACKWARD_MS * us * f)).astype(np.int64)
    optimizer, transfer = int(OPTIMIZER_MS * us), int(TRANSFER_MS * us)
    period = latest + transfer + optimizer
    release = np.cumsum(period)
    start = release - period + optimizer
    following = release
    zeros = np.zeros(steps, dtype=np.int64)
    total = 0
    for r in range(ranks):
        f = _factors(r, ranks, steps)
        forward, backward = (
            np.rint(FORWARD_MS * us * f).astype(np.int64),
            np.rint(BACKWARD_MS * us * f).astype(np.int64),
        )
        ready = forward + backward
        arrival = forward + backward // 10
        cols = dict.fromkeys(COLUMNAR_COLUMNS, zeros)
        cols |= {
            "step": np.arange(1, steps + 1, dtype=np.int64),
            "start_ms": start + 1_764_460_000_000_000,
            "length_ms": following + optimizer - start,
            "period_ms": period,
            "followed": zeros + 1,
            "released": zeros + 1,
            "from_release": (np.arange(steps) > 0).astype(np.int64),
            "arrival_ms": arrival,
            "compute_ms": ready,
            "anchor_ms": following - start,
            "work_ms": ready + optimizer,
            "comm_free_ms": arrival,
            "forward_ms": forward,
            "backward_ms": backward,
            "optimizer_ms": zeros + optimizer,
            "allreduce_ms": following - start - ready,
            "cause_forward_ms": forward,
            "cause_backward_ms": backward,
            "cause_optimizer_ms": zeros + optimizer,
        }
        arrays = {}
        for name, values in cols.items():
            a = array("q")
            a.frombytes(np.ascontiguousarray(values, dtype="<i8").tobytes())
            if sys.byteorder == "big":
                a.byteswap()
            arrays[name] = a
        data = encode_columns(r, ranks, f"rank{r}", arrays)
        (folder / f"rank{r}{SUFFIX}").write_bytes(data)
        total += len(data)
    return total


ANALYZE = """import os, resource, subprocess, sys, time
def tree(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [pid, *(q for c in f.read().split() for q in tree(int(c)))]
    except OSError:
        return [pid]
def pss(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("Pss:")), 0)
    except OSError:
        return 0
start = time.perf_counter()
with open(sys.argv[1], "wb") as out:
    child = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL)
    peak = 0
    while child.poll() is None:
        took = time.perf_counter()
        if sys.platform == "linux":
            peak = max(peak, sum(pss(p) for p in tree(child.pid)))
        time.sleep(max(0.5, 10 * (time.perf_counter() - took)))
seconds = time.perf_counter() - start
print(child.returncode, seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, peak)
"""
"""The timer: runs a command with its output to a file, then says its exit code, seconds, the peak RSS of its
largest process (KiB, from the kernel) and the peak sum over its process tree of each process's proportional set
size (KiB, sampled every half second on Linux, else 0; less often when a sample takes over 50 ms, so that the
kernel's walk of a process's pages for it, tens of ms at 10^8 rank-steps, never takes more than a tenth of a core
from what it measures): `analyze` forks processes that share the parent's pages, so the sum of their RSS would
count those pages twice, and the largest alone would leave out the others."""


def analyze_figures(folder: Path, ranks: int, steps: int) -> dict:
    """`analyze --json` over the folder, in a process of its own: seconds, peak memory MB (`ANALYZE`), and whether the
    persistent straggler named is the one generated."""
    out = folder.with_suffix(".json")
    command = [sys.executable, "-m", "ddpcore", "analyze", str(folder), "--json"]
    line = subprocess.run([sys.executable, "-c", ANALYZE, str(out), *command], capture_output=True, text=True)
    code, seconds, largest_kb, tree_kb = line.stdout.split()
    peak_kb = max(int(largest_kb), int(tree_kb))
    payload = json.loads(out.read_bytes() or b"{}")
    named = [s["rank"] for s in payload.get("stragglers", [])]
    return {
        "ranks": ranks,
        "steps": steps,
        "exit": int(code),
        "analyze_s": float(seconds),
        "peak_mb": peak_kb / 1024,
        "largest_process_mb": int(largest_kb) / 1024,
        "named": named,
        "named_right": named == [_straggler(ranks)],
        "us_per_rank_step": float(seconds) * 1e6 / (ranks * steps),
    }


RAY_SIZES = ("1e6", "1e7")
"""The sizes `analyze --ray` is always measured at, over two Ray nodes on this machine (`ray_figures`); 10^8 too when
the largest of them projects that two nodes here can hold it (`ray_beyond`). `scale.ray` holds the largest's
figures, and each size's under `sizes`."""


def ray_beyond(sizes: dict[str, dict], room: float) -> dict[str, dict]:
    """The sizes past RAY_SIZES up to 10^8 that two nodes on this machine cannot hold, each with why, from the
    largest measured size's memory a rank-step (the driver's and both actors' peaks over its rank-steps): a number
    in a sentence, not a guess at a run.

    >>> ray_beyond({"1e7": {"driver_mb": 700.0, "actor_mb": [2600.0, 2600.0]}}, 20e9)["1e8"]["needs_gb"]
    61.9
    """
    measured = [(float(name), name) for name, f in sizes.items() if "actor_mb" in f]
    if not measured:
        return {}
    rank_steps, largest = max(measured)
    figures = sizes[largest]
    per = (figures["driver_mb"] + sum(figures["actor_mb"])) * 2**20 / rank_steps
    beyond = {}
    for name in SIZES:
        needs = float(name) * per
        if float(name) > rank_steps and needs > room:
            beyond[name] = {
                "skipped": f"{per:.0f} bytes a rank-step over the driver and two nodes (measured at {largest}): {name} "
                f"would need {needs / 1e9:.0f} GB, over the {room / 1e9:.0f} GB this machine can give",
                "needs_gb": round(needs / 1e9, 1),
            }
    return beyond


def _ray_fits(figures: dict, name: str) -> bool:
    """Whether two Ray nodes on this machine can hold a size past RAY_SIZES, projected from the largest measured
    (`ray_beyond` skips it otherwise)."""
    sizes = figures.get("ray", {}).get("sizes", {})
    return bool(sizes) and name not in ray_beyond(sizes, memory_for_1e8())


def ray_figures(folder: Path, alone: dict) -> dict:
    """The run's summaries split between two Ray nodes started here and merged as `analyze --ray` merges them
    (`scripts.bench.onray`, in a process of its own): seconds, the largest process's peak memory, the bytes that
    crossed, the time against `analyze` alone over the same files (`alone`), and whether the verdicts agree. The
    folder's files end up in two subfolders."""
    want = folder.with_suffix(".json")
    done = subprocess.run(
        [sys.executable, "-m", "scripts.bench.onray", str(folder), str(want)], capture_output=True, text=True
    )
    if done.returncode != 0 or not done.stdout.strip():
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures | {"against_analyze": figures["analyze_s"] / alone["analyze_s"]}


def page_figures(dist: Path, folder: Path) -> dict:
    """The run of 10,000 ranks x 1,000 steps picked in Your traces: the seconds until the page answers, the
    renderer's peak memory over idle, main-thread long tasks, and what it answered (it cannot hold it: it says so
    after the first file, with the command to run instead)."""
    from playwright.sync_api import sync_playwright

    import build
    from scripts.bench.probes import AFTER_PICK, RendererPeak, traces_page

    files = [str(p) for p in sorted(folder.iterdir())]
    server, url = build.serve_in_thread(dist)
    try:
        with sync_playwright() as p:
            browser, page = traces_page(p, url)
            page.wait_for_timeout(1000)
            with RendererPeak() as memory:
                start = time.perf_counter()
                page.set_input_files("[data-testid=trace-files]", files)
                page.wait_for_selector("[data-testid=trace-error], [data-testid=rank-step-map]", timeout=1_800_000)
                seconds = time.perf_counter() - start
                page.wait_for_timeout(1000)
                long_tasks = page.evaluate(AFTER_PICK)
            answer = " ".join(page.locator("[data-testid=trace-error]").all_inner_texts())
            drawn = page.locator("[data-testid=rank-step-map]").count() > 0
            browser.close()
    finally:
        server.shutdown()
    return {
        "seconds": seconds,
        "memory_mb": memory.over_idle,
        "long_tasks": len(long_tasks),
        "long_task_ms": long_tasks,
        "map_drawn": drawn,
        "refused": "analyze" in answer,
        "answer": answer,
    }


def scale_figures(dist: Path | None = None, quick: bool = False) -> dict:
    """Every size of `SIZES` (the two smaller with `quick`), generated, analysed and removed in turn; the page
    given the 10,000-rank run when `dist`, the built site, is given."""
    from scripts.bench import core_timings
    from scripts.bench.budgets import machine_slowdown

    figures: dict = {"cpu_factor": machine_slowdown(core_timings.run()), "us_per_rank_step": {}}
    root = Path(tempfile.mkdtemp(prefix="ddpscale"))
    try:
        for name, (ranks, steps) in SIZES.items():
            if quick and name == "1e8":
                break
            last = figures.get("ranks_10000")
            room = memory_for_1e8()
            if name == "1e8" and last and last["peak_mb"] * 2**20 * 10 > room:
                figures["ranks_100000"] = {
                    "skipped": f"the 10^7 run peaked at {last['peak_mb']:.0f} MB: 10^8 would need about "
                    f"{last['peak_mb'] * 10 / 1024:.0f} GB, over the {room / 2**30:.0f} GB this machine can give"
                }
                break
            folder = root / name
            folder.mkdir()
            start = time.perf_counter()
            size = write_run(folder, ranks, steps)
            written_s = time.perf_counter() - start
            before = machine_slowdown(core_timings.run())
            result = analyze_figures(folder, ranks, steps)
            around = (before + machine_slowdown(core_timings.run())) / 2
            result |= {
                "bytes_per_rank_step": size / (ranks * steps),
                "generate_s": written_s,
                "cpu_factor_around": around,
                "analyze_s_at_reference": result["analyze_s"] / around,
            }
            figures["us_per_rank_step"][name] = result["us_per_rank_step"]
            figures[f"ranks_{ranks}"] = result
            print(f"scale {name}: {json.dumps(result)}", flush=True)
            if ranks == PAGE_RANKS and dist is not None:
                figures[f"page_{ranks}"] = page_figures(dist, folder)
                print(f"scale page: {json.dumps(figures[f'page_{ranks}'])}", flush=True)
            if name in RAY_SIZES or (name == "1e8" and _ray_fits(figures, name)):
                on_ray = ray_figures(folder, result)
                sizes = figures.get("ray", {}).get("sizes", {}) | {name: on_ray}
                figures["ray"] = on_ray | {"rank_steps": name, "sizes": sizes}
                print(f"scale ray {name}: {json.dumps(on_ray)}", flush=True)
            shutil.rmtree(folder)
        if "ray" in figures:
            figures["ray"]["sizes"] |= ray_beyond(figures["ray"]["sizes"], memory_for_1e8())
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return figures


def main(dist: Path, out: Path, quick: bool = False) -> int:
    """Measure and merge the figures into `out`/results.json under `scale`."""
    figures = scale_figures(dist, quick)
    merge_into(out, "scale", figures)
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), "--quick" in sys.argv[3:]))
