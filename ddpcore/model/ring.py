"""Ring AllReduce, exchange by exchange (docs/model.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from ..base.params import GPUS, check_int

__all__ = [
    "ChunkState",
    "Exchange",
    "Transfer",
    "allreduce",
    "chunk_bounds",
    "exchange",
    "exchange_count",
    "exchanges",
    "ring_state",
    "sent_fraction",
    "traffic_factor",
]

REDUCE_SCATTER = "reduce-scatter"
ALL_GATHER = "all-gather"

T = TypeVar("T")

MAX_RING_GPUS = 10_000_000


@dataclass(frozen=True)
class Transfer:
    """One GPU sending one chunk to its right neighbour.

    >>> exchange(4, 1).transfers[0]
    Transfer(src=0, dst=1, chunk=0)
    """

    src: int
    dst: int
    chunk: int


@dataclass(frozen=True)
class Exchange:
    """One ring exchange: every GPU sends one chunk to its right neighbour at once.

    >>> e = exchange(4, 1)
    >>> e.index, e.stage, e.stage_step, len(e.transfers)
    (1, 'reduce-scatter', 1, 4)
    """

    index: int
    stage: str
    stage_step: int
    transfers: tuple[Transfer, ...]


@dataclass(frozen=True)
class ChunkState:
    """How many GPUs' contributions one GPU's copy of a chunk holds.

    >>> ring_state(4, 0)[0][0], ring_state(4, 6)[0][0]
    (ChunkState(count=1, final=False), ChunkState(count=4, final=True))
    """

    count: int
    final: bool


def exchange_count(gpus: int) -> int:
    """N−1 reduce-scatter exchanges, then N−1 all-gather exchanges.

    >>> exchange_count(8)
    14
    """
    return 2 * (check_int("gpus", gpus, int(GPUS.low), MAX_RING_GPUS) - 1)


def traffic_factor(gpus: int) -> float:
    """Bytes each GPU sends per byte of gradients: one chunk (1/N) per exchange, 2(N−1)/N in all.

    >>> traffic_factor(8), traffic_factor(2)
    (1.75, 1.0)
    """
    return exchange_count(gpus) / gpus


def sent_fraction(gpus: int, after: int) -> float:
    """Share of the gradients each GPU has sent once `after` exchanges are done.

    >>> sent_fraction(4, 3), sent_fraction(4, 6)
    (0.75, 1.5)
    """
    return min(max(after, 0), exchange_count(gpus)) / gpus


def exchange(gpus: int, index: int) -> Exchange:
    """Exchange `index` (1-based): reduce-scatter first, then all-gather.

    >>> exchange(4, 1).stage, exchange(4, 4).stage, exchange(4, 4).transfers[0]
    ('reduce-scatter', 'all-gather', Transfer(src=0, dst=1, chunk=1))
    """
    total = exchange_count(gpus)
    check_int("exchange", index, 1, total)
    half = gpus - 1
    if index <= half:
        k, stage, offset = index - 1, REDUCE_SCATTER, 0
    else:
        k, stage, offset = index - 1 - half, ALL_GATHER, 1
    transfers = tuple(Transfer(i, (i + 1) % gpus, (i + offset - k) % gpus) for i in range(gpus))
    return Exchange(index=index, stage=stage, stage_step=k + 1, transfers=transfers)


def exchanges(gpus: int) -> tuple[Exchange, ...]:
    """Every exchange of a ring AllReduce over `gpus` GPUs, in order.

    >>> len(exchanges(8))
    14
    """
    return tuple(exchange(gpus, e) for e in range(1, exchange_count(gpus) + 1))


def run_ring(
    gpus: int,
    values: list[list[T]],
    combine: Callable[[T, T], T],
    *,
    after: int | None = None,
) -> list[list[T]]:
    """Apply the schedule to per-GPU, per-chunk values; reduce-scatter combines, all-gather copies.

    >>> run_ring(3, [[1, 2, 3], [10, 20, 30], [100, 200, 300]], lambda a, b: a + b)
    [[111, 222, 333], [111, 222, 333], [111, 222, 333]]
    """
    total = exchange_count(gpus)
    stop = total if after is None else check_int("exchange", after, 0, total)
    state = [list(row) for row in values]
    for e in range(1, stop + 1):
        ex = exchange(gpus, e)
        sent = [state[t.src][t.chunk] for t in ex.transfers]
        for t, payload in zip(ex.transfers, sent):
            if ex.stage == REDUCE_SCATTER:
                state[t.dst][t.chunk] = combine(state[t.dst][t.chunk], payload)
            else:
                state[t.dst][t.chunk] = payload
    return state


def ring_state(gpus: int, after: int) -> tuple[tuple[ChunkState, ...], ...]:
    """Per GPU and chunk, the contributions held after `after` exchanges (0 = before the first).

    >>> [c.count for c in ring_state(4, 2)[0]], ring_state(4, 6)[0][0]
    ([1, 1, 3, 2], ChunkState(count=4, final=True))
    """
    ones = [[1] * gpus for _ in range(gpus)]
    counts = run_ring(gpus, ones, lambda a, b: a + b, after=after)
    return tuple(tuple(ChunkState(c, c == gpus) for c in row) for row in counts)


def chunk_bounds(length: int, gpus: int) -> list[tuple[int, int]]:
    """Split `length` elements into `gpus` nearly equal contiguous chunks.

    >>> chunk_bounds(10, 4)
    [(0, 3), (3, 6), (6, 8), (8, 10)]
    """
    base, extra = divmod(length, gpus)
    bounds, start = [], 0
    for c in range(gpus):
        end = start + base + (1 if c < extra else 0)
        bounds.append((start, end))
        start = end
    return bounds


def allreduce(vectors: Sequence[Sequence[float]]) -> list[list[float]]:
    """Sum equal-length vectors, one per GPU, with the ring schedule; every GPU gets the sum.

    >>> allreduce([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    [[9.0, 12.0], [9.0, 12.0], [9.0, 12.0]]
    """
    gpus = len(vectors)
    length = len(vectors[0]) if vectors else 0
    if any(len(v) != length for v in vectors):
        raise ValueError("allreduce: every GPU needs a vector of the same length")
    bounds = chunk_bounds(length, gpus)
    chunks = [[list(v[a:b]) for a, b in bounds] for v in vectors]
    reduced = run_ring(gpus, chunks, lambda mine, theirs: [x + y for x, y in zip(mine, theirs)])
    return [[x for chunk in row for x in chunk] for row in reduced]
