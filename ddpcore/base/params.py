"""Every input of the model, once: name, default, allowed range or choices, unit and meaning.

The configurations validate with these, the CLI builds its flags and help from them, and the page's URL state and
controls take their defaults and ranges from them (narrowing a range where a page control wants it).

>>> GPUS.describe()
'number of GPUs, 2-1024 (default 8)'
>>> SLOWDOWN.check(1.5), GPUS.flag
(1.5, '--gpus')
>>> GPUS.check(2000)
Traceback (most recent call last):
ddpcore.base.params.ConfigError: gpus: got 2000, allowed a whole number from 2 to 1024
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Generic, TypeVar

from .words import Message, Share

__all__ = [
    "ALGORITHM",
    "BANDWIDTH_GBPS",
    "BUCKET_MB",
    "BYTES_PER_MS_PER_GBPS",
    "CLUSTER_GPUS",
    "CLUSTER_PARAMS",
    "CLUSTER_SLOWDOWN",
    "ConfigError",
    "FIRST_BUCKET_MB",
    "GPUS",
    "GRAD_MB",
    "JITTER_CV",
    "LATENCY_US",
    "LOST_IN",
    "MAX_PHASE_MS",
    "MB",
    "MIN_PHASE_MS",
    "MODE",
    "PERSISTENT",
    "PERSISTENT_SLOWDOWN",
    "PREFETCH_RESIDUAL_MS",
    "Param",
    "Reading",
    "SLOWDOWN",
    "SPEED",
    "STRAGGLER_PROB",
    "TENSOR_ACTIVITY",
    "THRESHOLD",
    "check_int",
    "check_number",
    "read_threshold",
]

T = TypeVar("T", int, float, str)


class ConfigError(ValueError):
    """A configuration value outside its allowed range; the message names the field.

    >>> try:
    ...     GPUS.check(1)
    ... except ConfigError as e:
    ...     e.field, str(e)
    ('gpus', 'gpus: got 1, allowed a whole number from 2 to 1024')
    """

    def __init__(self, field_name: str, value: object, allowed: str) -> None:
        self.field = field_name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field_name}: got {value!r}, allowed {allowed}")


def check_number(name: str, value: object, low: float, high: float, *, low_open: bool = False) -> float:
    """Return value as a float if it is a finite number in [low, high] (or (low, high]).

    >>> check_number("slowdown", 1.5, 1.0, 10.0)
    1.5
    >>> try:
    ...     check_number("slowdown", 12, 1.0, 10.0)
    ... except ConfigError as e:
    ...     print(e)
    slowdown: got 12, allowed [1, 10]
    """
    bracket = "(" if low_open else "["
    allowed = f"{bracket}{low:g}, {high:g}]"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(name, value, f"a number in {allowed}")
    number = float(value)
    if not math.isfinite(number):
        raise ConfigError(name, value, f"a finite number in {allowed}")
    if number < low or number > high or (low_open and number == low):
        raise ConfigError(name, value, allowed)
    return number


def check_int(name: str, value: object, low: int, high: int) -> int:
    """Return value if it is a whole number in [low, high].

    >>> check_int("gpus", 8.0, 2, 1024)
    8
    """
    allowed = f"a whole number from {low} to {high}"
    if isinstance(value, bool):
        raise ConfigError(name, value, allowed)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(name, value, allowed)
    return value


@dataclass(frozen=True)
class Param(Generic[T]):
    """One input: whole numbers, real numbers (`low_open` excludes the low end) or one of `choices`.

    >>> THRESHOLD.default, THRESHOLD.low, THRESHOLD.high
    (0.1, 0.01, 1.0)
    """

    name: str
    default: T
    low: float = 0.0
    high: float = 0.0
    unit: str = ""
    help: str = ""
    choices: tuple[str, ...] = ()
    low_open: bool = False

    @property
    def flag(self) -> str:
        """The command-line flag."""
        return "--" + self.name.replace("_", "-")

    @property
    def kind(self) -> type:
        """int, float or str: what the CLI parses and the page rounds to."""
        return type(self.default)

    def check(self, value: object, high: float | None = None) -> T:
        """The value if allowed (a tighter `high` may apply, as a rank below the GPU count); else ConfigError."""
        top = self.high if high is None else high
        if self.choices:
            if value not in self.choices:
                raise ConfigError(self.name, value, " or ".join(self.choices))
            return value  # type: ignore[return-value]
        if self.kind is int:
            return check_int(self.name, value, int(self.low), int(top))  # type: ignore[return-value]
        return check_number(self.name, value, self.low, top, low_open=self.low_open)  # type: ignore[return-value]

    def describe(self) -> str:
        """Help text: meaning, range or choices, and the default."""
        if self.choices:
            allowed = " or ".join(self.choices)
        else:
            low = f"more than {self.low:g}, up to " if self.low_open else f"{self.low:g}-"
            allowed = f"{low}{self.high:g}{' ' + self.unit if self.unit else ''}"
        default = f"{self.default:g}" if isinstance(self.default, float) else str(self.default)
        return f"{self.help}, {allowed} (default {default})"


MAX_PHASE_MS = 1e7
SPEED = Param("speed", 1.0, 0.0, 1000.0, "x", "how many times faster than measured", low_open=True)
"""A replay's pace."""
MB = 1e6
BYTES_PER_MS_PER_GBPS = 1e6
MIN_PHASE_MS = 1e-6
"""A nanosecond: shorter phases vanish when added to a step of milliseconds (floats), leaving a zero to divide by."""
MAX_SIZE_MB = 1e7

GPUS = Param("gpus", 8, 2, 1024, help="number of GPUs")
SLOWDOWN = Param("slowdown", 1.0, 1.0, 10.0, "x", "straggler slowdown")
MODE = Param(
    "mode",
    "sequential",
    choices=("sequential", "overlap"),
    help="sequential is the reference model; overlap puts DDP's gradient buckets on a comm stream",
)
LOST_IN = Param(
    "lost_in",
    "compute",
    choices=("compute", "load", "between_steps"),
    help="where the straggler loses its time: its forward and backward (slowed by --slowdown), or the same extra time "
    "loading its input, or between steps (a pause before its step: logging, a checkpoint)",
)
PREFETCH_RESIDUAL_MS = Param("prefetch_residual_ms", 1.0, 0.0, MAX_PHASE_MS, "ms", "load time prefetch cannot hide")
TENSOR_ACTIVITY = Param("tensor_activity", 0.5, 0.0, 1.0, help="share of compute-kernel time the tensor pipes are busy")
BUCKET_MB = Param("bucket_mb", 25.0, 0.0, MAX_SIZE_MB, "MB", "DDP bucket cap", low_open=True)
FIRST_BUCKET_MB = Param("first_bucket_mb", 1.0, 0.0, MAX_SIZE_MB, "MB", "DDP first bucket", low_open=True)

# Chosen so the ring at 8 GPUs takes exactly the reference model's 10 ms: 14 * (25 us + 193 MB / (8 * 35 GB/s)).
GRAD_MB = Param("grad_mb", 193.0, 0.0, MAX_SIZE_MB, "MB", "gradient size", low_open=True)
BANDWIDTH_GBPS = Param("bandwidth_gbps", 35.0, 0.0, 1e5, "GB/s", "link bandwidth", low_open=True)
LATENCY_US = Param("latency_us", 25.0, 0.0, 1e6, "us", "per-hop latency")

THRESHOLD = Param("threshold", 0.1, 0.01, 1.0, help="share of the step from which a rank counts as late")
"""For the trace verdicts, the page's field and the alert rule alike. At least 1 % of the step: below it, a rank's
lateness is within a clock's and a launch's own jitter, and "late by 0 % of the step" says nothing."""
PERCENT = 100.0


@dataclass(frozen=True)
class Reading:
    """A threshold as typed, read (`read_threshold`): the value to apply (None: refused), and what needs saying:
    `percent` (a bare number read as a percent), `range` (out of range), `number` (not a number), or nothing."""

    value: float | None
    hint: str = ""

    def note(self, given: str, **values: object) -> Message:
        """What the reading needs said of the text `given` (`threshold.<hint>`), with the least threshold allowed
        and any other `values` the words name.

        >>> read_threshold("0.1 %").note("0.1 %").text()
        '“0.1 %” not applied: a threshold is a share of the step from 1\u202f% to all of it, as a share (0.2) or ...'
        """
        return Message.of(f"threshold.{self.hint}", given=given, least=Share(THRESHOLD.low), **values)


def read_threshold(text: str) -> Reading:
    """A threshold as a person types it, on the command line and in the page alike: a share of the step below 1
    ("0.2", "0,2"), or a percent ("20 %", "20%"); a bare number from 1 to 100 can only be a percent, and is read as
    one, with a hint ("1" is 1 % of the step, never the whole step).

    >>> read_threshold("15"), read_threshold("1"), read_threshold("0,2").value, read_threshold("12.5 %").value
    (Reading(value=0.15, hint='percent'), Reading(value=0.01, hint='percent'), 0.2, 0.125)
    >>> read_threshold("0").hint, read_threshold("1e-9").hint, read_threshold("150").hint, read_threshold("abc").hint
    ('range', 'range', 'range', 'number')
    """
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
    elif 1.0 <= number <= PERCENT:
        number, hint = number / PERCENT, "percent"
    if not THRESHOLD.low <= number <= THRESHOLD.high:
        return Reading(None, "range")
    return Reading(number, hint)


CLUSTER_GPUS = Param("gpus", 8, 2, 10_000_000, help="number of GPUs")
JITTER_CV = Param("jitter_cv", 0.02, 0.0, 1.0, help="coefficient of variation of per-rank jitter")
STRAGGLER_PROB = Param("straggler_prob", 1e-4, 0.0, 1.0, help="probability a rank straggles in a step")
CLUSTER_SLOWDOWN = Param("slowdown", 2.0, 1.0, 10.0, "x", "transient straggler slowdown")
PERSISTENT = Param("persistent", 0, 0, 10_000_000, help="number of persistently slow ranks (at most the GPUs)")
PERSISTENT_SLOWDOWN = Param("persistent_slowdown", 2.0, 1.0, 10.0, "x", "their slowdown")
ALGORITHM = Param("allreduce", "ring", choices=("ring", "tree"), help="AllReduce algorithm")
CLUSTER_PARAMS = (CLUSTER_GPUS, JITTER_CV, STRAGGLER_PROB, CLUSTER_SLOWDOWN, PERSISTENT, PERSISTENT_SLOWDOWN, ALGORITHM)
