"""`python -m ddpcore`: the model from a shell, as text or JSON (docs/contracts.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from dataclasses import asdict, replace
from pathlib import Path
from typing import NoReturn

from .alerts import DEFAULT_JOB, dashboard, rules_file, scrape_config
from .cluster import ClusterConfig, cluster_step, cluster_sweep
from .config import Link, Phases, StepConfig, default_straggler
from .fit import CAVEATS, FitError, Outlook, RunTimes, cluster_config, outlook
from .measured import AnalysisError, GpuGauges
from .metrics import step_metrics
from .params import (
    BANDWIDTH_GBPS,
    BUCKET_MB,
    CLUSTER_PARAMS,
    FIRST_BUCKET_MB,
    GPUS,
    GRAD_MB,
    LATENCY_US,
    LOST_IN,
    MB,
    MODE,
    PREFETCH_RESIDUAL_MS,
    SLOWDOWN,
    TENSOR_ACTIVITY,
    ConfigError,
    Param,
    check_int,
    check_number,
)
from .replay import MAX_SPEED, frames_at, frames_of, play
from .ring import exchanges, traffic_factor
from .schedule import build_schedule
from .traces import Loaded
from .verdict import DEFAULT_THRESHOLD, MAX_THRESHOLD, Analysis, Cause, analyze, cause_text, prefetch_text

MAX_JOBS = 256


class UsageError(Exception):
    """A bad argument: reported on one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (one line, exit 2) instead of printed with the usage."""

    def error(self, message: str) -> NoReturn:
        """Raise the error for `main` to print on one line."""
        raise UsageError(f"{self.prog}: error: {message}")


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def _emit(payload: dict, as_json: bool, text: Callable[[dict], str]) -> None:
    print(json.dumps(payload, indent=2, allow_nan=False) if as_json else text(payload))


def step_payload(config: StepConfig) -> dict:
    """`step --json`: the metrics, the buckets and every rank's phases."""
    schedule = build_schedule(config)
    payload = asdict(step_metrics(config, schedule))
    payload["stragglers"] = list(config.stragglers)
    payload["slowdown"] = config.slowdown
    payload["lost_in"] = config.lost_in
    payload["prefetch"] = config.prefetch
    payload["buckets"] = [
        {"index": b.index, "bytes": round(b.mb * MB), "start_ms": b.start_ms, "end_ms": b.end_ms}
        for b in schedule.buckets
    ]
    payload["ranks"] = [
        {
            "rank": r.rank,
            "slowdown": r.slowdown,
            "phases": [{"phase": i.phase, "start_ms": i.start_ms, "end_ms": i.end_ms} for i in r.intervals],
        }
        for r in schedule.ranks
    ]
    return payload


def _step_text(p: dict) -> str:
    lines = [
        f"{p['gpus']} GPUs, {p['mode']} mode, straggler(s) {p['stragglers']} at {p['slowdown']:g}x "
        f"(time lost in {p['lost_in'].replace('_', ' ')}), prefetch {'on' if p['prefetch'] else 'off'}",
        f"  step time          {p['step_ms']:8.2f} ms   (ideal {p['ideal_step_ms']:.2f} ms)",
        f"  efficiency         {p['efficiency']:8.3f}",
        f"  straggler cost     {p['straggler_cost_ms']:8.2f} ms",
        f"  prefetch gain      {p['prefetch_gain_ms']:8.2f} ms",
        f"  displayed util     {p['displayed_util']:8.3f}   (what nvidia-smi shows)",
        f"  useful compute     {p['useful_compute']:8.3f}   (tensor pipes busy)",
        f"  barrier wait total {p['wait_ms_total']:8.2f} GPU-ms",
        f"  ring traffic       {p['ring_traffic_factor']:8.3f} x gradient size per GPU",
        f"  exposed comm       {p['exposed_comm_ms']:8.2f} ms   (algbw {p['algbw_gbps']:.1f} GB/s, busbw "
        f"{p['busbw_gbps']:.1f} GB/s)",
        *(
            f"  bucket {b['index']:>3}  {b['bytes'] / MB:8.2f} MB  {b['start_ms']:8.2f} -> {b['end_ms']:8.2f} ms"
            for b in p["buckets"]
        ),
        "",
        "  rank  " + "  ".join(f"{name:>9}" for name in (ph["phase"] for ph in p["ranks"][0]["phases"])),
    ]
    for r in p["ranks"]:
        cells = "  ".join(f"{ph['end_ms'] - ph['start_ms']:9.2f}" for ph in r["phases"])
        lines.append(f"  {r['rank']:>4}  {cells}")
    return "\n".join(lines)


def ring_payload(gpus: int) -> dict:
    """`ring --json`: the exchanges and every transfer of each."""
    steps = exchanges(gpus)
    return {
        "gpus": gpus,
        "exchanges": len(steps),
        "reduce_scatter_exchanges": sum(1 for e in steps if e.stage == "reduce-scatter"),
        "all_gather_exchanges": sum(1 for e in steps if e.stage == "all-gather"),
        "traffic_factor": traffic_factor(gpus),
        "transfers": [[asdict(t) for t in e.transfers] for e in steps],
    }


def _ring_text(p: dict) -> str:
    lines = [
        f"ring AllReduce over {p['gpus']} GPUs: {p['exchanges']} exchanges "
        f"({p['reduce_scatter_exchanges']} reduce-scatter + {p['all_gather_exchanges']} all-gather), "
        f"each GPU sends {p['traffic_factor']:.3f} x the gradient size",
    ]
    half = p["reduce_scatter_exchanges"]
    for i, transfers in enumerate(p["transfers"], start=1):
        stage = "reduce-scatter" if i <= half else "all-gather"
        sends = ", ".join(f"{t['src']}->{t['dst']}:c{t['chunk']}" for t in transfers)
        lines.append(f"  {i:>3} {stage:<14} {sends}")
    return "\n".join(lines)


RING_GPUS = replace(GPUS, high=256)
"""The ring command prints every transfer: 2(N-1) exchanges of N transfers stay readable up to 256 GPUs."""


def _add_step(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "step",
        help="schedule and cost metrics of one training step",
        description="One data-parallel step: every GPU computes, waits at the AllReduce barrier for the "
        "slowest, then reduces gradients and steps the optimizer.",
    )
    _add_param(p, GPUS)
    p.add_argument(
        "--straggler",
        type=int,
        nargs="+",
        action="extend",
        metavar="R",
        help=f"rank(s) of the slow GPU(s), 0-based (default {default_straggler(GPUS.default)})",
    )
    _add_param(p, SLOWDOWN)
    _add_param(p, LOST_IN)
    p.add_argument("--prefetch", action="store_true", help="prefetch input data (hides loading but a residual copy)")
    for param in (PREFETCH_RESIDUAL_MS, TENSOR_ACTIVITY, MODE):
        _add_param(p, param)
    p.add_argument(
        "--allreduce-ms",
        type=float,
        default=None,
        help=f"AllReduce duration given directly (default {Phases().allreduce:g}); otherwise derived from the link "
        "flags",
    )
    for param in (BUCKET_MB, FIRST_BUCKET_MB):
        _add_param(p, param)
    _add_link_args(p, derived=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_step)


def _link_of(args: argparse.Namespace, always: bool) -> Link | None:
    given = {k: getattr(args, k) for k in ("grad_mb", "bandwidth_gbps", "latency_us") if getattr(args, k) is not None}
    return Link(**given) if (given or always) else None


def _run_step(args: argparse.Namespace) -> None:
    link = _link_of(args, always=False)
    if args.allreduce_ms is not None and link is not None:
        raise UsageError(
            "python -m ddpcore step: error: argument --allreduce-ms: not allowed with --grad-mb, "
            "--bandwidth-gbps or --latency-us (give the AllReduce either in ms or from the link)"
        )
    config = StepConfig(
        phases=Phases(allreduce=args.allreduce_ms) if args.allreduce_ms is not None else Phases(),
        mode=args.mode,
        link=link,
        bucket_mb=args.bucket_mb,
        first_bucket_mb=args.first_bucket_mb,
        gpus=args.gpus,
        stragglers=tuple(args.straggler) if args.straggler else (default_straggler(args.gpus),),
        slowdown=args.slowdown,
        lost_in=args.lost_in,
        prefetch=args.prefetch,
        prefetch_residual_ms=args.prefetch_residual_ms,
        tensor_activity=args.tensor_activity,
    )
    _emit(step_payload(config), args.json, _step_text)


def _add_ring(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ring",
        help="the ring AllReduce schedule, exchange by exchange",
        description="GPU i sends to GPU i+1: N-1 reduce-scatter exchanges then N-1 all-gather exchanges.",
    )
    p.add_argument("--gpus", type=int, default=GPUS.default, help=RING_GPUS.describe())
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_ring)


def _run_ring(args: argparse.Namespace) -> None:
    RING_GPUS.check(args.gpus)
    _emit(ring_payload(args.gpus), args.json, _ring_text)


def _add_param(p: argparse.ArgumentParser, param: Param, derived: bool = False) -> None:
    """A flag from the parameter table; `derived`: no default, the model derives the value unless it is given."""
    help_text = param.describe() + ("; give any link flag to derive the AllReduce from the link" if derived else "")
    default = None if derived else param.default
    p.add_argument(param.flag, type=param.kind, default=default, help=help_text, choices=param.choices or None)


def _add_link_args(p: argparse.ArgumentParser, derived: bool = False) -> None:
    for param in (GRAD_MB, BANDWIDTH_GBPS, LATENCY_US):
        _add_param(p, param, derived)


def _add_cluster(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cluster",
        help="what stragglers cost at 8 to 1,000,000 GPUs",
        description="Each rank computes nominal x lognormal jitter x (slowdown S with probability P); the step "
        "waits for the slowest rank, whose distribution is computed exactly (no sampling).",
    )
    for param in CLUSTER_PARAMS:
        _add_param(p, param)
    _add_link_args(p)
    p.add_argument("--sweep", action="store_true", help="N from 8 to 1,000,000, log-spaced (a JSON list)")
    p.add_argument(
        "--from",
        dest="from_files",
        nargs="+",
        metavar="FILE",
        help="fit the straggler parameters and the step's timing to these traces (one per rank); N defaults to "
        "theirs, and any straggler flag given overrides its fitted value",
    )
    _add_reading_args(p)
    p.set_defaults(**{param.name: None for param in CLUSTER_PARAMS})
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_cluster)


def _run_cluster(args: argparse.Namespace) -> int:
    link = Link(grad_mb=args.grad_mb, bandwidth_gbps=args.bandwidth_gbps, latency_us=args.latency_us)
    given = {param.name: getattr(args, param.name) for param in CLUSTER_PARAMS if getattr(args, param.name) is not None}
    if args.from_files:
        fitted = _fitted(args.from_files, args)
        if fitted is None:
            return 1
        config = replace(cluster_config(fitted.fit), link=link, **given)
    else:
        config = ClusterConfig(**{**{param.name: param.default for param in CLUSTER_PARAMS}, **given}, link=link)
    if args.sweep:
        rows = [asdict(r) for r in cluster_sweep(config)]
        print(json.dumps(rows, indent=2, allow_nan=False) if args.json else _cluster_table(rows))
    else:
        _emit(asdict(cluster_step(config)), args.json, lambda r: _cluster_table([r]))
    return 0


def _cluster_table(rows: list[dict]) -> str:
    head = (
        f"{'gpus':>9} {'E[step] ms':>11} {'p50 ms':>9} {'p99 ms':>9} {'efficiency':>10} {'P(any slow)':>11} "
        f"{'GPU-h lost/day':>15}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['gpus']:>9,} {r['expected_step_ms']:>11.2f} {r['p50_step_ms']:>9.2f} {r['p99_step_ms']:>9.2f} "
            f"{r['efficiency']:>10.3f} {r['p_any_straggler']:>11.4f} {r['gpu_hours_lost_per_day']:>15,.1f}"
        )
    return "\n".join(lines)


def _add_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs", type=int, default=1, help=f"files read at once, in as many processes, 1-{MAX_JOBS} (default 1)"
    )


def _add_reading_args(p: argparse.ArgumentParser) -> None:
    _add_jobs(p)
    p.add_argument(
        "--min-gap",
        type=float,
        default=DEFAULT_THRESHOLD,
        help=f"share of the step from which a rank counts as late, 0-{MAX_THRESHOLD:g} (default {DEFAULT_THRESHOLD:g})",
    )


def _add_analyze(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help="find the stragglers in per-rank traces (PyTorch profiler or ddpcore JSONL)",
        description="Read one trace per rank (.json, .json.gz or .jsonl[.gz], told apart by their content); per "
        "step, measure how late each rank reaches the gradient collective, as a share of the step; name the ranks "
        "late in most steps (persistent) and count the steps with a late rank (transient).",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="one trace file per rank")
    _add_reading_args(p)
    p.add_argument(
        "--fit",
        action="store_true",
        help="also fit the cluster model's straggler parameters to the run, with what the run would cost without "
        "its stragglers and at 1k to 100k GPUs (docs/fit.md)",
    )
    p.add_argument(
        "--rules",
        metavar="DIR",
        help="also write the Prometheus rules (ddp-rules.yml, at --min-gap) and a Grafana dashboard "
        "(ddp-dashboard.json) into DIR",
    )
    p.add_argument("--job", default=DEFAULT_JOB, help=f"the job label the rules select (default {DEFAULT_JOB})")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=_run_analyze)


def _gauges_payload(g: GpuGauges | None) -> dict:
    keys = ("gpu_busy", "gpu_compute", "comm_overlap", "exposed_comm_ms")
    return dict(zip(keys, (g.busy, g.compute, g.comm_overlap, g.exposed_comm_ms) if g else (None,) * len(keys)))


def analysis_payload(analysis: Analysis, errors: list[dict]) -> dict:
    """`analyze --json`: the contract described in docs/traces.md."""
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
        **_gauges_payload(analysis.gpu),
        "warnings": list(analysis.warnings),
        "errors": errors,
    }


def _why(payload: dict) -> str:
    return cause_text(Cause(**payload))


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _analysis_text(p: dict) -> str:
    if p["stragglers"]:
        who = "persistent straggler(s): " + ", ".join(
            f"rank {s['rank']} (late in {s['late_steps']}/{len(p['steps'])} steps, median gap {s['median_gap']:.1%}, "
            f"{s['median_cost_ms']:.2f} ms)"
            for s in p["stragglers"]
        )
    else:
        who = "no persistent straggler"
    t = p["transient"]
    why = [f"rank {s['rank']}: {_why(s['cause'])}" for s in p["stragglers"] if s["cause"]]
    if t["straggler_steps"] and t["cause"]:
        why.append(f"transient stragglers: {_why(t['cause'])}")
    lesson = next((c for c in [*(s["cause"] for s in p["stragglers"]), t["cause"]] if c), None)
    if lesson:
        why.append(prefetch_text(Cause(**lesson), p["prefetch_gain_ms"]))
    lines = [
        who,
        *why,
        f"transient: {t['straggler_steps']} of {t['steps']} steps ({t['fraction']:.0%}) had a rank late by "
        f"{p['threshold']:.0%} of the step or more"
        + (f", ranks {t['ranks']}, {t['mean_cost_ms']:.2f} ms each on average" if t["straggler_steps"] else ""),
        f"step {p['step_ms']:.2f} ms mean ({p['median_step_ms']:.2f} median); stragglers cost "
        f"{p['straggler_cost_ms']:.2f} ms "
        f"a step (ideal {p['ideal_step_ms']:.2f} ms, efficiency {p['efficiency']:.3f})",
    ]
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
    lines += [f"warning: {w}" for w in p["warnings"]]
    return "\n".join(lines)


PROGRESS_BYTES = 50 * 1024 * 1024
"""Inputs above this size show a progress line on a terminal."""


def _progress_line(done: int, files: int, done_bytes: int, total: int) -> None:
    mb = 1024 * 1024
    end = "\n" if done == files else ""
    print(
        f"\rread {done}/{files} files, {done_bytes / mb:,.0f} of {total / mb:,.0f} MiB",
        end=end,
        file=sys.stderr,
        flush=True,
    )


def _read_analysed(files: list[str], args: argparse.Namespace, command: str) -> tuple[Analysis | None, list[dict]]:
    """The files read and analysed (`_read_loaded`); an analysis that cannot be made is one line on stderr."""
    loaded, errors = _read_loaded(files, args, command)
    return _analysed(loaded, args, command), errors


def _analysed(loaded: Loaded, args: argparse.Namespace, command: str) -> Analysis | None:
    """The files read, analysed; when they cannot be compared, None and one line on stderr."""
    try:
        return analyze(loaded.traces, args.min_gap)
    except AnalysisError as exc:
        print(f"python -m ddpcore {command}: error: {exc}", file=sys.stderr)
        return None


def _read_loaded(files: list[str], args: argparse.Namespace, command: str) -> tuple[Loaded, list[dict]]:
    """The files read (in `--jobs` processes, with a progress line on a terminal for large inputs); each unreadable
    file is one line on stderr."""
    from .files import read_paths

    check_number("min_gap", args.min_gap, 0.0, MAX_THRESHOLD, low_open=True)
    check_int("jobs", args.jobs, 1, MAX_JOBS)
    large = sum(os.path.getsize(f) for f in files if os.path.isfile(f)) > PROGRESS_BYTES
    loaded = read_paths(files, args.jobs, _progress_line if large and sys.stderr.isatty() else None)
    errors = [{"source": e.source, "message": e.message} for e in loaded.errors]
    for e in errors:
        print(f"python -m ddpcore {command}: {e['source']}: {e['message']}", file=sys.stderr)
    return loaded, errors


def _fitted(files: list[str], args: argparse.Namespace) -> Outlook | None:
    analysis, _ = _read_analysed(files, args, "cluster")
    return _fit_or_say(analysis, args.min_gap, "cluster") if analysis else None


def _fit_or_say(analysis: Analysis, threshold: float, command: str) -> Outlook | None:
    try:
        return outlook(RunTimes.of_analysis(analysis), threshold)
    except FitError as exc:
        print(f"python -m ddpcore {command}: error: {exc}", file=sys.stderr)
        return None


def _pair(interval: tuple[float, float] | None) -> list[float] | None:
    return list(interval) if interval else None


def fit_payload(seen: Outlook) -> dict:
    """`analyze --fit --json`: the fitted model, the what-if on the run, the check at its size and the sizes beyond."""
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
        },
        "whatif": asdict(seen.whatif),
        "predicted": asdict(seen.check),
        "at_scale": [asdict(r) for r in seen.scale],
    }


def _interval_text(interval: list[float] | None, digits: int, suffix: str = "") -> str:
    return f" [{interval[0]:.{digits}f}{suffix}, {interval[1]:.{digits}f}{suffix}]" if interval else ""


def _fit_text(p: dict) -> str:
    f, w, c = p["fit"], p["whatif"], p["predicted"]
    lines = [
        f"fit over {f['rank_steps']} rank-steps (95% intervals): jitter cv {f['jitter_cv']:.3f}"
        f"{_interval_text(f['jitter_cv_interval'], 3)}; transient stragglers p {f['straggler_prob']:.4f}"
        f"{_interval_text(f['straggler_prob_interval'], 4)} ({f['slowed_rank_steps']} rank-steps), slowdown "
        f"{f['slowdown']:.2f}x{_interval_text(f['slowdown_interval'], 2, 'x')}; persistent {f['persistent']}"
        + (f" (ranks {f['persistent_ranks']}, {f['persistent_slowdown']:.2f}x)" if f["persistent"] else ""),
        f"without its stragglers the run would step in {w['step_ms']:.2f} ms instead of {w['measured_step_ms']:.2f} "
        f"(efficiency {w['efficiency']:.3f}), {w['gpu_hours_saved_per_day']:,.1f} GPU-hours a day saved at "
        f"{c['gpus']} GPUs",
        f"model check at {c['gpus']} GPUs: expected step {c['expected_step_ms']:.2f} ms, measured "
        f"{c['measured_step_ms']:.2f} ms ({c['error']:+.1%})",
        _cluster_table(p["at_scale"]),
    ]
    lines += [f"caveat: {CAVEATS[code]}" for code in f["caveats"]]
    return "\n".join(lines)


RULES_FILE, DASHBOARD_FILE = "ddp-rules.yml", "ddp-dashboard.json"


def _write_rules(folder: Path, threshold: float, job: str) -> list[str] | None:
    """The rules file and the dashboard written side by side; a folder that cannot be written is one line."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RULES_FILE).write_text(rules_file(threshold, job), encoding="utf-8")
        (folder / DASHBOARD_FILE).write_text(dashboard(job), encoding="utf-8")
    except OSError as exc:
        print(f"python -m ddpcore analyze: error: {folder}: {exc.strerror}", file=sys.stderr)
        return None
    return [str(folder / RULES_FILE), str(folder / DASHBOARD_FILE)]


def _run_analyze(args: argparse.Namespace) -> int:
    analysis, errors = _read_analysed(args.files, args, "analyze")
    if analysis is None:
        return 1
    payload = analysis_payload(analysis, errors)
    text = _analysis_text
    if args.fit:
        fitted = _fit_or_say(analysis, args.min_gap, "analyze")
        if fitted is None:
            return 1
        payload.update(fit_payload(fitted))
        text = lambda p: _analysis_text(p) + "\n\n" + _fit_text(p)  # noqa: E731
    if args.rules:
        written = _write_rules(Path(args.rules), args.min_gap, args.job)
        if written is None:
            return 1
        payload["written"] = written
        plain = text
        text = lambda p: plain(p) + "".join(f"\nwrote {w}" for w in p["written"])  # noqa: E731
    _emit(payload, args.json, text)
    return 1 if errors else 0


def _add_summarize(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "summarize",
        help="reduce per-rank traces to small summaries, where the traces lie (docs/summaries.md)",
        description="One summary per trace (rank<R>.ddpsum.json.gz): per step what the analysis measures, about "
        "60 bytes gzipped. Run it on every node over its own ranks' traces, gather the summaries, then analyze them.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="trace files (PyTorch profiler or ddpcore JSONL)")
    p.add_argument("-o", "--out", default=".", metavar="DIR", help="where to write the summaries (default .)")
    _add_jobs(p)
    p.set_defaults(run=_run_summarize)


def _run_summarize(args: argparse.Namespace) -> int:
    from .files import read_paths
    from .summary import SUFFIX, summary_bytes
    from .tracefacts import table_of

    check_int("jobs", args.jobs, 1, MAX_JOBS)
    loaded = read_paths(args.files, args.jobs)
    for e in loaded.errors:
        print(f"python -m ddpcore summarize: {e.source}: {e.message}", file=sys.stderr)
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for trace in loaded.traces:
            target = folder / f"rank{trace.rank}{SUFFIX}"
            target.write_bytes(summary_bytes(table_of(trace)))
            print(f"{trace.source} -> {target}")
    except OSError as exc:
        print(f"python -m ddpcore summarize: error: {folder}: {exc.strerror}", file=sys.stderr)
        return 1
    return 1 if loaded.errors else 0


def _add_replay(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="serve recorded traces as live per-rank Prometheus exporters (needs ddpcore[prometheus])",
        description="Each rank's exporter on its own port (PORT, PORT+1, …), showing the run's steps one after "
        "another at their measured pace, in a loop until interrupted: try the rules and the dashboard without a "
        "cluster.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="one trace file per rank")
    p.add_argument("--port", type=int, required=True, help="the first rank's port; rank i's is PORT + i")
    p.add_argument("--speed", type=float, default=1.0, help=f"how many times faster than measured, 0-{MAX_SPEED:g}")
    p.add_argument("--job", default=DEFAULT_JOB, help=f"the job label (default {DEFAULT_JOB})")
    p.add_argument("--addr", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument("--loops", type=int, default=None, help="stop after so many passes over the run (default: never)")
    _add_reading_args(p)
    p.set_defaults(run=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    check_number("speed", args.speed, 0.0, MAX_SPEED, low_open=True)
    check_int("port", args.port, 1, 65535)
    if args.loops is not None:
        check_int("loops", args.loops, 1, 10**9)
    try:
        from .exporter import Exporter, served
    except ImportError:
        print(
            "python -m ddpcore replay: error: needs prometheus_client: pip install 'ddpcore[prometheus]'",
            file=sys.stderr,
        )
        return 1
    loaded, _ = _read_loaded(args.files, args, "replay")
    analysis = _analysed(loaded, args, "replay")
    if analysis is None:
        return 1
    frames = frames_at(frames_of(analysis, loaded.traces), args.speed)
    ranks = analysis.steps[0].columns.ranks
    check_int("port", args.port + len(ranks) - 1, 1, 65535)
    exporters = {r: Exporter(r, args.job) for r in ranks}
    targets = [f"{args.addr}:{args.port + i}" for i in range(len(ranks))]
    with ExitStack() as stack:
        try:
            for i, r in enumerate(ranks):
                stack.enter_context(served(exporters[r], args.port + i, args.addr))
        except OSError as exc:
            print(f"python -m ddpcore replay: error: cannot listen on {args.addr}: {exc.strerror}", file=sys.stderr)
            return 1
        print(f"replaying {len(frames)} steps of {len(ranks)} ranks at {args.speed:g}x; scrape config:", flush=True)
        print(scrape_config(targets, args.job, "1s"), flush=True)
        with suppress(KeyboardInterrupt):
            play(frames, lambda rank, times: exporters[rank].observe(times), args.loops)
    return 0


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_step,
    _add_ring,
    _add_cluster,
    _add_analyze,
    _add_summarize,
    _add_replay,
]


def build_parser() -> Parser:
    """The `python -m ddpcore` parser with every subcommand."""
    parser = Parser(
        prog="python -m ddpcore",
        description="Model one step of data-parallel GPU training: ring AllReduce, barrier cost of a "
        "straggler, displayed vs useful GPU utilization.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; bad arguments print one line on stderr and return 2."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        status = args.run(args)
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except ConfigError as exc:
        print(
            f"{parser.prog} {args.command}: error: argument {_flag(exc.field)}: got {exc.value!r}, allowed "
            f"{exc.allowed}",
            file=sys.stderr,
        )
        return 2
    return status or 0
