"""The rank × step map of Your traces: rows of ranks, columns of steps, a cell drawn where a rank was late.

Only late cells are drawn (on time is the background), so a map of 10,000 ranks × 200 steps stays a few hundred
elements unless the run is late everywhere. A row is focusable and says which ranks it holds; a cell opens its
step (the shell reads `data-step-index`)."""

from __future__ import annotations

from collections import Counter

from ddpcore.rankmap import RankStepMap

from . import i18n
from .svg import num, svg_figure, tag, text

WIDTH, LEFT, TOP, BOTTOM = 900, 70, 8, 26
ROW_MAX, HEIGHT_MAX = 18.0, 320.0
MAX_COLUMNS = 600
"""Past this many steps, consecutive steps share a column, which shows the latest of their late cells: a cell
stays wide enough to see and click, and 11,700 steps stay a few thousand elements."""


def _ranks_label(row: tuple[int, ...], lang: str) -> str:
    if len(row) == 1:
        return i18n.t("rank", lang, r=row[0])
    return i18n.t("map.ranks", lang, first=row[0], last=row[-1])


def map_svg(m: RankStepMap, threshold: float, lang: str) -> str:
    """The map: a late cell is as dark as its gap is large (twice the threshold and more: darkest)."""
    rows, columns = len(m.rows), len(m.steps)
    shown = min(columns, MAX_COLUMNS)
    row_h = min(ROW_MAX, HEIGHT_MAX / max(rows, 1))
    cell_w = (WIDTH - LEFT - 10) / max(shown, 1)
    height = TOP + rows * row_h + BOTTOM
    late = m.late_cells(threshold)
    latest: dict[tuple[int, int], int] = {}
    for i, j in late:
        key = (i, j * shown // columns)
        if key not in latest or m.gap[i][j] > m.gap[i][latest[key]]:
            latest[key] = j
    by_row: dict[int, list[int]] = {}
    for (i, _), j in sorted(latest.items()):
        by_row.setdefault(i, []).append(j)
    late_in = Counter(i for i, _ in late)
    groups = []
    for i, columns_late in sorted(by_row.items()):
        y = TOP + i * row_h
        cells = [
            tag(
                "rect",
                {
                    "x": LEFT + (j * shown // columns) * cell_w,
                    "y": y,
                    "width": max(cell_w, 0.5),
                    "height": max(row_h, 0.5),
                    "class": "map-cell very" if m.gap[i][j] >= 2 * threshold else "map-cell",
                    "data-step-index": j,
                    "data-rank": m.worst[i][j],
                },
                text(
                    "title",
                    None,
                    i18n.t(
                        "map.cell",
                        lang,
                        rank=m.worst[i][j],
                        step=m.steps[j],
                        cost=i18n.ms(m.cost_ms[i][j], lang),
                        gap=i18n.percent(m.gap[i][j], lang),
                    ),
                ),
            )
            for j in columns_late
        ]
        label = i18n.t("map.row", lang, ranks=_ranks_label(m.rows[i], lang), late=late_in[i], steps=len(m.steps))
        groups.append(
            tag(
                "g",
                {
                    "class": "map-row",
                    "tabindex": 0 if not groups else -1,
                    "role": "button",
                    "aria-label": label,
                    "data-testid": "map-row",
                    "data-ranks": f"{m.rows[i][0]}-{m.rows[i][-1]}",
                    "data-late": late_in[i],
                    "data-step-index": max(columns_late, key=lambda j: m.gap[i][j]),
                },
                text("title", None, label),
                *cells,
            )
        )
    ticks = []
    for i in sorted({0, rows - 1, *(k * max(rows // 4, 1) for k in range(4))}):
        if 0 <= i < rows:
            ticks.append(
                text(
                    "text",
                    {"x": LEFT - 6, "y": num(TOP + (i + 0.5) * row_h + 4), "text-anchor": "end", "class": "map-label"},
                    _ranks_label(m.rows[i][:1], lang),
                )
            )
    frame = tag(
        "rect",
        {"x": LEFT, "y": TOP, "width": WIDTH - LEFT - 10, "height": rows * row_h, "class": "map-frame"},
    )
    axis = text(
        "text",
        {"x": LEFT + (WIDTH - LEFT - 10) / 2, "y": num(height - 8), "text-anchor": "middle", "class": "map-label"},
        i18n.t("map.axis", lang, first=m.steps[0], last=m.steps[-1], n=len(m.steps)),
    )
    return svg_figure(
        WIDTH,
        height,
        i18n.t("map.desc", lang, ranks=sum(len(r) for r in m.rows), steps=len(m.steps), late=len(late)),
        {"data-testid": "rank-step-map", "data-rows": rows, "data-late-cells": len(late)},
        frame,
        *ticks,
        *groups,
        axis,
    )
