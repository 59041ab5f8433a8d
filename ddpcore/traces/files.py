"""Trace files from disk: streamed in chunks, one process per file when asked (`analyze --jobs N`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence

from .keeping import Keep, kept
from .parse import FileError, Loaded, ReadRank, collect, read_or_why
from .reader import READ_CHUNK

__all__ = ["Progress", "chunks_of", "files_in", "read_each", "read_path", "read_paths"]

Progress = Callable[[int, int, int, int], None]
"""Called after each file: files done, files in all, bytes done, bytes in all."""


def chunks_of(path: str, size: int = READ_CHUNK) -> Iterator[bytes]:
    """A file's bytes, chunk by chunk."""
    with open(path, "rb") as handle:
        while chunk := handle.read(size):
            yield chunk


def files_in(paths: Sequence[str]) -> list[str]:
    """The paths given, each folder replaced by the files directly in it (sorted, hidden ones left out): 100,000
    ranks' summaries are passed as their folder, past the command line's length limit.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     for name in ("rank1.jsonl", "rank0.jsonl", ".hidden"):
    ...         _ = open(os.path.join(d, name), "w").write("")
    ...     [os.path.basename(p) for p in files_in([d, "other.json"])]
    ['rank0.jsonl', 'rank1.jsonl', 'other.json']
    """
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            with os.scandir(path) as entries:
                out += sorted(e.path for e in entries if e.is_file() and not e.name.startswith("."))
        else:
            out.append(path)
    return out


def read_path(path: str) -> ReadRank | FileError:
    """One trace file, or why it cannot be read (one line)."""
    size = _size(path)
    return read_or_why(path, chunks_of(path), size or None)


def _read_kept(path: str, keep: Keep) -> ReadRank | FileError:
    return kept(read_path(path), keep)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


SENT_AT_ONCE = 32
"""Files handed to a reading process at a time, at most: one at a time costs a round trip each (10,000 summaries,
about 4 s)."""


def read_each(
    paths: Sequence[str], keep: Keep = Keep.WHOLE, progress: Progress | None = None
) -> Iterator[ReadRank | FileError]:
    """Every file read in this process, in the order given, each kept as `keep` declares (`kept`): one at a time,
    so that a caller that keeps less of each (a forked part of a run, `cli.fork`) never holds a file read whole.

    >>> [type(r).__name__ for r in read_each(["/no/such/file"])]
    ['FileError']
    """
    return _told((_read_kept(path, keep) for path in paths), paths, progress)


def _told(results: Iterable[ReadRank | FileError], paths: Sequence[str], progress: Progress | None) -> Iterator:
    """The results of reading `paths`, in their order, `progress` told after each."""
    sizes = [_size(p) for p in paths]
    total, done_bytes = sum(sizes), 0
    for i, result in enumerate(results):
        done_bytes += sizes[i]
        if progress:
            progress(i + 1, len(paths), done_bytes, total)
        yield result


def read_paths(
    paths: Sequence[str], jobs: int = 1, progress: Progress | None = None, keep: Keep = Keep.WHOLE
) -> Loaded:
    """Every file, in `jobs` processes at once (1: in this one); results in the order given, each kept as `keep`
    declares where it was read (`kept`), so that only what is kept crosses back.

    >>> import os, tempfile
    >>> from ddpcore.traces import simulated_run, summary_bytes
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "rank0.ddps")
    ...     _ = open(path, "wb").write(summary_bytes(simulated_run(2, 3, seed=1)[0][0]))
    ...     whole, thin = read_paths([path]).traces[0], read_paths([path], keep=Keep.VERDICT).traces[0]
    >>> len(whole.phases_ms) > 0, thin.phases_ms
    (True, {})
    """
    if jobs <= 1 or len(paths) <= 1:
        return collect(read_each(paths, keep, progress))
    from concurrent.futures import ProcessPoolExecutor

    workers = min(jobs, len(paths))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        at_once = max(1, min(SENT_AT_ONCE, len(paths) // (4 * workers)))
        return collect(_told(pool.map(_read_kept, paths, [keep] * len(paths), chunksize=at_once), paths, progress))
