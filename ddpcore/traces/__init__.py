"""Every input format, read as a stream: bounded bytes and JSON values one at a time (`reader`), collectives by
kind (`collectives`), Kineto and JSONL events to per-step traces (`parse`), files from disk (`files`), what the
analysis measures of each step (`stepfacts`, `tracefacts`) and per-rank summaries (`summary`).

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .columnar import (  # noqa: F401
        summary_bytes,
    )
    from .files import (  # noqa: F401
        read_paths,
    )
    from .optrace import (  # noqa: F401
        read_job,
    )
    from .parse import (  # noqa: F401
        FileError,
        Loaded,
        RankTrace,
        TraceStep,
        load,
        load_streams,
        read_or_why,
    )
    from .simulated import (  # noqa: F401
        simulated_run,
    )
    from .stepfacts import (  # noqa: F401
        RankColumns,
        RankFacts,
        StepFacts,
    )
    from .tracefacts import (  # noqa: F401
        facts_of,
        table_of,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "columnar": ("summary_bytes",),
    "files": ("read_paths",),
    "optrace": ("read_job",),
    "parse": (
        "FileError",
        "Loaded",
        "RankTrace",
        "TraceStep",
        "load",
        "load_streams",
        "read_or_why",
    ),
    "simulated": ("simulated_run",),
    "stepfacts": (
        "RankColumns",
        "RankFacts",
        "StepFacts",
    ),
    "tracefacts": (
        "facts_of",
        "table_of",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
