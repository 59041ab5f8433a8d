"""Work in steps: a generator that yields between pieces of work and returns its result, so that a page can give its
thread back between them, and anything else can run it to its end at once."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

__all__ = ["finished"]

T = TypeVar("T")


def finished(steps: Generator[None, None, T]) -> T:
    """Work in steps (a generator that yields nothing and returns its result) run to its end.

    >>> def two():
    ...     yield
    ...     return "done"
    >>> finished(two())
    'done'
    """
    while True:
        try:
            next(steps)
        except StopIteration as end:
            return end.value
