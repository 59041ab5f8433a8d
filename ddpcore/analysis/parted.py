"""A run measured where its files are read: the files cut into parts, each read by a process of its own
(`cli.fork.forked_parts`), by actors on the nodes of a Ray cluster (`cli.onray.node_parts`) or by this one, so
that no process ever holds every rank's tables (at 10^8 rank-steps, a parent that read them all and then forked its
shards kept 10 GB between them).

Each part reads its files (`FilesRead`) and says what each one held (`Header`: rank, source, world size, steps) or
why it could not be read. Which files make the run is then decided here, by the rules `measured.one_run` applies to
tables held in one process, from what the parts say: a rank's first file (`traces.first_per_rank`), the run that
links the most ranks (`runs.run_groups`: the references' releases are asked of the parts that hold them, every
other rank's drifts are measured where it is held). Each part then keeps the run's ranks as its `Shard`
(`FilesRead.keep`), and `shards.measure_shards` asks the parts the rounds it asks any shards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from ..traces import FileError, RankColumns, table_of
from ..traces.files import Progress, read_each
from ..traces.keeping import Keep
from ..traces.parse import first_per_rank
from .results import AnalysisError, Measured
from .runs import Drifts, Releases, drifts_to, references, run_groups
from .shards import Shard, asked, asked_each, measure_shards

__all__ = ["LETTING_GO", "QUESTIONS", "FilesRead", "Header", "Part", "measure_parts"]


@dataclass(frozen=True)
class Header:
    """What a part says of a file it read: its place among all the files, its rank, where it came from, its world
    size (None when the file does not say) and how many steps it holds."""

    index: int
    rank: int
    source: str
    world_size: int | None
    steps: int


class FilesRead:
    """Some of a run's files (consecutive ones, from the `first`-th of all), read here, kept as a verdict at a
    threshold keeps them (`traces.Keep.VERDICT`), and held until the run is known: then its ranks in the run are
    its `Shard`. Every answer is plain data, so that a part can be a forked process (`cli.fork.ForkedPart`).

    >>> import os, tempfile
    >>> from ddpcore.traces import simulated_run, summary_bytes
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = [os.path.join(d, f"rank{r.rank}.ddps") for r in simulated_run(2, 3, seed=1)[0]]
    ...     for path, r in zip(paths, simulated_run(2, 3, seed=1)[0]):
    ...         _ = open(path, "wb").write(summary_bytes(r))
    ...     part = FilesRead(paths, 10)
    >>> [(h.index, h.rank, h.steps) for h in part.headers()]
    [(10, 0, 3), (11, 1, 3)]
    >>> part.keep([11]).ranks
    (1,)
    """

    def __init__(self, files: Sequence[str], first: int, progress: Progress | None = None) -> None:
        self.tables: dict[int, RankColumns] = {}
        self.said: list[Header | FileError] = []
        for k, read in enumerate(read_each(files, Keep.VERDICT, progress), start=first):
            if isinstance(read, FileError):
                self.said.append(read)
                continue
            table = self.tables[k] = table_of(read)
            self.said.append(Header(k, table.rank, table.source, table.world_size, len(table.step)))
        self.shard: Shard | None = None

    def headers(self) -> list[Header | FileError]:
        """What each file held, or why it could not be read, in the files' order."""
        return self.said

    def releases(self, indices: Sequence[int]) -> dict[int, Releases]:
        """The releases of the files at these places (the run's references it holds)."""
        return {k: Releases.of(self.tables[k]) for k in indices}

    def drifts(
        self,
        places: dict[int, int],
        known: dict[int, Releases],
        main: int,
        main_world: int | None,
        bound: float,
    ) -> Drifts:
        """The drifts of the ranks it holds (`places`: a file's place among all the files -> its rank's place in the
        run, sorted by rank) to the references (`runs.drifts_to`)."""
        found: Drifts = {}
        for k, i in places.items():
            table = self.tables[k]
            found.update(drifts_to(i, Releases.of(table), table.world_size, known, main, main_world, bound))
        return found

    def keep(self, indices: Sequence[int]) -> Shard:
        """The files at these places (the run's ranks it holds) as its `Shard`, every other table let go."""
        self.shard = Shard([self.tables[k] for k in indices])
        self.tables = {}
        return self.shard


Part: TypeAlias = FilesRead
"""What `measure_parts` asks: a `FilesRead` here, or one in a forked process or on a Ray node answering as it
would."""


def _public(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if not name.startswith("_") and callable(value)}


QUESTIONS = frozenset(_public(FilesRead) | _public(Shard))
"""What a part answers, wherever it is: its reading's questions (`FilesRead`), then its shard's (`Shard`)."""
LETTING_GO = frozenset({"keep", "begin", "waits", "over"})
"""The questions after which a part holds much less than before (the other runs' tables; the columns a verdict
never reads; what only chance read, and the columns only the waits read; the pooled costs): where a process gives
freed memory back (`cli.fork.give_back`), and only there: a trim walks the whole heap (with one after every answer,
and the left-out runs then searched a Python call a step, 10^8 rank-steps took 788 s against 542)."""


def measure_parts(
    parts: Sequence[Part],
    threshold: float,
    rounds: Callable[[str], None] | None = None,
    read: Callable[[int, int], None] | None = None,
) -> tuple[Measured | None, tuple[FileError, ...]]:
    """The run the parts' files hold, measured at `threshold` (`shards.measure_shards`, each round's name told to
    `rounds`), and the files left out, each with its line; when the files hold no run that can be measured, None
    and why, as one more line (source `measured.RUN`): what `measured.measure_loaded` gives for the same files read
    in one process. `read` hears how many ranks and rank-steps were read, once every part has read its files.

    >>> import os, tempfile
    >>> from ddpcore.traces import simulated_run, summary_bytes
    >>> ranks = simulated_run(4, 8, persistent=(2,), seed=3)[0]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = [os.path.join(d, f"rank{r.rank}.ddps") for r in ranks]
    ...     for path, r in zip(paths, ranks):
    ...         _ = open(path, "wb").write(summary_bytes(r))
    ...     measured, errors = measure_parts([FilesRead(paths[:3], 0), FilesRead(paths[3:], 3)], 0.1)
    >>> [r.rank for r in measured.ranks], len(measured.steps), errors
    ([0, 1, 2, 3], 8, ())
    """
    from .measured import RUN, the_run

    told = asked(parts, "headers")
    owner = {h.index: p for p, answer in enumerate(told) for h in answer if isinstance(h, Header)}
    firsts, unread = first_per_rank(h for answer in told for h in answer)
    if read is not None:
        read(len(firsts), sum(h.steps for h in firsts))
    try:
        if len(firsts) < 2:
            raise AnalysisError("run.two_ranks")
        groups = run_groups(len(firsts), [h.world_size for h in firsts], *_linking(parts, firsts, owner))
        kept, others = the_run([[firsts[i] for i in g] for g in groups])
        held = [
            part.keep(mine) for p, part in enumerate(parts) if (mine := [h.index for h in kept if owner[h.index] == p])
        ]
        return measure_shards(held, threshold, rounds), (*unread, *others)
    except AnalysisError as exc:
        return None, (*unread, FileError(RUN, exc.message))


def _linking(
    parts: Sequence[Part], firsts: Sequence[Header], owner: dict[int, int]
) -> tuple[dict[int, Releases], Callable[[int, float], Drifts]]:
    """The references' releases, asked of the parts that hold them, and what asks every part for the drifts of the
    other ranks it holds (`runs.run_groups`'s `known` and `rest`)."""
    place = {h.index: i for i, h in enumerate(firsts)}

    def each_part(places: Sequence[int]) -> list[dict[int, int]]:
        mine: list[dict[int, int]] = [{} for _ in parts]
        for i in places:
            mine[owner[firsts[i].index]][firsts[i].index] = i
        return mine

    refs = references(len(firsts))
    answers = asked_each(parts, "releases", [(list(m),) for m in each_part(refs)])
    known = dict(sorted((place[k], r) for answer in answers for k, r in answer.items()))
    worlds = [h.world_size for h in firsts]

    def rest(main: int, bound: float) -> Drifts:
        others = [i for i in range(len(firsts)) if i not in known]
        each = [(m, known, main, worlds[main], bound) for m in each_part(others)]
        return {pair: d for answer in asked_each(parts, "drifts", each) for pair, d in answer.items()}

    return known, rest
