"""`python build.py bench --verdict`: the verdict's operating characteristic, measured over a grid of generated runs
whose what-if truth is exact.

A generated run keeps to what a barrier does (as `ddpcore.traces.simulated_run`): each rank works from the previous
release, is ready, and every rank is released a transfer after the last one is ready. Its noise and its stragglers
are drawn here with numpy, then the verdict (`ddpcore.analysis.analyze`) is asked, and scored against the truth:

- **truth of the cost**: the same run's steps with every injected delay removed, re-timed by the same barrier; the
  straggler cost is the mean over steps of how much later the last rank is ready with the delays than without;
- **truth of the transient share**: the share of steps in which a rank other than the persistent ones was delayed;
- **false alarm**: a run with nothing injected that names a persistent straggler or counts a transient step;
- **detection**: every persistently slowed rank named (for an onset, named with a `from_step`).

Noise is on each rank-step's work (forward and backward together), of coefficient of variation `cv`: `normal`,
`lognormal`, `heavy` (Student's t with 4 degrees of freedom), `shared` (a lognormal whose variance is half shared by
the step's ranks, as processes sharing a CPU are, and the ranks on time faster while others sleep), `offsets` (a
lognormal, and each rank's mean off by up to 5 %), `carried` (a lognormal whose every rank carries CARRIED of a
step's draw into the next, an AR(1) series over the steps, as a noisy neighbour's phases do). A delay is added to
the forward, as a sleep is: a persistent straggler of size s sleeps (s - 1) times the nominal work in each step.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import sys
import time
from array import array
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ddpcore.analysis.chance import ALPHA
from ddpcore.base.phases import SUMMED
from ddpcore.traces import RankColumns
from ddpcore.traces.simulated import BACKWARD_MS, FORWARD_MS, OPTIMIZER_MS, TRANSFER_MS
from ddpcore.traces.stepfacts import CAUSES
from scripts.bench.budgets import BUDGETS
from scripts.bench.report import merge_into

__all__ = [
    "Regime",
    "grid",
    "oracle_cost",
    "oracle_detection",
    "run_of",
    "score",
    "table_of",
    "verdict_figures",
    "work_of",
    "write_table",
]

WORK_MS = FORWARD_MS + BACKWARD_MS
MOVING_SIZE, RANDOM_SIZE, PAIR_SIZE, NODE_SIZE = 1.0, 1.0, 0.75, 0.5
"""Delays as shares of the nominal work: a moving straggler, a random one, each of two slow ranks, a slow node's."""
NOISES = ("normal", "lognormal", "heavy", "shared", "offsets", "carried")
CARRIED = 0.7
"""How much of a step's draw each rank carries into the next in `carried` noise."""
CVS = (0.05, 0.15, 0.3, 0.5)
RANKS = (2, 4, 8, 64, 1024, 4096)
STEPS = (3, 5, 8, 30, 200)
KINDS = (
    "none",
    "p1.1",
    "p1.25",
    "p1.5",
    "p2",
    "moving",
    "random0.01",
    "random0.1",
    "random0.3",
    "two",
    "node",
    "onset",
)


@dataclass(frozen=True)
class Regime:
    """One cell of the grid: the run's shape, its noise and its stragglers."""

    ranks: int
    steps: int
    noise: str
    cv: float
    kind: str
    threshold: float = 0.1

    @property
    def name(self) -> str:
        """The cell's name in the table."""
        return f"{self.kind} {self.ranks}x{self.steps} {self.noise} cv{self.cv:g}"


@dataclass(frozen=True)
class Truth:
    """What was injected: the persistent ranks (an onset's from its step), the cost and the transient share."""

    persistent: tuple[int, ...]
    onset: int | None
    cost_ms: float
    share: float
    size_over_spread: float


def _noise(rng, regime: Regime):
    """Each rank-step's work factor (steps x ranks, mean about 1)."""
    import numpy as np

    shape = (regime.steps, regime.ranks)
    cv = regime.cv
    sigma = math.sqrt(math.log1p(cv * cv))
    if regime.noise == "normal":
        f = 1.0 + cv * rng.standard_normal(shape)
    elif regime.noise == "heavy":
        f = 1.0 + cv * rng.standard_t(4, shape) / math.sqrt(2.0)
    elif regime.noise == "shared":
        common = rng.standard_normal((regime.steps, 1))
        f = np.exp(sigma * (math.sqrt(0.5) * common + math.sqrt(0.5) * rng.standard_normal(shape)))
    elif regime.noise == "carried":
        z = rng.standard_normal(shape)
        for t in range(1, regime.steps):
            z[t] = CARRIED * z[t - 1] + math.sqrt(1.0 - CARRIED * CARRIED) * z[t]
        f = np.exp(sigma * z)
    else:
        f = np.exp(sigma * rng.standard_normal(shape))
        if regime.noise == "offsets":
            f = f * (1.0 + rng.uniform(-0.05, 0.05, (1, regime.ranks)))
    return np.maximum(f, 0.05)


def _delays(rng, regime: Regime) -> tuple:
    """Each rank-step's injected delay (ms), the persistent ranks and an onset's step index."""
    import numpy as np

    n, s = regime.ranks, regime.steps
    d = np.zeros((s, n))
    kind = regime.kind
    slow = n // 2
    if kind.startswith("p"):
        d[:, slow] = (float(kind[1:]) - 1.0) * WORK_MS
        return d, (slow,), None
    if kind == "onset":
        d[s // 2 :, slow] = WORK_MS
        return d, (slow,), s // 2
    if kind == "moving":
        d[np.arange(s), np.arange(s) % n] = MOVING_SIZE * WORK_MS
    elif kind.startswith("random"):
        d[rng.random((s, n)) < float(kind[6:])] = RANDOM_SIZE * WORK_MS
    elif kind == "two":
        pair = (1, 3) if n >= 4 else (0, 1)
        d[:, list(pair)] = PAIR_SIZE * WORK_MS
        return d, pair, None
    elif kind == "node":
        node = tuple(range(8, 16)) if n >= 16 else tuple(range(n // 2, n))
        d[:, list(node)] = NODE_SIZE * WORK_MS
        return d, node, None
    return d, (), None


def _size(regime: Regime) -> float:
    """The injected delay over the noise's spread (the work's standard deviation)."""
    kind = regime.kind
    if kind == "none":
        return math.inf
    if kind.startswith("p"):
        size = float(kind[1:]) - 1.0
    elif kind == "onset" or kind.startswith("random"):
        size = RANDOM_SIZE
    else:
        size = {"moving": MOVING_SIZE, "two": PAIR_SIZE, "node": NODE_SIZE}[kind]
    return size / regime.cv


def _latest_and_cost(ready, delay):
    """Each step's latest readiness (ms), and how much later it is than with every injected delay removed: the truth
    of the cost, step by step."""
    latest = ready.max(axis=1)
    return latest, latest - (ready - delay).max(axis=1)


def run_of(regime: Regime, seed: int) -> tuple[list[RankColumns], Truth]:
    """A generated run of the regime and its truth."""
    import numpy as np

    f, delay, persistent, onset = _drawn(regime, seed)
    forward, backward = FORWARD_MS * f + delay, BACKWARD_MS * f
    ready = forward + backward
    latest, cost = _latest_and_cost(ready, delay)
    transient = np.delete(delay, list(persistent), axis=1) if persistent else delay
    share = float((transient > 0).any(axis=1).mean())
    period = latest + TRANSFER_MS + OPTIMIZER_MS
    release = np.concatenate(([0.0], np.cumsum(period)[:-1]))
    start = release + OPTIMIZER_MS
    following = start + latest + TRANSFER_MS
    n = regime.ranks
    steps = list(range(1, regime.steps + 1))
    ones = bytes([1]) * regime.steps
    from_release = bytes([0]) + bytes([1]) * (regime.steps - 1)
    zeros = array("d", bytes(8 * regime.steps))

    def col(values) -> array:
        return array("d", np.ascontiguousarray(values, dtype=np.float64).tobytes())

    tables = []
    for r in range(n):
        wait = following - start - ready[:, r]
        arrival = forward[:, r] + 0.1 * backward[:, r]
        phases = dict.fromkeys(SUMMED, zeros) | {
            "forward": col(forward[:, r]),
            "backward": col(backward[:, r]),
            "allreduce": col(wait),
            "optimizer": col(np.full(regime.steps, OPTIMIZER_MS)),
        }
        parts = dict.fromkeys(CAUSES, zeros) | {
            "forward": col(forward[:, r]),
            "backward": col(backward[:, r]),
            "optimizer": col(np.full(regime.steps, OPTIMIZER_MS)),
        }
        tables.append(
            RankColumns(
                rank=r,
                source=f"rank{r}",
                world_size=n,
                step=steps,
                start_ms=col(start),
                length_ms=col(following + OPTIMIZER_MS - start),
                period_ms=col(period),
                followed=(True,) * regime.steps,
                arrival_ms=col(arrival),
                compute_ms=col(ready[:, r]),
                anchor_ms=col(following - start),
                phases_ms=phases,
                device=None,
                comm_free_ms=col(arrival),
                released=ones,
                from_release=from_release,
                work_ms=col(ready[:, r] + OPTIMIZER_MS),
                parts_ms=parts,
            )
        )
    return tables, Truth(persistent, onset, float(cost.mean()), share, _size(regime))


ORACLE_KINDS = ("p1.1", "p1.25", "p1.5", "p2")
"""The kinds whose detection is also measured against an oracle's (`oracle_detection`)."""
NULL_RUNS = 2000
"""Clean runs the oracle's thresholds are read from (`oracle_detection`): the percentiles of ORACLE_LEVELS over
them (at 0.1 %, the second largest of 2,000)."""
ORACLE_LEVELS = (0.01, ALPHA)
"""The false-alarm rates the oracle is read at: the budget's 1 % of runs, and the verdict's own α, the rate its
persistence test is held to so that no cell passes 1 % over a few dozen seeds."""


def _drawn(regime: Regime, seed: int) -> tuple:
    """A run's draws: each rank-step's work factor (on-time ranks of `shared` noise faster while others sleep), its
    injected delay (ms), the persistent ranks and an onset's step index."""
    import numpy as np

    rng = np.random.default_rng([seed, regime.ranks, regime.steps, NOISES.index(regime.noise), int(regime.cv * 100)])
    f = _noise(rng, regime)
    delay, persistent, onset = _delays(rng, regime)
    if regime.noise == "shared":
        sleeping = (delay > 0).mean(axis=1, keepdims=True)
        f = f * np.where(delay > 0, 1.0, 1.0 - 0.3 * sleeping)
    return f, delay, persistent, onset


def work_of(regime: Regime, seed: int):
    """A run's work (steps x ranks, ms) as `run_of` draws it, without building its tables."""
    f, delay, persistent, _ = _drawn(regime, seed)
    return WORK_MS * f + delay, persistent


def _mean_lateness(work):
    """Each rank's mean over steps of its work minus the median of the others' in the step."""
    import numpy as np

    n = work.shape[1]
    others = np.stack([np.median(np.delete(work, r, axis=1), axis=1) for r in range(n)], axis=1)
    return (work - others).mean(axis=0)


def oracle_detection(regime: Regime, seeds: int, levels: tuple[float, ...] = ORACLE_LEVELS) -> list[float]:
    """How often a test that knows chance exactly names every slowed rank, at each false-alarm rate of `levels`: each
    rank's mean lateness against the others' median, named past the 1 - level quantile of the largest such mean over
    NULL_RUNS clean runs of the same noise (false alarms at that level by construction). The ceiling of what the
    verdict's detection can reach in a cell at that false-alarm rate."""
    import numpy as np

    clean = replace(regime, kind="none")
    largest = sorted(float(_mean_lateness(work_of(clean, 10_000 + s)[0]).max()) for s in range(NULL_RUNS))
    cuts = [largest[min(NULL_RUNS - 1, int((1.0 - level) * NULL_RUNS))] for level in levels]
    hits = [0] * len(levels)
    for seed in range(seeds):
        work, slowed = work_of(regime, seed)
        late = _mean_lateness(work)[list(slowed)]
        for k, cut in enumerate(cuts):
            hits[k] += bool(np.all(late > cut))
    return [h / seeds for h in hits]


COST_NULL_RUNS = 200
"""Clean runs the cost oracle reads chance's latest work from (`oracle_cost`)."""


def _latest_work(regime: Regime, seed: int) -> tuple[float, float]:
    """A run's mean over steps of its latest rank's work (ms), and the truth of its cost (`run_of`'s)."""
    f, delay, _, _ = _drawn(regime, seed)
    latest, cost = _latest_and_cost(WORK_MS * f + delay, delay)
    return float(latest.mean()), float(cost.mean())


def oracle_cost(regime: Regime, seeds: int) -> float | None:
    """The p90 over the cell's seeds of the relative error of a cost that knows chance exactly and removes what lies
    beyond it wherever it is, with no rank-step named: a run's mean latest work less that of as many steps of the same
    noise with nothing injected (over COST_NULL_RUNS clean runs), against the truth. What the cost can reach in a
    cell: a few transient rank-steps among many ranks cost less than the latest on-time rank wanders, and no cost
    read from the run finds them to a fifth (None: nothing to cost)."""
    clean = replace(regime, kind="none")
    usual = math.fsum(_latest_work(clean, 20_000 + s)[0] for s in range(COST_NULL_RUNS)) / COST_NULL_RUNS
    errors = []
    for seed in range(seeds):
        latest, cost = _latest_work(regime, seed)
        if cost > 0:
            errors.append(abs(latest - usual - cost) / cost)
    return _p90(errors)


def score(analysis, truth: Truth) -> dict:
    """A verdict against the truth: named ranks, false alarm, detection, the transient share's and the cost's
    errors."""
    named = tuple(sorted(s.rank for s in analysis.stragglers))
    found = set(named) >= set(truth.persistent) if truth.persistent else False
    if truth.onset is not None:
        onsets = {s.rank: getattr(s, "from_step", None) for s in analysis.stragglers}
        found = found and all(onsets.get(r) is not None for r in truth.persistent)
    cost = analysis.straggler_cost_ms
    return {
        "named": named,
        "false_alarm": not truth.persistent
        and truth.share == 0.0
        and (bool(named) or analysis.transient.straggler_steps > 0),
        "false_named": bool(set(named) - set(truth.persistent)),
        "detected": found,
        "costed": analysis.straggler_cost_ms > 0,
        "unnamed": analysis.cost_parts_ms.unnamed > 0,
        "share_error": analysis.transient.fraction - truth.share,
        "cost_error": (cost - truth.cost_ms) / truth.cost_ms if truth.cost_ms > 0 else None,
    }


def grid(quick: bool = False) -> list[tuple[Regime, int]]:
    """The cells measured, each with its count of seeds: every value of every axis, not the full product.

    Clean runs at every shape, noise and cv; each straggler kind at the shapes and noises where its figures are
    read (the budgets' cells, a 3-step window to 200 steps, 4 to 4,096 ranks)."""
    cells: list[tuple[Regime, int]] = []
    for ranks in RANKS:
        for steps in STEPS:
            if ranks * steps > 150_000:
                continue
            for noise in NOISES:
                for cv in CVS if noise != "carried" else (0.15, 0.3):
                    seeds = 24 if ranks * steps <= 2_000 else 8 if ranks * steps <= 20_000 else 2
                    cells.append((Regime(ranks, steps, noise, cv, "none"), seeds))
    for ranks in (2, 4, 8, 64):
        for steps in (3, 5, 8):
            for cv in (0.05, 0.15, 0.3):
                for noise in ("lognormal", "normal"):
                    cells.append((Regime(ranks, steps, noise, cv, "p2"), 20))
    for kind in ("p1.25", "p1.5"):
        for ranks in (4, 8, 64):
            for steps in (8, 30):
                for cv in (0.05, 0.15, 0.3):
                    cells.append((Regime(ranks, steps, "lognormal", cv, kind), 12))
    for ranks in (4, 64):
        for steps in (30, 200):
            cells.append((Regime(ranks, steps, "lognormal", 0.05, "p1.1", threshold=0.05), 8))
    for kind in ("moving", "random0.01", "random0.1", "random0.3", "two", "node", "onset"):
        for ranks in (2, 4, 8, 64, 1024) if kind == "moving" else (4, 8, 64, 1024):
            if kind in ("two",) and ranks > 8:
                continue
            if kind == "node" and ranks < 16:
                continue
            for steps in (8, 30, 200):
                if ranks * steps > 150_000:
                    continue
                for noise in NOISES:
                    for cv in (0.05, 0.15, 0.3, 0.5):
                        if noise != "lognormal" and cv not in (0.15, 0.3):
                            continue
                        seeds = 6 if ranks * steps <= 2_000 else 3 if ranks * steps <= 20_000 else 1
                        cells.append((Regime(ranks, steps, noise, cv, kind), seeds))
    return [(regime, min(seeds, 3)) for regime, seeds in cells] if quick else cells


def _p90(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)]


def measure_cells(cells: list[tuple[Regime, int]], progress: bool = True) -> list[dict]:
    """Each cell's verdicts scored over its seeds, a cell at a time in each of as many forked processes as the
    machine has cores (in the cells' order)."""
    rows = []
    started = time.perf_counter()
    workers = min(len(cells), os.cpu_count() or 1)
    with multiprocessing.get_context("fork").Pool(workers) if workers > 1 else nullcontext() as pool:
        answers = pool.imap(_measured_cell, cells) if pool is not None else map(_measured_cell, cells)
        for k, row in enumerate(answers):
            rows.append(row)
            if progress and (k % 25 == 0 or k == len(cells) - 1):
                print(f"  {k + 1}/{len(cells)} cells, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return rows


def _measured_cell(cell: tuple[Regime, int]) -> dict:
    """One cell's verdicts scored over its seeds, with the oracle's ceiling where it is read."""
    from ddpcore.analysis import analyze

    regime, seeds = cell
    scores = []
    for seed in range(seeds):
        tables, truth = run_of(regime, seed)
        scores.append((score(analyze(tables, regime.threshold), truth), truth))
    ceilings = oracle_detection(regime, seeds) if regime.kind in ORACLE_KINDS else [None, None]
    costed = regime.kind != "none" and _size(regime) >= BIG
    return _row(regime, scores) | {
        "oracle": ceilings[0],
        "oracle_alpha": ceilings[1],
        "cost_oracle_p90": oracle_cost(regime, seeds) if costed else None,
    }


def _row(regime: Regime, scores: list) -> dict:
    n = len(scores)
    truth = scores[0][1]
    shares = [abs(s["share_error"]) for s, _ in scores]
    costs = [abs(s["cost_error"]) for s, _ in scores if s["cost_error"] is not None]
    return asdict(regime) | {
        "seeds": n,
        "false_alarm": sum(s["false_alarm"] for s, _ in scores) / n if regime.kind == "none" else None,
        "false_named": sum(s["false_named"] for s, _ in scores) / n,
        "clean_costed": sum(s["costed"] for s, _ in scores) / n if regime.kind == "none" else None,
        "clean_unnamed": sum(s["unnamed"] for s, _ in scores) / n if regime.kind == "none" else None,
        "detected": sum(s["detected"] for s, _ in scores) / n if truth.persistent else None,
        "share_error_p90": _p90(shares),
        "cost_error_p90": _p90(costs),
        "size_over_spread": truth.size_over_spread,
    }


FALSE_ALARM_BUDGET = 0.01
"""The false alarms a clean cell may show (`verdict.false_alarm_max`'s limit), as a rate."""
BEYOND_DOUBT = 0.05
"""The chance, over all the clean cells at once (Bonferroni), that `beyond_budget` calls a cell over the budget
when none is."""


def _binomial_tail(n: int, k: int, p: float) -> float:
    """The chance of k or more of n draws that each happen with chance p."""
    return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


def beyond_budget(clean: list[dict]) -> list[dict]:
    """The clean cells whose false alarms are above FALSE_ALARM_BUDGET beyond doubt: so many of their seeds that a
    verdict wrong in exactly that share of runs shows as many with a chance under BEYOND_DOUBT over the cells. The
    worst cell's rate alone cannot pass with a few dozen seeds: one false alarm in 24 runs is 4 %, and a verdict
    at exactly 1 % shows one in a fifth of such cells.

    >>> cells = [{"seeds": 24, "false_alarm": k / 24} for k in (5, 1)]
    >>> [r["false_alarm"] for r in beyond_budget(cells)] == [5 / 24]
    True
    """
    level = BEYOND_DOUBT / max(1, len(clean))
    return [
        r for r in clean if _binomial_tail(r["seeds"], round(r["false_alarm"] * r["seeds"]), FALSE_ALARM_BUDGET) < level
    ]


def summary(rows: list[dict]) -> dict:
    """The budgets' figures over the grid's rows, and how the false alarms read with their seeds
    (`beyond_budget`, and pooled over every clean run)."""
    clean = [r for r in rows if r["kind"] == "none"]
    p2 = [r for r in rows if r["kind"] == "p2" and r["steps"] == 3 and r["ranks"] <= 64 and r["cv"] <= 0.3]
    p125 = [r for r in rows if r["kind"] == "p1.25" and r["steps"] == 30]
    big = [r for r in rows if r["kind"] != "none" and r["size_over_spread"] >= BIG]
    shares = [r["share_error_p90"] for r in big if r["share_error_p90"] is not None]
    costs = [r["cost_error_p90"] for r in big if r["cost_error_p90"] is not None]
    reachable = [r for r in big if r["cost_error_p90"] is not None and _within_cost(r.get("cost_oracle_p90"))]
    return {
        "false_alarm_max": max(r["false_alarm"] for r in clean),
        "false_alarm_pooled": _rate(clean, "false_alarm"),
        "false_alarm_cells_beyond": len(beyond_budget(clean)),
        "detect_2x_3steps": min(r["detected"] for r in p2),
        "detect_2x_3steps_oracle": min(r["oracle"] for r in p2),
        "detect_2x_3steps_oracle_alpha": min(r["oracle_alpha"] for r in p2),
        "detect_125_30steps": min(r["detected"] for r in p125),
        "detect_125_30steps_oracle": min(r["oracle"] for r in p125),
        "detect_125_30steps_oracle_alpha": min(r["oracle_alpha"] for r in p125),
        "share_error_p90": max(shares),
        "cost_error_p90": max(costs),
        "cost_cells": len(costs),
        "cost_cells_reachable": len(reachable),
        "cost_cells_met": sum(_within_cost(r["cost_error_p90"]) for r in big if r["cost_error_p90"] is not None),
        "cost_cells_reachable_met": sum(_within_cost(r["cost_error_p90"]) for r in reachable),
    }


BIG = 3.0
"""The size over the noise's spread from which the share's and the cost's errors are held to their budgets."""


def _within_cost(error: float | None) -> bool:
    """Whether a cell's cost error (p90) is within the cost budget's limit."""
    limit = next(b.limit for b in BUDGETS if b.path[-1] == "cost_error_p90")
    return error is not None and error <= limit


DOCS = Path(__file__).resolve().parents[2] / "docs" / "traces.md"
MARKS = ("<!-- verdict grid: written by python build.py bench --verdict -->", "<!-- /verdict grid -->")


def _rate(rows: list[dict], key: str) -> float | None:
    weighted = [(r[key], r["seeds"]) for r in rows if r[key] is not None]
    seeds = sum(n for _, n in weighted)
    return sum(v * n for v, n in weighted) / seeds if seeds else None


def _shown(value: float | None, percent: bool = True, scale: int = 0) -> str:
    if value is None:
        return "-"
    if scale:
        return f"{100 * value:.{scale}f}"
    return f"{value:.0%}" if percent else f"{value:.2f}"


def table_of(figures: dict) -> str:
    """The grid's figures as Markdown: the budgets, clean runs' false alarms by ranks and steps, detection by kind
    and steps, and the errors of the share and the cost by kind."""
    rows, summary = figures["rows"], figures["summary"]
    lines = [
        f"Measured by `python3 build.py bench --verdict` in {figures['seconds']:.0f} s: {len(rows)} cells, "
        f"{sum(r['seeds'] for r in rows):,} generated runs.",
        "",
        "| budget | figure | limit | verdict |",
        "|---|---|---|---|",
    ]
    for budget in BUDGETS:
        if budget.path[:2] == ("verdict", "summary"):
            name, value = budget.path[2], summary[budget.path[2]]
            verdict = "pass" if budget.holds(value) else "FAIL"
            lines.append(f"| `verdict.{name}` | {value:.3f} | {budget.bound} {budget.limit:g} | {verdict} |")
    lines += [
        "",
        "What any test can reach in the detection budgets' cells: a test that knows chance exactly (each rank's mean "
        "lateness against the others' median, past the 99th percentile of the largest over "
        f"{NULL_RUNS} clean runs of the same noise: 1 % false alarms) names the slowed rank in "
        f"{_shown(summary['detect_2x_3steps_oracle'])} of runs in the 2x, 3-step cell where it does least, and "
        f"{_shown(summary['detect_125_30steps_oracle'])} in the 1.25x, 30-step one; held to the verdict's own "
        f"{ALPHA:.1%} of runs, {_shown(summary['detect_2x_3steps_oracle_alpha'])} and "
        f"{_shown(summary['detect_125_30steps_oracle_alpha'])}. A budget above that figure "
        "asks more than these runs can give.",
        "",
        f"What the cost can reach: a what-if that knows chance exactly (each run's mean latest work less that of "
        f"{COST_NULL_RUNS} clean runs of the same noise, `oracle_cost`) is within a fifth of the truth in "
        f"{summary['cost_cells_reachable']} of the {summary['cost_cells']} cells the cost budget reads (a few "
        "transient rank-steps among many ranks cost less than the latest rank on time wanders); the verdict is "
        f"within a fifth in {summary['cost_cells_met']} of them, {summary['cost_cells_reachable_met']} of those "
        "the oracle reaches.",
    ]
    clean = [r for r in rows if r["kind"] == "none"]
    steps = sorted({r["steps"] for r in clean})
    few = min(r["seeds"] for r in clean)
    lines += [
        "",
        f"The false alarms read with their seeds: {_shown(summary['false_alarm_pooled'], False, 1)} % of all "
        f"{sum(r['seeds'] for r in clean):,} clean runs; {summary['false_alarm_cells_beyond']} of {len(clean)} "
        f"clean cells are over {100 * FALSE_ALARM_BUDGET:g} % beyond doubt (`beyond_budget`: a one-sided binomial "
        f"test, {100 * BEYOND_DOUBT:g} % over all the cells). The worst cell's rate alone cannot pass: one false "
        f"alarm in 24 runs is 4 %, and a cell of {few} runs shows {100 / few:g} % with one.",
    ]
    lines += [
        "",
        f"A cost on clean runs: {_shown(_rate(clean, 'clean_costed'), False, 1)} % of them report a straggler cost "
        f"above 0, {_shown(_rate(clean, 'clean_unnamed'), False, 1)} % through lateness no rank-step showed "
        "(`cost_parts_ms.unnamed`).",
    ]
    lines += ["", "False alarms on clean runs (every noise and cv pooled; runs):", ""]
    lines += ["| ranks | " + " | ".join(f"{s} steps" for s in steps) + " |", "|---|" + "---|" * len(steps)]
    for ranks in sorted({r["ranks"] for r in clean}):
        cells = []
        for n in steps:
            some = [r for r in clean if r["ranks"] == ranks and r["steps"] == n]
            cells.append(f"{_shown(_rate(some, 'false_alarm'))} ({sum(r['seeds'] for r in some)})" if some else "-")
        lines.append(f"| {ranks} | " + " | ".join(cells) + " |")
    kinds = [k for k in KINDS if k != "none" and any(r["kind"] == k for r in rows)]
    steps = sorted({r["steps"] for r in rows if r["kind"] != "none"})
    lines += [
        "",
        "Named (persistent kinds: every slowed rank, an onset with its step) and errors where the size is 3x "
        "the noise or more (p90 over cells):",
        "",
    ]
    lines += [
        "| stragglers | " + " | ".join(f"named, {s} steps" for s in steps) + " | share error | cost error |",
        "|---|" + "---|" * (len(steps) + 2),
    ]
    for kind in kinds:
        some = [r for r in rows if r["kind"] == kind]
        named = [_shown(_rate([r for r in some if r["steps"] == n], "detected")) for n in steps]
        big = [r for r in some if r["size_over_spread"] >= BIG]
        share = _p90([r["share_error_p90"] for r in big if r["share_error_p90"] is not None])
        cost = _p90([r["cost_error_p90"] for r in big if r["cost_error_p90"] is not None])
        lines.append(f"| {kind} | " + " | ".join(named) + f" | {_shown(share, False)} | {_shown(cost, False)} |")
    return "\n".join(lines)


def write_table(figures: dict, docs: Path) -> None:
    """Write the table between its marks in docs/traces.md (the marks stay)."""
    text = docs.read_text()
    start, end = text.index(MARKS[0]) + len(MARKS[0]), text.index(MARKS[1])
    docs.write_text(text[:start] + "\n\n" + table_of(figures) + "\n\n" + text[end:])


def verdict_figures(quick: bool = False) -> dict:
    """The grid measured: its rows, the budgets' figures and how long it took."""
    started = time.perf_counter()
    rows = measure_cells(grid(quick))
    return {"rows": rows, "summary": summary(rows), "seconds": time.perf_counter() - started}


def main(out: Path, quick: bool = False) -> int:
    """Measure the grid, write it under `verdict` in `out`/results.json (and the report, when the main bench wrote
    one), and its table into docs/traces.md."""
    figures = verdict_figures(quick)
    merge_into(out, "verdict", figures)
    if not quick:
        write_table(figures, DOCS)
    print(json.dumps(figures["summary"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[2]), "--quick" in sys.argv[3:]))
