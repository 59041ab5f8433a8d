"""A pipeline-parallel job's ranks as PyTorch's profiler records them: each rank's trace (`torch.profiler` with a
`ProfilerStep#N` a step; `record_shapes=True` so that each send and receive names its peer) read as the operations
of `optrace.OpTable`, its stages and data-parallel ranks told from the sends and receives and from the process
groups of its `distributedInfo`.

On a rank's main thread a step is compute between communications:

- a receive (`c10d::recv_`) ends when its transfer does (the backend's `gloo:recv` or `nccl:recv` range that starts
  inside it): the compute after it needs what it brings;
- a send (`c10d::send`) lets the rank go on once posted, and ends when its transfer does;
- a collective (`c10d::allreduce_`, `c10d::_reduce_scatter_base_`, ...) ends when its transfer does: an all-reduce or
  reduce-scatter is the data-parallel gradients', an all-gather the parameters';
- the optimizer is its `Optimizer.step#...` range, and `Optimizer.zero_grad#...` is no compute.

Compute where the autograd engine runs (`autograd::engine::evaluate_function: ...`) is backward, the rest forward; each
run of one kind between communications is one micro-batch's, counted in order (a step's compute after its last
backward, a gradient bucket's copy, is no micro-batch's). A receive whose next compute is a backward is a backward
receive, a send after a backward a backward send; the others are the forward's.

Where the schedule names its actions (`ACTION`: `torch.distributed.pipelining`'s runtime, which runs the
interleaved, looped and zero-bubble schedules), they say it instead: each compute action is a compute of its virtual
stage, each send or receive serves the pass and virtual stage of the action it lies in, the virtual stages a rank
holds are its model chunks, and a pipeline's ranks follow the first virtual stage each holds (recorded without
`record_shapes`, no send names its peer: a pipeline is then the process group whose ranks hold the model's virtual
stages each once).

The stages follow the sends: a rank that receives no forward is stage 0, and each forward send's peer (its place in a
process group the rank is in, `distributedInfo.pg_config`, or in the world) is the next stage's rank. Each chain of
stages is one data-parallel rank, in the order of their first ranks.

>>> steps = [_event("ProfilerStep#4", 0, 100, "user_annotation"), _event("aten::mm", 10, 20),
...          _event("c10d::send", 40, 1, args={"Concrete Inputs": ["", "", "1", "0"]}),
...          _event("gloo:send", 40.5, 30, "user_annotation"),
...          _event("autograd::engine::evaluate_function: MmBackward0", 60, 20)]
>>> [(s.kind, s.start, s.end, s.peer) for s in rank_ops(steps).spans]
[('forward', 0.0, 40.0, -1), ('send', 40.0, 70.5, 1), ('backward', 41.0, 80.0, -1)]
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base.words import Message, Ms, listed
from .collectives import HOST_PREFIXES, kind_of_op
from .optrace import OP_COLUMNS, JobGroups, OpTable, OpTraceError, _inflated, op_table

__all__ = ["RankOps", "op_profiles", "read_op_profiles", "read_rank", "read_ranks"]

P2P = ("send", "recv")
BACKWARD_MARK = "autograd::engine::evaluate_function"
OPTIMIZER_STEP, OPTIMIZER_MARK = "Optimizer.step#", "Optimizer."
STEP_MARK = "ProfilerStep#"
GATHER_KINDS = frozenset({"all_gather"})
GRADIENT_KINDS = frozenset({"allreduce", "reduce_scatter"})
MOST_RANK = 1 << 20
"""The largest rank or world size read."""
ACTION = re.compile(r"PP:(\d{1,6})(F|B|I|W|SEND_F|SEND_B|RECV_F|RECV_B)(\d{1,6})")
"""A pipeline schedule's action as `torch.distributed.pipelining`'s runtime (interleaved, looped, zero-bubble
schedules) names its range: `PP:{stage}{action}{micro-batch}`, a virtual stage's forward (F), backward (B, or its
input and weight halves I and W), or the send or receive of a forward's or backward's tensor."""


@dataclass(frozen=True)
class Span:
    """What a rank's main thread did in a step (`rank_ops`), times in µs on the trace's clock: a compute run
    ("forward" or "backward" by whether the autograd engine ran in it), a communication ("send", "recv" or a
    collective's kind; `peer`: the place a send or receive names in the process group it used, -1 unsaid) until its
    transfer ended (`end`; `free`: when the thread went on), or the optimizer ("optimizer")."""

    step: int
    kind: str
    start: float
    end: float
    peer: int = -1
    free: float = 0.0
    virtual: int = -1
    """The virtual stage a schedule's action names (`ACTION`; -1: none named)."""
    way: str = ""
    """ "forward" or "backward": which pass a send or receive serves, where an action says it ("": guessed)."""


@dataclass(frozen=True)
class RankOps:
    """A rank's spans (`rank_ops`), its rank and world size (`distributedInfo`), the process groups it is in (each as
    its ranks), and the µs its trace's clock starts at on the wall clock (`baseTimeNanoseconds`)."""

    spans: tuple[Span, ...]
    rank: int = 0
    world: int = 0
    groups: tuple[tuple[int, ...], ...] = ()
    base_us: float = 0.0
    tp_group: tuple[int, ...] = ()
    """The ranks of its tensor-parallel group: the process group a device mesh names `mesh_tp` (() when none is)."""

    def peers(self) -> tuple[int, ...]:
        """The places its sends and receives name, in the order first named."""
        return tuple(dict.fromkeys(s.peer for s in self.spans if s.kind in P2P and s.peer >= 0))

    def first_p2p(self) -> str:
        """ "send" or "recv": what its first send or receive was (a first stage sends before it receives)."""
        return next((s.kind for s in self.spans if s.kind in P2P), "")

    def virtuals(self) -> tuple[int, ...]:
        """The virtual stages its schedule's actions name, in order (() when it names none)."""
        return tuple(sorted({s.virtual for s in self.spans if s.virtual >= 0}))


def _event(name: str, ts: float, dur: float, cat: str = "cpu_op", tid: int = 1, args: Any = None) -> dict:
    """A complete event as the profiler writes one (for examples)."""
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": args or {}}


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _complete(events: Iterable[object]) -> list[tuple[str, float, float, object, str, Any]]:
    """The complete events with finite times: (name, start, end, thread, category, args), by start."""
    out = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        ts, dur = _number(e.get("ts")), _number(e.get("dur"))
        if ts is None or dur is None or not (math.isfinite(ts) and math.isfinite(dur)) or dur < 0:
            continue
        out.append((str(e.get("name", "")), ts, ts + dur, e.get("tid"), str(e.get("cat", "")), e.get("args")))
    out.sort(key=lambda e: e[1])
    return out


def _peer(args: object) -> int:
    """The peer a `c10d::send` or `c10d::recv_` names: its third concrete input (-1: unsaid)."""
    given = args.get("Concrete Inputs") if isinstance(args, dict) else None
    if isinstance(given, list) and len(given) > 2 and isinstance(given[2], str) and given[2].isdigit():
        peer = int(given[2])
        return peer if peer < MOST_RANK else -1
    return -1


def _comm_kind(name: str) -> str | None:
    """ "send", "recv" or a collective's kind for a host communication event; None for anything else."""
    for prefix in HOST_PREFIXES:
        if name.startswith(prefix):
            op = name[len(prefix) :].lower().lstrip("_")
            if op.startswith("send"):
                return "send"
            if op.startswith("recv"):
                return "recv"
            kind = kind_of_op(op)
            return None if kind == "collective" else kind
    return None


def rank_ops(events: Iterable[object]) -> RankOps:
    """A rank's spans, step by step (`ProfilerStep#N`), from its trace's events (the module's docstring)."""
    done = _complete(events)
    steps = [(int(n[len(STEP_MARK) :]), a, b, t) for n, a, b, t, _, _ in done if _step_number(n)]
    if not steps:
        raise OpTraceError(f"no {STEP_MARK}N range: record with torch.profiler's schedule and call prof.step()")
    main = steps[0][3]
    spans: list[Span] = []
    for number, start, end, _ in steps:
        inside = [e for e in done if start <= e[1] <= end]
        spans.extend(_step_spans(number, start, end, [e for e in inside if e[3] == main], inside))
    return RankOps(tuple(spans))


def _step_number(name: str) -> bool:
    return name.startswith(STEP_MARK) and name[len(STEP_MARK) :].isdigit() and len(name) < len(STEP_MARK) + 10


def _step_spans(number: int, start: float, end: float, main: list, inside: list) -> list[Span]:
    """One step's spans from the events of its main thread (`main`) and of every thread (`inside`): each host
    communication (`c10d::...`) until the backend's range of its kind that starts after it (on any thread: gloo runs
    collectives on a worker of its own) ends."""
    backend: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for name, a, b, _, _, _ in inside:
        kind = _comm_kind(name)
        if kind is not None and not name.startswith("c10d::"):
            backend[kind].append((a, b))
    launched = [(name, a, b, args) for name, a, b, _, _, args in main if name.startswith("c10d::") and _comm_kind(name)]
    spans: list[Span] = []
    taken: Counter[str] = Counter()
    for k, (name, a, b, args) in enumerate(launched):
        kind = str(_comm_kind(name))
        later = next((x[1] for x in launched[k + 1 :] if _comm_kind(x[0]) == kind), end)
        ends, j = backend[kind], taken[kind]
        while j < len(ends) and ends[j][0] < a - 1.0:
            j += 1
        finished = b
        if j < len(ends) and ends[j][0] < later:
            finished = max(b, ends[j][1])
            j += 1
        taken[kind] = j
        spans.append(Span(number, kind, a, finished, _peer(args), b if kind == "send" else finished))
    quiet = [(a, b) for name, a, b, _, _, _ in main if name.startswith(OPTIMIZER_MARK)]
    spans += [
        Span(number, "optimizer", a, b, free=b) for name, a, b, _, _, _ in main if name.startswith(OPTIMIZER_STEP)
    ]
    actions = [(m, a, b) for name, a, b, _, _, _ in main if (m := ACTION.fullmatch(name))]
    if any(m[2] in "FBIW" for m, _, _ in actions):
        return _acted(number, spans, actions)
    backward = [(a, b) for name, a, b, _, _, _ in main if name.startswith(BACKWARD_MARK)]
    marks = [
        (a, b, any(x <= a <= y for x, y in backward))
        for name, a, b, _, cat, _ in main
        if cat == "cpu_op" and _comm_kind(name) is None and not any(x <= a <= y for x, y in quiet)
    ]
    busy = [(s.start, s.free) for s in spans if s.kind in P2P] + quiet
    collectives = [s.start for s in spans if s.kind not in P2P and s.kind != "optimizer"]
    spans += [
        Span(number, "backward" if is_backward else "forward", a, b, free=b)
        for a, b, is_backward in _runs(start, end, busy, marks, collectives)
    ]
    return sorted(spans, key=lambda s: (s.start, s.kind))


def _acted(number: int, spans: list[Span], actions: list[tuple[re.Match[str], float, float]]) -> list[Span]:
    """A step's spans where its schedule names its actions (`ACTION`): each send or receive marked with the action it
    is in (its virtual stage, forward or backward), and each compute action a compute span of its virtual stage, from
    when the receive it waited for inside it ended (a schedule waits for its inputs inside the action)."""
    marked = []
    for s in spans:
        if s.kind in P2P:
            act = next((m for m, a, b in actions if m[2][:4] in ("SEND", "RECV") and a <= s.start <= b), None)
            if act is not None:
                s = replace(s, virtual=int(act[1]), way="forward" if act[2].endswith("F") else "backward")
        marked.append(s)
    for m, a, b in actions:
        if m[2] in "FBIW":
            arrived = max((s.end for s in marked if s.kind == "recv" and a < s.end < b), default=a)
            kind = "forward" if m[2] == "F" else "backward"
            marked.append(Span(number, kind, arrived, b, free=b, virtual=int(m[1])))
    return sorted(marked, key=lambda s: (s.start, s.kind))


def _runs(
    start: float,
    end: float,
    busy: Sequence[tuple[float, float]],
    marks: Sequence[tuple[float, float, bool]],
    collectives: Sequence[float] = (),
) -> list[tuple[float, float, bool]]:
    """The compute runs of a step: in each span the main thread is free (between `busy` ones: sends and receives, the
    optimizer), each maximal run of compute events of one kind (`marks`: start, end, backward or not). A run starts
    where the one before it ended, or where the thread became free (a delay before a forward's first operation is the
    forward's), and ends where the next run begins, where the thread is busy again, or where a collective starts
    after its last event (`collectives`: their starts; one amid a run's events, a tensor-parallel all-reduce, is the
    run's; the step's last run ends at its last event).

    >>> _runs(0.0, 100.0, [(40.0, 50.0)], [(5.0, 10.0, False), (20.0, 30.0, True), (60.0, 70.0, False)])
    [(0.0, 10.0, False), (10.0, 40.0, True), (50.0, 70.0, False)]
    >>> _runs(0.0, 100.0, [(90.0, 95.0)], [(5.0, 10.0, True), (30.0, 40.0, True)], [20.0, 50.0])
    [(0.0, 50.0, True)]
    """
    free: list[tuple[float, float]] = []
    at = start
    for a, b in sorted(busy):
        if a > at:
            free.append((at, a))
        at = max(at, b)
    if end > at:
        free.append((at, end))
    runs: list[tuple[float, float, bool]] = []
    for lo, hi in free:
        here = [m for m in marks if lo <= m[0] < hi]
        clusters: list[list[tuple[float, float, bool]]] = []
        for m in here:
            if clusters and clusters[-1][-1][2] == m[2]:
                clusters[-1].append(m)
            else:
                clusters.append([m])
        cut = lo
        for k, cluster in enumerate(clusters):
            last = k == len(clusters) - 1
            stop = max(b for _, b, _ in cluster)
            after = min((c for c in collectives if stop <= c < hi), default=hi)
            stop = (min(after, hi) if hi < end else min(hi, stop)) if last else min(stop, clusters[k + 1][0][0])
            runs.append((cut, max(cut, stop), cluster[0][2]))
            cut = max(cut, stop)
    return runs


TP_NAMES = ("tp", "tensor")
"""What the last word of a process group's description (`pg_desc`: a device mesh's `mesh_<dimension>`) says when the
group is tensor-parallel."""


def _groups(info: Mapping[str, object]) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The process groups a rank's `distributedInfo` lists, each as its ranks (bounded), and the tensor-parallel one's
    ranks (`TP_NAMES`; () when none is named so).

    >>> _groups({"pg_config": [{"ranks": [0, 1, 2, 3]}, {"pg_desc": "mesh_tp", "ranks": [0, 1]}]})
    (((0, 1, 2, 3), (0, 1)), (0, 1))
    """
    config = info.get("pg_config")
    out, tp = [], ()
    for g in config if isinstance(config, list) else ():
        ranks = g.get("ranks") if isinstance(g, dict) else None
        if isinstance(ranks, list) and all(isinstance(r, int) and 0 <= r < MOST_RANK for r in ranks):
            out.append(tuple(ranks))
            if str(g.get("pg_desc", "")).lower().rsplit("_", 1)[-1] in TP_NAMES:
                tp = tuple(ranks)
    return tuple(out), tp


def read_rank(data: bytes) -> RankOps:
    """One rank's trace (gzip'd or not) read: its operations, rank, world size and process groups."""
    try:
        top = json.loads(_inflated(data))
    except (ValueError, UnicodeDecodeError) as exc:
        raise OpTraceError(f"not a JSON trace ({str(exc)[:80]})") from None
    if not isinstance(top, dict) or not isinstance(top.get("traceEvents"), list):
        raise OpTraceError("not a PyTorch profiler trace: no traceEvents")
    info = top.get("distributedInfo")
    if not isinstance(info, dict):
        raise OpTraceError("no distributedInfo: the trace does not say its rank")
    rank, world = info.get("rank"), info.get("world_size")
    if not (isinstance(rank, int) and isinstance(world, int) and 0 <= rank < world <= MOST_RANK):
        raise OpTraceError(f"distributedInfo: rank {rank!r} of world size {world!r} is not a rank")
    base = _number(top.get("baseTimeNanoseconds"))
    ops = rank_ops(top["traceEvents"])
    groups, tp = _groups(info)
    return RankOps(ops.spans, rank, world, groups, base / 1e3 if base and math.isfinite(base) else 0.0, tp)


def _peer_rank(r: RankOps, peer: int) -> tuple[int, ...]:
    """The ranks a peer's place may name: its place in each process group the rank is in (in the world's, when the
    trace lists none)."""
    found = [g[peer] for g in r.groups if r.rank in g and peer < len(g)]
    return tuple(dict.fromkeys(found)) if r.groups else (peer,)


def _neighbours(ranks: Mapping[int, RankOps]) -> dict[int, tuple[int, ...]]:
    """Each rank's pipeline neighbours: the ranks its sends and receives name that name it back."""
    out = {}
    for k, r in ranks.items():
        found = []
        for place in r.peers():
            named = [
                c
                for c in _peer_rank(r, place)
                if c in ranks and c != k and any(k in _peer_rank(ranks[c], q) for q in ranks[c].peers())
            ]
            if len(named) != 1:
                raise OpTraceError(
                    f"rank {k}: its sends and receives name peer {place}, which is "
                    + ("no rank given that names it back" if not named else f"any of ranks {named}")
                    + " (record every rank, with record_shapes=True)"
                )
            found.append(named[0])
        if len(set(found)) > 2:
            raise OpTraceError(f"rank {k} sends to or receives from {len(set(found))} ranks: a pipeline stage has two")
        out[k] = tuple(dict.fromkeys(found))
    return out


def _chains(ranks: Mapping[int, RankOps]) -> list[list[int]]:
    """The pipelines the ranks' sends and receives make, each from the end that sends first (the first stage computes
    and sends before it receives anything), in the order of their first ranks."""
    if all(r.virtuals() for r in ranks.values()):
        named = all(r.peers() for r in ranks.values() if any(s.kind in P2P for s in r.spans))
        return _by_virtual(ranks, _neighbours(ranks) if named else _group_mates(ranks))
    near = _neighbours(ranks)
    firsts = sorted(k for k, n in near.items() if len(n) == 1 and ranks[k].first_p2p() == "send")
    chains = []
    for first in firsts:
        chain = [first]
        while len(chain) <= len(ranks):
            ahead = [c for c in near[chain[-1]] if c not in chain]
            if not ahead:
                break
            chain.append(ahead[0])
        chains.append(chain)
    placed = [k for c in chains for k in c]
    if len({len(c) for c in chains}) != 1 or sorted(placed) != sorted(ranks):
        raise OpTraceError(
            "the pipelines the sends and receives make are not alike: "
            + ("; ".join(" → ".join(map(str, c)) for c in chains) or "none starts by sending")[:300]
        )
    return chains


def _by_virtual(ranks: Mapping[int, RankOps], near: Mapping[int, tuple[int, ...]]) -> list[list[int]]:
    """The pipelines of ranks whose schedules name their virtual stages: the ranks that send to and receive from
    each other (an interleaved schedule's last rank sends back to the first: a ring), each in the order of its first
    virtual stage; those of a pipeline hold every virtual stage once."""
    chains: list[list[int]] = []
    seen: set[int] = set()
    for k in sorted(ranks, key=lambda k: ranks[k].virtuals()[0]):
        if k in seen:
            continue
        todo, found = [k], set()
        while todo:
            c = todo.pop()
            if c not in found:
                found.add(c)
                todo += near[c]
        seen |= found
        chain = sorted(found, key=lambda c: ranks[c].virtuals()[0])
        held = sorted(v for c in chain for v in ranks[c].virtuals())
        if held != list(range(len(held))) or len(held) % len(chain):
            raise OpTraceError(
                f"the pipeline of ranks {listed(chain, 8)} holds virtual stages {listed(held, 8)}, not each once"
            )
        chains.append(chain)
    if len({len(c) for c in chains}) != 1:
        raise OpTraceError("the pipelines are not alike: " + "; ".join(" → ".join(map(str, c)) for c in chains)[:300])
    return chains


def _group_mates(ranks: Mapping[int, RankOps]) -> dict[int, tuple[int, ...]]:
    """Each rank's pipeline mates where its sends and receives do not name their peers (recorded without
    `record_shapes`) but its schedule names its virtual stages: the least process group it is in (`distributedInfo`)
    whose ranks given hold the model's virtual stages each once."""
    count = 1 + max(max(r.virtuals()) for r in ranks.values())
    out = {}
    for k, r in ranks.items():
        fits = [
            g
            for g in r.groups
            if k in g and sorted(v for c in g if c in ranks for v in ranks[c].virtuals()) == list(range(count))
        ]
        if not fits:
            raise OpTraceError(
                f"rank {k}: its sends and receives do not name their peers, and no process group it is in holds the "
                f"model's {count} virtual stages each once (record with record_shapes=True)"
            )
        out[k] = tuple(c for c in min(fits, key=len) if c != k and c in ranks)
    return out


def _tp_peers(ranks: Mapping[int, RankOps], chains: list[list[int]]) -> list[list[list[int]]]:
    """The chains in sets of tensor-parallel peers (each set: the chains whose first ranks share a tensor-parallel
    group, `RankOps.tp_group`), in the order of their first ranks; a chain of its own without one."""
    sets: list[list[list[int]]] = []
    for chain in chains:
        group = ranks[chain[0]].tp_group
        home = next((s for s in sets if s[0][0] in group), None)
        if home is None:
            sets.append([chain])
        else:
            home.append(chain)
    return sets


def _labelled(r: RankOps, stage: int, pp: int, before: int, after: int) -> list[tuple[Span, str]]:
    """A rank's spans as the job's operation types (the module's docstring): its sends and receives by the stage
    they go to or come from (`before`, `after`: the neighbours' ranks, -1 none), its backward runs, and as forwards
    the compute runs that follow a forward receive or precede a forward send (the glue around them is none)."""
    out: list[tuple[Span, str]] = []
    by_step: dict[int, list[Span]] = defaultdict(list)
    for span in r.spans:
        by_step[span.step].append(span)
    for spans in by_step.values():
        runs = [s for s in spans if s.kind in ("forward", "backward")]
        real: set[Span] = set()
        for s in spans:
            if s.kind not in P2P:
                continue
            if s.way:
                out.append((s, f"{s.way}-{s.kind}"))
                continue
            toward = after if after in _peer_rank(r, s.peer) else before
            forward = (s.kind == "send") == (toward == after)
            optype = ("forward-" if forward else "backward-") + s.kind
            out.append((s, optype))
            if forward and s.kind == "recv":
                run = next((x for x in runs if x.start >= s.end - 1.0), None)
            elif forward:
                run = next((x for x in reversed(runs) if x.end <= s.start + 1.0), None)
            else:
                run = None
            if run is not None and run.kind == "forward":
                real.add(run)
        if stage == 0 == pp - 1:
            real.update(x for x in runs if x.kind == "forward")
        real.update(x for x in runs if x.virtual >= 0)
        computes = [x for x in runs if x.kind == "backward" or x in real]
        for s in spans:
            if s in computes:
                out.append((s, f"{s.kind}-compute"))
            elif s.kind == "optimizer":
                out.append((s, "optimizer"))
            elif any(x.start <= s.start < x.end for x in computes):
                continue
            elif s.kind in GATHER_KINDS:
                out.append((s, "params-all-gather"))
            elif s.kind in GRADIENT_KINDS:
                out.append((s, "grads-reduce-scatter"))
    return sorted(out, key=lambda o: (o[0].step, o[0].start, o[1]))


def read_op_profiles(files: Mapping[str, bytes]) -> tuple[OpTable, JobGroups, tuple[Message, ...]]:
    """A pipeline job's operation table from its ranks' profiler traces (name to bytes, a rank a file), its group
    sizes (whatever the world holds beyond the ranks given read as tensor parallelism, and said), and a line for each
    thing so read.

    Stage 0 computes, sends to rank 1 and receives its gradient back; rank 1 receives, computes both ways, sends:

    >>> def rank(r, events):
    ...     info = {"rank": r, "world_size": 2, "pg_config": [{"ranks": [0, 1]}]}
    ...     step = _event("ProfilerStep#1", 0, 100, "user_annotation")
    ...     return json.dumps({"distributedInfo": info, "traceEvents": [step, *events]}).encode()
    >>> peer = lambda p: {"Concrete Inputs": ["", "", str(p), "0"]}
    >>> first = [_event("aten::mm", 10, 10), _event("c10d::send", 30, 1, args=peer(1)), _event("gloo:send", 30.5, 20),
    ...          _event("c10d::recv_", 55, 1, args=peer(1)), _event("gloo:recv", 55.5, 14.5),
    ...          _event("autograd::engine::evaluate_function: MmBackward0", 75, 15)]
    >>> last = [_event("c10d::recv_", 5, 1, args=peer(0)), _event("gloo:recv", 5.5, 44.5), _event("aten::mm", 52, 6),
    ...         _event("autograd::engine::evaluate_function: MmBackward0", 60, 5),
    ...         _event("c10d::send", 66, 1, args=peer(0)), _event("gloo:send", 66.5, 3.5)]
    >>> table, groups, notes = read_op_profiles({"r0.json": rank(0, first), "r1.json": rank(1, last)})
    >>> [(o.stage, o.optype) for o in table.rows()][:4], (groups.dp, groups.pp)
    ([(0, 'forward-compute'), (0, 'forward-send'), (0, 'backward-recv'), (0, 'backward-compute')], (1, 2))
    >>> read_rank(rank(1, last)).peers(), len(op_profiles(read_ranks({"r0": rank(0, first), "r1": rank(1, last)}))[0])
    ((0,), 8)
    """
    return op_profiles(read_ranks(files))


def read_ranks(files: Mapping[str, bytes]) -> dict[str, RankOps]:
    """Each rank's trace read (`read_rank`), by its file's name; a trace that cannot be read is one line naming it."""
    named = {}
    for name, data in files.items():
        try:
            named[name] = read_rank(data)
        except OpTraceError as exc:
            raise OpTraceError(f"{name}: {exc}") from None
    return named


def op_profiles(named: Mapping[str, RankOps]) -> tuple[OpTable, JobGroups, tuple[Message, ...]]:
    """`read_op_profiles` of ranks already read (`read_rank`: where their files lie, on a cluster's nodes), by the
    name of each one's file."""
    ranks: dict[int, RankOps] = {}
    for name, r in named.items():
        if r.rank in ranks:
            raise OpTraceError(f"{name}: a second trace of rank {r.rank}")
        ranks[r.rank] = r
    acted = all(r.virtuals() for r in ranks.values())
    unnamed = sorted(k for k, r in ranks.items() if not r.peers() and any(s.kind in P2P for s in r.spans))
    if unnamed and not acted:
        raise OpTraceError(
            f"rank {unnamed[0]}: its sends and receives do not name their peers (record with record_shapes=True)"
        )
    if not any(s.kind in P2P for r in ranks.values() for s in r.spans):
        raise OpTraceError("no rank sends to another: not a pipeline job's traces")
    peers = _tp_peers(ranks, _chains(ranks))
    places = {k: (d, s) for d, chains in enumerate(peers) for c in chains for s, k in enumerate(c)}
    dp, pp, tp = len(peers), len(peers[0][0]), max(len(chains) for chains in peers)
    world = max(r.world for r in ranks.values())
    notes: list[Message] = []
    if tp > 1:
        notes += _tp_said(ranks, peers, places, pp)
        if world != dp * pp * tp:
            sizes = f"DP {dp} × PP {pp} × TP {tp}"
            notes.append(Message.of("job.world_odd", given=len(ranks), world=world, sizes=sizes))
    elif world % (dp * pp) == 0 and world > dp * pp:
        tp = world // (dp * pp)
        notes.append(Message.of("job.world_beyond", given=len(ranks), world=world, more=world - len(ranks), tp=tp))
    elif world != dp * pp:
        notes.append(Message.of("job.world_uneven", given=len(ranks), world=world, dp=dp, pp=pp))
    columns: dict[str, list[object]] = {c: [] for c in OP_COLUMNS}
    vpp = max(len(r.virtuals()) for r in ranks.values()) or 1
    for k in sorted(k for chains in peers for k in chains[0]):
        r = ranks[k]
        d, s = places[k]
        chunk = {v: c for c, v in enumerate(r.virtuals())}
        seq: Counter[tuple[int, str]] = Counter()
        for span, optype in _labelled(r, s, pp, *_beside(peers[d][0], s)):
            place = seq[(span.step, optype)]
            seq[(span.step, optype)] += 1
            row = (
                d,
                s,
                k,
                span.step,
                optype,
                (r.base_us + span.start) / 1e6,
                (span.end - span.start) / 1e6,
                place,
                chunk.get(span.virtual, 0),
                span.virtual,
                place if optype.endswith("compute") else -1,
            )
            for c, v in zip(OP_COLUMNS, row):
                columns[c].append(v)
    return op_table(columns), JobGroups(dp=dp, pp=pp, tp=tp, vpp=vpp), tuple(notes)


def _tp_wait(r: RankOps, stage: int, pp: int, before: int, after: int) -> float:
    """How long (µs) a rank waits a step in the collectives amid its computes (its tensor-parallel all-reduces)."""
    labelled = _labelled(r, stage, pp, before, after)
    computes = [s for s, optype in labelled if optype.endswith("-compute")]
    amid = [s for s in r.spans if s.kind not in (*P2P, "optimizer", "forward", "backward")]
    waited = math.fsum(s.end - s.start for s in amid if any(x.start <= s.start < x.end for x in computes))
    return waited / max(1, len({s.step for s in r.spans}))


TP_WAITED = 2.0
"""How many times longer a rank's tensor-parallel peers must wait in their group's all-reduces than it does for it
to be named as the one they wait for: its extra compute is then at least their transfer (in a clean run on shared
cores the peers' waits differ by a tenth)."""


def _tp_said(
    ranks: Mapping[int, RankOps], peers: list[list[list[int]]], places: Mapping[int, tuple[int, int]], pp: int
) -> list[Message]:
    """The lines that say how tensor-parallel peers are read: each worker from its group's lowest rank (the group
    meets in all-reduces amid every compute, so each of its ranks runs as slow as the slowest); and the rank its
    group waits for most, where its peers wait TP_WAITED times as long as it does."""
    tp = max(len(chains) for chains in peers)
    read = tuple(c[0][0] for c in peers)
    said = [Message.of("job.tp_read", tp=tp, ranks=read[:6] if len(read) <= 6 else (*read[:6], "…"))]
    worst: tuple[float, int, float, float] | None = None
    for chains in peers:
        for s in range(pp):
            waits = {c[s]: _tp_wait(ranks[c[s]], s, pp, *_beside(c, s)) for c in chains}
            least = min(waits, key=waits.__getitem__)
            others = statistics.median(v for k, v in waits.items() if k != least)
            if others >= TP_WAITED * waits[least] and (worst is None or others - waits[least] > worst[0]):
                worst = (others - waits[least], least, waits[least], others)
    if worst is not None:
        _, rank, own, others = worst
        d, s = places[rank]
        said.append(Message.of("job.tp_waits", rank=rank, dp=d, stage=s, others=Ms(others / 1e3), own=Ms(own / 1e3)))
    return said


def _beside(chain: Sequence[int], stage: int) -> tuple[int, int]:
    """The ranks before and after a stage in its pipeline (-1: none)."""
    return (chain[stage - 1] if stage else -1, chain[stage + 1] if stage + 1 < len(chain) else -1)
