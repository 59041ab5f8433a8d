"""The "Your traces" view: measured steps drawn like the model, the stragglers named, and what to alert on."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Generator
from operator import attrgetter

from ddpcore.analysis import Analysis, Cause
from ddpcore.analysis.caveats import grouped
from ddpcore.analysis.comparison import named_ranks
from ddpcore.analysis.verdict import (
    Straggler,
    bar_past_step,
    cause_message,
    gap_message,
    loading_unmarked,
    prefetch_case,
    prefetch_message,
    stretch_message,
    undecided_message,
    undecided_moving_message,
)
from ddpcore.base.phases import LOGGED, SUMMED
from ddpcore.base.steps import finished
from ddpcore.base.words import say
from ddpcore.ops import dashboard, rules_file
from ddpcore.ops.alerts import exposition
from ddpcore.traces import FileError
from ddpcore.traces.keeping import GpuGauges

from .. import i18n
from ..markup import output, tag, text
from .cost import cost_row, gauge_pair, metrics_dl, ms_row, percent_row
from .rankmap import map_drawing
from .timeline import trace_timeline_drawing

__all__ = [
    "LISTED",
    "ROWS_PER_STEP",
    "TABLE_ROWS",
    "TRACE_REGIONS",
    "ranks_table",
    "traces_region_items",
    "traces_regions",
    "verdict_html",
]


def errors_html(errors: tuple[FileError, ...], lang: str) -> str:
    """One list item per file left out, its name and the reason (in the page's language), both as text."""
    return "".join(
        tag(
            "li",
            {"data-testid": "trace-error"},
            text("strong", None, e.source),
            " ",
            text("span", None, e.said.text(lang)),
        )
        for e in errors
    )


PICKED_AROUND = 25
"""The step picker lists this many steps at each end of the run and on each side of the step shown, and as many
straggler steps on each side: a run of 11,700 steps would otherwise be a list nobody can use (and a megabyte)."""


def picked_steps(analysis: Analysis, index: int) -> list[int]:
    """The step indices the picker lists (all of them for a short run): both ends, the neighbourhood of the step
    shown, and the nearest straggler steps before and after it.

    A straggler step far away is still a click on the rank x step map away."""
    count, k = len(analysis.steps), PICKED_AROUND
    if count <= 6 * k:
        return list(range(count))
    late = [i for i, s in enumerate(analysis.steps) if s.has_straggler]
    where = bisect_left(late, index)
    return sorted(
        {*range(k), *range(count - k, count), *range(max(0, index - k), min(count, index + k + 1))}
        | set(late[max(0, where - k) : where + k])
    )


def step_options(analysis: Analysis, index: int, lang: str) -> str:
    """The step picker: each step listed (`picked_steps`) with its latest rank and gap, straggler steps marked."""
    steps = analysis.steps
    return "".join(
        text(
            "option",
            {"value": i, "selected": i == index},
            i18n.t(
                "traces.step_option_late" if steps[i].has_straggler else "traces.step_option",
                lang,
                n=steps[i].step,
                r=steps[i].slowest_rank,
                gap=i18n.percent(steps[i].gap, lang),
            ),
        )
        for i in picked_steps(analysis, index)
    )


LISTED = 20
"""Ranks named in the verdict, at most: past that, how many more (thousands of ranks can be late at a low threshold)."""


def listed(items: list[str], lang: str) -> str:
    """Items as a list in the text: the first LISTED of them, and how many more."""
    shown = ", ".join(items[:LISTED]) or "–"
    return shown + (f" {i18n.t('traces.more', lang, n=len(items) - LISTED)}" if len(items) > LISTED else "")


def cause_html(cause: Cause, lang: str, many: bool = False) -> str:
    """Why a rank is late, or `many` (the transient stragglers), in the page's language (the core's words:
    `ddpcore.base.words`)."""
    return cause_message(cause, many).text(lang)


def sentence(words: str) -> str:
    """The core's words as a sentence of the page: a capital first, a full stop last."""
    return words[:1].upper() + words[1:] + ("" if words.endswith(".") else ".")


def _why_items(a: Analysis, lang: str) -> str:
    """One line per persistent straggler's cause, one for the transient ones, then the prefetch lesson."""
    lines = [
        text(
            "li",
            {"data-testid": "trace-cause", "data-rank": s.rank, "data-kind": s.cause.kind, "data-value": s.cause.ms},
            i18n.t("traces.why_rank", lang, r=s.rank, why=cause_html(s.cause, lang)),
        )
        for s in a.stragglers[:LISTED]
        if s.cause is not None
    ]
    t = a.transient
    if t.straggler_steps and t.cause is not None:
        lines.append(
            text(
                "li",
                {"data-testid": "trace-cause", "data-rank": -1, "data-kind": t.cause.kind, "data-value": t.cause.ms},
                i18n.t("traces.why_transient", lang, why=cause_html(t.cause, lang, many=True)),
            )
        )
    causes = [c for c in [*(s.cause for s in a.stragglers), t.cause if t.straggler_steps else None] if c]
    if causes:
        case = prefetch_case(causes[0], a.load_marked)
        lines.append(
            text(
                "li",
                {
                    "data-testid": "trace-prefetch",
                    "data-case": case,
                    "data-value": a.prefetch_gain_ms if case == "saves" else 0,
                },
                sentence(prefetch_message(causes[0], a.prefetch_gain_ms, a.load_marked).text(lang)),
            )
        )
    if loading_unmarked(causes, a.load_marked):
        lines.append(text("li", {"data-testid": "trace-load-unmarked"}, sentence(say("prefetch.unmarked", lang))))
    return tag("ul", {"class": "why"}, "".join(lines)) if lines else ""


def _stretch(s: Straggler, lang: str) -> str:
    """Where a persistent straggler was slow, after its line, when not over the whole run."""
    said = stretch_message(s)
    return "" if said is None else f" · {said.text(lang)}"


def _transient_bar(a: Analysis, lang: str) -> str:
    """What chance asks of a transient straggler's rank-step (its floor, or that no rank-step alone passes it), and,
    while a straggler moves from rank to rank, what it asks of a step's latest rank."""
    beyond = bar_past_step(a.jitter_floor_ms, a.median_step_ms)
    floor = i18n.t(
        "traces.noise_transient_beyond" if beyond else "traces.noise_transient",
        lang,
        floor=i18n.ms(a.jitter_floor_ms, lang),
        step=i18n.ms(a.median_step_ms, lang),
    )
    latest = a.noise.latest_floor_ms
    if latest is None:
        return floor
    return i18n.t("traces.noise_latest", lang, transient=floor, latest=i18n.ms(latest, lang))


def verdict_html(a: Analysis, lang: str) -> str:
    """The headline: the persistent stragglers by lateness, or that none is consistently late; then the transients."""
    if a.stragglers:
        names = listed([i18n.t("rank", lang, r=s.rank) for s in a.stragglers], lang)
        who = i18n.t("traces.stragglers_are", lang, ranks=names, n=len(a.stragglers))
        details = "".join(
            text(
                "li",
                {
                    "data-testid": "trace-persistent",
                    "data-rank": s.rank,
                    "data-from": -1 if s.from_step is None else s.from_step,
                    "data-to": -1 if s.to_step is None else s.to_step,
                },
                i18n.t(
                    "traces.persistent_line",
                    lang,
                    r=s.rank,
                    late=i18n.number(s.late_steps, lang, 0),
                    steps=i18n.number(len(a.steps), lang, 0),
                    gap=i18n.percent(s.median_gap, lang),
                    cost=i18n.ms(s.median_cost_ms, lang),
                )
                + _stretch(s, lang),
            )
            for s in a.stragglers[:LISTED]
        )
        if len(a.stragglers) > LISTED:
            details += text("li", None, i18n.t("traces.more", lang, n=len(a.stragglers) - LISTED))
    else:
        who, details = i18n.t("traces.no_straggler", lang), ""
    t = a.transient
    transient = (
        i18n.t(
            "traces.transient_line",
            lang,
            k=i18n.number(t.straggler_steps, lang, 0),
            n=i18n.number(t.steps, lang, 0),
            threshold=i18n.percent(a.threshold, lang),
            which=named_ranks(listed([str(r) for r in t.ranks], lang), len(t.ranks)).text(lang),
            cost=i18n.ms(t.mean_cost_ms, lang),
        )
        if t.straggler_steps
        else i18n.t("traces.transient_none", lang, threshold=i18n.percent(a.threshold, lang))
    )
    noise = text(
        "p",
        {"class": "help", "data-testid": "trace-noise", "data-value": a.noise.persistent_needed},
        i18n.t(
            "traces.noise",
            lang,
            chance=i18n.percent(a.noise.chance_over_threshold, lang),
            needed=i18n.number(a.noise.persistent_needed, lang, 0),
            steps=i18n.number(len(a.steps), lang, 0),
            persistent=i18n.t(
                "traces.noise_persistent_beyond"
                if bar_past_step(a.noise.mean_needed_ms, a.median_step_ms)
                else "traces.noise_persistent",
                lang,
                mean=i18n.ms(a.noise.mean_needed_ms, lang),
                step=i18n.ms(a.median_step_ms, lang),
            ),
            transient=_transient_bar(a, lang),
        ),
    )
    undecided = "".join(
        text(
            "li",
            {"data-testid": "trace-undecided", "data-rank": u.rank, "data-value": u.more_steps},
            sentence(undecided_message(u, len(a.steps)).text(lang)),
        )
        for u in a.undecided
    )
    if a.undecided_moving is not None:
        undecided += text(
            "li",
            {"data-testid": "trace-undecided-moving", "data-value": a.undecided_moving.more_steps},
            sentence(undecided_moving_message(a.undecided_moving).text(lang)),
        )
    return (
        tag(
            "p",
            {"class": "verdict"},
            text(
                "output",
                {"data-testid": "trace-straggler", "data-value": -1 if a.straggler_rank is None else a.straggler_rank},
                who,
            ),
        )
        + (tag("ul", {"class": "persistent"}, details) if details else "")
        + (tag("ul", {"class": "undecided"}, undecided) if undecided else "")
        + tag(
            "p",
            {"class": "transient"},
            text("output", {"data-testid": "trace-transient", "data-value": t.fraction}, transient),
        )
        + _why_items(a, lang)
        + noise
    )


def gpu_html(gpu: GpuGauges | None, lang: str) -> str:
    """The gauges a GPU trace gives; without kernels, one line saying why there are none."""
    if gpu is None:
        return text("p", {"class": "help", "data-testid": "trace-gpu-none"}, i18n.t("traces.gpu_none", lang))
    overlap = gpu.comm_overlap
    rows = metrics_dl(
        [
            ms_row("traces.exposed_comm", "trace-exposed-comm", gpu.exposed_comm_ms, lang),
            (
                "traces.comm_overlap",
                output(
                    "trace-comm-overlap",
                    -1 if overlap is None else overlap,
                    "–" if overlap is None else i18n.percent(overlap, lang),
                ),
                "",
            ),
        ],
        lang,
    )
    return tag(
        "div",
        {"class": "trace-gpu", "data-testid": "trace-gpu"},
        gauge_pair(
            ("trace-gpu-busy", gpu.busy, "traces.gpu_busy"),
            ("trace-gpu-compute", gpu.compute, "traces.gpu_compute"),
            lang,
        ),
        rows,
        tag("p", {"class": "help"}, i18n.t("traces.gpu_honest", lang)),
    )


def summary_html(a: Analysis, lang: str) -> str:
    """Verdict, headline figures (means over steps, medians beside), GPU gauges and warnings."""
    metrics = metrics_dl(
        [
            ms_row("traces.step_mean", "trace-step-time", a.step_ms, lang, "big"),
            ms_row("traces.step_median", "trace-median-step-time", a.median_step_ms, lang),
            ms_row("traces.ideal", "trace-ideal-step-time", a.ideal_step_ms, lang),
            cost_row("traces.cost", "trace-straggler-cost", a.straggler_cost_ms, lang),
            ms_row("traces.cost_persistent", "trace-cost-persistent", a.cost_parts_ms.persistent, lang, "sub"),
            ms_row("traces.cost_transient", "trace-cost-transient", a.cost_parts_ms.transient, lang, "sub"),
            ms_row("traces.cost_unnamed", "trace-cost-unnamed", a.cost_parts_ms.unnamed, lang, "sub"),
            ms_row("traces.cost_jitter", "trace-cost-jitter", a.cost_parts_ms.jitter, lang),
            percent_row("traces.efficiency", "trace-efficiency", a.efficiency, lang),
            percent_row("traces.gap", "trace-gap", a.median_gap, lang),
            ms_row("traces.wait", "trace-wait-total", a.wait_ms_total, lang),
        ],
        lang,
    )
    gap = gap_message(
        a.median_gap,
        a.threshold,
        a.efficiency,
        a.too_short,
        len(a.ranks),
        len(a.steps),
        a.noise.chance_over_threshold,
        len(a.stragglers),
        a.noise.leads_beyond_chance,
    )
    if gap is not None:
        metrics += text("p", {"class": "help", "data-testid": "trace-gap-note"}, sentence(gap.text(lang)))
    warnings = "".join(
        text("li", {"data-testid": "trace-warning", "data-count": g.count}, g.message().text(lang))
        for g in grouped(a.warnings)
    )
    return (
        verdict_html(a, lang)
        + metrics
        + gpu_html(a.gpu, lang)
        + (tag("ul", {"class": "warnings"}, warnings) if warnings else "")
    )


def _percent_or_dash(value: float | None, lang: str) -> str:
    return "–" if value is None else i18n.percent(value, lang)


def ranks_page(a: Analysis, page: int) -> tuple[int, int]:
    """The page of the ranks table that exists nearest to `page`, and how many pages there are."""
    pages = max(1, -(-len(a.ranks) // TABLE_ROWS))
    return min(max(page, 0), pages - 1), pages


def ranks_table(a: Analysis, lang: str, page: int = 0) -> str:
    """Per rank, latest first, TABLE_ROWS a page: step, gap, how often late, wait at the barrier, GPU gauges and the
    median time of each phase."""
    return finished(ranks_drawing(a, lang, page))


ROWS_PER_STEP = 10
"""Rows of the ranks table drawn between two of `ranks_drawing`'s steps: a row is 14 cells of words and numbers,
about 0.1 ms natively and ten times that in a slow page."""


def ranks_drawing(a: Analysis, lang: str, page: int = 0) -> Generator[None, None, str]:
    """`ranks_table` in steps, a step every ROWS_PER_STEP rows; returns the markup."""
    headings = (
        "traces.col_rank",
        "traces.col_step",
        "traces.col_gap",
        "traces.col_late",
        "traces.col_wait",
        "traces.col_busy",
        "traces.col_compute",
    )
    phases = [p for p in SUMMED if p not in LOGGED or any(r.median_phases_ms[p] for r in a.ranks)]
    head = tag(
        "tr",
        None,
        *(text("th", {"scope": "col"}, i18n.t(h, lang)) for h in headings),
        *(text("th", {"scope": "col"}, i18n.t(f"phase.{p}", lang)) for p in phases),
        text("th", {"scope": "col"}, i18n.t("traces.col_file", lang)),
    )
    late = {s.rank for s in a.stragglers}
    body = []
    page, pages = ranks_page(a, page)
    by_rank = sorted(a.ranks, key=attrgetter("rank"))  # then latest first, equal gaps in rank order: C keys, stable
    shown = sorted(by_rank, key=attrgetter("median_gap"), reverse=True)[page * TABLE_ROWS : (page + 1) * TABLE_ROWS]
    for k, r in enumerate(shown):
        if k and k % ROWS_PER_STEP == 0:
            yield
        cells = [
            text("th", {"scope": "row"}, r.rank),
            text("td", None, i18n.ms(r.mean_step_ms, lang)),
            text("td", None, i18n.percent(r.median_gap, lang)),
            text("td", None, f"{r.late_steps}/{len(a.steps)}"),
            text("td", None, i18n.ms(r.median_wait_ms, lang)),
            text("td", None, _percent_or_dash(r.gpu.busy if r.gpu else None, lang)),
            text("td", None, _percent_or_dash(r.gpu.compute if r.gpu else None, lang)),
            *(text("td", None, i18n.ms(r.median_phases_ms[p], lang)) for p in phases),
            text("td", {"class": "source"}, r.source),
        ]
        body.append(tag("tr", {"class": "straggler" if r.rank in late else None, "data-testid": "trace-rank"}, *cells))
    if pages == 1:
        return tag("table", {"class": "ranks"}, tag("thead", None, head), tag("tbody", None, *body))
    first, last = page * TABLE_ROWS + 1, min((page + 1) * TABLE_ROWS, len(a.ranks))
    caption = text("caption", None, i18n.t("traces.table_note", lang, first=first, last=last, n=len(a.ranks)))
    nav = tag(
        "nav",
        {"class": "buttons", "aria-label": i18n.t("traces.pages", lang)},
        *(
            text(
                "button",
                {
                    "type": "button",
                    "data-rank-page": target,
                    "data-testid": testid,
                    "disabled": not 0 <= target < pages,
                },
                i18n.t(key, lang),
            )
            for target, testid, key in (
                (page - 1, "ranks-prev", "traces.prev"),
                (page + 1, "ranks-next", "traces.next"),
            )
        ),
    )
    return tag("table", {"class": "ranks"}, caption, tag("thead", None, head), tag("tbody", None, *body)) + nav


TABLE_ROWS = 50
EXPOSED = 16
"""The page's example scrape shows the latest ranks, this many at most (a job of 4,096 would fill 400 KB)."""


TRACE_REGIONS = (
    "trace-map",
    "trace-lanes-note",
    "trace-summary",
    "trace-step",
    "trace-timeline-view",
    "trace-ranks",
    "alert-rule",
    "exposition",
    "dashboard",
)


def traces_regions(
    analysis: Analysis | None,
    errors: tuple[FileError, ...],
    step_index: int,
    threshold: float,
    lang: str,
    rank_page: int = 0,
) -> dict[str, str]:
    """Markup of every region of the view, by element id."""
    items = traces_region_items(analysis, errors, step_index, threshold, lang, rank_page)
    return dict(item for item in items if item is not None)


def traces_region_items(
    analysis: Analysis | None,
    errors: tuple[FileError, ...],
    step_index: int,
    threshold: float,
    lang: str,
    rank_page: int = 0,
) -> Generator[tuple[str, str] | None, None, None]:
    """`traces_regions` a region at a time (element id, markup), each drawn only when asked for; None between two
    steps of a region drawn in steps (the map)."""
    yield "trace-errors", errors_html(errors, lang)
    if analysis is None:
        yield from dict.fromkeys(TRACE_REGIONS, "").items()
        return
    index = min(max(step_index, 0), len(analysis.steps) - 1)
    step = analysis.steps[index]
    shown, total = len(step.drawn), len(step.columns.ranks)
    note = i18n.t("traces.lanes_note", lang, shown=shown, n=total) if shown < total else ""
    late = [s.late_ranks for s in analysis.steps]
    yield "trace-map", (yield from map_drawing(analysis.rank_map, late, threshold, lang))
    yield "trace-lanes-note", text("p", {"class": "help", "data-testid": "trace-lanes-note"}, note) if note else ""
    yield "trace-summary", summary_html(analysis, lang)
    yield "trace-step", step_options(analysis, index, lang)
    yield (
        "trace-timeline-view",
        (yield from trace_timeline_drawing(step, tuple(s.rank for s in analysis.stragglers), lang)),
    )
    yield "trace-ranks", (yield from ranks_drawing(analysis, lang, rank_page))
    yield "alert-rule", text("code", None, rules_file(threshold))
    yield "exposition", text("code", None, exposition(analysis, most=EXPOSED))
    yield "dashboard", text("code", None, dashboard())
