"""The command line: each command's arguments and run (`commands`) and what it reports, as JSON and text
(`reports`).

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .commands import (  # noqa: F401
        PROGRESS_AFTER_S,
        ProgressLine,
        build_parser,
        main,
    )
    from .fork import (  # noqa: F401
        ForkedPart,
        Reading,
        ShardLost,
        forked,
        forked_parts,
        give_back,
    )
    from .onray import (  # noqa: F401
        ANSWER_S,
        NodePart,
        NodeReader,
        RayError,
        node_job,
        node_parts,
        node_readers,
        ray_module,
    )
    from .reports import (  # noqa: F401
        Report,
        cluster_table,
        ring_payload,
        ring_text,
        step_payload,
        step_text,
    )
    from .verdicts import (  # noqa: F401
        analysis_payload,
        analysis_text,
        compare_payload,
        compare_text,
        fit_payload,
        fit_text,
        job_payload,
        job_text,
    )

_LAZY = {
    "commands": (
        "PROGRESS_AFTER_S",
        "ProgressLine",
        "build_parser",
        "main",
    ),
    "fork": (
        "ForkedPart",
        "Reading",
        "ShardLost",
        "forked",
        "forked_parts",
        "give_back",
    ),
    "onray": (
        "ANSWER_S",
        "NodePart",
        "NodeReader",
        "RayError",
        "node_job",
        "node_parts",
        "node_readers",
        "ray_module",
    ),
    "reports": (
        "Report",
        "cluster_table",
        "ring_payload",
        "ring_text",
        "step_payload",
        "step_text",
    ),
    "verdicts": (
        "analysis_payload",
        "analysis_text",
        "compare_payload",
        "compare_text",
        "fit_payload",
        "fit_text",
        "job_payload",
        "job_text",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
