"""Thousands of ranks on the page: the view stays small and legible, the ranks table pages, the measurement reaches the
page in small parts, judged and drawn in steps."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest
from ddpview import i18n
from ddpview.markup import esc
from ddpview.views import CELLS_PER_STEP, TABLE_ROWS, TRACE_REGIONS, map_svg, traces_regions
from ddpview.views import ROWS_PER_STEP as RANK_ROWS_PER_STEP
from paths import FIXTURES

from ddpcore.analysis import judge, measure
from ddpcore.analysis.rankmap import MAX_ROWS, rank_step_map
from ddpcore.analysis.stepwise import DRAWN_LATEST
from ddpcore.base import THRESHOLD
from ddpcore.traces import simulated_run
from scripts.tracegen import BIG_PERSISTENT, BIG_PROBABILITY, BIG_RANKS, BIG_STEPS

RANKS, STEPS, PERSISTENT, P = BIG_RANKS, BIG_STEPS, BIG_PERSISTENT, BIG_PROBABILITY


def test_the_view_stays_small_and_legible_at_4096_ranks(big):
    analysis, _ = big
    regions = traces_regions(analysis, (), 0, THRESHOLD.default, "en")
    svg = regions["trace-map"]
    tree = ElementTree.fromstring(svg)
    assert tree.get("data-testid") == "rank-step-map" and int(tree.get("data-rows")) == MAX_ROWS
    assert len(svg) < 400_000
    assert regions["trace-timeline-view"].count('data-testid="lane"') == DRAWN_LATEST + 1
    assert i18n.t("traces.lanes_note", "en", shown=DRAWN_LATEST + 1, n=RANKS) in regions["trace-lanes-note"]
    assert regions["trace-ranks"].count('data-testid="trace-rank"') == TABLE_ROWS
    first = regions["trace-ranks"].split('data-testid="trace-rank"')[1]
    assert f">{PERSISTENT}<" in first.split("</tr>")[0], "the table starts with the latest rank"
    assert 'data-testid="map-row"' in map_svg(
        rank_step_map(analysis.steps), [s.late_ranks for s in analysis.steps], THRESHOLD.default, "fr"
    )


def test_the_ranks_table_pages_through_every_rank_latest_first(big):
    from ddpview.views import ranks_table

    analysis, _ = big
    first = ranks_table(analysis, "en", 0)
    assert i18n.t("traces.table_note", "en", first=1, last=TABLE_ROWS, n=RANKS) in first
    assert 'data-rank-page="-1"' in first
    assert first.split('data-testid="ranks-prev"')[1].split(">")[0].count("disabled") == 1
    pages = -(-RANKS // TABLE_ROWS)
    last = ranks_table(analysis, "fr", 10**6)
    assert last.count('data-testid="trace-rank"') == RANKS - (pages - 1) * TABLE_ROWS
    assert esc(i18n.t("traces.table_note", "fr", first=(pages - 1) * TABLE_ROWS + 1, last=RANKS, n=RANKS)) in last
    assert last.split('data-testid="ranks-next"')[1].split(">")[0].count("disabled") == 1
    seen = set()
    for page in range(pages):
        seen |= {
            int(r.split(">")[2].split("<")[0])
            for r in ranks_table(analysis, "en", page).split('data-testid="trace-rank"')[1:]
        }
    assert seen == set(range(RANKS))


def test_rank_page_in_the_model():
    from ddpview import app

    m = app.initial("#view=traces", "en", False)
    assert app.with_rank_page(m, "3").traces.rank_page == 3
    assert app.with_rank_page(m, "x") == m and app.with_rank_page(m, "-4").traces.rank_page == 0


def test_the_measurement_reaches_the_page_in_small_parts(big):
    import pickle

    from ddpview.reading import transfer

    from ddpcore.analysis import measure

    runs, _ = simulated_run(RANKS, 20, (PERSISTENT,), P, seed=4)
    measured = measure(runs)
    blobs = transfer.parts(measured, (), None, "")
    per_step, per_row = transfer.ITEMS_PER_PART // RANKS, transfer.ITEMS_PER_PART // 20
    rows = len(measured.rank_map.rows)
    assert len(blobs) >= 1 + -(-RANKS // transfer.RANKS_PER_PART) + -(-20 // per_step) + -(-rows // per_row)
    pieces = [transfer.unpickled(b) for b in blobs]
    for blob, (name, items) in zip(blobs[1:], pieces[1:]):
        single = len(items[0] if name == "map" else items) == 1
        assert len(blob) <= transfer.PART_BYTES or single, "a few ms each to unpickle, not 40"
    assert len(pickle.dumps(measured)) > 20 * transfer.PART_BYTES
    assert len(blobs[0]) < len(pickle.dumps(measured.rank_map)) / 10, "the map's cells come in parts of their own"
    assert transfer.joined(pieces) == (measured, (), None, "")
    assert transfer.joined([transfer.unpickled(b) for b in transfer.parts(None, ("e",), None, "few")]) == (
        None,
        ("e",),
        None,
        "few",
    )


def test_steps_heavy_with_drawn_spans_come_in_parts_cut_by_size(monkeypatch):
    """A real 8-rank trace: few steps, but each holds its ranks' drawn spans; parts are cut by their pickled size, not
    only by their count of items, down to one item a part, and join back to the same measurement."""
    import pickle

    from ddpview.reading import transfer

    from ddpcore.analysis import measure_loaded
    from ddpcore.traces import load

    files = sorted((FIXTURES / "ddp8" / "s2.0").glob("*.pt.trace.json.gz"))
    measured, errors = measure_loaded(load([(f.name, f.read_bytes()) for f in files]))
    assert measured is not None and not errors and len(measured.steps) > 4
    bound = 3 * max(len(pickle.dumps(step)) for step in measured.steps)
    monkeypatch.setattr(transfer, "PART_BYTES", bound)
    blobs = transfer.parts(measured, (), None, "")
    pieces = [transfer.unpickled(b) for b in blobs]
    steps = [(len(blob), piece[1]) for blob, piece in zip(blobs[1:], pieces[1:]) if piece[0] == "steps"]
    assert len(steps) > 1, "a count of items alone would have made them one part"
    assert all(size <= bound for size, _ in steps) and all(len(items) >= 1 for _, items in steps)
    assert transfer.joined(pieces) == (measured, (), None, "")


def test_a_real_jsonl_run_s_steps_come_in_parts_of_a_few_objects():
    """A real JSONL run's drawn spans are objects, the slowest bytes to unpickle: its 39 steps (150 kB, 5 ms to
    unpickle natively, tens of ms in the page on a slow machine) come in several parts under PART_BYTES."""

    from ddpview.reading import transfer

    from ddpcore.analysis import measure_loaded
    from ddpcore.traces import load

    files = sorted((FIXTURES / "ddp8" / "s2.0").glob("*.jsonl.gz"))
    measured, _ = measure_loaded(load([(f.name, f.read_bytes()) for f in files]))
    assert measured is not None
    blobs = transfer.parts(measured, (), None, "")
    steps = [b for b in blobs[1:] if transfer.unpickled(b)[0] == "steps"]
    assert len(steps) > 2 and max(map(len, steps)) <= transfer.PART_BYTES


def test_many_stragglers_are_listed_up_to_a_few_and_counted_past_them():
    """A quarter of 128 ranks 2x slow, and 3x slowdowns with probability 0.05: more stragglers than the verdict
    lists."""
    from ddpview.views import LISTED, verdict_html

    runs, _ = simulated_run(128, 12, tuple(range(0, 128, 4)), 0.05, seed=2)
    low = judge(measure(runs))
    assert len(low.stragglers) > LISTED and len(low.transient.ranks) > LISTED
    html = verdict_html(low, "en")
    assert html.count('data-testid="trace-persistent"') == LISTED
    assert f"and {len(low.stragglers) - LISTED} more" in html
    assert f"and {len(low.transient.ranks) - LISTED} more" in html and len(html) < 10_000


def test_thousands_of_ranks_are_judged_and_drawn_in_steps_the_page_can_interleave(measured_big, big):
    from ddpview import app

    from ddpcore.analysis.verdict import JUDGED_A_STEP, judge_in_steps
    from ddpcore.base.steps import finished

    measured = measured_big[0]
    steps = judge_in_steps(measured)
    yields = 0
    while True:
        try:
            next(steps)
            yields += 1
        except StopIteration as end:
            assert end.value == big[0]
            break
    n = len(measured.steps)
    assert n < yields <= n + 8 * (1 + n * len(measured.ranks) // JUDGED_A_STEP), "a step at a time, passes in chunks"
    with pytest.raises(ValueError):
        judge_in_steps(measured, -1.0)

    model = app.initial("view=traces", "en", False)
    in_steps = app.measured_in_steps(model, measured, ())
    model = finished(in_steps)
    drawn = list(app.drawing(model))
    cells = app.screen(model).regions["trace-map"].count('class="map-cell')
    in_map = (cells - 1) // CELLS_PER_STEP
    in_table = (TABLE_ROWS - 1) // RANK_ROWS_PER_STEP
    lanes = len(model.traces.analysis.steps[model.traces.step_index].drawn)
    assert lanes > 1 and len(drawn) == 1 + len(TRACE_REGIONS) + in_map + in_table + lanes, (
        "a region, a lane, or some of the map or table, a step"
    )
    assert app.screen(model) == app.screen(app.with_measured(app.initial("view=traces", "en", False), measured, ()))


def test_the_threshold_pass_compares_a_bounded_count_of_gaps_between_yields(measured_big, monkeypatch):
    """Which ranks are over the threshold is one C pass over a step's gaps: 512 steps of 4,096 ranks between two
    yields had held the page 340 ms at CPU rate 2."""
    from ddpcore.analysis import StepColumns
    from ddpcore.analysis.verdict import RANK_STEPS_A_STEP, judge_in_steps

    compared = [0]
    late = StepColumns.late

    def counted(self, threshold):
        compared[0] += len(self.gap)
        return late(self, threshold)

    monkeypatch.setattr(StepColumns, "late", counted)
    most = 0
    for _ in judge_in_steps(measured_big[0]):
        most, compared[0] = max(most, compared[0]), 0
    assert 0 < most <= RANK_STEPS_A_STEP
