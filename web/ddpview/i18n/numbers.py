"""Numbers as each language writes them: a decimal comma and no-break spaces in French, a dash for what is not a
number."""

from __future__ import annotations

import math

from ddpcore.base.words import NBSP

__all__ = ["ms", "number", "percent", "signed_percent"]


MAX_DIGITS = 6


def number(value: float, lang: str, digits: int = 1) -> str:
    """Locale-formatted number: '57', '0,772', '1 000'. Non-finite values print as a dash, never 'nan'."""
    if not math.isfinite(value):
        return "–"
    text = f"{value:,.{digits}f}"
    if digits:
        text = text.rstrip("0").rstrip(".") if "." in text else text
    if lang == "fr":
        text = text.replace(",", NBSP).replace(".", ",")
    return text


def ms(value: float, lang: str) -> str:
    """A duration in milliseconds, written the language's way (French: comma and a no-break space)."""
    return f"{number(value, lang, 1)}{NBSP if lang == 'fr' else ' '}ms"


def percent(ratio: float, lang: str, digits: int = 1) -> str:
    """A 0..1 ratio as a percentage with up to `digits` decimals, in the language's typography; a ratio too small
    for them keeps its first significant digit, so that a nonzero share never reads 0 %.

    >>> percent(0.0001, "en"), percent(0.1234, "fr")
    ('0.01%', '12,3\u202f%')
    """
    if not math.isfinite(ratio):
        return "–"
    value = ratio * 100
    if 0 < abs(value) < 10**-digits:
        digits = min(MAX_DIGITS, math.ceil(-math.log10(abs(value))))
    return f"{number(value, lang, digits)}{NBSP if lang == 'fr' else ''}%"


def signed_percent(ratio: float, lang: str, digits: int = 1) -> str:
    """A relative error with its sign: '+1.2%', '−0,9 %' (a true minus sign)."""
    sign = "+" if ratio >= 0 else "−"
    return sign + percent(abs(ratio), lang, digits)
