"""The validated inputs of one training step."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

MIN_GPUS = 2
MAX_GPUS = 1024
MAX_SLOWDOWN = 10.0
MAX_PHASE_MS = 1e7


def default_straggler(gpus: int) -> int:
    """GPU 2 as in the reference scenarios, or the last GPU when there are fewer."""
    return min(2, gpus - 1)


class ConfigError(ValueError):
    """A configuration value outside its allowed range; the message names the field."""

    def __init__(self, field_name: str, value: object, allowed: str) -> None:
        self.field = field_name
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field_name}: got {value!r}, allowed {allowed}")


def check_number(name: str, value: object, low: float, high: float, *, low_open: bool = False) -> float:
    """Return value as a float if it is a finite number in [low, high] (or (low, high])."""
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
    """Return value if it is a whole number in [low, high]."""
    allowed = f"a whole number from {low} to {high}"
    if isinstance(value, bool):
        raise ConfigError(name, value, allowed)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(name, value, allowed)
    return value


@dataclass(frozen=True)
class Phases:
    """Nominal per-GPU phase durations in ms (docs/model.md)."""

    load: float = 6.0
    forward: float = 10.0
    backward: float = 16.0
    allreduce: float = 10.0
    optimizer: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "load", check_number("load_ms", self.load, 0.0, MAX_PHASE_MS))
        for name in ("forward", "backward", "allreduce", "optimizer"):
            value = check_number(f"{name}_ms", getattr(self, name), 0.0, MAX_PHASE_MS, low_open=True)
            object.__setattr__(self, name, value)


MODES = ("sequential", "overlap")

# Chosen so the ring at 8 GPUs takes exactly the seed view's 10 ms: 14 * (25 us + 193 MB / (8 * 35 GB/s)).
DEFAULT_GRAD_MB = 193.0
DEFAULT_BANDWIDTH_GBPS = 35.0
DEFAULT_LATENCY_US = 25.0
DEFAULT_BUCKET_MB = 25.0
DEFAULT_FIRST_BUCKET_MB = 1.0


@dataclass(frozen=True)
class Link:
    """Gradient size and the network it crosses: what an AllReduce's duration is derived from."""

    grad_mb: float = DEFAULT_GRAD_MB
    bandwidth_gbps: float = DEFAULT_BANDWIDTH_GBPS
    latency_us: float = DEFAULT_LATENCY_US

    def __post_init__(self) -> None:
        object.__setattr__(self, "grad_mb", check_number("grad_mb", self.grad_mb, 0.0, 1e7, low_open=True))
        object.__setattr__(
            self, "bandwidth_gbps", check_number("bandwidth_gbps", self.bandwidth_gbps, 0.0, 1e5, low_open=True)
        )
        object.__setattr__(self, "latency_us", check_number("latency_us", self.latency_us, 0.0, 1e6))


@dataclass(frozen=True)
class StepConfig:
    """One data-parallel step: GPU count, phases, stragglers and prefetch."""

    gpus: int = 8
    phases: Phases = field(default_factory=Phases)
    stragglers: tuple[int, ...] = (2,)
    slowdown: float = 1.0
    prefetch: bool = False
    prefetch_residual_ms: float = 1.0
    tensor_activity: float = 0.5
    mode: str = "sequential"
    link: Link | None = None
    bucket_mb: float = DEFAULT_BUCKET_MB
    first_bucket_mb: float = DEFAULT_FIRST_BUCKET_MB

    def __post_init__(self) -> None:
        gpus = check_int("gpus", self.gpus, MIN_GPUS, MAX_GPUS)
        object.__setattr__(self, "gpus", gpus)
        if not isinstance(self.phases, Phases):
            raise ConfigError("phases", self.phases, "a Phases value")
        stragglers = tuple(check_int("straggler", r, 0, gpus - 1) for r in self.stragglers)
        object.__setattr__(self, "stragglers", tuple(sorted(set(stragglers))))
        object.__setattr__(self, "slowdown", check_number("slowdown", self.slowdown, 1.0, MAX_SLOWDOWN))
        if not isinstance(self.prefetch, bool):
            raise ConfigError("prefetch", self.prefetch, "true or false")
        residual = check_number("prefetch_residual_ms", self.prefetch_residual_ms, 0.0, MAX_PHASE_MS)
        object.__setattr__(self, "prefetch_residual_ms", residual)
        activity = check_number("tensor_activity", self.tensor_activity, 0.0, 1.0)
        object.__setattr__(self, "tensor_activity", activity)
        if self.mode not in MODES:
            raise ConfigError("mode", self.mode, " or ".join(MODES))
        if self.link is not None and not isinstance(self.link, Link):
            raise ConfigError("link", self.link, "a Link value")
        object.__setattr__(self, "bucket_mb", check_number("bucket_mb", self.bucket_mb, 0.0, 1e7, low_open=True))
        first = check_number("first_bucket_mb", self.first_bucket_mb, 0.0, 1e7, low_open=True)
        object.__setattr__(self, "first_bucket_mb", first)

    @property
    def load_effective_ms(self) -> float:
        """Prefetch hides loading except the host-to-device copy that still stalls the GPU."""
        if self.prefetch:
            return min(self.phases.load, self.prefetch_residual_ms)
        return self.phases.load

    def slowdown_of(self, rank: int) -> float:
        """The factor by which this rank's compute is slowed."""
        return self.slowdown if rank in self.stragglers else 1.0

    def without_stragglers(self) -> StepConfig:
        """The same step with nobody slowed: the ideal the straggler cost is measured against."""
        return replace(self, slowdown=1.0)

    def with_prefetch(self, on: bool) -> StepConfig:
        """The same step with input prefetch on or off."""
        return replace(self, prefetch=on)

    @property
    def network(self) -> Link:
        """The link the AllReduce crosses; overlap mode always derives its bucket times from one."""
        return self.link or Link()
