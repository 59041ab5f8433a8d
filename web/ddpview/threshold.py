"""The threshold field of Your traces: what a typed text means, and how the applied value is shown again.

The field is applied when the user commits it (Enter, or leaving it), never on each keystroke: typing "15" would
otherwise apply "1" first. A committed text is a share of the step ("0.2", "0,2" in French) or a percent ("15 %",
"15%"); a bare number above 1 and at most 100 can only be a percent, and is read as one, with a hint. Anything else
is refused with a hint, and the field shows the value still applied: what it shows and what is applied never differ.

>>> read_threshold("15").value, read_threshold("15").hint
(0.15, 'percent')
>>> read_threshold("0,2").value, read_threshold("12.5 %").value, read_threshold("0").hint
(0.2, 0.125, 'range')
>>> shown(0.15, "fr"), shown(0.0001, "en")
('0,15', '0.0001')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ddpcore.params import THRESHOLD

PERCENT = 100.0


@dataclass(frozen=True)
class Reading:
    """A committed text read: the threshold to apply (None: refused), and the hint to show (`percent`: a bare
    number read as a percent; `range`: out of range; `number`: not a number; empty: none)."""

    value: float | None
    hint: str = ""


def read_threshold(text: str) -> Reading:
    """What a committed text means (module docstring)."""
    word = text.strip().replace(",", ".").replace("\u202f", " ")
    percent = word.endswith("%")
    word = word.rstrip("%").strip()
    try:
        number = float(word)
    except ValueError:
        return Reading(None, "number")
    if not math.isfinite(number):
        return Reading(None, "number")
    hint = ""
    if percent:
        number /= PERCENT
    elif THRESHOLD.high < number <= PERCENT:
        number, hint = number / PERCENT, "percent"
    if not THRESHOLD.low < number <= THRESHOLD.high:
        return Reading(None, "range")
    return Reading(number, hint)


def shown(value: float, lang: str) -> str:
    """The applied threshold as the field shows it: the shortest exact decimal, with the language's comma."""
    text = f"{value:.10g}"
    return text.replace(".", ",") if lang == "fr" else text
