"""`shard` and `merge`: one verdict over ranks whose summaries lie on several machines (`analysis.shards`).

Each machine runs `python -m ddpcore shard FILES --listen HOST:PORT` over the ranks it holds; one runs `python -m
ddpcore merge HOST:PORT ...`, which asks every shard in rounds and prints what `analyze` prints. They talk over
`multiprocessing.connection` (TCP, each connection proven by an HMAC of a shared key, `KEY_VARIABLE`): pickles
cross it, so a shard answers only a merge that knows the key, and only the questions of `ASKED`.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable, Sequence
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from typing import cast

from ..analysis import AnalysisError, Shard

__all__ = ["ASKED", "KEY_VARIABLE", "Remote", "ShardError", "address_of", "key", "progress", "remotes", "serve"]

KEY_VARIABLE = "DDPCORE_SHARD_KEY"
"""The environment variable holding the key a merge and its shards share."""
ASKED = (
    "hello",
    "begin",
    "samples",
    "between",
    "count_upto",
    "above",
    "counts_upto",
    "places",
    "adjust",
    "suspects",
    "sums",
    "deviations",
    "lateness",
    "waits",
    "costs",
    "over",
    "entries",
    "unread",
)
"""The questions a shard answers (`analysis.shards.Shard`'s methods, in the order a merge asks them; the files it
left out last, for the merge's own lines)."""


class ShardError(Exception):
    """A shard that cannot be reached or that stopped answering: one line."""


def key() -> bytes:
    """The shared key, from the environment (a merge and its shards must not run without one)."""
    value = os.environ.get(KEY_VARIABLE, "")
    if len(value) < 16:
        raise ShardError(
            f"set {KEY_VARIABLE} to the same secret of at least 16 characters for the merge and every shard "
            f"(for instance {secrets.token_hex(16)})"
        )
    return value.encode()


def address_of(text: str) -> tuple[str, int]:
    """HOST:PORT as an address (a port from 0 to 65535; 0 at `--listen` lets the system choose).

    >>> address_of("node7:7070")
    ('node7', 7070)
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ShardError(f"{text!r} is not HOST:PORT")
    return host, int(port)


def serve(shard: Shard, listener: Listener, refused: Callable[[str], None]) -> None:
    """Answer one merge's questions until it hangs up; a connection without the key is told `refused` and the shard
    waits for the next. An analysis error goes back to the merge, which says it."""
    while True:
        try:
            conn = listener.accept()
        except (AuthenticationError, EOFError, OSError) as exc:
            refused(f"refused a connection from {listener.last_accepted or 'a client'} ({exc or 'no key'})")
            continue
        break
    with conn:
        while True:
            try:
                name, args = conn.recv()
            except (EOFError, OSError):
                return
            if name not in ASKED:
                conn.send((False, ShardError(f"a shard does not answer {name!r}")))
                continue
            try:
                conn.send((True, getattr(shard, name)(*args)))
            except AnalysisError as exc:
                conn.send((False, exc))


class Remote:
    """A shard on another process or machine, asked as if it were a `Shard`."""

    def __init__(self, address: tuple[str, int], secret: bytes) -> None:
        self.address = address
        try:
            self.conn: Connection = Client(address, authkey=secret)
        except OSError as exc:
            raise ShardError(f"no shard at {address[0]}:{address[1]} ({exc.strerror or exc})") from None
        except (AuthenticationError, EOFError):
            raise ShardError(f"the shard at {address[0]}:{address[1]} refused the key") from None

    def __getattr__(self, name: str) -> object:
        if name not in ASKED:
            raise AttributeError(name)

        def asked(*args: object) -> object:
            try:
                self.conn.send((name, args))
                ok, value = self.conn.recv()
            except (EOFError, OSError):
                raise ShardError(f"the shard at {self.address[0]}:{self.address[1]} stopped answering") from None
            if not ok:
                raise value
            return value

        return asked

    def close(self) -> None:
        """Hang up: the shard then exits."""
        self.conn.close()


def remotes(addresses: Sequence[str]) -> list[Shard]:
    """Every shard, connected (closed again if one cannot be)."""
    secret = key()
    twice = next((a for a in addresses if addresses.count(a) > 1), None)
    if twice is not None:
        raise ShardError(f"{twice} is given twice: a shard answers one merge, and holds its ranks once")
    out: list[Remote] = []
    try:
        for a in addresses:
            out.append(Remote(address_of(a), secret))
    except ShardError:
        for r in out:
            r.close()
        raise
    return cast(list[Shard], out)


def progress(round_name: str) -> None:
    """A merge's rounds, on a terminal."""
    if sys.stderr.isatty():
        print(f"merge: {round_name}…", file=sys.stderr, flush=True)
