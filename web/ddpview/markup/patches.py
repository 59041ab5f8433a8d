"""A region updated in place: what changed between two markups of the same shape, element by element.

Replacing a region's markup makes the browser parse it, build every element again, restyle and lay them all out,
though a slider moved only some bars of the timeline. When the new markup has the same elements in the same order
as the old (a control that moves bars, not one that adds lanes), the page instead sets the attributes and texts
that changed on the elements already there (`shell.dom.Writer`, `globalThis.ddpcorePatch` in boot.js).

Elements are numbered in document order, as `getElementsByTagName("*")` lists them under the region. The markup is
this package's own (`svg.tag`): every element closed, attributes double-quoted and escaped, no comments.
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import ne
from typing import NamedTuple

__all__ = ["Change", "PAIRS_KEPT", "Patch", "TEXT", "patch", "patch_text"]

Change = tuple[int, str, str, str | None]
"""(element number, its tag, attribute name or "" for its text, the new value or None to remove the attribute): the
tag lets the page check that the element it found is the one meant (an HTML parser may add elements, e.g. tbody)."""

_ATTR = re.compile(r'\s([^\s=>/"]+)(?:="([^"]*)")?')
TEXT = ""
"""The attribute name that stands for an element's text."""


class Patch(NamedTuple):
    """How many elements the region holds, and what changes on them."""

    elements: int
    changes: list[Change]


@lru_cache(maxsize=16)
def _pieces(markup: str) -> list[str]:
    """Markup cut before each tag: the text before the first, then per tag its inside and the text after it
    (`rect x="1">` then `/rect>`): two markups are compared piece by piece in C, and only the pieces that differ
    are read in Python. Kept, since a region's new markup is its old one at the next update."""
    return markup.split("<")


@lru_cache(maxsize=16)
def _closings(markup: str) -> list[int]:
    """Per piece, how many pieces up to it close an element (counted in C: the markups are long, their changes few)."""
    return list(accumulate(map(str.startswith, _pieces(markup), repeat("/"))))


def _number(closings: list[int], k: int) -> int:
    """The number, in document order, of the element that piece k opens (of the last opened, if it closes one): the
    pieces up to it, less piece 0 (text) and those that close an element."""
    return k - 1 - (closings[k] - closings[0])


def _name(inside: str) -> str:
    """The tag name of an opening tag's inside."""
    return inside.partition(" ")[0]


def _changed(number: int, tag: str, was: str, now: str) -> list[Change]:
    """What changed between two opening tags of one element; values unescaped, as the DOM holds them."""
    return [(number, tag, name, value) for name, value in _attribute_changes(tag, was, now)]


@lru_cache(maxsize=256)
def _attribute_changes(tag: str, was: str, now: str) -> tuple[tuple[str, str | None], ...]:
    """(attribute, new value or None) between two opening tags: kept, since lanes that ran alike change alike (a
    slider moves the same wait on every lane but the straggler's). Tags whose attributes keep their names and order
    (a moving bar's) are compared value by value, cut at the quotes."""
    before, after = was.split('"'), now.split('"')
    if len(before) == len(after) and before[::2] == after[::2]:
        return tuple(
            (after[k - 1].rpartition(" ")[2][:-1], _unescaped(after[k]))
            for k in compress(range(len(after)), map(ne, before, after))
        )
    old = dict(_ATTR.findall(was, len(tag)))
    new = _ATTR.findall(now, len(tag))
    out: list[tuple[str, str | None]] = [(k, _unescaped(v)) for k, v in new if old.pop(k, None) != v]
    return tuple(out + [(k, None) for k in old])


def _unescaped(value: str) -> str:
    return html.unescape(value) if "&" in value else value


def patch(old: str, new: str) -> Patch | None:
    """The changes that turn a region showing `old` into one showing `new`; None when the two differ in shape (an
    element more or less, another tag, a text where there were elements), and the region must be written whole.

    >>> patch('<g><rect x="1" y="2"></rect><text>a</text></g>', '<g><rect x="3" y="2"></rect><text>b</text></g>')
    Patch(elements=3, changes=[(1, 'rect', 'x', '3'), (2, 'text', '', 'b')])
    >>> patch('<g><rect x="1"></rect></g>', '<g><rect></rect><rect></rect></g>') is None
    True
    >>> patch('<p>a &amp; b</p>', '<p class="on" hidden>a &lt; b</p>').changes
    [(0, 'p', 'class', 'on'), (0, 'p', 'hidden', ''), (0, 'p', '', 'a < b')]
    """
    before, after = _pieces(old), _pieces(new)
    if len(before) != len(after) or before[0] != after[0]:
        return None
    closings = _closings(old)
    changes: list[Change] = []
    for k in compress(range(len(after)), map(ne, before, after)):
        was_tag, _, was_text = before[k].partition(">")
        now_tag, _, now_text = after[k].partition(">")
        opening = not now_tag.startswith("/") and not now_tag.endswith("/")
        if was_tag != now_tag:
            tag = _name(now_tag)
            if not opening or was_tag.startswith("/") or _name(was_tag) != tag:
                return None
            changes += _changed(_number(closings, k), tag, was_tag, now_tag)
        if was_text != now_text:
            # only an element's whole, sole text can be set: text beside child elements cannot
            if not opening or k + 1 >= len(after) or not after[k + 1].startswith("/"):
                return None
            changes.append((_number(closings, k), _name(now_tag), TEXT, _unescaped(now_text)))
    return Patch(_number(closings, len(after) - 1) + 1, changes)


PAIRS_KEPT = 192
"""Pairs of markups whose patch is kept (`patch_text`): a slider dragged over its 21 positions changes two or three
regions an input, between the same markups each time it passes; the page makes a setting's 80-odd patches between
neighbouring positions before the drag (ddpview.warmup.neighbour_patches), and two settings' are kept."""


@lru_cache(maxsize=PAIRS_KEPT)
def patch_text(old: str, new: str) -> str | None:
    """`patch` as the JSON the page's `ddpcorePatch` reads (boot.js), "" when nothing changes, None when the region
    must be written whole. Kept: a view shown again is the same markup (ddpview.views.page keeps the views drawn), so a
    slider moved back to where it was finds its patch made.

    >>> patch_text('<g><rect x="1"></rect></g>', '<g><rect x="2"></rect></g>')
    '[2, [[1, "rect", "x", "2"]]]'
    >>> patch_text("<p>a</p>", "<p>a</p>"), patch_text("<p>a</p>", "<p><b>a</b></p>")
    ('', None)
    """
    found = patch(old, new)
    if found is None:
        return None
    return json.dumps(found) if found.changes else ""
