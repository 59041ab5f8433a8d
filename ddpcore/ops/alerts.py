"""What to hand to production: the metric names, a Prometheus rules file, a Grafana dashboard, and a scrape's view of
the traces.

The rules follow the analysis (docs/traces.md), in PromQL, from two per-rank gauges the exporter sets after every
step (`ddpcore.exporter`): the step's duration and the rank's wait at the gradient barrier (from its last bucket
ready to the release, on its own clock).

- `ddp:rank_gap:ratio`, per rank: (the median rank's wait − its own wait) ÷ the median step. On the wait, not step
  time: the barrier makes every rank's step equally long, so step time shows that the job slowed, never which rank
  did; and not on the time from the rank's own step start, which misses time lost between steps (logging,
  checkpoints, a pause) and late in the backward. (PromQL's median includes the rank itself; with more than a few
  ranks that changes nothing.)
- `DDPPersistentStraggler` fires for a rank whose *median* gap over the window is above the threshold (late in more
  than half of the samples, the analysis' persistent rule) **and** whose share of samples over the threshold passes
  chance: the median rank's share (`ddp:chance_over:share`, how often a rank on time is over it; stragglers are a
  minority) plus z standard errors of a binomial share over the window's samples, z the normal quantile of
  chance.ALPHA over the job's ranks (`ddp:chance_over:z`, counted live: z = √(2L − ln 2L − ln 2π), L = ln(N / α),
  within 0.02 of the exact quantile). A transient straggler, late now and then, never holds the median up; jitter
  that puts every rank over the threshold half the time does, but not past chance.
- `ddp:straggler_step:bool` is 1 when some rank's gap is above the threshold, and `ddp:straggler_steps:share` its
  mean over the window: the share of samples (of steps, when scrapes are slower than steps) with a straggler.
"""

from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from ..analysis.odds import ALPHA
from ..base import THRESHOLD

if TYPE_CHECKING:
    from ..analysis import Analysis

__all__ = [
    "ALERT",
    "CHANCE_RECORD",
    "DASHBOARD_PANELS",
    "DEFAULT_JOB",
    "GAP_RECORD",
    "PHASE_METRIC",
    "RuleTiming",
    "SHARE_RECORD",
    "STEPS_METRIC",
    "STEP_METRIC",
    "WAIT_HELP",
    "WAIT_METRIC",
    "dashboard",
    "exposition",
    "rules_file",
    "scrape_config",
]

STEP_METRIC = "ddp_step_seconds"
WAIT_METRIC = "ddp_barrier_wait_seconds"
WAIT_HELP = "Time this rank waited at the step's gradient barrier, from its last bucket ready to the release"
PHASE_METRIC = "ddp_phase_seconds"
STEPS_METRIC = "ddp_steps_total"
GAP_RECORD = "ddp:rank_gap:ratio"
STRAGGLER_STEP_RECORD = "ddp:straggler_step:bool"
SHARE_RECORD = "ddp:straggler_steps:share"
OVER_RECORD = "ddp:rank_over:bool"
OVER_SHARE_RECORD = "ddp:rank_over:share"
CHANCE_RECORD = "ddp:chance_over:share"
Z_RECORD = "ddp:chance_over:z"
MARGIN_RECORD = "ddp:rank_over:margin"
ALERT = "DDPPersistentStraggler"
DEFAULT_JOB = "ddp"


@dataclass(frozen=True)
class RuleTiming:
    """How long the rules look: `window` for a rank's median gap and the share of straggler steps, `duration` for
    how long the median must stay above the threshold before the alert fires."""

    window: str = "5m"
    duration: str = "5m"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def alert_threshold(value: float) -> float:
    """A gap as a share of the step, as THRESHOLD allows it.

    >>> alert_threshold(0.1), alert_threshold(0.25)
    (0.1, 0.25)
    """
    return THRESHOLD.check(value)


def gap_expr(job: str = DEFAULT_JOB) -> str:
    """Per rank: (the median rank's wait at the barrier − its own) ÷ the median step, as a share of the step.

    >>> gap_expr("train").split(" - ")[0]
    '(quantile by (job) (0.5, ddp_barrier_wait_seconds{job="train"})'
    """
    sel = f'{{job="{_label(job)}"}}'
    return (
        f"(quantile by (job) (0.5, {WAIT_METRIC}{sel}) - on (job) group_right {WAIT_METRIC}{sel})"
        f" / on (job) group_left quantile by (job) (0.5, {STEP_METRIC}{sel})"
    )


def _rule(record: str, expr: str) -> list[str]:
    return [f"      - record: {record}", "        expr: |", f"          {expr}"]


def rules_file(threshold: float = THRESHOLD.default, job: str = DEFAULT_JOB, timing: RuleTiming = RuleTiming()) -> str:
    """The rules file: the gap, the straggler steps and their share recorded, each rank's share of samples over the
    threshold against chance, and the persistent-straggler alert.

    >>> rules = rules_file(0.1, job="train")
    >>> [line.strip() for line in rules.splitlines() if "alert:" in line]
    ['- alert: DDPPersistentStraggler']
    """
    threshold = alert_threshold(threshold)
    sel = f'{{job="{_label(job)}"}}'
    w = timing.window
    log_n = f"ln(count by (job) ({OVER_SHARE_RECORD}{sel}) / {ALPHA:g})"
    return "\n".join(
        [
            "groups:",
            "  - name: ddp-stragglers",
            "    rules:",
            *_rule(GAP_RECORD, gap_expr(job)),
            *_rule(STRAGGLER_STEP_RECORD, f"max by (job) ({GAP_RECORD}{sel}) > bool {threshold:g}"),
            *_rule(SHARE_RECORD, f"avg_over_time({STRAGGLER_STEP_RECORD}{sel}[{w}])"),
            *_rule(OVER_RECORD, f"{GAP_RECORD}{sel} > bool {threshold:g}"),
            *_rule(OVER_SHARE_RECORD, f"avg_over_time({OVER_RECORD}{sel}[{w}])"),
            *_rule(CHANCE_RECORD, f"quantile by (job) (0.5, {OVER_SHARE_RECORD}{sel})"),
            *_rule(Z_RECORD, f"sqrt(2 * {log_n} - ln(2 * {log_n}) - {math.log(2 * math.pi):.6f})"),
            *_rule(
                MARGIN_RECORD,
                f"({Z_RECORD}{sel} * sqrt({CHANCE_RECORD}{sel} * (1 - {CHANCE_RECORD}{sel}))) / on (job) group_right "
                f"sqrt(count_over_time({OVER_RECORD}{sel}[{w}]))",
            ),
            f"      - alert: {ALERT}",
            "        expr: |",
            f"          quantile_over_time(0.5, {GAP_RECORD}{sel}[{w}]) > {threshold:g}",
            "          and on (job, rank)",
            f"          ({OVER_SHARE_RECORD}{sel} - on (job) group_left {CHANCE_RECORD}{sel}"
            f" > on (job, rank) {MARGIN_RECORD}{sel})",
            f"        for: {timing.duration}",
            "        labels:",
            "          severity: warning",
            "        annotations:",
            f'          summary: "Rank {{{{ $labels.rank }}}} is ready at the gradient barrier '
            f"{{{{ $value | humanizePercentage }}}} "
            f'of a step after the median rank (median over {w}, threshold {threshold:.0%})"',
            '          description: "Every other rank waits for it at the barrier: the whole job runs at its pace."',
            "",
        ]
    )


DASHBOARD_PANELS = (
    ("Wait at the gradient barrier, per rank", f'{WAIT_METRIC}{{job="$job"}}', "s"),
    ("Gap: ready after the median rank, as a share of the step", f'{GAP_RECORD}{{job="$job"}}', "percentunit"),
    ("Share of steps with a straggler", f'{SHARE_RECORD}{{job="$job"}}', "percentunit"),
    ("Step time, per rank", f'{STEP_METRIC}{{job="$job"}}', "s"),
)
"""Title, PromQL (with Grafana's `$job`) and unit of each panel."""


def dashboard(job: str = DEFAULT_JOB) -> str:
    """A Grafana dashboard (JSON) of the metrics and records the rules use, one panel each.

    >>> import json
    >>> board = json.loads(dashboard("train"))
    >>> board["title"], len(board["panels"])
    ('DDP stragglers', 4)
    """
    panels = [
        {
            "id": i + 1,
            "type": "timeseries",
            "title": title,
            "datasource": {"type": "prometheus", "uid": "${datasource}"},
            "gridPos": {"x": 12 * (i % 2), "y": 8 * (i // 2), "w": 12, "h": 8},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "targets": [
                {"refId": "A", "expr": expr, "legendFormat": "rank {{rank}}" if "rank" in title else "{{job}}"}
            ],
        }
        for i, (title, expr, unit) in enumerate(DASHBOARD_PANELS)
    ]
    board = {
        "title": "DDP stragglers",
        "uid": "ddp-stragglers",
        "schemaVersion": 39,
        "time": {"from": "now-30m", "to": "now"},
        "refresh": "10s",
        "templating": {
            "list": [
                {"name": "datasource", "type": "datasource", "query": "prometheus"},
                {
                    "name": "job",
                    "type": "custom",
                    "query": job,
                    "current": {"text": job, "value": job},
                    "options": [{"text": job, "value": job, "selected": True}],
                },
            ]
        },
        "panels": panels,
    }
    return json.dumps(board, indent=2) + "\n"


def scrape_config(targets: list[str], job: str = DEFAULT_JOB, interval: str = "15s") -> str:
    """A Prometheus scrape job for the exporters; `honor_labels` keeps their own `job` and `rank` labels.

    >>> scrape_config(["10.0.0.1:9400"], job="train").splitlines()[1:3]
    ['  - job_name: train', '    scrape_interval: 15s']
    """
    listed = ", ".join(f'"{t}"' for t in targets)
    return "\n".join(
        [
            "scrape_configs:",
            f"  - job_name: {job}",
            f"    scrape_interval: {interval}",
            "    honor_labels: true",
            "    static_configs:",
            f"      - targets: [{listed}]",
            "",
        ]
    )


def exposition(analysis: Analysis, job: str = DEFAULT_JOB, most: int | None = None) -> str:
    """Per-rank medians from the traces, as a Prometheus scrape would see them; with `most`, only that many ranks
    (the latest, those that waited least, in rank order) and a comment saying how many are left out.

    >>> from ddpcore.traces import simulated_run
    >>> from ddpcore.analysis import analyze
    >>> ranks = simulated_run(8, 30, persistent=(3,), seed=1)[0]
    >>> text = exposition(analyze(ranks), job="train")
    >>> [line for line in text.splitlines() if line.startswith("ddp_barrier_wait_seconds")][3]
    'ddp_barrier_wait_seconds{job="train",rank="3"} 0.005000'
    """
    ranks = analysis.ranks
    if most is not None and len(ranks) > most:
        latest = heapq.nsmallest(most, ranks, key=attrgetter("median_wait_ms", "rank"))  # thousands of ranks: C keys
        ranks = tuple(sorted(latest, key=attrgetter("rank")))
    lines = [
        f"# HELP {STEP_METRIC} Wall time of a training step on this rank (median over the traced steps).",
        f"# TYPE {STEP_METRIC} gauge",
    ]
    lines += [f'{STEP_METRIC}{{job="{_label(job)}",rank="{r.rank}"}} {r.median_step_ms / 1000:.6f}' for r in ranks]
    lines += [
        f"# HELP {WAIT_METRIC} {WAIT_HELP} (median).",
        f"# TYPE {WAIT_METRIC} gauge",
    ]
    lines += [f'{WAIT_METRIC}{{job="{_label(job)}",rank="{r.rank}"}} {r.median_wait_ms / 1000:.6f}' for r in ranks]
    if len(ranks) < len(analysis.ranks):
        lines.append(f"# ... {len(analysis.ranks) - len(ranks)} more ranks, left out here")
    return "\n".join(lines) + "\n"
