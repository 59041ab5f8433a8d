"""The threshold field of Your traces: how the applied value is shown again.

The field is applied when the user commits it (Enter, or leaving it), never on each keystroke: typing "15" would
otherwise apply "1" first. A committed text is read as the command line reads `--threshold`
(`ddpcore.base.params.read_threshold`); a refused one leaves the field showing the value still applied: what it shows
and what is applied never differ.

>>> shown(0.15, "fr"), shown(0.0001, "en")
('0,15', '0.0001')
"""

from __future__ import annotations

__all__ = ["shown"]


def shown(value: float, lang: str) -> str:
    """The applied threshold as the field shows it: the shortest exact decimal, with the language's comma."""
    text = f"{value:.10g}"
    return text.replace(".", ",") if lang == "fr" else text
