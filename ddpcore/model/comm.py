"""The link an AllReduce crosses, and the AllReduce's time from gradient size, bandwidth and per-hop latency
(docs/model.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..base import ConfigError
from ..base.params import BANDWIDTH_GBPS, BYTES_PER_MS_PER_GBPS, GRAD_MB, LATENCY_US, MAX_PHASE_MS, MB
from .ring import traffic_factor


@dataclass(frozen=True)
class Link:
    """Gradient size and the network it crosses: what an AllReduce's duration is derived from.

    >>> Link().grad_mb, Link(bandwidth_gbps=100.0).bandwidth_gbps
    (193.0, 100.0)
    """

    grad_mb: float = GRAD_MB.default
    bandwidth_gbps: float = BANDWIDTH_GBPS.default
    latency_us: float = LATENCY_US.default

    def __post_init__(self) -> None:
        for param in (GRAD_MB, BANDWIDTH_GBPS, LATENCY_US):
            object.__setattr__(self, param.name, param.check(getattr(self, param.name)))
        slowest = self.grad_mb * MB / (MAX_PHASE_MS * BYTES_PER_MS_PER_GBPS)
        if self.bandwidth_gbps < slowest:
            raise ConfigError(
                "bandwidth_gbps", self.bandwidth_gbps, f">= {slowest:.3g} for a {self.grad_mb:g} MB gradient"
            )


def ring_time_ms(gpus: int, link: Link, grad_mb: float | None = None) -> float:
    """2(N-1) exchanges, each paying one hop's latency and one chunk of G/N bytes.

    >>> round(ring_time_ms(8, Link()), 2), round(ring_time_ms(64, Link()), 2)
    (10.0, 14.01)
    """
    size = link.grad_mb if grad_mb is None else grad_mb
    hops = traffic_factor(gpus) * gpus
    return hops * (link.latency_us / 1000.0 + size * MB / (gpus * link.bandwidth_gbps * BYTES_PER_MS_PER_GBPS))


def tree_time_ms(gpus: int, link: Link, grad_mb: float | None = None) -> float:
    """Pipelined reduce then broadcast down a binary tree: latency grows with log2 N, bandwidth term 2G/B.

    >>> round(tree_time_ms(8, Link()), 2), round(tree_time_ms(1024, Link()), 2)
    (11.18, 11.53)
    """
    size = link.grad_mb if grad_mb is None else grad_mb
    depth = math.ceil(math.log2(gpus))
    return 2 * depth * link.latency_us / 1000.0 + 2 * size * MB / (link.bandwidth_gbps * BYTES_PER_MS_PER_GBPS)


def algbw_gbps(grad_mb: float, time_ms: float) -> float:
    """nccl-tests' algorithm bandwidth: data size over time.

    >>> algbw_gbps(grad_mb=1000.0, time_ms=100.0)
    10.0
    """
    return grad_mb * MB / (time_ms * BYTES_PER_MS_PER_GBPS)


def busbw_gbps(gpus: int, grad_mb: float, time_ms: float) -> float:
    """nccl-tests' bus bandwidth for AllReduce: algbw * 2(N-1)/N, comparable to link speed.

    >>> busbw_gbps(8, grad_mb=1000.0, time_ms=100.0)
    17.5
    """
    return algbw_gbps(grad_mb, time_ms) * traffic_factor(gpus)


__all__ = [
    "Link",
    "algbw_gbps",
    "busbw_gbps",
    "ring_time_ms",
    "tree_time_ms",
]
