"""AllReduce time from gradient size, link bandwidth and per-hop latency (SPEC section 3)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .config import check_number
from .ring import traffic_factor

MB = 1e6
BYTES_PER_MS_PER_GBPS = 1e6

# Chosen so the ring at 8 GPUs takes exactly the seed view's 10 ms: 14 * (25 us + 193 MB / (8 * 35 GB/s)).
DEFAULT_GRAD_MB = 193.0
DEFAULT_BANDWIDTH_GBPS = 35.0
DEFAULT_LATENCY_US = 25.0


@dataclass(frozen=True)
class Link:
    """Gradient size and the network it crosses."""

    grad_mb: float = DEFAULT_GRAD_MB
    bandwidth_gbps: float = DEFAULT_BANDWIDTH_GBPS
    latency_us: float = DEFAULT_LATENCY_US

    def __post_init__(self) -> None:
        object.__setattr__(self, "grad_mb", check_number("grad_mb", self.grad_mb, 0.0, 1e7, low_open=True))
        object.__setattr__(
            self, "bandwidth_gbps", check_number("bandwidth_gbps", self.bandwidth_gbps, 0.0, 1e5, low_open=True)
        )
        object.__setattr__(self, "latency_us", check_number("latency_us", self.latency_us, 0.0, 1e6))


def ring_time_ms(gpus: int, link: Link, grad_mb: float | None = None) -> float:
    """2(N-1) exchanges, each paying one hop's latency and one chunk of G/N bytes."""
    size = link.grad_mb if grad_mb is None else grad_mb
    hops = traffic_factor(gpus) * gpus
    return hops * (link.latency_us / 1000.0 + size * MB / (gpus * link.bandwidth_gbps * BYTES_PER_MS_PER_GBPS))


def tree_time_ms(gpus: int, link: Link, grad_mb: float | None = None) -> float:
    """Pipelined reduce then broadcast down a binary tree: latency grows with log2 N, bandwidth term 2G/B."""
    size = link.grad_mb if grad_mb is None else grad_mb
    depth = math.ceil(math.log2(gpus))
    return 2 * depth * link.latency_us / 1000.0 + 2 * size * MB / (link.bandwidth_gbps * BYTES_PER_MS_PER_GBPS)


def algbw_gbps(grad_mb: float, time_ms: float) -> float:
    """nccl-tests' algorithm bandwidth: data size over time."""
    return grad_mb * MB / (time_ms * BYTES_PER_MS_PER_GBPS)


def busbw_gbps(gpus: int, grad_mb: float, time_ms: float) -> float:
    """nccl-tests' bus bandwidth for AllReduce: algbw * 2(N-1)/N, comparable to link speed."""
    return algbw_gbps(grad_mb, time_ms) * traffic_factor(gpus)
