"""The cluster view: efficiency and expected step time against N on a log axis, from 8 to 1,000,000 GPUs."""

from __future__ import annotations

import math

from ddpcore.model import ClusterResult
from ddpcore.model.cluster import SWEEP_MAX, SWEEP_MIN

from .. import i18n
from ..markup import esc, num, output, svg_figure, tag, text
from ..state import ViewState, encode, without_timing
from .cost import metrics_dl, ms_row, percent_row

__all__ = ["cluster_plot_svg", "cluster_values_html", "timing_note"]

WIDTH, HEIGHT = 900, 400
LEFT, RIGHT, TOP, BOTTOM = 66, 78, 44, 52


def _x(n: float, low: float = SWEEP_MIN) -> float:
    """Where N lies on the log axis from `low` (the sweep's start, or a smaller N shown) to the sweep's end."""
    lo, hi = math.log10(low), math.log10(SWEEP_MAX)
    return LEFT + (WIDTH - LEFT - RIGHT) * (math.log10(min(max(n, low), SWEEP_MAX)) - lo) / (hi - lo)


def _y_ratio(r: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - min(max(r, 0.0), 1.0))


def _decades(values: list[float]) -> tuple[int, int]:
    finite = [v for v in values if math.isfinite(v) and v > 0]
    lo = math.floor(math.log10(min(finite)))
    hi = math.ceil(math.log10(max(finite)))
    return lo, max(hi, lo + 1)


def _polyline(points: list[tuple[float, float]], cls: str) -> str:
    return tag("polyline", {"points": " ".join(f"{num(x)},{num(y)}" for x, y in points), "class": cls})


def _short_n(n: float, lang: str) -> str:
    if n >= 1e6:
        return f"{i18n.number(n / 1e6, lang, 1)}M"
    if n >= 1e3:
        return f"{i18n.number(n / 1e3, lang, 1)}k"
    return i18n.number(n, lang, 0)


def cluster_plot_svg(sweeps: dict[str, list[ClusterResult]], current: ClusterResult, algorithm: str, lang: str) -> str:
    """Expected step time against cluster size, one curve per AllReduce algorithm, the current N marked."""
    steps = [r.expected_step_ms for rs in sweeps.values() for r in rs] + [current.expected_step_ms]
    d_lo, d_hi = _decades(steps)

    def y_ms(ms: float) -> float:
        f = (math.log10(ms) - d_lo) / (d_hi - d_lo)
        return TOP + (HEIGHT - TOP - BOTTOM) * (1 - f)

    bottom, right = HEIGHT - BOTTOM, WIDTH - RIGHT
    low = min(SWEEP_MIN, current.gpus)

    def x_of(n: float) -> float:
        return _x(n, low)

    grid = []
    for exponent in range(1 if low < 10 else 2, 7):
        n = 10**exponent
        x = x_of(n)
        grid.append(tag("line", {"x1": x, "y1": TOP, "x2": x, "y2": bottom, "class": "grid"}))
        grid.append(
            text("text", {"x": x, "y": bottom + 18, "text-anchor": "middle", "class": "tick"}, _short_n(n, lang))
        )
    grid.append(
        text("text", {"x": x_of(low), "y": bottom + 18, "text-anchor": "middle", "class": "tick"}, _short_n(low, lang))
    )
    for pct in (0, 25, 50, 75, 100):
        y = _y_ratio(pct / 100)
        grid.append(tag("line", {"x1": LEFT, "y1": y, "x2": right, "y2": y, "class": "grid"}))
        grid.append(
            text(
                "text",
                {"x": LEFT - 8, "y": y + 4, "text-anchor": "end", "class": "tick eff-tick"},
                i18n.percent(pct / 100, lang),
            )
        )
    for exponent in range(d_lo, d_hi + 1):
        y = y_ms(10**exponent)
        grid.append(text("text", {"x": right + 8, "y": y + 4, "class": "tick step-tick"}, i18n.ms(10**exponent, lang)))
    grid.append(
        text(
            "text",
            {"x": (LEFT + right) / 2, "y": HEIGHT - 12, "text-anchor": "middle", "class": "axis-title"},
            i18n.t("cluster.axis_n", lang),
        )
    )
    lines = []
    for alg, results in sweeps.items():
        cls = f"series step {alg}" + ("" if alg == algorithm else " other")
        lines.append(_polyline([(x_of(r.gpus), y_ms(r.expected_step_ms)) for r in results], cls))
    eff = sweeps[algorithm]
    lines.append(_polyline([(x_of(r.gpus), _y_ratio(r.efficiency)) for r in eff], "series efficiency"))
    cx = x_of(current.gpus)
    marker = tag(
        "g",
        {"class": "current", "data-testid": "cluster-marker", "data-value": current.gpus},
        tag("line", {"x1": cx, "y1": TOP - 6, "x2": cx, "y2": bottom, "class": "current-line"}),
        tag("circle", {"cx": cx, "cy": _y_ratio(current.efficiency), "r": 5, "class": "dot efficiency"}),
        tag("circle", {"cx": cx, "cy": y_ms(current.expected_step_ms), "r": 5, "class": f"dot {algorithm}"}),
        text(
            "text",
            {"x": min(max(cx, LEFT + 30), right - 30), "y": TOP - 10, "text-anchor": "middle", "class": "mark-label"},
            f"N = {i18n.number(current.gpus, lang, 0)}",
        ),
    )
    legend_items = [
        ("efficiency", i18n.t("cluster.legend_eff", lang)),
        ("ring", i18n.t("cluster.legend_ring", lang)),
        ("tree", i18n.t("cluster.legend_tree", lang)),
    ]
    legend: list[str] = []
    lx = float(LEFT)
    for cls, label in legend_items:
        legend.append(tag("line", {"x1": lx, "y1": 16, "x2": lx + 22, "y2": 16, "class": f"series {cls}"}))
        legend.append(text("text", {"x": lx + 28, "y": 20, "class": "legend-text"}, label))
        lx += 40 + 7.0 * len(label)
    return svg_figure(
        WIDTH,
        HEIGHT,
        i18n.t("cluster.plot_desc", lang),
        {"data-testid": "cluster-plot"},
        tag("g", {"class": "legend"}, *legend),
        tag("g", {"class": "grid-group"}, *grid),
        tag("rect", {"x": LEFT, "y": TOP, "width": right - LEFT, "height": bottom - TOP, "class": "frame"}),
        *lines,
        marker,
    )


def cluster_values_html(r: ClusterResult, lang: str) -> str:
    """The Cluster view's figures for the current N: step, ideal, p50/p99, efficiency, GPU-hours lost."""
    rows = [
        ms_row("cluster.step", "cluster-step-time", r.expected_step_ms, lang, "big"),
        ms_row("cluster.ideal", "cluster-ideal-step-time", r.ideal_step_ms, lang),
        ms_row("cluster.p50", "cluster-p50", r.p50_step_ms, lang),
        ms_row("cluster.p99", "cluster-p99", r.p99_step_ms, lang),
        percent_row("cluster.efficiency", "cluster-efficiency", r.efficiency, lang),
        percent_row("cluster.p_any", "cluster-p-any", r.p_any_straggler, lang),
        (
            "cluster.hours",
            output("cluster-hours-lost", r.gpu_hours_lost_per_day, i18n.number(r.gpu_hours_lost_per_day, lang, 0)),
            "bad" if r.efficiency < 0.9 else "",
        ),
    ]
    if r.allreduce_ms is not None:
        rows.append(ms_row("cluster.allreduce", "cluster-allreduce", r.allreduce_ms, lang))
    return metrics_dl(rows, lang)


def timing_note(state: ViewState, lang: str) -> str:
    """When the view runs on a measured run's timing (Your traces' fit): say so, with a link back to the model's
    own phases."""
    timing = state.cluster.timing
    if timing is None:
        return ""
    text = i18n.t(
        "cluster.timing_note", lang, compute=i18n.ms(timing.compute_ms, lang), other=i18n.ms(timing.other_ms, lang)
    )
    back = tag(
        "a",
        {"href": encode(without_timing(state)), "data-testid": "cluster-timing-off"},
        esc(i18n.t("cluster.timing_off", lang)),
    )
    return tag("p", {"class": "note", "data-testid": "cluster-timing"}, esc(text), " ", back)
