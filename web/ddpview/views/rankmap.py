"""The rank × step map of Your traces: rows of ranks, columns of steps, a cell drawn where a rank was late.

Only late cells are drawn (on time is the background), so a map of 10,000 ranks × 200 steps stays a few hundred
elements unless the run is late everywhere. A row is focusable and says which ranks it holds; a cell opens its
step (the shell reads `data-step-index`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from ddpcore.analysis.rankmap import RankStepMap

from .. import i18n
from ..markup import num, svg_figure, tag, text

__all__ = ["CELLS_PER_STEP", "map_drawing", "map_svg"]

WIDTH, LEFT, TOP, BOTTOM = 900, 70, 8, 26
ROW_MAX, HEIGHT_MAX = 18.0, 320.0
MAX_COLUMNS = 600
"""Past this many steps, consecutive steps share a column, which shows the latest of their late cells: a cell
stays wide enough to see and click, and 11,700 steps stay a few thousand elements."""


def _ranks_label(row: tuple[int, ...], lang: str) -> str:
    if len(row) == 1:
        return i18n.t("rank", lang, r=row[0])
    return i18n.t("map.ranks", lang, first=row[0], last=row[-1])


@dataclass(frozen=True)
class MapGrid:
    """Where the map's cells go: row height, column width, and how many steps share a column."""

    rows: int
    columns: int
    shown: int
    row_h: float
    cell_w: float

    @classmethod
    def of(cls, m: RankStepMap) -> MapGrid:
        """The grid of a map: rows shrink to fit HEIGHT_MAX, columns stop at MAX_COLUMNS."""
        rows, columns = len(m.rows), len(m.steps)
        shown = min(columns, MAX_COLUMNS)
        return cls(rows, columns, shown, min(ROW_MAX, HEIGHT_MAX / max(rows, 1)), (WIDTH - LEFT - 10) / max(shown, 1))

    def column(self, j: int) -> int:
        """The column step j is drawn in."""
        return j * self.shown // self.columns


def _late_by_row(m: RankStepMap, grid: MapGrid, late: list[tuple[int, int]]) -> dict[int, list[int]]:
    """Per row, the steps drawn: in each column, the step with the row's largest gap."""
    latest: dict[tuple[int, int], int] = {}
    for i, j in late:
        key = (i, grid.column(j))
        if key not in latest or m.gap[i][j] > m.gap[i][latest[key]]:
            latest[key] = j
    by_row: dict[int, list[int]] = {}
    for (i, _), j in sorted(latest.items()):
        by_row.setdefault(i, []).append(j)
    return by_row


def _cell(m: RankStepMap, grid: MapGrid, i: int, j: int, threshold: float, lang: str) -> str:
    """One late cell: as dark as its gap is large, its tooltip the rank, step, cost and gap."""
    tip = i18n.t(
        "map.cell",
        lang,
        rank=m.worst[i][j],
        step=m.steps[j],
        cost=i18n.ms(m.cost_ms[i][j], lang),
        gap=i18n.percent(m.gap[i][j], lang),
    )
    return tag(
        "rect",
        {
            "x": LEFT + grid.column(j) * grid.cell_w,
            "y": TOP + i * grid.row_h,
            "width": max(grid.cell_w, 0.5),
            "height": max(grid.row_h, 0.5),
            "class": "map-cell very" if m.gap[i][j] >= 2 * threshold else "map-cell",
            "data-step-index": j,
            "data-rank": m.worst[i][j],
        },
        text("title", None, tip),
    )


def _row(m: RankStepMap, i: int, cells: list[str], drawn: list[int], late: int, first: bool, lang: str) -> str:
    """A row of the map as one control: focusable (the first row alone in the Tab order), named by its ranks and
    late steps, opening its worst step."""
    label = i18n.t("map.row", lang, ranks=_ranks_label(m.rows[i], lang), late=late, steps=len(m.steps))
    return tag(
        "g",
        {
            "class": "map-row",
            "tabindex": 0 if first else -1,
            "role": "button",
            "aria-label": label,
            "data-testid": "map-row",
            "data-ranks": f"{m.rows[i][0]}-{m.rows[i][-1]}",
            "data-late": late,
            "data-step-index": max(drawn, key=lambda j: m.gap[i][j]),
        },
        text("title", None, label),
        *cells,
    )


def _rank_ticks(m: RankStepMap, grid: MapGrid, lang: str) -> list[str]:
    """Rank labels down the left edge: the first row, the last, and three between."""
    rows = grid.rows
    return [
        text(
            "text",
            {"x": LEFT - 6, "y": num(TOP + (i + 0.5) * grid.row_h + 4), "text-anchor": "end", "class": "map-label"},
            _ranks_label(m.rows[i][:1], lang),
        )
        for i in sorted({0, rows - 1, *(k * max(rows // 4, 1) for k in range(4))})
        if 0 <= i < rows
    ]


def map_svg(m: RankStepMap, late_ranks: Sequence[Sequence[int]], threshold: float, lang: str) -> str:
    """The map: a cell holding a late rank-step (`late_ranks`, per step) is as dark as its gap is large (twice the
    threshold and more: darkest)."""
    from ddpcore.base.steps import finished

    return finished(map_drawing(m, late_ranks, threshold, lang))


CELLS_PER_STEP = 48
"""Late cells drawn between two of `map_drawing`'s steps: a cell (its tooltip's words and numbers) takes about 16 µs
natively and ten times that in a slow page, and the rows of a straggler's ranks hold hundreds."""


def map_drawing(
    m: RankStepMap, late_ranks: Sequence[Sequence[int]], threshold: float, lang: str
) -> Generator[None, None, str]:
    """`map_svg` in steps, a step every CELLS_PER_STEP cells; returns the markup."""
    grid = MapGrid.of(m)
    height = TOP + grid.rows * grid.row_h + BOTTOM
    late = m.late_cells(late_ranks)
    late_in = Counter(i for i, _ in late)
    groups, pending = [], 0
    for k, (i, drawn) in enumerate(sorted(_late_by_row(m, grid, late).items())):
        cells = []
        for j in drawn:
            if pending == CELLS_PER_STEP:
                yield
                pending = 0
            cells.append(_cell(m, grid, i, j, threshold, lang))
            pending += 1
        groups.append(_row(m, i, cells, drawn, late_in[i], k == 0, lang))
    frame = tag(
        "rect",
        {"x": LEFT, "y": TOP, "width": WIDTH - LEFT - 10, "height": grid.rows * grid.row_h, "class": "map-frame"},
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
        {"data-testid": "rank-step-map", "data-rows": grid.rows, "data-late-cells": len(late)},
        frame,
        *_rank_ticks(m, grid, lang),
        *groups,
        axis,
    )
