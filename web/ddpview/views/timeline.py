"""The timeline SVG: one lane per GPU, phase bars, hatched barrier waits, a millisecond axis."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from ddpcore.base.intervals import Interval, Spans
from ddpcore.base.phases import BETWEEN_STEPS, GPU_COMM, GPU_COMPUTE, IDLE, LOGGED, TRACE_LEGEND
from ddpcore.model import PHASES, Schedule
from ddpcore.model.schedule import Bucket

from .. import i18n
from ..markup import AttrValue, attrs, data_value, esc, num, svg_figure, tag, text

if TYPE_CHECKING:
    from collections.abc import Generator

    from ddpcore.analysis import StepSummary

__all__ = ["TimelineGeometry", "tick_step", "timeline_svg", "trace_timeline_drawing"]

WIDTH = 900
LEFT = 118
RIGHT = 24
TOP = 46
LANE = 24
LANE_GAP = 6
COMM_ROW = 11
AXIS = 44
GPU_LEGEND = (GPU_COMPUTE, GPU_COMM)
LEGEND_ROW = 20
NICE_STEPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000)


@dataclass(frozen=True)
class TimelineGeometry:
    """Maps milliseconds to x; shared by the drawing and the animation clock's playhead."""

    axis_max_ms: float
    lanes: int
    comm_rows: int = 0
    top: float = TOP

    @property
    def pitch(self) -> float:
        """Height of one lane: the phase bar, then one thin row per extra row (buckets, collectives, kernels)."""
        return LANE + LANE_GAP + (COMM_ROW + 2) * self.comm_rows

    @property
    def height(self) -> float:
        """The figure's height: its lanes and the axis under them."""
        return self.top + self.lanes * self.pitch + AXIS

    def x_of(self, ms: float) -> float:
        """The x of a time on the axis, clamped to the axis."""
        clamped = min(max(ms, 0.0), self.axis_max_ms)
        return LEFT + (WIDTH - LEFT - RIGHT) * clamped / self.axis_max_ms

    def lane_y(self, lane: int) -> float:
        """The top of a lane."""
        return self.top + lane * self.pitch

    @property
    def ms_per_pixel(self) -> float:
        """How many ms one pixel spans: what a bar too short to see is widened to."""
        return self.axis_max_ms / (WIDTH - LEFT - RIGHT)

    def row_y(self, lane: int, row: int) -> float:
        """Top of thin row `row` (0 = the first under the phase bar) of a lane."""
        return self.lane_y(lane) + LANE + 2 + row * (COMM_ROW + 2)


MAX_TICKS = 12


def tick_step(axis_max_ms: float) -> float:
    """The axis's tick spacing: the smallest nice step giving at most MAX_TICKS steps (and a tick at each end)."""
    return next((s for s in NICE_STEPS if axis_max_ms / s <= MAX_TICKS), NICE_STEPS[-1])


@lru_cache(maxsize=8)
def _defs(hatch_id: str) -> str:
    return tag(
        "defs",
        None,
        tag(
            "pattern",
            {
                "id": hatch_id,
                "patternUnits": "userSpaceOnUse",
                "width": 7,
                "height": 7,
                "patternTransform": "rotate(45)",
            },
            tag("rect", {"width": 7, "height": 7, "class": "hatch-bg"}),
            tag("line", {"x1": 0, "y1": 0, "x2": 0, "y2": 7, "class": "hatch-line"}),
        ),
    )


def _fill(phase: str, hatch_id: str) -> str | None:
    """Waits are hatched, a pattern and not only a color; each SVG names its own, as a hidden one would not paint."""
    return f"url(#{hatch_id})" if phase == "wait" else None


def _legend_places(phases: tuple[str, ...], lang: str) -> list[tuple[str, str, float, int]]:
    """(phase, label, x, row) of each legend item, wrapped onto a new row where the width runs out."""
    places, x, row = [], float(LEFT), 0
    for phase in phases:
        label = i18n.t(f"phase.{phase}", lang)
        width = 30 + 7.2 * len(label)
        if x + width > WIDTH - RIGHT and x > LEFT:
            x, row = float(LEFT), row + 1
        places.append((phase, label, x, row))
        x += width
    return places


@lru_cache(maxsize=8)
def legend_top(phases: tuple[str, ...], lang: str) -> float:
    """Where the lanes start below a legend of these phases (it may take several rows)."""
    return TOP + LEGEND_ROW * max(row for *_, row in _legend_places(phases, lang))


@lru_cache(maxsize=8)
def _legend(lang: str, hatch_id: str, phases: tuple[str, ...] = PHASES, hidden: tuple[str, ...] = ()) -> str:
    """The legend of `phases`, then an unshown item per phase of `hidden` (one the figure may show at another
    setting)."""
    items = [
        tag(
            "g",
            {"class": "legend-item"},
            tag(
                "rect",
                {
                    "x": x,
                    "y": 10 + LEGEND_ROW * row,
                    "width": 14,
                    "height": 14,
                    "class": f"bar {phase}",
                    "rx": 2,
                    "fill": _fill(phase, hatch_id),
                },
            ),
            text("text", {"x": x + 19, "y": 22 + LEGEND_ROW * row, "class": "legend-text"}, label),
        )
        for phase, label, x, row in _legend_places(phases, lang)
    ]
    items += [_unshown("g", "<rect></rect><text></text>") for _ in hidden]
    return tag("g", {"class": "legend"}, *items)


def _unshown(name: str, inner: str = "") -> str:
    """An element drawn in place of one that shows nothing (a wait of 0 ms, the band of a lane that is not a
    straggler's, an axis tick past the end): a slider's input then keeps the timeline's elements (markup.patches) and
    changes their attributes, where adding or taking one away would rewrite the whole figure. It has only its tag
    and `display="none"`: no class, phase or test id for a selector or a reader to find."""
    return f'<{name} display="none">{inner}</{name}>'


UNSHOWN_BAR = _unshown("rect", "<title></title>")
"""What `_bar` draws for a phase of 0 ms."""


def _lane_head(y: float, label: str, slow: bool) -> list[str]:
    """The lane's label, and a band across the whole lane, shown for a straggler (marked by shape and text, not
    color)."""
    head = [
        tag("rect", {"x": 2, "y": y - 2, "width": WIDTH - 4, "height": LANE + 4, "class": "straggler-band", "rx": 4})
        if slow
        else _unshown("rect")
    ]
    head.append(
        text(
            "text",
            {
                "x": LEFT - 10,
                "y": y + LANE / 2 + 4,
                "text-anchor": "end",
                "class": "lane-label straggler-label" if slow else "lane-label",
            },
            label,
        )
    )
    return head


def _bar(
    phase: str, x0: float, x1: float, y: float, height: float, tooltip: str, hatch_id: str, extra: dict | None = None
) -> str:
    """One phase's bar with its tooltip. Written out, not through `tag`: bars are most of a timeline's elements,
    redrawn at every input; the values still pass the same `esc`, `num` and `attrs` as every tag's."""
    p = esc(phase)
    fill = _fill(phase, hatch_id)
    return (
        f'<rect class="bar {p}" data-phase="{p}"{attrs(extra) if extra else ""} x="{num(x0)}" y="{num(y)}"'
        f' width="{num(max(x1 - x0, 0.5))}" height="{num(height)}" rx="2"{attrs({"fill": fill}) if fill else ""}>'
        f"<title>{esc(tooltip)}</title></rect>"
    )


@lru_cache(maxsize=8)
def _axis(geo: TimelineGeometry, lang: str) -> str:
    y = geo.lane_y(geo.lanes) + 2
    step = tick_step(geo.axis_max_ms)
    parts = [tag("line", {"x1": LEFT, "y1": y, "x2": WIDTH - RIGHT, "y2": y, "class": "axis"})]
    for k in range(MAX_TICKS + 1):
        t = k * step
        if t > geo.axis_max_ms + 1e-9:
            parts.append(_unshown("line") + _unshown("text"))
            continue
        x = geo.x_of(t)
        parts.append(tag("line", {"x1": x, "y1": y, "x2": x, "y2": y + 5, "class": "axis"}))
        parts.append(
            text("text", {"x": x, "y": y + 18, "text-anchor": "middle", "class": "tick"}, i18n.number(t, lang, 0))
        )
    parts.append(
        text(
            "text",
            {"x": (LEFT + WIDTH - RIGHT) / 2, "y": y + 36, "text-anchor": "middle", "class": "axis-title"},
            i18n.t("timeline.axis", lang),
        )
    )
    return tag("g", {"class": "axis-group"}, *parts)


def _bucket_bar(b: Bucket, geo: TimelineGeometry, y: float, label: str, lang: str) -> str:
    """One gradient bucket's AllReduce, in the thin row under a lane."""
    x0, x1 = geo.x_of(b.start_ms), geo.x_of(b.end_ms)
    return tag(
        "rect",
        {
            "class": "bar allreduce bucket",
            "data-phase": "allreduce",
            "data-bucket": b.index,
            "data-ms": data_value(b.end_ms - b.start_ms),
            "x": x0,
            "y": y + LANE + 2,
            "width": max(x1 - x0, 0.5),
            "height": COMM_ROW,
            "rx": 1.5,
        },
        text(
            "title",
            None,
            f"{label} · {i18n.t('timeline.bucket', lang, b=b.index, mb=i18n.number(b.mb, lang))}"
            f" · {i18n.ms(b.end_ms - b.start_ms, lang)}",
        ),
    )


def _lane_bars(
    intervals: tuple[Interval, ...], paused: bool, buckets: tuple[Bucket, ...], geo: TimelineGeometry, lang: str
) -> str:
    """A lane's bars at the lane's own y (0), the GPU's name in their tooltips left as LABEL_HOLE: the ranks that
    ran alike (all but the stragglers) share one drawing, and a slider's input draws two lanes' bars, not one per GPU.
    A lane that does not pause between steps (`paused`) still holds that bar's slot, unshown."""
    bars = [
        _bar(
            iv.phase,
            geo.x_of(iv.start_ms),
            geo.x_of(iv.end_ms),
            0,
            LANE,
            f"{LABEL_HOLE} · {i18n.t('phase.' + iv.phase, lang)} · {i18n.ms(iv.duration_ms, lang)}",
            "hatch",
            {"data-ms": data_value(iv.duration_ms)},
        )
        if iv.duration_ms > 0
        else UNSHOWN_BAR
        for iv in intervals
    ]
    if not paused:
        bars.insert(0, UNSHOWN_BAR)
    return "".join(bars + [_bucket_bar(b, geo, 0, LABEL_HOLE, lang) for b in buckets])


LABEL_HOLE = "\x00"
"""Stands in a lane's drawing for the GPU's name, filled in per lane (and in its frame for where the bars go):
escaping leaves it as it is, and no name holds it."""


def _step_lane(
    schedule: Schedule, lane: int, geo: TimelineGeometry, stragglers: set[int], lang: str, drawn: dict[object, str]
) -> str:
    """One GPU's lane of the modelled step, placed at its y: its label, a bar per phase, and the buckets' AllReduce
    under it. `drawn` holds the bars of the lanes drawn so far, by their intervals (`_lane_bars`)."""
    rank = schedule.ranks[lane]
    is_straggler = rank.rank in stragglers
    label = i18n.t("gpu", lang, i=rank.rank)
    slowed = f" {num(rank.slowdown, 1)}×" if schedule.config.lost_in == "compute" else ""
    bars = drawn.get(rank.intervals)
    if bars is None:
        bars = drawn[rank.intervals] = _lane_bars(rank.intervals, rank.paused, schedule.buckets, geo, lang)
    before, after = _lane_frame(
        rank.rank, geo.lane_y(lane), f"{label} ▲{slowed}" if is_straggler else label, is_straggler
    )
    return before + bars.replace(LABEL_HOLE, esc(label)) + after


@lru_cache(maxsize=256)
def _lane_frame(rank: int, y: float, shown: str, slow: bool) -> tuple[str, str]:
    """A modelled lane's group, placed at its y and holding its label (and a straggler's band), cut where the bars
    go: the same while a slider moves the bars."""
    place = f"translate(0 {num(y)})"
    cls = "lane straggler" if slow else "lane"
    group = tag(
        "g",
        {"data-testid": "lane", "data-rank": rank, "class": cls, "transform": place},
        *_lane_head(0, shown, slow),
        LABEL_HOLE,
    )
    before, after = group.split(LABEL_HOLE)
    return before, after


def _vertical(geo: TimelineGeometry, x: float, top: float, bottom: float, cls: str, **more: AttrValue) -> str:
    return tag("line", {"x1": x, "y1": geo.top - top, "x2": x, "y2": bottom, "class": cls, **more})


def _step_marks(
    schedule: Schedule, geo: TimelineGeometry, lang: str, ideal_ms: float | None, playhead_ms: float | None
) -> list[str]:
    """The barrier, the step's end (with its length), the ideal step when shorter, and the playhead."""
    bottom = geo.lane_y(len(schedule.ranks)) - LANE_GAP
    bx, step_x = geo.x_of(schedule.barrier_ms), geo.x_of(schedule.step_ms)
    marks = [
        _vertical(geo, bx, 8, bottom + 4, "barrier-line"),
        text(
            "text",
            {"x": bx - 3, "y": geo.top - 11, "text-anchor": "end", "class": "mark-label"},
            i18n.t("timeline.barrier", lang),
        ),
        _vertical(geo, step_x, 8, bottom + 4, "step-line"),
        text(
            "text",
            {
                "x": min(step_x + 3, WIDTH - 2),
                "y": geo.top - 11,
                "class": "mark-label",
                "text-anchor": "end" if step_x > WIDTH - 80 else "start",
            },
            i18n.ms(schedule.step_ms, lang),
        ),
    ]
    if ideal_ms is not None and ideal_ms < schedule.step_ms - 1e-9:
        marks.append(_vertical(geo, geo.x_of(ideal_ms), 2, bottom + 4, "ideal-line"))
    else:
        marks.append(_unshown("line"))
    ph = geo.x_of(playhead_ms if playhead_ms is not None else 0.0)
    hidden = "playhead" if playhead_ms is not None else "playhead hidden"
    marks.append(_vertical(geo, ph, 4, bottom + 6, hidden, **{"data-testid": "playhead", "id": "playhead"}))
    return marks


def timeline_svg(
    schedule: Schedule,
    axis_max_ms: float,
    lang: str,
    *,
    ideal_ms: float | None = None,
    playhead_ms: float | None = None,
) -> str:
    """The modelled step, one lane per GPU on a shared time axis up to `axis_max_ms` (fixed while the controls
    move, so that bars grow and shrink against it), with the barrier, the step's end and the playhead."""
    config = schedule.config
    legend = (BETWEEN_STEPS, *PHASES) if schedule.paused else PHASES
    unused = () if schedule.paused else (BETWEEN_STEPS,)
    geo = TimelineGeometry(
        max(axis_max_ms, schedule.step_ms), len(schedule.ranks), int(bool(schedule.buckets)), legend_top(legend, lang)
    )
    stragglers = set(config.stragglers) if config.slowdown > 1.0 else set()
    drawn: dict[object, str] = {}
    return svg_figure(
        WIDTH,
        geo.height,
        i18n.t("timeline.desc", lang, t=i18n.number(schedule.step_ms, lang)),
        {"data-testid": "timeline", "data-axis-max": data_value(geo.axis_max_ms)},
        _defs("hatch"),
        _legend(lang, "hatch", legend, unused),
        *(_step_lane(schedule, lane, geo, stragglers, lang, drawn) for lane in range(len(schedule.ranks))),
        _axis(geo, lang),
        *_step_marks(schedule, geo, lang, ideal_ms, playhead_ms),
    )


def _row_paths(
    spans: Spans, geo: TimelineGeometry, lane: int, row: int, origin: float, label: str, lang: str
) -> list[str]:
    """A thin row: each kind's spans as one path (a GPU step has hundreds of kernel spans per rank, and one element
    each would be most of the page's work), spans closer than a pixel joined; its tooltip counts them and their time.
    """
    y = num(geo.row_y(lane, row))
    paths = []
    for (phase, bounds), (_, drawn) in zip(spans.rows, spans.joined(geo.ms_per_pixel).rows):
        xs = [geo.x_of(t - origin) for t in drawn]
        d = "".join(
            f"M{num(x0)} {y}h{num(max(x1 - x0, 0.5))}v{COMM_ROW}H{num(x0)}z" for x0, x1 in zip(xs[::2], xs[1::2])
        )
        total = sum(bounds[1::2]) - sum(bounds[0::2])
        title = i18n.t(
            "traces.row_title",
            lang,
            label=label,
            phase=i18n.t("phase." + phase, lang),
            n=len(bounds) // 2,
            total=i18n.ms(total, lang),
        )
        paths.append(
            tag("path", {"class": f"bar {phase} thin", "data-phase": phase, "d": d}, text("title", None, title))
        )
    return paths


def trace_timeline_drawing(step: StepSummary, stragglers: tuple[int, ...], lang: str) -> Generator[None, None, str]:
    """A measured step: one lane per rank on the step's common clock (the release), each rank's wait at the barrier
    hatched from its readiness, a late rank's excess over the median rank marked before it; a step after each lane
    (a GPU trace's lane holds hundreds of kernels: 8 of them took the page 37 ms at CPU rate 2).

    Under each lane's phases (each instant given to one phase), a thin row shows the host's collectives as they
    ran, and for GPU traces one more the kernels (compute and communication)."""
    ranks = step.drawn
    gpu = any(r.device is not None for r in ranks)
    logged = tuple(p for p in LOGGED if any(r.phases_ms[p] for r in ranks))
    legend = TRACE_LEGEND + logged + (GPU_LEGEND if gpu else ())
    origin = min(r.start_ms for r in ranks)
    end = max(r.device_spans.end_ms(r.end_ms) for r in ranks) - origin
    geo = TimelineGeometry(max(end, 1e-6) * 1.02, len(ranks), 2 if gpu else 1, legend_top(legend, lang))
    release = max(r.start_ms + r.ready_ms + r.wait_ms for r in ranks) - origin
    late = set(step.late_ranks)
    lanes = []
    for lane, r in enumerate(ranks):
        y = geo.lane_y(lane)
        label = i18n.t("rank", lang, r=r.rank)
        slow = r.rank in stragglers
        items = _lane_head(y, f"{label} ▲" if slow else label, slow)
        items.append(
            tag(
                "rect",
                {
                    "x": geo.x_of(r.start_ms - origin),
                    "y": y + LANE / 2 - 1,
                    "width": max(geo.x_of(r.end_ms - origin) - geo.x_of(r.start_ms - origin), 0.5),
                    "height": 2,
                    "class": "bar idle",
                    "data-phase": IDLE,
                },
            )
        )
        for sp in r.spans:
            items.append(
                _bar(
                    sp.phase,
                    geo.x_of(sp.start_ms - origin),
                    geo.x_of(sp.end_ms - origin),
                    y,
                    LANE,
                    f"{label} · {i18n.t('phase.' + sp.phase, lang)} · {i18n.ms(sp.end_ms - sp.start_ms, lang)}",
                    "trace-hatch",
                )
            )
        ready = r.start_ms - origin + r.ready_ms
        if r.rank in late and r.cost_ms > 0:
            items.append(
                tag(
                    "rect",
                    {
                        "x": geo.x_of(ready - r.cost_ms),
                        "y": y - 3,
                        "width": max(geo.x_of(ready) - geo.x_of(ready - r.cost_ms), 0.5),
                        "height": 3,
                        "class": "excess",
                        "data-testid": "excess",
                        "data-value": r.cost_ms,
                    },
                    text("title", None, i18n.t("traces.excess", lang, label=label, ms=i18n.ms(r.cost_ms, lang))),
                )
            )
        if r.wait_ms > 0:
            items.append(
                _bar(
                    "wait",
                    geo.x_of(ready),
                    geo.x_of(ready + r.wait_ms),
                    y + 4,
                    LANE - 8,
                    f"{label} · {i18n.t('phase.wait', lang)} · {i18n.ms(r.wait_ms, lang)}",
                    "trace-hatch",
                )
            )
        items += _row_paths(r.comm_spans, geo, lane, 0, origin, label, lang)
        items += _row_paths(r.device_spans, geo, lane, 1, origin, label, lang)
        lanes.append(
            tag(
                "g", {"data-testid": "lane", "data-rank": r.rank, "class": "lane straggler" if slow else "lane"}, *items
            )
        )
        yield
    bottom = geo.lane_y(len(ranks)) - LANE_GAP
    bx = geo.x_of(release)
    marks = [
        tag("line", {"x1": bx, "y1": geo.top - 8, "x2": bx, "y2": bottom + 4, "class": "barrier-line"}),
        text(
            "text",
            {"x": bx - 3, "y": geo.top - 11, "text-anchor": "end", "class": "mark-label"},
            i18n.t("traces.release", lang),
        ),
    ]
    return svg_figure(
        WIDTH,
        geo.height,
        i18n.t("traces.timeline_desc", lang, step=step.step),
        {"data-testid": "trace-timeline"},
        _defs("trace-hatch"),
        _legend(lang, "trace-hatch", legend),
        *lanes,
        _axis(geo, lang),
        *marks,
    )
