"""One screen, one answer, on the page: the fit panel says what the verdict says, each concept has one name, the cluster
slider moves by the keyboard, before traces the view shows what will appear."""

from __future__ import annotations

import re

import pytest
from ddpview import app
from ddpview.app import slider_from_n
from ddpview.i18n import TEXT
from ddpview.views import cluster_plot_svg, fit_html
from paths import FIXTURES, WEB
from runs import files
from runs import judged as analysed

from ddpcore.analysis import RunTimes, measure_loaded, outlook
from ddpcore.analysis.fitting import bounded
from ddpcore.base.words import LANGS
from ddpcore.cli import main
from ddpcore.traces import load

NOISY = FIXTURES / "noise"


@pytest.mark.parametrize("lang", LANGS)
def test_a_run_without_straggler_cost_has_nothing_to_gain(lang):
    a = analysed(NOISY / "clean", "*.pt.trace.json.gz")
    seen = outlook(RunTimes.of_analysis(a), a.threshold)
    panel = fit_html(app.initial("view=traces", lang, False).state, seen, "", False, lang)
    whatif = re.search(r'data-testid="fit-whatif"[^>]*>([^<]+)<', panel).group(1)
    assert ("Nothing to gain" if lang == "en" else "Rien à gagner") in whatif
    assert "instead of" not in whatif and "au lieu de" not in whatif


@pytest.mark.parametrize("lang", LANGS)
def test_a_fitted_value_past_the_models_range_says_what_is_used(lang, capsys):
    """A 400 ms pause makes its rank-steps 30x slower; the model goes up to 10x: the panel says so where the value
    is, and the command line too."""
    a = analysed(NOISY / "gc", "*.pt.trace.json.gz")
    seen = outlook(RunTimes.of_analysis(a), a.threshold)
    assert seen.fit.slowdown > 20 and bounded(seen.fit) == {"slowdown": 10.0}
    panel = fit_html(app.initial("view=traces", lang, False).state, seen, "", False, lang)
    figure = panel.split('data-testid="fit-s"')[1].split("</output>")[0]
    assert "10×" in figure and ("goes up to 10×" in figure or "jusqu&#x27;à 10×" in figure)
    paths = [str(p) for p in sorted((NOISY / "gc").glob("*.pt.trace.json.gz"))]
    assert main(["analyze", *paths, "--fit"]) == 0
    assert "the model goes up to 10 for slowdown" in capsys.readouterr().out


def test_the_cluster_slider_always_moves_by_the_keyboard():
    n = 2
    seen = [n]
    for _ in range(12):
        n = int(app.control_text(app.LOG_SCALE, str(slider_from_n(n) + 1), False, False, n))
        seen.append(n)
    assert seen == sorted(set(seen)) and seen[-1] >= 12, "ArrowRight from N = 2 goes up, a GPU at a time"
    for _ in range(20):
        n = int(app.control_text(app.LOG_SCALE, str(slider_from_n(n) - 1), False, False, n))
    assert n == 2


def test_a_cluster_smaller_than_the_sweep_is_marked_where_it_is():
    from ddpcore.model import ClusterConfig, cluster_step, cluster_sweeps

    svg = cluster_plot_svg(cluster_sweeps(ClusterConfig(gpus=8)), cluster_step(ClusterConfig(gpus=2)), "ring", "en")
    marker = float(re.search(r'data-testid="cluster-marker".*?x1="([\d.]+)"', svg).group(1))
    ticks = {label: float(x) for x, label in re.findall(r'<text x="([\d.]+)"[^>]*class="tick">([^<]+)<', svg)}
    assert marker == ticks["2"] < ticks["10"], "N = 2 is drawn at 2 on an axis that reaches it, not on 8"


def test_before_traces_the_view_shows_the_drop_zone_and_one_line():
    empty = app.screen(app.initial("view=traces", "en", False))
    for part in app.TRACES_FOUND:
        assert empty.flags[part]["hidden"], part
    assert not empty.flags["traces-empty"]["hidden"]
    m = app.with_measured(
        app.initial("view=traces", "en", False), *measure_loaded(load(files(FIXTURES / "ddp4", "*.jsonl.gz")))
    )
    found = app.screen(m)
    assert not any(found.flags[part]["hidden"] for part in app.TRACES_FOUND) and found.flags["traces-empty"]["hidden"]


def test_each_concept_has_one_name_in_each_language():
    french = " ".join(v["fr"] for v in TEXT.values() if "fr" in v)
    assert "transitoire" not in french, "a transient straggler is a retardataire passager, everywhere"
    assert "part en {part}" not in french and "part en entre" not in french
    assert TEXT["fit.evidence"]["fr"].format(k=1, n=28) == "1 sur 28 pas-rangs"
    for key, words in TEXT.items():
        if "transient" in words.get("en", "").lower() and "fr" in words:
            assert "passag" in words["fr"] or "transitoire" not in words["fr"], key


def test_the_h200_measurement_is_said_once_and_the_simplifications_only_under_one_step():
    html = (WEB / "index.html").read_text()
    step = html.split('id="panel-step"')[1].split('id="panel-cluster"')[0]
    assert 'data-i18n="simplifies.body"' in step and html.count('data-i18n="simplifies.body"') == 1
    from ddpview.i18n import H200_EN

    assert H200_EN not in TEXT["measure.body"]["en"] and H200_EN in TEXT["cost.h200"]["en"]


GAP_NOTE = re.compile(r'data-testid="trace-gap-note"[^>]*>([^<]+)<')


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("pattern", ["*.jsonl.gz", "*.pt.trace.json.gz"])
def test_a_large_gap_beside_a_full_efficiency_says_why_in_words(lang, pattern):
    """A clean run on a busy machine: each step's latest rank is a fifth of the step behind, and nothing is named.
    "Efficiency 100 %" beside "gap 25 %" would read as a contradiction: each figure says what it is over, and a
    sentence says why the gap is not a straggler's."""
    from ddpview.views.traces import summary_html

    a = analysed(FIXTURES / "verdict" / "window3_clean", pattern)
    assert a.stragglers == () and a.efficiency == 1.0 and a.median_gap >= a.threshold
    markup = summary_html(a, lang)
    note = GAP_NOTE.search(markup).group(1)
    assert (
        ("jitter this run shows" in note or "too few" in note)
        if lang == "en"
        else ("gigue" in note or "hasard" in note)
    )
    labels = ("per step, all ranks together", "whoever it is", "without the stragglers named")
    french = ("par pas, tous rangs confondus", "quel qu&#x27;il soit", "sans les retardataires désignés")
    for label in labels if lang == "en" else french:
        assert label in markup, label
    slow = summary_html(analysed(FIXTURES / "verdict" / "window3_slow", pattern), lang)
    assert "trace-gap-note" not in slow, "a named straggler's cost is the gap: nothing to explain"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("efficiency", [0.95, 1.0])
def test_a_moving_straggler_s_note_says_it_moves(lang, efficiency):
    """Where each step's latest rank leads the next beyond chance, the gap note says a straggler moves from rank to
    rank, with its cost, or that its cost cannot be told from the jitter; never that jitter alone puts a rank that
    far back."""
    from dataclasses import replace

    from ddpview.views.traces import summary_html

    a = analysed(FIXTURES / "verdict" / "heavy_moving", "*.jsonl.gz")
    assert a.noise.leads_beyond_chance
    note = GAP_NOTE.search(summary_html(replace(a, efficiency=efficiency), lang)).group(1)
    moves = "moves from rank to rank" if lang == "en" else "change de rang"
    costed = (
        ("it costs 5" if lang == "en" else "il coûte 5")
        if efficiency < 1.0
        else ("cannot be told" if lang == "en" else "ne se distingue pas")
    )
    assert moves in note and costed in note, note


@pytest.mark.parametrize("lang", LANGS)
def test_a_transient_cause_is_said_of_many_ranks_and_of_each_late_step(lang):
    from ddpview.views.traces import summary_html

    markup = summary_html(analysed(FIXTURES / "verdict" / "window3_moving", "*.jsonl.gz"), lang)
    why = markup.split('data-rank="-1"')[1].split("</li>")[0]
    if lang == "en":
        assert "in each of those steps, in their forward" in why and " its " not in why
        assert "in each of those steps the other ranks waited" in markup
    else:
        assert "dans chacun de ces pas, dans leur forward" in why and " son " not in why


def test_four_thousand_copies_are_one_line_on_the_page_and_every_one_in_the_json(capsys):
    """4,000 ranks whose files hold the same steps: one line says them all, with a count and the first ranks; the
    JSON still lists each warning."""
    from ddpview.views.traces import summary_html

    from ddpcore.analysis.caveats import Caveat, grouped

    said = [Caveat("copies", first=2 * k, second=2 * k + 1) for k in range(2000)] + [Caveat("one_step")]
    (copies, one) = grouped(said)
    assert copies.count == 2000 and one.count == 1 and copies.ranks[:3] == (2, 3, 4)
    line = copies.message().text("fr")
    assert "et 1999 de plus du même genre : rangs 2, 3, 4, 5, 6 et 3993 de plus" in line
    a = analysed(FIXTURES / "ddp4", "*.jsonl.gz")
    from dataclasses import replace

    many = replace(a, warnings=tuple(said))
    markup = summary_html(many, "en")
    assert markup.count('data-testid="trace-warning"') == 2 and 'data-count="2000"' in markup
    from ddpcore.cli.verdicts import analysis_payload, analysis_text

    payload = analysis_payload(many, [])
    assert len(payload["warnings"]) == 2001 and [g["count"] for g in payload["warning_groups"]] == [2000, 1]
    assert sum(line.startswith("warning:") for line in analysis_text(payload).splitlines()) == 2


def test_the_french_page_says_nowhere_with_ne_and_why_forward_keeps_its_name():
    french = " ".join(v["fr"] for v in TEXT.values())
    assert "et envoyés nulle part" not in french and "ne sont envoyés nulle part" in french
    assert "gardent ici leurs noms PyTorch" in TEXT["traces.help"]["fr"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_window_too_short_for_a_moving_straggler_says_how_many_more_steps(lang):
    """The busy 20 ms moving straggler's 8-step window names nothing late: the verdict lists how many more steps as
    clear would tell it (`trace-undecided-moving`, 2), and the gap note, if any, says the window is too short rather
    than that jitter alone puts a rank that far back. A clean window has no such line."""
    from dataclasses import replace

    from ddpview.views.traces import summary_html, verdict_html

    a = analysed(FIXTURES / "heldout5" / "movb_s20", "*.pt.trace.json.gz")
    markup = verdict_html(a, lang)
    found = re.search(r'data-testid="trace-undecided-moving" data-value="(\d+)">([^<]*)<', markup)
    assert found is not None and found.group(1) == "2"
    assert ("8 of 8 steps" if lang == "en" else "8 pas sur 8") in found.group(2)
    note = GAP_NOTE.search(summary_html(replace(a, efficiency=1.0), lang)).group(1)
    assert ("too few" if lang == "en" else "trop peu") in note, note
    clean = analysed(FIXTURES / "heldout5" / "clean_b1", "*.pt.trace.json.gz")
    assert "trace-undecided-moving" not in verdict_html(clean, lang)
