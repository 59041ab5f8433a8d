"""`analyze --ray`: one verdict over ranks whose files lie on the nodes of a Ray cluster, measured by the pipeline
`analyze` runs in forked processes (`analysis.measure_parts`): each node's files are read there, by parts.

`--jobs` actors per live node, pinned to it (`NodeAffinitySchedulingStrategy`, not soft: an actor never moves to a
node that does not hold its files), each read its share of PATH's files there (`analysis.FilesRead`) and answer as a
part: what each file held, the references' releases and the other ranks' drifts, then, holding the run's ranks, the
merge's rounds (`analysis.Shard`'s questions). The driver decides which files make the run by the rules one process
applies, merges and judges. PATH is read with the node's environment variables (and `~`) expanded, so
`/scratch/$HOSTNAME/summaries` names each node's own folder; a relative PATH is taken from the driver's working
directory.

Ray is imported here alone, only when `--ray` is given (the `ray` extra), and never by the page. A node that dies or
stops answering ends the run with one line naming it (`RayError`), never a partial verdict; every wait has a limit.
"""

from __future__ import annotations

import os
import socket
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from ..analysis.parted import LETTING_GO, QUESTIONS, FilesRead, Header, Part
from ..analysis.results import AnalysisError
from ..traces import read_job
from ..traces.files import files_in
from ..traces.optrace import HEAD, MOST_BYTES, JobFile, OpTraceError, job_among, kind_of_head
from ..traces.pipetrace import RankOps, read_rank
from .fork import give_back

__all__ = ["ANSWER_S", "NodePart", "NodeReader", "RayError", "node_job", "node_parts", "node_readers", "ray_module"]

ANSWER_S = 1800.0
"""The longest a node may take over one answer, reading its files included, before the run ends naming it."""
LOCAL = "local"
"""`--ray local`: a Ray started on this machine for the run alone (one node), rather than a cluster's address."""


class RayError(Exception):
    """A cluster, node or answer that failed: one line, and no verdict."""


def ray_module() -> Any:
    """Ray, or a RayError that says how to install it (the `ray` extra, on this machine and on every node)."""
    try:
        import ray
    except ImportError:
        raise RayError(
            "--ray needs Ray here and on every node: pip install 'ddpcore[ray]' (or pip install ray)"
        ) from None
    return ray


class NodeReader:
    """What runs on a node (as a Ray actor): the `part`-th of `parts` shares of PATH's files (consecutive ones), read
    there when asked (`read`: `analysis.FilesRead`, from the place among all the cluster's files the driver gives),
    then its questions answered (`QUESTIONS`). Answers are (True, value) or (False, the error): an `AnalysisError` is
    the run's, not the node's, and is raised as itself by the driver."""

    def __init__(self, path: str, cwd: str, part: int, parts: int) -> None:
        self.path = os.path.join(cwd, os.path.expanduser(os.path.expandvars(path)))
        self.host = socket.gethostname()
        self.files: list[str] = []
        self.error: str | None = None
        self.part: FilesRead | None = None
        if not os.path.exists(self.path):
            self.error = f"{self.path}: no such file or folder"
            return
        try:
            every = files_in([self.path])
        except OSError as exc:
            self.error = f"{self.path}: {exc.strerror or exc}"
            return
        size = -(-len(every) // parts)
        self.files = every[part * size : (part + 1) * size]

    def about(self) -> dict:
        """Where the node reads, how many files this part holds, and why it cannot read (None when it can)."""
        return {"host": self.host, "path": self.path, "files": len(self.files), "error": self.error}

    def read(self, first: int) -> None:
        """Its files read, numbered from `first` among all the cluster's files."""
        self.part = FilesRead(self.files, first)

    def is_job(self) -> bool:
        """Whether its files are a 3D-parallel job's (`traces.job_among`)."""
        return job_among(self.files)

    def job_files(self) -> tuple[bool, object]:
        """Its files as a job's, read here: each (name, what it holds): a rank's profiler trace read
        (`traces.read_rank`), another job file's bytes, nothing for a file of no job (left out by the driver as
        `read_job` leaves it out). (False, the line) when a file cannot be read."""
        out: list[tuple[str, object]] = []
        try:
            for name in self.files:
                with open(name, "rb") as handle:
                    kind = kind_of_head(handle.read(HEAD))
                if kind in ("profile", "trace"):
                    try:
                        out.append((name, read_rank(_bounded(name))))
                    except OpTraceError as exc:
                        return False, f"{name}: {exc}"
                elif kind is not None:
                    out.append((name, _bounded(name)))
                else:
                    out.append((name, b""))
        except OSError as exc:
            return False, f"{exc.filename}: {exc.strerror}"
        except OpTraceError as exc:
            return False, str(exc)
        return True, out

    def ask(self, name: str, args: tuple) -> tuple[bool, object]:
        """One of the questions a part answers (`QUESTIONS`): its reading's, then its shard's once it keeps ranks."""
        if name not in QUESTIONS or self.part is None:
            return False, f"a node does not answer {name!r}"
        try:
            if name == "keep":
                answer: object = self.part.keep(*args).ranks
            else:
                answer = getattr(self.part.shard if self.part.shard is not None else self.part, name)(*args)
            if name in LETTING_GO:
                give_back()
            return True, answer
        except AnalysisError as exc:
            return False, exc


@dataclass
class NodePart:
    """A node's actor, asked as if it were an `analysis.FilesRead` in this process (each answer waited for at most
    ANSWER_S); its ranks in the run once it keeps them."""

    actor: Any
    node: str
    host: str
    ranks: tuple[int, ...] = ()

    def ask_later(self, name: str, args: tuple) -> Callable[[], object]:
        """Send one of the questions a part answers (`QUESTIONS`); what waits for its answer (`analysis.asked`: every
        part is asked before any answer is awaited)."""
        if name not in QUESTIONS:
            raise AttributeError(name)
        ref = self.actor.ask.remote(name, args)

        def answer() -> object:
            ok, value = _answer(self.where, ref)
            if ok:
                return value
            if isinstance(value, AnalysisError):
                raise value
            raise RayError(f"node {self.where}: {value}")

        return answer

    def keep(self, indices: Sequence[int]) -> NodePart:
        """Its files at these places (its ranks in the run) kept as its shard, asked as one from then on."""
        self.ranks = cast(tuple[int, ...], self.ask_later("keep", (indices,))())
        return self

    def __getattr__(self, name: str) -> Callable[..., object]:
        if name not in QUESTIONS:
            raise AttributeError(name)
        return lambda *args: self.ask_later(name, args)()

    @property
    def where(self) -> str:
        """The node as a line names it (`_where`)."""
        return _where(self.host, self.node)


def _where(host: str, node: str) -> str:
    """A node as a line names it: its host and the start of its Ray node id."""
    return f"{host} ({node[:8]})"


def _answer(where: str, ref: Any) -> Any:
    """A node's answer, or a RayError naming the node (`where`) when it died or did not answer in ANSWER_S."""
    ray = ray_module()
    from ray import exceptions

    try:
        return ray.get(ref, timeout=ANSWER_S)
    except exceptions.GetTimeoutError:
        raise RayError(f"node {where} did not answer in {ANSWER_S:.0f} s: no verdict") from None
    except (exceptions.RayActorError, exceptions.ActorUnavailableError, exceptions.NodeDiedError) as exc:
        raise RayError(f"node {where} stopped answering ({type(exc).__name__}): no verdict") from None


def _same_address(one: str, other: str) -> bool:
    """Whether two `host:port` addresses name one place: the same port, and hosts that are the same once resolved
    (`localhost` and `127.0.0.1`); a host that does not resolve is compared as written.

    >>> _same_address("127.0.0.1:6379", "localhost:6379"), _same_address("127.0.0.1:6379", "127.0.0.1:6380")
    (True, False)
    """
    (host, _, port), (other_host, _, other_port) = one.rpartition(":"), other.rpartition(":")
    return port == other_port and _resolved(host) == _resolved(other_host)


def _resolved(host: str) -> str:
    """A host's IPv4 address, or the host as written when it does not resolve."""
    try:
        return socket.gethostbyname(host)
    except (OSError, UnicodeError):
        return host


def connect(address: str) -> tuple[Any, bool]:
    """Ray, connected to the cluster at `address` (`auto`: the one this machine belongs to; LOCAL: a Ray of its
    own), quiet: its logs stay in its session folder; and whether this call connected it (the caller then
    disconnects). A process already connected (a notebook's driver, a test's) is used as it is and left connected,
    so that many runs read in one process pay for one connection; to a cluster at another address, a RayError."""
    ray = ray_module()
    if ray.is_initialized():
        held = ray.get_runtime_context().gcs_address
        if address not in (LOCAL, "auto") and not _same_address(address, held):
            raise RayError(f"this process is already connected to the Ray cluster at {held}, not {address!r}")
        return ray, False
    try:
        ray.init(
            address=None if address == LOCAL else address,
            logging_level="ERROR",
            log_to_driver=False,
            include_dashboard=False,
            configure_logging=False,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise RayError(
            f"no Ray cluster at {address!r} ({exc}); start one with ray start --head, or use --ray local"
        ) from None
    return ray, True


def _bounded(name: str) -> bytes:
    """A job file's bytes, within what a job reads (`traces.MOST_BYTES`)."""
    if os.path.getsize(name) > MOST_BYTES:
        raise OpTraceError(f"{name}: beyond the {MOST_BYTES >> 20} MiB read")
    with open(name, "rb") as handle:
        return handle.read()


def node_readers(ray: Any, path: str, jobs: int) -> list[_Node]:
    """`jobs` actors per live node, pinned to it, each told its share of PATH's files there; a RayError naming the
    node when one cannot list PATH."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    reader = ray.remote(num_cpus=0, max_restarts=0)(NodeReader)
    ids = sorted((n["NodeID"] for n in ray.nodes() if n.get("Alive")), key=str)
    if not ids:
        raise RayError("the cluster has no live node")
    nodes = []
    for node in ids:
        pinned = reader.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False))
        nodes.append(_Node(node, [pinned.remote(path, os.getcwd(), k, jobs) for k in range(jobs)]))
    for n in nodes:
        for actor in n.actors:
            about = _answer(_where("?", n.node), actor.about.remote())
            n.host, n.path = about["host"], about["path"]
            if about["error"]:
                raise RayError(f"node {n.where}: {about['error']}")
            if about["files"]:
                n.parts.append(NodePart(actor, n.node, n.host))
    return nodes


def node_job(ray: Any, nodes: Sequence[_Node], say: Callable[[str], None]) -> JobFile | None:
    """The 3D-parallel job the nodes' files make, each file read where it lies (`NodeReader.job_files`: a rank's
    profiler trace there, another job file shipped whole), or None when they hold no job's files (per-rank traces).
    A line per node says what it holds; a rank's trace or a file found alike on two nodes (a shared folder) is read
    once, and a line says so; a rank whose traces differ on two nodes is refused, naming both."""
    parts = [(n, p) for n in nodes for p in n.parts]
    if not any(_answer(n.where, p.actor.is_job.remote()) for n, p in parts):
        return None
    asked = [(n, p.actor.job_files.remote()) for n, p in parts]
    files: dict[str, bytes] = {}
    ranks: dict[str, RankOps] = {}
    held: dict[object, str] = {}
    shared: set[str] = set()
    counts: dict[str, int] = defaultdict(int)
    for n, ref in asked:
        ok, found = _answer(n.where, ref)
        if not ok:
            raise RayError(f"node {n.where}: {found}")
        for name, value in cast(list, found):
            counts[n.node] += 1
            key: object = value.rank if isinstance(value, RankOps) else (os.path.basename(name), value)
            if key in held:
                if isinstance(value, RankOps) and ranks[held[key]] != value:
                    raise RayError(f"rank {value.rank}'s trace differs on node {held[key]} and node {n.where}")
                shared.add(n.where)
                continue
            held[key] = name
            if isinstance(value, RankOps):
                ranks[name] = value
            else:
                files[name] = cast(bytes, value)
    for n in nodes:
        say(f"node {n.where}: {counts[n.node]} job file(s) at {n.path}")
    if shared:
        say(f"node(s) {', '.join(sorted(shared))} hold files another node holds too (a shared folder?): read once")
    progress("job")
    return read_job(files, ranks)


def node_parts(ray: Any, nodes: Sequence[_Node], say: Callable[[str], None]) -> list[Part]:
    """The nodes' actors (`node_readers`), each having read its share of PATH's files there: the parts
    `analysis.measure_parts` asks (the files numbered node after node). A line per node says what it holds. Nodes
    that hold the same ranks (a PATH on a shared filesystem) are read once, and a line says so; ranks partly held by
    two nodes are refused, naming both."""
    first, reading = 0, []
    for n in nodes:
        for part in n.parts:
            about = _answer(n.where, part.actor.about.remote())
            reading.append((n, part.actor.read.remote(first)))
            first += about["files"]
    for n, ref in reading:
        _answer(n.where, ref)
    _ranks_of(nodes)
    kept = _once(nodes, say)
    for n in nodes:
        if n not in kept:
            for actor in n.actors:
                ray.kill(actor)
    if not any(n.ranks for n in kept):
        raise RayError(f"no node holds a readable rank at {nodes[0].path if nodes else '?'}")
    return cast(list[Part], [p for n in kept for p in n.parts])


@dataclass
class _Node:
    """A node of the cluster as the driver knows it: its actors, the parts that hold files, where it reads, and its
    ranks (from what its files held)."""

    node: str
    actors: list[Any]
    parts: list[NodePart] = field(default_factory=list)
    host: str = "?"
    path: str = ""
    ranks: tuple[int, ...] = ()

    @property
    def where(self) -> str:
        """The node as a line names it (`_where`)."""
        return _where(self.host, self.node)


def _ranks_of(nodes: Sequence[_Node]) -> None:
    """Each node's ranks, from what its parts' files held (asked of every part at once)."""
    from ..analysis.shards import asked

    every = [(n, p) for n in nodes for p in n.parts]
    held: dict[str, set[int]] = defaultdict(set)
    for (n, _), told in zip(every, asked([p for _, p in every], "headers")):
        held[n.node].update(h.rank for h in told if isinstance(h, Header))
    for n in nodes:
        n.ranks = tuple(sorted(held[n.node]))


def _once(nodes: Sequence[_Node], say: Callable[[str], None]) -> list[_Node]:
    """The nodes, each set of ranks read once: nodes holding exactly the same ranks (one shared folder) keep the
    first and are said in one line; two nodes sharing only some ranks are refused. A node whose files hold no rank
    is kept, for the lines that say why."""
    by_ranks: dict[tuple[int, ...], list[_Node]] = defaultdict(list)
    for n in nodes:
        say(
            f"node {n.where}: {len(n.ranks)} rank(s), {n.ranks[0]} to {n.ranks[-1]}, at {n.path}"
            if n.ranks
            else f"node {n.where}: no rank at {n.path}"
        )
        if n.ranks:
            by_ranks[n.ranks].append(n)
    holder: dict[int, _Node] = {}
    dropped: set[str] = set()
    for ranks, same in by_ranks.items():
        if len(same) > 1:
            others = ", ".join(n.where for n in same[1:])
            say(
                f"nodes {same[0].where} and {others} hold the same {len(ranks)} rank(s) (a shared folder?): read once "
                f"on {same[0].where}"
            )
            dropped.update(n.node for n in same[1:])
        for r in ranks:
            if r in holder:
                raise RayError(
                    f"rank {r} is held by node {holder[r].where} and node {same[0].where}, with other ranks apart: "
                    "give each node a folder of its own ranks (or a shared folder to all of them)"
                )
            holder[r] = same[0]
    return [n for n in nodes if n.node not in dropped]


def progress(round_name: str) -> None:
    """A measure's rounds, on a terminal."""
    if sys.stderr.isatty():
        print(f"ray: {round_name}…", file=sys.stderr, flush=True)
