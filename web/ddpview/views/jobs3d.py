"""A 3D-parallel job in Your traces: the diagnosis in words, the slowdown S, a DP rank × stage heatmap of what each
worker costs alone (the paper's figure 14), and S by stage, DP rank and operation type (docs/jobs3d.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ddpcore.analysis.jobwhatif import job_verdict

from .. import i18n
from ..markup import AttrValue, esc, output, svg_figure, tag, text

if TYPE_CHECKING:
    from ddpcore.analysis import JobWhatIf
    from ddpcore.analysis.jobwhatif import JobStepDrawing
    from ddpcore.base.words import Message

__all__ = ["HEAT_ROWS", "job_heatmap", "job_html", "job_step_html", "job_step_svg"]

HEAT_ROWS = 64
"""The most DP ranks the heatmap draws a row for (the worst ones, by what they cost alone); the table lists all."""
CELL_W, CELL_H, LABEL_W, TOP = 76.0, 26.0, 72.0, 24.0
LISTED = 8
"""The most entries each split's table lists (the largest first)."""


def _ratio(value: float, lang: str) -> str:
    """A slowdown as the page writes it: 1.97×, 1,97×."""
    shown = f"{value:.2f}×"
    return shown.replace(".", ",") if lang == "fr" else shown


def _fixed(value: float, lang: str) -> str:
    """A share such as M_W to two decimals, as the language writes it (0 as 0.00, never -0.00)."""
    shown = f"{value + 0.0:.2f}".replace("-0.00", "0.00")
    return shown.replace(".", ",") if lang == "fr" else shown


def _heat(value: float, top: float) -> str:
    """A cell's colour: white at no slowdown, red at the job's largest."""
    share = 0.0 if top <= 1.0 or not math.isfinite(value) else min(1.0, max(0.0, (value - 1.0) / (top - 1.0)))
    fade = round(255 * (1.0 - 0.8 * share))
    return f"rgb(255,{fade},{fade})"


def job_heatmap(w: JobWhatIf, lang: str) -> str:
    """The DP rank × stage heatmap of each worker's slowdown alone (the smaller of its DP rank's and its stage's),
    up to HEAT_ROWS DP ranks, each cell titled with its figure."""
    stages = w.groups.pp
    ranks = sorted({d for d, _ in w.by_worker}, key=lambda d: -w.by_dp.get(d, 1.0))[:HEAT_ROWS]
    ranks.sort()
    values = [v for v in w.by_worker.values() if math.isfinite(v)]
    top = max(values, default=1.0)
    width, height = LABEL_W + CELL_W * stages, TOP + CELL_H * len(ranks)
    cells = [
        text(
            "text",
            {"x": LABEL_W + CELL_W * (s + 0.5), "y": TOP - 6, "text-anchor": "middle", "class": "axis"},
            i18n.t("job.stage_n", lang, stage=s),
        )
        for s in range(stages)
    ]
    for row, d in enumerate(ranks):
        y = TOP + CELL_H * row
        cells.append(
            text(
                "text",
                {"x": LABEL_W - 6, "y": y + CELL_H - 5, "text-anchor": "end", "class": "axis"},
                i18n.t("job.dp_n", lang, dp=d),
            )
        )
        for s in range(stages):
            value = w.by_worker.get((d, s), math.nan)
            shown = _ratio(value, lang) if math.isfinite(value) else "—"
            label = i18n.t("job.cell", lang, dp=d, stage=s, value=shown)
            cells.append(
                tag(
                    "g",
                    {
                        "data-testid": "job-cell",
                        "data-dp": d,
                        "data-stage": s,
                        "data-value": value if math.isfinite(value) else None,
                    },
                    tag(
                        "rect",
                        {
                            "x": LABEL_W + CELL_W * s,
                            "y": y,
                            "width": CELL_W - 2,
                            "height": CELL_H - 2,
                            "fill": _heat(value, top),
                        },
                        text("title", None, label),
                    ),
                    text(
                        "text",
                        {"x": LABEL_W + CELL_W * (s + 0.5) - 1, "y": y + CELL_H - 5, "text-anchor": "middle"},
                        shown,
                    ),
                )
            )
    attributes: dict[str, AttrValue] = {
        "data-testid": "job-heatmap",
        "class": "job-heatmap",
        "width": width,
        "height": height,
    }
    figure = svg_figure(width, height, i18n.t("job.heatmap_label", lang), attributes, *cells)
    return tag("figure", None, figure, text("figcaption", {"class": "help"}, i18n.t("job.heatmap_help", lang)))


STEP_W, LANE_H, GAP, STEP_LABEL_W = 680.0, 12.0, 3.0, 120.0
KINDS = (
    ("forward", "#4c78a8", ("forward-compute",)),
    ("backward", "#f58518", ("backward-compute",)),
    ("pp", "#b279a2", ("forward-send", "forward-recv", "backward-send", "backward-recv")),
    (
        "dp",
        "#54a24b",
        (
            "params-all-gather",
            "grads-reduce-scatter",
            "separate-grads-all-reduce",
            "layernorm-grads-all-reduce",
            "embedding-grads-all-reduce",
            "optimizer-clip-main-grad",
        ),
    ),
)
"""How the step's drawing colours operations: forward and backward computes, pipeline sends and receives, the
data-parallel and clip collectives; anything else (the optimizer, gc) grey."""
OTHER = ("other", "#9d9d9d", ())


def _kind(optype: str) -> tuple[str, str, tuple[str, ...]]:
    return next((k for k in KINDS if optype in k[2]), OTHER)


def job_step_svg(d: JobStepDrawing, lang: str) -> str:
    """The job's worst step, as recorded and in the ideal, one lane per drawn worker (DP rank, stage), on one time
    axis: where the recorded step loses its time."""
    stages = 1 + max((op[1] for op in (*d.measured, *d.ideal)), default=0)
    lanes = [(dp, s) for dp in d.dp_ranks for s in range(stages)]
    top = max((op[4] for op in (*d.measured, *d.ideal) if math.isfinite(op[4])), default=1.0) or 1.0
    scale = (STEP_W - STEP_LABEL_W) / top
    block = (LANE_H + GAP) * len(lanes) + 18.0
    parts: list[str] = []
    for b, (name, ops) in enumerate((("job.step_measured", d.measured), ("job.step_ideal", d.ideal))):
        y0 = b * block
        parts.append(text("text", {"x": 0, "y": y0 + 12, "class": "axis"}, i18n.t(name, lang)))
        for row, (dp, s) in enumerate(lanes):
            y = y0 + 18.0 + row * (LANE_H + GAP)
            parts.append(
                text(
                    "text",
                    {"x": STEP_LABEL_W - 6, "y": y + LANE_H - 2, "text-anchor": "end", "class": "axis"},
                    i18n.t("job.lane", lang, dp=dp, stage=s),
                )
            )
            for optype, stage, rank, start, end in ops:
                if (rank, stage) != (dp, s) or not (math.isfinite(start) and math.isfinite(end)):
                    continue
                kind, colour, _ = _kind(optype)
                label = i18n.t(
                    "job.op",
                    lang,
                    op=optype,
                    start=i18n.number(start * 1000, lang, 1),
                    end=i18n.number(end * 1000, lang, 1),
                )
                parts.append(
                    tag(
                        "rect",
                        {
                            "x": STEP_LABEL_W + start * scale,
                            "y": y,
                            "width": max(0.5, (end - start) * scale),
                            "height": LANE_H,
                            "fill": colour,
                            "data-testid": "job-op",
                            "data-kind": kind,
                            "data-block": "measured" if b == 0 else "ideal",
                        },
                        text("title", None, label),
                    )
                )
    height = 2 * block
    legend = tag(
        "p",
        {"class": "help"},
        *(
            tag(
                "span",
                {"class": "job-key"},
                tag(
                    "svg",
                    {"width": 10, "height": 10, "aria-hidden": "true"},
                    tag("rect", {"width": 10, "height": 10, "fill": colour}),
                ),
                " ",
                esc(i18n.t(f"job.kind_{kind}", lang)),
                " ",
            )
            for kind, colour, _ in (*KINDS, OTHER)
        ),
    )
    attributes: dict[str, AttrValue] = {
        "data-testid": "job-step",
        "class": "job-heatmap job-step",
        "width": STEP_W,
        "height": height,
        "data-step": d.step,
    }
    figure = svg_figure(STEP_W, height, i18n.t("job.step_label", lang, step=d.step), attributes, *parts)
    caption = text("figcaption", {"class": "help"}, i18n.t("job.step_help", lang, step=d.step))
    return tag("figure", None, figure, legend, caption)


def _split(testid: str, title: str, by: Mapping[Any, float], name: str, lang: str) -> str:
    """One split of S as a table: the LISTED largest, each with its figure."""
    rows = [
        tag(
            "tr",
            {"data-testid": testid, "data-key": str(k), "data-value": v},
            text("th", {"scope": "row"}, i18n.t(name, lang, label=k)),
            text("td", None, _ratio(v, lang)),
        )
        for k, v in list(by.items())[:LISTED]
        if math.isfinite(v)
    ]
    more = len(by) - len(rows)
    caption = title + (" " + i18n.t("job.more", lang, n=more) if more > 0 else "")
    return tag("table", {"class": "job-split"}, text("caption", None, caption), tag("tbody", None, *rows))


def job_step_html(step: JobStepDrawing | None, lang: str) -> str:
    """A 3D-parallel job's worst step drawn as recorded and in the ideal (`job_step_svg`), a region of its own below
    the job's panel (the published SE's is 116 kB: drawn and laid out with the panel, it made two tasks of 70 ms in
    the page); nothing without a step."""
    if step is None or not step.measured:
        return ""
    return tag("section", {"class": "job"}, job_step_svg(step, lang))


def job_html(w: JobWhatIf | None, notes: tuple[Message, ...], lang: str) -> str:
    """The panel of a 3D-parallel job, or nothing when Your traces holds none: its diagnosis, S, M_W and M_S, the
    heatmap and the splits (its worst step is `job_step_html`'s)."""
    if w is None:
        return ""
    g = w.groups
    head = i18n.t("job.title", lang, dp=g.dp, pp=g.pp, tp=g.tp, cp=g.cp, world=g.world, steps=len(w.steps))
    if g.vpp > 1:
        head += " · " + i18n.t("job.chunks", lang, vpp=g.vpp)
    said = tag(
        "ul",
        {"data-testid": "job-diagnosis", "class": "verdict"},
        *(text("li", {"data-code": m.code}, m.text(lang)) for m in job_verdict(w)),
    )
    figures = tag(
        "p",
        None,
        esc(i18n.t("job.slowdown", lang)) + " ",
        output("job-slowdown", w.slowdown, _ratio(w.slowdown, lang)),
        esc(" · M_W ") + output("job-mw", w.m_w, _fixed(w.m_w, lang)) if math.isfinite(w.m_w) else "",
        esc(" · M_S ") + output("job-ms", w.m_s, _fixed(w.m_s, lang)) if math.isfinite(w.m_s) else "",
    )
    body = [text("h3", None, head), said, figures]
    if w.by_worker:
        body.append(job_heatmap(w, lang))
        body.append(
            tag(
                "div",
                {"class": "job-splits"},
                _split("job-by-stage", i18n.t("job.by_stage", lang), w.by_stage, "job.stage_n_key", lang),
                _split("job-by-dp", i18n.t("job.by_dp", lang), w.by_dp, "job.dp_n_key", lang),
                _split("job-by-type", i18n.t("job.by_type", lang), w.by_optype, "job.type_key", lang),
            )
        )
    lines = [m.text(lang) for m in (*notes, *w.skipped)]
    if lines:
        body.append(tag("ul", {"class": "help", "data-testid": "job-notes"}, *(text("li", None, n) for n in lines)))
    return tag("section", {"class": "job", "data-testid": "job-panel"}, *body)
