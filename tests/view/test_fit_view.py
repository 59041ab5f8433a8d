"""Your run at scale, drawn natively: the panel's states, both languages, and the link to the Cluster view."""

from __future__ import annotations

from dataclasses import replace
from html import escape
from xml.etree import ElementTree

import pytest
from ddpview import app
from ddpview.state import decode
from paths import FIXTURES

from ddpcore.analysis import measure_loaded
from ddpcore.base.params import MAX_PHASE_MS
from ddpcore.base.words import LANGS, Message, placeholders, say
from ddpcore.traces import load


def traces_model(folder: str, pattern: str = "*.jsonl.gz", lang: str = "en") -> app.Model:
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / folder).glob(pattern))]
    return app.with_measured(app.initial("#view=traces", lang, False), *measure_loaded(load(files)))


def test_the_fit_runs_after_the_analysis_and_again_for_a_new_threshold():
    m = traces_model("ddp8_transient")
    assert app.fit_due(m) and 'data-testid="fit-pending"' in app.screen(m).regions["trace-fit"]
    fitted = app.with_outlook(m)
    assert not app.fit_due(fitted) and fitted.traces.outlook is not None
    assert 'data-testid="fit-check"' in app.screen(fitted).regions["trace-fit"]
    again = app.with_threshold(fitted, "0.3")
    assert app.fit_due(again), "a new threshold changes who is late: the fit is made again"
    assert app.with_outlook(again).traces.outlook.fit.straggler_prob <= fitted.traces.outlook.fit.straggler_prob


@pytest.mark.parametrize("lang", LANGS)
def test_panel_is_well_formed_in_both_languages(lang):
    m = app.with_outlook(traces_model("ddp8/s1.5", lang=lang))
    markup = app.screen(m).regions["trace-fit"]
    ElementTree.fromstring(f"<div>{markup}</div>")
    assert markup.count('data-testid="fit-scale-row"') == 4
    assert ("rang 2" if lang == "fr" else "rank 2") in markup
    assert "nan" not in markup.lower().replace("nanc", "")


@pytest.mark.parametrize(
    ("folder", "pattern", "gpus"),
    [("ddp8_transient", "*.jsonl.gz", 8), ("ddp4", "*.jsonl.gz", 4), ("hta_torchrec", "*.json.gz", 2)],
)
def test_the_link_opens_the_cluster_view_on_the_fitted_run(folder, pattern, gpus):
    """At the run's own size, with the fitted figures to the last digit: the Cluster view computes what the fit
    table and `cluster --from` compute (no rounding in the link, no minimum above the run's size)."""
    from ddpcore.analysis.fitting import cluster_config
    from ddpcore.model import cluster_step

    m = app.with_outlook(traces_model(folder, pattern))
    seen = m.traces.outlook
    href = app.screen(m).regions["trace-fit"].split('data-testid="fit-open-cluster"')[0].rsplit('href="', 1)[1]
    state, notices = decode(href.split('"')[0].replace("&amp;", "&"))
    assert notices == () and state.view == "cluster"
    assert state.cluster.gpus == gpus == seen.fit.gpus and state.cluster.timing.compute_ms == seen.fit.compute_ms
    cluster = app.screen(replace(m, state=state)).regions
    expected = cluster_step(cluster_config(seen.fit))
    a = m.traces.analysis
    own = seen.scale[0]
    assert own.gpus == gpus and own.expected_step_ms == a.step_ms, "the table's first row is the run as measured"
    assert own.efficiency == pytest.approx(a.efficiency) and own.ideal_step_ms == a.ideal_step_ms

    def shown(testid: str) -> float:
        return float(cluster["cluster-values"].split(f'data-testid="{testid}" data-value="')[1].split('"')[0])

    assert shown("cluster-step-time") == expected.expected_step_ms == seen.check.expected_step_ms
    assert shown("cluster-p99") == expected.p99_step_ms and shown("cluster-efficiency") == expected.efficiency
    assert shown("cluster-hours-lost") == expected.gpu_hours_lost_per_day
    assert 'data-testid="cluster-timing"' in cluster["cluster-timing"]
    assert 'data-testid="cluster-allreduce"' not in cluster["cluster-values"]


def test_a_run_that_cannot_be_fitted_says_why_in_both_languages():
    one_step = traces_model("hta_torchrec", "*.json.gz")
    fitted = app.with_outlook(one_step)
    assert fitted.traces.outlook is not None, "two ranks, two steps: enough to fit, with its caveats"
    assert "few_rank_steps" in fitted.traces.outlook.fit.caveats
    markup = app.screen(fitted).regions["trace-fit"]
    assert say("fit.caveat_few_rank_steps") in markup


def test_no_traces_no_fit():
    m = app.initial("#view=traces", "en", False)
    assert not app.fit_due(m) and app.with_outlook(m) == m
    assert 'data-testid="fit-check"' not in app.screen(m).regions["trace-fit"]


@pytest.mark.parametrize("code", ["few", "compute"])
def test_fit_errors_are_one_line_in_both_languages(code):
    from ddpview.state import ViewState
    from ddpview.views import fit_html

    said = Message.of(f"fit.error_{code}", **dict.fromkeys(placeholders(f"fit.error_{code}"), 1))
    for lang in LANGS:
        markup = fit_html(ViewState(), None, said, False, lang)
        assert 'data-testid="fit-error"' in markup and escape(said.text(lang)) in markup


def test_measured_timing_in_a_link_is_bounded_and_said():
    state, notices = decode("#view=cluster&cm=-3&om=1e12")
    assert state.cluster.timing is None and {n.key for n in notices} == {"cm", "om"}, (
        "a rest of the step alone is dropped"
    )
    state, notices = decode("#view=cluster&cm=40&om=1e12")
    assert state.cluster.timing.other_ms == MAX_PHASE_MS and [n.key for n in notices] == ["om"]
    assert app.screen(app.initial("#view=cluster&om=5", "en", False)).regions["cluster-timing"] == ""


def test_a_fit_made_by_the_worker_is_kept_only_at_the_current_threshold():
    from ddpcore.analysis import RunTimes, outlook

    m = traces_model("ddp8_transient")
    seen = outlook(RunTimes.of_analysis(m.traces.analysis), m.traces.threshold)
    kept = app.with_fitted(m, seen, "")
    assert kept.traces.outlook is seen and not app.fit_due(kept)
    stale = app.with_threshold(m, "0.2")
    assert app.with_fitted(stale, seen, "") == stale and app.fit_due(stale)
    assert app.with_fitted(m, None, "few").traces.fit_error == "few"
