"""The page's state as a URL hash: decode clamps bad values and says what it changed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl, quote

from ddpcore.base.params import (
    ALGORITHM,
    BANDWIDTH_GBPS,
    CLUSTER_GPUS,
    CLUSTER_SLOWDOWN,
    GPUS,
    JITTER_CV,
    LOST_IN,
    MAX_PHASE_MS,
    MODE,
    PERSISTENT,
    PERSISTENT_SLOWDOWN,
    SLOWDOWN,
    STRAGGLER_PROB,
    Param,
)
from ddpcore.base.words import LANGS
from ddpcore.model import ClusterConfig, MeasuredTiming
from ddpcore.model.config import default_straggler

__all__ = [
    "FIELDS",
    "FIELD_BY_KEY",
    "Notice",
    "PAGE_MAX_GPUS",
    "PAGE_MAX_SLOWDOWN",
    "STATES_KEPT",
    "ViewState",
    "apply",
    "decode",
    "encode",
    "is_anchor",
    "positions",
    "texts",
    "without_timing",
]


PAGE_MAX_GPUS = 16
PAGE_MAX_SLOWDOWN = 3.0
PAGE_CLUSTER_GPUS = 4096
VIEWS = ("step", "cluster", "traces")
MAX_HASH_CHARS = 2000
EXACT = -1
"""`digits` for a field kept as given, unrounded: the Cluster view opened on a fitted run must compute what the fit
table and `cluster --from` compute, to the last digit."""
TRUE_WORDS = ("1", "true", "on", "yes")
FALSE_WORDS = ("0", "false", "off", "no", "")


@dataclass(frozen=True)
class ViewState:
    """Everything a link carries: the view, the One step and Cluster controls, and the language."""

    view: str = VIEWS[0]
    gpus: int = GPUS.default
    straggler: int = default_straggler(GPUS.default)
    slowdown: float = SLOWDOWN.default
    lost_in: str = LOST_IN.default
    prefetch: bool = False
    mode: str = MODE.default
    bandwidth_gbps: float = BANDWIDTH_GBPS.default
    cluster: ClusterConfig = ClusterConfig(gpus=PAGE_CLUSTER_GPUS)
    """The Cluster view's model, as ddpcore takes it; its `timing` is a measured run's (from Your traces' fit)."""
    lang: str = ""
    compare: bool = False
    """Your traces shows a run before and after a fix (the files are never in the link)."""


@dataclass(frozen=True)
class Field:
    """One hash key: its ViewState attribute (a dotted path into `cluster` for the Cluster view's), the range or
    choices the page accepts, and the label of its control."""

    key: str
    attr: str
    low: float = 0.0
    high: float = 0.0
    digits: int | None = None
    choices: tuple[str, ...] = ()
    boolean: bool = False
    label: str = ""
    param: Param | None = None


def from_param(key: str, attr: str, param: Param, label: str, **narrower: float) -> Field:
    """A field with the model parameter's range or choices, narrowed where the page control wants (`low`, `high`,
    `digits`)."""
    digits = int(narrower.pop("digits", 0 if param.kind is int else 1))
    return Field(
        key,
        attr,
        narrower.get("low", param.low),
        narrower.get("high", param.high),
        None if param.choices or digits == EXACT else digits,
        param.choices,
        label=label,
        param=param,
    )


FIELDS = (
    Field("view", "view", choices=VIEWS),
    from_param("gpus", "gpus", GPUS, "ctl.gpus", high=PAGE_MAX_GPUS),
    Field("straggler", "straggler", 0, PAGE_MAX_GPUS - 1, digits=0, label="ctl.straggler"),
    from_param("slowdown", "slowdown", SLOWDOWN, "ctl.slowdown", high=PAGE_MAX_SLOWDOWN),
    from_param("lost", "lost_in", LOST_IN, "ctl.lost_in"),
    Field("prefetch", "prefetch", boolean=True, label="ctl.prefetch"),
    from_param("mode", "mode", MODE, "ctl.mode"),
    from_param("bw", "bandwidth_gbps", BANDWIDTH_GBPS, "ctl.bandwidth", low=1.0, high=1000.0),
    from_param("n", "cluster.gpus", CLUSTER_GPUS, "cluster.gpus", high=1_000_000),
    from_param("cv", "cluster.jitter_cv", JITTER_CV, "cluster.cv", digits=EXACT),
    from_param("p", "cluster.straggler_prob", STRAGGLER_PROB, "cluster.p", digits=EXACT),
    from_param("s", "cluster.slowdown", CLUSTER_SLOWDOWN, "cluster.s", digits=EXACT),
    from_param("k", "cluster.persistent", PERSISTENT, "cluster.k", high=1000),
    from_param("ks", "cluster.persistent_slowdown", PERSISTENT_SLOWDOWN, "cluster.ks", digits=EXACT),
    from_param("ar", "cluster.allreduce", ALGORITHM, "cluster.ar"),
    Field("cm", "cluster.timing.compute_ms", 0.0, MAX_PHASE_MS, digits=None),
    Field("om", "cluster.timing.other_ms", 0.0, MAX_PHASE_MS, digits=None),
    Field("lang", "lang", choices=("", *LANGS)),
    Field("cmp", "compare", boolean=True),
)
STEP_KEYS = ("gpus", "straggler", "slowdown", "prefetch")
FIELD_BY_KEY = {spec.key: spec for spec in FIELDS}


def positions(key: str) -> tuple[str, ...]:
    """The texts a slider of this field can show: from its low to its high end, a step of its precision (the page's
    range inputs step so, e.g. the slowdown's 1.0, 1.1 … 3.0).

    >>> positions("slowdown")[:3], len(positions("slowdown"))
    (('1.0', '1.1', '1.2'), 21)
    """
    spec = FIELD_BY_KEY[key]
    digits = spec.digits or 0
    count = round((spec.high - spec.low) * 10**digits)
    return tuple(f"{spec.low + k / 10**digits:.{digits}f}" for k in range(count + 1))


def value_of(state: ViewState, attr: str) -> object:
    """The state's value at a field's attribute path; a measured timing not given reads 0 (the model's phases)."""
    value: object = state
    for name in attr.split("."):
        if value is None:
            return 0.0
        value = getattr(value, name)
    return value


def with_value(state: ViewState, attr: str, value: Any) -> ViewState:
    """The state with one field's value set; the cluster's persistent ranks kept within its GPUs, and a measured
    timing kept only while its compute is positive (a rest of the step alone means nothing)."""
    top, _, rest = attr.partition(".")
    if not rest:
        return replace(state, **{top: value})
    c = state.cluster
    name, _, part = rest.partition(".")
    if part:
        times = {"compute_ms": 0.0, "other_ms": 0.0, **(asdict(c.timing) if c.timing else {}), part: value}
        timing = MeasuredTiming(**times) if times["compute_ms"] > 0 else None
        return replace(state, cluster=replace(c, timing=timing))
    changes: dict[str, Any] = {name: value}
    if name == "gpus":
        changes["persistent"] = min(c.persistent, int(value))
    elif name == "persistent":
        changes[name] = min(int(value), c.gpus)
    return replace(state, cluster=replace(c, **changes))


@dataclass(frozen=True)
class Notice:
    """One value from the link that could not be used as given."""

    key: str
    given: str
    used: str


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def clamp(spec: Field, text: str) -> object | None:
    """The usable value nearest to `text`, or None when nothing usable can be read from it."""
    word = text.strip().lower()
    if spec.boolean:
        return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None
    if spec.choices:
        return word if word in spec.choices else None
    try:
        number = float(word)
    except ValueError:
        return None
    if math.isnan(number):
        return None
    number = min(max(number, spec.low), spec.high)
    if spec.digits is None:
        return number
    return int(round(number)) if spec.digits == 0 else round(number, spec.digits)


def _same(given: str, used: object) -> bool:
    try:
        return float(given) == float(used)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return given.strip().lower() == _as_text(used)


def is_anchor(fragment: str) -> bool:
    """A hash that names a place in the page ("#main", the skip link's), not a view: no key=value in it.

    >>> is_anchor("#main"), is_anchor("#gpus=8"), is_anchor("")
    (True, False, False)
    """
    text = fragment[1:] if fragment.startswith("#") else fragment
    return bool(text) and "=" not in text and "&" not in text and text.replace("-", "").isalnum()


def decode(fragment: str) -> tuple[ViewState, tuple[Notice, ...]]:
    """Parse '#gpus=8&straggler=2&slowdown=1.5&prefetch=1'; unknown keys are reported, not fatal."""
    text = fragment[1:] if fragment.startswith("#") else fragment
    notices: list[Notice] = []
    if len(text) > MAX_HASH_CHARS:
        notices.append(Notice("#", text[:40] + "…", "defaults"))
        text = ""
    values = dict(parse_qsl(text, keep_blank_values=True))
    known = FIELD_BY_KEY
    notices.extend(Notice(k[:40], v[:40], "ignored") for k, v in values.items() if k not in known)
    state = ViewState()
    for spec in FIELDS:
        if spec.key in values:
            value = clamp(spec, values[spec.key])
            if value is not None:
                state = with_value(state, spec.attr, value)
    if "straggler" not in values or clamp(known["straggler"], values["straggler"]) is None:
        state = replace(state, straggler=default_straggler(state.gpus))
    state = consistent(state)
    for spec in FIELDS:
        if spec.key in values:
            used = value_of(state, spec.attr)
            if not _same(values[spec.key], used):
                notices.append(Notice(spec.key, values[spec.key][:40], _as_text(used) or "auto"))
    return state, tuple(notices)


STATES_KEPT = 64
"""States whose drawing is kept (`texts` here, the views in ddpview.views.page): a slider has 21 positions (the
slowdown's), and a user drags it back and forth over them, at a setting or two of the other controls."""


@lru_cache(maxsize=STATES_KEPT)
def texts(state: ViewState) -> Mapping[str, str]:
    """Every key's value as text: what a link carries, and what the control bound to that key shows. Kept
    (STATES_KEPT: the screen and the link ask for the same, and a drag comes back to the same states), hence
    read-only."""
    return MappingProxyType({spec.key: _as_text(value_of(state, spec.attr)) for spec in FIELDS})


def encode(state: ViewState) -> str:
    """The step view's keys always (docs/contracts.md); other keys only where they differ from the defaults."""
    now, default = texts(state), _DEFAULT_TEXTS
    return "#" + "&".join(f"{k}={quote(v)}" for k, v in now.items() if k in STEP_KEYS or v != default[k])


_DEFAULT_TEXTS = texts(ViewState())


def without_timing(state: ViewState) -> ViewState:
    """The same Cluster view on the model's own phases, not a measured run's timing."""
    return replace(state, cluster=replace(state.cluster, timing=None))


def consistent(state: ViewState) -> ViewState:
    """Keep the straggler on a GPU that exists (the cluster's persistent ranks are kept by `with_value`)."""
    return replace(state, straggler=min(state.straggler, state.gpus - 1))


def apply(state: ViewState, key: str, text: str) -> ViewState:
    """A control's new text, clamped like a link's; unreadable text leaves the state as it was."""
    value = clamp(FIELD_BY_KEY[key], text)
    if value is None:
        return state
    return consistent(with_value(state, FIELD_BY_KEY[key].attr, value))
