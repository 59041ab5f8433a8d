"""AllReduce time from gradient size, link bandwidth and per-hop latency (docs/model.md)."""

from __future__ import annotations

import math

from .config import Link
from .params import BYTES_PER_MS_PER_GBPS, MB
from .ring import traffic_factor


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


__all__ = [
    "Link",
    "algbw_gbps",
    "busbw_gbps",
    "ring_time_ms",
    "tree_time_ms",
]
