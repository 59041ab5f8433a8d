"""The drawing functions, natively: element counts, labels, escaping, finite numbers."""

from __future__ import annotations

import math
import re
from xml.etree import ElementTree

import pytest
from ddpview import i18n
from ddpview.app import duration_s, elapsed_for, playhead_for_exchange, position
from ddpview.markup import attrs, num, tag, text
from ddpview.state import Notice, ViewState
from ddpview.views import (
    Frame,
    TimelineGeometry,
    axis_max_ms,
    cost_html,
    notices_html,
    regions,
    ring_svg,
    shade,
    straggler_options,
    timeline_svg,
)
from ddpview.warmup import fill_template
from hypothesis import given
from hypothesis import strategies as st

from ddpcore import StepConfig, build_schedule, step_metrics


def parse(markup: str) -> ElementTree.Element:
    return ElementTree.fromstring(markup)


def by_testid(root: ElementTree.Element, testid: str) -> list[ElementTree.Element]:
    return [e for e in root.iter() if e.get("data-testid") == testid]


@pytest.mark.parametrize("gpus", [2, 5, 8, 16])
def test_ring_has_one_group_per_gpu_and_n_chunks_each(gpus):
    root = parse(ring_svg(gpus, 0, (), "en"))
    nodes = by_testid(root, "gpu")
    assert len(nodes) == gpus
    for node in nodes:
        assert len([e for e in node.iter() if e.get("data-chunk") is not None]) == gpus
    assert by_testid(root, "send") == []


def test_ring_arrows_and_labels_follow_the_exchange():
    root = parse(ring_svg(8, 3, (2,), "en"))
    sends = by_testid(root, "send")
    assert len(sends) == 8
    assert {(int(s.get("data-src")), int(s.get("data-chunk"))) for s in sends} == {(i, (i - 2) % 8) for i in range(8)}
    assert by_testid(root, "stage-label")[0].text == "reduce-scatter 3/7"
    assert float(by_testid(root, "sent")[0].get("data-value")) == pytest.approx(3 / 8)
    assert "straggler" in by_testid(root, "gpu")[2].get("class")
    root = parse(ring_svg(8, 10, (), "fr"))
    assert by_testid(root, "stage-label")[0].text == "all-gather 3/7"
    assert "1,25" in by_testid(root, "sent")[0].text


def test_ring_final_marks():
    end = parse(ring_svg(4, 6, (), "en"))
    chunks = [e for e in end.iter() if e.get("data-chunk") is not None and e.tag == "rect"]
    assert all(c.get("data-final") == "1" and "final" in c.get("class") for c in chunks)


def test_shade_goes_from_light_to_dark():
    assert shade(1, 8) == "#dbeafe"
    assert shade(8, 8) == "#1e40af"


def test_timeline_lanes_bars_and_hatch():
    schedule = build_schedule(StepConfig(slowdown=2.0))
    root = parse(timeline_svg(schedule, 100, "en", ideal_ms=44, playhead_ms=None))
    lanes = by_testid(root, "lane")
    assert len(lanes) == 8
    waits = [e for e in root.iter() if e.get("data-phase") == "wait"]
    assert len(waits) == 7, "the straggler does not wait; the 7 others do"
    assert all(float(w.get("data-ms")) == pytest.approx(26) for w in waits)
    unshown = [[e.tag.split("}")[1] for e in lane.iter() if e.get("display") == "none"] for lane in lanes]
    assert unshown[2] == ["rect", "rect"], "the straggler's time between steps and wait, of 0 ms, drawn unshown"
    assert unshown[0] == ["rect", "rect"], "another's band and time between steps, drawn unshown"
    assert root.find(".//{http://www.w3.org/2000/svg}pattern[@id='hatch']") is not None
    assert "straggler" in lanes[2].get("class")
    assert "▲ 2×" in "".join(lanes[2].itertext())
    playhead = by_testid(root, "playhead")[0]
    assert "hidden" in playhead.get("class")
    phases = {e.get("data-phase") for e in root.iter() if e.get("data-phase")}
    assert phases == {"load", "forward", "backward", "wait", "allreduce", "optimizer"}


def test_timeline_geometry_maps_the_axis():
    geo = TimelineGeometry(100, 8)
    assert geo.x_of(0) == 118
    assert geo.x_of(100) == 900 - 24
    assert geo.x_of(1e9) == geo.x_of(100)


def test_axis_is_stable_across_slowdown():
    assert axis_max_ms(ViewState(slowdown=1.0)) == axis_max_ms(ViewState(slowdown=2.5)) == 100


def test_cost_panel_values():
    m = step_metrics(StepConfig(slowdown=1.5))
    root = parse("<div>" + cost_html(m, "en") + "</div>")
    values = {e.get("data-testid"): float(e.get("data-value")) for e in root.iter() if e.get("data-value")}
    assert values["step-time"] == 57
    assert values["ideal-step-time"] == 44
    assert values["efficiency"] == pytest.approx(44 / 57)
    assert values["straggler-cost"] == 13
    assert values["prefetch-gain"] == 5
    assert values["displayed-util"] == pytest.approx(51 / 57)
    assert values["useful-compute"] == pytest.approx(13 / 57)


def test_every_text_has_both_languages_and_same_placeholders():
    for key, entry in i18n.TEXT.items():
        assert set(entry) == {"en", "fr"}, key
        assert re.findall(r"\{(\w+)\}", entry["en"]) == re.findall(r"\{(\w+)\}", entry["fr"]), key


def test_french_numbers():
    assert i18n.number(1234.5, "fr") == "1\u202f234,5"
    assert i18n.ms(57, "fr") == "57\u202fms"
    assert i18n.percent(0.772, "en") == "77.2%"
    assert i18n.number(math.nan, "en") == "–"
    assert i18n.pick_lang("fr-CA") == "fr"
    assert i18n.pick_lang("de") == "en"


def test_escaping_everywhere():
    evil = '<script>alert(1)</script>" onload="x'
    markup = text("text", {"title": evil}, evil)
    assert "<script>" not in markup
    assert 'onload="x' not in markup
    notices = notices_html((Notice(evil, evil, "1"),), "en")
    assert "<script>" not in notices
    assert parse(notices).tag == "li"


def test_numbers_must_be_finite():
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError):
            num(bad)
        with pytest.raises(ValueError):
            attrs({"x": bad})
    assert num(-0.0) == "0"
    assert tag("rect", {"x": 1.5, "hidden": True, "skip": None}) == '<rect x="1.5" hidden></rect>'


def test_regions_and_template_fill():
    filled = regions(ViewState(), Frame(), "fr")
    assert set(filled) == {"modes-view", "ring-view", "timeline-view", "cost-view", "exchange-view"}
    html = fill_template('<h1 data-i18n="title"></h1><div id="ring-view" data-region></div>', filled, "fr")
    assert "Un pas d'entraînement data-parallèle" in html
    assert 'data-testid="ring"' in html
    assert straggler_options(3, 1, "en").count("<option") == 3
    assert 'value="1" selected' in straggler_options(3, 1, "en")


def test_playback_lingers_on_the_allreduce_and_ends():
    schedule = build_schedule(StepConfig())
    assert position(schedule, 0).t_ms == 0
    assert position(schedule, 0).exchange == 0
    end = position(schedule, duration_s(schedule) + 1)
    assert end.done and end.exchange == 14 and end.t_ms == 44
    for k in range(15):
        t = playhead_for_exchange(schedule, k)
        assert position(schedule, elapsed_for(schedule, t) + 1e-6).exchange == k


@given(st.floats(0, 60, allow_nan=False))
def test_playback_is_monotonic(elapsed):
    schedule = build_schedule(StepConfig(slowdown=1.7))
    a, b = position(schedule, elapsed), position(schedule, elapsed + 0.05)
    assert a.t_ms <= b.t_ms and a.exchange <= b.exchange


def test_cluster_plot_and_values():
    from ddpview.app import n_from_slider, slider_from_n
    from ddpview.views import cluster_plot_svg, cluster_values_html

    from ddpcore.model import ClusterConfig, cluster_step, cluster_sweeps

    config = ClusterConfig(gpus=5000)
    current = cluster_step(config)
    root = parse(cluster_plot_svg(cluster_sweeps(config), current, "ring", "en"))
    assert root.get("data-testid") == "cluster-plot"
    assert len([e for e in root.iter() if e.tag.endswith("polyline")]) == 3
    assert by_testid(root, "cluster-marker")[0].get("data-value") == "5000"
    values = parse("<div>" + cluster_values_html(current, "fr") + "</div>")
    got = {e.get("data-testid"): float(e.get("data-value")) for e in values.iter() if e.get("data-value")}
    assert got["cluster-step-time"] == current.expected_step_ms
    assert got["cluster-p-any"] == current.p_any_straggler
    assert n_from_slider(0) == 2 and n_from_slider(1000) == 1_000_000
    for n in (8, 100, 4096, 1_000_000):
        assert abs(n_from_slider(slider_from_n(n)) / n - 1) < 0.01


def test_timeline_overlap_has_a_comm_row_of_buckets():
    from ddpcore.model import Link

    schedule = build_schedule(StepConfig(mode="overlap", link=Link(), slowdown=2.0))
    root = parse(timeline_svg(schedule, 100, "en"))
    lanes = by_testid(root, "lane")
    for lane in lanes:
        buckets = [e for e in lane.iter() if e.get("data-bucket") is not None]
        assert len(buckets) == len(schedule.buckets) == 9
        assert all(e.get("data-phase") == "allreduce" for e in buckets)
    phases = {e.get("data-phase") for e in root.iter() if e.get("data-phase")}
    assert "wait" in phases


def test_template_fill_finds_regions_whatever_the_attribute_order():
    template = (
        '<div data-region id="a">old</div><section id="b" class="c" data-region>old</section>'
        '<p data-i18n="traces.copy"></p><input data-i18n-attr="placeholder:traces.copy" id="i">'
    )
    out = fill_template(template, {"a": "<b>A</b>", "b": "B"}, "fr")
    assert out == (
        '<div data-region id="a"><b>A</b></div><section id="b" class="c" data-region>B</section>'
        '<p data-i18n="traces.copy">Copier</p>'
        '<input data-i18n-attr="placeholder:traces.copy" id="i" placeholder="Copier">'
    )
