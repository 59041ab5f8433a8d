"""The page's decisions, natively: how each event changes the model, and what the screen shows."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
from ddpview import app, reading, warmup
from ddpview.app import duration_s, slider_from_n
from ddpview.markup import PAIRS_KEPT, patch_text
from ddpview.state import positions
from ddpview.views import IN_PLACE, Frame
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import FIXTURES, WEB

from ddpcore.analysis import measure_loaded
from ddpcore.model.ring import exchange_count
from ddpcore.traces import load
from ddpcore.traces.parse import MAX_FILE_BYTES


def model(fragment: str = "", lang: str = "en-US", reduced: bool = False) -> app.Model:
    return app.initial(fragment, lang, reduced)


def test_initial_language_from_link_else_browser():
    assert model("#lang=fr", "en-US").lang == "fr"
    assert model("", "fr-CA").lang == "fr"
    assert model("", "de-DE").lang == "en"


def test_control_text_reads_checkboxes_and_the_log_slider():
    assert app.control_text("", "x", True, True) == "1"
    assert app.control_text("", "x", False, True) == "0"
    assert app.control_text(app.LOG_SCALE, "0", False, False) == "2", "the smallest run the fit can open"
    assert app.control_text(app.LOG_SCALE, "1000", False, False) == "1000000"
    position = slider_from_n(4096)
    assert abs(int(app.control_text(app.LOG_SCALE, str(position), False, False)) - 4096) < 0.01 * 4096
    assert app.control_text(app.LOG_SCALE, "banana", False, False) == ""
    assert app.control_text("", "1.5", False, False) == "1.5"


def test_a_new_configuration_stops_the_play_and_rewinds():
    m = app.toggle_play(app.next_exchange(model()), now_s=10.0)
    assert m.playing
    changed = app.with_control(m, "slowdown", "2")
    assert not changed.playing and changed.frame == Frame()
    assert changed.state.slowdown == 2.0
    same = app.with_control(m, "lang", "en")
    assert same.playing, "a change that is not the step's configuration keeps the play going"


def test_unreadable_control_text_changes_nothing():
    m = model("#gpus=6")
    assert app.with_control(m, "gpus", "banana").state == m.state


def test_tab_keys_wrap_and_ignore_other_keys():
    assert [app.tab_after(k, 0, 3) for k in ("ArrowRight", "ArrowLeft", "Home", "End", "a")] == [1, 2, 0, 2, None]


def test_next_exchange_counts_to_the_end_and_stops_there():
    m = model("#gpus=4")
    for _ in range(10):
        m = app.next_exchange(m)
    assert m.frame.exchange == exchange_count(4)
    assert app.screen(m).attributes["next-step"]["aria-disabled"] == "true", "still focusable at the end"
    assert app.screen(app.rewind(m)).attributes["next-step"]["aria-disabled"] == "false"


def test_play_runs_to_the_end_and_resumes_from_the_playhead():
    m = app.toggle_play(model(), now_s=100.0)
    length = duration_s(app.schedule_of(m))
    middle = app.tick(m, 100.0 + length / 2)
    assert middle.playing and 0 < middle.frame.playhead_ms < app.schedule_of(m).step_ms
    paused = app.toggle_play(middle, now_s=0.0)
    resumed = app.toggle_play(paused, now_s=500.0)
    assert app.tick(resumed, 500.0).frame.playhead_ms == pytest.approx(middle.frame.playhead_ms)
    done = app.tick(m, 100.0 + length + 1)
    assert not done.playing and done.frame.exchange == exchange_count(8)
    assert app.screen(m).attributes["play"]["aria-pressed"] == "true"
    assert app.screen(done).texts["play"] == "Play"


def test_reduced_motion_jumps_to_the_end():
    m = app.toggle_play(model(reduced=True), now_s=0.0)
    assert not m.playing and m.frame.exchange == exchange_count(8)


def test_playhead_x_is_inside_the_timeline():
    m = app.next_exchange(model())
    assert 0 < app.playhead_x(m) < 900
    assert app.playhead_x(model()) is None


def test_hash_edits_bring_their_notices_and_language():
    m = app.with_hash(model(), "#gpus=99&lang=fr")
    assert m.lang == "fr" and m.state.gpus == 16
    assert [n.key for n in m.notices] == ["gpus"]
    assert app.with_control(m, "slowdown", "2").notices == ()


def test_screen_writes_only_what_changed():
    written: dict = {}
    first = app.changes(app.screen(model()), written)
    assert {kind for kind, _, _ in first} == {"region", "value", "text", "attr", "flag", "view"}
    assert app.changes(app.screen(model()), written) == []
    m = app.with_control(model(), "slowdown", "2")
    again = app.changes(app.screen(m), written, editing="slowdown")
    assert ("value", "slowdown", "2") not in again, "the slider in the user's hand is not written back"
    assert any(kind == "region" and name == "cost-view" for kind, name, _ in again)
    assert ("text", "slowdown-out", "2×") in again


def test_traces_threshold_and_step_picker():
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    loaded = load(files)
    reading = app.loading_traces(replace(model(), state=replace(model().state, view="traces")), 4)
    busy = {"aria-busy": "true"}
    assert app.screen(reading).attributes["trace-results"] == busy
    assert app.screen(app.measuring_traces(reading)).attributes["trace-results"] == busy
    m = app.with_measured(reading, *measure_loaded(loaded))
    assert app.screen(m).attributes["trace-results"] == {"aria-busy": "false"}
    order = [(kind, name) for kind, name, _ in app.changes(app.screen(m), {})]
    last_region = max(i for i, (kind, _) in enumerate(order) if kind == "region")
    assert order.index(("attr", "trace-results")) > last_region, "no longer busy once every region is written"
    assert m.traces.loading == 0 and m.traces.analysis is not None
    assert m.traces.analysis.straggler_rank == 2
    shown = app.screen(m)
    assert 'data-testid="trace-straggler" data-value="2"' in shown.regions["trace-summary"]
    assert not shown.flags["copy-alert"]["disabled"]
    high = app.with_threshold(m, "0.99")
    assert high.traces.analysis.straggler_rank is None and high.traces.threshold == 0.99
    applying = app.threshold_applying(m, " 0.99 ")
    assert app.screen(applying).texts["threshold-note"] == "Applying “0.99”…", "the commit answered at once"
    assert app.screen(applying).attributes["alert-threshold"] == {"aria-busy": "true"}
    assert applying.traces.analysis is m.traces.analysis, "judged later, in steps"
    applied = app.screen(app.with_threshold(applying, "0.99"))
    assert applied.texts["threshold-note"] == "" and applied.attributes["alert-threshold"] == {"aria-busy": "false"}
    for refused, hint in (("nan", "number"), ("0", "range"), ("-1", "range"), ("150", "range"), ("x", "number")):
        kept = app.with_threshold(high, refused)
        assert kept.traces.threshold == 0.99 and kept.traces.analysis == high.traces.analysis, refused
        assert kept.traces.threshold_hint == (hint, refused)
        note = app.screen(kept).texts["threshold-note"]
        assert f"“{refused}” not applied" in note and "Still 0.99" in note
        assert app.screen(kept).flags["alert-threshold"]["value"] == "0.99", "the field shows what is applied"
    percent = app.with_threshold(m, "15")
    assert percent.traces.threshold == 0.15 and "read as a percent: 15%" in app.screen(percent).texts["threshold-note"]
    assert app.with_threshold(m, "15 %").traces.threshold == 0.15
    assert app.screen(app.with_threshold(m, "0.2")).texts["threshold-note"] == ""
    french = replace(m, lang="fr")
    comma = app.with_threshold(french, "0,2")
    assert comma.traces.threshold == 0.2 and app.screen(comma).flags["alert-threshold"]["value"] == "0,2"
    assert app.with_trace_step(m, "3").traces.step_index == 3
    assert app.with_trace_step(m, "not-a-number") == m
    assert app.screen(app.loading_traces(m, 2)).texts["trace-status"] == "Reading 2 file(s)…"


def test_a_drawing_made_in_steps_outlives_an_update_of_what_is_shown_meanwhile(monkeypatch):
    """A threshold's judgement is drawn in steps (`app.drawing`) while the page still shows the last one, and a
    fit arriving meanwhile renders that one again: neither is drawn twice (`app.DRAWINGS_KEPT`)."""
    from ddpview.app import showing
    from ddpview.views import traces as traces_view

    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    shown = app.with_measured(model("#view=traces"), *measure_loaded(load(files)))
    drawn: list[float] = []
    real = traces_view.traces_region_items
    monkeypatch.setattr(showing, "_drawn", showing.Drawings(app.DRAWINGS_KEPT, 1, []))
    monkeypatch.setattr(traces_view, "traces_region_items", lambda *a: drawn.append(a[3]) or real(*a))
    app.screen(shown)
    judged = app.with_threshold(shown, "0.99")
    list(app.drawing(judged))
    app.screen(shown)
    app.screen(judged)
    assert drawn == [shown.traces.threshold, 0.99]


def test_traces_that_cannot_be_compared_say_why():
    loaded = load([(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("rank0.jsonl.gz"))])
    m = app.with_measured(model(), *measure_loaded(loaded))
    assert m.traces.analysis is None and "two ranks" in m.traces.errors[-1].message
    assert app.screen(m).flags["copy-alert"]["disabled"]


def test_reading_then_measuring_then_judged():
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    traces_view = replace(model(), state=replace(model().state, view="traces"))
    m = app.loading_traces(traces_view, 4, tuple((name, len(data)) for name, data in files))
    assert app.screen(m).texts["trace-status"] == "Reading file 1 of 4…"
    m = app.measuring_traces(m)
    assert app.screen(m).texts["trace-status"] == "Analysing 4 trace(s)…"
    assert app.screen(replace(m, lang="fr")).texts["trace-status"] == "Analyse de 4 trace(s)…"
    counted = app.measuring_traces(m, 1200, 11700)
    assert app.screen(counted).texts["trace-status"] == "Analysing 4 trace(s): step 1,200 of 11,700…"
    in_french = app.screen(replace(counted, lang="fr")).texts["trace-status"]
    assert in_french == "Analyse de 4 trace(s) : pas 1\u202f200 sur 11\u202f700…"
    done = app.with_measured(m, *measure_loaded(load(files)))
    assert app.screen(done).texts["trace-status"] == "" and not done.traces.measuring
    assert done.traces.analysis is not None and done.traces.analysis.straggler_rank == 2
    assert app.cancel_reading(m).traces.measuring is False


def test_traces_view_is_redrawn_only_when_what_it_shows_changes():
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / "ddp4").glob("*.jsonl.gz"))]
    done = app.with_measured(
        replace(model(), state=replace(model().state, view="traces")), *measure_loaded(load(files))
    )
    first = app.screen(done).regions
    reading = app.read_progress(app.loading_traces(done, 1, (("x", 10),)), 0, 5, 10)
    assert app.screen(reading).regions["trace-timeline-view"] is first["trace-timeline-view"]
    later = app.screen(app.with_trace_step(reading, "1")).regions
    assert later["trace-timeline-view"] != first["trace-timeline-view"]
    assert app.screen(app.with_threshold(done, "0.99")).regions["trace-summary"] != first["trace-summary"]


def test_progress_of_thousands_of_files_is_two_bars():
    names = tuple((f"rank{i}.ddpsum.json.gz", None) for i in range(4096))
    m = app.loading_traces(model(), 4096, names)
    html = reading.progress_html(m.traces.progress, "en")
    assert html.count('data-testid="trace-progress-file"') == 2 and "0 of 4096 files read" in html
    assert "<progress data-testid" in html, "sizes not known yet: an indeterminate bar"
    m = app.file_sizes(m, [2048] * 4095 + [300 * 1024 * 1024])
    m = app.files_read(m, [(i, i) for i in range(100)])
    m = app.read_progress(m, 100, 1024, 2048)
    html = reading.progress_html(m.traces.progress, "fr")
    assert "100 fichiers lus sur 4096" in html and 'aria-current="step"' in html and "rank100.ddpsum" in html
    assert "1 sur 2 ko" in html, "a small file in kB, not 0 of 0 MB"
    assert html.count('data-testid="trace-progress-file"') == 2
    assert app.screen(m).texts["trace-status"] == "Reading file 101 of 4096…"
    m = app.files_read(m, [(i, i) for i in range(4095)])
    assert m.traces.progress.now is None, "a file over the limit is refused, never read"


def test_progress_says_which_file_is_read_how_far_and_its_rank_once_read():
    m = app.loading_traces(model(), 2, (("a.json", 4 * 1024 * 1024), ("b.json", 2 * 1024 * 1024)))
    m = app.read_progress(m, 0, 1024 * 1024, 4 * 1024 * 1024)
    html = reading.progress_html(m.traces.progress, "en")
    assert html.count('aria-current="step"') == 1 and "1 of 4 MB" in html and "25%" in html
    assert app.screen(m).texts["trace-status"] == "Reading file 1 of 2…"
    m = app.file_read(m, 0, 5)
    html = reading.progress_html(m.traces.progress, "fr")
    assert "a.json · rang 5" in html and "4 sur 4 Mo" in html
    assert html.index('aria-current="step"') > html.index("a.json"), "the second file is now the one read"
    assert app.screen(m).texts["trace-status"] == "Reading file 2 of 2…"
    assert app.file_read(m, 7, 1) == m and app.read_progress(m, -1, 1, 1) == m


_SIZE = st.one_of(st.none(), st.integers(0, 3), st.just(MAX_FILE_BYTES + 1))
_EVENTS = st.lists(
    st.one_of(
        st.tuples(st.just("sizes"), st.lists(st.integers(0, 3) | st.just(MAX_FILE_BYTES + 1), min_size=6, max_size=6)),
        st.tuples(
            st.just("bytes"), st.integers(-1, 6), st.integers(-1, 4), st.integers(0, 3) | st.just(MAX_FILE_BYTES + 1)
        ),
        st.tuples(st.just("read"), st.lists(st.tuples(st.integers(-1, 6), st.integers(0, 9)), max_size=4)),
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_SIZE, min_size=0, max_size=6), _EVENTS)
def test_a_reads_sums_kept_as_it_goes_are_its_files_summed_whole(sizes, events):
    """The progress keeps its sums (files read, bytes, the file being read) as files change rather than walking all
    of them at each of the worker's messages: after any messages, in any order, they are the files' own sums."""
    m = app.loading_traces(model(), len(sizes), tuple((f"f{i}", size) for i, size in enumerate(sizes)))
    for event in events:
        if event[0] == "sizes":
            m = app.file_sizes(m, event[1][: len(sizes)])
        elif event[0] == "bytes":
            m = app.read_progress(m, *event[1:])
        else:
            m = app.files_read(m, event[1])
        progress = m.traces.progress
        files = progress.files
        assert progress.read == sum(f.rank is not None for f in files)
        assert progress.bytes_read == sum(f.done for f in files)
        assert progress.size == (None if any(f.size is None for f in files) else sum(f.size for f in files))
        assert progress.now == next((i for i, f in enumerate(files) if reading.being_read(f)), None)


def test_the_first_render_reuses_the_view_the_build_drew():
    """The memory snapshot holds the default view drawn (build.SNAPSHOT_WARM calls `prerendered`); the page's first
    render of that view must find it there, not draw it again, and a caller may change what it is given."""
    from ddpview.views import page

    import build

    assert "ddpview.warmup:started" in build.SNAPSHOT_WARM
    page._drawn_regions.cache_clear()
    drawn = page.prerendered()
    before = page._drawn_regions.cache_info()
    shown = app.screen(app.initial("", "en-US", False))
    assert page._drawn_regions.cache_info().hits == before.hits + 1
    assert all(shown.regions[name] == drawn[name] for name in page.regions(page.ViewState(), Frame(), "en"))
    shown.regions["timeline-view"] = "changed by its caller"
    assert page.prerendered()["timeline-view"] == drawn["timeline-view"]


def test_warming_draws_screens_and_keeps_nothing():
    """After its start the page draws WARM_RENDERS screens of the One step view at each of the slowdown slider's
    positions in turn (the interpreter's optimised code is compiled once it has run a while); the model and what the
    page then shows are as they were."""
    model = app.initial("#view=traces&gpus=16&slowdown=1.5", "en", False)
    before = app.screen(model)
    screens = list(warmup.warming(model))
    assert len(screens) == warmup.WARM_RENDERS and {s.view for s in screens} == {"step"}
    assert len({s.texts["slowdown-out"] for s in screens}) == len(positions("slowdown")) == 21
    assert model == app.initial("#view=traces&gpus=16&slowdown=1.5", "en", False)
    assert app.screen(model) == before


def test_a_drag_of_the_slowdown_finds_every_position_drawn():
    """Once a setting's positions are drawn (`drag_positions`), each of the slider's positions is looked up, not
    drawn; a view drawn again (not kept) is the same markup as the one kept. The warming keeps nothing."""
    from ddpview.views import page

    model = app.initial("#gpus=12&straggler=3&slowdown=2.3", "fr", False)
    page._drawn_regions.cache_clear()
    for _ in warmup.warming(model):
        pass
    assert page._drawn_regions.cache_info().currsize == 0, "the warming draws, it does not keep"
    patch_text.cache_clear()
    steps = list(warmup.drag_positions(lambda: model))
    made = patch_text.cache_info().misses
    assert len(steps) == len(positions("slowdown")) + made and made >= 4 * (len(positions("slowdown")) - 1)
    before = page._drawn_regions.cache_info()
    shown, moved = None, 0
    for text in reversed(positions("slowdown")):
        dragged = app.with_control(model, "slowdown", text)
        now = app.screen(dragged)
        assert now.regions == app.screen(dragged, kept=False).regions
        for name in page.IN_PLACE if shown is not None else ():
            if shown.regions[name] != now.regions[name]:
                patch_text(shown.regions[name], now.regions[name])
                moved += 1
        shown = now
    after = page._drawn_regions.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (21, 0)
    assert patch_text.cache_info().misses == made and moved >= 2 * 20, "each move's patches were made before it"
    assert patch_text.cache_info().currsize <= PAIRS_KEPT
    playing = app.toggle_play(model, 0.0)
    for t in (0.1, 0.2, 0.3):
        app.screen(app.tick(playing, t))
    assert page._drawn_regions.cache_info().currsize == after.currsize, "the play's frames are not kept"
    assert 2 * len(positions("slowdown")) <= page.SCREENS_KEPT, "two settings' drags are kept"


def test_the_drag_s_positions_are_drawn_where_the_slider_goes(monkeypatch):
    """Each step of `drag_positions` draws the position nearest where the slider is at that step, ahead of its last
    move first: a drag that jumps far from where the preparing began finds its next positions drawn all the same."""
    drawn: list[float] = []
    alike = SimpleNamespace(regions=dict.fromkeys(IN_PLACE, ""))
    from ddpview.warmup import ahead

    monkeypatch.setattr(ahead, "screen", lambda model, kept=True: drawn.append(model.state.slowdown) or alike)
    model = app.initial("#slowdown=2.9", "en", False)
    now = [model]
    steps = warmup.drag_positions(lambda: now[0])
    for text in ("2.9", "2.9", "1.0", "1.0", "1.5", "1.5"):
        now[0] = app.with_control(model, "slowdown", text)
        next(steps)
    assert drawn == [2.9, 2.8, 1.0, 1.1, 1.5, 1.6]
    now[0] = app.with_control(model, "slowdown", "1.3")
    assert next(steps) is None and drawn[-1] == 1.3
    next(steps)
    assert drawn[-1] == 1.2, "moving down now: below first"
    now[0] = None
    assert list(steps) == [] and len(drawn) == 8, "None stops it"


def test_a_slider_setting_is_all_the_state_but_the_slowdown():
    """A drag is prepared for once per setting: moving the slowdown keeps it; any other control, the language, or
    another view (none) changes it."""
    model = app.initial("#gpus=12", "en", False)
    setting = warmup.slider_setting(model)
    assert setting is not None
    assert warmup.slider_setting(app.with_control(model, "slowdown", "2.7")) == setting
    for other in (
        app.with_control(model, "gpus", "16"),
        app.with_control(model, "prefetch", "1"),
        app.with_lang(model, "fr"),
    ):
        assert warmup.slider_setting(other) not in (None, setting)
    assert warmup.slider_setting(app.with_view(model, "cluster")) is None
    assert warmup.slider_setting(app.toggle_play(model, 0.0)) is None


def test_the_slowdown_slider_steps_through_its_positions():
    """The page's range input and `positions` agree: its min, max and step are the field's range and precision."""
    import re

    html = (WEB / "index.html").read_text()
    tag = re.search(r'<input id="slowdown"[^>]*>', html)
    assert tag is not None
    attrs = dict(re.findall(r'(min|max|step)="([^"]*)"', tag.group(0)))
    texts = positions("slowdown")
    assert float(attrs["min"]) == float(texts[0]) and float(attrs["max"]) == float(texts[-1])
    assert round(float(texts[1]) - float(texts[0]), 9) == float(attrs["step"])
