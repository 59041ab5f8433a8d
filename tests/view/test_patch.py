"""The One step view updated in place (markup.patches): the changes, applied to the elements the old markup made,
give the elements the new markup makes; a change of shape is refused, and the page then writes the region whole."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

from ddpview import app
from ddpview.markup import TEXT, patch, patch_text
from ddpview.state import PAGE_MAX_GPUS, PAGE_MAX_SLOWDOWN, ViewState
from ddpview.views import IN_PLACE, Frame, regions, step_regions
from hypothesis import given, settings
from hypothesis import strategies as st

from ddpcore.base.params import LOST_IN, MODE


def parsed(markup: str) -> ET.Element:
    """The region's markup under a root of its own (it is XML; its SVG namespace is left out, as the DOM's
    `localName` leaves it)."""
    return ET.fromstring("<region>" + markup.replace(' xmlns="http://www.w3.org/2000/svg"', "") + "</region>")


def elements(markup: str) -> list[ET.Element]:
    """The region's elements in document order, as `getElementsByTagName("*")` lists them."""
    return list(parsed(markup).iter())[1:]


def seen(items: list[ET.Element]) -> list[tuple[str, dict[str, str], str]]:
    return [(e.tag, dict(e.attrib), e.text or "" if len(e) == 0 else "") for e in items]


def shape(markup: str) -> list[tuple[str, object]]:
    """What a patch cannot change: the tags in order, and the text of every element that has children (text beside
    elements), the region's own included."""
    return [(e.tag, (e.text, [c.tail for c in e]) if len(e) else None) for e in parsed(markup).iter()]


def applied(old: str, new: str) -> list[tuple[str, dict[str, str], str]]:
    """The old markup's elements with the patch applied, as the page's ddpcorePatch applies it."""
    found = patch(old, new)
    assert found is not None
    items = elements(old)
    assert found.elements == len(items)
    for number, tag, name, value in found.changes:
        element = items[number]
        assert element.tag == tag
        if name == TEXT:
            assert len(element) == 0, "text is only set on an element without children"
            element.text = value
        elif value is None:
            del element.attrib[name]
        else:
            element.set(name, value)
    return seen(items)


def test_the_in_place_regions_are_the_one_step_view():
    assert set(step_regions(ViewState(), Frame(), "en")) == IN_PLACE


states = st.builds(
    lambda slowdown, straggler, prefetch, lost, lang: (
        replace(ViewState(), slowdown=slowdown, straggler=straggler, prefetch=prefetch, lost_in=lost),
        lang,
    ),
    st.floats(1.0, PAGE_MAX_SLOWDOWN).map(lambda s: round(s, 1)),
    st.integers(0, 7),
    st.booleans(),
    st.sampled_from(LOST_IN.choices),
    st.sampled_from(["en", "fr"]),
)


@settings(max_examples=60, deadline=None)
@given(states, states, st.integers(0, 14))
def test_a_patch_turns_the_old_elements_into_the_new(before, after, exchange):
    """Any two states of the 8-GPU step, any exchange of the ring: when the shape holds, the patched elements are
    the new ones, attribute for attribute and text for text."""
    (state_a, lang_a), (state_b, lang_b) = before, after
    old = regions(state_a, Frame(), lang_a)
    new = regions(state_b, Frame(exchange=exchange), lang_b)
    for name in IN_PLACE:
        if patch(old[name], new[name]) is not None:
            assert applied(old[name], new[name]) == seen(elements(new[name])), name
        else:
            assert shape(old[name]) != shape(new[name]), f"{name}: refused though its shape held"


def test_a_slider_moves_the_timeline_in_place():
    """The slowdown slider, the page's busiest control, keeps the timeline's and the costs' shape: their bars and
    figures change in place, and what does not move is not touched."""
    model = app.initial("", "en", False)
    shown = [app.screen(app.with_control(model, "slowdown", s)).regions for s in ("1.5", "1.6", "2.9")]
    for old, new in zip(shown, shown[1:]):
        for name in ("timeline-view", "cost-view"):
            found = patch(old[name], new[name])
            assert found is not None and found.changes, name
            assert len({number for number, *_ in found.changes}) < found.elements
            assert applied(old[name], new[name]) == seen(elements(new[name]))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, PAGE_MAX_GPUS), st.sampled_from(MODE.choices), st.sampled_from(["en", "fr"]), st.data())
def test_the_step_s_controls_keep_every_region_s_shape(gpus, mode, lang, data):
    """Any two settings of the step's controls but the GPU count, the mode and the language (the slowdown from none
    at all, which GPU is slow, where it loses its time, prefetch, the bandwidth): every One step region is updated in
    place, none written whole (a wait of 0 ms, a band, a legend item or a tick is drawn unshown, not left out)."""
    controls = st.builds(
        lambda slowdown, straggler, lost_in, prefetch, bandwidth: dict(
            slowdown=slowdown, straggler=straggler, lost_in=lost_in, prefetch=prefetch, bandwidth_gbps=bandwidth
        ),
        st.floats(1.0, PAGE_MAX_SLOWDOWN).map(lambda s: round(s, 1)),
        st.integers(0, gpus - 1),
        st.sampled_from(LOST_IN.choices),
        st.booleans(),
        st.sampled_from([1.0, 5.0, 35.0, 100.0, 1000.0]),
    )
    base = replace(ViewState(), gpus=gpus, mode=mode)
    old = regions(replace(base, **data.draw(controls)), Frame(), lang)
    new = regions(replace(base, **data.draw(controls)), Frame(), lang)
    for name in IN_PLACE:
        found = patch(old[name], new[name])
        assert found is not None, name
        assert json.loads(patch_text(old[name], new[name]) or "[0, []]")[1] == [list(c) for c in found.changes]


def test_a_change_of_shape_is_refused():
    model = app.initial("", "en", False)
    eight, sixteen = (app.screen(app.with_control(model, "gpus", g)).regions["timeline-view"] for g in ("8", "16"))
    assert patch(eight, sixteen) is None
    assert patch("<p>a <b>b</b></p>", "<p>c <b>b</b></p>") is None, "text beside an element cannot be set alone"
    assert patch("<g><rect></rect></g>", "<g><line></line></g>") is None


def trees(depth: int = 3) -> st.SearchStrategy[str]:
    """Small markups as the views build them (svg.tag and svg.text): few tags, few attributes and short texts drawn
    from small alphabets, so that two drawn markups often share a shape and differ in their values."""
    from ddpview.markup import esc, tag, text

    values = st.sampled_from(["v1", "v2", "a&b", '"q"', None, 3.5])  # no bare attribute: the XML oracle refuses it
    attributes = st.dictionaries(st.sampled_from(["x", "y", "class", "data-v"]), values, max_size=3)
    words = st.sampled_from(["", "w1", "w2", "<c>", "d & e"])
    names = st.sampled_from(["g", "rect", "text", "title"])
    leaf = st.builds(text, names, attributes, words)
    if depth == 0:
        return leaf
    inner = st.lists(trees(depth - 1) | words.map(esc), max_size=3).map("".join)
    return leaf | st.builds(lambda name, values, children: tag(name, values, children), names, attributes, inner)


EDITS = [("w1", "w2"), ("w2", ""), ("v1", "v2"), ('"v2"', '"v1" z="v2"'), ('y="v1"', "")]
"""Ways to turn a markup into one of the same shape, or nearly: a text or a value changed, an attribute added or
taken away (applied at one place, by `test_any_two_markups_...`)."""


@settings(max_examples=300, deadline=None)
@given(trees(), trees(), st.sampled_from(EDITS), st.integers(0, 3), st.booleans())
def test_any_two_markups_are_patched_or_refused_for_their_shape(old, other, edit, at, edited):
    """Markups of any shape, and a markup against itself edited at one place: a patch turns the old elements into
    the new ones, and one is refused only when the shapes differ (text beside elements counts as shape)."""
    parts = old.split(edit[0])
    new = (
        edit[0].join(parts[: at + 1]) + edit[1] + edit[0].join(parts[at + 1 :])
        if edited and at < len(parts) - 1
        else other
    )
    found = patch(old, new)
    if found is None:
        assert shape(old) != shape(new)
    else:
        assert applied(old, new) == seen(elements(new))
