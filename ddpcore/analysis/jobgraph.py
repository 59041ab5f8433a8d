"""One step of a 3D-parallel job as a dependency graph, and its re-timing.

A worker (one data-parallel rank of one pipeline stage) runs its operations in the order its trace shows them; an
operation starts when those it depends on have ended. The graph is built once from one step of the workers of data-
parallel rank 0 (every rank and step runs the same schedule) and holds, per stage:

- the compute chain: forward and backward computes in the order they ran (GPipe, 1F1B, interleaved: as recorded);
- each point-to-point stream (forward send, forward receive, backward send, backward receive) in its own order; a send
  waits for the compute that made what it sends, a compute waits for the receive that brings its input, and a receive
  is posted once the compute before it was issued;
- the data-parallel collectives (parameter all-gather, gradient reduce-scatter or all-reduce) in their order, the
  first forward compute of a model chunk after its all-gather, and the gradient collectives after the last backward;
- after the last compute: garbage collection, the layer-norm and embedding gradient all-reduces, the gradient
  reduce-scatter, gradient clipping and the optimizer, in that order.

Communication is a group: a send and its receive on the neighbouring stage; a data-parallel collective across the
stage's data-parallel ranks; the embedding all-reduce between the first and last stage; the gradient clip across every
worker. A group's members end together, its transfer time after the latest member started (so waiting for a late
peer is not counted as transfer). The model is the one of "Understanding Stragglers in Large Model Training Using
What-if Analysis" (OSDI 2025), written here from its description.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..traces.optrace import OpRow

__all__ = [
    "COMM_OPTYPES",
    "Key",
    "StepGraph",
    "graph_of",
]

FORWARD, BACKWARD = "forward-compute", "backward-compute"
P2P_PEER = {
    "forward-send": ("forward-recv", 1),
    "forward-recv": ("forward-send", -1),
    "backward-send": ("backward-recv", -1),
    "backward-recv": ("backward-send", 1),
}
"""Each point-to-point type, the type of its peer and the step to the peer's stage."""
PARAMS_GATHER = "params-all-gather"
GRADS_SCATTER = "grads-reduce-scatter"
GRADS_SEPARATE = "separate-grads-all-reduce"
DP_COLLECTIVES = (PARAMS_GATHER, GRADS_SCATTER, GRADS_SEPARATE)
LAYERNORM, EMBEDDING = "layernorm-grads-all-reduce", "embedding-grads-all-reduce"
GC, CLIP, OPTIMIZER = "gc", "optimizer-clip-main-grad", "optimizer"
COMM_OPTYPES = (*P2P_PEER, *DP_COLLECTIVES, LAYERNORM, EMBEDDING, CLIP)
"""The operation types that communicate (their typical duration is a median: a few slow transfers are not typical)."""

Key = tuple[str, int, int]
"""An operation of a step on a stage: its type, its place among that type's (`seq_id`) and its stage."""


@dataclass(frozen=True)
class StepGraph:
    """One step's dependency graph (`graph_of`): each operation's prerequisites, the communication groups (with
    whether each also waits for every data-parallel rank), and the order in which units are timed (a unit being an
    operation that communicates with nobody, or a whole group)."""

    needs: dict[Key, tuple[Key, ...]]
    groups: tuple[tuple[Key, ...], ...]
    dp_synced: tuple[bool, ...]
    order: tuple[int | Key, ...]
    stages: int
    last_stage: int = -1
    """The pipeline stage that holds the model's last layers (its last virtual stage): the last stage, but where a
    V-shaped schedule puts the model's last chunk back on the first (-1: the last stage)."""

    def group_of(self) -> dict[Key, int]:
        """Each communicating operation's group."""
        return {k: g for g, members in enumerate(self.groups) for k in members}


def _chain(needs: dict[Key, list[Key]], keys: Sequence[Key], after: Iterable[Key] = ()) -> None:
    """Each of `keys` after the one before it (the first after `after`)."""
    last = list(after)
    for k in keys:
        needs[k].extend(last)
        last = [k]


EPSILON = 5e-4
"""Seconds a compute may seem to start before the receive it waited for ended (the artifact's tolerance for two
clocks)."""


def _interleaved(ops: Sequence[OpRow]) -> bool:
    """Whether a stage's worker holds more than one model chunk (virtual stages of an interleaved schedule)."""
    return any(o.chunk >= 1 for o in ops)


def _virtual(o: OpRow, stage: int, pp: int) -> int:
    """A compute's virtual stage: its place in the whole model as its trace says it (`OpRow.virtual`), or as Megatron
    lays chunks out, chunk × pp + stage."""
    return o.virtual if o.virtual >= 0 else max(0, o.chunk) * pp + stage


def _chunked_needs(
    kind: str,
    comms: Sequence[OpRow],
    computes: Sequence[OpRow],
    stage: int,
    pp: int,
    virtuals: int,
    needs: dict[Key, list[Key]],
) -> list[tuple[int, Key]]:
    """A worker of model chunks: each send or receive of a type (in the order they ran) tied to the compute it serves,
    and those that carry something, in order. As the artifact reads Megatron's interleaved schedule, a receive that
    starts after the pass's last compute started, or a send that ends before its first compute ended, is recorded
    beyond the step's work and carries nothing; the others are the computes' one for one (a first receive of the
    first stage may be missing), and one whose compute's virtual stage is the first or last of the model's
    `virtuals` (`_virtual`: no neighbour that way) carries nothing either. Where the counts differ otherwise
    (a schedule that records only the transfers it makes), each is tied by time: a send to the last compute of its
    pass that started before it, a receive to the first that starts after it ended; where they name their model
    chunk (PyTorch's runtime names each one's virtual stage), by time among that chunk's computes. A receive is posted
    after the last compute of its pass that started before it, as its trace shows it (Megatron posts it after the
    compute before the one it feeds, PyTorch's runtime just before it needs it). Only those that carry something make
    the type's stream (`_stage_needs`), pair with a peer and end with it (`graph_of`): one that carries nothing holds
    up nothing. Each comes with the virtual stage of the compute it serves."""
    if not computes:
        return []
    receive = kind.endswith("recv")
    compute = computes[0].optype
    last_start, first_end = max(c.start for c in computes), min(c.end for c in computes)
    inside = [o for o in comms if (o.start <= last_start + EPSILON if receive else o.end >= first_end - EPSILON)]
    served: list[tuple[OpRow, OpRow | None]]
    if any(o.chunk >= 0 for o in comms):
        served = [(o, _served_by_time(o, [c for c in computes if c.chunk == o.chunk], receive)) for o in comms]
    elif len(inside) == len(computes):
        served = list(zip(inside, computes))
    elif receive and len(inside) + 1 == len(computes):
        served = list(zip(inside, computes[1:]))
    else:
        served = [(o, _served_by_time(o, computes, receive)) for o in inside]
    carrying: list[tuple[int, Key]] = []
    for o, c in served:
        if c is None:
            continue
        key, made = (kind, o.seq, stage), (compute, c.seq, stage)
        if receive:
            needs[made].append(key)
            posted = _last_before(computes, o.start)
            if posted is not None and posted is not c:
                needs[key].append((compute, posted.seq, stage))
        else:
            needs[key].append(made)
        virtual = _virtual(c, stage, pp)
        if 0 <= virtual + P2P_PEER[kind][1] < virtuals:
            carrying.append((virtual, key))
    return carrying


def _served_by_time(comm: OpRow, computes: Sequence[OpRow], receive: bool) -> OpRow | None:
    """The compute a send or receive serves, by time: a receive's, the first that starts after it ended; a send's,
    the last that started before it."""
    if receive:
        return next((c for c in computes if c.start >= comm.end - EPSILON), None)
    return _last_before(computes, comm.start)


def _last_before(computes: Sequence[OpRow], at: float) -> OpRow | None:
    """The last of the computes (in the order they ran) that started before `at`."""
    return next((c for c in reversed(computes) if c.start < at), None)


def _stage_needs(
    ops: Sequence[OpRow], stage: int, pp: int, data_parallel: bool, needs: dict[Key, list[Key]], virtuals: int = 0
) -> dict[str, list[tuple[int, Key]]]:
    """The prerequisites within one stage's worker; for a worker of model chunks (of the model's `virtuals`), the
    sends and receives of each type that carry something, in order, each with its compute's virtual stage
    (`_chunked_needs`)."""
    carried: dict[str, list[tuple[int, Key]]] = {}
    by_time = sorted(ops, key=lambda o: (o.start, o.seq, o.optype))
    of_type: dict[str, list[OpRow]] = defaultdict(list)
    for o in by_time:
        of_type[o.optype].append(o)
    have = {(o.optype, o.seq, stage) for o in ops}
    computes = [o for o in by_time if o.optype in (FORWARD, BACKWARD)]
    _chain(needs, [(o.optype, o.seq, stage) for o in computes])
    if not _interleaved(ops):
        for kind in P2P_PEER:
            _chain(needs, [(kind, o.seq, stage) for o in of_type[kind]])
    for compute, send, recv in (
        (FORWARD, "forward-send", "forward-recv"),
        (BACKWARD, "backward-send", "backward-recv"),
    ):
        made = [(compute, o.seq, stage) for o in of_type[compute]]
        if _interleaved(ops):
            for kind in (send, recv):
                carried[kind] = _chunked_needs(kind, of_type[kind], of_type[compute], stage, pp, virtuals, needs)
                _chain(needs, [k for _, k in carried[kind]])
            continue
        for k, o in enumerate(of_type[send][: len(made)]):
            needs[(send, o.seq, stage)].append(made[k])
        for k, o in enumerate(of_type[recv][: len(made)]):
            needs[made[k]].append((recv, o.seq, stage))
            if k:
                needs[(recv, o.seq, stage)].append(made[k - 1])
    first_backward = next((i for i, o in enumerate(computes) if o.optype == BACKWARD), -1)
    if first_backward >= 2:
        before = computes[first_backward - 2]
        for kind in ("backward-recv", "backward-send"):
            if (kind, 0, stage) in have:
                needs[(kind, 0, stage)].append((before.optype, before.seq, stage))
    gathers = of_type[PARAMS_GATHER]
    separate = bool(of_type[GRADS_SEPARATE])
    if data_parallel:
        _chain(needs, [(o.optype, o.seq, stage) for o in by_time if o.optype in (PARAMS_GATHER, GRADS_SCATTER)])
        placed: set[int] = set()
        for o in reversed(gathers):
            if o.chunk in placed:
                continue
            first = next((c for c in of_type[FORWARD] if c.chunk == o.chunk), None)
            if first is not None:
                needs[(FORWARD, first.seq, stage)].append((PARAMS_GATHER, o.seq, stage))
            placed.add(o.chunk)
        if separate:
            placed = set()
            for o in of_type[GRADS_SCATTER]:
                if o.chunk in placed:
                    continue
                last = max((c for c in of_type[BACKWARD] if c.chunk == o.chunk), key=lambda c: c.end, default=None)
                if last is not None:
                    needs[(GRADS_SCATTER, o.seq, stage)].append((BACKWARD, last.seq, stage))
                placed.add(o.chunk)
    if not computes:
        return carried
    last = max(computes, key=lambda o: o.end)
    after: list[Key] = [(last.optype, last.seq, stage)]
    if (GC, 0, stage) in have:
        needs[(GC, 0, stage)].extend(after)
        after = [(GC, 0, stage)]
    chain: list[Key] = [(LAYERNORM, 0, stage)]
    if stage in (0, pp - 1):
        chain.append((EMBEDDING, 0, stage))
    if data_parallel and separate:
        scatters = of_type[GRADS_SCATTER]
        if scatters:
            after.append((GRADS_SCATTER, scatters[-1].seq, stage))
        chain.append((GRADS_SEPARATE, 0, stage))
    elif data_parallel:
        chain.extend((GRADS_SCATTER, o.seq, stage) for o in of_type[GRADS_SCATTER])
    chain += [(CLIP, 0, stage), (OPTIMIZER, 0, stage)]
    _chain(needs, [k for k in chain if k in have], [k for k in after if k in have])
    return carried


def graph_of(template: Sequence[OpRow], pp: int, data_parallel: bool) -> StepGraph:
    """The dependency graph of one step, from the operations of one step of data-parallel rank 0 (`template`) of a
    pipeline of `pp` stages; `data_parallel`: whether the job has more than one data-parallel (or context-parallel)
    rank, so that its collectives wait for each other.

    >>> from ddpcore.traces.optrace import OpRow
    >>> ops = [OpRow(0, s, s, 0, t, 1.0 * i + s, 0.5, 0) for s in (0, 1)
    ...        for i, t in enumerate(["forward-compute", "backward-compute", "optimizer-clip-main-grad", "optimizer"])]
    >>> ops += [OpRow(0, 0, 0, 0, "forward-send", 0.6, 0.1, 0), OpRow(0, 1, 1, 0, "forward-recv", 0.5, 0.3, 0)]
    >>> g = graph_of(ops, 2, False)
    >>> g.needs[("forward-compute", 0, 1)], g.groups[0]
    ((('forward-recv', 0, 1),), (('forward-send', 0, 0), ('forward-recv', 0, 1)))
    """
    keys = {(o.optype, o.seq, o.stage) for o in template}
    needs: dict[Key, list[Key]] = {k: [] for k in sorted(keys)}
    ring = _interleaved(template)
    virtuals = 1 + max((_virtual(o, o.stage, pp) for o in template if o.optype in (FORWARD, BACKWARD)), default=0)
    carried: dict[tuple[str, int], list[Key]] = defaultdict(list)
    for stage in range(pp):
        ops = [o for o in template if o.stage == stage]
        for kind, found in _stage_needs(ops, stage, pp, data_parallel, needs, virtuals).items():
            for virtual, k in found:
                carried[(kind, virtual)].append(k)
    for k, before in needs.items():
        needs[k] = [b for b in dict.fromkeys(before) if b in keys and b != k]
    groups: list[tuple[Key, ...]] = []
    synced: list[bool] = []
    for kind, (peer, delta) in P2P_PEER.items():
        if kind.endswith("recv"):
            continue
        if ring:
            for (sent, virtual), sends in sorted(carried.items()):
                if sent != kind:
                    continue
                theirs = carried.get((peer, virtual + delta), [])
                for n, k in enumerate(sends):
                    groups.append((k, theirs[n]) if n < len(theirs) else (k,))
                    synced.append(False)
            continue
        for k in sorted(k for k in keys if k[0] == kind):
            other = (peer, k[1], k[2] + delta)
            groups.append((k, other) if other in keys else (k,))
            synced.append(False)
    carrying = {k for ks in carried.values() for k in ks} if ring else keys
    for kind, _ in P2P_PEER.items():
        if kind.endswith("recv"):
            paired = {m for g in groups for m in g}
            for k in sorted(k for k in keys if k[0] == kind and k not in paired and k in carrying):
                groups.append((k,))
                synced.append(False)
    if data_parallel:
        for k in sorted(k for k in keys if k[0] in DP_COLLECTIVES):
            groups.append((k,))
            synced.append(True)
    embeddings = tuple(sorted(k for k in keys if k[0] == EMBEDDING))
    if embeddings:
        groups.append(embeddings)
        synced.append(False)
    clips = tuple(sorted(k for k in keys if k[0] == CLIP))
    if clips:
        groups.append(clips)
        synced.append(True)
    frozen = {k: tuple(v) for k, v in needs.items()}
    computes = [o for o in template if o.optype in (FORWARD, BACKWARD)]
    last = max(computes, key=lambda o: (_virtual(o, o.stage, pp), o.stage)).stage if ring and computes else pp - 1
    return StepGraph(frozen, tuple(groups), tuple(synced), _timing_order(frozen, groups), pp, last)


def _timing_order(needs: dict[Key, tuple[Key, ...]], groups: Sequence[tuple[Key, ...]]) -> tuple[int | Key, ...]:
    """The units (an operation alone, or a group's index) in an order where each comes after all it needs; a cycle
    (a trace whose order contradicts itself) raises ValueError."""
    unit: dict[Key, int | Key] = {k: k for k in needs}
    for g, members in enumerate(groups):
        for k in members:
            unit[k] = g
    after: dict[int | Key, set[int | Key]] = defaultdict(set)
    waiting: dict[int | Key, int] = {u: 0 for u in dict.fromkeys(unit.values())}
    for k, before in needs.items():
        for b in before:
            if unit[b] != unit[k] and unit[k] not in after[unit[b]]:
                after[unit[b]].add(unit[k])
                waiting[unit[k]] += 1
    ready = deque(u for u, count in waiting.items() if count == 0)
    order: list[int | Key] = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in sorted(after[u], key=str):
            waiting[v] -= 1
            if waiting[v] == 0:
                ready.append(v)
    if len(order) != len(waiting):
        raise ValueError("the operations' order contradicts itself (a cycle in the step's dependencies)")
    return tuple(order)
