"""The "Your traces" view: measured steps drawn like the model, the straggler named, and what to alert on."""

from __future__ import annotations

from ddpcore.alerts import alert_rule, exposition
from ddpcore.analysis import DRAW_PHASES, Analysis
from ddpcore.traces import FileError

from . import i18n
from .cost_view import metrics_dl
from .svg import output, tag, text
from .timeline_view import trace_timeline_svg



def errors_html(errors: tuple[FileError, ...], lang: str) -> str:
    return "".join(
        tag("li", {"data-testid": "trace-error"}, text("strong", None, e.source), " ", text("span", None, e.message))
        for e in errors
    )


def step_options(analysis: Analysis, index: int, lang: str) -> str:
    return "".join(
        text("option", {"value": i, "selected": i == index},
             i18n.t("traces.step_option", lang, n=s.step, r=s.slowest_rank, gap=i18n.percent(s.gap, lang)))
        for i, s in enumerate(analysis.steps)
    )


def summary_html(a: Analysis, lang: str) -> str:
    who = (i18n.t("traces.straggler_is", lang, r=a.straggler_rank) if a.straggler_rank is not None
           else i18n.t("traces.no_straggler", lang))
    headline = tag("p", {"class": "verdict"},
                   text("output", {"data-testid": "trace-straggler",
                                   "data-value": -1 if a.straggler_rank is None else a.straggler_rank}, who))
    metrics = metrics_dl([
        ("traces.gap", output("trace-gap", a.median_gap, i18n.percent(a.median_gap, lang)), ""),
        ("cost.step", output("trace-step-time", a.step_ms, i18n.ms(a.step_ms, lang)), ""),
        ("traces.ideal", output("trace-ideal-step-time", a.ideal_step_ms, i18n.ms(a.ideal_step_ms, lang)), ""),
        ("cost.straggler", output("trace-straggler-cost", a.straggler_cost_ms, i18n.ms(a.straggler_cost_ms, lang)), ""),
        ("cost.efficiency", output("trace-efficiency", a.efficiency, i18n.percent(a.efficiency, lang)), ""),
        ("cost.wait", output("trace-wait-total", a.wait_ms_total, i18n.ms(a.wait_ms_total, lang)), ""),
    ], lang)
    warnings = "".join(text("li", {"data-testid": "trace-warning"}, w) for w in a.warnings)
    return headline + metrics + (tag("ul", {"class": "warnings"}, warnings) if warnings else "")


def ranks_table(a: Analysis, lang: str) -> str:
    head = tag("tr", None, *(text("th", {"scope": "col"}, h) for h in (
        i18n.t("traces.col_rank", lang), i18n.t("traces.col_step", lang), i18n.t("traces.col_arrival", lang),
        i18n.t("traces.col_wait", lang), i18n.t("traces.col_slowest", lang),
        *(i18n.t(f"phase.{p}", lang) for p in DRAW_PHASES), i18n.t("traces.col_file", lang))))
    body = []
    for r in a.ranks:
        cells = [
            text("th", {"scope": "row"}, r.rank),
            text("td", None, i18n.ms(r.median_step_ms, lang)),
            text("td", None, i18n.ms(r.median_arrival_ms, lang)),
            text("td", None, i18n.ms(r.median_wait_ms, lang)),
            text("td", None, f"{r.slowest_count}/{len(a.steps)}"),
            *(text("td", None, i18n.ms(r.median_phases_ms[p], lang)) for p in DRAW_PHASES),
            text("td", {"class": "source"}, r.source),
        ]
        body.append(tag("tr", {"class": "straggler" if r.rank == a.straggler_rank else None,
                               "data-testid": "trace-rank"}, *cells))
    return tag("table", {"class": "ranks"}, tag("thead", None, head), tag("tbody", None, *body))


def traces_regions(analysis: Analysis | None, errors: tuple[FileError, ...], step_index: int, threshold: float,
                   lang: str) -> dict[str, str]:
    out = {"trace-errors": errors_html(errors, lang)}
    if analysis is None:
        out.update({"trace-summary": "", "trace-step": "", "trace-timeline-view": "", "trace-ranks": "",
                    "alert-rule": "", "exposition": ""})
        return out
    index = min(max(step_index, 0), len(analysis.steps) - 1)
    out.update({
        "trace-summary": summary_html(analysis, lang),
        "trace-step": step_options(analysis, index, lang),
        "trace-timeline-view": trace_timeline_svg(analysis.steps[index], analysis.straggler_rank, lang),
        "trace-ranks": ranks_table(analysis, lang),
        "alert-rule": text("code", None, alert_rule(threshold)),
        "exposition": text("code", None, exposition(analysis)),
    })
    return out
