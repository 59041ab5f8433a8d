"""The ring SVG: N GPUs on a circle, each with N chunk boxes, arrows for the current exchange."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ddpcore.model import ChunkState, exchange, ring_state
from ddpcore.model.ring import exchange_count, sent_fraction

from .. import i18n
from ..markup import data_value, num, svg_figure, tag, text

__all__ = ["ring_svg", "shade"]

SIZE = 600
CENTER = SIZE / 2
RADIUS = 222
LIGHT = (219, 234, 254)
DARK = (30, 64, 175)


@dataclass(frozen=True)
class NodeBox:
    """Where one GPU's box is drawn on the ring, and its size."""

    x: float
    y: float
    width: float
    height: float
    cell: float
    cols: int


def _node_box(gpus: int, rank: int) -> NodeBox:
    cols = math.ceil(math.sqrt(gpus))
    rows = math.ceil(gpus / cols)
    cell = 22.0 if gpus <= 4 else 19.0 if gpus <= 9 else 15.0 if gpus <= 16 else max(3.0, 60.0 / cols)
    width = cols * cell + 10
    height = rows * cell + 24
    angle = _angle(gpus, rank)
    return NodeBox(CENTER + RADIUS * math.cos(angle), CENTER + RADIUS * math.sin(angle), width, height, cell, cols)


def _angle(gpus: int, rank: int) -> float:
    return -math.pi / 2 + 2 * math.pi * rank / gpus


def shade(count: int, gpus: int) -> str:
    """Light blue with one contribution, dark blue with all N: more summed, darker box."""
    f = (count - 1) / (gpus - 1) if gpus > 1 else 1.0
    r, g, b = (round(lo + (hi - lo) * f) for lo, hi in zip(LIGHT, DARK))
    return f"#{r:02x}{g:02x}{b:02x}"


def _gpu_node(gpus: int, rank: int, chunks: tuple[ChunkState, ...], straggler: bool, lang: str) -> str:
    box = _node_box(gpus, rank)
    left, top = box.x - box.width / 2, box.y - box.height / 2
    parts = [
        tag("rect", {"class": "node", "x": left, "y": top, "width": box.width, "height": box.height, "rx": 6}),
        text(
            "text",
            {"class": "node-label", "x": box.x, "y": top + 14, "text-anchor": "middle"},
            i18n.t("gpu", lang, i=rank),
        ),
    ]
    for c, state in enumerate(chunks):
        cx = left + 5 + (c % box.cols) * box.cell
        cy = top + 19 + (c // box.cols) * box.cell
        parts.append(
            tag(
                "rect",
                {
                    "class": "chunk final" if state.final else "chunk",
                    "data-chunk": c,
                    "data-count": state.count,
                    "data-final": "1" if state.final else "0",
                    "x": cx + 1,
                    "y": cy + 1,
                    "width": box.cell - 2,
                    "height": box.cell - 2,
                    "rx": 2,
                    "fill": shade(state.count, gpus),
                },
                text("title", None, f"chunk {c}: {state.count}/{gpus}"),
            )
        )
    return tag(
        "g",
        {"data-testid": "gpu", "data-rank": rank, "class": "gpu straggler" if straggler else "gpu"},
        *parts,
    )


def _arrow(gpus: int, src: int, dst: int, chunk: int, stage: str) -> str:
    box = _node_box(gpus, src)
    inner = RADIUS - box.height / 2 - 16
    gap = min(0.45 * 2 * math.pi / gpus, (box.width / 2 + 4) / inner)
    a0 = _angle(gpus, src) + gap
    a1 = _angle(gpus, src) + 2 * math.pi / gpus - gap
    x0, y0 = CENTER + inner * math.cos(a0), CENTER + inner * math.sin(a0)
    x1, y1 = CENTER + inner * math.cos(a1), CENTER + inner * math.sin(a1)
    large = 1 if a1 - a0 > math.pi else 0
    mid = (a0 + a1) / 2
    lx, ly = CENTER + (inner - 14) * math.cos(mid), CENTER + (inner - 14) * math.sin(mid)
    path = f"M{num(x0)},{num(y0)} A{num(inner)},{num(inner)} 0 {large} 1 {num(x1)},{num(y1)}"
    return tag(
        "g",
        {"class": f"send {stage}", "data-testid": "send", "data-src": src, "data-dst": dst, "data-chunk": chunk},
        tag("path", {"d": path, "marker-end": "url(#arrowhead)"}),
        text("text", {"x": lx, "y": ly + 4, "text-anchor": "middle", "class": "send-label"}, f"c{chunk}"),
    )


@lru_cache(maxsize=64)
def ring_svg(gpus: int, after: int, stragglers: tuple[int, ...], lang: str) -> str:
    """The ring after `after` exchanges (0 = before the first), with arrows for exchange `after`."""
    total = exchange_count(gpus)
    after = min(max(after, 0), total)
    states = ring_state(gpus, after)
    parts = [
        tag(
            "defs",
            None,
            tag(
                "marker",
                {
                    "id": "arrowhead",
                    "viewBox": "0 0 10 10",
                    "refX": 8,
                    "refY": 5,
                    "markerWidth": 6,
                    "markerHeight": 6,
                    "orient": "auto-start-reverse",
                },
                tag("path", {"d": "M0,0 L10,5 L0,10 z", "class": "arrowhead"}),
            ),
        ),
        tag("circle", {"class": "ring-track", "cx": CENTER, "cy": CENTER, "r": RADIUS}),
    ]
    if after == 0:
        label = i18n.t("ring.before", lang)
    else:
        ex = exchange(gpus, after)
        label = i18n.t(f"ring.{ex.stage}", lang, k=ex.stage_step, n=gpus - 1)
        parts.extend(_arrow(gpus, t.src, t.dst, t.chunk, ex.stage) for t in ex.transfers)
    parts.extend(_gpu_node(gpus, r, states[r], r in stragglers, lang) for r in range(gpus))
    sent = sent_fraction(gpus, after)
    parts.append(
        tag(
            "g",
            {"class": "ring-center"},
            text(
                "text",
                {
                    "x": CENTER,
                    "y": CENTER - 18,
                    "text-anchor": "middle",
                    "class": "stage-label",
                    "data-testid": "stage-label",
                },
                label,
            ),
            text(
                "text",
                {
                    "x": CENTER,
                    "y": CENTER + 6,
                    "text-anchor": "middle",
                    "class": "sent-label",
                    "data-testid": "sent",
                    "data-value": data_value(sent),
                },
                i18n.t("ring.sent", lang, x=i18n.number(sent, lang, 3)),
            ),
            text(
                "text",
                {"x": CENTER, "y": CENTER + 30, "text-anchor": "middle", "class": "legend-label"},
                i18n.t("ring.legend_count", lang),
            ),
            text(
                "text",
                {"x": CENTER, "y": CENTER + 48, "text-anchor": "middle", "class": "legend-label"},
                i18n.t("ring.legend_final", lang),
            ),
        )
    )
    return svg_figure(
        SIZE, SIZE, i18n.t("ring.desc", lang, n=gpus), {"data-testid": "ring", "data-exchange": after}, *parts
    )
