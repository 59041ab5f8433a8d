"""What the model's commands report (`step`, `ring`, `cluster`): their JSON payload (docs/contracts.md) and the
same as text.

The command line (commands.py) only parses arguments and wires the model to these; a payload is built from the
model's dataclasses, and each text is read from its payload, so the two never disagree. Every command answers
through one `Report`: a payload, and its text as sections read from it, which options add to.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..base.params import MB
from ..model import StepConfig, build_schedule, exchanges, step_metrics, traffic_factor

__all__ = ["Report", "cluster_table", "ring_payload", "ring_text", "step_payload", "step_text"]

Section = Callable[[dict], str]
"""A part of a report's text, read from its payload (with its own leading line breaks)."""


@dataclass(frozen=True)
class Report:
    """What a command answers: its JSON payload, and its text as sections each read from that payload.

    >>> r = Report({"gpus": 8}, (lambda p: f"{p['gpus']} GPUs",)).plus({"fit": 2}, lambda p: f"; fit {p['fit']}")
    >>> r.said(as_json=False), r.said(as_json=True).replace("\\n", "")
    ('8 GPUs; fit 2', '{  "gpus": 8,  "fit": 2}')
    """

    payload: dict
    sections: tuple[Section, ...]

    def plus(self, values: dict, section: Section | None = None) -> Report:
        """This report with more of the payload (new keys after the others) and, when given, one more section."""
        return Report(self.payload | values, self.sections + ((section,) if section is not None else ()))

    def said(self, as_json: bool) -> str:
        """The payload as JSON (docs/contracts.md; never NaN), or the sections' text in order."""
        if as_json:
            return json.dumps(self.payload, indent=2, allow_nan=False)
        return "".join(section(self.payload) for section in self.sections)


def step_payload(config: StepConfig) -> dict:
    """`step --json`: the metrics, the buckets and every rank's phases.

    >>> from ddpcore.model import StepConfig
    >>> p = step_payload(StepConfig())
    >>> p["step_ms"], sorted(p)[:4]
    (44.0, ['algbw_gbps', 'buckets', 'busbw_gbps', 'displayed_util'])
    """
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


def step_text(p: dict) -> str:
    """`step`: the metrics, the buckets and a table of every rank's phases.

    >>> from ddpcore.model import StepConfig
    >>> print(step_text(step_payload(StepConfig())).splitlines()[0])
    8 GPUs, sequential mode, straggler(s) [2] at 1x (time lost in compute), prefetch off
    """
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
    """`ring --json`: the exchanges and every transfer of each.

    >>> p = ring_payload(4)
    >>> p["exchanges"], p["traffic_factor"]
    (6, 1.5)
    """
    steps = exchanges(gpus)
    return {
        "gpus": gpus,
        "exchanges": len(steps),
        "reduce_scatter_exchanges": sum(1 for e in steps if e.stage == "reduce-scatter"),
        "all_gather_exchanges": sum(1 for e in steps if e.stage == "all-gather"),
        "traffic_factor": traffic_factor(gpus),
        "transfers": [[asdict(t) for t in e.transfers] for e in steps],
    }


def ring_text(p: dict) -> str:
    """`ring`: one line per exchange, with its transfers.

    >>> print(ring_text(ring_payload(4)).splitlines()[0])
    ring AllReduce over 4 GPUs: 6 exchanges (3 reduce-scatter + 3 all-gather), each GPU sends 1.500 x the gradient size
    """
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


def cluster_table(rows: list[dict]) -> str:
    """`cluster`, and the sizes beyond a fitted run: one row per cluster size.

    >>> from dataclasses import asdict
    >>> from ddpcore.model import ClusterConfig, cluster_sweep
    >>> rows = [asdict(r) for r in cluster_sweep(ClusterConfig(), [8, 1000])]
    >>> print(cluster_table(rows).splitlines()[1])
            8       44.77     44.73     45.63      0.983      0.0008             3.3
    """
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
