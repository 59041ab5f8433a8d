"""Reading progress: the files a read is under way on, a column per field, their sums kept as files change, and
the progress list drawn."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple, cast

from .. import i18n

__all__ = [
    "PROGRESS_ROWS",
    "FileProgress",
    "Progress",
    "being_read",
    "progress_html",
    "progress_of",
    "progressed",
]


class FileProgress(NamedTuple):
    """A file the worker reads: its name, bytes read of its size, and its rank once read; one row of a `Progress`,
    made for the files a message changes and those the progress list shows."""

    name: str
    size: int | None
    """None until the worker has read the sizes."""
    done: int = 0
    rank: int | None = None


def being_read(f: FileProgress) -> bool:
    """Not read whole yet, and not refused for its size: the worker reads the files in turn, so the first such file
    is the one being read."""
    from ddpcore.traces.parse import MAX_FILE_BYTES

    return f.rank is None and (f.size is None or f.done < f.size <= MAX_FILE_BYTES)


class Progress(NamedTuple):
    """The files of a read under way, a column per field, and their sums as the progress shows them, kept as files
    change (`progress_of`, `progressed`): a pick of 4,096 files gets ten messages a second, and making a row per file
    or walking them all at each message held the page's thread up to 50 ms on a slow machine."""

    names: tuple[str, ...] = ()
    sizes: tuple[int | None, ...] = ()
    """None until the worker has read the sizes."""
    done: tuple[int, ...] = ()
    ranks: tuple[int | None, ...] = ()
    read: int = 0
    """Files read whole."""
    bytes_read: int = 0
    size: int | None = 0
    """Bytes of all the files; None while a size is unknown."""
    now: int | None = None
    """The file being read (`being_read`); None when there is none."""

    def file(self, i: int) -> FileProgress:
        """The i-th file's row."""
        return FileProgress(self.names[i], self.sizes[i], self.done[i], self.ranks[i])

    @property
    def files(self) -> tuple[FileProgress, ...]:
        """Every file's row."""
        return tuple(map(self.file, range(len(self.names))))

    def first_read(self, start: int) -> int | None:
        """The first file being read from `start` on."""
        return next((i for i in range(start, len(self.names)) if being_read(self.file(i))), None)


def progress_of(
    names: tuple[str, ...], sizes: tuple[int | None, ...], done: tuple[int, ...], ranks: tuple[int | None, ...]
) -> Progress:
    """The progress of these files, summed whole (C loops): once a pick, and when the sizes come."""
    p = Progress(names, sizes, done, ranks, len(ranks) - ranks.count(None), sum(done))
    return p._replace(
        size=None if None in sizes else sum(cast(tuple[int, ...], sizes)),
        now=p.first_read(ranks.index(None)) if None in ranks else None,
    )


def progressed(progress: Progress, changed: dict[int, FileProgress]) -> Progress:
    """The progress with these files (by index) changed, its sums moved by the changes alone. The file being read
    is the first changed one being read, or the first being read from the last one on: a file before that one which
    did not change was not being read, and still is not."""
    was = list(map(progress.file, changed))
    new = list(changed.values())
    sizes, done, ranks = list(progress.sizes), list(progress.done), list(progress.ranks)
    for i, f in changed.items():
        sizes[i], done[i], ranks[i] = f.size, f.done, f.rank
    if progress.size is not None:  # every size known, and a file's size, once known, stays an int
        size: int | None = progress.size + sum(f.size or 0 for f in new) - sum(f.size or 0 for f in was)
    else:
        size = None if None in sizes else sum(cast(list[int], sizes))
    p = Progress(
        progress.names,
        tuple(sizes),
        tuple(done),
        tuple(ranks),
        progress.read + sum(f.rank is None for f in was) - sum(f.rank is None for f in new),
        progress.bytes_read + sum(f.done for f in new) - sum(f.done for f in was),
        size,
    )
    later = None if progress.now is None else p.first_read(progress.now)
    now = [i for i, f in changed.items() if being_read(f)] + ([] if later is None else [later])
    return p._replace(now=min(now, default=None))


PROGRESS_ROWS = 8
"""Past this many files, the progress list shows one row for all of them and one for the file being read."""


def progress_html(progress: Progress, lang: str) -> str:
    """A progress bar per file: its name (and rank once read), the share and megabytes read; the current one marked.
    Past PROGRESS_ROWS files, a bar for all of them (files and megabytes read) and the current file's."""
    now, n = progress.now, len(progress.names)
    if n <= PROGRESS_ROWS:
        return "".join(_progress_row(f, lang, i == now) for i, f in enumerate(progress.files))
    name = i18n.t("traces.progress_all", lang, read=progress.read, n=n)
    whole = FileProgress(name, progress.size, progress.bytes_read)
    return _progress_row(whole, lang, False) + (
        _progress_row(progress.file(now), lang, True) if now is not None else ""
    )


@lru_cache(maxsize=64)
def _progress_row(f: FileProgress, lang: str, current: bool) -> str:
    """One file's row; kept, since a message moves one file of those shown."""
    from ddpcore.traces.reader import KIB, MIB

    from ..markup import tag, text

    name = f.name if f.rank is None else f"{f.name} · {i18n.t('rank', lang, r=f.rank)}"
    row = {
        "data-testid": "trace-progress-file",
        "class": "current" if current else None,
        "aria-current": current and "step",
    }
    bar = {"data-testid": "trace-progress-bar", "aria-label": i18n.t("traces.progress_of", lang, name=f.name)}
    if f.size is None:
        return tag("li", row, text("span", {"class": "name"}, name), tag("progress", bar))
    share = f.done / f.size if f.size else 1.0
    unit, key = (MIB, "traces.progress_mb") if f.size >= MIB else (KIB, "traces.progress_kb")
    mb = i18n.t(key, lang, done=i18n.number(f.done / unit, lang), size=i18n.number(f.size / unit, lang))
    return tag(
        "li",
        row,
        text("span", {"class": "name"}, name),
        tag("progress", {"max": max(f.size, 1), "value": f.done, **bar}),
        text("output", {"data-value": share}, i18n.percent(share, lang)),
        text("span", {"class": "mb"}, mb),
    )
