"""The page's state as a URL hash: decode clamps bad values and says what it changed."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from urllib.parse import parse_qsl, quote

from .config import default_straggler

PAGE_MIN_GPUS = 2
PAGE_MAX_GPUS = 16
PAGE_MAX_SLOWDOWN = 3.0
LANGS = ("en", "fr")
MAX_HASH_CHARS = 2000


@dataclass(frozen=True)
class ViewState:
    gpus: int = 8
    straggler: int = 2
    slowdown: float = 1.0
    prefetch: bool = False
    lang: str = ""


@dataclass(frozen=True)
class Notice:
    """One value from the link that could not be used as given."""

    key: str
    given: str
    used: str


def _clamp_int(text: str, low: int, high: int) -> int | None:
    try:
        number = float(text)
    except ValueError:
        return None
    if math.isnan(number):
        return None
    return int(round(min(max(number, low), high)))


def _clamp_slowdown(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    if math.isnan(number):
        return None
    return round(min(max(number, 1.0), PAGE_MAX_SLOWDOWN), 1)


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def decode(fragment: str) -> tuple[ViewState, tuple[Notice, ...]]:
    """Parse '#gpus=8&straggler=2&slowdown=1.5&prefetch=1'; unknown keys are reported, not fatal."""
    text = fragment[1:] if fragment.startswith("#") else fragment
    notices: list[Notice] = []
    if len(text) > MAX_HASH_CHARS:
        notices.append(Notice("hash", text[:40] + "…", "defaults"))
        text = ""
    values: dict[str, str] = {}
    for key, value in parse_qsl(text, keep_blank_values=True):
        values[key] = value
    known = {f.name for f in fields(ViewState)}
    for key in values:
        if key not in known:
            notices.append(Notice(key[:40], values[key][:40], "ignored"))
    state = ViewState()
    if "gpus" in values:
        gpus = _clamp_int(values["gpus"], PAGE_MIN_GPUS, PAGE_MAX_GPUS)
        state = replace(state, gpus=state.gpus if gpus is None else gpus)
    state = replace(state, straggler=default_straggler(state.gpus))
    if "straggler" in values:
        straggler = _clamp_int(values["straggler"], 0, state.gpus - 1)
        if straggler is not None:
            state = replace(state, straggler=straggler)
    if "slowdown" in values:
        slowdown = _clamp_slowdown(values["slowdown"])
        if slowdown is not None:
            state = replace(state, slowdown=slowdown)
    if "prefetch" in values:
        state = replace(state, prefetch=values["prefetch"].strip().lower() in ("1", "true", "on", "yes"))
        if values["prefetch"].strip().lower() not in ("1", "true", "on", "yes", "0", "false", "off", "no", ""):
            notices.append(Notice("prefetch", values["prefetch"][:40], _as_text(state.prefetch)))
    if "lang" in values:
        lang = values["lang"].strip().lower()
        state = replace(state, lang=lang if lang in LANGS else "")
    for key in ("gpus", "straggler", "slowdown", "lang"):
        if key in values:
            used = _as_text(getattr(state, key))
            if not _same(values[key], used):
                notices.append(Notice(key, values[key][:40], used or "auto"))
    return state, tuple(notices)


def _same(given: str, used: str) -> bool:
    try:
        return float(given) == float(used)
    except ValueError:
        return given.strip().lower() == used


def encode(state: ViewState) -> str:
    parts = [
        ("gpus", state.gpus),
        ("straggler", state.straggler),
        ("slowdown", state.slowdown),
        ("prefetch", state.prefetch),
    ]
    if state.lang:
        parts.append(("lang", state.lang))
    return "#" + "&".join(f"{k}={quote(_as_text(v))}" for k, v in parts)


def with_gpus(state: ViewState, gpus: int) -> ViewState:
    """Change the GPU count and keep the straggler on a GPU that still exists."""
    gpus = min(max(gpus, PAGE_MIN_GPUS), PAGE_MAX_GPUS)
    return replace(state, gpus=gpus, straggler=min(state.straggler, gpus - 1))
