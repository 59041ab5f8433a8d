"""Python's cycle collector around the making of a large, long-lived structure (a read's measurement)."""

import gc
from contextlib import contextmanager


@contextmanager
def set_aside():
    """The cycle collector off while the block makes a large structure that lives on (a read's measurement, its
    judgement and drawing), then everything alive set aside (`gc.freeze`), and the collector as it was.

    In the page's Python (3.14, whose collector is incremental), collections during the unpickling of 8 ranks x
    11,700 steps grew with the heap to 245 ms each, and later ones would walk that structure again. What is set
    aside is still freed once nothing refers to it (a new read's measurement replaces the last), unless it is part
    of a reference cycle; the page's start-up objects are set aside the same way."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()
