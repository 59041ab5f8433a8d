"""What to hand to production: the JSONL recorder for a training loop (`instrument`), metric names, rules and a
dashboard (`alerts`), recorded steps played back (`replay`) and the Prometheus exporter (`exporter`, the one module
outside the standard library, behind the `prometheus` extra).

The front door: code outside this package imports only what `__all__` names here, each loaded on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .alerts import (  # noqa: F401
        ALERT,
        CHANCE_RECORD,
        DASHBOARD_PANELS,
        DEFAULT_JOB,
        GAP_RECORD,
        PHASE_METRIC,
        SHARE_RECORD,
        STEP_METRIC,
        STEPS_METRIC,
        WAIT_HELP,
        WAIT_METRIC,
        RuleTiming,
        dashboard,
        exposition,
        rules_file,
        scrape_config,
    )
    from .exporter import (  # noqa: F401
        Exporter,
        serve_metrics,
        served,
    )
    from .hooked import (  # noqa: F401
        HookedSteps,
    )
    from .instrument import (  # noqa: F401
        Recorder,
        StepTimes,
    )
    from .jobrecorder import (  # noqa: F401
        OP_TYPES,
        JobRecorder,
        JobSizes,
    )
    from .perfetto import (  # noqa: F401
        JOB_EVENTS,
        PERFETTO_RANKS,
        job_trace_events,
        trace_events,
    )
    from .replay import (  # noqa: F401
        Frame,
        frames_at,
        frames_of,
        play,
    )

_LAZY = {
    "alerts": (
        "ALERT",
        "CHANCE_RECORD",
        "DASHBOARD_PANELS",
        "DEFAULT_JOB",
        "GAP_RECORD",
        "PHASE_METRIC",
        "RuleTiming",
        "SHARE_RECORD",
        "STEPS_METRIC",
        "STEP_METRIC",
        "WAIT_HELP",
        "WAIT_METRIC",
        "dashboard",
        "exposition",
        "rules_file",
        "scrape_config",
    ),
    "exporter": (
        "Exporter",
        "serve_metrics",
        "served",
    ),
    "hooked": ("HookedSteps",),
    "instrument": (
        "Recorder",
        "StepTimes",
    ),
    "jobrecorder": (
        "JobRecorder",
        "JobSizes",
        "OP_TYPES",
    ),
    "perfetto": (
        "JOB_EVENTS",
        "PERFETTO_RANKS",
        "job_trace_events",
        "trace_events",
    ),
    "replay": (
        "Frame",
        "frames_at",
        "frames_of",
        "play",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
