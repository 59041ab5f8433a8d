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
import re
from functools import lru_cache
from typing import NamedTuple

Change = tuple[int, str, str, str | None]
"""(element number, its tag, attribute name or "" for its text, the new value or None to remove the attribute): the
tag lets the page check that the element it found is the one meant (an HTML parser may add elements, e.g. tbody)."""

_TOKENS = re.compile(r"(<[^>]*>)")
_ATTR = re.compile(r'\s([^\s=>/"]+)(?:="([^"]*)")?')
TEXT = ""
"""The attribute name that stands for an element's text."""


class Patch(NamedTuple):
    """How many elements the region holds, and what changes on them."""

    elements: int
    changes: list[Change]


@lru_cache(maxsize=16)
def _tokens(markup: str) -> list[str]:
    """Markup split into text and tags, text first and last; kept, since a region's new markup is its old one at
    the next update."""
    return _TOKENS.split(markup)


def _tag(token: str) -> str:
    """An opening tag's name."""
    return token[1:].partition(" ")[0].rstrip(">")


def _changed(number: int, tag: str, was: str, now: str) -> list[Change]:
    """What changed between two opening tags of one element; values unescaped, as the DOM holds them."""
    old = dict(_ATTR.findall(was, len(tag) + 1))
    new = _ATTR.findall(now, len(tag) + 1)
    out: list[Change] = [(number, tag, k, html.unescape(v)) for k, v in new if old.pop(k, None) != v]
    return out + [(number, tag, k, None) for k in old]


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
    before, after = _tokens(old), _tokens(new)
    if len(before) != len(after):
        return None
    changes: list[Change] = []
    count = -1
    for i in range(1, len(after), 2):
        was, now = before[i], after[i]
        if now[1] == "/":
            if was != now:
                return None
        else:
            if was != now:
                tag = _tag(now)
                if _tag(was) != tag or now.endswith("/>"):
                    return None
                changes += _changed(count + 1, tag, was, now)
            count += 1
        text = after[i + 1]
        if text != before[i + 1]:
            # only an element's whole, sole text can be set: text beside child elements cannot
            if now[1] == "/" or i + 2 >= len(after) or not after[i + 2].startswith("</"):
                return None
            changes.append((count, _tag(now), TEXT, html.unescape(text)))
    return Patch(count + 1, changes) if before[0] == after[0] else None
