"""Views: a state in, markup out. The One step view (ring, timeline, cost), the cluster view, and Your traces (the
verdict, the rank x step map, the lanes, the fit); `page` puts the explainer's regions together, keeps those
drawn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ddpcore.base.front import front_door

if TYPE_CHECKING:  # the lazy names, for type checkers and editors
    from .cluster import (  # noqa: F401
        cluster_plot_svg,
        cluster_values_html,
        timing_note,
    )
    from .compare import (  # noqa: F401
        compare_html,
    )
    from .cost import (  # noqa: F401
        cost_html,
        cost_row,
        gauge_pair,
        metrics_dl,
        modes_html,
        ms_row,
        percent_row,
    )
    from .fit import (  # noqa: F401
        fit_html,
    )
    from .jobs3d import (  # noqa: F401
        HEAT_ROWS,
        job_heatmap,
        job_html,
        job_step_html,
        job_step_svg,
    )
    from .page import (  # noqa: F401
        IN_PLACE,
        PATCHED,
        PRERENDERED_LANG,
        PROGRESS_REGION,
        SCREENS_KEPT,
        Frame,
        axis_max_ms,
        config_of,
        notices_html,
        prerendered,
        regions,
        step_regions,
        straggler_options,
    )
    from .rankmap import (  # noqa: F401
        CELLS_PER_STEP,
        map_drawing,
        map_svg,
    )
    from .ring import (  # noqa: F401
        ring_svg,
        shade,
    )
    from .timeline import (  # noqa: F401
        TimelineGeometry,
        tick_step,
        timeline_svg,
        trace_timeline_drawing,
    )
    from .traces import (  # noqa: F401
        LISTED,
        ROWS_PER_STEP,
        TABLE_ROWS,
        TRACE_REGIONS,
        ranks_table,
        traces_region_items,
        traces_regions,
        verdict_html,
    )

_LAZY: dict[str, tuple[str, ...]] = {
    "cluster": (
        "cluster_plot_svg",
        "cluster_values_html",
        "timing_note",
    ),
    "compare": ("compare_html",),
    "cost": (
        "cost_html",
        "cost_row",
        "gauge_pair",
        "metrics_dl",
        "modes_html",
        "ms_row",
        "percent_row",
    ),
    "fit": ("fit_html",),
    "jobs3d": (
        "HEAT_ROWS",
        "job_heatmap",
        "job_html",
        "job_step_html",
        "job_step_svg",
    ),
    "page": (
        "Frame",
        "IN_PLACE",
        "PATCHED",
        "PRERENDERED_LANG",
        "PROGRESS_REGION",
        "SCREENS_KEPT",
        "axis_max_ms",
        "config_of",
        "notices_html",
        "prerendered",
        "regions",
        "step_regions",
        "straggler_options",
    ),
    "rankmap": (
        "CELLS_PER_STEP",
        "map_drawing",
        "map_svg",
    ),
    "ring": (
        "ring_svg",
        "shade",
    ),
    "timeline": (
        "TimelineGeometry",
        "tick_step",
        "timeline_svg",
        "trace_timeline_drawing",
    ),
    "traces": (
        "LISTED",
        "ROWS_PER_STEP",
        "TABLE_ROWS",
        "TRACE_REGIONS",
        "ranks_table",
        "traces_region_items",
        "traces_regions",
        "verdict_html",
    ),
}
"""Module -> the public names it gives, loaded when one of them is first asked for."""

__getattr__, __dir__ = front_door(__name__, _LAZY)
__all__ = sorted(name for names in _LAZY.values() for name in names)
