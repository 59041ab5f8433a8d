"""What to hand to production: the per-rank metrics in Prometheus exposition format, and an alert on the gap."""

from __future__ import annotations

from .analysis import DEFAULT_THRESHOLD, MAX_THRESHOLD, Analysis
from .params import check_number

STEP_METRIC = "ddp_step_seconds"
ARRIVAL_METRIC = "ddp_step_arrival_seconds"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def alert_threshold(value: float) -> float:
    """A gap as a share of the step: above 0, at most MAX_THRESHOLD."""
    return check_number("threshold", value, 0.0, MAX_THRESHOLD, low_open=True)


def alert_rule(threshold: float = DEFAULT_THRESHOLD, job: str = "ddp", duration: str = "5m") -> str:
    """Alert per rank when its arrival at the collective trails the median rank's by more than `threshold` of a step.

    On arrival, not step time: the barrier makes every rank's step equally long, so step time shows that the
    job slowed but never which rank slowed it. The median here includes the rank itself (PromQL cannot leave it
    out); with more than a few ranks that changes nothing."""
    threshold = alert_threshold(threshold)
    sel = f'{{job="{_label(job)}"}}'
    return "\n".join(
        [
            "groups:",
            "  - name: ddp-stragglers",
            "    rules:",
            "      - alert: DDPStragglerGap",
            "        expr: |",
            f"          ({ARRIVAL_METRIC}{sel}",
            f"            - on (job) group_left quantile by (job) (0.5, {ARRIVAL_METRIC}{sel}))",
            f"            / on (job) group_left quantile by (job) (0.5, {STEP_METRIC}{sel})",
            f"            > {threshold:g}",
            f"        for: {duration}",
            "        labels:",
            "          severity: warning",
            "        annotations:",
            f'          summary: "Rank {{{{ $labels.rank }}}} reaches the gradient collective '
            f"{{{{ $value | humanizePercentage }}}} "
            f'of a step later than the median rank (threshold {threshold:.0%})"',
            '          description: "Every other rank waits for it at the barrier: the whole job runs at its pace."',
            "",
        ]
    )


def exposition(analysis: Analysis, job: str = "ddp") -> str:
    """Per-rank medians from the traces, as a Prometheus scrape would see them."""
    lines = [
        f"# HELP {STEP_METRIC} Wall time of a training step on this rank (median over the traced steps).",
        f"# TYPE {STEP_METRIC} gauge",
    ]
    lines += [
        f'{STEP_METRIC}{{job="{_label(job)}",rank="{r.rank}"}} {r.median_step_ms / 1000:.6f}' for r in analysis.ranks
    ]
    lines += [
        f"# HELP {ARRIVAL_METRIC} Time from the step's start to this rank's first collective (median).",
        f"# TYPE {ARRIVAL_METRIC} gauge",
    ]
    lines += [
        f'{ARRIVAL_METRIC}{{job="{_label(job)}",rank="{r.rank}"}} {r.median_arrival_ms / 1000:.6f}'
        for r in analysis.ranks
    ]
    return "\n".join(lines) + "\n"
