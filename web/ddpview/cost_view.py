"""The cost panel: step time against the ideal, and the two utilization gauges that disagree."""

from __future__ import annotations

import math

from ddpcore.metrics import StepMetrics

from . import i18n
from .svg import num, output, tag, text


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
        tag(
            "svg",
            {
                "viewBox": "0 0 220 128",
                "role": "img",
                "aria-label": f"{title}: {i18n.percent(ratio, lang)}",
                "xmlns": "http://www.w3.org/2000/svg",
            },
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


def cost_html(m: StepMetrics, lang: str) -> str:
    rows = [
        ("cost.step", output("step-time", m.step_ms, i18n.ms(m.step_ms, lang)), "big"),
        ("cost.ideal", output("ideal-step-time", m.ideal_step_ms, i18n.ms(m.ideal_step_ms, lang)), ""),
        ("cost.efficiency", output("efficiency", m.efficiency, i18n.percent(m.efficiency, lang)), ""),
        (
            "cost.straggler",
            output("straggler-cost", m.straggler_cost_ms, i18n.ms(m.straggler_cost_ms, lang)),
            "bad" if m.straggler_cost_ms > 0 else "",
        ),
        ("cost.prefetch", output("prefetch-gain", m.prefetch_gain_ms, i18n.ms(m.prefetch_gain_ms, lang)), ""),
        ("cost.wait", output("wait-total", m.wait_ms_total, i18n.ms(m.wait_ms_total, lang)), ""),
    ]
    gauges = tag(
        "div",
        {"class": "gauges"},
        gauge_svg(
            "displayed-util",
            m.displayed_util,
            i18n.t("cost.displayed", lang),
            i18n.t("cost.displayed_sub", lang),
            "displayed",
            lang,
        ),
        gauge_svg(
            "useful-compute",
            m.useful_compute,
            i18n.t("cost.useful", lang),
            i18n.t("cost.useful_sub", lang),
            "useful",
            lang,
        ),
    )
    key = "cost.lesson" if m.straggler_cost_ms > 0 else "cost.lesson_none"
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
