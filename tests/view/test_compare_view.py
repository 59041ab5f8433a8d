"""Your traces before and after a fix: the run shown against a second run, judged at the same threshold, in both
languages; the link says a comparison is shown, and never holds the files."""

from __future__ import annotations

import pytest
from ddpview import app
from ddpview.state import decode, encode
from ddpview.views import compare_html
from paths import FIXTURES

from ddpcore.analysis import measure_loaded
from ddpcore.base.steps import finished
from ddpcore.base.words import LANGS
from ddpcore.traces import load


def measured(folder: str):
    files = [(p.name, p.read_bytes()) for p in sorted((FIXTURES / folder).glob("*.jsonl.gz"))]
    return measure_loaded(load(files))


@pytest.fixture(scope="module")
def compared():
    model = app.with_measured(app.initial("#view=traces", "en", False), *measured("causes/input"))
    return finished(app.after_in_steps(app.reading_after(model), *measured("causes/clean")))


def test_the_run_after_is_compared_with_the_run_shown_and_the_link_says_so(compared):
    c = compared.traces.comparison
    assert c is not None and c.stragglers.went == (2,) and not c.within_noise
    assert compared.state.compare and "cmp=1" in encode(compared.state)
    assert decode(encode(compared.state))[0].compare
    markup = app.screen(compared).regions["compare-panel"]
    assert 'data-testid="compare-went"' in markup and "<td>rank 2</td>" in markup, "a rank, never a bare count"


def test_a_new_threshold_compares_again_and_a_new_run_before_drops_the_comparison(compared):
    stricter = app.with_threshold(compared, "0.5")
    assert stricter.traces.comparison is not None and stricter.traces.comparison is not compared.traces.comparison
    assert stricter.traces.threshold == 0.5
    again = app.with_measured(compared, *measured("ddp4"))
    assert again.traces.comparison is None and again.traces.after is None


@pytest.mark.parametrize("lang", LANGS)
def test_the_panel_speaks_each_language_and_escapes_what_files_say(compared, lang):
    from ddpcore.base.words import Message
    from ddpcore.traces import FileError

    c = compared.traces.comparison
    bad = (FileError("<b>x</b>.json", Message.of("file.empty")),)
    markup = compare_html(c, bad, False, True, lang)
    assert "<b>x</b>" not in markup and "&lt;b&gt;x&lt;/b&gt;.json" in markup
    assert ("Stragglers that went" in markup) == (lang == "en")
    assert ("Retardataires partis" in markup) == (lang == "fr")
    assert "{" not in markup


def test_before_a_comparison_the_panel_says_what_to_do_and_a_linked_one_asks_for_the_files():
    assert "compare-help" in compare_html(None, (), False, False, "en")
    linked = compare_html(None, (), False, True, "fr")
    assert "jamais dans un lien" in linked
    assert "compare-reading" in compare_html(None, (), True, False, "en")


def test_a_comparison_made_meanwhile_lands_only_on_the_run_and_threshold_it_was_made_for(compared):
    shown = app.with_measured(app.initial("#view=traces", "en", False), *measured("causes/input"))
    made = finished(app.after_in_steps(shown, *measured("causes/clean")))
    landed = app.with_compared(shown, made)
    assert landed is not None and landed.traces.comparison is made.traces.comparison and landed.state.compare
    assert app.with_compared(app.with_threshold(shown, "0.3"), made) is None
    other = app.with_measured(shown, *measured("ddp4"))
    assert app.with_compared(other, made) is other
