"""The cost panel: step time against the ideal, and the two utilization gauges that disagree."""

from __future__ import annotations

import math

from ddpcore.model import StepMetrics

from .. import i18n
from ..markup import num, output, svg_figure, tag, text

__all__ = ["cost_html", "cost_row", "gauge_pair", "metrics_dl", "modes_html", "ms_row", "percent_row"]


def ms_row(key: str, testid: str, value: float, lang: str, cls: str = "") -> tuple[str, str, str]:
    """A metrics_dl row showing milliseconds (the raw value in data-value)."""
    return key, output(testid, value, i18n.ms(value, lang)), cls


def cost_row(key: str, testid: str, value: float, lang: str) -> tuple[str, str, str]:
    """A cost in milliseconds, marked when there is one."""
    return ms_row(key, testid, value, lang, "bad" if value > 0 else "")


def percent_row(key: str, testid: str, value: float, lang: str, cls: str = "") -> tuple[str, str, str]:
    """A metrics_dl row showing a 0..1 ratio as a percentage."""
    return key, output(testid, value, i18n.percent(value, lang)), cls


def metrics_dl(rows: list[tuple[str, str, str]], lang: str) -> str:
    """Label key, value markup and an extra class per metric, as the definition list every panel uses."""
    return tag(
        "dl",
        {"class": "metrics"},
        *(
            tag("div", {"class": f"metric {cls}".strip()}, text("dt", None, i18n.t(key, lang)), tag("dd", None, body))
            for key, body, cls in rows
        ),
    )


def gauge_svg(testid: str, ratio: float, title: str, subtitle: str, kind: str, lang: str) -> str:
    """A half-circle gauge from 0 to 100 %; the number is also written out, so color is never the only cue."""
    ratio = min(max(ratio, 0.0), 1.0) if math.isfinite(ratio) else 0.0
    cx, cy, r = 110, 110, 86
    angle = math.pi * (1 - ratio)
    x, y = cx + r * math.cos(angle), cy - r * math.sin(angle)
    track = f"M{cx - r},{cy} A{r},{r} 0 0 1 {cx + r},{cy}"
    arc = f"M{cx - r},{cy} A{r},{r} 0 0 1 {num(x)},{num(y)}" if ratio > 0 else ""
    return tag(
        "figure",
        {"class": f"gauge {kind}"},
        svg_figure(
            220,
            128,
            f"{title}: {i18n.percent(ratio, lang)}",
            {},
            tag("path", {"d": track, "class": "gauge-track"}),
            tag("path", {"d": arc, "class": "gauge-arc"}) if arc else "",
            text(
                "text",
                {"x": cx, "y": cy - 8, "text-anchor": "middle", "class": "gauge-number"},
                i18n.percent(ratio, lang),
            ),
        ),
        tag(
            "figcaption",
            None,
            text("span", {"class": "gauge-title"}, title),
            text("span", {"class": "gauge-sub"}, subtitle),
            output(testid, ratio, i18n.percent(ratio, lang)),
        ),
    )


def gauge_pair(displayed: tuple[str, float, str], useful: tuple[str, float, str], lang: str) -> str:
    """What the utilization counter shows beside what the GPU really did: (testid, ratio, text key) each; the
    subtitle is the text key + `_sub`."""
    return tag(
        "div",
        {"class": "gauges"},
        *(
            gauge_svg(testid, ratio, i18n.t(key, lang), i18n.t(f"{key}_sub", lang), kind, lang)
            for (testid, ratio, key), kind in ((displayed, "displayed"), (useful, "useful"))
        ),
    )


def cost_html(m: StepMetrics, lang: str, lost_in: str | None = "compute") -> str:
    """The cost panel: step, ideal, efficiency, straggler cost, prefetch gain, wait, the two gauges, and the
    prefetch lesson for where the straggler loses its time (`lost_in`; None: nobody slowed)."""
    rows = [
        ms_row("cost.step", "step-time", m.step_ms, lang, "big"),
        ms_row("cost.ideal", "ideal-step-time", m.ideal_step_ms, lang),
        percent_row("cost.efficiency", "efficiency", m.efficiency, lang),
        cost_row("cost.straggler", "straggler-cost", m.straggler_cost_ms, lang),
        ms_row("cost.prefetch", "prefetch-gain", m.prefetch_gain_ms, lang),
        ms_row("cost.wait", "wait-total", m.wait_ms_total, lang),
    ]
    gauges = gauge_pair(
        ("displayed-util", m.displayed_util, "cost.displayed"),
        ("useful-compute", m.useful_compute, "cost.useful"),
        lang,
    )
    key = "cost.lesson_none" if lost_in is None else f"cost.lesson_{lost_in}"
    lesson = text(
        "p",
        {"class": "lesson", "data-testid": "lesson"},
        i18n.t(key, lang, gain=i18n.number(m.prefetch_gain_ms, lang), cost=i18n.number(m.straggler_cost_ms, lang)),
    )
    return metrics_dl(rows, lang) + gauges + lesson


def modes_html(both: dict[str, StepMetrics], lang: str) -> str:
    """Sequential and overlap side by side for the same inputs: overlap hides communication, not the straggler."""
    seq, ovl = both["sequential"], both["overlap"]
    rows = [
        ("modes.step", "step-time", seq.step_ms, ovl.step_ms),
        ("modes.exposed", "exposed-comm", seq.exposed_comm_ms, ovl.exposed_comm_ms),
        ("modes.straggler", "straggler-cost", seq.straggler_cost_ms, ovl.straggler_cost_ms),
    ]
    body = "".join(
        tag(
            "tr",
            None,
            text("th", {"scope": "row"}, i18n.t(key, lang)),
            tag("td", None, output(f"sequential-{testid}", a, i18n.ms(a, lang))),
            tag("td", None, output(f"overlap-{testid}", b, i18n.ms(b, lang))),
        )
        for key, testid, a, b in rows
    )
    head = tag(
        "tr",
        None,
        tag("th", None),
        text("th", {"scope": "col"}, i18n.t("modes.sequential", lang)),
        text("th", {"scope": "col"}, i18n.t("modes.overlap", lang)),
    )
    bw = text(
        "p",
        {"class": "bandwidth"},
        i18n.t("modes.bw", lang, algbw=i18n.number(ovl.algbw_gbps, lang), busbw=i18n.number(ovl.busbw_gbps, lang)),
    )
    return (
        tag("table", {"class": "modes", "data-testid": "modes"}, tag("thead", None, head), tag("tbody", None, body))
        + bw
    )
