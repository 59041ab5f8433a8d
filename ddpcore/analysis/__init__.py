"""From the traces of a run to its verdict: which files are one run (`runs`), how late ranks are by chance
(`chance`) and the questions it is measured by, in this process or over shards (`rounds`), the measurement no
threshold changes (`measured`, `rankmap`, `whatif`), the verdict at a threshold (`verdict`), the same verdict merged
from shards of the ranks (`shards`) and the cluster model fitted to the run (`fitting`).

The front door: the layer's public names (`__all__`), each loaded on first use: what a user of ddpcore needs, kept
as it is between releases. The layers above reach the rest of its modules' names by module (`from
..analysis.chance import ALPHA`); code outside ddpcore has no promise that they stay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .comparison import (  # noqa: F401
        Comparison,
        compare,
    )
    from .fitting import (  # noqa: F401
        Fit,
        FitError,
        Outlook,
        RunTimes,
        WhatIf,
        outlook,
        outlook_of,
        outlook_or_why,
    )
    from .jobwhatif import (  # noqa: F401
        JobWhatIf,
        job_whatif,
    )
    from .measured import (  # noqa: F401
        measure,
        measure_loaded,
    )
    from .results import (  # noqa: F401
        DrawnRank,
        Measured,
        RankSummary,
        StepColumns,
        StepSummary,
    )
    from .verdict import (  # noqa: F401
        Analysis,
        Cause,
        analyze,
        judge,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "comparison": (
        "Comparison",
        "compare",
    ),
    "fitting": (
        "Fit",
        "FitError",
        "Outlook",
        "RunTimes",
        "WhatIf",
        "outlook",
        "outlook_of",
        "outlook_or_why",
    ),
    "jobwhatif": (
        "JobWhatIf",
        "job_whatif",
    ),
    "measured": (
        "measure",
        "measure_loaded",
    ),
    "results": (
        "DrawnRank",
        "Measured",
        "RankSummary",
        "StepColumns",
        "StepSummary",
    ),
    "verdict": (
        "Analysis",
        "Cause",
        "analyze",
        "judge",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
