"""Tiny SVG/HTML builders: every string escaped, every number finite."""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["AttrValue", "attrs", "data_value", "esc", "num", "output", "svg_figure", "tag", "text"]

AttrValue = str | int | float | bool | None


_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def esc(text: object) -> str:
    """Text safe inside an element or a quoted attribute (what html.escape(quote=True) gives, in one pass).

    >>> esc('<a href="x">&</a>')
    '&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;'
    """
    return str(text).translate(_ENTITIES)


def num(value: float, digits: int = 2) -> str:
    """A number for an SVG attribute; refuses NaN and infinities rather than drawing garbage.

    >>> num(45.4800001), num(-0.001), num(3), num(2.0)
    ('45.48', '0', '3', '2')
    """
    kind = type(value)
    if kind is int:
        return str(value)
    if (
        kind is not float
        and (isinstance(value, bool) or not isinstance(value, (int, float)))
        or not math.isfinite(value)
    ):
        raise ValueError(f"not a finite number: {value!r}")
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attrs(values: Mapping[str, AttrValue]) -> str:
    """Attributes as markup: text escaped, numbers finite, drawn at 2 decimals but `data-*` numbers at full
    precision (they are the raw figures tests and scripts read, docs/contracts.md)."""
    parts = []
    for key, value in values.items():
        if type(value) is str:
            parts.append(f' {key}="{value.translate(_ENTITIES)}"')
        elif value is None or value is False:
            continue
        elif value is True:
            parts.append(f" {key}")
        elif isinstance(value, (int, float)):
            parts.append(f' {key}="{data_value(value) if key.startswith("data-") else num(value)}"')
        else:
            parts.append(f' {key}="{esc(value)}"')
    return "".join(parts)


def tag(name: str, values: Mapping[str, AttrValue] | None = None, *children: str) -> str:
    """An element; children are already-built markup, text must go through esc() or text()."""
    inner = "".join(children)
    return f"<{name}{attrs(values)}>{inner}</{name}>" if values else f"<{name}>{inner}</{name}>"


def text(name: str, values: Mapping[str, AttrValue] | None, content: object) -> str:
    """An element whose content is text, escaped."""
    return tag(name, values, esc(content))


def data_value(value: float) -> str:
    """The raw number carried by `data-value`, full precision, for tests that never parse display text."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return repr(float(value)) if isinstance(value, float) else str(value)


def output(testid: str, value: float, shown: str) -> str:
    """A shown number with its raw value in `data-value` (docs/contracts.md)."""
    return text("output", {"data-testid": testid, "data-value": data_value(value), "class": "value"}, shown)


def svg_figure(width: float, height: float, label: str, attrs: Mapping[str, AttrValue], *children: str) -> str:
    """A standalone SVG drawing (an image to assistive technology, described by `label`), `attrs` added."""
    values = {
        "viewBox": f"0 0 {num(width)} {num(height)}",
        "role": "img",
        **attrs,
        "aria-label": label,
        "xmlns": "http://www.w3.org/2000/svg",
    }
    return tag("svg", values, *children)
