"""The validated inputs of one training step."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..base import ConfigError
from ..base.params import (
    BUCKET_MB,
    FIRST_BUCKET_MB,
    GPUS,
    LOST_IN,
    MAX_PHASE_MS,
    MIN_PHASE_MS,
    MODE,
    PREFETCH_RESIDUAL_MS,
    SLOWDOWN,
    TENSOR_ACTIVITY,
    check_int,
    check_number,
)
from .comm import Link, ring_time_ms

__all__ = ["Phases", "StepConfig", "default_straggler"]


def default_straggler(gpus: int) -> int:
    """GPU 2 as in the reference scenarios, or the last GPU when there are fewer.

    >>> default_straggler(8), default_straggler(2)
    (2, 1)
    """
    return min(2, gpus - 1)


@dataclass(frozen=True)
class Phases:
    """Nominal per-GPU phase durations in ms (docs/model.md).

    >>> Phases(forward=12.0).forward, Phases().forward + Phases().backward
    (12.0, 26.0)
    """

    load: float = 6.0
    forward: float = 10.0
    backward: float = 16.0
    allreduce: float = 10.0
    optimizer: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "load", check_number("load_ms", self.load, 0.0, MAX_PHASE_MS))
        for name in ("forward", "backward", "allreduce", "optimizer"):
            value = check_number(f"{name}_ms", getattr(self, name), MIN_PHASE_MS, MAX_PHASE_MS)
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class StepConfig:
    """One data-parallel step: GPU count, phases, stragglers (and where they lose their time) and prefetch.

    >>> c = StepConfig(gpus=4, slowdown=1.5)
    >>> c.gpus, c.stragglers, c.mode
    (4, (2,), 'sequential')
    >>> StepConfig(gpus=1)
    Traceback (most recent call last):
    ddpcore.base.params.ConfigError: gpus: got 1, allowed a whole number from 2 to 1024
    """

    gpus: int = GPUS.default
    phases: Phases = field(default_factory=Phases)
    stragglers: tuple[int, ...] = (default_straggler(GPUS.default),)
    slowdown: float = SLOWDOWN.default
    lost_in: str = LOST_IN.default
    prefetch: bool = False
    prefetch_residual_ms: float = PREFETCH_RESIDUAL_MS.default
    tensor_activity: float = TENSOR_ACTIVITY.default
    mode: str = MODE.default
    link: Link | None = None
    bucket_mb: float = BUCKET_MB.default
    first_bucket_mb: float = FIRST_BUCKET_MB.default

    def __post_init__(self) -> None:
        gpus = GPUS.check(self.gpus)
        object.__setattr__(self, "gpus", gpus)
        if not isinstance(self.phases, Phases):
            raise ConfigError("phases", self.phases, "a Phases value")
        stragglers = tuple(check_int("straggler", r, 0, gpus - 1) for r in self.stragglers)
        object.__setattr__(self, "stragglers", tuple(sorted(set(stragglers))))
        if not isinstance(self.prefetch, bool):
            raise ConfigError("prefetch", self.prefetch, "true or false")
        for param in (SLOWDOWN, LOST_IN, PREFETCH_RESIDUAL_MS, TENSOR_ACTIVITY, MODE, BUCKET_MB, FIRST_BUCKET_MB):
            object.__setattr__(self, param.name, param.check(getattr(self, param.name)))
        if self.link is not None and not isinstance(self.link, Link):
            raise ConfigError("link", self.link, "a Link value")
        derived = self.link is not None or self.mode != MODE.default
        if derived and ring_time_ms(gpus, self.network) < MIN_PHASE_MS:
            raise ConfigError(
                "grad_mb", self.network.grad_mb, "with this bandwidth and latency, an AllReduce of at least 1 ns"
            )

    @property
    def load_effective_ms(self) -> float:
        """Prefetch hides loading except the host-to-device copy that still stalls the GPU."""
        if self.prefetch:
            return min(self.phases.load, self.prefetch_residual_ms)
        return self.phases.load

    def slowdown_of(self, rank: int) -> float:
        """The factor by which this rank's compute is slowed (1 when the straggler loses its time elsewhere)."""
        return self.slowdown if rank in self.stragglers and self.lost_in == "compute" else 1.0

    def extra_ms_of(self, rank: int) -> float:
        """The time a straggler loses outside its compute: as much as the slowdown would add to its forward and
        backward, so that moving it changes where it goes, not how much.

        >>> StepConfig(slowdown=2.0, lost_in="load").extra_ms_of(2)
        26.0
        """
        if rank not in self.stragglers or self.lost_in == "compute":
            return 0.0
        return (self.slowdown - 1.0) * (self.phases.forward + self.phases.backward)

    def load_of(self, rank: int) -> float:
        """This rank's loading: prefetched loading runs ahead in workers, a slow loader's delay included, leaving
        only the copy to the GPU; else the nominal load, and a slow loader's delay."""
        if self.prefetch:
            return self.load_effective_ms
        return self.phases.load + (self.extra_ms_of(rank) if self.lost_in == "load" else 0.0)

    def pause_of(self, rank: int) -> float:
        """Time this rank spends between the previous step and this one (a straggler losing its time there)."""
        return self.extra_ms_of(rank) if self.lost_in == "between_steps" else 0.0

    def without_stragglers(self) -> StepConfig:
        """The same step with nobody slowed: the ideal the straggler cost is measured against."""
        return self if self.slowdown == 1.0 else replace(self, slowdown=1.0)

    def with_prefetch(self, on: bool) -> StepConfig:
        """The same step with input prefetch on or off."""
        return self if self.prefetch == on else replace(self, prefetch=on)

    @property
    def network(self) -> Link:
        """The link the AllReduce crosses; overlap mode always derives its bucket times from one."""
        return self.link or Link()
