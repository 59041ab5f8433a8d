"""`analyze --ray`: one verdict over ranks whose files lie on the nodes of a Ray cluster (`analysis.shards`).

One actor per live node, pinned to it (`NodeAffinitySchedulingStrategy`, not soft: an actor never moves to a node
that does not hold its files), reads PATH there and answers the merge's rounds: `analysis.Shard`'s questions, ASKED.
PATH is read with the node's environment variables (and `~`) expanded, so `/scratch/$HOSTNAME/summaries` names each
node's own folder; a relative PATH is taken from the driver's working directory. The driver merges and judges
(`analysis.merge`), as `analyze` over the same files would.

Ray is imported here alone, only when `--ray` is given (the `ray` extra), and never by the page. A node that dies or
stops answering ends the run with one line naming it (`RayError`), never a partial verdict; every wait has a limit.
"""

from __future__ import annotations

import os
import socket
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..analysis import AnalysisError, Shard, one_run
from ..traces import FileError, Keep, files_in, read_paths

__all__ = ["ANSWER_S", "NodeReader", "NodeShard", "RayError", "node_shards", "ray_module"]

ASKED = (
    "hello",
    "begin",
    "samples",
    "between",
    "at_places",
    "count_upto",
    "above",
    "counts_upto",
    "places",
    "adjust",
    "suspects",
    "suspects_held",
    "leads",
    "recentre",
    "top_suspects",
    "sums",
    "deviations",
    "lateness",
    "waits",
    "costs",
    "over",
    "entries",
    "unread",
)
"""The questions a node answers (`analysis.Shard`'s methods, in the order a merge asks them; the files it left out
last, for the driver's own lines)."""
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
    """What runs on each node (as a Ray actor): the node's ranks read from PATH once, each rank's table slimmed where
    it was read (`traces.Keep.VERDICT`: the columns the merge reads, and its own medians), then the merge's
    questions answered. Answers are (True, value) or (False, the error's line): an analysis error is the run's, not the
    node's."""

    def __init__(self, path: str, jobs: int, cwd: str) -> None:
        self.path = os.path.join(cwd, os.path.expanduser(os.path.expandvars(path)))
        self.host = socket.gethostname()
        self.shard: Shard | None = None
        self.error: str | None = None
        self.unread: tuple[FileError, ...] = ()
        if not os.path.exists(self.path):
            self.error = f"{self.path}: no such file or folder"
            return
        try:
            files = files_in([self.path])
            tables, errors = one_run(read_paths(files, jobs, keep=Keep.VERDICT))
        except AnalysisError as exc:
            self.error = str(exc)
            return
        except OSError as exc:
            self.error = f"{self.path}: {exc.strerror or exc}"
            return
        self.shard = Shard(tables, errors) if tables else None
        self.unread = tuple(errors)

    def about(self) -> dict:
        """Where the node read, what it holds (its ranks, none when its PATH held no readable rank) and why not."""
        ranks = self.shard.ranks if self.shard is not None else ()
        return {"host": self.host, "path": self.path, "ranks": list(ranks), "error": self.error, "unread": self.unread}

    def ask(self, name: str, args: tuple) -> tuple[bool, object]:
        """One of the merge's questions (`ASKED`), answered by the node's shard."""
        if name not in ASKED or self.shard is None:
            return False, f"a node does not answer {name!r}"
        try:
            return True, getattr(self.shard, name)(*args)
        except AnalysisError as exc:
            return False, str(exc)


@dataclass(frozen=True)
class NodeShard:
    """A node's actor, asked as if it were a `Shard` (each answer waited for at most ANSWER_S)."""

    actor: Any
    node: str
    host: str
    ranks: tuple[int, ...]

    def ask_later(self, name: str, args: tuple) -> Callable[[], object]:
        """Send one of the merge's questions (`ASKED`); what waits for its answer (`analysis.asked`: every node is
        asked before any answer is awaited)."""
        if name not in ASKED:
            raise AttributeError(name)
        ref = self.actor.ask.remote(name, args)

        def answer() -> object:
            ok, value = _answer(self.where, ref)
            if not ok:
                raise RayError(f"node {self.where}: {value}")
            return value

        return answer

    def __getattr__(self, name: str) -> Callable[..., object]:
        if name not in ASKED:
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


def connect(address: str) -> Any:
    """Ray, connected to the cluster at `address` (`auto`: the one this machine belongs to; LOCAL: a Ray of its
    own), quiet: its logs stay in its session folder."""
    ray = ray_module()
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
    return ray


def node_shards(ray: Any, path: str, jobs: int, say: Callable[[str], None]) -> tuple[list[NodeShard], list[FileError]]:
    """One actor per live node, pinned to it, each having read PATH there; the nodes that hold ranks, as shards, and
    the files they left out. Nodes that hold the same ranks (a PATH on a shared filesystem) are read once, and a
    line says so; ranks partly held by two nodes are refused, naming both."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    reader = ray.remote(num_cpus=0, max_restarts=0)(NodeReader)
    nodes = sorted((n["NodeID"] for n in ray.nodes() if n.get("Alive")), key=str)
    if not nodes:
        raise RayError("the cluster has no live node")
    actors = [
        reader.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node, soft=False)).remote(
            path, jobs, os.getcwd()
        )
        for node in nodes
    ]
    shards = []
    for node, actor in zip(nodes, actors):
        about = _answer(_where("?", node), actor.about.remote())
        shard = NodeShard(actor, node, about["host"], tuple(about["ranks"]))
        if about["error"]:
            raise RayError(f"node {shard.where}: {about['error']}")
        say(_progress(shard, about["path"]))
        shards.append((shard, list(about["unread"])))
    kept = _once(shards, say)
    if not kept:
        raise RayError(f"no node holds a readable rank at {path}")
    return [s for s, _ in kept], [e for _, errors in kept for e in errors]


def _progress(shard: NodeShard, path: str) -> str:
    if not shard.ranks:
        return f"node {shard.where}: no rank at {path}"
    return f"node {shard.where}: {len(shard.ranks)} rank(s), {shard.ranks[0]} to {shard.ranks[-1]}, at {path}"


def _once(
    shards: Sequence[tuple[NodeShard, list[FileError]]], say: Callable[[str], None]
) -> list[tuple[NodeShard, list[FileError]]]:
    """The nodes with ranks, each set of ranks read once: nodes holding exactly the same ranks (one shared folder)
    keep the first and are said in one line; two nodes sharing only some ranks are refused."""
    by_ranks: dict[tuple[int, ...], list[tuple[NodeShard, list[FileError]]]] = defaultdict(list)
    for s in shards:
        if s[0].ranks:
            by_ranks[s[0].ranks].append(s)
    holder: dict[int, NodeShard] = {}
    kept: list[tuple[NodeShard, list[FileError]]] = []
    for ranks, same in by_ranks.items():
        if len(same) > 1:
            one, others = same[0][0].where, ", ".join(s.where for s, _ in same[1:])
            say(f"nodes {one} and {others} hold the same {len(ranks)} rank(s) (a shared folder?): read once on {one}")
        first = same[0][0]
        for r in ranks:
            if r in holder:
                raise RayError(
                    f"rank {r} is held by node {holder[r].where} and node {first.where}, with other ranks apart: "
                    "give each node a folder of its own ranks (or a shared folder to all of them)"
                )
            holder[r] = first
        kept.append(same[0])
    return kept


def progress(round_name: str) -> None:
    """A merge's rounds, on a terminal."""
    if sys.stderr.isatty():
        print(f"ray: {round_name}…", file=sys.stderr, flush=True)


def as_shards(shards: Sequence[NodeShard]) -> list[Shard]:
    """The node shards, typed as the merge asks them."""
    return cast(list[Shard], list(shards))
