"""What `analyze` reports: the verdict's JSON payload (docs/traces.md), the fit's (docs/fit.md), and the same as
text, each text read from its payload so that the two never disagree. Apart from the model's reports, so that a
command of the model never loads the traces path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from ..analysis import Analysis, Cause, Comparison, Outlook
from ..analysis.caveats import grouped
from ..analysis.comparison import Change
from ..analysis.fitting import bounded, caveat_message
from ..analysis.verdict import (
    Straggler,
    Undecided,
    UndecidedMoving,
    bar_past_step,
    cause_text,
    gap_message,
    loading_unmarked,
    prefetch_text,
    stretch_message,
    undecided_message,
    undecided_moving_message,
)
from ..base.words import say
from ..traces.keeping import GpuGauges
from .reports import cluster_table

__all__ = [
    "analysis_payload",
    "analysis_text",
    "compare_payload",
    "compare_text",
    "fit_payload",
    "fit_text",
]


def _gauges_payload(g: GpuGauges | None) -> dict:
    keys = ("gpu_busy", "gpu_compute", "comm_overlap", "exposed_comm_ms")
    return dict(zip(keys, (g.busy, g.compute, g.comm_overlap, g.exposed_comm_ms) if g else (None,) * len(keys)))


def analysis_payload(analysis: Analysis, errors: list[dict]) -> dict:
    """`analyze --json`: the contract described in docs/traces.md.

    >>> from ddpcore.analysis import analyze
    >>> from ddpcore.traces import simulated_run
    >>> a = analyze(simulated_run(8, 30, persistent=(3,), seed=1)[0])
    >>> p = analysis_payload(a, [])
    >>> p["straggler_rank"], [s["rank"] for s in p["stragglers"]], p["transient"]["fraction"]
    (3, [3], 0.0)
    """
    t = analysis.transient
    return {
        "ranks": [
            {
                "rank": r.rank,
                "source": r.source,
                "median_step_ms": r.median_step_ms,
                "mean_step_ms": r.mean_step_ms,
                "median_phases_ms": r.median_phases_ms,
                "median_arrival_ms": r.median_arrival_ms,
                "median_wait_ms": r.median_wait_ms,
                "median_gap": r.median_gap,
                "median_cost_ms": r.median_cost_ms,
                "late_steps": r.late_steps,
                "slowest_count": r.slowest_count,
                **_gauges_payload(r.gpu),
            }
            for r in analysis.ranks
        ],
        "steps": [
            {
                "step": s.step,
                "slowest_rank": s.slowest_rank,
                "median_step_ms": s.median_step_ms,
                "max_step_ms": s.max_step_ms,
                "gap": s.gap,
                "extra_ms": s.extra_ms,
                "saved_ms": s.saved_ms,
                "late_ranks": list(s.late_ranks),
            }
            for s in analysis.steps
        ],
        "threshold": analysis.threshold,
        "straggler_rank": analysis.straggler_rank,
        "stragglers": [asdict(s) for s in analysis.stragglers],
        "transient": {
            "steps": t.steps,
            "straggler_steps": t.straggler_steps,
            "fraction": t.fraction,
            "mean_cost_ms": t.mean_cost_ms,
            "ranks": list(t.ranks),
            "step_numbers": list(t.step_numbers),
            "cause": None if t.cause is None else asdict(t.cause),
        },
        "median_gap": analysis.median_gap,
        "step_ms": analysis.step_ms,
        "median_step_ms": analysis.median_step_ms,
        "straggler_cost_ms": analysis.straggler_cost_ms,
        "median_cost_ms": analysis.median_cost_ms,
        "ideal_step_ms": analysis.ideal_step_ms,
        "efficiency": analysis.efficiency,
        "wait_ms_total": analysis.wait_ms_total,
        "prefetch_gain_ms": analysis.prefetch_gain_ms,
        "jitter_floor_ms": analysis.jitter_floor_ms,
        "cost_parts_ms": asdict(analysis.cost_parts_ms),
        "noise": asdict(analysis.noise),
        "undecided": [asdict(u) for u in analysis.undecided],
        "undecided_moving": None if analysis.undecided_moving is None else asdict(analysis.undecided_moving),
        "load_marked": analysis.load_marked,
        **_gauges_payload(analysis.gpu),
        "warnings": list(analysis.warnings),
        "warning_groups": [
            {"code": g.code, "count": g.count, "ranks": list(g.ranks), "text": g.message().text()}
            for g in grouped(analysis.warnings)
        ],
        "errors": errors,
    }


def _stretch(straggler: dict) -> str:
    said = stretch_message(
        Straggler(straggler["rank"], 0.0, 0.0, 0, None, straggler.get("from_step"), straggler.get("to_step"))
    )
    return "" if said is None else f", {said.text()}"


def _why(payload: dict, many: bool = False) -> str:
    return cause_text(Cause(**payload), many)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _persistent_bar(p: Mapping[str, Any]) -> str:
    """How much more than the ranks on time chance asks a persistent straggler to work on average, or, past a whole
    step, that no rank can (`bar_past_step`)."""
    needed, step = p["noise"]["mean_needed_ms"], p["median_step_ms"]
    if bar_past_step(needed, step):
        return (
            f"would work on average {needed:.2f} ms more than the other ranks on time, more than a whole step "
            f"({step:.2f} ms): this run's jitter lets no rank pass that bar by how late it is on average"
        )
    return f"works on average {needed:.2f} ms more than the other ranks on time"


def _transient_bar(p: Mapping[str, Any]) -> str:
    """What chance asks of a transient straggler's rank-step: its floor, or, past a whole step, that no rank-step
    alone can pass it (a heavy tail read far out puts it there; the number alone would read as a wrong one); and,
    while a straggler moves from rank to rank, what it asks of a step's latest rank."""
    if bar_past_step(p["jitter_floor_ms"], p["median_step_ms"]):
        floor = (
            f"no single rank-step can be a transient one: this run's jitter puts that bar at "
            f"{p['jitter_floor_ms']:.2f} ms, more than a whole step ({p['median_step_ms']:.2f} ms), so that only "
            "stragglers late together, or in most steps, stand out"
        )
    else:
        floor = f"a transient one works {p['jitter_floor_ms']:.2f} ms more in its step"
    latest = p["noise"]["latest_floor_ms"]
    if latest is None:
        return floor
    return (
        f"{floor}; while a straggler moves from rank to rank, a step's latest rank is late from {latest:.2f} ms more "
        "(its steps named together, at most one in twenty of them on time)"
    )


def analysis_text(p: dict) -> str:
    """`analyze`: who is late and why, then a table per rank and per step.

    >>> from ddpcore.analysis import analyze
    >>> from ddpcore.traces import simulated_run
    >>> a = analyze(simulated_run(8, 30, persistent=(3,), seed=1)[0])
    >>> print(analysis_text(analysis_payload(a, [])).splitlines()[0])
    persistent straggler(s): rank 3 (late in 30/30 steps, median gap 41.3%, ready 19.68 ms after the median rank)
    """
    steps = len(p["steps"])
    if p["stragglers"]:
        who = "persistent straggler(s): " + ", ".join(
            f"rank {s['rank']} (late in {s['late_steps']}/{steps} steps, median gap {s['median_gap']:.1%}, "
            f"ready {s['median_cost_ms']:.2f} ms after the median rank{_stretch(s)})"
            for s in p["stragglers"]
        )
    else:
        who = "no persistent straggler"
    undecided = [undecided_message(Undecided(**u), steps).text() for u in p.get("undecided", [])]
    if p.get("undecided_moving"):
        undecided.append(undecided_moving_message(UndecidedMoving(**p["undecided_moving"])).text())
    t = p["transient"]
    why = [f"rank {s['rank']}: {_why(s['cause'])}" for s in p["stragglers"] if s["cause"]]
    if t["straggler_steps"] and t["cause"]:
        why.append(f"transient stragglers: {_why(t['cause'], many=True)}")
    said = [*(s["cause"] for s in p["stragglers"]), t["cause"] if t["straggler_steps"] else None]
    causes = [Cause(**c) for c in said if c]
    if causes:
        why.append(prefetch_text(causes[0], p["prefetch_gain_ms"], p["load_marked"]))
    if loading_unmarked(causes, p["load_marked"]):
        why.append(say("prefetch.unmarked"))
    parts, noise = p["cost_parts_ms"], p["noise"]
    lines = [
        who,
        *undecided,
        *why,
        f"transient: {t['straggler_steps']} of {t['steps']} steps ({t['fraction']:.0%}) had a rank late by "
        f"{p['threshold']:.0%} of the step or more and later than chance"
        + (
            f", ranks {t['ranks']}; in each of those steps the other ranks waited {t['mean_cost_ms']:.2f} ms for it on "
            "average (their median wait, not what the step would gain: the latest rank on time would still set it)"
            if t["straggler_steps"]
            else ""
        ),
        f"step {p['step_ms']:.2f} ms mean ({p['median_step_ms']:.2f} median); stragglers cost "
        f"{p['straggler_cost_ms']:.2f} ms "
        f"a step (ideal {p['ideal_step_ms']:.2f} ms, efficiency {p['efficiency']:.3f} against this run without the "
        "stragglers named): persistent "
        f"{parts['persistent']:.2f} ms, transient {parts['transient']:.2f} ms"
        + (
            f", beyond chance though no rank-step is late enough to name {parts['unnamed']:.2f} ms"
            if parts["unnamed"] > 0
            else ""
        )
        + f"; jitter alone {parts['jitter']:.2f} ms (not in the cost)",
        f"chance: an on-time rank is over the threshold in {noise['chance_over_threshold']:.0%} of steps; a persistent "
        f"straggler is over it in at least {noise['persistent_needed']} of {steps} steps (one slow from some step on, "
        f"in most steps of that stretch) and {_persistent_bar(p)}; {_transient_bar(p)}",
    ]
    gap = gap_message(
        p["median_gap"],
        p["threshold"],
        p["efficiency"],
        bool(p.get("undecided") or p.get("undecided_moving")),
        len(p["ranks"]),
        steps,
        noise["chance_over_threshold"],
        len(p["stragglers"]),
        noise["leads_beyond_chance"],
    )
    if gap is not None:
        lines.append(gap.text())
    if p["gpu_busy"] is not None:
        lines.append(
            f"GPU busy as nvidia-smi shows it {p['gpu_busy']:.1%}, compute kernels {p['gpu_compute']:.1%}, "
            f"communication overlapped by compute {_percent(p['comm_overlap'])}, exposed communication "
            f"{p['exposed_comm_ms']:.2f} ms a step"
        )
    lines += [
        "",
        f"{'rank':>5} {'mean step ms':>13} {'wait ms':>11} {'median gap':>11} {'late in':>8} "
        f"{'GPU busy':>9} {'compute':>8}  source",
    ]
    lines += [
        f"{r['rank']:>5} {r['mean_step_ms']:>13.2f} {r['median_wait_ms']:>11.2f} {r['median_gap']:>11.1%} "
        f"{r['late_steps']:>8} {_percent(r['gpu_busy']):>9} {_percent(r['gpu_compute']):>8}  {r['source']}"
        for r in p["ranks"]
    ]
    lines += ["", f"{'step':>6} {'latest':>7} {'step ms':>9} {'gap':>8}  late ranks"]
    lines += [
        f"{s['step']:>6} {s['slowest_rank']:>7} {s['median_step_ms']:>9.2f} {s['gap']:>8.1%}  "
        f"{', '.join(map(str, s['late_ranks'])) or '-'}"
        for s in p["steps"]
    ]
    lines += [f"warning: {g['text']}" for g in p["warning_groups"]]
    return "\n".join(lines)


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return list(interval) if interval else None


def fit_payload(seen: Outlook) -> dict:
    """`analyze --fit --json`: the fitted model, the what-if on the run, the check at its size and the sizes beyond.

    >>> from ddpcore.analysis import analyze, outlook_of
    >>> from ddpcore.traces import simulated_run
    >>> seen, _ = outlook_of(analyze(simulated_run(8, 30, persistent=(3,), seed=1)[0]))
    >>> p = fit_payload(seen)
    >>> sorted(p), [row["gpus"] for row in p["at_scale"]]
    (['at_scale', 'fit', 'predicted', 'whatif'], [8, 1000, 10000, 100000])
    """
    fitted = seen.fit
    return {
        "fit": {
            "jitter_cv": fitted.jitter_cv,
            "jitter_cv_interval": _pair(fitted.jitter_cv_interval),
            "straggler_prob": fitted.straggler_prob,
            "straggler_prob_interval": _pair(fitted.straggler_prob_interval),
            "slowdown": fitted.slowdown,
            "slowdown_interval": _pair(fitted.slowdown_interval),
            "persistent": fitted.persistent,
            "persistent_ranks": list(fitted.persistent_ranks),
            "persistent_slowdown": fitted.persistent_slowdown,
            "rank_steps": fitted.rank_steps,
            "slowed_rank_steps": fitted.slowed_rank_steps,
            "steps": fitted.steps,
            "compute_ms": fitted.compute_ms,
            "other_ms": fitted.other_ms,
            "caveats": list(fitted.caveats),
            "caveat_values": fitted.caveat_values,
            "bounded": bounded(fitted),
            "unmeasured": [list(pair) for pair in fitted.unmeasured],
        },
        "whatif": asdict(seen.whatif),
        "predicted": asdict(seen.check),
        "at_scale": [asdict(r) for r in seen.scale],
    }


def _interval_text(interval: list[float] | None, digits: int, suffix: str = "") -> str:
    return f" [{interval[0]:.{digits}f}{suffix}, {interval[1]:.{digits}f}{suffix}]" if interval else ""


def fit_text(p: dict) -> str:
    """`analyze --fit`: the fitted model, the what-if, the check at the run's size and the sizes beyond.

    >>> from ddpcore.analysis import analyze, outlook_of
    >>> from ddpcore.traces import simulated_run
    >>> seen, _ = outlook_of(analyze(simulated_run(8, 30, persistent=(3,), seed=1)[0]))
    >>> print(fit_text(fit_payload(seen)).splitlines()[0].split("; ")[-1])
    persistent 1 (ranks [3], 1.86x)
    """
    f, w, c = p["fit"], p["whatif"], p["predicted"]
    saved = round(w["measured_step_ms"] - w["step_ms"], 2) > 0
    lines = [
        f"fit over {f['rank_steps']} rank-steps (95% intervals): jitter cv {f['jitter_cv']:.3f}"
        f"{_interval_text(f['jitter_cv_interval'], 3)}; transient stragglers p {f['straggler_prob']:.4f}"
        f"{_interval_text(f['straggler_prob_interval'], 4)} ({f['slowed_rank_steps']} rank-steps), slowdown "
        f"{f['slowdown']:.2f}x{_interval_text(f['slowdown_interval'], 2, 'x')}; persistent {f['persistent']}"
        + (f" (ranks {f['persistent_ranks']}, {f['persistent_slowdown']:.2f}x)" if f["persistent"] else ""),
        *(
            f"the model goes up to {used:g} for {name.replace('_', ' ')}: the rows at scale use {used:g}"
            for name, used in f["bounded"].items()
        ),
        f"without its stragglers the run would step in {w['step_ms']:.2f} ms instead of {w['measured_step_ms']:.2f} "
        f"(efficiency {w['efficiency']:.3f}), {w['gpu_hours_saved_per_day']:,.1f} GPU-hours a day saved at "
        f"{c['gpus']} GPUs"
        if saved
        else f"no straggler cost: without stragglers the run would step as it does, in {w['measured_step_ms']:.2f} "
        "ms; nothing to gain",
        f"model check at {c['gpus']} GPUs: expected step {c['expected_step_ms']:.2f} ms, measured "
        f"{c['measured_step_ms']:.2f} ms ({c['error']:+.1%})",
        "first row: this run as measured (efficiency against it without its stragglers); beyond: the fitted model "
        "(efficiency against a step with neither jitter nor stragglers)",
        cluster_table(p["at_scale"]),
    ]
    lines += [f"caveat: {caveat_message(code, f['caveat_values']).text()}" for code in f["caveats"]]
    return "\n".join(lines)


def _change_payload(c: Change) -> dict:
    return {"before": c.before, "after": c.after, "change": c.change, "change_ci95": list(c.ci95)}


def compare_payload(c: Comparison, errors: list[dict]) -> dict:
    """`compare --json`: the two runs side by side (docs/compare.md names every key).

    >>> from ddpcore.analysis import analyze, compare
    >>> from ddpcore.traces import simulated_run
    >>> before, after = (analyze(simulated_run(8, 40, persistent=p, seed=1)[0]) for p in ((3,), ()))
    >>> compare_payload(compare(before, after), [])["stragglers"]["went"]
    (3,)
    """
    s = c.stragglers
    return {
        "step_ms": _change_payload(c.step_ms),
        "median_step_ms": _change_payload(c.median_step_ms),
        "within_noise": c.within_noise,
        "stragglers": {
            "before": s.before,
            "after": s.after,
            "went": s.went,
            "stayed": s.stayed,
            "appeared": s.appeared,
        },
        "transient_fraction": {"before": c.transient[0], "after": c.transient[1]},
        "ranks": [
            {
                "rank": r.rank,
                "lateness_ms": {"before": r.lateness_before, "after": r.lateness_after},
                "cause": {"before": r.cause_before, "after": r.cause_after},
            }
            for r in c.ranks
        ],
        "parts_ms": {p: {"before": b, "after": a} for p, (b, a) in c.parts_ms.items()},
        "whatif": {
            "predicted_step_ms": c.whatif.predicted_step_ms,
            "measured_step_ms": c.whatif.measured_step_ms,
            "error": c.whatif.error,
            "tests": c.whatif.tests,
        },
        "notes": [m.text() for m in c.notes],
        "errors": errors,
    }


def _ms1(value: float) -> str:
    """A figure to 0.1 ms, without the sign of a zero that rounding left (-0.0)."""
    return f"{round(value, 1) + 0.0:.1f}"


def _late(value: float | None) -> str:
    return "-" if value is None else _ms1(value)


def _ranks_text(ranks: tuple[int, ...] | list[int]) -> str:
    return ", ".join(f"rank {r}" for r in ranks) or "none"


def compare_text(p: dict) -> str:
    """`compare`'s report: the step, the stragglers, the what-if's check, then each late rank.

    >>> from ddpcore.analysis import analyze, compare
    >>> from ddpcore.traces import simulated_run
    >>> before, after = (analyze(simulated_run(8, 40, persistent=p, seed=1)[0]) for p in ((3,), ()))
    >>> compare_text(compare_payload(compare(before, after), [])).splitlines()[1]
    'Persistent stragglers: rank 3 -> none (went: rank 3; stayed: none; appeared: none)'
    """
    step, median = p["step_ms"], p["median_step_ms"]
    lo, hi = step["change_ci95"]
    verdict = "within noise" if p["within_noise"] else ("faster" if step["change"] < 0 else "slower")
    s, w = p["stragglers"], p["whatif"]
    lines = [
        f"Step: {step['before']:.1f} -> {step['after']:.1f} ms a step (mean), {step['change']:+.1f} ms "
        f"[{lo:+.1f}, {hi:+.1f}] at 95 %: {verdict}; median {median['before']:.1f} -> {median['after']:.1f} ms",
        f"Persistent stragglers: {_ranks_text(s['before'])} -> {_ranks_text(s['after'])} (went: "
        f"{_ranks_text(s['went'])}; stayed: {_ranks_text(s['stayed'])}; appeared: {_ranks_text(s['appeared'])})",
        f"Transient: {p['transient_fraction']['before']:.0%} -> {p['transient_fraction']['after']:.0%} of steps",
        f"What-if: the run before predicted {w['predicted_step_ms']:.1f} ms a step without its stragglers; the run "
        f"after measured {w['measured_step_ms']:.1f} ms ({w['error']:+.0%})",
        *p["notes"],
    ]
    moved = [r for r in p["ranks"] if r["cause"]["before"] or r["cause"]["after"]]
    for r in moved:
        late = r["lateness_ms"]
        lines.append(
            f"rank {r['rank']}: {_late(late['before'])} -> {_late(late['after'])} ms late a step, cause "
            f"{r['cause']['before'] or '-'} -> {r['cause']['after'] or '-'}"
        )
    parts = [
        f"{k} {_ms1(v['before'])} -> {_ms1(v['after'])}" for k, v in p["parts_ms"].items() if v["before"] or v["after"]
    ]
    if parts:
        lines.append("Late ranks' excess a step (ms): " + "; ".join(parts))
    return "\n".join(lines)
